"""A ``%%ask`` cell re-run after a kernel restart (issue #35, item 6): the turn each cell
showed last is kept in the home's ``sessions.db`` (by the notebook's keyed path hash and
the cell's id), so after Restart the same cell lands on its turn and adds none, in a real
kernel restarted through jupyter_client as a front end's Restart does. A kept row names
only a turn: another notebook's cell with the same id, or a row naming a turn that
asked something else, is never taken as this cell's."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from queue import Empty
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from jupyter_client.manager import KernelManager

from arborist._facade.app import Arborist
from tests.kernels import ipc_kernel_manager
from tests.test_cell_reruns import ALONE, EVIL, FOLLOW, OTHER, SPIDER, run, turns

REPO = Path(__file__).resolve().parents[1]  # the kernel imports this checkout
KERNEL_S = 120.0  # a kernel's start and one local answer on a busy 2-core machine


def _documents(folder: Path) -> Path:
    folder.mkdir()
    (folder / "spider.md").write_text(SPIDER, encoding="utf-8")
    (folder / "evil.md").write_text(EVIL, encoding="utf-8")
    return folder


def _shell(documents: Path | None = None) -> InteractiveShell:
    """A fresh kernel's shell: a new IPython, the magics loaded anew (nothing in memory)."""
    InteractiveShell.clear_instance()
    ip = InteractiveShell.instance()
    assert ip.run_cell("%load_ext arborist_nb").success
    if documents is not None:
        ip.run_line_magic("arborist", f"ingest {documents}")
    return ip


@pytest.fixture
def notebook(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The notebook's path as Jupyter Server tells its kernel (``JPY_SESSION_NAME``)."""
    path = tmp_path / "work" / "cells.ipynb"
    monkeypatch.setenv("JPY_SESSION_NAME", str(path))
    yield path
    InteractiveShell.clear_instance()


def test_a_cell_run_again_after_a_restart_lands_on_its_turn(notebook: Path, tmp_path: Path) -> None:
    ip = _shell(_documents(tmp_path / "docs"))
    a, b, c = (run(ip, cell, q) for cell, q in (("a", ALONE), ("b", FOLLOW), ("c", OTHER)))
    assert b.node.parent_bates == a.bates
    count = turns(ip)
    ip = _shell()  # Restart: the session goes on (the notebook's), the cell memory is kept
    again = run(ip, "b", FOLLOW)  # the current turn is c's: without the memory, under it
    assert again.bates == b.bates and again.turn.reused and again.own
    assert again.status().startswith("this cell's earlier answer")
    assert [run(ip, cell, q).bates for cell, q in (("c", OTHER), ("b", FOLLOW))] == [
        c.bates, b.bates,
    ]  # fmt: skip
    assert turns(ip) == count


def test_another_notebooks_cell_of_the_same_id_is_not_this_cells(
    notebook: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A copy of the notebook has the same cell ids: its rows are its own."""
    ip = _shell(_documents(tmp_path / "docs"))
    a = run(ip, "a", ALONE)
    b = run(ip, "b", FOLLOW)
    run(ip, "c", OTHER)
    sid = a.node.sid
    monkeypatch.setenv("JPY_SESSION_NAME", str(notebook.with_name("copy.ipynb")))
    ip = _shell()
    ip.run_line_magic("arborist", f"session resume {sid}")
    copied = run(ip, "b", FOLLOW)
    assert copied.bates != b.bates and not copied.own


def test_a_kept_row_is_checked_against_the_turn_it_names(notebook: Path, tmp_path: Path) -> None:
    """A row edited to name another cell's turn (or no turn) is not believed: the cell's
    question is not that turn's, so it is asked as the session's current turn decides."""
    ip = _shell(_documents(tmp_path / "docs"))
    a, b, c = (run(ip, cell, q) for cell, q in (("a", ALONE), ("b", FOLLOW), ("c", OTHER)))
    ip.magics_manager.registry["ArboristMagics"].app.close()
    with sqlite3.connect(Path(os.environ["ARBORIST_HOME"]) / "sessions.db") as raw:
        assert raw.execute("UPDATE cell_turns SET bates = ? WHERE cell = 'b'", (a.bates,)).rowcount
        raw.execute("UPDATE cell_turns SET bates = 'nonsense' WHERE cell = 'c'")
    ip = _shell()
    app = ip.magics_manager.registry["ArboristMagics"].app
    assert app.cell_turn(str(notebook), "c") is None
    forged = run(ip, "b", FOLLOW)
    assert forged.bates not in (a.bates, b.bates) and not forged.own
    assert forged.node.parent_bates == c.bates, "a follow-up of the current turn, as ever"


# --- a real kernel, restarted --------------------------------------------------------------------


def _execute(km: KernelManager, code: str, cell: str) -> str:
    """Run ``code`` as a front end runs cell ``cell`` (its id in the request's metadata);
    return what it printed and displayed as text. Fails on an error."""
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=KERNEL_S)
        content = {"code": code, "silent": False, "store_history": True,
                   "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}  # fmt: skip
        msg = kc.session.msg("execute_request", content, metadata={"cellId": cell})
        kc.shell_channel.send(msg)
        return _outputs(kc, msg["header"]["msg_id"])
    finally:
        kc.stop_channels()


def _outputs(kc: Any, msg_id: str) -> str:
    said: list[str] = []
    while True:
        try:
            message = kc.get_iopub_msg(timeout=KERNEL_S)
        except Empty:
            pytest.fail(f"no answer from the kernel in {KERNEL_S:.0f} s: {said}")
        if message["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = message["msg_type"], message["content"]
        assert kind != "error", "\n".join(content.get("traceback", []))
        if kind == "stream":
            said.append(content["text"])
        elif kind in ("display_data", "execute_result"):
            said.append(content["data"].get("text/plain", ""))
        elif kind == "status" and content["execution_state"] == "idle":
            return "".join(said)


def _node_count(home: Path) -> int:
    with Arborist(home) as app:
        return sum(n for _session, n in app.sessions())


def test_a_real_kernel_restarted_keeps_each_cells_turn(tmp_path: Path) -> None:
    docs = _documents(tmp_path / "docs")
    home, notebook = tmp_path / "home", tmp_path / "work" / "restart.ipynb"
    env = {**os.environ, "ARBORIST_HOME": str(home), "JPY_SESSION_NAME": str(notebook),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(REPO)}  # fmt: skip
    env.pop("ARBORIST_COACCESS", None)
    km = ipc_kernel_manager(kernel_name="python3")  # ipykernel's own: this interpreter
    km.start_kernel(env=env, cwd=str(tmp_path))
    try:
        _execute(km, f"%load_ext arborist_nb\n%arborist ingest {docs}", "setup")
        for cell, question in (("a", ALONE), ("b", FOLLOW), ("c", OTHER)):
            _execute(km, f"%%ask\n{question}", cell)
        count = _node_count(home)
        km.restart_kernel(now=True)
        _execute(km, "%load_ext arborist_nb", "setup")
        said = _execute(km, f"%%ask\n{FOLLOW}", "b")
        assert "this cell's earlier answer" in said, said
        assert _node_count(home) == count, "no turn added"
    finally:
        km.shutdown_kernel(now=True)

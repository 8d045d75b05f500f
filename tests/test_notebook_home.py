"""A notebook's home over the kernel's life (issue #35): the magics follow ``$ARBORIST_HOME``
when a setup cell run again names another home, and a removed home is refused, never
re-created as an empty store, by the magics and by a widget that still shows it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from arborist_nb._widget import ForestWidget

SPIDER = "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\n"


@pytest.fixture
def shell(home: Path, tmp_path: Path) -> Iterator[InteractiveShell]:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "spider.md").write_text(SPIDER, encoding="utf-8")
    ip = InteractiveShell.instance()
    assert ip.run_cell("%load_ext arborist_nb").success
    yield ip
    ip.run_line_magic("unload_ext", "arborist_nb")
    InteractiveShell.clear_instance()


def _setup(ip: InteractiveShell, home: Path, docs: Path) -> Any:
    """What a notebook's setup cell and first cells do: name the home, load, ingest, ask."""
    assert ip.run_cell(f"import os\nos.environ['ARBORIST_HOME'] = {str(home)!r}").success
    assert ip.run_cell("%load_ext arborist_nb").success  # the second time: IPython does nothing
    ip.run_line_magic("arborist", f"ingest {docs}")
    return ip.run_cell_magic("ask", "", "Who created Spider-Man?")


def test_a_setup_cell_run_again_with_another_home_moves_the_magics_there(
    shell: InteractiveShell, home: Path, tmp_path: Path
) -> None:
    first = _setup(shell, home, tmp_path / "docs")
    again = tmp_path / "again"
    again.mkdir(mode=0o700)
    second = _setup(shell, again, tmp_path / "docs")
    assert {"store.db", "sessions.db"} <= {p.name for p in again.iterdir()}
    assert second.bates.endswith("-000001"), "a new home, a new session: its first turn"
    assert second.node.sid != first.node.sid


def test_a_removed_home_is_one_line_and_never_made_again(
    shell: InteractiveShell, home: Path, tmp_path: Path
) -> None:
    _setup(shell, home, tmp_path / "docs")
    shutil.rmtree(home)
    for cell in ("%%ask\nWho created Spider-Man?", "%arborist tree", "%arborist"):
        with capture_output() as captured:
            result = shell.run_cell(cell)
        assert result.error_in_exec is not None, cell
        said = captured.stderr.strip()
        assert said.count("\n") == 0 and "Traceback" not in said, said
        assert f"this kernel's home {home} was removed" in said, said
        assert not home.exists(), f"{cell} made the removed home again"


def test_a_widget_whose_home_was_removed_says_so_and_makes_nothing(
    shell: InteractiveShell, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _setup(shell, home, tmp_path / "docs")
    widget = shell.run_line_magic("arborist", "")
    assert isinstance(widget, ForestWidget)
    sent: list[Any] = []
    monkeypatch.setattr(widget, "send", lambda message, *_a, **_k: sent.append(message))
    widget._handle_custom_msg({"id": 1, "kind": "roots"}, [])
    assert sent[-1]["ok"] is True
    shutil.rmtree(home)
    for request_id, kind in enumerate(("roots", "poll", "body"), 2):
        widget._handle_custom_msg({"id": request_id, "kind": kind}, [])
        reply = sent[-1]
        assert reply["id"] == request_id and reply["ok"] is False
        assert reply["error"].startswith(f"this notebook's home {home} was removed"), reply
    assert not home.exists(), "the widget made the removed home again, as an empty store"
    widget.close()

"""A widget message addressed to a kernel subshell the kernel does not know is answered,
not dropped (docs/design.md section 6).

JupyterLab sends a widget's comm messages on a kernel subshell (one per comm target, its
default). After a restart it can address a new widget's messages to a subshell the restarted
kernel never made (a race in JupyterLab's per-comm-target subshells); ipykernel then drops
every message of that comm, logging "Unknown subshell_id", and the view, never answered,
says the link closed. The forest widget's comm sends such a message to the main shell
instead. Here a real ipykernel (started through jupyter_client, as Jupyter Server does) gets
the messages a front end would send: a view's ``poll`` on an unknown subshell, on the main
shell, and on a subshell it made; each is answered."""

from __future__ import annotations

import os
from pathlib import Path
from queue import Empty
from typing import Any

import pytest

from tests.kernels import ipc_kernel_manager

REPO = Path(__file__).resolve().parents[1]  # the kernel imports this checkout
KERNEL_S = 120.0  # a kernel's start on a busy 2-core machine
REPLY_S = 30.0
UNKNOWN = "0b5c3a1e-6f1d-4d0e-9a57-3b1f6c0de1a7"  # a subshell id no kernel made


@pytest.fixture
def kernel(tmp_path: Path) -> Any:
    (tmp_path / "home").mkdir(mode=0o700)  # a home, empty: the widget answers from it
    env = {**os.environ, "ARBORIST_HOME": str(tmp_path / "home"),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(REPO)}  # fmt: skip
    env.pop("ARBORIST_COACCESS", None)
    km = ipc_kernel_manager(kernel_name="python3")  # ipykernel's own: this interpreter
    km.start_kernel(env=env, cwd=str(tmp_path))
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=KERNEL_S)
        yield kc
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def _iopub_until(kc: Any, found: Any, what: str, timeout: float = KERNEL_S) -> Any:
    seen: list[str] = []
    while True:
        try:
            message = kc.get_iopub_msg(timeout=timeout)
        except Empty:
            pytest.fail(f"{what}: nothing in {timeout:.0f} s (iopub said: {seen[-12:]})")
        assert message["msg_type"] != "error", "\n".join(message["content"]["traceback"])
        seen.append(message["msg_type"])
        result = found(message)
        if result is not None:
            return result


def _forest_comm(kc: Any) -> str:
    """Show ``%arborist`` as a cell does; the forest widget's comm id."""
    kc.execute("%load_ext arborist_nb\n%arborist")

    def opened(message: dict[str, Any]) -> str | None:
        content = message["content"]
        if message["msg_type"] != "comm_open":
            return None
        state = content.get("data", {}).get("state", {})
        return content["comm_id"] if "root_bates" in state else None

    return _iopub_until(kc, opened, "the forest widget's comm_open")


def _poll(kc: Any, comm_id: str, request: str, subshell: str | None) -> None:
    """A view's ``poll`` as the front end sends it, on ``subshell`` (None: the main shell)."""
    data = {"method": "custom", "content": {"id": request, "kind": "poll", "grafts": []}}
    msg = kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
    if subshell is not None:
        msg["header"]["subshell_id"] = subshell
    kc.shell_channel.send(msg)


def _answered(kc: Any, comm_id: str, request: str) -> dict[str, Any]:
    def reply(message: dict[str, Any]) -> dict[str, Any] | None:
        content = message["content"]
        if message["msg_type"] != "comm_msg" or content.get("comm_id") != comm_id:
            return None
        answer = content.get("data", {}).get("content", {})
        return answer if answer.get("id") == request else None

    return _iopub_until(kc, reply, f"the answer to {request}", REPLY_S)


def _subshells(kc: Any) -> list[str]:
    msg = kc.session.msg("list_subshell_request", {})
    kc.control_channel.send(msg)
    reply = kc.control_channel.get_msg(timeout=REPLY_S)
    return list(reply["content"].get("subshell_id", []))


def _without_id(answer: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in answer.items() if key != "id"}


def test_a_widget_message_to_an_unknown_subshell_is_answered_not_dropped(kernel: Any) -> None:
    """Answered as the same message on the main shell is (here: no session yet, in one line)."""
    comm_id = _forest_comm(kernel)
    _poll(kernel, comm_id, "on-main", None)
    on_main = _without_id(_answered(kernel, comm_id, "on-main"))
    assert on_main.get("error", "").startswith("no session yet"), on_main
    assert UNKNOWN not in _subshells(kernel)
    _poll(kernel, comm_id, "on-unknown", UNKNOWN)  # what ipykernel alone drops
    assert _without_id(_answered(kernel, comm_id, "on-unknown")) == on_main
    _poll(kernel, comm_id, "on-main-again", None)  # and the comm goes on answering
    assert _without_id(_answered(kernel, comm_id, "on-main-again")) == on_main


def test_a_widget_message_to_a_subshell_the_kernel_made_still_runs_there(kernel: Any) -> None:
    """The guard sends on only what would be lost: a known subshell keeps its messages."""
    comm_id = _forest_comm(kernel)
    kernel.control_channel.send(kernel.session.msg("create_subshell_request", {}))
    made = kernel.control_channel.get_msg(timeout=REPLY_S)["content"]["subshell_id"]
    _poll(kernel, comm_id, "on-made", made)
    assert "error" in _answered(kernel, comm_id, "on-made")
    assert made in _subshells(kernel)

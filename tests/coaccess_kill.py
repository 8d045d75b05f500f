"""Asks one question with co-access on, and kills itself with SIGKILL between two writes.

    python -m tests.coaccess_kill HOME POINT QUESTION

POINT ``turn``: once the turn (and its spooled capture) is committed in
sessions.db, before anything is written to store.db. POINT ``rows``: once the
capture's co-access rows are committed in store.db, before the spool is
cleared. The kill is a real ``kill -9`` of this process at that moment: the hook
is this file's, put in place of the drain's steps here; the product holds none.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

from arborist import Arborist
from arborist._store import coaccess_spool


def _die(*_args: Any, **_kwargs: Any) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def main(home: Path, point: str, question: str) -> None:
    if point == "turn":
        coaccess_spool.drain = _die  # type: ignore[assignment]
    elif point == "rows":
        coaccess_spool._clear = _die  # type: ignore[assignment]
    else:
        raise SystemExit(f"unknown point {point!r}")
    os.environ["ARBORIST_COACCESS"] = "1"
    with Arborist(home) as app:
        app.ask_turn(question, session_label="killed")
    raise SystemExit("the kill never came")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], sys.argv[3])

"""The public Python API (issue #36 item 1, docs/api.md): its names are pinned, and it works
on a real home (the built-in demo corpus, the offline extractive answerer)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

import arborist
from arborist._errors import BadInput
from arborist._facade.journal import Journal, Turn
from arborist._facade.journal import open as journal_open

PUBLIC = [
    "Arborist",
    "ArboristError",
    "BadInput",
    "BadReference",
    "ChainReport",
    "Checkpoint",
    "IntegrityError",
    "Journal",
    "ModelError",
    "NotFound",
    "StorageError",
    "Turn",
    "__version__",
    "open",
]
JOURNAL = ["ask", "close", "home", "ingest", "search", "sessions", "turn", "turns", "verify"]
TURN = [
    *("ask", "bates", "facts", "falsify", "fork", "hit", "mode", "question", "sources"),
    *("state", "support", "text", "verify"),
]


def public(cls: type) -> list[str]:
    return sorted(name for name in vars(cls) if not name.startswith("_"))


def test_the_public_names_are_these() -> None:
    assert arborist.__all__ == PUBLIC
    for name in PUBLIC:
        assert getattr(arborist, name) is not None
    assert (arborist.open, arborist.Journal, arborist.Turn) == (
        journal_open,
        Journal,
        Turn,
    )
    assert public(Journal) == JOURNAL
    assert public(Turn) == TURN


def test_dir_and_completion_offer_the_public_names() -> None:
    """``dir(arborist)`` (what a REPL completes from) lists the public names, those imported
    on first use included, and no name of the module's own imports."""
    assert dir(arborist) == sorted(PUBLIC)
    assert {name for name in vars(arborist) if not name.startswith("_")} <= set(PUBLIC)


def test_a_journal_asks_forks_falsifies_and_verifies(home: Path) -> None:
    with arborist.open(home) as journal:
        with pytest.raises(BadInput, match="give files"):
            journal.ingest([])
        assert len(journal.ingest(demo=True)) == 72
        assert journal.search("median_low", limit=1)[0].title.startswith("statistics")
        turn = journal.ask("What does statistics.median return?")
        assert turn.text.startswith("statistics.median(data): Return the median")
        assert (turn.mode, turn.state, turn.hit) == ("STRICT", "ok", False)
        assert turn.support is not None and turn.support.level == "answered"
        assert turn.sources and any(s.cited for s in turn.sources)
        assert all(s.uri == "pydoc:statistics" for s in turn.sources if s.cited)
        assert turn.verify()
        assert [s.sid for s in journal.sessions] == [turn.facts().sid]
        again = journal.ask("What does statistics.median return?")  # a new session: a hit
        assert again.hit and again.facts().first_bates == turn.bates
        follow = turn.ask("What about the low median?")
        fork = turn.fork("How does statistics compute the mean?")
        nodes = {t.bates: t for t in journal.turns(turn.facts().sid)}
        assert list(nodes) == [turn.bates, follow.bates, fork.bates]
        assert journal.turn(follow.bates).bates == follow.bates
        parents = {b: journal._app.node(b).parent_bates for b in nodes}
        assert parents[follow.bates] == turn.bates
        assert parents[fork.bates] == parents[turn.bates]  # beside it: the same turn above
        assert turn.falsify("failed", "the median is of sorted data") is turn
        assert (turn.state, turn.facts().state_reason) == ("failed", "the median is of sorted data")
        assert again.state == "failed"  # the same answer, served from the cache
        assert turn.mode == "STRICT"  # its quotes still verify: the state says it is withdrawn
        assert journal.verify().ok


def test_a_cell_leaves_the_same_turn_in_underscore(home: Path) -> None:
    ip = InteractiveShell.instance()
    try:
        assert ip.run_cell("%load_ext arborist_nb").success
        with contextlib.redirect_stdout(io.StringIO()):
            ip.run_line_magic("arborist", "ingest --demo")
        assert ip.run_cell("%%ask\nWhat does statistics.median return?").success
        turn = ip.user_ns["_"]
        assert isinstance(turn, arborist.Turn)
        with arborist.open(home) as journal:
            same = journal.turn(turn.bates)
            assert (same.text, same.mode, same.sources) == (turn.text, turn.mode, turn.sources)
            assert same.facts().as_json() == turn.facts().as_json() | {
                "cache": same.facts().cache,  # the cell's own ask knew how long it took
                "elapsed_ms": None,
            }
        follow = turn.ask("What about the low median?")
        assert isinstance(follow, arborist.Turn) and follow.mode == "STRICT"
    finally:
        ip.run_line_magic("unload_ext", "arborist_nb")
        InteractiveShell.clear_instance()

"""How the command table is shown to a person: the order a newcomer meets the commands in,
one example of each, the list ``help`` prints, and "did you mean" for a mistyped word.

Pure (the standard library only, no I/O): the table itself (:mod:`arborist._commands.desk`)
gives each command's summary, and every face (the ``arborist`` command, the REPL,
``%arborist``) prints the one list this module lays out, each command written the way the
face writes it (``arborist ingest``, ``/ingest``, ``%arborist ingest``). An example is a
command line as it is typed after that prefix, and parses with the table's parser
(tests/test_cli_help.py).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["COLUMN", "GUIDE", "did_you_mean", "guide_order", "listing"]

GUIDE: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "start here",
        (
            ("ingest", "ingest --demo"),
            ("ask", 'ask "What does statistics.median return?"'),
            ("search", "search median --limit 3"),
            ("show", "show"),
            ("verify", "verify"),
            ("session", "session --label notes"),
            ("help", "help ask"),
        ),
    ),
    (
        "the forest of turns: each ask is one, in a session",
        (
            ("tree", "tree"),
            ("cd", "cd 1"),
            ("back", "back"),
            ("label", "label median"),
            ("find", "find median"),
            ("branches", "branches"),
            ("session list", "session list"),
            ("session new", "session new --label stats"),
            ("session resume", "session resume 20261206T120000Z-3f2a9c"),
            ("sid", "sid"),
            ("root", "root --json"),
            ("export", "export --out session.jsonl"),
            ("import", "import session.jsonl"),
        ),
    ),
    (
        "answers and the records behind them",
        (
            ("record list", "record list --limit 5"),
            ("record show", "record show 1"),
            ("falsify", 'falsify 1 --state stale --reason "the docs changed"'),
            ("record falsify", 'record falsify 3f2a9c1e --state failed --reason "misquoted"'),
            ("derive", "derive haiku --from 1"),
            ("related", "related 20261206T120000Z-3f2a9c-000001"),
            ("llm", "llm extractive"),
            ("models", "models --timeout 2"),
        ),
    ),
    (
        "the document store and its proofs",
        (
            ("stats", "stats"),
            ("embed", "embed"),
            ("evict", "evict 1 --tier warm"),
            ("rehydrate", "rehydrate 1"),
            ("chain-check", "chain-check --json"),
        ),
    ),
)
"""Every command, by section, in the order a newcomer uses them, each with an example (the
command line after the face's prefix)."""


COLUMN = 40
"""Where a summary starts; a longer example has its summary on the next line."""

SIMILAR = 0.6
"""How alike (difflib's ratio, 0 to 1) a word and a choice are for the choice to be offered:
``tre``/``tree`` 0.86, ``ak``/``ask`` 0.8, ``nonesuch`` and every command below it."""


def guide_order() -> list[str]:
    """Every command :data:`GUIDE` names, in its order."""
    return [name for _, entries in GUIDE for name, _ in entries]


def listing(
    summaries: dict[str, str], prefix: str, also: dict[str, str] | None = None, more: str = ""
) -> str:
    """The list ``help`` prints: :data:`GUIDE`'s sections, each command as its example
    written with ``prefix`` beside its summary (from ``summaries``, the table's); then, in
    a section of their own, any command the guide does not name and ``also``, the face's
    own commands; last ``more``, what else the face does."""
    named = guide_order()
    sections = [
        (title, [(example, summaries[name]) for name, example in entries if name in summaries])
        for title, entries in GUIDE
    ]
    own = {name: summary for name, summary in summaries.items() if name not in named}
    if own or also:
        sections.append(("in this face", list((own | (also or {})).items())))
    width = min(COLUMN, max(len(prefix + example) for _, rows in sections for example, _ in rows))
    lines = [f"{prefix}COMMAND ... (the commands, in the order you will likely need them)"]
    for title, rows in sections:
        lines += ["", f"{title}:"]
        for example, summary in rows:
            written = prefix + example
            gap = "" if len(written) <= width else "\n  " + " " * width
            lines.append(f"  {written:<{width}}{gap}  {summary}")
    lines += ["", f"{prefix}COMMAND --help shows its flags: the same in every face, in any order"]
    return "\n".join([*lines, *([more] if more else [])])


def did_you_mean(word: str, choices: Iterable[str], prefix: str = "") -> str | None:
    """``did you mean X?`` for the choice ``word`` is most likely a typo of (``serach``:
    ``search``), written after ``prefix``; None when no choice is close."""
    found = difflib.get_close_matches(word, list(choices), n=1, cutoff=SIMILAR)
    return f"did you mean {prefix}{found[0]}?" if found else None

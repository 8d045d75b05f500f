"""``--json`` carries every fact the text shows (issue #34 item 6): for each data command the
words, numbers and hashes of its text output are found in its JSON, but for the words of
the text's own layout, named per command."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arborist import Arborist
from arborist._commands.answers import ask_json, falsified_json
from arborist._commands.store import derivation_json, tier_json
from arborist._faces.cli import cli
from arborist._views import forest as views_forest
from arborist._views import results as views

GUIDE = """# Guide

Read this guide first.

## Configuration

Settings live in one file.

### Logging

The logger writes every request to the journal file under the state folder.
"""
QUOKKA = "# Quokkas\n\nThe quokka is a small wallaby that lives on Rottnest Island.\n"
QUESTION = "Where does the logger write each comic request?"

_TOKEN = re.compile(r"[^\s()\[\],;'\"]+")
_EDGE = ".,:;!?'\"*"
_FRACTION = re.compile(r"(\d)/(\d)")  # "chunk 2/3": an index and a count, two facts


def missing_facts(text: str, data: Any, layout: set[str]) -> list[str]:
    """The tokens of ``text`` that ``data``'s JSON does not hold (case-insensitive), but the
    words of ``layout``. A token cut short with ``…`` (a hash prefix) is found by its prefix."""
    dumped = json.dumps(data, ensure_ascii=False).lower()
    missing = []
    for raw in _TOKEN.findall(_FRACTION.sub(r"\1 \2", text)):
        token = raw.strip(_EDGE).lower().removesuffix("…")
        if token and token not in layout and token not in dumped:
            missing.append(raw)
    return missing


def cli_out(home: Path, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--home", str(home), *args])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture
def asked(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A home with two documents, co-access on, one question asked twice (a miss, a hit)."""
    monkeypatch.setenv("ARBORIST_COACCESS", "1")
    (tmp_path / "guide.md").write_text(GUIDE, encoding="utf-8")
    (tmp_path / "quokka.md").write_text(QUOKKA, encoding="utf-8")
    cli_out(home, "ingest", str(tmp_path / "guide.md"), str(tmp_path / "quokka.md"))
    first = json.loads(cli_out(home, "ask", "--label", "logs", "--json", QUESTION))
    cli_out(home, "ask", "--sid", first["sid"], "--parent", "root", QUESTION)
    return {"bates": first["bates"], "sid": first["sid"], "key": first["cache_key"],
            "doc": str(tmp_path / "quokka.md")}  # fmt: skip


QUOTED = ("quotes", "verified")
"""The audit line's words for ``support.quoted`` (``quotes verified (STRICT)``)."""

READS: dict[str, tuple[str, set[str]]] = {
    "search logger journal": ("search", {"chunk"}),
    "find logger": ("find", {"strict", "partly"}),
    "tree --sid {sid}": ("tree", {"*", "#1", "#2", "partly", "strict", "session", "├──", "└──"}),
    "show {bates}": ("show", {"cache", "created", "cited", "answer", "│", *QUOTED}),
    "branches --sid {sid}": ("branches", {"children", "partly", "strict", "*"}),
    "verify": ("verify", {"store.db", "sessions.db", "ok", "cached", "answers", "checkpoint"}),
    "stats": (
        "stats",
        {"co-access", "bytes", "cached", "answers", "cache", "hits", "audit", "files"},
    ),
    "record list": ("record list", {"hits", "r1"}),
    "record show {key}": (
        "record show",
        {"revision", "question", "created", "│", "of", "hits", "empty"},
    ),
    "session list": ("session list", {"turn(s)"}),
    "root --sid {sid}": ("root", set()),
    "llm": ("llm", {"model:"}),
    "chain-check": ("chain-check", {"intact", "events", "checkpoint"}),
    "related {bates}": ("related", {"related", "to", "chunk"}),
}
"""Each read-only command (run twice, as text and as JSON) and the words of its layout."""


@pytest.mark.parametrize("line", list(READS))
def test_a_read_commands_json_holds_every_fact_its_text_shows(
    line: str, asked: dict[str, str], home: Path
) -> None:
    args = line.format(**asked).split()
    text = cli_out(home, *args)
    data = json.loads(cli_out(home, *args, "--json"))
    assert missing_facts(text, data, READS[line][1]) == []


def test_ask_json_holds_every_fact_its_text_shows_support_included(
    asked: dict[str, str], home: Path
) -> None:
    """One turn, formatted both ways by the functions ``ask`` prints with."""
    with Arborist(home) as app:
        turn = app.ask_turn(QUESTION)
        facts = app.facts(turn.node, asked=turn.result)
    text = views.answer_text(facts)
    data = ask_json(turn, facts)
    assert data["support"] == {"level": "partly", "missing": ["comic"],
                               "reason": "no cited passage mentions comic",
                               "quoted": True}  # fmt: skip
    layout = {"bates", "cache", "hit", "first", "answered", "hit(s)", "audit", "support", "key",
              "sources", "chunk", "e1*", "e2", "e1", "e2*", "·", "›", *QUOTED}  # fmt: skip
    assert missing_facts(text, data, layout) == []


def test_the_actions_json_holds_every_fact_their_text_shows(
    asked: dict[str, str], home: Path
) -> None:
    """Each action formatted both ways by the functions its command prints with."""
    with Arborist(home) as app:
        evicted = app.evict(asked["doc"], "cold")
        pairs = [
            (views.evicted_text(evicted, "cold"), tier_json(evicted), {"chunk", "moved", "to", "of"}),
            (views.rehydrated_text(rehydrated := app.rehydrate(asked["doc"])),
             tier_json(rehydrated), {"chunk", "back", "to", "every", "leaf", "verified", "of"}),
            (views.derived_text("snippet", derived := app.derive("snippet", asked["key"], None)),
             derivation_json(derived), {"saved", "from", "source", "│"}),
            (views.falsified_text(falsified := app.falsify(asked["key"], "stale", "a test")),
             falsified_json(falsified), {"is", "now", "revision"}),
        ]  # fmt: skip
        sid = asked["sid"]
        labelled = app.label(sid, "renamed", asked["bates"])
        pairs.append((views_forest.labelled_text(labelled), views_forest.turn_json(labelled, app.audit_now(
            labelled)), {"is", "now", "labelled"}))  # fmt: skip
    for text, data, layout in pairs:
        assert missing_facts(text, data, layout) == [], text


def test_ingest_and_import_json_hold_every_fact_their_text_shows(
    asked: dict[str, str], home: Path, tmp_path: Path
) -> None:
    exported = cli_out(home, "export", asked["sid"])
    other = tmp_path / "other"
    (tmp_path / "more.md").write_text("# More\n\nAnother page.\n", encoding="utf-8")
    with Arborist(other) as app:
        results = app.ingest([str(tmp_path / "more.md")])
    text = views.ingest_text(results)
    data = [views.ingest_json(r) for r in results]
    layout = {"chunks", "cached", "answer", "now", "added"}
    assert missing_facts(text, data, layout) == []
    (tmp_path / "session.jsonl").write_text(exported, encoding="utf-8")
    # Into two fresh homes alike: the same import, once as text and once as JSON.
    text = cli_out(tmp_path / "one", "import", str(tmp_path / "session.jsonl"))
    data = json.loads(
        cli_out(tmp_path / "two", "import", str(tmp_path / "session.jsonl"), "--json")
    )
    assert data == {"added": 3, "already_present": 0, "sessions": [asked["sid"]]}
    layout = {"imported", "node", "already", "present", "session"}
    assert missing_facts(text, data, layout) == []


def test_a_missing_fact_is_found() -> None:
    """The comparison is not vacuous: a reason the JSON leaves out is named."""
    text = "support partly: no cited passage mentions comic"
    assert missing_facts(text, {"support": None}, {"support"}) == [
        "partly:", "no", "cited", "passage", "mentions", "comic",
    ]  # fmt: skip

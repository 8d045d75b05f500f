"""``arborist derive KIND --from REF --text TEXT`` saves the user's words, and says so.

A core record the user typed is no model's distillation: its title (which its
``document_add`` event commits, and which every hit and citation shows) reads
``summary (hand-written): …``, its ``derivation`` event holds ``"hand_written": true``,
``derive`` says it and its JSON has it, and ``arborist verify`` holds the title and
the event to each other. A distilled record carries no mark.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arborist._faces.cli import cli

SPIDER = "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\n"
TYPED = "Lee and Ditko made Spider-Man."


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def key(tmp_path: Path) -> str:
    """The cache key of an answer that cites the one document ingested."""
    (tmp_path / "spider.md").write_text(SPIDER, encoding="utf-8")
    assert run("ingest", str(tmp_path / "spider.md"))[0] == 0
    code, out, err = run("ask", "Who created Spider-Man?", "--json")
    assert code == 0, err
    return str(json.loads(out)["cache_key"])


def _derivation_events(home: Path) -> list[dict[str, object]]:
    conn = sqlite3.connect(home / "store.db")
    try:
        rows = conn.execute(
            "SELECT body FROM audit_events WHERE event_type = 'derivation' ORDER BY seq"
        ).fetchall()
    finally:
        conn.close()
    return [json.loads(body) for (body,) in rows]


def test_a_typed_text_is_marked_hand_written_wherever_it_is_shown(key: str, home: Path) -> None:
    code, out, err = run("derive", "summary", "--from", key, "--text", TYPED)
    assert (code, err) == (0, "")
    assert out.startswith("saved summary (hand-written) core:summary:")
    [event] = _derivation_events(home)
    assert event["hand_written"] is True
    code, out, _ = run("search", "Lee Ditko made", "--json")
    titles = [hit["title"] for hit in json.loads(out)]
    assert f"summary (hand-written): {TYPED}" in titles
    code, out, _ = run("search", "Lee Ditko made")
    assert f"[HYBRID] summary (hand-written): {TYPED}" in out
    code, out, err = run("verify")
    assert code == 0, out + err


def test_the_json_of_a_typed_text_says_it(key: str) -> None:
    code, out, _ = run("derive", "haiku", "--from", key, "--json", "--text",
                       "Stan Lee wrote the words\nSteve Ditko drew the spider\nthe web caught them both")  # fmt: skip
    data = json.loads(out)
    assert code == 0 and data["hand_written"] is True
    assert data["title"].startswith("haiku (hand-written): Stan Lee wrote the words")


def test_a_distilled_record_is_not_marked(key: str, home: Path) -> None:
    code, out, err = run("derive", "snippet", "--from", key, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["hand_written"] is False and data["title"].startswith("snippet: ")
    [event] = _derivation_events(home)
    assert "hand_written" not in event
    assert run("verify")[0] == 0


def test_an_event_that_claims_a_hand_written_text_the_title_does_not_mark_fails_verify(
    key: str, home: Path
) -> None:
    """The event and the title agree, or verify names the derivation (besides the chain,
    which an edit of the event's body breaks anyway)."""
    assert run("derive", "snippet", "--from", key)[0] == 0
    conn = sqlite3.connect(home / "store.db")
    with conn:
        conn.execute(
            "UPDATE audit_events SET body = json_set(body, '$.hand_written', json('true')) "
            "WHERE event_type = 'derivation'"
        )
    conn.close()
    code, out, err = run("verify")
    assert code == 1 and "derivation 1 (snippet): differs from what its event recorded" in out + err

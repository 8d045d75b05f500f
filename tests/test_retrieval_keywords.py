"""``ask --retrieval-keywords WORDS`` (issue #39): words added to retrieval only, the question
kept as asked, named in the record's policy so that the key stays honest; in the CLI, the
REPL and the facade (``%%ask``'s is in tests/test_magics.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._faces.repl import Repl, scripted_reader

DOCS = {
    "mona.md": "# Mona Lisa\n\nThe Mona Lisa was painted by Leonardo da Vinci in Florence.\n",
    "spider.md": "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist "
    "Steve Ditko in 1962.\n",
}
QUESTION = "Who painted it?"
SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.fixture
def corpus(home: Path, tmp_path: Path) -> Path:
    for name, text in DOCS.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    with Arborist(home) as app:
        app.ingest([str(tmp_path / name) for name in DOCS])
    return home


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def uris(record_json: dict[str, object]) -> list[str]:
    evidence = record_json["evidence"]
    assert isinstance(evidence, list)
    return [str(item["uri"]) for item in evidence]


def test_the_words_change_retrieval_and_the_key_never_the_question(corpus: Path) -> None:
    with Arborist(corpus) as app:
        plain = app.ask(QUESTION)
        steered = app.ask(QUESTION, keywords="Spider-Man")
        again = app.ask(QUESTION, keywords="  Spider-Man ")  # one spelling, one key
        other = app.ask(QUESTION, keywords="Ditko")
        bare = app.ask(QUESTION)
    assert not any(e.uri.endswith("spider.md") for e in plain.record.evidence)
    assert steered.record.evidence[0].uri.endswith("spider.md")  # the word pulled it in
    assert steered.record.question == QUESTION == plain.record.question
    assert "retrieval_keywords" not in plain.record.policy  # no words: the policy as before
    assert steered.record.policy["retrieval_keywords"] == "Spider-Man"
    assert len({plain.cache_key, steered.cache_key, other.cache_key}) == 3
    assert (steered.hit, again.hit, other.hit) == (False, True, False)
    assert again.cache_key == steered.cache_key and bare.hit and bare.cache_key == plain.cache_key


def test_the_cli_shows_the_words_in_the_ask_show_and_json(corpus: Path) -> None:
    code, out, err = run("ask", QUESTION, "--retrieval-keywords", "Spider-Man", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["question"] == QUESTION and data["policy"]["retrieval_keywords"] == "Spider-Man"
    assert any(uri.endswith("spider.md") for uri in uris(data))
    sid, bates = data["sid"], data["bates"]
    code, out, err = run("show", bates, "--sid", sid, "--json")
    assert code == 0 and json.loads(out)["retrieval_keywords"] == "Spider-Man", err
    code, out, err = run("show", bates, "--sid", sid)
    assert code == 0 and "keywords     Spider-Man (added to retrieval)" in out, err
    # At a session's root again (a new one): under the turn above it would be a follow-up.
    code, out, err = run("ask", QUESTION, "--retrieval-keywords", "Spider-Man")
    assert code == 0 and "keywords Spider-Man (added to retrieval)" in out, err
    assert "cache   hit" in out
    code, out, err = run("ask", QUESTION, "--json")
    data = json.loads(out)
    assert "retrieval_keywords" not in data["policy"] and not data["hit"]


def test_the_words_pass_the_secret_gate(corpus: Path) -> None:
    with Arborist(corpus) as app:
        result = app.ask(QUESTION, keywords=f"Spider-Man {SECRET}")
    words = result.record.policy["retrieval_keywords"]
    assert isinstance(words, str) and words.startswith("Spider-Man ") and SECRET not in words
    for name in ("store.db", "store.db-wal"):
        path = corpus / name
        assert not path.exists() or SECRET.encode() not in path.read_bytes()


def test_the_repl_takes_the_words_on_its_ask(corpus: Path) -> None:
    out: list[str] = []
    with Arborist(corpus) as app:
        Repl(app, None, read=scripted_reader([]), write=out.append).handle(
            f"/ask --retrieval-keywords Spider-Man {QUESTION}"
        )
        record = app.records()[0]
    assert record.question == QUESTION and record.policy["retrieval_keywords"] == "Spider-Man"
    assert "keywords Spider-Man (added to retrieval)" in "\n".join(out)

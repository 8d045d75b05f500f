"""``arborist derive haiku|equation|snippet --from REF`` distils one (issue #39): offline, by
the deterministic rules of arborist._qa.distill from REF's cited text; with a remote model
(a real chat server on loopback), by asking it with the cited text only. Either way the
record is bound to the cited chunks and verified like any core record."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arborist._errors import BadInput
from arborist._facade.app import Arborist
from arborist._faces.repl import Repl, scripted_reader
from arborist._qa.distill import equation, haiku, haiku_counts, snippet, syllables, units
from arborist._store.derive import cited_spans
from tests.chat_server import ChatServer, completion
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401 - the fixture

QUESTION = "What does linear_regression return?"
"""A question of the built-in corpus whose cited chunk states a formula."""
REFUSED = "Which zebra sings opera?"
"""A question the built-in corpus does not answer: its answer cites nothing."""
TABLES = ("documents", "chunks", "derivations", "derivation_sources", "audit_events")


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home holding the built-in corpus and two answers, made once for the module."""
    home = tmp_path_factory.mktemp("demo") / "home"
    with Arborist(home) as app:
        app.ingest_demo()
        app.ask(QUESTION)
        app.ask(REFUSED)
    return home


@pytest.fixture
def home_copy(demo_home: Path, tmp_path: Path) -> Path:
    """The demo home copied for one test: what one test derives no other sees."""
    home = tmp_path / "home"
    shutil.copytree(demo_home, home)
    return home


def key_of(home: Path, question: str) -> str:
    with Arborist(home) as app:
        return next(r.cache_key for r in app.records() if r.question == question)


def run(
    home: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arborist", "--home", str(home), *args],
        capture_output=True, text=True, check=False, env=env,
    )  # fmt: skip


def counts(home: Path) -> dict[str, int]:
    conn = sqlite3.connect(home / "store.db")
    try:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
    finally:
        conn.close()


def test_the_offline_distillations_are_drawn_from_the_cited_text_alike_every_time(
    home_copy: Path, tmp_path: Path, demo_home: Path
) -> None:
    key = key_of(home_copy, QUESTION)
    with Arborist(home_copy) as app:
        record = app.record(key)
        made = {kind: app.derive(kind, key) for kind in ("haiku", "equation", "snippet")}
        assert app.verify().ok
    spans = cited_spans(record.answer_text)
    chunks = [e.text or "" for e in record.evidence if e.cited]
    lines = made["haiku"].text.splitlines()
    assert len(lines) == 3 and all(line and line in " ".join(spans.split()) for line in lines)
    assert all(
        abs(n - aim) <= 2
        for n, aim in zip(haiku_counts(made["haiku"].text), (5, 7, 5), strict=True)
    )
    assert made["equation"].text == "y = slope * x + intercept + noise"
    assert any(made["equation"].text in chunk for chunk in chunks)
    assert made["snippet"].text in units(spans) and "slope" in made["snippet"].text
    for derivation in made.values():  # bound to the chunks the answer cites, and nothing else
        cited = [(e.document_id, e.chunk_index, e.leaf) for e in record.evidence if e.cited]
        assert [(s.document_id, s.chunk_index, s.leaf) for s in derivation.sources] == cited
    again = tmp_path / "again"  # another home, the same answer: the same records
    shutil.copytree(demo_home, again)
    with Arborist(again) as app:
        assert {k: app.derive(k, key).core.uri for k in made} == {
            k: d.core.uri for k, d in made.items()
        }


def test_derive_at_the_shell_shows_the_haiku_with_its_rough_count_and_verify_passes(
    home_copy: Path,
) -> None:
    key = key_of(home_copy, QUESTION)
    done = run(home_copy, "derive", "haiku", "--from", key)
    assert done.returncode == 0, done.stderr
    said = done.stdout.splitlines()
    assert said[0].startswith("saved haiku core:haiku:") and len(said) == 5
    assert said[-1].startswith("syllables ") and "rough count" in said[-1]
    assert run(home_copy, "verify").returncode == 0


def test_a_tampered_derived_record_fails_verify(home_copy: Path) -> None:
    key = key_of(home_copy, QUESTION)
    with Arborist(home_copy) as app:
        saved = app.derive("equation", key)
    conn = sqlite3.connect(home_copy / "store.db")
    with conn:
        conn.execute("UPDATE derivations SET derived_from = ? WHERE id = ?", ("0" * 64, saved.id))
    conn.close()
    done = run(home_copy, "verify")
    assert done.returncode != 0
    assert f"derivation {saved.id} (equation): differs from what its event recorded" in (
        done.stdout + done.stderr
    )


@pytest.mark.parametrize(
    ("ref", "says"),
    [
        ("deadbeefdeadbeef", "deadbeefdeadbeef"),  # no such answer
        ("refused", "that answer cites no evidence: there is nothing to derive from"),
    ],
)
def test_an_unknown_or_uncited_answer_is_one_line_and_nothing_is_written(
    home_copy: Path, ref: str, says: str
) -> None:
    ref = key_of(home_copy, REFUSED) if ref == "refused" else ref
    before = counts(home_copy)
    for kind in ("haiku", "equation", "snippet"):
        done = run(home_copy, "derive", kind, "--from", ref)
        assert done.returncode != 0 and done.stdout == ""
        assert done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
    assert counts(home_copy) == before


def test_a_model_is_asked_with_the_cited_text_only(
    home_copy: Path, chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARBORIST_BASE_URL", chat_server.url)
    monkeypatch.setenv("ARBORIST_MODEL", "test-model")
    key = key_of(home_copy, QUESTION)
    poem = "Points scattered in rows\na line through them, slope and all\nnoise left to the rest"
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    quote = f"Return the slope and intercept. [E1] {secret}"
    chat_server.script(
        completion(poem), completion("NONE"), completion("just one line"), completion(quote)
    )
    with Arborist(home_copy) as app:
        record = app.record(key)
        saved = app.derive("haiku", key, llm="openai")
        assert saved.text == poem and app.verify().ok
        before = counts(home_copy)
        with pytest.raises(BadInput, match="found no formula in the cited text"):
            app.derive("equation", key, llm="openai")
        with pytest.raises(BadInput, match="replied with 1 lines, not a haiku's three"):
            app.derive("haiku", key, llm="openai")
        assert counts(home_copy) == before
        quoted = app.derive("snippet", key, llm="openai")  # citations out, secrets gated
        assert (
            quoted.text.startswith("Return the slope and intercept.") and "[E1]" not in quoted.text
        )
        assert secret not in quoted.text and "[REDACTED:" in quoted.text
    assert chat_server.requests == 4
    assert record.question in chat_server.received[3].body["messages"][-1]["content"]
    prompt = chat_server.received[0].body["messages"][-1]["content"]
    assert "haiku" in prompt and record.question not in prompt
    for item in record.evidence:  # the cited chunks, and no other evidence the answer was shown
        assert ((item.text or "").strip()[:80] in prompt) == item.cited


def test_the_repl_distils_through_the_same_command(home_copy: Path) -> None:
    key = key_of(home_copy, QUESTION)
    out: list[str] = []
    with Arborist(home_copy) as app:
        Repl(app, None, read=scripted_reader([]), write=out.append).handle(
            f"/derive snippet --from {key}"
        )
    assert out and out[0].startswith("saved snippet core:snippet:") and "slope" in out[0]


def test_syllables_are_counted_roughly() -> None:
    assert [syllables(w) for w in ("the", "median", "value", "table", "sorted", "2024")] == [
        1, 3, 2, 2, 2, 1,
    ]  # fmt: skip


def test_a_haiku_needs_enough_words_and_keeps_their_order() -> None:
    assert haiku("Too short. [E1]") is None
    text = "The median is the middle value of the sorted data, halfway along the row. [E1]"
    made = haiku(text)
    assert made is not None
    plain = " ".join(text.replace(",", " ").replace(".", " ").split())
    starts = [plain.find(line) for line in made.splitlines()]  # each a run of the text's words
    assert len(starts) == 3 and -1 not in starts and starts == sorted(starts)
    assert haiku_counts(made) == [5, 7, 5]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("The norm is sqrt(x**2 + y**2) for two values.", "sqrt(x**2 + y**2)"),
        ("Energy: E = m * c^2, as stated.", "E = m * c^2"),
        ("sorted(iterable, key=None, reverse=False): Return a list.", None),
        ("Read and/or write the input/output at http://example.com/a/b today.", None),
        ("chain(*iterables) makes one iterator; 123E+1 is a number.", None),
        ("the *x* and *y* values are paired", None),
    ],
)
def test_an_equation_is_the_first_formula_like_span_and_code_is_not_one(
    text: str, found: str | None
) -> None:
    assert equation(text) == found


def test_a_snippet_is_the_shortest_unit_holding_the_most_key_words() -> None:
    text = "Medians.\nThe median of the data is its middle value.\nA median is robust to outliers here."
    assert snippet(text, "What is the median of the data?") == (
        "The median of the data is its middle value."
    )
    assert snippet("", "anything") is None

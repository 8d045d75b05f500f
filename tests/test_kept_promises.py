"""Promises the README makes that the code keeps, each held by a hostile test on real parts.

* A cold document whose source changed is refused at rehydration, and the answers that
  cited it become ``stale``: none of them is served again, even once the bytes come back.
* ``llm NAME`` refuses at once, in one line, a model whose server takes no connection, in
  the REPL and in a notebook alike, and the model that answered before still answers.
* A saved notebook witnesses its history: a turn deleted from sessions.db after the
  notebook ran, so cleanly that ``verify`` alone finds nothing, fails ``verify --witness``.

Every test works in a real home on disk (the autouse ``home`` fixture), over real sockets on
loopback where a server is needed.
"""

from __future__ import annotations

import contextlib
import io
import json
import socket
import sqlite3
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import nbformat
import pytest
from click.testing import CliRunner
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._faces.repl import Repl, scripted_reader
from arborist._proofs.witness import witness_checkpoints
from arborist._qa.budget import TRIM_MARK
from arborist._qa.support import ANSWERED, PARTLY, Support
from arborist._views.results import answer_text, record_support
from arborist_nb._display import Answer
from tests.chat_server import ChatServer, completion
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401

QUOKKA = (
    "# Quokka field notes\n\n"
    "The quokka shelters under saltbush on Rottnest Island and feeds on sedge at dawn.\n"
)
SPIDER = "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\n"


def run(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), input=input)
    return result.exit_code, result.stdout, result.stderr


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# --------------------------------------------------------------- a refused rehydration


class Site(ThreadingHTTPServer):
    """A loopback web server whose one page's bytes a test may change at any time."""

    def __init__(self, body: str) -> None:
        super().__init__(("127.0.0.1", 0), _Page)
        self.body = body.encode("utf-8")
        self.fetches = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/notes.md"


class _Page(BaseHTTPRequestHandler):
    server: Site

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        self.server.fetches += 1
        self.send_response(200)
        self.send_header("Content-Type", "text/markdown; charset=utf-8")
        self.send_header("Content-Length", str(len(self.server.body)))
        self.end_headers()
        self.wfile.write(self.server.body)


@pytest.fixture
def site() -> Iterator[Site]:
    server = Site(QUOKKA)
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _tiers(app: Arborist) -> set[str]:
    return {tier for (tier,) in app.store_conn.execute("SELECT tier FROM chunks")}


def test_a_refused_rehydration_marks_the_citing_answers_stale_and_none_is_served_again(
    home: Path, site: Site
) -> None:
    """README (``arborist evict`` and ``rehydrate``): a cold document refetched from a URI
    that now serves other bytes is refused, stays cold, and every answer that cited it is
    ``stale``. Stale means out of service: once the original bytes are served again and the
    document comes back whole, the same question makes the same key, and is answered anew
    (a revision), never served from the stale record."""
    question = "Where does the quokka shelter?"
    with Arborist(home) as app:
        [ingested] = app.ingest([site.url])
        first = app.ask(question)
        assert not first.hit and "saltbush" in first.answer
        assert [e.cited for e in first.record.evidence] == [True]
        assert app.evict(site.url, "cold").changed == 1
    fetched = site.fetches
    site.body = QUOKKA.replace("saltbush", "bluebush").encode("utf-8")

    code, out, err = run("rehydrate", site.url)
    assert (code, out) == (1, "") and err.count("\n") == 1, err
    assert err.startswith("arborist: error: rehydration refused: ") and "differs" in err
    assert site.fetches == fetched + 1  # refused on what the URI serves now, not on a guess

    with Arborist(home) as app:
        stale = app.record(first.cache_key)
        assert (stale.id, stale.state) == (first.record.id, "stale")
        assert stale.evidence[0].document_id == ingested.document.id
        assert stale.state_reason is not None
        assert stale.state_reason.startswith("rehydration refused: ")
        events = [e for (e,) in app.store_conn.execute("SELECT event_type FROM audit_events")]
        assert events[-2:] == ["rehydrate_refused", "cache_state"]
        assert _tiers(app) == {"cold"}
        again = app.ask(question)  # nothing of the document can be read now
        assert not again.hit and again.record.id != stale.id
        assert "saltbush" not in again.answer and "bluebush" not in again.answer
        assert _tiers(app) == {"cold"}, "an ask does not bring the refused text back"
        assert app.verify().ok, app.verify().problems

    site.body = QUOKKA.encode("utf-8")  # the source is restored: the leaves match again
    with Arborist(home) as app:
        assert app.rehydrate(site.url).changed == 1 and _tiers(app) == {"hot"}
        restored = app.ask(question)
        assert restored.cache_key == first.cache_key  # the same evidence, the same key ...
        assert not restored.hit, "a stale answer was served"  # ... and yet no hit
        assert restored.record.id != stale.id and restored.record.revision == 2
        assert app.record(first.cache_key, revision=1).state == "stale"
        assert app.ask(question).record.id == restored.record.id  # the new revision serves
        assert app.verify().ok, app.verify().problems


# --------------------------------------------------------------- llm NAME refused at once


@pytest.fixture
def models(
    home: Path, tmp_path: Path, chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A home with one document, ``good`` a model on the loopback chat server, and the
    built-in ``openai`` pointed at a loopback port that takes no connection."""
    (tmp_path / "quokka.md").write_text(QUOKKA, encoding="utf-8")
    assert run("ingest", str(tmp_path / "quokka.md"))[0] == 0
    (home / "config.toml").write_text(
        f'[models.good]\nprovider = "openai"\nbase_url = "{chat_server.url}"\n'
        'model = "good-model"\n',
        encoding="utf-8",
    )
    (home / "config.toml").chmod(0o600)
    monkeypatch.setenv("ARBORIST_BASE_URL", f"http://127.0.0.1:{closed_port()}/v1")
    monkeypatch.setenv("ARBORIST_MODEL", "unreachable-model")
    return home


def _refusal(line: str) -> None:
    assert "\n" not in line
    assert "model openai: the server at http://127.0.0.1:" in line
    assert "cannot be reached" in line and "choose another --llm" in line


def test_llm_refuses_an_unreachable_model_in_the_repl_and_the_last_one_still_answers(
    models: Path, chat_server: ChatServer
) -> None:
    out: list[str] = []
    with Arborist(models) as app:
        script = ["/llm good", "/llm openai", "/llm", "Where does the quokka shelter?", "/quit"]
        Repl(app, None, read=scripted_reader(script), write=out.append).run()
        records = app.records()
    refusals = [line for line in out if line.startswith("error:")]
    assert len(refusals) == 1, out
    _refusal(refusals[0])
    assert "model: good" in out, out  # `/llm` after the refusal: still the model set before
    assert chat_server.requests == 1  # the question went to good's server, and only it
    [record] = records
    assert record.model_profile["model"] == "good-model"
    assert record.model_profile["server"] == chat_server.url


@pytest.fixture
def shell(models: Path) -> Iterator[InteractiveShell]:
    ip = InteractiveShell.instance()
    assert ip.run_cell("%load_ext arborist_nb").success
    try:
        yield ip
    finally:
        ip.run_line_magic("unload_ext", "arborist_nb")
        InteractiveShell.clear_instance()


def _printed(ip: InteractiveShell, line: str) -> str:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        ip.run_line_magic("arborist", line)
    return buffer.getvalue().rstrip("\n")


def test_llm_refuses_an_unreachable_model_in_a_notebook_and_the_last_one_still_answers(
    shell: InteractiveShell, chat_server: ChatServer
) -> None:
    assert _printed(shell, "llm good") == "model: good"
    with pytest.raises(UsageError) as refused:
        shell.run_line_magic("arborist", "llm openai")
    _refusal(str(refused.value))
    assert chat_server.requests == 0  # refused before anything was asked of any model
    assert json.loads(_printed(shell, "llm --json")) == {"model": "good", "default": False}
    answer = shell.run_cell_magic("ask", "", "Where does the quokka shelter?")
    assert isinstance(answer, Answer) and not answer.hit
    assert chat_server.requests == 1
    app = shell.magics_manager.registry["ArboristMagics"].app
    [record] = app.records()
    assert record.model_profile["model"] == "good-model"


# --------------------------------------------------------------- a notebook as a witness


def _shard_state(sessions: Path) -> tuple[tuple[Any, ...], dict[int, bytes]]:
    """What a turn changes in sessions.db beyond its own rows: the session's current turn,
    next seq and update time (one session: the notebook's), and every node's subtree hash
    (a turn ripples up to the root)."""
    conn = sqlite3.connect(sessions)
    try:
        session = conn.execute("SELECT current_bates, next_seq, updated_at FROM sessions")
        links = conn.execute("SELECT id, subtree_hash FROM node_links")
        return session.fetchone(), dict(links.fetchall())
    finally:
        conn.close()


def _executed_notebook(
    path: Path, questions: list[str], tmp_path: Path, home: Path
) -> list[tuple[str, tuple[tuple[Any, ...], dict[int, bytes]]]]:
    """Run ``%%ask`` cells in a real IPython shell and save them, with their outputs as a
    kernel displays them, as ``path`` (nbformat 4, validated); each turn's bates, and the
    shard's state right after it (:func:`_shard_state`)."""
    (tmp_path / "spider.md").write_text(SPIDER, encoding="utf-8")
    ip = InteractiveShell.instance()
    cells, turns = [], []
    try:
        assert ip.run_cell("%load_ext arborist_nb").success
        ip.run_line_magic("arborist", f"ingest {tmp_path / 'spider.md'}")
        for count, question in enumerate(questions, start=1):
            answer = ip.run_cell_magic("ask", "", question)
            assert isinstance(answer, Answer)
            bundle, metadata = ip.display_formatter.format(answer)
            output = nbformat.v4.new_output(
                "execute_result", data=bundle, metadata=metadata, execution_count=count
            )
            cell = nbformat.v4.new_code_cell(f"%%ask\n{question}", outputs=[output])
            cell.execution_count = count
            cells.append(cell)
            turns.append((answer.bates, _shard_state(home / "sessions.db")))
    finally:
        ip.run_line_magic("unload_ext", "arborist_nb")
        InteractiveShell.clear_instance()
    notebook = nbformat.v4.new_notebook(cells=cells)
    nbformat.validate(notebook)
    nbformat.write(notebook, str(path))
    return turns


def _truncate(sessions: Path, bates: str, before: tuple[tuple[Any, ...], dict[int, bytes]]) -> int:
    """Delete turn ``bates`` (the last) from sessions.db as a careful forger would, putting
    back what it changed (``before``); the seq of the ``node_insert`` event deleted."""
    session, links = before
    conn = sqlite3.connect(sessions, isolation_level=None)
    try:
        [(node_id, sid)] = conn.execute("SELECT id, sid FROM nodes WHERE bates = ?", (bates,))
        [(seq,)] = conn.execute(
            "SELECT seq FROM audit_events WHERE event_type = 'node_insert' AND bates = ?", (bates,)
        )
        assert seq == conn.execute("SELECT max(seq) FROM audit_events").fetchone()[0]
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(  # an external-content FTS5 table forgets a row by its 'delete' command
            "INSERT INTO nodes_fts (nodes_fts, rowid, question, answer_text, cited_titles) "
            "SELECT 'delete', id, question, answer_text, cited_titles FROM nodes_fts_source "
            "WHERE id = ?",
            (node_id,),
        )
        conn.execute("DELETE FROM node_links WHERE id = ?", (node_id,))
        conn.execute("DELETE FROM nodes WHERE id = ?", (node_id,))
        conn.execute("DELETE FROM audit_events WHERE seq = ?", (seq,))
        conn.execute("UPDATE sqlite_sequence SET seq = ? WHERE name = 'audit_events'", (seq - 1,))
        conn.execute(
            "UPDATE sessions SET current_bates = ?, next_seq = ?, updated_at = ? WHERE sid = ?",
            (*session, sid),
        )
        conn.executemany(
            "UPDATE node_links SET subtree_hash = ? WHERE id = ?",
            [(digest, kept) for kept, digest in links.items()],
        )
        conn.execute("COMMIT")
    finally:
        conn.close()
    return int(seq)


def test_a_witness_catches_a_turn_deleted_by_hand_after_the_notebook_ran(
    home: Path, tmp_path: Path
) -> None:
    """README: every ``%%ask`` output carries the shard's checkpoint, so a saved notebook is
    a witness (``arborist verify --witness NOTEBOOK``). The last turn is deleted as a careful
    forger would: its row, its Merkle link, its FTS row, its ``node_insert`` event and
    SQLite's memory of that event's seq, and every subtree hash and the session row put back
    as they were before it. ``verify`` alone then finds nothing (the shard is byte for byte
    what it was after the first cell); the notebook that saw the second cell does."""
    notebook = tmp_path / "ran.ipynb"
    questions = ["Who created Spider-Man?", "Who drew him?"]
    (_, after_first), (last, _) = _executed_notebook(notebook, questions, tmp_path, home)
    code, out, _ = run("verify", "--witness", str(notebook))
    assert code == 0 and "every checkpoint holds" in out, out
    assert run("find", "drew")[1] != "no matches\n"

    seq = _truncate(home / "sessions.db", last, after_first)
    assert run("find", "drew")[1] == "no matches\n"  # the turn is gone from every index
    code, out, err = run("show", last)
    assert (code, err) == (1, f"arborist: error: no turn {last}\n")
    code, out, err = run("verify")
    assert code == 0, out + err  # a clean truncation: nothing within the shard shows it

    code, out, err = run("verify", "--witness", str(notebook))
    assert code == 1, out + err
    kept, lost = (heads.sessions for heads in witness_checkpoints(notebook))
    assert kept is not None and lost is not None
    assert (kept.seq, lost.seq) == (seq - 1, seq)  # the first cell's, and the deleted turn's
    said = (
        f"sessions.db: audit chain: seq {seq}: truncated: checkpoint {lost} is beyond the "
        f"chain head (seq {seq - 1})"
    )
    assert (out + err).splitlines() == [said], out + err  # that one line, and nothing else
    code, out, _ = run("verify", "--witness", str(notebook), "--json")
    assert code == 1 and json.loads(out)["ok"] is False


# ------------------------------------------------- support measures what the model saw

SHELTER = (
    "The quokka shelters under saltbush on Rottnest Island, where it rests through the heat "
    "of the day in the shade of low thickets and dense scrub."
)
SEEPAGE = (
    "Late in the evening it walks down to the swamp edge and drinks at the seepage below "
    "the dunes, where the water stays fresh all summer."
)


@pytest.fixture
def fitted(home: Path, tmp_path: Path, chat_server: ChatServer) -> Path:
    """One chunk: three sentences on shelter, then three on seepage (the only place the word
    is); ``tiny`` a model on the chat server with a 600-token context (about 440 characters
    of evidence fit), ``roomy`` the same with 16,384."""
    text = " ".join([SHELTER] * 3 + [SEEPAGE] * 3)
    (tmp_path / "notes.md").write_text(f"# Quokka field notes\n\n{text}\n", encoding="utf-8")
    assert run("ingest", str(tmp_path / "notes.md"))[0] == 0
    profile = f'provider = "openai"\nbase_url = "{chat_server.url}"\nmodel = "m"\nmax_tokens = 64\n'
    (home / "config.toml").write_text(
        f"[models.tiny]\n{profile}context_tokens = 600\n\n"
        f"[models.roomy]\n{profile}context_tokens = 16384\n",
        encoding="utf-8",
    )
    (home / "config.toml").chmod(0o600)
    return home


def test_support_measures_the_evidence_as_the_model_was_shown_it(
    fitted: Path, chat_server: ChatServer
) -> None:
    """A chunk cut to fit the context is recorded with how many of its characters were
    shown (its policy, in the key). The support label measures that much of it: a question
    word only past the cut was never in front of the model, so the answer is not
    "answered" on it."""
    question = "Where does the quokka shelter, and where is the seepage?"
    reply = completion("The quokka shelters under saltbush on Rottnest Island [E1].")
    chat_server.script(reply, reply)
    with Arborist(fitted) as app:
        asked = app.ask(question, llm="tiny")
        prompt = chat_server.received[-1].body["messages"][-1]["content"]
        whole = app.ask(question, llm="roomy").record
    cut = asked.record
    [item] = cut.evidence
    assert item.cited and item.text is not None and "seepage" in item.text
    shown = cut.policy["evidence_trimmed"]
    assert shown == {"label": "E1", "chars": cut.response["prompt_budget"]["trimmed"]["chars_sent"]}
    sent = item.text[: shown["chars"]].strip()
    evidence = prompt.split("\n\nEvidence:\n\n", 1)[1]
    assert sent + TRIM_MARK in evidence and "seepage" not in evidence  # the model never saw it
    # The roomy model saw all of it; the reply is the passage's own words, so quoted.
    assert record_support(whole) == Support(ANSWERED, quoted=True)
    assert record_support(cut) == Support(PARTLY, ("seepage",), quoted=True), record_support(cut)
    assert "support partly: no cited passage mentions seepage" in answer_text(asked).splitlines()

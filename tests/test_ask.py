"""Cache-first answers end to end: real files, a real store, a real chat server on loopback."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from arborist import Arborist
from arborist._errors import BadInput, ModelError, NotFound, StorageError
from tests.chat_server import ChatServer, error_reply
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401

SPIDER = (
    "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\n"
    "He first appeared in Amazing Fantasy number 15 in 1962.\n"
)
BATMAN = (
    "# Batman\n\nBatman was created by artist Bob Kane and writer Bill Finger.\n"
    "He first appeared in Detective Comics number 27 in 1939.\n"
)


@pytest.fixture
def app(home: Path, tmp_path: Path) -> Arborist:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "spider.md").write_text(SPIDER, encoding="utf-8")
    (docs / "batman.md").write_text(BATMAN, encoding="utf-8")
    with Arborist(home) as arborist:
        arborist.ingest([str(docs)])
        yield arborist  # type: ignore[misc]


@pytest.fixture
def openai_env(chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> ChatServer:
    monkeypatch.setenv("ARBORIST_BASE_URL", chat_server.url)
    monkeypatch.setenv("ARBORIST_MODEL", "loopback-model")
    monkeypatch.setenv("ARBORIST_API_KEY", "sk-test-not-a-real-key-000000")
    return chat_server


def test_the_first_ask_is_a_miss_that_cites_and_proves(app: Arborist) -> None:
    result = app.ask("Who created Spider-Man?")
    assert not result.hit
    record = result.record
    assert "Ditko" in record.answer_text
    assert record.answer_text.endswith("[E1]")
    assert record.audit_mode == "STRICT"
    assert record.evidence[0].cited and record.evidence[0].title == "Spider-Man"
    assert record.state == "ok" and record.revision == 1


def test_the_same_question_again_is_a_hit_that_calls_no_model(
    app: Arborist, openai_env: ChatServer
) -> None:
    first = app.ask("Who created Spider-Man?", llm="openai")
    assert openai_env.requests == 1 and not first.hit
    second = app.ask("  who created   Spider-Man? ".replace("who", "Who"), llm="openai")
    assert second.hit
    assert openai_env.requests == 1, "a cache hit must send zero requests"
    assert second.record.hit_count == 1
    assert second.cache_key == first.cache_key


def test_a_different_model_misses(app: Arborist, openai_env: ChatServer) -> None:
    app.ask("Who created Batman?", llm="openai")
    assert not app.ask("Who created Batman?").hit  # extractive: another model profile
    assert app.ask("Who created Batman?").hit


def test_ingesting_an_unrelated_document_keeps_the_hit(app: Arborist, tmp_path: Path) -> None:
    key = app.ask("Who created Spider-Man?").cache_key
    (tmp_path / "bread.md").write_text(
        "# Bread\n\nKnead the dough, then let it rise.\n", encoding="utf-8"
    )
    app.ingest([str(tmp_path / "bread.md")])
    again = app.ask("Who created Spider-Man?")
    assert again.hit and again.cache_key == key


def test_changing_a_cited_document_makes_the_next_ask_a_miss(app: Arborist, tmp_path: Path) -> None:
    first = app.ask("Who created Spider-Man?")
    spider = tmp_path / "docs" / "spider.md"
    spider.write_text(
        SPIDER.replace("Steve Ditko", "Steve Ditko and nobody else"), encoding="utf-8"
    )
    result = app.ingest([str(spider)])
    assert result[0].status == "updated" and result[0].stale_records == 1
    assert app.record(first.cache_key).state == "stale"
    again = app.ask("Who created Spider-Man?")
    assert not again.hit and again.cache_key != first.cache_key
    assert "nobody else" in again.answer


def test_falsifying_makes_the_next_ask_a_miss_that_writes_a_new_revision(app: Arborist) -> None:
    first = app.ask("Who created Batman?")
    app.falsify(first.cache_key[:10], "failed", "the artist credit is disputed")
    old = app.record(first.cache_key, revision=1)
    assert (old.state, old.state_reason) == ("failed", "the artist credit is disputed")
    again = app.ask("Who created Batman?")
    assert not again.hit and again.record.revision == 2
    assert again.cache_key == first.cache_key
    assert app.ask("Who created Batman?").hit
    with pytest.raises(BadInput, match="choose one of"):
        app.falsify(first.cache_key, "wrong", "x")
    with pytest.raises(BadInput, match="reason"):
        app.falsify(first.cache_key, "failed", "  ")
    with pytest.raises(NotFound):
        app.falsify("0" * 64, "failed", "x")


def test_no_cache_asks_again_and_retires_the_old_revision(
    app: Arborist, openai_env: ChatServer
) -> None:
    first = app.ask("Who created Batman?", llm="openai")
    fresh = app.ask("Who created Batman?", llm="openai", use_cache=False)
    assert openai_env.requests == 2 and not fresh.hit and fresh.record.revision == 2
    assert app.record(first.cache_key, revision=1).state == "stale"
    assert app.ask("Who created Batman?", llm="openai").record.revision == 2


def test_a_model_error_writes_nothing(app: Arborist, openai_env: ChatServer) -> None:
    openai_env.script(error_reply(400, "bad request"))
    before = app.store_conn.execute("SELECT count(*) FROM audit_events").fetchone()[0]
    with pytest.raises(ModelError):
        app.ask("Who created Batman?", llm="openai")
    assert app.store_conn.execute("SELECT count(*) FROM cache_records").fetchone()[0] == 0
    assert app.store_conn.execute("SELECT count(*) FROM audit_events").fetchone()[0] == before


def test_streaming_tokens_arrive_before_the_record(app: Arborist, openai_env: ChatServer) -> None:
    tokens: list[str] = []
    result = app.ask("Who created Spider-Man?", llm="openai", on_token=tokens.append)
    assert len(tokens) > 1
    assert "".join(tokens) == result.answer


def test_empty_question_is_refused_and_writes_nothing(app: Arborist) -> None:
    for question in ("", "   ", "\x00"):
        with pytest.raises(BadInput, match="empty"):
            app.ask(question)
    assert app.store_conn.execute("SELECT count(*) FROM cache_records").fetchone()[0] == 0


def _verify_without_arborist(item: dict) -> bool:
    """RFC 9162 inclusion check written from scratch with hashlib: what an outsider would run."""
    node = bytes.fromhex(item["leaf"])
    if hashlib.sha256(b"\x00" + item["text"].encode()).digest() != node:
        return False
    fn, sn = item["chunk_index"], item["chunk_count"] - 1
    for sibling_hex in item["proof"]:
        sibling = bytes.fromhex(sibling_hex)
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            node = hashlib.sha256(b"\x03" + sibling + node).digest()
            while not fn & 1 and fn:
                fn, sn = fn >> 1, sn >> 1
        else:
            node = hashlib.sha256(b"\x03" + node + sibling).digest()
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and node.hex() == item["source_root"]


def test_show_json_lets_anyone_reverify_every_proof(app: Arborist, tmp_path: Path) -> None:
    long_doc = "\n\n".join(f"## Part {i}\n\nPart {i} mentions gizmos number {i}." for i in range(9))
    (tmp_path / "gizmos.md").write_text("# Gizmos\n\n" + long_doc, encoding="utf-8")
    app.ingest([str(tmp_path / "gizmos.md")])
    key = app.ask("Which part mentions gizmos number 7?").cache_key
    data = json.loads(json.dumps(app.record(key).as_json()))
    assert data["evidence"], "expected evidence"
    for item in data["evidence"]:
        assert {"source_root", "chunk_count", "chunk_index", "leaf", "proof", "text"} <= set(item)
        assert _verify_without_arborist(item), item["label"]
    assert any(item["chunk_count"] > 1 and item["proof"] for item in data["evidence"])


def test_verify_catches_an_edited_answer(app: Arborist) -> None:
    app.ask("Who created Spider-Man?")
    assert app.verify().ok
    conn = sqlite3.connect(app.store_path)
    conn.execute("UPDATE cache_records SET answer_text = 'Jack Kirby created Spider-Man.'")
    conn.commit()
    conn.close()
    assert any("record_hash" in p for p in app.verify().problems)


def _as_before_migration_4(store: Path) -> None:
    """Put a store back in the shape it had before migration 4 (its only difference)."""
    conn = sqlite3.connect(store, isolation_level=None)
    conn.execute("ALTER TABLE cache_records RENAME COLUMN evidence_root TO source_root")
    conn.execute("DELETE FROM schema_migrations WHERE version = 4")
    conn.close()


def test_a_store_from_before_migration_4_keeps_its_answers_under_evidence_root(
    home: Path, tmp_path: Path
) -> None:
    (tmp_path / "spider.md").write_text(SPIDER, encoding="utf-8")
    with Arborist(home) as app:
        app.ingest([str(tmp_path / "spider.md")])
        first = app.ask("Who created Spider-Man?")
    _as_before_migration_4(home / "store.db")
    with Arborist(home) as app:
        columns = {row[1] for row in app.store_conn.execute("PRAGMA table_info(cache_records)")}
        assert "evidence_root" in columns and "source_root" not in columns
        again = app.ask("Who created Spider-Man?")
        assert again.hit and again.record.evidence_root == first.record.evidence_root
        assert app.verify().ok


def test_migration_4_refuses_to_run_twice_when_its_history_row_was_deleted(home: Path) -> None:
    with Arborist(home) as app:
        app.store_conn  # noqa: B018 - opening it migrates
    conn = sqlite3.connect(home / "store.db", isolation_level=None)
    conn.execute("DELETE FROM schema_migrations WHERE version = 4")
    conn.close()
    with pytest.raises(StorageError, match="migration_history_was_edited"), Arborist(home) as app:
        app.store_conn  # noqa: B018 - opening it migrates


def test_cold_evidence_stays_in_the_record_and_its_proof_still_verifies(app: Arborist) -> None:
    first = app.ask("Who created Spider-Man?")
    app.evict(str(first.record.evidence[0].document_id), "cold")
    record = app.record(first.cache_key)
    assert record.evidence[0].text is None and record.evidence[0].tier == "cold"
    assert app.verify().ok


def test_derive_snippet_saves_cited_spans_as_a_hybrid_core_record(app: Arborist) -> None:
    key = app.ask("Who created Spider-Man?").cache_key
    derivation = app.derive("snippet", key[:12])
    assert derivation.core.kind == "core"
    assert (
        "Ditko"
        in app.store_conn.execute(
            "SELECT text FROM chunks WHERE document_id = ?", (derivation.core.id,)
        ).fetchone()[0]
    )
    hits = [h for h in app.search("Ditko") if h.kind == "core"]
    assert [h.audit_mode for h in hits] == ["HYBRID"]
    assert app.verify().ok
    with pytest.raises(BadInput, match="the offline model does not write a summary"):
        app.derive("summary", key)
    summary = app.derive("summary", key, "Lee and Ditko made Spider-Man.")
    assert summary.sources and summary.core.uri.startswith("core:summary:")


def test_stats_count_what_is_stored(app: Arborist) -> None:
    app.ask("Who created Spider-Man?")
    app.ask("Who created Spider-Man?")
    app.evict("2", "warm")
    stats = app.stats()
    assert stats["documents"] == {"surface": 2, "core": 0, "superseded": 0}
    assert stats["chunks"]["warm"] >= 1 and stats["chunks"]["cold"] == 0
    assert stats["cache_records"]["ok"] == 1 and stats["cache_hits"] == 1
    assert stats["file_bytes"]["store.db"] > 0


def test_threading_puts_earlier_turns_in_the_prompt_and_the_key(
    app: Arborist, openai_env: ChatServer
) -> None:
    session = app.new_session()
    first = app.ask_turn("Who created Spider-Man?", sid=session.sid, llm="openai")
    plain = app.ask("Who drew him?", llm="openai")
    threaded = app.ask_turn("Who drew him?", sid=session.sid, llm="openai", thread=True)
    assert plain.record.dimensions["conversation_hash"] == ""
    assert threaded.result.record.dimensions["conversation_hash"] != ""
    assert threaded.result.cache_key != plain.cache_key
    messages = openai_env.received[-1].body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"] == "Who created Spider-Man?"
    assert messages[2]["content"] == first.result.answer


def test_an_ask_deep_in_a_thread_reads_only_the_turns_it_uses(
    app: Arborist, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A follow-up borrows from the turns above it up to the one that stands alone, and a
    threaded prompt holds the nearest six (here within those): at depth 200 an ask reads those, not the chain,
    and borrows and threads exactly what reading the whole chain would give."""
    import arborist._facade.app as facade
    from arborist._forest.nodes import ancestors, get_node
    from arborist._forest.shard import insert_turn
    from arborist._qa import followups

    session = app.new_session()
    parent = app.session(session.sid).current_bates
    for i in range(200):  # a long thread: every tenth question stands alone
        question = f"Who created Spider-Man, question {i}?" if i % 10 == 0 else "And him?"
        node = insert_turn(app.sessions_conn, session.sid, parent, question=question,
                           answer_text=f"answer {i}", cache_key=f"{i:064x}",
                           audit_mode="STRICT", cited_titles=["Spider-Man"])  # fmt: skip
        parent = node.bates
    deepest = app.node(parent)
    whole = [deepest, *ancestors(app.sessions_conn, deepest.bates)]
    for thread in (False, True):
        read = followups.read_above(deepest, thread, lambda b: get_node(app.sessions_conn, b))
        assert followups.context(read) == followups.context(whole)
        assert followups.sources(read) == followups.sources(whole)
        assert followups.threaded(read) == followups.threaded(whole)
        assert len(read) == 11  # to the nearest question that stands alone and, read under
        # it (stands_alone reads the turn above), the turn that question was asked under
    calls: list[str] = []
    real = facade.get_node
    monkeypatch.setattr(facade, "get_node", lambda conn, b: calls.append(b) or real(conn, b))
    turn = app.ask_turn("Who drew him?", sid=session.sid, thread=True)
    assert turn.node.parent_bates == deepest.bates
    assert len(calls) <= 12  # the eleven it reads, and the session's current turn (was 201)

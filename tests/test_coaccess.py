"""Session co-access (docs/design.md section 7), case by case, against real store files."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from arborist import Arborist
from arborist._errors import ArboristError, BadInput
from arborist._faces.cli import cli
from arborist._faces.sync import body
from arborist._store import coaccess, coaccess_spool
from arborist._store.coaccess import (
    compute_edges,
    ensure_schema,
    has_schema,
    rebuild_related,
    record_session,
)
from arborist._views.results import answer_text
from tests.hypothesis_sizes import scaled_examples

AWS_KEY = "AKIA" + "Q3ZLN7V2RKD4WX6M"

TOPICS = {
    "tides.md": "# Tides\n\nTides rise and fall twice a day because the moon pulls the oceans.\n\n"
    "## Spring tides\n\nSpring tides happen when the sun and moon align.\n",
    "moon.md": "# The moon\n\nThe moon orbits the earth every 27 days and pulls the oceans.\n\n"
    "## Phases\n\nThe phases of the moon follow the sun's light on its face.\n",
    "volcano.md": "# Volcanoes\n\nA volcano erupts when magma rises through the crust.\n\n"
    "## Lava\n\nLava is magma that reached the surface of the earth.\n",
    "vault.md": "# Vault\n\nThe deploy vault key is "
    + AWS_KEY
    + " and it opens the oceans of data.\n",
}
QUESTIONS = [
    "why do tides rise",
    "when do spring tides happen",
    "what are the phases of the moon",
    "how does a volcano erupt",
    "what is lava",
]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name, text in TOPICS.items():
        if name != "vault.md":
            (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARBORIST_COACCESS", "1")


def _rows(app: Arborist) -> list[tuple[str, str, str, int, str]]:
    return app.store_conn.execute(
        "SELECT content_hash, session_id, transcript_ref, ordinal, capture_batch_id "
        "FROM record_session ORDER BY session_id, ordinal"
    ).fetchall()


def _edges(conn: sqlite3.Connection) -> list[tuple[str, str, str, float]]:
    return conn.execute(
        "SELECT index_version, source_hash, related_hash, freq_score FROM related_hashes "
        "ORDER BY 1, 2, 3"
    ).fetchall()


# --- the flag -----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["", "0"])
def test_the_flag_is_off_unless_it_is_1(value: str) -> None:
    assert coaccess.enabled({"ARBORIST_COACCESS": value}) is False
    assert coaccess.enabled({}) is False
    assert coaccess.enabled({"ARBORIST_COACCESS": "1"}) is True


def test_a_bad_flag_value_is_a_one_line_error() -> None:
    with pytest.raises(BadInput, match="ARBORIST_COACCESS must be 0 or 1"):
        coaccess.enabled({"ARBORIST_COACCESS": "yes"})


# --- record_session: the substrate --------------------------------------------------------------


@pytest.fixture
def store(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    with Arborist(tmp_path / "h") as app:
        ensure_schema(app.store_conn)
        yield app.store_conn


def _leaf(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_same_content_in_two_sessions_is_two_rows_and_the_same_pair_twice_is_one(
    store: sqlite3.Connection,
) -> None:
    a, b = _leaf("a"), _leaf("b")
    first = record_session(
        store,
        session_id="s1",
        transcript_ref="r",
        capture_batch_id="t1",
        chunks=[(a, "A"), (b, "B")],
    )
    assert (first.written, first.existing) == (2, 0)
    record_session(
        store, session_id="s2", transcript_ref="r", capture_batch_id="t2", chunks=[(a, "A")]
    )
    again = record_session(
        store,
        session_id="s1",
        transcript_ref="r",
        capture_batch_id="t3",
        chunks=[(b, "B"), (a, "A")],
    )
    assert (again.written, again.existing) == (0, 2)
    rows = store.execute(
        "SELECT content_hash, session_id, ordinal, capture_batch_id FROM record_session "
        "ORDER BY session_id, ordinal"
    ).fetchall()
    assert rows == [(a, "s1", 0, "t1"), (b, "s1", 1, "t1"), (a, "s2", 0, "t2")]


def test_ordinals_continue_across_turns_and_repeats_within_a_turn_count_once(
    store: sqlite3.Connection,
) -> None:
    a, b, c = _leaf("a"), _leaf("b"), _leaf("c")
    record_session(
        store,
        session_id="s",
        transcript_ref=None,
        capture_batch_id="t1",
        chunks=[(a, "A"), (a, "A")],
    )
    record_session(
        store,
        session_id="s",
        transcript_ref=None,
        capture_batch_id="t2",
        chunks=[(b, "B"), (a, "A"), (c, "C")],
    )
    assert store.execute(
        "SELECT content_hash, ordinal FROM record_session ORDER BY ordinal"
    ).fetchall() == [(a, 0), (b, 1), (c, 2)]


def test_an_abstained_span_writes_no_row_and_no_edge(store: sqlite3.Connection) -> None:
    secret, cold = _leaf("secret"), _leaf("cold")
    result = record_session(
        store,
        session_id="s",
        transcript_ref=None,
        capture_batch_id="t",
        chunks=[(secret, f"the key is {AWS_KEY}"), (cold, None)],
    )
    assert (result.written, result.abstained) == (0, 2)
    assert store.execute("SELECT count(*) FROM record_session").fetchone()[0] == 0
    rebuild_related(store)
    assert _edges(store) == []
    # the allowlist admits what the user declared a false positive
    allowed = record_session(
        store,
        session_id="s",
        transcript_ref=None,
        capture_batch_id="t",
        chunks=[(secret, f"the key is {AWS_KEY}")],
        allowlist=[AWS_KEY],
    )
    assert allowed.written == 1


# --- related_hashes: the edges ------------------------------------------------------------------


def test_a_large_session_is_proximity_bounded_not_a_clique(store: sqlite3.Connection) -> None:
    n, window, fanout = 400, 3, 4
    leaves = [_leaf(str(i)) for i in range(n)]
    record_session(
        store,
        session_id="big",
        transcript_ref=None,
        capture_batch_id="t",
        chunks=[(leaf, f"chunk {i}") for i, leaf in enumerate(leaves)],
    )
    report = rebuild_related(store, window=window, fanout=fanout)
    edges = _edges(store)
    assert report.edges == len(edges) <= fanout * n
    assert len(edges) < n * (n - 1)  # nowhere near the clique
    position = {leaf: i for i, leaf in enumerate(leaves)}
    per_source: dict[str, int] = {}
    for _version, source, related, score in edges:
        assert 0.0 <= score <= 1.0
        assert abs(position[source] - position[related]) <= window
        per_source[source] = per_source.get(source, 0) + 1
    assert max(per_source.values()) == fanout
    # the nearest neighbours win when scores tie
    middle = leaves[200]
    assert {r for _v, s, r, _f in edges if s == middle} == {
        leaves[198],
        leaves[199],
        leaves[201],
        leaves[202],
    }


sessions = st.lists(
    st.lists(st.integers(min_value=0, max_value=30), min_size=1, max_size=25),
    min_size=1,
    max_size=6,
)


@settings(max_examples=scaled_examples(150), deadline=None)
@given(sessions, st.integers(min_value=1, max_value=6), st.integers(min_value=1, max_value=6))
def test_edges_never_exceed_k_per_chunk_and_scores_stay_in_0_1(
    cited: list[list[int]], window: int, fanout: int
) -> None:
    rows = []
    for s, chunks in enumerate(cited):
        seen: dict[int, int] = {}
        for chunk in chunks:
            seen.setdefault(chunk, len(seen))
        rows += [(f"s{s}", ordinal, f"c{chunk}") for chunk, ordinal in seen.items()]
    edges = compute_edges(rows, window=window, fanout=fanout)
    distinct = {content for _s, _o, content in rows}
    assert sum(len(v) for v in edges.values()) <= fanout * len(distinct)
    for source, neighbours in edges.items():
        assert len(neighbours) <= fanout and source not in neighbours
        assert all(0.0 < score <= 1.0 for score in neighbours.values())
    assert compute_edges(list(reversed(rows)), window=window, fanout=fanout) == edges


def test_freq_score_is_the_share_of_a_chunks_sessions_where_the_neighbour_was_near(
    store: sqlite3.Connection,
) -> None:
    a, b, c = _leaf("a"), _leaf("b"), _leaf("c")
    for sid, chunks in (("s1", [a, b]), ("s2", [a, b]), ("s3", [a, c]), ("s4", [a])):
        record_session(
            store,
            session_id=sid,
            transcript_ref=None,
            capture_batch_id=sid,
            chunks=[(leaf, "text") for leaf in chunks],
        )
    rebuild_related(store)
    scores = {(s, r): f for _v, s, r, f in _edges(store)}
    assert scores[(a, b)] == 0.5 and scores[(a, c)] == 0.25
    assert scores[(b, a)] == 1.0 and scores[(c, a)] == 1.0


def test_a_rebuild_interrupted_mid_batch_and_rerun_ends_where_one_clean_run_does(
    tmp_path: Path,
) -> None:
    with Arborist(tmp_path / "h") as app:
        conn = app.store_conn
        ensure_schema(conn)
        for s in range(30):
            record_session(
                conn,
                session_id=f"s{s}",
                transcript_ref=None,
                capture_batch_id=f"t{s}",
                chunks=[(_leaf(str((s * 7 + i) % 90)), "text") for i in range(12)],
            )
    shutil.copy(tmp_path / "h" / "store.db", tmp_path / "clean.db")
    clean = sqlite3.connect(tmp_path / "clean.db", isolation_level=None)
    expected = rebuild_related(clean).edges
    clean_edges = _edges(clean)
    assert len(clean_edges) == expected > 100

    class Killed(Exception):
        pass

    def stop_after_first(done: int) -> None:
        raise Killed(done)

    with Arborist(tmp_path / "h") as app:
        with pytest.raises(Killed):
            rebuild_related(app.store_conn, batch_size=50, on_batch=stop_after_first)
        conn = app.store_conn
        assert 0 < len(_edges(conn)) < len(clean_edges)
        assert coaccess.is_stale(conn, coaccess.index_version(4, 8))
        resumed = rebuild_related(conn, batch_size=50)
        assert resumed.inserted == len(clean_edges) - 50
        assert _edges(conn) == clean_edges
        assert not coaccess.is_stale(conn, resumed.index_version)
        again = rebuild_related(conn)
        assert (again.inserted, again.updated, again.deleted) == (0, 0, 0)
        assert _edges(conn) == clean_edges
    clean.close()


def test_changing_window_or_fanout_builds_a_new_version_and_sweeps_the_old(
    store: sqlite3.Connection,
) -> None:
    record_session(
        store,
        session_id="s",
        transcript_ref=None,
        capture_batch_id="t",
        chunks=[(_leaf(str(i)), "x") for i in range(20)],
    )
    rebuild_related(store, window=2, fanout=2)
    rebuild_related(store, window=5, fanout=3)
    assert {v for v, *_ in _edges(store)} == {"freq1-w5-k3"}
    with pytest.raises(BadInput, match="window must be between 1 and 64"):
        rebuild_related(store, window=0)


# --- the real ask path --------------------------------------------------------------------------


def test_the_real_ask_path_records_admitted_cited_chunks_only(
    home: Path, corpus: Path, on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    (corpus / "vault.md").write_text(TOPICS["vault.md"], encoding="utf-8")
    # the vault's key is allowlisted at ingest (kept verbatim), then the user withdraws that
    (home).mkdir(parents=True)
    (home / "config.toml").write_text(f'[admission]\nallowlist = ["{AWS_KEY}"]\n')
    notebook = str(Path.home() / "Research" / "tides study.ipynb")
    with Arborist(home) as app:
        app.ingest([str(corpus)])
        (home / "config.toml").write_text("")
        session = app.new_session("study")
        turns = [
            app.ask_turn(q, sid=session.sid, transcript=notebook)
            for q in [*QUESTIONS, "what opens the oceans of data"]
        ]
        rows = _rows(app)
        cited = [(e.leaf, e.text) for t in turns for e in t.result.record.evidence if e.cited]
        uncited = {e.leaf for t in turns for e in t.result.record.evidence if not e.cited}
    admitted = [leaf for leaf, text in cited if AWS_KEY not in (text or "")]
    assert any(AWS_KEY in (text or "") for _leaf, text in cited)  # the vault chunk was cited
    assert [r[0] for r in rows] == list(dict.fromkeys(admitted))
    assert [r[3] for r in rows] == list(range(len(rows)))
    assert not (uncited - set(admitted)) & {r[0] for r in rows}
    refs = {r[2] for r in rows}
    assert len(refs) == 1
    digest, name = refs.pop().split(":")
    assert len(digest) == 16 and name == "tides_study.ipynb"
    assert {r[4] for r in rows} <= {t.node.bates for t in turns}
    raw = b"".join(p.read_bytes() for p in home.iterdir() if p.is_file())
    assert str(Path.home()).encode() not in raw and b"Research" not in raw


def test_related_by_turn_document_and_chunk_from_the_cli(
    home: Path, corpus: Path, on: None
) -> None:
    with Arborist(home) as app:
        app.ingest([str(corpus)])
        for label in ("one", "two"):
            session = app.new_session(label)
            turns = [app.ask_turn(q, sid=session.sid) for q in QUESTIONS[:3]]
    runner = CliRunner()
    by_turn = runner.invoke(cli, ["related", turns[0].node.bates, "--json"])
    assert by_turn.exit_code == 0, by_turn.output
    found = json.loads(by_turn.output)
    assert found["kind"] == "turn" and found["related"]
    assert all(0 <= item["freq_score"] <= 1 for item in found["related"])
    assert not set(found["sources"]) & {item["leaf"] for item in found["related"]}
    moon = runner.invoke(cli, ["related", str(corpus / "moon.md")])
    assert moon.exit_code == 0 and "related to document" in moon.output
    leaf = found["related"][0]["leaf"]
    by_chunk = runner.invoke(cli, ["related", leaf, "--json"])
    assert json.loads(by_chunk.output)["sources"] == [leaf]
    stats = runner.invoke(cli, ["stats"])
    assert "co-access" in stats.output and "freq1-w4-k8" in stats.output
    missing = runner.invoke(cli, ["related", "nothing-like-this"])
    assert missing.exit_code == 1 and "no chunk, document or turn" in missing.output


def test_related_with_the_flag_off_and_no_index_is_a_one_line_error(corpus: Path) -> None:
    result = CliRunner().invoke(cli, ["related", str(corpus / "moon.md")])
    assert result.exit_code == 2
    assert "no co-access index" in result.output and "ARBORIST_COACCESS=1" in result.output
    assert "Traceback" not in result.output
    ask = CliRunner().invoke(cli, ["ask", "why do tides rise", "--related"])
    assert ask.exit_code == 2 and "no co-access index" in ask.output


def test_the_related_lane_changes_the_evidence_and_the_key_but_not_the_rules(
    home: Path, corpus: Path, on: None
) -> None:
    with Arborist(home) as app:
        app.ingest([str(corpus)])
        history = app.new_session("history")
        for q in ("why do tides rise", "what are the phases of the moon", "what is lava"):
            app.ask_turn(q, sid=history.sid)
        fresh = app.new_session("fresh")
        plain = app.ask_turn("when do spring tides happen", sid=fresh.sid)
        wide = app.ask_turn("when do spring tides happen", sid=fresh.sid, related=True)
        again = app.ask_turn("when do spring tides happen", sid=fresh.sid, related=True)
        assert app.verify().ok
    first = [e.leaf for e in plain.result.record.evidence]
    lane = [e.leaf for e in wide.result.record.evidence]
    assert lane[: len(first)] == first and len(lane) > len(first)
    assert wide.result.cache_key != plain.result.cache_key
    assert wide.result.record.evidence_root != plain.result.record.evidence_root
    assert wide.result.record.policy == plain.result.record.policy  # same key rules
    assert again.result.hit and again.result.cache_key == wide.result.cache_key
    assert all(item.proof is not None for item in wide.result.record.evidence)
    # every face can tell the lanes apart: the record names each item's lane, the JSON and
    # the text tag the co-accessed ones; a plain lexical ask's metadata stays as it was
    lanes = wide.result.record.response["retrieval_lanes"]
    assert lanes == ["lexical"] * len(first) + ["related"] * (len(lane) - len(first))
    items = wide.result.record.as_json()["evidence"]
    assert [item["lane"] for item in items] == lanes
    assert "[related]" in answer_text(wide.result)
    assert "retrieval_lanes" not in plain.result.record.response


def test_the_widget_body_lists_related_sources(home: Path, corpus: Path, on: None) -> None:
    with Arborist(home) as app:
        app.ingest([str(corpus)])
        for label in ("one", "two"):
            session = app.new_session(label)
            turns = [app.ask_turn(q, sid=session.sid) for q in QUESTIONS[:3]]
        detail = body(app, turns[0].node.bates, session.sid)
    assert detail["related"] and {"title", "uri", "freq_score", "leaf"} <= set(detail["related"][0])


# --- flag off: byte-identical -------------------------------------------------------------------


class _FixedDatetime(datetime):
    ticks = 0

    @classmethod
    def now(cls, tz: object = None) -> _FixedDatetime:  # type: ignore[override]
        cls.ticks += 1
        return cls(2026, 11, 29, 12, 0, cls.ticks % 60, cls.ticks, tzinfo=timezone.utc)


def _scenario(home: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """Ingest, ask, fork, label, find: everything a session does, on a fixed clock."""
    _FixedDatetime.ticks = 0
    tokens = iter(f"{i:06x}" for i in range(1, 100))
    monkeypatch.setattr("arborist._clock.datetime", _FixedDatetime)
    monkeypatch.setattr("arborist._forest.shard.datetime", _FixedDatetime)
    monkeypatch.setattr("arborist._forest.bates.secrets.token_hex", lambda n: next(tokens))
    with Arborist(home) as app:
        app.ingest([str(corpus)])
        one = app.new_session("one")
        turns = [app.ask_turn(q, sid=one.sid) for q in QUESTIONS]
        two = app.new_session("two")
        app.cd(two.sid, turns[1].node.bates)
        app.ask_turn("and neap tides", sid=two.sid, label="fork")
        app.find("tides")
    return {p.name: p.read_bytes() for p in sorted(home.iterdir())}


def test_flag_off_leaves_the_store_files_byte_identical_to_a_build_without_the_feature(
    tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def absent(*args: object, **kwargs: object) -> None:
        raise AssertionError("co-access code ran with the flag off")

    with monkeypatch.context() as without:  # the feature's entry points removed
        for name in ("ensure_schema", "record_session", "rebuild_related", "admitted_leaves"):
            without.setattr(coaccess, name, absent)
        for name in ("spool", "drain"):
            without.setattr(coaccess_spool, name, absent)
        baseline = _scenario(tmp_path / "baseline", corpus, without)
    unset = _scenario(tmp_path / "unset", corpus, monkeypatch)
    monkeypatch.setenv("ARBORIST_COACCESS", "0")
    zero = _scenario(tmp_path / "zero", corpus, monkeypatch)
    assert set(baseline) == {"sessions.db", "store.db"}  # and no redaction.key
    assert unset == baseline and zero == baseline
    monkeypatch.setenv("ARBORIST_COACCESS", "1")
    with_feature = _scenario(tmp_path / "on", corpus, monkeypatch)
    assert with_feature["store.db"] != baseline["store.db"]  # the comparison can fail
    assert "redaction.key" in with_feature


# --- migration ----------------------------------------------------------------------------------


def _dump(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        added = ("record_session", "related_", "chunks_leaf")  # what the migration adds
        return [line for line in conn.iterdump() if not any(name in line for name in added)]
    finally:
        conn.close()


def test_the_migration_on_a_populated_store_twice_loses_nothing(
    home: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Arborist(home) as app:
        app.ingest([str(corpus)])
        session = app.new_session("before")
        for q in QUESTIONS:
            app.ask_turn(q, sid=session.sid)
    before = _dump(home / "store.db")
    monkeypatch.setenv("ARBORIST_COACCESS", "1")
    with Arborist(home) as app:
        assert not has_schema(app.store_conn)
        assert ensure_schema(app.store_conn) is True
        assert ensure_schema(app.store_conn) is False  # re-runnable: nothing to do
        assert _dump(home / "store.db") == before
        assert app.verify().ok
        # forward only: turns recorded before the flag are not reconstructed
        assert app.store_conn.execute("SELECT count(*) FROM record_session").fetchone()[0] == 0
        app.ask_turn(QUESTIONS[0], sid=session.sid)
        assert app.store_conn.execute("SELECT count(*) FROM record_session").fetchone()[0] > 0
    monkeypatch.setenv("ARBORIST_COACCESS", "0")
    with Arborist(home) as app:  # turning it off again keeps what was recorded, adds nothing
        rows = app.store_conn.execute("SELECT count(*) FROM record_session").fetchone()[0]
        app.ask_turn(QUESTIONS[1], sid=session.sid)
        assert app.store_conn.execute("SELECT count(*) FROM record_session").fetchone()[0] == rows
        with pytest.raises(ArboristError, match="co-access is off"):
            app.rebuild_related()


def test_the_cli_working_directory_is_stored_as_cli_never_its_name(
    home: Path, corpus: Path, on: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = tmp_path / "alice"
    alice.mkdir()
    monkeypatch.chdir(alice)
    with Arborist(home) as app:
        app.ingest([str(corpus)])
        session = app.new_session("cli")
        app.ask_turn(QUESTIONS[0], sid=session.sid)
        refs = {r[2] for r in _rows(app)}
    assert len(refs) == 1 and refs.pop().endswith(":cli")
    raw = b"".join(p.read_bytes() for p in home.iterdir() if p.is_file())
    assert b"alice" not in raw


def test_a_deleted_working_directory_records_the_turn_without_a_transcript(
    home: Path, corpus: Path, on: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    with Arborist(home) as app:
        app.ingest([str(corpus)])
        session = app.new_session("cli")
        turn = app.ask_turn(QUESTIONS[0], sid=session.sid)
        rows = _rows(app)
    assert rows and {r[2] for r in rows} == {None} and {r[4] for r in rows} == {turn.node.bates}


def test_a_bad_coaccess_setting_leaves_the_rest_of_the_detail_pane(
    home: Path, corpus: Path, on: None
) -> None:
    with Arborist(home) as app:
        app.ingest([str(corpus)])
        session = app.new_session("one")
        turn = app.ask_turn(QUESTIONS[0], sid=session.sid)
        (home / "config.toml").write_text("[coaccess]\nwindow = 100\n", encoding="utf-8")
        detail = body(app, turn.node.bates, session.sid)
    assert detail["record"] is not None and detail["record"]["evidence"]
    assert detail["related"] == [] and "window must be between 1 and 64" in detail["related_error"]


def test_the_lane_and_the_pane_let_the_index_lag_a_little_and_related_does_not(
    home: Path, corpus: Path, on: None
) -> None:
    with Arborist(home) as app:
        app.ingest([str(corpus)])
        for label in ("one", "two", "three"):
            session = app.new_session(label)
            for q in QUESTIONS:
                app.ask_turn(q, sid=session.sid)
        conn = app.store_conn
        version = app.related_version
        app.rebuild_related()
        built = conn.execute("SELECT source_rows FROM related_builds").fetchone()[0]
        conn.execute(
            "INSERT INTO record_session VALUES (?, 'extra', NULL, 0, 'x', 'now')", ("f" * 64,)
        )
        assert coaccess.is_stale(conn, version) and not coaccess.is_stale(conn, version, slack=0.1)
        app.ask("why do tides rise", related=True)  # within the slack: served as built
        assert conn.execute("SELECT source_rows FROM related_builds").fetchone()[0] == built
        app.related(str(corpus / "tides.md"))  # explicit: brought up to date
        assert conn.execute("SELECT source_rows FROM related_builds").fetchone()[0] == built + 1


def test_a_build_row_an_edit_left_unreadable_is_rebuilt_not_a_traceback(
    home: Path, corpus: Path, on: None
) -> None:
    """``related_builds`` is bookkeeping: a row whose count is no number (a time, say) is a
    build to make again, never a ValueError out of ``ask --related``."""
    with Arborist(home) as app:
        app.ingest([str(corpus)])
        session = app.new_session("one")
        for q in QUESTIONS:
            app.ask_turn(q, sid=session.sid)
        conn = app.store_conn
        version = app.related_version
        conn.execute(
            "INSERT INTO related_builds VALUES (?, '2026-12-07T15:40:00Z', 1, 'now')", (version,)
        )
        assert coaccess.is_stale(conn, version)
        app.related(str(corpus / "tides.md"))  # rebuilt
        (rows,) = conn.execute(
            "SELECT source_rows FROM related_builds WHERE index_version = ?", (version,)
        ).fetchone()
        assert isinstance(rows, int) and not coaccess.is_stale(conn, version)
    assert app.verify().ok

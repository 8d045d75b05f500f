"""The audit chain on real database files: appends, tampering of every kind, checkpoints, two writers."""

from __future__ import annotations

import itertools
import json
import random
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from arborist._database.db import connect, transaction
from arborist._database.migrations import open_database
from arborist._errors import BadReference, StorageError
from arborist._proofs.audit import (
    AUDIT_MIGRATION,
    Checkpoint,
    _check_chain,
    append_event,
    check_chain,
    head_checkpoint,
)
from arborist._proofs.hashing import event_hash, stored_event_hash
from arborist._store.schema import STORE_MIGRATIONS
from tests.workers import finish, start_workers

FIELDS = (
    "seq",
    "event_type",
    "sid",
    "bates",
    "prev_event_hash",
    "event_hash",
    "body",
    "created_at",
)


def make_chain(path: Path, n: int) -> list[Checkpoint]:
    """A real store file with ``n`` varied events; returns the checkpoint after each."""
    conn = open_database(path, STORE_MIGRATIONS)
    heads = []
    for i in range(n):
        with transaction(conn):
            event = append_event(
                conn,
                ("ingest", "node_insert", "label")[i % 3],
                body={"i": i, "note": "é" * (i % 4), "nested": {"k": [i, None, True]}},
                sid=f"20261129T120000Z-{i % 7:06x}" if i % 2 else None,
                bates=f"20261129T120000Z-a1b2c3-{i:06d}" if i % 3 == 1 else None,
            )
        heads.append(event.checkpoint)
    conn.close()
    return heads


@pytest.fixture(scope="module")
def chain_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("chain") / "store.db"
    make_chain(path, 60)
    return path


def copy_of(source: Path, tmp_path: Path, name: str = "copy.db") -> Path:
    target = tmp_path / name
    src = sqlite3.connect(source)
    dst = sqlite3.connect(target)
    src.backup(dst)
    src.close()
    dst.close()
    return target


def test_append_outside_a_transaction_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    conn = open_database(tmp_path / "a.db", STORE_MIGRATIONS)
    with pytest.raises(StorageError, match="inside a write transaction"):
        append_event(conn, "x", body={})
    assert conn.execute("SELECT count(*) FROM audit_events").fetchone()[0] == 0


def test_appended_events_chain_and_match_the_hash_convention(tmp_path: Path) -> None:
    conn = open_database(tmp_path / "a.db", STORE_MIGRATIONS)
    with transaction(conn):
        first = append_event(
            conn,
            "session_create",
            body={"label": None},
            sid="s",
            created_at="2026-11-29T12:00:00.000000Z",
        )
        second = append_event(conn, "node_insert", body={"n": 1}, sid="s", bates="s-000001")
    assert (first.seq, second.seq) == (1, 2)
    assert first.prev_event_hash is None
    assert second.prev_event_hash == first.event_hash
    assert first.event_hash == event_hash(
        None,
        event_type="session_create",
        sid="s",
        bates=None,
        body={"label": None},
        created_at="2026-11-29T12:00:00.000000Z",
    )
    assert head_checkpoint(conn) == second.checkpoint
    report = check_chain(conn)
    assert report.ok and report.events_checked == 2 and report.head == second.checkpoint


def test_an_event_rolled_back_with_its_change_leaves_no_trace(tmp_path: Path) -> None:
    conn = open_database(tmp_path / "a.db", STORE_MIGRATIONS)
    with pytest.raises(RuntimeError), transaction(conn):
        append_event(conn, "ingest", body={})
        raise RuntimeError("the change failed")
    with transaction(conn):
        event = append_event(conn, "ingest", body={})
    assert event.seq == 1
    assert check_chain(conn).ok


def test_an_empty_chain_is_intact_with_no_head(tmp_path: Path) -> None:
    conn = open_database(tmp_path / "a.db", STORE_MIGRATIONS)
    report = check_chain(conn)
    assert report.ok and report.events_checked == 0 and report.head is None


def test_the_schema_refuses_a_fork_and_a_second_genesis(tmp_path: Path) -> None:
    conn = open_database(tmp_path / "a.db", STORE_MIGRATIONS)
    with transaction(conn):
        first = append_event(conn, "a", body={})
        append_event(conn, "b", body={})
    insert = "INSERT INTO audit_events (event_type, prev_event_hash, event_hash, body, created_at) VALUES (?, ?, ?, '{}', 't')"
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute(insert, ("fork", first.event_hash, "f" * 64))
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute(insert, ("genesis again", None, "e" * 64))


def test_the_audit_migration_is_the_first_of_every_database() -> None:
    from arborist._forest.schema import SESSIONS_MIGRATIONS

    assert STORE_MIGRATIONS[0] is AUDIT_MIGRATION
    assert SESSIONS_MIGRATIONS[0] is AUDIT_MIGRATION


# --- tampering -------------------------------------------------------------------------------


def _other_value(rnd: random.Random, field: str, value: object) -> object:
    """A different value for ``field``: a flipped character, a new string, NULL, or a number."""
    if field == "seq":
        return rnd.choice([0, -1, 10_000, int(value) + 1000])  # type: ignore[call-overload]
    if value is None:
        return rnd.choice(["x", "0" * 64, 7])
    text = str(value)
    choice = rnd.randrange(4)
    if choice == 0 and text:
        i = rnd.randrange(len(text))
        replacement = "0" if text[i] != "0" else "1"
        return text[:i] + replacement + text[i + 1 :]
    if choice == 1:
        return text + " "
    if choice == 2:
        return (
            None
            if field not in ("event_type", "event_hash", "body", "created_at")
            else text.upper() + "x"
        )
    return 42


def tamper_edit(conn: sqlite3.Connection, rnd: random.Random) -> str:
    seqs = [r[0] for r in conn.execute("SELECT seq FROM audit_events")]
    seq = rnd.choice(seqs)
    field = rnd.choice(FIELDS)
    current = conn.execute(f"SELECT {field} FROM audit_events WHERE seq = ?", (seq,)).fetchone()[0]
    new = _other_value(rnd, field, current)
    while new == current:
        new = _other_value(rnd, field, current)
    if field == "seq" and new in seqs:
        new = max(seqs) + 500
    try:
        conn.execute(f"UPDATE audit_events SET {field} = ? WHERE seq = ?", (new, seq))
    except sqlite3.IntegrityError:  # a UNIQUE index stood in the way; a tamperer drops it
        conn.executescript(_rebuild_without_unique())
        conn.execute(f"UPDATE audit_events SET {field} = ? WHERE seq = ?", (new, seq))
    return f"edit seq {seq} {field}: {current!r} -> {new!r}"


def tamper_delete(conn: sqlite3.Connection, rnd: random.Random) -> str:
    seqs = [r[0] for r in conn.execute("SELECT seq FROM audit_events")]
    seq = rnd.choice(seqs)
    conn.execute("DELETE FROM audit_events WHERE seq = ?", (seq,))
    return f"delete seq {seq}"


def tamper_swap(conn: sqlite3.Connection, rnd: random.Random) -> str:
    seqs = [r[0] for r in conn.execute("SELECT seq FROM audit_events")]
    a, b = rnd.sample(seqs, 2)
    cols = FIELDS[1:]
    row_a = conn.execute(
        f"SELECT {', '.join(cols)} FROM audit_events WHERE seq = ?", (a,)
    ).fetchone()
    row_b = conn.execute(
        f"SELECT {', '.join(cols)} FROM audit_events WHERE seq = ?", (b,)
    ).fetchone()
    # Indexes are dropped first so the swap is not refused by UNIQUE: a tamperer can do that too.
    conn.execute("DROP INDEX IF EXISTS audit_events_one_genesis")
    conn.executescript(_rebuild_without_unique())
    sets = ", ".join(f"{c} = ?" for c in cols)
    conn.execute(f"UPDATE audit_events SET {sets} WHERE seq = ?", (*row_b, a))
    conn.execute(f"UPDATE audit_events SET {sets} WHERE seq = ?", (*row_a, b))
    return f"swap seq {a} and {b}"


def _rebuild_without_unique() -> str:
    return """
CREATE TABLE audit_plain AS SELECT * FROM audit_events;
DROP TABLE audit_events;
CREATE TABLE audit_events (seq INTEGER PRIMARY KEY AUTOINCREMENT, event_type TEXT, sid TEXT,
    bates TEXT, prev_event_hash TEXT, event_hash TEXT, body TEXT, created_at TEXT);
INSERT INTO audit_events SELECT * FROM audit_plain;
DROP TABLE audit_plain;
"""


TAMPERS: list[Callable[[sqlite3.Connection, random.Random], str]] = [
    tamper_edit,
    tamper_edit,
    tamper_edit,
    tamper_delete,
    tamper_swap,
]


def test_200_random_edits_deletions_and_swaps_are_each_reported(
    chain_file: Path, tmp_path: Path
) -> None:
    rnd = random.Random(20261129)
    kinds: dict[str, int] = {}
    for trial in range(200):
        path = copy_of(chain_file, tmp_path, f"t{trial}.db")
        conn = sqlite3.connect(path, isolation_level=None)
        what = rnd.choice(TAMPERS)(conn, rnd)
        conn.close()
        conn = connect(path)
        report = check_chain(conn)
        assert not report.ok, f"trial {trial} not reported: {what}"
        assert _check_chain(conn, (), fast=False) == report, f"trial {trial}: {what}"
        conn.close()
        assert report.first_bad_seq is not None
        for problem in report.problems:
            kinds[problem.kind] = kinds.get(problem.kind, 0) + 1
        path.unlink()
    assert {"modified", "deleted", "reordered"} <= set(kinds), kinds


def test_a_deleted_middle_event_is_reported_as_deleted_at_its_seq(
    chain_file: Path, tmp_path: Path
) -> None:
    path = copy_of(chain_file, tmp_path)
    conn = connect(path)
    conn.execute("DELETE FROM audit_events WHERE seq = 17")
    report = check_chain(conn)
    assert report.first_bad_seq == 17
    assert report.first_problem is not None and report.first_problem.kind == "deleted"


def test_an_edited_body_is_reported_as_modified_at_its_seq(
    chain_file: Path, tmp_path: Path
) -> None:
    path = copy_of(chain_file, tmp_path)
    conn = connect(path)
    conn.execute(
        "UPDATE audit_events SET body = replace(body, '\"i\":9', '\"i\":8') WHERE seq = 10"
    )
    report = check_chain(conn)
    assert (report.first_bad_seq, report.first_problem.kind) == (10, "modified")  # type: ignore[union-attr]


def test_a_reformatted_but_equal_body_is_still_a_modification(
    chain_file: Path, tmp_path: Path
) -> None:
    path = copy_of(chain_file, tmp_path)
    conn = connect(path)
    conn.execute("UPDATE audit_events SET body = replace(body, ':', ': ') WHERE seq = 5")
    assert check_chain(conn).first_bad_seq == 5


def test_swapped_events_are_reported_as_reordered(chain_file: Path, tmp_path: Path) -> None:
    path = copy_of(chain_file, tmp_path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(_rebuild_without_unique())
    cols = FIELDS[1:]
    rows = {
        s: conn.execute(
            f"SELECT {', '.join(cols)} FROM audit_events WHERE seq = ?", (s,)
        ).fetchone()
        for s in (20, 30)
    }
    sets = ", ".join(f"{c} = ?" for c in cols)
    conn.execute(f"UPDATE audit_events SET {sets} WHERE seq = ?", (*rows[30], 20))
    conn.execute(f"UPDATE audit_events SET {sets} WHERE seq = ?", (*rows[20], 30))
    report = check_chain(connect(path))
    assert report.first_bad_seq == 20
    assert report.first_problem.kind == "reordered"  # type: ignore[union-attr]


def test_a_fork_is_reported_when_the_unique_index_was_removed(
    chain_file: Path, tmp_path: Path
) -> None:
    path = copy_of(chain_file, tmp_path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(_rebuild_without_unique())
    prev = conn.execute("SELECT event_hash FROM audit_events WHERE seq = 59").fetchone()[0]
    forged = event_hash(prev, event_type="forged", sid=None, bates=None, body={}, created_at="t")
    conn.execute(
        "INSERT INTO audit_events (seq, event_type, prev_event_hash, event_hash, body, created_at) "
        "VALUES (61, 'forged', ?, ?, '{}', 't')",
        (prev, forged),
    )
    report = check_chain(connect(path))
    assert report.first_problem.kind == "forked"  # type: ignore[union-attr]
    assert report.first_bad_seq == 61


def test_deleting_the_tail_is_seen_by_sqlites_own_counter(chain_file: Path, tmp_path: Path) -> None:
    path = copy_of(chain_file, tmp_path)
    conn = connect(path)
    conn.execute("DELETE FROM audit_events WHERE seq > 55")
    report = check_chain(conn)
    assert (report.first_bad_seq, report.first_problem.kind) == (56, "deleted")  # type: ignore[union-attr]


@pytest.mark.parametrize("k", [1, 2, 5, 30])
def test_deleting_the_last_k_events_is_reported_against_an_earlier_checkpoint(
    tmp_path: Path, k: int
) -> None:
    path = tmp_path / "store.db"
    heads = make_chain(path, 40)
    checkpoint = heads[-1]
    conn = connect(path)
    conn.execute("DELETE FROM audit_events WHERE seq > ?", (40 - k,))
    # A careful tamperer also rewinds SQLite's counter: the chain alone now looks intact.
    conn.execute("UPDATE sqlite_sequence SET seq = ? WHERE name = 'audit_events'", (40 - k,))
    assert check_chain(conn).ok, "without a checkpoint a truncated chain is indistinguishable"
    report = check_chain(conn, [checkpoint])
    assert not report.ok
    assert report.first_problem.kind == "truncated"  # type: ignore[union-attr]
    assert report.first_bad_seq == 40


def test_a_rewritten_suffix_is_reported_against_an_earlier_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    heads = make_chain(path, 30)
    conn = connect(path)
    conn.execute("DELETE FROM audit_events WHERE seq > 25")
    conn.execute("UPDATE sqlite_sequence SET seq = 25 WHERE name = 'audit_events'")
    with transaction(conn):
        for i in range(10):  # a new, self-consistent history after seq 25
            append_event(conn, "rewritten", body={"i": i})
    assert check_chain(conn).ok
    report = check_chain(conn, [heads[27]])
    assert (report.first_problem.kind, report.first_bad_seq) == ("rewritten", 28)  # type: ignore[union-attr]
    assert check_chain(conn, [heads[20]]).ok, "the untouched prefix still holds its checkpoint"


def test_every_earlier_checkpoint_holds_on_an_intact_chain(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    heads = make_chain(path, 25)
    report = check_chain(connect(path), heads)
    assert report.ok and report.checkpoints_checked == 25


@pytest.mark.parametrize(
    "text",
    [
        "",
        "12",
        "0:" + "a" * 64,
        "-1:" + "a" * 64,
        "5:" + "a" * 63,
        "5:" + "g" * 64,
        "5;" + "a" * 64,
        "x:" + "a" * 64,
    ],
)
def test_malformed_checkpoints_are_refused_with_one_line(text: str) -> None:
    with pytest.raises(BadReference) as err:
        Checkpoint.parse(text)
    assert "\n" not in str(err.value)


def test_checkpoints_round_trip_and_normalize_case() -> None:
    cp = Checkpoint.parse(" 12:" + "AB" * 32 + " ")
    assert str(cp) == "12:" + "ab" * 32
    assert Checkpoint.parse(str(cp)) == cp


@pytest.mark.slow
def test_two_processes_appending_2000_events_each_make_one_unforked_chain(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    open_database(path, STORE_MIGRATIONS).close()
    procs = start_workers("append", path, 2000, ["a", "b"])
    errors = finish(procs)
    assert [p.returncode for p in procs] == [0, 0], errors
    assert not any("locked" in e for e in errors)
    conn = connect(path)
    report = check_chain(conn)
    assert report.ok, report.problems[:3]
    assert report.events_checked == 4000
    by_worker = dict(
        conn.execute(
            "SELECT json_extract(body, '$.worker'), count(*) FROM audit_events GROUP BY 1"
        ).fetchall()
    )
    assert by_worker == {"a": 2000, "b": 2000}
    # The writers really interleaved: otherwise this would test nothing.
    order = [
        r[0]
        for r in conn.execute(
            "SELECT json_extract(body, '$.worker') FROM audit_events ORDER BY seq"
        )
    ]
    switches = sum(1 for x, y in itertools.pairwise(order) if x != y)
    assert switches >= 2


def test_a_copy_made_mid_chain_still_verifies(chain_file: Path, tmp_path: Path) -> None:
    shutil.copy(chain_file, tmp_path / "plain-copy.db")
    assert check_chain(connect(tmp_path / "plain-copy.db")).ok


# --- the walk's fast path: hostile rows it must not get wrong -----------------------------------

HOSTILE_BODIES: list[object] = [
    {"quote": '"', "backslash": "\\", "both": '\\"\\', "slash": "/"},
    {"separators": "\u2028\u2029", "nul": "\x00", "controls": "\x01\x1f\x7f"},
    {"astral": "\U0001f600\U00010000", "accents": "é", "combining": "e\u0301"},
    {"big": 2**53 - 1, "small": -(2**53 - 1), "zero": 0, "one": 1},
    {"": "", "keys": {"b": 1, "a": 2, "B": 3, "\uffff": 4, "\U00010000": 5}},
    [],
    'a bare string with " and \\',
    None,
]


def hostile_chain(path: Path) -> list[Checkpoint]:
    """Events whose bodies and fields hold everything JSON escapes, written as usual."""
    conn = open_database(path, STORE_MIGRATIONS)
    heads = []
    for i, body in enumerate(HOSTILE_BODIES * 2):
        with transaction(conn):
            event = append_event(
                conn,
                ('odd "type" \\', "node_insert", "\u2028")[i % 3],
                body=body,
                sid='s"\\\u2028' if i % 2 else None,
                bates="b\U0001f600" if i % 3 else None,
                created_at=f"2026-11-29T12:00:{i:02d}Z\u2029",
            )
        heads.append(event.checkpoint)
    conn.close()
    return heads


def test_events_holding_every_character_json_escapes_verify_by_both_walks(tmp_path: Path) -> None:
    heads = hostile_chain(tmp_path / "store.db")
    conn = connect(tmp_path / "store.db")
    report = check_chain(conn, heads[::3])
    assert report.ok and report.events_checked == 2 * len(HOSTILE_BODIES), report.problems
    assert _check_chain(conn, tuple(heads[::3]), fast=False) == report


# Each turns a stored body into text that parses to an equal value (in Python, 1.0 == 1):
# a walk that parsed and re-serialized would pass it; the hash covers the bytes stored.
EQUAL_BUT_NOT_CANONICAL = [
    ('"big":9007199254740991', '"big":9007199254740991.0'),
    ('"one":1', '"one":1.0'),
    ('"one":1', '"one":1e0'),
    ('"zero":0', '"zero":-0'),
    ('"accents":"é"', '"accents":"\\u00e9"'),
    ('"slash":"/"', '"slash":"\\/"'),
    ("\u2028", "\\u2028"),
    ('"astral":"\U0001f600', '"astral":"\\ud83d\\ude00'),
    ('"keys":{"B":3,"a":2', '"keys":{"a":2,"B":3'),
    ('"zero":0', '"zero" :0'),
]


@pytest.mark.parametrize(("old", "new"), EQUAL_BUT_NOT_CANONICAL)
def test_a_body_rewritten_to_equal_json_is_a_modification_at_its_seq(
    tmp_path: Path, old: str, new: str
) -> None:
    hostile_chain(tmp_path / "store.db")
    conn = connect(tmp_path / "store.db")
    seqs = [
        seq
        for seq, body in conn.execute("SELECT seq, body FROM audit_events ORDER BY seq")
        if old in body
    ]
    seq = seqs[0]
    body = conn.execute("SELECT body FROM audit_events WHERE seq = ?", (seq,)).fetchone()[0]
    edited = body.replace(old, new, 1)
    assert edited != body and json.loads(edited) == json.loads(body)
    conn.execute("UPDATE audit_events SET body = ? WHERE seq = ?", (edited, seq))
    report = check_chain(conn)
    assert [(p.seq, p.kind) for p in report.problems] == [(seq, "modified")]
    assert _check_chain(conn, (), fast=False) == report


def _untyped_copy(conn: sqlite3.Connection) -> None:
    """audit_events without column types: SQLite then keeps integers and blobs as written."""
    typed = _rebuild_without_unique()
    untyped = typed.replace(
        "event_type TEXT, sid TEXT,\n    bates TEXT, prev_event_hash TEXT, event_hash TEXT, "
        "body TEXT, created_at TEXT",
        "event_type, sid, bates, prev_event_hash, event_hash, body, created_at",
    )
    assert untyped != typed
    conn.executescript(untyped)


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("sid", 5),
        ("bates", 7),
        ("created_at", None),
        ("event_type", b"node_insert"),
        ("body", b"{}"),
        ("body", 1),
        ("prev_event_hash", "PREV"),  # the predecessor's hash in capitals: the same bytes
        ("prev_event_hash", "SPACED"),  # ... or with a space in it: the same bytes again
    ],
)
def test_fields_that_are_not_text_are_judged_as_the_row_by_row_walk_judges_them(
    tmp_path: Path, column: str, value: object
) -> None:
    path = tmp_path / "store.db"
    make_chain(path, 12)
    conn = sqlite3.connect(path, isolation_level=None)
    _untyped_copy(conn)
    prev = conn.execute("SELECT prev_event_hash FROM audit_events WHERE seq = 6").fetchone()[0]
    value = {"PREV": prev.upper(), "SPACED": prev[:10] + " " + prev[10:]}.get(value, value)  # type: ignore[call-overload]
    conn.execute(f"UPDATE audit_events SET {column} = ? WHERE seq = 6", (value,))
    stored = conn.execute(f"SELECT {column} FROM audit_events WHERE seq = 6").fetchone()[0]
    assert stored == value and type(stored) is type(value)
    conn.close()
    conn = connect(path)
    report = check_chain(conn)
    assert not report.ok and report.first_bad_seq == 6
    assert _check_chain(conn, (), fast=False) == report


def test_a_row_of_another_type_that_hashes_as_stored_still_verifies(tmp_path: Path) -> None:
    """An event whose sid is an integer, hashed the way stored_event_hash hashes one, is
    intact: the fast path hands it to the row-by-row check rather than judging it."""
    path = tmp_path / "store.db"
    make_chain(path, 5)
    conn = sqlite3.connect(path, isolation_level=None)
    _untyped_copy(conn)
    prev = conn.execute("SELECT event_hash FROM audit_events WHERE seq = 5").fetchone()[0]
    digest = stored_event_hash(
        prev, event_type="t", sid=42, bates=None, body_json="{}", created_at="c"
    )
    conn.execute(
        "INSERT INTO audit_events VALUES (6, 't', 42, NULL, ?, ?, '{}', 'c')", (prev, digest)
    )
    conn.close()
    conn = connect(path)
    report = check_chain(conn)
    assert report.ok and report.head == Checkpoint(6, digest)
    assert _check_chain(conn, (), fast=False) == report


def test_random_tampers_with_checkpoints_report_the_same_by_both_walks(
    chain_file: Path, tmp_path: Path
) -> None:
    rnd = random.Random(1129)
    heads = make_chain(tmp_path / "heads.db", 60)  # same events, other timestamps
    intact = connect(chain_file)
    real = [head_checkpoint_at(intact, seq) for seq in range(1, 61)]
    for trial in range(60):
        path = copy_of(chain_file, tmp_path, f"c{trial}.db")
        conn = sqlite3.connect(path, isolation_level=None)
        what = rnd.choice(TAMPERS)(conn, rnd)
        conn.close()
        checkpoints = tuple(rnd.sample(real, 3) + rnd.sample(heads, 1))
        conn = connect(path)
        report = check_chain(conn, checkpoints)
        assert not report.ok, what
        assert _check_chain(conn, checkpoints, fast=False) == report, what
        conn.close()
        path.unlink()


def head_checkpoint_at(conn: sqlite3.Connection, seq: int) -> Checkpoint:
    row = conn.execute("SELECT seq, event_hash FROM audit_events WHERE seq = ?", (seq,)).fetchone()
    return Checkpoint(row[0], row[1])

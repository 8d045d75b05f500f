"""The tamper suite: random edits to copies of both stores, and what ``arborist verify`` says.

One populated home (documents hot, warm and cold, answers in two sessions
with a fork, a falsified answer, a derivation, labels, co-access rows) is
built once. Each edit is applied with a plain ``sqlite3`` connection to a
fresh copy of its files, the way anyone with the files could: one character
of a field (``byte``), a whole field (``field``), a deleted row (``delete``),
or two rows' contents swapped (``swap``). Then ``verify`` runs on the copy.

* An edit to committed content must be reported, and a problem line must
  name where (the kind of thing edited: turn, document, chunk, cache record,
  derivation, or the audit chain).
* An edit to a column in :data:`BOOKKEEPING` must leave ``verify`` clean:
  those columns are, by design, protected by nothing, and docs/guarantees.md
  lists them so users know. If a bookkeeping edit were reported, or a
  committed edit were not, this suite fails and names the edit.

``make test`` makes every kind of edit to every column of every table once, in
a fixed order (about 300 edits: what 1,000 random draws reached only by chance);
``--long`` adds 10,000 random ones, whose seed is logged, and
``ARBORIST_TAMPER_SEED`` replays a run.
"""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from arborist import Arborist
from arborist._errors import ArboristError

DOCS = {
    "tides.md": "# Tides\n\nTides rise and fall twice a day because the moon pulls the oceans.\n\n"
    "## Spring tides\n\nSpring tides happen when the sun and moon align.\n",
    "moon.md": "# The moon\n\nThe moon orbits the earth every 27 days and pulls the oceans.\n\n"
    "## Phases\n\nThe phases of the moon follow the sun's light on its face.\n",
    "volcano.md": "# Volcanoes\n\nA volcano erupts when magma rises through the crust.\n\n"
    "## Lava\n\nLava is magma that reached the surface of the earth.\n",
    "storm.md": "# Storms\n\nA storm surge raises the sea when wind pushes water ashore.\n",
}

# Columns no hash covers, by design: changing them changes no claim arborist makes.
# docs/guarantees.md carries the same table; test_the_docs_list_every_bookkeeping_column
# keeps the two in step.
BOOKKEEPING: dict[tuple[str, str], str] = {
    ("store", "schema_migrations.applied_at"): "when a migration ran",
    ("sessions", "schema_migrations.applied_at"): "when a migration ran",
    ("store", "cache_records.hit_count"): "how many times an answer was served from the cache",
    ("store", "cache_records.last_hit_at"): "when it was last served",
    ("store", "chunks.heading"): "the heading shown beside a chunk (not part of its text)",
    ("store", "chunks.rehydrated"): "whether a chunk came back through rehydration",
    ("store", "record_session.*"): "co-access rows: a behavioural signal (ARBORIST_COACCESS=1)",
    ("store", "related_hashes.*"): "related-sources index, rebuilt from record_session",
    ("store", "related_builds.*"): "when that index was last rebuilt",
    ("store", "coaccess_drained.*"): "which turns' co-access captures are in record_session",
    ("sessions", "coaccess_spool.*"): "co-access captures not yet drained into store.db",
    ("store", "retrieval_memo.*"): "what retrieval chose per question, for hits (a hint)",
    ("store", "store_generation.*"): "the count of corpus changes that voids the memo",
    ("store", "vector_profiles.*"): "embedding models that made vectors (hybrid lane)",
    ("store", "chunk_vectors.*"): "chunk vectors: steer retrieval only (a hint)",
    ("sessions", "sessions.current_bates"): 'a session\'s "you are here" pointer',
    ("sessions", "sessions.next_seq"): "the next seq to hand out (UNIQUE bates guards reuse)",
    ("sessions", "sessions.updated_at"): "when a session last changed",
}

# What a problem line must mention for an edit of each table.
WHERE = {
    "documents": ("document",),
    "chunks": ("chunk", "document", "search index"),
    "cache_records": ("cache record",),
    "cache_evidence": ("cache record",),
    "derivations": ("derivation",),
    "derivation_sources": ("derivation",),
    "audit_events": ("audit chain", "event"),
    "schema_migrations": ("migration",),
    "nodes": ("turn", "search index"),
    "node_links": ("turn",),
    "sessions": ("session", "turn"),
}

SKIP_TABLES = ("sqlite_", "documents_fts", "chunks_fts", "nodes_fts")


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with every kind of row, closed (no WAL left) so its files can be copied."""
    root = tmp_path_factory.mktemp("tamper")
    corpus = root / "corpus"
    corpus.mkdir()
    for name, text in DOCS.items():
        (corpus / name).write_text(text, encoding="utf-8")
    home = root / "home"
    saved = os.environ.get("ARBORIST_COACCESS")
    os.environ["ARBORIST_COACCESS"] = "1"
    try:
        with Arborist(home) as app:
            app.ingest([str(corpus)])
            one = app.new_session("one")
            turns = [
                app.ask_turn(q, sid=one.sid, label=f"q{i}")
                for i, q in enumerate(
                    ["why do tides rise", "what are the phases of the moon", "what is lava"]
                )
            ]
            two = app.new_session("two")
            app.cd(two.sid, turns[0].node.bates)
            fork = app.ask_turn("when do spring tides happen", sid=two.sid)
            app.ask_turn("what raises a storm surge", sid=two.sid)
            app.label(two.sid, "renamed", fork.node.bates)
            app.derive("snippet", turns[1].node.bates)
            app.falsify(turns[2].result.cache_key, "quarantined", "disputed")
            app.ask_turn("why do tides rise", sid=two.sid)  # a cache hit
            app.evict(str(corpus / "storm.md"), "warm")
            app.evict(str(corpus / "volcano.md"), "cold")
            app.rebuild_related()
            assert app.verify().ok
    finally:
        if saved is None:
            del os.environ["ARBORIST_COACCESS"]
        else:
            os.environ["ARBORIST_COACCESS"] = saved
    assert sorted(p.name for p in home.glob("*.db*")) == ["sessions.db", "store.db"]
    return home


@dataclass(frozen=True)
class Edit:
    db: str
    table: str
    kind: str
    column: str | None
    description: str

    @property
    def bookkeeping(self) -> bool:
        if (self.db, f"{self.table}.*") in BOOKKEEPING:
            return True
        if self.kind in ("byte", "field"):
            return (self.db, f"{self.table}.{self.column}") in BOOKKEEPING
        return False


def _tables(conn: sqlite3.Connection) -> list[str]:
    return [
        name
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        if not name.startswith(SKIP_TABLES)
        and conn.execute(f"SELECT count(*) FROM {name}").fetchone()[0] > 0
    ]


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]


def _keys(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})") if row[5]}


def _changed_char(text: str, rng: random.Random) -> str:
    i = rng.randrange(len(text))
    options = [c for c in "0123456789abcdefXYZ _-" if c != text[i]]
    return text[:i] + rng.choice(options) + text[i + 1 :]


def _other_value(value: object, rng: random.Random, kind: str) -> object:  # noqa: PLR0911
    if isinstance(value, int):
        return value + rng.choice((-1, 1)) if kind == "field" else value ^ 1
    if isinstance(value, float):
        return value / 2 if value else 0.5
    if isinstance(value, bytes):
        if not value:
            return b"\x00"
        i = rng.randrange(len(value))
        return value[:i] + bytes([value[i] ^ (1 << rng.randrange(8))]) + value[i + 1 :]
    if isinstance(value, str):
        if kind == "byte" and value:
            return _changed_char(value, rng)
        return value + " (edited)" if value else "edited"
    return "edited"  # NULL becomes a value


KINDS = ("byte", "field", "delete", "swap")


def tamper(path: Path, db: str, rng: random.Random) -> Edit | None:
    """Apply one random edit to the database at ``path``; None when SQLite refused it."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        tables = _tables(conn)
        sizes = [conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables]
        table = rng.choices(tables, [min(n, 20) for n in sizes])[0]
        columns = _columns(conn, table)
        rowids = [r[0] for r in conn.execute(f"SELECT rowid FROM {table}")]
        kind = rng.choice(KINDS)
        rowid = rng.choice(rowids)
        column = rng.choice(columns) if kind in ("byte", "field") else None
        return _apply(conn, db, table, kind, rowid, column, rng)
    finally:
        conn.close()


def _apply(  # noqa: PLR0911
    conn: sqlite3.Connection,
    db: str,
    table: str,
    kind: str,
    rowid: int,
    column: str | None,
    rng: random.Random,
) -> Edit | None:
    """Apply one edit of ``kind`` to row ``rowid`` of ``table`` (``column`` for a byte or
    field edit); None when SQLite refused it or it would change nothing."""
    try:
        if kind == "delete":
            conn.execute(f"DELETE FROM {table} WHERE rowid = ?", (rowid,))
            return Edit(db, table, kind, None, f"deleted {table} row {rowid}")
        if kind == "swap":  # two rows exchange everything but their keys
            rowids = [r[0] for r in conn.execute(f"SELECT rowid FROM {table}")]
            others = [r for r in rowids if r != rowid]
            content = [c for c in _columns(conn, table) if c not in _keys(conn, table)]
            if not others or not content:
                return None
            other = rng.choice(others)
            listed = ", ".join(content)
            a = conn.execute(f"SELECT {listed} FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
            b = conn.execute(f"SELECT {listed} FROM {table} WHERE rowid = ?", (other,)).fetchone()
            if a == b:
                return None
            sets = ", ".join(f"{c} = ?" for c in content)
            conn.execute("BEGIN")
            for target, values in ((rowid, b), (other, a)):
                conn.execute(f"UPDATE {table} SET {sets} WHERE rowid = ?", (*values, target))
            conn.execute("COMMIT")
            return Edit(db, table, kind, None, f"swapped {table} rows {rowid} and {other}")
        value = conn.execute(f"SELECT {column} FROM {table} WHERE rowid = ?", (rowid,)).fetchone()[
            0
        ]
        new = _other_value(value, rng, kind)
        if new == value:
            return None
        conn.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (new, rowid))
        return Edit(db, table, kind, column, f"{kind} edit of {table}.{column} in row {rowid}")
    except sqlite3.IntegrityError:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        return None  # a CHECK/UNIQUE/NOT NULL constraint refused it: nothing changed


def every_edit(pristine: Path, dbs: tuple[str, ...]) -> list[tuple[str, str, str, str | None]]:
    """Every kind of edit to every table of ``dbs`` (a byte and a field edit of every
    column, a deletion, a swap), as (db, table, kind, column): what random draws reach
    only by chance, each once."""
    plans = []
    for db in dbs:
        conn = sqlite3.connect(pristine / f"{db}.db")
        try:
            for table in _tables(conn):
                plans += [(db, table, kind, None) for kind in ("delete", "swap")]
                plans += [
                    (db, table, kind, column)
                    for column in _columns(conn, table)
                    for kind in ("byte", "field")
                ]
        finally:
            conn.close()
    return plans


def enumerated_copies(
    pristine: Path, tmp_path: Path, dbs: tuple[str, ...], tally: Counter[str]
) -> Iterator[tuple[Path, Edit]]:
    """A fresh copy of ``pristine`` (one at a time, in ``tmp_path``) for each edit of
    :func:`every_edit`, the n-th edit of a table made to its n-th row (round the rows), or
    to the next row that takes it when SQLite refuses it or it would change nothing (counted
    in ``tally`` when no row takes it). Deterministic: the same edits every run."""
    turn: Counter[tuple[str, str]] = Counter()
    for db, table, kind, column in every_edit(pristine, dbs):
        start = turn[db, table]
        turn[db, table] += 1
        work = tmp_path / "work"
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(pristine, work)
        conn = sqlite3.connect(work / f"{db}.db", isolation_level=None)
        try:
            rowids = [r[0] for r in conn.execute(f"SELECT rowid FROM {table}")]
            rng = random.Random(f"{db}.{table}.{kind}.{column}")
            edit = None
            for step in range(len(rowids)):
                rowid = rowids[(start + step) % len(rowids)]
                edit = _apply(conn, db, table, kind, rowid, column, rng)
                if edit is not None:
                    break
        finally:
            conn.close()
        if edit is None:
            tally[f"no row takes a {kind} edit"] += 1
            continue
        yield work, edit


def tamper_seed(suite: str, count: int) -> int:
    """The run's seed (``ARBORIST_TAMPER_SEED`` replays one), printed with what it drives."""
    seed = int(os.environ.get("ARBORIST_TAMPER_SEED", random.randrange(2**32)))
    print(f"{suite}: {count} edits, seed {seed} (ARBORIST_TAMPER_SEED={seed} replays)")
    return seed


def edited_copies(
    pristine: Path,
    tmp_path: Path,
    seed: int,
    count: int,
    dbs: tuple[str, ...],
    tally: Counter[str],
) -> Iterator[tuple[Path, Edit]]:
    """``count`` fresh copies of ``pristine`` (one at a time, in ``tmp_path``), each with one
    random edit to one of ``dbs``; an edit SQLite refuses is drawn again (counted in
    ``tally``)."""
    rng = random.Random(seed)
    done = 0
    while done < count:
        work = tmp_path / "work"
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(pristine, work)
        db = rng.choice(dbs)
        edit = tamper(work / f"{db}.db", db, rng)
        if edit is None:
            tally["refused by SQLite"] += 1
            continue
        done += 1
        yield work, edit


def _verify(home: Path) -> list[str]:
    try:
        with Arborist(home) as app:
            return app.verify().problems
    except ArboristError as exc:  # the CLI prints this as its one-line error, exit 1
        return [str(exc)]


def test_verify_flags_every_committed_edit_and_no_bookkeeping_edit(
    pristine: Path, tmp_path: Path, long_run: bool
) -> None:
    """Every kind of edit to every column of every table (:func:`every_edit`), and under
    ``--long`` 10,000 random edits besides (random rows, values and swaps)."""
    tally: Counter[str] = Counter()
    failures: list[str] = []
    count, seed = 0, None
    for work, edit in enumerated_copies(pristine, tmp_path, ("store", "sessions"), tally):
        failures += _check(work, edit, tally)
        count += 1
    if long_run:
        seed = tamper_seed("tamper suite", 10_000)
        for work, edit in edited_copies(
            pristine, tmp_path, seed, 10_000, ("store", "sessions"), tally
        ):
            failures += _check(work, edit, tally)
        count += 10_000
    print("\n".join(f"  {n:5d}  {what}" for what, n in sorted(tally.items())))
    assert not failures, f"seed {seed}: {len(failures)} of {count} edits\n" + "\n".join(
        sorted(set(failures))[:40]
    )
    assert (
        tally["bookkeeping"] > 0
        and sum(v for k, v in tally.items() if k.startswith("committed")) > count // 2
    )


def _check(work: Path, edit: Edit, tally: Counter[str]) -> list[str]:
    """What is wrong with verify's report on ``work`` after ``edit``."""
    problems = _verify(work)
    if edit.bookkeeping:
        tally["bookkeeping"] += 1
        return [f"bookkeeping {edit.description} was reported: {problems[0]}"] if problems else []
    tally[f"committed {edit.table}"] += 1
    if not problems:
        return [f"NOT DETECTED: {edit.description} ({edit.db}.db)"]
    if not any(w in p for p in problems for w in WHERE[edit.table]):
        return [f"{edit.description}: reported without naming it: {problems[0]}"]
    return []


def test_the_docs_list_every_bookkeeping_column() -> None:
    guarantees = (Path(__file__).parents[1] / "docs" / "guarantees.md").read_text(encoding="utf-8")
    for (db, column), _why in BOOKKEEPING.items():
        assert f"`{column}`" in guarantees and f"{db}.db" in guarantees, column

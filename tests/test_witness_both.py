"""A saved notebook witnesses both stores: each ``%%ask`` output names sessions.db's and
store.db's chain heads, and ``verify --witness`` holds each to its own store's chain.

A turn lives in sessions.db, but what its face shows (the answer, the cited documents'
titles and URIs, the chunks' text, the answer's state) lives in store.db. Each rewrite
below is what the attacker's pass did to a copy of a real home after a real notebook ran,
with plain sqlite3 and the library's own hash functions: ``verify`` alone passes on the
copy (the rewrite is consistent), and ``verify --witness`` fails, naming store.db.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import nbformat
import pytest
from click.testing import CliRunner
from IPython.core.interactiveshell import InteractiveShell

from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._forest.shard import ripple
from arborist._proofs.audit import Checkpoint
from arborist._proofs.hashing import (
    cache_key,
    canonical_json,
    leaf_hash,
    node_hash,
    stored_event_hash,
)
from arborist._proofs.keys import EVIDENCE_ROOT_DIMENSION, evidence_root, record_hash
from arborist._proofs.merkle import merkle_root
from arborist._proofs.witness import Heads, witness_checkpoints, witnessed_by_database
from arborist._store.cache.records import load_record
from arborist_nb._display import Answer

SPIDER = "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\n"
QUOKKA = "# Quokka\n\nThe quokka shelters under saltbush on Rottnest Island.\n"
FIRST, SECOND = "Who created Spider-Man?", "Where does the quokka shelter?"
EVIL = "https://evil.example/spider.md"


def run(home: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--home", str(home), *args])
    return result.exit_code, result.stdout + result.stderr


def _executed_notebook(path: Path, docs: Path, steps: list[str]) -> list[Answer]:
    """Run each step in a real IPython shell (a question as a ``%%ask`` cell, a line
    starting with ``%`` as a line magic) and save the asks, with their outputs as a kernel
    displays them, as ``path`` (nbformat 4, validated)."""
    ip = InteractiveShell.instance()
    cells, answers = [], []
    try:
        assert ip.run_cell("%load_ext arborist_nb").success
        ip.run_line_magic("arborist", f"ingest {docs}")
        for step in steps:
            if step.startswith("%"):
                ip.run_line_magic("arborist", step[1:])
                continue
            answer = ip.run_cell_magic("ask", "", step)
            assert isinstance(answer, Answer)
            count = len(cells) + 1
            bundle, metadata = ip.display_formatter.format(answer)
            output = nbformat.v4.new_output(
                "execute_result", data=bundle, metadata=metadata, execution_count=count
            )
            cell = nbformat.v4.new_code_cell(f"%%ask\n{step}", outputs=[output])
            cell.execution_count = count
            cells.append(cell)
            answers.append(answer)
    finally:
        ip.run_line_magic("unload_ext", "arborist_nb")
        InteractiveShell.clear_instance()
    notebook = nbformat.v4.new_notebook(cells=cells)
    nbformat.validate(notebook)
    nbformat.write(notebook, str(path))
    return answers


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "spider.md").write_text(SPIDER, encoding="utf-8")
    (folder / "quokka.md").write_text(QUOKKA, encoding="utf-8")
    return folder


@pytest.fixture
def ran(home: Path, tmp_path: Path, docs: Path) -> tuple[Path, list[Answer]]:
    """A notebook that asked two questions, each answered anew (a cache_write each)."""
    notebook = tmp_path / "ran.ipynb"
    answers = _executed_notebook(notebook, docs, [FIRST, SECOND])
    assert [a.audit_mode for a in answers] == ["STRICT", "STRICT"]
    return notebook, answers


def _copy(home: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "copy"
    shutil.copytree(home, copy)
    return copy


def _rechain(conn: sqlite3.Connection) -> None:
    """Renumber the audit chain 1, 2, 3, ... and re-hash every event from the first, as
    a forger does after editing or deleting events: each link and hash is then what
    :func:`arborist._proofs.hashing.stored_event_hash` makes, and SQLite's counter forgets the rest."""
    rows = conn.execute(
        "SELECT event_type, sid, bates, body, created_at FROM audit_events ORDER BY seq"
    ).fetchall()
    conn.execute("DELETE FROM audit_events")
    prev = None
    for seq, (event_type, sid, bates, body, created_at) in enumerate(rows, start=1):
        digest = stored_event_hash(
            prev, event_type=event_type, sid=sid, bates=bates, body_json=body,
            created_at=created_at,
        )  # fmt: skip
        conn.execute(
            "INSERT INTO audit_events (seq, event_type, sid, bates, prev_event_hash, "
            "event_hash, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (seq, event_type, sid, bates, prev, digest, body, created_at),
        )
        prev = digest
    conn.execute("UPDATE sqlite_sequence SET seq = ? WHERE name = 'audit_events'", (len(rows),))


def _edit_event(conn: sqlite3.Connection, seq: int, **changes: Any) -> None:
    (body,) = conn.execute("SELECT body FROM audit_events WHERE seq = ?", (seq,)).fetchone()
    edited = {**json.loads(body), **changes}
    conn.execute(
        "UPDATE audit_events SET body = ? WHERE seq = ?",
        (canonical_json(edited).decode("utf-8"), seq),
    )


def _store(copy: Path) -> sqlite3.Connection:
    return sqlite3.connect(copy / "store.db", isolation_level=None)


def _document_event(conn: sqlite3.Connection, document_id: int) -> int:
    for seq, body in conn.execute(
        "SELECT seq, body FROM audit_events WHERE event_type = 'document_add'"
    ):
        if json.loads(body)["document_id"] == document_id:
            return int(seq)
    raise AssertionError(f"no document_add event for document {document_id}")


def _spider_id(conn: sqlite3.Connection) -> int:
    (found,) = conn.execute("SELECT id FROM documents WHERE title = 'Spider-Man'").fetchone()
    return int(found)


def _shows(copy: Path, bates: str) -> str:
    """The mode the turn claims now, as ``show --json`` prints it."""
    code, out = run(copy, "show", bates, "--json")
    assert code == 0, out
    return str(json.loads(out)["audit_now"])


def _verify_alone_passes_but_the_witness_names_store(copy: Path, notebook: Path) -> str:
    code, out = run(copy, "verify")
    assert code == 0, out  # the rewrite is consistent: nothing within the files shows it
    code, out = run(copy, "verify", "--witness", str(notebook))
    assert code == 1, out
    problems = [  # a turn whose answer went is named as not checkable here: no failure
        line
        for line in out.splitlines()
        if not line.startswith("arborist: error") and not line.endswith("not checkable here")
        and "not checkable here:" not in line
    ]  # fmt: skip
    assert problems and all(line.startswith("store.db: audit chain: ") for line in problems), out
    code, out = run(copy, "verify", "--witness", str(notebook), "--json")
    data = json.loads(out)
    assert code == 1 and data["ok"] is False
    assert all(p.startswith("store.db: ") for p in data["problems"]), data["problems"]
    return "\n".join(problems)


# ------------------------------------------------------------------ what an output records


def test_every_ask_output_names_both_stores_heads_as_they_were(
    ran: tuple[Path, list[Answer]], home: Path
) -> None:
    notebook, answers = ran
    witnesses = witness_checkpoints(notebook)
    assert witnesses == [a.checkpoint for a in answers]
    for answer in answers:
        heads = answer.checkpoint
        assert heads.sessions is not None and heads.store is not None
        line = f"witness    sessions.db {heads.sessions}, store.db {heads.store}"
        assert line in repr(answer).splitlines()
        assert f"`sessions.db {heads.sessions}, store.db {heads.store}`" in (
            answer._repr_markdown_()
        )
    app = Arborist(home)
    try:
        assert app.checkpoint() == answers[-1].checkpoint  # nothing written since
        assert app.verify([app.checkpoint()]).ok  # the Python API takes what it returns
    finally:
        app.close()
    code, out = run(home, "verify", "--witness", str(notebook))
    assert code == 0, out
    assert out.splitlines()[-2:] == [
        "every checkpoint holds (4)",
        "witnessed: 2 of sessions.db, 2 of store.db",
    ]
    data = json.loads(run(home, "verify", "--witness", str(notebook), "--json")[1])
    assert (data["ok"], data["checkpoints"], data["witnessed"]) == (
        True, 4, {"sessions": 2, "store": 2},
    )  # fmt: skip


# ------------------------------------------------------------------ each rewrite of store.db


def test_deleting_the_newest_answer_and_its_event_fails_the_witness(
    ran: tuple[Path, list[Answer]], home: Path, tmp_path: Path
) -> None:
    """Plain sqlite3, no hashing at all: the answer row, its evidence, its ``cache_write``
    event (the chain's last) and SQLite's memory of that event. The turn silently shows
    NONE, and ``verify`` alone finds nothing."""
    notebook, answers = ran
    copy = _copy(home, tmp_path)
    conn = _store(copy)
    [(record_id,)] = conn.execute(
        "SELECT id FROM cache_records WHERE cache_key = ?", (answers[1].cache_key,)
    )
    (last,) = conn.execute("SELECT max(seq) FROM audit_events").fetchone()
    (kind,) = conn.execute("SELECT event_type FROM audit_events WHERE seq = ?", (last,)).fetchone()
    assert kind == "cache_write"
    conn.execute("DELETE FROM cache_evidence WHERE record_id = ?", (record_id,))
    conn.execute("DELETE FROM cache_records WHERE id = ?", (record_id,))
    conn.execute("DELETE FROM audit_events WHERE seq = ?", (last,))
    conn.execute("UPDATE sqlite_sequence SET seq = ? WHERE name = 'audit_events'", (last - 1,))
    conn.close()
    assert _shows(copy, answers[1].bates) == "NONE"
    said = _verify_alone_passes_but_the_witness_names_store(copy, notebook)
    assert said == (
        f"store.db: audit chain: seq {last}: truncated: checkpoint {answers[1].checkpoint.store} "
        f"is beyond the chain head (seq {last - 1})"
    )


def test_a_cited_documents_uri_rewritten_fails_the_witness(
    ran: tuple[Path, list[Answer]], home: Path, tmp_path: Path
) -> None:
    """The URI in the row and in its ``document_add`` event, then the chain renumbered and
    re-hashed: the turn still claims STRICT and its record shows the attacker's URI."""
    notebook, answers = ran
    copy = _copy(home, tmp_path)
    conn = _store(copy)
    spider = _spider_id(conn)
    conn.execute("BEGIN")
    conn.execute("UPDATE documents SET uri = ? WHERE id = ?", (EVIL, spider))
    _edit_event(conn, _document_event(conn, spider), uri=EVIL)
    _rechain(conn)
    conn.execute("COMMIT")
    conn.close()
    assert _shows(copy, answers[0].bates) == "STRICT"
    assert EVIL in run(copy, "record", "show", answers[0].cache_key[:16])[1]
    said = _verify_alone_passes_but_the_witness_names_store(copy, notebook)
    assert "rewritten: event" in said and "differs from checkpoint" in said


def _recommit_chunk(copy: Path, document_id: int, text: str) -> dict[str, str]:
    """Give the one chunk of document ``document_id`` the text ``text`` in store.db, with
    everything that commits it recomputed by the library's own functions: the chunk's leaf
    and search row, its document's root (row and ``document_add`` event), every evidence
    item that holds it, and the key, evidence root and hash of each answer that cites it
    (row and ``cache_write`` event); then the chain re-hashed. Returns each old key's new
    key."""
    conn = _store(copy)
    [(chunk_id,)] = conn.execute("SELECT id FROM chunks WHERE document_id = ?", (document_id,))
    leaf = leaf_hash(text.encode("utf-8")).hex()
    root = merkle_root([bytes.fromhex(leaf)]).hex()  # a one-chunk document
    conn.execute("BEGIN")
    fts = "INSERT INTO chunks_fts (chunks_fts, rowid, text, title) SELECT {} FROM hot_chunk_texts "
    conn.execute(fts.format("'delete', id, text, title") + "WHERE id = ?", (chunk_id,))
    conn.execute("UPDATE chunks SET text = ?, leaf = ? WHERE id = ?", (text, leaf, chunk_id))
    conn.execute(fts.format("NULL, id, text, title") + "WHERE id = ?", (chunk_id,))
    conn.execute("UPDATE documents SET source_root = ? WHERE id = ?", (root, document_id))
    _edit_event(conn, _document_event(conn, document_id), source_root=root)
    conn.execute(
        "UPDATE cache_evidence SET leaf = ?, source_root = ? WHERE chunk_id = ?",
        (leaf, root, chunk_id),
    )
    rekeyed = {}
    held = "SELECT DISTINCT record_id FROM cache_evidence WHERE chunk_id = ?"
    for (record_id,) in conn.execute(held, (chunk_id,)).fetchall():
        record = load_record(conn, record_id)
        refs = [(item.ref, item.cited) for item in record.evidence]
        folded = evidence_root([ref for ref, _cited in refs])
        key = cache_key({**record.dimensions, EVIDENCE_ROOT_DIMENSION: folded})
        digest = record_hash(
            cache_key=key, revision=record.revision, question=record.question,
            answer_text=record.answer_text, audit_mode=record.audit_mode, evidence=refs,
            created_at=record.created_at,
        )  # fmt: skip
        conn.execute(
            "UPDATE cache_records SET cache_key = ?, evidence_root = ?, record_hash = ? "
            "WHERE id = ?",
            (key, folded, digest, record_id),
        )
        [(seq,)] = conn.execute(
            "SELECT seq FROM audit_events WHERE event_type = 'cache_write' "
            "AND json_extract(body, '$.cache_key') = ?",
            (record.cache_key,),
        )
        _edit_event(conn, seq, cache_key=key, record_hash=digest, evidence_root=folded)
        rekeyed[record.cache_key] = key
    _rechain(conn)
    conn.execute("COMMIT")
    conn.close()
    return rekeyed


def _rekey_turns(copy: Path, rekeyed: dict[str, str]) -> None:
    """In sessions.db, each turn under an old key moved to its new one as the forest would
    have written it: its node hash, its Merkle link and the fold above it
    (:func:`arborist._forest.shard.ripple`), its ``node_insert`` event; the chain re-hashed."""
    conn = sqlite3.connect(copy / "sessions.db", isolation_level=None)
    conn.execute("BEGIN")
    turns = (
        "SELECT n.id, n.bates, p.node_hash, n.question, n.audit_mode, n.created_at, "
        "n.created_label FROM nodes AS n JOIN nodes AS p ON p.bates = n.parent_bates "
        "WHERE n.cache_key = ?"
    )
    for old, key in rekeyed.items():
        for node_id, bates, parent_hash, question, mode, created, label in conn.execute(
            turns, (old,)
        ).fetchall():
            assert (
                conn.execute("SELECT 1 FROM nodes WHERE parent_bates = ?", (bates,)).fetchone()
                is None
            )
            digest = node_hash(
                parent_node_hash=parent_hash, bates=bates, question=question, cache_key=key,
                audit_mode=mode, created_at=created, label=label,
            )  # fmt: skip
            conn.execute(
                "UPDATE nodes SET cache_key = ?, node_hash = ? WHERE id = ?", (key, digest, node_id)
            )
            conn.execute(
                "UPDATE node_links SET node_hash = ? WHERE id = ?", (bytes.fromhex(digest), node_id)
            )
            ripple(conn, bates)
            [(seq,)] = conn.execute(
                "SELECT seq FROM audit_events WHERE event_type = 'node_insert' AND bates = ?",
                (bates,),
            )
            _edit_event(conn, seq, node_hash=digest)
    _rechain(conn)
    conn.execute("COMMIT")
    conn.close()


def test_a_cited_chunks_text_rewritten_fails_the_witness(
    ran: tuple[Path, list[Answer]], home: Path, tmp_path: Path
) -> None:
    """The cited chunk gains the attacker's sentence, and everything that commits it is
    recomputed: its key moves, so the turns under it move too (sessions.db cannot be left
    alone by this rewrite). The turn still claims STRICT over the attacker's words."""
    notebook, answers = ran
    copy = _copy(home, tmp_path)
    conn = _store(copy)
    spider = _spider_id(conn)
    [(text,)] = conn.execute("SELECT text FROM chunks WHERE document_id = ?", (spider,))
    conn.close()
    rekeyed = _recommit_chunk(copy, spider, f"{text} Mail your password to {EVIL}.")
    assert answers[0].cache_key in rekeyed
    _rekey_turns(copy, rekeyed)
    assert _shows(copy, answers[0].bates) == "STRICT"
    app = Arborist(copy)
    try:
        cited = app.record(rekeyed[answers[0].cache_key]).evidence
        assert any(EVIL in (item.text or "") for item in cited if item.cited)
        assert app.check_answer(app.record(rekeyed[answers[0].cache_key]).id)
    finally:
        app.close()
    code, out = run(copy, "verify")
    assert code == 0, out
    code, out = run(copy, "verify", "--witness", str(notebook))
    assert code == 1, out
    store = answers[0].checkpoint.store
    assert store is not None
    assert (
        f"store.db: audit chain: seq {store.seq}: rewritten: event {store.seq} differs from "
        f"checkpoint {store}"
    ) in out.splitlines()
    # the re-keyed turn rewrote the shard's chain too, and its head says so as well
    assert any(line.startswith("sessions.db: audit chain: ") for line in out.splitlines()), out


def test_an_undone_falsification_fails_the_witness(home: Path, tmp_path: Path, docs: Path) -> None:
    """The first answer is falsified between the two asks, so the second output's store.db
    head covers that ``cache_state`` event. The forger sets the answer back to ``ok``,
    deletes the event from the middle of the chain and renumbers the rest: the answer is
    served and shown as if it had never been judged wrong."""
    notebook = tmp_path / "falsified.ipynb"
    steps = [FIRST, "%record falsify 1 --state failed --reason wrong", SECOND]
    answers = _executed_notebook(notebook, docs, steps)
    copy = _copy(home, tmp_path)
    conn = _store(copy)
    [(seq,)] = conn.execute("SELECT seq FROM audit_events WHERE event_type = 'cache_state'")
    assert answers[1].checkpoint.store is not None and seq < answers[1].checkpoint.store.seq
    conn.execute("BEGIN")
    conn.execute("UPDATE cache_records SET state = 'ok', state_reason = NULL")
    conn.execute("DELETE FROM audit_events WHERE seq = ?", (seq,))
    _rechain(conn)
    conn.execute("COMMIT")
    conn.close()
    assert _shows(copy, answers[0].bates) == "STRICT"
    code, out = run(copy, "record", "list", "--json")
    assert code == 0 and {r["state"] for r in json.loads(out)} == {"ok"}
    said = _verify_alone_passes_but_the_witness_names_store(copy, notebook)
    assert f"seq {answers[1].checkpoint.store.seq}: truncated" in said


def test_a_deleted_document_fails_the_witness(home: Path, tmp_path: Path, docs: Path) -> None:
    """A document ingested between the two asks, which search found, is deleted whole
    (row, chunk, search index, event) and the chain renumbered: the answers, which do not
    cite it, keep STRICT, and the store no longer holds what the notebook saw ingested."""
    moth = tmp_path / "moth.md"
    moth.write_text("# Moth\n\nThe moth flies by night.\n", encoding="utf-8")
    notebook = tmp_path / "moth.ipynb"
    answers = _executed_notebook(notebook, docs, [FIRST, f"%ingest {moth}", SECOND])
    assert "Moth" in run(home, "search", "moth")[1]
    copy = _copy(home, tmp_path)
    conn = _store(copy)
    [(moth_id,)] = conn.execute("SELECT id FROM documents WHERE title = 'Moth'")
    conn.execute("BEGIN")
    conn.execute(
        "INSERT INTO chunks_fts (chunks_fts, rowid, text, title) "
        "SELECT 'delete', id, text, title FROM hot_chunk_texts WHERE id IN "
        "(SELECT id FROM chunks WHERE document_id = ?)",
        (moth_id,),
    )
    for table in ("chunks", "merkle_nodes"):
        conn.execute(f"DELETE FROM {table} WHERE document_id = ?", (moth_id,))
    conn.execute("DELETE FROM documents WHERE id = ?", (moth_id,))
    conn.execute("DELETE FROM audit_events WHERE seq = ?", (_document_event(conn, moth_id),))
    _rechain(conn)
    conn.execute("COMMIT")
    conn.close()
    assert "Moth" not in run(copy, "search", "moth")[1]
    assert [_shows(copy, a.bates) for a in answers] == ["STRICT", "STRICT"]
    said = _verify_alone_passes_but_the_witness_names_store(copy, notebook)
    seen = answers[1].checkpoint.store
    assert seen is not None and said.startswith(f"store.db: audit chain: seq {seen.seq}: truncated")


# ---------------------------------------------------------------- each head to its own chain


def test_a_store_head_is_held_to_store_db_even_when_sessions_db_holds_its_hash(
    ran: tuple[Path, list[Answer]], home: Path, tmp_path: Path
) -> None:
    """A witness line's heads cannot trade places: a store.db head that only sessions.db's
    chain holds is store.db's problem (matching it to whichever chain holds its hash would
    pass it)."""
    notebook, answers = ran
    heads = answers[1].checkpoint
    assert heads.sessions is not None and heads.store is not None
    text = notebook.read_text(encoding="utf-8")
    swapped = text.replace(f"store.db {heads.store}", f"store.db {heads.sessions}").replace(
        f"`sessions.db {heads.sessions}", f"`sessions.db {heads.store}"
    )
    forged = tmp_path / "swapped.ipynb"
    forged.write_text(swapped, encoding="utf-8")
    code, out = run(home, "verify", "--witness", str(forged))
    assert code == 1, out
    assert f"store.db: audit chain: seq {heads.sessions.seq}:" in out


def test_two_heads_at_one_seq_are_each_held_to_the_event_there(
    ran: tuple[Path, list[Answer]], home: Path, tmp_path: Path
) -> None:
    """A notebook holding a forged store.db head and, after it, the true one at the same seq
    fails: no checkpoint shadows another at its seq (the walk kept one per seq, the last)."""
    notebook, answers = ran
    store = answers[1].checkpoint.store
    assert store is not None
    forged = Checkpoint(store.seq, "0" * 64)
    text = notebook.read_text(encoding="utf-8")
    extra = nbformat.v4.new_output("stream", name="stdout", text=f"witness    store.db {forged}\n")
    book = nbformat.reads(text, as_version=4)
    book.cells[0].outputs.append(extra)  # before the true head, in order of appearance
    nbformat.write(book, str(tmp_path / "two.ipynb"))
    assert witnessed_by_database(witness_checkpoints(tmp_path / "two.ipynb"))["store"][1:] == [
        forged,
        store,
    ]
    code, out = run(home, "verify", "--witness", str(tmp_path / "two.ipynb"))
    assert code == 1, out
    assert out.splitlines()[0] == (
        f"store.db: audit chain: seq {store.seq}: rewritten: event {store.seq} differs from "
        f"checkpoint {forged}"
    )


# ------------------------------------------------------------------- notebooks saved before


def _old_format(notebook: Path, tmp_path: Path) -> Path:
    """The notebook as an older arborist rendered and saved it: in each rendering, the one
    ``checkpoint`` fact holding the shard's head where the witness now names both."""
    heads = r"sessions\.db (\d+:[0-9a-f]{64}), store\.db \d+:[0-9a-f]{64}"
    old = notebook.read_text(encoding="utf-8")
    old = re.sub(rf"witness    {heads}", r"checkpoint \1", old)  # text/plain
    old = re.sub(rf"\*\*witness\*\* `{heads}`", r"**checkpoint** `\1`", old)  # markdown
    old = re.sub(rf">witness</th>(<td[^>]*><code>){heads}<", r">checkpoint</th>\1\2<", old)
    path = tmp_path / "old.ipynb"
    path.write_text(old, encoding="utf-8")
    return path


def test_a_notebook_saved_before_still_verifies_its_lines_as_the_shards(
    ran: tuple[Path, list[Answer]], home: Path, tmp_path: Path
) -> None:
    notebook, answers = ran
    old = _old_format(notebook, tmp_path)
    saved = old.read_text(encoding="utf-8")
    assert "store.db" not in saved and "witness" not in saved
    first = answers[0].checkpoint.sessions
    assert saved.count(f"checkpoint {first}") == 1  # text/plain
    assert saved.count(f"**checkpoint** `{first}`") == 1  # markdown
    cells = re.findall(r'>checkpoint</th><td style=\\"[^"\\]*\\"><code>([^<]*)<', saved)
    assert cells.count(f"{first}") == 1  # HTML
    heads = witness_checkpoints(old)
    assert heads == [Heads(a.checkpoint.sessions, None) for a in answers]
    code, out = run(home, "verify", "--witness", str(old))
    assert code == 0, out
    assert out.splitlines()[-2:] == [
        "every checkpoint holds (2)",
        "witnessed: 2 of sessions.db, 0 of store.db",
    ]
    shard_head = answers[1].checkpoint.sessions
    assert shard_head is not None
    conn = sqlite3.connect(home / "sessions.db", isolation_level=None)
    conn.execute("DELETE FROM audit_events WHERE seq = ?", (shard_head.seq,))
    conn.close()
    code, out = run(home, "verify", "--witness", str(old))
    assert code == 1 and f"sessions.db: audit chain: seq {shard_head.seq}" in out, out


def test_verify_and_chain_check_lines_kept_in_a_notebook_witness_their_own_database(
    ran: tuple[Path, list[Answer]], home: Path, tmp_path: Path
) -> None:
    """What ``verify`` and ``chain-check`` print names each database at the start of its
    line: a notebook that kept such an output (as the provenance notebook does) witnesses
    that database's head, and only that database's."""
    code, verified = run(home, "verify")
    assert code == 0
    code, checked = run(home, "chain-check")
    assert code == 0
    book = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                "%arborist verify",
                outputs=[nbformat.v4.new_output("stream", name="stdout", text=verified)],
            ),
            nbformat.v4.new_code_cell(
                "%arborist chain-check",
                outputs=[nbformat.v4.new_output("stream", name="stdout", text=checked)],
            ),
        ]
    )
    path = tmp_path / "reports.ipynb"
    nbformat.write(book, str(path))
    app = Arborist(home)
    try:
        now = app.checkpoint()
    finally:
        app.close()
    by_database = witnessed_by_database(witness_checkpoints(path))
    assert by_database == {"sessions": [now.sessions], "store": [now.store]}

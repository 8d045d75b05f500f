"""A label is earned by what the store's hashes and events commit, not by a row that agrees
with itself: each forgery here recomputes every hash a row holds (as anyone with the file
and the library can), and a hit, ``Answer.verify()``, a turn's standing and ``derive``
must each refuse it, as ``arborist verify`` does, with nothing written.

Real homes on disk, edited with plain ``sqlite3`` between two opens.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from arborist._errors import BadInput, IntegrityError
from arborist._facade.app import Arborist
from arborist._proofs.hashing import cache_key, leaf_hash
from arborist._proofs.keys import EVIDENCE_ROOT_DIMENSION, EvidenceRef, evidence_root
from arborist._store.cache.records import (
    NewEvidence,
    RecordDraft,
    RecordEvidence,
    load_record,
    write_record,
)
from arborist._store.cache.rows import recomputed_hash

DOC = (
    "# Spider-Man\n\n"
    "Spider-Man was created by writer Stan Lee and artist Steve Ditko.\n\n"
    "He first appeared in Amazing Fantasy #15 in August 1962.\n"
)
QUESTION = "Who created Spider-Man?"
LIE = "Spider-Man was created by Jack Kirby alone. [E1]"


def _home(tmp_path: Path) -> tuple[Path, int, str]:
    """A home with one answered turn; the id and key of its record."""
    doc = tmp_path / "spider.md"
    doc.write_text(DOC, encoding="utf-8")
    home = tmp_path / "home"
    with Arborist(home) as app:
        app.ingest([str(doc)])
        turn = app.ask_turn(QUESTION, sid=None)
        assert turn.result.record.audit_mode == "STRICT"
        return home, turn.result.record.id, turn.result.record.cache_key


def _files(home: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(home.iterdir()) if p.suffix == ".db"}


def _rehashed(conn: sqlite3.Connection, record_id: int, **fields: object) -> None:
    """Set ``fields`` of the record and recompute its ``record_hash`` as the library does."""
    record = replace(load_record(conn, record_id), **fields)  # type: ignore[arg-type]
    digest = recomputed_hash(record, [(e.ref, e.cited) for e in record.evidence])
    sets = ", ".join(f"{name} = ?" for name in fields)
    with conn:
        conn.execute(
            f"UPDATE cache_records SET {sets}, record_hash = ? WHERE id = ?",
            (*fields.values(), digest, record_id),
        )


def _refused_everywhere(home: Path, record_id: int, why: str) -> None:
    """The hit is refused with ``why`` and nothing is written; every view claims nothing."""
    before = _files(home)
    with Arborist(home) as app:
        ((session, _),) = app.sessions()
        with pytest.raises(IntegrityError, match=why):
            app.ask_turn(QUESTION, sid=session.sid)
        check = app.check_answer(record_id)  # Answer.verify()
        assert not check and why in " ".join(check.problems)
        turn = app.node(app.session(session.sid).current_bates)
        assert app.audit_now(turn).mode == "NONE"
        assert "STRICT" not in app.tree(session.sid)
        assert not app.verify().ok
    assert _files(home)["store.db"] == before["store.db"]


EDITS: dict[str, Callable[[sqlite3.Connection, int], None]] = {
    "answer": lambda conn, rid: _rehashed(conn, rid, answer_text=LIE),
    "mode": lambda conn, rid: _rehashed(conn, rid, audit_mode="VISUAL"),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_record_edited_with_its_hash_recomputed_is_held_to_its_cache_write_event(
    tmp_path: Path, edit: str
) -> None:
    home, record_id, _key = _home(tmp_path)
    conn = sqlite3.connect(home / "store.db")
    EDITS[edit](conn, record_id)
    conn.close()
    _refused_everywhere(home, record_id, "the record_hash its cache_write event holds")


def test_a_rewritten_provider_response_is_held_to_its_event(tmp_path: Path) -> None:
    """The raw response ``record show --json`` prints beside ``holds`` is in no record hash;
    its event holds its hash."""
    home, record_id, _key = _home(tmp_path)
    conn = sqlite3.connect(home / "store.db")
    with conn:
        conn.execute('UPDATE cache_records SET response_json = \'{"model": "gpt-9"}\'')
    conn.close()
    _refused_everywhere(home, record_id, "response_hash differs from its cache_write event")


def test_a_quarantined_answer_flipped_back_to_ok_by_hand_is_not_served(tmp_path: Path) -> None:
    home, record_id, key = _home(tmp_path)
    with Arborist(home) as app:
        app.falsify(key, "quarantined", "a reader showed it wrong")
    conn = sqlite3.connect(home / "store.db")
    with conn:  # no hash covers the state column: the events do
        conn.execute("UPDATE cache_records SET state = 'ok', state_reason = NULL")
    conn.close()
    _refused_everywhere(home, record_id, "is not what its audit events recorded")


def test_forged_cited_bytes_with_every_row_hash_recomputed_are_refused(tmp_path: Path) -> None:
    """The chunk's text and leaf, the record's evidence (a one-leaf tree of the forged leaf,
    so its proof verifies against its own row), the key retrieval would compute and the
    record hash: all rewritten. The document's root, which its event commits, is not."""
    home, record_id, key = _home(tmp_path)
    conn = sqlite3.connect(home / "store.db")
    record = load_record(conn, record_id)
    first = record.evidence[0]
    assert first.text is not None and "Steve Ditko" in first.text
    text = first.text.replace("Steve Ditko", "Jack Kirby")
    leaf = leaf_hash(text.encode("utf-8")).hex()
    refs = [
        (EvidenceRef(leaf, 1, 0, leaf), e.cited) if e.rank == first.rank else (e.ref, e.cited)
        for e in record.evidence
    ]
    dims = {**record.dimensions, EVIDENCE_ROOT_DIMENSION: evidence_root([r for r, _ in refs])}
    key = cache_key(dims)
    digest = recomputed_hash(replace(record, cache_key=key, dimensions=dims), refs)
    with conn:
        conn.execute(
            "UPDATE chunks SET text = ?, leaf = ? WHERE id = ?", (text, leaf, first.chunk_id)
        )
        conn.execute(
            "UPDATE cache_evidence SET leaf = ?, source_root = ?, chunk_count = 1, "
            "chunk_index = 0, proof_json = '[]' WHERE record_id = ? AND rank = ?",
            (leaf, leaf, record_id, first.rank),
        )
        conn.execute(
            "UPDATE cache_records SET cache_key = ?, evidence_root = ?, record_hash = ? WHERE id = ?",
            (key, dims[EVIDENCE_ROOT_DIMENSION], digest, record_id),
        )
    conn.close()
    with Arborist(home) as app:
        check = app.check_answer(record_id)
        assert not check
        assert any("does not match the chunk of" in p for p in check.problems)
        assert not app.verify().ok


def test_a_key_whose_dimensions_do_not_hash_to_it_serves_nothing(tmp_path: Path) -> None:
    home, record_id, _key = _home(tmp_path)
    conn = sqlite3.connect(home / "store.db")
    with conn:  # the question's hash of another question: the key no longer says what it holds
        conn.execute("UPDATE cache_records SET question_hash = ?", ("0" * 64,))
    conn.close()
    _refused_everywhere(home, record_id, "do not hash to its cache key")


def test_a_turn_whose_question_was_edited_claims_nothing(tmp_path: Path) -> None:
    """sessions.db's question is shown beside the label: the key's question hash binds it."""
    home, _record_id, _key = _home(tmp_path)
    conn = sqlite3.connect(home / "sessions.db")
    with conn:
        conn.execute(
            "UPDATE nodes SET question = 'Did Steve Ditko alone create Spider-Man?' "
            "WHERE question = ?",
            (QUESTION,),
        )
    conn.close()
    with Arborist(home) as app:
        ((session, _),) = app.sessions()
        turn = app.node(app.session(session.sid).current_bates)
        now = app.audit_now(turn)
        assert now.mode == "NONE" and now.support is None
        assert now.reason == "its question is not the one its answer was given to"
        assert "STRICT" not in app.tree(session.sid)
        assert any("question is not the one" in p for p in app.verify().problems)


def _derived(home: Path) -> tuple[int, int]:
    conn = sqlite3.connect(home / "store.db")
    try:
        return conn.execute(
            "SELECT (SELECT count(*) FROM derivations), "
            "(SELECT count(*) FROM documents WHERE kind = 'core')"
        ).fetchone()
    finally:
        conn.close()


def test_derive_refuses_a_falsified_or_edited_answer_and_writes_nothing(tmp_path: Path) -> None:
    home, record_id, key = _home(tmp_path)
    with Arborist(home) as app:
        app.falsify(key, "failed", "wrong")
        with pytest.raises(BadInput, match="that answer is failed"):
            app.derive("snippet", key)
        app.restore(key, 1)
    assert _derived(home) == (0, 0)
    conn = sqlite3.connect(home / "store.db")
    _rehashed(conn, record_id, answer_text=LIE)
    conn.close()
    with Arborist(home) as app, pytest.raises(IntegrityError, match="nothing was derived"):
        app.derive("snippet", key)
    assert _derived(home) == (0, 0)


def test_the_control_an_honest_home_serves_and_derives(tmp_path: Path) -> None:
    """The same steps on an unedited home hold: each test above can fail."""
    home, record_id, key = _home(tmp_path)
    with Arborist(home) as app:
        assert app.check_answer(record_id)
        ((session, _),) = app.sessions()
        assert app.ask_turn(QUESTION, sid=session.sid).result.hit
        turn = app.node(app.session(session.sid).current_bates)
        assert app.audit_now(turn).mode == "STRICT"
        app.falsify(key, "quarantined", "checking")
        app.restore(key, 1)  # undone through the library: its events say ok again
        assert app.ask_turn(QUESTION, sid=session.sid).result.hit
        assert app.derive("snippet", key).kind == "snippet"
        assert app.verify().ok


def _forged_revision(home: Path, record_id: int, answer: str, mode: str, cited: bool) -> None:
    """What anyone with the files and the library can write: a new revision of the key with
    every hash, event and chain link the writer itself makes, its mode and cited flags
    chosen rather than earned."""
    conn = sqlite3.connect(home / "store.db")
    try:
        honest = load_record(conn, record_id)
        evidence = [
            NewEvidence(e.chunk_id, e.document_id, _ref(e), e.proof, cited) for e in honest.evidence
        ]
        draft = RecordDraft(
            honest.cache_key,
            honest.dimensions,
            honest.question,
            answer,
            mode,
            honest.model_profile,
            honest.policy,
            honest.response,
            evidence,
        )
        write_record(conn, draft, replace_ok=True)
        conn.commit()
    finally:
        conn.close()


def _ref(e: RecordEvidence) -> EvidenceRef:
    return EvidenceRef(e.source_root, e.chunk_count, e.chunk_index, e.leaf)


@pytest.mark.parametrize(
    ("answer", "mode", "cited"),
    [
        ("The valve is safe to open at any pressure [E9].", "STRICT", False),  # cites nothing
        ("Spider-Man was created by writer Stan Lee and artist Steve Ditko.", "STRICT", True),
        ("Spider-Man was created by writer Stan Lee and artist Steve Ditko. [E1]", "VISUAL", True),
    ],
)
def test_a_mode_or_cited_flags_its_answer_does_not_earn_are_named_by_verify(
    tmp_path: Path, answer: str, mode: str, cited: bool
) -> None:
    """Hashed, the mode is committed, not earned: a rewritten home (or a bundle made from
    one) could claim STRICT for an answer that cites nothing. ``verify`` holds the mode and
    each row's cited flag to the labels the answer cites, as the writer sets them."""
    home, record_id, _key = _home(tmp_path)
    _forged_revision(home, record_id, answer, mode, cited)
    with Arborist(home) as app:
        problems = "\n".join(app.verify().problems)
    assert ("is not what its cited evidence earns" in problems) or (
        "its cited evidence differs from the labels its answer cites" in problems
    ), problems


def test_a_session_whose_turns_skip_a_seq_is_named_by_verify(tmp_path: Path) -> None:
    """``next_seq`` is bookkeeping, but an edited one hands the next turn a seq past a gap
    (and can make the session "full"): no honest session has one, and ``import`` refuses
    one, so ``verify`` names it too."""
    home, _record_id, _key = _home(tmp_path)
    conn = sqlite3.connect(home / "sessions.db")
    with conn:
        conn.execute("UPDATE sessions SET next_seq = 999999")
    conn.close()
    with Arborist(home) as app:
        ((session, _),) = app.sessions()
        turn = app.ask_turn("When did Spider-Man first appear?", sid=session.sid)
        problems = app.verify().problems
    assert turn.node.bates == f"{session.sid}-999999"
    assert (
        f"sessions.db: turn {turn.node.bates}: it is numbered past a gap: its session holds no "
        "turn 000002 (a session numbers its turns one after another)"
    ) in problems

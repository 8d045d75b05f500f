"""What a record's audit events say of it: the hash its ``cache_write`` committed and the
state its events leave it in.

A record's ``record_hash`` is recomputable by anyone who edits the row: it says the fields
agree with each other, not that they are the ones written. What the row cannot rewrite
alone is its ``cache_write`` event, whose hash sits in the store's chain (as a document's
``document_add`` event commits its title and URI, :mod:`arborist._store.metadata`). So a
record *holds to its events* (:func:`event_problems`) when:

* exactly one ``cache_write`` event records its key and revision, that event's hash
  recomputes from its body as stored, and that body is the one the row rebuilds
  (:func:`write_event_body`: its record hash, evidence root, answer hash and the hash of
  the raw response stored with it);
* its state and reason are what its events leave them: ``ok`` when written, ``stale``
  once a later revision of its key is written while it is ``ok``, then whatever each
  ``cache_state`` event naming it set, in order (the replay ``arborist verify`` makes
  for every record at once).

A hit, ``Answer.verify()``, ``record show`` and the audit mode a turn can claim now all
ask it, so an answer edited with its hash recomputed, or a quarantined answer flipped
back to ``ok`` by hand, is refused there and not only by ``arborist verify``, which also
walks the chain (what shows an event rewritten along with its row).

Cost: one lookup in the partial index of store migration 13 for the key's writes, and
a walk of the ``cache_state`` events written since (a second partial index): falsifying
and re-ingesting are rare, so a few rows.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from arborist._proofs.audit import differing_fields
from arborist._proofs.hashing import sha256_hex, stored_event_hash
from arborist._proofs.keys import answer_hash

__all__ = ["event_problems", "write_event_body"]

WRITE_KEY = "json_extract(CASE WHEN json_valid(body) THEN body END, '$.cache_key')"
"""The expression store migration 13 indexes (``audit_cache_write``): a lookup must say it
exactly for SQLite to search the index; a body that is not JSON reads as NULL."""

_WRITES_SQL = (
    "SELECT seq, prev_event_hash, event_type, sid, bates, body, created_at, event_hash "
    f"FROM audit_events WHERE event_type = 'cache_write' AND {WRITE_KEY} = ? ORDER BY seq"
)

_STATES_SQL = (
    "SELECT seq, body FROM audit_events WHERE event_type = 'cache_state' AND seq > ? "
    "AND EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(body) THEN body END, "
    "'$.records') AS j WHERE json_extract(j.value, '$.cache_key') = ? "
    "AND json_extract(j.value, '$.revision') = ?) ORDER BY seq"
)

OK, STALE = "ok", "stale"


def write_event_body(
    *,
    cache_key: str,
    revision: int,
    record_hash: str,
    evidence_root: str,
    answer_text: str,
    response_json: str,
    redactions: object = None,
) -> dict[str, object]:
    """What a ``cache_write`` event commits to: the record's key, revision and hash, its
    evidence root, the hashes of its answer and of the response metadata stored with it,
    and what admission redacted (when it redacted anything). ``arborist verify``
    rebuilds it from the stored row."""
    return {
        "cache_key": cache_key,
        "revision": revision,
        "record_hash": record_hash,
        "evidence_root": evidence_root,
        "answer_hash": answer_hash(answer_text),
        "response_hash": sha256_hex(response_json.encode("utf-8")),
        **({"redactions": redactions} if redactions else {}),
    }


def event_problems(
    conn: sqlite3.Connection,
    written: dict[str, object],
    *,
    state: str,
    state_reason: str | None,
    superseded_reason: str,
) -> tuple[str, ...]:
    """What about a record its audit events contradict (empty when nothing); see the
    module's docstring. ``written`` is the ``cache_write`` body its row rebuilds
    (:func:`write_event_body`); ``superseded_reason`` is the reason a later revision
    retires it with."""
    cache_key, revision = written["cache_key"], written["revision"]
    writes = [(row[0], _body(row[5]), row) for row in conn.execute(_WRITES_SQL, (cache_key,))]
    mine = [(seq, body, row) for seq, body, row in writes if body.get("revision") == revision]
    if len(mine) != 1:
        return ("no single cache_write event records it",)
    seq, body, row = mine[0]
    _, prev, event_type, sid, bates, body_json, created_at, digest = row
    try:
        recomputed = stored_event_hash(
            prev,
            event_type=event_type,
            sid=sid,
            bates=bates,
            body_json=body_json,
            created_at=created_at,
        )
    except (TypeError, ValueError, RecursionError):
        recomputed = None
    if recomputed != digest:
        return ("its cache_write event does not hash to its own event_hash",)
    expected = {**written, **({"redactions": body["redactions"]} if "redactions" in body else {})}
    problems = [
        _WORDING.get(name, f"its {name} differs from its cache_write event")
        for name in differing_fields(body, expected, optional=("response_hash",))
    ]
    if _replayed(conn, seq, str(cache_key), int(str(revision)), writes, superseded_reason) != (
        state,
        state_reason,
    ):
        problems.append(f"its state {state!r} is not what its audit events recorded")
    return tuple(problems)


_WORDING = {"record_hash": "it differs from the record_hash its cache_write event holds"}


def _replayed(
    conn: sqlite3.Connection,
    written_at: int,
    cache_key: str,
    revision: int,
    writes: list[tuple[int, dict[str, Any], Any]],
    superseded_reason: str,
) -> tuple[str, str | None]:
    """The state and reason the record's events leave it in, replayed in order."""
    changes: list[tuple[int, dict[str, Any] | None]] = [
        (seq, None) for seq, _body_, _row in writes if seq > written_at
    ]  # None: a later revision of the key was written
    changes += [
        (int(seq), _body(body))
        for seq, body in conn.execute(_STATES_SQL, (written_at, cache_key, revision))
    ]
    state: tuple[str, str | None] = (OK, None)
    for _seq, change in sorted(changes, key=lambda c: c[0]):
        if change is None:
            if state[0] == OK:
                state = (STALE, superseded_reason)
            continue
        reason = change.get("reason")
        state = (str(change.get("state")), reason if isinstance(reason, str) else None)
    return state


def _body(text: object) -> dict[str, Any]:
    """An event's body as a dict (empty when it is not a JSON object)."""
    try:
        body = json.loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError):
        return {}
    return body if isinstance(body, dict) else {}

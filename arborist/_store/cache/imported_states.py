"""An imported record's state in its home, as later bundles of that home tell it.

An imported record commits the state its home had it in when it was imported (its
``record_import`` event's ``origin_state`` and ``origin_reason``). Its home may take it out of
service afterwards (``arborist falsify``), and a later bundle of that home carries the new
state with the ``cache_state`` event that set it, proved by the bundle's chain span. Importing
that bundle here appends an ``import_state`` event naming the record's hash, with the state
and reason the bundle gives: the record's row is never rewritten, and the state every face
shows (its reason: :func:`~arborist._store.cache.imported_reads.imported_reason`) is that of
its last such event, else its ``record_import``'s.

A bundle only takes a record further out of service, never back (:data:`SEVERITY`): a
bundle is no signed statement of its home (anyone can rebuild one's chain), so a bundle
saying ``ok`` of a record held here as ``failed`` is either a forgery or older news, and is
skipped and said. This home's own records are never moved by a bundle at all: their state
is this home's ``cache_state`` events' alone. ``arborist verify`` holds every
``import_state`` event to the same rule (:func:`state_problems`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

from arborist._proofs.audit import append_event
from arborist._store.cache.records import FAILED, OK, QUARANTINED, STALE
from arborist._store.cache.stored import stored_object

__all__ = [
    "IMPORT_STATE",
    "SEVERITY",
    "carry_state",
    "origin_now",
    "own_state_skipped",
    "state_problems",
]

IMPORT_STATE = "import_state"
"""The event that records a later state of an imported record, told by a later bundle."""

SEVERITY = {OK: 0, STALE: 1, FAILED: 2, QUARANTINED: 2}
"""How far out of service each state a record can be in puts it: a bundle's state is carried
over only when it is further out than the one held (stale after ok; failed or quarantined
after either), never back, never sideways (failed and quarantined are both a falsification)."""

_EVENTS_SQL = (
    "SELECT seq, body FROM audit_events WHERE event_type = 'import_state' AND "
    "json_extract(CASE WHEN json_valid(body) THEN body END, '$.record_hash') = ? ORDER BY seq"
)
"""A record's ``import_state`` events, in order, by the expression store migration 15 indexes."""

State = tuple[object, object]
"""A state and its reason, as a row or an event body holds them (checked where they are read)."""


def _said(body: object) -> State | None:
    """The state and reason an ``import_state`` body gives, or None for a body that is not
    an object naming a state this home knows and a reason (text, or none for ``ok``)."""
    if not isinstance(body, dict) or body.keys() != {"record_hash", "state", "reason"}:
        return None
    state, reason = body["state"], body["reason"]
    if state not in SEVERITY or not (reason is None or type(reason) is str):
        return None
    return state, reason


def origin_now(conn: sqlite3.Connection, record_hash: object, imported: State) -> State:
    """The state the record's home has it in as this home last heard: the last
    ``import_state`` event's for it that took it further out of service (:func:`_further`),
    else ``imported`` (its ``record_import``'s). An event that would take it back (written
    by hand: ``verify`` names it) is not read."""
    state = imported
    for _seq, body in conn.execute(_EVENTS_SQL, (record_hash,)):
        said = _said(stored_object(body))
        if said is not None and _further(said, state):
            state = said
    return state


def _further(told: State, held: State) -> bool:
    """Whether ``told`` takes a record further out of service than ``held`` (a state this
    home does not know counts as in service: a falsification still takes it out)."""
    told_at = SEVERITY.get(told[0]) if isinstance(told[0], str) else None
    held_at = SEVERITY.get(held[0], 0) if isinstance(held[0], str) else 0
    return told_at is not None and told_at > held_at


def _name(cache_key: str, revision: int) -> str:
    return f"record {cache_key[:12]}… revision {revision}"


def carry_state(
    conn: sqlite3.Connection,
    *,
    cache_key: str,
    revision: int,
    record_hash: str,
    imported: State,
    told: State,
    at: str,
) -> tuple[bool, str | None]:
    """Carry the state a bundle tells (``told``) of a record imported here before: an
    ``import_state`` event when it takes the record further out of service than it is held
    (inside the caller's transaction): ``(True, None)``; else, when it differs, the line
    that says what was skipped: ``(False, line)``; ``(False, None)``: nothing to carry."""
    held = origin_now(conn, record_hash, imported)
    if told == held:
        return False, None
    name = f"{_name(cache_key, revision)} ({held[0]} here)"
    if told[0] not in SEVERITY:
        return False, (
            f"skipped the state {str(told[0])[:20]!r} the bundle gives {name}: no state known here"
        )
    if not _further(told, held):
        return False, (
            f"skipped the state {told[0]!r} the bundle gives {name}: a bundle only takes a "
            "record further out of service, never back"
        )
    body = {"record_hash": record_hash, "state": told[0], "reason": told[1]}
    append_event(conn, IMPORT_STATE, body=body, created_at=at)
    return True, None


def own_state_skipped(cache_key: str, revision: int, own: object, told: State) -> str | None:
    """The line that says a bundle's state of one of this home's own records was skipped
    (None: the bundle tells the state it has here)."""
    if told[0] == own:
        return None
    return (
        f"skipped the state {str(told[0])[:20]!r} the bundle gives {_name(cache_key, revision)}: "
        f"it is this home's own record ({own} here), whose state only this home sets"
    )


def state_problems(conn: sqlite3.Connection, imported: Mapping[str, State]) -> list[str]:
    """``arborist verify``'s pass over the ``import_state`` events: each names a record
    imported here (``imported``: each one's ``record_import`` state, by its hash), gives a
    state known here and its reason, and takes the record further out of service than the
    state before it. One line each."""
    problems: list[str] = []
    held = dict(imported)
    for seq, body in conn.execute(
        "SELECT seq, body FROM audit_events WHERE event_type = 'import_state' ORDER BY seq"
    ):
        parsed = stored_object(body)
        digest = parsed.get("record_hash") if isinstance(parsed, dict) else None
        said = _said(parsed)
        where = f"import_state event {seq}"
        if digest not in held:
            problems.append(f"{where}: names no record imported here")
        elif said is None:
            problems.append(f"{where}: its body is not a state known here and its reason")
        elif not _further(said, held[digest]):
            problems.append(
                f"{where}: moves imported record {str(digest)[:12]}… from {held[digest][0]} to "
                f"{said[0]}: a bundle only takes a record further out of service"
            )
        else:
            held[digest] = said
    return problems

"""Moving sessions between shards: export as JSON Lines, import with every hash re-proved.

An export is one ``session`` line then one ``node`` line per turn the
session minted (its root included), in seq order, each with its hashes.
Import refuses, with one line and nothing written, every turn ``arborist verify`` would
then report: a field of the wrong JSON type or holding text that is not UTF-8 (a lone
surrogate), a turn of a shape no honest writer makes (:mod:`arborist._forest.shape`: a
parentless turn that is not its session's root, an empty or malformed cache key, a mode no
answer is given in), a label ``arborist label`` would refuse, a time not in the stored form,
a time none an honest writer gives (:func:`~arborist._forest.shape.time_problem`: older than
its parent or than the turn before it in its session, or after the import), a seq that would
leave its session a gap (a turn numbered 999999 would make the session "full" for its owner;
renumbering it would change its hash), and a turn of a session this home holds already. It recomputes every
``node_hash`` from the fields and refuses a line that does not match, skips turns already
present with the same hash, refuses a bates that exists with a different one, inserts
parents before children whatever order the lines arrive in, then refolds ``subtree_hash``
bottom-up once. The same nodes give the same hashes in any shard, in any arrival order.
A turn renamed where it came from is renamed here by a ``label`` event, as ``arborist
label`` renames one: ``arborist verify`` holds every turn's label to its events.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from arborist._clock import utc_now
from arborist._database.db import transaction
from arborist._errors import BadInput
from arborist._forest.bates import format_bates, is_bates, is_sid, parse_bates
from arborist._forest.nodes import get_session
from arborist._forest.shape import first_gap, is_stored_time, shape_problem, time_problem
from arborist._forest.shard import (
    _checked_label,
    _insert_node_row,
    node_event_body,
    session_event_body,
    titles_json,
)
from arborist._proofs.audit import append_event
from arborist._proofs.hashing import node_hash, subtree_hash_bytes
from arborist._safejson import loads as safe_loads

__all__ = [
    "EXPORT_FORMAT",
    "ImportResult",
    "TURN_FIELDS",
    "export_session",
    "import_lines",
    "refold_all",
    "turn_problem",
]

EXPORT_FORMAT = "arborist-session/1"

TURN_FIELDS = (
    "bates",
    "parent_bates",
    "question",
    "answer_text",
    "cache_key",
    "audit_mode",
    "cited_titles",
    "created_at",
    "created_label",
    "label",
    "node_hash",
)


@dataclass(frozen=True)
class ImportResult:
    """What an import did."""

    sessions: tuple[str, ...]
    added: int
    already_present: int
    records: int | None = None
    """Records a bundle's import wrote into store.db (None: an export's, which has none)."""
    restated: int = 0
    """Later states of records imported before that a bundle's import carried over."""
    skipped: tuple[str, ...] = ()
    """A line for each state a bundle gave that its import did not carry over."""


def export_session(conn: sqlite3.Connection, sid: str) -> Iterator[dict[str, Any]]:
    """The session's header, then every node it minted, in seq order."""
    session = get_session(conn, sid)
    yield {
        "type": "session",
        "format": EXPORT_FORMAT,
        "sid": session.sid,
        "label": session.label,
        "created_at": session.created_at,
        "root_bates": session.root_bates,
    }
    for row in conn.execute(
        "SELECT n.bates, n.parent_bates, n.question, n.answer_text, n.cache_key, n.audit_mode, "
        "n.cited_titles_json, n.created_at, n.created_label, n.label, n.node_hash, "
        "lower(hex(l.subtree_hash)) FROM nodes AS n LEFT JOIN node_links AS l ON l.id = n.id "
        "WHERE n.sid = ? ORDER BY n.seq",
        (session.sid,),
    ):
        record = dict(zip((*TURN_FIELDS, "subtree_hash"), row, strict=True))
        record["cited_titles"] = json.loads(record["cited_titles"])
        yield {"type": "node", **record}


def _parse(lines: Iterable[str]) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    sessions: dict[str, dict[str, Any]] = {}
    nodes: list[dict[str, Any]] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = safe_loads(line)  # too deep or too long a number: a JSONDecodeError
        except json.JSONDecodeError as exc:
            raise BadInput(f"line {number}: not JSON ({exc.msg})") from exc
        if not isinstance(item, dict) or item.get("type") not in ("session", "node"):
            raise BadInput(f"line {number}: expected a session or node record")
        if item["type"] == "session":
            if item.get("format") != EXPORT_FORMAT:
                named = repr(item.get("format"))
                named = named if len(named) <= 60 else f"{named[:57]}..."
                raise BadInput(f"line {number}: unknown export format {named}")
            sid = item.get("sid")
            if not isinstance(sid, str) or not is_sid(sid):
                raise BadInput(f"line {number}: its sid is not YYYYMMDDTHHMMSSZ-xxxxxx")
            sessions[sid] = item
        else:
            missing = [f for f in TURN_FIELDS if f not in item]
            if missing:
                raise BadInput(f"line {number}: node lacks {', '.join(missing)}")
            item["_line"] = number
            problem = _field_problem(item)
            if problem:
                raise BadInput(f"line {number}: {problem}")
            if item["bates"] in seen:
                raise BadInput(f"line {number}: turn {item['bates']} is in the file twice")
            seen.add(item["bates"])
            nodes.append(item)
    return sessions, nodes


_TEXTS = ("question", "answer_text", "cache_key", "audit_mode", "created_at", "node_hash")


def turn_problem(item: dict[str, Any]) -> str | None:
    """Why an exported turn (every field of :data:`TURN_FIELDS` present) is none an honest
    writer makes, in a phrase naming the turn, or None (a bundle's turns are held to it)."""
    return _field_problem(item)


def _field_problem(item: dict[str, Any]) -> str | None:
    """Why a node record is none an export of an honest turn holds, in a phrase, or None:
    each field of its JSON type, text that is UTF-8, a bates number and a time in the
    stored form, labels ``arborist label`` accepts, and the shape of an honest turn."""
    bates = item["bates"]
    if not isinstance(bates, str) or not is_bates(bates):
        return "its bates is not <sid>-<6 digits>"
    problem = _type_problem(item) or _text_problem(item)
    if problem is None:
        titles = item["cited_titles"]
        problem = shape_problem(
            seq=parse_bates(bates)[1],
            parent=item["parent_bates"],
            question=item["question"],
            answer=item["answer_text"],
            key=item["cache_key"],
            mode=item["audit_mode"],
            titles=titles_json(titles),
            created_label=item["created_label"],
        )
    return f"turn {bates}: {problem}" if problem else None


def _type_problem(item: dict[str, Any]) -> str | None:
    """The first field of a node record that is not of its JSON type, in a phrase."""
    parent = item["parent_bates"]
    if parent is not None and (not isinstance(parent, str) or not is_bates(parent)):
        return "its parent_bates is neither null nor <sid>-<6 digits>"
    for name in _TEXTS:
        if not isinstance(item[name], str):
            return f"its {name} is not text"
    titles = item["cited_titles"]
    if not isinstance(titles, list) or not all(isinstance(t, str) for t in titles):
        return "its cited_titles is not a list of text"
    for name in ("created_label", "label"):
        value = item[name]
        if isinstance(value, str) and not value.isprintable():
            return f"its {name} holds control characters"
        if value is not None and (not isinstance(value, str) or not _typed_label(value)):
            return f"its {name} is none `arborist label` would give"
    return None


def _text_problem(item: dict[str, Any]) -> str | None:
    """Text that is not UTF-8 (a lone surrogate), or a time not in the stored form."""
    texts = [item[name] for name in _TEXTS] + item["cited_titles"]
    if not _utf8("".join(texts)):  # one encoding: a lone surrogate stays one when joined
        return "it holds text that is not UTF-8 (a lone surrogate)"
    if not is_stored_time(item["created_at"]):
        return "its created_at is not a time YYYY-MM-DDTHH:MM:SS.ffffffZ"
    return None


def _typed_label(label: str) -> bool:
    """Whether ``label`` is one a user could have given (``arborist label`` keeps it as
    it is): printable, not a seq, a bates number or ``root``, at most 80 characters."""
    try:
        return _checked_label(label) == label
    except BadInput:
        return False


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _screen(item: dict[str, Any], admit_text: Callable[[str], str]) -> None:
    """Refuse a turn that holds a secret or a label no one could type."""
    for name in ("label", "created_label"):
        value = item.get(name)
        if value is not None and (not isinstance(value, str) or not value.isprintable()):
            raise BadInput(f"line {item['_line']}: its {name} holds control characters")
    titles = item.get("cited_titles")
    texts = [("question", item.get("question")), ("answer", item.get("answer_text"))]
    texts += [("label", item.get("label")), ("label", item.get("created_label"))]
    texts += [("cited titles", t) for t in (titles if isinstance(titles, list) else [])]
    for name, text in texts:
        if isinstance(text, str) and admit_text(text) != text:
            raise BadInput(
                f"line {item['_line']}: its {name} holds a secret; a turn is committed by its "
                "hash, so it is not imported redacted: redact it in the home it came from"
            )


def _check_node(item: dict[str, Any], parent_hash: str | None) -> None:
    try:
        expected = node_hash(
            parent_node_hash=parent_hash,
            bates=item["bates"],
            question=item["question"],
            cache_key=item["cache_key"],
            audit_mode=item["audit_mode"],
            created_at=item["created_at"],
            label=item["created_label"],
        )
    except ValueError as exc:
        raise BadInput(f"line {item['_line']}: malformed node ({exc})") from exc
    if expected != item["node_hash"]:
        raise BadInput(f"line {item['_line']}: node {item['bates']} does not match its node_hash")


def import_lines(
    conn: sqlite3.Connection,
    lines: Iterable[str],
    *,
    admit_text: Callable[[str], str] = lambda text: text,
    check_turn: Callable[[dict[str, Any]], str | None] = lambda item: None,
) -> ImportResult:
    """Import exported sessions into this shard, all or nothing.

    ``admit_text`` is the home's admission gate. A session label passes through it
    (it is no hash's input). A turn's texts are committed by its hash, so a turn
    whose question, answer, label or cited titles the gate would change is refused
    rather than stored with a secret or stored altered; labels holding control
    characters are refused as they are everywhere.

    ``check_turn`` is asked of every turn (not roots) before anything is written: a
    reason it returns refuses the whole file (the home's check that a turn agrees with
    the answer its store holds under the turn's cache key).
    """
    sessions, nodes = _parse(lines)
    _admit(sessions, nodes, admit_text)
    for node in nodes:
        if node["parent_bates"] is not None:
            problem = check_turn(node)
            if problem:
                raise BadInput(f"line {node['_line']}: turn {node['bates']} {problem}")
    by_bates = {n["bates"]: n for n in nodes}
    added = present = 0
    now = utc_now()  # the import's time: every event it writes, and no turn after it
    with transaction(conn):
        _check_numbering(conn, by_bates)
        for sid, header in sessions.items():
            _import_session(conn, sid, header, by_bates, now)
        for bates in _parents_first(by_bates):
            if _import_node(conn, by_bates[bates], by_bates, now):
                added += 1
            else:
                present += 1
        for sid in sessions:
            conn.execute(
                "UPDATE sessions SET next_seq = (SELECT max(seq) + 1 FROM nodes WHERE sid = ?) "
                "WHERE sid = ?",
                (sid, sid),
            )
        refold_all(conn)
    return ImportResult(tuple(sessions), added, present)


def _admit(
    sessions: dict[str, dict[str, Any]],
    nodes: list[dict[str, Any]],
    admit_text: Callable[[str], str],
) -> None:
    """Screen the whole file before anything is written: session labels pass the gate,
    turns holding a secret or a control character are refused, every turn has its session."""
    for header in sessions.values():
        label = header.get("label")
        if label is not None:
            if not isinstance(label, str) or not label.isprintable():
                raise BadInput(f"session {header.get('sid')}: its label holds control characters")
            header["label"] = admit_text(label)
    for node in nodes:
        _screen(node, admit_text)
        sid, seq = parse_bates(node["bates"])
        if sid not in sessions:
            raise BadInput(f"line {node['_line']}: no session record for {sid}")
        if seq == 0 and sessions[sid].get("created_at") != node["created_at"]:
            raise BadInput(
                f"session {sid}: its created_at is not its root turn's (the session_import "
                "event and the root must agree)"
            )


def _check_numbering(conn: sqlite3.Connection, by_bates: dict[str, Any]) -> None:
    """Refuse a file that would leave a session's turns numbered with a gap, or that adds a
    turn to a session this home holds.

    A session hands out seqs one after another (``next_seq``), so every session an honest
    writer made holds 0..n without a gap, and the next turn its owner asks is n + 1. A
    turn numbered beyond that (999999, say) would make the session full for its owner, and
    renumbering it would change its node hash (the bates is hashed), so it is refused:
    a turn is imported only with every turn before it in its session, here or in the file.

    A session this home holds takes no turn from a file, whoever made it: its own (the
    record of what its owner asked would hold words they never asked, written by whoever
    wrote the file) or one imported before (the turns it brought would be joined by others
    no one can tell from them). A file may hold the turns held already (importing a file
    again changes nothing); a session's later turns import into a home that lacks it.
    """
    wanted: dict[str, dict[int, str]] = {}
    for bates in by_bates:
        sid, seq = parse_bates(bates)
        wanted.setdefault(sid, {})[seq] = bates
    for sid, numbered in wanted.items():
        held = {seq for (seq,) in conn.execute("SELECT seq FROM nodes WHERE sid = ?", (sid,))}
        new = set(numbered) - held
        if new and held:
            added = numbered[min(new)]
            raise BadInput(
                f"line {by_bates[added]['_line']}: turn {added}: session {sid} is here already: "
                "an import adds no turn to a session this home holds (it may bring again only "
                "the turns held here)"
            )
        first = first_gap(held | new) if new else None
        if first is not None:
            last = max(new)
            raise BadInput(
                f"line {by_bates[numbered[last]]['_line']}: turn {numbered[last]} would leave "
                f"session {sid} without its turn {first:06d}: a session's turns are imported "
                "only with every turn before them, here or in the file"
            )


def _import_session(
    conn: sqlite3.Connection, sid: str, header: dict[str, Any], by_bates: dict[str, Any], now: str
) -> None:
    """Create session ``sid`` from its header unless this shard has it already."""
    if conn.execute("SELECT 1 FROM sessions WHERE sid = ?", (sid,)).fetchone():
        return
    root = format_bates(sid, 0)
    if root not in by_bates:
        raise BadInput(f"session {sid}: its root {root} is not in the file")
    created = header.get("created_at")
    conn.execute(
        "INSERT INTO sessions (sid, root_bates, current_bates, next_seq, created_at, "
        "updated_at, label) VALUES (?, ?, ?, 1, ?, ?, ?)",
        (sid, root, root, created, created, header.get("label")),
    )
    append_event(
        conn,
        "session_import",
        sid=sid,
        body=session_event_body(header.get("label"), by_bates[root]["node_hash"]),
        created_at=now,
    )


def _stored_hash(conn: sqlite3.Connection, bates: str | None) -> str | None:
    if bates is None:
        return None
    row = conn.execute("SELECT node_hash FROM nodes WHERE bates = ?", (bates,)).fetchone()
    return str(row[0]) if row else None


def _stored_time(conn: sqlite3.Connection, bates: str | None) -> object:
    if bates is None:
        return None
    row = conn.execute("SELECT created_at FROM nodes WHERE bates = ?", (bates,)).fetchone()
    return row[0] if row else None


def _import_node(
    conn: sqlite3.Connection, item: dict[str, Any], by_bates: dict[str, Any], now: str
) -> bool:
    """Insert one turn after re-proving its hash against its parent's and its time
    (:func:`_check_time`); False when this shard holds it already (with the same hash:
    another hash is refused)."""
    bates, parent = item["bates"], item["parent_bates"]
    parent_hash = _stored_hash(conn, parent)
    if parent is not None and parent_hash is None:
        raise BadInput(
            f"line {item['_line']}: parent {parent} is neither in this shard nor in the file"
        )
    _check_node(item, parent_hash)
    _check_time(conn, item, by_bates, now)
    stored = _stored_hash(conn, bates)
    if stored is not None:
        if stored != item["node_hash"]:
            raise BadInput(f"line {item['_line']}: {bates} exists here with another hash")
        return False
    sid, seq = parse_bates(bates)
    _check_label_free(conn, sid, item)
    titles = [str(t) for t in item["cited_titles"]]
    _insert_node_row(
        conn,
        bates=bates,
        sid=sid,
        seq=seq,
        parent=parent,
        question=item["question"],
        answer_text=item["answer_text"],
        cache_key=item["cache_key"],
        audit_mode=item["audit_mode"],
        cited_titles=titles,
        created_at=item["created_at"],
        label=item["created_label"],
        digest=item["node_hash"],
    )
    if seq > 0:
        append_event(
            conn,
            "node_insert",
            sid=sid,
            bates=bates,
            body=node_event_body(
                item["node_hash"], parent, item["answer_text"], titles_json(titles)
            ),
            created_at=now,
        )
    if item["label"] != item["created_label"]:  # renamed where it came from: a rename here
        conn.execute("UPDATE nodes SET label = ? WHERE bates = ?", (item["label"], bates))
        append_event(
            conn,
            "label",
            sid=sid,
            bates=bates,
            body={"label": item["label"], "previous": item["created_label"]},
            created_at=now,
        )
    return True


def _check_time(
    conn: sqlite3.Connection, item: dict[str, Any], by_bates: dict[str, Any], now: str
) -> None:
    """Refuse a turn whose time :func:`time_problem` names: against its parent's, the turn
    numbered before it in its session (in the file, else here) and the import's ``now``."""
    sid, seq = parse_bates(item["bates"])
    elder = format_bates(sid, seq - 1) if seq > 0 else None
    before = by_bates[elder]["created_at"] if elder in by_bates else _stored_time(conn, elder)
    parent = _stored_time(conn, item["parent_bates"])
    wrong = time_problem(item["created_at"], parent=parent, before=before, recorded=now)
    if wrong is not None:
        raise BadInput(f"line {item['_line']}: turn {item['bates']}: {wrong}")


def _check_label_free(conn: sqlite3.Connection, sid: str, item: dict[str, Any]) -> None:
    """Refuse a turn whose label another turn of its session holds (here, or earlier in the
    file): a label names one turn of a session, as ``arborist label`` keeps it."""
    if item["label"] is None:
        return
    taken = conn.execute(
        "SELECT bates FROM nodes WHERE sid = ? AND label = ?", (sid, item["label"])
    ).fetchone()
    if taken:
        raise BadInput(
            f"line {item['_line']}: turn {item['bates']}: its label {item['label']!r} already "
            f"names {taken[0]} in its session"
        )


def _parents_first(by_bates: dict[str, dict[str, Any]]) -> list[str]:
    """The file's nodes ordered so that every parent in the file precedes its children."""
    kids: dict[str, list[str]] = {}
    order: list[str] = []
    for bates, item in by_bates.items():
        parent = item["parent_bates"]
        if parent in by_bates:
            kids.setdefault(parent, []).append(bates)
        else:
            order.append(bates)
    position = 0
    while position < len(order):
        order.extend(sorted(kids.get(order[position], [])))
        position += 1
    if len(order) != len(by_bates):
        raise BadInput("the file's nodes form a cycle")
    return order


def refold_all(conn: sqlite3.Connection) -> int:
    """Recompute every ``subtree_hash`` (in ``node_links``) bottom-up in one pass; returns
    how many changed."""
    rows = conn.execute("SELECT id, parent_id, node_hash, subtree_hash FROM node_links").fetchall()
    kids: dict[int, list[int]] = {}
    for node_id, parent, _, _ in rows:
        if parent is not None:
            kids.setdefault(parent, []).append(node_id)
    digest = {node_id: h for node_id, _, h, _ in rows}
    stored = {node_id: s for node_id, _, _, s in rows}
    folded: dict[int, bytes] = {}
    order: list[int] = []
    stack = [node_id for node_id, parent, _, _ in rows if parent is None or parent not in digest]
    while stack:
        node_id = stack.pop()
        order.append(node_id)
        stack.extend(kids.get(node_id, []))
    for node_id in reversed(order):
        children = [folded[k] for k in kids.get(node_id, [])]
        folded[node_id] = subtree_hash_bytes(digest[node_id], children)
    changed = [(h, i) for i, h in folded.items() if stored[i] != h]
    conn.executemany("UPDATE node_links SET subtree_hash = ? WHERE id = ?", changed)
    return len(changed)

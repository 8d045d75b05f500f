"""What every face shows of the forest: sessions, turns, branch points, moves, export and
import. Pure: no I/O. Re-exported by :mod:`arborist._views.results`, where the faces find them;
the rules of :mod:`arborist._views.results` hold here (fields inert and on one line).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from arborist._bundles.check import BundleReport
from arborist._facts import TurnFacts
from arborist._forest.nodes import Node, Session
from arborist._forest.render import format_node
from arborist._forest.shard import FindHit
from arborist._forest.transfer import ImportResult
from arborist._qa.standing import Standing
from arborist._text.terminal import gutter, inert
from arborist._views.common import facts_lines, field

__all__ = [
    "Audit",
    "branches_text",
    "bundle_json",
    "bundle_text",
    "export_jsonl",
    "find_text",
    "import_json",
    "import_text",
    "labelled_text",
    "moved_text",
    "node_text",
    "sessions_json",
    "sessions_text",
    "turn_json",
]

Audit = Callable[[Node], Standing]
"""The audit mode a turn can claim now, and why not (``Arborist.audit_now``)."""


# --- the forest ---------------------------------------------------------------------------------


def find_text(hits: Sequence[FindHit], audit: Audit) -> str:
    """One line per turn (bates, the mode it can claim now, question), then its snippet."""
    if not hits:
        return "no matches"
    lines = []
    for h in hits:
        lines.append(f"{h.node.bates}  [{audit(h.node).badge}]  {field(h.node.question)[:70]}")
        lines.append(f"   {field(h.snippet)}")
    return "\n".join(lines)


def turn_json(node: Node, now: Standing) -> dict[str, Any]:
    """A turn as every ``--json`` face shows it: its fields, then its standing now (the
    mode it can claim, why not, its support, and a withdrawn answer's state and reason)."""
    return {**node.as_json(), **now.as_json()}


def node_text(node: Node, facts: TurnFacts) -> str:
    """One turn whole: bates, parent, question, label, time and hashes, its facts as every
    face prints them (:func:`~arborist._views.common.facts_lines`: hit or miss, mode now,
    support, key, sources, what fitting left out), then the answer."""
    lines = [
        f"bates        {node.bates}",
        f"parent       {node.parent_bates or '(none: a session root)'}",
        f"question     {field(node.question)}",
        f"label        {field(node.label) or '(none)'}",
        f"created      {node.created_at}",
        f"node_hash    {node.node_hash}",
        f"subtree_hash {node.subtree_hash}",
        *facts_lines(facts, 12),
    ]
    if node.cited_titles:
        lines.append("cited        " + "; ".join(field(t) for t in node.cited_titles))
    if node.answer_text:
        lines += ["answer", gutter(inert(node.answer_text))]  # set apart, as an ask shows it
    return "\n".join(lines)


def branches_text(points: Sequence[tuple[Node, int]], session: Session, audit: Audit) -> str:
    """One line per branch point: its children, then the turn as the tree shows it."""
    if not points:
        return "no branch points"
    return "\n".join(
        f"{count} children  {format_node(node, session, audit=lambda n: audit(n).badge)}"
        for node, count in points
    )


def moved_text(node: Node) -> str:
    """Where ``cd`` or ``back`` moved the session."""
    return f"now at {node.bates}"


def labelled_text(node: Node) -> str:
    """The label a turn now carries."""
    return f"{node.bates} is now labelled {node.label!r}"


def export_jsonl(records: Iterable[Mapping[str, Any]]) -> str:
    """An export as JSON Lines, one record a line, keys sorted (``session --export``)."""
    return "\n".join(json.dumps(record, ensure_ascii=False, sort_keys=True) for record in records)


def import_text(done: ImportResult) -> str:
    """What an import added, what it found already present, and the sessions it held; the
    later states of records it carried over, and a line for each state it skipped."""
    records = "" if done.records is None else f"{done.records} record(s) kept apart as imported, "
    restated = f"{done.restated} later state(s) carried over, " if done.restated else ""
    return "\n".join(
        [
            f"imported {done.added} node(s), {done.already_present} already present, {records}"
            f"{restated}session(s) {', '.join(done.sessions) or '(none)'}",
            *done.skipped,
        ]
    )


def import_json(done: ImportResult) -> dict[str, Any]:
    records = {} if done.records is None else {"records": done.records}
    restated = {"restated": done.restated, "skipped": list(done.skipped)}
    return {
        "added": done.added,
        "already_present": done.already_present,
        "sessions": list(done.sessions),
        **records,
        **(restated if done.records is not None else {}),
    }


def sessions_text(sessions: Sequence[tuple[Session, int]]) -> str:
    """One line per session: sid, turns, last change, label."""
    if not sessions:
        return "no sessions"
    return "\n".join(
        f"{s.sid}  {n:>5} turn(s)  {s.updated_at}  {field(s.label)}".rstrip() for s, n in sessions
    )


def sessions_json(sessions: Sequence[tuple[Session, int]]) -> list[dict[str, Any]]:
    return [
        {
            "sid": s.sid,
            "label": s.label,
            "turns": n,
            "root_bates": s.root_bates,
            "current_bates": s.current_bates,
            "created_at": s.created_at,
            "updated_at": s.updated_at,
        }
        for s, n in sessions
    ]


def _bundle_heads(report: BundleReport) -> dict[str, str | None]:
    return {
        name: str(head) if (head := report.head(name)) else None for name in ("sessions", "store")
    }


def bundle_text(report: BundleReport, problems: Sequence[str], witnessed: int | None) -> str:
    """One line per problem; or, when all holds, what the bundle proves and each chain's
    head, with how many notebook heads its spans hold (``witnessed``, with --witness)."""
    if problems:
        return "\n".join(problems)
    heads = _bundle_heads(report)
    lines = [
        f"bundle  ok  {report.sessions} sessions, {report.turns} turns, {report.records} "
        f"records, {report.documents} documents, {report.chunks} chunks",
        *(
            f"{name}.db  span ends at checkpoint {head}" if head else f"{name}.db  no span"
            for name, head in heads.items()
        ),
    ]
    if witnessed is not None:
        lines.append(f"every witnessed head is in the bundle's spans ({witnessed})")
    return "\n".join(lines)


def bundle_json(report: BundleReport, problems: Sequence[str], witnessed: int) -> dict[str, Any]:
    """What ``verify --bundle`` found, as JSON."""
    return {
        "ok": not problems,
        "problems": list(problems),
        "sessions": report.sessions,
        "turns": report.turns,
        "records": report.records,
        "documents": report.documents,
        "chunks": report.chunks,
        "heads": _bundle_heads(report),
        "witnessed": witnessed,
    }

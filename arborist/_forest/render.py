"""Text views of the forest: a session's tree, its branch points, one node. Pure over rows.

A session's tree is its root's subtree, plus every subtree this session
grafted under another session's node (shown as grafted at that bates).
The synthetic root is collapsed; children minted by another session are
tagged ``[from <sid>]``. Walks are iterative: a 10,000-turn chain renders, and its
lines stay narrow: past :data:`DRAWN_LEVELS` levels a line draws the top levels, then its
depth as a number (``‹57›``), never a staircase as wide as the chain is long.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from arborist._forest.nodes import Node, Session, children, get_node
from arborist._text.terminal import inert

Audit = Callable[[Node], str]
"""The audit mode a turn can claim now, given the turn."""

__all__ = [
    "DRAWN_LEVELS",
    "TreeLine",
    "branch_points",
    "capped",
    "format_node",
    "render_tree",
    "tree_lines",
]

QUESTION_WIDTH = 70

DRAWN_LEVELS = 8
"""Levels of a tree line drawn as boxes; a deeper line says its depth instead (issue #35)."""


@dataclass(frozen=True)
class TreeLine:
    """One rendered line: its node, depth, prefix drawing, and whether it is a graft's head."""

    node: Node
    prefix: str
    graft_of: str | None


def _short(text: str, width: int = QUESTION_WIDTH) -> str:
    flat = inert(text, one_line=True)
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _subtree_lines(conn: sqlite3.Connection, top: Node, graft_of: str | None) -> list[TreeLine]:
    """Depth-first lines under ``top`` (``top`` itself excluded), with box-drawing prefixes."""
    lines: list[TreeLine] = []
    stack: list[tuple[Node, str, bool]] = []
    kids = children(conn, top.bates)
    for i, kid in reversed(list(enumerate(kids))):
        stack.append((kid, "", i == len(kids) - 1))
    while stack:
        node, indent, last = stack.pop()
        lines.append(TreeLine(node, capped(indent) + ("└── " if last else "├── "), graft_of))
        graft_of = None
        below = children(conn, node.bates)
        deeper = indent + ("    " if last else "│   ")
        for i, kid in reversed(list(enumerate(below))):
            stack.append((kid, deeper, i == len(below) - 1))
    return lines


def capped(indent: str) -> str:
    """A line's indent (four columns a level) kept to :data:`DRAWN_LEVELS` levels: a deeper
    one keeps the drawing of the levels above the last drawn one (the bars of their
    siblings), then says how deep the line is, ``‹57› `` (its turn's level under the root)."""
    levels = len(indent) // 4
    if levels < DRAWN_LEVELS:
        return indent
    return f"{indent[: 4 * (DRAWN_LEVELS - 1)]}‹{levels + 1}› "


def _grafts(conn: sqlite3.Connection, session: Session) -> list[Node]:
    """Nodes this session minted under another session's node, oldest first."""
    rows = conn.execute(
        "SELECT n.bates FROM nodes AS n JOIN nodes AS p ON p.bates = n.parent_bates "
        "WHERE n.sid = ? AND p.sid != ? ORDER BY n.seq",
        (session.sid, session.sid),
    ).fetchall()
    return [get_node(conn, bates) for (bates,) in rows]


def tree_lines(conn: sqlite3.Connection, session: Session) -> list[TreeLine]:
    """Every line of a session's tree: its root's subtree, then each graft."""
    lines = _subtree_lines(conn, get_node(conn, session.root_bates), None)
    for graft in _grafts(conn, session):
        parent = graft.parent_bates or ""
        lines.append(TreeLine(graft, "└── ", parent))
        for line in _subtree_lines(conn, graft, None):
            lines.append(TreeLine(line.node, "    " + line.prefix, None))
    return lines


def format_node(
    node: Node,
    session: Session,
    *,
    current: bool = False,
    audit: Audit,
    short: bool = False,
) -> str:
    """One node on one line: seq (or bates if foreign), question, mode, label, origin.

    ``audit`` gives what the turn can claim now (a store edited since, or an imported
    turn whose answer is not in this store, claims none; a withdrawn answer says its
    state): never the mode the turn stored, which proves nothing. ``short`` names the session's own turns
    as the widget and a notebook name them, ``#12``, not ``000012`` (another
    session's keep their bates)."""
    own = node.sid == session.sid
    name = (f"#{node.seq}" if short else f"{node.seq:06d}") if own else node.bates
    mode = audit(node)
    parts = [("* " if current else "") + name, _short(node.question), f"[{mode}]"]
    if node.label:
        parts.append(f"({inert(node.label, one_line=True)})")
    if node.sid != session.sid:
        parts.append(f"[from {node.sid}]")
    return "  ".join(parts)


def render_tree(
    conn: sqlite3.Connection, session: Session, *, audit: Audit, short: bool = False
) -> str:
    """The session's tree as text, the current node marked ``*`` (``audit`` and ``short``:
    see :func:`format_node`)."""
    header = f"session {session.sid}" + (
        f"  ({inert(session.label, one_line=True)})" if session.label else ""
    )
    out = [header]
    lines = tree_lines(conn, session)
    if not lines:
        out.append("(no turns yet)")
    for line in lines:
        if line.graft_of:
            out.append(f"grafted at {line.graft_of}:")
        current = line.node.bates == session.current_bates
        shown = format_node(line.node, session, current=current, audit=audit, short=short)
        out.append(line.prefix + shown)
    return "\n".join(out)


def branch_points(conn: sqlite3.Connection, session: Session) -> list[tuple[Node, int]]:
    """Nodes of the session's tree with two or more children, with their child counts."""
    rows = conn.execute(
        "SELECT parent_bates, count(*) FROM nodes WHERE parent_bates IS NOT NULL "
        "GROUP BY parent_bates HAVING count(*) >= 2"
    ).fetchall()
    shown = {line.node.bates for line in tree_lines(conn, session)} | {session.root_bates}
    return [(get_node(conn, bates), count) for bates, count in rows if bates in shown]

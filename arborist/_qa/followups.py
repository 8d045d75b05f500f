"""What a follow-up reads of the turns above it. Pure: no I/O of its own.

A question that does not stand alone (:func:`arborist._standalone.stands_alone`) borrows
words from its thread: the questions above it and the subjects of the titles they cited,
up to the nearest one that stands alone, each read under the turn it was asked under
(:func:`stands_under`; :func:`context`, :func:`sources`; the words enter no hash,
docs/retrieval.md). A threaded ask also puts the nearest
:data:`MAX_THREADED_TURNS` turns into its prompt and its key (:func:`threaded`).
:func:`read_above` climbs only as far as those need: an ask at depth 1,000 reads a few
nodes, not a thousand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from arborist._standalone.rule import stands_alone

if TYPE_CHECKING:
    from arborist._forest.nodes import Node

__all__ = [
    "MAX_KEYWORD_TITLES",
    "MAX_THREADED_TURNS",
    "context",
    "read_above",
    "sources",
    "stands_under",
    "threaded",
]

MAX_THREADED_TURNS = 6
"""How many earlier turns ``thread=True`` puts into the prompt."""

MAX_KEYWORD_TITLES = 12
"""How many cited titles of each turn above a follow-up it may borrow words from."""


def read_above(under: Node, thread: bool, parent: Callable[[str], Node]) -> list[Node]:
    """``under`` and the nodes above it, nearest first, each read by ``parent`` (its
    bates number to its node), as far as an ask reads them: to the nearest root or turn
    whose question stands alone (where :func:`context` ends), read under the turn above it
    (:func:`stands_under`, so that turn is read too) and, for a threaded ask, until
    :data:`MAX_THREADED_TURNS` turns are held (:func:`threaded`; these cross into the
    session forked from)."""
    path, seen = [under], {under.bates}
    context_ends = under.is_root
    while path[-1].parent_bates is not None and path[-1].parent_bates not in seen:
        turns = sum(not node.is_root for node in path)
        if context_ends and (not thread or turns >= MAX_THREADED_TURNS):
            break
        node = parent(path[-1].parent_bates)
        context_ends = context_ends or stands_under(path[-1], node)
        path.append(node)
        seen.add(node.bates)
        context_ends = context_ends or node.is_root
    return path


def stands_under(node: Node, above: Node | None) -> bool:
    """Whether ``node``'s question stands alone, read under ``above``, the node it was asked
    under (its parent), whose question :func:`arborist._standalone.stands_alone` reads with it
    unless it is a root (a session's root asks nothing) or unknown (None)."""
    asked = None if above is None or above.is_root else above.question
    return stands_alone(node.question, asked)


def threaded(path: Sequence[Node]) -> list[tuple[str, str]]:
    """The earlier turns on ``path`` a threaded ask puts into its prompt, oldest first."""
    turns = [(n.question, n.answer_text) for n in reversed(path) if not n.is_root]
    return turns[-MAX_THREADED_TURNS:]


def context(path: Sequence[Node]) -> list[str]:
    """What a follow-up may borrow from the turns above it (nearest first): each turn's
    question and the subjects of the titles it cited, up to and including the nearest
    turn whose question stands alone (the start of the thread), each read under the node
    above it on ``path`` (:func:`stands_under`). The first is the question the follow-up is
    asked under: its own reading takes it as its turn above."""
    texts: list[str] = []
    for k, node in enumerate(path):
        if node.is_root:
            break
        texts.append(node.question)
        texts += [title.split(" — ")[0] for title in node.cited_titles[:MAX_KEYWORD_TITLES]]
        if stands_under(node, _above(path, k)):
            break
    return texts


def sources(path: Sequence[Node]) -> list[str]:
    """The titles the turns of a follow-up's thread cited (see :func:`context`)."""
    titles: list[str] = []
    for k, node in enumerate(path):
        if node.is_root:
            break
        titles += [t for t in node.cited_titles[:MAX_KEYWORD_TITLES] if t not in titles]
        if stands_under(node, _above(path, k)):
            break
    return titles


def _above(path: Sequence[Node], k: int) -> Node | None:
    """The node above ``path[k]`` on ``path`` (nearest first), None past its top."""
    return path[k + 1] if k + 1 < len(path) else None

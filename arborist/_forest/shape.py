"""What a turn an honest writer made looks like: the one rule import refuses by and verify
reports by. Pure.

Two paths write turns, and only two. :func:`~arborist._forest.shard.create_session` writes a
session's synthetic root: seq 0, no parent, no question, answer, cache key, cited titles or
creation label, audit mode ``ROOT``. :func:`~arborist._forest.shard.insert_turn`, called by
the ask alone, writes every other turn from the cache record it answered with: under a
parent, with the record's question (never empty), its cache key (a SHA-256, 64 lowercase
hex digits) and its audit mode (``STRICT``, ``HYBRID`` or ``VISUAL``). A turn of any other
shape was forged or edited: an import refuses it, ``arborist verify`` names it, and since
no record can vouch for it (an empty or malformed key names none) no face may let it claim
a mode.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from arborist._forest.bates import format_bates, parse_bates
from arborist._forest.nodes import ROOT_AUDIT_MODE
from arborist._qa.standing import is_cache_key  # the faces' rule: one key shape for all
from arborist._store.search import AUDIT_MODES

__all__ = [
    "STORED_TIME",
    "TURN_MODES",
    "first_gap",
    "is_honest_turn",
    "is_stored_time",
    "older_than_parent",
    "order_problems",
    "past_gap",
    "shape_problem",
    "time_problem",
]

TURN_MODES = AUDIT_MODES
"""The audit modes an answer is given in, and so the only ones a turn (not a root) holds."""

_MODES = frozenset(TURN_MODES)

STORED_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")
"""A time as arborist stores and hashes it (:mod:`arborist._clock`)."""


def is_honest_turn(
    seq: object, parent: object, question: object, key: object, mode: object
) -> bool:
    """Whether a turn (not a root) has an honest writer's shape: the quick test
    ``arborist verify`` makes of every turn before it asks :func:`shape_problem` why not
    (the same rule: a parent, a key's shape, an answer's mode, a question)."""
    return (
        seq != 0
        and parent is not None
        and mode in _MODES
        and type(question) is str
        and not question.isspace()
        and question != ""
        and is_cache_key(key)
    )


def shape_problem(
    *,
    seq: object,
    parent: object,
    question: object,
    answer: object,
    key: object,
    mode: object,
    titles: object,
    created_label: object,
) -> str | None:
    """Why a turn with these fields is none an honest writer makes (a phrase to follow
    ``turn <bates>:``), or None. ``titles`` as stored: the JSON text of a list (``"[]"``
    for none)."""
    if seq == 0 or parent is None:
        held = (question, answer, key, titles, created_label)
        return _first(
            (seq != 0, "it is not its session's root (seq 0), yet it has no parent"),
            (parent is not None, "a session's root (seq 0) has no parent, yet it names one"),
            (
                held != ("", "", "", "[]", None),
                "a session's root holds no question, answer, cache key, cited title or label",
            ),
            (
                mode != ROOT_AUDIT_MODE,
                f"a session's root has the audit mode {ROOT_AUDIT_MODE}, and it has another",
            ),
        )
    what = "empty" if key == "" else "not a cache key (64 lowercase hex digits)"
    return _first(
        (not is_cache_key(key), f"its cache key is {what}: no answer can vouch for it"),
        (
            mode not in TURN_MODES,
            f"its audit mode is none an answer is given in ({', '.join(TURN_MODES)})",
        ),
        (not isinstance(question, str) or not question.strip(), "its question is empty"),
    )


def older_than_parent(created_at: object, parent_created_at: object) -> str | None:
    """Why a turn created at ``created_at`` under a parent created at ``parent_created_at``
    is none an honest writer makes (a phrase to follow ``turn <bates>:``), or None.

    A turn is asked under a turn that exists, and its hash commits its parent's, so it is
    never older than its parent (times in the stored form compare as text). A backdated
    turn would read as having shown an answer's revision older than any it could have:
    import refuses it and ``arborist verify`` names it. Times not both text are left to
    the other checks (their hash names an edit)."""
    return time_problem(created_at, parent=parent_created_at)


def time_problem(
    created_at: object, *, parent: object = None, before: object = None, recorded: object = None
) -> str | None:
    """Why a turn's time is none an honest writer gives it (a phrase to follow ``turn
    <bates>:``), or None: the one rule of time import refuses by and verify reports by.

    ``parent``: its parent's time; ``before``: the time of the turn numbered just before it
    in its session (seq − 1); ``recorded``: the time of the event that wrote it into this
    home (its ``node_insert``, or its session's ``session_create`` or ``session_import``).
    An ask takes the latest of now, its parent's time and its session's last turn's
    (:func:`~arborist._forest.shard.insert_turn`) and records its event at that time, so
    a session's times never go back along its seqs; an import records its events at the
    import's time, so a turn it brings is never dated after that. A turn dated later was
    dated by hand: one from the future sorts after every turn asked since, one backdated
    before its session's last turn reads as asked before answers it came after. Times not
    all text are left to the other checks (their hash names an edit)."""
    if type(created_at) is not str:
        return None
    if type(parent) is str and created_at < parent:
        return "it is older than its parent (its created_at is before its parent's)"
    if type(before) is str and created_at < before:
        return (
            "it is older than the turn before it in its session (its created_at is before "
            "that turn's)"
        )
    if type(recorded) is str and created_at > recorded:
        return f"it is dated after it was recorded here ({recorded}): its time is in the future"
    return None


def is_stored_time(text: object) -> bool:
    """Whether ``text`` is a time as arborist stores and hashes it (:mod:`arborist._clock`):
    only such times compare in time order as text, which :func:`older_than_parent` does."""
    return type(text) is str and STORED_TIME.fullmatch(text) is not None


def first_gap(seqs: Collection[int]) -> int | None:
    """The lowest seq below the highest of ``seqs`` (a session's, each once: a set) that
    they lack, or None. A session hands out its seqs one after another, so an honest one
    holds 0..n: a turn numbered past a gap (999999, say) would make its session "full" for
    its owner, and renumbering it would change its node hash (the bates is hashed)."""
    return next((seq for seq in range(len(seqs)) if seq not in seqs), None)


def past_gap(seqs: Collection[int]) -> tuple[int, str] | None:
    """The turn a session holding ``seqs`` is named by when they have a gap (the first seq
    past it) and the phrase that names the gap, or None (:func:`first_gap`)."""
    gap = first_gap(seqs)
    if gap is None:
        return None
    return min((seq for seq in seqs if seq > gap), default=max(seqs)), (
        f"it is numbered past a gap: its session holds no turn {gap:06d} (a session numbers "
        "its turns one after another)"
    )


def order_problems(turns: Iterable[tuple[str, object, object]]) -> list[tuple[str, str]]:
    """Each turn of whole sessions that breaks their order, as ``(bates, phrase)`` in the
    turns' order: ``turns`` are ``(bates, parent_bates, created_at)``, each bates well
    formed. A turn older than its parent among them, or than the turn numbered before it
    in its session (:func:`time_problem`), and in each session whose seqs have a gap the
    first turn past it (:func:`past_gap`): the rule
    ``arborist verify`` and ``import`` hold a home's turns to, and ``verify --bundle``,
    ``export --bundle`` and the page (js/src/turn_order.js, held to the same vectors:
    tests/vectors/turn_order.json) a bundle's."""
    turns = list(turns)
    times = {bates: created for bates, _parent, created in turns}
    seqs: dict[str, set[int]] = {}
    for bates, _parent, _created in turns:
        sid, seq = parse_bates(bates)
        seqs.setdefault(sid, set()).add(seq)
    gaps = {}
    for sid, held in seqs.items():
        found = past_gap(held)
        if found is not None:
            gaps[format_bates(sid, found[0])] = found[1]
    problems = []
    for bates, parent, created in turns:
        sid, seq = parse_bates(bates)
        before = times.get(format_bates(sid, seq - 1)) if seq > 0 else None
        above = times.get(parent) if isinstance(parent, str) else None
        older = time_problem(created, parent=above, before=before)
        if older is not None:
            problems.append((bates, older))
        if bates in gaps:
            problems.append((bates, gaps[bates]))
    return problems


def _first(*checks: tuple[bool, str]) -> str | None:
    """The reason of the first check that fails, or None."""
    return next((reason for failed, reason in checks if failed), None)

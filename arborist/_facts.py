"""A turn's facts, computed once: what every face of a turn shows, and only formats.

A turn is shown by the CLI (``ask``, ``show``; their ``--json``), the REPL and
``%arborist`` (through the same commands), ``%%ask`` (text, Markdown, HTML) and the
forest widget's detail pane. Each used to work its facts out itself, and they drifted
apart (issue #36): ``%%ask`` printed neither the retrieval lanes nor the ``fitted`` line,
nor the sources it did not cite; ``show`` printed neither hit nor miss; the widget told
where an answer was first paid for by one rule and ``%%ask`` by another. Here they are
worked out once, in :class:`TurnFacts`, from what the stores hold of the turn: its node,
its standing now (:mod:`arborist._qa.standing`: the audit mode it can claim, why not, its
support, its answer's state and why), the record revision it showed, and the turn that
paid for that revision. The facade gathers those (``Arborist.facts``); this module
only computes, and reads nothing.

:func:`fact_rows` is the facts in words, one ``(name, value)`` a line, then come the
sources and the ``fitted`` line: a face lays them out (a terminal pads the names, HTML puts them in a table) but
says no fact that is not here, and leaves out none that is. Untrusted text (the question,
titles, URIs, a reason) is in them as stored: each face makes it inert or escapes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arborist._forest.nodes import Node
from arborist._proofs.keys import DIMENSION_WORDS
from arborist._qa.policy import retrieval_keywords
from arborist._qa.standing import STATE_WORDS, UNREASONED, Standing
from arborist._qa.support import (
    AUDIT_PROMISES,
    BADGE_WORDS,
    ROW_WORDS,
    SUPPORT_MARKS,
    SUPPORT_MEANINGS,
    Support,
    audit_key,
    measure_record,
    row_key,
)
from arborist._store.cache.records import CacheRecord, RecordEvidence

__all__ = [
    "EARLIER",
    "HIT",
    "IMPORTED",
    "MISS",
    "SERVED_MEANINGS",
    "Source",
    "TurnFacts",
    "answer_facts",
    "fact_rows",
    "fit_text",
    "turn_facts",
    "vocabulary",
]

MISS = "miss"
"""Served by a model call this turn paid for."""
HIT = "hit"
"""Served from the cache: an earlier turn paid for the answer."""
IMPORTED = "imported"
"""Answered in another home and imported with its record from a bundle: never served here
(:mod:`arborist._store.cache.imported`)."""
EARLIER = "earlier revision"
"""Answered by a revision of the record written after the turn (an imported turn, a turn
older than every revision here)."""

SERVED_MEANINGS = {
    MISS: "miss: this turn paid for the answer (the model was called)",
    HIT: "hit: served from the cache, no model call (same question, evidence, model and policy)",
    EARLIER: "answered by a revision of the record since falsified",
    IMPORTED: "imported: answered in another home, its record kept apart and never served here",
}
"""What each ``served`` value means, for a badge's tooltip."""


@dataclass(frozen=True)
class Source:
    """One evidence item of the answer: its label, whether the answer cites it, the title
    with its place, the URI opening at that place, its chunk, and the lane that found it
    (``lexical``, ``vector``, ``related``; None when the ask was lexical alone). ``checked``
    is what its row says was checked once its proof holds, by its key
    (:func:`~arborist._qa.support.row_key`: ``quoted``, ``unquoted``, ``uncited``), whose
    words are :func:`vocabulary`'s (the widget's detail looks them up by it)."""

    label: str
    cited: bool
    title: str
    uri: str
    chunk_index: int
    chunk_count: int
    lane: str | None
    leaf: str
    tier: str
    checked: str

    def as_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "cited": self.cited,
            "title": self.title,
            "uri": self.uri,
            "chunk_index": self.chunk_index,
            "chunk_count": self.chunk_count,
            "lane": self.lane,
            "leaf": self.leaf,
            "tier": self.tier,
            "checked": self.checked,
        }


@dataclass(frozen=True)
class TurnFacts:
    """Everything a face says of one turn. ``mode`` is the audit mode the turn can claim now
    (``NONE`` with ``mode_reason`` when it cannot), ``audit`` that in the words every face
    says it in (with a withdrawn answer's state and reason), ``support`` how well its cited
    passages cover its question (while it holds), ``state``/``state_reason`` the state of
    the answer's revision now (the reason only while it is out of service).

    ``served`` is ``miss`` (this turn paid for the answer), ``hit`` (served from the cache:
    ``first_bates`` paid for it, at ``first_at``), ``earlier revision`` or ``imported``
    (answered in another home, its record imported from a bundle); None when no
    record here holds the turn's answer (a session's root, an imported turn): then the
    record's facts (``revision``, ``hits``, ``sources``, ``fitted``...) are empty too.
    ``elapsed_ms`` and ``replaces`` are known only to the ask that made the turn (how long
    it took; for a miss that answered a key again, the revision out of service it took
    the place of); every later showing of the turn leaves them None."""

    bates: str
    sid: str
    seq: int
    question: str
    answer: str
    mode: str
    mode_reason: str | None
    audit: str
    support: Support | None
    state: str | None
    state_reason: str | None
    served: str | None
    first_bates: str | None
    first_at: str | None
    revision: int | None
    hits: int | None
    keywords: str | None
    fitted: str | None
    sources: tuple[Source, ...]
    cache_key: str
    node_hash: str
    subtree_hash: str
    record_hash: str | None
    elapsed_ms: float | None = None
    replaces: str | None = None

    @property
    def badge(self) -> str:
        """The key of the audit badge a face shows (:func:`~arborist._qa.support.audit_key`):
        ``STRICT-unquoted`` for a STRICT answer that quotes nothing it cites, else the mode;
        its words are :func:`vocabulary`'s (the widget's detail looks them up by it)."""
        return audit_key(self.mode, self.support)

    @property
    def lanes(self) -> tuple[str | None, ...]:
        """The lane that found each source, in order (all None for a lexical ask)."""
        return tuple(s.lane for s in self.sources)

    @property
    def cache(self) -> str | None:
        """Hit or miss, and where and when it was first paid for, in one line (None: no
        record holds the answer)."""
        if self.served == MISS and self.elapsed_ms is not None:
            replaces = f"; replaces {self.replaces}" if self.replaces else ""
            return f"miss (answered now in {self.elapsed_ms:.0f} ms{replaces})"
        if self.served == MISS:
            return f"miss (answered by this turn, {self.first_at})"
        if self.served == HIT:
            by = f" at {self.first_bates}," if self.first_bates else ""
            return f"hit (first answered{by} {self.first_at}, {self.hits} hit(s))"
        if self.served == EARLIER:
            return f"earlier revision (revision {self.revision}, written {self.first_at})"
        if self.served == IMPORTED:
            return (
                f"imported (answered in another home: its revision {self.revision}, written "
                f"{self.first_at}; kept apart, never served here)"
            )
        return None

    def as_json(self) -> dict[str, Any]:
        """The facts as plain data: what every ``--json`` face and the widget carry."""
        return {
            "bates": self.bates,
            "sid": self.sid,
            "seq": self.seq,
            "question": self.question,
            "answer": self.answer,
            "audit_now": self.mode,
            "audit_reason": self.mode_reason,
            "audit": self.audit,
            "badge": self.badge,
            "support": self.support.as_json() if self.support else None,
            "state": self.state,
            "state_reason": self.state_reason,
            "served": self.served,
            "cache": self.cache,
            "first_answered": None
            if self.served is None
            else {
                "bates": self.first_bates,
                "created_at": self.first_at,
                "revision": self.revision,
            },
            "hits": self.hits,
            "elapsed_ms": None if self.elapsed_ms is None else round(self.elapsed_ms, 3),
            "replaces": self.replaces,
            "retrieval_keywords": self.keywords,
            "lanes": list(self.lanes),
            "fitted": self.fitted,
            "sources": [s.as_json() for s in self.sources],
            "cache_key": self.cache_key,
            "revision": self.revision,
            "node_hash": self.node_hash,
            "subtree_hash": self.subtree_hash,
            "record_hash": self.record_hash,
        }


def _source(item: RecordEvidence, lane: object, answer: str) -> Source:
    return Source(
        label=item.label,
        cited=item.cited,
        title=item.placed_title,
        uri=item.link,
        chunk_index=item.chunk_index,
        chunk_count=item.chunk_count,
        lane=lane if isinstance(lane, str) else None,
        leaf=item.leaf,
        tier=item.tier,
        checked=row_key(item.text, answer, item.label, item.cited),
    )


def _sources(record: CacheRecord) -> tuple[Source, ...]:
    """The record's evidence as sources, each with the lane that found it."""
    lanes = zip(record.evidence, _lanes(record), strict=True)
    return tuple(_source(e, lane, record.answer_text) for e, lane in lanes)


def _lanes(record: CacheRecord) -> list[object]:
    """Which lane found each evidence item, when the record names them (a hybrid ask, or one
    with a co-access lane); None for each item otherwise."""
    lanes = record.response.get("retrieval_lanes")
    if isinstance(lanes, list) and len(lanes) == len(record.evidence):
        return list(lanes)
    return [None] * len(record.evidence)


def fit_text(record: CacheRecord) -> str | None:
    """What a prompt fitted to the model's context left out, in one line; None when all that
    was found was sent. What was sent is committed: the record's evidence (its hash) and the
    cut chunk named in its policy (the key). How many were found and the window's size are
    the response's metadata (``prompt_budget``: :mod:`arborist._qa.budget`), which no hash
    covers, so they are said as the record's note."""
    fit = record.response.get("prompt_budget")
    if not isinstance(fit, dict):
        return None
    retrieved, window = fit.get("evidence_retrieved"), fit.get("context_tokens")
    trimmed = record.policy.get("evidence_trimmed")
    cut = isinstance(trimmed, dict) and isinstance(trimmed.get("label"), str)
    sent = len(record.evidence)
    if not (isinstance(retrieved, int) and isinstance(window, int)) or (
        sent >= retrieved and not cut
    ):
        return None
    said = f"{sent} passage(s) sent"
    if cut and isinstance(trimmed, dict):
        chars = trimmed.get("chars")
        shown = f"its first {chars:,} characters" if isinstance(chars, int) else "a part"
        said += f", {trimmed['label']} cut to {shown}"
    return said + f" (the record notes {retrieved} found, a {window:,}-token context)"


def _served(
    bates: str,
    node: Node | None,
    record: CacheRecord | None,
    first: tuple[str, str] | None,
    asked: tuple[bool, float] | None,
) -> tuple[str | None, str | None]:
    """Hit or miss (None without a record), and the turn that paid for the record's answer
    (None when no turn here did): the rule every face reads (see :func:`turn_facts`)."""
    if record is None:
        return None, None
    if record.state == IMPORTED:  # no turn here paid for it, and no ask here is served it
        return IMPORTED, None
    served = MISS
    if node is not None and node.created_at < record.created_at:
        served = EARLIER
    elif node is not None and first is not None and first[0] != node.bates:
        served = HIT
    if asked is not None and served != EARLIER:
        served = HIT if asked[0] else MISS
    answered_by = first[0] if first is not None else (bates or None if served == MISS else None)
    if served == HIT and answered_by == bates:  # an ask served from a record no turn paid for
        answered_by = None
    return served, answered_by


def turn_facts(
    node: Node | None,
    now: Standing,
    record: CacheRecord | None,
    first: tuple[str, str] | None = None,
    *,
    asked: tuple[bool, float] | None = None,
    replaces: str | None = None,
) -> TurnFacts:
    """The facts of turn ``node``: ``now`` its standing (``Arborist.audit_now``), ``record``
    the revision of its answer it showed (None when this home holds none), ``first`` the
    ``(bates, created_at)`` of the first turn holding that revision's key since it was
    written (who paid for it). ``asked``: ``(hit, elapsed_ms)`` of the ask that just made the
    turn, and ``replaces``: what only that ask knows (see :class:`TurnFacts`); its hit or
    miss is its own (a record an ask wrote without a turn has no turn that paid for it)."""
    if node is not None:
        turn = (
            node.bates,
            node.sid,
            node.seq,
            node.question,
            node.answer_text,
            node.cache_key,
            node.node_hash,
            node.subtree_hash,
        )
    elif record is not None:
        turn = ("", "", 0, record.question, record.answer_text, record.cache_key, "", "")
    else:
        raise ValueError("the facts of nothing: neither a turn nor a record")
    bates, sid, seq, question, answer, key, node_hash, subtree_hash = turn
    served, answered_by = _served(bates, node, record, first, asked)
    return TurnFacts(
        bates=bates,
        sid=sid,
        seq=seq,
        question=question,
        answer=answer,
        mode=now.mode,
        mode_reason=now.reason,
        audit=now.words,
        support=now.support,
        state=now.state,
        state_reason=now.state_reason if now.withdrawn else None,
        served=served,
        first_bates=answered_by,
        first_at=record.created_at if record is not None else None,
        revision=record.revision if record is not None else now.revision,
        hits=record.hit_count if record is not None else None,
        keywords=retrieval_keywords(record.policy) if record is not None else now.keywords,
        fitted=fit_text(record) if record is not None else None,
        sources=_sources(record) if record is not None else (),
        cache_key=key or "",
        node_hash=node_hash,
        subtree_hash=subtree_hash,
        record_hash=record.record_hash if record is not None else None,
        elapsed_ms=asked[1] if asked is not None else None,
        replaces=replaces,
    )


def answer_facts(record: CacheRecord, *, hit: bool, elapsed_ms: float) -> TurnFacts:
    """The facts of an answer no turn holds (``Arborist.ask`` writes none): the record's
    own mode, support and state, as the ask that wrote or served it has them; no bates,
    session or node hashes, and no turn that paid for it."""
    now = Standing(
        record.audit_mode,
        revision=record.revision,
        support=measure_record(record),
        state=record.state,
        state_reason=record.state_reason,
        keywords=retrieval_keywords(record.policy),
    )
    return turn_facts(None, now, record, None, asked=(hit, elapsed_ms))


def fact_rows(facts: TurnFacts) -> list[tuple[str, str]]:
    """The facts every face shows of a turn beside its answer, in words, one ``(name,
    value)`` a line: hit or miss and who paid, the audit mode now (and a withdrawn answer's
    state and reason), the support, the key, the words added to retrieval. The sources and
    the ``fitted`` line follow (:attr:`TurnFacts.sources`, :attr:`TurnFacts.fitted`)."""
    rows = [*([("cache", cache)] if (cache := facts.cache) else []), ("audit", facts.audit)]
    if facts.support is not None and facts.mode_reason is None:
        rows.append(("support", facts.support.text()))
    rows.append(("key", facts.cache_key or "(none)"))
    if facts.keywords:
        rows.append(("keywords", f"{facts.keywords} (added to retrieval)"))
    return rows


def vocabulary() -> dict[str, Any]:
    """The words a face that only formats (the widget's script, the bundle's page) says the
    kernel's keys in, sent to it once: each badge key (:func:`~arborist._qa.support.audit_key`)
    with its words, its tooltip (the words and the mode's promise) and its one-letter mark;
    each support level's meaning and mark; each ``served`` value's meaning; the legend of
    the marks; what each evidence row's key (:attr:`Source.checked`) says was checked; each
    cache-key dimension, in order, as a reader names it and what it binds; each state of an
    answer out of service, and what is said where its reason is not at hand. A key it does
    not hold is shown as given."""
    audit = {}
    for key in (*BADGE_WORDS, *(m for m in AUDIT_PROMISES if m not in BADGE_WORDS)):
        mode = key.split("-", 1)[0]
        words, promise = BADGE_WORDS.get(key, key), AUDIT_PROMISES.get(mode, mode)
        title = words if words == promise else f"{words}. {promise}"
        audit[key] = {"words": words, "title": title, "mark": key[0]}
    support = {
        level: {"title": SUPPORT_MEANINGS[level], "mark": SUPPORT_MARKS[level]}
        for level in SUPPORT_MEANINGS
    }
    legend = (
        "S strict: cited bytes proved (quotes verified where the answer quotes them) · "
        "H hybrid: sources proved · V visual: shown only · "
        f"{' '.join(SUPPORT_MARKS.values())} the question covered, partly, not answered"
    )
    return {
        "audit": audit,
        "support": support,
        "served": dict(SERVED_MEANINGS),
        "legend": legend,
        "rows": dict(ROW_WORDS),
        "dimensions": [[key, name, what] for key, (name, what) in DIMENSION_WORDS.items()],
        "states": dict(STATE_WORDS),
        "unreasoned": UNREASONED,
    }

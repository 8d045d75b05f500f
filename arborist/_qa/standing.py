"""The audit mode a turn can claim now, and why not: the check behind every face's label.

A turn (a node of sessions.db) keeps its own copy of what it showed: the
answer text, the titles it cited and the audit mode it was answered with. Its
``node_hash`` commits none of the answer (the hash rule is the seeds'); what
binds them is the cache record its ``cache_key`` names in store.db. So a turn
may claim its audit mode only while all of this holds, rechecked whenever it is
shown (tree, find, show, the widget, ``--json``):

* store.db holds a record under the turn's key whose answer is the turn's
  answer (the revision it showed: a key's later revisions answer otherwise);
* that record holds now (:func:`arborist._qa.check.check_record`): its own hash,
  its evidence root, every proof and stored text, and every evidence document's
  title and URI against its ``document_add`` event;
* the turn's question is the record's (its normalized hash is the key's
  ``question_hash``: the label and the support are never shown beside a question
  the answer was not given to), its cited titles are the titles of the record's
  cited documents, in rank order, and its audit mode is the record's.

Otherwise the turn claims ``NONE``, with the reason in one line. A turn whose key is
empty, missing or not a key arborist makes (64 lowercase hex digits) names no record at
all: it claims ``NONE`` by :func:`unchecked`, whatever mode it stored; only a session's
root claims nothing to check (``ROOT``). A turn that holds
also carries how well its cited evidence covers its question
(:mod:`arborist._qa.support`: answered, partly, not answered), measured on the
record it holds by: the audit mode says the quotes are authentic, the support
whether they are about what was asked. A turn
imported from another home whose record is not here claims ``NONE`` as
"not verifiable here", never its exported mode.

A turn whose answer no record of this home holds, but a record imported from a bundle
does (:mod:`arborist._store.cache.imported`), is held to that record the same way and
claims its mode with the state ``imported`` and its reason: every face says it was
answered elsewhere and is never served here. This home's own record of the key, when it
holds the turn's answer, always decides first.

A turn also carries the state now of the record revision it showed (:attr:`Standing.state`)
and why it is out of service: an answer falsified (``failed``), made ``stale`` or
``quarantined`` keeps its audit mode (its quoted bytes may still verify), but every face
shows the state and its reason beside that mode, never the mode alone.
"""

from __future__ import annotations

import re
import sqlite3
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from arborist._database.db import rows_in
from arborist._forest.nodes import ROOT_AUDIT_MODE
from arborist._proofs.hashing import question_hash
from arborist._qa.check import check_record
from arborist._qa.policy import retrieval_keywords
from arborist._qa.support import Support, audit_words, measure_record
from arborist._store.cache.imported import IMPORTED
from arborist._store.cache.imported_reads import imported_keys, imported_shown, load_imported
from arborist._store.cache.records import (
    FAILED,
    OK,
    QUARANTINED,
    STALE,
    CacheRecord,
    RecordEvidence,
    load_record,
)
from arborist._text.terminal import inert

__all__ = [
    "BAD_KEY",
    "DIFFERS",
    "NOT_HERE",
    "NO_CLAIM",
    "NO_KEY",
    "STATE_WORDS",
    "Standing",
    "Standings",
    "TurnFields",
    "UNREASONED",
    "cited_titles",
    "contradictions",
    "is_cache_key",
    "standing",
    "standings",
    "state_words",
    "unchecked",
]

NO_CLAIM = "NONE"
"""The audit mode of a turn that can prove nothing here."""

NOT_HERE = (
    "its answer is not in this home's store (imported, or the store was replaced): "
    "not verifiable here"
)
DIFFERS = "its answer differs from every answer stored under its cache key"
NO_KEY = "it has no cache key: no answer in this home's store vouches for it"
BAD_KEY = "its cache key is not one arborist makes: no answer in this home's store vouches for it"

STATE_WORDS = {
    FAILED: "answer failed",
    STALE: "answer stale",
    QUARANTINED: "answer quarantined",
    IMPORTED: "answer imported",
}
"""The state of an answer out of service in words, before its reason (``answer failed: the
year is wrong``): ``show``'s and ``ask``'s audit line, ``%%ask``'s status line, ``record
show`` and the widget's state badges, which are sent them (:func:`arborist._facts.vocabulary`).
A state not here is said as it is."""

UNREASONED = "(open the turn for why)"
"""Said after a state whose reason a face does not hold (a widget row that learned the state
from a sync, which carries no reason): where the reason is."""


def state_words(state: str, reason: str | None) -> str:
    """``answer failed: REASON`` (:data:`STATE_WORDS`), or the words alone without a reason;
    ``reason`` is untrusted text, as stored: each face makes it inert or escapes it."""
    said = STATE_WORDS.get(state, state)
    return f"{said}: {reason}" if reason else said


_KEY_SHAPE = re.compile(r"[0-9a-f]{64}")
"""A cache key as :func:`arborist._proofs.hashing.cache_key` makes it: a lowercase SHA-256 hex digest."""


def is_cache_key(value: object) -> bool:
    """Whether ``value`` has the shape of a key arborist makes (64 lowercase hex digits)."""
    return isinstance(value, str) and _KEY_SHAPE.fullmatch(value) is not None


@dataclass(frozen=True)
class Standing:
    """What a turn can claim now: ``mode`` (its own, or ``NONE``) and, for ``NONE``, why.

    ``revision`` is the record revision whose answer the turn showed (None when none);
    ``conflict`` says the turn contradicts what this home holds under its key (another
    answer, other cited titles or another mode): what an import refuses. ``support`` is
    how well the held record's cited evidence covers its question (None when the turn
    claims nothing, or a cited passage is cold). ``state`` is that revision's state now
    (``ok``, ``failed``, ``stale``, ``quarantined``; None when no revision is found) and
    ``state_reason`` why it was taken out of service (untrusted text: faces escape it).
    ``keywords``: the words its ask added to retrieval (``--retrieval-keywords``), as
    that revision's policy names them (None when none were). ``imported``: the row id of the
    imported record the turn is held to (state ``imported``; ``revision`` is then None: no
    revision of this home's answered it)."""

    mode: str
    reason: str | None = None
    revision: int | None = None
    conflict: bool = False
    support: Support | None = None
    state: str | None = None
    state_reason: str | None = None
    keywords: str | None = None
    imported: int | None = None

    @property
    def holds(self) -> bool:
        return self.reason is None

    @property
    def withdrawn(self) -> bool:
        """Whether the answer the turn showed is out of service (falsified, stale,
        quarantined): what every face says beside its mode."""
        return self.state is not None and self.state != OK

    @property
    def state_text(self) -> str | None:
        """``answer failed: REASON`` (:func:`state_words`) for a withdrawn answer, one line
        and inert; None otherwise."""
        if not self.withdrawn:
            return None
        return inert(state_words(str(self.state), self.state_reason), one_line=True)

    @property
    def text(self) -> str:
        """The mode, why it is ``NONE``, and a withdrawn answer's state and reason, in one
        inert line: ``STRICT, answer failed: the year is wrong`` (``show``, ``%%ask``)."""
        said = self.mode if self.reason is None else f"{self.mode}: {self.reason}"
        if self.withdrawn:
            said += f", {self.state_text}"
        return inert(said, one_line=True)

    @property
    def words(self) -> str:
        """:attr:`text` with the mode in the words every face says it in
        (:func:`~arborist._qa.support.audit_words`: ``quotes verified (STRICT)`` only when
        the answer quotes what it cites): ``show``'s audit line."""
        if self.reason is not None:
            return self.text
        said = inert(audit_words(self.mode, self.support), one_line=True)
        return f"{said}, {self.state_text}" if self.withdrawn else said

    @property
    def badge(self) -> str:
        """The mode and, while it holds, the support level: ``STRICT partly`` (a tree line, a
        search hit); for a withdrawn answer its state and reason instead of the support:
        ``STRICT failed: the year is wrong``. One inert line."""
        if self.withdrawn:
            said = f"{self.state}: {self.state_reason}" if self.state_reason else str(self.state)
            return inert(f"{self.mode} {said}", one_line=True)
        return f"{self.mode} {self.support.level}" if self.support else self.mode

    def as_json(self) -> dict[str, object]:
        """What every ``--json`` face says of a turn's standing, beside the turn's fields."""
        return {
            "audit_now": self.mode,
            "audit_reason": self.reason,
            "support": self.support.as_json() if self.support else None,
            "state": self.state,
            "state_reason": self.state_reason if self.withdrawn else None,
            "retrieval_keywords": self.keywords,
        }


def cited_titles(record_evidence: Sequence[RecordEvidence]) -> list[str]:
    """The titles a turn records for a record's answer: each cited document's, once, in rank
    order (what a fresh ask stores in the node)."""
    return list(dict.fromkeys(e.title for e in record_evidence if e.cited))


def unchecked(is_root: bool, cache_key: object) -> Standing | None:
    """The standing of a turn no record decides, or None for every other turn: a session's
    root claims nothing to check (``ROOT``, whatever it stored), and a turn whose key is
    empty, missing or not a key arborist makes claims ``NONE``, whatever mode it stored
    (no record vouches for it). The one rule every face reads before the store."""
    if is_root:
        return Standing(ROOT_AUDIT_MODE)
    if cache_key is None or cache_key == "":
        return Standing(NO_CLAIM, NO_KEY)
    if not is_cache_key(cache_key):
        return Standing(NO_CLAIM, BAD_KEY)
    return None


def standing(
    conn: sqlite3.Connection,
    *,
    cache_key: str,
    question: str,
    answer_text: str,
    cited: Sequence[str],
    audit_mode: str,
    asked_at: str | None = None,
) -> Standing:
    """The audit mode a turn with these fields can claim now over store ``conn``, with the
    state of the revision it showed. ``asked_at`` (when the turn was recorded) picks that
    revision among those with its answer: the latest written by then (a key answered
    again with the same words after a falsification keeps the turn that showed the
    falsified one failed); without it, or for a turn older than every revision (imported:
    answered elsewhere first), the earliest, so that a later revision in service never
    vouches for a turn whose answer an earlier one, taken out of service, gave first."""
    unkeyed = unchecked(False, cache_key)
    if unkeyed is not None:
        return unkeyed
    record = _shown_record(conn, cache_key, answer_text, asked_at)
    if not isinstance(record, CacheRecord):
        elsewhere = _imported_record(conn, cache_key, answer_text, asked_at)
        if elsewhere is None:
            return record
        record = elsewhere
    imported = record.id if record.state == IMPORTED else None
    revision = None if imported is not None else record.revision
    state = Standing(
        NO_CLAIM,
        state=record.state,
        state_reason=record.state_reason,
        keywords=retrieval_keywords(record.policy),
        imported=imported,
    )
    check = check_record(record)
    if not check:
        reason = f"its answer does not hold now: {check.summary}"
        return replace(state, reason=reason, revision=revision)
    clash = _contradiction(record, question, cited, audit_mode)
    if clash is not None:
        return replace(state, reason=clash, revision=revision, conflict=True)
    return replace(state, mode=record.audit_mode, revision=revision, support=measure_record(record))


def _imported_record(
    conn: sqlite3.Connection, cache_key: str, answer_text: str, asked_at: str | None
) -> CacheRecord | None:
    """The imported record a turn showing ``answer_text`` under ``cache_key`` is held to
    (by :func:`standing`'s rule among revisions), or None when none holds that answer."""
    same = imported_shown(conn, cache_key, answer_text)
    if not same:
        return None
    record = load_imported(conn, _revision_shown(same, asked_at))
    return record if record.answer_text == answer_text else None


def _revision_shown(same: Sequence[tuple[int, str]], asked_at: str | None) -> int:
    """Of ``(id, created_at)`` rows holding a turn's answer, newest first, the one it
    showed: the latest written by the turn's time, else the earliest (see standing)."""
    return next((i for i, at in same if asked_at is not None and at <= asked_at), same[-1][0])


def _shown_record(
    conn: sqlite3.Connection, cache_key: str, answer_text: str, asked_at: str | None
) -> CacheRecord | Standing:
    """The record revision a turn showing ``answer_text`` under ``cache_key`` showed (see
    :func:`standing`), or the standing of a turn no record here shows."""
    rows = conn.execute(
        "SELECT id, created_at, answer_text = ? FROM cache_records WHERE cache_key = ? "
        "ORDER BY revision DESC",
        (answer_text, cache_key),
    ).fetchall()
    if not rows:
        return Standing(NO_CLAIM, NOT_HERE)
    same = [(int(row[0]), str(row[1])) for row in rows if row[2]]
    if not same:
        return Standing(NO_CLAIM, DIFFERS, conflict=True)
    record = load_record(conn, _revision_shown(same, asked_at))
    if record.answer_text != answer_text:  # SQLite's = and Python's == part on no text: a guard
        return Standing(NO_CLAIM, DIFFERS, conflict=True)
    return record


def _contradiction(
    record: CacheRecord, question: str, cited: Sequence[str], audit_mode: str
) -> str | None:
    """How a turn showing ``record``'s answer contradicts the record, or None."""
    if not _asked(question, record.dimensions["question_hash"]):
        return "its question is not the one its answer was given to"
    if cited_titles(record.evidence) != list(cited):
        return "its cited titles differ from its answer's sources"
    if record.audit_mode != audit_mode:
        return f"it claims {audit_mode} where its answer earned {record.audit_mode}"
    return None


def _asked(question: str, wanted: str) -> bool:
    """Whether ``question`` normalizes to the question hash ``wanted``."""
    try:
        return question_hash(question) == wanted
    except ValueError:  # a lone surrogate: no question a record was written for
        return False


TurnFields = tuple[str, str, tuple[str, ...], str, str, str | None]
"""What a turn's standing depends on: ``(cache_key, answer_text, cited_titles, audit_mode,
question, asked_at)`` (``asked_at``: when the turn was recorded, see :func:`standing`)."""

MAX_HELD = 10_000
"""How many turns' standings one store connection keeps between changes of store.db."""


class Standings:
    """The standings of turns over one store connection, each checked once while store.db
    is unchanged: a tree, a search and a widget over thousands of turns re-check an answer
    only after something was written to the store (by this connection, whose change count
    moves, or by any other, which moves SQLite's ``data_version``; an edit by hand is
    another connection)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._token: tuple[int, int] | None = None
        self._held: dict[TurnFields, Standing] = {}

    def _fresh(self) -> None:
        conn = self._conn
        token = (int(conn.execute("PRAGMA data_version").fetchone()[0]), conn.total_changes)
        if token != self._token or len(self._held) >= MAX_HELD:
            self._token, self._held = token, {}

    def of(self, turn: TurnFields) -> Standing:
        """The standing of one turn."""
        self._fresh()
        return self._of(turn)

    def _of(self, turn: TurnFields) -> Standing:
        found = self._held.get(turn)
        if found is None:
            key, answer, cited, mode, question, asked_at = turn
            found = standing(
                self._conn,
                cache_key=key,
                question=question,
                answer_text=answer,
                cited=cited,
                audit_mode=mode,
                asked_at=asked_at,
            )
            self._held[turn] = found
        return found

    def many(self, turns: Iterable[TurnFields]) -> list[Standing]:
        """The standings of many turns, in order: one query finds the keys the store holds
        at all, so turns imported from elsewhere cost nothing each."""
        self._fresh()
        turns = list(turns)
        wanted = sorted({t[0] for t in turns if t not in self._held and is_cache_key(t[0])})
        present = {
            str(key)
            for (key,) in rows_in(
                self._conn,
                "SELECT DISTINCT cache_key FROM cache_records WHERE cache_key IN ({marks})",
                wanted,
            )
        }
        present |= imported_keys(self._conn, sorted(set(wanted) - present))
        for turn in turns:
            if turn[0] in wanted and turn[0] not in present:
                self._held[turn] = Standing(NO_CLAIM, NOT_HERE)
        return [self._of(turn) for turn in turns]


_BY_CONNECTION: weakref.WeakKeyDictionary[sqlite3.Connection, Standings] = (
    weakref.WeakKeyDictionary()
)


def standings(conn: sqlite3.Connection) -> Standings:
    """The :class:`Standings` of store connection ``conn`` (one per connection)."""
    found = _BY_CONNECTION.get(conn)
    if found is None:
        found = _BY_CONNECTION[conn] = Standings(conn)
    return found


def contradictions(
    turns: Iterable[tuple[str, str, str, tuple[str, ...], str, str]],
    answers: Mapping[str, Sequence[tuple[str, str, tuple[str, ...], str]]],
) -> list[str]:
    """``arborist verify``'s check across the two files: a line for every turn (``(bates,
    key, answer, cited titles, mode, question)``) whose key store.db holds but none of
    whose records (``(answer, mode, cited titles, question hash)``) shows what the turn
    shows, to the question it shows. A turn whose key is not here is no finding (an
    imported turn: it claims ``NONE``). Pure."""
    problems = []
    for bates, key, answer, cited, mode, question in turns:
        held = answers.get(key)
        if held is None or any(
            h[:3] == (answer, mode, cited) and _asked(question, h[3]) for h in held
        ):
            continue
        same = [h for h in held if h[0] == answer]
        if not same:
            what = "answer differs from every answer"
        elif not any(_asked(question, h[3]) for h in same):
            what = "question is not the one the answer"
        else:
            what = "cited titles or audit mode differ from those of the answer"
        problems.append(f"turn {bates}: its {what} store.db holds under its cache key")
    return problems

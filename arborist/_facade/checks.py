"""``arborist verify`` and ``arborist chain-check`` over a home's two databases.

Each checkpoint belongs to the database whose audit chain holds its event hash
(:func:`assign_checkpoints`, the one rule both commands use). :func:`verify_home`
recomputes everything committed in both stores and checks both chains, SQLite's own
checks of each file overlapping the hashing, and holds every turn against the answer
store.db keeps under its key: a turn's node hash does not cover its answer
(docs/design.md section 3, "What commits what a face shows"), so an import checks each
turn it brings the same way (:func:`import_conflict`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arborist._database.integrity import FileChecks
from arborist._errors import BadInput, DamagedDatabase, IntegrityError
from arborist._forest.reads import TurnAnswer
from arborist._forest.verify import SESSIONS_FTS, ForestVerification, verify_forest
from arborist._proofs.audit import ChainReport, Checkpoint, check_chain, holds_event
from arborist._qa.check import check_record
from arborist._qa.standing import contradictions, standing
from arborist._store.cache.imported_reads import imported_answers
from arborist._store.cache.records import FAILED, QUARANTINED, CacheRecord, stored_answers
from arborist._store.verify import STORE_FTS, StoreVerification, verify_store

__all__ = [
    "ChainCheck",
    "DatabaseReport",
    "Verification",
    "assign_checkpoints",
    "chain_check",
    "check_derivable",
    "import_conflict",
    "verify_home",
]


@dataclass(frozen=True)
class DatabaseReport:
    """The chain report of one database file."""

    name: str
    path: Path
    report: ChainReport


@dataclass(frozen=True)
class ChainCheck:
    """Chain reports of the databases checked, plus checkpoints that matched none of them."""

    databases: tuple[DatabaseReport, ...]
    unmatched: tuple[Checkpoint, ...]

    @property
    def ok(self) -> bool:
        return not self.unmatched and all(db.report.ok for db in self.databases)


@dataclass(frozen=True)
class Verification:
    """``arborist verify`` over both stores; checkpoints that matched neither chain."""

    store: StoreVerification
    forest: ForestVerification
    unmatched: tuple[Checkpoint, ...]
    modes: tuple[str, ...] = ()  # the home and its files, where other users can read them
    turns: tuple[str, ...] = ()  # turns that show otherwise than the answer their key names
    unchecked: tuple[str, ...] = ()
    """Turns (bates numbers) whose key store.db does not hold (imported from another home, or
    the store replaced): no failure, since they claim ``NONE`` here, but not checked against
    an answer either, so verify counts and names them (:attr:`unchecked_lines`) rather than
    pass over them in silence."""

    @property
    def problems(self) -> list[str]:
        lines = list(self.modes)
        lines += [f"store.db: {p}" for p in self.store.problems]
        lines += [f"store.db: audit chain: {p}" for p in self.store.chain.problems]
        lines += [f"sessions.db: {p}" for p in self.forest.problems]
        lines += [f"sessions.db: audit chain: {p}" for p in self.forest.chain.problems]
        lines += [f"sessions.db: {p}" for p in self.turns]
        lines += [
            f"checkpoint {cp} is in neither chain: truncated or rewritten" for cp in self.unmatched
        ]
        return lines

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def unchecked_lines(self) -> list[str]:
        """What verify could not check, one line each after a count: every turn whose answer
        this store.db does not hold (it claims ``NONE`` here; its node hash and event were
        checked, its answer could not be)."""
        if not self.unchecked:
            return []
        count = len(self.unchecked)
        lines = [
            f"sessions.db: {count} turn{'s' if count != 1 else ''} not checkable here: "
            f"{NOT_HERE_WHY}"
        ]
        return lines + [
            f"sessions.db: turn {bates}: not checkable here" for bates in self.unchecked
        ]


NOT_HERE_WHY = (
    "store.db holds no answer under their cache keys (imported from another home, or the "
    "store replaced), so they claim NONE"
)


def assign_checkpoints(
    conns: Mapping[str, sqlite3.Connection],
    checkpoints: Sequence[Checkpoint],
    *,
    unopened: Sequence[str] | None = None,
) -> tuple[dict[str, list[Checkpoint]], list[Checkpoint]]:
    """Each checkpoint by the database whose chain holds its event hash, and those found in
    none. One database alone is given every checkpoint (so a truncated tail is named as
    such). With ``unopened`` (verify: the databases that could not be opened), a chain that
    cannot be read is a finding: a checkpoint in no readable chain goes to the first one
    that could not be read, which says so; without it (chain-check), its error is raised."""
    names = [*conns, *(unopened or ())]
    assigned: dict[str, list[Checkpoint]] = {name: [] for name in names}
    unmatched: list[Checkpoint] = []
    for checkpoint in checkpoints:
        owner, unreadable = None, list(unopened or ())
        for name, conn in conns.items():
            try:
                if holds_event(conn, checkpoint.event_hash):
                    owner = name
                    break
            except DamagedDatabase:
                if unopened is None:
                    raise
                unreadable.append(name)
        if owner is None:
            owner = unreadable[0] if unreadable else names[0] if len(names) == 1 else None
        if owner is None:
            unmatched.append(checkpoint)
        else:
            assigned[owner].append(checkpoint)
    return assigned, unmatched


def chain_check(
    conns: Mapping[str, sqlite3.Connection],
    paths: Mapping[str, Path],
    checkpoints: Sequence[Checkpoint],
) -> ChainCheck:
    """The audit chain of each database in ``conns`` checked against the checkpoints
    :func:`assign_checkpoints` gives it."""
    assigned, unmatched = assign_checkpoints(conns, checkpoints)
    reports = tuple(
        DatabaseReport(name, paths[name], check_chain(conn, assigned[name]))
        for name, conn in conns.items()
    )
    return ChainCheck(reports, tuple(unmatched))


def verify_home(
    conns: Mapping[str, sqlite3.Connection],
    unopened: Mapping[str, str],
    checkpoints: Sequence[Checkpoint],
    modes: Sequence[str] = (),
    pinned: Mapping[str, Sequence[Checkpoint]] | None = None,
) -> Verification:
    """Both stores verified: ``conns`` the databases open (``"store"``, ``"sessions"``),
    ``unopened`` why the others could not be opened (one problem line each), ``modes`` the
    home's files open to other users. ``pinned`` are checkpoints already known to be one
    database's (a notebook's witness names each head's store): each is held to that
    database's chain alone, never matched to whichever chain holds its hash."""
    assigned, unmatched = assign_checkpoints(conns, checkpoints, unopened=list(unopened))
    for name, held in (pinned or {}).items():
        assigned.setdefault(name, []).extend(held)
    unread = ChainReport(0, None, ())
    # SQLite's own checks of both files run on one thread beside this one (SQLite lets
    # go of the GIL while it checks), so they overlap the hashing below: sessions.db's
    # first, while this thread checks the turns (the longer work), then store.db's.
    with ThreadPoolExecutor(1, thread_name_prefix="arborist-verify") as pool:
        tables = {"sessions": SESSIONS_FTS, "store": STORE_FTS}
        checks = {
            name: FileChecks(conns[name], fts, pool)
            for name, fts in tables.items()
            if name in conns
        }
        forest = (
            verify_forest(conns["sessions"], assigned["sessions"], checks["sessions"])
            if "sessions" in conns
            else ForestVerification((f"cannot be opened: {unopened['sessions']}",), unread, 0, 0)
        )
        across, unchecked = turns_against_answers(conns, forest.answers)  # beside store.db's
        store = (
            verify_store(conns["store"], assigned["store"], checks["store"])
            if "store" in conns
            else StoreVerification((f"cannot be opened: {unopened['store']}",), unread, 0, 0, 0)
        )
    return Verification(store, forest, tuple(unmatched), tuple(modes), across, unchecked)


def turns_against_answers(
    conns: Mapping[str, sqlite3.Connection], turns: Sequence[TurnAnswer]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Every turn of ``turns`` (what each answered turn showed, as
    :func:`~arborist._forest.reads.turn_answers` reads them) whose key store.db holds,
    against what those records show: the problem lines; and the bates numbers of the
    turns whose key it does not hold (not checkable here). Both empty when either file is
    not open (its own line says so)."""
    if len(conns) < 2:
        return (), ()
    try:
        answers = stored_answers(conns["store"])
        for key, held in imported_answers(conns["store"]).items():  # imported from a bundle
            answers.setdefault(key, []).extend(held)
    except (DamagedDatabase, sqlite3.DatabaseError) as exc:
        return (f"turns against store.db's answers: cannot be read ({exc})",), ()
    unchecked = tuple(turn[0] for turn in turns if turn[1] not in answers)
    return tuple(contradictions(turns, answers)), unchecked


def import_conflict(store: sqlite3.Connection, item: Mapping[str, Any]) -> str | None:
    """Why an exported turn may not be imported beside ``store``, or None: it contradicts
    the answer the store holds under its cache key (another question, answer text, cited
    titles or audit mode)."""
    key, answer = item.get("cache_key"), item.get("answer_text")
    titles, mode, question = item.get("cited_titles"), item.get("audit_mode"), item.get("question")
    if not (
        isinstance(key, str)
        and key
        and isinstance(answer, str)
        and isinstance(mode, str)
        and isinstance(titles, list)
        and all(isinstance(t, str) for t in titles)
        and isinstance(question, str)
    ):
        return None  # malformed: the turn's own checks refuse it with their own line
    now = standing(
        store,
        cache_key=key,
        question=question,
        answer_text=answer,
        cited=titles,
        audit_mode=mode,
    )
    if not now.conflict:
        return None
    return (
        f"contradicts the answer this home holds under its cache key {key[:16]} "
        f"({now.reason}); nothing was imported"
    )


def check_derivable(record: CacheRecord) -> None:
    """Refuse to derive from ``record`` when it was judged wrong (``failed``, ``quarantined``)
    or does not hold now: a core record is searchable under HYBRID, so it must not carry
    such an answer's words. A ``stale`` one (its document changed since, or a fresh answer
    replaced it) still cites bytes that verify, and may be derived from."""
    if record.state in (FAILED, QUARANTINED):
        raise BadInput(
            f"that answer is {record.state} ({record.state_reason or 'no reason given'}): "
            "derive from an answer that was not judged wrong"
        )
    check = check_record(record)
    if not check:
        raise IntegrityError(
            f"store.db: the answer {record.cache_key[:16]} does not hold now: "
            f"{check.summary}; nothing was derived. Run `arborist verify` to see every change"
        )

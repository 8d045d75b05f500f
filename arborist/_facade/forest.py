"""The facade's forest: sessions, turns and moves in ``sessions.db``, the mode each turn
can claim now, export and import. :class:`arborist._facade.app.Arborist` is a :class:`HomeForest`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from arborist._bundles.export import build_bundle
from arborist._bundles.imports import bundle_import
from arborist._errors import ArboristError, BadInput
from arborist._facade.checks import import_conflict
from arborist._facade.home import Home
from arborist._facts import TurnFacts, turn_facts
from arborist._forest.bates import is_bates
from arborist._forest.cells import cell_turn, remember_cell_turn
from arborist._forest.nodes import Node, Session, get_node, get_session, list_sessions
from arborist._forest.reads import first_turn, first_turn_since, label_names, session_bates
from arborist._forest.render import branch_points, render_tree
from arborist._forest.shard import (
    FindHit,
    create_session,
    find,
    resolve_ref,
    set_current,
    set_label,
)
from arborist._forest.transfer import ImportResult, export_session, import_lines
from arborist._forest.tree_sync import ForestView
from arborist._pathref import load_or_create_key, redact_path
from arborist._proofs.audit import head_checkpoint
from arborist._proofs.witness import Heads
from arborist._qa.runner import AskResult
from arborist._qa.standing import Standing, standings, unchecked
from arborist._store.cache.imported_reads import load_imported
from arborist._store.cache.imported_writes import importing
from arborist._store.cache.records import OK, CacheRecord, resolve_key

__all__ = ["HomeForest"]


class HomeForest(Home):
    """A home's forest: every session and turn, read and moved through the facade."""

    def new_session(self, label: str | None = None) -> Session:
        """Start a session (a new root in the forest)."""
        return create_session(self.sessions_conn, label=self.admitted(label))

    def session(self, sid: str) -> Session:
        """An existing session."""
        return get_session(self.sessions_conn, sid)

    def sessions(self) -> list[tuple[Session, int]]:
        """Every session with its number of turns."""
        return list_sessions(self.sessions_conn)

    def node(self, ref: str, sid: str | None = None) -> Node:
        """A turn by bates number, or by seq, label or ``root`` within session ``sid``."""
        if sid is None:
            if not is_bates(ref.strip()):
                raise BadInput(f"{ref!r} is not a bates number (a seq or label needs a session)")
            return get_node(self.sessions_conn, ref.strip())
        return resolve_ref(self.sessions_conn, self.session(sid), ref)

    def tree(self, sid: str, *, short: bool = False) -> str:
        """A session's tree as text, each turn with the audit mode it can claim now and, while
        that holds, its support (``[STRICT partly]``); ``short``: its turns named ``#12``."""
        return render_tree(
            self.sessions_conn,
            self.session(sid),
            audit=lambda node: self.audit_now(node).badge,
            short=short,
        )

    def forest_view(self) -> ForestView:
        """The forest as the widget's protocol reads it, over this facade's connections."""
        return ForestView(self.sessions_conn, self.store_conn)

    def label_names(self) -> list[str]:
        """Every label a turn of the forest has (what the REPL completes)."""
        return label_names(self.sessions_conn)

    def session_bates(self, sid: str) -> list[str]:
        """The bates numbers of session ``sid``'s turns (what the REPL completes)."""
        return session_bates(self.sessions_conn, sid)

    def audit_now(self, node: Node) -> Standing:
        """The audit mode turn ``node`` can claim now, and why not (``NONE``): its own while
        store.db holds the answer it showed under its key and that answer still holds
        (:mod:`arborist._qa.standing`), with the state of the revision it showed. A session
        root claims nothing to check; a turn whose key is empty or malformed claims ``NONE``
        (:func:`~arborist._qa.standing.unchecked`, whatever mode it stored). Each answer is
        checked once while store.db is unchanged, however many turns and views show it."""
        found = unchecked(node.is_root, node.cache_key)
        if found is not None:
            return found
        turn = (
            node.cache_key,
            node.answer_text,
            node.cited_titles,
            node.audit_mode,
            node.question,
            node.created_at,
        )
        return standings(self.store_conn).of(turn)

    def facts(self, node: Node, *, asked: AskResult | None = None) -> TurnFacts:
        """The facts of turn ``node`` every face shows, computed once (:mod:`arborist._facts`):
        its standing now, the record revision whose answer it showed (none when no revision
        here holds its answer) and the turn that paid for that revision. ``asked``: the result of the ask that just
        made the turn (not one that reused an earlier turn): only it knows how long it took
        and whether it was served from the cache (a record written by an ask that made no
        turn has no turn that paid for it), and a miss names the revision out of service it
        took the place of."""
        now = self.audit_now(node)
        record = None
        if now.imported is not None:  # answered elsewhere: the imported record it is held to
            record = load_imported(self.store_conn, now.imported)
        elif now.revision is not None and node.cache_key:
            record = resolve_key(self.store_conn, node.cache_key, revision=now.revision)
        first = None
        if record is not None:
            first = first_turn_since(self.sessions_conn, record.cache_key, record.created_at)
        if asked is None or record is None:
            return turn_facts(node, now, record, first)
        replaces = None if asked.hit else self._replaces(record)
        return turn_facts(
            node, now, record, first, asked=(asked.hit, asked.elapsed_ms), replaces=replaces
        )

    def imported_record(self, node: Node) -> CacheRecord | None:
        """The record imported from a bundle that turn ``node`` is held to (its state
        ``imported``), or None when its standing rests on no imported record."""
        now = self.audit_now(node)
        return None if now.imported is None else load_imported(self.store_conn, now.imported)

    def _replaces(self, record: CacheRecord) -> str | None:
        """``revision 1, failed: REASON`` when ``record`` answers its key again after the
        revision before it was taken out of service; None for a first answer."""
        if record.revision <= 1:
            return None
        try:
            before = resolve_key(self.store_conn, record.cache_key, revision=record.revision - 1)
        except ArboristError:
            return None
        if before.state == OK:
            return None
        said = f"{before.state}: {before.state_reason}" if before.state_reason else before.state
        return f"revision {before.revision}, {said}"

    def branches(self, sid: str) -> list[tuple[Node, int]]:
        """Branch points (two or more children) of a session's tree."""
        return branch_points(self.sessions_conn, self.session(sid))

    def find(self, query: str, *, limit: int = 10) -> list[FindHit]:
        """Turns of every session matching every word of ``query``."""
        return find(self.sessions_conn, query, limit=limit)

    def cd(self, sid: str, ref: str) -> Node:
        """Make ``ref`` (any session's turn) the session's current node."""
        node = self.node(ref, sid)
        set_current(self.sessions_conn, sid, node.bates)
        return node

    def back(self, sid: str) -> Node:
        """Move the session's current node to its parent."""
        current = get_node(self.sessions_conn, self.session(sid).current_bates)
        if current.parent_bates is None:
            raise BadInput("already at the root")
        return self.cd(sid, current.parent_bates)

    def label(self, sid: str, name: str, ref: str | None = None) -> Node:
        """Name a turn (default: the current one); an empty name takes its label off."""
        session = self.session(sid)
        node = self.node(ref, sid) if ref else get_node(self.sessions_conn, session.current_bates)
        label = self.admitted(name) if name.strip() else None
        return set_label(self.sessions_conn, node.bates, label)

    def export_session(self, sid: str) -> list[dict[str, Any]]:
        """A session as JSON-ready records: its header, then every turn it minted."""
        return list(export_session(self.sessions_conn, sid))

    def export_bundle(self, sids: Sequence[str]) -> bytes:
        """Sessions ``sids`` as one bundle (docs/bundle.md): their turns, records, cited
        chunks with proofs, documents and both chains' spans, as canonical JSON bytes that
        a reader checks with no home (refused in one line when this home's own do not hold)."""
        return build_bundle(
            self.sessions_conn, self.store_conn, [self.session(s).sid for s in sids]
        )

    def import_bundle(self, data: bytes) -> ImportResult:
        """Import a bundle: the whole bundle is checked first (every hash, proof, profile,
        policy and chain link; a failure is one line and nothing is written), then its
        records are written into store.db as ``imported`` (kept apart from the cache: never
        served, never superseding this home's; :mod:`arborist._store.cache.imported`) and its
        turns imported as an export's are (:meth:`import_sessions`), held to those records.
        One transaction on store.db spans both: a refusal of the turns writes no record.
        Importing a bundle again writes nothing new but the later states of records imported
        before that it carries (:mod:`arborist._store.cache.imported_states`: only further
        out of service, never one of this home's own records), and says each it skipped."""
        lines, drafts = bundle_import(data)
        with importing(self.store_conn, drafts) as wrote:
            done = self.import_sessions(lines)
        return replace(done, records=wrote.written, restated=wrote.restated, skipped=wrote.skipped)

    def import_sessions(self, lines: Iterable[str]) -> ImportResult:
        """Import exported sessions into this shard (every hash re-proved; all or nothing).

        A turn that contradicts the answer this home's store holds under its cache key
        (another answer text, other cited titles, another audit mode) refuses the file:
        its node hash does not cover its answer, so only that record could vouch for it.
        A turn whose key this store does not hold is imported and claims ``NONE`` here
        (:meth:`audit_now`)."""
        return import_lines(
            self.sessions_conn, lines, admit_text=self.admitted, check_turn=self._import_conflict
        )

    def _import_conflict(self, item: Mapping[str, Any]) -> str | None:
        """Why an exported turn may not be imported here, or None (see :meth:`import_sessions`)."""
        return import_conflict(self.store_conn, item)

    def first_turn(self, cache_key: str) -> Node | None:
        """The earliest turn that holds this cache key: where a cached answer was first paid for."""
        bates = first_turn(self.sessions_conn, cache_key)
        return get_node(self.sessions_conn, bates) if bates else None

    def resolve_answer(self, ref: str) -> CacheRecord:
        """The cache record behind a bates number or a cache key (or its unique prefix)."""
        if is_bates(ref.strip()):
            node = get_node(self.sessions_conn, ref.strip())
            if node.is_root:
                raise BadInput(f"{node.bates} is a session root: it has no answer")
            return resolve_key(self.store_conn, node.cache_key)
        return resolve_key(self.store_conn, ref)

    def cell_turn(self, notebook: str, cell: str) -> tuple[Node, str] | None:
        """The turn cell ``cell`` of the notebook at path ``notebook`` showed last, and why it
        was filed there (kept across kernel restarts: :mod:`arborist._forest.cells`)."""
        return cell_turn(self.sessions_conn, self._notebook_key(notebook), cell)

    def remember_cell_turn(self, notebook: str, cell: str, node: Node, why: str) -> None:
        """Cell ``cell`` of the notebook at path ``notebook`` showed ``node`` (for ``why``)."""
        remember_cell_turn(self.sessions_conn, self._notebook_key(notebook), cell, node.bates, why)

    def _notebook_key(self, notebook: str) -> str:
        """A notebook as ``cell_turns`` keys it: its absolute path hashed with the home's
        secret key (another notebook cannot name its rows, and no path is stored)."""
        path = str(Path(os.path.expanduser(notebook)).absolute())
        return redact_path(path, load_or_create_key(self.home))

    def checkpoint(self) -> Heads:
        """Both stores' chain heads now: what a notebook output witnesses (docs/design.md
        section 5b). A turn lives in sessions.db, but the answer it shows, its evidence,
        the documents it cites and the answer's state live in store.db; a witness of the
        shard alone would let store.db be rewritten under a saved notebook unseen."""
        return Heads(head_checkpoint(self.sessions_conn), head_checkpoint(self.store_conn))

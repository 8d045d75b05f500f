"""A home's related sources: the co-access index (what ``arborist related`` and the
``--related`` lane read), rebuilt when it lags behind what the asks recorded, and drained of
any capture a kill left spooled first (:mod:`arborist._store.coaccess`)."""

from __future__ import annotations

from collections.abc import Callable

from arborist._config import coaccess_params
from arborist._errors import BadInput
from arborist._facade.forest import HomeForest
from arborist._forest.bates import is_bates
from arborist._store import coaccess, coaccess_spool
from arborist._store.cache.records import CacheRecord
from arborist._store.coaccess import RebuildReport, RelatedSource
from arborist._store.related import (
    RELATED_SLACK,
    Related,
    cited_related,
    fresh_index,
    related_sources,
    turn_leaves,
)

__all__ = ["HomeRelated"]


class HomeRelated(HomeForest):
    """The co-access face of a home (:class:`~arborist._facade.app.Arborist` is one)."""

    @property
    def related_version(self) -> str:
        """The co-access index version the home's ``[coaccess] window/fanout`` select."""
        return coaccess.index_version(*coaccess_params(self.config))

    def rebuild_related(self, *, on_batch: Callable[[int], None] | None = None) -> RebuildReport:
        """Rebuild the related-sources index from the recorded co-access rows."""
        if not coaccess.enabled():
            raise BadInput(f"co-access is off: set {coaccess.FLAG}=1 to record and index it")
        window, fanout = coaccess_params(self.config)
        coaccess_spool.drain(self.sessions_conn, self.store_conn)  # a capture a kill left
        return coaccess.rebuild_related(
            self.store_conn, window=window, fanout=fanout, on_batch=on_batch
        )

    def _related_index(self, *, purpose: str, slack: float = 0.0) -> str:
        """The index version to read, rebuilt first when it lags (see
        :func:`arborist._store.related.fresh_index`); a capture a kill left spooled is
        drained first (flag on)."""
        if coaccess.enabled():
            coaccess_spool.drain(self.sessions_conn, self.store_conn)
        return fresh_index(
            self.store_conn,
            self.related_version,
            self.rebuild_related,
            purpose=purpose,
            slack=slack,
        )

    def related(self, ref: str, *, limit: int = 10) -> Related:
        """Chunks co-accessed with ``ref``: a chunk leaf, a document, or a bates number
        (the chunks its answer cited). A stale index is rebuilt first (with the flag on)."""
        if limit < 1:
            raise BadInput("--limit must be at least 1")
        version = self._related_index(purpose="related")
        kind, sources = self._related_sources(ref.strip())
        edges = coaccess.related_edges(self.store_conn, sources, version=version, limit=limit)
        return Related(kind, tuple(sources), tuple(coaccess.describe(self.store_conn, edges)))

    def related_to_record(self, record: CacheRecord, *, limit: int = 10) -> list[RelatedSource]:
        """Related sources of an answer's cited chunks; empty when the store has no index."""
        conn = self.store_conn
        if not coaccess.has_schema(conn):
            return []
        version = self._related_index(purpose="related", slack=RELATED_SLACK)
        return cited_related(conn, record, version, limit=limit)

    def _related_sources(self, ref: str) -> tuple[str, list[str]]:
        if ref and is_bates(ref):
            return "turn", turn_leaves(self.resolve_answer(ref))
        return related_sources(self.store_conn, ref)

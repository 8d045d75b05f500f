"""Why a retrieved chunk may not be served: the one check an ask makes of its evidence
before a model reads it, and what labels a search hit (``search`` never calls STRICT a
chunk ``ask`` would refuse)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Protocol

from arborist._proofs.keys import EvidenceRef
from arborist._store.metadata import committed
from arborist._store.proofs import verify_evidence

__all__ = ["EDITED_METADATA", "EDITED_TEXT", "Retrieved", "evidence_faults"]

EDITED_METADATA = "metadata"
"""A fault of :func:`evidence_faults`: the document's row (title, URI, root, chunk count)
is not what its ``document_add`` event committed."""
EDITED_TEXT = "text"
"""A fault of :func:`evidence_faults`: the chunk's text no longer hashes to its leaf."""


class Retrieved(Protocol):
    """What the check reads of a retrieved chunk (search's ``Evidence`` is one): its
    document, its text, and the leaf and tree it is proved by."""

    @property
    def document_id(self) -> int: ...

    @property
    def text(self) -> str: ...

    @property
    def ref(self) -> EvidenceRef: ...


def evidence_faults(
    conn: sqlite3.Connection, evidence: Sequence[Retrieved], *, metadata: bool = True
) -> list[str | None]:
    """Why each retrieved item may not be served, or None: its document's row is not what
    its ingest committed (:data:`EDITED_METADATA`: a chunk whose text, leaf, root and tree
    were all recomputed still names a root its ``document_add`` event does not), or its
    text no longer hashes to its leaf (:data:`EDITED_TEXT`). The one check an ask makes of
    what it retrieved before a model reads it, and what labels a search hit: ``search``
    never calls STRICT a chunk ``ask`` would refuse."""
    holds = committed(conn, {item.document_id for item in evidence}) if metadata else {}
    faults: list[str | None] = []
    for item in evidence:
        if metadata and not holds.get(item.document_id, False):
            faults.append(EDITED_METADATA)
        elif not verify_evidence(item.ref, text=item.text).text_matches:
            faults.append(EDITED_TEXT)
        else:
            faults.append(None)
    return faults

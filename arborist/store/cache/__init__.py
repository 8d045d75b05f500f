"""The answer cache in ``store.db``: cache records and their evidence. Every statement on
``cache_records`` and ``cache_evidence`` is here, so the rules they keep are in one place.

A record is one revision of the answer to one cache key. Only a record in
state ``ok`` serves hits, and a key has at most one (the index
``cache_one_ok``); falsifying it (``failed``, ``stale``, ``quarantined``)
keeps it for the record and makes the next ask a miss that writes a new
revision. Each write is one transaction with its ``cache_write`` audit
event, and each change of state with its ``cache_state`` event;
``hit_count`` and ``last_hit_at`` are bookkeeping no hash covers.

The package holds them in three modules: :mod:`~arborist.store.cache.records` (states,
reading and writing a record), :mod:`~arborist.store.cache.states` (falsifying, undoing,
stale marks, which revision a turn showed) and :mod:`~arborist.store.cache.rows` (the rows as
stored, for ``arborist verify``). Every name imports from here.
"""

from __future__ import annotations

from arborist.store.cache.records import (
    FAILED,
    FALSIFIED_STATES,
    OK,
    QUARANTINED,
    STALE,
    STATES,
    SUPERSEDED_REASON,
    CacheRecord,
    NewEvidence,
    RecordDraft,
    RecordEvidence,
    count_hit,
    counts_by_state,
    list_records,
    load_record,
    ok_record_id,
    resolve_key,
    stored_answers,
    total_hits,
    write_event_body,
    write_record,
)
from arborist.store.cache.rows import (
    StoredEvidence,
    StoredRecord,
    key_records,
    recomputed_hash,
    stored_evidence,
    stored_records,
)
from arborist.store.cache.states import (
    RESTORED_REASON,
    RevisionState,
    falsify,
    latest_states,
    mark_stale,
    restated_revisions_since,
    restated_since,
    restore,
    revision_states,
    shown_revision,
    state_event_body,
)

__all__ = [
    "CacheRecord",
    "FAILED",
    "FALSIFIED_STATES",
    "NewEvidence",
    "OK",
    "QUARANTINED",
    "RESTORED_REASON",
    "RecordDraft",
    "RecordEvidence",
    "RevisionState",
    "STALE",
    "STATES",
    "SUPERSEDED_REASON",
    "StoredEvidence",
    "StoredRecord",
    "count_hit",
    "counts_by_state",
    "falsify",
    "key_records",
    "latest_states",
    "list_records",
    "load_record",
    "mark_stale",
    "ok_record_id",
    "recomputed_hash",
    "resolve_key",
    "restated_revisions_since",
    "restated_since",
    "restore",
    "revision_states",
    "shown_revision",
    "state_event_body",
    "stored_answers",
    "stored_evidence",
    "stored_records",
    "total_hits",
    "write_event_body",
    "write_record",
]

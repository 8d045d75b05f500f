"""The answer cache in ``store.db``: cache records and their evidence. Every statement on
``cache_records`` and ``cache_evidence`` is here, so the rules they keep are in one place.

A record is one revision of the answer to one cache key. Only a record in
state ``ok`` serves hits, and a key has at most one (the index
``cache_one_ok``); falsifying it (``failed``, ``stale``, ``quarantined``)
keeps it for the record and makes the next ask a miss that writes a new
revision. Each write is one transaction with its ``cache_write`` audit
event, and each change of state with its ``cache_state`` event;
``hit_count`` and ``last_hit_at`` are bookkeeping no hash covers.

The package holds them in three modules: :mod:`~arborist._store.cache.records` (states,
reading and writing a record), :mod:`~arborist._store.cache.states` (falsifying, undoing,
stale marks, which revision a turn showed) and :mod:`~arborist._store.cache.rows` (the rows as
stored, for ``arborist verify``). Each name is imported from the module that defines it.
"""

__all__: list[str] = []

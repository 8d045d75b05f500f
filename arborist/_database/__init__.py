"""SQLite as arborist uses it: connections and transactions (:mod:`.db`), the ``-wal``
kept short (:mod:`.wal`), migrations (:mod:`.migrations`), whole-file checks
(:mod:`.integrity`) and safe FTS5 queries (:mod:`.fts`)."""

__all__: list[str] = []

"""The document store (``store.db``): documents, chunks, cache records, its own audit chain."""

__all__: list[str] = []

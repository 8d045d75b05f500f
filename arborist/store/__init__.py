"""The document store (``store.db``): documents, chunks, cache records, its own audit chain."""

from arborist.store.schema import STORE_MIGRATIONS

__all__ = ["STORE_MIGRATIONS"]

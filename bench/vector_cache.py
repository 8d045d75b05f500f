"""A model's vectors kept between bench runs, keyed by the model and the text embedded.

bench/foreign.py embeds every passage of four manuals in its semantic lane (about 28,000
passages, 30 to 45 minutes on two cores) on each run, though a run changes the answerer
far more often than the passages. :class:`CachedEmbedder` wraps any embedder: a text it
has embedded before under the same model profile (:func:`arborist._store.vectors.profile_key`,
the key the store keeps vectors under) is read back from a SQLite file, the rest is
embedded and kept. Vectors are kept as the model returned them (float32), so a run with
the cache ranks exactly as one without: only the time differs, and the report says how
many passages came from the cache.

bench/remote_lane.py's loopback servers answer from the same file (its ``rows`` with a
cache): the served MiniLM reads back what the local model kept under its own profile (the
same weights handed the same text), and e5-small keeps each batch as it is embedded, so an
interrupted run resumes where it stopped.

Nothing else is shared: a changed passage (chunking, a window's lead) is a new text, a
changed model or option a new profile, and each misses.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from arborist._store.vectors import Embedder, profile_key

_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    profile TEXT NOT NULL,
    text_sha256 BLOB NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (profile, text_sha256)
) WITHOUT ROWID
"""

_LOOKUP_BATCH = 500
"""Texts looked up per query (under SQLite's limit on bound parameters)."""


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class CachedEmbedder:
    """``inner`` with its vectors kept in ``path`` (made if missing); ``hits`` and
    ``misses`` count the texts read back and the texts embedded."""

    def __init__(self, inner: Embedder, path: Path) -> None:
        self.inner = inner
        self.batch_size = inner.batch_size
        self.profile_key = profile_key(inner.profile())
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(path, check_same_thread=False)  # a server's handlers
        self._lock = threading.Lock()
        self._conn.execute(_SCHEMA)
        self.hits = 0
        self.misses = 0

    def profile(self) -> dict[str, object]:
        """The wrapped model's profile: the store keys its vectors as it would without the cache."""
        return self.inner.profile()

    def embed(self, texts: Sequence[str]) -> Any:
        """One float32 row per text, in order: kept ones read back, the rest embedded (in one
        call of the wrapped model) and kept. One call at a time (a loopback server answers
        from a cache on its handler threads)."""
        with self._lock:
            return self._embed(texts)

    def _embed(self, texts: Sequence[str]) -> Any:
        digests = [_digest(text) for text in texts]
        kept: dict[bytes, bytes] = {}
        unique = list(dict.fromkeys(digests))
        for start in range(0, len(unique), _LOOKUP_BATCH):
            part = unique[start : start + _LOOKUP_BATCH]
            marks = ",".join("?" * len(part))
            kept.update(
                self._conn.execute(
                    f"SELECT text_sha256, vector FROM vectors WHERE profile = ? "
                    f"AND text_sha256 IN ({marks})",
                    [self.profile_key, *part],
                ).fetchall()
            )
        wanted = [i for i, d in enumerate(digests) if d not in kept]
        first = {digests[i]: i for i in reversed(wanted)}  # each missing text embedded once
        if first:
            order = sorted(first.values())
            fresh = np.asarray(self.inner.embed([texts[i] for i in order]), dtype="<f4")
            rows = [(self.profile_key, digests[i], fresh[n].tobytes()) for n, i in enumerate(order)]
            with self._conn:
                self._conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows)
            kept.update((digest, blob) for _profile, digest, blob in rows)
        self.misses += len(first)
        self.hits += len(texts) - len(wanted)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([np.frombuffer(kept[d], dtype="<f4") for d in digests])

    def close(self) -> None:
        self._conn.close()

"""The vector lane: chunk embeddings in ``store.db`` and exact nearest-neighbour search.

A vector belongs to a chunk's *text*, not its row: it is keyed by the chunk's
leaf hash and the embedding profile (model, dimensions, server) that made it.
Re-ingesting unchanged text, or a second document holding the same chunk,
costs no new request. Vectors are stored normalized, as little-endian float16
BLOBs (2 bytes a dimension: 768 bytes for 384 dimensions).

Only hot chunks of current documents are searched: the lane joins
``chunk_vectors`` to ``chunks`` by leaf, so an evicted chunk drops out of it
exactly as it drops out of the FTS index, and comes back with its vector
(no request) when it is rehydrated.

Vectors steer what retrieval returns, so adding, changing or dropping one
moves ``store_generation`` (triggers below, inside the writing transaction),
and the retrieval memo (:mod:`arborist._store.memo`) stays exact.

The store never calls a model: :func:`embed_missing` is handed an
:class:`Embedder` (the qa layer's client), and :func:`nearest` a query vector.
Search is exact: every searchable vector is scored (held in memory as float16
per connection, profile and generation, 77 MB for 100k x 384, so the next
search at the same generation reads nothing), by a float16 product
(``simsimd``) whose leaders are scored again exactly (see :func:`_exact_top`).
"""

from __future__ import annotations

import functools
import json
import sqlite3
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from arborist._database.db import snapshot, transaction
from arborist._errors import ModelError
from arborist._gate.admission import admit_profile
from arborist._progress import Track, untracked
from arborist._proofs.hashing import canonical_json, sha256_hex
from arborist._store.memo import generation
from arborist._store.passages import PASSAGES, as_documents, passages
from arborist._store.schema import HOT

__all__ = [
    "EmbedReport",
    "Embedder",
    "embed_missing",
    "embeds_passages",
    "missing_chunks",
    "nearest",
    "pack",
    "passage_key",
    "passage_nearness",
    "profile_key",
    "put_vectors",
    "searchable_sample",
    "searches_passages",
    "unpack",
    "vector_count",
]

T = TypeVar("T")

PASSAGE_MARK = "#"
"""Between a chunk's leaf and a passage's position in a passage vector's key."""
_AFTER_MARK = chr(ord(PASSAGE_MARK) + 1)

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Matrix = NDArray[Any]  # float32 (a query, embeddings) or float16 (what is held)
else:  # numpy loads with the first vector, not with this module (a CLI without vectors skips it)
    Matrix = Any


class Embedder(Protocol):
    """What the store needs of an embedding model (the qa layer's client is one)."""

    batch_size: int

    def profile(self) -> dict[str, object]:
        """The model's identity: what made a vector (never a credential)."""
        ...  # pragma: no cover

    def embed(self, texts: Sequence[str]) -> Matrix:
        """One normalized float32 row per text, in order (one request per batch)."""
        ...  # pragma: no cover


def profile_key(profile: dict[str, object]) -> str:
    """The key vectors are stored under: the hash of the profile's canonical JSON, once
    every string of it has passed the admission gate (what is stored beside it)."""
    return sha256_hex(canonical_json(admit_profile(profile)))


def pack(vector: NDArray[Any]) -> bytes:
    """A vector as stored: normalized, little-endian float16."""
    import numpy as np  # noqa: PLC0415 - numpy loads with the first vector

    return np.asarray(vector, dtype="<f2").tobytes()


def unpack(blob: bytes) -> Matrix:
    """A stored vector back as float32."""
    import numpy as np  # noqa: PLC0415 - numpy loads with the first vector

    return np.frombuffer(blob, dtype="<f2").astype(np.float32)


@dataclass(frozen=True)
class EmbedReport:
    """What an embedding pass did: chunks embedded now, requests made, vectors held."""

    embedded: int
    requests: int
    held: int


_MISSING = f"""
SELECT c.leaf, c.text, d.title FROM chunks AS c
JOIN documents AS d ON d.id = c.document_id
WHERE c.tier = '{HOT}' AND d.status = 'current' {{only}}
  AND NOT EXISTS (SELECT 1 FROM chunk_vectors AS v JOIN vector_profiles AS p
                  ON p.id = v.profile_id WHERE p.profile = ? AND v.leaf = c.leaf {{suffix}})
ORDER BY c.id
"""

_SEARCHABLE = f"""
SELECT c.id, v.vector FROM chunks AS c
JOIN documents AS d ON d.id = c.document_id
JOIN chunk_vectors AS v ON v.leaf = c.leaf AND v.profile_id = ?
WHERE c.tier = '{HOT}' AND d.status = 'current'
ORDER BY c.id
"""

_SEARCHABLE_PASSAGES = f"""
SELECT c.id, v.vector FROM chunks AS c
JOIN documents AS d ON d.id = c.document_id
JOIN chunk_vectors AS v
  ON v.profile_id = ? AND v.leaf > c.leaf || '{PASSAGE_MARK}' AND v.leaf < c.leaf || '{_AFTER_MARK}'
WHERE c.tier = '{HOT}' AND d.status = 'current'
ORDER BY c.id, v.leaf
"""
"""A passage profile's vectors of each chunk: the keys ``{{leaf}}#{{n}}``, a range of the
primary key (every key between ``leaf#`` and ``leaf$``; a leaf is hex, never ``#``)."""


def passage_key(leaf: str, index: int) -> str:
    """The key of the ``index``-th passage's vector of the chunk ``leaf``."""
    return f"{leaf}{PASSAGE_MARK}{index}"


def embeds_passages(profile: dict[str, object]) -> bool:
    """Whether an embedder of ``profile`` embeds a chunk's passages, not the chunk whole."""
    return profile.get("passages") == PASSAGES


def missing_chunks(
    conn: sqlite3.Connection,
    profile: str,
    *,
    documents: Sequence[int] | None = None,
    by_passage: bool = False,
) -> list[tuple[str, str]]:
    """``(leaf, text)`` of each hot chunk of a current document with no vector under
    ``profile`` (``by_passage``: no vector of its first passage), one per leaf, in chunk
    order (``documents`` limits it to those ids)."""
    return [(leaf, text) for leaf, text, _ in _missing(conn, profile, documents, by_passage)]


def _missing(
    conn: sqlite3.Connection, profile: str, documents: Sequence[int] | None, by_passage: bool
) -> list[tuple[str, str, str]]:
    """:func:`missing_chunks` with the title of the document of each leaf's first chunk."""
    only = ""
    params: list[object] = [profile]
    if documents is not None:
        if not documents:
            return []
        only = f"AND d.id IN ({','.join('?' * len(documents))})"
        params = [*documents, profile]
    suffix = f"|| '{PASSAGE_MARK}0'" if by_passage else ""
    first: dict[str, tuple[str, str]] = {}
    for leaf, text, title in conn.execute(_MISSING.format(only=only, suffix=suffix), params):
        first.setdefault(str(leaf), (str(text), str(title)))
    return [(leaf, text, title) for leaf, (text, title) in first.items()]


def vector_count(conn: sqlite3.Connection, profile: str) -> int:
    """How many vectors ``profile`` holds."""
    row = conn.execute(
        "SELECT count(*) FROM chunk_vectors AS v JOIN vector_profiles AS p "
        "ON p.id = v.profile_id WHERE p.profile = ?",
        (profile,),
    ).fetchone()
    return int(row[0])


def _profile_id(conn: sqlite3.Connection, profile: dict[str, object], dimensions: int) -> int:
    """The profile's row (made on its first vectors); its vectors all have one dimension."""
    profile = admit_profile(profile)  # stored: no secret from any embedder's profile
    key = profile_key(profile)
    row = conn.execute(
        "SELECT id, dimensions FROM vector_profiles WHERE profile = ?", (key,)
    ).fetchone()
    if row is None:
        cursor = conn.execute(
            "INSERT INTO vector_profiles (profile, profile_json, dimensions) VALUES (?, ?, ?)",
            (key, canonical_json(profile).decode("utf-8"), dimensions),
        )
        return int(cursor.lastrowid or 0)
    if int(row[1]) != dimensions:
        raise ModelError(
            f"embedding model {profile.get('model')!r} answered {dimensions} dimensions, "
            f"but its vectors in store.db have {row[1]}; nothing was written"
        )
    return int(row[0])


def put_vectors(
    conn: sqlite3.Connection, profile: dict[str, object], leaves: Sequence[str], vectors: Matrix
) -> int:
    """Store one vector per leaf under ``profile`` in one transaction; returns how many
    were new. Refused whole (nothing written) when the rows do not match the leaves or
    are not finite unit vectors."""
    import numpy as np  # noqa: PLC0415 - numpy loads with the first vector

    if vectors.ndim != 2 or vectors.shape[0] != len(leaves) or vectors.shape[1] < 1:
        raise ModelError(
            f"embedding model {profile.get('model')!r} gave {vectors.shape[0]} vectors "
            f"for {len(leaves)} texts; nothing was written"
        )
    norms = np.linalg.norm(vectors, axis=1)
    if not np.all(np.isfinite(vectors)) or not np.allclose(norms, 1.0, atol=1e-3):
        raise ModelError(
            f"embedding model {profile.get('model')!r} gave vectors that are not finite "
            "unit vectors; nothing was written"
        )
    with transaction(conn):
        profile_id = _profile_id(conn, profile, int(vectors.shape[1]))
        cursor = conn.executemany(
            "INSERT OR IGNORE INTO chunk_vectors (profile_id, leaf, vector) VALUES (?, ?, ?)",
            [(profile_id, leaf, pack(row)) for leaf, row in zip(leaves, vectors, strict=True)],
        )
        return max(cursor.rowcount, 0)


def embed_missing(
    conn: sqlite3.Connection,
    embedder: Embedder,
    *,
    documents: Sequence[int] | None = None,
    track: Track[Any] = untracked,
) -> EmbedReport:
    """Embed every searchable chunk that has no vector under ``embedder``'s profile (only
    those of ``documents`` when given): one request per ``batch_size`` texts, each batch
    written in its own transaction once its vectors are checked (``track`` wraps the
    batches, for a progress bar). A failing batch writes nothing of itself and stops."""
    profile = embedder.profile()
    by_passage = embeds_passages(profile)
    wanted = _missing(conn, profile_key(profile), documents, by_passage)
    size = max(1, int(embedder.batch_size))
    if by_passage:  # a chunk's passages stay in one batch: it has all its vectors or none
        items = [
            [(passage_key(leaf, n), text) for n, text in enumerate(passages(chunk, title))]
            for leaf, chunk, title in wanted
        ]
        batches: list[list[tuple[str, str]]] = [[]]
        for passage_items in items:
            if batches[-1] and len(batches[-1]) + len(passage_items) > size:
                batches.append([])
            batches[-1] += passage_items
        batches = [batch for batch in batches if batch]
    else:
        whole = [(leaf, text) for leaf, text, _ in wanted]
        batches = [whole[start : start + size] for start in range(0, len(whole), size)]
    embedded = 0
    for batch in track(batches):
        vectors = embedder.embed(as_documents(profile, [text for _, text in batch]))
        embedded += put_vectors(conn, profile, [key for key, _ in batch], vectors)
    return EmbedReport(embedded, len(batches), vector_count(conn, profile_key(profile)))


# --------------------------------------------------------------------------- search


@dataclass(frozen=True)
class _Loaded:
    generation: int
    ids: NDArray[np.int64]
    matrix: Matrix
    passages: bool = False


_LOADED: weakref.WeakKeyDictionary[sqlite3.Connection, dict[str, _Loaded]] = (
    weakref.WeakKeyDictionary()
)


def _searchable(conn: sqlite3.Connection, profile: str) -> _Loaded:
    """The ids and float16 matrix of every searchable vector of ``profile``, read once per
    connection and generation (call inside a snapshot). The matrix is filled in batches,
    so loading never holds more than it keeps plus one batch of rows."""
    import numpy as np  # noqa: PLC0415 - numpy loads with the first vector

    at = generation(conn)
    try:
        held = _LOADED.setdefault(conn, {})
    except TypeError:  # a plain sqlite3 connection cannot be weakly referenced: no memory
        held = {}
    loaded = held.get(profile)
    if loaded is not None and loaded.generation == at:
        return loaded
    row = conn.execute(
        "SELECT id, dimensions, profile_json FROM vector_profiles WHERE profile = ?", (profile,)
    )
    found = row.fetchone()
    if found is None:
        loaded = _Loaded(at, np.zeros(0, np.int64), np.zeros((0, 1), np.float16))
    else:
        pid, dims = int(found[0]), int(found[1])
        sql = _SEARCHABLE_PASSAGES if _passage_profile(found[2]) else _SEARCHABLE
        (count,) = conn.execute(f"SELECT count(*) FROM ({sql})", (pid,)).fetchone()
        matrix = np.empty((count, dims), dtype=np.float16)
        ids = np.empty(count, dtype=np.int64)
        cursor, filled = conn.execute(sql, (pid,)), 0
        while rows := cursor.fetchmany(_LOAD_BATCH):
            good = [(i, v) for i, v in rows if isinstance(v, bytes) and len(v) == 2 * dims]
            block = np.frombuffer(b"".join(v for _, v in good), dtype="<f2")
            block = block.reshape(len(good), dims)
            finite = np.isfinite(block).all(axis=1)  # damaged rows (not a vector, NaN) skipped
            end = filled + int(finite.sum())
            matrix[filled:end] = block[finite]
            ids[filled:end] = [i for (i, _), ok in zip(good, finite, strict=True) if ok]
            filled = end
        if filled < count:  # damaged rows were left out
            matrix, ids = matrix[:filled].copy(), ids[:filled].copy()
        loaded = _Loaded(at, ids, matrix, sql is _SEARCHABLE_PASSAGES)
    held.clear()  # one profile at a time: a switch of model frees the old matrix
    held[profile] = loaded
    return loaded


def searchable_sample(conn: sqlite3.Connection, profile: str, size: int) -> Matrix:
    """At most ``size`` of the searchable vectors of ``profile`` (every k-th, in their stored
    order), as float64 rows: what a statistic of the corpus is read from (call inside a
    snapshot); no rows when there are none."""
    import numpy as np  # noqa: PLC0415 - numpy loads with the first vector

    loaded = _searchable(conn, profile)
    total = loaded.ids.size
    if total == 0 or size < 1:
        return np.zeros((0, loaded.matrix.shape[1]), dtype=np.float64)
    return loaded.matrix[:: -(-total // size)].astype(np.float64)


def _passage_profile(profile_json: object) -> bool:
    """Whether a stored profile's JSON is one of an embedder of passages."""
    try:
        found = json.loads(str(profile_json))
    except ValueError:  # an edited row: its vectors are searched as chunks' (a hint only)
        return False
    return isinstance(found, dict) and embeds_passages(found)


def searches_passages(conn: sqlite3.Connection, profile: str) -> bool:
    """Whether the vectors of the profile keyed ``profile`` are passages' (see
    :mod:`arborist._store.passages`): the fusion of such a lane differs."""
    row = conn.execute("SELECT profile_json FROM vector_profiles WHERE profile = ?", (profile,))
    found = row.fetchone()
    return found is not None and _passage_profile(found[0])


_PASSAGE_VECTORS = f"""
SELECT v.leaf, v.vector FROM chunk_vectors AS v JOIN vector_profiles AS p ON p.id = v.profile_id
WHERE p.profile = ? AND v.leaf > ? || '{PASSAGE_MARK}' AND v.leaf < ? || '{_AFTER_MARK}'
"""


def passage_nearness(
    conn: sqlite3.Connection, profile: str, query: Matrix, leaf: str
) -> tuple[float, ...]:
    """The cosine of ``query`` with each passage vector of the chunk ``leaf`` (in the
    passages' order, :func:`arborist._store.passages.passages`), each rounded to four places
    (scored in float64: the same on every machine); empty when the chunk has none under
    ``profile``, or a key or vector that is not one a passage embedder wrote."""
    import numpy as np  # noqa: PLC0415 - numpy loads with the first vector

    vector = np.asarray(query, dtype=np.float64).reshape(-1)
    found: dict[int, float] = {}
    for key, blob in conn.execute(_PASSAGE_VECTORS, (profile, leaf, leaf)):
        index = str(key).rpartition(PASSAGE_MARK)[2]
        if not index.isdigit() or not isinstance(blob, bytes) or len(blob) != 2 * vector.size:
            return ()
        found[int(index)] = round(float(unpack(blob).astype(np.float64) @ vector), 4)
    if sorted(found) != list(range(len(found))):
        return ()
    return tuple(found[n] for n in range(len(found)))


def nearest(
    conn: sqlite3.Connection, profile: str, query: Matrix, limit: int
) -> list[tuple[int, float]]:
    """The ``limit`` searchable chunks nearest ``query`` (cosine: vectors are unit), as
    ``(chunk_id, score)`` best first, ties by chunk id; a chunk with several vectors (its
    passages) scores its best, and a chunk whose best passage is one an earlier chunk
    offered (pydoc repeats an inherited method in every subclass) is left out, so five
    chunks are five passages. Exact: every vector is scored."""
    import numpy as np  # noqa: PLC0415 - numpy loads with the first vector

    with snapshot(conn):
        loaded = _searchable(conn, profile)
    if loaded.ids.size == 0 or limit < 1:
        return []
    vector = np.asarray(query, dtype=np.float32).reshape(-1)
    if vector.shape[0] != loaded.matrix.shape[1] or not np.all(np.isfinite(vector)):
        raise ModelError(
            f"the question's vector has {vector.shape[0]} dimensions, the stored ones "
            f"{loaded.matrix.shape[1]}"
        )
    rows = limit
    while True:  # the best rows until they hold ``limit`` chunks (or every row is taken)
        top = _exact_rows(loaded, vector, rows)
        taken: set[int] = set()
        seen: set[bytes] = set()
        offered: list[tuple[int, float]] = []
        for row, score in top:  # best first: a chunk's first row is its best
            chunk_id = int(loaded.ids[row])
            if chunk_id in taken:
                continue
            taken.add(chunk_id)
            if loaded.passages:  # one passage in several chunks is offered once, first
                held = loaded.matrix[row].tobytes()
                if held in seen:
                    continue
                seen.add(held)
            offered.append((chunk_id, score))
        if len(offered) >= limit or len(top) < rows:
            return offered[:limit]
        rows *= 4


_LOAD_BATCH = 4096
"""Rows read at a time when the matrix is loaded."""

_MARGIN = 1e-3
"""A bound on how far the float16 product (:func:`simsimd.cdist`, the query rounded to
float16) can be from the exact score of a unit query and a unit stored vector: each
coordinate of the query is off by at most 2^-11 of itself, so the dot is off by at most
2^-11 (Cauchy-Schwarz), plus float32 accumulation, about 5e-4 in all. It holds for kernels
that accumulate in float32; :func:`_fast_scores` turns off the two that accumulate in
float16 (Sapphire Rapids' AVX512-FP16 and Arm SVE's), and checks the bound on every
search's leaders besides."""

_F16_ACCUMULATORS = ("sapphire", "sve_f16")
"""simsimd's kernels whose float16 dot products sum in float16 (2^-11 per step): at 1,536
dimensions they stray 2e-3 from the exact score, past :data:`_MARGIN`."""

_EXACT_BLOCK = 4096
"""Rows scored in float64 at a time: a crowd of near-ties is never copied whole."""


def _fast_scores(matrix: Matrix, vector: Matrix) -> Matrix:
    """Every row's dot product with ``vector``, in float16 (simsimd), from kernels that
    accumulate in float32."""
    import numpy as np  # noqa: PLC0415

    simsimd = _simsimd()
    return np.asarray(simsimd.cdist(vector.astype(np.float16)[None, :], matrix, "dot")).reshape(-1)


@functools.cache
def _simsimd() -> Any:
    """simsimd, imported with the first search, its float16-accumulating kernels turned off
    (once per process, not on every search)."""
    import simsimd  # noqa: PLC0415

    enabled = simsimd.get_capabilities()
    for name in _F16_ACCUMULATORS:
        if enabled.get(name):
            simsimd.disable_capability(name)
    return simsimd


def _exact_scores(matrix: Matrix, rows: Matrix, query: Matrix) -> Matrix:
    """The float64 dot products of ``rows`` of ``matrix`` with ``query``, a block at a time."""
    import numpy as np  # noqa: PLC0415

    out = np.empty(rows.shape[0], dtype=np.float64)
    for start in range(0, rows.shape[0], _EXACT_BLOCK):
        block = rows[start : start + _EXACT_BLOCK]
        out[start : start + block.shape[0]] = matrix[block].astype(np.float64) @ query
    return out


def _exact_top(loaded: _Loaded, vector: Matrix, limit: int) -> list[tuple[int, float]]:
    """The ``limit`` best rows' ``(chunk_id, score)`` (see :func:`_exact_rows`)."""
    return [(int(loaded.ids[row]), score) for row, score in _exact_rows(loaded, vector, limit)]


def _exact_rows(loaded: _Loaded, vector: Matrix, limit: int) -> list[tuple[int, float]]:
    """The ``limit`` best rows by exact score, as (row, score), best first, ties by id: every row is scored
    in float16 (simsimd: numpy has no fast float16 product, and a float32 copy of 100k x 384
    would be 154 MB), then the leaders, and every row whose fast score is within
    :data:`_MARGIN` of the last one kept, are scored again in float64. The answer is the
    exact one, the same on every machine. Should a kernel stray past the margin on the
    leaders, every row is scored in float64 (slow, never wrong)."""
    import numpy as np  # noqa: PLC0415

    fast = _fast_scores(loaded.matrix, vector)
    total = fast.shape[0]
    count = min(limit, total)
    pool = min(total, max(4 * count, count + 64))
    chosen = np.argpartition(-fast, pool - 1)[:pool] if pool < total else np.arange(total)
    query = vector.astype(np.float64)
    exact = _exact_scores(loaded.matrix, chosen, query)
    if np.abs(exact - fast[chosen]).max() > _MARGIN / 2:  # a kernel off its bound: no trust
        chosen = np.arange(total)
        exact = _exact_scores(loaded.matrix, chosen, query)
    else:
        last = np.partition(exact, pool - count)[pool - count]  # the count-th best exact score
        rivals = np.flatnonzero(fast >= last - _MARGIN - 1e-6)  # 1e-6: what rounding can tie
        if rivals.size > pool:  # near-ties past the pool: score every one of them exactly
            chosen = rivals
            exact = _exact_scores(loaded.matrix, chosen, query)
    rounded = np.round(exact, 6)
    order = np.lexsort((loaded.ids[chosen], -rounded))[:count]
    return [(int(chosen[i]), float(rounded[i])) for i in order]

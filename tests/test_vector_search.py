"""The vector lane's exact search (arborist.store.vectors): a float16 product picks the
leaders, float64 settles them, and the result is the exact top-k of the stored vectors,
ties by chunk id, whatever the near-ties."""

from __future__ import annotations

import numpy as np
import pytest

from arborist.store.vectors import _exact_top, _Loaded


def brute(
    ids: np.ndarray, matrix: np.ndarray, query: np.ndarray, k: int
) -> list[tuple[int, float]]:
    exact = np.round(matrix.astype(np.float64) @ query.astype(np.float64), 6)
    order = sorted(range(len(ids)), key=lambda i: (-exact[i], int(ids[i])))[:k]
    return [(int(ids[i]), float(exact[i])) for i in order]


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


@pytest.mark.parametrize(
    ("seed", "spread"), [(s, 1e-3) for s in range(8)] + [(s, 0.0) for s in range(8, 12)]
)
def test_the_top_k_is_the_exact_one_even_among_a_crowd_of_near_ties(
    seed: int, spread: float
) -> None:
    """``spread`` 0: the crowd is 500 copies of one vector, so the top-k is its lowest ids,
    which the float16 order (all equal) does not know: every one of the crowd must be
    scored again, past the usual pool."""
    rng = np.random.default_rng(seed)
    n, dims, k = (
        int(rng.integers(1, 3000) if spread else 3000),
        int(rng.choice([8, 64, 384])),
        int(rng.integers(1, 60)),
    )
    base = unit(rng.standard_normal((n, dims)))
    query = unit(rng.standard_normal((1, dims)))[0]
    # A crowd at the boundary: many rows a hair apart (and exact duplicates), all near the
    # query, so float16 products alone would order them wrongly.
    crowd = min(n, 500)
    near = unit(query[None, :] + rng.standard_normal((crowd, dims)) * spread)
    base[:crowd] = near
    if n > 10:
        base[n // 2 : n // 2 + 5] = base[0]  # duplicates: their order is by id
    ids = rng.permutation(np.arange(10, 10 + 3 * n, 3))[:n].astype(np.int64)
    matrix = base.astype(np.float16)
    got = _exact_top(_Loaded(0, ids, matrix), query, k)
    assert got == brute(ids, matrix, query, k)


def test_one_vector_and_a_limit_past_the_count() -> None:
    matrix = np.ones((1, 4), np.float16) / 2
    assert _exact_top(_Loaded(0, np.array([7]), matrix), np.full(4, 0.5, np.float32), 5) == [
        (7, 1.0)
    ]

"""The vector lane's exact search (arborist._store.vectors): a float16 product picks the
leaders, float64 settles them, and the result is the exact top-k of the stored vectors,
ties by chunk id, whatever the near-ties."""

from __future__ import annotations

import numpy as np
import pytest

from arborist._store.vectors import _exact_top, _Loaded


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


def test_a_kernel_that_strays_past_the_margin_is_caught_and_the_answer_stays_exact(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A float16-accumulating kernel (Sapphire Rapids, Arm SVE) strays about 2e-3 at 1,536
    dimensions: emulated here by noise of that size on the fast scores. The leaders' check
    sees it and every row is scored exactly."""
    from arborist._store import vectors

    rng = np.random.default_rng(5)
    base = unit(rng.standard_normal((3000, 64)))
    query = unit(rng.standard_normal((1, 64)))[0]
    base[:1000] = unit(query[None, :] + rng.standard_normal((1000, 64)) * 0.004)
    matrix, ids = base.astype(np.float16), np.arange(3000, dtype=np.int64)
    real = vectors._fast_scores

    def strays(m: np.ndarray, v: np.ndarray) -> np.ndarray:
        return real(m, v) + rng.uniform(-2e-3, 2e-3, m.shape[0])

    monkeypatch.setattr(vectors, "_fast_scores", strays)
    assert _exact_top(_Loaded(0, ids, matrix), query, 40) == brute(ids, matrix, query, 40)


def test_rows_that_are_not_vectors_are_left_out_of_the_lane(tmp_path) -> None:
    """A stored value of another type, size, or with NaN (an edited file) is skipped when
    the matrix loads; the rest are searched."""
    from arborist._facade.app import Arborist
    from arborist._store.vectors import nearest, profile_key, put_vectors

    (tmp_path / "docs").mkdir()
    for n in range(4):
        (tmp_path / "docs" / f"d{n}.md").write_text(f"# D{n}\n\nWord w{n} here.\n")
    with Arborist(tmp_path / "home") as app:
        app.ingest([str(tmp_path / "docs")])
        conn = app.store_conn
        rows = conn.execute("SELECT id, leaf FROM chunks ORDER BY id").fetchall()
        profile = {"model": "m", "dimensions": 4, "server": "s"}
        vectors = unit(np.eye(4, dtype=np.float32) + 0.1)
        put_vectors(conn, profile, [leaf for _, leaf in rows], vectors)
        with conn:
            conn.execute("UPDATE chunk_vectors SET vector = 7 WHERE leaf = ?", (rows[0][1],))
            nan = np.array([np.nan, 0, 0, 0], dtype="<f2").tobytes()
            conn.execute("UPDATE chunk_vectors SET vector = ? WHERE leaf = ?", (nan, rows[1][1]))
            conn.execute("UPDATE chunk_vectors SET vector = x'00' WHERE leaf = ?", (rows[2][1],))
        found = nearest(conn, profile_key(profile), vectors[0], 10)
        assert [chunk for chunk, _ in found] == [rows[3][0]]

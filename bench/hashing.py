"""Throughput of arborist's hashing against bare hashlib on the same inputs, in one run.

    python bench/hashing.py [--leaves N] [--events N] [--repeat R]

Machines here are shared and noisy, so every figure is a ratio to a
baseline measured in the same process on the same inputs, and each timing
is the best of R repeats. Printed rows:

* merkle_root over N leaves vs. N-1 bare ``sha256(0x03 || l || r)`` calls:
  what the tree shape and Python-level bookkeeping cost on top of hashing.
* chain check over N events of a real SQLite file vs. bare ``sha256`` of the
  same N preimages: what reading rows, rebuilding each canonical payload and
  comparing costs on top of hashing.
* verify_inclusion of every leaf's proof (sample) vs. bare hashing of the
  same number of interior nodes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arborist.audit import append_event, check_chain
from arborist.db import transaction
from arborist.hashing import canonical_json, leaf_hash
from arborist.merkle import inclusion_proof, merkle_root, verify_inclusion
from arborist.migrations import open_database
from arborist.store import STORE_MIGRATIONS


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_merkle(n: int, repeat: int) -> tuple[str, float, float, str]:
    leaves = [leaf_hash(i.to_bytes(8, "big")) for i in range(n)]
    pairs = [(leaves[i], leaves[(i + 1) % n]) for i in range(n - 1)]
    sha = hashlib.sha256

    def baseline() -> None:
        for left, right in pairs:
            sha(b"\x03" + left + right).digest()

    ours = best_of(repeat, lambda: merkle_root(leaves))
    base = best_of(repeat, baseline)
    return (f"merkle_root, {n:,} leaves", ours, base, f"{n / ours:,.0f} leaves/s")


def bench_proofs(n: int, repeat: int) -> tuple[str, float, float, str]:
    leaves = [leaf_hash(i.to_bytes(8, "big")) for i in range(n)]
    root = merkle_root(leaves)
    sample = list(range(0, n, max(1, n // 100)))  # building a proof is O(n); verifying is O(log n)
    proofs = [(i, inclusion_proof(leaves, i)) for i in sample]
    steps = sum(len(p) for _, p in proofs)
    filler = leaves[0] + leaves[1]
    sha = hashlib.sha256

    def ours() -> None:
        for i, proof in proofs:
            assert verify_inclusion(leaves[i], i, n, proof, root)

    def baseline() -> None:
        for _ in range(steps):
            sha(b"\x03" + filler).digest()

    t_ours = best_of(repeat, ours)
    t_base = best_of(repeat, baseline)
    return (
        f"verify_inclusion, {len(proofs):,} proofs",
        t_ours,
        t_base,
        f"{len(proofs) / t_ours:,.0f} proofs/s",
    )


def bench_chain(n: int, repeat: int, folder: Path) -> tuple[str, float, float, str]:
    path = folder / "bench-store.db"
    conn = open_database(path, STORE_MIGRATIONS)
    with transaction(conn):
        for i in range(n):
            append_event(
                conn,
                "bench",
                sid="20261129T120000Z-a1b2c3",
                bates=f"20261129T120000Z-a1b2c3-{i:06d}",
                body={"node_hash": leaf_hash(str(i).encode()).hex(), "i": i},
            )
    rows = conn.execute(
        "SELECT prev_event_hash, event_type, sid, bates, body, created_at FROM audit_events"
    ).fetchall()
    preimages = [
        (bytes.fromhex(prev) if prev else b"")
        + canonical_json(
            {
                "event_type": et,
                "sid": sid,
                "bates": bates,
                "body": json.loads(body),
                "created_at": created,
            }
        )
        for prev, et, sid, bates, body, created in rows
    ]
    sha = hashlib.sha256

    def baseline() -> None:
        for pre in preimages:
            sha(pre).hexdigest()

    def ours() -> None:
        report = check_chain(conn)
        assert report.ok and report.events_checked == n

    t_ours = best_of(repeat, ours)
    t_base = best_of(repeat, baseline)
    conn.close()
    return (f"chain check, {n:,} events", t_ours, t_base, f"{n / t_ours:,.0f} events/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leaves", type=int, default=100_000)
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [
            bench_merkle(args.leaves, args.repeat),
            bench_proofs(args.leaves, args.repeat),
            bench_chain(args.events, args.repeat, Path(tmp)),
        ]
    print(f"{'measure':<34} {'ours':>9} {'hashlib':>9} {'ratio':>6}  throughput")
    for name, ours, base, rate in rows:
        print(
            f"{name:<34} {ours * 1000:>7.1f}ms {base * 1000:>7.1f}ms {ours / base:>5.2f}x  {rate}"
        )


if __name__ == "__main__":
    main()

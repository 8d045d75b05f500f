"""Throughput of arborist's hashing against bare hashlib on the same inputs, in one run.

    python bench/hashing.py [--quick] [--leaves N] [--events N] [--repeat R]

Machines here are shared and noisy, so every figure is a ratio to a
baseline measured in the same process on the same inputs, and each timing
is the best of R repeats. Printed rows:

* merkle_root over N leaves vs. N-1 bare ``sha256(0x03 || l || r)`` calls:
  what the tree shape and Python-level bookkeeping cost on top of hashing.
* chain check over N synthetic ``append_event`` events of a real SQLite
  file vs. bare ``sha256`` of the same N preimages: what reading rows,
  rebuilding each canonical payload and comparing costs on top of hashing
  (``bench/goals.py`` measures the chain check on events made by real turns).
* verify_inclusion of a sample of proofs vs. a bare hashlib loop over the
  same paths: per proof, ``acc = sha256(0x03 || a || b)`` once per path
  element, the same prefix-and-concatenation work on the same bytes (the
  left/right order taken from the index's bits), ending in the same compare
  with the root. What is left is what verify_inclusion adds: its checks of
  the arguments and of each element, the RFC 9162 index arithmetic and a call
  per interior node.

``--quick`` runs small sizes in a second or two; nothing is written anywhere
but a temporary directory.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arborist._database.db import transaction
from arborist._database.migrations import open_database
from arborist._proofs.audit import append_event, check_chain
from arborist._proofs.hashing import canonical_json, leaf_hash
from arborist._proofs.merkle import inclusion_proofs, merkle_root, verify_inclusion
from arborist._store.schema import STORE_MIGRATIONS


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


def verify_times(
    leaves: Sequence[bytes], indices: Sequence[int], repeat: int
) -> tuple[float, float]:
    """Seconds per proof, best of ``repeat``: ``verify_inclusion`` of each index's proof, and
    a bare hashlib loop over the same paths (same hashes, same prefix and concatenations)."""
    n = len(leaves)
    root = merkle_root(leaves)
    proofs = list(zip(indices, inclusion_proofs(leaves, indices), strict=True))
    sha = hashlib.sha256

    def ours() -> None:
        for i, proof in proofs:
            if not verify_inclusion(leaves[i], i, n, proof, root):
                raise AssertionError(f"proof of leaf {i} does not verify")

    def bare() -> None:
        for i, proof in proofs:
            acc, index = leaves[i], i
            for element in proof:
                if index & 1:
                    acc = sha(b"\x03" + element + acc).digest()
                else:
                    acc = sha(b"\x03" + acc + element).digest()
                index >>= 1
            _ = acc == root  # on a tree whose size is not a power of two it may differ

    ours()
    t_ours, t_bare = [], []
    for _ in range(repeat):  # interleaved: a burst of load on the machine hits both alike
        t_ours.append(best_of(1, ours))
        t_bare.append(best_of(1, bare))
    return min(t_ours) / len(proofs), min(t_bare) / len(proofs)


def bench_proofs(n: int, repeat: int) -> tuple[str, float, float, str]:
    leaves = [leaf_hash(i.to_bytes(8, "big")) for i in range(n)]
    sample = list(range(0, n, max(1, n // 1000)))  # verifying is O(log n) per proof
    ours, bare = verify_times(leaves, sample, repeat)
    return (
        f"verify_inclusion, per proof ({len(sample):,})",
        ours,
        bare,
        f"{1 / ours:,.0f} proofs/s",
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
    return (f"chain check, {n:,} synthetic events", t_ours, t_base, f"{n / t_ours:,.0f} events/s")


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.1f}ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f}µs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    parser.add_argument("--leaves", type=int, default=None, help="default 100,000 (quick 5,000)")
    parser.add_argument("--events", type=int, default=None, help="default 50,000 (quick 2,000)")
    parser.add_argument("--repeat", type=int, default=None, help="default 5 (quick 2)")
    args = parser.parse_args()
    leaves = args.leaves or (5_000 if args.quick else 100_000)
    events = args.events or (2_000 if args.quick else 50_000)
    repeat = args.repeat or (2 if args.quick else 5)
    with tempfile.TemporaryDirectory(prefix="arborist-bench-hashing-") as tmp:
        rows = [
            bench_merkle(leaves, repeat),
            bench_proofs(leaves, repeat),
            bench_chain(events, repeat, Path(tmp)),
        ]
    print(f"{'measure':<36} {'ours':>9} {'hashlib':>9} {'ratio':>6}  throughput")
    for name, ours, base, rate in rows:
        print(f"{name:<36} {fmt(ours):>9} {fmt(base):>9} {ours / base:>5.2f}x  {rate}")


if __name__ == "__main__":
    main()

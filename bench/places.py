"""What citing the place costs: reading a document's places, and a cache hit that shows them.

    python bench/places.py [--quick] [--samples N]

Each figure sits beside a baseline measured in the same process on the same store
(a synthetic markdown document of N chunks, a heading every four paragraphs):

1. **First read of a document's places** (``place_reads._read_places``: every chunk
   text fetched, re-hashed to its leaf, the leaves folded to the root, the places
   read) beside the bare floor of the same check: the texts and leaves fetched and
   each text hashed to its leaf (``SELECT leaf, text``, ``leaf_hash``). Ours/bare and
   microseconds per chunk.
2. **A cache-hit ask** whose evidence is the document's last chunk: with places (read
   once per connection, then kept) beside the same hit with places switched off, and
   beside a hit whose connection has just forgotten them (a fresh process's first
   hit). Medians over interleaved samples; goal: the kept hit within 1.5x of none.

Print only: it writes no file.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arborist import Arborist  # noqa: E402
from arborist._proofs.hashing import leaf_hash  # noqa: E402
from arborist._store import place_reads  # noqa: E402
from arborist._store.cache import records  # noqa: E402
from arborist._store.documents import ingest_document  # noqa: E402
from arborist._store.loaders import LoadedDocument  # noqa: E402

HIT_GOAL = 1.5
"""A hit that shows places, read once per connection, within this factor of one without."""

QUESTION = "Where does the zanzibarian quokka sleep at noon?"


def make_document(chunks: int, seed: int) -> LoadedDocument:
    """About ``chunks`` chunks of prose under ``##`` headings, the answer in the last one."""
    rng = random.Random(seed)
    words = [f"w{k}" for k in range(3000)]
    parts = []
    for section in range(chunks // 4):
        parts.append(f"## Section {section}")
        parts += [" ".join(rng.choice(words) for _ in range(150)) + "." for _ in range(4)]
    parts.append("## Final\n\nThe zanzibarian quokka sleeps under the bridge at noon.")
    return LoadedDocument(
        uri=f"file:///bench/places-{chunks}.md",
        title="Bench",
        text="\n\n".join(parts),
        media_type="text/markdown",
        content_sha256=f"{chunks:064d}",
    )


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def first_read(app: Arborist, document_id: int, samples: int) -> tuple[float, float, int]:
    """Medians (ms) of ours and the bare floor, interleaved, and how many chunks."""
    conn = app.store_conn
    row = conn.execute(
        "SELECT media_type, source_root, chunk_count, chunking_version FROM documents WHERE id = ?",
        (document_id,),
    ).fetchone()

    def bare() -> None:
        for leaf, text in conn.execute(
            "SELECT leaf, text FROM chunks WHERE document_id = ? ORDER BY chunk_index",
            (document_id,),
        ):
            if leaf_hash(text.encode("utf-8")).hex() != leaf:
                raise AssertionError("a chunk does not hold")

    ours_s, bare_s = [], []
    for _ in range(samples):
        start = time.perf_counter()
        places = place_reads._read_places(conn, document_id, *row)
        ours_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        bare()
        bare_s.append(time.perf_counter() - start)
    assert len(places) == row[2], "every chunk has its place"
    return median_ms(ours_s), median_ms(bare_s), len(places)


def hits(app: Arborist, samples: int) -> dict[str, float]:
    """Median hit (ms) with places kept and with none (interleaved), then just after
    forgetting them (apart: its garbage would weigh on the hits timed after it)."""
    assert not app.ask(QUESTION, llm="extractive").hit
    real = records.evidence_places
    none: Callable[..., dict[object, object]] = lambda conn, wanted: {}  # noqa: E731
    timed: dict[str, list[float]] = {"kept": [], "none": [], "forgotten": []}
    plan = ["kept", "none"] * samples + ["forgotten"] * max(3, samples // 4)
    for name in plan:
        records.evidence_places = none if name == "none" else real  # type: ignore[assignment]
        if name == "forgotten":
            place_reads.forget_places(app.store_conn)
        start = time.perf_counter()
        result = app.ask(QUESTION, llm="extractive")
        timed[name].append(time.perf_counter() - start)
        assert result.hit
    records.evidence_places = real
    (item,) = [e for e in result.record.evidence if e.place is not None][:1]
    assert item.placed_title == "Bench · Final", item.placed_title
    return {name: median_ms(values) for name, values in timed.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    parser.add_argument("--samples", type=int, default=None)
    args = parser.parse_args()
    sizes = (500, 2_000) if args.quick else (1_000, 8_000)
    samples = args.samples or (5 if args.quick else 15)
    print("citing the place: reading a document's places, and a hit that shows them")
    missed = False
    with tempfile.TemporaryDirectory(prefix="arborist-places-") as name:
        for size in sizes:
            with Arborist(Path(name) / f"home-{size}") as app:
                document = ingest_document(app.store_conn, make_document(size, 1)).document
                ours, bare, chunks = first_read(app, document.id, samples)
                print(f"\n1. first read of the places of {chunks:,} chunks")
                print(
                    f"   ours (fetch, re-hash, fold, read places) {ours:8.1f} ms  "
                    f"({ours / chunks * 1000:.1f} µs a chunk)"
                )
                print(
                    f"   bare (fetch, re-hash)                    {bare:8.1f} ms  "
                    f"ours/bare {ours / bare:.2f}x"
                )
                found = hits(app, samples * 4)
                ratio = found["kept"] / found["none"]
                verdict = "MET" if ratio <= HIT_GOAL else "MISSED"
                missed |= verdict == "MISSED"
                print(f"2. cache-hit ask, the evidence chunk {chunks - 1:,} of {chunks:,}")
                print(f"   places kept by the connection  {found['kept']:8.2f} ms")
                print(f"   no places                      {found['none']:8.2f} ms")
                print(
                    f"   places just forgotten (a fresh process's first hit) "
                    f"{found['forgotten']:8.2f} ms"
                )
                print(f"   goals: kept/none {ratio:.2f}x (goal <= {HIT_GOAL}x) {verdict}")
    print("\nwhole run done" + (" (a goal MISSED)" if missed else ""))


if __name__ == "__main__":
    main()

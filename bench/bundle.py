"""A bundle's size and the time to verify it (issue #37, item 5; docs/bundle.md).

    python bench/bundle.py [--quick] [--turns N] [--rounds R] [--seed S] [--no-write]

The home is made through the app's real paths: a synthetic corpus (bench/store.py's
pseudo-word documents, deterministic) through ``ingest_document``, then ``Arborist.ask_turn``
with the extractive answerer, one distinct question per turn, in sessions of 100 turns
(each a chain under its root). Every turn's record holds five evidence items, so 1,000
turns cite 5,000 chunks (evidence items; the distinct chunks among them are counted too).
``Arborist.export_bundle`` then bundles every session; its bytes are measured:

* **size per turn beyond the cited text**: the bundle's bytes less the UTF-8 bytes of the
  cited chunks' text, over the asked turns (roots excluded). Goal: <= 4 KB (4,096 bytes)
  per turn. Each member's share is printed, so what to trim is plain.
* **verify**: ``check_bundle`` on the bytes (what ``arborist verify --bundle`` runs, less
  reading the file), against a bare hashlib floor over the same bytes: ``json.loads``, then
  every hash the checks need recomputed with ``hashlib`` straight from the parsed fields,
  each base64url hash decoded with ``binascii`` where it is used (format 3, docs/bundle.md):
  each turn's node hash under its parent's and the body of its event; each cited chunk's
  leaf from its text and each proof (its document's nodes) folded to its document's root;
  each record's evidence leaves and root, its question's hash (NFC, spaces collapsed), its
  key, its record hash, its answer's and response's hashes and the body of its event; each
  model profile and policy hashed to its key, and each record's found among them; and
  every event's preimage chained from the span's start, compared with the head. The floor
  trusts the form and names nothing: it asserts. One SHA-256 of the whole file is printed
  beside them for scale: no verifier that parses JSON comes near it, so the goal is judged
  against the floor. The two are timed in one process in interleaved rounds (which goes
  first alternates); the figure is the median over the rounds of ours/floor. Goal: <= 2x.

A full run writes its section (``bundle``) of bench/RESULTS.md; ``--quick`` (a few turns,
no goal judged) writes nothing.
"""

from __future__ import annotations

import argparse
import binascii
import datetime
import hashlib
import json
import random
import re
import statistics
import sys
import tempfile
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arborist._bundles.check import check_bundle  # noqa: E402
from arborist._facade.app import Arborist  # noqa: E402
from arborist._store.documents import ingest_document  # noqa: E402
from bench.results import RESULTS, write_section  # noqa: E402
from bench.store import Vocabulary, documents, make_vocabulary  # noqa: E402

SIZE_GOAL = 4096
"""Bytes per turn beyond the cited text (issue #37)."""
SPEED_GOAL = 2.0
"""``verify --bundle`` over the bare hashlib floor (issue #37)."""
SESSION_TURNS = 100
CHUNKS_PER_TURN = 5


def build_home(home: Path, turns: int, seed: int) -> tuple[bytes, float]:
    """The bundle of ``turns`` asked turns in a fresh home, and the seconds making it took."""
    started = time.perf_counter()
    vocab = make_vocabulary(4_000, seed)
    with Arborist(home) as app:
        chunks, texts = 0, []
        for doc in documents(vocab, seed, (1_000, 7_000)):
            if chunks >= 2 * turns * CHUNKS_PER_TURN:
                break
            chunks += ingest_document(app.store_conn, doc).document.chunk_count
            texts.append(doc.text)
        sids: list[str] = []
        tip = ""
        for i, question in enumerate(questions(vocab, texts, turns, seed)):
            if i % SESSION_TURNS == 0:
                session = app.new_session()
                sids.append(session.sid)
                tip = session.root_bates
            turn = app.ask_turn(question, sid=sids[-1], parent=tip, llm="extractive")
            assert not turn.result.hit, question
            tip = turn.node.bates
        data = app.export_bundle(sids)
    return data, time.perf_counter() - started


def questions(vocab: Vocabulary, texts: list[str], count: int, seed: int) -> list[str]:
    """``count`` distinct questions, each naming three rarer words of one sentence of the
    corpus, so the extractive answerer finds that sentence and cites its chunk."""
    rng = random.Random(f"bundle-questions:{seed}")
    rare = set(vocab.words[100:1500])
    sentences = [s for text in texts for s in re.split(r"(?<=[.?])\s+", text)]
    asked: dict[str, None] = {}
    while len(asked) < count:
        words = [w for w in re.findall(r"[a-z]+", rng.choice(sentences)) if w in rare]
        if len(words) >= 3:
            a, b, c = rng.sample(words, 3)
            asked[f"What is said about {a}, {b} and {c}?"] = None
    return list(asked)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _cj(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def floor(data: bytes) -> None:
    """The bare hashlib pass: parse, recompute each hash the checks need, compare (see the
    docstring). Format 2 states fewer hashes, so more are recomputed here, as the check does:
    each turn's node hash (under its parent's) and the body of its event, each record's
    evidence root, question hash, key, record hash and the body of its event, and every
    event's hash chained from the span's first to its head."""
    sha = hashlib.sha256
    bundle = json.loads(data)
    built: dict[str, dict[int, Any]] = {"sessions": {}, "store": {}}
    labels = {s["sid"]: s["label"] for s in bundle["sessions"]}
    hashes: dict[str, str] = {}
    for t in bundle["turns"]:
        fields = {k: t[k] for k in ("bates", "question", "audit_mode", "created_at")}
        fields.update(cache_key=_hex(t["cache_key"]), label=t["created_label"])
        fields["parent_node_hash"] = hashes.get(t["parent_bates"])
        node = hashes[t["bates"]] = _sha(_cj(fields))
        built["sessions"][t["event_seq"]] = (
            {"label": labels[t["bates"][:-7]], "root_node_hash": node}
            if t["parent_bates"] is None
            else {
                "node_hash": node,
                "parent_bates": t["parent_bates"],
                "answer_hash": _sha(t["answer_text"].encode()),
                "titles_hash": _sha(json.dumps(t["cited_titles"], ensure_ascii=False).encode()),
            }
        )
    documents = {d["source_root"]: d for d in bundle["documents"]}
    leaves = {}
    for c in bundle["chunks"]:  # a cited chunk's leaf: its text's hash
        document = documents[c["source_root"]]
        node = sha(b"\x00" + c["text"].encode()).digest() if "text" in c else _bytes(c["leaf"])
        index, last = c["chunk_index"], document["chunk_count"] - 1
        leaves[c["source_root"], c["chunk_index"]] = node.hex()
        for at in c["proof"]:
            sibling = _bytes(document["nodes"][at])
            if index & 1 or index == last:
                node = sha(b"\x03" + sibling + node).digest()
                while not index & 1 and index:
                    index, last = index >> 1, last >> 1
            else:
                node = sha(b"\x03" + node + sibling).digest()
            index, last = index >> 1, last >> 1
        assert node == _bytes(c["source_root"])
    for r in bundle["records"]:
        refs = [
            {
                "source_root": _hex(x["source_root"]),
                "chunk_index": x["chunk_index"],
                "leaf": leaves[x["source_root"], x["chunk_index"]],
            }
            for x in r["evidence"]
        ]
        root = _fold([sha(b"\x00" + _cj(ref)).digest() for ref in refs]).hex()
        asked = _sha(" ".join(unicodedata.normalize("NFC", r["question"]).split()).encode())
        dims = {k: _hex(v) if k.endswith("_hash") else v for k, v in r["dimensions"].items()}
        key = _hex(r["cache_key"])
        assert _sha(_cj({**dims, "source_root": root, "question_hash": asked})) == key
        assert r["dimensions"]["model_profile_hash"] in bundle["profiles"]
        assert r["dimensions"]["governance_policy_hash"] in bundle["policies"]
        fields = {k: r[k] for k in ("revision", "question", "audit_mode", "created_at")}
        evidence = [
            {**ref, "chunk_count": documents[x["source_root"]]["chunk_count"], "cited": x["cited"]}
            for ref, x in zip(refs, r["evidence"], strict=True)
        ]
        answer = _sha(r["answer_text"].encode())
        fields.update(cache_key=key, evidence=evidence, answer_hash=answer)
        built["store"][r["event_seq"]] = {
            "cache_key": key,
            "revision": r["revision"],
            "record_hash": _sha(_cj(fields)),
            "evidence_root": root,
            "answer_hash": answer,
            "response_hash": _sha(r["response_json"].encode()),
        }
    for member in ("profiles", "policies"):  # format 3: each held to its key
        for digest, value in bundle[member].items():
            assert _sha(_cj(value)) == _hex(digest)
    for name, chain in bundle["chains"].items():
        prev = _bytes(chain["prev_event_hash"]) if chain["prev_event_hash"] else b""
        for e in chain["events"]:
            fields = {k: e[k] for k in ("bates", "created_at", "event_type", "sid")}
            fields["body"] = e["body"] if "body" in e else built[name][e["seq"]]
            prev = sha(prev + _cj(fields)).digest()
        assert chain["head"] is None or prev == _bytes(chain["head"]["event_hash"])


def _bytes(digest: str) -> bytes:
    """A base64url digest's bytes, the fastest plain way (``base64.urlsafe_b64decode`` takes
    twice as long): what the reader does too, less its memo of each digest's decoding."""
    return binascii.a2b_base64(digest.replace("-", "+").replace("_", "/") + "=")


def _hex(digest: str) -> str:
    return _bytes(digest).hex() if digest else ""


def _fold(level: list[bytes]) -> bytes:
    """RFC 6962's root: split at the largest power of two below the count."""
    if len(level) == 1:
        return level[0]
    if not level:
        return hashlib.sha256(b"").digest()
    k = 1
    while 2 * k < len(level):
        k *= 2
    return hashlib.sha256(b"\x03" + _fold(level[:k]) + _fold(level[k:])).digest()


def interleaved(
    runs: dict[str, Callable[[], object]], rounds: int
) -> tuple[dict[str, float], float]:
    """The best of ``rounds`` of each run (``ours`` and ``floor``), taking turns (which goes
    first alternates), and the median over the rounds of ours/floor (bench/gate.py's way)."""
    best = dict.fromkeys(runs, float("inf"))
    ratios = []
    for turn in range(rounds):
        seconds = {}
        for name in sorted(runs, reverse=turn % 2 == 1):
            started = time.perf_counter()
            runs[name]()
            seconds[name] = time.perf_counter() - started
            best[name] = min(best[name], seconds[name])
        ratios.append(seconds["ours"] / seconds["floor"])
    return best, statistics.median(ratios)


def shares(data: bytes) -> list[tuple[str, int]]:
    """Each top-level member's bytes in the bundle (its canonical JSON), largest first."""
    bundle = json.loads(data)
    parts = [(name, len(_cj(value))) for name, value in bundle.items()]
    return sorted(parts, key=lambda part: -part[1])


def run(turns: int, rounds: int, seed: int, quick: bool) -> tuple[list[str], list[str]]:
    """The report's lines and its markdown section's lines."""
    with tempfile.TemporaryDirectory(prefix="bench-bundle-") as tmp:
        data, made = build_home(Path(tmp) / "home", turns, seed)
    report = check_bundle(data)
    assert report.ok, report.problems[:3]
    floor(data)
    bundle = json.loads(data)
    asked = sum(t["parent_bates"] is not None for t in bundle["turns"])
    evidence = sum(len(r["evidence"]) for r in bundle["records"])
    cited = sum(len(c["text"].encode()) for c in bundle["chunks"] if "text" in c)
    per_turn = (len(data) - cited) / asked
    best, ratio = interleaved(
        {"ours": lambda: check_bundle(data), "floor": lambda: floor(data)}, rounds
    )
    whole = min(_timed(lambda: hashlib.sha256(data).digest()) for _ in range(rounds))
    size_met, speed_met = per_turn <= SIZE_GOAL, ratio <= SPEED_GOAL
    lines = [
        f"bundle of {asked:,} turns ({len(bundle['sessions'])} sessions), {len(bundle['records']):,} "
        f"records citing {evidence:,} chunks ({len(bundle['chunks']):,} distinct, "
        f"{sum('text' in c for c in bundle['chunks']):,} with text); home made in "
        f"{made:.1f} s",
        f"size: {len(data):,} bytes, cited text {cited:,} bytes",
        "  member      bytes       per turn",
        *(f"  {name:<10}  {size:>10,}  {size / asked:>8,.0f}" for name, size in shares(data)),
        f"verify: {rounds} rounds, interleaved; best of each, median of ours/floor",
        f"  check_bundle (verify --bundle)   {best['ours'] * 1e3:9.1f} ms",
        f"  bare hashlib floor               {best['floor'] * 1e3:9.1f} ms",
        f"  one sha256 of the file (scale)   {whole * 1e3:9.1f} ms",
        "goals",
    ]
    if quick:
        lines.append("  quick run: a few turns, no goal judged")
    else:
        lines += [
            f"  {'MET   ' if size_met else 'MISSED'} size per turn beyond the cited text: "
            f"{per_turn:,.0f} bytes (goal <= {SIZE_GOAL:,})",
            f"  {'MET   ' if speed_met else 'MISSED'} verify --bundle over the bare hashlib floor: "
            f"{ratio:.2f}x (goal <= {SPEED_GOAL:.0f}x)",
        ]
    section = [
        "## A bundle's size and verify time (bench/bundle.py)",
        "",
        f"Measured {datetime.date.today().isoformat()}: {asked:,} turns asked with the "
        f"extractive answerer over a synthetic corpus, {evidence:,} evidence items "
        f"({len(bundle['chunks']):,} distinct chunks), bundled by `export --bundle`.",
        "",
        "| measure | figure | goal | verdict |",
        "|---|---|---|---|",
        f"| bytes per turn beyond the cited text | {per_turn:,.0f} | <= {SIZE_GOAL:,} | "
        f"{'MET' if size_met else 'MISSED'} |",
        f"| `verify --bundle` / bare hashlib floor (median of {rounds} interleaved rounds) | "
        f"{ratio:.2f}x ({best['ours'] * 1e3:.0f} ms / {best['floor'] * 1e3:.0f} ms) | <= 2x | "
        f"{'MET' if speed_met else 'MISSED'} |",
        "",
        f"The bundle: {len(data):,} bytes, of which cited text {cited:,}; one SHA-256 of the "
        f"whole file takes {whole * 1e3:.1f} ms. Per member (bytes per turn): "
        + ", ".join(f"{name} {size / asked:,.0f}" for name, size in shares(data))
        + ".",
    ]
    return lines, section


def _timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: no goal, no writing")
    parser.add_argument("--turns", type=int, default=None, help="turns asked (default 1,000)")
    parser.add_argument("--rounds", type=int, default=None, help="timing rounds (default 9)")
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--no-write", action="store_true", help="do not write bench/RESULTS.md")
    args = parser.parse_args()
    turns = args.turns or (12 if args.quick else 1_000)
    rounds = args.rounds or (3 if args.quick else 9)
    lines, section = run(turns, rounds, args.seed, args.quick)
    print("\n".join(lines))
    if not args.quick and not args.no_write:
        write_section(RESULTS, "bundle", "\n".join(section))
    return 0


if __name__ == "__main__":
    sys.exit(main())

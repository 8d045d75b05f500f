"""Arborist beside its peers, each on the same data in one run: a table of ratios.

    python bench/peers/run.py [--quick] [--seed S] [--out PATH | --no-write]

Machines here are shared and noisy (2 cores), so each figure sits next to
the peer's, measured in the same process on the same inputs, interleaved
where the operation is small; latencies are medians, bulk runs the best of
R. The ratio is ours over the peer's: below 1, ours is faster (or smaller).

1. **simonw/llm** (vs_llm.py): record a turn (``Response.log_to_db``) against
   ``insert_turn``; search (``llm logs -q``'s ``merged_log_rows``) against
   ``shard.find``.
2. **GPTCache** (vs_gptcache.py): an exact-match ``get`` (map and
   sqlite,faiss data managers) against a cache hit of ``runner.ask``.
3. **pymerkle** (vs_pymerkle.py): root, inclusion proof and verification
   over 10k and 100k entries against ``arborist._proofs.merkle``.
4. **ipytree** (vs_ipytree.py): bytes and time to bring a view of a
   10,000-node forest up to date after one new turn: ipytree's full widget
   state (and its live ``add_node``) against our subtree_hash sync.

A full run writes its section (``peers``) of ``bench/RESULTS.md`` (machine,
versions, date, the table and what each row compares; the other sections,
bench/goals.py's, stay as they are: bench/results.py); ``--quick`` is a smoke
run on small sizes that writes nothing unless given ``--out``. The peers come from the ``peers``
extra (``pip install -e '.[peers]'``; ``make bench`` installs it).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from common import ROOT, Row, make_vocabulary

from bench.results import write_section

PEER_PACKAGES = (
    "llm",
    "sqlite-utils",
    "gptcache",
    "faiss-cpu",
    "SQLAlchemy",
    "numpy",
    "pymerkle",
    "ipytree",
    "ipywidgets",
    "comm",
)
VOCABULARY = 4_000


@dataclass(frozen=True)
class Sizes:
    conversations: int
    turns_per: int
    search_rounds: int
    documents: int
    questions: int
    hit_rounds: int
    merkle: tuple[int, ...]
    merkle_repeat: int
    proofs: int
    sync_nodes: int
    sync_repeat: int


FULL = Sizes(400, 5, 5, 200, 50, 10, (10_000, 100_000), 3, 10, 10_000, 5)
QUICK = Sizes(30, 5, 2, 30, 15, 3, (1_000, 10_000), 2, 5, 1_000, 2)


def versions() -> dict[str, str]:
    found = {}
    for name in ("arborist", *PEER_PACKAGES):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "not installed"
    return found


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def load_average() -> str:
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def machine() -> list[tuple[str, str]]:
    return [
        ("platform", platform.platform()),
        ("CPU", f"{os.cpu_count()} x {cpu_model()}"),
        ("Python", f"{platform.python_version()} ({platform.python_implementation()})"),
        ("SQLite", sqlite3.sqlite_version),
        ("temp dir", tempfile.gettempdir()),
        ("load average at start (1, 5, 15 min)", load_average()),
    ]


def date_u(moment: datetime.datetime) -> str:
    """The moment as ``date -u`` prints it."""
    return moment.strftime("%a %b %d %H:%M:%S UTC %Y")


def fmt_time(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


def fmt_ratio(ratio: float | None) -> str:
    if ratio is None:
        return ""
    return f"{ratio:.4f}" if ratio < 0.01 else f"{ratio:.2f}"


def fmt_bytes(size: int | None) -> str:
    return "" if size is None else f"{size:,}"


HEADER = (
    "operation",
    "peer",
    "statistic",
    "peer time",
    "ours time",
    "ours/peer time",
    "peer bytes",
    "ours bytes",
    "ours/peer bytes",
)


def cells(row: Row) -> tuple[str, ...]:
    return (
        row.operation,
        row.peer,
        row.stat,
        fmt_time(row.peer_s),
        fmt_time(row.ours_s),
        fmt_ratio(row.time_ratio),
        fmt_bytes(row.peer_bytes),
        fmt_bytes(row.ours_bytes),
        fmt_ratio(row.bytes_ratio),
    )


def text_table(rows: list[Row]) -> str:
    table = [HEADER, *(cells(r) for r in rows)]
    widths = [max(len(line[i]) for line in table) for i in range(len(HEADER))]
    lines = []
    for n, line in enumerate(table):
        lines.append(
            "  ".join(
                c.ljust(w) if i < 3 else c.rjust(w)
                for i, (c, w) in enumerate(zip(line, widths, strict=True))
            ).rstrip()
        )
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def markdown_table(rows: list[Row]) -> str:
    lines = [
        "| " + " | ".join(HEADER) + " |",
        "|" + "|".join(":--" if i < 3 else "--:" for i in range(len(HEADER))) + "|",
    ]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in cells(r)) + " |" for r in rows]
    return "\n".join(lines)


SECTIONS = (
    ("simonw/llm: record a turn, search turns", "vs_llm"),
    ("GPTCache: an exact-match cache hit", "vs_gptcache"),
    ("pymerkle: root, inclusion proof, verification", "vs_pymerkle"),
    ("ipytree: one change in a tree of 10,000 nodes (1,000 with --quick)", "vs_ipytree"),
)

CAVEATS = """\
- **Each peer's own code runs.** llm: `Response.log_to_db` and
  `llm.logs.merged_log_rows` (the function behind `llm logs -q`), called
  directly, no SQL of theirs reproduced. GPTCache: `gptcache.adapter.api.put`
  and `get` on `Cache` objects. pymerkle: `InmemoryTree`, `prove_inclusion`,
  `verify_inclusion`. ipytree: real `ipytree.Node`/`Tree` widgets; the comm
  they would send on is replaced by a recorder (`comm.create_comm`), and the
  full state comes from ipywidgets' own `request_states` handler
  (`Widget._handle_control_comm_msg`, a private classmethod, called with the
  message a front end sends).
- **Where the setup is ours, not theirs**: llm answers through a tiny
  in-process model that returns the prepared text (no network); GPTCache's
  sqlite,faiss store is keyed by a SHA-256 "embedding" (no model download)
  with faiss on one thread; the "as ours" rows switch the peer's SQLite to
  WAL with `synchronous=NORMAL` (for GPTCache through its private
  `SQLStorage._engine`).
- **Not the same job.** Ours does work the peers do not (an audit chain
  entry and a Merkle ripple per turn; evidence retrieval and a key over its
  Merkle root on every cache hit), and they do things ours does not
  (GPTCache's semantic matching, pymerkle's consistency proofs, ipytree's
  widget model living in the kernel). A ratio is the price of one operation
  as each side really does it; the notes under each row say what that is.
- **One run on a shared, noisy machine.** Both sides of a row are measured
  in the same process, interleaved, so a ratio holds up better than either
  figure; still, between two runs while this was written, single figures
  moved by up to 2x, and the fsync-bound "as shipped" rows by up to 3x.
  Read the orders of magnitude, not the second digit.
"""


def write_results(
    path: Path,
    when: datetime.datetime,
    info: list[tuple[str, str]],
    rows_by_section: list[tuple[str, list[Row]]],
    elapsed: float,
    quick: bool,
) -> None:
    rows = [r for _, section in rows_by_section for r in section]
    out = [
        "## arborist beside its peers",
        "",
        "Written by `bench/peers/run.py`"
        + (" --quick" if quick else "")
        + " (`make bench`). Ratios are ours over the peer's: "
        "below 1, ours is faster (or sends fewer bytes).",
        "",
        f"- date: {date_u(when)}",
        *(f"- {name}: {value}" for name, value in info),
        "- peer versions: "
        + ", ".join(f"{name} {ver}" for name, ver in versions().items() if name != "arborist"),
        f"- arborist: {versions()['arborist']}",
        f"- whole run: {elapsed:.0f} s",
        "",
        "### Table",
        "",
        markdown_table(rows),
        "",
        "### What each row compares",
        "",
    ]
    for title, section in rows_by_section:
        out += [f"#### {title}", ""]
        for row in section:
            out.append(f"**{row.operation}**, against {row.peer}:")
            out.append("")
            for note in row.notes:
                out += [note, ""]
    out += ["### Caveats", "", CAVEATS]
    write_section(path, "peers", "\n".join(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="where to write RESULTS.md")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    sizes = QUICK if args.quick else FULL
    out = args.out or (None if args.quick else ROOT / "bench" / "RESULTS.md")
    if args.no_write:
        out = None

    try:  # the peer packages load after the argument check
        import vs_gptcache  # noqa: PLC0415
        import vs_ipytree  # noqa: PLC0415
        import vs_llm  # noqa: PLC0415
        import vs_pymerkle  # noqa: PLC0415
    except ImportError as exc:
        raise SystemExit(f"{exc}: install the peers with `pip install -e '.[peers]'`") from exc

    when = datetime.datetime.now(datetime.timezone.utc)
    began = time.perf_counter()
    print(f"arborist beside its peers{' (--quick)' if args.quick else ''}")
    info = machine()
    print("machine: " + "; ".join(f"{k} {v}" for k, v in info))
    print("versions: " + ", ".join(f"{k} {v}" for k, v in versions().items()))
    vocab = make_vocabulary(VOCABULARY, args.seed)
    results: list[tuple[str, list[Row]]] = []
    with tempfile.TemporaryDirectory(prefix="arborist-bench-peers-") as name:
        tmp = Path(name)
        steps = {
            "vs_llm": lambda: vs_llm.run(
                tmp / "llm",
                vocab,
                args.seed,
                sizes.conversations,
                sizes.turns_per,
                sizes.search_rounds,
            ),
            "vs_gptcache": lambda: vs_gptcache.run(
                tmp / "gptcache",
                vocab,
                args.seed,
                sizes.documents,
                sizes.questions,
                sizes.hit_rounds,
            ),
            "vs_pymerkle": lambda: vs_pymerkle.run(
                list(sizes.merkle), sizes.merkle_repeat, sizes.proofs, args.seed
            ),
            "vs_ipytree": lambda: vs_ipytree.run(
                tmp / "ipytree", vocab, args.seed, sizes.sync_nodes, sizes.sync_repeat
            ),
        }
        for title, module in SECTIONS:
            (tmp / module.removeprefix("vs_")).mkdir()
            start = time.perf_counter()
            rows = steps[module]()
            print(f"\n{title} ({time.perf_counter() - start:.1f} s)")
            print(text_table(rows))
            results.append((title, rows))
    elapsed = time.perf_counter() - began

    print("\nall rows (ours/peer below 1: ours faster or smaller)")
    print(text_table([r for _, rows in results for r in rows]))
    print(f"whole run: {elapsed:.0f} s")
    if out is not None:
        write_results(out, when, info, results, elapsed, args.quick)
        print(f"wrote {out}")


if __name__ == "__main__":
    sys.exit(main())

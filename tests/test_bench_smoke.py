"""Every bench script runs with ``--quick``: it exits 0, prints its tables, and writes nothing.

``make bench`` runs the scripts at full size (minutes); here each runs at its
``--quick`` sizes in a subprocess of this interpreter, so a script broken by a
change elsewhere (an API it calls, a migration it assumes, the JupyterLab it
drives) fails ``make test`` rather than the next ``make bench``. Only the
output's shape is checked (headers, row names), never a timing: machines here
are shared and noisy. No tracked file may change (``bench/RESULTS.md`` and
``bench/QUALITY.md`` are written only by full runs) and no new file may appear
in the checkout.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# (command line after the interpreter, what its output must hold, a timeout in seconds)
SCRIPTS: dict[str, tuple[list[str], list[str], int]] = {
    "hashing": (
        ["bench/hashing.py", "--quick"],
        ["measure", "ours", "hashlib", "merkle_root,", "verify_inclusion,", "chain check,"],
        120,
    ),
    "store": (
        ["bench/store.py", "--quick", "--no-profile"],
        [
            "1. ingest",
            "bare (plain)",
            "bare (same index)",
            "2. ask",
            "3. search",
            "4. vector search",
            "nearest(conn, profile, query, 40)",
            "bare: numpy float32",
            "held by nearest between calls",
            "headline figures",
            "whole run",
        ],
        180,
    ),
    "quality": (
        ["bench/quality.py", "--quick"],
        [
            "quality on the built-in corpus",
            "recall@5",
            "MRR",
            "bm25s",
            "ngram-384 (loopback)",
            "wordllama",  # its hybrid row, or the line saying it is not installed
            "follow-ups answered",
        ],
        180,
    ),
    "foreign": (
        ["bench/foreign.py", "--quick"],
        [
            "foreign corpus sample",
            "default (words alone)",
            "semantic",  # its row, or the line saying why it was not measured
            "bm25s (same chunks)",
            "misses on sample",
            "quick run: a sample corpus, no goal",
        ],
        180,
    ),
    "remote-lane": (
        ["bench/remote_lane.py", "--quick"],
        ["recall  MRR  phrase refused floor", "questions", "unanswerable", "served vs local"],
        300,
    ),
    "natural-questions": (["bench/check_natural_questions.py"], ["clean"], 120),
    "followup-labels": (
        ["bench/followup_labels.py", "--quick"],
        ["agreement", "standalone called follow-up", "follow-up called standalone"],
        60,
    ),
    "followup-learned": (
        ["bench/followup_learned.py", "--quick"],
        ["leave-one-set-out", "held-out set", "mean (all sets)", "mean h7..h10", "quick run"],
        120,
    ),
    "gate": (
        ["bench/gate.py", "--quick"],
        [
            "dev corpus",
            "ours (arborist._gate.admission)",
            "detect-secrets",
            "the gate alone (admit)",
            "ingest (prepare + store)",
            "goals",
        ],
        180,
    ),
    "gate-manuals": (
        ["bench/gate_manuals.py", "--quick"],
        [
            "redactions on real manuals",
            "reads per character",
            "the largest document, its reads",
            "quick run: a sample of each corpus",
        ],
        120,
    ),
    "embed-speed": (
        ["bench/embed_speed.py", "--quick"],
        ["embedding speed of the local model"],  # the table when the weights are installed
        300,
    ),
    "html-parse": (
        ["bench/html_parse.py", "--quick"],
        ["HTML to text", "flat prose (baseline)", "nested <div>, closed", "goals"],
        120,
    ),
    "places": (
        ["bench/places.py", "--quick"],
        [
            "1. first read of the places",
            "bare (fetch, re-hash)",
            "2. cache-hit ask",
            "places kept by the connection",
            "goals: kept/none",
            "whole run done",
        ],
        180,
    ),
    "pdf-ingest": (
        ["bench/pdf_ingest.py", "--quick"],
        ["PDF to text", "manual, 12 pages", "two columns", "hostile", "PDF too costly", "goals"],
        120,
    ),
    "coaccess": (
        ["bench/coaccess.py", "--quick"],
        [
            "1. write",
            "record_session",
            "spool + drain",
            "2. rebuild",
            "full build",
            "3. lookup",
            "related_edges",
        ],
        120,
    ),
    "bundle": (
        ["bench/bundle.py", "--quick"],
        [
            "bundle of 12 turns",
            "member      bytes       per turn",
            "check_bundle (verify --bundle)",
            "bare hashlib floor",
            "quick run: a few turns, no goal judged",
        ],
        120,
    ),
    "goals": (
        ["bench/goals.py", "--quick"],
        [
            "goals (ours/baseline against the goal)",
            "inclusion proof from the store",
            "inclusion proof in memory",
            "verify one proof",
            "record a turn at depth 100",
            "ask a turn at depth 200, less its ripple",
            "find a word in every turn",
            "cache-hit ask",
            "ingest",
            "chain-check on real turn events",
            "`arborist verify`",
            "`arborist --version`",
            "growth",
            "record a turn, by depth",
        ],
        240,
    ),
    "peers": (
        ["bench/peers/run.py", "--quick"],
        [
            "all rows",
            "ours/peer time",
            "llm log_to_db",
            "llm logs -q",
            "GPTCache get",
            "pymerkle prove_inclusion",
            "pymerkle verify_inclusion",
            "ipytree full state",
        ],
        300,
    ),
    "bundle-page": (
        ["bench/bundle_page.py", "--quick"],
        [
            "bundle of 40 turns, 200 chunks",
            "page's own (script start -> checked)",
            "navigation -> checked",
        ],
        300,
    ),
    "widget": (
        ["bench/widget.py", "--quick"],
        [
            "1. first screen, headless chromium in JupyterLab",
            "2. refresh after one new turn",
            "3. sync in Python",
            "4. support on the sync path",
            "headline figures",
            "first screen, 200-turn chain",
            "refresh after one new turn, bushy",
        ],
        300,
    ),
}


SMOKE_THREADS = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


def checkout_state() -> dict[str, tuple[int, int]]:
    """``{path: (size, mtime_ns)}`` of every file git tracks or would show as untracked
    (ignored files, such as caches and the built bundle, excluded); of every file under
    bench/ when this is not a git checkout (an sdist)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    if listed.returncode == 0:
        names = [n for n in listed.stdout.decode().split("\0") if n]
    else:
        names = [str(p.relative_to(ROOT)) for p in (ROOT / "bench").rglob("*") if p.is_file()]
    state = {}
    for name in names:
        try:
            stat = (ROOT / name).stat()
        except FileNotFoundError:  # tracked but deleted in this work tree
            continue
        state[name] = (stat.st_size, stat.st_mtime_ns)
    return state


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SCRIPTS))
def test_bench_script_runs_quick(name: str) -> None:
    args, expected, timeout = SCRIPTS[name]
    before = checkout_state()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
        # One BLAS thread: pytest's two workers already fill the two cores, and numpy's
        # threads spinning against the other worker made embed_speed.py's numpy pass ten
        # times slower (the Makefile runs bench/foreign.py the same way for that reason).
        **SMOKE_THREADS,
    }
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    elapsed = time.perf_counter() - start
    tail = f"\n--- stdout (end) ---\n{done.stdout[-3000:]}\n--- stderr ---\n{done.stderr[-3000:]}"
    assert done.returncode == 0, f"{' '.join(args)} exited {done.returncode}{tail}"
    missing = [text for text in expected if text not in done.stdout]
    assert not missing, f"{' '.join(args)} did not print {missing}{tail}"
    after = checkout_state()
    changed = sorted(
        path for path in before.keys() | after.keys() if before.get(path) != after.get(path)
    )
    assert not changed, f"{' '.join(args)} changed files in the checkout: {changed}"
    print(f"{name}: {elapsed:.1f} s")


def test_every_bench_script_is_in_the_smoke_run() -> None:
    scripts = {
        str(p.relative_to(ROOT))
        for p in (ROOT / "bench").rglob("*.py")
        if p.parent.name != "peers" or p.name == "run.py"
    }
    helpers = {
        "bench/results.py",
        "bench/merkle_paths.py",
        "bench/secret_corpus/make_corpus.py",
        "bench/foreign_corpora.py",  # fetches bench/foreign.py's corpora (make foreign-corpora)
        "bench/foreign_report.py",  # bench/foreign.py's reports
        "bench/vector_cache.py",  # bench/foreign.py's vectors kept between runs
    }
    assert scripts - helpers == {args[0] for args, _expected, _timeout in SCRIPTS.values()}

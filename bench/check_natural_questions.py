"""Check bench/natural_questions.json against its rules; exit 1 on any violation.

Deterministic: it re-executes itself with PYTHONHASHSEED=0 so pydoc's rendering
(which prints some sets) and hence chunk boundaries are the same on every run.
The only project code used is arborist._store.chunking.chunk_text.

    .venv/bin/python bench/check_natural_questions.py
"""

from __future__ import annotations

import json
import os
import pydoc
import re
import sys
from pathlib import Path

if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable, *sys.argv])

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arborist._store.chunking import chunk_text  # noqa: E402

CORPUS = [
    "abc",
    "argparse",
    "base64",
    "bisect",
    "codecs",
    "collections",
    "collections.abc",
    "colorsys",
    "concurrent.futures",
    "configparser",
    "contextlib",
    "copy",
    "csv",
    "dataclasses",
    "datetime",
    "decimal",
    "difflib",
    "email",
    "email.message",
    "email.utils",
    "enum",
    "fnmatch",
    "fractions",
    "functools",
    "getopt",
    "glob",
    "graphlib",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "html.parser",
    "http",
    "http.client",
    "http.cookies",
    "ipaddress",
    "itertools",
    "json",
    "keyword",
    "logging",
    "numbers",
    "operator",
    "pathlib",
    "pickle",
    "pprint",
    "queue",
    "random",
    "re",
    "reprlib",
    "sched",
    "secrets",
    "shlex",
    "shutil",
    "sqlite3",
    "statistics",
    "string",
    "struct",
    "tarfile",
    "textwrap",
    "threading",
    "timeit",
    "tokenize",
    "traceback",
    "types",
    "typing",
    "unicodedata",
    "urllib.parse",
    "uuid",
    "warnings",
    "weakref",
    "xml.etree.ElementTree",
    "zipfile",
]
assert len(CORPUS) == 72

KINDS = {"general", "absent_module", "near_miss", "opinion", "nonsense"}
LABELS = {"standalone", "followup"}
PRONOUNS = re.compile(
    r"\b(it|its|it's|this|that|these|those|them|they|their|one|ones|each)\b", re.I
)

MIN_NATURAL, MIN_NATURAL_MODULES = 60, 35
MIN_UNANSWERABLE, MIN_FOLLOWUP_LABELS = 45, 70
HOLDOUT = {
    "natural": (15, 25),
    "unanswerable": (8, 16),
    "followup_labels": (15, 25),
}
MIN_STANDALONE_WITH_PRONOUN = 8
MIN_FOLLOWUP_WITHOUT_PRONOUN = 15

errors: list[str] = []


def err(msg: str) -> None:
    errors.append(msg)


def collapse(s: str) -> str:
    return " ".join(s.split()).lower()


def qkey(s: str) -> str:
    return collapse(s).rstrip(" ?.!")


_texts: dict[str, str] = {}
_chunks: dict[str, list[str]] = {}


def text(module: str) -> str:
    if module not in _texts:
        _texts[module] = pydoc.render_doc(module, renderer=pydoc.plaintext)
    return _texts[module]


def chunks(module: str) -> list[str]:
    if module not in _chunks:
        _chunks[module] = [collapse(c.text) for c in chunk_text(text(module))]
    return _chunks[module]


def main() -> int:
    data = json.loads((ROOT / "bench" / "natural_questions.json").read_text())
    quality = json.loads((ROOT / "bench" / "quality_questions.json").read_text())

    if not isinstance(data.get("about"), str) or len(data["about"]) < 200:
        err("about: missing or too short")
    for key in ("natural", "unanswerable", "followup_labels"):
        if not isinstance(data.get(key), list):
            err(f"{key}: missing list")
            return report()

    existing: set[str] = set()
    for key in ("questions", "followups", "holdout", "paraphrase"):
        for q in quality.get(key, []):
            existing.add(qkey(q["question"]))
            if "followup" in q:
                existing.add(qkey(q["followup"]["question"]))

    ids: set[str] = set()
    questions: set[str] = set()
    for key in ("natural", "unanswerable", "followup_labels"):
        for e in data[key]:
            i = e.get("id")
            q = e.get("question")
            if not isinstance(i, str) or not i or i in ids:
                err(f"{key}: missing or duplicate id {i!r}")
            ids.add(i)
            if not isinstance(q, str) or not q.strip():
                err(f"{i}: missing question")
                continue
            k = qkey(q)
            if k in questions:
                err(f"{i}: duplicate question {q!r}")
            questions.add(k)
            if k in existing:
                err(f"{i}: question also in bench/quality_questions.json: {q!r}")
            if not isinstance(e.get("holdout"), bool):
                err(f"{i}: holdout must be true or false")
        n = len(data[key])
        h = sum(1 for e in data[key] if e.get("holdout") is True)
        lo, hi = HOLDOUT[key]
        if not lo <= h <= hi:
            err(f"{key}: {h} holdout, want {lo}-{hi}")
        print(f"{key}: {n} questions, {h} holdout")

    # 1. natural
    nat = data["natural"]
    if len(nat) < MIN_NATURAL:
        err(f"natural: {len(nat)} questions, want >= {MIN_NATURAL}")
    modules = set()
    for e in nat:
        i, m, p = e.get("id"), e.get("module"), e.get("phrase")
        if m not in CORPUS:
            err(f"{i}: module {m!r} is not a corpus module")
            continue
        modules.add(m)
        if not isinstance(p, str):
            err(f"{i}: missing phrase")
            continue
        phrase = collapse(p)
        words = len(phrase.split())
        if not 4 <= words <= 12:
            err(f"{i}: phrase has {words} words, want 4-12")
        if re.search(r"0x[0-9a-f]{6,}", phrase):
            err(f"{i}: phrase holds a memory address")
        if phrase not in collapse(text(m)):
            err(f"{i}: phrase not in pydoc:{m}: {p!r}")
            continue
        n = sum(1 for c in chunks(m) if phrase in c)
        if n == 0:
            err(f"{i}: phrase in pydoc:{m} but inside no single chunk")
        elif n > 4:
            err(f"{i}: phrase in {n} chunks of pydoc:{m}, want <= 4")
    print(f"natural: {len(modules)} modules")
    if len(modules) < MIN_NATURAL_MODULES:
        err(f"natural: {len(modules)} modules, want >= {MIN_NATURAL_MODULES}")

    # 2. unanswerable
    un = data["unanswerable"]
    if len(un) < MIN_UNANSWERABLE:
        err(f"unanswerable: {len(un)} questions, want >= {MIN_UNANSWERABLE}")
    kinds_seen = set()
    corpus_flat = {m: collapse(text(m)) for m in CORPUS}
    for e in un:
        i, kind, m = e.get("id"), e.get("kind"), e.get("module")
        if kind not in KINDS:
            err(f"{i}: kind {kind!r} not one of {sorted(KINDS)}")
            continue
        kinds_seen.add(kind)
        why = e.get("why")
        if not isinstance(why, str) or not why.strip() or "\n" in why:
            err(f"{i}: 'why' must be one non-empty line")
        terms = e.get("absent_terms")
        if not isinstance(terms, list) or not terms:
            err(f"{i}: absent_terms must be a non-empty list")
            terms = []
        if kind == "absent_module":
            if not isinstance(m, str) or not m:
                err(f"{i}: absent_module question needs 'module'")
            elif m in CORPUS:
                err(f"{i}: module {m!r} IS in the corpus")
            scope = CORPUS
        elif kind == "near_miss":
            if m not in CORPUS:
                err(f"{i}: near_miss module {m!r} is not a corpus module")
                continue
            scope = [m]
        else:
            if m is not None:
                err(f"{i}: {kind} question should name no module")
            scope = CORPUS
        for t in terms:
            tl = collapse(t)
            hits = [s for s in scope if tl in corpus_flat[s]]
            if hits:
                err(f"{i}: absent term {t!r} occurs in pydoc:{', pydoc:'.join(hits)}")
    if kinds_seen != KINDS:
        err(f"unanswerable: kinds missing: {sorted(KINDS - kinds_seen)}")
    for kind in sorted(KINDS):
        print(f"unanswerable: {sum(1 for e in un if e.get('kind') == kind)} {kind}")

    # 3. followup_labels
    fl = data["followup_labels"]
    if len(fl) < MIN_FOLLOWUP_LABELS:
        err(f"followup_labels: {len(fl)}, want >= {MIN_FOLLOWUP_LABELS}")
    pron_standalone = nopron_followup = 0
    for e in fl:
        i, lab, prev = e.get("id"), e.get("label"), e.get("previous")
        if lab not in LABELS:
            err(f"{i}: label {lab!r} not one of {sorted(LABELS)}")
            continue
        has_pronoun = bool(PRONOUNS.search(e.get("question", "")))
        if lab == "followup":
            if not isinstance(prev, str) or not prev.strip():
                err(f"{i}: followup needs a 'previous' question")
            elif qkey(prev) == qkey(e["question"]):
                err(f"{i}: previous equals the question")
            nopron_followup += not has_pronoun
        else:
            if prev is not None:
                err(f"{i}: standalone question must have no 'previous'")
            pron_standalone += has_pronoun
    for lab in sorted(LABELS):
        print(f"followup_labels: {sum(1 for e in fl if e.get('label') == lab)} {lab}")
    print(
        f"followup_labels: {pron_standalone} standalone with a pronoun, "
        f"{nopron_followup} followups without one"
    )
    if pron_standalone < MIN_STANDALONE_WITH_PRONOUN:
        err(f"followup_labels: only {pron_standalone} standalone questions with a pronoun")
    if nopron_followup < MIN_FOLLOWUP_WITHOUT_PRONOUN:
        err(f"followup_labels: only {nopron_followup} followups without a pronoun")
    for lab in LABELS:
        if sum(1 for e in fl if e.get("label") == lab) < 25:
            err(f"followup_labels: fewer than 25 {lab} questions")
    return report()


def report() -> int:
    for e in errors:
        print("FAIL", e)
    print("clean" if not errors else f"{len(errors)} violation(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

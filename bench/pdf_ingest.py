"""PDF to text: reading as a person reads (issue #40) beside pypdf's plain text, as before it.

    python bench/pdf_ingest.py [--quick] [--rounds N] [--pdf PATH ...]

Issue #40's goal: loading a PDF (:func:`arborist._store.pdf_text.load_pdf`, the whole path
from bytes to stored text: fragments with positions, running heads, columns, figures,
hyphens, contents and index pages, the outline's headings) costs at most 1.2 times what it
cost before, which was pypdf's plain ``extract_text`` of every page, normalized and joined
(the baseline here, that code as it was). Both run in the same process on the same bytes,
interleaved, CPU time, best of ``--rounds``.

The corpus is made here with reportlab (deterministic): a 120-page manual (running heads
and page numbers, hyphenated paragraphs, an outline, a contents page and an index), a
40-page two-column paper drawn row by row, and 30 pages of figures drawn as forms. Any
``--pdf`` given (real manuals, say) is timed too, and counts towards the goal. Last, the
hostile case the bound is for: a 6 KB file whose one stream inflates to 4 MB of text
operators (pypdf read it for about 10 s; now it is refused in one line).

``--quick`` is a smoke run (a tenth of the pages, one round, no goal).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reportlab.pdfgen import canvas  # type: ignore[import-untyped]  # noqa: E402

from arborist._errors import BadInput  # noqa: E402
from arborist._store.normalize import normalize_text  # noqa: E402
from arborist._store.pdf_text import load_pdf  # noqa: E402

GOAL_RATIO = 1.2

_PROSE = (
    "the alder grows by water and its cones stay through winter while birch bark peels "
    "in thin white sheets rowan berries feed thrushes hazel flowers before its leaves "
    "open components interactions measurements considerably representation"
)
WORDS = _PROSE.split()


def baseline(data: bytes) -> str:
    """pypdf's plain text of every page, normalized, joined by blank lines: how arborist read
    a PDF before issue #40 (its loader, less the checks that refuse a file)."""
    from pypdf import PdfReader  # noqa: PLC0415

    reader = PdfReader(io.BytesIO(data), strict=False)
    pages = [page.extract_text() or "" for page in reader.pages]
    return normalize_text("\n\n".join(normalize_text(page) for page in pages))


def _sentence(k: int) -> str:
    return " ".join(WORDS[(k * 7 + i * 3) % len(WORDS)] for i in range(11)) + "."


def _prose_lines(k: int, count: int, width: int) -> list[str]:
    """``count`` lines of about ``width`` characters, some ending in a hyphenated word."""
    text = " ".join(_sentence(k + i) for i in range(count * width // 60 + 2))
    rows, start = [], 0
    for row in range(count):
        end = min(start + width, len(text))
        cut = text.rfind(" ", start, end)
        if row % 5 == 2 and cut > start:  # cut the next word in two, with a hyphen
            word_end = text.find(" ", cut + 1)
            if word_end - cut > 6:
                rows.append(text[start : cut + 4] + "-")
                start = cut + 4
                continue
        rows.append(text[start:cut])
        start = cut + 1
    return rows


def manual(pages: int) -> bytes:
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, invariant=1)
    pdf.setFont("Helvetica", 10)
    for row in range(40):
        pdf.drawString(72, 720 - 14 * row, f"Section {row + 1} . . . . . . . . . . {row * 3 + 2}")
    pdf.showPage()
    for number in range(2, pages):
        pdf.setFont("Helvetica", 9)
        pdf.drawString(72, 760, f"Chapter {number // 10 + 1}: Trees and shrubs {number}")
        pdf.drawString(300, 40, str(number))
        if number % 3 == 0:
            pdf.bookmarkHorizontalAbsolute(f"s{number}", 730)
            pdf.addOutlineEntry(f"Section {number}", f"s{number}", level=0)
        pdf.setFont("Helvetica", 11)
        for row, line in enumerate(_prose_lines(number, 44, 85)):
            pdf.drawString(72, 720 - 14 * row - 6 * (row // 8), line)
        pdf.showPage()
    pdf.setFont("Helvetica", 10)
    for row in range(45):
        pdf.drawString(
            72, 720 - 14 * row, f"{WORDS[row % len(WORDS)]} . . . . . {row + 2}, {row + 9}"
        )
    pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def paper(pages: int) -> bytes:
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, invariant=1)
    for number in range(pages):
        pdf.setFont("Times-Roman", 10)
        left, right = _prose_lines(number, 50, 48), _prose_lines(number + 500, 50, 48)
        for row in range(50):
            pdf.drawString(72, 730 - 12 * row, left[row])
            pdf.drawString(320, 730 - 12 * row, right[row])
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def figures(pages: int) -> bytes:
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, invariant=1)
    for number in range(pages):
        pdf.beginForm(f"plot{number}")
        pdf.setFont("Helvetica", 8)
        for k in range(10):
            pdf.drawString(40 + 40 * k, 10, str(k * 5))
            pdf.drawString(10, 30 + 25 * k, f"{k * 0.1:.1f}")
        pdf.drawString(150, 0, "Age (years)")
        pdf.endForm()
        pdf.setFont("Helvetica", 11)
        for row, line in enumerate(_prose_lines(number, 20, 85)):
            pdf.drawString(72, 720 - 14 * row, line)
        pdf.saveState()
        pdf.translate(100, 100)
        pdf.doForm(f"plot{number}")
        pdf.restoreState()
        pdf.drawString(72, 80, f"Figure {number + 1}: Height by age.")
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def hostile() -> bytes:
    """A one-page PDF whose 6 KB hold one stream of 600,000 ``Tj`` operators (4.2 MB)."""
    sys.path.insert(0, str(ROOT))
    from tests.pdfs import flate_pdf  # noqa: PLC0415

    return flate_pdf(b"BT /F1 12 Tf 72 720 Td " + b"(a) Tj " * 600_000 + b"ET")


def cpu(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def timed(data: bytes, rounds: int) -> tuple[float, float]:
    """Best CPU seconds of the baseline and of ours, interleaved."""
    base = ours = float("inf")
    for _ in range(rounds):
        base = min(base, cpu(lambda: baseline(data)))
        ours = min(ours, cpu(lambda: load_pdf(data, "bench.pdf")))
    return base, ours


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: a tenth, no goal")
    parser.add_argument("--rounds", type=int, default=3, help="timings per PDF (best kept)")
    parser.add_argument("--pdf", type=Path, action="append", default=[], help="a PDF to time too")
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    rounds = 1 if args.quick else args.rounds
    corpus = {
        f"manual, {120 // scale} pages": manual(120 // scale),
        f"two columns, {40 // scale} pages": paper(40 // scale),
        f"figures, {30 // scale} pages": figures(30 // scale),
    }
    for path in args.pdf:
        corpus[path.name] = path.read_bytes()
    warm = manual(3)  # imports and caches warmed before anything is timed
    baseline(warm)
    load_pdf(warm, "warm.pdf")
    print(f"PDF to text, CPU seconds, best of {rounds}: pypdf's plain text (baseline) and ours")
    print(f"  {'PDF':34} {'bytes':>10} {'baseline':>9} {'ours':>8} {'ours/base':>10}")
    total_base = total_ours = 0.0
    for name, data in corpus.items():
        base, ours = timed(data, rounds)
        total_base += base
        total_ours += ours
        print(f"  {name:34} {len(data):>10,} {base:>9.3f} {ours:>8.3f} {ours / base:>10.2f}")
    ratio = total_ours / total_base
    print(f"  {'all':34} {'':>10} {total_base:>9.3f} {total_ours:>8.3f} {ratio:>10.2f}")
    bomb = hostile()
    try:
        load_pdf(bomb, "bomb.pdf")
        refused = ""
    except BadInput as exc:
        refused = str(exc)
    refusal = cpu(lambda: _refuse(bomb))
    print(f"\nhostile: {len(bomb):,} bytes, one stream of 4.2 MB: ours {refusal:.2f} s: {refused}")
    if not args.quick:
        print(f"  (the baseline reads it: {cpu(lambda: baseline(bomb)):.2f} s)")
    print("\ngoals")
    if args.quick:
        print(f"  (quick run: no goal; ours/baseline {ratio:.2f})")
        return 0
    met = ratio <= GOAL_RATIO
    print(
        f"  {'MET   ' if met else 'MISSED'} PDF to text at most {GOAL_RATIO}x the baseline: {ratio:.2f}x"
    )
    return 0 if met and refused else 1


def _refuse(data: bytes) -> None:
    with contextlib.suppress(BadInput):
        load_pdf(data, "bomb.pdf")


if __name__ == "__main__":
    sys.exit(main())

"""Small PDFs the PDF-reading tests make with reportlab, each with one thing a reader handles
(running heads, hyphens, two columns, a figure, contents and index pages, an outline), and
what every loaded PDF text must be: the one text form, but for the form feed opening each page.
"""

from __future__ import annotations

import io
import re
import zlib
from collections.abc import Callable, Sequence

from reportlab.pdfgen import canvas  # type: ignore[import-untyped]

from arborist._store.chunking import Chunk
from arborist._store.normalize import normalize_text

__all__ = [
    "Draw",
    "chunk_pages",
    "flate_pdf",
    "is_paged_text",
    "make_pages",
    "page_of",
]

Draw = Callable[[canvas.Canvas, int], None]
"""Draws page ``n`` (from 1) on the canvas; :func:`make_pages` ends the page."""

_PAGE_FEEDS = re.compile(r"(?:\A|(?<=\n\n))\f+")


def is_paged_text(text: str) -> bool:
    """Whether ``text`` is in the one text form but for form feeds, each run of them at the
    start of the text or right after a blank line (where a page opens)."""
    bare = _PAGE_FEEDS.sub("", text)
    return "\f" not in bare and normalize_text(bare) == bare


def make_pages(
    draws: Sequence[Draw],
    *,
    title: str | None = None,
    outline: Sequence[tuple[str, int, int, float]] = (),
) -> bytes:
    """A PDF of one page per draw; ``outline`` is ``(title, level from 0, page from 1, top)``
    bookmarks, each pointing at ``top`` on its page."""
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, invariant=1)
    if title is not None:
        pdf.setTitle(title)
    for number, draw in enumerate(draws, 1):
        draw(pdf, number)
        for k, (name, level, page, top) in enumerate(outline):
            if page == number:
                pdf.bookmarkHorizontalAbsolute(f"mark{k}", top)
                pdf.addOutlineEntry(name, f"mark{k}", level=level)
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def flate_pdf(stream: bytes) -> bytes:
    """A one-page PDF whose one content stream is ``stream``, deflated."""
    packed = zlib.compress(stream, 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(packed) + packed + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\n" % (len(objects) + 1))
    out.write(b"startxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


def page_of(chunks: Sequence[Chunk], i: int) -> int:
    """The page chunk ``i`` is on: one more than the form feeds in chunks 0 to ``i``."""
    return 1 + sum(chunk.text.count("\f") for chunk in chunks[: i + 1])


def chunk_pages(chunks: Sequence[Chunk]) -> list[int]:
    return [page_of(chunks, i) for i in range(len(chunks))]

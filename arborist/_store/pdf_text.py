"""PDF text by pypdf, read as a person reads it, each page after the first opening with ``\f``.

The text of a PDF is its pages' texts in order, each page after the first
starting with one form feed (``"\f"``), and a page without text (blank, a figure
alone, a contents or index page left out) still giving its ``"\f"``: the page a
character is on is one more than the form feeds before it. Pages are separated
by a blank line before the form feed, so :func:`~arborist._store.chunking.iter_chunks`
starts a chunk at each page with the ``"\f"`` as its first character, and the
page of chunk *i* is one more than the form feeds in chunks 0 to *i*: a fact of
the committed chunk bytes. Form feeds a page does not open with are gone (the
one text form has no control characters but these).

pypdf gives each page's text as fragments with their positions
(:mod:`arborist._store.pdf_layout` makes lines in reading order of them, and
leaves figure text out); the pages are then read together
(:mod:`arborist._store.pdf_pages`: running heads, contents and index pages,
hyphens, the outline's headings).

pypdf parses hostile bytes and fails in open-ended ways, and it logs what it
repairs; both are kept at this edge. Its work is bounded by the file's size
(:data:`WORK_BASE`, :data:`WORK_PER_BYTE`): a small file whose streams inflate
to millions of operators is refused in one line rather than read for seconds.
It is imported when the first PDF is loaded, not with this module: it is the
heaviest import loading has, and most commands never read a PDF.
"""

from __future__ import annotations

import io
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from arborist._errors import ArboristError, BadInput, one_line
from arborist._store.pdf_layout import Fragment, page_lines
from arborist._store.pdf_pages import Mark, page_texts

if TYPE_CHECKING:
    from pypdf import PdfReader

__all__ = ["WORK_BASE", "WORK_PER_BYTE", "load_pdf", "pages_text"]

WORK_BASE = 50_000
"""Content-stream tokens (operators and operands) any PDF may have read, beside :data:`WORK_PER_BYTE`."""

WORK_PER_BYTE = 8
"""Tokens read per byte of the file, at most. Real manuals use under one per byte (the
1,158-page Octave manual 0.56, the Bash and gnuplot manuals 0.25); a 6 KB file whose one
stream inflates to 4 MB of text operators has about 200."""

log = logging.getLogger(__name__)

_PYPDF_LOCK = threading.Lock()


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def _pypdf_messages(label: str) -> Iterator[None]:
    """Keep pypdf's log chatter about repaired PDFs off the user's terminal.

    pypdf reports what it repaired ("Ignoring wrong pointing object ...")
    through the ``pypdf`` logger; with logging unconfigured Python prints those
    on stderr, mid progress bar. While we parse, they go to a handler of our
    own instead of propagating, and come back out at DEBUG on this module's
    logger, naming the file. A lock keeps two threads from racing on the
    logger's ``propagate`` flag.
    """
    logger = logging.getLogger("pypdf")
    collect = _Collect()
    with _PYPDF_LOCK:
        propagate = logger.propagate
        logger.addHandler(collect)
        logger.propagate = False
        try:
            yield
        finally:
            logger.propagate = propagate
            logger.removeHandler(collect)
    for record in collect.records:
        log.debug("%s: pypdf: %s", label, record.getMessage())


class _TooMuchWork(BaseException):
    """The work bound reached inside pypdf: a BaseException, so that pypdf's own ``except
    Exception`` around a form's text does not swallow it."""


class _Fragments:
    """pypdf's visitors: each page's text fragments with their positions, and the work bound.

    A fragment is in a form when it is drawn between a ``Do`` operator's first inner
    operator and that ``Do``'s end: pypdf reports the ``Do`` before flushing the page's
    pending text, so the text flushed then is still the page's.
    """

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.fragments: list[Fragment] = []
        self._open: list[bool] = []  # per Do being drawn: has an operator inside it come yet
        self._inside = 0

    def before(self, operator: bytes, operands: list[object], cm: object, tm: object) -> None:
        self.budget -= 1 + len(operands)
        if operator == b"TJ" and operands and isinstance(operands[0], list):
            self.budget -= len(operands[0])
        if self.budget < 0:
            raise _TooMuchWork
        if self._open and not self._open[-1]:
            self._open[-1] = True
            self._inside += 1
        if operator == b"Do":
            self._open.append(False)

    def after(self, operator: bytes, operands: object, cm: object, tm: object) -> None:
        if operator == b"Do" and self._open and self._open.pop():
            self._inside -= 1

    def text(self, text: str, cm: list[float], tm: list[float], font: object, size: float) -> None:
        if not text:
            return
        x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        scale = abs(tm[3] * cm[3] + tm[2] * cm[1]) or 1.0
        self.fragments.append((x, y, abs(size) * scale, text, self._inside > 0))

    def page(self, page: object) -> list[Fragment]:
        """The fragments of one page (``page.extract_text`` with these visitors)."""
        self.fragments = []
        self._open, self._inside = [], 0
        page.extract_text(  # type: ignore[attr-defined]
            visitor_operand_before=self.before,
            visitor_operand_after=self.after,
            visitor_text=self.text,
        )
        return self.fragments


def load_pdf(data: bytes, label: str) -> tuple[str, str]:
    """The PDF's text (see the module docstring) and its title: /Title, or the first line."""
    if b"%PDF-" not in data[:1024]:  # readers accept junk before the header, within 1 KiB
        raise BadInput(f"{label}: not a PDF (no %PDF- header)")
    # Imported on the first PDF, not with this module: see the module's docstring.
    from pypdf import PdfReader, apply_configuration  # noqa: PLC0415
    from pypdf.errors import DependencyError, LimitReachedError  # noqa: PLC0415

    budget = WORK_BASE + WORK_PER_BYTE * len(data)
    too_much = f"{label}: PDF too costly to read: its content streams hold more than {budget:,} tokens ({len(data):,}-byte file)"
    with (
        _pypdf_messages(label),
        apply_configuration(stream_parsing_work_maximum_count=min(budget, 2_000_000)),
    ):
        try:
            reader = PdfReader(io.BytesIO(data), strict=False)
            if reader.is_encrypted and not reader.decrypt(""):
                raise BadInput(f"{label}: PDF is encrypted (password-protected)")
            visitors = _Fragments(budget)
            pages = [
                page_lines(visitors.page(page), float(page.mediabox.width)) for page in reader.pages
            ]
            marks = _marks(reader)
            meta_title = _pdf_title(reader)
        except ArboristError:
            raise
        except (_TooMuchWork, LimitReachedError) as exc:
            raise BadInput(too_much) from exc
        except DependencyError as exc:
            raise BadInput(f"{label}: PDF is encrypted; reading it needs {one_line(exc)}") from exc
        except Exception as exc:
            # pypdf parses hostile bytes and fails in open-ended ways (PdfReadError,
            # but also KeyError, ValueError, zlib.error, RecursionError, ...): any of
            # them means "this PDF cannot be read", which is the user's one line.
            raise BadInput(f"{label}: corrupt or unreadable PDF: {_pdf_reason(exc)}") from exc
    text = pages_text(page_texts(pages, marks))
    if not text.strip():
        raise BadInput(f"{label}: PDF has no extractable text (scanned?)")
    first = next((line for line in text.split("\n") if line.strip(" \f#")), "")
    title = meta_title or first.strip().lstrip("#").strip()
    return title, text


def pages_text(pages: list[str]) -> str:
    """Pages' texts as one text: each page after the first opens with ``\f``, after a blank
    line; a page without text gives its ``\f`` to the next page with text; form feeds after
    the last page with text are left out."""
    parts: list[str] = []
    feeds = 0
    for number, page in enumerate(pages):
        feeds += number > 0
        if page:
            parts.append("\f" * feeds + page)
            feeds = 0
    return "\n\n".join(parts)


def _marks(reader: PdfReader) -> list[Mark]:
    """The outline's entries in order, each with its page and depth; none if it is unreadable."""
    marks: list[Mark] = []
    try:
        outline = reader.outline
    except Exception:  # an outline pypdf cannot read is no outline: the text is still read
        log.debug("unreadable PDF outline", exc_info=True)
        return marks
    stack: list[tuple[list[object], int]] = [(list(outline), 1)]
    while stack:
        items, depth = stack.pop()
        for k, item in enumerate(items):
            if isinstance(item, list):
                stack.append((items[k + 1 :], depth))
                stack.append((item, depth + 1))
                break
            marks.extend(_mark(reader, item, depth))
    return marks


def _mark(reader: PdfReader, item: object, depth: int) -> list[Mark]:
    try:
        page = reader.get_destination_page_number(item)  # type: ignore[arg-type]
        title = str(item.title or "")  # type: ignore[attr-defined]
        top = item.get("/Top") if hasattr(item, "get") else None
    except Exception:  # a bookmark pointing nowhere is left out
        return []
    if page is None or page < 0 or not title.strip():
        return []
    return [Mark(page, depth, title, float(top) if isinstance(top, (int, float)) else None)]


_PLACEHOLDER_PDF_TITLES = frozenset({"untitled", "untitled document", "no title"})


def _pdf_title(reader: PdfReader) -> str:
    """/Title from the document info, unless it is a producer's placeholder (reportlab writes "untitled")."""
    metadata = reader.metadata
    title = metadata.title if metadata is not None else None
    if not isinstance(title, str) or title.strip().lower() in _PLACEHOLDER_PDF_TITLES:
        return ""
    return title


def _pdf_reason(exc: Exception) -> str:
    detail = one_line(exc)
    kind = type(exc).__name__
    return f"{kind}: {detail}" if detail else kind

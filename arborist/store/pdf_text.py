"""PDF text by pypdf: every page's text, pages separated by blank lines.

pypdf parses hostile bytes and fails in open-ended ways, and it logs what it
repairs; both are kept at this edge. It is imported when the first PDF is
loaded, not with this module: it is the heaviest import loading has, and most
commands never read a PDF.
"""

from __future__ import annotations

import io
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from arborist.errors import ArboristError, BadInput, one_line
from arborist.store.normalize import normalize_text

if TYPE_CHECKING:
    from pypdf import PdfReader

__all__ = ["load_pdf"]

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


def load_pdf(data: bytes, label: str) -> tuple[str, str]:
    """Every page's text, pages separated by blank lines; title from /Title or the first line."""
    if b"%PDF-" not in data[:1024]:  # readers accept junk before the header, within 1 KiB
        raise BadInput(f"{label}: not a PDF (no %PDF- header)")
    # Imported on the first PDF, not with this module: see the module's docstring.
    from pypdf import PdfReader  # noqa: PLC0415
    from pypdf.errors import DependencyError  # noqa: PLC0415

    with _pypdf_messages(label):
        try:
            reader = PdfReader(io.BytesIO(data), strict=False)
            if reader.is_encrypted and not reader.decrypt(""):
                raise BadInput(f"{label}: PDF is encrypted (password-protected)")
            pages = [page.extract_text() or "" for page in reader.pages]
            meta_title = _pdf_title(reader)
        except ArboristError:
            raise
        except DependencyError as exc:
            raise BadInput(f"{label}: PDF is encrypted; reading it needs {one_line(exc)}") from exc
        except Exception as exc:
            # pypdf parses hostile bytes and fails in open-ended ways (PdfReadError,
            # but also KeyError, ValueError, zlib.error, RecursionError, ...): any of
            # them means "this PDF cannot be read", which is the user's one line.
            raise BadInput(f"{label}: corrupt or unreadable PDF: {_pdf_reason(exc)}") from exc
    text = normalize_text("\n\n".join(normalize_text(page) for page in pages))
    if not text.strip():
        raise BadInput(f"{label}: PDF has no extractable text (scanned?)")
    title = meta_title or next((line for line in text.split("\n") if line.strip()), "")
    return title, text


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

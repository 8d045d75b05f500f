"""What every view module writes with. Pure: no I/O.

A field printed inside a line of arborist's own output (a question, a title, a URI, a
label, a reason) goes through :func:`field`: one line, inert. :mod:`arborist.views` and
:mod:`arborist.views_forest` both import it; faces reach it as ``views.field``.
"""

from __future__ import annotations

from arborist.terminal import inert

__all__ = [
    "field",
]


def field(text: str | None) -> str:
    """A field printed inside a line (a question, title, URI, label, reason): one line,
    inert, so a newline in it cannot forge a line of arborist's own output."""
    return inert(text or "", one_line=True)

"""Jupyter notebooks as text: markdown and code cells in order, outputs left out.

Outputs are what a run printed, not what the author wrote, and they change with
every run; the cells are the document.
"""

from __future__ import annotations

import json
from typing import Any

from arborist._errors import BadInput, one_line
from arborist._store.normalize import decode_text, normalize_text
from arborist._store.text_titles import markdown_title

__all__ = ["load_notebook"]


def load_notebook(data: bytes, label: str) -> tuple[str, str]:
    """Markdown and code cells in order as plain text, a blank line between cells; outputs skipped."""
    try:
        notebook = json.loads(decode_text(data, label, None))
    except (ValueError, RecursionError) as exc:  # ValueError: also an integer of 4300+ digits
        raise BadInput(f"{label}: malformed notebook JSON: {one_line(exc)}") from exc
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise BadInput(f"{label}: not a Jupyter notebook (nbformat 4 with a 'cells' list)")
    parts: list[str] = []
    title = ""
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict):
            raise BadInput(f"{label}: cell {index} is not an object")
        kind = cell.get("cell_type")
        if kind not in ("markdown", "code"):
            continue  # raw cells and unknown kinds carry no prose
        source = _cell_source(cell.get("source", ""), label, index)
        text = normalize_text(source)
        if not text:
            continue
        if kind == "markdown" and not title:
            title = markdown_title(text)
        parts.append(text)
    if not title:
        metadata = notebook.get("metadata")
        meta_title = metadata.get("title") if isinstance(metadata, dict) else None
        title = meta_title if isinstance(meta_title, str) else ""
    return title, "\n\n".join(parts)


def _cell_source(source: Any, label: str, index: int) -> str:
    if isinstance(source, str):
        return source
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        return "".join(source)
    raise BadInput(f"{label}: cell {index} has a source that is neither text nor a list of text")

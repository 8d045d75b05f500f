"""A ``%%ask`` cell's ``{...}`` fields (a notebook variable, or another cell's input, output or
error, as jupyter-ai's ``%%ai`` takes them), and a cell's identity: the turn it showed last.

``{name}`` is the variable ``name``; ``{In[3]}``, ``{Out[3]}`` and ``{Err[3]}`` are cell 3's
source, its output (the value it returned, as text) and the error it raised (its
traceback, as text); a negative number counts back from the asking cell, so ``{Err[-1]}``
is the error of the cell run just before it. ``{{`` and ``}}`` are braces. A field that
names nothing the notebook has is a one-line refusal, never an empty string sent to a
model. The question made is admitted like any other (the secret gate sees what a cell
brought in).

A cell is known by the id the front end sends with it (JupyterLab, Notebook 7 and VS Code
put ``cellId`` in the request's metadata). :class:`CellTurns` keeps, for each cell of this
kernel, the turn it showed last and why it was filed there, so that a cell run again with
the same question lands where its turn is, whatever moved the session's current turn in
between (the forest widget's "Set as current", another cell's question): it never grows a
turn that exists (README, "How a notebook's cells chain"). Without an id (nbclient, a plain
IPython shell) nothing is known of a cell, and the session's current turn decides.
"""

from __future__ import annotations

import re
import string
import traceback
from dataclasses import dataclass
from typing import Any, Protocol

from arborist._forest.nodes import Node
from arborist._proofs.hashing import normalize_question

__all__ = ["CellErrors", "CellKeeper", "CellTurn", "CellTurns", "Unfilled", "fill"]

_CELL_FIELD = re.compile(r"(In|Out|Err)\[(-?\d{1,9})\]")


class Unfilled(ValueError):
    """A field the notebook cannot fill; its message is the one line a cell shows."""


class CellErrors:
    """The error each cell raised, by execution count: IPython's ``post_run_cell`` event
    feeds :meth:`record` (jupyter-ai keeps the same table as ``Err``)."""

    def __init__(self) -> None:
        self.by_count: dict[int, str] = {}

    def record(self, result: Any) -> None:
        error = getattr(result, "error_in_exec", None) or getattr(result, "error_before_exec", None)
        count = getattr(result, "execution_count", None)
        if error is not None and isinstance(count, int):
            self.by_count[count] = "".join(traceback.format_exception(error)).rstrip()


@dataclass(frozen=True)
class CellTurn:
    """The turn a cell showed last: its session, bates and parent, the question asked (as
    normalized for the cache key) and why it was filed there (see ``ArboristMagics``)."""

    sid: str
    bates: str
    parent: str
    question: str
    why: str


class CellKeeper(Protocol):
    """Where a notebook's cell turns outlive the kernel (the facade: ``sessions.db``)."""

    def cell_turn(self, notebook: str, cell: str) -> tuple[Node, str] | None: ...

    def remember_cell_turn(self, notebook: str, cell: str, node: Node, why: str) -> None: ...


class CellTurns:
    """The turn each cell showed last, by the front end's cell id: this kernel's in memory,
    and, when the notebook's path is known, kept by ``keeper`` so that a cell re-run after a
    kernel restart still finds its turn (the kept row names only a turn; its session,
    parent and question are the turn's own, read back from the store)."""

    def __init__(self, keeper: CellKeeper | None = None) -> None:
        self.by_cell: dict[str, CellTurn] = {}
        self.keeper = keeper

    def earlier(
        self, cell: str | None, question: str, sid: str | None, notebook: str | None = None
    ) -> CellTurn | None:
        """The turn cell ``cell`` (of ``notebook``) showed last, when it asked ``question``
        in session ``sid`` (a cell whose question was edited, or asked in another session
        since, is asked as a new one); None for a cell without an id or never run."""
        if cell is None or sid is None:
            return None
        found = self.by_cell.get(cell) or self._kept(notebook, cell)
        if found is None or found.sid != sid or found.question != normalize_question(question):
            return None
        return found

    def _kept(self, notebook: str | None, cell: str) -> CellTurn | None:
        kept = self.keeper.cell_turn(notebook, cell) if self.keeper and notebook else None
        if kept is None:
            return None
        node, why = kept
        if node.parent_bates is None:
            return None
        return CellTurn(
            node.sid, node.bates, node.parent_bates, normalize_question(node.question), why
        )

    def remember(
        self, cell: str | None, question: str, node: Node, why: str, notebook: str | None = None
    ) -> None:
        """Cell ``cell`` (of ``notebook``) asked ``question`` and showed turn ``node``, filed
        there for ``why``."""
        if cell is None or node.parent_bates is None:
            return
        self.by_cell[cell] = CellTurn(
            node.sid, node.bates, node.parent_bates, normalize_question(question), why
        )
        if self.keeper is not None and notebook:
            self.keeper.remember_cell_turn(notebook, cell, node, why)


def fill(template: str, namespace: dict[str, Any], errors: CellErrors, count: int) -> str:
    """``template`` with each field replaced (see the module's docstring); ``count`` is the
    asking cell's execution count, which negative cell numbers count back from."""
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise Unfilled(f"bad {{...}} in the question: {exc}") from None
    out = []
    for text, name, spec, conversion in fields:
        out.append(text)
        if name is None:
            continue
        value = _value(name, namespace, errors, count)
        if conversion == "r":
            value = repr(value)
        elif conversion == "a":
            value = ascii(value)
        try:
            out.append(format(value, spec or ""))
        except (TypeError, ValueError) as exc:
            raise Unfilled(f"{{{name}:{spec}}}: {exc}") from None
    return "".join(out)


def _value(name: str, namespace: dict[str, Any], errors: CellErrors, count: int) -> Any:
    if name.isidentifier():
        if name not in namespace:
            raise Unfilled(f"{{{name}}} is not defined in the notebook")
        return namespace[name]
    cell = _CELL_FIELD.fullmatch(name)
    if cell is None:
        raise Unfilled(
            f"{{{name}}} is not a variable name or a cell (In[n], Out[n], Err[n]); "
            "write {{ and }} for braces"
        )
    kind, number = cell.group(1), int(cell.group(2))
    n = count + number if number < 0 else number
    table: Any = {"In": namespace.get("In"), "Out": namespace.get("Out"), "Err": errors.by_count}
    found = _cell(table[kind], n)
    if found is None or n >= count:
        what = {"In": "", "Out": " with an output", "Err": " that raised an error"}[kind]
        raise Unfilled(f"{{{name}}}: no cell {n}{what} before this one")
    return found if kind != "Out" else _text(found)


def _cell(table: Any, n: int) -> Any:
    """Entry ``n`` of IPython's ``In`` list or ``Out`` dict (or the errors' dict), if any."""
    if n < 1:
        return None
    if isinstance(table, list):
        return table[n] if n < len(table) and table[n] else None
    if isinstance(table, dict):
        return table.get(n)
    return None


def _text(value: Any) -> str:
    """An output as the notebook shows it as text (its repr, as ``Out`` prints)."""
    return value if isinstance(value, str) else repr(value)

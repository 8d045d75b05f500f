"""A saved notebook as a witness: the chain heads its outputs recorded (docs/design.md section 5b).

Every ``%%ask`` output shows one witness line naming both stores' chain heads at that
moment, each by its database::

    witness    sessions.db 12:<64 hex>, store.db 34:<64 hex>

A face shows what both files hold: the turn lives in sessions.db, the answer it shows,
its evidence, the cited documents and the answer's state in store.db. So a notebook
witnesses both, and each head is checked against its own store's chain (never matched
to whichever chain happens to hold its hash): a truncated tail or a rewritten suffix of
either store fails, and the failure names the store.

Older notebooks printed only the shard's checkpoint (``checkpoint 12:<64 hex>``, a line
of its own); that line is read as a sessions.db head. A ``verify`` or ``chain-check``
output kept in a notebook names each database at the start of its line, and its heads
are read as that database's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arborist._errors import BadInput, NotFound
from arborist._proofs.audit import Checkpoint
from arborist._safejson import TooDeep, decode, loads

__all__ = ["DATABASES", "Heads", "witness_checkpoints", "witnessed_by_database"]

DATABASES = ("sessions", "store")
"""The two chains a home keeps, by the name their file goes by (``<name>.db``)."""

_HEAD = r"(\d{1,18}):([0-9a-f]{64})"
_WITNESS_LINE = re.compile(r"^witness +(.*)$", re.MULTILINE)
"""The line a ``%%ask`` output prints (its text/plain rendering)."""
_NAMED_HEAD = re.compile(rf"\b(sessions|store)\.db {_HEAD}\b")
_SHARD_LINE = re.compile(rf"^checkpoint {_HEAD}$", re.MULTILINE)
"""The line a ``%%ask`` output printed before it named both stores: sessions.db's head."""
_REPORT_LINE = re.compile(
    rf"^(sessions|store)\.db +(?:ok|intact) [^\n]*?\bcheckpoint {_HEAD}\b", re.MULTILINE
)
"""A line of ``verify`` (``store.db     ok  ...; checkpoint N:H``) or ``chain-check``
(``store.db  intact  N events  checkpoint N:H``): the head of the database it names."""


@dataclass(frozen=True)
class Heads:
    """Both stores' chain heads at one moment, each None when that chain is empty (or,
    read from an older notebook, when it was not recorded): what one output witnesses."""

    sessions: Checkpoint | None
    store: Checkpoint | None

    def named(self) -> dict[str, Checkpoint]:
        """The heads recorded, by database."""
        found = {"sessions": self.sessions, "store": self.store}
        return {name: cp for name, cp in found.items() if cp is not None}

    def __str__(self) -> str:
        """``sessions.db 12:<hash>, store.db 34:<hash>``: each head after its file's name, so
        that no head can be read as the other chain's."""
        return ", ".join(
            f"{name}.db {cp if cp is not None else '(empty chain)'}"
            for name, cp in (("sessions", self.sessions), ("store", self.store))
        )


def _texts(output: dict[str, Any]) -> list[str]:
    texts: list[str] = []
    if isinstance(output.get("text"), (str, list)):
        texts.append("".join(output["text"]))
    data = output.get("data")
    if isinstance(data, dict):
        for value in data.values():
            if isinstance(value, (str, list)) and all(isinstance(v, str) for v in value):
                texts.append("".join(value))
    return texts


def _heads_in(text: str) -> list[Heads]:
    """Every witness in one output's text, in order of appearance."""
    found: list[tuple[int, Heads]] = []
    for line in _WITNESS_LINE.finditer(text):
        named = {
            db: Checkpoint(int(seq), digest)
            for db, seq, digest in _NAMED_HEAD.findall(line.group(1))
        }
        if named:
            found.append((line.start(), Heads(named.get("sessions"), named.get("store"))))
    for line in _SHARD_LINE.finditer(text):
        found.append((line.start(), Heads(Checkpoint(int(line.group(1)), line.group(2)), None)))
    for line in _REPORT_LINE.finditer(text):
        head = Checkpoint(int(line.group(2)), line.group(3))
        heads = Heads(head, None) if line.group(1) == "sessions" else Heads(None, head)
        found.append((line.start(), heads))
    return [heads for _, heads in sorted(found, key=lambda item: item[0])]


def witness_checkpoints(path: str | Path) -> list[Heads]:
    """Every distinct witness in the outputs of a saved notebook, in order of appearance.

    A notebook that records none witnesses nothing: that is refused
    (:class:`BadInput`), never passed silently as if it had been checked.
    """
    path = Path(path)
    if not path.is_file():
        raise NotFound(f"no notebook at {path}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BadInput(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        notebook = loads(decode(data, str(path)))
        cells = notebook["cells"]
    except TooDeep as exc:
        raise BadInput(f"{path} is not a Jupyter notebook: {exc.msg}") from exc
    except (ValueError, KeyError, TypeError) as exc:
        raise BadInput(f"{path} is not a Jupyter notebook") from exc
    found: dict[Heads, None] = {}
    for cell in cells if isinstance(cells, list) else []:
        for output in cell.get("outputs", []) if isinstance(cell, dict) else []:
            for text in _texts(output) if isinstance(output, dict) else []:
                for heads in _heads_in(text):
                    found.setdefault(heads, None)
    if not found:
        raise BadInput(f"{path} records no checkpoint: it holds no %%ask output to witness")
    return list(found)


def witnessed_by_database(witnesses: list[Heads]) -> dict[str, list[Checkpoint]]:
    """Each database's distinct heads among ``witnesses``, in order: what its own chain
    must hold (``verify --witness``)."""
    by_database: dict[str, dict[Checkpoint, None]] = {name: {} for name in DATABASES}
    for heads in witnesses:
        for name, cp in heads.named().items():
            by_database[name].setdefault(cp, None)
    return {name: list(cps) for name, cps in by_database.items()}

"""A saved notebook as a witness: the checkpoints its outputs recorded (docs/design.md section 5b).

Every ``%%ask`` output shows the forest shard's checkpoint at that moment.
Collecting them from a saved ``.ipynb`` and checking each against the shard
proves the shard still holds every history the notebook saw: a truncated
tail or a rewritten suffix fails.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from arborist.audit import Checkpoint
from arborist.errors import BadInput, NotFound
from arborist.safejson import TooDeep, decode, loads

__all__ = ["CHECKPOINT_PATTERN", "witness_checkpoints"]

CHECKPOINT_PATTERN = re.compile(r"checkpoint (\d{1,18}):([0-9a-f]{64})")


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


def witness_checkpoints(path: str | Path) -> list[Checkpoint]:
    """Every distinct checkpoint in the outputs of a saved notebook, in order of appearance.

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
    found: dict[Checkpoint, None] = {}
    for cell in cells if isinstance(cells, list) else []:
        for output in cell.get("outputs", []) if isinstance(cell, dict) else []:
            for text in _texts(output) if isinstance(output, dict) else []:
                for seq, digest in CHECKPOINT_PATTERN.findall(text):
                    found.setdefault(Checkpoint(int(seq), digest), None)
    if not found:
        raise BadInput(f"{path} records no checkpoint: it holds no %%ask output to witness")
    return list(found)

"""arborist: cited answers, a branching forest of turns, and Merkle proofs that bind them.

``journal = arborist.open(home)``, ``turn = journal.ask(question)``: see docs/api.md.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from arborist._errors import (
    ArboristError,
    BadInput,
    BadReference,
    IntegrityError,
    ModelError,
    NotFound,
    StorageError,
)
from arborist._version import __version__

if _TYPE_CHECKING:
    from arborist._facade.app import Arborist
    from arborist._facade.journal import Journal, Turn, open
    from arborist._proofs.audit import ChainReport, Checkpoint

__all__ = [
    "Arborist",
    "ArboristError",
    "BadInput",
    "BadReference",
    "ChainReport",
    "Checkpoint",
    "IntegrityError",
    "Journal",
    "ModelError",
    "NotFound",
    "StorageError",
    "Turn",
    "__version__",
    "open",
]


def __getattr__(name: str) -> object:
    """``arborist.open``, ``Journal`` and ``Turn`` (the public API: :mod:`arborist._facade.journal`),
    ``arborist.Arborist`` (the facade beneath), ``ChainReport`` and ``Checkpoint``,
    imported on first use rather than with the package: the facade brings every service with it (the chat
    clients' HTTP stack among them), and importing one module of the package,
    ``arborist._version`` or ``arborist._store.loaders`` say, needs none of that."""
    if name in ("open", "Journal", "Turn"):
        from arborist._facade import journal  # noqa: PLC0415

        return getattr(journal, name)
    if name == "Arborist":
        from arborist._facade.app import Arborist  # noqa: PLC0415

        return Arborist
    if name in ("ChainReport", "Checkpoint"):
        from arborist._proofs import audit  # noqa: PLC0415

        return getattr(audit, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """What ``dir(arborist)`` and a REPL's completion offer: the public names, the ones
    imported on first use among them (``arborist.op<Tab>`` finds ``open``)."""
    return sorted(__all__)

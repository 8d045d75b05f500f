"""arborist: cited answers, a branching forest of turns, and Merkle proofs that bind them."""

from typing import TYPE_CHECKING

from arborist._version import __version__
from arborist.audit import ChainReport, Checkpoint
from arborist.errors import (
    ArboristError,
    BadInput,
    BadReference,
    IntegrityError,
    ModelError,
    NotFound,
    StorageError,
)

if TYPE_CHECKING:
    from arborist.app import Arborist

__all__ = [
    "Arborist",
    "ArboristError",
    "BadInput",
    "BadReference",
    "ChainReport",
    "Checkpoint",
    "IntegrityError",
    "ModelError",
    "NotFound",
    "StorageError",
    "__version__",
]


def __getattr__(name: str) -> object:
    """``arborist.Arborist``, imported on first use rather than with the package: the
    facade brings every service with it (the chat clients' HTTP stack among them), and
    importing one module of the package, ``arborist.store.loaders`` say, needs none of that."""
    if name == "Arborist":
        from arborist.app import Arborist  # noqa: PLC0415

        return Arborist
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""arborist: cited answers, a branching forest of turns, and Merkle proofs that bind them."""

from arborist._version import __version__
from arborist.app import Arborist
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

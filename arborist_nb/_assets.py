"""Where the widget's JS bundle lives. It ships inside the package: no CDN, no network."""

from __future__ import annotations

from pathlib import Path

__all__ = ["bundle_path"]

STATIC = Path(__file__).resolve().parent / "static"


def bundle_path() -> Path:
    """Path of the esbuild bundle built from ``js/`` (by ``make`` or the wheel's build hook)."""
    path = STATIC / "arborist.js"
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} is missing: run `make js` (needs node) or reinstall arborist"
        )
    return path

"""The Jupyter layer of arborist: ``%load_ext arborist_nb`` for ``%%ask`` and ``%arborist``."""

from __future__ import annotations

from typing import Any

__all__ = [
    "load_ipython_extension",
    "unload_ipython_extension",
]

_loaded: dict[int, Any] = {}


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics on ``ipython`` (the home is ``$ARBORIST_HOME`` or ``~/.arborist``)."""
    from arborist_nb._magics import ArboristMagics  # noqa: PLC0415 - IPython only when loaded

    magics = ArboristMagics(ipython)
    _loaded[id(ipython)] = magics
    ipython.register_magics(magics)


def unload_ipython_extension(ipython: Any) -> None:
    """Close the magics' databases."""
    magics = _loaded.pop(id(ipython), None)
    if magics is not None:
        ipython.events.unregister("post_run_cell", magics.cell_errors.record)
        magics.app.close()

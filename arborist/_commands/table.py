"""The command table: every command the faces run (the ``arborist`` command, the REPL and
``%arborist``), each registered on the desk (:mod:`arborist._commands.desk`: the parser,
the dispatch, the outcome) by the module that defines it as that module loads:
:mod:`arborist._commands.forest` (sessions, the tree, moves, export, import),
:mod:`arborist._commands.store` (documents, verify, chain-check, stats) and
:mod:`arborist._commands.answers` (ask, records, the model). Loading this module loads
them; the modules stand on the desk, never on this table, so no two import each other."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from arborist._commands import answers, forest, store
from arborist._commands.desk import COMMANDS, Command

__all__ = ["MODULES", "commands"]

MODULES = (forest, store, answers)
"""The modules whose commands the table holds, in the order they register."""


def commands() -> Mapping[str, Command]:
    """Every command, by name (``"session list"`` for a group's action), read-only."""
    return MappingProxyType(COMMANDS)

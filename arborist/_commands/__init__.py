"""The command table every face runs (:mod:`arborist._commands.desk`), its commands by what
they act on (:mod:`arborist._commands.answers`, :mod:`arborist._commands.forest`,
:mod:`arborist._commands.store`) and how it is shown to a person (:mod:`arborist._commands.help`)."""

__all__: list[str] = []

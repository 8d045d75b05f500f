"""The command table every face runs (:mod:`arborist.commands.desk`), its commands by what
they act on (:mod:`arborist.commands.answers`, :mod:`arborist.commands.forest`,
:mod:`arborist.commands.store`) and how it is shown to a person (:mod:`arborist.commands.help`)."""

__all__: list[str] = []

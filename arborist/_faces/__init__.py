"""The faces over the facade, with no Jupyter: the ``arborist`` command (:mod:`.cli`,
its runner :mod:`.cli_commands` and REPL :mod:`.repl`) and the kernel side of the forest
widget's sync protocol (:mod:`.sync`, what a request may hold: :mod:`.sync_args`)."""

__all__: list[str] = []

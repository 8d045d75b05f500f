"""``python -m arborist`` runs the command line."""

from arborist.faces.cli import main

main()

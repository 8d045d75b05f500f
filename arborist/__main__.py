"""``python -m arborist`` runs the command line."""

from arborist.cli import main

main()

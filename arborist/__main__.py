"""``python -m arborist`` runs the command line."""

from arborist._faces.cli import main

main()

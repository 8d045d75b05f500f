"""The Jupyter layer of arborist: magics and the forest widget (thin, over ``arborist``)."""

from arborist_nb.assets import bundle_path

__all__ = ["bundle_path"]

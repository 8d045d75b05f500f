"""The package version, read by hatchling and by ``arborist --version``."""

__all__ = ["__version__"]

__version__ = "0.1.0"

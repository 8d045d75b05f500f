"""Bundles (docs/bundle.md): a home's answers and turns with everything that proves them,
exported (:mod:`arborist._bundles.export`), checked with no home (:mod:`arborist._bundles.check`),
imported (:mod:`arborist._bundles.imports`) and shown as one page (:mod:`arborist._bundles.page`)."""

__all__: list[str] = []

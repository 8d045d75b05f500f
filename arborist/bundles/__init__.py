"""Bundles (docs/bundle.md): a home's answers and turns with everything that proves them,
exported (:mod:`arborist.bundles.export`), checked with no home (:mod:`arborist.bundles.check`),
imported (:mod:`arborist.bundles.imports`) and shown as one page (:mod:`arborist.bundles.page`)."""

__all__: list[str] = []

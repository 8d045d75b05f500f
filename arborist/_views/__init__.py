"""What every face shows: one text rendering and one JSON shape per result
(:mod:`arborist._views.results`), the forest's (:mod:`arborist._views.forest`), and what they
write with (:mod:`arborist._views.common`). Pure: no I/O."""

__all__: list[str] = []

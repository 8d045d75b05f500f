"""What every face shows: one text rendering and one JSON shape per result
(:mod:`arborist.views.results`), the forest's (:mod:`arborist.views.forest`), and what they
write with (:mod:`arborist.views.common`). Pure: no I/O."""

__all__: list[str] = []

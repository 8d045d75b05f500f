"""The facade every face uses: ``Arborist`` opened on a home (:mod:`.app`, standing on
:mod:`.home`, :mod:`.forest` and :mod:`.related`), verify and chain-check (:mod:`.checks`),
an ask on its way down (:mod:`.asks`) and the public Python API, ``Journal`` and ``Turn``
(:mod:`.journal`)."""

__all__: list[str] = []

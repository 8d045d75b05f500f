"""The hash and journal core: the hash conventions (:mod:`.hashing`), Merkle trees
(:mod:`.merkle`), cache keys (:mod:`.keys`), citations and quotes (:mod:`.citations`,
:mod:`.quotes`), the hash-chained audit log (:mod:`.audit`) and a notebook's witness
(:mod:`.witness`)."""

__all__: list[str] = []

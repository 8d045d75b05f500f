"""Does a cached answer still hold? The check a cache hit and ``Answer.verify()`` make.

Pure: it works on a :class:`~arborist._store.cache.records.CacheRecord` as loaded from
the store *now* (its evidence carries each chunk's current text). It
recomputes, for one record, what ``arborist verify`` recomputes for all:

* the record's fields hash to its ``record_hash`` (question, answer, audit
  mode, evidence and flags, time);
* its evidence folds to the key's evidence root;
* each evidence item's proof binds its leaf to its document's root;
* each item's stored text (hot or warm) re-hashes to that leaf: the bytes
  shown and cited are the bytes that were committed. A cold item's text is
  not stored, so only its proof is checked (said so in its detail);
* each item's document still has the title and URI (its whole row) that its
  ``document_add`` event committed (:mod:`arborist._store.metadata`): the
  source an answer is shown under is the one it was answered from.

Cost: a few hundred bytes of canonical JSON and, per item, one leaf hash and
a proof of ``log2(chunks)`` hashes: tens of microseconds for a whole answer,
so every hit pays it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from arborist._proofs.hashing import cache_key, question_hash
from arborist._proofs.keys import evidence_root, policy_hash, profile_hash
from arborist._store.cache.records import CacheRecord, RecordEvidence
from arborist._store.cache.rows import recomputed_hash
from arborist._store.proofs import verify_evidence

__all__ = ["AnswerCheck", "ProofStatus", "check_proof", "check_record", "dimension_problems"]


@dataclass(frozen=True)
class ProofStatus:
    """Whether one evidence item's text and proof verify here, and why not."""

    label: str
    verified: bool
    detail: str


@dataclass(frozen=True)
class AnswerCheck:
    """The result of re-checking one answer: truthy only when everything holds.

    ``items`` holds one :class:`ProofStatus` per evidence item (iterating the
    check iterates them); ``record_problems`` what is wrong with the record
    itself. ``if answer.verify():`` is the whole question.
    """

    items: tuple[ProofStatus, ...]
    record_problems: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return self.ok

    def __iter__(self) -> Iterator[ProofStatus]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    @property
    def ok(self) -> bool:
        return not self.record_problems and all(item.verified for item in self.items)

    @property
    def problems(self) -> list[str]:
        """One line per thing that does not hold (empty when ``ok``)."""
        return [*self.record_problems] + [
            f"{item.label}: {item.detail}" for item in self.items if not item.verified
        ]

    @property
    def summary(self) -> str:
        """One line: "holds", or the first problem and how many more."""
        problems = self.problems
        if not problems:
            return "holds"
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return f"{problems[0]}{more}"


def check_proof(item: RecordEvidence) -> ProofStatus:
    """Check the document's committed metadata, re-hash the evidence text (if stored) and
    verify its inclusion proof."""
    check = verify_evidence(item.ref, text=item.text, proof=item.proof)
    if not item.home_holds:
        return ProofStatus(
            item.label,
            False,
            f"its evidence row does not match the chunk of {item.title!r} it names",
        )
    if not item.metadata_holds:
        return ProofStatus(
            item.label,
            False,
            f"the title or URI of {item.title!r} differs from what its ingest committed",
        )
    if not check.proof_verifies:
        return ProofStatus(item.label, False, "proof does not verify")
    if check.text_matches is None:
        return ProofStatus(item.label, True, f"proof verifies; text is {item.tier} (not re-hashed)")
    if not check.text_matches:
        return ProofStatus(
            item.label,
            False,
            f"text of {item.title!r} chunk {item.chunk_index} does not match its leaf",
        )
    return ProofStatus(item.label, True, "text re-hashes and proof verifies")


def check_record(record: CacheRecord) -> AnswerCheck:
    """Re-check ``record`` as loaded: its own hash, its evidence root, its key, its events,
    every proof and text (the nearest cause first)."""
    refs = [(e.ref, e.cited) for e in record.evidence]
    problems = []
    if recomputed_hash(record, refs) != record.record_hash:
        problems.append("answer, question or evidence differ from the record's hash")
    try:
        folded = evidence_root([ref for ref, _cited in refs])
    except ValueError:
        folded = None
    if folded != record.evidence_root:
        problems.append("the evidence does not fold to the key's evidence root")
    if [e.rank for e in record.evidence] != list(range(len(record.evidence))):
        problems.append("its evidence ranks are malformed")
    problems += [*dimension_problems(record), *record.event_problems]
    return AnswerCheck(tuple(check_proof(item) for item in record.evidence), tuple(problems))


def dimension_problems(record: CacheRecord) -> list[str]:
    """What is wrong with the record's key: its dimensions must hash to it and describe the
    record's own question, model profile and policy (as ``arborist verify`` checks), or
    the key a hit is found under says nothing about what it serves."""
    problems = []
    try:
        if cache_key(record.dimensions) != record.cache_key:
            problems.append("its dimensions do not hash to its cache key")
        described = {
            "question_hash": question_hash(record.question),
            "model_profile_hash": profile_hash(record.model_profile),
            "governance_policy_hash": policy_hash(record.policy),
        }
    except (TypeError, ValueError):
        return [*problems, "its dimensions are malformed"]
    problems += [
        f"its {name} does not describe its own fields"
        for name, value in described.items()
        if record.dimensions.get(name) != value
    ]
    return problems

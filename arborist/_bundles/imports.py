"""A bundle's records as ``arborist import`` writes them into this home (docs/bundle.md,
"Importing a bundle"): each record of a bundle that holds, completed from the bundle into
what :func:`arborist._store.cache.imported.write_imported` stores.

:func:`bundle_import` checks the whole bundle first (:func:`arborist.bundle.bundle_export_lines`:
every hash, proof, profile, policy and chain link; one line naming the first failure, before
anything is written), then gives the sessions' JSON Lines and each record's draft: its
dimensions whole (the evidence root and question hash the bundle leaves out, recomputed),
its record hash recomputed, its profile and policy (the bundle's entries under the hashes
its dimensions name), and its evidence items, each with its chunk's leaf and proof (hex),
its document's root, size and title, and the chunk's text where the record cites it.
"""

from __future__ import annotations

from typing import Any

from arborist._bundles.export import bundle_export_lines
from arborist._bundles.shape import HASHED_DIMENSIONS, b64_hex, read_bundle
from arborist._proofs.hashing import leaf_hash, question_hash
from arborist._proofs.keys import EVIDENCE_ROOT_DIMENSION, EvidenceRef, evidence_root, record_hash
from arborist._store.cache.imported import ImportedDraft, ImportedItem

__all__ = ["bundle_import"]


def bundle_import(data: bytes) -> tuple[list[str], list[ImportedDraft]]:
    """The sessions of the bundle ``data`` as the JSON Lines ``import`` reads, and each of
    its records as an :class:`ImportedDraft`, once the whole bundle holds (else
    :class:`~arborist._errors.IntegrityError`, one line, before anything is written)."""
    lines = bundle_export_lines(data)
    bundle = read_bundle(data)
    documents = {doc["source_root"]: doc for doc in bundle["documents"]}
    chunks = {(c["source_root"], c["chunk_index"]): c for c in bundle["chunks"]}
    drafts = [_draft(bundle, record, documents, chunks) for record in bundle["records"]]
    return lines, drafts


def _draft(
    bundle: dict[str, Any],
    record: dict[str, Any],
    documents: dict[str, dict[str, Any]],
    chunks: dict[tuple[str, int], dict[str, Any]],
) -> ImportedDraft:
    """One record of a bundle that holds, completed (see the module's docstring)."""
    items = []
    for item in record["evidence"]:
        doc = documents[item["source_root"]]
        chunk = chunks[item["source_root"], item["chunk_index"]]
        text = chunk.get("text")
        leaf = leaf_hash(text.encode("utf-8")).hex() if text is not None else b64_hex(chunk["leaf"])
        ref = EvidenceRef(
            b64_hex(item["source_root"]), doc["chunk_count"], item["chunk_index"], leaf
        )
        proof = [b64_hex(doc["nodes"][at]) for at in chunk["proof"]]
        cited = item["cited"]
        items.append(ImportedItem(ref, proof, cited, doc["title"], text if cited else None))
    key = b64_hex(record["cache_key"])
    dims = {
        name: b64_hex(value) if name in HASHED_DIMENSIONS else value
        for name, value in record["dimensions"].items()
    }
    dims[EVIDENCE_ROOT_DIMENSION] = evidence_root([item.ref for item in items])
    dims["question_hash"] = question_hash(record["question"])
    digest = record_hash(
        cache_key=key,
        revision=record["revision"],
        question=record["question"],
        answer_text=record["answer_text"],
        audit_mode=record["audit_mode"],
        evidence=[(item.ref, item.cited) for item in items],
        created_at=record["created_at"],
    )
    return ImportedDraft(
        cache_key=key,
        revision=record["revision"],
        dimensions=dims,
        question=record["question"],
        answer_text=record["answer_text"],
        audit_mode=record["audit_mode"],
        created_at=record["created_at"],
        model_profile=bundle["profiles"][record["dimensions"]["model_profile_hash"]],
        policy=bundle["policies"][record["dimensions"]["governance_policy_hash"]],
        response_json=record["response_json"],
        record_hash=digest,
        origin_state=record["state"],
        origin_reason=record["state_reason"],
        evidence=items,
    )

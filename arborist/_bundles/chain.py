"""A bundle's chain spans checked (docs/bundle.md, step 4): each event hashed onto the one
before it, from the hash the span starts from, to the span's head; and where the chain
first differs from its events' tags, the event named by what it records.

An event's ``tag`` is the first characters of its hash's base64url: a locator, not a
proof. The first event whose recomputed hash does not begin as its tag is where the chain
first differs; the events after it cannot be checked (the reader holds a hash it knows is
wrong), and the head, not the tags, is what binds the span.
"""

from __future__ import annotations

from typing import Any

from arborist._bundles.shape import Named, b64_hex, tag_hex
from arborist._proofs.hashing import canonical_text, event_row_hash

__all__ = ["Bodies", "Events", "chain_problems", "event_owners", "record_name"]

Events = dict[int, dict[str, Any]]
Bodies = dict[int, Any]
"""The bodies the reader rebuilt, by seq, for the events that record a turn or a record."""


def record_name(record: dict[str, Any]) -> str:
    """A record as a problem names it."""
    return f"record {b64_hex(record['cache_key'])[:12]}… revision {record['revision']}"


def event_owners(bundle: dict[str, Any], sessions: Events) -> dict[str, dict[int, str]]:
    """Who each event of the spans belongs to, by chain and seq, as a problem names it: the
    turn it records (its ``node_insert``, its session's event, its ``label`` events), the
    record (its ``cache_write``), the document (its ``document_add``)."""
    turns = {turn["bates"] for turn in bundle["turns"]}
    owners: dict[str, dict[int, str]] = {
        "sessions": {
            seq: f"turn {e['bates']}"
            for seq, e in sessions.items()
            if e["event_type"] == "label" and e["bates"] in turns
        },
        "store": {},
    }
    for turn in bundle["turns"]:
        owners["sessions"][turn["event_seq"]] = f"turn {turn['bates']}"
    for record in bundle["records"]:
        owners["store"][record["event_seq"]] = record_name(record)
    for doc in bundle["documents"]:
        owners["store"][doc["event_seq"]] = str(Named("document", doc["source_root"], ""))
    return owners


def chain_problems(
    name: str,
    chain: dict[str, Any],
    built: Bodies,
    hashes: dict[str, dict[int, str]],
    owners: dict[int, str],
) -> list[str]:
    """The span's seqs and its head: each event hashed onto the one before it (its body the
    one carried, else the one rebuilt); ``hashes[name]`` gets each event's hash by seq. The
    first event whose hash does not begin as its tag is named, by what it records (its
    turn, record or document: ``owners``); the events after it cannot be checked."""
    what = f"{name}.db chain"
    events, head, prev = chain["events"], chain["head"], chain["prev_event_hash"]
    hashes[name] = {}
    if not events:
        problems = [] if head is None else [f"{what}: a head but no event leads to it"]
        return problems + ([f"{what}: a prev_event_hash but no event"] if prev else [])
    problems = []
    if (events[0]["seq"] == 1) != (prev is None):
        problems.append(f"{what}: seq {events[0]['seq']}: its prev_event_hash does not fit its seq")
    digest = b64_hex(prev) if prev is not None else None
    before = None
    differs = None
    for event in events:
        seq = event["seq"]
        if before is not None and seq != before + 1:
            problems.append(f"{what}: seq {seq} follows seq {before}: the span has a gap")
        body = _event_body(what, event, built, owners, problems)
        digest = event_row_hash(
            digest,
            event["event_type"],
            event["sid"],
            event["bates"],
            canonical_text(body),
            event["created_at"],
        )
        hashes[name][seq] = digest
        if differs is None and tag_hex(event["tag"]) != digest[:9]:
            differs = event
        before = seq
    if differs is not None:
        seq = differs["seq"]
        owner = owners.get(seq, what)  # an event of no item of the bundle: its chain
        problems.append(
            f"{owner}: its {differs['event_type']} event ({name}.db seq {seq}) differs from what "
            "the bundle committed (its hash is not its tag): the chain first differs there, and "
            "its events after it cannot be checked"
        )
    elif head is None or head["seq"] != before or b64_hex(head["event_hash"]) != digest:
        problems.append(
            f"{what}: its events do not hash to its head (each event hashes to its tag: the "
            "head, or the tags with the events, was changed)"
        )
    return problems


def _event_body(
    what: str, event: dict[str, Any], built: Bodies, owners: dict[int, str], problems: list[str]
) -> Any:
    """The body an event of the span is hashed with: the one carried, else the one rebuilt
    from the bundle's items (``built``); an event with neither is named in ``problems``
    unless an item owns it (it has no body only when that item's own check failed)."""
    seq = event["seq"]
    if "body" in event:
        return event["body"]
    if seq in built:
        return built[seq]
    if seq not in owners:
        problems.append(f"{what}: seq {seq}: no turn or record of the bundle rebuilds its body")
    return None

"""The hash conventions of arborist (docs/design.md section 2). Pure: no I/O.

Every identity in the system is computed here, or in :mod:`arborist._proofs.keys`
from these primitives (what a cache record and a derivation commit to), and
nowhere else; every rule here is pinned by ``tests/vectors/hashing.json``,
which the JS port (``js/src/hashing.js``) reproduces byte for byte.

Two kinds of values travel through these functions:

* raw 32-byte digests (``bytes``): ``leaf_hash``, ``hash_combine`` and the
  Merkle functions in :mod:`arborist._proofs.merkle` work on these;
* lowercase hex strings (``str``): ``sha256_hex``, ``node_hash``,
  ``subtree_hash``, ``event_hash``, ``question_hash`` and ``cache_key``
  return these, as the databases and JSON hold them.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from arborist._errors import CanonicalJSONError

__all__ = [
    "CACHE_KEY_DIMENSIONS",
    "DIGEST_SIZE",
    "EVENT_FIELDS",
    "MAX_DEPTH",
    "MAX_SAFE_INTEGER",
    "NODE_FIELDS",
    "cache_key",
    "canonical_json",
    "canonical_text",
    "encode_text",
    "event_hash",
    "event_row_hash",
    "fold_one",
    "hash_combine",
    "leaf_hash",
    "node_hash",
    "node_row_hash",
    "normalize_question",
    "question_hash",
    "sha256_hex",
    "stored_event_hash",
    "subtree_hash",
    "subtree_hash_bytes",
]

DIGEST_SIZE = 32
MAX_SAFE_INTEGER = 2**53 - 1
"""Largest integer JS (and RFC 8785) represents exactly; canonical JSON refuses beyond it."""
MAX_DEPTH = 256
"""Deepest nesting canonical JSON accepts (far below json's recursion limit)."""

LEAF_PREFIX = b"\x00"
INTERIOR_PREFIX = b"\x03"
"""Interior prefix of arborist's trees. RFC 6962 uses 0x01; 0x03 keeps the two domains apart."""

NODE_FIELDS = (
    "parent_node_hash",
    "bates",
    "question",
    "cache_key",
    "audit_mode",
    "created_at",
    "label",
)
EVENT_FIELDS = ("event_type", "sid", "bates", "body", "created_at")
CACHE_KEY_DIMENSIONS = (
    "source_root",
    "question_hash",
    "model_profile_hash",
    "conversation_hash",
    "governance_policy_hash",
    "schema_version",
    "canonicalization_version",
    "chunking_version",
)
"""The cache key's dimensions by the names they are hashed under. The first holds the
evidence root, called ``evidence_root`` everywhere but here (``EVIDENCE_ROOT_DIMENSION`` in
:mod:`arborist._proofs.keys`): a new name would change every key and the vectors."""


def _check_canonical(obj: object) -> None:
    """Refuse anything outside the subset on which Python, JS and RFC 8785 agree.

    Iterative with a depth bound, so deep or circular input gets a clear error
    instead of exhausting the recursion limit.
    """
    stack: list[tuple[object, int]] = [(obj, 0)]
    while stack:
        item, depth = stack.pop()
        if item is None or isinstance(item, (bool, str)):
            continue
        if isinstance(item, int):
            if not -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                shown = str(item) if item.bit_length() <= 64 else f"of {item.bit_length()} bits"
                raise CanonicalJSONError(f"integer {shown} is beyond ±(2^53−1)")
            continue
        if isinstance(item, float):
            raise CanonicalJSONError(f"float {item!r} is not allowed in canonical JSON")
        if depth >= MAX_DEPTH:
            raise CanonicalJSONError(f"value is nested deeper than {MAX_DEPTH} levels")
        if isinstance(item, dict):
            for key, value in item.items():
                if not isinstance(key, str):
                    raise CanonicalJSONError(f"object key {key!r} is not a string")
                stack.append((value, depth + 1))
        elif isinstance(item, (list, tuple)):
            stack.extend((value, depth + 1) for value in item)
        else:
            raise CanonicalJSONError(f"{type(item).__name__} is not a JSON value")


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""What ``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` builds on
every call (its other settings at their defaults), built once."""


def canonical_json(obj: Any) -> bytes:
    """Serialize ``obj`` as canonical JSON: sorted keys, ``,``/``:``, UTF-8, non-ASCII raw.

    Raises :class:`CanonicalJSONError` for floats, NaN, integers beyond
    ±(2^53−1), non-string keys, lone surrogates and non-JSON types.
    Keys sort by code point (Python's order); text is not normalized here.
    """
    _check_canonical(obj)
    try:
        text = _CANONICAL.encode(obj)
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise CanonicalJSONError("text contains a lone surrogate") from exc


def canonical_text(obj: Any) -> str:
    """:func:`canonical_json` of ``obj`` as text, without its checks: for comparing a value
    rebuilt from rows (text, NULLs, small integers) with text ``canonical_json`` wrote.
    Equal text means ``canonical_json`` would write exactly these bytes."""
    return _CANONICAL.encode(obj)


def sha256_hex(data: bytes) -> str:
    """Lowercase hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


_LEAF_STATE = hashlib.sha256(LEAF_PREFIX)
"""SHA-256 having read the leaf prefix: each leaf copies it (never updated itself)."""

_INTERIOR_STATE = hashlib.sha256(INTERIOR_PREFIX)
"""SHA-256 having read the interior prefix: each fold step of a subtree hash copies it."""


def leaf_hash(data: bytes) -> bytes:
    """``sha256(0x00 || data)`` as 32 raw bytes (a copy of the state after the prefix, then
    ``data``: no prefixed copy of ``data`` is made, a third less time per chunk)."""
    state = _LEAF_STATE.copy()
    state.update(data)
    return state.digest()


def hash_combine(left: bytes, right: bytes) -> bytes:
    """``sha256(0x03 || left || right)`` as 32 raw bytes: arborist's interior node."""
    return hashlib.sha256(INTERIOR_PREFIX + left + right).digest()


def _digest(hex_value: str, what: str) -> bytes:
    """Decode a 64-character hex digest, refusing anything else."""
    if not isinstance(hex_value, str) or len(hex_value) != 2 * DIGEST_SIZE:
        raise CanonicalJSONError(f"{what} must be a 64-character hex digest")
    try:
        return bytes.fromhex(hex_value)
    except ValueError as exc:
        raise CanonicalJSONError(f"{what} must be a 64-character hex digest") from exc


def node_hash(
    *,
    parent_node_hash: str | None,
    bates: str,
    question: str,
    cache_key: str,
    audit_mode: str,
    created_at: str,
    label: str | None,
) -> str:
    """Content address of one forest node (the label is the one given at creation)."""
    fields = {
        "parent_node_hash": parent_node_hash,
        "bates": bates,
        "question": question,
        "cache_key": cache_key,
        "audit_mode": audit_mode,
        "created_at": created_at,
        "label": label,
    }
    return sha256_hex(canonical_json(fields))


def subtree_hash(node_hash_hex: str, children_subtree_hex: Iterable[str]) -> str:
    """Merkle commitment to a node and all its descendants.

    ``acc = leaf_hash(node_hash bytes)``, then ``acc = hash_combine(acc, child)``
    for each child's subtree hash in ascending hex order. The left fold keeps
    shapes unambiguous; the sort makes the order children arrive irrelevant.
    """
    acc = leaf_hash(_digest(node_hash_hex, "node_hash"))
    for child in sorted(children_subtree_hex):
        acc = hash_combine(acc, _digest(child, "child subtree_hash"))
    return acc.hex()


def subtree_hash_bytes(node_digest: bytes, children_subtree: Iterable[bytes]) -> bytes:
    """:func:`subtree_hash` on raw 32-byte digests: the same fold, the same bytes out.

    ``subtree_hash(n, cs) == subtree_hash_bytes(bytes.fromhex(n), [bytes.fromhex(c) for c
    in cs]).hex()``: raw digests sort as their lowercase hex does. What the ripple runs,
    on digests as ``sessions.db`` stores them (``node_links``), with no hex round trip.
    Refuses anything but 32-byte values, as :func:`subtree_hash` refuses bad hex.
    """
    if type(node_digest) is not bytes or len(node_digest) != DIGEST_SIZE:
        raise CanonicalJSONError("node_hash must be a 32-byte digest")
    try:
        children = sorted(children_subtree)
    except TypeError as exc:  # bytes mixed with what cannot compare to them
        raise CanonicalJSONError("child subtree_hash must be a 32-byte digest") from exc
    state = _LEAF_STATE.copy()  # copies of the prefixed states: no concatenated bytes
    state.update(node_digest)
    acc = state.digest()
    for child in children:
        if type(child) is not bytes or len(child) != DIGEST_SIZE:
            raise CanonicalJSONError("child subtree_hash must be a 32-byte digest")
        state = _INTERIOR_STATE.copy()
        state.update(acc)
        state.update(child)
        acc = state.digest()
    return acc


def fold_one(node_digest: bytes, child: bytes | None) -> bytes:
    """``subtree_hash_bytes(node_digest, [child] if child is not None else [])``: the fold of
    a node with at most one child, the ripple's usual level, without building a list.
    Refuses what it refuses."""
    if type(node_digest) is not bytes or len(node_digest) != DIGEST_SIZE:
        return subtree_hash_bytes(node_digest, [] if child is None else [child])
    state = _LEAF_STATE.copy()
    state.update(node_digest)
    if child is None:
        return state.digest()
    if type(child) is not bytes or len(child) != DIGEST_SIZE:
        return subtree_hash_bytes(node_digest, [child])
    acc = state.digest()
    state = _INTERIOR_STATE.copy()
    state.update(acc)
    state.update(child)
    return state.digest()


def event_hash(
    prev_event_hash: str | None,
    *,
    event_type: str,
    sid: str | None,
    bates: str | None,
    body: Any,
    created_at: str,
) -> str:
    """``sha256(prev bytes || canonical_json(event))``; prev is empty for the first event."""
    prev = b"" if prev_event_hash is None else _digest(prev_event_hash, "prev_event_hash")
    payload = canonical_json(
        {
            "event_type": event_type,
            "sid": sid,
            "bates": bates,
            "body": body,
            "created_at": created_at,
        }
    )
    return sha256_hex(prev + payload)


# json.dumps(s, ensure_ascii=False) without its per-call overhead (the C encoder).
_encode_string = json.encoder.encode_basestring


def encode_text(text: str) -> str:
    """``text`` as :func:`canonical_text` writes a string (quoted, escaped, non-ASCII raw):
    for building canonical text of a known shape field by field."""
    return _encode_string(text)


def _json_scalar(value: object) -> str:
    """JSON text of one stored field: the fast path for str and NULL, json.dumps otherwise."""
    if type(value) is str:
        return _encode_string(value)
    if value is None:
        return "null"
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def stored_event_hash(
    prev_event_hash: str | None,
    *,
    event_type: object,
    sid: object,
    bates: object,
    body_json: str,
    created_at: object,
) -> str:
    """:func:`event_hash` of an event as stored, with ``body`` already canonical JSON text.

    Hashes the stored body bytes as they are (no parse, no re-serialization),
    so any edit to them changes the hash. For a body written by
    ``canonical_json`` it equals :func:`event_hash` exactly (keys in sorted
    order: bates, body, created_at, event_type, sid); the tests pin that.
    Fields of the wrong type hash to something else rather than raising.
    """
    prev = b"" if prev_event_hash is None else _digest(prev_event_hash, "prev_event_hash")
    payload = (
        f'{{"bates":{_json_scalar(bates)},"body":{body_json},'
        f'"created_at":{_json_scalar(created_at)},"event_type":{_json_scalar(event_type)},'
        f'"sid":{_json_scalar(sid)}}}'
    )
    try:
        return sha256_hex(prev + payload.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise CanonicalJSONError("stored event contains a lone surrogate") from exc


_sha256 = hashlib.sha256
_fromhex = bytes.fromhex


def event_row_hash(
    prev_event_hash: str | None,
    event_type: str,
    sid: str | None,
    bates: str | None,
    body_json: str,
    created_at: str,
) -> str:
    """:func:`stored_event_hash` of a row whose fields are all text (``sid``, ``bates``
    and ``prev_event_hash`` may be NULL), positional: the chain walk's fast path.

    Wherever it returns, it returns exactly what :func:`stored_event_hash` does (the
    tests pin that); for anything else it raises instead of hashing: ``TypeError`` for
    a field of another type, ``ValueError`` for a ``prev_event_hash`` that is not 64
    hex digits or text holding a lone surrogate. The caller then asks
    :func:`stored_event_hash`, which hashes or refuses such a row its own way.
    """
    if prev_event_hash is None:
        prev = b""
    elif len(prev_event_hash) == 2 * DIGEST_SIZE:
        prev = _fromhex(prev_event_hash)
    else:
        raise ValueError("prev_event_hash must be a 64-character hex digest")
    if type(body_json) is not str:
        raise TypeError("body_json must be text")
    payload = (
        f'{{"bates":{"null" if bates is None else _encode_string(bates)},"body":{body_json},'
        f'"created_at":{_encode_string(created_at)},"event_type":{_encode_string(event_type)},'
        f'"sid":{"null" if sid is None else _encode_string(sid)}}}'
    )
    return _sha256(prev + payload.encode("utf-8")).hexdigest()


def node_row_hash(
    parent_node_hash: str | None,
    bates: str,
    question: str,
    cache_key: str,
    audit_mode: str,
    created_at: str,
    label: str | None,
) -> str:
    """:func:`node_hash` of a stored node's fields, positional, without the general
    canonical-JSON walk: text fields (``parent_node_hash`` and ``label`` may be NULL)
    are written by the same string encoder ``canonical_json`` uses, in its key order
    (audit_mode, bates, cache_key, created_at, label, parent_node_hash, question).

    A field of any other type goes to :func:`node_hash` itself, so the result (or the
    :class:`CanonicalJSONError`, as for a lone surrogate) is always :func:`node_hash`'s;
    the tests pin that.
    """
    if (
        type(bates) is not str
        or type(question) is not str
        or type(cache_key) is not str
        or type(audit_mode) is not str
        or type(created_at) is not str
        or (parent_node_hash is not None and type(parent_node_hash) is not str)
        or (label is not None and type(label) is not str)
    ):
        return node_hash(
            parent_node_hash=parent_node_hash,
            bates=bates,
            question=question,
            cache_key=cache_key,
            audit_mode=audit_mode,
            created_at=created_at,
            label=label,
        )
    text = (
        f'{{"audit_mode":{_encode_string(audit_mode)},"bates":{_encode_string(bates)},'
        f'"cache_key":{_encode_string(cache_key)},"created_at":{_encode_string(created_at)},'
        f'"label":{"null" if label is None else _encode_string(label)},'
        f'"parent_node_hash":'
        f"{'null' if parent_node_hash is None else _encode_string(parent_node_hash)},"
        f'"question":{_encode_string(question)}}}'
    )
    try:
        return _sha256(text.encode("utf-8")).hexdigest()
    except UnicodeEncodeError as exc:
        raise CanonicalJSONError("text contains a lone surrogate") from exc


def normalize_question(question: str) -> str:
    """NFC, whitespace runs collapsed to one space, trimmed: the text a question hash covers."""
    return " ".join(unicodedata.normalize("NFC", question).split())


def question_hash(question: str) -> str:
    """Hash of a question after :func:`normalize_question`."""
    try:
        return sha256_hex(normalize_question(question).encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise CanonicalJSONError("question contains a lone surrogate") from exc


def cache_key(
    dimensions: Mapping[str, str], encode: Callable[[Any], bytes] = canonical_json
) -> str:
    """Hash of the eight cache-key dimensions; exactly those names, nothing more or less
    (``encode``: as :data:`arborist._proofs.keys.Encode` says)."""
    names = set(dimensions)
    expected = set(CACHE_KEY_DIMENSIONS)
    if names != expected:
        missing = sorted(expected - names)
        extra = sorted(names - expected)
        raise CanonicalJSONError(f"cache key dimensions: missing {missing}, unexpected {extra}")
    return sha256_hex(encode(dict(dimensions)))

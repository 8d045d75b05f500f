"""A bundle's format (docs/bundle.md): its fields, their JSON types and their order, read
from untrusted bytes with one-line refusals.

A bundle is one canonical JSON value (docs/design.md section 2), so the bytes of an honest
bundle are exactly ``canonical_json`` of what they parse to: :func:`read_bundle` holds them
to it, which refuses in one line a file that is cut short, is not JSON, holds a float, an
integer beyond ±(2^53−1), a lone surrogate, nesting deeper than the parser goes, a key
twice in one object, or a byte of spacing or key order changed; and a bundle of format 1
or 2, which it names and asks to be exported again (docs/bundle.md says why format 3 is the
only one read). :func:`shape_problems` then names every entry whose fields are not exactly the
format's, of their JSON types (each hash base64url of its one spelling), in the format's
order and each once: what :mod:`arborist._bundles.check` needs before it recomputes a hash.
"""

from __future__ import annotations

import json
import re
from base64 import urlsafe_b64encode
from binascii import a2b_base64
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from arborist._errors import BadInput, IntegrityError
from arborist._forest.bates import is_bates, is_sid
from arborist._forest.transfer import TURN_FIELDS, turn_problem
from arborist._proofs.hashing import CACHE_KEY_DIMENSIONS, MAX_SAFE_INTEGER, canonical_text
from arborist._safejson import decode
from arborist._text.text_words import word_list

__all__ = [
    "BUNDLE_FORMAT",
    "BundleUnreadable",
    "BytesMemo",
    "CHAINS",
    "DESCRIBED",
    "DIMENSIONS",
    "HASHED_DIMENSIONS",
    "HexMemo",
    "Named",
    "TAG_LENGTH",
    "b64_bytes",
    "b64_hex",
    "hex_b64",
    "read_bundle",
    "shape_problems",
    "tag_hex",
]

BUNDLE_FORMAT = "arborist-bundle/3"
_OLDER = {"arborist-bundle/1": "format 1", "arborist-bundle/2": "format 2"}
"""Formats this reader names when it refuses them (docs/bundle.md says why it reads 3 only)."""
CHAINS = ("sessions", "store")
"""The two audit chains a bundle carries a span of, by their database's name."""
DIMENSIONS = tuple(d for d in CACHE_KEY_DIMENSIONS if d not in ("source_root", "question_hash"))
"""A record's dimensions as a bundle carries them: the eight less the evidence root and the
question's hash, which the reader recomputes from the record's evidence and question."""
HASHED_DIMENSIONS = ("model_profile_hash", "conversation_hash", "governance_policy_hash")
"""The dimensions that are hashes (in base64url; ``conversation_hash`` may be empty)."""

DESCRIBED = (("profiles", "model_profile_hash"), ("policies", "governance_policy_hash"))
"""The bundle's members that carry what a record's hashed dimensions describe, each entry's
key the hash (base64url) of its value's canonical JSON: the model profile and the
governance policy, each once however many records name it."""

TAG_LENGTH = 6
"""An event's ``tag``: the first characters of its hash's base64url (36 bits). A locator for
the reader, who names the first event whose hash it does not meet; not a proof (the head is
what binds the span: docs/bundle.md)."""
_TAG = re.compile(f"[A-Za-z0-9_-]{{{TAG_LENGTH}}}")
_B64 = re.compile(r"[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]")
"""A 32-byte digest in base64url without padding: 43 characters, the last one's two spare
bits zero (so each digest has exactly one spelling)."""
_B64_RUN = re.compile(r"(?:[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048])*")


def b64_bytes(value: str) -> bytes:
    """The 32 bytes a base64url digest of the bundle (held to :data:`_B64`) spells (its two
    characters of its own replaced: ten times faster here than ``str.translate``)."""
    return a2b_base64(value.replace("-", "+").replace("_", "/") + "=")


def b64_hex(value: str) -> str:
    """The 64-digit lowercase hex of a base64url digest ("" stays "")."""
    return b64_bytes(value).hex() if value else ""


def tag_hex(tag: str) -> str:
    """The 9 hex digits (36 bits) an event's tag (:data:`TAG_LENGTH` base64url characters)
    spells: what the event's hash in hex begins with."""
    return a2b_base64(tag.replace("-", "+").replace("_", "/") + "AA").hex()[:9]


def hex_b64(value: str) -> str:
    """A 64-digit hex digest in base64url without padding ("" stays "")."""
    return urlsafe_b64encode(bytes.fromhex(value)).decode("ascii")[:-1] if value else ""


class HexMemo(dict[str, str]):
    """Each base64url digest of one bundle in hex, decoded once (a document's root is named
    by every evidence item and chunk of it)."""

    def __missing__(self, value: str) -> str:
        self[value] = decoded = b64_hex(value)
        return decoded


class BytesMemo(dict[str, bytes]):
    """Each base64url digest of one bundle as bytes, decoded once (a proof node is shared by
    a document's chunks)."""

    def __missing__(self, value: str) -> bytes:
        self[value] = decoded = b64_bytes(value)
        return decoded


class Named:
    """An item's name, made only when a problem says it: its kind, its root's hex, a tail."""

    def __init__(self, kind: str, root: str, tail: str) -> None:
        self.kind, self.root, self.tail = kind, root, tail

    def __str__(self) -> str:
        return f"{self.kind} {b64_hex(self.root)[:12]}…{self.tail}"


Check = Callable[[Any], bool]
_SOME_HASH = "0" * 64
"""A node hash for :func:`turn_problem`, which holds an export's turn (a bundle's turn has
none: the reader recomputes it)."""


class BundleUnreadable(IntegrityError):
    """Bytes that are no bundle at all: cut short, not canonical JSON, another format."""


def _digest(value: Any) -> bool:
    return type(value) is str and _B64.fullmatch(value) is not None


def _nat(value: Any) -> bool:
    return type(value) is int and 0 <= value <= MAX_SAFE_INTEGER


def _positive(value: Any) -> bool:
    return _nat(value) and value >= 1


def _text(value: Any) -> bool:
    return type(value) is str


def _maybe(check: Check) -> Check:
    return lambda value: value is None or check(value)


def _any(value: Any) -> bool:
    return True


def _digest_list(value: Any) -> bool:
    """A list of base64url digests (held as one run: one match, not one each)."""
    return (
        type(value) is list
        and all(type(item) is str and len(item) == 43 for item in value)
        and _B64_RUN.fullmatch("".join(value)) is not None
    )


def _nat_list(value: Any) -> bool:
    return type(value) is list and all(_nat(item) for item in value)


def _dimensions(value: Any) -> bool:
    return (
        type(value) is dict
        and value.keys() == set(DIMENSIONS)
        and all(_text(value[name]) for name in DIMENSIONS)
        and all(_digest(value[name]) for name in HASHED_DIMENSIONS if value[name] != "")
        and value["model_profile_hash"] != ""
        and value["governance_policy_hash"] != ""
    )


SESSION = {
    "sid": lambda v: _text(v) and is_sid(v),
    "label": _maybe(_text),
    "created_at": _text,
    "root_bates": lambda v: _text(v) and is_bates(v),
}
TURN: dict[str, Check] = {
    **{name: _any for name in TURN_FIELDS if name != "node_hash"},
    "cache_key": lambda v: v == "" or _digest(v),
    "event_seq": _positive,
}
EVIDENCE = {"source_root": _digest, "chunk_index": _nat, "cited": lambda v: type(v) is bool}
RECORD = {
    "cache_key": _digest,
    "revision": _positive,
    "question": _text,
    "answer_text": _text,
    "audit_mode": _text,
    "created_at": _text,
    "dimensions": _dimensions,
    "evidence": lambda v: type(v) is list,
    "response_json": _text,
    "state": _text,
    "state_reason": _maybe(_text),
    "event_seq": _positive,
}
DOCUMENT = {
    "source_root": _digest,
    "chunk_count": _positive,
    "title": _text,
    "event_seq": _positive,
    "nodes": _digest_list,
}
CHUNK = {"source_root": _digest, "chunk_index": _nat, "leaf": _digest, "proof": _nat_list}
"""A chunk no record cites: its leaf, not its text. A cited chunk has its ``text`` instead of
its leaf (:data:`CITED_CHUNK`): the reader hashes the text to the leaf."""
CITED_CHUNK = {"source_root": _digest, "chunk_index": _nat, "proof": _nat_list, "text": _text}
EVENT = {
    "seq": _positive,
    "event_type": _text,
    "sid": _maybe(_text),
    "bates": _maybe(_text),
    "created_at": _text,
    "tag": lambda v: type(v) is str and _TAG.fullmatch(v) is not None,
}
"""An event whose body the reader rebuilds (it records a turn or a record of the bundle);
any other event has these fields and its ``body``."""
BODIED_EVENT = {**EVENT, "body": _any}
HEAD = {"seq": _positive, "event_hash": _digest}
CHAIN = {
    "head": _maybe(lambda v: _field_problem(v, HEAD) is None),
    "prev_event_hash": _maybe(_digest),
    "events": lambda v: type(v) is list,
}
TOP = tuple(word_list("chains chunks documents format policies profiles records sessions turns"))

_ORDER: dict[str, Callable[[dict[str, Any]], Any]] = {
    "sessions": lambda item: item["sid"],
    "turns": lambda item: item["bates"],
    "records": lambda item: (item["cache_key"], item["revision"]),
    "documents": lambda item: item["source_root"],
    "chunks": lambda item: (item["source_root"], item["chunk_index"]),
}
"""Each list's entries in strictly ascending order of these: out of order or twice is refused."""

_TABLES = {
    "sessions": SESSION,
    "turns": TURN,
    "records": RECORD,
    "documents": DOCUMENT,
    "chunks": CHUNK,
}


class _NotCanonical(ValueError):
    """A value canonical JSON never holds, met while parsing."""


def _no_float(text: str) -> Any:
    raise _NotCanonical(f"it holds a float ({text[:24]})")


def _no_constant(text: str) -> Any:
    raise _NotCanonical(f"it holds {text}")


def _safe_int(text: str) -> int:
    value = int(text)  # over 4,300 digits: a ValueError, refused below
    if not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
        raise _NotCanonical("it holds an integer beyond ±(2^53−1)")
    return value


_ASCII = json.JSONEncoder(sort_keys=True, separators=(",", ":"))
"""Canonical JSON's encoder with non-ASCII escaped (about twice as fast here). On a value
holding no character beyond ASCII it writes what ``canonical_text`` does; and the escaped
form of a value holding one holds a backslash-u escape of a character from U+0080 up. So
bytes that are ASCII, hold no such escape (:data:`_NON_ASCII_ESCAPE`) and equal this
encoding of what they parse to are that value's canonical JSON."""

_NON_ASCII_ESCAPE = re.compile(rb"\\u(?!00[01])")
"""A backslash-u escape of a character from U+0080 up (U+0000 to U+001F are escaped alike by
both encoders). It also matches an escaped backslash followed by a ``u`` in text, which only
sends the check to the slower encoder."""


def read_bundle(data: bytes) -> dict[str, Any]:
    """The bundle ``data`` holds, as parsed: raise :class:`BundleUnreadable` (one line)
    for bytes that are not a canonical JSON object of this format.

    One parse and one re-encoding, both in C: a float, NaN or an integer beyond ±(2^53−1)
    is refused as it is parsed, nesting deeper than the parser goes (about 1,000 levels)
    as it recurses, a lone surrogate as the re-encoding is made UTF-8, and anything else
    canonical JSON writes otherwise by comparing the bytes."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        try:
            decode(data, "the bundle")  # names the first bad byte
        except BadInput as exc:
            raise BundleUnreadable(str(exc)) from None
        raise  # pragma: no cover - decode refuses what bytes.decode refused
    try:
        value = json.loads(
            text, parse_float=_no_float, parse_int=_safe_int, parse_constant=_no_constant
        )
    except _NotCanonical as exc:
        raise BundleUnreadable(f"the bundle is not canonical JSON: {exc}") from None
    except RecursionError:
        raise BundleUnreadable("the bundle is not JSON: it is nested too deeply") from None
    except ValueError as exc:  # a JSONDecodeError, or an integer of too many digits
        if isinstance(exc, json.JSONDecodeError):
            at = f" (at character {exc.pos})" if exc.pos else ""
            detail = f"{exc.msg}{at}: cut short or damaged"
        else:
            detail = "it holds an integer of too many digits"
        raise BundleUnreadable(f"the bundle is not JSON: {detail}") from None
    if type(value) is dict and type(value.get("format")) is str and value["format"] in _OLDER:
        raise BundleUnreadable(
            f"this bundle is {_OLDER[value['format']]} ({value['format']}), which this arborist "
            f"no longer reads: re-export it (export --bundle writes {BUNDLE_FORMAT})"
        )
    if type(value) is not dict or value.get("format") != BUNDLE_FORMAT:
        named = repr(value.get("format")) if type(value) is dict else "none"
        named = named if len(named) <= 60 else f"{named[:57]}..."
        raise BundleUnreadable(f"not an {BUNDLE_FORMAT} bundle (its format is {named})")
    if data.isascii() and _NON_ASCII_ESCAPE.search(data) is None:
        canonical = _ASCII.encode(value).encode("ascii")  # the same bytes: see _ASCII
    else:
        canonical = b""
    if canonical == data:
        return value
    try:
        canonical = canonical_text(value).encode("utf-8")
    except UnicodeEncodeError:
        raise BundleUnreadable(
            "the bundle is not canonical JSON: it holds a lone surrogate"
        ) from None
    if canonical != data:
        raise BundleUnreadable(
            "the bundle is not canonical JSON (sorted keys, no spacing, each value written "
            "one way, no key twice): its bytes were changed"
        )
    return value


def _field_problem(item: Any, table: Mapping[str, Check]) -> str | None:
    """Why ``item`` is not an object with exactly the fields of ``table``, each of its type."""
    if type(item) is not dict:
        return "is not an object"
    if item.keys() != table.keys():
        missing = [name for name in table if name not in item]
        extra = sorted(name for name in item if name not in table)
        said = [f"lacks {', '.join(missing)}"] if missing else []
        said += [f"has unknown field(s) {', '.join(map(json.dumps, extra))[:80]}"] if extra else []
        return " and ".join(said)
    for name, check in table.items():
        if not check(item[name]):
            return f"its {name} is not of its type"
    return None


_EVIDENCE_KEYS = EVIDENCE.keys()


def _evidence_held(items: list[Any]) -> bool:
    """Whether every evidence item is of :data:`EVIDENCE`'s fields and types: what
    :func:`_field_problem` finds of each, in one pass (the digests as one run), to be asked
    item by item only when something is wrong."""
    return (
        all(
            type(e) is dict
            and e.keys() == _EVIDENCE_KEYS
            and type(e["cited"]) is bool
            and type(e["chunk_index"]) is int
            and 0 <= e["chunk_index"] <= MAX_SAFE_INTEGER
            and type(e["source_root"]) is str
            and len(e["source_root"]) == 43
            for e in items
        )
        and _B64_RUN.fullmatch("".join(e["source_root"] for e in items)) is not None
    )


_CHUNK_KEYS, _CITED_KEYS = CHUNK.keys(), CITED_CHUNK.keys()


def _chunk_held(c: Any) -> bool:
    """Whether ``c`` is of :data:`CHUNK`'s or :data:`CITED_CHUNK`'s fields and types, in one
    expression (:func:`_field_problem` says what is wrong when it is not)."""
    return (
        type(c) is dict
        and (
            (c.keys() == _CITED_KEYS and type(c["text"]) is str)
            or (c.keys() == _CHUNK_KEYS and _digest(c["leaf"]))
        )
        and type(c["chunk_index"]) is int
        and 0 <= c["chunk_index"] <= MAX_SAFE_INTEGER
        and _digest(c["source_root"])
        and type(c["proof"]) is list
        and all(type(at) is int and 0 <= at <= MAX_SAFE_INTEGER for at in c["proof"])
    )


def _list_problems(name: str, entries: Any, table: Mapping[str, Check]) -> Iterator[str]:
    if type(entries) is not list:
        yield f"{name}: is not a list"
        return
    previous = None
    for index, item in enumerate(entries):
        if table is CHUNK and _chunk_held(item):
            problem = None
        else:
            cited = table is CHUNK and type(item) is dict and "text" in item
            problem = _field_problem(item, CITED_CHUNK if cited else table)
        if problem is None and table is TURN:
            problem = turn_problem(
                {**item, "cache_key": b64_hex(item["cache_key"]), "node_hash": _SOME_HASH}
            )
        if problem is None and table is RECORD and not _evidence_held(item["evidence"]):
            problem = next(
                (
                    f"evidence {n} {p}"
                    for n, e in enumerate(item["evidence"])
                    if (p := _field_problem(e, EVIDENCE))
                ),
                None,
            )
        if problem is not None:
            yield f"{name}[{index}]: {problem}"
            return  # the entries after it cannot be put in order
        order = _ORDER[name](item)
        if previous is not None and order <= previous:
            said = "repeats the entry before it" if order == previous else "is out of order"
            yield f"{name}[{index}]: {said}"
        previous = order


def _chain_problems(name: str, chain: Any) -> Iterator[str]:
    what = f"chains.{name}"
    problem = _field_problem(chain, CHAIN)
    if problem is not None:
        yield f"{what}: {problem}"
        return
    if _events_held(chain["events"]):
        return
    for index, event in enumerate(chain["events"]):
        table = BODIED_EVENT if type(event) is dict and "body" in event else EVENT
        problem = _field_problem(event, table)
        if problem is not None:
            yield f"{what}.events[{index}]: {problem}"
            return


_EVENT_KEYS, _BODIED_KEYS = EVENT.keys(), BODIED_EVENT.keys()


def _events_held(events: list[Any]) -> bool:
    """Whether every event is of :data:`EVENT`'s or :data:`BODIED_EVENT`'s fields and types:
    what :func:`_field_problem` finds of each, in one pass, to be asked event by event only
    when something is wrong."""
    return all(
        type(e) is dict
        and (e.keys() == _EVENT_KEYS or e.keys() == _BODIED_KEYS)
        and type(e["seq"]) is int
        and 1 <= e["seq"] <= MAX_SAFE_INTEGER
        and type(e["event_type"]) is str
        and type(e["created_at"]) is str
        and (e["sid"] is None or type(e["sid"]) is str)
        and (e["bates"] is None or type(e["bates"]) is str)
        and type(e["tag"]) is str
        and _TAG.fullmatch(e["tag"]) is not None
        for e in events
    )


def _described_problems(name: str, entries: Any) -> Iterator[str]:
    """A profile or policy member: an object of base64url digests to JSON objects (their
    hashes are :mod:`arborist._bundles.check`'s)."""
    if type(entries) is not dict:
        yield f"{name}: is not an object"
        return
    for key, value in entries.items():
        if not _digest(key):
            yield f"{name}: a key is not a base64url hash"
            return
        if type(value) is not dict:
            yield f"{name}[{key[:12]}]: is not an object"
            return


def shape_problems(bundle: dict[str, Any]) -> list[str]:
    """Every entry of ``bundle`` (as :func:`read_bundle` returns it) whose fields are not
    the format's, of their types, in order and once each, one line each."""
    problem = _field_problem(bundle, dict.fromkeys(TOP, _any))
    if problem is not None:
        return [f"the bundle {problem}"]
    problems = [
        p for name, table in _TABLES.items() for p in _list_problems(name, bundle[name], table)
    ]
    problems += [
        p for name, _dimension in DESCRIBED for p in _described_problems(name, bundle[name])
    ]
    chains = bundle["chains"]
    problem = _field_problem(chains, dict.fromkeys(CHAINS, _any))
    if problem is not None:
        return [*problems, f"chains: {problem}"]
    return problems + [p for name in CHAINS for p in _chain_problems(name, chains[name])]

"""A bundle's format (docs/bundle.md): its fields, their JSON types and their order, read
from untrusted bytes with one-line refusals.

A bundle is one canonical JSON value (docs/design.md section 2), so the bytes of an honest
bundle are exactly ``canonical_json`` of what they parse to: :func:`read_bundle` holds them
to it, which refuses in one line a file that is cut short, is not JSON, holds a float, an
integer beyond ±(2^53−1), a lone surrogate, nesting deeper than the parser goes, a key
twice in one object, or a byte of spacing or key
order changed. :func:`shape_problems` then names every entry whose fields are not exactly
the format's, of their JSON types, in the format's order and each once: what
:mod:`arborist.bundle_check` needs before it recomputes a hash.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from arborist.errors import BadInput, IntegrityError
from arborist.forest.bates import is_bates, is_sid
from arborist.forest.transfer import TURN_FIELDS, turn_problem
from arborist.hashing import CACHE_KEY_DIMENSIONS, MAX_SAFE_INTEGER, canonical_text
from arborist.safejson import decode

__all__ = ["BUNDLE_FORMAT", "BundleUnreadable", "CHAINS", "read_bundle", "shape_problems"]

BUNDLE_FORMAT = "arborist-bundle/1"
CHAINS = ("sessions", "store")
"""The two audit chains a bundle carries a span of, by their database's name."""

_HEX64 = re.compile(r"[0-9a-f]{64}")
_HEX_RUN = re.compile(r"[0-9a-f]*")

Check = Callable[[Any], bool]


class BundleUnreadable(IntegrityError):
    """Bytes that are no bundle at all: cut short, not canonical JSON, another format."""


def _hex(value: Any) -> bool:
    return type(value) is str and _HEX64.fullmatch(value) is not None


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


def _hex_list(value: Any) -> bool:
    """A list of 64-digit lowercase hex texts (held as one run: one match, not one each)."""
    return (
        type(value) is list
        and all(type(item) is str and len(item) == 64 for item in value)
        and _HEX_RUN.fullmatch("".join(value)) is not None
    )


def _dimensions(value: Any) -> bool:
    return (
        type(value) is dict
        and set(value) == set(CACHE_KEY_DIMENSIONS)
        and all(_text(item) for item in value.values())
    )


SESSION = {
    "sid": lambda v: _text(v) and is_sid(v),
    "label": _maybe(_text),
    "created_at": _text,
    "root_bates": lambda v: _text(v) and is_bates(v),
}
TURN: dict[str, Check] = {**dict.fromkeys(TURN_FIELDS, _any), "event_seq": _positive}
EVIDENCE = {
    "source_root": _hex,
    "chunk_count": _positive,
    "chunk_index": _nat,
    "leaf": _hex,
    "cited": lambda v: type(v) is bool,
}
RECORD = {
    "cache_key": _hex,
    "revision": _positive,
    "question": _text,
    "answer_text": _text,
    "audit_mode": _text,
    "created_at": _text,
    "dimensions": _dimensions,
    "evidence": lambda v: type(v) is list,
    "record_hash": _hex,
    "response_json": _text,
    "state": _text,
    "state_reason": _maybe(_text),
    "event_seq": _positive,
}
DOCUMENT = {"source_root": _hex, "chunk_count": _positive, "title": _text, "event_seq": _positive}
CHUNK = {
    "source_root": _hex,
    "chunk_index": _nat,
    "leaf": _hex,
    "proof": _hex_list,
    "text": _maybe(_text),
}
EVENT = {
    "seq": _positive,
    "event_type": _text,
    "sid": _maybe(_text),
    "bates": _maybe(_text),
    "body": _any,
    "created_at": _text,
    "prev_event_hash": _maybe(_hex),
    "event_hash": _hex,
}
HEAD = {"seq": _positive, "event_hash": _hex}
TOP = ("chains", "chunks", "documents", "format", "records", "sessions", "turns")

_ORDER: dict[str, Callable[[dict[str, Any]], Any]] = {
    "sessions": lambda item: item["sid"],
    "turns": lambda item: item["bates"],
    "records": lambda item: (item["cache_key"], item["revision"]),
    "documents": lambda item: item["source_root"],
    "chunks": lambda item: (item["source_root"], item["chunk_index"]),
}
"""Each list's entries in strictly ascending order of these: out of order or twice is refused."""

_TABLES = {"sessions": SESSION, "turns": TURN, "records": RECORD, "documents": DOCUMENT,
           "chunks": CHUNK}  # fmt: skip


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


def _list_problems(name: str, entries: Any, table: Mapping[str, Check]) -> Iterator[str]:
    if type(entries) is not list:
        yield f"{name}: is not a list"
        return
    previous = None
    for index, item in enumerate(entries):
        problem = _field_problem(item, table)
        if problem is None and table is TURN:
            problem = turn_problem(item)
        if problem is None and table is RECORD:
            problem = next(
                (f"evidence {n} {p}" for n, e in enumerate(item["evidence"])
                 if (p := _field_problem(e, EVIDENCE))),
                None,
            )  # fmt: skip
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
    problem = _field_problem(chain, {"head": _maybe(lambda v: _field_problem(v, HEAD) is None),
                                     "events": lambda v: type(v) is list})  # fmt: skip
    if problem is not None:
        yield f"{what}: {problem}"
        return
    for index, event in enumerate(chain["events"]):
        problem = _field_problem(event, EVENT)
        if problem is not None:
            yield f"{what}.events[{index}]: {problem}"
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
    chains = bundle["chains"]
    problem = _field_problem(chains, dict.fromkeys(CHAINS, _any))
    if problem is not None:
        return [*problems, f"chains: {problem}"]
    return problems + [p for name in CHAINS for p in _chain_problems(name, chains[name])]

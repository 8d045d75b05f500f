"""What a request to the forest widget's kernel may hold (:mod:`arborist._faces.sync`): each
argument checked for its type and its bounds, and every error one line.

A request is JSON from a front end, so nothing in it is trusted: a bates number must
parse, a list must stay under its limit, a map of held hashes must map strings to
strings. What is wrong is a :class:`BadRequest`, which the protocol answers as
``{"ok": false, "error": "<one line>"}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arborist._errors import BadInput, one_line
from arborist._forest.bates import parse_bates
from arborist._gate.admission import admit_error_line

__all__ = [
    "BadRequest",
    "MAX_BATES_PER_REQUEST",
    "MAX_ERROR_CHARS",
    "MAX_KNOWN_PER_REQUEST",
    "arg",
    "bates_list",
    "checked_bates",
    "error_line",
    "known_hashes",
]

MAX_BATES_PER_REQUEST = 2_000
"""Most nodes one ``expand`` may name: a deep reveal fits, a runaway loop does not."""

MAX_KNOWN_PER_REQUEST = 20_000
"""Most hashes one request may declare as held."""

MAX_ERROR_CHARS = 300
"""An error answer is one line of at most this many characters."""


class BadRequest(BadInput):
    """A request whose shape is wrong (missing id, unknown kind, bad argument)."""


def error_line(error: BaseException) -> str:
    """What the widget is told of a failed request: ``error`` as one line of at most
    :data:`MAX_ERROR_CHARS`, a foreign exception named by its type
    (:func:`arborist._errors.one_line`), through the boundary every face's error line
    passes (:func:`arborist._gate.admission.admit_error_line`): it may quote a bates number or
    a label as typed, a token in it included."""
    return one_line(admit_error_line(one_line(error, named=True)), MAX_ERROR_CHARS)


def checked_bates(value: object, name: str) -> str:
    """``value`` as a bates number (stripped), or a one-line :class:`BadRequest`."""
    if not isinstance(value, str):
        raise BadRequest(f"{name} must be a bates number string")
    parse_bates(value)
    return value.strip()


_TYPE_NAMES = {int: "an integer", str: "a string", list: "a list", dict: "an object"}


def arg(message: Mapping[str, Any], name: str, kind: type, *, default: object = ...) -> Any:
    """``message[name]``, which must be of ``kind`` (``default`` when absent, if given)."""
    if name not in message:
        if default is ...:
            raise BadRequest(f"missing {name!r}")
        return default
    value = message[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise BadRequest(f"{name!r} must be {_TYPE_NAMES.get(kind, kind.__name__)}")
    return value


def known_hashes(message: Mapping[str, Any]) -> dict[str, str]:
    """The ``known`` map of a request: bates to the subtree hash the view holds."""
    known = arg(message, "known", dict, default={})
    if len(known) > MAX_KNOWN_PER_REQUEST:
        raise BadRequest(f"'known' holds {len(known)} hashes; the limit is {MAX_KNOWN_PER_REQUEST}")
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in known.items()):
        raise BadRequest("'known' must map bates numbers to subtree hashes (strings)")
    return dict(known)


def bates_list(message: Mapping[str, Any], name: str, *, default: object = ...) -> list[str]:
    """``message[name]`` as a list of bates numbers, at most :data:`MAX_BATES_PER_REQUEST`."""
    values = arg(message, name, list, default=default)
    if len(values) > MAX_BATES_PER_REQUEST:
        raise BadRequest(
            f"{name!r} names {len(values)} nodes; the limit is {MAX_BATES_PER_REQUEST}"
        )
    return [checked_bates(v, name) for v in values]

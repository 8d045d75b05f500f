"""The admission gate on a document's URI: a secret in its userinfo, query or path never
reaches the store or the audit log. Pure: no I/O.

:func:`redact_uri` replaces what the URI's own syntax says is a secret (a password in
the userinfo, a query parameter named for a secret); :func:`admit_uri` then passes the
whole URI, and each percent-encoded path segment decoded, through
:func:`arborist._gate.admission.admit`.
:mod:`arborist._store.documents` stores a document's URI as :func:`stored_uri` gives it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import quote, unquote

from arborist._gate.admission import PLACEHOLDER, admit
from arborist._text.text_words import word_list

__all__ = [
    "admit_uri",
    "redact_uri",
    "stored_uri",
    "unquoted",
]

_URI_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_PLACEHOLDER_MARK = PLACEHOLDER.split("{", 1)[0]
_PASSWORD_PARAMETERS = frozenset({"pass", "passwd", "password", "pwd"})
_SECRET_PARAMETERS = frozenset(
    word_list("""apikey auth authorization credential credentials jsessionid key secret session sessionid
        sig signature token""")
)
_SECRET_ENDINGS = tuple(
    word_list("accesskey apikey password privatekey secret secretkey signature token")
)


def _secret_parameter(name: str) -> str | None:
    """The placeholder kind for a query parameter secret by its name alone, else None.

    A name is read as words (``api_key``, ``X-Amz-Signature``, ``accessToken``):
    it names a secret when a word is one of the secret words or ends like one
    (``clientsecret``, ``accesstoken``); ``monkey`` and ``keyboard`` do not.
    """
    words = [w for w in re.split(r"[^a-z0-9]+", unquote(name).lower()) if w]
    if any(w in _PASSWORD_PARAMETERS or w.endswith("password") for w in words):
        return "password"
    if any(w in _SECRET_PARAMETERS or w.endswith(_SECRET_ENDINGS) for w in words):
        return "secret"
    return None


def _allowed(piece: str, uri: str, allowlist: Sequence[str]) -> bool:
    """Whether ``piece`` of ``uri`` is a declared false positive: it lies within an
    allowlist entry that the URI holds."""
    return any(entry and entry in uri and piece in entry for entry in allowlist)


def _redact_parameters(query: str, uri: str, allowlist: Sequence[str]) -> tuple[str, list[str]]:
    """``name=value`` pairs (``&`` or ``;`` separated) with each secret-named value replaced."""
    kinds: list[str] = []
    pairs = re.split(r"([&;])", query)
    for i in range(0, len(pairs), 2):
        name, equals, value = pairs[i].partition("=")
        if not equals or not value or _PLACEHOLDER_MARK in value:
            continue
        if _allowed(value, uri, allowlist):
            continue
        kind = _secret_parameter(name)
        if kind is not None:
            pairs[i] = f"{name}={PLACEHOLDER.format(kind=kind)}"
            kinds.append(kind)
    return "".join(pairs), kinds


def redact_uri(uri: str, *, allowlist: Sequence[str] = ()) -> tuple[str, list[str]]:
    """``uri`` without the secrets its structure names, and the kind of each one removed.

    The userinfo of an authority (``https://user:pass@host``) goes whole, ``@``
    included (``url_credentials``); the value of a query or fragment parameter named like
    a secret (``api_key``, ``token``, ``sig``, ``X-Amz-Signature``, ``password``,
    ``auth``...) becomes ``[REDACTED:secret]`` (``[REDACTED:password]`` for a
    password). Everything else stays byte for byte: no normalization, no
    re-quoting, so the same source always gives the same URI. A userinfo or
    value within an ``allowlist`` entry that the URI holds stays. Pattern secrets anywhere in the
    URI (a key in a file name) are :func:`admit_uri`'s.
    """
    kinds: list[str] = []
    scheme = _URI_SCHEME.match(uri)
    rest_at = scheme.end() if scheme else 0
    head, rest = uri[:rest_at], uri[rest_at:]
    if rest.startswith("//"):
        authority_end = len(rest)
        for mark in "/?#":
            mark_at = rest.find(mark, 2)
            if mark_at != -1:
                authority_end = min(authority_end, mark_at)
        authority = rest[2:authority_end]
        userinfo, at, host = authority.rpartition("@")
        if at and not _allowed(userinfo, uri, allowlist):
            rest = "//" + host + rest[authority_end:]
            kinds.append("url_credentials")
    fragment_at = rest.find("#")
    fragment = "" if fragment_at == -1 else rest[fragment_at:]
    rest = rest if fragment_at == -1 else rest[:fragment_at]
    query_at = rest.find("?")
    if query_at != -1:
        query, found = _redact_parameters(rest[query_at + 1 :], uri, allowlist)
        rest = rest[: query_at + 1] + query
        kinds += found
    if fragment:
        redacted, found = _redact_parameters(fragment[1:], uri, allowlist)
        fragment = "#" + redacted
        kinds += found
    return head + rest + fragment, kinds


def admit_uri(uri: str, *, allowlist: Sequence[str] = ()) -> tuple[str, list[str]]:
    """The URI a document is stored under: :func:`redact_uri`, then the admission gate.

    The gate runs on the whole URI and, for each percent-encoded path segment, on
    its decoded form too (``token%3Dabc...`` in a file name is ``token=abc...``);
    a segment with a secret is stored decoded, redacted and quoted again. Returns
    the URI and the kinds redacted (none: the URI as given). Deterministic, so the
    same source is recognised as the same document on every ingest.
    """
    uri, kinds = redact_uri(uri, allowlist=allowlist)
    if "%" in uri:
        end = len(uri)
        for mark in "?#":
            mark_at = uri.find(mark)
            if mark_at != -1:
                end = min(end, mark_at)
        segments = uri[:end].split("/")
        for i, segment in enumerate(segments):
            if "%" not in segment:
                continue
            decoded = admit(unquoted(segment), allowlist=allowlist)
            if decoded.redactions:
                segments[i] = quote(decoded.text, safe="[]:@!$&'()*+,;=-._~")
                kinds += [r.kind for r in decoded.redactions]
        uri = "/".join(segments) + uri[end:]
    admitted = admit(uri, allowlist=allowlist)
    kinds += [r.kind for r in admitted.redactions]
    return admitted.text, kinds


def unquoted(text: str) -> str:
    """``text`` with its percent-escapes decoded; an escape that is no UTF-8 (``%DB_`` in
    ``%DB_PASSWORD%``, a variable's name) stays as written, not a replacement character."""
    return _LONE_BYTE.sub(_as_escape, unquote(text, errors="surrogateescape"))


_LONE_BYTE = re.compile("[\udc80-\udcff]")
"""A byte ``unquote`` could not decode, kept as a lone surrogate (``surrogateescape``)."""


def _as_escape(m: re.Match[str]) -> str:
    return f"%{ord(m.group()) - 0xDC00:02X}"


def stored_uri(uri: str) -> str:
    return admit_uri(uri)[0]

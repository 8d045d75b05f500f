"""The admission gate: secrets are replaced by typed placeholders before text is stored.

Pure: no I/O. Every text that enters a store (a question, an answer, an
ingested document) passes through :func:`admit` first; what comes out holds
``[REDACTED:<kind>]`` wherever a secret was, and a tuple of
:class:`Redaction` records (kind and position in the *original* text), never
the secret itself.

Detected kinds:

* ``openai_key`` / ``anthropic_key``: ``sk-...``, ``sk-proj-...``, ``sk-ant-...``
  with at least 20 characters after ``sk-``;
* ``aws_access_key``: ``AKIA``/``ASIA`` and 16 uppercase letters or digits;
* ``aws_secret_key``: the 40-character value given to an AWS secret key's name:
  ``aws_secret_access_key = ...`` (any case, ``_``/``-``/space between the words, a
  prefix such as ``MY_`` allowed), the JSON ``"SecretAccessKey": "..."`` and
  ``"AWS_SECRET_ACCESS_KEY": "..."``, the XML ``<SecretAccessKey>...``, and prose
  such as ``aws secret key: ...`` or ``AWS secret access key = ...``;
* ``github_token``: ``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_`` + 36 characters,
  ``github_pat_...``;
* ``slack_token``: ``xoxa-``/``xoxb-``/``xoxp-``/``xoxo-``/``xoxr-``/``xoxs-``...;
* ``jwt``: three base64url segments, the header starting ``eyJ``;
* ``private_key``: a PEM ``-----BEGIN ... PRIVATE KEY-----`` block through its END
  line (through the end of the base64 body when END is missing);
* ``bearer_token``: the token after ``Bearer`` (16 characters or more, with a digit);
  the word Bearer stays;
* ``url_credentials``: the password of a URL's userinfo (``https://user:PASSWORD@host``,
  ``postgres://u:PASSWORD@db/x``; the user name stays; up to the last ``@`` of the
  authority, so a password holding an unescaped ``@`` goes whole), and the value of a
  signature or key query parameter (``?sig=``, ``&signature=``, ``X-Amz-Signature=``,
  ``?key=``, ``api-key=``...) of 16 characters or more with a digit. Obvious
  placeholders (``user:password@``, ``user:<pass>@``, ``${PASS}``) are left alone.
  Secret-named parameters that read as assignments (``?api_key=``, ``&token=``,
  ``access_token=``, ``client_secret=``) are the ``secret`` kind below;
* ``password`` / ``secret``: the value of a ``password=``, ``passwd=``, ``pwd=``,
  ``secret=``, ``api_key=`` or ``token=`` assignment (``=`` or ``:``, quoted or
  bare); the key name stays; empty values and obvious placeholders (``***``,
  ``<...>``, ``${VAR}``, ``xxx``) are left alone.

Overlapping matches merge into one redaction; the result is deterministic;
placeholders are never matched again, so admitting twice changes nothing.
Every pattern is linear in the length of the text (no nested quantifiers that
can backtrack catastrophically).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from arborist.errors import BadInput

__all__ = [
    "Admitted",
    "KINDS",
    "PLACEHOLDER",
    "Redaction",
    "admit",
    "admit_document",
]

PLACEHOLDER = "[REDACTED:{kind}]"
"""What replaces a secret; ``kind`` is one of :data:`KINDS`."""

_PLACEHOLDER_MARK = "[REDACTED:"

KINDS = (
    "private_key",
    "jwt",
    "anthropic_key",
    "openai_key",
    "aws_access_key",
    "aws_secret_key",
    "github_token",
    "slack_token",
    "bearer_token",
    "url_credentials",
    "password",
    "secret",
)
"""Every kind the gate reports, in priority order (earlier wins a tie on overlap)."""

_PRIORITY = {kind: rank for rank, kind in enumerate(KINDS)}


@dataclass(frozen=True)
class Redaction:
    """One replaced secret: its kind and ``[start, end)`` in the original text."""

    kind: str
    start: int
    end: int


@dataclass(frozen=True)
class Admitted:
    """Text fit to store: secrets replaced by placeholders, with the record of each."""

    text: str
    redactions: tuple[Redaction, ...]

    @property
    def summary(self) -> dict[str, int]:
        """How many redactions of each kind, keys sorted."""
        counts = Counter(r.kind for r in self.redactions)
        return {kind: counts[kind] for kind in sorted(counts)}

    @property
    def clean(self) -> bool:
        """True when nothing was redacted."""
        return not self.redactions


# --- patterns -----------------------------------------------------------------
# Each left boundary excludes every character the body may contain, so a run of
# repeated prefixes ("sk-sk-sk-...") is scanned once, not once per prefix.

_SK_KEY = re.compile(r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}")
_AWS_ACCESS = re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])")
# ASCII-only case folding ((?a)): the names are ASCII, and the literal prefilter
# (``"secret" in folded``) then finds every text the pattern can match.
_AWS_SECRET = re.compile(
    r"(?ai)(?<![a-z0-9])"
    r"(?:aws[ _-]?secret(?:[ _-]?access)?[ _-]?key|secret[ _-]?(?:access[ _-]?)?key)"
    r"(?:[ \t]*\[[^\]\n]{0,20}\])?"  # the `aws configure` prompt: "... Key [None]: "
    r"[\"']?[ \t]*(?:[=:>]|\n|is\b)\s*[\"']?"  # = : > (XML), "is", or the value on the next line
    r"(?-i:([A-Za-z0-9/+=]{40}))(?![A-Za-z0-9/+=])"
)
# scheme://user:PASSWORD@host: the user part holds no ":", "@" or brackets (so it never
# starts inside a placeholder); the password runs to the authority's last "@".
_URL_USERINFO = re.compile(
    r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@\[\]]*:([^\s/?#]+)@"
)
_QUERY_SECRET = re.compile(
    r"(?ai)[?&;](?:sig|signature|x-amz-signature|x-goog-signature|key|api-key|x-api-key"
    r"|access-key|subscription-key)=([^\s?&#;'\"<>`]+)"
)
_URL_FILLER = re.compile(
    r"(?i)(?:your|my|the|some)?[_-]?(?:password|passwd|pass|pwd|pw|secret|token)|foo|bar|baz"
)
_QUERY_SECRET_MIN = 16
"""A key or signature query value shorter than this is a name or an example, not a secret."""
_GITHUB = re.compile(
    r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"
)
_SLACK = re.compile(r"(?<![A-Za-z0-9-])xox[abpors]-[A-Za-z0-9-]{10,}")
_JWT = re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}")
_PEM_BEGIN = re.compile(r"-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----")
_PEM_BODY = re.compile(r"(?:[ \t]*\r?\n[ \t]*[A-Za-z0-9+/=]+[ \t]*(?![^\r\n]))*")
_BEARER = re.compile(r"(?i)(?<![A-Za-z0-9_])bearer[ \t]+([A-Za-z0-9._~+/=-]{16,})")
_ASSIGNMENT = re.compile(
    r"(?i)(?<![A-Za-z0-9_])(?:[A-Za-z0-9_]*_)?"
    r"(password|passwd|pwd|secret|api_key|apikey|token)"
    r"[\"']?[ \t]*([=:])[ \t]*"
    r"(?:\"([^\"\n]*)\"|'([^'\n]*)'|(<[^<>\n]*>|[^\s'\",;&`]+))"
)

# The assignment keys alone, folded as the full pattern folds them: a casefold() test
# would miss what (?i) matches (a Turkish dotted or dotless i in "api_key").
_ASSIGNMENT_KEY = re.compile(r"(?i)passw(?:or)?d|pwd|secret|api_?key|token")

_PASSWORD_KEYS = frozenset({"password", "passwd", "pwd"})
_TYPE_NAMES = frozenset(
    {"str", "string", "int", "bool", "bytes", "none", "null", "true", "false", "optional", "any"}
)
_NULLS = frozenset({"none", "null", "nil", "undefined", "true", "false"})
"""Bare values that say "no password" (``pwd=None`` in a signature), never a secret."""
_FILLER = re.compile(r"(?i)\*+|x+|\.\.\.|<[^<>]*>|\$\{[^{}]*\}|\{\{.*\}\}|\$[A-Za-z_][A-Za-z0-9_]*")


def _has_digit(value: str) -> bool:
    return any(c.isdigit() for c in value)


def _is_filler(value: str, separator: str, quoted: bool) -> bool:
    """Values that are not secrets: empty, masked, templated, type names, calls."""
    if not value.strip() or _PLACEHOLDER_MARK in value:
        return True
    if _FILLER.fullmatch(value.strip()):
        return True
    if not quoted:
        if "(" in value or value.lower() in _NULLS:
            return True
        head = re.split(r"[\[|]", value, maxsplit=1)[0].lower()
        if separator == ":" and head in _TYPE_NAMES:
            return True
    return False


def _has(text: str, *needles: str) -> bool:
    return any(needle in text for needle in needles)


def _candidates(text: str) -> Iterator[tuple[str, int, int]]:
    """Every raw match as ``(kind, start, end)``; overlaps are resolved by the caller.

    Each pattern runs only when the literal every match of it contains is in the
    text (case-folded for the case-insensitive ones, whose literals hold no ``i``
    or ``s``/``k`` that Unicode folds differently, or whose pattern folds ASCII
    only (``(?ai)``: the AWS secret's names, the query parameters); the
    assignment keys do, so they are looked for with a regex that folds as the
    full pattern does): a
    pattern that opens with a lookbehind cannot use the regex engine's own
    literal scan, and most text holds no secret at all. A literal is looked for
    only after a single character every match needs (``-``, ``_``, ``@``, ``=``,
    ``:``, ``J``, ``K``, ``S``): one of those is a ``memchr``, about 40 times cheaper
    than a search for a word, so prose with no ``=`` or ``-`` is read about
    a dozen times fewer.
    """
    folded = text.casefold()
    yield from _key_candidates(text, folded)
    yield from _url_candidates(text, folded)
    yield from _token_candidates(text, folded)
    yield from _assignment_candidates(text, folded)


def _key_candidates(text: str, folded: str) -> Iterator[tuple[str, int, int]]:
    """Provider API keys: OpenAI and Anthropic ``sk-``, AWS access and secret keys."""
    if "-" in text and "sk-" in text:
        for m in _SK_KEY.finditer(text):
            body = m.group()[3:]
            if _has_digit(body):
                kind = "anthropic_key" if body.startswith("ant-") else "openai_key"
                yield kind, m.start(), m.end()
    if ("K" in text and "AKIA" in text) or ("S" in text and "ASIA" in text):
        for m in _AWS_ACCESS.finditer(text):
            yield "aws_access_key", m.start(), m.end()
    if "secret" in folded:
        for m in _AWS_SECRET.finditer(text):
            yield "aws_secret_key", m.start(1), m.end(1)


def _url_candidates(text: str, folded: str) -> Iterator[tuple[str, int, int]]:
    """Credentials in URLs: ``user:password@`` and signing or key query parameters."""
    if "@" in text and "://" in text:
        for m in _URL_USERINFO.finditer(text):
            value = m.group(1)
            if not (_is_filler(value, ":", quoted=True) or _URL_FILLER.fullmatch(value)):
                yield "url_credentials", m.start(1), m.end(1)
    if (
        "=" in text
        and ("?" in text or "&" in text or ";" in text)
        and ("sig" in folded or "key" in folded)
    ):
        for m in _QUERY_SECRET.finditer(text):
            value = m.group(1).rstrip(".)]}")
            if (
                len(value) >= _QUERY_SECRET_MIN
                and _has_digit(value)
                and not _is_filler(value, "=", quoted=True)
            ):
                yield "url_credentials", m.start(1), m.start(1) + len(value)


def _token_candidates(text: str, folded: str) -> Iterator[tuple[str, int, int]]:
    """Bearer-style tokens: GitHub, Slack, JWTs, PEM private keys, ``Bearer`` values."""
    if "_" in text and (
        ("gh" in text and _has(text, "ghp_", "gho_", "ghu_", "ghs_", "ghr_"))
        or "github_pat_" in text
    ):
        for m in _GITHUB.finditer(text):
            yield "github_token", m.start(), m.end()
    dash = "-" in text
    if dash and "xox" in text:
        for m in _SLACK.finditer(text):
            if _has_digit(m.group()[5:]):
                yield "slack_token", m.start(), m.end()
    if "J" in text and "eyJ" in text:
        for m in _JWT.finditer(text):
            yield "jwt", m.start(), m.end()
    if dash:
        yield from _private_keys(text)
    if "bearer" in folded:
        for m in _BEARER.finditer(text):
            if _has_digit(m.group(1)):
                yield "bearer_token", m.start(1), m.end(1)


def _assignment_candidates(text: str, folded: str) -> Iterator[tuple[str, int, int]]:
    """Values assigned to a password, secret, token or API key name."""
    if "=" not in text and ":" not in text:  # every match has one after its key
        return
    if text.isascii():
        keyed = _has(folded, "password", "passwd", "pwd", "secret", "api_key", "apikey", "token")
    else:
        keyed = _ASSIGNMENT_KEY.search(text) is not None
    if not keyed:
        return
    for m in _ASSIGNMENT.finditer(text):
        group = 3 if m.group(3) is not None else 4 if m.group(4) is not None else 5
        value = m.group(group)
        start, end = m.start(group), m.end(group)
        if _is_filler(value, m.group(2), quoted=group != 5):
            continue
        if group == 5:
            stripped = value.rstrip(".)]}>")
            end -= len(value) - len(stripped)
            value = stripped
        if _is_filler(value, m.group(2), quoted=group != 5):
            continue
        kind = "password" if m.group(1).lower() in _PASSWORD_KEYS else "secret"
        yield kind, start, end


def _private_keys(text: str) -> Iterator[tuple[str, int, int]]:
    """PEM private key blocks; a missing END line redacts through the base64 body."""
    missing: set[str] = set()
    pos = 0
    while True:
        m = _PEM_BEGIN.search(text, pos)
        if m is None:
            return
        label = m.group(1)
        end = -1
        if label not in missing:
            marker = f"-----END {label}PRIVATE KEY-----"
            found = text.find(marker, m.end())
            if found == -1:
                missing.add(label)
            else:
                end = found + len(marker)
        if end == -1:
            body = _PEM_BODY.match(text, m.end())
            end = body.end() if body is not None else m.end()
            while end > m.end() and text[end - 1].isspace():
                end -= 1
        yield "private_key", m.start(), end
        pos = end


def _allowed_spans(text: str, allowlist: Sequence[str]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for entry in allowlist:
        if not entry:
            continue
        i = text.find(entry)
        while i != -1:
            spans.append((i, i + len(entry)))
            i = text.find(entry, i + 1)
    return spans


def _find(text: str, allowlist: Sequence[str]) -> tuple[Redaction, ...]:
    """The merged, ordered redactions of ``text`` (positions in ``text``)."""
    candidates = list(_candidates(text))
    if not candidates:  # most text: nothing to weigh against the allowlist
        return ()
    allowed = frozenset(allowlist)
    allowed_spans = _allowed_spans(text, allowlist)
    found = [
        (start, -(end - start), _PRIORITY[kind], kind, end)
        for kind, start, end in candidates
        if end > start
        and text[start:end] not in allowed
        and not any(a <= start and end <= b for a, b in allowed_spans)
    ]
    found.sort()
    return _merge([Redaction(kind, start, end) for start, _, _, kind, end in found])


def _apply(
    text: str, redactions: Sequence[Redaction]
) -> tuple[str, list[tuple[int, int, int, int]]]:
    """``text`` with each redaction replaced, and the map of its pieces:
    ``(start, end)`` in the result beside ``(start, end)`` in ``text``."""
    parts: list[str] = []
    pieces: list[tuple[int, int, int, int]] = []
    pos = out = 0
    for r in redactions:
        for chunk, orig_end in (
            (text[pos : r.start], r.start),
            (PLACEHOLDER.format(kind=r.kind), r.end),
        ):
            pieces.append((out, out + len(chunk), pos, orig_end))
            parts.append(chunk)
            out += len(chunk)
            pos = orig_end
    pieces.append((out, out + len(text) - pos, pos, len(text)))
    parts.append(text[pos:])
    return "".join(parts), pieces


def _to_original(pieces: Sequence[tuple[int, int, int, int]], at: int, *, end: bool) -> int:
    for start, stop, orig_start, orig_stop in pieces:
        if start <= at < stop or (end and at == stop):
            if orig_stop - orig_start == stop - start:  # original text: same offsets
                return orig_start + (at - start)
            return orig_stop if end else orig_start  # inside a placeholder: all of it
    return pieces[-1][3]


def _merge(redactions: Sequence[Redaction]) -> tuple[Redaction, ...]:
    merged: list[Redaction] = []
    for r in sorted(redactions, key=lambda r: (r.start, -(r.end - r.start), _PRIORITY[r.kind])):
        if merged and r.start < merged[-1].end:
            last = merged[-1]
            if r.end > last.end:
                merged[-1] = Redaction(last.kind, last.start, r.end)
            continue
        merged.append(r)
    return tuple(merged)


MAX_ROUNDS = 8


def admit(text: str, *, allowlist: Sequence[str] = ()) -> Admitted:
    """Replace every detected secret in ``text`` with ``[REDACTED:<kind>]``.

    ``allowlist`` holds exact strings never redacted (declared false positives):
    a match equal to an entry, or lying inside an occurrence of one, is kept.

    The result is a fixed point: a placeholder can make a neighbouring secret
    newly recognisable (``-----BEGIN ... KEY-----sk-...``: the ``sk-`` key only
    stands alone once the BEGIN line is gone), so the gate looks again until
    nothing more is found; admitting the result changes nothing.
    """
    redactions = _find(text, allowlist)
    if not redactions:  # the text as it is (what _apply gives for no redaction)
        return Admitted(text, redactions)
    for _round in range(MAX_ROUNDS):
        admitted, pieces = _apply(text, redactions)
        more = _find(admitted, allowlist) if redactions else ()
        if not more:
            return Admitted(admitted, redactions)
        redactions = _merge(
            [
                *redactions,
                *(
                    Redaction(
                        r.kind,
                        _to_original(pieces, r.start, end=False),
                        _to_original(pieces, r.end, end=True),
                    )
                    for r in more
                ),
            ]
        )
    return Admitted(_apply(text, redactions)[0], redactions)


def admit_document(
    text: str,
    *,
    name: str,
    allowlist: Sequence[str] = (),
    max_secret_fraction: float = 0.5,
) -> Admitted:
    """:func:`admit` for a whole document, refusing one that is mostly secret material.

    Raises :class:`~arborist.errors.BadInput` when the redacted characters exceed
    ``max_secret_fraction`` of the document's non-whitespace characters. The
    message names the document and the counts, never the secrets.
    """
    if not 0.0 <= max_secret_fraction <= 1.0:
        raise BadInput(f"max_secret_fraction must be in [0, 1], got {max_secret_fraction!r}")
    admitted = admit(text, allowlist=allowlist)
    redacted = sum(r.end - r.start for r in admitted.redactions)
    if not redacted:
        return admitted
    significant = len("".join(text.split()))  # non-whitespace characters, counted in C
    if redacted > max_secret_fraction * significant:
        raise BadInput(
            f"{name} is mostly secret material ({redacted} of {significant} "
            f"non-whitespace characters redacted, limit {max_secret_fraction:.0%}); "
            "remove the secrets or add false positives to the allowlist"
        )
    return admitted

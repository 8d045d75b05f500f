"""Where secrets are in a text: each shape's cheap prefilter, then its pattern.

Pure: no I/O. :func:`candidates` yields ``(kind, start, end)`` for every match of
:mod:`arborist._gate.shapes`' patterns, overlapping and unmerged; the gate
(:mod:`arborist._gate.admission`) weighs them against the allowlist, merges them and
replaces them. Most text holds no secret, so each family of shapes runs only when a
literal every match holds is in the text (or its case-folding), and the long-token
shapes only on a text's long words (:func:`arborist._gate.prefilters.long_words`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from arborist._gate.bare import bare_candidates
from arborist._gate.code import code_candidates, prose_candidates
from arborist._gate.codes import coded_candidates
from arborist._gate.commands import command_candidates, spaced_candidates
from arborist._gate.context import context_candidates
from arborist._gate.cued import cued_candidates
from arborist._gate.handed import handed_candidates
from arborist._gate.names import MIXED, fold_in_place, named_candidates
from arborist._gate.prefilters import AWS_SECRET_SIZE, Literals, has_long, long_words
from arborist._gate.shapes import (
    ADO_PAT,
    AUTH_HEADER,
    AWS_ACCESS,
    AWS_PREFIX,
    AWS_SECRET_AT,
    B64_64,
    B64_64_NAMED,
    BASIC,
    BEARER,
    DISCORD,
    GITHUB,
    JWT,
    PEM_B64,
    PEM_BEGIN,
    PEM_BODY,
    QUERY_SECRET,
    QUERY_SECRET_MIN,
    SK_GLUED,
    SK_HEX,
    SK_KEY,
    SLACK,
    SSWS,
    TELEGRAM,
    TWILIO,
    URL_FILLER,
    URL_USERINFO,
    WEBHOOK,
    at_each,
    b64_text,
    has,
    printable,
)
from arborist._gate.told import told_candidates
from arborist._gate.values import (
    has_digit,
    is_filler,
    masked_token,
    random_looking,
)
from arborist._gate.vendors import vendor_rows

__all__ = [
    "candidates",
]


def candidates(text: str) -> Iterator[tuple[str, int, int]]:
    """Every raw match as ``(kind, start, end)``; overlaps are resolved by the caller.

    Each pattern runs only when the literal every match of it contains is in the
    text (case-folded for the case-insensitive ones, whose literals hold no ``i``
    or ``s``/``k`` that Unicode folds differently, or whose pattern folds ASCII
    only (``(?ai)``: the AWS secret's names, the query parameters); the
    assignment names are looked for with a regex that folds as (?i) does): a
    pattern that opens with a lookbehind cannot use the regex engine's own
    literal scan, and most text holds no secret at all. A literal is looked for
    only after a single character every match needs (``-``, ``_``, ``@``, ``=``,
    ``:``, ``J``, ``K``, ``S``): one of those is a ``memchr``, far cheaper than a search
    for a word (docs/design.md section 8).
    """
    folded = text.casefold()
    if len(folded) != len(text):  # "ß" folds to two letters: fold in place, positions stay
        folded = fold_in_place(text)  # one character for one: every finder's folded
    found = Literals(folded)  # the literals several families look for, each found once
    longs = long_words(text)
    yield from _key_candidates(text, found, longs)
    yield from _url_candidates(text, longs)
    yield from _token_candidates(text, longs)
    yield from _header_candidates(text, found)
    yield from named_candidates(text, found)
    yield from command_candidates(text, found, longs)
    yield from spaced_candidates(text, found)
    yield from code_candidates(text, found)
    yield from prose_candidates(text, found)
    yield from told_candidates(text, found, longs, candidates)
    yield from context_candidates(text, found, longs)
    yield from bare_candidates(text, longs, candidates)
    yield from handed_candidates(text, found, longs, candidates)
    yield from cued_candidates(text, found, longs, candidates)
    yield from coded_candidates(text, found, longs)


def _key_candidates(text: str, found: Literals, longs: str) -> Iterator[tuple[str, int, int]]:
    """Provider API keys: OpenAI and Anthropic ``sk-``, AWS keys, vendor-prefixed tokens."""
    if "sk-" in longs:  # a key's 23 characters or more, with a digit: a long word
        for m in SK_KEY.finditer(text):
            body = m.group()[3:]
            if has_digit(body) and (body.lower() != body != body.upper() or SK_HEX.search(body)):
                kind = "anthropic_key" if body.startswith("ant-") else "openai_key"
                yield kind, m.start(), m.end()
        for m in SK_GLUED.finditer(text):  # glued to a word: sk-proj-, sk-ant-...
            if has_digit(m.group()):
                kind = "anthropic_key" if m.group().startswith("sk-ant-") else "openai_key"
                yield kind, m.start(), m.end()
    if AWS_PREFIX.search(text) is not None:
        for m in AWS_ACCESS.finditer(text):
            key = m.group()
            if ("\n" not in key or has_digit(key[4:])) and not _masked_key_id(key):
                yield "aws_access_key", m.start(), m.end()  # wrapped: not a word in capitals
    if has_long(longs, AWS_SECRET_SIZE) and "secret" in found:
        for m in _aws_secrets(text, found.at("secret")):
            if random_looking(m.group(1)):
                yield "aws_secret_key", m.start(1), m.end(1)
    for _literals, kind, pattern in vendor_rows(longs):
        if pattern.search(longs) is not None:  # every token is among the long words
            for m in pattern.finditer(text):
                if random_looking(m.group()) and not masked_token(m.group()):
                    yield kind, m.start(), m.end()  # sk_live_XXXX...: a prefix and a mask
    if "." in longs and _DISCORD_TAIL.search(longs) and DISCORD.search(longs):
        for m in DISCORD.finditer(text):
            if (not m.start() or not text[m.start() - 1].isalnum()) and random_looking(m.group()):
                yield "api_token", m.start(), m.end()
    if "==" in longs and has_long(longs, 88):
        for m in B64_64.finditer(text):
            if (
                random_looking(m.group())
                and not B64_64_NAMED.search(text, max(0, m.start() - 12), m.start())
                and not _b64_of_text(m.group())
            ):
                yield "api_token", m.start(), m.end()
    if has_long(longs, _ADO_PAT_SIZE) and _ado_pat_in(longs):
        for m in ADO_PAT.finditer(text):
            pat = m.group()
            if sum(c.isdigit() for c in pat) >= 4 and len(MIXED.findall(pat)) >= 6:
                yield "api_token", m.start(), m.end()
    if ":AA" in longs:  # 41 characters or more, digits among them: a long word
        for m in TELEGRAM.finditer(text):
            yield "api_token", m.start(), m.end()
    if "AC" in longs and "," in text:
        for m in TWILIO.finditer(text):
            yield "api_token", m.start(1), m.end(1)


_DISCORD_TAIL = re.compile(r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}")
""":data:`DISCORD`'s middle and the least of its tail, which every match holds: looked for
first, led by a ``.``, where the search of the whole pattern backtracks from every ``M``,
``N`` and ``O`` of the long words."""
_ADO_PAT_SIZE = 52


def _ado_pat_in(longs: str) -> bool:
    """Whether :data:`ADO_PAT` is among the long words: searched in each word long enough
    to hold it, where a search of the long words tried its lookbehind at every character."""
    return any(ADO_PAT.search(word) for word in longs.split(" ") if len(word) >= _ADO_PAT_SIZE)


_MASK_CHARACTERS = 3
"""At most this many distinct characters in an AWS key id's 16: a mask (``AKIAXXXX...``,
``AKIA0000...``). Sixteen random characters of base32 are never so few."""


def _masked_key_id(key: str) -> bool:
    """Whether an AWS key id's body is one filler character over and over (or nearly):
    a placeholder in documentation, not a key."""
    body = "".join(key[4:].split()).replace("\\", "").replace(">", "")
    return len(set(body)) <= _MASK_CHARACTERS


def _b64_of_text(value: str) -> bool:
    """Whether ``value``, or its tail after one of its ``/`` (a URL path before it), is the
    base64 of printable text: a key is random bytes."""
    for at in (-1, *(i for i, c in enumerate(value) if c == "/")):
        tail = value[at + 1 :]
        decoded = b64_text(tail) if len(tail) % 4 == 0 and len(tail) >= 16 else None
        if decoded is not None and printable(decoded):
            return True
    return False


def _userinfos(text: str) -> Iterator[re.Match[str]]:
    """:data:`URL_USERINFO` matched from each ``://``'s scheme: a ``find`` per URL, where
    a search of a pattern opening with a lookbehind tries every character."""
    at = text.find("://")
    while at != -1:
        start = at
        while start and text[start - 1] in _SCHEME_CHARS:
            start -= 1
        while start < at and not text[start].isalpha():
            start += 1  # a diff's "+postgres://": the scheme opens at a letter
        m = URL_USERINFO.match(text, start) if text[start].isalpha() else None
        if m is not None:
            yield m
        at = text.find("://", max(at + 3, m.end() if m is not None else 0))


_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")


def _random_key(value: str) -> bool:
    """Whether ``value`` reads as a random key: letters and digits changing often (a
    Sentry DSN's 32 hex digits), where a user name (``deploy-bot``, ``user_2024``) does not."""
    return (
        random_looking(value)
        and has_digit(value)
        and any(c.isalpha() for c in value)
        and len(MIXED.findall(value)) >= _MIN_MIXED_KEY
        and not is_filler(value, "=", quoted=True)
    )


_MIN_MIXED_KEY = 4


def _aws_secrets(text: str, secrets: list[int]) -> Iterator[re.Match[str]]:
    """:data:`AWS_SECRET`'s matches, tried where each ``secret`` (``aws_``, ``aws`` or
    nothing before it) starts (``secrets``, in the case-folded text), not at every
    character."""
    done = after = 0
    for at in secrets:
        if at < after:
            continue
        for start in (at - 4, at - 3, at):
            if start < done or start < 0:
                continue
            before = text[start - 1] if start else ""
            if before.isascii() and before.isalnum():  # the lookbehind: (?a) [a-z0-9]
                continue
            m = AWS_SECRET_AT.match(text, start)
            if m is not None:
                yield m
                done = m.end()
                break
        after = max(at + 1, done)


def _url_candidates(text: str, longs: str) -> Iterator[tuple[str, int, int]]:
    """Credentials in URLs: ``user:password@``, signing or key query parameters, webhooks."""
    if "@" in text and "://" in text:
        for m in _userinfos(text):
            value = m.group(1)
            if value is None:  # a user name alone: a key when it reads as one
                if _random_key(m.group(2)):
                    yield "url_credentials", m.start(2), m.end(2)
            elif "?" in value and value.partition("?")[0].isdigit():  # host:8080?next=a@b
                continue
            elif not (is_filler(value, ":", quoted=True) or URL_FILLER.fullmatch(value)):
                yield "url_credentials", m.start(1), m.end(1)
    if (  # "?sig=" and 16 characters with a digit: one word, among the long ones
        "=" in longs
        and ("?" in longs or "&" in longs or ";" in longs)
        and has(longs.casefold(), "sig", "key")
    ):
        for m in QUERY_SECRET.finditer(text):
            value = m.group(1).rstrip(".)]}")
            if (
                len(value) >= QUERY_SECRET_MIN
                and has_digit(value)
                and not is_filler(value, "=", quoted=True)
            ):
                yield "url_credentials", m.start(1), m.start(1) + len(value)
    if "#" in longs and "://" in longs:
        for m in _FRAGMENT_KEY.finditer(longs):  # every such URL is a long word
            key = m.group(1)
            if _fragment_key(key):
                at = text.find(m.group())
                while at != -1:
                    start = at + m.start(1) - m.start()
                    yield "url_credentials", start, start + len(key)
                    at = text.find(m.group(), at + 1)
    if "/" in longs and "hook" in longs.casefold() and WEBHOOK.search(longs) is not None:
        for m in WEBHOOK.finditer(text):  # one with a digit is in a long word
            if has_digit(m.group(1)):
                yield "webhook_url", m.start(1), m.end(1)


_FRAGMENT_KEY = re.compile(r"://[^\s#]+#!?([A-Za-z0-9_-]{20,})(?![A-Za-z0-9_-])")
"""A URL whose fragment is a key: a file host's decryption key (MEGA's ``#…``) or a paste's,
kept after ``#`` so that the browser never sends it to the server."""


def _fragment_key(key: str) -> bool:
    """A fragment that is a key, not an anchor: digits and both cases, and a piece between
    ``_`` and ``-`` of sixteen characters or more (``#section-2-Intro`` is a heading's)."""
    mixed = any(c.islower() for c in key) and any(c.isupper() for c in key)
    return mixed and has_digit(key) and max(len(p) for p in re.split("[_-]", key)) >= 16


def _token_candidates(text: str, longs: str) -> Iterator[tuple[str, int, int]]:
    """Bearer-style tokens: GitHub, Slack, JWTs, private keys."""
    if "_" in longs and (  # 33 characters or more, random-looking: among the long words
        ("gh" in longs and has(longs, "ghp_", "gho_", "ghu_", "ghs_", "ghr_"))
        or "github_pat_" in longs
    ):
        for m in GITHUB.finditer(text):
            if random_looking(m.group()[4:]):
                yield "github_token", m.start(), m.end()
    dash = "-" in text
    if dash and _SLACK_HEAD.search(text) is not None:
        for m in SLACK.finditer(text):
            if has_digit(m.group()[5:]):
                yield "slack_token", m.start(), m.end()
    if "J" in text and _EYJ.search(text) is not None:
        yield from _jwts(text)
    if dash:
        yield from _private_keys(text)
    if "LS0tLS1CRUdJTi" in text:
        for m in PEM_B64.finditer(text):
            head = b64_text("".join(m.group()[:80].split())[:76])
            if head is not None and b"PRIVATE KEY" in head.split(b"\n", 1)[0]:
                yield "private_key", m.start(), m.end()


_EYJ = re.compile("yJ(?<=eyJ)")
"""What a JWT's header opens with, found from its ``yJ`` (a ``y`` is rarer than an ``e``) and
the ``e`` read behind: a scan that stops at few places, where a ``find`` of ``eyJ`` stepped
through most of the text."""
_SLACK_HEAD = re.compile("x(?:ox[abporsce]|app)-")
"""What every Slack token opens with: one search, led by its literal ``x``."""


def _jwt_matches(text: str) -> Iterator[re.Match[str]]:
    """:data:`JWT` matched at each ``eyJ`` not after a letter or digit (joined to a word by
    ``-`` or ``_`` too: ``notes-eyJ....txt``). An attempt that fails fails from every
    ``eyJ`` of the same run of segment characters (they lead to the same first dot), so
    those are skipped: the text is read once however many times ``eyJ_`` repeats."""
    at = text.find("eyJ")
    while at != -1:
        after = at + 1
        if not at or not text[at - 1].isalnum():
            m = JWT.match(text, at)
            if m is not None:
                yield m
                after = m.end()
            else:
                after = _SEGMENT_RUN.match(text, at).end()  # type: ignore[union-attr]
        at = text.find("eyJ", max(after, at + 1))


_SEGMENT_RUN = re.compile("[A-Za-z0-9_-]*")


def _jwts(text: str) -> Iterator[tuple[str, int, int]]:
    """JSON Web Tokens, signed or not (``alg: none``), whole or wrapped over lines."""
    for m in _jwt_matches(text):
        token = m.group()
        wrapped = "\n" in token
        parts = re.sub(r"[\s\\]", "", token).split(".")
        header, payload, signature = parts[0], parts[1], parts[2]
        if len(header) < 8 or len(payload) < 5:
            continue
        claims = payload.startswith("eyJ")
        if (len(signature) >= 10 and (claims or not wrapped)) or (claims and not signature):
            yield "jwt", m.start(), m.end()


def _headers_joined(text: str, starts: list[int]) -> Iterator[re.Match[str]]:
    """:data:`AUTH_HEADER` at each ``authorization`` not after a letter or a digit: after an
    ``_`` too, a header pasted into a file's name (``scan_Authorization: …``)."""
    after = 0
    for at in starts:
        if at >= after and not (at and text[at - 1].isalnum()):
            m = AUTH_HEADER.match(text, at)
            if m is not None:
                after = m.end()
                yield m


_TEAM_HEADER = re.compile(
    r"(?i)(?<![\w-])x-honeycomb-team[\"']?[ \t]*[:=][ \t]*[\"']?([A-Za-z0-9]{16,})"
)


def _header_candidates(text: str, found: Literals) -> Iterator[tuple[str, int, int]]:
    """HTTP credentials: ``Bearer`` and ``Basic`` values, any ``Authorization`` header's."""
    if "bearer" in found:
        for m in BEARER.finditer(text):
            if has_digit(m.group(1)):
                yield "bearer_token", m.start(1), m.end(1)
    if "basic" in found:
        for m in at_each(text, found.at("basic"), BASIC):
            value = _basic_value(m.group(1))
            if value is not None:
                yield "basic_auth", m.start(1), m.start(1) + len(value)
    if "x-honeycomb-team" in found.folded:  # a header naming no key, whose value is one
        for m in _TEAM_HEADER.finditer(text):
            if random_looking(m.group(1)):
                yield "api_token", m.start(1), m.end(1)
    if ("=" in text or ":" in text) and "auth" in found and "authorization" in found:
        if "SSWS" in text:
            for m in SSWS.finditer(text):  # Okta's scheme, wherever its header stands
                if random_looking(m.group(1)):
                    yield "api_token", m.start(1), m.end(1)
        for m in _headers_joined(text, found.at("authorization")):
            scheme, value = (m.group(1) or "").lower(), m.group(2).rstrip(".)]}>")
            if len(value) < 8 or is_filler(value, ":", quoted=True):
                continue
            if scheme == "basic":  # its value must be what Basic sends: base64 of user:password
                sent = _basic_value(value)
                if sent is None:
                    continue  # "Authorization: Basic followed by the base64 of ...": prose
                value = sent
            elif not (has_digit(value) or random_looking(value)):
                continue  # "Authorization: Bearer followed by the token": a word
            kind = {"basic": "basic_auth", "bearer": "bearer_token"}.get(scheme, "secret")
            yield kind, m.start(2), m.start(2) + len(value)


def _basic_value(value: str) -> str | None:
    """What of a ``Basic`` value is the base64 of ``user:password``: all of it, or up to its
    padding (``...NHc=/status``: a URL path goes on after the credential), or, unpadded, up
    to one of its last :data:`_BASIC_CUTS` ``/``; None when no part of it is."""
    pad = value.find("=")
    if pad != -1:
        cuts = [value[: pad + 2 if value[pad + 1 : pad + 2] == "=" else pad + 1]]
    else:
        cuts = [value]
        at = len(value)
        for _cut in range(_BASIC_CUTS):
            at = value.rfind("/", 0, at)
            if at <= 0:
                break
            cuts.append(value[:at])
    for cut in cuts:
        decoded = b64_text(cut)
        if decoded is not None and b":" in decoded and printable(decoded):
            return cut
    return None


_BASIC_CUTS = 4
"""How many of an unpadded ``Basic`` value's last ``/`` it is tried before: a path's few
segments, a bounded number of decodes however many ``/`` a text holds."""


_PEM_HEAD = re.compile("BEGIN (?<=-----BEGIN )")
"""What every match of :data:`PEM_BEGIN` opens with (``-----BEGIN ``), found from its
capital ``B``, the dashes read behind: a ``find`` of the dashes first stopped at each of
pydoc's rules of dashes."""


def _private_keys(text: str) -> Iterator[tuple[str, int, int]]:
    """PEM and PGP private key blocks; a missing END line redacts through the base64 body."""
    missing: set[str] = set()
    pos = 0
    while True:
        head = _PEM_HEAD.search(text, pos + 5)  # its dashes at pos or after
        m = PEM_BEGIN.search(text, head.start() - 5) if head is not None else None
        if m is None:
            return
        label, block = m.group(1), m.group(2) or ""
        end = -1
        if label + block not in missing:
            marker = f"-----END {label}PRIVATE KEY{block}-----"
            found = text.find(marker, m.end())
            if found == -1:
                missing.add(label + block)
            else:
                end = found + len(marker)
        if end == -1:
            body = PEM_BODY.match(text, m.end())
            end = body.end() if body is not None else m.end()
            while end > m.end() and text[end - 1].isspace():
                end -= 1
        yield "private_key", m.start(), end
        pos = end

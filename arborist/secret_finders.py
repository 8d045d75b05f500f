"""Where secrets are in a text: each shape's cheap prefilter, then its pattern.

Pure: no I/O. :func:`candidates` yields ``(kind, start, end)`` for every match of
:mod:`arborist.secret_shapes`' patterns, overlapping and unmerged; the gate
(:mod:`arborist.admission`) weighs them against the allowlist, merges them and
replaces them. Most text holds no secret, so each family of shapes runs only when a
literal every match holds is in the text (or its case-folding), and the long-token
shapes only on a text's long words (:func:`arborist.secret_prefilters.long_words`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from arborist.secret_names import MIXED, named_candidates
from arborist.secret_prefilters import AWS_SECRET_SIZE, has_long, long_words
from arborist.secret_shapes import (
    ADO_PAT,
    AUTH_HEADER,
    AWS_ACCESS,
    AWS_PREFIX,
    AWS_SECRET,
    AWS_SECRET_AT,
    B64_64,
    B64_64_NAMED,
    BASIC,
    BEARER,
    CURL_USER,
    DASH_P,
    DASH_PASS,
    DISCORD,
    ECHO_SUDO,
    FLAG,
    GITHUB,
    HTPASSWD,
    JWT,
    LDAP_SMB,
    LDAP_W,
    MIN_VALUE,
    MYSQL,
    NETRC,
    NETRC_CONTEXT,
    PEM_B64,
    PEM_BEGIN,
    PEM_BODY,
    PGPASS,
    PGPASS_PORT,
    PUTTY,
    QUERY_SECRET,
    QUERY_SECRET_MIN,
    REDIS_A,
    SK_GLUED,
    SK_HEX,
    SK_KEY,
    SLACK,
    SMB_U,
    SSHPASS_P,
    SSWS,
    TELEGRAM,
    TWILIO,
    URL_FILLER,
    URL_USERINFO,
    WEBHOOK,
    at_each,
    b64_text,
    has,
    has_digit,
    is_filler,
    printable,
    random_looking,
)
from arborist.secret_vendors import vendor_rows

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
    longs = long_words(text)
    yield from _key_candidates(text, folded, longs)
    yield from _url_candidates(text, folded, longs)
    yield from _token_candidates(text, folded, longs)
    yield from _header_candidates(text, folded)
    yield from named_candidates(text, folded)
    yield from _command_candidates(text, folded, longs)


def _key_candidates(text: str, folded: str, longs: str) -> Iterator[tuple[str, int, int]]:
    """Provider API keys: OpenAI and Anthropic ``sk-``, AWS keys, vendor-prefixed tokens."""
    if "-" in text and "sk-" in text:
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
    if has_long(longs, AWS_SECRET_SIZE) and "secret" in folded:
        for m in _aws_secrets(text, folded):
            if random_looking(m.group(1)):
                yield "aws_secret_key", m.start(1), m.end(1)
    for _literals, kind, pattern in vendor_rows(longs):
        if pattern.search(longs) is not None:  # every token is among the long words
            for m in pattern.finditer(text):
                if random_looking(m.group()):
                    yield kind, m.start(), m.end()
    if "." in longs and DISCORD.search(longs):
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
    if len(longs) >= 52 and ADO_PAT.search(longs) is not None:
        for m in ADO_PAT.finditer(text):
            pat = m.group()
            if sum(c.isdigit() for c in pat) >= 4 and len(MIXED.findall(pat)) >= 6:
                yield "api_token", m.start(), m.end()
    if ":" in text and ":AA" in text:
        for m in TELEGRAM.finditer(text):
            yield "api_token", m.start(), m.end()
    if "AC" in longs and "," in text:
        for m in TWILIO.finditer(text):
            yield "api_token", m.start(1), m.end(1)


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


def _aws_secrets(text: str, folded: str) -> Iterator[re.Match[str]]:
    """:data:`AWS_SECRET`'s matches, tried where each ``secret`` (``aws_``, ``aws`` or
    nothing before it) is found, not at every character."""
    if len(folded) != len(text):
        yield from AWS_SECRET.finditer(text)
        return
    done = 0
    at = folded.find("secret")
    while at != -1:
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
        at = folded.find("secret", max(at + 1, done))


def _url_candidates(text: str, folded: str, longs: str) -> Iterator[tuple[str, int, int]]:
    """Credentials in URLs: ``user:password@``, signing or key query parameters, webhooks."""
    if "@" in text and "://" in text:
        for m in _userinfos(text):
            value = m.group(1)
            if value is None:  # a user name alone: a key when it reads as one
                if _random_key(m.group(2)):
                    yield "url_credentials", m.start(2), m.end(2)
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
    if "/" in longs and "hook" in longs.casefold():
        for m in WEBHOOK.finditer(text):
            if has_digit(m.group(1)):
                yield "webhook_url", m.start(1), m.end(1)


def _token_candidates(text: str, folded: str, longs: str) -> Iterator[tuple[str, int, int]]:
    """Bearer-style tokens: GitHub, Slack, JWTs, private keys."""
    if "_" in text and (
        ("gh" in text and has(text, "ghp_", "gho_", "ghu_", "ghs_", "ghr_"))
        or "github_pat_" in text
    ):
        for m in GITHUB.finditer(text):
            if random_looking(m.group()[4:]):
                yield "github_token", m.start(), m.end()
    dash = "-" in text
    if dash and ("xox" in text or "xapp" in text):
        for m in SLACK.finditer(text):
            if has_digit(m.group()[5:]):
                yield "slack_token", m.start(), m.end()
    if "J" in text and "eyJ" in text:
        yield from _jwts(text)
    if dash:
        yield from _private_keys(text)
    if "LS0tLS1CRUdJTi" in text:
        for m in PEM_B64.finditer(text):
            head = b64_text("".join(m.group()[:80].split())[:76])
            if head is not None and b"PRIVATE KEY" in head.split(b"\n", 1)[0]:
                yield "private_key", m.start(), m.end()


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


def _header_candidates(text: str, folded: str) -> Iterator[tuple[str, int, int]]:
    """HTTP credentials: ``Bearer`` and ``Basic`` values, any ``Authorization`` header's."""
    if "bearer" in folded:
        for m in BEARER.finditer(text):
            if has_digit(m.group(1)):
                yield "bearer_token", m.start(1), m.end(1)
    if "basic" in folded:
        for m in at_each(text, folded, "basic", BASIC):
            decoded = b64_text(m.group(1))
            if decoded is not None and b":" in decoded and printable(decoded):
                yield "basic_auth", m.start(1), m.end(1)
    if ("=" in text or ":" in text) and "authorization" in folded:
        if "SSWS" in text:
            for m in SSWS.finditer(text):  # Okta's scheme, wherever its header stands
                if random_looking(m.group(1)):
                    yield "api_token", m.start(1), m.end(1)
        for m in at_each(text, folded, "authorization", AUTH_HEADER):
            scheme, value = (m.group(1) or "").lower(), m.group(2).rstrip(".)]}>")
            if len(value) < 8 or is_filler(value, ":", quoted=True):
                continue
            if scheme == "basic":  # its value must be what Basic sends: base64 of user:password
                decoded = b64_text(value)
                if decoded is None or b":" not in decoded or not printable(decoded):
                    continue  # "Authorization: Basic followed by the base64 of ...": prose
            elif not (has_digit(value) or random_looking(value)):
                continue  # "Authorization: Bearer followed by the token": a word
            kind = {"basic": "basic_auth", "bearer": "bearer_token"}.get(scheme, "secret")
            yield kind, m.start(2), m.start(2) + len(value)


def _command_candidates(text: str, folded: str, longs: str) -> Iterator[tuple[str, int, int]]:
    """Passwords on command lines and in ``.netrc``: ``mysql -pSECRET``, ``curl -u user:pass``,
    ``machine host login user password SECRET``."""
    dashed = "-" in text  # one scan for a character every flag below needs
    if dashed and "pass" in folded:
        yield from _dash_pass_flags(text, folded)
    for needles, tools in _tool_flags(folded) if dashed else ():
        for line_start, line_end in _lines_holding(text, *needles):
            tool = tools.search(text, line_start, line_end)  # a line is read for its first tool
            if tool is None:
                continue
            for m in _tool_flag(tool.group()).finditer(text, tool.end(), line_end):
                group = next(g for g in range(1, (m.lastindex or 1) + 1) if m.group(g) is not None)
                if not is_filler(m.group(group), "=", quoted=False):
                    yield "password", m.start(group), m.end(group)
    if dashed and "-u" in text:
        for m in CURL_USER.finditer(text):
            if m.start() and not text[m.start() - 1].isspace():
                continue
            user, password = m.group(1), m.group(2)
            if (user.isdigit() and password.isdigit()) or is_filler(password, "=", quoted=True):
                continue  # docker run -u 1000:1000, a user id and a group id
            yield "password", m.start(2), m.end(2)
    if dashed and "--" in text:
        for m in _flags(text):
            group = m.lastindex or 3
            if not is_filler(m.group(group), "=", quoted=group != 3) and len(m.group(group)) >= 4:
                kind = "password" if "pass" in m.group()[:20].lower() else "secret"
                yield kind, m.start(group), m.end(group)
    if text.count(":") >= 4:
        for m in _pgpass_lines(text):
            host, password = m.group(1), m.group(2)
            if host.isdigit() or host.isupper() or host.lower() in ("http", "https"):
                continue  # 00:11:22:33:44:55, a MAC address; TIME:12:30:...
            if _IPV6_GROUPS.match(m.group()):
                continue  # 2001:db8:0000:0000:0000:...: an IPv6 address, group after group
            if len(password) >= MIN_VALUE and not is_filler(password, "=", quoted=True):
                yield "password", m.start(2), m.end(2)
    if ("$" in text or "{" in text) and (":$" in longs or ":{SHA}" in longs):
        yield from _htpasswd(text)  # a user name and its hash: one long word
    if dashed and "|" in text and "sudo" in text and "echo" in text:
        for m in ECHO_SUDO.finditer(text):
            group = m.lastindex or 3
            if not is_filler(m.group(group), "=", quoted=group != 3):
                yield "password", m.start(group), m.end(group)
    if ":" in text and "Private-Lines: " in text:
        for m in PUTTY.finditer(text):
            yield "private_key", m.start(1), m.end(1)
    if "password" in folded and ("machine" in folded or "login" in folded):
        for m in NETRC.finditer(text):
            near = NETRC_CONTEXT.search(text, max(0, m.start() - 200), m.start())
            if near is not None and not is_filler(m.group(1), "=", quoted=False):
                yield "password", m.start(1), m.end(1)


def _tool_flags(folded: str) -> list[tuple[tuple[str, ...], re.Pattern[str]]]:
    """The flags whose lines are read, and the tools looked for there: LDAP's ``-w`` and SMB's
    ``-U`` only where such a tool is named (``grep -w`` is common), by a pattern of their own."""
    table: list[tuple[tuple[str, ...], re.Pattern[str]]] = [(("-p", "-a"), MYSQL)]
    if "ldap" in folded or "client" in folded:  # smbclient, rpcclient
        table.append((("-w", "-U"), LDAP_SMB))
    return table


def _tool_flag(tool: str) -> re.Pattern[str]:
    """The flag a tool takes its password by: ``mysql -pX``, ``redis-cli -a X``,
    ``ldapsearch -w X``, ``smbclient -U user%X``, ``sshpass -p X``."""
    name = tool.lower()
    if name.startswith(("mysql", "mariadb")):
        return DASH_P
    if name.startswith("redis"):
        return REDIS_A
    if name.startswith("ldap"):
        return LDAP_W
    return SMB_U if name.startswith(("smb", "rpc")) else SSHPASS_P


def _htpasswd(text: str) -> Iterator[tuple[str, int, int]]:
    """An htpasswd line's hash (``user:$apr1$...``, ``user:$2y$...``, ``user:{SHA}...``),
    matched after each ``:`` that follows a user name's character."""
    done = 0
    for colon in _HASH_COLON.finditer(text):
        at = colon.start()
        if at < done or not at or text[at - 1] not in _USER_CHARS:
            continue
        m = HTPASSWD.match(text, at + 1)
        if m is not None:
            yield "password", m.start(), m.end()
            done = m.end()


_HASH_COLON = re.compile(r":(?=\$|\{SHA\})")


_USER_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-@")


def _dash_pass_flags(text: str, folded: str) -> Iterator[tuple[str, int, int]]:
    """:data:`DASH_PASS` matched at the dash before each ``pass`` found (at most 12 letters
    back, so ``passpass...`` is read once), where that dash stands alone: after a space, a
    quote or nothing (``--password`` is :data:`FLAG`'s)."""
    at = folded.find("pass") if len(folded) == len(text) else -1
    while at != -1:
        start = at
        while start > max(0, at - 12) and "a" <= folded[start - 1] <= "z":
            start -= 1
        dash = start - 1
        if dash >= 0 and text[dash] == "-" and (not dash or text[dash - 1] in _FLAG_BEFORE):
            m = DASH_PASS.match(text, dash)
            if m is not None:
                group, value = m.lastindex or 3, m.group(m.lastindex or 3)
                word = group == 3 and value.isalpha() and value.islower()  # "the -password flag"
                if not word and not is_filler(value, "=", quoted=group != 3):
                    yield "password", m.start(group), m.end(group)
        at = folded.find("pass", at + 4)


_FLAG_BEFORE = frozenset(" \t\n\r\"'")


def _pgpass_lines(text: str) -> Iterator[re.Match[str]]:
    """:data:`PGPASS` matched from the host before each ``:port:`` found (a host is one
    name, at most 253 characters), where a search would try every character."""
    done = 0
    for port in PGPASS_PORT.finditer(text):
        if port.start() < done:
            continue
        start = port.start()
        while start > max(done, port.start() - 253) and text[start - 1] in _HOST_CHARS:
            start -= 1
        m = PGPASS.match(text, start) if start < port.start() else None
        if m is not None:
            yield m
            done = m.end()


_IPV6_GROUPS = re.compile(r"(?:[0-9A-Fa-f]{1,4}:){4}(?:[0-9A-Fa-f]{0,4}:|[0-9A-Fa-f]{1,4}(?!\S))")
"""Four groups of at most four hex digits, and a fifth (or an empty one, ``::``) where a
password would start: an IPv6 address read as ``host:port:db:user:password``."""
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-*")


def _flags(text: str) -> Iterator[re.Match[str]]:
    """:data:`FLAG`'s matches, in order: tried once per run of dashes, at its last two (a
    flag's name follows ``--``), where a search tried every dash of pydoc's rules. A flag
    stands after anything but a letter or digit (a space, a quote, ``/``, ``=``, ``_``: a
    command line pasted into a path, a query or a file name), or joined to a word by one
    more dash (``llama3---password X``)."""
    at = text.find("--")
    while at != -1:
        run_end = _DASHES.match(text, at).end()  # type: ignore[union-attr]
        m = FLAG.match(text, run_end - 2)
        if m is not None and (run_end - at > 2 or not at or not text[at - 1].isalnum()):
            yield m
        at = text.find("--", m.end() if m is not None else run_end)


_DASHES = re.compile("-+")


def _lines_holding(text: str, *needles: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each line (up to its ``\\n``) holding one of ``needles``, in
    order: a ``find`` per needle per line, where a search for the tools' names ran over
    all of the text."""
    lines: set[tuple[int, int]] = set()
    for needle in needles:
        at = text.find(needle)
        while at != -1:
            end = text.find("\n", at)
            end = len(text) if end == -1 else end
            lines.add((text.rfind("\n", 0, at) + 1, end))
            at = text.find(needle, end)
    return sorted(lines)


def _private_keys(text: str) -> Iterator[tuple[str, int, int]]:
    """PEM and PGP private key blocks; a missing END line redacts through the base64 body."""
    missing: set[str] = set()
    pos = 0
    while True:
        m = PEM_BEGIN.search(text, pos)
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

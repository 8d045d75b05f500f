"""Secrets known by a cue before them that names what they are, or by a shape no public value
has; and identifiers that are public though shaped like secrets.

Pure: no I/O. :func:`cued_candidates` yields ``(kind, start, end)`` for

* an app password (``app-specific password yehf-rzgt-whmu-gcme``, Google's ``abcd efgh ijkl
  mnop``): four groups of four letters after the words that name one; these have no digit, so
  no rule that weighs a value's shape reads them;
* a two-factor seed (``2FA backup seed: AONMT6AYUS5X67G2``, ``Enter this key manually: M2G5
  HFOL …``): base32, whole or in groups of four, after a word of two-factor setup;
* backup and recovery codes and keys in groups (``backup code (Google): wl3v geuh 7z0x
  a2cv``, a Matrix security key), one line or one a line under a heading, with a digit;
* a BitLocker recovery key (eight groups of six digits), by its shape alone;
* a ``.pgpass`` line (``host:port:database:user:password``), its last field, wherever it
  stands;
* hex that decodes to a printable token (``xxd -r -p <<< 736563…``): a hash or a key is
  random bytes, which are printable text about once in ten million at sixteen bytes, so a
  long run of hex that spells a word without a space is text hidden, and it is redacted;
* a password told in quotes after its name and a verb of saying (``passphrase for the drive
  is "mango tango 88 cactus"``): the quotes hold it whole, spaces and all;
* a password given right after its name with no colon (``Kennwort Glühwein-Käse€42``) when
  the value is unmistakable: a letter, a digit and a mark or a letter beyond ASCII;
* a password in JSON escaped inside a string (``\\"password\\":\\"p@ss\\"x\\"\\"``, a log's
  body), up to the escaped quote that closes the member;
* a password handed over for what it opens (``just use vodka-sirup-13 for the staging
  login``);
* a session cookie's value told in prose (``the _session_id cookie … is 8796…``);
* an API key in a query's ``appid=`` (OpenWeather's name for its key), when random;
* the password line of an OpenVPN ``--auth-user-pass`` file told after the flag;
* a code after its name with no colon (``SIM PUK 84712093``, ``safe combination 17-42-08``;
  not a year: ``the pin 2024 release``);
* ``creds for staging: deploy:Xh4#…``, a user and a password after a word for credentials;
* a token, a secret or a password ``for the X:`` given a value only a secret is (a letter, a
  digit and a mark);
* a value given in parts (``TOKEN_PART_1=ghp_…`` and ``TOKEN_PART_2=…``), read joined.

Each family is read only where a literal it needs stands (``password``, ``code``, ``2fa``…),
or, for hex, among the long words. :func:`cued_public_spans` says where a text holds what
is public: a PostHog project key (``phc_``, meant for the browser), a Google document's id
in its URL (``/document/d/<id>/``) and a JSON Web Key with no private member (``"kty"``
without ``"d"``).
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Callable, Iterator

from arborist._gate.prefilters import Literals
from arborist._gate.values import (
    has_digit,
    is_filler,
    random_looking,
    reads_as_password,
)

__all__ = ["cued_candidates", "cued_public_spans"]

Reader = Callable[[str], Iterator[tuple[str, int, int]]]

_APP_PASSWORD = re.compile(
    r"(?i)app(?:lication)?[ -]?(?:specific[ -]?)?(?:passw(?:or)?d|passwort|pw)?\S{0,2}[ \t]*(?:[:=(][ \t]*|"
    r"(?:is|was)[ \t]+)?[\"'“]?([a-z]{4}(?P<sep>[ -])[a-z]{4}(?P=sep)[a-z]{4}(?P=sep)[a-z]{4}|"
    r"[a-z]{16})(?![a-z0-9])"
)
"""An app password after its name (``app-specific password``, ``app pw``, ``app-specific:``):
four groups of four letters, or the sixteen letters run together."""
_TWO_FACTOR_CUES = ("2fa", "otp", "mfa", "authenticator", "two-factor", "manually")
"""Each found by :class:`arborist._gate.prefilters.Literals`' one pass, with every literal the
other families ask (``totp`` holds ``otp``)."""
_SEED = re.compile(
    r"(?i)(?:2fa|otp|mfa|authenticator|two-factor|manually)(?![a-z])[^\n]{0,60}?"
    r"(?:[:=][ \t]*|(?:is|was)[ \t]+)[\"']?"
    r"((?:[a-z2-7]{4}[ \t]){3,15}[a-z2-7]{2,4}|[a-z2-7]{16,64})(?![a-z0-9])"
)
_GROUPED = re.compile(
    r"(?i)(?:backup|recovery|security)[ -](?:codes?|keys?)(?![a-z])[^:=\n]{0,40}?"
    r"(?:[:=][ \t]*\r?\n?|[ \t]*\r?\n)[ \t]*"
    r"((?:[a-z0-9]{4,6}(?:[ -][a-z0-9]{4,6})+)(?:[ \t]*\r?\n[ \t]*[a-z0-9]{4,6}(?:[ -][a-z0-9]{4,6})+)*)"
    r"(?![a-z0-9])"
)
_SIX_DIGITS = re.compile(r"[0-9]{6}-[0-9]{6}-[0-9]{6}")
"""What a BitLocker key holds, with no lookbehind: searched by the regex engine's scan for
its first character's class, a prefilter of the long words."""
_BITLOCKER = re.compile(r"(?<![0-9-])[0-9]{6}(?:-[0-9]{6}){7}(?![0-9-])")
_PGPASS = re.compile(
    r"(?<![\w.:/@-])(?:[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)+|localhost|\*):(?:[0-9]{1,5}|\*):"
    r"[^:\s]+:[^:\s]+:(\S+)",
    re.IGNORECASE,
)
"""A ``.pgpass`` line, ``host:port:database:user:password``, at a line's start or after a
space or a quote (a title, a question); the password runs to the next space."""
_PGPASS_PORT = re.compile(r":(?:[0-9]{1,5}|\*):[^:\s]+:[^:\s]+:")
_HEX_GROUPS = re.compile(r"[0-9a-fA-F]{1,4}(?::[0-9a-fA-F]{1,4})+(?:\.[a-z]+)?")
_PRINTABLE_HEX = re.compile(r"(?:[2-7][0-9a-fA-F]){16,}")
"""Sixteen bytes or more of hex, each a printable ASCII character's (0x20 to 0x7f); no
lookbehind, so the regex engine scans for its first character's class."""
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_QUOTED = re.compile(
    r"(?i)(?<![\w-])(?:pass(?:word|phrase|wort)|kennwort|pw)(?![\w-])[^\n\"“]{0,60}?"
    r"(?:[ \t](?:is|was|ist|lautet)|[:=])[ \t]*[\"“]([^\"”\n]{4,80})[\"”]"
)
_SPACED_NAME = re.compile(r"(?i)(?<![^\W_])(?:password|passwort|kennwort|passphrase)[ \t]+(\S{8,})")
_ESCAPED_JSON = re.compile(
    r'(?i)\\"(?:password|passwd|pwd|secret|token|api_?key|passphrase)\\"[ \t]*:[ \t]*\\"'
    r'(.{1,200}?)\\"(?=[ \t]*[,}\]])'
)
"""A password in JSON escaped inside a string, up to the escaped quote that closes its member:
at most 200 characters, so that a line of such members is read once, not once a member."""
_USE_FOR = re.compile(
    r"(?i)(?<![\w-])use[ \t]+[\"'“]?([^\s\"'”]{6,64}?)[\"'”]?[ \t]+(?:for|to[ \t]+(?:log|sign)"
    r"[ \t]*(?:in|on)[ \t]+(?:to|on)?|to[ \t]+(?:unlock|open|access|decrypt|get[ \t]+into))"
    r"[ \t]+(?:the[ \t]+|your[ \t]+|my[ \t]+|our[ \t]+)?"
    r"(?:[\w-]+[ \t]+){0,2}?(?:login|log-?in|sign-?in|account|sudo|ssh|vpn|wi-?fi|password|"
    r"vault|safe|laptop|drive|disk|phone)(?![\w-])"
)
_COOKIE = re.compile(
    r"(?i)(?<![\w-])[\w.-]*(?:sess|sid|auth|token|login|remember)[\w.-]*[ \t]+cookie(?![a-z])"
    r"[^\n.]{0,60}?(?:[ \t](?:is|was)[ \t]+|[:=][ \t]*)[\"']?([A-Za-z0-9%._~+/=-]{20,})"
)
_BARE_CODE = re.compile(
    r"(?i)(?:puk|pin|combination|passcode)(?:[ -]?(?:code|number|no\.?))?[ \t]+[#:]?[ \t]*"
    r"([0-9]{2}(?:-[0-9]{2}){2,3}|[0-9]{4,12})(?![0-9-])"
)
"""A code after its name with no colon (``SIM PUK 84712093``, ``safe combination 17-42-08``)."""
_CREDS = re.compile(
    r"(?i)(?:creds?|credentials?)(?![\w-])[\w \t-]{0,40}:[ \t]*([a-z][\w.@+-]{1,63}):([^\s:@]{6,})"
)
_NAMED_FOR = re.compile(
    r"(?i)(?:auth[ _-]?token|access[ _-]?token|api[ _-]?key|token|secret|password)(?![\w-])"
    r"(?:[ \t]+(?:for|of|to|on)[ \t]+(?:the[ \t]+|our[ \t]+|my[ \t]+)?[\w.-]+){1,2}[ \t]*:"
    r"[ \t]*(\S{12,80})(?=\s|$)"
)
_PART = re.compile(r"(?i)([\w.-]*?part[_-]?)1[\"']?[ \t]*[:=][ \t]*[\"']?([A-Za-z0-9_+/=.-]{6,})")
_PART_NEXT = re.compile(r"(?i)[\"']?[ \t]*[:=][ \t]*[\"']?([A-Za-z0-9_+/=.-]{6,})")
_APPID = re.compile(r"(?i)[?&]appid=([A-Za-z0-9]{24,64})(?![A-Za-z0-9])")


def cued_candidates(
    text: str, found: Literals, longs: str, reader: Reader
) -> Iterator[tuple[str, int, int]]:
    """Every secret this module reads in ``text`` (``found`` the literals of its case-folding,
    positions the same; ``longs`` its long words; ``reader`` the gate's own reading, for
    parts read joined). Each pattern is matched where its cue
    stands, never searched from every character."""
    folded = found.folded
    cued = found.holds_any(_CUES)  # most texts hold none of them
    passwords = found.at("password") + found.at("passwd") if cued else []
    if cued:
        apps = passwords + found.at("passwort") + found.at("pw") + found.at("specific")
        for at in apps:  # "app" in the words before
            app = folded.rfind("app", max(0, at - 24), at)
            m = _APP_PASSWORD.match(text, app) if app != -1 else None
            if m is not None:
                yield "password", m.start(1), m.end(1)
        for at in sorted(at for cue in _TWO_FACTOR_CUES for at in found.at(cue)):
            m = _SEED.match(text, at)
            value = m.group(1) if m is not None else ""
            long_enough = has_digit(value) or len(value.replace(" ", "")) >= 16
            if m is not None and long_enough and len(set(value)) >= 8 and not value.isdigit():
                yield "password", m.start(1), m.end(1)
        for at in found.at("backup") + found.at("recovery") + found.at("security"):
            m = _GROUPED.match(text, at)
            if m is not None and has_digit(m.group(1)):
                yield "password", m.start(1), m.end(1)
    if any(_SIX_DIGITS.search(word) for word in _words_of(longs, 55)):
        for m in _BITLOCKER.finditer(text):
            yield "password", m.start(), m.end()
    if _PGPASS_PORT.search(text) is not None:
        for m in _PGPASS.finditer(text):
            value = m.group(1)  # not a fingerprint's or a MAC's pairs of hex
            hexes = _HEX_GROUPS.fullmatch(value) is not None
            if len(value) >= 4 and not hexes and not is_filler(value, ":", quoted=False):
                yield "password", m.start(1), m.end(1)
    if longs:
        yield from _hidden_hex(text, longs)
    if cued:
        yield from _told_values(text, found, passwords)
    yield from _escaped_json(text)
    if longs:
        for at in found.at("part"):
            yield from _parts(text, folded, at, reader)


_CUES = frozenset(
    (
        *("password", "passwd", "passwort", "pw", "specific", *_TWO_FACTOR_CUES),
        *("backup", "recovery", "security"),
        *("passphrase", "kennwort", "use ", "cookie", "appid=", "auth-user-pass"),  # _told_values'
        *("puk", "pin", "combination", "passcode", "creds", "credential"),
        *("token", "secret", "key"),
    )
)
"""The literal each block of :func:`cued_candidates` but the BitLocker keys, the ``.pgpass``
lines, the hidden hex, the escaped JSON and the parts stands at: a text holding none of them
is not read for those blocks."""


def _escaped_json(text: str) -> Iterator[tuple[str, int, int]]:
    """A password's value in JSON escaped inside a string (``\\"password\\": \\"X\\"``)."""
    if '\\"' in text:
        for m in _ESCAPED_JSON.finditer(text):
            if not is_filler(m.group(1), ":", quoted=True):
                yield "password", m.start(1), m.end(1)


def _told_values(
    text: str, found: Literals, passwords: list[int]
) -> Iterator[tuple[str, int, int]]:
    """The families that read a value told after its name or handed over in a sentence."""
    folded = found.folded
    names = (found.at("passwort"), found.at("passphrase"), found.at("pw"), found.at("kennwort"))
    heads = sorted({*passwords, *(at for starts in names for at in starts)})
    for at in heads:
        m = _QUOTED.match(text, at)
        if m is not None and _told(m.group(1)):
            yield "password", m.start(1), m.end(1)
        m = _SPACED_NAME.match(text, at)
        value = m.group(1).rstrip(".,;:)!?\"'»“”") if m is not None else ""
        if m is not None and _unmistakable(value):
            yield "password", m.start(1), m.start(1) + len(value)
    for at in found.at("use "):
        m = _USE_FOR.match(text, at)
        if m is not None and _handed(m.group(1)):
            yield "password", m.start(1), m.end(1)
    for at in found.at("cookie"):
        m = _COOKIE.search(text, max(0, at - 64), at + 160)
        value = m.group(1) if m is not None else ""
        if m is not None and random_looking(value) and not is_filler(value, "=", quoted=False):
            yield "secret", m.start(1), m.end(1)
    for at in found.at("appid="):
        m = _APPID.match(text, at - 1) if at else None
        if m is not None and has_digit(m.group(1)) and random_looking(m.group(1)):
            yield "secret", m.start(1), m.end(1)
    for at in found.at("auth-user-pass"):
        yield from _auth_file(text, at)
    for at in found.at("puk") + found.at("pin") + found.at("combination") + found.at("passcode"):
        m = _BARE_CODE.match(text, at) if at == 0 or not folded[at - 1].isalnum() else None
        if m is not None and not _YEAR.fullmatch(m.group(1)):
            yield "password", m.start(1), m.end(1)
    for at in found.at("creds") + found.at("credential"):
        m = _CREDS.match(text, at)
        user = m.group(1).lower() if m is not None else ""
        named = user not in _NOT_USERS and _VERSION.search(user) is None  # not qwen2.5:14b
        if m is not None and named and _handed(m.group(2)):
            yield "password", m.start(2), m.end(2)
    for at in found.at("token") + found.at("secret") + found.at("password") + found.at("key"):
        m = _NAMED_FOR.match(text, _name_start(folded, at))
        if m is not None and _strong(m.group(1)):
            yield "secret", m.start(1), m.end(1)


_YEAR = re.compile(r"(?:19|20)[0-9]{2}")
_NOT_USERS = frozenset(("uuid", "urn", "sha1", "sha256", "sha512", "md5", "http", "https"))
"""What stands before a colon in an identifier, not a user's name."""
_VERSION = re.compile(r"[0-9]\.[0-9]")
_NAME_HEADS = ("auth", "access", "api")


def _name_start(folded: str, at: int) -> int:
    """Where a name holding the word at ``at`` opens: ``auth token``, ``api_key``."""
    for head in _NAME_HEADS:
        for gap in (1, 0):
            start = at - len(head) - gap
            if start >= 0 and folded.startswith(head, start):
                return start
    return at


def _strong(value: str) -> bool:
    """A value only a secret is: a letter, a digit and a mark, or both cases and a digit,
    no path or URL, not a placeholder."""
    if "/" in value or "://" in value or is_filler(value, ":", quoted=False):
        return False
    if value.startswith(("<", "$", "{", "%", "[", "(")):
        return False
    return has_digit(value) and random_looking(value) and not value.replace("-", "").isalnum()


def _parts(text: str, folded: str, at: int, reader: Reader) -> Iterator[tuple[str, int, int]]:
    """A value given in parts (``TOKEN_PART_1=ghp_…`` then ``TOKEN_PART_2=…``), read joined:
    both parts go when the joined value is a secret the gate reads. Only the name around
    ``part`` at ``at`` is read (:data:`_PART_REACH` before it, four times that after, for the
    value), never its whole line: a long page says "part" thousands of times."""
    if not folded.startswith("1", at + 4) and not folded.startswith("1", at + 5):
        return  # part1, part_1, part-1: the first part's name, nothing else
    first = _PART.search(text, max(0, at - _PART_REACH), min(len(text), at + 4 * _PART_REACH))
    if first is None or not first.start(1) <= at < first.end(1):
        return
    second_at = folded.find(first.group(1).lower() + "2", first.end(), first.end() + 200)
    second = (
        _PART_NEXT.match(text, second_at + len(first.group(1)) + 1) if second_at != -1 else None
    )
    if second is None:
        return
    joined = first.group(2) + second.group(1)
    if any(end - start > len(first.group(2)) for _k, start, end in reader(joined)):
        yield "secret", first.start(2), first.end(2)
        yield "secret", second.start(1), second.end(1)


_PART_REACH = 64
"""How far from ``part`` its name and first value are read."""


def _auth_file(text: str, at: int) -> Iterator[tuple[str, int, int]]:
    """OpenVPN's ``--auth-user-pass`` file told after its flag: the first two lines after the
    flag's line that are not comments, a user and a password; the second is the password."""
    line = text.find("\n", at)
    lines: list[tuple[int, int]] = []
    while line != -1 and len(lines) < 2:
        start = line + 1
        line = text.find("\n", start)
        end = len(text) if line == -1 else line
        content = text[start:end].strip()
        if content and not content.startswith(("#", ";")):
            if " " in content or len(content) > 128:
                return
            lines.append((start + text[start:end].find(content), len(content)))
    if len(lines) == 2:
        start, size = lines[1]
        value = text[start : start + size]
        if size >= 4 and not is_filler(value, "=", quoted=False):
            yield "password", start, start + size


def _words_of(longs: str, size: int) -> Iterator[str]:
    """The long words of at least ``size`` characters: a few, where a regex's scan of all
    of them tries a start at nearly every character."""
    return (word for word in longs.split(" ") if len(word) >= size)


def _hidden_hex(text: str, longs: str) -> Iterator[tuple[str, int, int]]:
    """Runs of hex (sixteen bytes or more) whose bytes spell a printable token."""
    if not any(_PRINTABLE_HEX.search(word) for word in _words_of(longs, 32)):
        return
    for m in _PRINTABLE_HEX.finditer(text):
        start, end = m.span()
        if (start and text[start - 1] in _HEX_DIGITS) or text[end : end + 1] in _HEX_DIGITS:
            continue  # inside a longer run: a hash's or a key's
        try:
            decoded = binascii.unhexlify(m.group()).decode("ascii")
        except (binascii.Error, UnicodeDecodeError):
            continue
        if decoded.isprintable() and " " not in decoded and any(c.isalpha() for c in decoded):
            yield "secret", m.start(), m.end()


def _told(value: str) -> bool:
    """A quoted value told as a password: a letter and a digit or a space or a mark, not a
    placeholder or a mask."""
    stripped = value.strip()
    if len(stripped) < 6 or is_filler(stripped, "=", quoted=True) or "*" * 3 in stripped:
        return False
    if stripped.startswith(("<", "$", "{", "%")) or stripped.lower() == stripped.upper():
        return False
    return has_digit(stripped) or " " in stripped or not stripped.replace("-", "").isalnum()


def _unmistakable(value: str) -> bool:
    """A value no prose word is: a letter, a digit, and a mark or a letter beyond ASCII;
    opening with a letter or a digit (``}}_2024.png`` closes a template), with no ``/``, ``=``
    or ``&`` (a path, or the rest of a query after a word)."""
    if not value[:1].isalnum() or any(c in value for c in "/=&{}"):
        return False
    if is_filler(value, "=", quoted=False):
        return False
    lettered = any(c.isalpha() for c in value)
    marked = any(not c.isalnum() for c in value) or not value.isascii()
    return lettered and has_digit(value) and marked


def _handed(value: str) -> bool:
    """A value handed over: eight characters or more, a letter, a digit and a mark or both
    cases (not a path, a version, a flag or a placeholder: ``utf-8``, ``python3``)."""
    if value.startswith(("-", "<", "$", "{", "%")):
        return False
    if "/" in value or "." in value or is_filler(value, "=", quoted=False):
        return False
    return reads_as_password(value)


_POSTHOG = re.compile(r"(?<![A-Za-z0-9_])phc_[A-Za-z0-9]{30,}(?![A-Za-z0-9])")
_PUBLISHABLE = re.compile(r"(?<![A-Za-z0-9_])pk_(?:live|test)_[A-Za-z0-9]{20,}(?![A-Za-z0-9])")
"""Stripe's publishable key, made for a page's source, whatever name it is given there."""
_GOOGLE_DOC = re.compile(
    r"(?i)(?:docs|drive|sheets|slides)\.google\.com/(?:[\w.-]+/){0,4}d/([A-Za-z0-9_-]{25,60})"
    r"(?=[/?#]|$|\s)"
)
_JWK_PRIVATE = re.compile(r'"(?:d|p|q|dp|dq|qi|k)"[ \t]*:')
_SSH_PUBLIC = re.compile(
    r"(?<![\w-])(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-nistp\d{3}|"
    r"sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)[ \t]+AAAA[A-Za-z0-9+/]+=*"
)
"""An SSH public key's line (``authorized_keys``, a ``.pub`` file): its type, then its base64,
made to be handed out whatever its length."""
_ARN = re.compile(r"(?<![\w-])arn:aws[\w-]*:[\w-]+:[\w-]*:\d{12}:[^\s\"'<>,;]+")
"""An AWS resource's name (a Secrets Manager secret's too): it says where a secret is kept."""
_SECRET_REFERENCE = re.compile(
    r"(?i)(?<![\w-])(?:existing[_-]?secret|secret[_-]?name|secret[_-]?ref|secret[_-]?key[_-]?ref"
    r")[\"']?[ \t]*[:=][ \t]*[\"']?(?-i:([a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?(?:\\+[nrt])?))"
    r"(?![\w-])"
)
"""A Kubernetes or Helm reference to a stored secret by name (``existingSecret: db-creds``,
``secretName: tls-cert``): the name is lower case, digits, ``-`` and ``.`` (a resource's)."""


def cued_public_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` holds a PostHog project key, a Stripe publishable key, a Google
    document's id in its URL, a JSON Web Key with no private member, an SSH public key, an
    AWS resource's name or a reference to a secret by its name."""
    spans: list[tuple[int, int]] = []
    if "AAAA" in text:
        spans += [m.span() for m in _SSH_PUBLIC.finditer(text)]
    if "arn:" in text:
        spans += [m.span() for m in _ARN.finditer(text)]
    if "ecret" in text or "ECRET" in text:
        spans += [m.span(1) for m in _SECRET_REFERENCE.finditer(text)]
    if "phc_" in text:
        spans += [m.span() for m in _POSTHOG.finditer(text)]
    if "pk_" in text:
        spans += [m.span() for m in _PUBLISHABLE.finditer(text)]
    if "google.com" in text:
        spans += [m.span(1) for m in _GOOGLE_DOC.finditer(text)]
    at = text.find('"kty"')
    while at != -1:
        opens = text.rfind("{", 0, at)
        closes = text.find("}", at)
        if opens != -1 and closes != -1 and _JWK_PRIVATE.search(text, opens, closes) is None:
            spans.append((opens, closes + 1))
        at = text.find('"kty"', at + 1)
    return spans

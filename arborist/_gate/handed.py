"""Secrets handed over by the words and places around them that the other modules do not
read, and identifiers that are public though shaped like secrets.

Pure: no I/O. :func:`handed_candidates` yields ``(kind, start, end)`` for

* a password named in one of many languages (:data:`_MANY_NAMES`: Dutch ``wachtwoord``,
  Finnish ``salasana``, Estonian ``salasõna``, Czech and Slovak ``heslo``, the South Slavic
  ``lozinka``, Indonesian ``kata sandi``, Danish ``adgangskode``, Welsh ``cyfrinair``…) or a
  code that opens a door (``alarm code``, ``PIN``, ``passcode``), then a colon, an arrow or a
  verb of saying in one of those languages (``is``, ``on``, ``je``, ``là``, ``adalah``…) or of
  setting (``set to``, ``changed to``): any value with a letter and a digit or a mark, or
  (for a code) four to twelve digits;
* a password a Windows-style flag takes (``/p:X``, ``/pass:X``, ``/password:X``: xfreerdp,
  cmdkey, wmic), a pre-shared key (``psk=``, ``PresharedKey =``, ``pre-shared-key``), a
  protocol's ``PASS X`` line (IRC, FTP, POP3) and Twitch's ``oauth:`` tokens;
* a password handed over by what it opens (``then X gets you sudo``);
* a webhook's secret path on any host (``…/hooks/<random>``);
* a token split across adjacent string literals (``("ghp_…" "…")``), read joined;
* a key block whose armor names a key that is not public (``-----BEGIN OpenVPN Static key
  V1-----``), a keypair's bytes as a JSON array (Solana's ``id.json``), a wallet's hex key in
  a line that talks about a wallet, Microsoft's refresh tokens (``0.A…``), and a bare base64
  JSON object holding a random value (a tunnel's token, ``eyJhIjoi…``);
* an account's recovery codes one a line, a seed phrase as a numbered list (after a word
  that says what it is), and ``Label: user / password`` lines after a word about accounts.

Each family is read only where a literal of it stands, found by
:class:`arborist._gate.prefilters.Literals`' one pass over the text, with the other families'
(the names' pieces ``woord``, ``sana``, ``slo``…, ``code``, ``pin``, ``/p:``, ``/hook``…), or
among the long words (a hex key, a split literal's part).

:func:`public_spans` says where a text holds what is public though shaped like a secret: an
Ethereum-style address (``0x`` and 40 hex), a value given to a name that says it is public
(``NEXT_PUBLIC_…_KEY``, ``data-sitekey``, ``publishable_key``), a certificate's or a public
key's armored body, and published sample tokens (:data:`PUBLISHED_SAMPLES`).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Iterator

from arborist._gate.prefilters import Literals
from arborist._gate.told import script_name_starts
from arborist._gate.values import (
    has_digit,
    is_filler,
    random_looking,
)

__all__ = [
    "PUBLISHED_SAMPLES",
    "handed_candidates",
    "public_spans",
]

Reader = Callable[[str], Iterator[tuple[str, int, int]]]


def handed_candidates(
    text: str, found: Literals, longs: str, reader: Reader
) -> Iterator[tuple[str, int, int]]:
    """Every secret this module reads in ``text`` (``found`` the literals of its case-folding,
    positions the same; ``longs`` its long words; ``reader`` the gate's own reading, for
    literals read joined)."""
    folded = found.folded
    cued = not folded.isascii() or found.holds_any(_CUES)  # most texts: none of them
    if cued:
        for head in _name_heads(folded, found):
            m = _MANY_NAMES.match(folded, head)
            if m is not None:
                yield from _named_value(text, m)
        for flag in ("/p:", "/pass:", "/password:", "/pwd:"):
            for at in found.at(flag):
                if at and folded[at - 1].isspace():
                    yield from _matched(text, _SLASH_FLAG, _any_value, at)
        for at in found.at("psk") + found.at("shared"):
            yield from _matched(text, _PSK, _any_value, _word_start(folded, at))
        for at in found.at("pass"):
            if text.startswith("PASS ", at):
                yield from _matched(text, _PROTOCOL_PASS, _any_value, at)
        for at in found.at("auth"):
            m = _TWITCH.match(text, at - 1) if folded.startswith("oauth:", at - 1) else None
            if m is not None:
                yield "api_token", m.start(), m.end()
        for at in found.at("gets you") + found.at("get you"):
            m = _OPENS.search(text, max(0, at - 42), at + 24)
            value = m.group(1).rstrip(".,;)'\"") if m is not None else ""
            if m is not None and _typed_value(value):
                yield "password", m.start(1), m.start(1) + len(value)
        for at in found.at("/hook") + found.at("/webhook"):
            m = _HOOK_PATH.match(text, folded.find("hook", at))
            url = text.rfind("://", max(0, at - 2048), at)
            inside = url != -1 and not any(c.isspace() for c in text[url:at])
            if m is not None and inside and _random_path(m.group(1)):
                yield "webhook_url", m.start(1), m.end(1)
        for at in found.at("begin"):
            m = _KEY_ARMOR.match(text, at - 5) if folded.startswith("-----", at - 5) else None
            if m is not None and "PUBLIC" not in m.group(1).upper():
                yield "private_key", m.start(), m.end()
    for m in _BYTE_ARRAY.finditer(text):
        numbers = [int(n) for n in m.group(1).split(",")]
        if len(numbers) in (32, 64) and max(numbers) <= 255 and len(set(numbers)) >= 16:
            yield "private_key", m.start(), m.end()
    if longs:
        yield from _long_tokens(text, found, longs)
        if '"' in longs or "'" in longs:
            yield from _split_literals(text, longs, reader)
    if cued:
        for at in found.at("recovery") + found.at("backup"):
            codes = _CODE_LINES.match(text, at)
            if codes is not None and has_digit(codes.group(1)):
                yield "password", codes.start(1), codes.end(1)
        seeds = sorted(at for cue in _SEED_CUES for at in found.at(cue))
        if seeds:
            yield from _numbered_words(text, seeds)
        accounts = sorted(at for cue in _ACCOUNT_CUES for at in found.at(cue))
        if accounts:
            yield from _user_slash(text, accounts)


_CODE = r"(?:[a-z0-9]{4,10}-[a-z0-9]{4,10}|[0-9]{4}[ \t]?[0-9]{4}|[0-9]{6,10})"
_CODE_LINES = re.compile(
    r"(?i)(?:recovery|backup)[ -]codes?(?![^\W_])[^:：=\n]{0,60}?[:：=][ \t]*(?:\r?\n|%0a)?[ \t]*"
    rf"({_CODE}(?:[ \t]*(?:[,\t ]|\r?\n|%0a)[ \t]*{_CODE})*)(?![a-z0-9])"
)
"""An account's recovery or backup codes after their name and a colon, one a line or several
on one (GitHub's ``73914-28560``, eight digits): one or more, each with a digit; a line break
kept percent-encoded (``%0A``, which a URL's decoded view leaves) parts them too."""
_NUMBERED = re.compile(r"([0-9]{1,2})[.)][ \t]*([a-z]{3,8})(?![\w-])\s*")
_SEED_CUES = ("seed", "mnemonic", "recovery", "phrase", "words", "wallet", "backup")
_SEED_REACH = 120
"""How far after its cue a seed phrase's list may open."""
_SEED_LENGTHS = frozenset({12, 15, 18, 21, 24})


def _numbered_words(text: str, cues: list[int]) -> Iterator[tuple[str, int, int]]:
    """A wallet's seed phrase written as a numbered list (``1. already`` ``2. blind`` …: 12
    to 24 words, numbered in order, a space after each number or none: ``1.already``) soon
    after words that say what it is (``cues``)."""
    done = -1
    for cue in cues:
        for mark in ("1.", "1)"):  # "1. already" or "1.already"
            at = text.find(mark, max(cue, done), cue + _SEED_REACH)
            if at == -1 or (at and not text[at - 1].isspace()):
                continue
            count, end = _numbered_run(text, at)
            if count in _SEED_LENGTHS:
                done = end
                yield "password", at, end


def _numbered_run(text: str, at: int) -> tuple[int, int]:
    """How many words in a row, numbered 1, 2, 3…, open at ``at``, and where the last ends."""
    count, end = 0, at
    m = _NUMBERED.match(text, at)
    while m is not None and int(m.group(1)) == count + 1:
        count, end = count + 1, m.end(2)
        m = _NUMBERED.match(text, m.end())
    return count, end


def _random_path(value: str) -> bool:
    """Whether a webhook's path segment is its secret: twenty characters or more, mixed (any
    such segment after ``/hooks/`` is the credential, as a URL's password is by place)."""
    return random_looking(value) and has_digit(value)


_USER_SLASH = re.compile(
    r"[ \t]*(?:[-*•][ \t]+)?[A-Za-z][\w .-]{0,24}:[ \t]+[\w.@-]{2,32}[ \t]+/[ \t]+"
    r"([\"']?)([^\s\"']{8,64})\1[ \t]*(?:\r?\n|$)"
)
"""An account's line, ``Label: user / password`` (a list of accounts), from its start."""
_ACCOUNT_CUES = ("account", "login", "creds", "credential", "pass", "user", "wifi", "wlan")
_ACCOUNT_REACH = 300
"""How far after a word about accounts its lines are read."""


_LABELLED_SLASH = re.compile(
    r"(?i)(?<![\w-])(?:wi-?fi|wlan|login|account|creds|vpn|router|guest)"
    r"(?:[ \t]+[\w'’.-]{1,24}){0,5}?[ \t]*:[ \t]+"
    r"[\w.@-]{2,32}[ \t]+/[ \t]+([\"']?)([^\s\"']{8,64})\1(?=\s|$|[,;)\"'])"
)
"""``wifi: user / password`` anywhere in a line (a question, a title): the label itself a word
about accounts, perhaps with a few words after it (``Login for the lab iPad: user / pass``)."""


def _user_slash(text: str, cues: list[int]) -> Iterator[tuple[str, int, int]]:
    """``Label: user / password`` lines soon after a word about accounts (``cues``), and such
    a pair anywhere whose label is one (:data:`_LABELLED_SLASH`)."""
    done = -1
    for cue in cues:
        at = text.find(" / ", max(cue, done), cue + _ACCOUNT_REACH)
        while at != -1:
            m = _USER_SLASH.match(text, text.rfind("\n", 0, at) + 1)
            if m is None:
                ends = text.find("\n", at)
                ends = len(text) if ends == -1 else ends
                m = _LABELLED_SLASH.search(text, text.rfind("\n", 0, at) + 1, ends)
            if m is not None and _slashed_password(m.group(2)):
                yield "password", m.start(2), m.end(2)
            done = at + 3
            at = text.find(" / ", done, cue + _ACCOUNT_REACH)


def _slashed_password(value: str) -> bool:
    """A password after ``user /``: a typed one, or three words or more joined by hyphens."""
    joined = value.split("-")
    return _typed_value(value) or (len(joined) >= 3 and all(p.isalpha() for p in joined))


def _word_start(folded: str, at: int) -> int:
    """Where the word (letters, digits, ``_``, ``-``) holding ``at`` opens, at most 64
    characters back: a run of a script written without spaces (``パスワードは…``) is one
    word, and walking it back from each name in it would read it once per name."""
    stop = max(0, at - 64)
    while at > stop and (folded[at - 1].isalnum() or folded[at - 1] in "_-"):
        at -= 1
    return at


_NAME_NEEDLES = (
    *("woord", "sana", "slo", "sandi", "kode", "kata ", "lozink", "losen", "parol"),
    *("cyfrin", "paswo", "palavra", "mat kh"),
)
"""A piece of each of :data:`_NAMES`' ASCII names, each found by
:class:`arborist._gate.prefilters.Literals`' one pass with the other families' literals: a text
holding none is not read for them."""
_SET_WORDS = ("temporary ", "temp ", "initial ", "new ", "default ", "one-time ", "one time ")
_CODE_WORDS = frozenset(
    (
        *("alarm", "door", "gate", "keypad", "garage", "safe", "locker", "lock", "entry"),
        *("access", "building", "unlock", "disarm", "pin"),
    )
)


_CUES = frozenset(
    (
        *_NAME_NEEDLES,
        *("pass", "code", "pin", "puk", "combination"),  # _name_heads's
        *("/p:", "/pass:", "/password:", "/pwd:", "psk", "shared", "auth", "gets you", "get you"),
        *("/hook", "/webhook", "begin", "recovery", "backup", *_SEED_CUES, *_ACCOUNT_CUES),
    )
)
"""The literal every block of :func:`handed_candidates` but the byte arrays and the long words
stands at (or, in a text not all ASCII, a password's name in another script): a text holding
none of them is not read for those blocks."""


def _name_heads(folded: str, found: Literals) -> list[int]:
    """Where a name :data:`_MANY_NAMES` reads may open: each needle's word, a ``password``
    after a word of setting and ``passcode`` (among the starts of ``pass``), a code after a
    word for what it opens, ``pin`` and ``combination``."""
    heads = []
    for needle in _NAME_NEEDLES:
        heads += [_word_start(folded, at) for at in found.at(needle)]
    if not folded.isascii():  # SCRIPT_NAMES' starts, found for gate/told and gate/context
        heads += [_word_start(folded, at) for at in script_name_starts(found)]
    for at in found.at("pass"):
        heads += [at - len(w) for w in _SET_WORDS if folded.startswith(w, at - len(w))]
        if folded.startswith("passcode", at):
            heads.append(at)
    for at in found.at("code"):
        head = _word_start(folded, at - 1) if at and folded[at - 1] in " _-" else at
        if folded[head:at].rstrip(" _-") in _CODE_WORDS:
            heads.append(head)
    for needle in ("pin", "puk", "combination"):
        heads += [at for at in found.at(needle) if at == _word_start(folded, at)]
    return sorted(set(heads))


def _matched(
    text: str, pattern: re.Pattern[str], keep: Callable[[str], bool], at: int
) -> Iterator[tuple[str, int, int]]:
    m = pattern.match(text, at)
    if m is not None:
        value = m.group(1).rstrip(".,;)'\"")
        if keep(value):
            yield "password", m.start(1), m.start(1) + len(value)


def _any_value(value: str) -> bool:
    """A value given by place: any but a placeholder, a variable or a short word."""
    return len(value) >= 4 and not is_filler(value, "=", quoted=False) and value[0] not in "$%<{"


def _typed_value(value: str) -> bool:
    """A typed secret: six characters or more, a letter and a digit or a mark, no path."""
    if len(value) < 6 or "/" in value or "://" in value or is_filler(value, "=", quoted=False):
        return False
    lettered = any(c.isalpha() for c in value)
    return lettered and (has_digit(value) or not value.replace("-", "").isalnum())


_VERBS = (
    r"is|ist|lautet|es|est|é|era|was|jest|è|är|er|on|olan|là|la|je|adalah|ialah|yw|ni|е|је|"
    r"set[ \t]+to|reset[ \t]+to|changed[ \t]+to|now"
)
_NAMES = (
    r"wacht?woord|paswoord|wagwoord|salasana|tunnussana|salasõna|parool|heslo|geslo|"
    r"lozinka|лозинка|парола|гасло|jelszo|losenord|adgangskode|kodeord|passord|"
    r"kata[ \t]+(?:sandi|laluan|rahasia)|m[aậ]t[ \t]+kh[aẩ]u|fjal[eë]kalim|cyfrinair|"
    r"pasfhocal|pasahitza|contrasenya|palavra[ -]passe|nenosiri|parole|sandi|"
    r"(?:temporary|temp|initial|new|default|one[ -]time)[ \t]+password"
)
_CODE_NAMES = (
    r"(?:alarm|door|gate|keypad|garage|safe|locker|lock|entry|access|building|unlock|"
    r"disarm|pin)[ _-]?code|pin|puk|passcode|combination"
)
_MANY_NAMES = re.compile(
    rf"(?<![^\W_])(?:({_NAMES})|({_CODE_NAMES}))(?![^\W_])"
    rf"(?:[ \t]+[^\s:：=]+){{0,6}}?(?:[ \t]*(?:->|=>|→|[:：=])[ \t]*|[ \t]+(?:{_VERBS}):?[ \t]+)"
    r"[\"'«„“]?(?=\S*[0-9]|\S*[^\w\s-])(\S+)"
)
"""A password's name in one of many languages, or a code that opens a door, a few words,
then a colon, an arrow or a verb of saying (or setting), then the value; matched in the
case-folded text (positions are the text's)."""


def _named_value(text: str, m: re.Match[str]) -> Iterator[tuple[str, int, int]]:
    start = m.start(3)
    value = text[start : m.end(3)].rstrip(".,;:)!?\"'»“”")
    if m.group(2) is not None:  # a code: digits (a keypad's ``#`` after them), or typed
        value = value.rstrip("#*") if value.rstrip("#*").isdigit() else value
        if not (value.isdigit() and 4 <= len(value) <= 12) and not _typed_value(value):
            return
    elif not _typed_value(value):
        return
    yield "password", start, start + len(value)


_SLASH_FLAG = re.compile(r"(?i)(?<!\S)/(?:p|pass|password|pwd)[:=][\"']?([^\s\"']+)")
"""A Windows-style tool's password flag (``xfreerdp /p:X``, ``cmdkey /pass:X``)."""
_PSK = re.compile(
    r"(?i)(?<![\w-])(?:wpa_|ipsec_)?(?:psk|pre[_-]?shared[_-]?key)[\"']?"
    r"(?:[ \t]*[=:][ \t]*[\"']?|[ \t]+[\"'])([^\s\"']+)"
)
"""A pre-shared key given to its name (wpa_supplicant's ``psk="…"``, WireGuard's
``PresharedKey = …``, an IPsec ``pre-shared-key: …``, strongSwan's ``: PSK "…"``, quoted
after a space)."""
_PROTOCOL_PASS = re.compile(r"(?<![\w-])PASS[ \t]+(\S+)")
"""A protocol's password line (IRC's, FTP's and POP3's ``PASS X``): the command in capitals."""
_TWITCH = re.compile(r"(?<![\w-])oauth:[a-z0-9]{30}(?![\w-])")
_OPENS = re.compile(
    r"(?i)(?<!\S)(\S{6,40})[ \t]+(?:gets|get|will[ \t]+get|should[ \t]+get)[ \t]+you"
    r"[ \t]+(?:in|sudo|root|access|admin|through)(?![\w-])"
)
"""A password handed over by what it opens (``then X gets you sudo``)."""
_HOOK_PATH = re.compile(r"(?i)hooks?/([A-Za-z0-9_-]{20,})")
"""A webhook's secret path on any host (``https://chat.example/hooks/<random>``,
``…/webhooks/…``): matched at each ``hook`` of a URL's path."""
_KEY_ARMOR = re.compile(
    r"-----BEGIN ([A-Za-z0-9 ]*\b(?i:key)\b[A-Za-z0-9 ]*)-----[\s\S]{16,8192}?-----END [^\n-]*-----"
)
"""An armored key block whose armor names a key (``OpenVPN Static key V1``): a private one
unless it says public."""
_BYTE_ARRAY = re.compile(
    r"\[((?:[ \t\r\n]*[0-9]{1,3}[ \t\r\n]*,){31,63}[ \t\r\n]*[0-9]{1,3})[ \t\r\n]*\]"
)
"""A JSON array of 32 or 64 bytes: a keypair's secret written as Solana's ``id.json``."""


def _long_tokens(text: str, found: Literals, longs: str) -> Iterator[tuple[str, int, int]]:
    folded = found.folded
    if "0.A" in longs:
        for m in _MS_REFRESH.finditer(text):
            yield "api_token", m.start(), m.end()
    if "eyJ" in longs:
        for m in _B64_JSON.finditer(text):
            if _holds_random(m.group()):
                yield "api_token", m.start(), m.end()
    if any(found.at(cue) for cue in _WALLET_CUES) and _HEX_KEY.search(longs) is not None:
        for m in _HEX_KEY.finditer(text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            digest = _DIGEST.search(folded, max(line_start, m.start() - 12), m.start())
            if _WALLET.search(folded, line_start, m.start()) and digest is None:
                yield "private_key", m.start(), m.end()


_MS_REFRESH = re.compile(r"(?<![\w.-])0\.A[A-Za-z0-9_-]{100,}(?:\.[A-Za-z0-9_-]+)*")
"""A Microsoft identity platform refresh token (``0.A…``)."""
_B64_JSON = re.compile(r"(?<![\w.+/-])eyJ[A-Za-z0-9+/_-]{60,}={0,2}(?![\w.+/-])")
"""Base64 of a JSON object with no dot in it (not a JWT's segments)."""
_HEX_KEY = re.compile(r"(?<![\w])(?:0x)?[0-9a-fA-F]{64}(?![\w])")
_WALLET = re.compile(r"wallet|metamask|priv|signer")
_WALLET_CUES = ("wallet", "metamask", "priv", "signer")
"""A wallet's words (found by :class:`arborist._gate.prefilters.Literals`' one pass): a text
holding none is not read for a wallet's hex key."""
_DIGEST = re.compile(r"sha[0-9-]*|hash|digest|checksum|md5|blake")
"""A hash's name just before hex: a digest, not a key."""


def _holds_random(value: str) -> bool:
    """Whether ``value`` decodes to a JSON object holding a random string of 24 or more."""
    try:
        data = base64.b64decode(value + "=" * (-len(value) % 4), altchars=b"-_")
        parsed = json.loads(data)
    except (binascii.Error, ValueError):
        return False
    if not isinstance(parsed, dict):
        return False
    return any(
        isinstance(v, str) and len(v) >= 24 and random_looking(v) and has_digit(v)
        for v in parsed.values()
    )


_SPLIT = re.compile(
    r"([\"'])([A-Za-z0-9_+/=.-]{6,})\1[ \t]*(?:\r?\n[ \t]*)?\+?[ \t]*(?:\r?\n[ \t]*)?"
    r"([\"'])([A-Za-z0-9_+/=.-]{6,})\3"
)
"""Two string literals side by side (``"ghp_…" "…"``, ``'…' + '…'``), on one line or
on two (Python's implicit joining inside brackets): one value split."""


_LITERAL_END = re.compile(r"([\"'])([A-Za-z0-9_+/=-]{16,})\1[,)]*$")


def _split_literals(text: str, longs: str, reader: Reader) -> Iterator[tuple[str, int, int]]:
    """Two literals side by side read joined, where one of them is among the long words."""
    for word in set(longs.split(" ")):
        literal = _LITERAL_END.search(word) if "'" in word or '"' in word else None
        if literal is None or not random_looking(literal.group(2)):
            continue  # a literal that closes, then another may follow: a token's first part
        at = text.find(word)
        while at != -1:
            for m in _SPLIT.finditer(text, max(0, at - 80), at + len(word) + 80):
                joined = m.group(2) + m.group(4)
                if any(end - start > len(m.group(2)) for _k, start, end in reader(joined)):
                    yield "secret", m.start(2), m.end(4)
            at = text.find(word, at + 1)


# --- public though shaped like secrets -------------------------------------------------

PUBLISHED_SAMPLES = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9l"
    "IiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
)
"""Sample tokens that specifications and their sites publish to open nothing, exactly: the
jwt.io debugger's and RFC 7519's walk-through token (signed with the key
``your-256-bit-secret``)."""
_SAMPLE_MARK = "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
_ADDRESS = re.compile(
    r"(?:(?<!\w)|(?<=%[0-9A-Fa-f]{2}))0x[0-9a-fA-F]{40}(?:[-_.][a-z0-9]{1,12}){0,2}(?![\w-])"
)
"""An Ethereum-style account address (20 bytes): public, where a key is 32; after a word's
end or a percent-escape (``to%200x…`` in a URI), a short word joined after it (``0x…-sweep``)."""
_PUBLIC_NAME = re.compile(
    r"(?i)(?<![\w-])(?:data-)?[\w-]*(?:public|publishable|site[_-]?key)[\w-]*"
    r"(?:(?:[ \t]|%20)+key)?[\"']?(?:(?:[ \t]|%20)*(?:[(（]|%28)[^()（）%\r\n]{1,30}(?:[)）]|%29))?"
    r"(?:[ \t]|%20)*(?:=|:|：|%3[DdAa])(?:[ \t]|%20)*(?:[\"']|%2[27])?([^\s\"'<>%,;&\\]+)"
)
"""A value given to a name that says it is public (``NEXT_PUBLIC_POSTHOG_KEY=``,
``data-sitekey="…"``, ``publishable_key:``, ``public key (recipient):``; ``%3D`` in a URI)."""
_PUBLIC_WORDS = re.compile("(?i)public|site[_-]?key")
"""Where a public name may be: its word, found by one scan (the name is read from its
word's start)."""
_SECRET_NAME = re.compile(r"(?i)secret|private|passw|token|_pat\b")
_SECRET_PREFIX = re.compile(r"(?:sk|rk)[_-]|ghp_|xox|AKIA|-----")
_PUBLIC_ARMOR = re.compile(
    r"-----BEGIN (?:CERTIFICATE|PUBLIC KEY|RSA PUBLIC KEY|X509 CRL|CERTIFICATE REQUEST|"
    r"NEW CERTIFICATE REQUEST|TRUSTED CERTIFICATE|PGP PUBLIC KEY BLOCK|SSH2 PUBLIC KEY|"
    r"PGP SIGNATURE|SSH SIGNATURE)-----"
    r"(?:[ \t]*\r?\n[ \t]*[A-Za-z][\w-]*:[^\r\n]*)*"
    r"(?:(?!-----)[A-Za-z0-9+/=\s:$-]|%0[AaDd]|\\+[nr]){16,65536}?"
    r"(?:-----END [A-Z0-9 ]+-----|(?=-----)|(?![A-Za-z0-9+/=\s:$%\\-]))"
)
"""A certificate's, a public key's or a signature's armored block (a signature is published
beside what it signs: a signed tag, a commit's ``gpgsig``, a signed mail): public, whatever
its body holds. Its armor headers (``Version: GnuPG v1``, ``Comment: ...``) may open it, and a
line may end in ``$`` (``cat -e``'s mark of a line's end, git's of a line holding a space), its
line breaks may be escapes (``%0A`` in a URL or a file's URI, ``\\n`` in a repr), and a block cut short (a title's
end) ends where its base64 does, before any other ``-----`` line (a private key's block after
it is no part of it)."""


def public_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` holds what is public though shaped like a secret."""
    spans: list[tuple[int, int]] = []
    if "0x" in text:
        spans += [m.span() for m in _ADDRESS.finditer(text)]
    for word in _PUBLIC_WORDS.finditer(text):
        m = _PUBLIC_NAME.match(text, _word_start(text, word.start()))
        if m is not None:
            name = text[m.start() : m.start(1)]
            if _SECRET_NAME.search(name) is None and _SECRET_PREFIX.match(m.group(1)) is None:
                spans.append(m.span(1))
    if "-----BEGIN " in text:
        spans += [m.span() for m in _PUBLIC_ARMOR.finditer(text)]
    if _SAMPLE_MARK in text:
        for sample in PUBLISHED_SAMPLES:
            at = text.find(sample)
            while at != -1:
                spans.append((at, at + len(sample)))
                at = text.find(sample, at + 1)
    return spans

"""Codes and keys a person is handed or reads off a label, rather than one a program made:
product keys, gift cards, door and alarm codes, device secrets.

Pure: no I/O. These have shapes a random token does not (groups of five capitals, a short
run of digits), so no rule that weighs a value's randomness reads them, and most are told in
words no config file uses. :func:`coded_candidates` yields ``(kind, start, end)`` for

* a product, license or gift key: groups of four to six capitals and digits joined by ``-``
  or a space (``Product Key: YWKHR-62FVK-…``, ``Steam key: RSNCG-RDP9W-SGLGM``, ``claim code:
  UN45-PVHS3W-R39J``) after a word that names one, or four groups or more joined by ``-``
  holding letters and digits in two of them, by that shape alone;
* an access code told after its name (:func:`_code_name`: ``PIN``, ``PUK1``, ``door code``,
  ``Zugangscode``, ``code secret``, ``Pairing-PIN``, ``alarm…``), its name perhaps followed
  by a few words (``PIN de la tarjeta:``), then a colon, a verb of saying or nothing: four
  to twelve digits (``#`` or ``*`` around them kept), digits in groups (``802-49-263``), or
  six to sixteen capitals and digits (``restore code Z9G57UTUSV``); never a date or a year;
* a network device's secret in its config's own words: a password or secret given with its
  type digit (Cisco's ``password 7 0822455D0A16``, ``secret 5 $1$…``), an SNMP community
  (``snmp-server community X``, ``snmpwalk -c X``),
  ``adb pair HOST:PORT CODE``, the ``P:`` of a Wi-Fi QR payload (``WIFI:T:WPA;S:…;P:…;;``),
  a Wi-Fi key of twenty digits or more in groups of four after ``Schlüssel`` or ``key`` (a
  router's sticker; not an ORCID's or a card's four groups);
* a member named ``…key`` given a scrambled value (``"local_key": "f9#Kp2]aQ|7x<T0m"``: both
  cases, a digit, no run of five letters) or a list of bytes (``network_key: [192, 234, …]``);
* a license block: four groups or more of eight hex digits after ``license``;
* a two-factor seed in groups of four (``Enter this key: jd4p b7fu …``): base32 with two
  digits at least, after ``key``, ``secret``, ``seed`` or ``code`` and a colon;
* a password in a row of fields (:mod:`arborist._gate.rows`: after an e-mail address,
  ``Mailchimp,marketing@acme.io,cTmjJL2JQRyR-,shared``, or a user name);
* an app password written bare, four groups of four letters that are no words
  (``yhkd-fqgm-zazj-qwpl``); and a payment card's number and CVC
  (:mod:`arborist._gate.cards`).

Each family is read where a literal it needs stands, each match anchored there or bounded to
its line, so a text is read in time linear in its length.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from arborist._gate.cards import card_candidates
from arborist._gate.prefilters import Literals
from arborist._gate.rows import row_candidates
from arborist._gate.values import (
    has_digit,
    is_filler,
    random_looking,
    reads_as_password,
)
from arborist._text.text_words import word_list

__all__ = ["coded_candidates", "published_key", "spaced_heads", "spaced_secrets"]

Candidate = tuple[str, int, int]

_KEY_CUES = ("key", "code", "licen", "gutschein", "voucher")
"""The words a key's label holds (``Product Key``, ``claim code``, ``License``, a gift card's
``Gutschein`` or ``voucher``): each a scan of the text, so only these; a key labelled otherwise
is read by its dashed shape."""
_GROUPS = re.compile(
    r"(?<![A-Za-z0-9-])([A-Z0-9]{4,6}(?P<sep>[- ])[A-Z0-9]{4,6}(?:(?P=sep)[A-Z0-9]{4,6}){1,6})"
    r"(?![A-Za-z0-9-])"
)
_DASHED = re.compile(r"(?<![A-Za-z0-9-])[A-Z0-9]{4,6}(?:-[A-Z0-9]{4,6}){3,6}(?![A-Za-z0-9-])")
_DASHED_RUN = re.compile(r"[A-Z0-9]{4,6}-[A-Z0-9]{4,6}-[A-Z0-9]{4,6}-")
"""What :data:`_DASHED` holds, with no lookbehind: searched in the long words first."""
_WARNED = re.compile(r"(?i)do-not-share[^|\n]{0,200}\|_([A-Za-z0-9]{16,})")
"""A cookie that carries its own warning (``_|WARNING:-DO-NOT-SHARE-THIS.…|_`` and the value)."""
_KEY_REACH = 48
"""How far after its cue a key is looked for: a label and a colon, not a paragraph."""


def coded_candidates(text: str, found: Literals, longs: str) -> Iterator[Candidate]:
    """Every code, key or device secret this module reads in ``text`` (``found`` the
    literals of its case-folding; ``longs`` its long words)."""
    yield from _product_keys(text, found, longs)
    if found.holds_any(_CUES):  # most texts hold none of them
        yield from _access_codes(text, found)
        yield from _device_secrets(text, found)
        yield from _key_members(text, found)
        yield from _seeds_and_blocks(text, found)
        for at in found.at("do-not-share"):  # a value behind a warning not to share it
            m = _WARNED.match(text, at)
            if m is not None:
                yield "secret", m.start(1), m.end(1)
    yield from row_candidates(text)
    if len(text) <= _SHORT_DASHED and _BASE32_SEED.search(text) is not None:
        for m in _BASE32_SEED.finditer(text):  # a TOTP seed pasted bare in a field
            labelled = _ID_LABEL.search(text, max(0, m.start() - 24), m.start()) is not None
            seed = sum(c.isdigit() for c in m.group()) >= 2 and len(set(m.group())) >= 10
            if seed and not labelled:
                yield "secret", m.start(), m.end()
    yield from card_candidates(text, found)
    if "-" in text:  # an app password written bare: four groups of four letters
        for inner in _FOUR_LETTERS.finditer(text):
            m = _APP_BARE.match(text, max(0, inner.start() - 4))
            m = m or _APP_BARE.match(text, inner.start() + 1)  # "instruct-yhkd-fqgm-…"
            if m is not None and _random_letters(m.group()):
                yield "password", m.start(), m.end()


def _product_keys(text: str, found: Literals, longs: str) -> Iterator[Candidate]:
    """Groups of capitals and digits after a word naming a key, or dashed ones by shape."""
    for at in sorted({at for cue in _KEY_CUES for at in found.at(cue)}):
        end = text.find("\n", at, at + _KEY_REACH)
        m = _GROUPS.search(text, at, at + _KEY_REACH if end == -1 else end)
        if m is not None and _key_shaped(m.group(1), cued=True) and not _published(text, m):
            yield "secret", m.start(1), m.end(1)
    if (longs and _DASHED_RUN.search(longs) is not None) or _short_dashed(text):
        for m in _DASHED.finditer(text):
            if _key_shaped(m.group(), cued=False) and not _published(text, m):
                yield "secret", m.start(), m.end()


def _short_dashed(text: str) -> bool:
    """Whether a short text (a field) holds four dashed groups too short to be a long word
    (``G043-QB67-4GPN-ELNV``, nineteen characters)."""
    return len(text) <= _SHORT_DASHED and "-" in text and _DASHED_RUN.search(text) is not None


_SHORT_DASHED = 1024
_BASE32_SEED = re.compile(
    r"(?<![A-Za-z0-9])(?:[A-Z2-7]{32}|[A-Z2-7]{26}|[A-Z2-7]{16})(?![A-Za-z0-9])"
)
"""A two-factor seed's base32 (16, 26 or 32 characters: capitals and ``2`` to ``7``, never
``0``, ``1``, ``8`` or ``9``, which a ULID's or a hex id's digits hold), two digits at least."""
_ID_LABEL = re.compile(r"(?i)(?:id|request|trace|ref|order|number|nr)[ \t]*[:=#]?[ \t]*$")
"""An id's label right before a run of capitals (``RequestId: VR6BVY7NEDVDVP45``): no seed."""
_PUBLISHED = re.compile(r"(?i)(?<![\w.])(?:gvlk|kms|generic|example|sample|default)(?![\w.])")
"""Words that call a product key one its vendor publishes (Windows' KMS client keys, a
manual's sample key): said on the key's line before it, the key is not a secret."""


def _published(text: str, m: re.Match[str]) -> bool:
    line = text.rfind("\n", 0, m.start()) + 1
    return _PUBLISHED.search(text, max(line, m.start() - 120), m.start()) is not None


def published_key(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]``, a value given to a key's name, is a product key in groups
    that its line calls published (``KMS client key (GVLK): W269N-…``)."""
    m = _GROUPS.match(text, start, end)  # the key, and a path's rest after it
    return m is not None and _published(text, m)


def _key_shaped(value: str, *, cued: bool) -> bool:
    """Letters and digits mixed as a key's (a version, a date, a part number are not): with a
    cue, a digit, three letters and eight distinct characters; without, two groups holding
    both and ten distinct characters."""
    groups = re.split(r"[- ]", value)
    letters = sum(c.isalpha() for c in value)
    if is_filler(value, "-", quoted=False) or not has_digit(value) or letters < 3:
        return False
    if cued:  # a letter past F: not a fingerprint's or a hash's hex in groups
        beyond_hex = any("G" <= c <= "Z" for c in value)
        return beyond_hex and len(set(value.replace("-", "").replace(" ", ""))) >= 8
    mixed = sum(1 for g in groups if has_digit(g) and any(c.isalpha() for c in g))
    return mixed >= 2 and len(set(value.replace("-", ""))) >= 10


_CODE_KINDS = frozenset(
    (
        *("access", "door", "gate", "alarm", "setup", "pairing", "pair", "unlock", "lock"),
        *("security", "safe", "entry", "keypad", "garage", "building", "lobby", "restore"),
        *("recovery", "backup", "master", "admin", "one-time", "verification", "auth"),
        *("confirmation", "authentication", "2fa", "otp", "sms", "secret", "parental"),
        *("pin", "puk", "sim", "unlocking", "zugangs", "tür", "tor", "sicherheits"),
        *("entsperr", "geheim", "einmal", "bestätigungs", "tresor", "alarm", "pin-"),
        *("activation", "registration", "license", "licence", "redeem", "claim", "download"),
        *("kenn", "meeting", "room", "conference", "abhol", "pickup", "collection", "box"),
        *("locker", "fach", "paket", "parcel", "schlüssel", "key", "kasten", "mailbox"),
    )
)
"""What a code is for when its name says it (``door code``, ``Zugangscode``): the words that
make ``code`` an access code, not a postal, country, error or source code."""
_CODE_AFTER = frozenset(
    ("secret", "pin", "confidentiel", "d'accès", "porte", "d'entrée", "portail", "coffre", "alarme")
)
_CODE_CUES = (
    *("code", "pin", "puk", "combination", "kombination", "alarm", "código", "safe", "tresor"),
    *("schrank", "spind", "keypad"),
)
_TOLD_CODE = re.compile(
    r"(?:[ \t]*[(（][^)）\n]{0,40}[)）])?"
    r"(?:(?:[ \t]+(?:[\w'’/.-]+|[(（][^)）\n]{0,40}[)）])){0,6}?(?:[ \t]*[:：=][ \t]*|[ \t]+(?:is|ist|est|es|é|lautet|är|er)"
    r"[ \t]+(?:[:：][ \t]*)?)|[ \t]+)[\"'“„«]?"
    r"([0-9]{3,4}(?: [0-9]{2,4}){1,3}#|[#*]?[0-9]{4,12}[#*]?|[0-9]{2,4}(?:-[0-9]{2,4}){1,4}|"
    r"(?=[A-Z0-9]{0,15}[0-9])(?=[A-Z0-9]{0,15}[A-Z])[A-Z0-9]{6,16}|"
    r"(?=[A-Za-z0-9]{0,15}[0-9])(?=[A-Za-z0-9]{0,15}[a-z])(?=[A-Za-z0-9]{0,15}[A-Z])"
    r"[A-Za-z0-9]{6,16}|"
    r"[A-Za-z0-9][\w+/=-]{19,400})(?![\w-])"
)
_DIGIT = re.compile("[0-9]")
_CODE_REACH = 96
"""How far after its name's cue a code's first digit may be (its name's words, a note)."""
_SAID = re.compile(r"[:：=]|[ \t](?:is|ist|est|es|é|lautet|är|er)[ \t]")
"""What a long code needs before it (a colon, ``=`` or a verb of saying): a bare word after a
code's name is its code only when short and shaped as one."""
_NOT_CODE = re.compile(r"(?:19|20)[0-9]{2}|(?:19|20)[0-9]{2}-[0-9]{2}-[0-9]{2}")
"""A year or a date: what follows a code's name without being its code."""


_CUES = frozenset(
    (
        *_CODE_CUES,  # _access_codes'
        *("password", "secret", "key", "community", "snmp", "adb", "wifi:", "schl", "psk"),
        *("licen", "seed", "code", "do-not-share"),  # _seeds_and_blocks', the warning's
    )
)
"""The literal each of :func:`_access_codes`, :func:`_device_secrets`, :func:`_key_members`,
:func:`_seeds_and_blocks` and the warning not to share stands at: a text holding none is not
read for them."""


def _access_codes(text: str, found: Literals) -> Iterator[Candidate]:
    """A code told after a name that says it opens something (:func:`_code_name`)."""
    folded = found.folded
    done = 0
    for at in sorted({at for cue in _CODE_CUES for at in found.at(cue)}):
        if _DIGIT.search(text, at, at + _CODE_REACH) is None:
            continue  # every code holds a digit: most words "code" have none after them
        start, end = _word_around(folded, at)
        joined = folded[end : end + 1] == "_"  # pin_length: an identifier, no code's name
        if end <= done or joined or not _code_name(folded, start, end):
            continue
        done = end
        after = _word_after(folded, end)
        if folded[after[0] : after[1]] in _CODE_AFTER:  # "code secret", "código pin"
            end = after[1]
        elif folded.startswith("de ", after[0]):  # "código de acceso"
            end = _word_after(folded, after[1])[1]
        m = _TOLD_CODE.match(text, end)
        value = m.group(1) if m is not None else ""
        told = m is not None and _SAID.search(text, end, m.start(1)) is not None
        token = len(value) < 20 or (told and random_looking(value))  # random, told with ":"
        if m is not None and _NOT_CODE.fullmatch(value) is None and token:
            yield "password", m.start(1), m.end(1)


def _word_around(folded: str, at: int) -> tuple[int, int]:
    """The word (letters, digits, ``-``) ``at`` stands in, at most 24 characters either way."""
    start = at
    while start > max(0, at - 24) and (folded[start - 1].isalnum() or folded[start - 1] == "-"):
        start -= 1
    end = at
    while end < min(len(folded), at + 24) and (folded[end].isalnum() or folded[end] == "-"):
        end += 1
    return start, end


def _word_after(folded: str, end: int) -> tuple[int, int]:
    """The word after ``end`` (past one run of spaces), as a ``(start, end)``."""
    start = end
    while start < len(folded) and start < end + 3 and folded[start] in " \t":
        start += 1
    stop = start
    while stop < min(len(folded), start + 24) and (folded[stop].isalpha() or folded[stop] in "'’"):
        stop += 1
    return start, stop


def _code_name(folded: str, start: int, end: int) -> bool:
    """Whether the word at ``start:end`` names an access code: ``pin``, ``puk``, a word ending
    in ``code`` whose head says what it opens (``zugangscode``, ``pin-code``), ``code`` after
    such a word (``door code``) or before ``secret``, ``alarm…``, ``pairing-pin``."""
    name = folded[start:end].rstrip("-0123456789")  # "puk1", "pin2"
    last = name.rpartition("-")[2]  # "creds-puk", a name joined to a word before it
    if last.startswith("alarm") or last in _NAMED_CODES:
        return True
    if last in ("safe", "tresor", "schrank", "spind"):  # "safe: 57-25-39" (_SAFE_TOLD)
        return _SAFE_TOLD.match(folded, end) is not None
    if name == "código":
        return folded.startswith(_SPANISH_CODES, _word_after(folded, end)[0])
    if name.endswith("code") and name != "code":
        return _opens(name[:-4].rstrip("-").rpartition("-")[2])
    if name != "code":
        return False
    before = _WORD_BREAK.split(folded[max(0, start - 24) : start].rstrip(" \t-"))[-1]
    after = folded[slice(*_word_after(folded, end))]
    kind = _opens(before.rpartition("-")[2])  # home-alarm, lockbox
    kind = kind or before.rpartition("-")[2].startswith("alarm")  # "Alarmanlage Code 6952"
    return kind or after in _CODE_AFTER


def _opens(head: str) -> bool:
    """Whether ``head``, the word before ``code`` or joined to it, says what the code opens: one
    of :data:`_CODE_KINDS`, or a compound that opens or ends with one of four letters or more
    (``lockbox``, ``garagentor``, ``haustür``) or is one with a German ``s`` (``zugangs``)."""
    if head in _CODE_KINDS:
        return True
    if len(head) < 6:
        return False
    return any(
        (len(kind) >= 4 and (head.startswith(kind) or head.endswith(kind))) or head.endswith("tür")
        for kind in _CODE_KINDS
    )


_NAMED_CODES = frozenset(
    (
        *("pin", "pins", "pincode", "puk", "passcode", "geheimzahl", "combination"),
        *("kombination", "keypad"),
    )
)
"""Words that name an access code by themselves (``PIN``, ``PUK1``, ``combination``)."""
_SAFE_TOLD = re.compile(
    r"(?:[ \t]+[0-9]{1,4})?(?:[ \t]*[(（][^)）\n]{0,40}[)）])?"
    r"[ \t]*[:：][ \t]*[0-9]{1,3}(?:[- ][0-9]{1,3}){2,4}(?![0-9])"
)
"""A safe's combination after its name and a colon: numbers in groups (``57-25-39``)."""
_WORD_BREAK = re.compile(r"[^\w-]+|_")
"""What ends the word before ``code`` (``"gate``, ``scan_gate``)."""


_SPANISH_CODES = (
    *("de acceso", "de seguridad", "secreto", "pin", "de la puerta", "de puerta"),
    *("del portal", "de entrada", "de la alarma", "de alarma"),
)

_TYPED_SECRET = re.compile(
    r"(?i)(?:password|secret|key-string|key)[ \t]+([05789])[ \t]+"
    r"(\$[0-9a-z]{1,2}\$[./0-9A-Za-z$]{8,}|[0-9A-Fa-f]{8,}(?![0-9A-Za-z])|[^\s\"'<>]{6,})"
)
_SNMP = re.compile(
    r"(?i)(?:snmp-server[ \t]+community|r[ow]community6?|community[ \t]+string(?:[ \t]+is|"
    r"[ \t]*[:=]))[ \t]+[\"']?([^\s\"']{4,64})"
)
_SNMP_TOOL = re.compile(
    r"(?i)snmp(?:walk|get|getnext|bulkwalk|bulkget|set|table|trap|df|netstat|status)"
    r"(?![a-z])[^\n|;]{0,80}?[ \t]-c[ \t]*[\"']?([^\s\"']{4,64})"
)
_ADB_PAIR = re.compile(r"(?i)adb[ \t]+pair[ \t]+\S{1,64}:[0-9]{2,5}[ \t]+([0-9]{6})(?![0-9])")
_WIFI_QR = re.compile(
    r"(?i)wifi:(?:[a-z]{1,2}:(?:\\.|[^;\\\n]){0,64};){0,6}?p:((?:\\.|[^;\\\n]){1,64});"
)
_STICKER = re.compile(
    r"(?i)(?:schl(?:ü|ue)ssel|key|psk)(?:[ \t]*[(（][^)）\n]{0,20}[)）])?[ \t]*[:=]?[ \t]*"
    r"(?:\r?\n|\\n|%0a)?"
    r"[ \t]*([0-9]{4}(?:[ -][0-9]{4}){4,5})(?![0-9])"
)


def _device_secrets(text: str, found: Literals) -> Iterator[Candidate]:
    """A network device's or a phone's secret in its own config words (see the module)."""
    for at in sorted({*found.at("password"), *found.at("secret"), *found.at("key")}):
        m = _TYPED_SECRET.match(text, at)
        if m is not None and _typed(text, m):
            yield "password", m.start(2), m.end(2)
    folded = found.folded
    for at in found.at("community"):
        opens = at - 12 if folded.startswith("snmp-server", at - 12) else at
        m = _SNMP.match(text, at - 2 if folded.startswith(("ro", "rw"), at - 2) else opens)
        if m is not None and m.group(1).lower() != "public":
            yield "password", m.start(1), m.end(1)
    for at in found.at("snmp"):
        m = _SNMP_TOOL.match(text, at)
        if m is not None and m.group(1).lower() != "public":
            yield "password", m.start(1), m.end(1)
    for at in found.at("adb"):
        m = _ADB_PAIR.match(text, at)
        if m is not None:
            yield "password", m.start(1), m.end(1)
    for at in found.at("wifi:"):
        m = _WIFI_QR.match(text, at)
        if m is not None and not is_filler(m.group(1), ":", quoted=False):
            yield "password", m.start(1), m.end(1)
    for at in sorted({*found.at("schl"), *found.at("key"), *found.at("psk")}):
        m = _STICKER.match(text, at)
        if m is not None:
            yield "password", m.start(1), m.end(1)


def _typed(text: str, m: re.Match[str]) -> bool:
    """Whether a ``password 7 X`` is a config's typed secret: a hash or hex for the types
    that are one, and for a plain ``0`` a line that opens as Cisco's do."""
    kind, value = m.group(1), m.group(2)
    if kind in "57" or kind in "89":
        hashed = value.startswith("$") or all(c in "0123456789abcdefABCDEF" for c in value)
        return hashed and (kind != "7" or len(value) % 2 == 0)
    line = text[text.rfind("\n", 0, m.start()) + 1 : m.start()].lstrip().lower()
    return line.startswith(("username", "enable", "key", "line", "tacacs", "radius")) and (
        reads_as_password(value) or random_looking(value)
    )


_KEY_MEMBER = re.compile(
    r"(?i)key[\"']?[ \t]*[:=][ \t]*(?:\"([^\"\s]{10,64})\"|'([^'\s]{10,64})'|"
    r"\[((?:[ \t]*(?:0x)?[0-9a-f]{1,3}[ \t]*,){7,63}[ \t]*(?:0x)?[0-9a-f]{1,3}[ \t]*)\])"
)
_LETTER_RUN = re.compile(r"[^\W\d_]{5,}")


def _key_members(text: str, found: Literals) -> Iterator[Candidate]:
    """A member named ``…key`` given a scrambled value or a list of bytes."""
    for at in found.at("key"):
        m = _KEY_MEMBER.match(text, at)
        if m is None:
            continue
        if m.group(3) is not None:
            items = [x.strip().lower() for x in m.group(3).split(",")]
            if len(set(items)) >= 6 and all(int(x, 0) < 256 for x in items):
                yield "secret", m.start(3), m.end(3)
            continue
        group = 1 if m.group(1) is not None else 2
        if _scrambled(m.group(group)):
            yield "secret", m.start(group), m.end(group)


def _scrambled(value: str) -> bool:
    """Both cases and a digit, and no run of five letters: a key typed at random, not a
    name, a path, a date (``2024-01-01T00:00:00Z`` has one case) or ``user:1234:profile``."""
    lower = any(c.islower() for c in value)
    upper = any(c.isupper() for c in value)
    return lower and upper and has_digit(value) and _LETTER_RUN.search(value) is None


_HEX_BLOCK = re.compile(r"(?:[0-9A-F]{8}[ \t]+){3,}[0-9A-F]{8}(?![0-9A-Za-z])")
_GROUPED_SEED = re.compile(
    r"[^\n]{0,40}?[:=][ \t]*((?:[a-z2-7]{4}[ \t]){5,15}[a-z2-7]{2,4}|"
    r"(?:[A-Z2-7]{4}[ \t]){5,15}[A-Z2-7]{2,4})(?![A-Za-z0-9])"
)
_BLOCK_REACH = 400


def _seeds_and_blocks(text: str, found: Literals) -> Iterator[Candidate]:
    """License blocks of hex after ``license``; two-factor seeds in groups of four."""
    for at in found.at("licen"):
        for block in _HEX_BLOCK.finditer(text, at, at + _BLOCK_REACH):
            if any(c.isalpha() for c in block.group()):
                yield "secret", block.start(), block.end()
    cues = ("key", "secret", "seed", "code")
    for at in sorted({at for cue in cues for at in found.at(cue)}):
        m = _GROUPED_SEED.match(text, at)
        value = m.group(1) if m is not None else ""
        if m is not None and sum(c.isdigit() for c in value) >= 2 and len(set(value)) >= 11:
            yield "password", m.start(1), m.end(1)


_SPACED = re.compile(
    r"(?i)(?:pass[ -]?phrase|(?:recovery|seed|wallet|mnemonic|backup)[ -](?:phrase|words?)|"
    r"frase[ \t]+de[ \t]+contrase[ñn]a|wiederherstellungs(?:code|schlüssel)|"
    r"mnemonic|seed|app(?:[ -]specific)?[ -]password|(?:setup|secret|totp|2fa|mfa|otp)[ -]key)"
    r"(?![^\W_])[^:：=\n]{0,60}?[:：=][ \t]*[\"'«“]?"
    r"([a-z0-9]{4}(?:[ \t-][a-z0-9]{4}){3,15}|"
    r"[^\W\d_]{2,12}(?:(?P<gap>[ \t-])(?:[^\W\d_]{2,12}|[0-9]{1,4})(?:(?P=gap)(?:[^\W\d_]{2,12}|[0-9]{1,4})){2,22}))"
    r"(?![a-z0-9])"
)
"""A secret written as groups split by spaces or dashes, after its name and a colon: a TOTP
seed or an app password (groups of four, ``ibeb liuw 6zjd muf6``, Apple's ``hgtw-pqxz-…``:
base32's, no ``0``, ``1``, ``8`` or ``9``, which a key's hex fingerprint holds), a passphrase
or a wallet's seed phrase or recovery words (four words or more in lower case, numbers among
them after the first: ``nebula otter 81 crimson``)."""
_CODE = r"(?:[a-z0-9]{4,10}-[a-z0-9]{4,10}|[0-9]{4}[ \t]?[0-9]{4}|[0-9]{6,10})"
_CODES = re.compile(
    r"(?i)(?:recovery|backup)[ -]codes?(?![^\W_])[^:：=\n]{0,60}?[:：=][ \t]*[\"'«“]?"
    rf"({_CODE}(?:[ \t]*[, \t][ \t]*{_CODE})*)(?![a-z0-9])"
)
"""An account's recovery or backup codes after their name and a colon (GitHub's
``73914-28560``, Google's ``1234 5678``): one or more, each with a digit."""
_PLAIN_WORDS = frozenset(
    word_list("""a an and are as ask at be by for from get has have here in is it its not of on or our
        see sent set that the them then this to use via was will with you your""")
)
"""Words a sentence holds and a passphrase or a seed phrase does not (``passphrase: ask the
admin for it``)."""


def spaced_heads(found: Literals) -> list[int]:
    """Where a spaced secret's name may open: the starts of ``mnemonic`` and ``seed``
    (found by :class:`arborist._gate.prefilters.Literals`' one pass), and the word before
    each ``phrase``, ``frase de`` (``frase de contraseña``), ``wiederherstellungs``;
    ``passphrase`` and ``app password`` among the starts of ``pass``, and
    ``setup key`` (:data:`_KEY_KINDS`) among those of ``key``."""
    folded = found.folded
    starts = found.at("mnemonic") + found.at("seed")
    starts += [_word_before(folded, at) for at in found.at("phrase")]
    starts += found.at("frase de") + found.at("wiederherstellungs")
    for at in found.at("pass"):
        if folded.startswith("phrase", at + 4):
            starts.append(at)
        elif folded.startswith("app", at - 4) or folded.startswith("app", at - 13):
            starts.append(at - 4 if folded.startswith("app", at - 4) else at - 13)
    for at in found.at("key"):
        head = _word_before(folded, at)
        if folded.startswith(_KEY_KINDS, head):
            starts.append(head)
    return sorted(set(starts))


_KEY_KINDS = ("setup", "secret", "totp", "2fa", "mfa", "otp")


def _word_before(folded: str, at: int) -> int:
    """Where the word before the one at ``at`` (one space or dash between) opens."""
    start = at - 1
    if start < 1 or folded[start] not in " -":
        return at
    while start > 0 and folded[start - 1].isalnum():
        start -= 1
    return start


def spaced_secrets(text: str, heads: list[int]) -> Iterator[tuple[str, int, int]]:
    """A secret written as groups or words after its name (:data:`_SPACED`), or codes after
    theirs (:data:`_CODES`), the name opening at one of ``heads``."""
    done = 0
    for at in heads:
        m = _SPACED.match(text, at) if at >= done else None
        if m is None:
            continue
        done = m.end()
        words = _GROUP_BREAK.split(m.group(1))
        plain = [w.lower() in _PLAIN_WORDS for w in words]
        kept = next(
            (i for i in range(len(words)) if plain[i] and plain[i + 1 : i + 2] != [False]),
            len(words),
        )
        grouped = _FOURS.fullmatch(m.group(1)) is not None
        base32 = not grouped or not any(c in "0189" for c in m.group(1))  # not a fingerprint
        if kept - sum(plain[:kept]) >= 4 and base32:  # up to a sentence's words ("… in the")
            end = m.start(1) + len(" ".join(words[:kept]))
            yield "password", m.start(1), end
    for at in heads:
        m = _CODES.match(text, at)
        if m is not None and has_digit(m.group(1)):
            yield "password", m.start(1), m.end(1)


_GROUP_BREAK = re.compile("[ \t-]")
_FOURS = re.compile("(?i)[a-z0-9]{4}(?:[ \t-][a-z0-9]{4})+")


_FOUR_LETTERS = re.compile("-[a-z]{4}-[a-z]{4}-")
"""An app password's middle, opening with a literal the regex engine scans for."""
_APP_BARE = re.compile(r"(?<![A-Za-z0-9])[a-z]{4}-[a-z]{4}-[a-z]{4}-[a-z]{4}(?![A-Za-z0-9-])")
_VOWELS = frozenset("aeiou")


def _random_letters(value: str) -> bool:
    """Four groups of four letters that are no words (an app password written bare): two
    groups at least with no vowel, and ten letters of the sixteen distinct."""
    groups = value.split("-")
    voiceless = sum(1 for g in groups if not _VOWELS.intersection(g))
    return voiceless >= 2 and len(set(value.replace("-", ""))) >= 10

"""Secrets known by their shape alone, with no name and no cue a reader could point to.

Pure: no I/O. :func:`bare_candidates` yields ``(kind, start, end)`` for

* in a short text (a field: a file's or a folder's name, a title, a label, a question, a
  reason, a model's name, an error line, a short note; at most :data:`FIELD` characters):
  a typed password by its shape alone, one word of 8 to 32 characters holding a lower-case
  letter, a capital, a digit and a mark (:data:`_STRONG_MARKS`; or, twelve or more, ``+`` or
  ``=``) that is not a path, a URL, code, an address, a version or a tag
  (:func:`arborist._gate.context.password_shaped`), also such a word before a file's
  suffix, as a slug's tag or after a secret's name joined to it (``pw-X``, ``backup.pw.X``;
  a key's name, a random run: ``ddkey_<hex>``); one random token of 24 characters or more (both cases, digits, changing between letters
  and digits at least eight times or holding three runs of letters no word holds, not hex:
  a webhook's or an API's key with no prefix); a key read out in groups of four (``GvAz
  8cfp E8tA …``); a wallet's seed phrase standing bare (12 to 24 words in lower case, none
  of them a word prose needs); recovery or backup codes and words after their name. A field
  has no sentence to tell a password by; a word of all four classes is what a password
  policy asks for and no name, number or prose needs. A long document is not read so: there
  a password is known by its words around it (:mod:`arborist._gate.context`);
* anywhere: a cryptocurrency wallet's private key in Base58 (a Bitcoin WIF key, 51
  characters opening ``5H``/``5J``/``5K`` or 52 opening ``K``/``L``; a BIP32 extended private
  key, ``xprv`` and its kin and 107 or 108 more; 64 bytes of Base58, a Solana keypair's,
  after a word that names a key or a wallet: a signature is as long, and is public); a
  token parted over two lines by a hyphen at the first's end (read joined); a password in a URL's userinfo whose scheme is lost
  (``default:X@redis-1.example.com``, not after a name in capitals: ``UID:…@``); a key
  a secret's name is given by a decoding call (``bytes.fromhex('…')``, ``Buffer.from(…)``).

:mod:`arborist._gate.finders` runs it beside the other shapes (keys: on long words only).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from arborist._gate.codes import spaced_secrets
from arborist._gate.context import password_shaped, unpronounceable
from arborist._gate.names import secret_name
from arborist._gate.shapes import b64_text, printable
from arborist._gate.told import Reader
from arborist._gate.values import has_digit, random_looking, reads_as_password
from arborist._text.text_words import word_list

__all__ = [
    "FIELD",
    "bare_candidates",
    "strong_password",
]

_B58 = "1-9A-HJ-NP-Za-km-z"
"""Base58's alphabet, as a class's ranges: no ``0``, ``O``, ``I`` or ``l``."""
FIELD = 1024
"""A text this short is a field (a name, a title, a label, a question, an error line) or a
short note: each of its words is weighed as a password by its shape alone."""


def bare_candidates(text: str, longs: str, reader: Reader) -> Iterator[tuple[str, int, int]]:
    """Every secret this module reads in ``text`` (``longs`` its long words, as
    :func:`arborist._gate.prefilters.long_words`; ``reader`` the gate's own reading of a
    text, for a token a line break parted)."""
    if len(text) <= FIELD:
        yield from _field_passwords(text)
        if " " in text:
            yield from _grouped_keys(text)
        if _SEED_WORD.search(text) is not None:
            yield from _seed_phrases(text)
        recovery = [m.start() for m in _RECOVERY.finditer(text)]
        if recovery:  # a long text is not scanned for the word: its cost on every ingest
            yield from spaced_secrets(text, recovery)
    if _hyphen_head(longs):
        yield from _hyphenated(text, reader)
    if "@" in text and ":" in text:
        yield from _bare_userinfo(text)
    if longs:
        yield from _wallet_keys(text, longs)
        if "(" in longs:
            yield from _decoded_literals(text, longs)


# --- a password by its shape, in a field ------------------------------------------------

_STRONG_MARKS = "!#$%&*@^~"
_STRONG_SET = frozenset(_STRONG_MARKS)
_SUMS = frozenset("+=")
_EDGE = "\"'`«»“”‘’()[]{}<>,;.:?*|"
_JOINED_NAME = re.compile(
    r"(?i)(?:^|[._-])[a-z]{0,8}?(?:pw|pwd|pass|passwd|password|(key)|(token)|(secret)|creds?)[._-]"
)
"""A secret's name joined to its value (``pw-X``, ``backup.pw.X``, ``key_X``, ``ddkey_X``)."""
_KEY_RUN = re.compile(r"[A-Za-z0-9]{20,}")  # what a key's name joined to a value may be given
_SUFFIX = re.compile(r"(?:\.[A-Za-z][A-Za-z0-9]{0,4}){1,3}$")  # a file's (.txt), not a password's


def strong_password(word: str) -> bool:
    """Whether ``word`` holds a lower-case letter, a capital, a digit and one of
    :data:`_STRONG_MARKS` (or, twelve characters or more, ``+`` or ``=``), and reads as a typed
    password
    (:func:`arborist._gate.context.password_shaped`)."""
    marked = not _STRONG_SET.isdisjoint(word) or (
        len(word) >= _LEAST_SUMS and not _SUMS.isdisjoint(_CHARGE.sub("", word))
    )
    return (
        marked
        and _PADDED_B64.fullmatch(word) is None
        and "---" not in word  # a PEM armour's dashes (``…=-----END``)
        and _CHORD.fullmatch(word) is None
        and any(c.islower() for c in word)
        and any(c.isupper() for c in word)
        and has_digit(word)
        and password_shaped(word)
    )


_CHORD = re.compile(r"(?i)(?:(?:ctrl|shift|alt|opt|option|cmd|meta|super|win|fn)\+)+\w{1,6}")
"""Keys pressed together (``Ctrl+Shift+F5``): a shortcut said in a question, not a password."""
_PADDED_B64 = re.compile(r"[A-Za-z0-9+/]+={1,2}")
"""Base64 with its padding (``…OYdQ=``, an id's or a digest's tail): data, not a password."""
_CHARGE = re.compile(r"[A-Z][a-z]?[0-9]*\+")
"""An ion's charge (``Ca2+``, ``Na+``): a formula's ``+``, not a password's."""
_LEAST_SUMS = 12
"""A word whose only marks are ``+`` and ``=`` is a password from this length (``7=wjYRD=j+…``);
a shorter one is as often a formula or a charge (``Ca2+Mg2+``)."""


def _field_passwords(text: str) -> Iterator[tuple[str, int, int]]:
    """Each word of a short text that is a strong password, whole, without a file's suffix,
    or after a password's name joined to it. A word ends at a space, a quote, a bracket, a
    comma, a path's ``/`` and a query's ``?`` (``…/p/X``, ``"X",rotated``), and a query's or
    an assignment's name goes before its value (``q=X&page=1``: ``X``)."""
    for m in _FIELD_WORD.finditer(text):
        word = m.group()
        yield from _field_word(text, word, m.start(), m.end())


_FIELD_WORD = re.compile(r"[^\s\"'`,;()\[\]{}<>/?：，、]{8,}")
_ASSIGNED = re.compile(r"(?:^|[&;])[A-Za-z_][\w.-]*=")
"""A query's or an assignment's name and its ``=``: what stands between two values."""


def _field_word(text: str, word: str, start: int, end: int) -> Iterator[tuple[str, int, int]]:
    pieces = [(start, end)]
    if "=" in word:
        pieces, at = [], start
        for m in _ASSIGNED.finditer(word):
            pieces.append((at, start + m.start()))
            at = start + m.end()
        pieces.append((at, end))
        pieces.append((start, end))  # whole too: key_7=wjYRD=… is a name joined to a value
    for a, b in pieces:
        yield from _field_piece(text, text[a:b], a, b)


def _field_piece(text: str, word: str, start: int, end: int) -> Iterator[tuple[str, int, int]]:
    """A piece of a field's word as a strong password (whole, before a file's suffix, as a
    slug's tag, after a password's name joined to it) or as one random token; never a piece
    of a longer word of base64 data (:func:`_in_data`)."""
    inner = word.strip(_EDGE)
    if len(word) < _LEAST_PIECE or not inner or (len(inner) < 24 and not has_digit(inner)):
        return  # each password below holds a digit, and a random token is 24 long or more
    at = start + word.find(inner)
    mark = text[at + len(inner) : end + 1][:1]  # a last mark ("…0275*"), no separator ("&")
    inner += mark if inner[-1:] not in _STRONG_MARKS and mark in "!*^~$" else ""
    if _in_data(text, at, at + len(inner)):
        return
    suffix = _SUFFIX.search(inner)
    for value in (inner, inner[: suffix.start()] if suffix else ""):
        if value and strong_password(value):
            yield "password", at, at + len(value)
            return
    tagged = _SLUG_HEAD.match(inner)
    if tagged is not None and strong_password(inner[tagged.end() :]):
        yield "password", at + tagged.end(), at + len(inner)  # gpt-4o-mini#X
        return
    skip = m.end() if (m := re.match(r"(?:(?:backup|notes|export|dump|draft)[_-])+", inner)) else 0
    for lead, value in ((0, inner), (skip, inner[skip : suffix.start() if suffix else None])):
        if _RANDOM_TOKEN.fullmatch(value) is not None and _random_token(value):
            yield "secret", at + lead, at + lead + len(value)  # backup_<token>.env: the token
            return
    names = list(_JOINED_NAME.finditer(inner))
    if names:
        joined = names[-1]  # the last name: backup.pw.X
        value = inner[joined.end() :]
        suffix = _SUFFIX.search(value)
        value = value[: suffix.start()] if suffix else value
        keyed = joined.lastindex is not None and _KEY_RUN.fullmatch(value) is not None
        kind = "secret" if keyed else "password"  # a key's, a token's: a random run, hex too
        if strong_password(value) or (keyed and has_digit(value) and len(set(value)) >= 10):
            yield kind, at + joined.end(), at + joined.end() + len(value)


_LEAST_PIECE = 8
_SLUG_HEAD = re.compile(r"[a-z0-9]+(?:[-.][a-z0-9]+)+[#:@]")
"""A slug and a tag's mark (``gpt-4o-mini#``): a password may be the tag."""
_RANDOM_TOKEN = re.compile(r"[A-Za-z0-9_-]{24,}")
_LEAST_CHANGES = 8
"""A random token of 24 characters or more changes between letters and digits this often
at least (a name with a number, ``Orchard7Harbor9Lantern3``, a few times)."""
_B58_ONLY = re.compile(f"[{_B58}]+")
_PUBLIC_B58_SIZES = frozenset((*range(25, 47), 86, 87, 88))
"""Base58 this long is a wallet's address (Bitcoin's 25 to 35, Solana's 32 to 44), an IPFS
CIDv0 (46) or a signature (64 bytes): public; the private keys in Base58 are known by their
own shapes."""
_PUBLIC_ID = re.compile(r"pk_[A-Za-z0-9_]+|[a-z]{2,10}[_-]([A-Za-z0-9]+)")
"""A vendor's object id, a short prefix in lower case and ``_`` or ``-`` (``ch_…``, ``msg_…``,
``chatcmpl-…``), or a publishable key (Stripe's ``pk_test_…``, made to be shown)."""
_PUBLIC_ID_BODY = 32
_PUBLISHABLE = re.compile(r"(?:^|[_-])pk_(?:test|live)_")
_SECRET_PREFIXES = frozenset({"key", "pw", "pwd", "pass", "tok", "api", "sk", "pat", "auth"})
"""Short words before a token that name a secret, not a vendor's kind of object."""


def _b64_text(piece: str) -> bool:
    """Whether ``piece`` is the base64 of text (``eyJtb2RlbCI6…``, JSON)."""
    decoded = b64_text(piece)
    return decoded is not None and printable(decoded.replace(b"\n", b" ").replace(b"\r", b" "))


_LEAST_ODD = 3
"""Or its pieces (split where case or letters and digits change) hold this many runs of two
letters or more with no vowel (``FGTiPhpueD5qk…``: ``FG``, ``qk``, ``PNG``): a name's none."""
_HEX_ID = re.compile(r"[0-9a-fA-F-]+")


def _random_token(token: str) -> bool:
    """Whether ``token`` (24 characters or more of letters, digits, ``_`` and ``-``) is one
    random token: both cases, digits, changing between letters and digits often, its longest
    piece between ``_`` and ``-`` sixteen characters or more and not hex (a hash, a UUID, a
    digest with a suffix). Not a vendor's public id (a short prefix in lower case and ``_`` or
    ``-``, ``ch_…``, ``chatcmpl-…``, also joined to a word, ``backup_ch_…``: a vendor's secret
    keys are known by their own prefixes), a publishable key (``pk_…``), a wallet's address,
    the base64 of text (``eyJldmVudCI6…``) or of an SSH public key (``AAAAC3NzaC1l…``)."""
    public_id = _PUBLIC_ID.fullmatch(token)
    if public_id is not None and len(public_id.group(1) or "") <= _PUBLIC_ID_BODY:
        return False
    if _PUBLISHABLE.search(token) is not None:
        return False  # creds-pk_test_…-backup
    pieces = _PIECES.split(token)
    longest = max(pieces, key=len)
    before = pieces[pieces.index(longest) - 1] if pieces.index(longest) else ""
    if (
        len(longest) <= _PUBLIC_ID_BODY
        and 2 <= len(before) <= 4
        and before.isalpha()
        and before.islower()
        and before not in _SECRET_PREFIXES
    ):
        return False  # joined to a word: backup_ch_…, exp_msg_…
    named = all(piece.isalpha() for piece in pieces if piece is not longest)
    if named and len(longest) in _PUBLIC_B58_SIZES and _B58_ONLY.fullmatch(longest) is not None:
        return False  # a wallet's address (keys_1Boat…), a signature: made to be shown
    if _b64_text(longest):
        return False
    return (
        not _b64_text(token)
        and any(c.islower() for c in token)
        and any(c.isupper() for c in token)
        and has_digit(token)
        and (len(_CHANGE.findall(token)) >= _LEAST_CHANGES or unpronounceable(token) >= _LEAST_ODD)
        and _HEX_ID.fullmatch(token) is None
        and len(longest) >= _LEAST_RANDOM_RUN
        and _HEX_ID.fullmatch(longest) is None  # a digest with a suffix (``…7933-q4_K_M``)
        and not (b64_text(token) or b"").startswith(b"\0\0\0")  # an SSH public key's
    )


def _in_data(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a piece of a run of base64 data (a public key, a digest,
    an image in a ``data:`` URI): the run of base64's characters around it, forty or more,
    holds ``+`` or ends with ``=``, or holds ``/`` and is in no URL or path (whose segments
    are such a run too); or the text holds a PEM block (a certificate's or a public key's
    lines: a private one is known whole)."""
    if "-----BEGIN" in text:
        return True
    a, b = start, end
    while a and text[a - 1] in _B64_CHARS:
        a -= 1
    while b < len(text) and text[b] in _B64_CHARS:
        b += 1
    run = text[a:b]
    if len(run) < _DATA_RUN or not ("+" in run or "/" in run or run.endswith("=")):
        return False  # a password holding + or = is a short run (7=wjYRD=j+…)
    if "+" in run or run.endswith("="):
        return True  # in a URL too: base64 in a path or a query is data
    while a and not text[a - 1].isspace():
        a -= 1
    word = text[a:b]
    if "base64," in word:
        return True
    return "://" not in word and not word.lstrip(_EDGE).startswith(("/", "~", "."))


_DATA_RUN = 40
_B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")


_CHANGE = re.compile(r"[A-Za-z][0-9]|[0-9][A-Za-z]")
_PIECES = re.compile("[_-]")
_LEAST_RANDOM_RUN = 16


_GROUPED = re.compile(r"(?<!\S)[A-Za-z0-9]{4}(?: [A-Za-z0-9]{4}){5,15}(?![^\s.,;:!?)\]\"'])")
"""A key read out in groups of four (``GvAz 8cfp E8tA …``), six groups or more."""
_HEX_GROUPS = re.compile(r"[0-9A-Fa-f ]+")


def _grouped_keys(text: str) -> Iterator[tuple[str, int, int]]:
    """A key written in groups of four, in a short text: random as a whole (both cases and
    digits, half its groups mixing letters and digits), not hex (a PGP key's fingerprint)."""
    for m in _GROUPED.finditer(text):
        groups = m.group().split(" ")
        start, end = m.start(), m.end()
        while groups and groups[-1].isalpha() and groups[-1].islower():
            end -= len(groups.pop()) + 1  # "… gtpX into the summary": a word after the key
        while groups and groups[0].isalpha() and groups[0].islower():
            start += len(groups.pop(0)) + 1
        if len(groups) < _LEAST_GROUPS:
            continue
        joined = "".join(groups)
        mixed = sum(1 for g in groups if has_digit(g) and not g.isdigit())
        if (
            _HEX_GROUPS.fullmatch(joined) is None
            and not joined.islower()
            and not joined.isupper()
            and 2 * mixed >= len(groups)
            and random_looking(joined)
        ):
            yield "secret", start, end


_LEAST_GROUPS = 6
_TOKEN_PART = re.compile(r"[A-Za-z0-9_+/=-]+")
_MOST_HYPHENS = 64
"""How many line-end hyphens are read: a page of hyphenated prose costs a bounded number."""


def _hyphenated(text: str, reader: Reader) -> Iterator[tuple[str, int, int]]:
    """A token parted over two lines by a hyphen at the first's end (``ghp_FZRv…-`` then
    ``etmp…``, as a mail or a PDF wraps it): the two parts joined and read again; the whole of
    both is redacted when the joined word holds a secret."""
    read = 0
    for needle in _HYPHEN_BREAKS:
        at = text.find(needle)
        while at != -1 and read < _MOST_HYPHENS:
            if at and text[at - 1].isalnum():  # not "-----", a rule's or an armour's end
                read += 1
                m = _LINE_END_HYPHEN.match(text, at)
                head = at
                while head > max(0, at - _MOST_HEAD) and text[head - 1] in _TOKEN_CHARS:
                    head -= 1
                tail = _TOKEN_PART.match(text, m.end()) if m is not None else None
                if tail is not None and at - head >= _LEAST_HEAD:
                    joined = text[head:at] + tail.group()
                    cut = at - head
                    tokenlike = len(joined) >= _LEAST_JOINED and random_looking(joined)
                    if tokenlike and any(a < cut < b for _kind, a, b in reader(joined)):
                        yield "secret", head, tail.end()  # a secret across the break
            at = text.find(needle, at + 1)


_RECOVERY = re.compile("(?i)recovery|backup")
"""What an account's recovery or backup codes and a wallet's recovery words are called
(``recovery code: 73914-28560``), looked for in a short text."""
_HYPHEN_HEAD = re.compile(r"[A-Za-z0-9]-(?: |%0[DdAa]|\\[nr])")
"""A long word that ends in a hyphen (its line's end), or holds one before an escaped line
break: where a token parted over two lines has its first part (nineteen characters or more,
among :func:`arborist._gate.prefilters.long_words`: a text with none is not read for one)."""


def _hyphen_head(longs: str) -> bool:
    """Whether a long word ends in a hyphen after a letter or digit, or holds one before an
    escaped line break: a few ``find``s of the long words, then :data:`_HYPHEN_HEAD` only
    where one was found."""
    if not ("- " in longs or longs.endswith("-") or "-%0" in longs or "-\\" in longs):
        return False
    return _HYPHEN_HEAD.search(longs + " ") is not None


_HYPHEN_BREAKS = ("-\n", "-\r\n", "-%0", "-\\n", "-\\r")
"""What a hyphen that ends a line is followed by (found each by a ``find``): a line break, a
URL's ``%0A``/``%0D%0A``, a JSON string's written ``\\n``."""
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+/=.-")
_MOST_HEAD = 200
_LEAST_JOINED = 20
"""A token parted over two lines is this long at least, joined (and random-looking): prose a
hyphen broke (``measure-``, ``ments``) is not read again."""
_LINE_END_HYPHEN = re.compile(r"-(?:\r?\n|%0[Dd]%0[Aa]|%0[Aa]|\\r\\n|\\n)[ \t]*")
"""A hyphen that ends a line: a line break, or one written as a URL's ``%0A`` or a JSON
string's ``\\n``."""
_LEAST_HEAD = 8


_SEED_WORD = re.compile(r"(?:[a-z]{3,8} ){11}[a-z]{3,8}")
"""Twelve words in lower case in a row: what every seed phrase opens with."""
_WORD_RUN = re.compile(r"(?<![\w'-])(?:[a-z]{3,8} ){11,30}[a-z]{3,8}(?![\w'-])")
_FUNCTION_WORDS = frozenset(
    word_list("""the and for are but not you all any can had her was one our out has him his how its may
        new now old see two who did get let put say she too use that with have this will your
        from they been more when were what there their which would about into than then them
        these some could other only also just like over such very most should where while
        whether must shall here does each because being both same through during before after
        under again further those ours yours itself please thanks hello""")
)
"""Words prose cannot go twelve words without; a wallet's seed phrase holds none of them."""
_SEED_LENGTHS = range(12, 27)
"""A seed phrase's 12 to 24 words (BIP39's lengths), and a word of the sentence on either
side: twelve and more words in a row with none of :data:`_FUNCTION_WORDS` are no prose."""


def _seed_phrases(text: str) -> Iterator[tuple[str, int, int]]:
    """A wallet's seed phrase standing bare in a short text: 12 to 24 words in lower case of
    three to eight letters (BIP39's), none of them a word prose needs."""
    for m in _WORD_RUN.finditer(text):
        at = m.start()
        run: list[tuple[int, int]] = []
        for word in m.group().split(" "):
            if word in _FUNCTION_WORDS:
                yield from _seed_run(run)
                run = []
            else:
                run.append((at, at + len(word)))
            at += len(word) + 1
        yield from _seed_run(run)


def _seed_run(run: list[tuple[int, int]]) -> Iterator[tuple[str, int, int]]:
    if len(run) in _SEED_LENGTHS:
        yield "secret", run[0][0], run[-1][1]


_USER_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_LEAST_PASSWORD = 8
_MOST_ATS = 64


def _bare_userinfo(text: str) -> Iterator[tuple[str, int, int]]:
    """A password in a URL's userinfo whose ``scheme://`` is lost (``default:X@redis-1.example
    .com``, a path's last segment, a copied line): a user, ``:``, a password of 8 to 128
    characters that reads as a password or a random key (a ``mailto:bob@…`` is a word) and
    ``@`` a host with a dot; read back from each ``@``."""
    at = text.find("@")
    for _at in range(_MOST_ATS):
        if at == -1:
            return
        colon = at
        while colon > max(0, at - _MOST_PASSWORD) and text[colon - 1] not in _NOT_PASSWORD:
            colon -= 1
        value = text[colon:at]
        if colon and text[colon - 1] == ":" and len(value) >= _LEAST_PASSWORD:
            user = colon - 1
            while user > max(0, colon - 1 - _MOST_USER) and text[user - 1] in _USER_CHARS:
                user -= 1
            before = text[user - 1] if user else ""
            named = user < colon - 1 and not (before and (before.isalnum() or before in "_.:/%-"))
            named = named and not text[user : colon - 1].replace("-", "").isupper()  # UID:…@
            if named and _HOST.match(text, at + 1) and _reads_as_key(value):
                yield "url_credentials", colon, at
        at = text.find("@", at + 1)


def _reads_as_key(value: str) -> bool:
    return reads_as_password(value) or (random_looking(value) and has_digit(value))


_NOT_PASSWORD = frozenset(" \t\r\n:@/\"'<>")
_MOST_PASSWORD, _MOST_USER = 128, 64
_HOST = re.compile(r"[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")


# --- wallets' private keys ---------------------------------------------------------------

_WALLET_KEY = re.compile(
    rf"(?<![A-Za-z0-9])(?:5[HJK][{_B58}]{{49}}|[KL][{_B58}]{{51}}|[xtyzuv]prv[{_B58}]{{107,108}})"
    r"(?![A-Za-z0-9])"
)
"""A Bitcoin WIF private key (``5H``/``5J``/``5K`` and 49 more, ``K``/``L`` and 51 more), a
BIP32 extended private key (``xprv`` and its kin, 111 or 112 characters): Base58 only, no
``0``, ``O``, ``I`` or ``l``."""
_B58_64 = re.compile(rf"(?<![A-Za-z0-9])[{_B58}]{{86,88}}(?![A-Za-z0-9])")
"""64 bytes in Base58 (a Solana keypair's secret; a transaction's signature is as long)."""
_KEY_WORDS = re.compile(
    r"(?i)(?:keypair|key[ _-]?pair|private[ _-]?key|secret[ _-]?key|wallet|seed|signer)"
    r"[^\n]{0,80}$"
)
"""A word before 64 bytes of Base58 that makes it a key: a keypair, a private or secret key."""
_WIF_SIZE = 51
_B58_64_SIZE = 86


def _wallet_keys(text: str, longs: str) -> Iterator[tuple[str, int, int]]:
    """Wallets' private keys, looked for only when a long word is long enough to hold one
    (51 characters or more) and holds one: searched in those words, then in the text."""
    words = [word for word in longs.split(" ") if len(word) >= _WIF_SIZE]
    if not words:
        return
    if any(_WALLET_KEY.search(word) for word in words):
        for m in _WALLET_KEY.finditer(text):
            key = m.group()
            if random_looking(key) and not key.islower() and not key.isupper():
                yield "private_key", m.start(), m.end()
    if any(len(word) >= _B58_64_SIZE and _B58_64.search(word) for word in words):
        for m in _B58_64.finditer(text):
            key = m.group()
            named = _KEY_WORDS.search(text, max(0, m.start() - 96), m.start()) is not None
            if named and has_digit(key) and not key.islower() and not key.isupper():
                yield "private_key", m.start(), m.end()


# --- a key decoded where it is given ------------------------------------------------------

_DECODING_CALL = re.compile(
    r"(?:bytes\.fromhex|bytearray\.fromhex|unhexlify|a2b_hex|b64decode|b32decode"
    r"|urlsafe_b64decode|Buffer\.from|hex\.DecodeString|StdEncoding\.DecodeString"
    r"|Base64\.(?:getDecoder\(\)\.)?decode|Convert\.FromBase64String|FromHex|atob)"
    r"\(\s*b?([\"'])([A-Za-z0-9+/=_-]{16,})\1"
)
"""A call that decodes a literal key where it is given: Python's, Node's, Go's, Java's, .NET's."""
_GIVEN_TO = re.compile(r"([A-Za-z_][\w.\[\]\"'-]*?)[\"'\]]*[ \t]*(?::=|=|:)[ \t]*[\w.]*$")
"""The name a call's value is given to, read back from the call (``app.secret_key = ``)."""
_CALL_IN_WORD = re.compile(r"\(b?[\"'][A-Za-z0-9+/=_-]{16}")
"""A call given a quoted literal of sixteen characters or more, in one long word."""
_DECODE_LITERALS = (
    "fromhex",
    "unhexlify",
    "a2b_hex",
    "decode",
    "Buffer.from",
    "FromBase64",
    "atob",
)


def _decoded_literals(text: str, longs: str) -> Iterator[tuple[str, int, int]]:
    """The literal a decoding call is given, when the call's value goes to a secret's name."""
    if not _CALL_IN_WORD.search(longs) or not any(lit in longs for lit in _DECODE_LITERALS):
        return
    for m in _DECODING_CALL.finditer(text):
        line = text.rfind("\n", 0, m.start()) + 1
        given = _GIVEN_TO.search(text, max(line, m.start() - 80), m.start())
        if given is None:
            continue
        name = given.group(1).replace("[", ".").replace("]", "").replace('"', "")
        name = name.replace("'", "").rsplit(".", 1)[-1]
        value = m.group(2)
        if secret_name(name) and (has_digit(value) or random_looking(value)):
            yield "secret", m.start(2), m.end(2)

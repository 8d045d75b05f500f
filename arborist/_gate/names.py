"""Values given to a secret's name, in whatever syntax gives them.

Pure: no I/O. A password, secret, token or key is often not recognisable by its shape
but by what it is called: ``DB_PASSWORD=…``, ``"passwd": "…"``, ``secret_key: …``,
``Password=…;`` in a connection string, ``<password>…</password>``, ``<add
key="ApiKey" value="…"/>``. :func:`named_candidates` yields ``(kind, start, end)`` for
each such value; the shapes that need no name are :mod:`arborist._gate.finders`'.
A name's end is found by its literal (:data:`~arborist._gate.shapes.NAME_LITERALS`)
and read backwards (:data:`~arborist._gate.shapes.KEY_END_REVERSED`), so a text is
read once however its names repeat.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import pairwise

from arborist._gate.codes import published_key
from arborist._gate.prefilters import Literals
from arborist._gate.shapes import (
    CODE_REFERENCE,
    KEY_END_REVERSED,
    MIN_VALUE,
    NAME_LITERALS,
    NAME_TAIL,
    NAME_WINDOW,
    PASSWORD_KEYS,
    PAT_WORD,
    SEPARATOR,
    VALUE,
    VALUE_ATTRIBUTE,
    WEAK_KEYS,
    XML_ADD,
    XML_ELEMENT,
    XML_OPEN,
    b64_text,
    printable,
)
from arborist._gate.values import (
    has_digit,
    is_filler,
    random_looking,
    random_part,
    reads_as_passphrase,
    reads_as_password,
)
from arborist._text.text_words import word_list

__all__ = [
    "FOLD_IN_PLACE",
    "MIXED",
    "fold_in_place",
    "named_candidates",
]

Candidate = tuple[str, int, int]


def named_candidates(text: str, found: Literals) -> Iterator[Candidate]:
    """Every value given to a secret's name: by ``=``, ``:``, ``=>``, a no-break space, in
    quotes or bare (an opening quote never closed too), and XML's element and attribute."""
    for given in _assignments(text, found):
        if not published_key(text, given[1], given[2]):  # a KMS client key, a sample's
            yield given
    yield from _xml_values(text, found)


FOLD_IN_PLACE = {
    **{ord(c): c.lower() for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
    ord("\u017f"): "s",  # long s
    ord("\u212a"): "k",  # Kelvin sign
    ord("\u0131"): "i",  # dotless i
    ord("\u0130"): "i",  # dotted capital I
}
"""What ``(?i)`` folds onto the names' ASCII letters, one character for one: positions stay."""
_ASCII_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")
_FOLDED_BEYOND_ASCII = {chr(c): f for c, f in FOLD_IN_PLACE.items() if c > 127}


def fold_in_place(text: str) -> str:
    """``text.translate(FOLD_IN_PLACE)``: its ASCII capitals lowered in its UTF-8 bytes (a
    byte table, where a ``str.translate`` by a dict looked each character up), then each of
    the few others :data:`FOLD_IN_PLACE` folds replaced where it is there at all."""
    folded = text.encode("utf-8", "surrogatepass").translate(_ASCII_LOWER)
    out = folded.decode("utf-8", "surrogatepass")
    for char, into in _FOLDED_BEYOND_ASCII.items():
        if char in out:
            out = out.replace(char, into)
    return out


def _name_ends(text: str, found: Literals) -> Iterator[int]:
    """Where each name holding one of :data:`NAME_LITERALS` ends, in order, each once.

    A literal found is skipped past the end of its name, so a name is read once per
    literal however many times it repeats one (``passwordpassword...``); ``pass`` and
    ``pw`` are read as one literal."""
    folded = found.folded
    ends: set[int] = set()
    for literal, starts in _literal_starts(found):  # "pw": "pass" and "pw"
        after_end = 0
        for at in starts:
            if at < after_end:
                continue
            after = at + (4 if literal == "pw" and folded.startswith("pass", at) else len(literal))
            end = NAME_TAIL.match(text, after).end()  # type: ignore[union-attr]
            if folded[at] not in "_-" or end == after:  # "_pat" ends a name
                ends.add(end)
            after_end = max(end, at + 1)
    yield from sorted(ends)


def _literal_starts(found: Literals) -> Iterator[tuple[str, list[int]]]:
    """Each of :data:`NAME_LITERALS` and its starts, ``pass`` and ``pw`` as one (``pw``, the
    starts of both)."""
    yield "pw", sorted(found.at("pass") + found.at("pw"))
    for literal in NAME_LITERALS:
        if literal[0] != "p":
            yield literal, found.at(literal)


_ANY_KEY_END = re.compile(r"(?i)(?:di[_-])?yek(?:[_-][a-z0-9]|(?![a-z0-9_.-]))")
"""A name that is ``key``, or ends in ``_KEY``/``-key``, or is a key's id (``private_key_id``),
reversed: its value is a secret only when it reads as a random key."""
_CAMEL_KEY = re.compile(r"(?<![A-Za-z0-9])[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)*Key\Z")
"""A camelCase name ending in ``Key`` (``hmacKey``, ``apiSigningKey``): ``hmackey`` folded
reads as one word, where the capital says where ``Key`` begins."""
_RANDOM_VALUE = re.compile(r"[A-Za-z0-9+/=_-]{16,}")
MIXED = re.compile(r"[A-Za-z][0-9]|[0-9][A-Za-z]")
"""A change between a letter and a digit: a random key makes many, a name few."""
_MIN_MIXED = 4
"""A random key changes between letters and digits often; ``user_12345678`` once."""
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _header(text: str, name_end: int) -> bool:
    """Whether the name ending at ``name_end`` is an HTTP header's (``X-Dataverse-Key``)."""
    return _HEADER_NAME.search(text, max(0, name_end - NAME_WINDOW), name_end) is not None


_HEADER_NAME = re.compile(r"(?<![A-Za-z0-9])[Xx]-[A-Za-z0-9-]+\Z")
"""An ``X-`` header's name, ending where the name does (the search is bounded there)."""


def _random_key_value(v: re.Match[str], header: bool = False) -> Iterator[Candidate]:
    """The value of a name such as ``MAPS_KEY``, ``hmac-key``, ``"key"`` or ``private_key_id``,
    when it reads as a key: a run of 16 or more key characters opening it (a file name's
    suffix may follow), random-looking (letters and digits), not a UUID (but a UUID given
    to an ``X-...-Key`` header, a service's API key, is one)."""
    if v.group(2) not in ("=", ":", ":=", "=>"):
        return
    group = v.lastindex or 6
    run = _RANDOM_VALUE.match(v.group(group))
    value = run.group() if run is not None else ""
    if (
        value
        and random_looking(value)
        and any(c.isalpha() for c in value)
        and (header or not _UUID.fullmatch(value))
        and (len(MIXED.findall(value)) >= _MIN_MIXED or random_letters(value))
        and not is_filler(value, "=", quoted=True)
        and not _b64_of_text(value)
        and not _path(value)
    ):
        yield "secret", v.start(group), v.start(group) + len(value)


_CAPITAL_RUNS = re.compile("[A-Z]{2,}")


def random_letters(value: str) -> bool:
    """Whether letters alone read as a random key: twenty or more, changing case at one in
    three or more (``HjkVsVJGkcdIzQvVWOinBRJiRlFBCozr``); a camelCase name changes once a
    word (``ConsumerKeyForTheLegacyPortal``), and has no run of capitals, where random
    letters have several."""
    if len(value) < 20 or not value.isalpha():
        return False
    changes = sum(a.isupper() != b.isupper() for a, b in pairwise(value))
    return 3 * changes >= len(value) and len(_CAPITAL_RUNS.findall(value)) >= 3


def _path(value: str) -> bool:
    """Whether ``value`` is a path: it opens with a folder named by a plain word
    (``uploads/37b0…/avatar``), where base64's ``/`` stands between random characters."""
    head = value.lstrip("/").split("/", 1)
    return len(head) == 2 and len(head[0]) >= 3 and head[0].isalpha() and head[0].islower()


def _b64_of_text(value: str) -> bool:
    """Whether ``value`` is the base64 of printable text: a key is random bytes."""
    decoded = b64_text(value) if len(value) % 4 == 0 else None
    return decoded is not None and printable(decoded)


def _assignments(text: str, found: Literals) -> Iterator[Candidate]:
    """Values given to a password, secret, token or key name: ``name = value``, ``name:
    value``, ``name => value``, a name and a no-break space, ``"name": "value"``."""
    if not ("=" in text or ":" in text) and (text.isascii() or SEPARATOR.search(text) is None):
        return  # every form names, then separates (what VALUE opens with)
    if not any(literal in found for literal in NAME_LITERALS):
        return
    value_end = plain_end = last = -1
    for name_end in _name_ends(text, found):
        if name_end < value_end or name_end == last:  # inside the last value, or seen
            continue
        last = name_end
        m = word = None
        if name_end < plain_end:  # inside another name's value: read only a secret's name
            m, word = _word_at(text, name_end)
            if word is None:
                continue
        v = VALUE.match(text, name_end)  # first: most names in prose are given no value
        if v is None:
            continue
        if m is None:
            m, word = _word_at(text, name_end)
        if word is None:  # not a secret's word: a ``*_KEY`` name's value if random
            name = text[max(0, name_end - NAME_WINDOW) : name_end]
            if m is None and (_ANY_KEY_END.match(name[::-1]) or _CAMEL_KEY.search(name)):
                yield from _random_key_value(v, _header(text, name_end))
            plain_end = v.end()  # names inside this value: only a secret's is read, once
            continue
        given, value_end = _given(text, v, m, word, value_end)  # type: ignore[arg-type]
        if given is not None:
            yield given


def _word_at(text: str, name_end: int) -> tuple[re.Match[str] | None, str | None]:
    """The name ending at ``name_end`` read backwards, and its secret's word (None when
    the name is not a secret's)."""
    m = KEY_END_REVERSED.match(text[max(0, name_end - NAME_WINDOW) : name_end][::-1])
    return m, (_secret_word(text, m, name_end) if m is not None else None)


def _secret_word(text: str, m: re.Match[str], name_end: int) -> str | None:
    """The secret's word a name ends in, lower-case, or None when the name is another word
    that holds it (``bypass``, ``oauth``, ``compat``)."""
    word = m.group("word")[::-1].lower()
    word_start = name_end - m.end()
    if word in WEAK_KEYS and (m.group("suffix") or (word_start and text[word_start - 1].isalnum())):
        return None  # "bypass", "oauth": another word
    if word == PAT_WORD and (m.group("suffix") or text[word_start - 1 : word_start] not in "_-"):
        return None  # "compat", "pat": another word
    return word


def _given(
    text: str, v: re.Match[str], m: re.Match[str], word: str, value_end: int
) -> tuple[Candidate | None, int]:
    """The value :data:`VALUE` found after a secret's name, if it is one, and where the
    next name may start (past a value taken, or at a bare value's end)."""
    value_end = v.end()
    separator = v.group(2)
    group = v.lastindex or 6  # the value's group (3 to 6) is the last that matched
    quoted = group != 6
    weak_colon = word in WEAK_KEYS and separator == ":" and not quoted
    if (separator == "==" and not quoted) or (
        word in WEAK_KEYS and separator != "=" and not (quoted and v.group(1)) and not weak_colon
    ):
        return None, value_end  # a comparison; "pass => X" in prose
    value, start, end = v.group(group), v.start(group), v.end(group)
    said = separator if separator in "=:" else "="
    if (
        quoted and (value[:1] in ",;" or (_NAMES_NEXT.match(text, v.end()) and _a_name(value)))
    ) or (not quoted and start > v.end(2) and _NEXT_ASSIGNMENT.match(value) is not None):
        return None, start  # '"token": "token": "X"', "password= username=admin": a name next;
        # "API_KEY=', base_url='": the quote closed the name's string, nothing was given
    if not quoted:
        stripped = value.rstrip(".,;:)]}>")
        if stripped != value and is_filler(value, said, quoted=False):
            return None, value_end  # <your-password>: a placeholder whole, before its ">" goes
        end -= len(value) - len(stripped)
        if _bare_not_secret(text, m, word, stripped, stripped != value, end):
            return None, end  # a name at a bare value's end is read next: secret: password: X
        value, value_end = stripped, end
    if (
        len(value) < MIN_VALUE
        or is_filler(value, said, quoted=quoted)
        or value.startswith(_PUBLIC_TOKEN)  # Mapbox's pk.eyJ…: made to be shown
        or (word == PAT_WORD and not random_looking(value))
        or (weak_colon and not reads_as_password(value))  # "pass: the tests"; YAML's pass: Zq8v.4
        or (word == "auth" and _mechanisms(value))  # --smtp-auth="PLAIN LOGIN": how, not what
    ):
        return None, value_end
    kind = "password" if word.startswith(PASSWORD_KEYS) else "secret"
    return (kind, start, end), v.end()  # a value taken is skipped whole


def _mechanisms(value: str) -> bool:
    """Whether ``value`` names authentication mechanisms, one or a list (``PLAIN LOGIN
    GSSAPI``, ``cram-md5,plain``, ``Basic``): an ``auth`` setting that says how a client
    signs in, not a secret."""
    words = _LIST_SPLIT.split(value.strip().lower())
    return all(word in _MECHANISMS for word in words)


_LIST_SPLIT = re.compile(r"[\s,]+")
_MECHANISMS = frozenset(
    word_list("""plain login gssapi gss-spnego cram-md5 digest-md5 scram-sha-1 scram-sha-1-plus
        scram-sha-256 scram-sha-256-plus scram-sha-512 ntlm xoauth2 oauthbearer external
        anonymous kerberos_v4 otp skey srp basic digest bearer negotiate none""")
)
"""SASL's registered mechanisms a mail or directory client names, and HTTP's schemes."""


def _bare_not_secret(
    text: str, m: re.Match[str], word: str, value: str, stripped: bool, end: int
) -> bool:
    """Whether a bare (unquoted) value is a name, a reference, a path or a number, code's
    rest, a file's suffix, a PEM's armour or a placeholder before markup."""
    start = end - len(value)
    after_quote = text[start - 1 : start] in ("'", '"')
    empty = text[start - 2 : start] == "= " and text[start - 3 : start - 2].isalnum()
    head = value.split("/", 1)[0]
    if (
        (after_quote and value[:1] in ")]},;")  # "API_KEY=",rotated: the quote closed it
        or (empty and head.isalpha() and head.islower())  # GITHUB_TOKEN= before the run
        or _NOT_A_VALUE.match(value)
        or _TYPE_NAME.fullmatch(value)
        or is_filler(_BEFORE_MARKUP.split(value, 1)[0], "=", quoted=False)
    ):
        return True  # getpass("DB password: "), HF_TOKEN=.txt, -----BEGIN, null</code>, null/
    if stripped and (
        (secret_name(value) and SEPARATOR.match(text, end))
        or (_KEY_NEXT.match(text, end) and value.isidentifier() and not has_digit(value))
    ):
        return True  # "password: secret_key: X": a name, whose value comes next; YAML's next
        # key ("?api_key=valueFrom:" then a line break), not a value
    told = word.startswith(PASSWORD_KEYS) and reads_as_passphrase(value)  # cobalt.copper.ember
    if (CODE_REFERENCE.fullmatch(value) and not random_part(value) and not told) or (
        value.lower() == m.group()[::-1].lower()
    ):
        return True  # password=args.password, token=token: a name, not a value
    if _HCL_REFERENCE.match(value) or (word == "pwd" and value.startswith(("/", "~"))):
        return True  # password = var.db_password: an HCL reference; $PWD, the working folder
    if _FILE_PATH.fullmatch(value):
        return True  # --from-file=password=./db-password.txt: where a secret is kept
    return value.isdigit() and len(value) < 16 and not word.startswith(PASSWORD_KEYS[:3])
    # SQLITE_IOERR_AUTH = 7178, max_token: 256: a number, not a secret


_NOT_A_VALUE = re.compile(
    r"(?:\.[A-Za-z0-9]{1,5})+$|-----|[a-z]+(?:_[a-z0-9]+)+\)|[A-Z][A-Z0-9_]*=$"
    r"|[a-z][a-z_-]*\.html?(?:#\S*)?$"
)
"""A bare value that is a file's suffix (``HF_TOKEN=.txt``, ``API_KEY=.tar.gz``) or a PEM's armour (``-----BEGIN
PUBLIC KEY-----``: a private key's block is found by its own shape), a variable closing a
call (``OpenAI(api_key=api_key)``) or the next name given nothing (``PASSWORD= API_KEY=``, a
file's lines run together in its name), or a page's name (``token → changes.html#v3``). One that opens with a
closing bracket after the quote the name's separator left open is the rest of code after
a quoted prompt (``getpass("DB password: ")``); a word in lower case after a name and ``= ``
is prose after a name given nothing (``set HF_TOKEN= before the run``)."""
_TYPE_NAME = re.compile(
    r"(?:[A-Z][a-z]+)+(?:Str|Bytes|Header|Field|Type|Url|Path|Model|Config|Settings|Bearer|"
    r"Scheme|Credentials|Secret|Token|Key|Auth|Provider|Client|Manager|Form)"
)
"""A type's name, a value's annotation in code (``api_token: SecretStr``, ``api_key:
ApiKeyHeader``): a class's name of capitalised words ending in what it types."""
_BEFORE_MARKUP = re.compile(r"</|/")
"""Where markup or a path's slash ends a bare value: ``api_key: null</code>``'s value is
``null``, and so is ``api_key: null/report.pdf``'s (a name and its empty value in a path)."""
_PUBLIC_TOKEN = ("pk.eyJ",)
"""Tokens made to be public: Mapbox's ``pk.`` (its secret ones are ``sk.``)."""
_FILE_PATH = re.compile(r"(?:\.{1,2}|~)/[\w./-]+|(?:/[\w.-]+)+/[\w-]+\.[A-Za-z]{1,5}")
"""A path: relative (``./``, ``../``, ``~/``), or absolute to a file with an extension
(base64 holds no ``.``)."""
_KEY_NEXT = re.compile(r":[ \t]*(?:\r?\n|\Z)")
"""A colon that ends its line: what stands before it is a YAML key (a name given nothing on
this line), not a value."""
_HCL_REFERENCE = re.compile(r"(?:var|local|module|data|each)\.[A-Za-z_][\w-]*(?:\.[A-Za-z_]\w*)*")
_NAMES_NEXT = re.compile(r"[ \t]*[=:]")
_NEXT_ASSIGNMENT = re.compile(
    r"(?:[a-z][a-z_.-]{2,}|[a-z]+(?:[A-Z][a-z]+)+|[A-Z][A-Z_]{2,})=[^=\s]"
)
"""A bare value, after a space, that is a name given a value (``username=admin``): the name
before it was given nothing on its line, whose break a title or an error line made a space.
A name, not a password: letters and ``_`` in one case (or camelCase), then ``=`` and more."""


def _a_name(value: str) -> bool:
    """Whether a quoted value followed by ``:`` is a name whose value comes next: a secret's
    (``"token": "password": X``) or a key's id (``TOKEN="private_key_id": "2b03...``)."""
    if secret_name(value):
        return True
    return value.replace("-", "_").isidentifier() and _ANY_KEY_END.match(value[::-1]) is not None


def secret_name(name: str) -> bool:
    """True when the whole of ``name`` ends in a secret's word (not a weak one alone)."""
    m = KEY_END_REVERSED.match(name[::-1])
    if m is None:
        return False
    word = m.group("word")[::-1].lower()
    start = len(name) - m.end()
    return word not in WEAK_KEYS or not (m.group("suffix") or (start and name[start - 1].isalnum()))


def _name_kind(name: str) -> str:
    word = KEY_END_REVERSED.match(name[::-1])
    spelled = word.group("word")[::-1].lower() if word is not None else ""
    return "password" if spelled.startswith(PASSWORD_KEYS) else "secret"


_END_TAG = re.compile("</")
"""A closing tag's opening, looked for by the regex engine's scan for its ``<``: a ``find`` of
``</`` stepped over pydoc's many ``/`` and ``o`` (its skip table's collisions), three times
slower on the demo corpus."""


def _xml_values(text: str, found: Literals) -> Iterator[Candidate]:
    """``<password>VALUE</password>`` and a .NET config's ``<add key="DbPassword"
    value="VALUE"/>``."""
    if "<" in text and _END_TAG.search(text) is not None:
        for m in XML_ELEMENT.finditer(text):
            if secret_name(m.group(1)) and not is_filler(m.group(2), "=", quoted=True):
                yield _name_kind(m.group(1)), m.start(2), m.end(2)
    if "<" in text and ">" in text:  # an element whose closing tag is missing
        for m in XML_OPEN.finditer(text):
            value = m.group(2)
            named = secret_name(m.group(1)) and reads_as_password(value)
            if (
                named
                and not is_filler(value, "=", quoted=True)
                and not is_filler(m.group(), "=", quoted=True)
            ):
                # "Bearer <token>_2024-06-11": a placeholder joined to a suffix, no element
                yield _name_kind(m.group(1)), m.start(2), m.end(2)
    if '"' in text and "=" in text and "key" in found and VALUE_ATTRIBUTE.search(found.folded):
        for m in XML_ADD.finditer(text):
            group = m.lastindex or 2  # 3: the closing quote never comes
            value = m.group(group)
            secret = secret_name(m.group(1)) and len(value) >= MIN_VALUE
            if secret and not is_filler(value, "=", quoted=True):
                yield _name_kind(m.group(1)), m.start(group), m.end(group)

"""Passwords and keys code and prose give by place, not after a secret's name and ``=``.

Pure: no I/O. :func:`code_candidates` yields ``(kind, start, end)`` for a key-like string
given to a client's constructor (``cohere.Client("KEY")``), a credential constructor's
password (``NetworkCredential("u", "X")``, ``auth=("u", "X")``), a secret-named string
key's value (``props.put("mail.smtp.password", "X")``), SQL's ``IDENTIFIED BY X``, an
Oracle JDBC URL's ``user/X`` and the tools that take one by place (``b2 account authorize
ID KEY``, ``lftp -u user,X``, ``zip -P X``); :func:`prose_candidates` for a password told
in prose (``my password for the cluster is X``, ``the passphrase is: X``).
:mod:`arborist._gate.finders` runs them beside the other shapes; each pattern is matched
where its literal is, not from every character.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from arborist._gate.commands import flag_lines, tool_lines
from arborist._gate.names import MIXED
from arborist._gate.prefilters import Literals, named_matches, secret_words
from arborist._gate.shapes import (
    MIN_VALUE,
    at_each,
)
from arborist._gate.values import (
    holds_key,
    is_filler,
    random_looking,
    reads_as_passphrase,
    reads_as_password,
)
from arborist._text.text_words import word_list

__all__ = [
    "code_candidates",
    "prose_candidates",
]


def code_candidates(text: str, found: Literals) -> Iterator[tuple[str, int, int]]:
    """Passwords and keys code gives by place, not by an ``=``: a key-like string given to a
    client's constructor (``weather.NewClient("KEY")``), a credential constructor's password
    (``new NetworkCredential("user", "X")``, ``auth=("user", "X")``), a secret-named string
    key's value (``props.put("mail.smtp.password", "X")``), SQL's ``IDENTIFIED BY X``, an
    Oracle JDBC URL's ``user/X``, and the tools that take one by place or by their own flag
    (``b2 account authorize ID KEY``, ``lftp -u user,X``, ``zip -P X``)."""
    folded = found.folded
    if "(" in text and "lient" in text:
        for m in _at_literal(text, "lient", 1, _CLIENT_KEY):
            key = m.group(1)
            keylike = len(key) >= _CLIENT_KEY_LONG or len(MIXED.findall(key)) >= _CLIENT_KEY_MIXED
            if keylike and holds_key(key) and random_looking(key) and not _HEX.fullmatch(key):
                yield "api_token", m.start(1), m.end(1)
    if "(" in text and _credential_call_named(text, found):
        for m in _CREDENTIAL_CALL.finditer(text):  # "Author" is no such call
            yield from _quoted_password(m)
    words = secret_words(found, keys=False)
    if words and _QUOTE_COMMA.search(text) is not None:
        for m in named_matches(text, words, _NAMED_PAIR, quotes="\"'"):
            value = m.group(m.lastindex or 2)
            if reads_as_password(value) or holds_key(value):
                yield from _quoted_password(m)
    if "identified" in found:
        for m in at_each(text, found.at("identified"), _IDENTIFIED_BY):
            if not _sql_account_before(text, m.start()):
                continue  # "the table identified by sqlite_stat1.tbl": prose names a thing
            if m.lastindex != 3 or reads_as_password(m.group(3)):  # bare: "identified by name"
                yield from _quoted_password(m)
    if "password '" in folded:  # PostgreSQL's CREATE USER u WITH PASSWORD 'X'
        for m in _WITH_PASSWORD.finditer(text):
            if not is_filler(m.group(1), "=", quoted=True):
                yield "password", m.start(1), m.end(1)
    if "jdbc:oracle:" in folded:
        for m in _ORACLE_JDBC.finditer(text):
            if not is_filler(m.group(1), "=", quoted=False):
                yield "password", m.start(1), m.end(1)
    if "authorize" in found and "b2" in found:
        for m in _B2_AUTHORIZE.finditer(text):
            if holds_key(m.group(1)) and not is_filler(m.group(1), "=", quoted=False):
                yield "api_token", m.start(1), m.end(1)
    if "lftp" in found:
        for m in tool_lines(text, folded, _LFTP, _LFTP_HEAD, _LFTP_USER):
            yield from _quoted_password(m)
    if "-p" in found and "zip" in folded and "-P" in text:  # on the lines holding a "-P"
        for start, end in flag_lines(text, found.at("-p")):
            for m in tool_lines(text, folded, _ZIP, _ZIP_HEAD, _ZIP_P, start, end):
                yield from _quoted_password(m)


_QUOTE_COMMA = re.compile(",(?<=[\"'],)|,(?<=[\"'] ,)")
"""A quote and a comma, a space between them or not (``"user", "X"``): found from the comma
and read behind, one scan that stops at the first, where an ``in`` of each of the four
read the whole text for those a text does not hold."""


def _at_literal(
    text: str, literal: str, back: int, pattern: re.Pattern[str]
) -> Iterator[re.Match[str]]:
    """``pattern`` matched ``back`` characters before each ``literal`` found (``lient``, what
    both ``Client`` and ``client`` hold), not from every character."""
    at = text.find(literal, back)
    while at != -1:
        m = pattern.match(text, at - back)
        if m is not None:
            yield m
        at = text.find(literal, max(at + 1, m.end() if m is not None else 0))


def _credential_call_named(text: str, found: Literals) -> bool:
    """Whether ``text`` names a credential's constructor or ``auth``: ``Credential``,
    ``Auth(``, ``Authentication(``, ``auth=``, ``auth =`` (looked for only where the
    case-folded text holds ``credential`` or ``auth``, which each of them holds: read at
    those places, where an ``in`` of each read the whole text)."""
    return any(text.startswith("Credential", at) for at in found.at("credential")) or any(
        text.startswith(_AUTH_CALLS, at) for at in found.at("auth")
    )


_AUTH_CALLS = ("Auth(", "Authentication(", "auth=", "auth =")


def _quoted_password(m: re.Match[str]) -> Iterator[tuple[str, int, int]]:
    """The value of ``m``'s last group that matched (quoted, or bare as the last group), when
    it is not a placeholder and long enough to be a password."""
    group = m.lastindex or 1
    value = m.group(group)
    quoted = m.string[m.start(group) - 1] in "'\""
    word = not quoted and value.isalpha() and value.islower()  # "zip -P would put it ..."
    if len(value) >= MIN_VALUE and not word and not is_filler(value, "=", quoted=quoted):
        yield "password", m.start(group), m.end(group)


_WITH_PASSWORD = re.compile(
    r"(?i)(?:create|alter)[ \t]+(?:user|role)[ \t]+\S+[ \t]+(?:with[ \t]+)?(?:\w+[ \t]+){0,3}?"
    r"(?:encrypted[ \t]+)?password[ \t]+'([^'\r\n]+)'"
)
"""PostgreSQL's ``CREATE USER u WITH [LOGIN] PASSWORD 'X'`` and ``ALTER ROLE``."""
_QUOTED = r"""(?:"([^"\r\n]*)"?|'([^'\r\n]*)'?|([^\s'"]+))"""
"""A value in double or single quotes (the closing one may be missing: a line cut short) or
bare: three groups, the bare one last."""
_CLIENT_KEY = re.compile(r"[Cc]lient[ \t]*\([ \t]*[\"']([A-Za-z0-9_-]{20,})(?![A-Za-z0-9_+/=-])")
_CLIENT_KEY_LONG = 32
_CLIENT_KEY_MIXED = 8
"""A client constructor given a key-like string first (``cohere.Client("KEY")``, Go's
``NewClient("KEY")``): twenty key characters or more, letters and digits mixed, and long
(:data:`_CLIENT_KEY_LONG`) or changing between them often (:data:`_CLIENT_KEY_MIXED`): a
name with a few digits (``Client("Harbor7Lantern9Quay3")``) is a name. A hash's hex (a commit,
a UUID) or base64 (``+``, ``/``, ``=`` after it: ``sha512-…``, the base64 of text) is an id."""
_HEX = re.compile("[0-9A-Fa-f-]+")
_CREDENTIAL_CALL = re.compile(
    r"(?:(?:Network|Password|Basic|Static)?Credentials?|PasswordAuthentication|HTTP(?:Basic|Digest)"
    r"Auth|Http(?:Basic|Digest)Auth|(?<![\w.])auth[ \t]*=)[ \t]*\(?[ \t]*"
    r"(?:\"[^\"\r\n]*\"|'[^'\r\n]*'|[A-Za-z_][\w.]*)[ \t]*,[ \t]*"
    r"(?:\"([^\"\r\n]*)\"?|'([^'\r\n]*)'?)"
)
"""A credential constructor's password, its second argument, a string: ``new
NetworkCredential("user", "X")``, Java's ``PasswordAuthentication``, Apache's
``UsernamePasswordCredentials``, requests' ``HTTPBasicAuth("u", "X")`` and ``auth=("u",
"X")``."""
_NAMED_PAIR = re.compile(
    r"(?i)[\"'][\w.-]*(?:pass(?:word|wd|phrase)?|pwd|secret|token)[\"'][ \t]*,[ \t]*"
    r"(?:\"([^\"\r\n]*)\"?|'([^'\r\n]*)'?)"
)
"""A secret-named string key, then its value, a string: ``props.put("mail.smtp.password",
"X")``, ``setProperty``, ``conf.set``, a pair in a list. Only a password-like value (a list
of names, ``("user", "password", "email")``, holds none)."""
_IDENTIFIED_BY = re.compile(
    r"(?i)identified[ \t]+(?:with[ \t]+\w+[ \t]+)?by[ \t]+(?:password[ \t]+)?" + _QUOTED
)
"""SQL's ``CREATE USER u IDENTIFIED BY X`` / ``ALTER USER``, MySQL's ``IDENTIFIED WITH
plugin BY 'X'``; only after an account (:func:`_sql_account_before`)."""


def _sql_account_before(text: str, at: int) -> bool:
    """Whether ``IDENTIFIED`` at ``at`` follows the account SQL gives a password to: a MySQL
    account or a quoted name (``'app'@'%'``, ``"report"``, the end of ``"Bob Smith"``: a
    list's next one too, after a comma), a name after ``USER``, ``ROLE`` or ``IF NOT EXISTS`` (``CREATE USER scott``, not
    ``the user is identified by``), or after ``TO`` in a ``GRANT`` or a database link's
    ``CONNECT TO``. Prose says what else a thing is identified by (``the table identified by
    sqlite_stat1.tbl``, ``columns identified by "aOrderBy"``, ``the problem is identified by
    CVE-2022-35737``): a name, not a password. Read backwards from ``at``, at most
    :data:`_ACCOUNT_WINDOW` characters."""
    head = text[max(0, at - _ACCOUNT_WINDOW) : at]
    m = _ACCOUNT_REVERSED.match(head[::-1])
    if m is None:
        return False
    name = m.group("name")[::-1]
    keyword = (m.group("keyword") or "")[::-1].lower()
    if "@" in name or name[:1] in "'\"`" or name[-1:] in "'\"`":  # "Bob Smith": its end
        return True
    if keyword in ("user", "role", "exists"):
        return name.lower() not in _NOT_AN_ACCOUNT
    return keyword == "to" and _GRANT_OR_CONNECT.search(head) is not None


_ACCOUNT_WINDOW = 240
"""How far back from ``IDENTIFIED`` its account and a ``GRANT`` are looked for."""
_ACCOUNT_REVERSED = re.compile(
    r"[\s+]+(?P<name>[^\s;,+]{1,128})(?:[\s+]+(?P<keyword>[A-Za-z]{2,6})(?![\w]))?"
)
"""The word before ``IDENTIFIED`` and the keyword before it, reversed: spaces or a form's
``+`` between them."""
_NOT_AN_ACCOUNT = frozenset(
    word_list("""is are was were be been being not also only then now first still always usually
        can could may might must shall should will would""")
)
"""What prose puts between a user and ``identified`` (``the user is identified by``)."""
_GRANT_OR_CONNECT = re.compile(r"(?i)(?<![\w])(?:grant|connect)(?![\w])")
_ORACLE_JDBC = re.compile(r"(?i)jdbc:oracle:(?:thin|oci8?):[^/@\s:\"']+/([^@\s\"'<>]+)")
"""An Oracle JDBC URL's ``user/password[@host]``."""
_B2_AUTHORIZE = re.compile(
    r"(?i)(?<![A-Za-z0-9])b2[ \t]+(?:account[ \t]+authorize|authorize[-_]account)"
    r"(?:[ \t]+-{1,2}[\w-]+)*[ \t]+[\"']?[0-9A-Za-z]{10,}[\"']?[ \t]+[\"']?([A-Za-z0-9+/_-]{20,})"
)
"""Backblaze B2's ``b2 account authorize KEY_ID APP_KEY`` (``b2 authorize-account``)."""
_LFTP_USER = re.compile(
    r"(?i)(?<![A-Za-z0-9])lftp(?![\w-])[^\n]*?(?<!\S)-u[ \t]+[\"']?[^\s,'\"]+,"
    r"(?:\"([^\"\r\n]*)\"?|'([^'\r\n]*)'?|([^\s'\"]+))"
)
"""``lftp -u user,PASSWORD``."""
_LFTP = re.compile("lftp")
_LFTP_HEAD = re.compile(r"(?i)(?<![A-Za-z0-9])lftp(?![\w-])")
_ZIP = re.compile("(?:un)?zip")
_ZIP_HEAD = re.compile(r"(?<![A-Za-z0-9])(?:un)?zip(?:cloak)?(?![\w-])")
_ZIP_P = re.compile(
    r"(?<![A-Za-z0-9])(?:un)?zip(?:cloak)?(?![\w-])[^\n]*?(?<!\S)-P[ \t]+" + _QUOTED
)
"""zip's and unzip's ``-P PASSWORD`` (a capital ``P``, given after a space)."""


def prose_candidates(text: str, found: Literals) -> Iterator[tuple[str, int, int]]:
    """A password told in prose: ``my password for the cluster is X`` (a password-like word)
    or ``the passphrase is: X`` (what follows the colon, to its sentence's end, at most
    :data:`_PROSE_WORDS` words).
    ``the password is stored in the vault`` tells none."""
    if "pass" not in found or " is" not in found.folded:
        return
    for m in at_each(text, found.at("pass"), _PROSE_PASSWORD):
        if m.group(1):  # "is:": what follows, to the sentence's end, its first few words
            value = _SENTENCE_END.split(m.group(2), 1)[0].rstrip(".,;:)!?")
            value = " ".join(value.split(" ")[:_PROSE_WORDS]).rstrip(".,;:)!?")
            if len(value) < MIN_VALUE:
                continue
        else:  # one word, password-like
            value = m.group(2).split()[0].rstrip(".,;:)")
            if not (reads_as_password(value) or reads_as_passphrase(value)):
                continue
        if not is_filler(value, "=", quoted=False):
            yield "password", m.start(2), m.start(2) + len(value)


_PROSE_PASSWORD = re.compile(
    r"(?i)pass(?:word|phrase|code|wd)(?:[ \t]+[\w'-]+){0,8}?[ \t]+is(:)?[ \t]+(\S[^\r\n]*)"
)
_PROSE_WORDS = 6
"""At most this many words after ``is:`` are taken: a passphrase's, before a sentence goes on."""
_SENTENCE_END = re.compile(r"[.?!;,]?[ \t]+-[ \t]|[.?!;,](?:[ \t]|$)|[<`\"()\[\]{}|]")
"""Where a value told in prose ends: a sentence's or a clause's end, a dash between spaces
(a page's title goes on), markup, a quote or a bracket."""

"""What a text is searched for secrets in: its long, random-looking words.

Pure: no I/O. No vendor token, webhook or AWS secret is shorter than
:data:`_LONG_WORD` characters, so :mod:`arborist._gate.finders` looks for their
literals in :func:`long_words`'s words (a few percent of most text), not the whole
text, and a text with none of them is not searched for those secrets at all.
:func:`word_matches` finds a secret's word by ``find``, not by an alternation's scan.
:func:`visible_view` and :func:`decoded_view` are a text without its invisible characters
and with its percent-escapes decoded, with the map back to the text's own positions.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence

from arborist._gate.shapes import INVISIBLE

__all__ = [
    "AWS_SECRET_SIZE",
    "ESCAPE",
    "INVISIBLE_CHARS",
    "Literals",
    "SHARED",
    "decoded_view",
    "from_view",
    "has_long",
    "long_words",
    "named_matches",
    "secret_words",
    "through_views",
    "trie",
    "visible_view",
]

_LONG_WORD = 20
"""No vendor token, webhook or AWS secret is shorter: the words this long, joined, are
where their literals are looked for (a few percent of most text), not the whole text,
and a text with none of them is not searched for those secrets at all."""
AWS_SECRET_SIZE = 40
"""An AWS secret access key's length: a word at least this long holds it."""
_SPACE = re.compile(r"\s")
_PIECE = 1 << 20
_MARKS = bytes(32 if c < 128 and chr(c).isspace() else 120 for c in range(256))
"""A byte table: what ``str.split`` takes for whitespace (ASCII's, with ``\\x1c``-``\\x1f``) to a
space, every other byte (a UTF-8 sequence's included) to ``x``."""
_LONG_RUN = b"x" * _LONG_WORD


def long_words(text: str) -> str:
    """The words of :data:`_LONG_WORD` characters or more that could hold a token, joined
    by spaces: in ASCII, those with a digit or letters of both cases (every token, key
    or signed value the callers look for is random-looking so; pydoc's rules of dashes
    and ``__getattribute__(self,`` are not), in other text every long word.

    The text is read a piece of about 1 MiB at a time, each piece ending at a space so
    no word is cut and a big document is never copied whole. An ASCII piece (most of
    them) is read through a copy in which every whitespace byte is a space and every
    other byte an ``x``: each long word is found there with a ``find`` of
    :data:`_LONG_RUN`, the fast substring search, rather than by splitting the piece
    into words and measuring each (docs/design.md section 8). Another piece is read the
    same way through its UTF-8 copy (a UTF-8 sequence holds no ASCII byte, so a run is
    whole characters, and a word of 20 characters is at least 20 bytes), and only its
    long runs are split into words, where the whole piece was before.
    """
    found: list[str] = []
    start, size = 0, len(text)
    while start < size:
        end = start + _PIECE
        if end < size:
            space = _SPACE.search(text, end)
            end = space.start() if space else size
        piece = text[start:end] if start or end < size else text
        start = end
        if piece.isascii():
            found += _long_ascii_words(piece)
        else:
            for run in _long_runs(piece.encode("utf-8", "surrogatepass")):
                words = run.decode("utf-8", "surrogatepass").split()  # U+3000, U+00A0 part too
                found += [word for word in words if len(word) >= _LONG_WORD]
    return " ".join(found)


def _long_runs(data: bytes) -> list[bytes]:
    """The runs of :data:`_LONG_WORD` bytes or more between whitespace bytes of ``data``
    (ASCII's; a UTF-8 sequence holds none, so a run is whole characters): found with a
    ``find`` of :data:`_LONG_RUN` in a copy marked by :data:`_MARKS`."""
    marks = data.translate(_MARKS)
    runs = []
    at = marks.find(_LONG_RUN)
    while at != -1:
        first = marks.rfind(b" ", 0, at) + 1
        last = marks.find(b" ", at)
        last = len(marks) if last == -1 else last
        runs.append(data[first:last])
        at = marks.find(_LONG_RUN, last)
    return runs


def _long_ascii_words(piece: str) -> list[str]:
    """:func:`_long_runs` of an ASCII piece that could hold a token: a digit in it, or both
    cases."""
    words = []
    for run in _long_runs(piece.encode("ascii")):
        word = run.decode("ascii")
        if word.lower() != word != word.upper() or _ASCII_DIGIT.search(word) is not None:
            words.append(word)
    return words


_ASCII_DIGIT = re.compile("[0-9]")


def has_long(longs: str, size: int) -> bool:
    """Whether one of :func:`long_words`'s words is ``size`` characters or more."""
    return len(longs) >= size and any(len(word) >= size for word in longs.split(" "))


class Literals:
    """Where literals stand in one text's case-folding (``folded``), each literal looked for
    once however many finders ask: the names' words (``pass``, ``secret``, ``token``,
    ``key``) are asked for by five families of shapes, which each read the whole text for
    them on their own before. The literals of :data:`SHARED` that open with the same
    character are found together, by one scan (:data:`_GROUPS`), and a literal holding one
    of them is read from its starts (``htpasswd`` from those of ``pass``), not looked for
    again."""

    __slots__ = ("_short", "_starts", "folded")

    def __init__(self, folded: str) -> None:
        self.folded = folded
        self._starts: dict[str, list[int]] = {}
        self._short = len(folded) < _SHORT_TEXT

    def at(self, literal: str) -> list[int]:
        """Every start of ``literal`` in :attr:`folded`, in order: in a short text by a
        ``find`` from each start's next character (:data:`_SHORT_TEXT`); else with the other
        literals of its group (:data:`_GROUPS`), from the starts of a literal of
        :data:`SHARED` it holds, from a rarer character inside it (:data:`_LED`), or else by
        a regex's ``finditer`` for a short literal that cannot overlap itself (where
        ``str.find`` for a short needle stops at each of its first character), a ``find``
        from each start's next character for one that can or a long one
        (:data:`_FIND_FROM`)."""
        starts = self._starts.get(literal)
        if starts is None and self._short:  # a few characters: a find costs less than a scan
            folded = self.folded
            at = folded.find(literal)
            if at == -1:  # most finds of a short text fail: the one empty list, not stored
                return _NONE
            starts = self._starts[literal] = []
            while at != -1:  # _overlapping's loop, inline
                starts.append(at)
                at = folded.find(literal, at + 1)
        elif starts is None:
            group = _GROUPS.get(literal)
            if group is not None:
                self._found_together(*group)
                return self._starts[literal]
            held = self._held(literal) if literal not in _SOLO else None
            if held is not None:
                offset = literal.find(held)
                folded = self.folded
                starts = [
                    at - offset
                    for at in self.at(held)
                    if at >= offset and folded.startswith(literal, at - offset)
                ]
            elif literal in _LED:
                lead, pattern = _LED[literal]
                starts = [m.start() - lead for m in pattern.finditer(self.folded)]
            else:
                finder = _FINDERS[literal] if literal in _FINDERS else _finder(literal)
                if finder is not None and len(literal) < _FIND_FROM:
                    starts = [m.start() for m in finder.finditer(self.folded)]
                else:
                    starts = _overlapping(self.folded, literal)
            self._starts[literal] = starts
        return starts

    def __contains__(self, literal: str) -> bool:
        return bool(self.at(literal))

    def pattern_starts(self, pattern: re.Pattern[str], heads: str = "") -> list[int]:
        """Every start of ``pattern``'s matches in :attr:`folded`, found once however many
        families ask (a pattern of a password's names in other scripts). ``heads``, when
        given, holds a character every match opens with: a text holding none of them is not
        scanned (a ``find`` of one character each, where the pattern's scan tests every
        character against its class of first characters)."""
        key = "\0" + pattern.pattern  # no literal opens with a NUL
        starts = self._starts.get(key)
        if starts is None:
            folded = self.folded
            if heads and not any(head in folded for head in heads):
                starts = self._starts[key] = []
            else:
                starts = self._starts[key] = [m.start() for m in pattern.finditer(folded)]
        return starts

    def _found_together(self, finder: re.Pattern[str], members: tuple[str, ...]) -> None:
        """The starts of every one of ``members``, by one scan of ``finder``, their
        alternation."""
        found: dict[str, list[int]] = {member: [] for member in members}
        for m in finder.finditer(self.folded):
            found[m.group()].append(m.start())
        self._starts.update(found)

    def _held(self, literal: str) -> str | None:
        """A literal of :data:`SHARED` that ``literal`` (not one of them) holds: its starts
        are where to read ``literal``'s from."""
        held = _HELD.get(literal)
        if held is None:
            held = _HELD[literal] = next((shared for shared in SHARED if shared in literal), "")
        return held or None


SHARED = (
    *("adb", "alarm", "card", "carte", "community", "cvv", "código", "kart", "licen"),
    "snmp",  # with the line above, arborist/_gate/codes.py's cues
    "-a",
    "-d",
    "-p",
    "-u",
    "-w",
    "/hook",
    "/p:",
    "/pass:",
    "/password:",
    "/pwd:",
    "/webhook",
    "2fa",
    "account",
    "appid=",
    "auth",
    "b2",
    "backup",
    "basic",
    "bearer",
    "begin",
    "benutzer",
    "clave",
    "clé",
    "code",
    "combination",
    "contrase",
    "cookie",
    "credential",
    "creds",
    "cyfrin",
    "get you",
    "gets you",
    "kata ",
    "kennwort",
    "key",
    "kode",
    "lftp",
    "log in",
    "log-in",
    "login",
    "logon",
    "losen",
    "lozink",
    "machine",
    "manually",
    "mat kh",
    "mc",
    "mdp",
    "metamask",
    "mfa",
    "mnemonic",
    "otp",
    "palavra",
    "parol",
    "part",
    "pass",
    "paswo",
    "phrase",
    "pin",
    "priv",
    "prompt",
    "psk",
    "puk",
    "pw",
    "recovery",
    "sana",
    "sandi",
    "schl",
    "secret",
    "security",
    "seed",
    "senha",
    "shared",
    "sign in",
    "sign-in",
    "signer",
    "signin",
    "slo",
    "specific",
    "token",
    "two-factor",
    "use ",
    "user",
    "wallet",
    "wifi",
    "wlan",
    "woord",
    "words",
)
"""The literals the families ask of most texts, found a group at a time: those opening with
the same character by one scan of their alternation, a :func:`trie` (the regex engine reads
it as the character and then the rest, and scans for that character as fast as for a
literal of one), where each was a scan of the whole text of its own. No one of them is a
prefix of another of its group, nor can start inside a match of one (:func:`_grouped`): the
alternation's matches are then every start of every one. One alone in its group is found
on its own (:data:`_SOLO`)."""


def trie(words: list[str]) -> str:
    """``words`` as one regex that branches a character at a time (``p(?:at(?:[-.])?|...)``),
    the longest word matching where several do: sre tries an alternation branch by branch,
    so a flat list of a hundred literals costs a hundred tries at each character, a trie
    a few."""
    heads: dict[str, list[str]] = {}
    for word in words:
        heads.setdefault(word[0], []).append(word[1:])
    branches = []
    for head, tails in sorted(heads.items()):
        rest = [t for t in tails if t]
        inner = trie(rest) if rest else ""
        if rest and len(rest) < len(tails):
            inner = f"(?:{inner})?"  # a word ends here, a longer one may go on
        branches.append(re.escape(head) + inner)
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


def _grouped(literals: tuple[str, ...]) -> dict[str, tuple[re.Pattern[str], tuple[str, ...]]]:
    """Each of ``literals`` and its group's alternation and members: the literals opening
    with its character. Raises ValueError for a group whose alternation would miss a start
    (a member a prefix of another, or one starting inside a match of one)."""
    by_head: dict[str, list[str]] = {}
    for literal in literals:
        by_head.setdefault(literal[0], []).append(literal)
    groups: dict[str, tuple[re.Pattern[str], tuple[str, ...]]] = {}
    for members in by_head.values():
        for a in members:
            for b in members:
                inside = any(b.startswith(a[i:]) or a[i:].startswith(b) for i in range(1, len(a)))
                if inside or (a != b and a.startswith(b)):
                    raise ValueError(f"{b!r} may start inside {a!r}: not one scan")
        if len(members) == 1:
            continue  # a literal alone: found as any other (:data:`_SOLO`)
        group = (re.compile(trie(members)), tuple(members))
        groups.update(dict.fromkeys(members, group))
    return groups


_GROUPS = _grouped(SHARED)
_SOLO = frozenset(SHARED) - frozenset(_GROUPS)
"""The literals of :data:`SHARED` alone in their group (``recovery``): each found on its own,
not read from the starts of a literal it holds (itself)."""
_NONE: list[int] = []
"""What :meth:`Literals.at` gives for a literal a short text does not hold: one list for all,
which no caller changes (each reads the starts, or adds them into a list of its own)."""
_SHORT_TEXT = 400
"""In a text shorter than this (a title, a URI, a question) each literal is found by a
``find`` of its own: the scans of its group and the reading of the literals held cost more
in steps of Python than they save (a title: 38 us for the literals the families ask, 16 us
by ``find``; even at 600 characters)."""
_FIND_FROM = 5
"""A literal this long or longer that may not overlap itself is found by ``str.find`` from
each start's next character, not by a regex's ``finditer``: the substring search skips
ahead by the needle's length where it cannot match, and on the demo corpus ``identified``
or ``recovery`` cost half as much as a regex's scan, which steps a character at a time."""
_HELD: dict[str, str] = {}
"""Each literal :meth:`Literals.at` was asked for outside :data:`SHARED` and the first one of
them it holds, or ``""`` (``-pat``: ``-p``; ``htpasswd`` and ``password``: ``pass``;
``authorization``: ``auth``)."""


_LED = {
    literal: (lead, re.compile(f"{re.escape(literal[lead:])}(?<={re.escape(literal)})"))
    for literal, lead in (("token", 2),)
}
"""Literals found from a rarer character inside them (``token`` from its ``k``), the rest read
behind it: the regex engine's scan stops at few places, where a ``find`` stepped through
most of pydoc's text (0.68 ms on the demo corpus, where the ``find`` took 1.06). A literal
here overlaps no occurrence of itself, so each match is one occurrence."""
_FINDERS: dict[str, re.Pattern[str] | None] = {}
"""Each literal :meth:`Literals.at` was asked for and its regex (None for a literal that
may overlap itself, which a regex's scan would step over)."""


def _finder(literal: str) -> re.Pattern[str] | None:
    overlaps = any(literal.startswith(literal[i:]) for i in range(1, len(literal)))  # "abab"
    finder = _FINDERS[literal] = None if overlaps else re.compile(re.escape(literal))
    return finder


def _overlapping(folded: str, literal: str) -> list[int]:
    starts = []
    at = folded.find(literal)
    while at != -1:
        starts.append(at)
        at = folded.find(literal, at + 1)
    return starts


def secret_words(found: Literals, *, keys: bool) -> list[int]:
    """Where a secret's word starts in ``found``'s text, in order: ``pass``, ``pwd``,
    ``secret``, ``token``, and with ``keys`` ``api``, ``access`` and ``private`` before
    ``key`` (an ``_`` or ``-`` between them or not), each read back from its ``key``."""
    folded = found.folded
    starts = found.at("pass") + found.at("secret") + found.at("token")
    starts += [at for at in found.at("pw") if folded.startswith("d", at + 2)]
    if keys:
        for key in found.at("key"):
            sep = key - 1 if key and folded[key - 1] in "_-" else key
            for head in ("api", "access", "private"):
                if sep >= len(head) and folded.startswith(head, sep - len(head)):
                    starts.append(sep - len(head))
    return sorted(starts)


def named_matches(
    text: str, words: list[int], pattern: re.Pattern[str], *, quotes: str = ""
) -> Iterator[re.Match[str]]:
    """``pattern`` matched from the start of each name holding one of ``words`` (a secret's
    word's starts, :func:`secret_words`), the name read back over ``[\\w.-]``; with
    ``quotes``, from the quote before it, which must be one of them. A name is read back
    once (to the last word's start at most) and never into the last match."""
    done = 0
    last = -1  # the last word's start: a name read back to it was read from there already
    for at in words:
        last_at, last = last, at
        if at < done:
            continue
        start = at
        while start > max(done, last_at) and _name_char(text[start - 1]):
            start -= 1
        if start == last_at:
            continue  # the same name as the last word's: read
        if quotes:
            if start <= done or text[start - 1] not in quotes:
                continue
            start -= 1
        elif start and _name_char(text[start - 1]):
            continue  # inside the last match
        m = pattern.match(text, start)
        if m is not None:
            yield m
            done = m.end()


def _name_char(char: str) -> bool:
    return char.isalnum() or char in "_.-"


# --- views: a text without its invisible characters, or with its escapes decoded ----------


def visible_view(text: str) -> tuple[str, list[tuple[int, int]]] | None:
    """``text`` without its invisible characters, and where each piece of it was
    (``(start in the result, start in text)``); None when it has none."""
    if text.isascii() or not any(char in text for char in INVISIBLE_CHARS):
        return None
    pieces: list[tuple[int, int]] = []
    parts: list[str] = []
    pos = out = 0
    for m in INVISIBLE.finditer(text):
        if m.start() > pos:
            pieces.append((out, pos))
            parts.append(text[pos : m.start()])
            out += m.start() - pos
        pos = m.end()
    pieces.append((out, pos))
    parts.append(text[pos:])
    return "".join(parts), pieces


INVISIBLE_CHARS = tuple(
    chr(c) for c in range(0xAD, 0xFEFF + 1) if INVISIBLE.fullmatch(chr(c)) is not None
)
""":data:`INVISIBLE`'s characters, each looked for by a ``find`` (a ``memchr`` of one of its
bytes), where the class's search tests every character of the text."""


def from_view(pieces: Sequence[tuple[int, int]], at: int) -> int:
    """A position in the visible text as a position in the original."""
    i = bisect.bisect_right(pieces, (at, 1 << 62)) - 1
    out, orig = pieces[max(i, 0)]
    return orig + (at - out)


ESCAPE = re.compile(
    "%[2-7][0-9A-Fa-f]|%[CcDd][0-9A-Fa-f]%[89ABab][0-9A-Fa-f]"
    "|%[Ee][0-9A-Fa-f](?:%[89ABab][0-9A-Fa-f]){2}|%[Ff][0-4](?:%[89ABab][0-9A-Fa-f]){3}"
)
"""A percent-escape of a printable ASCII character (``%20``, ``%3D``, ``%2B``), or the
escapes of one UTF-8 character (``%C3%B1``, ``ñ``: ``contrase%C3%B1a``)."""


def _unescaped(escape: str) -> str:
    """The character an :data:`ESCAPE` match stands for (its bytes as UTF-8; a sequence
    that is not UTF-8 stays as it was)."""
    try:
        return bytes.fromhex(escape.replace("%", "")).decode("utf-8")
    except UnicodeDecodeError:
        return escape


def decoded_view(text: str) -> tuple[str, list[tuple[int, int]]] | None:
    """``text`` with each :data:`ESCAPE` decoded, and where each piece of it was (as
    :func:`visible_view` gives it); None when it has none. A URL's query or a file's URI
    carries ``token%20ghp_...`` or ``password%3D...``: their secrets are looked for here too.
    """
    if "%" not in text or ESCAPE.search(text) is None:
        return None
    pieces: list[tuple[int, int]] = []
    parts: list[str] = []
    pos = out = 0
    for m in ESCAPE.finditer(text):
        if m.start() > pos:
            pieces.append((out, pos))
            parts.append(text[pos : m.start()])
            out += m.start() - pos
        pieces.append((out, m.start()))
        char = _unescaped(m.group())
        parts.append(char)
        out += len(char)
        pos = m.end()
    pieces.append((out, pos))
    parts.append(text[pos:])
    return "".join(parts), pieces


def through_views(
    layers: Sequence[tuple[int, list[tuple[int, int]]]], start: int, end: int, size: int
) -> tuple[int, int]:
    """A span of the last decoded view as a span of the original text, back through each
    round: an end is where the next character starts, so an escape is covered whole."""
    for before, pieces in reversed(layers):
        start, end = (
            from_view(pieces, start),
            (from_view(pieces, end) if end < size else before),
        )
        size = before
    return start, end

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

import ahocorasick_rs

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


class Literals(dict[str, list[int]]):
    """Where literals stand in one text's case-folding (``folded``), all of them found by one
    pass: an Aho-Corasick automaton of every literal the families have asked of any text
    (:data:`SHARED` and those learnt since; a DFA, ``ahocorasick_rs``) reads the text once and
    gives every start of every one of them, overlapping ones included (``pass`` inside
    ``password``). Each is then a key of this dict, the literals the text does not hold too
    (:data:`_NONE`): an ask is a lookup in C, where it was a scan of the text (or a ``find``)
    in steps of Python for each of the two hundred asks a text gets from the families.

    A literal the automaton does not know yet is found by ``find`` from each start's next
    character (:meth:`__missing__`), and learnt: the automaton is rebuilt with it before the
    next text's pass. A text no UTF-8 encodes (a lone surrogate, a byte a file name's
    decoding kept) has each known literal found so too. Every start is the same either way;
    only the cost differs."""

    __slots__ = ("_held", "_known", "folded")

    def __init__(self, folded: str) -> None:
        automaton, absent, literals, known = _automaton()
        super().__init__(absent)
        self.folded = folded
        self._known = known  # the literals this text's pass looked for, whatever is learnt after
        try:
            found = _scan(automaton, literals, folded)
        except UnicodeEncodeError:
            found = {}
            for literal in literals:
                every = _overlapping(folded, literal)
                if every:
                    found[literal] = every
        self.update(found)
        self._held = found.keys()

    at = dict.__getitem__
    """Every start of a literal in :attr:`folded`, in order (``found.at("pass")``)."""

    def __missing__(self, literal: str) -> list[int]:
        starts = self[literal] = _overlapping(self.folded, literal)
        _learn(literal)
        return starts

    def __contains__(self, literal: object) -> bool:
        """Whether :attr:`folded` holds ``literal`` (not whether it was asked)."""
        return isinstance(literal, str) and bool(self[literal])

    def holds_any(self, literals: frozenset[str]) -> bool:
        """Whether :attr:`folded` holds one of ``literals``: a family's cues, all absent from
        most texts, asked at once (one set operation in C) where each was an ask of its own,
        so that a family whose every literal is absent is passed over whole."""
        unknown = literals - self._known
        if unknown and any(self[literal] for literal in unknown):
            return True
        return not self._held.isdisjoint(literals)

    def pattern_starts(self, pattern: re.Pattern[str], heads: str = "") -> list[int]:
        """Every start of ``pattern``'s matches in :attr:`folded`, found once however many
        families ask (a pattern of a password's names in other scripts). ``heads``, when
        given, holds a character every match opens with: a text holding none of them is not
        scanned (a ``find`` of one character each, where the pattern's scan tests every
        character against its class of first characters)."""
        key = "\0" + pattern.pattern  # no literal opens with a NUL
        starts = self.get(key)
        if starts is None:
            folded = self.folded
            if heads and not any(head in folded for head in heads):
                starts = []
            else:
                starts = [m.start() for m in pattern.finditer(folded)]
            dict.__setitem__(self, key, starts)
        return starts


def _scan(
    automaton: ahocorasick_rs.AhoCorasick, literals: tuple[str, ...], folded: str
) -> dict[str, list[int]]:
    """The starts of each of ``literals`` that ``folded`` holds, by ``automaton``'s pass: a
    piece of :data:`_PIECE` characters at a time (and as far past it as a literal reaches),
    so that a big document's matches are never all held at once, each as a tuple."""
    found: dict[str, list[int]] = {}
    reach = max(map(len, literals)) - 1 if len(folded) > _PIECE else 0
    for at in range(0, len(folded), _PIECE):
        piece = folded[at : at + _PIECE + reach] if len(folded) > _PIECE else folded
        for index, start, _end in automaton.find_matches_as_indexes(piece, overlapping=True):
            if start >= _PIECE:
                continue  # the next piece's: it is read there whole
            literal = literals[index]  # in the order of their ends: each one's starts in order
            starts = found.get(literal)
            if starts is None:
                found[literal] = [at + start]
            else:
                starts.append(at + start)
    return found


_Built = tuple[ahocorasick_rs.AhoCorasick, dict[str, list[int]], tuple[str, ...], frozenset[str]]


def _automaton() -> _Built:
    """The automaton of every literal known, each of them with :data:`_NONE`, the literals by
    their index in the automaton's matches, and their set: rebuilt when one was learnt."""
    if _LEARNT:
        literals = _BUILT[0][3] | _LEARNT
        _LEARNT.clear()
        _BUILT[0] = _build(literals)
    return _BUILT[0]


def _build(known: frozenset[str]) -> _Built:
    literals = tuple(sorted(known))
    automaton = ahocorasick_rs.AhoCorasick(
        literals, implementation=ahocorasick_rs.Implementation.DFA
    )
    return automaton, dict.fromkeys(literals, _NONE), literals, known


def _learn(literal: str) -> None:
    """Have the next text's pass find ``literal`` too: the families ask only literals of their
    code, a few hundred (:data:`_MOST_KNOWN` bounds them all the same), and one no UTF-8
    encodes is never learnt (the automaton reads UTF-8)."""
    if len(_BUILT[0][3]) + len(_LEARNT) < _MOST_KNOWN and literal and _encodes(literal):
        _LEARNT.add(literal)


def _encodes(literal: str) -> bool:
    try:
        literal.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


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
"""The literals the families ask of most texts: the automaton of :class:`Literals` is built
with them at import, and learns the others the families ask as they ask them."""


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


_NONE: list[int] = []
"""What :meth:`Literals.at` gives for a literal the text does not hold: one list for all,
which no caller changes (each reads the starts, or adds them into a list of its own)."""
_MOST_KNOWN = 4096
"""The most literals :class:`Literals`' automaton learns; past them an unknown literal is
found by ``find`` in each text, as every one is the first time."""
_BUILT = [_build(frozenset(SHARED))]
"""The automaton of :class:`Literals`, the literals it finds, each with :data:`_NONE`, and the
same by their index in its matches (one, replaced when rebuilt)."""
_LEARNT: set[str] = set()
"""The literals asked since the automaton was built that it does not find: it is rebuilt
with them before the next text's pass."""


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

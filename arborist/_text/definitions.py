"""Where an API text defines a name, and which of those names a question asks for. Pure: no I/O.

A **definition** is a signature line (``median(data)``, ``class
groupby(builtins.object)``, ``def f(x):``) followed by a more deeply indented body, as
pydoc, help() and most reference texts lay them out (:func:`definitions`). How a
question names one (:func:`named_definitions`) goes by the question as
:func:`arborist._text.analysis.read_question` reads it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from arborist._text.text_words import STOPWORDS, fold, words

if TYPE_CHECKING:
    from arborist._text.analysis import QuestionTerms

__all__ = [
    "Definition",
    "JOINED_NAME_LETTERS",
    "NESTED_DEPTH",
    "best_named",
    "compound_name",
    "defines",
    "definitions",
    "is_header",
    "joined_name",
    "named_definitions",
    "names_another",
    "plain_name_fits",
    "subject_named",
]


_MARGIN = re.compile(r"[ \t|]*")
_HEADER = re.compile(
    r"(?:#{1,6}\s+)?(?:\.\.\s+\w+::\s+)?(?:(?:async\s+)?def\s+|class\s+)?`?"
    r"(?:(?P<alias>[A-Za-z_][A-Za-z0-9_]*) = (?=[A-Za-z_][A-Za-z0-9_]*\())?"  # pydoc: alias = name(...)
    r"(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)"
    r"(?P<signature>\(.*\))?`?\s*(?:->\s*[^:]+)?:?"
    r"(?:\s+method of [\w.]+ instance)?\s*"  # pydoc's module-level aliases of bound methods
    r"(?:\s+from [\w.]+)?\s*"  # pydoc's class methods: ``now(tz=None) from builtins.type``
)
_SECTION_MARK = re.compile(
    r"Method resolution order:$|(?:Methods|Class methods|Static methods|Data|Readonly properties|Data descriptors|"
    r"Properties)\b.*(?:defined here|inherited from .*):$"
)


NESTED_DEPTH = 8
"""Indentation (margins included) from which a definition is a member, not a top-level name."""


@dataclass(frozen=True)
class Definition:
    """A name defined in a text: its header line, and its own description (nested members left out)."""

    name: str
    """As the header writes it: ``median``, ``groupby``, ``JSONDecoder.decode``."""
    signature: str
    """The parenthesized parameters, or ``""``."""
    line: int
    """Index of the header line in the text's lines."""
    depth: int
    """Indentation of the header (margins included): 0 for a module-level name in flat text."""
    doc: str
    """The description under the header, margins removed, up to the first nested definition."""
    is_class: bool = False
    """Whether the header is ``class Name(...)``."""

    @property
    def nested(self) -> bool:
        """A member of something larger (a method in pydoc's " |  " class margin, or deeper)."""
        return self.depth >= NESTED_DEPTH


def _indent(line: str) -> int:
    return _MARGIN.match(line).end()  # type: ignore[union-attr]  # [ \t|]* always matches


@functools.lru_cache(maxsize=4096)
def _definitions(text: str) -> tuple[Definition, ...]:
    lines = text.split("\n")
    found: list[Definition] = []
    for index, line in enumerate(lines):
        depth = _indent(line)
        header = _HEADER.fullmatch(line[depth:])
        if header is None or not line[depth:].strip():
            continue
        if header.group("signature") is None and ("." in header.group("name") or depth == 0):
            continue  # a bare word at the margin is a heading, not a definition
        body = []
        for following in lines[index + 1 :]:
            stripped = following[_indent(following) :]
            if not stripped.strip():
                body.append("")
                continue
            if _indent(following) <= depth:
                break
            body.append(following)
        doc = _own_doc(body)
        is_class = line[depth:].lstrip().startswith("class ")
        signature = header.group("signature") or ""
        for name in filter(None, (header.group("alias"), header.group("name"))):
            if doc:  # an alias (``insort = insort_right(...)``) is defined by the same text
                found.append(Definition(name, signature, index, depth, doc, is_class))
    return tuple(found)


def _own_doc(body: list[str]) -> str:
    """A definition's own description: its body up to a nested member, margins removed."""
    if not any(line.strip() for line in body):
        return ""
    base = min(_indent(line) for line in body if line[_indent(line) :].strip())
    kept: list[str] = []
    for line in body:
        content = line[_indent(line) :]
        if content.strip() and _SECTION_MARK.match(content.strip()):
            break
        if content.strip() and _indent(line) == base and kept and _looks_like_member(content, body):
            break
        kept.append(content.rstrip() if _indent(line) <= base else "  " + content.rstrip())
    return "\n".join(kept).strip()


def _looks_like_member(content: str, body: list[str]) -> bool:
    """A line at the body's own depth that opens a nested definition (``method(self, ...)``)."""
    header = _HEADER.fullmatch(content)
    return header is not None and header.group("signature") is not None


def is_header(line: str) -> bool:
    """Whether ``line`` (stripped) is a definition's header: ``class groupby(builtins.object)``,
    ``def f(x):``, ``median(data)``."""
    found = _HEADER.fullmatch(line.strip())
    return (
        found is not None
        and found.group("alias") is None  # ``x = f(y)`` out of context is code, not a header
        and (found.group("signature") is not None or "def" in line or "class" in line)
    )


def definitions(text: str) -> tuple[Definition, ...]:
    """The names ``text`` defines, in order (see the module docstring)."""
    return _definitions(text)


def defines(text: str, names: Iterable[str]) -> list[Definition]:
    """The definitions in ``text`` whose name (or its last dotted part) is one of ``names`` (folded)."""
    wanted = set(names)
    return [d for d in definitions(text) if fold(d.name.split(".")[-1]) in wanted]


def named_definitions(text: str, asked: QuestionTerms, title: str) -> list[tuple[Definition, bool]]:
    """The definitions in ``text`` the question names, each with whether it is named
    *strongly*: as an identifier the question wrote (and, if it was dotted, in a document
    whose title or dotted name says its qualifier), or by all the parts of a compound name.
    A definition named only by a plain word of the question is weak."""
    found = []
    for definition in definitions(text):
        name = fold(definition.name.split(".")[-1])
        if compound_name(definition, asked):
            found.append((definition, True))
        elif name in asked.names:
            strong = name in asked.strong_names and asked.qualified(
                name, f"{title} {definition.name}"
            )
            found.append((definition, strong))
    return found


def joined_name(name: str, asked: QuestionTerms) -> tuple[str, ...]:
    """The two or three words of the question, side by side once stop words fall out, that
    make ``name`` (its last part, folded) when run together: "a deep copy" names
    ``deepcopy`` by ("deep", "copy"), "copy the tree" ``copytree``; "copy deep" names
    nothing. Empty when none do, and for a name under :data:`JOINED_NAME_LETTERS`
    letters: short ones are made by chance."""
    name = fold(name.rsplit(".", maxsplit=1)[-1])
    if len(name) < JOINED_NAME_LETTERS or not name.isalpha():
        return ()
    own = asked.words
    for size in (2, 3):
        for start in range(len(own) - size + 1):
            if "".join(own[start : start + size]) == name:
                return own[start : start + size]
    return ()


JOINED_NAME_LETTERS = 6
"""The shortest name :func:`joined_name` finds run together from the question's words."""


def compound_name(definition: Definition, asked: QuestionTerms) -> bool:
    """Whether the question names ``definition`` by its parts, side by side in either order:
    "the low median" names ``median_low`` ("read rows from a file" does not name ``read_file``)."""
    parts = words(definition.name.split(".")[-1])
    if len(parts) < 2:
        return False
    own = list(asked.words)
    for start in range(len(own) - len(parts) + 1):
        if sorted(own[start : start + len(parts)]) == sorted(parts):
            return True
    return False


def plain_name_fits(name: str, asked: QuestionTerms, doc: str, title: str) -> bool:
    """Whether a definition named by a plain word ("shuffle") is what the question is about:
    the question is short (the name is its subject), the definition's own description
    shares another of the question's words, or its document's subject does ("How does
    statistics compute the mean?": ``mean`` in the statistics reference)."""
    others = set(asked.words) - {name}
    if len(asked.words) <= 2:
        return True
    return bool(others & set(words(doc))) or subject_named(title, asked, name)


def subject_named(title: str, asked: QuestionTerms, name: str = "") -> bool:
    """Whether the question names the subject of a reference titled ``title`` (its part
    before " — ": ``statistics`` in "statistics — Mathematical statistics functions") by
    one of its words other than ``name``."""
    return bool((set(asked.words) - {name}) & set(words(title.split(" — ", 1)[0])))


_HEAD_NAME = re.compile(r"(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)(?:\(.*\))?")


def names_another(quoted: str, asked: QuestionTerms, kind_of: str = "") -> bool:
    """Whether ``quoted`` opens with the name of what it describes
    (``statistics.geometric_mean(data): Convert data ...``) and the question does not say
    all of that name's words: it is about something else, whatever words it shares. With
    ``kind_of`` (``mean``), only a name made of that one and a word the question does not
    say: a kind of what was asked for (``geometric_mean``), never a name of its own."""
    head = quoted.split(": ", 1)[0] if ": " in quoted else ""
    named = _HEAD_NAME.fullmatch(head)
    parts = set(words(named.group(1))) if named else set()
    unsaid = parts - set(asked.words) - STOPWORDS
    own = fold(kind_of.rsplit(".", 1)[-1])
    return bool(unsaid) and (not kind_of or (own in parts and bool(unsaid - {own})))


def best_named(
    found: Sequence[tuple[bool, int, Definition]], subject: Sequence[bool]
) -> tuple[bool, int, Definition] | None:
    """The definition an answer opens with, of those the question names (``found``: each
    ``(strong, rank, definition)``, ``rank`` its evidence's; ``subject``: by rank, whether
    the question names that reference's subject, :func:`subject_named`). A strong name's
    top-level definition wins over a member of the same name anywhere; among plain names,
    the better-ranked evidence decides. No member stands for a top-level name of a
    reference whose subject the question names ("How does statistics compute the mean?":
    ``statistics.mean``, never ``NormalDist.mean``): the top-level one takes the place of
    the best-ranked of that name."""

    def last(definition: Definition) -> str:
        return fold(definition.name.split(".")[-1])

    tops = {last(d) for _, rank, d in found if not d.nested and subject[rank]}
    placed: dict[str, int] = {}
    for _, rank, d in found:
        placed[last(d)] = min(rank, placed.get(last(d), rank))
    kept = [(s, r, d) for s, r, d in found if not (d.nested and last(d) in tops)]
    if not kept:
        return None

    def order(entry: tuple[bool, int, Definition]) -> tuple[bool, int, int, int]:
        strong, rank, d = entry
        at = placed[last(d)] if last(d) in tops else rank
        return (not strong, *((d.nested, at) if strong else (at, d.nested)), d.line)

    return min(kept, key=order)

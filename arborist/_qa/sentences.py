"""How the offline answerer reads evidence: paragraphs and list items, the prose sentences in
them (not code, tables, signatures or lists of names), which of the vector lane's prose
windows each is in (:func:`window_nearness`), and how a quoted sentence is closed,
shortened or told apart from one that says the same. Pure; what it quotes of them is
:mod:`arborist._qa.extractive`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from arborist._store.passages import passage_definitions, windows
from arborist._text.definitions import is_header
from arborist._text.text_words import STOPWORDS, words

__all__ = [
    "COMMENT_LINES",
    "COMMENT_WORDS",
    "EXAMPLE_LEAD_WORDS",
    "Item",
    "LABEL_WORDS",
    "LIST_SHARE",
    "LIST_WORDS",
    "LONG_LIST_WORDS",
    "MARGIN_BAR",
    "NEAR_DUPLICATE",
    "SELF_WORDS",
    "SIGNATURE",
    "TERM_CHARS",
    "TERM_LINES",
    "TERM_WORDS",
    "WINDOW_PROBE",
    "blocks",
    "closed",
    "continues",
    "cut_at_start",
    "is_prose",
    "is_term",
    "near_duplicate",
    "read_items",
    "read_sentences",
    "short_signature",
    "shorten",
    "window_nearness",
    "window_places",
]

_LIST_MARKER = re.compile(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+")
_HEADING = re.compile(r"[ \t]*#{1,6}(?:[ \t]|$)")
_SENTENCE_BREAK = re.compile(r"(?:(?<=[.!?])(?<![Ee]\.g\.)(?<![Ii]\.e\.)|(?<=[.!?][\"'’”)\]]))\s+")
"""Where a sentence ends: after its stop (and a closing quote or bracket), not after "e.g."
or "i.e.", which go on ("references (e.g. &gt;) in the string")."""
MARGIN_BAR = re.compile(r"^\s*\|(?: |$)")
_ROW = re.compile(r"[ \t]*(?:--?[A-Za-z][\w-]*[ ,=:/]|['\"`][^'\"`\s]{1,22}['\"`][ \t]{2,}\S)")
"""A row of a table written in columns (``'r:gz'   open for reading with gzip``) or of a
command's options (``-n/--number N: how many times ...``): each row is an item of its own,
as a list item is, not one run-on sentence with its neighbours."""
_RULE = re.compile(r"\s*[-=+|_~*]{3,}[-=+|_~* ]*")
_DOCTEST = re.compile(r"[ \t]*>>>(?:[ \t]|$)")
"""A paragraph that opens at an interpreter's prompt is a session of code and output,
whole: its ``...`` continuation lines and its results are no sentences
("psutil.cpu_percent(interval=1) ..." was quoted from one)."""
_RST_MARKUP = re.compile(r"[ \t]*\.\.(?:[ \t]|$)")
"""reStructuredText's explicit markup: a directive (``.. code-block:: python``), a target
(``.. _marker: https://...``), a substitution (``.. |version| image:: ...``) or a comment.
It states nothing; quoted before the code it introduces it reads ".. code-block:: python:
psutil.cpu_percent(interval=1)"."""
SIGNATURE = re.compile(r"[A-Za-z_][\w.]*\(.*\)(?:\s*->.*)?")


def blocks(text: str) -> Iterator[str]:
    """The paragraphs and list items of ``text`` (markers removed); headings are left out.

    A heading names a topic but states nothing, so it never makes an answer. A
    change of indentation also ends a paragraph where API texts put a name at one
    depth and its description deeper ("median(data)" over "Return the median ...",
    "key" over "A function for computing ..."): the two are not one sentence. A
    prose line continued deeper is a hanging indent and stays one paragraph.
    """
    for kind, block, _ in _units(text):
        if kind in ("block", "item", "row"):
            yield block


def _units(text: str) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """The headings (``heading``), paragraphs (``block``), list items (``item``), rows of a
    table or of options (``row``) and lists of names (``listing``, :func:`_listing`) of
    ``text`` in order, each with the lines it was written on (see :func:`blocks`)."""
    lines: list[str] = []
    depth, item = -1, ""
    raws = text.splitlines()
    for index, raw in enumerate(raws):
        line = MARGIN_BAR.sub("", raw)  # pydoc draws class bodies behind a " |  " margin
        marker = _LIST_MARKER.match(line)
        indent = len(line) - len(line.lstrip())
        heading = _HEADING.match(line)
        if heading and _comments(raws[index + 1 : index + 2]):
            if lines:
                yield _kind(lines, item), " ".join(lines), tuple(lines)
            yield "comment", line[heading.end() :].strip(), (line,)
            lines, depth, item = [], -1, ""
            continue
        row = _ROW.match(line)
        if (
            marker
            or row
            or not line.strip()
            or heading
            or _RULE.fullmatch(line)
            or _RST_MARKUP.match(line)
            or (lines and _new_paragraph(lines, indent, depth))
        ):
            if lines:
                yield _kind(lines, item), " ".join(lines), tuple(lines)
            if heading:
                yield "heading", line[heading.end() :].strip(), (line,)
            lines = [line[marker.end() :]] if marker else []
            if (
                not marker
                and line.strip()
                and not heading
                and not _RULE.fullmatch(line)
                and not _RST_MARKUP.match(line)
            ):
                lines = [line]
            depth = marker.end() if marker else indent
            item = "item" if marker else "row" if row and not is_term(line) else ""
        else:
            if not lines:
                depth = indent
            lines.append(line)
    if lines:
        yield _kind(lines, item), " ".join(lines), tuple(lines)


def _comments(after: list[str]) -> bool:
    """Whether a ``#`` line over ``after`` (the line under it) is an example's comment, not a
    heading: a heading has a blank line under it, or the sentence its section opens with;
    a comment runs straight into the code it describes, or into more comment."""
    under = MARGIN_BAR.sub("", after[0]) if after else ""
    if not under.strip():
        return False
    return _HEADING.match(under) is not None or not _OPENS_SENTENCE.match(under)


def _kind(lines: list[str], item: str) -> str:
    """A row of a table or of options that says what it is (``-n N: how many ...``) is an
    item of its own; one that only names an option (``-c <new-branch>``) is a term."""
    return "listing" if _listing(lines) else item or "block"


_LISTED_NAME = re.compile(r"[A-Za-z_][\w.]*(?:\([\w., ]*\))?")
"""A line of pydoc's class tree: a name, perhaps with its bases (``IntEnum(builtins.int)``)."""


def _listing(lines: list[str]) -> bool:
    """Lines of one word each ("auto", "member", "nonmember" under pydoc's class tree): names
    listed, which joined would read as a sentence that says nothing."""
    return len(lines) > 1 and all(_LISTED_NAME.fullmatch(line.strip()) for line in lines)


def _new_paragraph(lines: list[str], indent: int, depth: int) -> bool:
    """Whether a line at ``indent`` starts a new paragraph after ``lines`` (begun at ``depth``)."""
    if indent == depth:
        return False
    if indent < depth:
        return True
    joined = " ".join(lines).strip()
    return is_header(joined) or len(words(joined)) <= LABEL_WORDS


LABEL_WORDS = 2
"""A line of at most this many words over a deeper one is a label (a parameter's name), not
the start of a sentence."""

_CODE_LINE = re.compile(
    r"\s*(?:for|if|elif|else|while|with|def|class|try|except|finally|import|from|return|async)\b.*:"
)

_NOT_PROSE = re.compile(
    r"\s*(?:\||>>>|\.\.\.|\$ |https?://|[+=-]{2}|[\w.]+\s*=\s|\[[^\]\s]*@[^\]]*\][$#] |\w+> )"
)
"""What opens no statement: a table's margin, a doctest, a shell's prompt (``$ ``,
``[user@host dir]$ ``, ``sqlite> ``), a link, a rule, an assignment."""


_SELF_CODE = re.compile(r"\(self\b|(?<![\w-])self(?:\.\w|[=!<>+*/%&|^@\[)-](?!\w*-))")
"""``self`` as code (``hash(self)``, ``self.tzinfo``, ``self==value``), not a word
(``self-signed``, "a zipapp is self-contained")."""

SELF_WORDS = 6
"""A fragment this short that says ``self`` documents a method by its own code (pydoc's
"Return hash(self)." under ``__hash__``), not what it is for."""

LIST_WORDS = 6
"""From this many words, a fragment without a single function word is a list of names."""

LONG_LIST_WORDS = 12
LIST_SHARE = 0.08
"""From ``LONG_LIST_WORDS`` words, a fragment whose function words are under ``LIST_SHARE``
of its words is a list of names with a label ("Used by: attach-stmt column-constraint
..."): a sentence of English has several in every dozen words."""


def is_prose(sentence: str) -> bool:
    """Whether a fragment reads as a statement: two words or more, mostly letters, not a
    signature, a list of names, a table row, a doctest line or a bare link. Evidence also holds code and
    tables; quoting those as an answer reads as noise."""
    found = words(sentence)
    if len(found) < 2 or _NOT_PROSE.match(sentence) or SIGNATURE.fullmatch(sentence):
        return False
    if len(found) <= SELF_WORDS and _SELF_CODE.search(sentence):
        return False  # a slot's stock line: "Return hash(self).", "Return self==value."
    if _CODE_LINE.fullmatch(sentence) and not sentence.rstrip(":").endswith("."):
        return False  # "for row in reader:" opens a block of code
    if is_header(sentence) or (len(found) >= LIST_WORDS and not STOPWORDS.intersection(found)):
        return False  # a header, or a run of names ("accumulate chain compress ..."): no statement
    if len(found) >= LONG_LIST_WORDS and sum(w in STOPWORDS for w in found) < LIST_SHARE * len(
        found
    ):
        return False  # "Used by: aggregate-function-invocation attach-stmt ...": names listed
    letters = sum(ch.isalpha() or ch.isspace() for ch in sentence)
    return letters >= 0.6 * len(sentence)


_CONTINUES = re.compile(
    r"(?:otherwise|however|thus|therefore|conversely|likewise|similarly|furthermore|"
    r"moreover|if not|else),|in (?:that|this|either|such a) case\b",
    re.IGNORECASE,
)


def continues(sentence: str) -> bool:
    """Whether ``sentence`` goes on from the one before it ("Otherwise, as many words as
    possible are joined ..."): it is quoted with that one, or it answers a question nobody
    asked."""
    return _CONTINUES.match(sentence) is not None


def cut_at_start(text: str, sentence: str) -> bool:
    """Whether ``sentence`` opens the chunk's text and cannot be read without what the chunk
    was cut from: the tail of a sentence (it opens in lowercase), or, in a chunk that opens
    inside an indented description, one that refers back ("This runs faster than the mean()
    function ..." is ``fmean``'s, named in the chunk before; quoted, it reads as ``mean``'s)."""
    head = " ".join(MARGIN_BAR.sub("", text.lstrip()).split())
    inside = text.lstrip("\n\f")[:1] in (" ", "\t") and _REFERS_BACK.match(sentence)
    return (sentence[:1].islower() or bool(inside)) and head.startswith(sentence[:40])


_REFERS_BACK = re.compile(r"(?:this|these|that|those|it|its|they|their|such)\s", re.IGNORECASE)


def read_sentences(text: str) -> list[str]:
    """``text`` split into sentences, each on one line, never across paragraphs or list items."""
    return [item.sentence for item in read_items(text)]


@dataclass(frozen=True)
class Item:
    """A prose sentence of a text, with what it is about as the text lays it out."""

    sentence: str
    term: str = ""
    """The term its paragraph describes, when the paragraphs it is in follow one or more
    term lines (:func:`is_term`): ``-u, --include-untracked`` over "All untracked files
    are also stashed ...", ``gc.auto`` over "When there are approximately more than this
    many loose objects ...", as manuals' definition lists lay them out."""
    first: str = ""
    """The first sentence of that description, when this is a later one ("The default
    value is 6700." is ``gc.auto``'s only after what ``gc.auto`` is)."""
    heading: str = ""
    """The heading it is under in ``text`` ("Avoiding Excessively Large WAL Files"), its
    numbering left out."""


def read_items(text: str) -> list[Item]:
    """The prose sentences of ``text`` in order (:func:`read_sentences`), each with the term
    it describes and the heading it is under (:class:`Item`)."""
    found: list[Item] = []
    heading, term, first = "", "", ""
    pending: list[str] = []
    comment: list[str] = []  # an example's comment, quoted with the command under it
    for kind, block, lines in _units(text):
        if kind == "comment" and block:
            comment.append(block)
            continue
        if comment:  # the code under it, or an empty "#" line, ends it
            command = " ".join(lines[0].split()) if kind in ("block", "row") else ""
            command = command if len(command) <= TERM_CHARS else ""
            found += [Item(s, command, "", heading) for s in _commented(comment)]
            comment = []
        if kind == "comment":
            continue
        if kind == "heading":
            heading, pending, term, first = _heading(block), [], "", ""
        elif kind not in ("item", "row") and len(lines) <= TERM_LINES and all(map(is_term, lines)):
            pending.append(" ".join(block.split()))
        elif kind != "listing":
            named, described = _run_in_terms(lines, heading) if kind == "block" else ([], block)
            pending += named
            if pending:
                term, pending, first = ", ".join(pending), [], ""
            said = [] if _DOCTEST.match(lines[0]) else list(_sentences(described))
            if (
                not said or kind == "row"
            ):  # code, a table: what a term's description says ends before it
                term, first = "", ""
            for sentence in said:
                found.append(Item(sentence, term, first, heading))
                first = first or (sentence if term else "")
    if comment:
        found += [Item(s, "", "", heading) for s in _commented(comment)]
    return found


COMMENT_WORDS = 3
"""An example's comment of this many words or more says what its code does ("draw a pie
chart with inline data"); fewer is a label, or a preprocessor's line (``# endif``)."""

COMMENT_LINES = 3
"""A comment of more lines than this is commented-out text (the instructions of a todo
list git writes: "# Commands: # p, pick = use commit ..."), not what a command does."""


def _commented(lines: list[str]) -> Iterator[str]:
    """The sentences of an example's comment (its lines): terse ("Input file contains
    comma-separated values fields" has no function word, as a list of names has none), so
    read as prose when mostly letters and not code."""
    if len(lines) > COMMENT_LINES:
        return
    for piece in _SENTENCE_BREAK.split(" ".join(lines)):
        sentence = " ".join(piece.split())
        letters = sum(ch.isalpha() or ch.isspace() for ch in sentence)
        if (
            len(words(sentence)) >= COMMENT_WORDS
            and letters >= 0.6 * len(sentence)
            and not _NOT_PROSE.match(sentence)
            and not SIGNATURE.fullmatch(sentence)
        ):
            yield closed(sentence)


_NUMBERING = re.compile(r"^(?:\d+\.)*\d*\.?\s+")
_ANCHOR = re.compile(r"\s*\{#[^{}]*\}\s*$")
"""The anchor an HTML page's heading carries, as its text keeps it: ``{#_options}``."""


def _heading(line: str) -> str:
    """A heading's words: without its numbering (``6.``) or its anchor (``{#_options}``)."""
    return _ANCHOR.sub("", _NUMBERING.sub("", line))


_OPENS_SENTENCE = re.compile(r"\s*[\"'‘“(]?[A-Z][a-z]")
_RUN_IN_NAME = re.compile(r"([A-Z][A-Z0-9_]{2,})[ \t]+(?=[A-Z][a-z]|A\s)")
"""A variable's name run into its description on one line, as a PDF's definition list
prints it: ``FUNCNEST If set to a numeric value ...``."""


def _run_in_terms(lines: tuple[str, ...], heading: str) -> tuple[list[str], str]:
    """The terms a paragraph opens with and the description after them, where a layout
    without blank lines (a PDF's) ran them together: term lines over a line that opens a
    sentence (``--enable-static-link`` over "This causes Bash to be linked ..."), a
    name in capitals run into its first sentence (``FUNCNEST If set ...``), or the
    section's heading repeated ahead of its first sentence ("Mcsplines The smooth
    mcsplines option ..." under ``Mcsplines``, a run-in heading: dropped, the heading
    says it already)."""
    count = 0
    while count < min(len(lines) - 1, TERM_LINES) and is_term(lines[count]):
        count += 1
    if count and _OPENS_SENTENCE.match(lines[count]):
        return [" ".join(line.split()) for line in lines[:count]], " ".join(lines[count:])
    block = " ".join(lines)
    if heading and (said := words(heading)):
        repeated = r"\s*" + r"[\W_]+".join(map(re.escape, said)) + r"\s+(?=(?-i:[A-Z]))"
        if opening := re.match(repeated, block, re.IGNORECASE):
            return [], block[opening.end() :]
    named = _RUN_IN_NAME.match(block.lstrip())
    if named:
        return [named.group(1)], block.lstrip()[named.end() :]
    return [], block


def _sentences(block: str) -> Iterator[str]:
    for piece in _SENTENCE_BREAK.split(block):
        sentence = " ".join(piece.split())
        if is_prose(sentence) and not _leads_into_example(sentence) and not _synopsis(sentence):
            yield closed(sentence)


_SYNTAX_GROUP = re.compile(r"[{\[<][^{}\[\]<>]*[}\]>]")
SYNOPSIS_GROUPS = 2
"""From this many bracketed parts (``{size <xchars>,<ychars>}``, ``[no]feed``), a fragment
without a closing stop is a command's synopsis (``set terminal dumb {size <xchars>,<ychars>}
{[no]feed}``), not a statement."""


def _synopsis(fragment: str) -> bool:
    """Whether ``fragment`` is a synopsis of syntax (:data:`SYNOPSIS_GROUPS`)."""
    stated = fragment.rstrip().endswith((".", "!", "?"))
    return not stated and len(_SYNTAX_GROUP.findall(fragment)) >= SYNOPSIS_GROUPS


TERM_WORDS = 6
TERM_CHARS = 60
"""At most this many words and characters make a term (:func:`is_term`)."""

TERM_LINES = 3
"""A paragraph of up to this many lines, each a term, names what follows (``count(X)`` over
``count(*)``: one function's two forms)."""

_CAPITALS = re.compile(r"[A-Z][A-Z ]*")
_ASSIGNMENT = re.compile(r"[\w.]+\s*=\s")
_NUMBERED = re.compile(r"\d+(?:\.\d+)*\.?\s+[A-Z]")
"""A numbered heading, as a table of contents lists it: ``3.1. Automatic Checkpoint``."""
_PROMPT = re.compile(r"(?:>>>|[$%>#]) |.*\S\]?[$#] ")
"""A command after a prompt: ``$ git log``, ``[user@host dir]$ git describe``, ``>>> f(x)``."""


def is_term(line: str) -> bool:
    """Whether a line is a term the paragraphs after it describe: short, no sentence (no
    closing stop or colon, no function word unless it opens with a mark: ``--all``; so no
    numbered heading of a table of contents: ``3.1. Automatic Checkpoint``), no
    header in capitals (``OPTIONS``, pydoc's ``FUNCTIONS``) and no command after a prompt
    (``$ git commit --amend``, which the prose around it goes on from): an option (``-a``,
    ``-c <new-branch>``), a setting (``gc.auto``), a placeholder (``<branch>``), a function's
    form (``count(X)``), a parameter (``key``)."""
    found = words(line)
    stripped = line.strip()
    return (
        0 < len(found) <= TERM_WORDS
        and len(stripped) <= TERM_CHARS
        and not stripped.endswith(
            (".", "!", "?", ";", ":", ",", "。", "！", "？", "；", "：", " -", "—", "–")
        )
        and not (stripped[0].isalnum() and STOPWORDS.intersection(found))
        and not _CAPITALS.fullmatch(stripped)
        and not _PROMPT.match(stripped)
        and not _NUMBERED.match(stripped)
        and not _ASSIGNMENT.match(stripped)
    )


def _leads_into_example(sentence: str) -> bool:
    """ "For example:", "Example usage:", "This is equivalent to:": says nothing without the
    code that followed it."""
    return sentence.endswith(":") and len(words(sentence)) <= EXAMPLE_LEAD_WORDS


EXAMPLE_LEAD_WORDS = 4
"""A sentence this short that ends with a colon only introduces what follows it."""


def closed(sentence: str) -> str:
    """A sentence ends as a statement: one that introduced an example ("... the two middle
    values:") or a docstring's unpunctuated summary line gets its full stop."""
    sentence = sentence.rstrip(":").rstrip() if sentence.endswith(":") else sentence
    return sentence if sentence.endswith((".", "!", "?", "…", ")", '"', "'")) else sentence + "."


def shorten(sentence: str, limit: int) -> str:
    """``sentence`` cut at a word boundary to at most ``limit`` characters, marked with an ellipsis."""
    if len(sentence) <= limit:
        return sentence
    cut = sentence[: max(limit - 1, 1)]
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip() + "…"


def short_signature(signature: str, limit: int = 32) -> str:
    """``(s, *, cls=None, object_hook=None, ...)`` shortened at a parameter boundary: ``(s, *, cls=None, …)``;
    a method's ``self`` is left out."""
    signature = re.sub(r"^\((?:self|cls)(?:, *|(?=\)))", "(", signature)
    if len(signature) <= limit:
        return signature
    inner = signature[1:-1]
    kept = ""
    for part in inner.split(","):
        candidate = f"{kept},{part}" if kept else part
        if len(candidate) + 4 > limit:
            break
        kept = candidate
    return f"({kept}, …)" if kept else "(…)"


def near_duplicate(a: set[str], b: set[str]) -> bool:
    """Two sentences saying the same: one's words nearly all in the other's."""
    if not a or not b:
        return a == b
    return len(a & b) / min(len(a), len(b)) >= NEAR_DUPLICATE


NEAR_DUPLICATE = 0.8
"""Share of the shorter sentence's words found in the other above which one is left out."""


def window_nearness(
    text: str, nearness: Sequence[float], items: Sequence[Item]
) -> list[float | None]:
    """How near the question the prose window (:func:`arborist._store.passages.windows`) each
    sentence of ``items`` is in, from the chunk's ``nearness`` (its passages', windows first);
    None for every sentence when the passages are not the windows measured, and for one not
    found in them."""
    if not nearness:
        return [None] * len(items)
    held, found = passage_definitions(text), windows(text)
    if len(held) != len(nearness) or sum(d is None for d in held) != len(found):
        return [None] * len(items)
    flat = " ".join(text.split())
    starts, at = [], 0
    for window in found:
        at = max(at, flat.find(window[:WINDOW_PROBE], at))
        starts.append(at)
    out: list[float | None] = []
    at = 0
    for item in items:
        where = flat.find(" ".join(item.sentence.split())[:WINDOW_PROBE].rstrip("."), at)
        out.append(None if where < 0 else nearness[bisect_right(starts, where) - 1])
        at = max(at, where)
    return out


def window_places(
    texts: Sequence[str],
    nearness: Sequence[Sequence[float]],
    read: Sequence[Sequence[Item]],
    margin: float,
) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
    """Which sentences (item, place) of the chunks' ``texts``, as ``read``, are in a prose
    window within ``margin`` of the nearest their ``nearness`` measured
    (:func:`window_nearness`), and which in the nearest itself; none when none was measured."""
    near = {}
    for rank, (text, measured, items) in enumerate(zip(texts, nearness, read, strict=True)):
        for order, cosine in enumerate(window_nearness(text, measured, items)):
            if cosine is not None:
                near[(rank, order)] = cosine
    best = max(near.values(), default=0.0)
    close = {place for place, cosine in near.items() if cosine >= best - margin}
    return close, {place for place, cosine in near.items() if cosine == best}


WINDOW_PROBE = 40
"""How many characters of a window, or of a sentence, find where it is in its chunk."""

"""Bounds on the work a page gives the HTML parser: parse time linear in the page's size.

lexbor, like the HTML standard's tree builder, walks the stack of open elements for many
tags, compares a new attribute with every earlier one of its element, compares a
formatting element with every active one, and walks every option of a ``<select>`` for
each new option. Each is cheap on an honest page and quadratic on a hostile one: 100,000
nested ``<div>``s (1.1 MB) took 67 s, a tag with 55,000 attributes 4 s per 440 KB.

:func:`bounded_html` reads the page once with a tokenizer and a small model of the tree
builder (its stack of open elements with the usual implied ends, its active formatting
elements, the options of the open select), linear in the page. A page inside every
bound is returned unchanged, so the parser sees exactly its bytes and its text is what
it always was. A page past any bound is rewritten once, tags only, never text: a tag
that would open an element deeper than :data:`MAX_DEPTH`, a formatting element past
:data:`MAX_FORMATTING` active ones or an option past :data:`MAX_OPTIONS` in one select
is left out with its end tag, and a tag's attributes past :data:`MAX_ATTRIBUTES` are
cut. Browsers do the same to depth (Blink's parser nests no deeper than 512).
"""

from __future__ import annotations

import re

from arborist._text.text_words import word_list

__all__ = [
    "MAX_ATTRIBUTES",
    "MAX_DEPTH",
    "MAX_FORMATTING",
    "MAX_OPTIONS",
    "bounded_html",
]

MAX_DEPTH = 512
"""Open elements the parser may hold at once (an honest page nests a few dozen deep)."""

MAX_ATTRIBUTES = 64
"""Attributes kept on one tag; arborist's text never reads one, the parser compares each."""

MAX_FORMATTING = 32
"""Active formatting elements (``<b>``, ``<font>``, ``<a>``...) the parser tracks at once."""

MAX_OPTIONS = 128
"""Options in one ``<select>``: arborist renders a select's options as one run of text
either way, so the ones left out change no word."""

_VOID = frozenset(
    word_list("""area base basefont bgsound br col embed frame hr image img input keygen link meta param
        source track wbr""")
)
_RAW = frozenset({"script", "style", "xmp", "iframe", "noembed", "noframes", "textarea", "title"})
_FORMATTING = frozenset(word_list("a b big code em font i nobr s small strike strong tt u"))
_MARKERS = frozenset({"applet", "caption", "marquee", "object", "td", "template", "th"})
_BOUNDARIES = _MARKERS | frozenset({"html", "table", "svg", "math", "button", "select"})
_CLOSES_P = frozenset(
    word_list("""address article aside blockquote center details dialog dir div dl fieldset figcaption
        figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr listing main menu nav ol p
        plaintext pre section summary table ul li dd dt xmp""")
)
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_BREAKOUT = frozenset(
    word_list("""b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i
        img li listing menu meta nobr ol p pre ruby s small span strong strike sub sup table tt
        u ul var""")
)
_SIBLING_RULES = {
    # a start tag that closes the innermost open one of ``closed``, unless one of ``also``
    # is open inside it, or a boundary of ``within``: "scope" (any boundary), "table"
    # (none: cells and rows close up to their table), "markers" (the active formatting
    # elements end at a cell, caption or object)
    "li": ({"li"}, {"ul", "ol"}, "scope"),
    "dt": ({"dt", "dd"}, {"dl"}, "scope"),
    "dd": ({"dt", "dd"}, {"dl"}, "scope"),
    "td": ({"td", "th"}, {"tr", "table", "template"}, "table"),
    "th": ({"td", "th"}, {"tr", "table", "template"}, "table"),
    "tr": ({"tr"}, {"table", "template"}, "table"),
    "tbody": ({"tbody", "thead", "tfoot"}, {"table", "template"}, "table"),
    "thead": ({"tbody", "thead", "tfoot"}, {"table", "template"}, "table"),
    "tfoot": ({"tbody", "thead", "tfoot"}, {"table", "template"}, "table"),
    "a": ({"a"}, set(), "markers"),
    "nobr": ({"nobr"}, set(), "markers"),
    "button": ({"button"}, set(), "scope"),
    "select": ({"select"}, set(), "scope"),
}
_Sibling = tuple[tuple[str, ...], frozenset[str], tuple[str, ...], str]
"""A sibling rule as the scan reads it: the names closed (in order and as a set), the
ones that stop it, and its ``within``."""
_SIBLINGS: dict[str, _Sibling] = {
    name: (tuple(closed), frozenset(closed), tuple(also), within)
    for name, (closed, also, within) in _SIBLING_RULES.items()
}
_SECTIONS = frozenset({"tbody", "thead", "tfoot"})
_ROWS_AND_CELLS = frozenset({"tr", "td", "th"})
_FOREIGN = frozenset({"svg", "math"})
_OPTIONS = frozenset({"option", "optgroup"})
_TABLE_PARENTS = _SECTIONS | frozenset({"table"})

_TOKEN = re.compile(r"<(?:(/?)([A-Za-z][^\t\n\f\r />]*)(?:([\t\n\f\r /][^<>]*)?(>))?|(!--)|[!?/])")
"""A tag's start: its name, and its attributes up to the first ``>`` when no ``<`` comes
first (the common tag, read whole by this one match unless a quote in it needs a closer
look); or a comment's, or a bogus comment's. The attributes open with a separator, so
no character of a long name is ever tried twice."""
_ATTRIBUTE = re.compile(
    r"[\t\n\f\r /]*([^\t\n\f\r />][^\t\n\f\r /=>]*)[\t\n\f\r ]*(=[\t\n\f\r ]*)?"
)
_UNQUOTED = re.compile(r"[^\t\n\f\r >]*")
_SIMPLE_ATTRIBUTE = re.compile(
    r"[\t\n\f\r /]*[^\t\n\f\r />][^\t\n\f\r /=>]*(?:[\t\n\f\r ]*=[\t\n\f\r ]*[^\t\n\f\r >]*)?"
)
_RAW_END = {name: re.compile(rf"</{name}[\t\n\f\r />]", re.I) for name in _RAW}


def _count(text: str, start: int, end: int) -> tuple[int, int]:
    """How many attributes ``text[start:end]`` (no quoted value in it) holds, and where
    its :data:`MAX_ATTRIBUTES`-th ends."""
    count, cut = 0, end
    for match in _SIMPLE_ATTRIBUTE.finditer(text, start, end):
        count += 1
        if count == MAX_ATTRIBUTES:
            cut = match.end()
    return count, cut


def _tag_end(text: str, pos: int) -> tuple[int, int, int] | None:
    """Where the tag whose attributes start at ``pos`` ends (after its ``>``), how many
    attributes it has, and where its :data:`MAX_ATTRIBUTES`-th one ends; None when the
    page ends inside the tag (the parser drops such a tag)."""
    gt = text.find(">", pos)
    if gt == -1:
        return None
    doubles = text.count('"', pos, gt)
    singles = text.count("'", pos, gt)
    if not doubles and not singles:  # no quoted value
        if gt - pos <= 2 * MAX_ATTRIBUTES:  # too short to hold more than the bound
            return gt + 1, 0, gt
        return (gt + 1, *_count(text, pos, gt))
    if gt - pos <= 2 * MAX_ATTRIBUTES and not (
        doubles % 2 if not singles else singles % 2 or doubles
    ):
        # Quotes of one kind, paired before the first ">": the common tag. Ending it at
        # that ">" can only end it earlier than the parser does (a tag ends at a ">"),
        # so a tag the parser sees is never skipped here.
        return gt + 1, 0, gt
    return _quoted_tag_end(text, pos)


def _quoted_tag_end(text: str, pos: int) -> tuple[int, int, int] | None:
    """:func:`_tag_end` read attribute by attribute, as the parser does: a quoted value
    may hold ``>``, and a quote left open runs to the end of the page."""
    count, cut, at, size = 0, -1, pos, len(text)
    while True:
        match = _ATTRIBUTE.match(text, at)
        if match is None:
            while at < size and text[at] in "\t\n\f\r /":
                at += 1
            if at >= size:
                return None
            if text[at] == ">":
                return at + 1, count, cut if cut >= 0 else at
            at += 1  # cannot happen by the pattern; never loop on it
            continue
        at = match.end()
        if match.group(2):
            if at < size and text[at] in "\"'":
                close = text.find(text[at], at + 1)
                if close == -1:
                    return None
                at = close + 1
            else:
                at = _UNQUOTED.match(text, at).end()  # type: ignore[union-attr]
        count += 1
        if count == MAX_ATTRIBUTES:
            cut = at


def _past_comment(text: str, at: int, comment: str | None) -> int:
    """Where a comment (``<!--``, when ``comment``) or a bogus comment (``<!doctype>``,
    ``<?...>``, ``</3>``: up to ``>``) whose opening ends at ``at`` ends."""
    if comment:
        if text.startswith((">", "->"), at):
            return text.find(">", at) + 1
        close = text.find("-->", at)
        return len(text) if close == -1 else close + 3
    close = text.find(">", at)
    return len(text) if close == -1 else close + 1


_KEPT, _LEFT_OUT, _PAST = 0, 1, 2
"""What :meth:`_Model.start` did with a start tag: took it (or it opens no element), left
it out (the rewrite drops it and its end tag), or opened an element past a bound."""


class _Model:
    """The tree builder's state as far as its cost goes: the stack of open elements (with
    the implied ends most pages rely on), the active formatting elements since the last
    marker, and the options of the innermost open select. What it looks for is indexed as
    it is pushed, so each step is O(1) amortized. A tag's usual step is made in
    :meth:`start` or :meth:`end` without a further call: they run for every tag of every
    page."""

    __slots__ = ("active", "bounds", "foreign", "formatting", "marks", "options", "stack", "where")

    def __init__(self) -> None:
        self.stack: list[str] = []
        self.where: dict[str, list[int]] = {}  # name -> its indices in the stack, innermost last
        self.bounds: list[int] = []  # indices of the scope boundaries in the stack
        self.active: list[str] = []  # active formatting names, "" for each marker
        self.formatting = [0]  # active formatting elements after each marker (the last: now)
        self.options: list[int] = []  # per open select, its options so far
        self.marks: list[int] = []  # indices of the markers in the stack
        self.foreign = 0  # open svg and math elements

    def start(self, name: str, self_closing: bool, leave_out: bool) -> int:
        """A start tag: the ends it implies (the svg or math it breaks out of, an open
        ``<p>``, a sibling, a heading in a heading, an option in an option), then the
        element it opens, if any. With ``leave_out``, an element past a bound is not opened
        (:data:`_LEFT_OUT`); else :data:`_PAST` once one is."""
        stack = self.stack
        if self.foreign and name in _BREAKOUT:
            self.pop_to(max(self.last("svg"), self.last("math")))
        if (
            name in _CLOSES_P
            and (places := self.where.get("p"))
            and (not self.bounds or places[-1] > self.bounds[-1])
        ):
            self.pop_to(places[-1])
        if name in _SIBLINGS:
            self.close_sibling(name)
        elif stack and (
            (name in _HEADINGS and stack[-1] in _HEADINGS)
            or (stack[-1] == "option" and name in _OPTIONS)
        ):
            self.pop_to(len(stack) - 1)
        if name == "optgroup" and stack and stack[-1] == "optgroup":
            self.pop_to(len(stack) - 1)
        foreign = self.foreign
        if name in _VOID or (foreign and self_closing) or (not foreign and name in _RAW):
            return _KEPT  # no element, or one whose content is text up to its end tag
        formatting, options = self.formatting, self.options
        if leave_out and (
            len(stack) >= MAX_DEPTH
            or (name in _FORMATTING and formatting[-1] >= MAX_FORMATTING)
            or (name in _OPTIONS and options and options[-1] >= MAX_OPTIONS)
        ):
            return _LEFT_OUT
        if name in _ROWS_AND_CELLS and stack and stack[-1] in _TABLE_PARENTS:
            self.imply_table(name)
        self.where.setdefault(name, []).append(len(stack))
        stack.append(name)
        if name in _BOUNDARIES:
            self.open_boundary(name)
        elif name in _FORMATTING:
            self.active.append(name)
            formatting[-1] += 1
        elif options and name in _OPTIONS:
            options[-1] += 1
        if (
            len(stack) > MAX_DEPTH
            or formatting[-1] > MAX_FORMATTING
            or (options and options[-1] > MAX_OPTIONS)
        ):
            return _PAST
        return _KEPT

    def end(self, name: str) -> None:
        """An end tag: its formatting entry goes, and the innermost open ``name`` closes
        with everything inside it."""
        if name in _FORMATTING:
            self.deactivate(name)
        places = self.where.get(name)
        if places:
            stack = self.stack
            if places[-1] == len(stack) - 1 and name not in _BOUNDARIES:
                stack.pop()  # closing the current element: the usual case
                places.pop()
            else:
                self.pop_to(places[-1])

    def close_sibling(self, name: str) -> None:
        """The end a start tag of ``name`` implies by its rule (:data:`_SIBLING_RULES`: an
        ``<li>``, a cell, an ``<a>``...): the innermost open one of its names closes, unless
        one of its ``also`` or a boundary of its ``within`` is open inside it; a new ``<a>``
        or ``<nobr>`` also ends the one still active."""
        where, stack = self.where, self.stack
        names, closed, also, within = _SIBLINGS[name]
        open_at = stop = -1
        for other in names:
            places = where.get(other)
            if places and places[-1] > open_at:
                open_at = places[-1]
        if open_at >= 0:
            for other in also:
                places = where.get(other)
                if places and places[-1] > stop:
                    stop = places[-1]
            if within == "markers":
                if self.marks and self.marks[-1] > stop:
                    stop = self.marks[-1]
            elif within == "scope":
                for index in reversed(self.bounds):  # the innermost boundary not itself closed
                    if index <= stop:
                        break
                    if stack[index] not in closed:
                        stop = index
                        break
            if open_at > stop:
                self.pop_to(open_at)
        if name in _FORMATTING:
            self.deactivate(name)

    def imply_table(self, name: str) -> None:
        """A row or cell right in a table, or a cell right in a section, opens what the
        parser implies: a ``<tbody>``, a ``<tr>``."""
        stack, top = self.stack, self.stack[-1]
        implied: tuple[str, ...] = ()
        if top == "table":
            implied = ("tbody",) if name == "tr" else ("tbody", "tr")
        elif top in _SECTIONS and name != "tr":
            implied = ("tr",)
        for filler in implied:
            self.where.setdefault(filler, []).append(len(stack))
            stack.append(filler)

    def open_boundary(self, name: str) -> None:
        """Index the scope boundary ``name`` just pushed: svg and math count as foreign,
        a marker starts a new list of active formatting elements, a select its options."""
        index = len(self.stack) - 1
        self.bounds.append(index)
        if name in _FOREIGN:
            self.foreign += 1
        if name in _MARKERS:
            self.active.append("")
            self.formatting.append(0)
            self.marks.append(index)
        elif name == "select":
            self.options.append(0)

    def pop_to(self, index: int) -> None:
        """Close every open element from ``index`` up."""
        stack, where = self.stack, self.where
        while len(stack) > index:
            name = stack.pop()
            where[name].pop()
            if name in _BOUNDARIES:
                self.bounds.pop()
                if name in _FOREIGN:
                    self.foreign -= 1
                if name in _MARKERS:
                    active = self.active
                    while active and active.pop():
                        pass
                    self.formatting.pop()
                    self.marks.pop()
                elif name == "select" and self.options:
                    self.options.pop()

    def last(self, name: str) -> int:
        """The index of the innermost open ``name``, else -1."""
        places = self.where.get(name)
        return places[-1] if places else -1

    def deactivate(self, name: str) -> None:
        """Take the innermost ``name`` after the last marker off the active list."""
        active = self.active
        if active and active[-1] == name:  # the usual case, without a loop
            active.pop()
            self.formatting[-1] -= 1
            return
        for index in range(len(active) - 1, -1, -1):
            if active[index] == name:
                del active[index]
                self.formatting[-1] -= 1
                return
            if not active[index]:
                return


def _scan(text: str, rewrite: bool) -> str | None:
    """One pass of the tokenizer (this loop, and :func:`_tag_end` for a tag one match cannot
    read) and the model (:class:`_Model`) over ``text``, linear in it. Without ``rewrite``:
    None when the page stays within every bound, else ``""`` at the first tag past one. With
    ``rewrite``: the page with the tags past a bound left out (with their end tags) and
    attributes past :data:`MAX_ATTRIBUTES` cut."""
    model = _Model()
    left_out: dict[str, int] = {}  # name -> its start tags left out and not yet ended
    pieces: list[str] = []  # the rewritten page, up to ``copied``
    copied = at = 0
    size, search = len(text), _TOKEN.search
    while at < size and (match := search(text, at)) is not None:
        slash, name, attributes_text, closed_tag, comment = match.groups()
        if name is None:
            at = _past_comment(text, match.end(), comment)
            continue
        start, end = match.span()
        attributes, cut = 0, end - 1
        if closed_tag and attributes_text:  # read whole by the match, unless
            doubles, singles = attributes_text.count('"'), attributes_text.count("'")
            if len(attributes_text) > 2 * MAX_ATTRIBUTES or (
                (singles or doubles % 2) and (doubles or singles % 2)
            ):  # long enough to hold more than the bound, or not quotes of one kind, paired
                closed_tag = None
        if not closed_tag:
            ended = _tag_end(text, match.end(2))
            if ended is None:  # the page ends inside the tag: the parser drops it
                break
            end, attributes, cut = ended
        at, name = end, name.lower()
        if slash:  # an end tag
            if rewrite and left_out.get(name):
                left_out[name] -= 1
                pieces.append(text[copied:start])
                copied = end
            else:
                model.end(name)
            continue
        if attributes > MAX_ATTRIBUTES and not rewrite:
            return ""
        done = model.start(name, text[end - 2] == "/", rewrite)
        if done == _LEFT_OUT:
            left_out[name] = left_out.get(name, 0) + 1
            pieces.append(text[copied:start])
            copied = end
            continue
        if done == _PAST and not rewrite:
            return ""
        if rewrite and attributes > MAX_ATTRIBUTES:
            pieces += (text[copied:cut], "/>" if text[end - 2] == "/" else ">")
            copied = end
        if name in _RAW and not model.foreign:  # its content is text up to its end tag
            close_match = _RAW_END[name].search(text, end)
            at = size if close_match is None else close_match.start()
        elif name == "plaintext" and not model.foreign:
            break
    if not rewrite:
        return None
    pieces.append(text[copied:])
    return "".join(pieces)


def bounded_html(text: str) -> str:
    """``text`` unchanged when the parser's work on it stays within every bound, else
    rewritten so that it does (see the module's docstring). Linear in ``text``."""
    if _scan(text, rewrite=False) is None:
        return text
    return _scan(text, rewrite=True) or ""

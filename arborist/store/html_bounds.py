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
    {"area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "image", "img",
     "input", "keygen", "link", "meta", "param", "source", "track", "wbr"}
)  # fmt: skip
_RAW = frozenset({"script", "style", "xmp", "iframe", "noembed", "noframes", "textarea", "title"})
_FORMATTING = frozenset(
    {"a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt",
     "u"}
)  # fmt: skip
_MARKERS = frozenset({"applet", "caption", "marquee", "object", "td", "template", "th"})
_BOUNDARIES = _MARKERS | frozenset({"html", "table", "svg", "math", "button", "select"})
_CLOSES_P = frozenset(
    {"address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div",
     "dl", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5",
     "h6", "header", "hgroup", "hr", "listing", "main", "menu", "nav", "ol", "p", "plaintext",
     "pre", "section", "summary", "table", "ul", "li", "dd", "dt", "xmp"}
)  # fmt: skip
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_BREAKOUT = frozenset(
    {"b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt", "em",
     "embed", "h1", "h2", "h3", "h4", "h5", "h6", "head", "hr", "i", "img", "li", "listing",
     "menu", "meta", "nobr", "ol", "p", "pre", "ruby", "s", "small", "span", "strong",
     "strike", "sub", "sup", "table", "tt", "u", "ul", "var"}
)  # fmt: skip
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
_SIBLINGS = {
    name: (tuple(closed), frozenset(closed), tuple(also), within)
    for name, (closed, also, within) in _SIBLING_RULES.items()
}
_SECTIONS = frozenset({"tbody", "thead", "tfoot"})
_ROWS_AND_CELLS = frozenset({"tr", "td", "th"})
_FOREIGN = frozenset({"svg", "math"})

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


def _scan(text: str, rewrite: bool) -> str | None:
    """One pass of the tokenizer and the model over ``text``, linear in it.

    The model is the tree builder's state as far as its cost goes: the stack of open
    elements (with the implied ends most pages rely on), the active formatting elements
    since the last marker, and the options of the innermost open select; what it looks
    for is indexed as it is pushed, so each step is O(1) amortized. One function with
    its state in locals, since it runs for every tag of every page.

    Without ``rewrite``: None when the page stays within every bound, else ``""`` at the
    first tag past one. With ``rewrite``: the page with the tags past a bound left out
    (with their end tags) and attributes past :data:`MAX_ATTRIBUTES` cut.
    """
    stack: list[str] = []
    where: dict[str, list[int]] = {}  # name -> its indices in the stack, innermost last
    bounds: list[int] = []  # indices of the scope boundaries in the stack
    active: list[str] = []  # active formatting names, "" for each marker
    formatting = [0]  # active formatting elements after each marker (the last: now)
    options: list[int] = []  # per open select, its options so far
    marks: list[int] = []  # indices of the markers in the stack
    left_out: dict[str, int] = {}
    pieces: list[str] = []
    copied = 0
    foreign = 0  # open svg and math elements

    def pop_to(index: int) -> None:
        nonlocal foreign
        while len(stack) > index:
            name = stack.pop()
            where[name].pop()
            if name in _BOUNDARIES:
                bounds.pop()
                if name in _FOREIGN:
                    foreign -= 1
                if name in _MARKERS:
                    while active and active.pop():
                        pass
                    formatting.pop()
                    marks.pop()
                elif name == "select" and options:
                    options.pop()

    def last(name: str) -> int:
        places = where.get(name)
        return places[-1] if places else -1

    def deactivate(name: str) -> None:
        """Take the innermost ``name`` after the last marker off the active list."""
        for index in range(len(active) - 1, -1, -1):
            if active[index] == name:
                del active[index]
                formatting[-1] -= 1
                return
            if not active[index]:
                return

    at, size = 0, len(text)
    search = _TOKEN.search
    while at < size:
        match = search(text, at)
        if match is None:
            break
        slash, name, attributes_text, closed_tag, comment = match.groups()
        if name is None:
            if comment:  # <!-- comment -->
                body = match.end()
                if text.startswith((">", "->"), body):
                    at = text.find(">", body) + 1
                    continue
                close = text.find("-->", body)
                at = size if close == -1 else close + 3
            else:  # <!doctype>, <?...>, </3>: a bogus comment up to ">"
                close = text.find(">", match.end())
                at = size if close == -1 else close + 1
            continue
        start = match.start()
        end = match.end()
        attributes, cut = 0, end - 1
        if closed_tag and attributes_text and len(attributes_text) > 2 * MAX_ATTRIBUTES:
            closed_tag = None  # long enough to hold more than the bound: count them
        if closed_tag and attributes_text and ('"' in attributes_text or "'" in attributes_text):
            doubles, singles = attributes_text.count('"'), attributes_text.count("'")
            if (singles or doubles % 2) and (doubles or singles % 2):
                closed_tag = None  # not quotes of one kind, paired: read it as the parser does
        if not closed_tag:
            ended = _tag_end(text, match.end(2))
            if ended is None:  # the page ends inside the tag: the parser drops it
                break
            end, attributes, cut = ended
        at = end
        name = name.lower()
        if slash:  # an end tag
            if rewrite and left_out.get(name):
                left_out[name] -= 1
                pieces.append(text[copied:start])
                copied = end
                continue
            if name in _FORMATTING:
                if active and active[-1] == name:  # the usual case, without a call
                    active.pop()
                    formatting[-1] -= 1
                else:
                    deactivate(name)
            places = where.get(name)
            if places:
                if places[-1] == len(stack) - 1 and name not in _BOUNDARIES:
                    stack.pop()  # closing the current element: the usual case
                    places.pop()
                else:
                    pop_to(places[-1])
            continue
        if attributes > MAX_ATTRIBUTES and not rewrite:
            return ""
        # the ends a start tag implies
        if foreign and name in _BREAKOUT:
            pop_to(max(last("svg"), last("math")))
        if name in _CLOSES_P:
            places = where.get("p")
            if places and (not bounds or places[-1] > bounds[-1]):
                pop_to(places[-1])
        sibling = _SIBLINGS.get(name)
        if sibling is not None:
            names, closed, also, within = sibling
            open_at = -1
            for other in names:
                places = where.get(other)
                if places and places[-1] > open_at:
                    open_at = places[-1]
            if open_at >= 0:
                stop = -1
                for other in also:
                    places = where.get(other)
                    if places and places[-1] > stop:
                        stop = places[-1]
                if within == "markers":
                    if marks and marks[-1] > stop:
                        stop = marks[-1]
                elif within == "scope":
                    for index in reversed(bounds):  # the innermost boundary not itself closed
                        if index <= stop:
                            break
                        if stack[index] not in closed:
                            stop = index
                            break
                if open_at > stop:
                    pop_to(open_at)
            if name in _FORMATTING:  # a new <a> or <nobr> ends the one still active
                if active and active[-1] == name:
                    active.pop()
                    formatting[-1] -= 1
                else:
                    deactivate(name)
        elif stack:
            top = stack[-1]
            if (name in _HEADINGS and top in _HEADINGS) or (
                top == "option" and name in ("option", "optgroup")
            ):
                pop_to(len(stack) - 1)
        if name == "optgroup" and stack and stack[-1] == "optgroup":
            pop_to(len(stack) - 1)
        raw = name in _RAW and not foreign
        self_closing = text[end - 2] == "/"
        if not (raw or name in _VOID or (foreign and self_closing)):
            if rewrite and (
                len(stack) >= MAX_DEPTH
                or (name in _FORMATTING and formatting[-1] >= MAX_FORMATTING)
                or (name in ("option", "optgroup") and options and options[-1] >= MAX_OPTIONS)
            ):
                left_out[name] = left_out.get(name, 0) + 1
                pieces.append(text[copied:start])
                copied = end
                continue
            if name in _ROWS_AND_CELLS and stack:  # a row or cell right in a table, or a
                top = stack[-1]  # cell right in a section, opens what the parser implies
                implied: tuple[str, ...] = ()
                if top == "table":
                    implied = ("tbody",) if name == "tr" else ("tbody", "tr")
                elif top in _SECTIONS and name != "tr":
                    implied = ("tr",)
                for filler in implied:
                    where.setdefault(filler, []).append(len(stack))
                    stack.append(filler)
            where.setdefault(name, []).append(len(stack))
            stack.append(name)
            if name in _BOUNDARIES:
                bounds.append(len(stack) - 1)
                if name in _FOREIGN:
                    foreign += 1
                if name in _MARKERS:
                    active.append("")
                    formatting.append(0)
                    marks.append(len(stack) - 1)
                elif name == "select":
                    options.append(0)
            elif name in _FORMATTING:
                active.append(name)
                formatting[-1] += 1
            elif options and name in ("option", "optgroup"):
                options[-1] += 1
            if not rewrite and (
                len(stack) > MAX_DEPTH
                or formatting[-1] > MAX_FORMATTING
                or (options and options[-1] > MAX_OPTIONS)
            ):
                return ""
        if rewrite and attributes > MAX_ATTRIBUTES:
            pieces.append(text[copied:cut])
            pieces.append("/>" if self_closing else ">")
            copied = end
        if raw:  # its content is text up to its end tag
            close_match = _RAW_END[name].search(text, end)
            at = size if close_match is None else close_match.start()
        elif name == "plaintext" and not foreign:
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

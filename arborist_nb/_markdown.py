"""An answer's Markdown, read into a small tree and written back as safe HTML or Markdown.

A model writes Markdown; arborist shows it rendered, never trusted. This reader knows a
small part of CommonMark, the part answers use: paragraphs, fenced code blocks, bullet
and numbered lists, headings (shown as a bold line), block quotes, GitHub's pipe tables
(a header row, a delimiter row of ``---`` cells with ``:`` for alignment, body rows;
``\\|`` is a pipe inside a cell); code spans,
``**strong**`` and ``*emphasis*`` (asterisks only: ``__init__`` and ``snake_case`` stay
as written), links whose scheme is ``http``, ``https`` or ``mailto``, and arborist's
citations (``[E1]``, ``[E1 | title | uri]``) as their own inline node. Everything else is
text: raw HTML, images (never fetched), a link to another scheme (``javascript:``) are
shown as the characters they are. Every writer escapes every text it writes.

The tree is plain JSON so that the widget's reader (``js/src/markdown.js``) can be held
to the same vectors (``tests/vectors/markdown.json``)::

    block  := ["p", inlines] | ["code", lang, text] | ["ul", [inlines...]]
            | ["ol", start, [inlines...]] | ["h", level, inlines] | ["quote", inlines]
            | ["table", [align...], [inlines...], [[inlines...]...]]
    align  := "" | "left" | "center" | "right"
    inline := ["t", text] | ["code", text] | ["b", inlines] | ["i", inlines]
            | ["a", href, inlines] | ["cite", label, raw]
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

from arborist._proofs.citations import parse_citations
from arborist._text.terminal import inert

__all__ = ["LINK_SCHEMES", "parse", "to_html", "to_markdown"]

LINK_SCHEMES = ("http", "https", "mailto")
"""The schemes a link may have; any other is shown as its text."""

Node = list[Any]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*([^`\s]*)[^`]*$")
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_BULLET = re.compile(r"^ {0,3}[-*+][ \t]+(.*)$")
_ORDERED = re.compile(r"^ {0,3}(\d{1,9})[.)][ \t]+(.*)$")
_QUOTE = re.compile(r"^ {0,3}>[ \t]?(.*)$")
_LINK = re.compile(r"\[([^\[\]\n]*)\]\(([^\s()<>]*)\)")
_IMAGE = re.compile(r"!\[[^\[\]\n]*\]\([^\s()]*\)")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_PIPE = re.compile(r"(?<!\\)\|")
_DELIMITER = re.compile(r"^[ \t]*(:?)-+(:?)[ \t]*$")
_ALIGN = {(":", ""): "left", (":", ":"): "center", ("", ":"): "right", ("", ""): ""}


def _starts_block(line: str) -> bool:
    return any(p.match(line) for p in (_FENCE, _HEADING, _BULLET, _ORDERED, _QUOTE))


def parse(text: str) -> list[Node]:
    """The blocks of ``text`` (see the module docstring)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[Node] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
        elif fence := _FENCE.match(line):
            i = _code_block(lines, i, fence, blocks)
        elif heading := _HEADING.match(line):
            blocks.append(["h", len(heading.group(1)), inlines(heading.group(2))])
            i += 1
        elif _BULLET.match(line) or _ORDERED.match(line):
            i = _list(lines, i, blocks)
        elif (aligns := _table_start(lines, i)) is not None:
            i = _table(lines, i, aligns, blocks)
        elif _QUOTE.match(line):
            held = []
            while i < len(lines) and (quoted := _QUOTE.match(lines[i])):
                held.append(quoted.group(1))
                i += 1
            blocks.append(["quote", inlines("\n".join(held))])
        else:
            held = [line.strip()]
            i += 1
            while i < len(lines) and lines[i].strip() and not _starts_block(lines[i]):
                if _table_start(lines, i) is not None:
                    break
                held.append(lines[i].strip())
                i += 1
            blocks.append(["p", inlines("\n".join(held))])
    return blocks


def _code_block(lines: list[str], i: int, fence: re.Match[str], blocks: list[Node]) -> int:
    mark = fence.group(1)
    closing = re.compile(rf"^ {{0,3}}{re.escape(mark[0])}{{{len(mark)},}}[ \t]*$")
    body = []
    i += 1
    while i < len(lines) and not closing.match(lines[i]):
        body.append(lines[i])
        i += 1
    blocks.append(["code", fence.group(2), "\n".join(body)])
    return i + 1


def _list(lines: list[str], i: int, blocks: list[Node]) -> int:
    first = _ORDERED.match(lines[i])
    kind = _ORDERED if first else _BULLET
    items: list[str] = []
    while i < len(lines):
        item = kind.match(lines[i])
        if item is not None:
            items.append(item.group(item.lastindex or 1))
        elif lines[i].strip() and lines[i][:1] in " \t" and items:
            items[-1] += "\n" + lines[i].strip()  # a continuation line, indented
        else:
            break
        i += 1
    parsed = [inlines(item) for item in items]
    blocks.append(["ol", int(first.group(1)), parsed] if first else ["ul", parsed])
    return i


def _cells(line: str) -> list[str]:
    """A table row's cells: the line split at each pipe no backslash escapes, its outer
    pipes dropped; an escaped pipe is a pipe in its cell, in a code span too (GitHub's
    rule: the escape is read before the cell's Markdown)."""
    row = line.strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") and not row.endswith("\\|") else row
    return [cell.strip().replace("\\|", "|") for cell in _PIPE.split(row)]


def _table_start(lines: list[str], i: int) -> list[str] | None:
    """The column alignments if a table starts at ``i``: a row with a pipe, then a
    delimiter row (with a pipe too, so that ``---`` alone is no table) of as many cells.
    Without the delimiter row the lines are a paragraph."""
    if i + 1 >= len(lines) or not _PIPE.search(lines[i]) or "|" not in lines[i + 1]:
        return None
    delimiters = [_DELIMITER.match(cell) for cell in _cells(lines[i + 1])]
    if not all(delimiters) or len(delimiters) != len(_cells(lines[i])):
        return None
    return [_ALIGN[m.group(1), m.group(2)] for m in delimiters if m is not None]


def _table(lines: list[str], i: int, aligns: list[str], blocks: list[Node]) -> int:
    """A table's rows up to a blank line or another block; each row cut or padded with
    empty cells to the header's width."""
    width = len(aligns)
    head = [inlines(cell) for cell in _cells(lines[i])]
    rows = []
    i += 2
    while i < len(lines) and lines[i].strip() and not _starts_block(lines[i]):
        cells = (_cells(lines[i]) + [""] * width)[:width]
        rows.append([inlines(cell) for cell in cells])
        i += 1
    blocks.append(["table", aligns, head, rows])
    return i


def inlines(text: str) -> list[Node]:
    """The inline nodes of one block's text."""
    cites = {c.start: c for c in parse_citations(text)}
    out: list[Node] = []
    plain: list[str] = []
    i = 0

    def flush() -> None:
        if plain:
            out.append(["t", "".join(plain)])
            plain.clear()

    while i < len(text):
        ch = text[i]
        found = _inline_at(text, i, cites)
        if found is not None:
            node, i = found
            if node[0] == "t":
                plain.append(node[1])
            else:
                flush()
                out.append(node)
            continue
        plain.append(ch)
        i += 1
    flush()
    return out


def _inline_at(text: str, i: int, cites: dict[int, Any]) -> tuple[Node, int] | None:
    """The inline node that starts at ``i`` and where it ends, or None (a plain char)."""
    ch = text[i]
    if ch == "\\" and i + 1 < len(text) and text[i + 1] in _PUNCTUATION:
        return ["t", text[i + 1]], i + 2
    if ch == "`":
        return _code_span(text, i)
    if ch in "[!":
        return _bracket(text, i, cites)
    if ch == "*":
        return _emphasis(text, i)
    return None


def _code_span(text: str, i: int) -> tuple[Node, int]:
    """A code span opened by the run of backticks at ``i`` (closed by a run as long), or
    that run as text."""
    run = len(text[i:]) - len(text[i:].lstrip("`"))
    close = re.compile(rf"(?<!`)`{{{run}}}(?!`)").search(text, i + run)
    if close is None:
        return ["t", "`" * run], i + run
    body = text[i + run : close.start()].replace("\n", " ")
    if len(body) > 2 and body[0] == " " and body[-1] == " " and body.strip():
        body = body[1:-1]
    return ["code", body], close.end()


def _bracket(text: str, i: int, cites: dict[int, Any]) -> tuple[Node, int] | None:
    """A citation, an image (as its text: never fetched) or a link at ``i``; a link to
    a scheme not in :data:`LINK_SCHEMES`, or with no text, is its text."""
    if text[i] == "!":
        image = _IMAGE.match(text, i)
        return (["t", image.group(0)], image.end()) if image else None
    if i in cites:
        return ["cite", cites[i].label, text[cites[i].start : cites[i].end]], cites[i].end
    link = _LINK.match(text, i)
    if link is None:
        return None
    scheme = _SCHEME.match(link.group(2))
    safe = scheme is not None and scheme.group(1).lower() in LINK_SCHEMES and link.group(1)
    node = ["a", link.group(2), inlines(link.group(1))] if safe else ["t", link.group(0)]
    return node, link.end()


def _emphasis(text: str, i: int) -> tuple[Node, int] | None:
    """``**strong**`` or ``*emphasis*`` at ``i``: the opener not after a letter or digit
    and before a non-space, the closer after a non-space and not before a letter or digit
    (``2*3*4`` and ``*args, **kwargs`` stay text)."""
    size = 2 if text.startswith("**", i) else 1
    after = text[i + size : i + size + 1]
    if (i > 0 and text[i - 1].isalnum()) or not after or after.isspace() or after == "*":
        return None
    mark = "*" * size
    at = i + size
    while (at := text.find(mark, at)) != -1:
        before, next_char = text[at - 1], text[at + size : at + size + 1]
        closes = not before.isspace() and not next_char.isalnum()
        if closes and (size == 2 or next_char != "*") and at > i + size:
            return ["b" if size == 2 else "i", inlines(text[i + size : at])], at + size
        at += 1
    return None


# --- writers -----------------------------------------------------------------------------------

CiteHtml = Callable[[str, str], str]
"""Writes one citation as HTML: ``(label, raw)`` to markup whose every text is escaped."""


def _h(text: str) -> str:
    return html.escape(inert(text))


def to_html(blocks: list[Node], cite: CiteHtml | None = None) -> str:
    """The blocks as HTML: every text escaped, links only to :data:`LINK_SCHEMES`, opened
    apart from the notebook; each citation as ``cite`` writes it (default: its text)."""
    write = cite or (lambda _label, raw: _h(raw))

    def inline(nodes: list[Node]) -> str:
        out = []
        for node in nodes:
            kind = node[0]
            if kind == "t":  # a line break kept: a line is a line, as a chat shows it
                out.append(_h(node[1]).replace("\n", "<br>\n"))  # the text keeps its line
            elif kind == "code":
                out.append(f"<code>{_h(node[1])}</code>")
            elif kind in ("b", "i"):
                tag = "strong" if kind == "b" else "em"
                out.append(f"<{tag}>{inline(node[1])}</{tag}>")
            elif kind == "a":
                out.append(
                    f'<a href="{_h(node[1])}" target="_blank" rel="noopener noreferrer">'
                    f"{inline(node[2])}</a>"
                )
            else:
                out.append(write(node[1], node[2]))
        return "".join(out)

    # A paragraph is a <div>: a citation may be a <details>, which would close a <p>
    # (the HTML parser ends a paragraph at any block) and drop onto a line of its own.
    para = '<div class="arborist-p" style="margin:0 0 0.6em">'
    out = []
    for block in blocks:
        kind = block[0]
        if kind == "p":
            out.append(f"{para}{inline(block[1])}</div>")
        elif kind == "code":
            out.append(f"{_PRE}<code>{_h(block[2])}</code></pre>")
        elif kind == "h":
            out.append(f"{para}<strong>{inline(block[2])}</strong></div>")
        elif kind == "quote":
            out.append(f"<blockquote>{para}{inline(block[1])}</div></blockquote>")
        elif kind == "table":
            out.append(_table_html(block, inline))
        else:
            items = block[-1]
            start = f' start="{int(block[1])}"' if kind == "ol" and block[1] != 1 else ""
            lis = "".join(f"<li>{inline(item)}</li>" for item in items)
            out.append(f"<{kind}{start}>{lis}</{kind}>")
    return "".join(out)


_PRE = '<pre class="arborist-code" style="background:var(--jp-layout-color2,#f6f8fa);color:var(--jp-content-font-color1,inherit);padding:4px 6px;margin:0 0 0.6em;overflow-x:auto">'  # one literal: tests/browser/test_xss.py reads the styles a source writes
"""A code block in the grey box the widget gives it, in the theme's colours (light or dark);
a long line scrolls inside the box (hosts show a bare ``pre``)."""
_TABLE = (
    '<div class="arborist-table" style="overflow-x:auto;max-width:100%;margin:0 0 0.6em">'
    '<table style="margin:0;border-collapse:collapse">'
)
"""A table in a box of its own width that scrolls sideways: a wide table does not stretch
the output; its left margin kept (hosts centre tables)."""
_CELL = "padding:0.25em 0.6em;border:1px solid var(--jp-border-color2,#ccc);vertical-align:top"


def _table_html(block: Node, inline: Callable[[list[Node]], str]) -> str:
    """A table's rows; each cell aligned as its column says, left if it says nothing
    (hosts right-align cells)."""
    aligns = block[1]

    def row(cells: list[list[Node]], tag: str) -> str:
        written = "".join(
            f'<{tag} style="text-align:{align or "left"};{_CELL}">{inline(cell)}</{tag}>'
            for align, cell in zip(aligns, cells, strict=True)
        )
        return f"<tr>{written}</tr>"

    body = "".join(row(cells, "td") for cells in block[3])
    return f"{_TABLE}<thead>{row(block[2], 'th')}</thead><tbody>{body}</tbody></table></div>"


_MD_PUNCTUATION = str.maketrans({c: "\\" + c for c in _PUNCTUATION if c not in "<>&;\"'"})


def _md_text(text: str) -> str:
    return html.escape(inert(text), quote=False).translate(_MD_PUNCTUATION)


def _md_code(text: str) -> str:
    body = inert(text, one_line=True)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", body)), default=0) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") or not body.strip() else ""
    return f"{fence}{pad}{body}{pad}{fence}"


_DELIMITER_MD = {"": "---", "left": ":--", "center": ":-:", "right": "--:"}


def to_markdown(blocks: list[Node]) -> str:
    """The blocks as Markdown in which nothing but what was read can form: every text
    escaped (:func:`arborist_nb._display.md_escape`'s rule), code fenced longer than any run
    of its backticks, links only to :data:`LINK_SCHEMES`, citations as escaped text."""

    def inline(nodes: list[Node], cell: bool = False) -> str:
        out = []
        for node in nodes:
            kind = node[0]
            if kind == "t":
                out.append(_md_text(node[1]))
            elif kind == "code":  # in a table cell a pipe in code is escaped too
                out.append(_md_code(node[1]).replace("|", "\\|" if cell else "|"))
            elif kind in ("b", "i"):
                mark = "**" if kind == "b" else "*"
                out.append(f"{mark}{inline(node[1], cell)}{mark}")
            elif kind == "a":
                href = node[1].replace("\\", "%5C").replace("`", "%60").replace("|", "%7C")
                out.append(f"[{inline(node[2], cell)}]({href})")
            else:
                out.append(_md_text(node[2]))
        return "".join(out)

    def row(cells: list[list[Node]]) -> str:
        return "| " + " | ".join(inline(cell, cell=True) for cell in cells) + " |"

    out = []
    for block in blocks:
        kind = block[0]
        if kind == "p":
            out.append(inline(block[1]))
        elif kind == "code":
            body = inert(block[2])
            fence = "`" * max(3, max((len(r) for r in re.findall(r"`+", body)), default=0) + 1)
            out.append(f"{fence}\n{body}\n{fence}")
        elif kind == "h":
            out.append(f"**{inline(block[2])}**")
        elif kind == "quote":
            out.append("> " + inline(block[1]).replace("\n", "\n> "))
        elif kind == "table":
            delimiter = "| " + " | ".join(_DELIMITER_MD[align] for align in block[1]) + " |"
            out.append("\n".join([row(block[2]), delimiter, *map(row, block[3])]))
        else:
            number = int(block[1]) if kind == "ol" else 0
            lines = []
            for n, item in enumerate(block[-1]):
                mark = f"{number + n}." if kind == "ol" else "-"
                lines.append(f"{mark} " + inline(item).replace("\n", "\n" + " " * (len(mark) + 1)))
            out.append("\n".join(lines))
    return "\n\n".join(out)

"""Titles of the plain-text formats: markdown's first heading, reStructuredText's first
section title, a Python module's docstring. Plain text has none (its file name stands in).

A title is usually near the top, so each reader walks lines from the start and
stops at the first one found; a long file is never split whole to find it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

__all__ = ["html_text", "markdown_title", "text_title"]

_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_SETEXT_H1 = re.compile(r"^ {0,3}=+[ \t]*$")
_COMMENT_OPEN = re.compile(r"^ {0,3}<!--")
_HTML_HEADING = re.compile(r"^ {0,3}<h([1-6])(?:\s[^>]*)?>(.*?)</h\1\s*>", re.I)
_TAG = re.compile(r"<[^>]*>")
_FRONT_MATTER_END = re.compile(r"\n(?:---|\.\.\.)(?:\n|\Z)")
_RST_ADORNMENT = re.compile(r"""^([!-/:-@\[-`{-~])\1{2,}$""")
_PY_DOCSTRING = re.compile(r"""[ \t]*[rRuU]?(\"\"\"|'''|"|')(.*?)\1""", re.S)


def text_title(media_type: str, text: str) -> str:
    """The title ``text`` gives itself as a document of ``media_type``, or ``""``."""
    if media_type == "text/markdown":
        return markdown_title(text)
    if media_type == "text/x-rst":
        return _rst_title(text)
    if media_type == "text/x-python":
        return _python_title(text)
    return ""


def _lines(text: str, start: int = 0, end: int | None = None) -> Iterator[str]:
    """``text[start:end].split("\\n")``, one line at a time: a title is usually near the
    top, and a long file is never split whole to find it."""
    stop = len(text) if end is None else end
    while True:
        newline = text.find("\n", start, stop)
        if newline == -1:
            yield text[start:stop]
            return
        yield text[start:newline]
        start = newline + 1


def markdown_title(text: str) -> str:
    """The first level-1 heading (ATX ``# x``, setext ``x`` over ``===``, or an HTML
    ``<h1>`` on one line, as many a README opens), else the first heading.

    Headings inside fenced code blocks (a shell ``# comment``), HTML comments (a
    generator's ``<!-- # README.md is generated ... -->``) and YAML front matter are not
    headings.
    """
    lines: Iterator[str] = _lines(text)
    if text.startswith("---\n"):  # front matter runs to the next '---' (or '...') line
        close = _FRONT_MATTER_END.search(text, 3)
        if close is not None:
            lines = _lines(text, close.end()) if close.group().endswith("\n") else iter(())
    first_any = ""
    in_fence = ""
    in_comment = False
    previous = ""
    for line in lines:
        if in_comment or (not in_fence and _COMMENT_OPEN.match(line)):
            opened = 0 if in_comment else line.index("<!--") + 4
            in_comment = "-->" not in line[opened:]
            previous = ""
            continue
        fence = _FENCE.match(line)
        if fence:
            if not in_fence:
                in_fence = fence.group(1)
            elif fence.group(1) == in_fence:
                in_fence = ""
            previous = ""
            continue
        if in_fence:
            continue
        atx = _ATX.match(line)
        heading = _HTML_HEADING.match(line)
        if atx:
            if len(atx.group(1)) == 1:
                return atx.group(2)
            first_any = first_any or atx.group(2)
        elif heading and (named := html_text(heading.group(2))):
            if heading.group(1) == "1":
                return named
            first_any = first_any or named
        elif _SETEXT_H1.match(line) and previous.strip() and not previous.startswith("    "):
            return previous
        previous = line
    return first_any


def html_text(fragment: str) -> str:
    """The text of an HTML fragment on one line: its tags dropped, its entities read, its
    spaces one apart (``<a href=x>Charset</a> &amp; co`` is ``Charset & co``)."""
    return " ".join(html.unescape(_TAG.sub("", fragment)).split())


def _rst_title(text: str) -> str:
    """The first section title: a text line underlined (and maybe overlined) with one repeated mark."""
    lines = _lines(text)
    above: str | None = None
    line = next(lines)
    for following in lines:
        below = following.strip()
        title = line.strip()
        overlined = above is not None and bool(_RST_ADORNMENT.match(above.strip()))
        if (
            title
            and (overlined or not line[0].isspace())  # an overlined title may be inset
            and not title.startswith(".. ")
            and not _RST_ADORNMENT.match(title)
            and _RST_ADORNMENT.match(below)
        ):
            return title
        above, line = line, following
    return ""


def _python_title(text: str) -> str:
    """The first non-empty line of the module docstring (after a shebang, coding line, comments)."""
    start = 0
    for line in _lines(text):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break
        start += len(line) + 1
    match = _PY_DOCSTRING.match(text, start)
    if not match:
        return ""
    body_start, body_end = match.span(2)
    return next((line.strip() for line in _lines(text, body_start, body_end) if line.strip()), "")

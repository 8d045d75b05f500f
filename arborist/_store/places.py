"""Where a chunk sits in its document: its page, its section's heading path, its anchor. Pure.

A place is read from the committed chunk texts alone, in order, so it is bound to
what the document's ``source_root`` commits (a chunk's leaf is the hash of its text;
docs/design.md section 2) and needs nothing else stored:

* **page** (PDF only): the PDF text has one form feed (``"\\f"``) at the start of
  every page after the first, and the chunker starts a chunk at each and keeps it
  as the chunk's first character; so chunk ``i`` is on page ``1 +`` the number of
  form feeds in chunks ``0..i``. A document chunked by a rule that marked no pages
  (:data:`PAGELESS_CHUNKING`) has no page.
* **path**: the headings that open chunks (the chunker starts a chunk at every
  heading): a markdown line ``#`` to ``######`` (HTML and PDF outlines are rendered
  so), or a line underlined by a run of one punctuation character (reStructuredText,
  markdown's setext). A heading of level ``L`` closes every open heading of level
  ``L`` or deeper; the path is the open headings, outermost first. Underlines rank
  as markdown says (``=`` is level 1, ``-`` level 2) in markdown and notebooks, and
  elsewhere by first use, below every ``#`` level (reStructuredText's rule, nested
  inside a ``#`` section where a text has both).
* **anchor**: the section's fragment. A heading line may end with an attribute
  ``{#id}`` (HTML's element ids are kept so by :mod:`arborist._store.html_text`;
  pandoc and kramdown write them in markdown) whose id is of :data:`ANCHOR_CHARS`;
  else markdown and notebook headings take GitHub's slug of their text (``-1``,
  ``-2`` ... for repeats); other formats have none.
* **code fences** (markdown and notebooks, where a fence is syntax): a ``#`` line inside
  a fenced code block (a shell or Python comment) is no heading. The chunker still
  starts a chunk there (its bytes, and so every leaf and key, stay as they were); its
  place is the section the fence is in. Elsewhere (plain text, reStructuredText) ``~~~``
  is as likely a title's underline, and nothing is read as a fence.

So the place of chunk ``i`` depends on chunks ``0..i``: it is verified only when
every one of them is present and re-hashes to its committed leaf
(:mod:`arborist._store.place_reads`). A link opens there (:func:`place_uri`) only
for a ``file``, ``http`` or ``https`` URI.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

__all__ = [
    "ANCHOR_CHARS",
    "LINKED_SCHEMES",
    "PAGELESS_CHUNKING",
    "Place",
    "anchor_attribute",
    "chunk_places",
    "github_slug",
    "place_uri",
    "placed_title",
    "shown_text",
    "split_anchor",
    "uri_scheme",
]

ANCHOR_CHARS = re.compile(r"[A-Za-z0-9_.:-]{1,128}")
"""What an id kept from an untrusted document may hold: it reaches a URI fragment and an
HTML attribute, so nothing in it needs escaping in either (and none can end the attribute
``{#id}`` early)."""

LINKED_SCHEMES = frozenset({"file", "http", "https"})
"""The schemes whose URIs get a place's fragment; a URI of any other scheme is shown as
it is (a ``javascript:`` or ``data:`` URI is never made a link by us)."""

PAGELESS_CHUNKING = frozenset({"k1"})
"""Chunking versions whose PDF text marked no pages (a form feed per page came later): a
PDF chunked so has no page, rather than "p. 1" for every chunk."""

PDF = "application/pdf"
_SLUGGED = frozenset({"text/markdown", "application/x-ipynb+json"})

_ATX = re.compile(r"(#{1,6}) (\S.*)")
_ATX_CLOSING = re.compile(r"\s+#+$")
_UNDERLINE = re.compile(r"([=\-~^\"'`#*+<>:._])\1{2,}")
_ATTRIBUTE = re.compile(r"\s+\{#([A-Za-z0-9_.:-]{1,128})\}$")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_NOT_SLUG = re.compile(r"[^\w\- ]")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$", re.MULTILINE)
"""A line that opens or closes a fenced code block (CommonMark: up to three spaces, then
three or more backticks or tildes)."""
_LINK_GLYPHS = " ¶§\uf0c1"
"""What a heading's own link leaves at its end (Sphinx's ``¶``, a theme's link icon): not
part of the section's name."""


@dataclass(frozen=True)
class Place:
    """Where one chunk sits: its page (PDF), its section's heading path and anchor."""

    page: int | None = None
    path: tuple[str, ...] = ()
    anchor: str | None = None

    def __bool__(self) -> bool:
        return self.page is not None or bool(self.path)

    @property
    def fragment(self) -> str | None:
        """``page=12``, or the anchor (percent-encoded beyond :data:`ANCHOR_CHARS`), or None."""
        if self.page is not None:
            return f"page={self.page}"
        return quote(self.anchor, safe="-_.:~") if self.anchor else None

    def text(self, title: str = "") -> str:
        """``p. 12 · Configuration › Logging``: the path without a first heading that only
        repeats ``title`` (an HTML page's ``<h1>``)."""
        path = self.path[1:] if self.path and self.path[0] == title.strip() else self.path
        page = [f"p. {self.page}"] if self.page is not None else []
        return " · ".join([*page, *([" › ".join(path)] if path else [])])

    def as_json(self) -> dict[str, Any]:
        return {"page": self.page, "path": list(self.path), "anchor": self.anchor}


def shown_text(text: str) -> str:
    """A chunk's text as every face shows it (``%%ask``'s answer, the widget's chunk view:
    ``shownText`` in js/src/text.js holds the same rule, both pinned by
    tests/vectors/shown_text.json): the form feeds that open it, a PDF page's mark (see
    the module's docstring: the place says the page), left out, and any other form feed
    (a page break inside a plain text, as RFCs have) shown as a line break. Only for
    showing: a chunk's leaf hashes the text as stored, which is what a proof, and the
    browser's re-verification, read."""
    return text.lstrip("\f").replace("\f", "\n")


def placed_title(title: str, place: Place | None) -> str:
    """``Libtasn1 · p. 12``, ``git-config(1) · Configuration › Logging``; ``title`` alone
    when there is no place (or it says nothing the title does not)."""
    said = place.text(title) if place else ""
    return f"{title} · {said}" if said else title


def place_uri(uri: str, place: Place | None) -> str:
    """``uri`` opening at ``place`` (``#page=12``, ``#logging``) when its scheme is one of
    :data:`LINKED_SCHEMES`; else ``uri`` as it is. A fragment it had is replaced."""
    fragment = place.fragment if place else None
    if fragment is None or uri_scheme(uri) not in LINKED_SCHEMES:
        return uri
    return urlunsplit(urlsplit(uri)._replace(fragment=fragment))


def uri_scheme(uri: str) -> str:
    """``uri``'s scheme in lower case (``""`` when it has none or does not parse)."""
    try:
        return urlsplit(uri).scheme.lower()
    except ValueError:
        return ""


def split_anchor(heading: str) -> tuple[str, str | None]:
    """A heading's text without its trailing ``{#id}`` attribute, and that id (or None)."""
    found = _ATTRIBUTE.search(heading)
    if found is None:
        return heading, None
    return heading[: found.start()].rstrip(), found.group(1)


def anchor_attribute(element_id: str | None) -> str:
    """`` {#id}`` to end a heading line with, or nothing for an id outside the safe charset."""
    if element_id is None or ANCHOR_CHARS.fullmatch(element_id) is None:
        return ""
    return f" {{#{element_id}}}"


def github_slug(text: str) -> str:
    """GitHub's anchor of a heading: lower case, links read as their text, punctuation
    dropped but ``-`` and ``_``, each space a ``-``."""
    return _NOT_SLUG.sub("", _LINK.sub(r"\1", text).lower()).replace(" ", "-")


def _opening_heading(
    text: str, underlines: list[str], underline_base: int
) -> tuple[int, str] | None:
    """``(level, heading line)`` of the heading ``text`` opens with, as the chunker sees one
    (its first line stripped; a markdown ``#`` line or an underlined line), else None.
    ``underlines`` are the underline characters met so far, outermost first: an underlined
    heading's level is ``underline_base`` plus its character's rank among them
    (reStructuredText's rule)."""
    first_end = text.find("\n")
    first = (text if first_end == -1 else text[:first_end]).strip()
    if first[:1] == "#":
        atx = _ATX.fullmatch(first)
        if atx:
            return len(atx.group(1)), _ATX_CLOSING.sub("", atx.group(2)).strip()
    if first_end == -1 or not first:
        return None
    second_end = text.find("\n", first_end + 1)
    underline = text[first_end + 1 : len(text) if second_end == -1 else second_end].strip()
    if not _UNDERLINE.fullmatch(underline) or len(underline) < len(first):
        return None
    if underline[0] not in underlines:
        underlines.append(underline[0])
    return underline_base + underlines.index(underline[0]) + 1, first


def chunk_places(
    texts: Iterable[str], media_type: str, chunking_version: str = ""
) -> Iterator[Place]:
    """The place of each chunk of a document, from its chunk texts in order (see the
    module docstring); one place per text, as they come."""
    paged = media_type == PDF and chunking_version not in PAGELESS_CHUNKING
    slugged = media_type in _SLUGGED
    # Markdown's setext underlines are its levels 1 and 2 (= over -). Elsewhere underlines
    # rank by first use, below every "#" level: a text that has both (pydoc's, a docstring's
    # "Exceptions\n------" under "## Description") nests the underlined ones inside.
    underlines: list[str] = ["=", "-"] if slugged else []
    underline_base = 0 if slugged else 6
    feeds = 0
    open_headings: list[tuple[int, str, str | None]] = []
    used: dict[str, int] = {}
    place = Place(page=1 if paged else None)
    fence: tuple[str, int] | None = None  # the open code fence: its character and length
    for text in texts:
        opened = None if fence else _opening_heading(text, underlines, underline_base)
        if slugged and ("```" in text or "~~~" in text):
            fence = _fence_after(text, fence)
        if opened is not None:
            level, line = opened
            heading, anchor = split_anchor(line)
            heading = heading.rstrip(_LINK_GLYPHS) or heading
            if anchor is None and slugged:
                anchor = _unique(github_slug(heading), used)
            elif anchor is not None:
                used[anchor] = used.get(anchor, 0) + 1
            while open_headings and open_headings[-1][0] >= level:
                open_headings.pop()
            open_headings.append((level, heading, anchor))
        fed = text.count("\f") if paged else 0
        if opened is not None or fed:  # else the chunk is where the one before it is
            feeds += fed
            place = Place(
                page=1 + feeds if paged else None,
                path=tuple(heading for _, heading, _ in open_headings),
                anchor=open_headings[-1][2] if open_headings else None,
            )
        yield place


def _fence_after(text: str, fence: tuple[str, int] | None) -> tuple[str, int] | None:
    """The code fence open after ``text`` (CommonMark's rule: closed by a line of the same
    character, at least as long, and nothing else; a backtick fence's info string holds
    no backtick), given the one open before it; one left open runs to the document's end."""
    for found in _FENCE.finditer(text):
        run, rest = found.group(1), found.group(2)
        if fence is None:
            if run[0] == "~" or "`" not in rest:
                fence = (run[0], len(run))
        elif run[0] == fence[0] and len(run) >= fence[1] and not rest.strip():
            fence = None
    return fence


def _unique(slug: str, used: dict[str, int]) -> str | None:
    """``slug``, or ``slug-1``, ``slug-2`` ... when it was used before (GitHub's rule)."""
    if not slug:
        return None
    seen = used.get(slug, 0)
    used[slug] = seen + 1
    return slug if not seen else f"{slug}-{seen}"

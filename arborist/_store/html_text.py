"""HTML as text a chunker can read: headings as ``#`` lines, paragraphs separated by blank lines.

Scripts, styles, embedded objects, a form's controls and what a browser never shows (the
``hidden`` attribute, an inline ``display: none``) are dropped, and so is a page's
navigation (``<nav>``, ``role="navigation"``, the classes of :data:`_CHROME_CLASSES`), which
every page of a site repeats and no question is about, and a heading's or a definition's link
to its own place when a glyph is all its text (``¶``); list items become ``- `` lines,
table cells are separated by spaces, and ``<pre>`` keeps its lines as written.

A heading keeps the id a link can open it at as a trailing ``{#id}`` on its line
(:func:`arborist._store.places.anchor_attribute`): the heading's own ``id``, else that
of an element inside it (``<a name>`` too), else that of an element met since the
last text before it (an empty ``<a name>`` or ``<span id>``, or the ``<section>`` or
``<div>`` it opens). An id outside the safe charset is dropped, never escaped.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser, LexborNode

from arborist._store.html_bounds import bounded_html
from arborist._store.normalize import decode_html, normalize_text, replace_surrogates
from arborist._store.places import ANCHOR_CHARS, anchor_attribute
from arborist._text.text_words import word_list

__all__ = ["load_html"]

_DROPPED_TAGS = frozenset(
    word_list("""script style noscript template head svg math iframe object embed canvas select
        button textarea nav""")
)
"""Never text: code, media, a form's controls (a search box's choices, a copy button) and a
page's navigation (``<nav>``)."""
_HIDDEN = ", ".join(
    ["[hidden]"]
    + [f'[style*="{rule}" i]' for rule in ("display:none", "display: none")]
    + [f'[style*="{rule}" i]' for rule in ("visibility:hidden", "visibility: hidden")]
)
"""Elements a browser never shows (the ``hidden`` attribute, an inline ``display: none`` or
``visibility: hidden``): words a reader of the page never saw, which a quote must not be
of. What a style sheet hides by class cannot be seen without it (docs/guarantees.md)."""
_CHROME_TAGS = frozenset(word_list("div ul table section aside header footer"))
"""Elements that may be a page's navigation rather than its content (:func:`_navigation`)."""
_CHROME_CLASSES = frozenset(
    word_list("""nav navbar navigation nav-panel navheader navfooter breadcrumb breadcrumbs
        nosearch skip-link skiplink""")
)
"""Classes that mark navigation, not content: texinfo's ``nav-panel``, DocBook's
``navheader`` and ``navfooter``, breadcrumbs, SQLite's ``nosearch`` (what its own site search
leaves out: the logo, the menus and the search box on every page)."""
_LINK_GLYPHS = frozenset({"¶", "§", "#", "\uf0c1", "🔗"})
"""The whole text of a link to its own place (Sphinx's and texinfo's ``¶``, a theme's icon)."""
_BLOCK_TAGS = frozenset(
    word_list("""address article aside blockquote body caption center dd details dialog div dl dt
        fieldset figcaption figure footer form header hgroup hr html legend li main menu nav ol
        p section summary table tbody tfoot thead tr ul""")
)
_HEADING_TAGS = {f"h{n}": n for n in range(1, 7)}
_CELL_TAGS = frozenset({"td", "th"})


def load_html(data: bytes, label: str, declared: str | None) -> tuple[str, str]:
    """``(title, text)`` of a page: the title is its ``<title>``, else its first ``<h1>``;
    ``declared`` is the charset the HTTP response named, if any."""
    text = decode_html(data, label, declared)
    # NUL is a parse error in HTML, never text (WHATWG drops or replaces it); so are surrogates.
    # A page past the parser's bounds is rewritten within them first: parse time stays
    # linear in the page (arborist/_store/html_bounds.py).
    tree = LexborHTMLParser(bounded_html(replace_surrogates(text.replace("\x00", ""))))
    title = ""
    head = tree.head
    node = head.css_first("title") if head is not None else None
    if node is not None:
        title = node.text(deep=True) or ""
    if not title.strip():
        h1 = tree.css_first("h1")
        title = (h1.text(deep=True) or "") if h1 is not None else ""
    for hidden in tree.css(_HIDDEN):  # what a browser never shows (nested ones: no harm)
        hidden.decompose()
    root = tree.root
    body = _HtmlText().render(root) if root is not None else ""
    return title, normalize_text(body)


class _HtmlText:
    """Render a parsed page as paragraphs: an explicit-stack walk, so nesting depth is never a limit."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.buffer: list[str] = []
        self.pre_depth = 0
        self.heading = 0
        self.list_item = False
        self.heading_id: str | None = None  # the heading's own id, or an <a>'s inside it
        self.pending_id: str | None = None  # an id met since the last text (else)
        self.terms = 0  # inside a <dt>: where a definition's own link stands, as a heading's

    def render(self, root: LexborNode) -> str:
        # The stack holds a node to enter, or the tag (a str) of one to leave.
        stack: list[LexborNode | str] = [root]
        pop, push, extend, buffer = stack.pop, stack.append, stack.extend, self.buffer
        while stack:
            node = pop()
            if isinstance(node, str):
                self._leave(node)
                continue
            tag = node.tag or ""
            if tag == "-text":
                text = node.text_content or ""
                buffer.append(text)
                if self.pending_id is not None and not self.heading and text.strip():
                    self.pending_id = None  # text came between the id and any heading
            elif node.is_element_node and tag not in _DROPPED_TAGS:
                if tag in _CHROME_TAGS and _navigation(node):
                    continue
                if tag == "a" and (self.heading or self.terms) and _glyph_link(node):
                    self._note_id(node, tag)  # a heading's own link may carry its id
                    continue
                self._enter(tag)
                self._note_id(node, tag)
                push(tag)
                extend(reversed(list(node.iter(include_text=True))))
        self._flush()
        return "\n\n".join(self.blocks)

    def _enter(self, tag: str) -> None:
        if tag == "dt":
            self.terms += 1
        if self.heading:  # a heading is one line whatever it contains
            if tag == "br" or tag in _BLOCK_TAGS:
                self.buffer.append(" ")
            return
        if self.pre_depth and tag != "pre":
            return  # preformatted text flows as written, whatever wraps it
        if tag in _HEADING_TAGS:
            self._flush()
            self.heading = _HEADING_TAGS[tag]
        elif tag == "pre":
            if not self.pre_depth:
                self._flush()
            self.pre_depth += 1
        elif tag in _BLOCK_TAGS:
            self._flush()
            if tag == "li":
                self.list_item = True
        elif tag == "br":
            self.buffer.append("\n")

    def _note_id(self, node: LexborNode, tag: str) -> None:
        """Keep the id ``node`` gives the heading being read or the next one."""
        found = node.id
        if not found and tag == "a":
            found = node.attributes.get("name")
        if found is None or ANCHOR_CHARS.fullmatch(found) is None:
            return
        if tag in _HEADING_TAGS and self.heading == _HEADING_TAGS[tag]:
            self.heading_id = found  # its own id: met before anything inside it
        elif self.heading:
            self.heading_id = self.heading_id or found  # else the first <a> inside it
        else:
            self.pending_id = found

    def _leave(self, tag: str) -> None:
        if tag == "dt":
            self.terms -= 1
        if self.pre_depth and tag != "pre":
            return
        if tag in _HEADING_TAGS and self.heading == _HEADING_TAGS[tag]:
            self._flush()
            self.heading, self.heading_id, self.pending_id = 0, None, None
        elif self.heading:
            if tag in _CELL_TAGS or tag in _BLOCK_TAGS:
                self.buffer.append(" ")
        elif tag == "pre":
            self.pre_depth -= 1
            if not self.pre_depth:
                self._flush(pre=True)
        elif tag in _CELL_TAGS:
            self.buffer.append(" ")
        elif tag in _BLOCK_TAGS:
            self._flush()
            if tag == "li":
                self.list_item = False  # an empty item must not mark the next paragraph

    def _flush(self, *, pre: bool = False) -> None:
        if not self.buffer:  # nothing to flush: every block boundary calls this, most with none
            return
        raw = "".join(self.buffer)
        self.buffer.clear()
        if self.heading:
            text = " ".join(raw.split())
            if text:
                self.blocks.append(
                    "#" * self.heading
                    + " "
                    + text
                    + anchor_attribute(self.heading_id or self.pending_id)
                )
            return
        if pre:
            text = normalize_text(raw)
        elif "\n" not in raw:  # the common paragraph: one line
            text = " ".join(raw.split())
        else:
            lines = (" ".join(line.split()) for line in raw.split("\n"))
            text = "\n".join(line for line in lines if line)
        if text:
            if self.list_item:
                text = "- " + text
                self.list_item = False
            self.blocks.append(text)


def _navigation(node: LexborNode) -> bool:
    """Whether ``node`` is a page's navigation, left out with all it holds: by its ``role``,
    a class of :data:`_CHROME_CLASSES`, or texinfo's ``header`` holding its Next/Previous/Up
    links."""
    attrs = node.attrs
    if attrs.get("role") == "navigation":
        return True
    classes = attrs.get("class")
    if not classes:
        return False
    tokens = set(classes.split())
    if tokens & _CHROME_CLASSES:
        return True
    return (
        "header" in tokens and node.css_first("a[accesskey], a[rel=next], a[rel=prev]") is not None
    )


def _glyph_link(node: LexborNode) -> bool:
    """Whether an ``<a>`` (in a heading or a definition's term) links to its own place with
    a glyph for its whole text (:data:`_LINK_GLYPHS`), which would otherwise stand in the
    text as a word of the heading or the term."""
    href = node.attrs.get("href")
    return bool(href and href.startswith("#")) and (node.text(deep=True) or "").strip() in (
        _LINK_GLYPHS
    )

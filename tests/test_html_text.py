"""How HTML pages read as text: headings keep the id a link can open them at (only a safe one),
and a page's navigation, which every page of a site repeats, is left out."""

from __future__ import annotations

import pytest

from arborist._store.chunking import chunk_text
from arborist._store.html_text import load_html
from arborist._store.places import chunk_places


def text_of(page: str) -> str:
    return load_html(page.encode("utf-8"), "page.html", None)[1]


@pytest.mark.parametrize(
    ("page", "text"),
    [
        ('<h2 id="own">Logging<a id="inner"></a></h2>', "## Logging {#own}"),
        ('<h2><a name="n1"></a>Logging</h2>', "## Logging {#n1}"),
        ('<h2>Logging<a class="headerlink" href="#x">¶</a></h2>', "## Logging"),
        ('<h2>Logging<a id="log" href="#log">¶</a></h2>', "## Logging {#log}"),
        (
            '<section id="logging"><h2>Logging</h2><p>Body.</p></section>',
            "## Logging {#logging}\n\nBody.",
        ),
        ('<div class="section" id="s-1"><h3>Old Sphinx</h3></div>', "### Old Sphinx {#s-1}"),
        ('<a name="pre"></a>\n<h2>Docbook</h2>', "## Docbook {#pre}"),
        (
            '<span id="What-is-libffi_003f"></span><h2>1 What is libffi?</h2>',
            "## 1 What is libffi? {#What-is-libffi_003f}",
        ),
        ('<section id="s"><h2><a id="in"></a>Inner wins</h2></section>', "## Inner wins {#in}"),
        ('<a name="far">words between</a><h2>Plain</h2>', "words between\n\n## Plain"),
        ('<div id="a"><p>Text</p><h2>After text</h2></div>', "Text\n\n## After text"),
    ],
)
def test_a_heading_keeps_its_id(page: str, text: str) -> None:
    assert text_of(page) == text


@pytest.mark.parametrize(
    "hostile",
    ["a b", "x}{#y", 'x"><script>alert(1)</script>', "é", "x" * 129, "", "a#b", "a/b"],
)
def test_an_id_outside_the_safe_charset_is_dropped(hostile: str) -> None:
    page = f'<h2 id="{hostile.replace(chr(34), "&quot;")}">Title</h2><p>x</p>'
    assert text_of(page) == "## Title\n\nx"


def test_an_id_of_one_heading_never_reaches_the_next() -> None:
    assert text_of('<h2 id="one">One</h2><p>x</p><h2>Two</h2>') == "## One {#one}\n\nx\n\n## Two"


def test_an_html_page_chunks_into_places_with_anchors() -> None:
    page = (
        "<title>git-config</title><h1 id='top'>git-config</h1><p>Intro.</p>"
        "<h2 id='_configuration'>Configuration</h2><p>Files.</p>"
        "<h3 id='_logging'>Logging</h3><p>Where logs go.</p>"
    )
    chunks = chunk_text(text_of(page))
    places = list(chunk_places([c.text for c in chunks], "text/html"))
    assert places[-1].path == ("git-config", "Configuration", "Logging")
    assert places[-1].anchor == "_logging"
    assert places[-1].text("git-config") == "Configuration › Logging"


def test_a_sphinx_section_is_named_without_its_link_glyph() -> None:
    page = (
        '<section id="logging"><h2>Logging<a class="headerlink" href="#logging">¶</a></h2>'
        "<p>Where logs go.</p></section>"
    )
    text = text_of(page)
    assert text == "## Logging {#logging}\n\nWhere logs go."
    (place,) = chunk_places([c.text for c in chunk_text(text)], "text/html")
    assert (place.path, place.anchor) == (("Logging",), "logging")


@pytest.mark.parametrize(
    "chrome",
    [
        '<nav><a href="/">Home</a> <a href="/docs">Docs</a></nav>',
        '<div role="navigation"><a href="a.html">Previous page</a></div>',
        '<ul class="breadcrumb"><li>Docs</li><li>Reference</li></ul>',
        # texinfo 7's and 6's navigation lines, DocBook's header
        '<div class="nav-panel"><p>Next: <a href="n.html" accesskey="n" rel="next">N</a></p></div>',
        '<div class="header"><p>Previous: <a href="p.html" accesskey="p" rel="prev">P</a>, '
        'Up: <a href="u.html" accesskey="u" rel="up">U</a> [<a href="i.html">Index</a>]</p></div>',
        '<div class="navheader"><table><tr><td>Chapter 2</td></tr></table></div>',
        # SQLite's pages: what its own search leaves out, a search box's choices
        '<div class=nosearch><div class="tagline">Small. Fast.</div><ul><li>Home</li></ul></div>',
        "<form><select><option>Search Documentation</option></select><button>Go</button></form>",
    ],
)
def test_a_pages_navigation_is_not_its_text(chrome: str) -> None:
    """What every page of a site repeats around its content (menus, breadcrumbs, a manual's
    Next/Previous/Up line, a search box) is no text of it: indexed, it is what a search for a
    section's name finds on every page, and a quote of it answers nothing."""
    assert text_of(f"{chrome}<h2>Body</h2><p>The content.</p>") == "## Body\n\nThe content."


def test_a_header_that_is_content_stays() -> None:
    """A ``header`` class with no Next/Previous/Up links in it (a reference page's title
    block) is content; so is a link whose text is words, or one to another page."""
    page = (
        '<div class="header"><div class="title">ffi.h File Reference</div></div>'
        '<p>See <a href="#types">the types</a> and <a href="other.html">¶</a>.</p>'
    )
    assert text_of(page) == "ffi.h File Reference\n\nSee the types and ¶."


def test_a_definitions_own_link_glyph_is_not_its_text() -> None:
    """texinfo's and Sphinx's definitions end their term with a link to its own place whose
    text is ``¶``; quoted, it reads "ffi_call ¶: ..."."""
    page = (
        '<dl><dt><a id="index-ffi_005fcall"></a><span><code>ffi_call</code>'
        '<a class="copiable-link" href="#index-ffi_005fcall"> ¶</a></span></dt>'
        "<dd><p>Calls the function.</p></dd></dl>"
    )
    assert text_of(page) == "ffi_call\n\nCalls the function."


def test_what_a_browser_never_shows_is_not_the_pages_text() -> None:
    """A page's hidden words (its ``hidden`` attribute, an inline ``display: none`` or
    ``visibility: hidden``, however written) were never read by anyone who read the page:
    kept, they could be quoted as "quotes verified" ("the valve is safe to open")."""
    page = (
        "<h1>Valve manual</h1><p>Operators must never open the valve without the key.</p>"
        '<p style="display:none">HIDDENSTYLE the valve is safe to open.</p>'
        "<p hidden>HIDDENATTR the valve is safe to open.</p>"
        '<div style="Visibility: Hidden"><p>HIDDENVIS the valve is safe.</p></div>'
        '<div hidden><p style="display: none">NESTED</p></div>'
        "<textarea>TEXTAREA</textarea>"
        '<p style="display:block">Shown.</p>'
    )
    assert text_of(page) == (
        "# Valve manual\n\nOperators must never open the valve without the key.\n\nShown."
    )

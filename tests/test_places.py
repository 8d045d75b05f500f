"""Places read from chunk texts alone: pages, heading paths, anchors, links."""

from __future__ import annotations

import pytest

from arborist._store.chunking import chunk_text
from arborist._store.places import (
    Place,
    anchor_attribute,
    chunk_places,
    github_slug,
    place_uri,
    placed_title,
    shown_text,
    split_anchor,
)
from tests.conftest import load_vectors

PDF, HTML, MD, NB = "application/pdf", "text/html", "text/markdown", "application/x-ipynb+json"


SHOWN = load_vectors("shown_text.json")


@pytest.mark.parametrize("vector", SHOWN, ids=[v["name"] for v in SHOWN])
def test_a_chunks_shown_text_holds_the_shared_vectors(vector: dict[str, str]) -> None:
    """js/test/text.test.js holds the same vectors: every face shows a chunk alike."""
    assert shown_text(vector["text"]) == vector["shown"]


def places(texts: list[str], media_type: str, version: str = "k2") -> list[Place]:
    return list(chunk_places(texts, media_type, version))


def test_a_pdf_chunk_is_on_one_plus_the_form_feeds_up_to_it() -> None:
    texts = ["Cover text", "more of page one", "\fPage two", "\f# Intro\n\nPage three", "tail"]
    assert [p.page for p in places(texts, PDF)] == [1, 1, 2, 3, 3]


def test_a_pdf_chunk_holding_empty_pages_is_on_the_last_of_them() -> None:
    assert [p.page for p in places(["one", "\f\f\fFour"], PDF)] == [1, 4]


def test_a_pdf_chunked_before_pages_were_marked_has_no_page() -> None:
    assert [p.page for p in places(["one", "two"], PDF, "k1")] == [None, None]


def test_only_pdfs_have_pages() -> None:
    assert places(["\fx"], HTML)[0].page is None


def test_a_pdf_outline_heading_after_a_form_feed_opens_a_section() -> None:
    texts = ["\f# Installing\n\nRun it.", "\f## From source\n\nBuild it.", "\fStill building."]
    found = places(texts, PDF)
    assert [(p.page, p.path) for p in found] == [
        (2, ("Installing",)),
        (3, ("Installing", "From source")),
        (4, ("Installing", "From source")),
    ]
    assert found[1].text() == "p. 3 · Installing › From source"


def test_a_heading_closes_those_at_its_level_and_deeper() -> None:
    texts = ["# A", "## B", "### C", "text", "## D", "# E", "body"]
    assert [p.path for p in places(texts, "text/plain")] == [
        ("A",), ("A", "B"), ("A", "B", "C"), ("A", "B", "C"), ("A", "D"), ("E",), ("E",),
    ]  # fmt: skip


def test_a_chunk_before_any_heading_has_no_path() -> None:
    assert places(["intro", "# A"], MD)[0] == Place()


def test_markdown_anchors_are_github_slugs_counted_for_repeats() -> None:
    texts = ["# Configuration", "## Logging", "## Logging", "## What's `new()`?"]
    assert [p.anchor for p in places(texts, MD)] == [
        "configuration", "logging", "logging-1", "whats-new",
    ]  # fmt: skip


def test_notebooks_are_slugged_as_markdown() -> None:
    assert places(["# Set up the data"], NB)[0].anchor == "set-up-the-data"


def test_an_explicit_id_attribute_is_the_anchor_and_not_part_of_the_path() -> None:
    found = places(["# Configuration {#config}", "## Logging {#config.logging}", "text"], HTML)
    assert found[2] == Place(None, ("Configuration", "Logging"), "config.logging")


def test_an_html_heading_without_an_id_has_no_anchor() -> None:
    assert places(["## Logging"], HTML)[0] == Place(None, ("Logging",), None)


def test_pdfs_and_plain_text_have_no_slug_anchor() -> None:
    assert places(["\f# Logging"], PDF)[0].anchor is None
    assert places(["Logging\n=======\n\ntext"], "text/x-rst")[0].anchor is None


def test_rst_underlines_rank_by_first_use() -> None:
    texts = ["Title\n=====", "Part\n----", "Sub\n~~~", "Other part\n----------", "Next\n===="]
    assert [p.path for p in places(texts, "text/x-rst")] == [
        ("Title",), ("Title", "Part"), ("Title", "Part", "Sub"), ("Title", "Other part"), ("Next",),
    ]  # fmt: skip


def test_underlined_headings_nest_inside_hash_headings_outside_markdown() -> None:
    """pydoc's text: "## Description", then a docstring's own underlined sections, then
    "## Classes", which closes them."""
    texts = ["# module statistics", "## Description\n    Stats.", "    Averages\n    --------",
             "    Exceptions\n    ----------", "## Classes\n    class X"]  # fmt: skip
    assert [p.path for p in places(texts, "text/plain")] == [
        ("module statistics",),
        ("module statistics", "Description"),
        ("module statistics", "Description", "Averages"),
        ("module statistics", "Description", "Exceptions"),
        ("module statistics", "Classes"),
    ]


def test_markdown_setext_equals_is_over_dash_whatever_comes_first() -> None:
    texts = ["Section\n-------", "Chapter\n=======", "Part\n----"]
    assert [p.path for p in places(texts, MD)] == [("Section",), ("Chapter",), ("Chapter", "Part")]


def test_an_atx_closing_sequence_is_not_part_of_the_heading() -> None:
    assert places(["## Logging ##"], MD)[0].path == ("Logging",)


def test_places_follow_the_chunker_on_a_real_markdown_text() -> None:
    text = "# Guide\n\nIntro.\n\n## Install\n\nRun it.\n\n### Linux\n\nApt.\n\n## Use\n\nAsk."
    chunks = chunk_text(text)
    found = places([c.text for c in chunks], MD)
    # The chunker's own heading for each chunk is the last element of the place's path.
    assert [p.path[-1] for p in found] == [c.heading for c in chunks]
    assert found[2] == Place(None, ("Guide", "Install", "Linux"), "linux")


@pytest.mark.parametrize(
    ("uri", "place", "linked"),
    [
        ("file:///m/a.pdf", Place(12), "file:///m/a.pdf#page=12"),
        ("https://x.org/a.html", Place(None, ("A",), "a:b"), "https://x.org/a.html#a:b"),
        ("https://x.org/a.html#old", Place(None, ("A",), "new"), "https://x.org/a.html#new"),
        ("http://x.org/a.md", Place(None, ("É",), "é"), "http://x.org/a.md#%C3%A9"),
        ("javascript:alert(1)", Place(3), "javascript:alert(1)"),
        ("data:text/html,x", Place(None, ("A",), "a"), "data:text/html,x"),
        ("file:///m/a.html", Place(None, ("A",), None), "file:///m/a.html"),
        ("file:///m/a.html", None, "file:///m/a.html"),
    ],
)
def test_a_link_opens_at_the_place_only_for_file_and_web_uris(
    uri: str, place: Place | None, linked: str
) -> None:
    assert place_uri(uri, place) == linked


def test_a_placed_title_names_the_page_and_the_path_past_a_repeated_title() -> None:
    assert placed_title("Libtasn1", Place(12)) == "Libtasn1 · p. 12"
    place = Place(None, ("git-config(1)", "Configuration", "Logging"), "logging")
    assert placed_title("git-config(1)", place) == "git-config(1) · Configuration › Logging"
    assert placed_title("Guide", Place(None, ("Guide",), "guide")) == "Guide"
    assert placed_title("Guide", None) == "Guide"


@pytest.mark.parametrize(
    ("element_id", "attribute"),
    [
        ("config", " {#config}"),
        ("_a.b:c-9", " {#_a.b:c-9}"),
        ("a b", ""),
        ("a}b", ""),
        ('x"><script>', ""),
        ("", ""),
        ("x" * 129, ""),
        (None, ""),
    ],
)
def test_only_a_safe_id_becomes_an_anchor_attribute(element_id: str | None, attribute: str) -> None:
    assert anchor_attribute(element_id) == attribute


def test_an_attribute_splits_back_off_a_heading() -> None:
    assert split_anchor("Logging {#logging}") == ("Logging", "logging")
    assert split_anchor("Sets {#a b}") == ("Sets {#a b}", None)
    assert split_anchor("Plain") == ("Plain", None)


def test_github_slug_reads_a_link_as_its_text() -> None:
    assert github_slug("See [the guide](http://x.org/g) now") == "see-the-guide-now"
    assert github_slug("snake_case and-dash") == "snake_case-and-dash"


FENCED = """# Guide

Read this first.

## Install

```sh
pip install guide

# then check it
guide --version
```

~~~python
import guide

## not a heading either
guide.run()
~~~

## Usage

Run it.
"""


def test_a_hash_line_inside_a_fenced_code_block_is_no_heading() -> None:
    """The chunker starts a chunk at a ``# `` line inside a fence (its bytes are the
    document's, kept as they are); the place is read past it: the path and anchor stay
    the section's, for that chunk and every later one, and a later heading's slug is not
    counted against the comment's."""
    chunks = chunk_text(FENCED)
    texts = [c.text for c in chunks]
    comment = next(i for i, t in enumerate(texts) if t.startswith("# then check it"))
    inner = next(i for i, t in enumerate(texts) if t.startswith("## not a heading"))
    usage = next(i for i, t in enumerate(texts) if t.startswith("## Usage"))
    found = places(texts, MD)
    install = Place(None, ("Guide", "Install"), "install")
    assert found[comment] == found[inner] == install
    assert found[usage] == Place(None, ("Guide", "Usage"), "usage")
    assert found[-1] == found[usage]


def test_a_fence_left_open_runs_to_the_end_and_a_longer_fence_closes_it() -> None:
    texts = ["# A", "````md\n```\n# still code", "# still code too\n````", "# B"]
    assert [p.path for p in places(texts, MD)] == [("A",), ("A",), ("A",), ("B",)]
    assert places(["# A", "```\n# code", "# more code"], MD)[-1].path == ("A",)

"""An answer's Markdown (arborist_nb._markdown): the vectors the widget's reader holds too,
and writers that let nothing form but what was read."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from arborist_nb import _markdown as markdown

VECTORS = json.loads(
    (Path(__file__).parent / "vectors" / "markdown.json").read_text(encoding="utf-8")
)
TAGS = {"div", "pre", "code", "strong", "em", "a", "ul", "ol", "li", "blockquote", "br"}
TAGS |= {"table", "thead", "tbody", "tr", "th", "td"}


class Tags(HTMLParser):
    """Every start tag and its attributes, as a browser's parser reads them."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.seen.append((tag, dict(attrs)))


def tags(markup: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Tags()
    parser.feed(markup)
    return parser.seen


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_the_reader_holds_the_shared_vectors(vector: dict[str, Any]) -> None:
    assert markdown.parse(vector["text"]) == vector["blocks"]


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_the_html_has_only_its_own_tags_and_safe_links(vector: dict[str, Any]) -> None:
    for tag, attrs in tags(markdown.to_html(markdown.parse(vector["text"]))):
        assert tag in TAGS, (vector["name"], tag)
        assert not any(name.startswith("on") for name in attrs), (vector["name"], attrs)
        href = attrs.get("href")
        assert href is None or re.match(r"^(https?|mailto):", href), (vector["name"], href)


def test_markdown_renders_and_nothing_else_does() -> None:
    text = "Use `median()` **now**:\n\n- one [E1]\n- [docs](https://docs.python.org)\n\n<b>x</b>"
    html = markdown.to_html(markdown.parse(text))
    assert "<code>median()</code> <strong>now</strong>" in html
    assert "<li>one [E1]</li>" in html
    assert '<a href="https://docs.python.org" target="_blank" rel="noopener noreferrer">' in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>" not in html


def test_a_citation_stays_in_its_paragraph() -> None:
    """A citation written as a block element would close a <p> and take a line of its own."""
    html = markdown.to_html(
        markdown.parse("It returns the middle [E1]. And more."),
        lambda label, raw: f"<details><summary>{raw}</summary></details>",
    )
    assert html.startswith('<div class="arborist-p"')
    assert html.endswith("<details><summary>[E1]</summary></details>. And more.</div>")


def test_a_table_renders_as_a_table_its_cells_escaped() -> None:
    text = "| data | median |\n|:--|--:|\n| `[1, 3, 5]` | **3** <b>x</b> |\n| a \\| b |"
    markup = markdown.to_html(markdown.parse(text))
    seen = [tag for tag, _ in tags(markup)]
    assert seen[:5] == ["div", "table", "thead", "tr", "th"]
    assert seen.count("tr") == 3 and seen.count("td") == 4
    assert (
        "<code>[1, 3, 5]</code>" in markup and "<strong>3</strong> &lt;b&gt;x&lt;/b&gt;" in markup
    )
    assert ">a | b</td>" in markup
    aligns = [
        re.search(r"text-align:(\w+)", attrs.get("style") or "") for tag, attrs in tags(markup)
    ]
    assert [m.group(1) for m in aligns if m] == ["left", "right"] * 3
    box = tags(markup)[0][1]["style"] or ""
    assert "overflow-x:auto" in box  # a wide table scrolls in its box


def test_a_code_block_is_in_a_box_of_the_themes_colours() -> None:
    markup = markdown.to_html(markdown.parse("```\nprint('<b>')\n```"))
    [(tag, attrs), _] = tags(markup)
    style = dict(part.split(":", 1) for part in (attrs.get("style") or "").split(";"))
    assert tag == "pre" and style["background"].startswith("var(--jp-layout-color2")
    assert style["padding"] and style["margin"] and style["overflow-x"] == "auto"
    assert markup.endswith("<code>print(&#x27;&lt;b&gt;&#x27;)</code></pre>")


def test_a_line_break_is_kept() -> None:
    """A table without its delimiter row is a paragraph: its rows stay lines."""
    markup = markdown.to_html(markdown.parse("| a | b |\n| 1 | 2 |"))
    assert markup.endswith(">| a | b |<br>\n| 1 | 2 |</div>")  # the text keeps its line too


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_the_markdown_writer_reads_back_to_the_same_tree(vector: dict[str, Any]) -> None:
    """What a frontend's Markdown renderer gets forms only what was read: written back and
    read again (its entities decoded, as CommonMark decodes them), the tree is the same: no
    link, emphasis or code appears from text."""
    blocks = markdown.parse(vector["text"])
    again = markdown.parse(markdown.to_markdown(blocks))
    assert _plain(again, decode=True) == _plain(blocks, decode=False)


def _plain(blocks: list[Any], *, decode: bool) -> Any:
    """A tree as the writer keeps it: citations as their text (written as escaped text),
    adjacent texts joined, headings as bold paragraphs, code blocks without a language."""

    def inline(nodes: list[Any]) -> list[Any]:
        out: list[Any] = []
        for node in nodes:
            if node[0] in ("t", "cite"):
                text = node[-1] if node[0] == "cite" else node[1]
                text = html.unescape(text) if decode else text
                if out and out[-1][0] == "t":
                    out[-1] = ["t", out[-1][1] + text]
                else:
                    out.append(["t", text])
            elif node[0] in ("b", "i"):
                out.append([node[0], inline(node[1])])
            elif node[0] == "a":
                out.append(["a", node[1], inline(node[2])])
            else:
                out.append(list(node))
        return out

    shapes = {
        "p": lambda b: ["p", inline(b[1])],
        "quote": lambda b: ["quote", inline(b[1])],
        "code": lambda b: ["code", b[2]],
        "h": lambda b: ["p", [["b", inline(b[2])]]],
        "ul": lambda b: ["ul", [inline(i) for i in b[1]]],
        "ol": lambda b: ["ol", b[1], [inline(i) for i in b[2]]],
        "table": lambda b: ["table", b[1], [inline(c) for c in b[2]], rows(b[3])],
    }

    def rows(body: list[Any]) -> list[Any]:
        return [[inline(cell) for cell in row] for row in body]

    return [shapes[block[0]](block) for block in blocks]

"""HTML parse work is linear in the page: an honest page reaches the parser unchanged, a
hostile one is rewritten (tags only) so the parser's stack, attribute lists and selects
stay within bounds, and every word is kept."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from selectolax.lexbor import LexborHTMLParser, LexborNode

from arborist._store.html_bounds import MAX_ATTRIBUTES, MAX_DEPTH, MAX_OPTIONS, bounded_html
from arborist._store.html_text import load_html

HONEST_PAGES = {
    "article": """<!doctype html><html><head><title>Trees</title>
<script>var t = "<div><div><div>" + '<span>'; if (a < b) { x = "</p>"; }</script>
<style>p > a { color: red }</style></head><body>
<nav><ul><li><a href="/">Home</a><li><a href='/a?x=1&y=2'>About</a></ul></nav>
<h1 class="title" data-x='a > b'>Trees of the stream</h1>
<p>Alders <b>fix</b> nitrogen.<p>Birches <i>colonise</i> open ground.
<table><tr><td>oak<td>ash<tr><td>elm<td>yew</table>
<dl><dt>rowan<dd>mountain ash<dt>hazel<dd>cobnut</dl>
<svg viewBox="0 0 10 10"><title>a <b>leaf</b></title><style>g{}</style><g><path d="M0 0"/></g></svg>
<select name=tree>""" + "".join(f"<option value={i}>tree {i}" for i in range(100)) + """</select>
<!-- a comment with <div> inside --><pre>  kept
  as written</pre><textarea><div></textarea>
<div """ + " ".join(f'data-a{i}="{i}"' for i in range(60)) + """>sixty attributes</div>
</body></html>""",
    "nested sections": "<body>" + "<section><div>" * 200 + "deep" + "</div></section>" * 200,
    "unclosed everyday tags": "<body>" + "<p>para <b>bold <i>both</i></b>" * 2000
    + "<ul>" + "<li>item" * 2000 + "</ul><table>" + "<tr><td>a<td>b" * 2000 + "</table>",
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(HONEST_PAGES))
def test_an_honest_page_reaches_the_parser_unchanged(name: str) -> None:
    page = HONEST_PAGES[name]
    assert bounded_html(page) is page


def _repeat(unit: str, times: int) -> str:
    return unit * times


HOSTILE: dict[str, Callable[[int], str]] = {
    "nested divs": lambda n: "<body>" + _repeat("<div>", n) + "x" + _repeat("</div>", n),
    "unclosed divs": lambda n: "<body>" + _repeat("<div>w ", n),
    "nested pre": lambda n: _repeat("<pre>", n),
    "nested lists": lambda n: _repeat("<ul><li>x", n),
    "nested tables": lambda n: _repeat("<table><tr><td>x", n),
    "bold with ids": lambda n: "".join(f"<b id={i}>x" for i in range(n)),
    "mismatched ends": lambda n: _repeat("<div></span>", n),
    "svg groups": lambda n: "<svg>" + _repeat("<g>", n),
    "attributes": lambda n: "<div " + " ".join(f"a{i}=1" for i in range(n)) + ">x</div>",
    "quoted attributes": lambda n: (
        "<div " + " ".join(f'a{i}="v>{i}"' for i in range(n)) + ">x</div>"
    ),
    "options": lambda n: "<select>" + _repeat("<option>x", n),
}


def _tree_work(html: str) -> tuple[int, int, int]:
    """What the parser held for ``html``: its deepest element, most attributes on one
    element, most options in one select (an iterative walk: no depth limit)."""
    tree = LexborHTMLParser(html)
    deepest = most_attributes = most_options = 0
    stack: list[tuple[LexborNode, int]] = [(tree.root, 1)] if tree.root is not None else []
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        most_attributes = max(most_attributes, len(node.attributes))
        children = list(node.iter())
        if node.tag == "select":
            most_options = max(most_options, sum(c.tag == "option" for c in children))
        stack.extend((child, depth + 1) for child in children)
    return deepest, most_attributes, most_options


@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_a_hostile_page_is_rewritten_within_the_parsers_bounds(shape: str) -> None:
    page = HOSTILE[shape](3000)
    raw = _tree_work(page)
    assert raw[0] > MAX_DEPTH or raw[1] > MAX_ATTRIBUTES or raw[2] > MAX_OPTIONS
    deepest, most_attributes, most_options = _tree_work(bounded_html(page))
    assert deepest <= MAX_DEPTH + 8  # html, head, body and the implied table rows above
    assert most_attributes <= MAX_ATTRIBUTES
    assert most_options <= MAX_OPTIONS


def test_a_rewritten_page_keeps_every_word() -> None:
    words = [f"w{i}" for i in range(3000)]
    deep = "<body>" + "".join(f"<div>{w} " for w in words) + "</div>" * 3000
    assert bounded_html(deep) is not deep
    _title, text = load_html(deep.encode(), "deep.html", None)
    assert text.split() == words
    tagged = "<p " + " ".join(f"a{i}=1" for i in range(500)) + ">kept words</p>"
    assert load_html(tagged.encode(), "attrs.html", None)[1] == "kept words"


def _cpu(work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.parametrize(
    "shape", ["nested divs", "unclosed divs", "nested lists", "bold with ids", "attributes"]
)
def test_parse_work_grows_linearly_with_the_page(shape: str) -> None:
    """8x the page in under 24x the CPU time (these shapes took 64x and more when the
    parser's work grew with the square of the page)."""
    small, big = (HOSTILE[shape](n).encode() for n in (4_000, 32_000))
    ratio = _cpu(lambda: load_html(big, "big.html", None)) / max(
        _cpu(lambda: load_html(small, "small.html", None)), 1e-4
    )
    assert ratio < 24, f"{shape}: 8x the page took {ratio:.1f}x the time"

"""What an answer quotes from the chunks it cites (arborist._proofs.quotes): the vectors the
widget marks by too, and the `%%ask` output marking exactly those spans (issue #35)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from arborist._proofs.quotes import QUOTE_RUN, claims_for, quoted_ranges
from arborist._qa.support import ROW_WORDS, quotes_cited, row_words
from arborist._store.places import shown_text
from arborist_nb._display import Answer
from tests.conftest import load_vectors

VECTORS: list[dict[str, Any]] = load_vectors("quotes.json")

STATISTICS = """\
# statistics

median(data)
    Return the median (middle value) of numeric data.

    When the number of data points is odd, return the middle data point.
    When the number of data points is even, the median is interpolated by
    taking the average of the two middle values.

median_high(data)
    Return the high median of data.

    When the number of data points is odd, the middle value is returned.
    When it is even, the larger of the two middle values is returned.
"""


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_the_marked_spans_are_the_vectors(vector: dict[str, Any]) -> None:
    chunk = vector["chunk"]
    ranges = quoted_ranges(chunk, claims_for(vector["answer"], vector["label"]))
    assert [chunk[a:b] for a, b in ranges] == vector["marked"]


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_a_cited_row_says_quotes_verified_only_where_its_bytes_hold_a_quote(
    vector: dict[str, Any],
) -> None:
    said = row_words(vector["chunk"], vector["answer"], vector["label"], cited=True)
    assert said == vector["row"]
    # The same chunk, not cited: retrieved, whatever the answer's words.
    uncited = row_words(vector["chunk"], vector["answer"], vector["label"], cited=False)
    assert uncited == "retrieved, not cited"


def test_a_row_with_no_text_here_claims_no_quote() -> None:
    assert (
        row_words(None, "Return the median (middle value) [E1].", "E1", True)
        == (ROW_WORDS["unquoted"])
    )
    assert {v["row"] for v in VECTORS} == {ROW_WORDS["quoted"], ROW_WORDS["unquoted"]}


def test_the_vectors_cover_what_the_rule_promises() -> None:
    names = " ".join(v["name"] for v in VECTORS)
    for promise in ("look-alike", "paraphrase", "three words", "ellipsis", "twice", "underscore"):
        assert promise in names
    assert QUOTE_RUN == 4


def test_claims_are_the_text_before_each_citation_of_the_label() -> None:
    answer = "One thing [E1]. Another [E2]. A third [E1 | t | u] and a tail"
    assert claims_for(answer, "E1") == ["One thing", ". A third"]
    assert claims_for(answer, "E3") == []


@pytest.fixture
def shell(tmp_path: Path) -> Iterator[InteractiveShell]:
    (tmp_path / "statistics.md").write_text(STATISTICS, encoding="utf-8")
    ip = InteractiveShell.instance()
    assert ip.run_cell("%load_ext arborist_nb").success
    assert ip.run_line_magic("arborist", f"ingest {tmp_path}") is None
    yield ip
    ip.run_line_magic("unload_ext", "arborist_nb")
    InteractiveShell.clear_instance()


def marks(markup: str) -> list[str]:
    return [html.unescape(m) for m in re.findall(r"<mark[^>]*>(.*?)</mark>", markup, re.S)]


def test_the_ask_output_marks_in_the_cited_chunk_exactly_what_the_answer_quotes(
    shell: InteractiveShell,
) -> None:
    answer = shell.run_cell_magic("ask", "", "What does median return?")
    assert isinstance(answer, Answer)
    markup = answer._repr_html_()
    item = next(e for e in answer.evidence if e.cited)
    assert item.text is not None
    wanted = [
        item.text[a:b] for a, b in quoted_ranges(item.text, claims_for(answer.text, item.label))
    ]
    assert wanted, answer.text  # the extractive answer quotes its sentence
    # Once in the citation's disclosure, once in the fold's evidence: the same spans.
    cite = re.search(r'<span class="arborist-chunk"[^>]*>(.*?)</span>', markup, re.S)
    assert cite is not None and marks(cite.group(1)) == wanted
    assert marks(markup) == wanted * 2
    # median_high's look-alike sentence is not marked for an answer about median.
    assert not any("returned" in m or "high" in m for m in wanted), wanted


def styles(markup: str, pattern: str) -> dict[str, str]:
    """The inline style of the first element ``pattern`` finds, as property: value."""
    found = re.search(pattern + r'[^>]*?style="([^"]*)"', markup)
    assert found is not None, pattern
    return {k.strip(): v.strip() for k, v in (p.split(":", 1) for p in found[1].split(";") if p)}


def test_an_opened_citation_leaves_its_sentence_on_its_line(shell: InteractiveShell) -> None:
    """The chunk is out of flow, under the line at the answer's left; a hidden copy as wide
    and pulled left by its width adds height to the line and no width, so the bracket and
    the words after it keep their place."""
    answer = shell.run_cell_magic("ask", "", "What does median return?")
    assert isinstance(answer, Answer)
    markup = answer._repr_html_()
    box = styles(markup, r'<div class="arborist-md"')
    assert box["position"] == "relative" and box["container-type"] == "inline-size"
    assert styles(markup, r'<details class="arborist-cite"')["display"] == "inline-block"
    chunk = styles(markup, r'<span class="arborist-chunk"')
    assert chunk["position"] == "absolute" and chunk["left"] == "0"
    assert chunk["width"] == "100cqw" and chunk["box-sizing"] == "border-box"
    held = re.search(
        r'<span aria-hidden="true" style="([^"]*)">(.*?)</span></details>', markup, re.S
    )
    assert held is not None
    spacer = styles(held[0], "<span")
    assert spacer["visibility"] == "hidden" and spacer["margin-left"] == "-100cqw"
    assert {k: v for k, v in spacer.items() if k not in ("visibility", "margin-left")} == {
        k: v for k, v in chunk.items() if k not in ("position", "left", "z-index", "background")
    }
    item = next(e for e in answer.evidence if e.cited)
    assert item.text is not None and html.unescape(held[2]) == shown_text(item.text)
    assert "<mark" not in held[2]  # the fold and the citation mark the quote once each


MEANS = """\
# means

mean(data)
    Return the sample arithmetic mean of data, unlike the median of data.
"""


def test_each_evidence_row_of_the_ask_output_says_what_was_checked_for_it(
    shell: InteractiveShell, tmp_path: Path
) -> None:
    """Issue #35: "quotes verified" on a cited row whose bytes hold the answer's quote,
    "retrieved, not cited" on a row the answer does not cite; never the badge's word for
    every row."""
    other = tmp_path / "more" / "means.md"
    other.parent.mkdir()
    other.write_text(MEANS, encoding="utf-8")
    assert shell.run_line_magic("arborist", f"ingest {other.parent}") is None
    answer = shell.run_cell_magic("ask", "", "What does median return?")
    assert isinstance(answer, Answer)
    markup = answer._repr_html_()
    said = dict(
        re.findall(
            r'<details id="[^"]*-(E\d+)" data-proof="pass">.*?'
            r'<span class="arborist-row-check">(.*?)</span>',
            markup,
            re.S,
        )
    )
    assert set(said) == {e.label for e in answer.evidence}, markup
    for item in answer.evidence:
        claims = "\n".join(claims_for(answer.text, item.label))
        quoted = quotes_cited(claims, [item.text or ""])
        wanted = "retrieved, not cited" if not item.cited else ROW_WORDS["unquoted"]
        assert said[item.label] == (ROW_WORDS["quoted"] if item.cited and quoted else wanted)
    assert set(said.values()) == {ROW_WORDS["quoted"], "retrieved, not cited"}, said

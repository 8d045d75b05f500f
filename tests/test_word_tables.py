"""Word tables written as text (arborist._text.text_words.word_list, word_pairs): each reads as the
table it spells, and a table that names a word twice, or a pair without its meaning, is
refused when the module that holds it is imported, not read as its last entry."""

from __future__ import annotations

import pytest

from arborist._store.html_bounds import _VOID
from arborist._text.text_words import word_list, word_pairs


def test_a_word_list_reads_its_words_in_order_across_lines_and_groups() -> None:
    assert word_list("br  hr\n    img", "wbr") == ("br", "hr", "img", "wbr")


def test_a_word_list_that_names_a_word_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="br given twice"):
        word_list("br hr", "br")


def test_word_pairs_read_each_word_with_its_meaning() -> None:
    assert word_pairs("drew:draw found:find", "\n slain:slay") == {
        "drew": "draw",
        "found": "find",
        "slain": "slay",
    }


@pytest.mark.parametrize("table", ["drew:draw drew:drawn", "drew", "drew:", ":draw"])
def test_word_pairs_refuse_a_word_given_twice_or_a_pair_without_both_halves(table: str) -> None:
    with pytest.raises(ValueError, match="word:meaning"):
        word_pairs(table)


def test_a_table_written_as_text_is_the_set_the_parser_reads() -> None:
    """One of the converted tables, as the HTML reader uses it: void elements have no end."""
    assert {"br", "img", "wbr", "input"} <= _VOID
    assert "div" not in _VOID

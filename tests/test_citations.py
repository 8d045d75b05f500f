"""Citations: the reading rule case by case, then fuzzed (it must never raise)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arborist._proofs.citations import (
    Citation,
    cited_labels,
    defang_citations,
    format_citation,
    parse_citations,
)


def test_a_full_citation_is_read_with_its_position() -> None:
    text = "Stan Lee. [E1 | Spider-Man | file:///comics/spider-man.md] And more."
    (citation,) = parse_citations(text)
    assert citation == Citation("E1", "Spider-Man", "file:///comics/spider-man.md", 10, 58)
    assert text[citation.start : citation.end] == "[E1 | Spider-Man | file:///comics/spider-man.md]"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[E2|Batman|b.md]", ("E2", "Batman", "b.md")),
        ("[  E2   |   Batman  |  b.md  ]", ("E2", "Batman", "b.md")),
        ("[E3 | A | B | c.md]", ("E3", "A | B", "c.md")),
        ("[E3 | a|b | c.md]", ("E3", "a|b", "c.md")),
        ("[E4 |  | u]", ("E4", "", "u")),
        ("[E5 | t | ]", ("E5", "t", "")),
        ("[E01 | t | u]", ("E1", "t", "u")),
        ("[E7]", ("E7", "", "")),
        ("[ E8 ]", ("E8", "", "")),
        ("[E123456 | t | u]", ("E123456", "t", "u")),
        ("[E1 | Ça — 東京 | file:///é.md]", ("E1", "Ça — 東京", "file:///é.md")),
    ],
)
def test_spacing_pipes_in_titles_and_the_short_form_are_tolerated(
    text: str, expected: tuple[str, str, str]
) -> None:
    (citation,) = parse_citations(text)
    assert (citation.label, citation.title, citation.uri) == expected


@pytest.mark.parametrize(
    "text",
    [
        "[E1 | only two parts]",
        "[X1 | t | u]",
        "[E | t | u]",
        "[e1 | t | u]",
        "[E1x | t | u]",
        "[E1234567 | t | u]",
        "[E١ | t | u]",  # a non-ASCII digit
        "[E1 | t\n | u]",
        "[]",
        "[ ]",
        "[E1 | t | u",
        "E1 | t | u]",
        "plain text with no brackets",
        "",
    ],
)
def test_malformed_brackets_are_ignored(text: str) -> None:
    assert parse_citations(text) == []


def test_nested_brackets_yield_the_inner_citation() -> None:
    text = "see [[E1 | a | b]] and [note [E2]]"
    assert [(c.label, c.start, c.end) for c in parse_citations(text)] == [
        ("E1", 5, 17),
        ("E2", 29, 33),
    ]


def test_cited_labels_are_unique_in_order_of_first_appearance() -> None:
    text = "a [E2 | t | u] b [E1] c [E2 | t | u] d [E02 | x | y] e [E3 | t | u]"
    assert cited_labels(text) == ["E2", "E1", "E3"]


def test_format_citation_writes_what_parse_reads() -> None:
    written = format_citation("E1", "Title [draft]\nsecond line", "file:///a|b [1].md")
    assert written == "[E1 | Title (draft) second line | file:///a%7Cb %5B1%5D.md]"
    (citation,) = parse_citations(written)
    assert (citation.title, citation.uri) == (
        "Title (draft) second line",
        "file:///a%7Cb %5B1%5D.md",
    )


def test_defanging_turns_citations_into_parentheses_and_nothing_else() -> None:
    assert defang_citations("x [E1 | t | u] y [not one] [E2]") == "x (E1 | t | u) y [not one] (E2)"
    assert defang_citations("no citations [at | all]") == "no citations [at | all]"


def test_defanging_an_inner_citation_cannot_complete_an_outer_one() -> None:
    text = "[E1 | a [E2 | b | c] | d]"
    assert parse_citations(text)[0].label == "E2"
    assert parse_citations(defang_citations(text)) == []


# --------------------------------------------------------------------------- fuzz

_TRICKY = st.text(st.sampled_from(list("[]|E0123456789 \n\t\rab|é")), max_size=80)
_ANY = st.one_of(_TRICKY, st.text(max_size=200))


@given(_ANY)
def test_parsing_never_raises_and_every_span_reads_back_as_itself(text: str) -> None:
    for citation in parse_citations(text):
        span = text[citation.start : citation.end]
        assert span.startswith("[") and span.endswith("]")
        assert parse_citations(span) == [
            Citation(citation.label, citation.title, citation.uri, 0, len(span))
        ]
        assert citation.label.startswith("E") and citation.label[1:].isdigit()
    labels = cited_labels(text)
    assert len(labels) == len(set(labels))


@given(_ANY)
def test_defanged_text_holds_no_citation_and_keeps_its_length(text: str) -> None:
    defanged = defang_citations(text)
    assert parse_citations(defanged) == []
    assert len(defanged) == len(text)


@given(
    number=st.integers(min_value=1, max_value=999_999),
    title=st.text(max_size=40),
    uri=st.text(max_size=40),
    before=st.text(max_size=20),
)
def test_any_formatted_citation_reads_back(number: int, title: str, uri: str, before: str) -> None:
    written = format_citation(f"E{number}", title, uri)
    (citation,) = parse_citations(written)
    assert citation.label == f"E{number}"
    assert citation.title == " ".join(title.replace("[", "(").replace("]", ")").split())
    assert "|" not in citation.uri and "[" not in citation.uri
    text = defang_citations(before) + " " + written
    assert cited_labels(text) == [f"E{number}"]

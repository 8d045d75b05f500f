"""Chunking is deterministic, bounded, heading-aware and keeps the document's words verbatim."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from arborist.store.chunking import CHUNKING_VERSION, MAX_CHARS, chunk_text


def test_headings_start_new_chunks_and_label_them() -> None:
    text = "# Intro\n\nFirst paragraph.\n\nSecond.\n\n## Usage\n\nCall it.\n"
    chunks = chunk_text(text)
    assert [c.text for c in chunks] == [
        "# Intro\n\nFirst paragraph.\n\nSecond.",
        "## Usage\n\nCall it.",
    ]
    assert [c.heading for c in chunks] == ["Intro", "Usage"]


def test_rst_titles_are_headings() -> None:
    text = "Title\n=====\n\nBody text.\n\nSection\n-------\n\nMore."
    assert [c.heading for c in chunk_text(text)] == ["Title", "Section"]


def test_paragraphs_pack_until_the_bound() -> None:
    para = "word " * 100  # 500 chars
    chunks = chunk_text("\n\n".join([para.strip()] * 5))
    assert all(len(c.text) <= MAX_CHARS for c in chunks)
    assert len(chunks) == 3  # two paragraphs fit in a chunk, the third does not


def test_an_overlong_paragraph_is_cut_at_sentences_then_words() -> None:
    sentence = "This sentence is about forty characters. "
    chunks = chunk_text(sentence * 100)
    assert len(chunks) > 1
    assert all(len(c.text) <= MAX_CHARS for c in chunks)
    assert all(c.text.endswith(".") for c in chunks)
    unbroken = "x" * (MAX_CHARS * 2 + 5)
    assert [len(c.text) for c in chunk_text(unbroken)] == [MAX_CHARS, MAX_CHARS, 5]


def test_empty_and_blank_text_give_no_chunks() -> None:
    assert chunk_text("") == []
    assert chunk_text("\n\n   \n\t\n") == []


def test_the_version_names_the_rules() -> None:
    assert CHUNKING_VERSION == "k1"


texts = st.lists(
    st.one_of(
        st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=300),
        st.sampled_from(["# Heading", "Title\n=====", "## Sub"]),
    ),
    max_size=30,
).map("\n\n".join)


@given(texts)
def test_chunking_is_deterministic_bounded_and_loses_no_words(text: str) -> None:
    chunks = chunk_text(text)
    assert chunks == chunk_text(text)
    assert all(0 < len(c.text) <= MAX_CHARS for c in chunks)
    assert "".join(text.split()) == "".join("".join(c.text for c in chunks).split())

"""Chunking is deterministic, bounded, heading-aware and keeps the document's words verbatim."""

from __future__ import annotations

import random
import re
import sys
from functools import partial

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arborist._store import chunking
from arborist._store.chunking import CHUNKING_VERSION, MAX_CHARS, Chunk, chunk_text, iter_chunks
from tests.hypothesis_sizes import scaled_examples
from tests.linear import cpu_seconds


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
    assert CHUNKING_VERSION == "k2"


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


# --- the k1 rules as first written: every input must chunk byte-identically -------------------
# A verbatim copy of chunking.py before issue #11 made it linear (it copied the remainder
# of a paragraph on every hard cut). Chunk leaves are committed, so the rewrite may change
# how long chunking takes, never what it gives. k2 (issue #40) is k1 but for form feeds,
# which start a chunk (a PDF's pages); no other text holds one (normalization removes them),
# so every text without one must still chunk as k1 did.

_K1_BLANK_LINES = re.compile(r"\n[ \t]*\n+")
_K1_MARKDOWN_HEADING = re.compile(r"#{1,6} \S")
_K1_RST_UNDERLINE = re.compile(r"([=\-~^\"'`#*+<>:._])\1{2,}")
_K1_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _k1_heading_of(block: str) -> str | None:
    lines = block.split("\n")
    first = lines[0].strip()
    if _K1_MARKDOWN_HEADING.match(first):
        return first.lstrip("#").strip()
    underline = lines[1].strip() if len(lines) >= 2 else ""
    if first and _K1_RST_UNDERLINE.fullmatch(underline) and len(underline) >= len(first):
        return first
    return None


def _k1_split_long(block: str) -> list[str]:
    pieces: list[str] = []
    current = ""
    for sentence in _K1_SENTENCE_END.split(block):
        for part in _k1_hard_wrap(sentence):
            candidate = f"{current} {part}" if current else part
            if len(candidate) <= MAX_CHARS:
                current = candidate
            else:
                pieces.append(current)
                current = part
    if current:
        pieces.append(current)
    return pieces


def _k1_hard_wrap(text: str) -> list[str]:
    parts: list[str] = []
    while len(text) > MAX_CHARS:
        cut = text.rfind(" ", 0, MAX_CHARS + 1)
        if cut <= 0:
            cut = MAX_CHARS
        parts.append(text[:cut].rstrip())
        text = text[cut:].lstrip()
    if text:
        parts.append(text)
    return parts


def k1_chunk_text(text: str) -> list[Chunk]:
    chunks: list[Chunk] = []
    current: list[str] = []
    size = 0
    heading: str | None = None

    def flush() -> None:
        nonlocal current, size
        if current:
            chunks.append(Chunk("\n\n".join(current), heading))
        current, size = [], 0

    for raw in _K1_BLANK_LINES.split(text.replace("\r\n", "\n")):
        block = raw.strip("\n").rstrip()
        if not block.strip():
            continue
        opens = _k1_heading_of(block)
        if opens is not None:
            flush()
            heading = opens
        for piece in [block] if len(block) <= MAX_CHARS else _k1_split_long(block):
            added = len(piece) + (2 if current else 0)
            if current and size + added > MAX_CHARS:
                flush()
                added = len(piece)
            current.append(piece)
            size += added
    flush()
    return chunks


def _same_as_k1(text: str) -> None:
    text = text.replace("\f", "")  # k2 differs from k1 on form feeds alone (see above)
    expected = k1_chunk_text(text)
    assert chunk_text(text) == expected
    assert list(iter_chunks(text)) == expected


# Characters every rule turns on: spaces the hard wrap cuts at, whitespace only strip() knows
# (tab, NBSP, NEL, ideographic space, line/paragraph separators), sentence ends, CR/LF, the
# marks of headings and RST underlines, and plain letters.
_EDGY = " \t\n\r.!?#=-~*`:\u00a0\u0085\u2003\u2028\u3000\x0b\x0cab"


def _runs(rng: random.Random) -> str:
    """A random text made of runs, some around MAX_CHARS long, of a few characters."""
    out = []
    for _ in range(rng.randint(1, 12)):
        alphabet = rng.sample(_EDGY, rng.randint(1, 6))
        length = rng.choice(
            [
                1,
                2,
                3,
                rng.randint(1, 80),
                rng.randint(MAX_CHARS - 3, MAX_CHARS + 3),
                rng.randint(1, 4000),
            ]
        )
        if rng.random() < 0.5:
            out.append("".join(rng.choices(alphabet, k=length)))
        else:  # one character repeated: unbroken words, space runs, sentence-end runs
            out.append(rng.choice(alphabet) * length)
    return "".join(out)


def _prose(rng: random.Random) -> str:
    """Headings, paragraphs and over-long paragraphs with and without sentence ends."""
    blocks = []
    for _ in range(rng.randint(1, 10)):
        kind = rng.random()
        if kind < 0.15:
            blocks.append(
                rng.choice(["# Title", "## Sub section", "Title\n=====", "T\n-", "#nope"])
            )
            continue
        words = [
            "x" * rng.choice([1, 3, 7, 40, MAX_CHARS - 1, MAX_CHARS, MAX_CHARS + 1, 2 * MAX_CHARS])
            if rng.random() < 0.05
            else rng.choice(["word", "end.", "ask?", "wow!", "a.b", "", " ", "\t", "\u00a0"])
            for _ in range(rng.randint(1, 900))
        ]
        blocks.append(rng.choice([" ", "  ", "\n", " \n "]).join(words))
    return rng.choice(["\n\n", "\n \n", "\r\n\r\n", "\n\n\n"]).join(blocks)


@pytest.mark.parametrize("split_chars", [chunking._SPLIT_CHARS, 0], ids=["split", "walked"])
def test_chunks_are_byte_identical_to_k1_on_random_inputs(
    monkeypatch: pytest.MonkeyPatch, split_chars: int
) -> None:
    """Texts split into blocks at once and texts walked block by block (past _SPLIT_CHARS)."""
    monkeypatch.setattr(chunking, "_SPLIT_CHARS", split_chars)
    rng = random.Random(11)
    for _ in range(120):
        _same_as_k1(_runs(rng))
        _same_as_k1(_prose(rng))


def test_chunks_are_byte_identical_to_k1_at_the_edges() -> None:
    cases = ["", " ", "\n", "x", "a. b", "#", "# ", "# x", "x\n===", "x\n==", "\r\n\r\n"]
    cases += [" # x", "\t# x", "\u00a0# x", "\u3000## x y", " x", "x # y", "x\n# y"]
    for n in (MAX_CHARS - 1, MAX_CHARS, MAX_CHARS + 1, 2 * MAX_CHARS, 2 * MAX_CHARS + 1):
        cases += [
            "x" * n,
            " " + "x" * n,
            "  " + "x" * n,
            "x" * n + " y",
            "x " + "y" * n,
            "x" * (n - 1) + " " + "y" * n,
            ("ab " * n)[:n],
            ("a. " * n)[:n],
            "a." + " " * n + "b",
            "a" + " " * n + "b",
            "a" + "\u3000" * n + "b",
            "\t" + "x" * n,
            "# heading\n" + "y" * n,
            "x" * n + "\n" + "=" * n,
            "x\n" * n,
        ]
    for case in cases:
        _same_as_k1(case)
        _same_as_k1(case + "\n\n" + case)
        _same_as_k1("# H\n\n" + case + "\n\nend.")


_hostile = st.lists(
    st.one_of(
        st.text(st.sampled_from(_EDGY), max_size=40),
        st.builds(lambda c, n: c * n, st.sampled_from(_EDGY), st.integers(0, 2 * MAX_CHARS + 5)),
        st.text(st.characters(exclude_categories=("Cs",)), max_size=60),
    ),
    max_size=25,
).map("".join)


@settings(max_examples=scaled_examples(300), deadline=None)
@given(_hostile)
def test_chunks_are_byte_identical_to_k1_on_any_text(text: str) -> None:
    _same_as_k1(text)


def test_regex_whitespace_is_what_strip_strips() -> None:
    """The hard wrap skips the spaces after a cut with ``\\s*`` where k1 called lstrip()."""
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    assert re.findall(r"\s", every) == [c for c in every if c.isspace()]


def test_a_long_paragraph_without_sentence_ends_chunks_in_linear_time() -> None:
    """8 times the paragraph must cost about 8 times the time, not 64 (k1 copied the
    rest of the paragraph on every cut).

    CPU time of this process, the best of a few runs: a busy machine slows both sizes alike.
    Linear gives about 8 here, k1 over 40; the bound leaves room for noise.
    """
    size = 512 * 1024
    words = ("lorem ipsum dolor sit amet " * (size // 27 + 1))[:size]
    for text in (words, "x" * size):  # spaces to cut at, and none: every cut hard
        ratio = cpu_seconds(partial(chunk_text, text * 8), 2) / cpu_seconds(
            partial(chunk_text, text), 5
        )
        assert ratio < 20, f"8x the text took {ratio:.0f}x the time"


# --- k2: a form feed starts a chunk and stays its first character -----------------------------

_paged = st.lists(
    st.one_of(
        st.text(st.sampled_from(_EDGY), max_size=40),
        st.text(st.characters(exclude_categories=("Cs",)), max_size=60),
        st.sampled_from(["\f", "\n\n\f", "\n\n\f\f", "# H", "\n\n\f# Page\n\n"]),
        st.builds(lambda n: "word " * n, st.integers(0, 400)),
    ),
    max_size=25,
).map("".join)


@settings(max_examples=scaled_examples(300), deadline=None)
@given(_paged)
def test_form_feeds_open_chunks_and_every_one_followed_by_text_is_kept(text: str) -> None:
    chunks = chunk_text(text)
    assert chunks == list(iter_chunks(text))
    for chunk in chunks:
        feeds = len(chunk.text) - len(chunk.text.lstrip("\f"))
        assert "\f" not in chunk.text[feeds:]  # only at the start
        assert 0 < len(chunk.text) - feeds <= MAX_CHARS
    last = max((i for i, c in enumerate(text) if not c.isspace()), default=-1)
    assert sum(c.text.count("\f") for c in chunks) == text[: last + 1].count("\f")
    assert "".join(text.split()) == "".join("".join(c.text for c in chunks).split())


def test_a_page_starts_a_chunk_even_when_the_one_before_has_room() -> None:
    text = "Page one.\n\n\fPage two.\n\n\f\f# 2 Shrubs\n\nPage four.\n\nStill four."
    assert chunk_text(text) == [
        Chunk("Page one.", None),
        Chunk("\fPage two.", None),
        Chunk("\f\f# 2 Shrubs\n\nPage four.\n\nStill four.", "2 Shrubs"),
    ]

"""PDFs read the way a person reads them (issue #40): small PDFs made here, each with one thing
a reader handles, loaded and chunked, and the stored text checked byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest
from reportlab.pdfgen import canvas  # type: ignore[import-untyped]

from arborist._errors import BadInput
from arborist._facade.app import Arborist
from arborist._qa.sentences import read_sentences
from arborist._store.chunking import chunk_text
from arborist._store.loaders import load_bytes
from arborist._store.pdf_text import WORK_BASE, WORK_PER_BYTE, pages_text
from tests.pdfs import Draw, chunk_pages, flate_pdf, is_paged_text, make_pages


def load(data: bytes) -> str:
    text = load_bytes(data, uri="mem:test.pdf", name="test.pdf").text
    assert is_paged_text(text)
    return text


def lines(*rows: str, x: float = 72, top: float = 700, step: float = 14, size: float = 11) -> Draw:
    """A page of ``rows``, one line each from ``top`` down."""

    def draw(pdf: canvas.Canvas, number: int) -> None:
        pdf.setFont("Helvetica", size)
        for k, row in enumerate(rows):
            pdf.drawString(x, top - step * k, row)

    return draw


def with_heads(body: Draw) -> Draw:
    """``body`` under a running head that names the chapter and the page, over a page number."""

    def draw(pdf: canvas.Canvas, number: int) -> None:
        pdf.setFont("Helvetica", 9)
        head = f"Chapter 2: Trees of the Valley {number}" if number % 2 else f"{number} Field Guide"
        pdf.drawString(72, 760, head)
        pdf.drawString(300, 40, str(number))
        body(pdf, number)

    return draw


# --- pages ---------------------------------------------------------------------------------


def test_pages_text_opens_each_page_after_the_first_with_one_form_feed() -> None:
    assert pages_text(["one", "two", "three"]) == "one\n\n\ftwo\n\n\fthree"
    assert pages_text(["", "two", "", "", "five", "", ""]) == "\ftwo\n\n\f\f\ffive"


def test_every_chunk_knows_its_page_from_its_own_bytes() -> None:
    long = "The alder grows by the stream and the rowan on the hill above it."
    data = make_pages([lines("First page."), lines(), *[lines(*[long] * 40, step=12)] * 2])
    text = load(data)
    chunks = chunk_text(text)
    assert chunks[0].text == "First page."
    assert chunks[1].text.startswith("\f\f" + long)  # page 2 is blank: its form feed comes along
    assert chunk_pages(chunks) == [1, 3, 3, 3, 4, 4, 4]
    assert all(
        c.text.count("\f") <= 2 and c.text.lstrip("\f") == c.text[c.text.count("\f") :]
        for c in chunks
    )


# --- running heads and page numbers --------------------------------------------------------


def test_running_heads_and_page_numbers_are_found_by_repetition_and_left_out() -> None:
    body = [
        lines("Alder grows by water.", "Its cones stay all winter."),
        lines("Birch has white bark.", "It is the first tree after a fire."),
        lines("Rowan has red berries."),
        lines("Hazel flowers in February."),
    ]
    text = load(make_pages([with_heads(page) for page in body]))
    assert text == (
        "Alder grows by water.\nIts cones stay all winter."
        "\n\n\fBirch has white bark.\nIt is the first tree after a fire."
        "\n\n\fRowan has red berries."
        "\n\n\fHazel flowers in February."
    )


def test_a_running_head_is_found_by_its_shape_alone_and_a_numbered_line_once_is_kept() -> None:
    def draw(pdf: canvas.Canvas, number: int) -> None:
        pdf.setFont("Helvetica", 9)
        pdf.drawString(400, 760, f"Field Guide, page {number + 10}")
        lines(f"Body of page {['one', 'two', 'three', 'four', 'five'][number - 1]}.")(pdf, number)

    text = load(make_pages([draw] * 5 + [lines("Version 5 of the guide", "ends here.")]))
    assert text == (
        "Body of page one.\n\n\fBody of page two.\n\n\fBody of page three.\n\n"
        "\fBody of page four.\n\n\fBody of page five.\n\n\fVersion 5 of the guide\nends here."
    )


def test_a_line_at_the_top_of_pages_without_digits_is_kept_when_it_is_rare() -> None:
    pages = [lines("Examples", f"Page text number {n}.") for n in ("one", "two", "three")]
    trees = [
        "alder",
        "birch",
        "rowan",
        "hazel",
        "oak",
        "ash",
        "elm",
        "yew",
        "lime",
        "pine",
        "fir",
        "larch",
    ]
    pages += [lines("Notes", f"More text about {tree}.") for tree in trees]
    text = load(make_pages(pages))
    assert text.count("Examples") == 3  # on 3 of 15 pages: a heading that recurs
    assert "Notes" not in text  # on 12 of 15: a running head with no page number
    assert text.count("More text about") == 12


# --- hyphenation ---------------------------------------------------------------------------


def test_words_cut_at_a_line_end_are_joined_as_the_document_writes_them() -> None:
    page = lines(
        "The components of a well-kept tree are many; its compo-",
        "nents grow each year. A self-evident fact: bark is self-",
        "contained and thick. Its inter-",
        "actions with fungi matter. See the North-",
        "West region for case-by-",
        "case notes and a well-",
        "known stand. The operator [n]<&digit-",
        "moves a descriptor.",
    )
    assert load(make_pages([page])) == (
        "The components of a well-kept tree are many; its components\n"
        "grow each year. A self-evident fact: bark is self-contained\n"
        "and thick. Its interactions\n"
        "with fungi matter. See the North-West\n"
        "region for case-by-case\n"
        "notes and a well-known\n"
        "stand. The operator [n]<&digit-\n"
        "moves a descriptor."
    )


def test_a_word_cut_at_the_end_of_a_page_is_joined_on_that_page() -> None:
    text = load(
        make_pages([lines("The river runs through the val-"), lines("ley below the hills.")])
    )
    assert text == "The river runs through the valley\n\n\fbelow the hills."


# --- two columns ---------------------------------------------------------------------------

LEFT = [f"Left column line {n} about the alder wood." for n in range(1, 9)]
RIGHT = [f"Right column line {n} about the birch." for n in range(1, 9)]


def two_columns(*, interleaved: bool) -> Draw:
    def draw(pdf: canvas.Canvas, number: int) -> None:
        pdf.setFont("Helvetica", 10)
        rows = range(len(LEFT))
        order = (
            [(k, side) for k in rows for side in (0, 1)]
            if interleaved
            else [(k, side) for side in (0, 1) for k in rows]
        )
        for k, side in order:
            pdf.drawString(320 if side else 72, 700 - 12 * k, (RIGHT if side else LEFT)[k])

    return draw


@pytest.mark.parametrize(
    "interleaved", [True, False], ids=["drawn row by row", "drawn column by column"]
)
def test_two_columns_are_read_column_by_column(interleaved: bool) -> None:
    text = load(make_pages([two_columns(interleaved=interleaved)]))
    assert text == "\n".join(LEFT) + "\n\n" + "\n".join(RIGHT)


def test_a_table_of_short_cells_is_not_taken_for_two_columns() -> None:
    rows = [("alder", "wet ground"), ("birch", "after fire"), ("rowan", "hills")] * 3

    def draw(pdf: canvas.Canvas, number: int) -> None:
        pdf.setFont("Helvetica", 10)
        pdf.drawString(
            72,
            720,
            "A long sentence that runs across the whole width of the page, past its middle.",
        )
        for k, (tree, ground) in enumerate(rows):
            pdf.drawString(72, 700 - 12 * k, tree)
            pdf.drawString(300, 700 - 12 * k, ground)

    text = load(make_pages([draw]))
    table = text.split("\n\n")[1].splitlines()  # pypdf gives each cell a line of its own
    assert table[:6] == ["alder", "wet ground", "birch", "after fire", "rowan", "hills"]


# --- figures -------------------------------------------------------------------------------


def figure_page(pdf: canvas.Canvas, number: int) -> None:
    pdf.setFont("Helvetica", 11)
    pdf.drawString(72, 720, "Alder grows fastest in its first ten years.")
    pdf.beginForm("plot")
    pdf.setFont("Helvetica", 8)
    for k, tick in enumerate(["0", "5", "10", "15", "20"]):
        pdf.drawString(40 + 60 * k, 10, tick)
    for k, tick in enumerate(["0.0", "0.5", "1.0", "1.5"]):
        pdf.drawString(10, 30 + 40 * k, tick)
    pdf.drawString(150, 0, "Age (years)")
    pdf.drawString(0, 200, "Relative Frequency")
    pdf.endForm()
    pdf.saveState()
    pdf.translate(100, 420)
    pdf.doForm("plot")
    pdf.restoreState()
    pdf.setFont("Helvetica", 11)
    pdf.drawString(72, 380, "Figure 1: Height of alder by age.")
    pdf.drawString(72, 340, "Growth slows after that.")


def test_a_figures_axis_labels_and_ticks_are_left_out_and_its_caption_kept() -> None:
    text = load(make_pages([figure_page]))
    assert text == (
        "Alder grows fastest in its first ten years.\n\n"
        "Figure 1: Height of alder by age.\n\n"
        "Growth slows after that."
    )


def test_tick_numbers_drawn_up_the_page_are_left_out_but_a_table_of_numbers_is_kept() -> None:
    def draw(pdf: canvas.Canvas, number: int) -> None:
        pdf.setFont("Helvetica", 10)
        pdf.drawString(72, 718, "Yearly counts:")
        for k, row in enumerate(["1 10", "2 20", "3 30"]):
            pdf.drawString(90, 706 - 12 * k, row)
        for k, tick in enumerate(["0", "10", "20", "30"]):
            pdf.drawString(60, 400 + 50 * k, tick)
        pdf.drawString(72, 300, "The counts rise.")

    assert load(make_pages([draw])) == "Yearly counts:\n1 10\n2 20\n3 30\n\nThe counts rise."


def test_a_plot_drawn_on_the_page_itself_loses_its_ticks_and_axis_labels() -> None:
    def draw(pdf: canvas.Canvas, number: int) -> None:
        pdf.setFont("Helvetica", 10)
        pdf.drawString(72, 720, "The histogram shows how often each value occurs.")
        for k, tick in enumerate(["0.3", "0.2", "0.1"]):  # the y axis, drawn top down
            pdf.drawString(60, 600 - 50 * k, tick)
        pdf.drawString(20, 550, "Relative Frequency")
        for k, tick in enumerate(["1.5", "2.0", "2.5", "3.0"]):  # the x axis
            pdf.drawString(100 + 80 * k, 420, tick)
        pdf.drawString(200, 400, "Value")
        pdf.drawString(72, 360, "Values near 2 are the most common.")
        pdf.drawString(72, 330, "Counts by year:")
        for k, row in enumerate(["1 10", "2 20", "3 30"]):  # a table as text: kept
            pdf.drawString(90, 318 - 12 * k, row)
        cells = pdf.beginText(90, 282)  # a table's row of cells in one text object: kept
        for cell in ("4", "5", "6"):
            cells.textOut(cell)
            cells.moveCursor(40, 0)
        pdf.drawText(cells)

    assert load(make_pages([draw])) == (
        "The histogram shows how often each value occurs.\n\n"
        "Values near 2 are the most common.\n\n"
        "Counts by year:\n1 10\n2 20\n3 30\n4 5 6"
    )


def test_a_form_holding_prose_is_kept() -> None:
    def draw(pdf: canvas.Canvas, number: int) -> None:
        pdf.beginForm("body")
        pdf.setFont("Helvetica", 11)
        pdf.drawString(72, 700, "This whole page of prose is drawn inside one form.")
        pdf.drawString(72, 686, "Some tools wrap every page that way, and it is still text.")
        pdf.endForm()
        pdf.doForm("body")

    assert load(make_pages([draw])) == (
        "This whole page of prose is drawn inside one form.\n"
        "Some tools wrap every page that way, and it is still text."
    )


# --- contents and index pages --------------------------------------------------------------

CONTENTS = lines(
    "Contents",
    "1 Alder . . . . . . . . . . . . 2",
    "2 Birch . . . . . . . . . . . . 2",
    "3 Rowan . . . . . . . . . . . . 3",
    "4 Hazel . . . . . . . . . . . . 3",
    "Index . . . . . . . . . . . . . 4",
)
INDEX = lines(
    "Index",
    "!= . . . . . . . 3",
    "alder . . . . . . 2",
    "bark 2, 3",
    "birch . . . . . . 2",
    "cones . . . . . . 2",
    "rowan, 3",
    "+, 3",
    "hazel . . . . . . 3",
)


def test_contents_and_index_pages_are_left_out_and_keep_their_place() -> None:
    data = make_pages(
        [
            CONTENTS,
            lines("Alder grows by water; its bark is dark."),
            lines("Rowan has red berries."),
            INDEX,
        ]
    )
    text = load(data)
    assert text == "\fAlder grows by water; its bark is dark.\n\n\fRowan has red berries."
    assert chunk_pages(chunk_text(text)) == [2, 3]


def test_an_index_in_comma_style_is_left_out_and_code_is_not_taken_for_one() -> None:
    index = lines(
        "Index", "+, 114", "abs, 37", "acos, 37", "angles, 130, 193", "arg, 37", "ARGV, 88"
    )
    code = lines("x = 1 + 2", "y = x * 3", "z = y - 4", "w = z / 5", "print w", "v = w + 6")
    text = load(make_pages([lines("Alder grows by water."), code, index]))
    assert (
        text
        == "Alder grows by water.\n\n\fx = 1 + 2\ny = x * 3\nz = y - 4\nw = z / 5\nprint w\nv = w + 6"
    )


def test_a_document_that_is_all_index_is_kept() -> None:
    assert load(make_pages([INDEX])).startswith("Index\n!= . . . . . . . 3\nalder . . . . . . 2")


# --- the outline ---------------------------------------------------------------------------


def test_outline_entries_become_headings_where_their_sections_begin() -> None:
    first = lines("1 Trees", "Trees are tall.", "1.1 Alder", "Alder grows by water.", step=20)
    second = lines("More about alder.", "Rowan has red berries.", top=700, step=40)
    data = make_pages(
        [first, second],
        outline=[("Trees", 0, 1, 712), ("Alder", 1, 1, 672), ("Rowan", 1, 2, 670)],
    )
    loaded = load_bytes(data, uri="mem:test.pdf", name="test.pdf")
    assert loaded.title == "1 Trees"  # no /Title: the first line, without its heading marks
    text = load(data)
    assert text == (
        "# 1 Trees\n\nTrees are tall.\n\n## 1.1 Alder\n\nAlder grows by water."
        "\n\n\fMore about alder.\n\n## Rowan\n\nRowan has red berries."
    )
    chunks = chunk_text(text)
    assert [(c.heading, p) for c, p in zip(chunks, chunk_pages(chunks), strict=True)] == [
        ("1 Trees", 1),
        ("1.1 Alder", 1),
        ("1.1 Alder", 2),
        ("Rowan", 2),
    ]
    quoted = [s for c in chunks for s in read_sentences(c.text)]
    assert quoted == [
        "Trees are tall.",
        "Alder grows by water.",
        "More about alder.",
        "Rowan has red berries.",
    ]


def test_bookmarks_that_all_point_at_the_top_of_their_page_find_their_headings() -> None:
    page = lines(
        "3.6.6 Here Strings",
        "A variant of here documents.",
        "3.6.7 Duplicating",
        "Copies a descriptor.",
        step=20,
    )
    data = make_pages([page], outline=[("Here Strings", 0, 1, 720), ("Duplicating", 0, 1, 720)])
    assert load(data) == (
        "# 3.6.6 Here Strings\n\nA variant of here documents.\n\n"
        "# 3.6.7 Duplicating\n\nCopies a descriptor."
    )


def test_a_code_comment_opening_a_page_is_escaped_and_never_a_heading() -> None:
    text = load(make_pages([lines("Plot it:"), lines("# the yearly counts", "plot 'counts.dat'")]))
    assert text == "Plot it:\n\n\f\\# the yearly counts\nplot 'counts.dat'"
    assert [c.heading for c in chunk_text(text)] == [None, None]


def test_sentences_never_quote_a_form_feed_or_a_heading() -> None:
    quoted = read_sentences(
        "\f## 3.1 Shell Syntax\n\nThe shell reads its input.\n\n\fIt then splits words."
    )
    assert quoted == ["The shell reads its input.", "It then splits words."]


# --- stored, evicted, rehydrated ----------------------------------------------------------


def test_a_pdfs_pages_and_headings_are_stored_in_its_chunks_and_survive_rehydration(
    home: Path, tmp_path: Path
) -> None:
    body = "Alder grows by water and keeps its cones through the winter months."
    pages = [with_heads(lines("1 Trees", body, step=20))]
    pages += [with_heads(lines(*[body] * 30, step=14))] * 3
    path = tmp_path / "guide.pdf"
    path.write_bytes(make_pages(pages, outline=[("Trees", 0, 1, 712)]))
    with Arborist(home) as app:
        app.ingest([str(path)])
        rows = app.store_conn.execute(
            "SELECT text, heading FROM chunks ORDER BY chunk_index"
        ).fetchall()
        texts = [text for text, _ in rows]
        assert texts[0] == f"# 1 Trees\n\n{body}"
        assert texts[1].startswith("\f" + body) and "Chapter" not in "".join(texts)
        assert {heading for _, heading in rows} == {"1 Trees"}
        assert chunk_pages(chunk_text("\n\n".join(texts))) == [1, 2, 2, 3, 3, 4, 4]
        app.evict(str(path), "cold")
        assert app.rehydrate(str(path)).changed == len(rows)
        assert app.verify().ok


# --- hostile PDFs ----------------------------------------------------------------------------


def test_a_small_pdf_whose_stream_inflates_to_millions_of_operators_is_one_line() -> None:
    data = flate_pdf(b"BT /F1 12 Tf 72 720 Td " + b"(a) Tj " * 600_000 + b"ET")
    assert len(data) < 8000
    with pytest.raises(BadInput) as caught:
        load_bytes(data, uri="mem:bomb.pdf", name="bomb.pdf")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("mem:bomb.pdf: PDF too costly to read")
    assert f"{WORK_BASE + WORK_PER_BYTE * len(data):,} tokens" in message


def test_the_same_operators_in_a_file_of_their_size_are_read() -> None:
    stream = b"BT /F1 12 Tf 72 720 Td " + b"(a) Tj " * 20_000 + b"ET"
    data = flate_pdf(stream)
    assert WORK_BASE + WORK_PER_BYTE * len(data) > 40_000  # two tokens per Tj, and a few more
    assert load(data) == "a" * 20_000

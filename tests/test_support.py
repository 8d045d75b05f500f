"""The support label: how well an answer's cited evidence covers its question, shown beside
the audit mode (which certifies the quoted bytes, not the answer) in every face."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._qa import support
from arborist._qa.support import (
    ANSWERED,
    NOT_ANSWERED,
    PARTLY,
    asked_words,
    measure,
    measured_words,
    quotes_cited,
    root,
)

DOC = (
    "# Spider-Man\n\n"
    "Spider-Man was created by writer Stan Lee and artist Steve Ditko.\n\n"
    "He first appeared in Amazing Fantasy #15 in August 1962.\n"
)


@dataclass(frozen=True)
class _Item:
    label: str
    title: str
    text: str | None


PASSAGE = _Item("E1", "Spider-Man", "Spider-Man was created by Stan Lee and Steve Ditko.")
OTHER = _Item("E2", "Batman", "Batman was created by Bob Kane and Bill Finger.")


def test_every_word_of_the_question_in_a_cited_passage_is_answered() -> None:
    found = measure("Who created Spider-Man?", "Stan Lee and Steve Ditko. [E1]", [PASSAGE, OTHER])
    assert found is not None and found.level == ANSWERED and found.missing == ()


def test_an_answer_quotes_what_it_cites_only_word_for_word() -> None:
    """ "quotes verified" rests on this: each sentence a span of one cited passage, whatever
    the layout between its words; a paraphrase, a sentence stitched from two passages, or a
    sentence with one word changed is not a quote; a name before a quote is a label."""
    passages = [
        "copy(x)\n    Shallow copy operation on\n  |  arbitrary Python objects.\n\nSee the doc.",
        "Batman was created by Bob Kane.",
    ]
    assert quotes_cited(
        "copy.copy(x): Shallow copy operation on arbitrary Python objects. [E1]", passages
    )
    assert quotes_cited(
        "Shallow copy operation [E1]. See the doc [E1]. Batman was created [E2]", passages
    )
    assert not quotes_cited("It makes a shallow copy of any object. [E1]", passages)
    assert not quotes_cited("Shallow copy operation on arbitrary Batman objects. [E1]", passages)
    assert not quotes_cited(
        "Shallow copy operation on arbitrary Python objects by Bob Kane.", passages
    )
    assert not quotes_cited("[E1] [E2]", passages), "nothing said is nothing quoted"
    assert not quotes_cited("The doc. See the doc. [E1]", passages[1:]), "only the passages given"
    whole = "Spider-Man was created by Stan Lee and Steve Ditko. [E1]"
    found = measure("Who created Spider-Man?", whole, [PASSAGE])
    assert found is not None and found.quoted and found.as_json()["quoted"] is True
    # a fragment lifted from inside a sentence is no quote of it: it may say its opposite
    part = measure("Who created Spider-Man?", "Stan Lee and Steve Ditko. [E1]", [PASSAGE])
    assert part is not None and part.level == ANSWERED and not part.quoted
    said = measure("Who created Spider-Man?", "Lee and Ditko made Spider-Man. [E1]", [PASSAGE])
    assert said is not None and said.level == ANSWERED and not said.quoted


def test_the_words_no_cited_passage_holds_are_named() -> None:
    """Only the cited passages count: a word in an uncited one (``batman``) is still missing."""
    found = measure(
        "Did Batman and Spider-Man win a FIFA cup?", "Created by Lee. [E1]", [PASSAGE, OTHER]
    )
    assert found is not None and found.level == PARTLY
    assert found.missing == ("batman", "win", "fifa", "cup")
    assert found.text() == "partly: no cited passage mentions batman, win, fifa, cup"


def test_a_refusal_or_an_answer_citing_nothing_is_not_answered() -> None:
    refusal = "The documents do not answer this question. Searched for: fifa."
    assert measure("Who won the FIFA cup?", refusal, [PASSAGE]).level == NOT_ANSWERED  # type: ignore[union-attr]
    uncited = "Stan Lee made him."  # no [E#] at all, or a label no evidence has
    assert measure("Who created Spider-Man?", uncited, [PASSAGE]).level == NOT_ANSWERED  # type: ignore[union-attr]
    assert measure("Who created Spider-Man?", "Lee. [E7]", [PASSAGE]).level == NOT_ANSWERED  # type: ignore[union-attr]


def test_a_cold_cited_passage_is_not_measured() -> None:
    """Text evicted to the cold tier cannot be read: no level rather than a guess."""
    cold = _Item("E1", "Spider-Man", None)
    assert measure("Who created Spider-Man?", "Lee. [E1]", [cold]) is None


def test_inflections_and_the_title_count_request_words_do_not() -> None:
    item = _Item("E1", "shutil", "Copies the files; copying is done by copyfile.")
    found = measure("what's the easiest way to copy a file with shutil", "Copies. [E1]", [item])
    assert found is not None and found.level == ANSWERED, found
    assert root("appeared") == root("appear") and root("files") == root("filing")


def test_the_word_of_an_amount_after_how_is_asked_for_not_expected_in_a_passage() -> None:
    item = _Item("E1", "notes.txt", "Knead the dough for ten minutes.")
    found = measure("How long should I knead bread dough?", "Knead. [E1]", [item])
    assert found is not None and found.level == PARTLY and found.missing == ("bread",), found
    found = measure("How long should I knead dough?", "Knead. [E1]", [item])
    assert found is not None and found.level == ANSWERED, found
    assert measured_words("How many rows does it hold?") == ["rows", "hold"]
    # a word said twice is asked for once more than the amount takes
    assert "long" in measured_words("How long is a long integer?")
    assert "long" in measured_words("What does long mean?")
    assert "many" in asked_words("How many rows does it hold?")  # the answerer still weighs it


@pytest.fixture
def spider_home(home: Path, tmp_path: Path) -> Path:
    doc = tmp_path / "spider.md"
    doc.write_text(DOC, encoding="utf-8")
    assert CliRunner().invoke(cli, ["--home", str(home), "ingest", str(doc)]).exit_code == 0
    return home


def test_every_face_shows_support_beside_the_audit_mode(spider_home: Path) -> None:
    """A STRICT answer that leaves out half of what was asked says so in the ask output, the
    turn view, the search JSON and the record view: STRICT certifies the quote, and the
    support line says whether it is about what was asked."""
    runner = CliRunner()
    base = ["--home", str(spider_home)]
    asked = runner.invoke(cli, [*base, "ask", "When did Spider-Man first appear in a comic?"])
    assert asked.exit_code == 0, asked.output
    assert "audit   quotes verified (STRICT)" in asked.output
    assert "support partly: no cited passage mentions comic" in asked.output
    whole = runner.invoke(cli, [*base, "ask", "Who created Spider-Man?"])
    assert "support answered: the cited passages hold every word of the question" in whole.output

    found = runner.invoke(cli, [*base, "session", "--find", "comic", "--json"])
    (hit,) = json.loads(found.output)
    assert hit["audit_now"] == "STRICT"
    assert hit["support"] == {
        "level": "partly",
        "missing": ["comic"],
        "reason": "no cited passage mentions comic",
        "quoted": True,  # the offline answerer's sentences are the passage's own
    }
    key = hit["cache_key"]
    shown = runner.invoke(cli, [*base, "session", "--find", "comic"])
    assert "[STRICT partly]" in shown.output
    with Arborist(spider_home) as app:
        (node,) = [h.node for h in app.find("comic")]
        assert app.audit_now(node).support == measure(
            node.question, node.answer_text or "", app.record(key).evidence
        )
    record = runner.invoke(cli, [*base, "record", "show", key])
    assert "support    partly: no cited passage mentions comic" in record.output


def test_a_turn_that_claims_nothing_shows_no_support(spider_home: Path) -> None:
    """Support is measured on the record a turn holds by: once that record is edited by
    hand the turn claims NONE and no support line is shown for it (nothing is measured on
    evidence that no longer holds)."""
    runner = CliRunner()
    base = ["--home", str(spider_home)]
    runner.invoke(cli, [*base, "ask", "Who created Spider-Man?"])
    conn = sqlite3.connect(spider_home / "store.db")
    with conn:
        conn.execute("UPDATE chunks SET text = replace(text, 'Steve Ditko', 'Jack Kirby')")
    conn.close()
    found = json.loads(runner.invoke(cli, [*base, "session", "--find", "created", "--json"]).output)
    assert found[0]["audit_now"] == "NONE"
    assert found[0]["support"] is None


def test_the_notebook_answer_shows_support_beside_audit_in_every_rendering(
    spider_home: Path,
) -> None:
    """``%%ask``'s answer: the text, markdown and HTML renderings each carry the support line
    right after the audit line, escaped like every other fact."""
    from IPython.core.interactiveshell import InteractiveShell

    from arborist_nb._display import Answer, md_escape

    ip = InteractiveShell.instance()
    try:
        assert ip.run_cell("%load_ext arborist_nb").success
        answer = ip.run_cell_magic("ask", "", "When did Spider-Man first appear in a comic?")
        assert isinstance(answer, Answer)
        line = "partly: no cited passage mentions comic"
        status = f"new answer · quotes verified (STRICT) · {line} · turn #1"
        text = repr(answer)
        assert text.split("\n\n")[1] == status  # the one line under the answer
        assert (
            f"audit      quotes verified (STRICT)\nsupport    {line}" in text
        )  # then the facts, in full
        markdown = answer._repr_markdown_()
        assert f"*{md_escape(status)}*" in markdown
        assert f"**support** `{line}`" in markdown.split("<details>")[1]  # folded
        page = answer._repr_html_()
        assert f'>{status}</div><details class="arborist-fold"' in page
        assert f"<code>{line}</code></td>" in page.split("turn, sources and proofs")[1]
    finally:
        ip.run_line_magic("unload_ext", "arborist_nb")
        InteractiveShell.clear_instance()


def test_a_name_asked_in_a_module_no_passage_names_is_not_answered(spider_home: Path) -> None:
    """``subprocess.run`` over passages that say "run" but never "subprocess": the offline
    answerer says the documents do not answer, naming it, and the label agrees."""
    runner = CliRunner()
    base = ["--home", str(spider_home)]
    asked = runner.invoke(cli, [*base, "ask", "Who is credited by spiderlib.created?"])
    assert asked.exit_code == 0, asked.output
    assert "No passage mentions spiderlib.created" in asked.output
    assert "support not answered" in asked.output
    plain = runner.invoke(cli, [*base, "ask", "Who is credited as having created Spider-Man?"])
    assert "Stan Lee" in plain.output  # the same words without the module: answered


def test_a_remote_model_is_told_how_to_say_it_cannot_answer_and_is_labelled_so() -> None:
    """The system prompt every remote profile sends asks for the same opening sentence the
    offline answerer refuses with, so a model that follows it is labelled ``not answered``
    (and one that quotes the evidence without it is measured like any answer)."""
    from arborist._qa.client import SYSTEM_PROMPT
    from arborist._qa.support import NOT_ANSWERED_OPENING

    assert f'"{NOT_ANSWERED_OPENING}"' in SYSTEM_PROMPT
    assert "only from the evidence" in SYSTEM_PROMPT
    said = f"{NOT_ANSWERED_OPENING} The evidence is about Spider-Man's creators."
    assert measure("Who won the 1962 World Cup?", said, [PASSAGE]) == measure(
        "anything", NOT_ANSWERED_OPENING, []
    )


def test_sentences_sharing_one_word_each_with_the_question_are_no_answer(
    home: Path, tmp_path: Path
) -> None:
    """Every word of the question is somewhere in the passage, but each sentence holds one:
    quoting them would answer nothing, so the offline answerer says the documents do not
    answer; a sentence holding two of its words is quoted."""
    doc = tmp_path / "notes.md"
    doc.write_text(
        "# Notes\n\nThe archive opened in August.\n\nAmazing Fantasy sold well.\n\n"
        "Tigers are large cats.\n",
        encoding="utf-8",
    )
    runner = CliRunner()
    base = ["--home", str(home)]
    assert runner.invoke(cli, [*base, "ingest", str(doc)]).exit_code == 0
    junk = runner.invoke(cli, [*base, "ask", "Which tigers sold in August?"])
    assert "The documents do not answer this question." in junk.output, junk.output
    assert "support not answered" in junk.output
    real = runner.invoke(cli, [*base, "ask", "Which Amazing Fantasy issue sold?"])
    assert "Amazing Fantasy sold well. [E1]" in real.output, real.output


def test_a_records_support_is_measured_once_while_what_it_reads_holds(
    spider_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every row of a widget, every view of a turn measures its support; a write to the
    store makes every turn's standing be checked again, but the measure is held by content
    (question, answer, each cited passage's title and text): measured once a process. A
    passage evicted to the cold tier is other content: measured again, and None."""
    calls: list[str] = []
    inner = support.measure

    def counted(question: str, *args: object) -> support.Support | None:
        calls.append(question)
        return inner(question, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(support, "measure", counted)
    runner = CliRunner()
    base = ["--home", str(spider_home)]
    for question in ("Who created Spider-Man?", "When did Spider-Man first appear?"):
        assert runner.invoke(cli, [*base, "ask", question]).exit_code == 0
    monkeypatch.setattr(support, "MEMO", support._Memo())  # a new process's: nothing held
    calls.clear()
    with Arborist(spider_home) as app:
        nodes = [h.node for h in app.find("Spider-Man")]
        first = [app.audit_now(node).support for node in nodes]
        assert len(calls) == 2 and all(s is not None for s in first)
        app.ask("Who drew Spider-Man?")  # a write: every standing is checked again
        assert [app.audit_now(node).support for node in nodes] == first
        assert len(calls) == 2  # the standings were checked again; nothing measured again
        key = nodes[0].cache_key
        assert key is not None
        held = support.measure_record(app.record(key))
        assert held is not None and len(calls) == 2
        app.evict(str(app.record(key).evidence[0].document_id), "cold")
        assert support.measure_record(app.record(key)) is None
        assert len(calls) == 3


def test_a_notebook_answer_shows_a_pdf_chunk_without_its_page_mark(
    home: Path, tmp_path: Path
) -> None:
    """A PDF page's chunk opens with a form feed (its page mark: the leaf hashes it), and
    ``%%ask``'s HTML shows the chunk as every face does
    (:func:`arborist._store.places.shown_text`): no form feed in the page."""
    from IPython.core.interactiveshell import InteractiveShell

    from arborist_nb._display import Answer
    from tests.pdfs import make_pages

    def page(text: str) -> Callable[[Any, int], None]:
        return lambda pdf, number: pdf.drawString(72, 700, text)

    doc = tmp_path / "marsupials.pdf"
    doc.write_bytes(make_pages([page("Wallabies live on the mainland."),
                                page("The quokka shelters under saltbush by day.")]))  # fmt: skip
    assert CliRunner().invoke(cli, ["--home", str(home), "ingest", str(doc)]).exit_code == 0
    ip = InteractiveShell.instance()
    try:
        assert ip.run_cell("%load_ext arborist_nb").success
        answer = ip.run_cell_magic("ask", "", "Where does the quokka shelter?")
        assert isinstance(answer, Answer)
        assert any((e.text or "").startswith("\f") for e in answer.evidence)
        page_html = answer._repr_html_()
        assert "\f" not in page_html
        unmarked = re.sub(r"<mark [^>]*>|</mark>", "", page_html)  # the quoted span's marks
        assert ">The quokka shelters under saltbush by day.</pre>" in unmarked
    finally:
        ip.run_line_magic("unload_ext", "arborist_nb")
        InteractiveShell.clear_instance()


VALVE = _Item(
    "E1",
    "valve.txt",
    "It is false that the reactor valve is safe to open at any pressure. Operators must "
    "never open the valve without the supervisor key.",
)
REGULATOR = _Item(
    "E2",
    "regulator.txt",
    "The national safety regulator rules that the reactor valve must never be opened above "
    "150 bar.",
)
BLOG = _Item("E3", "blog.txt", "The vendor blog says the reactor valve is safe to open.")


@pytest.mark.parametrize(
    "answer",
    [
        # words in parentheses after a name are no signature, and the name no passage says
        "Verdict(the reactor valve is perfectly safe to open at any pressure, no key is "
        "needed): Operators must never open the valve without the supervisor key. [E1]",
        # a fragment from inside a sentence, saying its opposite
        "the reactor valve is safe to open at any pressure. [E1]",
        # one word that is all a sentence says, before a quote or alone
        "Yes. [E1] It is false that the reactor valve is safe to open at any pressure. [E1]",
        "Yes. It is false that the reactor valve is safe to open at any pressure. [E1]",
        # prose joined by hyphens is words all the same
        "Safe-to-open-at-any-pressure,-no-supervisor-key-needed. Operators must never open "
        "the valve without the supervisor key. [E1]",
        # a quote cited to a source it is not from
        "The vendor blog says the reactor valve is safe to open. [E2] The national safety "
        "regulator rules that the reactor valve must never be opened above 150 bar. [E3]",
        # a citation naming another title, and a label beside it that is no evidence
        "Operators must never open the valve without the supervisor key. "
        "[E1 | ISO 9999 Official Safety Standard | https://www.iso.org/standard/9999]",
        "Operators must never open the valve without the supervisor key. [E1][E9]",
    ],
)
def test_quotes_verified_is_never_given_to_words_the_cited_passage_does_not_say(
    answer: str,
) -> None:
    """What a hostile or careless model (any served one) could write to earn "quotes
    verified": each is read as not quoted, though its sources stay proven."""
    found = measure("Is the reactor valve safe to open?", answer, [VALVE, REGULATOR, BLOG])
    assert found is not None and not found.quoted


@pytest.mark.parametrize(
    "answer",
    [
        "It is false that the reactor valve is safe to open at any pressure. [E1]",
        "Operators must never open the valve without the supervisor key. [E1 | valve.txt | x]",
        "The vendor blog says the reactor valve is safe to open. [E3] The national safety "
        "regulator rules that the reactor valve must never be opened above 150 bar. [E2]",
        "The vendor blog says the reactor valve is safe to open. [E3][E2]",
        "FUNCNEST: Operators must never open the valve without the supervisor key. [E1]",
    ],
)
def test_whole_sentences_cited_to_their_own_sources_are_quotes(answer: str) -> None:
    """The other side: whole sentences, each cited to the passage it is from (alone, or in
    a run of citations that holds it), under a term the passage names or its own title."""
    shown = _Item("E1", VALVE.title, "FUNCNEST\n" + (VALVE.text or ""))
    found = measure("Is the reactor valve safe to open?", answer, [shown, REGULATOR, BLOG])
    assert found is not None and found.quoted

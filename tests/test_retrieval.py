"""Retrieval for asks: fielded BM25, identifiers, definitions first, follow-ups, empty stores.

Every test ingests real documents into a real store.db and retrieves through
the same code an ask uses.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arborist._database.migrations import migrate
from arborist._errors import NoDocuments
from arborist._facade.app import Arborist
from arborist._qa.policy import retrieval_policy
from arborist._standalone.rule import stands_alone
from arborist._store.schema import STORE_MIGRATIONS
from arborist._store.search import retrieve
from arborist._text.analysis import read_question
from arborist._text.definitions import definitions
from arborist._text.text_words import identifiers

STATS_API = """# statistics

## Functions

    median(data)
        Return the median (middle value) of numeric data.

        When the number of data points is even, the median is interpolated by
        taking the average of the two middle values.
"""

STATS_NOTES = """# statistics notes

    median_low(data)
        Return the low median of numeric data. The median of median values
        is the median, median, median: statistics of the median return median values.
"""

JSON_API = """# json

## Functions

    loads(s, *, cls=None)
        Deserialize s (a str instance containing a document) to a Python object.
"""

PICKLE_API = """# pickle

## Functions

    loads(data, /, *, fix_imports=True)
        Read and return an object from the given pickle data (json is another format).
        Pickle loads, loads, loads.
"""

ITERTOOLS_API = """# itertools

## Classes

    class groupby(builtins.object)
     |  groupby(iterable, key=None)
     |
     |  make an iterator that returns consecutive keys and groups from the iterable
"""

PROSE = {
    "spider-man.md": "# Spider-Man\n\nSpider-Man is a superhero. He was created by Stan Lee "
    "and Steve Ditko in 1962.\n",
    "batman.md": "# Batman\n\nBatman was created by Bob Kane and Bill Finger.\n",
    "essay.md": "# Essays\n\nWho created the statistics of median grouped data? Many people "
    "wrote about what median data means for the numbers of the average person.\n",
}


@pytest.fixture
def app(tmp_path: Path) -> Arborist:
    files = {
        "statistics.md": STATS_API,
        "statistics-notes.md": STATS_NOTES,
        "json.md": JSON_API,
        "pickle.md": PICKLE_API,
        "itertools.md": ITERTOOLS_API,
        **PROSE,
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    app = Arborist(tmp_path / "home")
    app.ingest([str(tmp_path / name) for name in files])
    return app


def titles(app: Arborist, question: str, **kwargs: object) -> list[str]:
    return [e.title for e in retrieve(app.store_conn, question, **kwargs)]  # type: ignore[arg-type]


def test_question_words_are_not_required_and_stop_words_do_not_count(app: Arborist) -> None:
    # "what", "does", "do" appear nowhere; "zebra" appears nowhere: neither is required.
    assert titles(app, "What does the zebra groupby do?")[0] == "itertools"


def test_an_identifier_is_matched_whole_and_its_module_by_the_title(app: Arborist) -> None:
    # pickle's chunk says "loads" four times; json.loads names json, which only json's title says.
    assert titles(app, "What does json.loads do?")[0] == "json"
    assert titles(app, "What does pickle.loads do?")[0] == "pickle"


def test_the_chunk_defining_the_name_comes_before_chunks_that_only_repeat_it(
    app: Arborist,
) -> None:
    # The essay and median_low's description repeat "median"; only one chunk defines median().
    top = retrieve(app.store_conn, "What does statistics.median return?")[0]
    assert "median(data)\n        Return the median (middle value)" in top.text


def test_a_question_that_stands_alone_retrieves_the_same_under_any_parent(app: Arborist) -> None:
    root = retrieve(app.store_conn, "What does itertools.groupby do?")
    under_json = retrieve(
        app.store_conn,
        "What does itertools.groupby do?",
        context=["What does json.loads do?", "json"],
    )
    assert [e.chunk_id for e in under_json] == [e.chunk_id for e in root]


def test_a_follow_up_borrows_the_words_of_the_turns_above(app: Arborist) -> None:
    alone = titles(app, "Who created him?")
    assert alone[0] != "Spider-Man"  # "created" alone: Batman's chunk says it as well
    under = titles(app, "Who created him?", context=["Who is Spider-Man?", "Spider-Man"])
    assert under[0] == "Spider-Man"
    under_batman = titles(app, "Who created him?", context=["Who is Batman?", "Batman"])
    assert under_batman[0] == "Batman"


def test_follow_ups_in_the_forest_are_answered_from_their_parents_sources(app: Arborist) -> None:
    sid = app.new_session("t").sid
    parent = app.ask_turn("What does statistics.median return?", sid=sid)
    follow = app.ask_turn("And what does it do for an even number of points?", sid=sid)
    assert follow.node.parent_bates == parent.node.bates
    cited = [e for e in follow.result.record.evidence if e.cited]
    assert cited and {e.title for e in cited} == {"statistics"}
    assert "even" in follow.result.answer


def test_chaining_standalone_questions_does_not_change_their_evidence(app: Arborist) -> None:
    questions = ["What does json.loads do?", "What does itertools.groupby do?", "Who is Batman?"]
    sid = app.new_session("chain").sid
    for question in questions:
        chained = app.ask_turn(question, sid=sid).result.record
        alone = retrieve(app.store_conn, question)
        assert [e.chunk_id for e in chained.evidence] == [e.chunk_id for e in alone]


def test_an_ask_over_an_empty_store_names_the_ingest_command_and_writes_nothing(
    tmp_path: Path,
) -> None:
    app = Arborist(tmp_path / "empty")
    sid = app.new_session("t").sid
    nodes = app.sessions_conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
    with pytest.raises(NoDocuments, match=r"arborist ingest --demo"):
        app.ask_turn("What does json.loads do?", sid=sid)
    assert app.sessions_conn.execute("SELECT count(*) FROM nodes").fetchone()[0] == nodes
    assert app.store_conn.execute("SELECT count(*) FROM cache_records").fetchone()[0] == 0


def test_evidence_that_does_not_answer_says_what_was_searched(app: Arborist) -> None:
    answer = app.ask("Which zebra sings opera?").answer
    assert answer.startswith("The documents do not answer this question.")
    assert "zebra, sings, opera" in answer


def test_every_retrieval_rule_is_in_the_policy_so_a_changed_rule_misses() -> None:
    policy = retrieval_policy()
    assert policy["retrieval"] == "fts5-bm25f-any-term-v7"
    params = policy["retrieval_params"]
    assert isinstance(params, dict)
    assert set(params) == {
        "pool",
        "title_weight",
        "tokenizer",
        "source_bonus",
        "definition_bonus",
        "context_words",
    }
    assert retrieval_policy(limit=6) != policy


def test_a_store_indexed_before_the_title_field_is_migrated_and_still_verifies(
    tmp_path: Path,
) -> None:
    path = tmp_path / "home"
    path.mkdir()
    conn = sqlite3.connect(path / "store.db", isolation_level=None)
    migrate(conn, STORE_MIGRATIONS[:2])
    conn.close()
    # Ingest through today's code into a fresh home, then copy the rows into the old shape.
    source = tmp_path / "doc.md"
    source.write_text("# Quokkas\n\nThe quokka is a small wallaby.\n", encoding="utf-8")
    with Arborist(tmp_path / "new") as fresh:
        fresh.ingest([str(source)])
        doc = fresh.store_conn.execute(
            "SELECT id, uri, version, kind, title, media_type, content_sha256, source_root, "
            "chunk_count, chunking_version, status, created_at FROM documents"
        ).fetchall()
        chunks = fresh.store_conn.execute(
            "SELECT id, document_id, chunk_index, leaf, tier, text, heading FROM chunks"
        ).fetchall()
    old = sqlite3.connect(path / "store.db", isolation_level=None)
    old.executemany(f"INSERT INTO documents VALUES ({','.join('?' * 12)})", doc)
    old.executemany(
        "INSERT INTO chunks (id, document_id, chunk_index, leaf, tier, text, heading) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        chunks,
    )
    old.executemany(
        "INSERT INTO chunks_fts (rowid, text) VALUES (?, ?)", [(c[0], c[5]) for c in chunks]
    )
    old.close()
    with Arborist(path) as app:
        assert [e.title for e in retrieve(app.store_conn, "quokkas")] == ["Quokkas"]
        app.store_conn.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('integrity-check')")


def test_the_question_is_read_as_words_identifiers_and_follow_up_cues() -> None:
    asked = read_question("What does statistics.median return for median_low and OrderedDict()?")
    assert asked.identifiers == ("statistics.median", "median_low", "OrderedDict")
    assert asked.words[:3] == ("statistics", "median", "return")
    assert {"median", "median_low", "ordereddict"} <= asked.strong_names
    assert identifiers("call groupby() now") == ["groupby"]
    assert stands_alone("What does itertools.groupby do?")
    assert stands_alone("Does json.dumps sort its keys?")  # a pronoun, but it names its subject
    for follow_up in ("Who created him?", "And for an even number?", "What about dumps?", "Why?"):
        assert not stands_alone(follow_up), follow_up


def test_definitions_are_found_with_their_own_description_only() -> None:
    found = {d.name: d for d in definitions(STATS_API + ITERTOOLS_API)}
    assert found["median"].signature == "(data)"
    assert found["median"].doc.startswith("Return the median (middle value) of numeric data.")
    assert "median_low" not in found["median"].doc
    assert found["groupby"].is_class
    assert "consecutive keys" in found["groupby"].doc


def test_a_word_only_the_title_says_still_finds_the_documents_chunks(tmp_path: Path) -> None:
    doc = tmp_path / "wombats.md"
    doc.write_text(
        "# Wombats\n\n## Homes\n\nThey dig long burrows with strong claws.\n", encoding="utf-8"
    )
    other = tmp_path / "rabbits.md"
    other.write_text("# Rabbits\n\nRabbits dig burrows too.\n", encoding="utf-8")
    with Arborist(tmp_path / "home") as app:
        app.ingest([str(doc), str(other)])
        top = retrieve(app.store_conn, "How do wombats dig burrows?")[0]
        assert (top.title, top.text) == (
            "Wombats",
            "## Homes\n\nThey dig long burrows with strong claws.",
        )


def test_a_compound_name_is_named_by_its_parts_side_by_side() -> None:
    from arborist._text.definitions import compound_name

    low = next(d for d in definitions(STATS_NOTES) if d.name == "median_low")
    assert compound_name(low, read_question("What about the low median?"))
    assert compound_name(low, read_question("What does median low return?"))
    assert not compound_name(low, read_question("Is the low value the median?"))  # not side by side
    assert not compound_name(low, read_question("What does median return?"))


def test_a_joined_name_is_named_by_its_words_run_together_in_order() -> None:
    from arborist._text.definitions import joined_name

    assert joined_name("deepcopy", read_question("a deep copy of a list")) == ("deep", "copy")
    assert joined_name("shutil.copytree", read_question("copy the tree")) == ("copy", "tree")
    assert joined_name("namedtuple", read_question("a named tuple")) == ("named", "tuple")
    assert joined_name("readlines", read_question("lines read")) == ()
    assert joined_name("randbits", read_question("random bits")) == ()  # not its letters
    assert joined_name("deepcopy", read_question("copy deep")) == ()  # out of order
    assert joined_name("todo", read_question("what to do")) == ()  # too short to trust
    assert joined_name("median_low", read_question("median low")) == ()  # a compound name


def test_a_follow_up_asking_for_the_low_median_opens_with_median_low(app: Arborist) -> None:
    sid = app.new_session("t").sid
    app.ask_turn("What does statistics.median return?", sid=sid)
    answer = app.ask_turn("What about the low median?", sid=sid).result.answer
    assert answer.startswith("median_low(data): Return the low median of numeric data.")


BISECT_API = """# module bisect

## Name
    bisect - Bisection algorithms.

## Functions
    bisect = bisect_right(a, x, lo=0, hi=None, *, key=None)
        Return the index where to insert item x in list a, assuming a is sorted.

    insort = insort_right(a, x, lo=0, hi=None, *, key=None)
        Insert item x in list a, and keep it sorted assuming a is sorted.

    insort_left(a, x, lo=0, hi=None, *, key=None)
        Insert item x in list a, keeping it sorted, to the left of any equal item.
"""


def test_an_alias_pydoc_writes_as_name_equals_call_is_defined_by_the_same_text() -> None:
    found = {d.name: d for d in definitions(BISECT_API)}
    assert found["insort"].doc == found["insort_right"].doc
    assert found["insort"].doc.startswith("Insert item x in list a, and keep it sorted")
    assert found["insort"].signature == "(a, x, lo=0, hi=None, *, key=None)"
    assert found["bisect"].doc.startswith("Return the index where to insert")
    assert "insort_left" in found and "insort" not in found["insort_left"].doc.split()[0]


def test_asking_what_an_alias_does_opens_with_its_definition(tmp_path: Path) -> None:
    (tmp_path / "bisect.md").write_text(BISECT_API, encoding="utf-8")
    with Arborist(tmp_path / "home") as app:
        app.ingest([str(tmp_path / "bisect.md")])
        answer = app.ask("What does bisect.insort do?").answer
    assert answer.startswith("bisect.insort(a, x"), answer
    assert "Insert item x in list a, and keep it sorted" in answer
    assert "Bisection algorithms" not in answer


def test_a_named_identifier_no_passage_holds_is_not_answered_with_a_neighbour(
    app: Arborist,
) -> None:
    answer = app.ask("What does statistics.variance return?").answer
    assert answer.startswith("The documents do not answer this question."), answer
    assert "No passage mentions statistics.variance" in answer
    assert "statistics" in answer.split("passages found are from", 1)[1]
    named = app.ask("What does statistics.median return?").answer
    assert named.startswith("statistics.median(data): Return the median"), named


def test_a_sentence_matches_a_question_in_the_other_number() -> None:
    from arborist._text.text_words import stem

    assert stem("dictionaries") == stem("dictionary") == "dictionary"
    assert stem("entries") == stem("entry")
    assert stem("elements") == stem("element")
    assert stem("class") == "class" and stem("status") == "status" and stem("ties") == "tie"


def test_the_sentence_that_says_the_plural_answers_before_one_that_only_says_the_word(
    tmp_path: Path,
) -> None:
    (tmp_path / "pprint.md").write_text(
        "# pprint\n\npprint - Support to pretty-print lists, tuples, & dictionaries "
        "recursively.\n\nPretty-print a Python object to a stream.\n",
        encoding="utf-8",
    )
    (tmp_path / "traceback.md").write_text(
        "# traceback - Print a stack traceback\n\nThe frame keeps a dictionary for "
        "instance variables.\n",
        encoding="utf-8",
    )
    with Arborist(tmp_path / "home") as app:
        app.ingest([str(tmp_path / "pprint.md"), str(tmp_path / "traceback.md")])
        answer = app.ask("How do I pretty-print a dictionary?").answer
    assert answer.startswith("pprint - Support to pretty-print lists, tuples, & dictionaries"), (
        answer
    )


def test_a_class_method_pydoc_marks_as_from_its_metaclass_is_a_definition() -> None:
    text = (
        "    now(tz=None) from builtins.type\n"
        "        Returns new datetime object representing current time local to tz.\n"
    )
    found = {d.name: d for d in definitions(text)}
    assert found["now"].signature == "(tz=None)"
    assert found["now"].doc == "Returns new datetime object representing current time local to tz."


def test_a_two_word_question_sharing_one_word_with_a_sentence_is_not_answered_by_it(
    tmp_path: Path,
) -> None:
    """One shared word is a coincidence at any length of question: "population" in
    ``sample``'s parameters does not say how many people live in Tokyo."""
    (tmp_path / "random.md").write_text(
        "# random\n\nsample(population, k)\n    Chooses k unique random elements from a "
        "population sequence.\n\nThe member that writes a file: it will make a file called "
        "targetpath.\n\nchoices(seq, k)\n    Return a list of k items.\n\nIf the sequence is empty, "
        "IndexError is raised.\n",
        encoding="utf-8",
    )
    with Arborist(tmp_path / "home") as app:
        app.ingest([str(tmp_path / "random.md")])
        refused = app.ask("What is the population of Tokyo?").answer
        answered = app.ask("How do I sample a population?").answer
        made = app.ask("how do I make a temporary file").answer  # "make" asks, it names nothing
        raised = app.ask("What does it raise on an empty list?").answer  # "raised" says "raise"
    assert refused.startswith("The documents do not answer this question."), refused
    assert "Tokyo" in refused.split(". ", 1)[1]  # it names what no passage mentions
    assert "Chooses k unique random elements" in answered, answered
    assert made.startswith("The documents do not answer this question."), made
    assert "If the sequence is empty, IndexError is raised." in raised, raised

"""Which sentences the offline answerer quotes when the question names no definition
strongly: a definition a plain word of the question happens to name yields to a sentence
that holds more of the question (arborist/_qa/extractive.py). The texts are cut from
pydoc's layout and from HTML and PDF manuals."""

from __future__ import annotations

from arborist._qa.client import EvidenceText, make_request
from arborist._qa.extractive import ExtractiveClient

CONFIGPARSER = (
    "class RawConfigParser(MutableMapping)\n"
    " |  ConfigParser that does not do interpolation.\n"
    " |\n"
    " |  read(self, filenames, encoding=None)\n"
    " |      Read and parse a filename or an iterable of filenames.\n"
    " |\n"
    " |      Files that cannot be opened are silently ignored; this is\n"
    " |      designed so that you can specify an iterable of potential\n"
    " |      configuration file locations (e.g. current directory, user's\n"
    " |      home directory, systemwide directory), and all existing\n"
    " |      configuration files in the iterable will be read.\n"
)

JSON = (
    "    load(fp, *, cls=None, object_hook=None, parse_float=None, parse_int=None)\n"
    "        Deserialize ``fp`` (a ``.read()``-supporting file-like object containing\n"
    "        a JSON document) to a Python object.\n"
    "\n"
    "        ``object_hook`` is an optional function that will be called with the\n"
    "        result of any object literal decode (a ``dict``).\n"
)

EMAIL = (
    "    class Message(builtins.object)\n"
    "     |  Message(policy=Compat32())\n"
    "     |\n"
    "     |  Basic message object.\n"
    "     |\n"
    "     |  A message object is defined as something that has a bunch of RFC 2822\n"
    "     |  headers and a payload.\n"
)

EMAIL_FUNCTIONS = (
    "    message_from_bytes(s, *args, **kws)\n"
    "        Parse a bytes string into a Message object model.\n"
    "\n"
    "    message_from_string(s, *args, **kws)\n"
    "        Parse a string into a Message object model.\n"
)


def answer(question: str, *evidence: tuple[str, str]) -> str:
    items = [
        EvidenceText(f"E{i}", title, f"pydoc:{i}", text)
        for i, (title, text) in enumerate(evidence, 1)
    ]
    return ExtractiveClient().complete(make_request(question, items)).text


def test_a_definition_a_plain_word_names_yields_to_a_sentence_holding_more_of_the_question() -> (
    None
):
    text = answer(
        "read a json file into a python dict",
        ("configparser — Configuration file parser", CONFIGPARSER),
        ("json — JSON encoder and decoder", JSON),
    )
    assert text.startswith("json.load(fp, *, cls=None, …): Deserialize ``fp``")


def test_the_function_that_does_the_task_wins_over_the_class_its_word_names() -> None:
    text = answer(
        "How do I parse raw email bytes into a message object?",
        ("email.message — Representing an email message", EMAIL),
        ("email — A package for parsing, handling and generating email", EMAIL_FUNCTIONS),
    )
    assert text.startswith("email.message_from_bytes(s, *args, **kws): ")
    assert "Parse a bytes string into a Message object model." in text
    assert "Basic message object" not in text


def test_a_definition_named_by_the_question_still_opens_when_nothing_holds_more() -> None:
    text = answer(
        "read an iterable of filenames",
        ("configparser — Configuration file parser", CONFIGPARSER),
        ("json — JSON encoder and decoder", JSON),
    )
    assert text.startswith("configparser.read(filenames, encoding=None): ")
    assert "Read and parse a filename or an iterable of filenames." in text


def test_html_manual_prose_quotes_the_sentence_that_answers() -> None:
    page = (
        "# 2. Enabling Foreign Key Support\n\n"
        "In order to use foreign key constraints in SQLite, the library must be compiled "
        "with neither SQLITE_OMIT_FOREIGN_KEY nor SQLITE_OMIT_TRIGGER defined. "
        "Foreign key constraints are disabled by default, so must be enabled separately "
        "for each database connection. The application can also use a PRAGMA foreign_keys "
        "statement to determine if foreign keys are currently enabled."
    )
    evidence = [EvidenceText("E1", "SQLite Foreign Key Support", "file:///fk.html", page)]
    client = ExtractiveClient(max_sentences=1)
    text = client.complete(make_request("are foreign key constraints on by default", evidence))
    assert text.text.startswith("Foreign key constraints are disabled by default")


def test_a_pdf_paragraph_answers_by_its_sentence_not_its_neighbour() -> None:
    paragraph = (
        "FUNCNEST If set to a numeric value greater than 0, defines a maximum function "
        "nesting level. Function invocations that exceed this nesting level will cause the "
        "current command to abort.\n\n"
        "GLOBIGNORE A colon-separated list of patterns defining the set of file names to be "
        "ignored by filename expansion."
    )
    evidence = [EvidenceText("E1", "Bash Reference Manual", "file:///bash.pdf", paragraph)]
    text = ExtractiveClient(max_sentences=1).complete(
        make_request("what limits how deeply functions can nest", evidence)
    )
    assert "maximum function nesting level" in text.text
    assert "GLOBIGNORE" not in text.text

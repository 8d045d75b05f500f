"""Text from models, documents and users reaches a terminal (and a notebook) inert.

A model's answer, a question, a label, a falsify reason, a derived text, a
document's title, text and file name: each is planted with control sequences
that would retitle the window, clear the screen, overwrite a line or reorder
text, and every face that prints it is read back. What is stored stays as
received (it is committed by hashes); what is shown never holds a raw control.
"""

from __future__ import annotations

import json
import re
import sqlite3
import unicodedata
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from IPython.core.interactiveshell import InteractiveShell

from arborist._errors import BadInput
from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._faces.repl import Repl, scripted_reader
from arborist._text.terminal import BLANK_CHARACTERS, inert, inert_json
from arborist_nb._display import Answer
from tests.chat_server import ChatServer, completion
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401
from tests.conftest import load_vectors

RAW = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
    "\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""Anything a terminal acts on (tab and newline are layout, and allowed)."""

SHOWN = load_vectors("inert.json")
"""How each kind of control is shown: the widget's rule (js/src/text.js ``inert``) holds the
same vectors, so a face shows a control as every other face does."""


@pytest.mark.parametrize("vector", SHOWN, ids=[v["name"] for v in SHOWN])
def test_inert_holds_the_vectors_the_widget_holds(vector: dict[str, str]) -> None:
    assert inert(vector["text"]) == vector["shown"]


PAYLOADS = {
    "retitle": "\x1b]0;pwned\x07",
    "clear": "\x1b[2J\x1b[H",
    "overwrite": "safe\rFORGED",
    "c1_csi": "\x9b2J",
    "c1_osc": "\x9d0;t\x9c",
    "bidi": "\u202etxt.exe",
    "bell": "\x07\x07",
    "backspace": "ab\x08\x08XY",
    "nul": "a\x00b",
    "del": "a\x7fb",
    "separators": "one\u2028two\u2029three\x85four",
    "marks": "\u200fabc\u200e\u061c",
    "zero_width": "pay\u200bpal\u200c\u200d\u2060\ufeffx\u00ady",
    "tags": "ok\U000e0041\U000e0042\U000e007f",
    # blank-drawing characters pushing a turn's real badge off the screen after a forged one
    "blanks": " [STRICT answered]\u2800\u2800\u3164\u115f\u1160\uffa0\u17b4\u17b5x",
}
EVIL = "".join(PAYLOADS.values())
IN_FILE = EVIL.replace("\x00", "")
"""What a text file can carry (a NUL makes it binary, refused at ingest)."""
IN_ARGV = IN_FILE
"""What a command-line argument can carry: no NUL (execve cannot pass one, and the CLI
refuses one in one line)."""


def assert_inert(text: str) -> None:
    found = RAW.search(text)
    assert found is None, f"raw control {found.group()!r} at {found.start()} in {text!r}"
    hidden = [c for c in text if unicodedata.category(c) == "Cf" or c in BLANK_CHARACTERS]
    assert not hidden, f"invisible characters {hidden!r} in {text!r}"


def test_inert_shows_every_control_as_a_visible_escape() -> None:
    assert inert("\x1b]0;pwned\x07") == "\\x1b]0;pwned\\x07"
    assert inert("safe\rFORGED") == "safe\\rFORGED"
    assert inert("line\r\nnext") == "line\nnext"
    assert inert("\x9b2J") == "\\x9b2J"
    assert inert("\u202eabc") == "\\u202eabc"
    assert inert("[OK]\u2800\u3164x") == "[OK]\\u2800\\u3164x"
    assert inert("a\x00b\x7f") == "a\\0b\\x7f"
    assert inert("bad \udc9b surrogate") == "bad \ufffd surrogate"
    assert inert("tabs\tand\nnewlines stay") == "tabs\tand\nnewlines stay"
    assert inert("Ünïcödé — “quotes” 漢字 🙂") == "Ünïcödé — “quotes” 漢字 🙂"
    assert inert("a\n  b\tc\r\n", one_line=True) == "a b c"
    for payload in PAYLOADS.values():
        assert_inert(inert(payload))
        assert_inert(inert(payload, one_line=True))


def test_inert_json_is_the_same_data() -> None:
    data = {"answer": EVIL, "lone": "\udc9b"}
    text = inert_json(json.dumps(data, ensure_ascii=False))
    assert_inert(text)
    assert json.loads(text) == data


# --- the CLI and the REPL, end to end ---------------------------------------------------------


ASKED: dict[Path, list[Result]] = {}
"""The CLI output of the fixture's two asks (a miss, then its cached replay), by home."""


@pytest.fixture
def hostile_home(home: Path, tmp_path: Path, chat_server: ChatServer) -> Path:
    """A home where a document, its file name, a model's answer, a question, a label, a
    falsify reason and a derived text all carry every payload."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / f"evil{PAYLOADS['clear']}name.md").write_text(
        f"# Spidey {IN_FILE}\n\nSpider-Man was created by Stan Lee and Steve Ditko {IN_FILE}.\n",
        encoding="utf-8",
    )
    chat_server.script(completion(f"Stan Lee and Steve Ditko {EVIL} [E1]"))
    env = {
        "ARBORIST_LLM": "openai",
        "ARBORIST_BASE_URL": chat_server.url,
        "ARBORIST_MODEL": "evil-model",
    }
    assert _run(home, "ingest", str(docs)).exit_code == 0
    question = f"Who created Spider-Man? {IN_ARGV}"
    miss = _run(home, "ask", question, env=env)
    hit = _run(home, "ask", question, env=env)
    assert miss.exit_code == 0 and hit.exit_code == 0, miss.output + hit.output
    assert "miss" in miss.output and "hit" in hit.output and chat_server.requests == 1
    ASKED[home] = [miss, hit, _run(home, "ask", question, "--json", env=env)]
    with Arborist(home) as app:
        record = app.records()[0]
        sid = app.sessions()[0][0].sid
        with pytest.raises(BadInput, match="labels cannot hold control characters"):
            app.label(sid, f"lbl{PAYLOADS['retitle']}")
        app.derive("summary", record.cache_key, f"derived {EVIL}")
        stored = app.records()[0]
    assert EVIL in stored.answer_text  # stored as received: it is what the hashes commit
    return home


def _run(home: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, ["--home", str(home), *args], env=env)


def _key(home: Path) -> str:
    with Arborist(home) as app:
        return app.records()[0].cache_key


def _sid(home: Path) -> str:
    with Arborist(home) as app:
        return app.sessions()[0][0].sid


def test_every_cli_face_prints_hostile_text_inert(
    hostile_home: Path, chat_server: ChatServer
) -> None:
    home = hostile_home
    env = {
        "ARBORIST_LLM": "openai",
        "ARBORIST_BASE_URL": chat_server.url,
        "ARBORIST_MODEL": "evil-model",
    }
    key, sid = _key(home), _sid(home)
    faces = [
        *ASKED.pop(home),  # the answer, and its replay from the cache
        _run(home, "ask", f"And who drew him? {IN_ARGV}", "--sid", sid, env=env),
        _run(home, "record", "show", key),
        _run(home, "record", "show", key, "--json"),
        _run(home, "record", "list"),
        _run(home, "record", "list", "--json"),
        _run(home, "search", "Spider-Man"),
        _run(home, "search", "Spider-Man", "--json"),
        _run(home, "session", "--find", "Spider-Man"),
        _run(home, "session", "--find", "Spider-Man", "--json"),
        _run(home, "session", "--tree", "--sid", sid),
        _run(home, "session", "--list"),
        _run(home, "session", "--export", sid),
        _run(home, "record", "falsify", key, "--state", "failed", "--reason", f"r{IN_ARGV}"),
        _run(home, "record", "show", key),
        _run(home, "derive", "summary", "--from", key, "--text", f"d{IN_ARGV}"),
        _run(home, "stats"),
        _run(home, "verify"),
    ]
    for result in faces:
        assert_inert(result.stdout)
        assert_inert(result.stderr)
    assert "\\x1b]0;pwned\\x07" in faces[1].output  # shown, as visible escapes


def test_error_lines_are_one_inert_line(home: Path, tmp_path: Path) -> None:
    bad = tmp_path / f"no{PAYLOADS['retitle']}\nsuch\rfile.md"
    for args in (
        ["ingest", str(bad)],
        ["verify", "--witness", str(bad)],
        ["ask", "--sid", EVIL, "q"],
    ):
        result = _run(home, *args)
        assert result.exit_code != 0
        assert_inert(result.stderr)
        assert result.stderr.count("\n") == 1, result.stderr


def test_the_repl_writes_inert_text(hostile_home: Path, chat_server: ChatServer) -> None:
    out: list[str] = []
    with Arborist(hostile_home) as app:
        sid = _sid(hostile_home)
        repl = Repl(
            app,
            sid,
            read=scripted_reader(
                [
                    f"Who created Spider-Man? {EVIL}",
                    "/tree",
                    f"/label again{EVIL}",
                    "/show",
                    "/find Spider",
                    f"/cd {EVIL}",
                    "/quit",
                ]
            ),
            write=out.append,
            llm="extractive",
        )
        repl.run()
        labels = [r[0] for r in app.sessions_conn.execute("SELECT label FROM nodes")]
        assert not any(label and RAW.search(label) for label in labels)  # refused, one line
        completions = repl.completions("lbl")
    for line in out:
        assert_inert(line)
    assert not any(RAW.search(c) for c in completions)


# --- notebook outputs -------------------------------------------------------------------------


def test_notebook_outputs_carry_no_raw_control(
    hostile_home: Path, chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARBORIST_BASE_URL", chat_server.url)
    monkeypatch.setenv("ARBORIST_MODEL", "evil-model")
    ip = InteractiveShell.instance()
    try:
        assert ip.run_cell("%load_ext arborist_nb").success
        ip.run_line_magic("arborist", "llm openai")
        ip.user_ns["q"] = f"Who created Spider-Man? {EVIL}"
        answer = ip.run_cell_magic("ask", "", "{q}")
        assert isinstance(answer, Answer)
        assert RAW.search(answer.text)  # the model sent controls; they are stored as sent
        for rendering in (repr(answer), answer._repr_markdown_(), answer._repr_html_()):
            assert_inert(rendering)
        for sub in ("tree", "find Spider", "search Spider", "show", "session list"):
            buffer = StringIO()
            with redirect_stdout(buffer):
                ip.run_line_magic("arborist", sub)
            assert_inert(buffer.getvalue())
            assert buffer.getvalue().strip()
    finally:
        ip.run_line_magic("unload_ext", "arborist_nb")
        InteractiveShell.clear_instance()


def test_stored_text_stays_as_received(hostile_home: Path) -> None:
    conn = sqlite3.connect(hostile_home / "store.db")
    try:
        answer = conn.execute("SELECT answer_text FROM cache_records").fetchone()[0]
    finally:
        conn.close()
    assert EVIL in answer

"""Answers stream at a terminal too: ``arborist ask`` under a real pseudo-terminal and the
REPL, against the loopback chat server, with a hostile model whose escape sequences are
split across the stream's events. What reaches the terminal is inert piece by piece
(docs/design.md section 8); without a terminal, or with ``--json``, nothing streams and
the output is what scripts have always read.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import termios
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._faces.repl import Repl, scripted_reader
from arborist._text.terminal import Gutter, answer_block, inert
from tests.chat_server import ChatServer, completion, stream_reply
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent
SPIDER = "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\n"
RAW = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
    "\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""Anything a terminal acts on (tab and newline are layout, and allowed)."""

DELTAS = [
    "Stan Lee ",
    "\x1b",  # an OSC retitle, its ESC alone in one event
    "]0;pwned",
    "\x07 and \x1b[2",  # a screen clear cut inside its CSI
    "J Steve Ditko\r",  # a \r\n cut between its two characters
    "\nsafe\r",
    "FORGED \u202e\x9b2J",
    "txt [E1]",
]
ANSWER = "".join(DELTAS)
FIRST = 3
"""The gate holds the stream after this many deltas, until the terminal shows them."""
WIDTH = 80
"""A pseudo-terminal's width as arborist reads it (a new pty says 0 columns: the default)."""
SHOWN_FIRST = Gutter(WIDTH).feed(inert("".join(DELTAS[:FIRST])))
"""What the terminal shows of them at once: behind the answer's gutter, the last word
(which may go on in the next delta) held back."""
SHOWN = answer_block(ANSWER, width=WIDTH)
"""The whole answer as a terminal shows it: inert, each line behind the gutter."""


@pytest.fixture
def loopback(
    home: Path, tmp_path: Path, chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> ChatServer:
    """A home with one document, and ``--llm openai`` meaning the loopback server."""
    (tmp_path / "spider.md").write_text(SPIDER, encoding="utf-8")
    assert CliRunner().invoke(cli, ["ingest", str(tmp_path / "spider.md")]).exit_code == 0
    monkeypatch.setenv("ARBORIST_BASE_URL", chat_server.url)
    monkeypatch.setenv("ARBORIST_MODEL", "loopback-model")
    monkeypatch.delenv("ARBORIST_API_KEY", raising=False)
    monkeypatch.delenv("ARBORIST_LLM", raising=False)
    return chat_server


def _terminal(args: list[str], gate: threading.Event | None = None) -> tuple[int, str, bool]:
    """Run ``arborist ARGS`` with stdout on a pseudo-terminal (output post-processing off,
    so the bytes read are the bytes written). Returns the exit code, what the terminal
    received, and whether it showed the first deltas while the server still held the rest."""
    master, slave = pty.openpty()
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.ONLCR  # "\n" stays "\n": no "\r" added by the line discipline
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    process = subprocess.Popen(
        [sys.executable, "-m", "arborist", *args],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
    )
    os.close(slave)
    received, early = b"", False
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if gate is not None and not gate.is_set():
                early = SHOWN_FIRST.encode() in received
                if early or time.monotonic() > deadline - 45:  # never streamed: let it finish
                    gate.set()
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            received += data
    finally:
        os.close(master)
        code = process.wait(timeout=30)
        assert process.stderr is not None
        error = process.stderr.read().decode()
        process.stderr.close()
    assert code == 0, error
    return code, received.decode("utf-8"), early


def test_ask_at_a_terminal_streams_the_answer_inert_then_its_citations(
    loopback: ChatServer,
) -> None:
    gate = threading.Event()
    loopback.script(replace(stream_reply(DELTAS), gate=gate, gate_at=3 + FIRST))
    _, shown, early = _terminal(["ask", "Who created Spider-Man?", "--llm", "openai"], gate)
    assert early, "the first pieces reached the terminal while the model was still answering"
    assert loopback.received[0].body["stream"] is True
    assert RAW.search(shown) is None, repr(shown)
    assert shown.startswith(SHOWN + "\n\nbates ")
    assert shown.startswith("│ Stan Lee ")
    assert "\\x1b]0;pwned\\x07" in shown and "\\x1b[2J" in shown and "\\x9b2J" in shown
    assert "Ditko\n│ safe\\rFORGED" in shown  # \r\n split across events is one newline
    lines = shown.splitlines()
    assert any(line.startswith("cache   miss") for line in lines)
    assert "audit   sources verified, wording not quoted (STRICT)" in lines  # no quote
    assert "sources" in lines


def test_a_cache_hit_at_a_terminal_prints_at_once(loopback: ChatServer) -> None:
    loopback.script(stream_reply(DELTAS))
    _, first, _ = _terminal(["ask", "Who created Spider-Man?", "--llm", "openai"])
    _, again, _ = _terminal(["ask", "Who created Spider-Man?", "--llm", "openai"])
    assert loopback.requests == 1, "a hit asks no model"
    assert RAW.search(again) is None
    assert again.startswith(SHOWN + "\n\nbates ") and "cache   hit" in again
    assert first.split("\nbates ")[0] == again.split("\nbates ")[0]


def test_json_at_a_terminal_and_text_without_one_do_not_stream(loopback: ChatServer) -> None:
    _, shown, _ = _terminal(["ask", "Who created Spider-Man?", "--llm", "openai", "--json"])
    assert json.loads(shown)["answer"].startswith("The test server read the evidence.")
    result = CliRunner().invoke(cli, ["ask", "Who drew Spider-Man?", "--llm", "openai"])
    assert result.exit_code == 0, result.output
    assert [r.body["stream"] for r in loopback.received] == [False, False]
    assert result.stdout.startswith("│ The test server read the evidence. [E1 |")


def _drive(app: Arborist, script: list[str]) -> list[tuple[str, str]]:
    """Run the REPL with a terminal's stream; every piece and line, in the order written."""
    events: list[tuple[str, str]] = []
    repl = Repl(
        app,
        app.new_session("repl").sid,
        read=scripted_reader(script),
        write=lambda line: events.append(("line", line)),
        llm="openai",
        stream=lambda piece: events.append(("piece", piece)),
    )
    repl.run()
    return events


def test_the_repl_streams_inert_pieces_and_a_hit_at_once(loopback: ChatServer, home: Path) -> None:
    loopback.script(stream_reply(DELTAS))
    with Arborist(home) as app:
        events = _drive(app, ["Who created Spider-Man?", "/root", "Who created Spider-Man?"])
    pieces = [text for kind, text in events if kind == "piece"]
    assert len(pieces) >= len(DELTAS) - 1, "the answer came piece by piece"
    for piece in pieces:
        assert RAW.search(piece) is None, repr(piece)
    assert "".join(pieces) == answer_block(ANSWER) + "\n"
    kinds = [kind for kind, _ in events]
    turn = kinds.index("line", kinds.index("piece"))
    # The footer every face writes after an answer (the REPL's is arborist ask's).
    footer = r"\nbates   \S+-000001\ncache   miss .*\naudit   sources verified, wording not quoted \(STRICT\)\n"
    assert re.match(footer, events[turn][1])
    assert all(kind == "line" for kind in kinds[turn:]), "a hit streams nothing"
    hit = [text for kind, text in events[turn + 1 :] if "\ncache   hit" in text]
    assert hit and hit[0].startswith(answer_block(ANSWER) + "\n\nbates ")  # at once, whole
    assert loopback.requests == 1


def test_what_admission_redacts_after_the_stream_is_shown_as_stored(
    loopback: ChatServer, home: Path
) -> None:
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    loopback.script(stream_reply(["Stan Lee; the token is ", secret[:9], secret[9:], " [E1]"]))
    with Arborist(home) as app:
        events = _drive(app, ["Who created Spider-Man?"])
        stored = app.records()[0].answer_text
    assert secret not in stored and "[REDACTED:github_token]" in stored
    lines = [text for kind, text in events if kind == "line"]
    turn = next(line for line in lines if "\ncache   miss" in line)
    assert turn.startswith(
        f"stored as (the admission gate changed what streamed):\n{answer_block(stored)}\n\nbates "
    )


# --- a model imitating arborist's own lines ----------------------------------------------------

FAKE_BATES = "20990101T000000Z-aaaaaa-000009"
FORGED_DELTAS = [
    "Stan Lee [E1]\n",
    "\nbates   " + FAKE_BATES + "\ncache   hit (first answered 2099-01-01, 9 hit(s))\n",
    "audit   STRICT\nsupport answered: the cited passages hold every word of the question\n",
    "key     " + "f" * 64 + "\nsources\n  E1* Trusted  (chunk 0)  https://x.org\n",
    "fitted  5 passage(s) sent (the record notes 5 found, a 4,096-token context)\n",
    f"[{FAKE_BATES}  hit  STRICT]\n",
    "y" * (WIDTH - 2) + "audit   STRICT soft-wrapped into column 0 of the next row\n",
    "pay\u200bpal\u200d \ufeffsoft\u00adhyphen \u2060joined \U000e0041tag\u2066isolate",
]
FORGED = "".join(FORGED_DELTAS)
HIDDEN = "\u200b\u200d\ufeff\u00ad\u2060\U000e0041\u2066"
OWN_LINES = re.compile(r"(bates|cache|audit|support|key|sources|fitted)\b|\[\S+  (hit|miss)  ")
"""How arborist's own lines after an answer start (the footer every face writes; the REPL's
one-line turn of before, ``[BATES  hit  MODE]``, which a model could still imitate)."""


def _rows(text: str, width: int | None) -> list[str]:
    """The rows a terminal ``width`` columns wide shows ``text`` in (it wraps a longer line
    into column 0 of the next row); every character here is one column wide."""
    rows: list[str] = []
    for line in text.split("\n"):
        rows += [line[i : i + width] for i in range(0, len(line), width)] if width else [line]
        rows += [] if line or not width else [""]
    return rows


def _assert_set_apart(shown: str, width: int | None, footer: str) -> None:
    """No row of the answer can pass for one of arborist's own lines: every row before the
    real ``footer`` starts with the gutter; arborist's own lines appear once, after it; no
    invisible character reaches the terminal raw, and each is shown as an escape."""
    answer, found, rest = shown.partition(footer)
    assert found, f"no footer {footer!r} in {shown!r}"
    rows = _rows(answer.rstrip("\n"), width)
    assert rows, shown
    for row in rows:
        assert row.startswith(("│ ", "│")) and not OWN_LINES.match(row), repr(row)
    assert "│ audit   STRICT" in rows and f"│ [{FAKE_BATES}  hit  STRICT]" in rows
    own = [row for row in _rows(found + rest, width) if OWN_LINES.match(row)]
    assert FAKE_BATES not in "".join(own)
    assert not any(c in shown for c in HIDDEN), repr(shown)
    for escaped in ("\\u200b", "\\u200d", "\\ufeff", "\\xad", "\\u2060", "\\U000e0041", "\\u2066"):
        assert escaped in answer, escaped


def test_a_streamed_answer_cannot_forge_the_footer(loopback: ChatServer) -> None:
    loopback.script(stream_reply(FORGED_DELTAS))
    _, shown, _ = _terminal(["ask", "Who created Spider-Man?", "--llm", "openai"])
    assert loopback.received[0].body["stream"] is True
    _assert_set_apart(shown, WIDTH, "\n\nbates ")
    assert shown.count("\naudit   ") == 1 and shown.count("\ncache   miss") == 1
    again = _terminal(["ask", "Who created Spider-Man?", "--llm", "openai"])[1]  # a hit
    _assert_set_apart(again, WIDTH, "\n\nbates ")
    assert again.count("\ncache   hit") == 1 and loopback.requests == 1


def test_an_answer_without_a_terminal_cannot_forge_the_footer(loopback: ChatServer) -> None:
    loopback.script(completion(FORGED))
    result = CliRunner().invoke(cli, ["ask", "Who created Spider-Man?", "--llm", "openai"])
    assert result.exit_code == 0, result.output
    assert loopback.received[0].body["stream"] is False
    _assert_set_apart(result.stdout, None, "\n\nbates ")
    assert result.stdout.count("\naudit   ") == 1


def test_the_repl_sets_an_answer_apart_streamed_and_whole(loopback: ChatServer, home: Path) -> None:
    loopback.script(stream_reply(FORGED_DELTAS))
    with Arborist(home) as app:
        events = _drive(app, ["Who created Spider-Man?", "/root", "Who created Spider-Man?"])
    pieces = "".join(text for kind, text in events if kind == "piece")
    lines = [text for kind, text in events if kind == "line"]
    turns = [line for line in lines if re.search(r"\ncache   (hit|miss) ", line)]
    assert len(turns) == 2, lines
    _assert_set_apart(pieces + turns[0], None, "\n\nbates ")  # streamed, then the footer
    _assert_set_apart(turns[1], None, "\n\nbates ")  # the hit, written whole
    assert turns[1].startswith(pieces)  # the same answer block, whichever way it came

"""One turn, one set of facts, in every face (issue #36 items 2 and 6).

Real questions into a real home (the built-in demo corpus, the offline extractive answerer;
one turn from a chat server on loopback whose small context makes arborist fit the prompt):
a miss, a cache hit, a falsified answer, an ask with a co-access lane, a fitted prompt. For
each turn :meth:`Arborist.facts` says its facts once; each fact must then appear in every
face that shows the turn: the CLI's ``ask`` and ``show`` text, the REPL's ``/show``,
``%arborist ask``,
``show --json`` and ``ask --json``, ``%%ask``'s text/plain and HTML, and the widget's
detail payload and tree row. Before the facts were computed once, ``%%ask`` left out the
lanes, the ``fitted`` line and the sources it did not cite, and ``show`` said neither hit
nor miss, nor any source.
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from IPython.core.interactiveshell import InteractiveShell

from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._faces.repl import Repl, scripted_reader
from arborist._faces.sync import body
from arborist._facts import HIT, MISS, TurnFacts
from arborist._text.terminal import inert
from arborist_nb._display import Answer
from tests.chat_server import ChatServer
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401

REASON = "wrong \x1b[2J<b>module</b>"
"""A falsification's reason with a control sequence and HTML: inert or escaped in each face."""
HISTORY = ("what does bisect do", "how do I sort a list", "how do I read a csv file")


@dataclass
class Shown:
    """One turn and what each face showed of it."""

    name: str
    facts: TurnFacts
    texts: dict[str, str]
    """Terminal faces: the words as printed (inert)."""
    pages: dict[str, str]
    """HTML faces: escaped."""
    data: dict[str, dict[str, Any]]
    """JSON faces: each the turn's ``facts`` object."""


def cli_out(home: Path, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--home", str(home), *args])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture
def shell(home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InteractiveShell]:
    monkeypatch.setenv("ARBORIST_COACCESS", "1")  # the co-access lane of --related
    ip = InteractiveShell.instance()
    assert ip.run_cell("%load_ext arborist_nb").success
    with contextlib.redirect_stdout(io.StringIO()):
        ip.run_line_magic("arborist", "ingest --demo")
    yield ip
    ip.run_line_magic("unload_ext", "arborist_nb")
    InteractiveShell.clear_instance()


def cell(ip: InteractiveShell, question: str, line: str = "") -> Answer:
    with contextlib.redirect_stdout(io.StringIO()):
        answer = ip.run_cell_magic("ask", line, question)
    assert isinstance(answer, Answer)
    return answer


def faces(app: Arborist, home: Path, answer: Answer, name: str) -> Shown:
    """Every face's rendering of ``answer``'s turn, now."""
    bates, sid = answer.bates, answer.node.sid
    bundle, _meta = InteractiveShell.instance().display_formatter.format(answer)
    out: list[str] = []
    Repl(app, sid, read=scripted_reader([f"/show {bates}"]), write=out.append).run()
    detail = body(app, bates, sid)
    return Shown(
        name=name,
        facts=app.facts(app.node(bates)),
        texts={
            "show": cli_out(home, "show", bates),
            "repl /show": "\n".join(out),
            "%%ask text/plain": bundle["text/plain"],
        },
        pages={"%%ask text/html": bundle["text/html"]},
        data={
            "show --json": json.loads(cli_out(home, "show", bates, "--json"))["facts"],
            "widget detail": detail["facts"],
        },
    )


def said_in_text(text: str, facts: TurnFacts, asked_now: bool) -> list[str]:
    """The facts a terminal face leaves out of ``text``."""
    said = [
        facts.answer.splitlines()[0],
        facts.bates,
        facts.cache_key,
        f"{facts.served} (",
        inert(facts.audit, one_line=True),
        *([facts.support.text()] if facts.support else []),
        *(
            [f"{facts.state}: {inert(facts.state_reason, one_line=True)}"]
            if facts.state_reason
            else []
        ),
        *([facts.first_bates] if facts.served == HIT and facts.first_bates else []),
        *([facts.fitted] if facts.fitted else []),
    ]
    for s in facts.sources:
        said.append(
            f"{s.label}{'*' if s.cited else ' '} {s.title}  (chunk {s.chunk_index})  {s.uri}"
        )
        said += [f"[{s.lane}]"] if s.lane else []
    if not asked_now:  # the ask's own cache line says how long it took instead of when
        said.append(f"{facts.first_at}")
    return [fact for fact in said if inert(fact) not in text]


def bates_of(text: str) -> str:
    """The bates number an ask's text names on its ``bates`` line."""
    return next(line.split()[1] for line in text.splitlines() if line.startswith("bates"))


def page_words(page: str) -> str:
    """An HTML output's text: tags out, entities decoded, whitespace runs one space."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def said_in_page(page: str, facts: TurnFacts) -> list[str]:
    """The facts an HTML face leaves out of ``page`` (its escaped text)."""
    words = page_words(page)
    said = [
        facts.bates,
        facts.cache_key,
        facts.audit,
        f"{facts.served} (",
        *([facts.support.text()] if facts.support else []),
        *([f"{facts.state}: {inert(facts.state_reason)}"] if facts.state_reason else []),
        *([facts.first_bates] if facts.served == HIT and facts.first_bates else []),
        *([facts.fitted] if facts.fitted else []),
    ]
    for s in facts.sources:
        said += [s.title, s.uri, f"chunk {s.chunk_index} of {s.chunk_count}"]
        said += [f"[{s.lane}]"] if s.lane else []
    missing = [fact for fact in said if " ".join(fact.split()) not in words]
    answer = set(re.findall(r"[A-Za-z]{3,}", facts.answer))
    missing += sorted(answer - set(re.findall(r"[A-Za-z]{3,}", words)))
    return missing


def test_every_face_shows_every_fact_of_a_turn(
    shell: InteractiveShell, home: Path, chat_server: ChatServer
) -> None:
    app: Arborist = shell.magics_manager.registry["ArboristMagics"].app
    (home / "config.toml").write_text(
        f'[models.tiny]\nprovider = "openai"\nbase_url = "{chat_server.url}"\n'
        'model = "test-model"\nmax_tokens = 64\ncontext_tokens = 500\n',
        encoding="utf-8",
    )
    (home / "config.toml").chmod(0o600)
    history = [cell(shell, question) for question in HISTORY]
    miss, falsified = history[0], history[2]
    shell.run_line_magic("arborist", "session new")
    hit = cell(shell, HISTORY[0])
    lanes = cell(shell, "how does bisect insort work", "--related")
    fitted = cell(shell, "what does heapq do", "--llm tiny")
    app.falsify(falsified.cache_key, "failed", REASON)
    # what the ask faces print as the turn is made: the CLI's text and --json (a shell
    # keeps no session: each ask starts one, and is a hit of the turns above)
    asked_text = cli_out(home, "ask", HISTORY[0])
    asked_json = json.loads(
        cli_out(home, "ask", "how does bisect insort work", "--related", "--json")
    )
    shown = [
        faces(app, home, miss, "miss"),
        faces(app, home, hit, "hit"),
        faces(app, home, falsified, "falsified"),
        faces(app, home, lanes, "lanes"),
        faces(app, home, fitted, "fitted"),
    ]
    by_name = {s.name: s.facts for s in shown}
    # the turns are what they were made to be
    assert (by_name["miss"].served, by_name["hit"].served) == (MISS, HIT)
    assert by_name["hit"].first_bates == miss.bates
    assert (by_name["falsified"].state, by_name["falsified"].state_reason) == ("failed", REASON)
    assert {"lexical", "related"} <= set(by_name["lanes"].lanes)
    assert by_name["fitted"].fitted and "500-token context" in by_name["fitted"].fitted
    for turn in shown:
        for face, text in turn.texts.items():
            asked_now = face.startswith("%%ask")  # its cache line: how long, not when
            assert said_in_text(text, turn.facts, asked_now) == [], (turn.name, face, text)
            assert "\x1b" not in text
        for face, page in turn.pages.items():
            assert said_in_page(page, turn.facts) == [], (turn.name, face)
            assert "<b>module</b>" not in page
        for face, data in turn.data.items():
            assert data == turn.facts.as_json(), (turn.name, face)
    # the tree row: the part of the facts a row has room for, from the same standing
    for turn in shown:
        view = app.forest_view()
        row = view.summary(app.node(turn.facts.bates), turn.facts.sid)
        assert row["audit_mode"] == turn.facts.mode
        assert row.get("support") == (turn.facts.support.level if turn.facts.support else None)
        assert row.get("state_reason") == turn.facts.state_reason
    # the CLI's ask: its text and its --json, as the turns they made say them
    cli_hit = app.facts(app.node(bates_of(asked_text)))
    assert cli_hit.served == HIT and cli_hit.first_bates == miss.bates
    assert said_in_text(asked_text, cli_hit, asked_now=True) == [], asked_text
    # %arborist ask prints what the CLI's ask prints (the same command, the same view)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        shell.run_line_magic("arborist", f"ask --parent root {HISTORY[0]}")
    said = printed.getvalue()
    magic = app.facts(app.node(bates_of(said)))
    assert magic.served == HIT and said_in_text(said, magic, asked_now=True) == [], said
    made = app.facts(app.node(asked_json["bates"]))
    own = ("cache", "elapsed_ms")  # what only the ask knew: how long it took
    assert {k: v for k, v in asked_json["facts"].items() if k not in own} == {
        k: v for k, v in made.as_json().items() if k not in own
    }
    assert asked_json["facts"]["served"] == (HIT if asked_json["hit"] else MISS)
    assert "related" in asked_json["facts"]["lanes"]  # the lanes, in --json too

"""A bundle (docs/bundle.md): written from a real home by the real CLI, checked in an empty
home, by the standalone verifier docs/bundle.md prints, and against a saved notebook's
heads; every field forged or of another JSON type is named in one line."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arborist._bundles.check import check_bundle
from arborist._bundles.shape import BundleUnreadable, hex_b64, read_bundle
from arborist._commands.desk import Desk
from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._proofs.hashing import canonical_json, leaf_hash, sha256_hex
from tests.hypothesis_sizes import scaled_examples

ROOT = Path(__file__).resolve().parents[1]
SPIDER = (
    "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\n\n"
    "## First appearance\n\nHe first appeared in Amazing Fantasy #15 in August 1962.\n\n"
    "## Powers\n\nHe clings to walls and senses danger before it comes.\n"
)
QUOKKA = "# Quokka\n\nThe quokka shelters under saltbush on Rottnest Island.\n"
SECRET_QUESTION = "Where does the quokka shelter?"


def run(home: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--home", str(home), *args])
    return result.exit_code, result.stdout + result.stderr


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A home with two sessions (the bundled one: two asks, a label, a falsified answer
    asked again; the other: the quokka) and the bundle of the first, all by the CLI."""
    root = tmp_path_factory.mktemp("bundle")
    docs, home = root / "docs", root / "home"
    docs.mkdir()
    (docs / "spider.md").write_text(SPIDER, encoding="utf-8")
    (docs / "quokka.md").write_text(QUOKKA, encoding="utf-8")
    assert run(home, "ingest", str(docs))[0] == 0
    code, out = run(home, "ask", "--json", "Who created Spider-Man?")
    assert code == 0, out
    first = json.loads(out)
    sid = first["bates"].rsplit("-", 1)[0]
    assert run(home, "ask", "--sid", sid, "What are the powers of Spider-Man?")[0] == 0
    assert run(home, "ask", "--sid", sid, "When did Spider-Man first appear?")[0] == 0
    assert run(home, "label", "--sid", sid, "--ref", "1", "creators")[0] == 0
    assert (
        run(home, "falsify", "--state", "failed", "--reason", "checking", first["cache_key"])[0]
        == 0
    )
    assert run(home, "ask", "--sid", sid, "Who created Spider-Man?")[0] == 0
    assert run(home, "ask", SECRET_QUESTION)[0] == 0
    bundle = root / "journal.bundle"
    code, out = run(home, "export", "--bundle", str(bundle), sid)
    assert code == 0 and "bundled 1 session(s)" in out, out
    return {"home": home, "sid": sid, "bundle": bundle, "data": bundle.read_bytes(), "root": root}


def verify(tmp_path: Path, data: bytes, *more: str) -> tuple[int, str]:
    path = tmp_path / "given.bundle"
    path.write_bytes(data)
    return run(tmp_path / "no-home", "verify", "--bundle", str(path), *more)


def test_a_bundle_verifies_in_an_empty_home_and_makes_no_file_there(
    made: dict[str, Any], tmp_path: Path
) -> None:
    code, out = verify(tmp_path, made["data"])
    assert code == 0, out
    assert out.startswith("bundle  ok  1 sessions, 5 turns, 4 records, 1 documents, ")
    assert "sessions.db  span ends at checkpoint " in out and "store.db  span ends" in out
    assert not (tmp_path / "no-home").exists()
    code, out = verify(tmp_path, made["data"], "--json")
    report = json.loads(out)
    assert code == 0 and report["ok"] and report["records"] == 4 and report["problems"] == []


def test_a_bundle_holds_its_sessions_and_nothing_else_of_the_home(made: dict[str, Any]) -> None:
    text = made["data"].decode("utf-8")
    bundle = json.loads(text)
    assert {s["sid"] for s in bundle["sessions"]} == {made["sid"]}
    assert SECRET_QUESTION not in text and "saltbush" not in text  # the other session's text
    assert str(made["home"]) not in text  # no path of the home
    records = [(r["cache_key"], r["revision"]) for r in bundle["records"]]
    assert records == sorted(records)  # by key and revision, whatever order they were asked in
    asked = list(dict.fromkeys(t["cache_key"] for t in bundle["turns"][1:]))
    assert sorted(asked) == sorted({key for key, _ in records})  # a record for each key asked
    revisions = {(r["revision"], r["state"]) for r in bundle["records"]}
    assert {(1, "failed"), (2, "ok")} <= revisions  # both revisions of the falsified key
    assert [t["label"] for t in bundle["turns"]][1] == "creators"
    cited = [c for c in bundle["chunks"] if "text" in c]
    assert cited and all(c["text"] in SPIDER for c in cited)
    assert made["bundle"].stat().st_mode & 0o777 == 0o600


def _standalone(tmp_path: Path) -> Path:
    page = (ROOT / "docs" / "bundle.md").read_text(encoding="utf-8")
    code = page.split("## A standalone verifier", 1)[1].split("```python\n", 1)[1]
    code = code.split("```", 1)[0]
    assert len(code.splitlines()) <= 60
    imported = {
        alias.name
        for node in ast.walk(ast.parse(code))
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    assert imported <= {"base64", "hashlib", "json", "sys", "unicodedata"}  # the stdlib
    assert not any(isinstance(node, ast.ImportFrom) for node in ast.walk(ast.parse(code)))
    path = tmp_path / "standalone.py"
    path.write_text(code, encoding="utf-8")
    return path


def _changed(data: bytes, old: bytes, new: bytes) -> bytes:
    assert old in data
    return data.replace(old, new, 1)


def test_the_standalone_verifier_of_docs_bundle_md_passes_an_intact_bundle_and_fails_a_change(
    made: dict[str, Any], tmp_path: Path
) -> None:
    script = _standalone(tmp_path)
    given = tmp_path / "b.bundle"

    def standalone(data: bytes) -> subprocess.CompletedProcess[str]:
        given.write_bytes(data)
        return subprocess.run(
            [sys.executable, str(script), str(given)], capture_output=True, text=True, check=False
        )

    intact = standalone(made["data"])
    assert (intact.returncode, intact.stdout) == (0, "ok\n"), intact.stderr
    for old, new in ((b"Stan Lee", b"Stan Lex"), (b"August 1962", b"August 1963"),
                     (b'"revision":1', b'"revision":3')):  # fmt: skip
        assert standalone(_changed(made["data"], old, new)).returncode == 1
    bundle = json.loads(made["data"])
    bundle["chunks"][0]["proof"] = bundle["chunks"][1]["proof"]  # another index's proof
    assert standalone(canonical_json(bundle)).returncode == 1


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every scalar in ``value``."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _leaves(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _leaves(v, (*path, i))]
    return [path]


def _set(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    copy = json.loads(json.dumps(value))
    target = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = new
    return copy


def _forged(old: Any) -> Any:
    """Another value of the same JSON type."""
    if isinstance(old, bool):
        return not old
    if isinstance(old, int):
        return old + 1
    if isinstance(old, str):
        if re.fullmatch(r"[A-Za-z0-9_-]{43}", old):  # a digest (base64url)
            return ("A" if old[0] != "A" else "B") + old[1:]
        return old + "x"
    return "x"  # null


def _checked(data: bytes) -> tuple[bool, tuple[str, ...]]:
    try:
        report = check_bundle(data)
    except BundleUnreadable as exc:
        return False, (str(exc),)
    return report.ok, report.problems


def test_every_field_forged_or_of_another_json_type_is_named(made: dict[str, Any]) -> None:
    bundle = json.loads(made["data"])
    paths = _leaves(bundle)
    assert len(paths) > 200
    for path in paths:
        old = _value(bundle, path)
        for new in (_forged(old), [], {}, None if old is not None else 0):
            ok, problems = _checked(canonical_json(_set(bundle, path, new)))
            assert not ok, (path, new)
            assert problems and all("\n" not in p for p in problems)


def _value(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def test_hostile_bundles_are_one_line_exit_1_no_traceback_and_nothing_written(
    made: dict[str, Any], tmp_path: Path
) -> None:
    data = made["data"]
    bundle = json.loads(data)
    turns = bundle["turns"]
    deep = data.replace(b'"body":{', b'"body":' + b"[" * 5000 + b"{", 1) + b"]" * 5000
    cases = {
        "truncated": data[: len(data) // 2],
        "empty": b"",
        "not utf-8": b"\xff" + data,
        "spaced": json.dumps(bundle, sort_keys=True).encode(),
        "another format": canonical_json({**bundle, "format": "arborist-bundle/4"}),
        "format 1": canonical_json({**bundle, "format": "arborist-bundle/1"}),
        "format 2": canonical_json({**bundle, "format": "arborist-bundle/2"}),
        "a list": b"[]",
        "duplicate turn": canonical_json({**bundle, "turns": [turns[0], *turns]}),
        "out of order": canonical_json({**bundle, "turns": turns[::-1]}),
        "a key twice": data.replace(b'{"bates":', b'{"bates":null,"bates":', 1),
        "deep nesting": deep,
        "huge number": data.replace(b'"revision":1', b'"revision":' + b"9" * 5000, 1),
        "beyond 2^53": data.replace(b'"revision":1', b'"revision":9007199254740992', 1),
        "a float": data.replace(b'"revision":1', b'"revision":1.0', 1),
        "a lone surrogate": data.replace(b"Stan Lee", b"Stan \\ud800", 1),
        "extra field": canonical_json({**bundle, "extra": 1}),
        "no session": canonical_json(
            {
                **bundle,
                **{key: [] for key in ("sessions", "turns", "records", "documents", "chunks")},
            }
        ),
        "a document of another root": canonical_json(
            _set(bundle, ("documents", 0, "source_root"), "A" * 43)
        ),
    }
    for name, bad in cases.items():
        code, out = verify(tmp_path, bad)
        assert code == 1, (name, out)
        assert "Traceback" not in out and out.strip(), name
        assert all(len(line) < 400 for line in out.splitlines()), name
        lines = out.strip().splitlines()  # one per failure
        assert len(lines) <= {"out of order": len(turns) - 1, "a document of another root": 40}.get(
            name, 1
        )
    for old in (1, 2):
        code, out = verify(tmp_path, cases[f"format {old}"])
        assert f"this bundle is format {old}" in out and "re-export it" in out, out
    assert not (tmp_path / "no-home").exists()
    code, out = run(tmp_path / "no-home", "verify", "--bundle", str(tmp_path / "missing"))
    assert code == 2 and out.count("\n") == 1 and "cannot read" in out


def test_a_proof_of_another_document_fails_as_that_chunks(made: dict[str, Any]) -> None:
    bundle = json.loads(made["data"])
    with Arborist(made["home"]) as app:
        other = app.store_conn.execute(
            "SELECT proof_json FROM cache_evidence AS e JOIN documents AS d "
            "ON d.id = e.document_id WHERE d.title = 'Quokka' AND proof_json != '[]'"
        ).fetchone()
    document = bundle["documents"][0]
    nodes = [hex_b64(node) for node in json.loads(other[0])] if other else []
    nodes += [hex_b64(leaf_hash(b"other").hex())] * (len(document["nodes"]) - len(nodes))
    document["nodes"] = nodes[: len(document["nodes"])]  # another tree's nodes, as many
    ok, problems = _checked(canonical_json(bundle))
    assert not ok and any("its proof does not verify" in p for p in problems)
    bundle = json.loads(made["data"])
    proven = [c for c in bundle["chunks"] if c["proof"]]
    proven[0]["proof"] = proven[0]["proof"][:-1]  # a proof cut short
    ok, problems = _checked(canonical_json(bundle))
    assert not ok and any("its proof does not verify" in p for p in problems)


def _notebook(path: Path, heads: str) -> Path:
    output = {"output_type": "stream", "name": "stdout", "text": [f"witness    {heads}\n"]}
    cell = {"cell_type": "code", "metadata": {}, "source": "%%ask\nq", "outputs": [output],
            "execution_count": 1}  # fmt: skip
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return path


def test_a_notebooks_heads_are_held_to_the_bundles_spans_with_no_home(
    made: dict[str, Any], tmp_path: Path
) -> None:
    spans = check_bundle(made["data"]).spans
    s, t = (
        {"seq": min(spans[n]), "event_hash": spans[n][min(spans[n])]} for n in ("sessions", "store")
    )
    honest = f"sessions.db {s['seq']}:{s['event_hash']}, store.db {t['seq']}:{t['event_hash']}"
    code, out = verify(
        tmp_path, made["data"], "--witness", str(_notebook(tmp_path / "a.ipynb", honest))
    )
    assert code == 0 and "every witnessed head is in the bundle's spans (2)" in out, out
    swapped = f"sessions.db {t['seq']}:{t['event_hash']}, store.db {s['seq']}:{s['event_hash']}"
    code, out = verify(
        tmp_path, made["data"], "--witness", str(_notebook(tmp_path / "b.ipynb", swapped))
    )
    assert code == 1 and "sessions.db head" in out and "store.db head" in out, out
    beyond = f"sessions.db 999:{s['event_hash']}, store.db {t['seq']}:{t['event_hash']}"
    code, out = verify(
        tmp_path, made["data"], "--witness", str(_notebook(tmp_path / "c.ipynb", beyond))
    )
    assert code == 1 and "outside the bundle's span" in out, out
    assert not (tmp_path / "no-home").exists()


def test_export_bundle_refuses_in_one_line_and_writes_nothing(
    made: dict[str, Any], tmp_path: Path
) -> None:
    target = tmp_path / "out.bundle"
    code, out = run(made["home"], "export", "--bundle", str(target), "20990101T000000Z-abcdef")
    assert code != 0 and out.count("\n") == 1 and not target.exists(), out
    code, out = run(made["home"], "export", "--bundle", str(target))  # a shell's: the latest
    assert code == 0 and target.exists() and "the latest" in out, out
    target.unlink()
    code, out = run(made["home"], "export", made["sid"], made["sid"])
    assert code == 2 and "--bundle" in out


def test_the_command_table_bundles_from_a_notebook_or_repl_desk(
    made: dict[str, Any], tmp_path: Path
) -> None:
    target = tmp_path / "desk.bundle"
    with Arborist(made["home"]) as app:
        outcome = Desk(app, sid=made["sid"]).run(["export", "--bundle", str(target)])
    assert "bundled 1 session(s)" in outcome.text
    assert target.read_bytes() == made["data"]


@settings(
    max_examples=scaled_examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(position=st.floats(0, 1, exclude_max=True), change=st.integers(1, 255))
def test_any_single_byte_changed_fails_verify(
    made: dict[str, Any], position: float, change: int
) -> None:
    data = bytearray(made["data"])
    at = int(position * len(data))
    data[at] = (data[at] + change) % 256
    ok, problems = _checked(bytes(data))
    assert not ok and problems and all("\n" not in p for p in problems)


def test_import_reads_a_bundle_after_checking_it_whole_and_a_forged_one_writes_nothing(
    made: dict[str, Any], tmp_path: Path
) -> None:
    forged = tmp_path / "forged.bundle"
    forged.write_bytes(_changed(made["data"], b"Stan Lee", b"Stan Lex"))
    elsewhere = tmp_path / "elsewhere"
    code, out = run(elsewhere, "import", str(forged))
    assert code == 1 and out.count("\n") == 1, out
    assert out.startswith("arborist: error: the bundle does not hold: record "), out  # its text
    with Arborist(elsewhere) as app:
        assert app.sessions() == []
    code, out = run(elsewhere, "import", str(made["bundle"]))
    assert code == 0 and "5" in out, out
    with Arborist(elsewhere) as app:
        assert [s.sid for s, _ in app.sessions()] == [made["sid"]]
        assert app.node("creators", made["sid"]).answer_text.startswith("Spider-Man was created")
    code, out = run(elsewhere, "verify")
    assert code == 0, out
    code, out = run(elsewhere, "import", str(made["bundle"]))  # again: already present
    assert code == 0, out


def test_reading_holds_every_escape_to_canonical_json() -> None:
    """read_bundle's ASCII fast path: a character beyond ASCII written as a backslash-u
    escape is not canonical (canonical JSON writes it raw) and is refused; text holding a
    backslash before a ``u`` is canonical and read; control characters are escaped alike."""
    fmt = '{"format":"arborist-bundle/3","t":'
    assert read_bundle(f'{fmt}"é"}}'.encode())["t"] == "é"
    for escaped in ('"\\u00e9"', '"\\u0100"', '"\\ud83d\\ude00"', '"\\u0041"'):
        with pytest.raises(BundleUnreadable, match="not canonical JSON"):
            read_bundle(f"{fmt}{escaped}}}".encode())
    assert read_bundle(f'{fmt}"\\\\u00e9"}}'.encode())["t"] == "\\u00e9"
    assert read_bundle(f'{fmt}"\\u001f"}}'.encode())["t"] == "\x1f"


def test_a_redacted_answers_event_keeps_its_body_and_no_other_claimed_event_carries_one(
    tmp_path: Path,
) -> None:
    """A ``cache_write`` whose body records what admission redacted keeps that body (no
    reader can rebuild it): it verifies, and its redactions changed fail. Any other event a
    turn or record names carries no body: one carried, even the right one, is refused."""
    (tmp_path / "spider.md").write_text(SPIDER, encoding="utf-8")
    key = "sk-" + "proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"  # joined: no key in this file
    with Arborist(tmp_path / "home") as app:
        app.ingest([str(tmp_path / "spider.md")])
        session = app.new_session()
        app.ask_turn(f"Who created Spider-Man, asks {key}?", sid=session.sid)
        data = app.export_bundle([session.sid])
    assert check_bundle(data).ok and key.encode() not in data
    bundle = json.loads(data)
    store = bundle["chains"]["store"]["events"]
    kept = [e for e in store if e["event_type"] == "cache_write" and "body" in e]
    assert len(kept) == 1 and kept[0]["body"]["redactions"], kept
    kept[0]["body"]["redactions"] = []  # only the chain commits to them
    ok, problems = _checked(canonical_json(bundle))
    named = f"record {kept[0]['body']['cache_key'][:12]}… revision 1: its cache_write event "
    assert not ok and problems == (
        f"{named}(store.db seq {kept[0]['seq']}) differs from what the bundle committed (its "
        "hash is not its tag): the chain first differs there, and its events after it cannot "
        "be checked",
    ), problems
    kept[0]["body"]["answer_hash"] = "0" * 64
    ok, problems = _checked(canonical_json(bundle))
    assert not ok and any("cache_write event" in p for p in problems), problems
    bundle = json.loads(data)
    turn = bundle["turns"][1]
    event = next(e for e in bundle["chains"]["sessions"]["events"] if e["seq"] == turn["event_seq"])
    with Arborist(tmp_path / "home") as app:
        event["body"] = json.loads(
            app.sessions_conn.execute(
                "SELECT body FROM audit_events WHERE seq = ?", (turn["event_seq"],)
            ).fetchone()[0]
        )
    assert check_bundle(canonical_json(bundle)).spans == check_bundle(data).spans  # the same
    ok, problems = _checked(canonical_json(bundle))
    assert not ok and any("node_insert event" in p for p in problems), problems


@pytest.mark.parametrize("field", ["a turn's time", "a label event's body", "a tag"])
def test_a_change_only_the_chain_covers_names_the_first_event_that_differs(
    field: str, made: dict[str, Any], tmp_path: Path
) -> None:
    """Each event carries its hash's first characters (its tag), so the reader names the turn
    whose event first differs, in one line (docs/bundle.md, "What a changed byte is named
    as"), where without the tags it could say only that the chain misses its head."""
    bundle = json.loads(made["data"])
    events = bundle["chains"]["sessions"]["events"]
    turn = bundle["turns"][2]
    if field == "a turn's time":
        turn["created_at"] = (
            turn["created_at"][:-2] + ("1" if turn["created_at"][-2] != "1" else "2") + "Z"
        )
        event = next(e for e in events if e["seq"] == turn["event_seq"])
    elif field == "a label event's body":
        event = next(e for e in events if e["event_type"] == "label")
        event["body"]["label"] += "!"
        turn = next(t for t in bundle["turns"] if t["bates"] == event["bates"])
    else:
        event = next(e for e in events if e["seq"] == turn["event_seq"])
        event["tag"] = ("A" if event["tag"][0] != "A" else "B") + event["tag"][1:]
    code, out = verify(tmp_path, canonical_json(bundle))
    line = (
        f"turn {turn['bates']}: its {event['event_type']} event (sessions.db seq {event['seq']})"
        " differs from what the bundle committed"
    )
    lines = out.strip().splitlines()  # a label changed fails its turn's label check too
    assert code == 1 and lines[0].startswith(line), out
    assert all(said.startswith(f"turn {turn['bates']}: ") for said in lines), out


def test_an_event_of_no_item_of_the_bundle_is_named_by_its_chain(made: dict[str, Any]) -> None:
    bundle = json.loads(made["data"])
    event = next(e for e in bundle["chains"]["store"]["events"] if e["event_type"] == "cache_state")
    event["created_at"] = (
        event["created_at"][:-2] + ("1" if event["created_at"][-2] != "1" else "2") + "Z"
    )
    ok, problems = _checked(canonical_json(bundle))
    line = f"store.db chain: its cache_state event (store.db seq {event['seq']}) differs from what"
    assert not ok and any(p.startswith(line) for p in problems), problems


@pytest.mark.parametrize("member", ["profiles", "policies"])
def test_a_records_profile_or_policy_is_carried_once_and_held_to_its_hash(
    member: str, made: dict[str, Any]
) -> None:
    """Format 3 carries each record's model profile and governance policy once, by its hash:
    one changed (its key kept or made anew), taken out or added unnamed is named."""
    bundle = json.loads(made["data"])
    assert len(bundle[member]) == 1 and len(bundle["records"]) == 4  # one, for every record
    ((key, value),) = bundle[member].items()
    changed = {**value, "extra": "x"}
    ok, problems = _checked(canonical_json({**bundle, member: {key: changed}}))
    assert not ok and any("its text does not hash to its key" in p for p in problems), problems
    anew = hex_b64(sha256_hex(canonical_json(changed)))
    ok, problems = _checked(canonical_json({**bundle, member: {anew: changed}}))
    assert not ok and any("names no" in p and "of the bundle" in p for p in problems), problems
    assert any("no record of the bundle names it" in p for p in problems), problems
    ok, problems = _checked(canonical_json({**bundle, member: {}}))
    assert not ok and sum("names no" in p for p in problems) == 4, problems
    ok, problems = _checked(canonical_json({**bundle, member: []}))
    assert not ok and problems == (f"{member}: is not an object",), problems

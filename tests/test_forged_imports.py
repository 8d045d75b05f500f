"""An import accepts nothing that ``arborist verify`` would then reject, and verify skips no
turn in silence.

Each test makes real homes (real SQLite files, the offline extractive model), exports a
session, forges the export as an attacker would (recomputing the node hash with the
library's own function) and imports it. The contract: refused with one line and not a
byte written to either store, or imported and then shown as it can be proved.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

from arborist._errors import ArboristError, BadInput
from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._forest.reads import session_bates
from arborist._proofs.hashing import node_hash, question_hash
from arborist._qa.standing import BAD_KEY, DIFFERS, NO_KEY, NOT_HERE
from tests.exports import DOC, QUESTION, answered_turn, export_records, jsonl
from tests.exports import doc as doc_fixture  # noqa: F401
from tests.hypothesis_sizes import scaled_examples

FORGED_ANSWER = "Spider-Man was created by Jack Kirby alone. [E1]"


def _home(root: Path, name: str, doc: Path, *, ask: bool) -> Path:
    home = root / name
    with Arborist(home) as app:
        app.ingest([str(doc)])
        if ask:
            app.ask_turn(QUESTION, sid=None)
        app.sessions()  # sessions.db made and migrated: what an import leaves is its own
    return home


def _rehash(records: list[dict[str, Any]]) -> None:
    """What a careful forger does: recompute every node hash, parents first, with the
    library's own function (a field it cannot hash is left as it was)."""
    hashes: dict[str, str] = {}
    for record in records:
        if record.get("type") != "node":
            continue
        with contextlib.suppress(ValueError, TypeError, KeyError):
            record["node_hash"] = node_hash(
                parent_node_hash=hashes.get(record["parent_bates"]),
                bates=record["bates"], question=record["question"],
                cache_key=record["cache_key"], audit_mode=record["audit_mode"],
                created_at=record["created_at"], label=record["created_label"],
            )  # fmt: skip
        if isinstance(record.get("bates"), str):
            hashes[record["bates"]] = record.get("node_hash")


def _file_bytes(home: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(home.iterdir()) if ".db" in p.name}


def _cli(home: Path, *args: str) -> Any:
    return CliRunner().invoke(cli, ["--home", str(home), *args])


def _refused_whole(target: Path, records: list[dict[str, Any]], says: str) -> str:
    """Import ``records`` into ``target``: one line naming ``says``, nothing written."""
    before = _file_bytes(target)
    with Arborist(target) as app, pytest.raises(BadInput) as caught:
        app.import_sessions(jsonl(records))
    message = str(caught.value)
    assert "\n" not in message and says in message, message
    assert _file_bytes(target) == before
    return message


# --- fields an honest export never holds --------------------------------------------------------


def _root_alike(records: list[dict[str, Any]]) -> None:
    """A parentless turn claiming ROOT with a forged answer: its agreement check was skipped."""
    turn = answered_turn(records)
    turn.update(parent_bates=None, audit_mode="ROOT", answer_text=FORGED_ANSWER)


FORGED_FIELDS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "titles as integers": (lambda t: t.update(cited_titles=[1, 2]), "cited_titles is not"),
    "titles as one string": (lambda t: t.update(cited_titles="Spider-Man"), "cited_titles is not"),
    "titles null": (lambda t: t.update(cited_titles=None), "cited_titles is not"),
    "question a number": (lambda t: t.update(question=7), "its question is not text"),
    "question a list": (lambda t: t.update(question=[QUESTION]), "its question is not text"),
    "mode a number": (lambda t: t.update(audit_mode=1), "its audit_mode is not text"),
    "mode unknown": (lambda t: t.update(audit_mode="PROVEN"), "audit mode is none"),
    "time a number": (lambda t: t.update(created_at=1733400000), "its created_at is not text"),
    "time not a time": (lambda t: t.update(created_at="yesterday"), "created_at is not a time"),
    "key a number": (lambda t: t.update(cache_key=12), "its cache_key is not text"),
    "key empty": (
        lambda t: t.update(cache_key="", answer_text=FORGED_ANSWER),
        "its cache key is empty",
    ),
    "key malformed": (
        lambda t: t.update(cache_key="c705a66e", answer_text=FORGED_ANSWER),
        "its cache key is not a cache key",
    ),
    "key in upper case": (
        lambda t: t.update(cache_key=t["cache_key"].upper()),
        "its cache key is not a cache key",
    ),
    "answer a number": (lambda t: t.update(answer_text=42), "its answer_text is not text"),
    "answer an object": (lambda t: t.update(answer_text={"a": 1}), "answer_text is not text"),
    "answer a lone surrogate": (lambda t: t.update(answer_text="Lee \udc9b"), "not UTF-8"),
    "title a lone surrogate": (lambda t: t.update(cited_titles=["\ud800"]), "not UTF-8"),
    "label a bates number": (
        lambda t: t.update(created_label=t["bates"], label=t["bates"]),
        "created_label is none",
    ),
    "bates padded": (lambda t: t.update(bates=f" {t['bates']}"), "its bates is not"),
    "question empty": (lambda t: t.update(question=" "), "its question is empty"),
}


@pytest.mark.parametrize("forgery", sorted(FORGED_FIELDS))
def test_a_turn_field_no_honest_export_holds_is_refused_in_one_line_writing_nothing(
    tmp_path: Path, doc: Path, forgery: str
) -> None:
    records = export_records(_home(tmp_path, "a", doc, ask=True))
    forge, says = FORGED_FIELDS[forgery]
    forge(answered_turn(records))
    _rehash(records)
    target = _home(tmp_path, "b", doc, ask=False)
    _refused_whole(target, records, says)


def test_a_parentless_turn_claiming_root_is_refused_though_its_answer_was_never_checked(
    tmp_path: Path, doc: Path
) -> None:
    records = export_records(_home(tmp_path, "a", doc, ask=True))
    _root_alike(records)
    _rehash(records)
    target = _home(tmp_path, "b", doc, ask=True)  # a record here it would contradict
    _refused_whole(target, records, "it is not its session's root (seq 0), yet it has no parent")


def test_a_root_holding_an_answer_is_refused(tmp_path: Path, doc: Path) -> None:
    records = export_records(_home(tmp_path, "a", doc, ask=True))
    root = next(r for r in records if r["type"] == "node" and r["parent_bates"] is None)
    root.update(answer_text=FORGED_ANSWER, cited_titles=["Spider-Man"])
    _rehash(records)
    target = _home(tmp_path, "b", doc, ask=False)
    _refused_whole(target, records, "a session's root holds no question, answer")


def test_a_session_header_whose_time_is_not_its_roots_is_refused(tmp_path: Path, doc: Path) -> None:
    records = export_records(_home(tmp_path, "a", doc, ask=True))
    records[0]["created_at"] = "2001-01-01T00:00:00.000000Z"
    target = _home(tmp_path, "b", doc, ask=False)
    _refused_whole(target, records, "its created_at is not its root turn's")


def test_a_turn_twice_in_one_file_is_refused(tmp_path: Path, doc: Path) -> None:
    records = export_records(_home(tmp_path, "a", doc, ask=True))
    records.append(dict(answered_turn(records)))
    target = _home(tmp_path, "b", doc, ask=False)
    _refused_whole(target, records, "is in the file twice")


def test_a_refused_import_is_one_cli_line_with_no_traceback(tmp_path: Path, doc: Path) -> None:
    records = export_records(_home(tmp_path, "a", doc, ask=True))
    answered_turn(records)["answer_text"] = 42  # a traceback before: answer_text.encode
    export = tmp_path / "forged.jsonl"
    export.write_text("\n".join(jsonl(records)) + "\n", encoding="utf-8")
    target = _home(tmp_path, "b", doc, ask=False)
    before = _file_bytes(target)
    result = _cli(target, "session", "--import", str(export))
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert "its answer_text is not text" in lines[0] and "Traceback" not in result.output
    assert _file_bytes(target) == before


# --- numbering: a turn is imported only with every turn before it -----------------------------


def _far_turn(records: list[dict[str, Any]], seq: int) -> list[dict[str, Any]]:
    """The session's header and a copy of its turn renumbered ``seq``, under that turn:
    hashes recomputed, the answer the store holds (so nothing contradicts it)."""
    turn = answered_turn(records)
    far = {**turn, "bates": f"{turn['bates'][:-7]}-{seq:06d}", "parent_bates": turn["bates"]}
    forged = [records[0], *(r for r in records if r["type"] == "node"), far]
    _rehash(forged)
    return [records[0], far]


def test_a_turn_numbered_999999_does_not_fill_its_owners_session(tmp_path: Path, doc: Path) -> None:
    owner = _home(tmp_path, "owner", doc, ask=True)
    records = export_records(owner)  # what an attacker reads: the owner's session and its hashes
    sid = records[0]["sid"]
    message = _refused_whole(owner, _far_turn(records, 999_999), f"{sid}-999999: session {sid}")
    assert message.endswith(
        "is here already: an import adds no turn to a session this home holds (it may bring again only the turns held here)"
    )
    with Arborist(owner) as app:  # the owner goes on asking in the session
        turn = app.ask_turn("When did Spider-Man first appear?", sid=sid)
        assert turn.node.bates == f"{sid}-000002" and turn.node.audit_mode == "STRICT"
        assert app.verify().ok


def test_a_session_imported_with_a_gap_is_refused_even_into_a_fresh_home(
    tmp_path: Path, doc: Path
) -> None:
    records = export_records(_home(tmp_path, "a", doc, ask=True))
    header, far = _far_turn(records, 5)
    forged = [header, *(r for r in records if r["type"] == "node"), far]
    target = _home(tmp_path, "b", doc, ask=False)
    _refused_whole(target, forged, "without its turn 000002")


# --- verify: every turn it cannot check is named, never skipped --------------------------------


def _written_by_hand(home: Path, **fields: Any) -> str:
    """A turn written with the library's own writer (node row, Merkle link, ripple and
    ``node_insert`` event, all consistent) under the session's first turn, with ``fields``
    as a forger chooses them: what an older import accepted."""
    from arborist._forest.shard import insert_turn

    with Arborist(home) as app:
        ((session, _),) = app.sessions()
        first = app.node("1", session.sid)
        turn = {
            "question": first.question,
            "answer_text": FORGED_ANSWER,
            "cache_key": first.cache_key,
            "audit_mode": "STRICT",
            "cited_titles": list(first.cited_titles),
            **fields,
        }
        return insert_turn(app.sessions_conn, session.sid, first.bates, **turn).bates


@pytest.mark.parametrize(
    ("key", "says"),
    [("", "its cache key is empty"), ("c705a66e", "its cache key is not a cache key")],
)
def test_verify_names_a_turn_whose_key_is_empty_or_malformed_however_well_hashed(
    tmp_path: Path, doc: Path, key: str, says: str
) -> None:
    home = _home(tmp_path, "a", doc, ask=True)
    bates = _written_by_hand(home, cache_key=key)
    for args in (("verify",), ("verify", "--witness", str(_notebook(tmp_path, home)))):
        result = _cli(home, *args)
        assert result.exit_code == 1, result.output
        assert f"sessions.db: turn {bates}: {says}" in result.output
    found = json.loads(_cli(home, "verify", "--json").output)
    assert not found["ok"] and any(bates in p and says in p for p in found["problems"])


def test_verify_names_a_turn_whose_mode_no_answer_is_given_in(tmp_path: Path, doc: Path) -> None:
    home = _home(tmp_path, "a", doc, ask=True)
    bates = _written_by_hand(home, audit_mode="PROVEN", answer_text="")
    result = _cli(home, "verify")
    assert f"turn {bates}: its audit mode is none an answer is given in" in result.output


def _notebook(tmp_path: Path, home: Path) -> Path:
    """A saved notebook whose one output witnesses the home's chain heads now, as a
    ``%%ask`` output prints them."""
    with Arborist(home) as app:
        text = f"witness    {app.checkpoint()}\n"
    cell = {"cell_type": "code", "source": "%%ask\nq", "metadata": {}, "execution_count": 1,
            "outputs": [{"output_type": "stream", "name": "stdout", "text": [text]}]}  # fmt: skip
    path = tmp_path / "witness.ipynb"
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return path


def test_verify_counts_and_names_an_imported_turn_it_cannot_check_here(
    tmp_path: Path, doc: Path
) -> None:
    records = export_records(_home(tmp_path, "a", doc, ask=True))
    target = _home(tmp_path, "b", doc, ask=False)  # the corpus, but not the answer
    with Arborist(target) as app:
        app.import_sessions(jsonl(records))
    bates = answered_turn(records)["bates"]
    result = _cli(target, "verify")
    assert result.exit_code == 0, result.output  # no failure: the turn claims NONE here
    assert "sessions.db: 1 turn not checkable here: store.db holds no answer" in result.output
    assert f"sessions.db: turn {bates}: not checkable here" in result.output
    found = json.loads(_cli(target, "verify", "--json").output)
    assert found["ok"] and found["not_checkable_here"] == [bates]
    with Arborist(target) as app:  # once the answer is asked here, the turn is checked
        app.ask_turn(QUESTION, sid=None)
    found = json.loads(_cli(target, "verify", "--json").output)
    assert found["ok"] and found["not_checkable_here"] == []
    assert "not checkable" not in _cli(target, "verify").output


# --- the property: refused whole, or shown as it can be proved, and verify agrees --------------

HONEST_QUESTIONS = (QUESTION, "When did Spider-Man first appear?")
BATES_IN_LINE = re.compile(r"([0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}-[0-9]{6})")


def scaled(examples: int) -> settings:
    """``examples`` in a normal run, ten times as many under ``pytest --long``."""
    return settings(
        max_examples=scaled_examples(examples),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


FACES = ("audit_now", "tree --json", "show --json", "find --json")


@pytest.fixture(scope="module")
def homes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The source home (a session of a root and two turns, the second labelled) and three
    targets: the corpus alone (no answer held: the turns are not checkable there), the
    corpus with the first answer asked (a forged turn contradicts it) and the source itself
    (the session is there: a forged turn joins it)."""
    root = tmp_path_factory.mktemp("forged")
    doc = root / "spider.md"
    doc.write_text(DOC, encoding="utf-8")
    source = _home(root, "source", doc, ask=True)
    with Arborist(source) as app:
        ((session, _),) = app.sessions()
        app.ask_turn(HONEST_QUESTIONS[1], sid=session.sid, label="first-issue")
    held = _home(root, "held", doc, ask=True)
    return {
        "records": export_records(source),
        "targets": {"fresh": _home(root, "fresh", doc, ask=False), "held": held, "owner": source},
    }


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


def _near_misses(records: list[dict[str, Any]]) -> list[Any]:
    """Values an attacker would try first: the export's own values moved to other fields,
    every mode, the empty text, a huge one, lone surrogates, other seqs of the session."""
    sid = records[0]["sid"]
    values: list[Any] = ["", " ", "x" * 200_000, "\ud800", "Lee \udc9b", "ROOT", "NONE"]
    values += ["STRICT", "HYBRID", "VISUAL", "strict", [], [""], ["Spider-Man", "Spider-Man"]]
    values += [f"{sid}-{seq:06d}" for seq in (0, 1, 2, 3, 999_999)]
    values += ["2026-12-05T15:23:11.088846Z", "0" * 64, "F" * 64]
    values += [v for r in records for v in r.values() if v is not None]
    return values


@st.composite
def forgeries(draw: st.DrawFn, records: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    """An honest export with one to three fields changed (to any JSON value or a near miss),
    dropped or added, its hashes recomputed by a careful forger unless it draws not to."""
    forged = json.loads(json.dumps(records))
    steps = []
    for _ in range(draw(st.integers(1, 3))):
        record = draw(st.sampled_from(forged))
        op = draw(st.sampled_from(("set", "set", "set", "drop", "add")))
        if op == "add":
            name = draw(st.text(min_size=1, max_size=12))
        else:
            name = draw(st.sampled_from(sorted(record)))
        if op == "drop":
            record.pop(name, None)
        else:
            record[name] = draw(json_values | st.sampled_from(_near_misses(records)))
        steps.append(f"{op} {record.get('bates', 'header')}.{name}")
    if draw(st.booleans()) or draw(st.booleans()):  # three times in four
        _rehash(forged)
    return forged, "; ".join(steps)


def _state(home: Path) -> dict[str, bytes]:
    return _file_bytes(home)


def _faces(home: Path, bates: list[str], sids: set[str]) -> dict[str, dict[str, tuple[Any, Any]]]:
    """What each face shows of each turn: ``(mode, reason)`` by face and bates."""
    shown: dict[str, dict[str, tuple[Any, Any]]] = {face: {} for face in FACES}
    with Arborist(home) as app:
        for name in bates:
            now = app.audit_now(app.node(name))
            shown["audit_now"][name] = (now.mode, now.reason)
    for sid in sids:
        tree = json.loads(_cli(home, "tree", "--sid", sid, "--json").output)
        for turn in tree["turns"]:
            shown["tree --json"][turn["bates"]] = (turn["audit_now"], turn["audit_reason"])
    for name in bates:
        node = json.loads(_cli(home, "show", name, "--json").output)
        shown["show --json"][name] = (node["audit_now"], node["audit_reason"])
    hits = json.loads(_cli(home, "find", "Spider", "--limit", "50", "--json").output)
    for hit in hits:
        shown["find --json"][hit["bates"]] = (hit["audit_now"], hit["audit_reason"])
    return shown


def _earned(turn: Any, target: str, records: list[dict[str, Any]]) -> bool:
    """Whether a turn shows what an answer this home holds vouches for: the honest turn's
    key, answer, cited titles, mode and question, where that answer was asked."""
    honest = [r for r in records if r["type"] == "node" and r["parent_bates"] is not None]
    held = honest if target == "owner" else honest[:1] if target == "held" else []
    fields = (turn.cache_key, turn.answer_text, list(turn.cited_titles), turn.audit_mode)
    return any(
        fields == (h["cache_key"], h["answer_text"], h["cited_titles"], h["audit_mode"])
        and question_hash(turn.question) == question_hash(h["question"])
        for h in held
    )


def _named(lines: list[str]) -> set[str]:
    return {m.group(1) for line in lines for m in BATES_IN_LINE.finditer(line)}


@scaled(150)
@given(data=st.data(), target=st.sampled_from(("fresh", "held", "owner")))
def test_a_forged_import_is_refused_whole_or_shown_as_proved_and_verify_agrees_with_every_face(
    homes: dict[str, Any], data: st.DataObject, target: str
) -> None:
    records = homes["records"]
    forged, steps = data.draw(forgeries(records))
    note(steps)
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch) / "home"
        shutil.copytree(homes["targets"][target], home)
        before = _state(home)
        try:
            with Arborist(home) as app:
                app.import_sessions(jsonl(forged))
        except ArboristError as exc:
            event(f"refused: {re.sub(BATES_IN_LINE, 'B', str(exc))[:60]}")
            assert str(exc) and "\n" not in str(exc), str(exc)
            assert _state(home) == before, f"refused ({exc}) yet written"
            return
        with Arborist(home) as app:
            turns = _turns(app)
            verification = app.verify()
        # What import accepts, verify passes: nothing it would reject gets in.
        assert verification.problems == list(verification.modes), verification.problems
        event(f"imported into {target}")
        _faces_agree_with_verify(home, turns, verification, lambda t: _earned(t, target, records))


def _faces_agree_with_verify(
    home: Path, turns: list[Any], verification: Any, earned: Callable[[Any], bool]
) -> None:
    """Every face shows each turn alike; a turn claims a mode only when it ``earned`` it and
    verify names it nowhere; a turn shown as NONE says why; a turn verify names (a finding,
    or not checkable here) claims nothing."""
    faces = _faces(home, [t.bates for t in turns], {t.sid for t in turns})
    failed, unchecked = _named(verification.problems), set(verification.unchecked)
    named = failed | unchecked
    for turn in turns:
        seen = {face: shown[turn.bates] for face, shown in faces.items() if turn.bates in shown}
        assert len(set(seen.values())) == 1, f"{turn.bates}: the faces disagree: {seen}"
        ((mode, reason),) = set(seen.values())
        if turn.bates in named:
            assert mode == "NONE", f"verify names {turn.bates}, yet it claims {mode} in {seen}"
        # Turn for turn, the faces' reason and verify's line say the same thing.
        if reason in (NO_KEY, BAD_KEY, DIFFERS):  # no answer here can vouch for it: forged
            assert turn.bates in failed, f"{turn.bates}: {reason}, yet verify passes it"
        if reason == NOT_HERE:  # its answer is not here: verify says so (or names worse)
            assert turn.bates in named, f"{turn.bates}: not here, yet verify is silent on it"
        if turn.bates in unchecked:
            assert reason == NOT_HERE, f"{turn.bates}: not checkable here, yet faces say {reason}"
        if mode != "NONE":  # a claim: earned, unreported, with no reason to doubt it
            assert reason is None and earned(turn), (turn.bates, mode)
        else:
            assert reason, f"{turn.bates} shows NONE without a reason"


def _turns(app: Arborist) -> list[Any]:
    """Every turn of the home but the sessions' roots."""
    return [
        node
        for (session, _) in app.sessions()
        for node in (app.node(b) for b in session_bates(app.sessions_conn, session.sid))
        if not node.is_root
    ]


@scaled(50)
@given(
    key=st.sampled_from(("", "c705a66e", "HONEST", "HONEST-UPPER", "0" * 64, " HONEST")),
    mode=st.sampled_from(("STRICT", "HYBRID", "VISUAL", "ROOT", "NONE", "strict", "")),
    answer=st.sampled_from(("HONEST", FORGED_ANSWER)),
    titles=st.sampled_from((("HONEST",), (), ("Spider-Man", "The Official Marvel Encyclopaedia"))),
    question=st.sampled_from((QUESTION, "who created  SPIDER-MAN", "Did Kirby create it?")),
)
def test_a_turn_written_whole_with_any_key_and_mode_is_shown_as_verify_judges_it(
    homes: dict[str, Any], key: str, mode: str, answer: str, titles: tuple[str, ...], question: str
) -> None:
    """What an older import let in, or a forger writes with the library's own writer (row,
    link, ripple and event all consistent): verify and every face agree on it."""
    records = homes["records"]
    honest = answered_turn(records)
    key = key.replace("HONEST-UPPER", honest["cache_key"].upper())
    key = key.replace("HONEST", honest["cache_key"])
    fields = {
        "cache_key": key, "audit_mode": mode, "question": question,
        "answer_text": honest["answer_text"] if answer == "HONEST" else answer,
        "cited_titles": honest["cited_titles"] if titles == ("HONEST",) else list(titles),
    }  # fmt: skip
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch) / "home"
        shutil.copytree(homes["targets"]["held"], home)
        _written_by_hand(home, **fields)
        with Arborist(home) as app:
            turns = _turns(app)
            verification = app.verify()
        _faces_agree_with_verify(home, turns, verification, lambda t: _earned(t, "held", records))


def test_a_turn_labelled_as_another_turn_of_its_session_is_refused(
    tmp_path: Path, doc: Path
) -> None:
    owner = _home(tmp_path, "owner", doc, ask=True)
    with Arborist(owner) as app:
        ((session, _),) = app.sessions()
        app.label(session.sid, "origin", "1")
    records = export_records(owner)
    header, far = _far_turn(records, 2)  # the next seq: no gap
    far.update(created_label="origin", label="origin")  # shadows the label of turn 1
    whole = [header, *(r for r in records if r["type"] == "node"), far]
    _rehash(whole)
    _refused_whole(_home(tmp_path, "b", doc, ask=False), whole, "its label 'origin' already names")

"""``arborist import`` of a bundle brings its records (docs/bundle.md, "Importing a bundle"):
real homes on real SQLite, a bundle exported by one (answered by the extractive answerer, or
by a model on a loopback server) imported into an empty home and into one holding the same
corpus; the imported turns claim the mode they had at home and say they were imported,
``arborist verify`` passes, an ask here is never served an imported record, and this home's
own record of the key keeps its standing. A forged record, profile, policy, proof or piece
of evidence is refused in one line, with nothing written in either database."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arborist._bundles.shape import hex_b64
from arborist._facade.app import Arborist
from arborist._faces.sync import body
from arborist._proofs.hashing import canonical_json, sha256_hex
from tests.chat_server import ChatServer, completion
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401
from tests.chat_server import loopback as loopback_fixture  # noqa: F401
from tests.hypothesis_sizes import scaled_examples
from tests.test_bundle import SPIDER, _forged, _leaves, _set, _value, run

CREATORS = "Who created Spider-Man?"
POWERS = "What are the powers of Spider-Man?"


def _doc(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    doc = folder / "spider.md"
    doc.write_text(SPIDER, encoding="utf-8")
    return doc


def _answered_home(
    home: Path, doc: Path, **fields: Any
) -> tuple[bytes, dict[str, tuple[str, str]]]:
    """A home that asked two questions in one session (``fields``: the ask's, e.g. the
    model), its bundle, and each answered turn's ``(mode, answer)`` there."""
    with Arborist(home) as app:
        app.ingest([str(doc)])
        session = app.new_session()
        app.ask_turn(CREATORS, sid=session.sid, **fields)
        app.ask_turn(POWERS, sid=session.sid, **fields)
        nodes = [app.node(bates) for bates in app.session_bates(session.sid)]
        shown = {n.bates: (app.audit_now(n).mode, n.answer_text) for n in nodes if not n.is_root}
        return app.export_bundle([session.sid]), shown


def _dumps(home: Path) -> tuple[list[str], ...]:
    """Both databases' whole content, as SQL (what a refused import must leave unchanged)."""
    out = []
    for name in ("store.db", "sessions.db"):
        conn = sqlite3.connect(home / name)
        try:
            out.append(list(conn.iterdump()))
        finally:
            conn.close()
    return tuple(out)


def _import(home: Path, data: bytes, folder: Path) -> tuple[int, str]:
    path = folder / "given.bundle"
    path.write_bytes(data)
    return run(home, "import", str(path))


@pytest.fixture(scope="module")
def extractive(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("bundle-import")
    doc = _doc(root / "docs")
    data, shown = _answered_home(root / "a", doc)
    return {"root": root, "doc": doc, "data": data, "shown": shown}


def _empty_home(home: Path) -> Path:
    with Arborist(home) as app:
        app.sessions()  # both files made and migrated: what an import leaves is its own
    return home


def test_a_bundle_imports_its_records_into_an_empty_home_and_its_turns_claim_their_mode(
    extractive: dict[str, Any], tmp_path: Path
) -> None:
    home = _empty_home(tmp_path / "b")
    code, out = _import(home, extractive["data"], tmp_path)
    assert code == 0, out
    assert "imported 3 node(s), 0 already present, 2 record(s) kept apart as imported" in out
    with Arborist(home) as app:
        for bates, (mode, answer) in extractive["shown"].items():
            node = app.node(bates)
            now = app.audit_now(node)
            assert (now.mode, now.reason, now.state) == (mode, None, "imported"), now
            assert node.answer_text == answer and now.revision is None
            facts = app.facts(node)
            assert facts.served == "imported" and facts.state == "imported"
            assert "never served here" in (facts.state_reason or "")
            assert facts.sources and all(s.tier == "imported" for s in facts.sources)
            assert facts.record_hash is not None
        verified = app.verify()
        assert verified.ok and verified.problems == [] and verified.store.imported == 2
        assert app.store_conn.execute("SELECT count(*) FROM cache_records").fetchone() == (0,)
        texts = app.store_conn.execute(
            "SELECT count(*) FROM imported_evidence WHERE text IS NOT NULL"
        ).fetchone()[0]
        assert texts >= 1  # the cited chunks' bytes: this home holds no document of them
    bates = next(iter(extractive["shown"]))
    code, out = run(home, "show", bates)
    assert code == 0 and "cache        imported (answered in another home" in out, out
    assert "answer imported: answered in another home, imported from a bundle" in out, out
    code, out = run(home, "verify")
    assert code == 0 and "(2 imported, kept apart)" in out, out
    before = _dumps(home)
    code, out = _import(home, extractive["data"], tmp_path)  # again: nothing new
    assert code == 0 and "0 node(s), 3 already present, 0 record(s)" in out, out
    assert _dumps(home) == before


def test_in_a_home_with_the_same_corpus_the_evidence_is_its_own_and_an_ask_is_never_served_it(
    extractive: dict[str, Any], tmp_path: Path
) -> None:
    home = tmp_path / "b"
    with Arborist(home) as app:
        app.ingest([str(extractive["doc"])])
    code, out = _import(home, extractive["data"], tmp_path)
    assert code == 0, out
    with Arborist(home) as app:
        for bates, (mode, _answer) in extractive["shown"].items():
            now = app.audit_now(app.node(bates))
            assert (now.mode, now.state) == (mode, "imported")
            sources = app.facts(app.node(bates)).sources
            assert sources and all(s.tier == "hot" and s.uri.startswith("file:") for s in sources)
            assert all("#" in s.uri for s in sources)  # placed, as this home's own are
        assert app.store_conn.execute(
            "SELECT count(*) FROM imported_evidence WHERE text IS NOT NULL"
        ).fetchone() == (0,)  # the chunks are this home's: none of their bytes kept twice
        asked = app.ask_turn(POWERS, sid=app.new_session().sid)
        assert not asked.result.hit  # a miss: the imported record serves no ask here
        assert asked.result.record.state == "ok" and asked.result.record.revision == 1
        assert app.verify().ok


def test_a_remote_models_answer_imports_beside_this_homes_own_answer_of_the_same_key(
    tmp_path: Path, loopback: ChatServer
) -> None:
    """The same model (on the same loopback server), the same corpus: one key, two homes,
    two answers. Before records travelled this import was refused (nothing could tell the
    other home's answer from a forgery); now the bundle proves it, it is imported apart, and
    this home's answer keeps its standing and keeps serving."""
    doc = _doc(tmp_path / "docs")
    theirs, ours = "Stan Lee and Steve Ditko created him. [E1]", "Steve Ditko drew him. [E1]"
    loopback.script(completion(theirs), completion(theirs))
    data, shown = _answered_home(tmp_path / "a", doc, llm="openai")
    home = tmp_path / "b"
    with Arborist(home) as app:
        app.ingest([str(doc)])
        loopback.script(completion(ours))
        own = app.ask_turn(CREATORS, sid=app.new_session().sid, llm="openai")
        assert own.result.record.answer_text == ours
    code, out = _import(home, data, tmp_path)
    assert code == 0, out
    with Arborist(home) as app:
        for bates, (mode, answer) in shown.items():
            node = app.node(bates)
            now = app.audit_now(node)
            assert (now.mode, now.state, node.answer_text) == (mode, "imported", answer)
            if node.question == CREATORS:
                assert node.cache_key == own.result.record.cache_key  # the same key
                pane = body(app, bates, node.sid)  # the widget's detail: the imported record
                assert pane["record"]["state"] == "imported", pane["record"]
                assert pane["record"]["answer"] == answer and pane["facts"]["served"] == "imported"
                assert pane["summary"]["state"] == "imported" and "revision" not in pane["summary"]
        mine = app.node(own.node.bates)
        now = app.audit_now(mine)
        assert (now.mode, now.state, now.revision, now.reason) == (
            own.result.record.audit_mode, "ok", 1, None,
        )  # fmt: skip
        record = app.record(own.result.record.cache_key)
        assert (record.revision, record.state, record.answer_text) == (1, "ok", ours)
        assert app.verify().ok
        requests = loopback.requests
        again = app.ask_turn(CREATORS, sid=app.new_session().sid, llm="openai")
        assert again.result.hit and again.result.record.answer_text == ours
        assert loopback.requests == requests  # served from this home's record, no call


def test_a_refused_turn_leaves_store_db_without_the_records_written_before_it(
    extractive: dict[str, Any], tmp_path: Path
) -> None:
    """The records are written first, in a transaction that commits only once the turns are
    in: a refusal of the turns (here a new turn of a session imported before: an import adds
    no turn to a session this home holds) leaves store.db without the new turn's record."""
    elsewhere, home = tmp_path / "a", _empty_home(tmp_path / "b")
    first, _shown = _answered_home(elsewhere, extractive["doc"])
    assert _import(home, first, tmp_path)[0] == 0
    sid = json.loads(first)["sessions"][0]["sid"]
    with Arborist(elsewhere) as app:
        app.ask_turn("When did Spider-Man first appear?", sid=sid)
        second = app.export_bundle([sid])
    assert len(json.loads(second)["records"]) == 3
    before = _dumps(home)
    code, out = _import(home, second, tmp_path)
    assert code == 2 and out.count("\n") == 1 and f"session {sid} is here already" in out, out
    assert _dumps(home) == before


def _forge_cases(bundle: dict[str, Any]) -> dict[str, bytes]:
    record = bundle["records"][0]
    profile = next(iter(bundle["profiles"]))
    policy = next(iter(bundle["policies"]))
    cited = next(c for c in bundle["chunks"] if "text" in c)
    proven = next(c for c in bundle["chunks"] if c["proof"])
    changed_profile = {**bundle["profiles"][profile], "model": "another"}
    cases = {
        "a record's answer": _set(bundle, ("records", 0, "answer_text"), "Someone else."),
        "a record's mode": _set(bundle, ("records", 0, "audit_mode"), "HYBRID"),
        "a record's state": _set(bundle, ("records", 0, "state"), "ok" if record["state"] != "ok" else "failed"),
        "a record's evidence flag": _set(bundle, ("records", 0, "evidence", 0, "cited"), not record["evidence"][0]["cited"]),
        "a record's revision of another type": _set(bundle, ("records", 0, "revision"), "1"),
        "a profile's text": _set(bundle, ("profiles", profile, "model"), "another"),
        "a profile under its new hash": canonical_json(
            {**bundle, "profiles": {hex_b64(sha256_hex(canonical_json(changed_profile))): changed_profile}}
        ),
        "a policy's text": _set(bundle, ("policies", policy, "policy_version"), "p9"),
        "a policy of another type": _set(bundle, ("policies", policy), []),
        "a cited chunk's text": _set(bundle, ("chunks", bundle["chunks"].index(cited), "text"), cited["text"] + " "),
        "a proof node": _set(
            bundle,
            ("documents", 0, "nodes", proven["proof"][0]),
            "A" * 42 + "A" if bundle["documents"][0]["nodes"][proven["proof"][0]] != "A" * 43 else "B" * 42 + "A",
        ),
        "a document's size": _set(bundle, ("documents", 0, "chunk_count"), bundle["documents"][0]["chunk_count"] + 1),
        "a document's title": _set(bundle, ("documents", 0, "title"), "Batman"),
    }  # fmt: skip
    return {
        name: value if isinstance(value, bytes) else canonical_json(value)
        for name, value in cases.items()
    }


@pytest.mark.parametrize("home_kind", ["empty", "same corpus"])
def test_a_forged_record_profile_policy_proof_or_evidence_is_one_line_and_nothing_written(
    home_kind: str, extractive: dict[str, Any], tmp_path: Path
) -> None:
    home = tmp_path / "b"
    with Arborist(home) as app:
        if home_kind == "same corpus":
            app.ingest([str(extractive["doc"])])
        app.sessions()
    before = _dumps(home)
    for name, data in _forge_cases(json.loads(extractive["data"])).items():
        code, out = _import(home, data, tmp_path)
        assert code != 0, (name, out)
        assert out.count("\n") == 1 and out.startswith("arborist: error: "), (name, out)
        assert "Traceback" not in out, name
        assert _dumps(home) == before, name


_FORGEABLE = ("records", "profiles", "policies", "documents", "chunks")


@settings(
    max_examples=scaled_examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(pick=st.integers(0, 10**6), kind=st.sampled_from(["forged", "list", "object", "null"]))
def test_any_field_of_a_record_or_what_proves_it_forged_or_mistyped_imports_nothing(
    extractive: dict[str, Any], tmp_path_factory: pytest.TempPathFactory, pick: int, kind: str
) -> None:
    bundle = json.loads(extractive["data"])
    paths = [p for p in _leaves(bundle) if p[0] in _FORGEABLE]
    path = paths[pick % len(paths)]
    old = _value(bundle, path)
    new = {
        "forged": _forged(old),
        "list": [],
        "object": {},
        "null": None if old is not None else 0,
    }[kind]
    home = _empty_home(tmp_path_factory.mktemp("hostile") / "b")
    before = _dumps(home)
    code, out = _import(home, canonical_json(_set(bundle, path, new)), home.parent)
    assert code != 0 and out.count("\n") == 1 and "Traceback" not in out, (path, new, out)
    assert _dumps(home) == before, path


def test_verify_names_an_imported_record_or_its_evidence_edited_by_hand(
    extractive: dict[str, Any], tmp_path: Path
) -> None:
    home = _empty_home(tmp_path / "b")
    assert _import(home, extractive["data"], tmp_path)[0] == 0
    bates = next(iter(extractive["shown"]))
    edits = {
        "UPDATE imported_records SET answer_text = answer_text || '!' WHERE id = 1":
            "differ from its record_hash",
        "UPDATE imported_evidence SET text = text || ' ' WHERE text IS NOT NULL":
            "does not match its leaf",
        "UPDATE imported_records SET policy_json = '{}' WHERE id = 1":
            "governance_policy_hash does not match the record's own fields",
        "UPDATE imported_records SET origin_state = 'failed', origin_reason = 'wrong'":
            "differs from its record_import event",
        "DELETE FROM imported_evidence WHERE record_id = 2":
            "",
    }  # fmt: skip
    for edit, said in edits.items():
        copy = tmp_path / f"copy{len(said)}"
        copy.mkdir(mode=0o700)
        for name in ("store.db", "sessions.db"):
            (copy / name).write_bytes((home / name).read_bytes())
            (copy / name).chmod(0o600)
        conn = sqlite3.connect(copy / "store.db")
        conn.execute(edit)
        conn.commit()
        conn.close()
        code, out = run(copy, "verify")
        assert code == 1 and "imported record" in out and said in out, (edit, out)
    del bates


def test_evidence_naming_a_document_this_home_holds_must_be_that_documents_chunk(
    extractive: dict[str, Any], tmp_path: Path
) -> None:
    """Where this home holds the cited document (the same root and size), each evidence item
    must name its chunk by the bundle's leaf: a store whose chunk says otherwise (edited by
    hand here) refuses the import in one line, writing nothing."""
    home = tmp_path / "b"
    with Arborist(home) as app:
        app.ingest([str(extractive["doc"])])
    raw = sqlite3.connect(home / "store.db")
    with raw:
        raw.execute("UPDATE chunks SET leaf = ? WHERE chunk_index = 0", ("0" * 64,))
    raw.close()
    before = _dumps(home)
    code, out = _import(home, extractive["data"], tmp_path)
    assert code != 0 and out.count("\n") == 1, out
    assert "names a document this home holds, whose chunk at its index has another leaf" in out
    assert _dumps(home) == before

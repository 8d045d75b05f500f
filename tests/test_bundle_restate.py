"""A later bundle carries its home's falsification of a record imported before, and no
bundle ever brings a record back into service.

Home A answers, exports a bundle; home B imports it; A falsifies one answer and exports
again; B imports the new bundle. B's copy must then show the answer as its home has it now
(failed, with A's reason) in every face, as a home importing the later bundle first shows
it, through an ``import_state`` event appended to B's store (the record's row is never
rewritten). A bundle saying ``ok`` of a record held as failed (an older one, or a forged
one) is skipped and said in one line; a bundle never moves one of B's own records at all.
Real homes on real SQLite, through the CLI.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arborist._database.db import transaction
from arborist._facade.app import Arborist
from arborist._proofs.audit import append_event
from arborist._store.cache.imported_states import IMPORT_STATE
from tests.test_bundle_import import (
    CREATORS,
    _answered_home,
    _doc,
    _dumps,
    _empty_home,
    _import,
    run,
)

REASON = "Ditko disputed the credit"


def _faces(home: Path, bates: str, sid: str) -> dict[str, Any]:
    """What ``show``, ``tree`` and ``find`` (text and ``--json``) say of the turn ``bates``."""
    shown = json.loads(run(home, "show", bates, "--json")[1])
    tree = json.loads(run(home, "tree", "--sid", sid, "--json")[1])
    hits = json.loads(run(home, "find", "Spider", "--limit", "50", "--json")[1])
    row = next(t for t in tree["turns"] if t["bates"] == bates)
    hit = next(h for h in hits if h["bates"] == bates)
    lines = run(home, "tree", "--sid", sid)[1].splitlines()
    fields = ("audit_now", "audit_reason", "state", "state_reason")
    return {
        "show": run(home, "show", bates)[1],
        "tree": next(line for line in lines if CREATORS in line),
        "show --json": tuple(shown[name] for name in fields),
        "tree --json": tuple(row[name] for name in fields),
        "find --json": tuple(hit[name] for name in fields),
    }


@pytest.fixture(scope="module")
def falsified(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A's bundle before and after A falsified its first answer, the turn that showed it."""
    root = tmp_path_factory.mktemp("restate")
    home = root / "a"
    before, shown = _answered_home(home, _doc(root / "docs"))
    bates = next(iter(shown))
    sid = json.loads(before)["sessions"][0]["sid"]
    code, out = run(home, "falsify", bates, "--state", "failed", "--reason", REASON)
    assert code == 0, out
    with Arborist(home) as app:
        after = app.export_bundle([sid])
    states = {r["state"] for r in json.loads(after)["records"]}
    assert states == {"ok", "failed"}  # what the later bundle carries: the record's state
    return {"root": root, "before": before, "after": after, "bates": bates, "sid": sid}


def test_a_later_bundle_carries_its_homes_falsification_into_every_face(
    falsified: dict[str, Any], tmp_path: Path
) -> None:
    bates, sid = falsified["bates"], falsified["sid"]
    home = _empty_home(tmp_path / "b")
    assert _import(home, falsified["before"], tmp_path)[0] == 0
    untouched = _faces(home, bates, sid)
    code, out = _import(home, falsified["after"], tmp_path)
    assert code == 0 and out.splitlines() == [
        f"imported 0 node(s), 3 already present, 0 record(s) kept apart as imported, 1 later "
        f"state(s) carried over, session(s) {sid}"
    ], out
    faces = _faces(home, bates, sid)
    first = _empty_home(tmp_path / "c")  # a home that imports the later bundle first
    assert _import(first, falsified["after"], tmp_path)[0] == 0
    assert faces == _faces(first, bates, sid)
    for face, said in faces.items():
        assert f"failed: {REASON}" in str(said) and said != untouched[face], face
    with Arborist(home) as app:
        verified = app.verify()
        assert verified.ok and verified.problems == [], verified.problems
        events = app.store_conn.execute(
            "SELECT count(*) FROM audit_events WHERE event_type = ?", (IMPORT_STATE,)
        ).fetchone()
        assert events == (1,)
    dumped = _dumps(home)  # the same bundle again: nothing new
    code, out = _import(home, falsified["after"], tmp_path)
    assert code == 0 and "carried over" not in out and out.count("\n") == 1, out
    assert _dumps(home) == dumped


def test_an_older_bundle_never_brings_the_record_back_into_service(
    falsified: dict[str, Any], tmp_path: Path
) -> None:
    """The bundle from before the falsification (older news, or what a forger hands over to
    undo it) is imported again: its turns are held, its record's ``ok`` is skipped, in one
    line, and nothing is written."""
    bates, sid = falsified["bates"], falsified["sid"]
    home = _empty_home(tmp_path / "b")
    assert _import(home, falsified["after"], tmp_path)[0] == 0
    faces, dumped = _faces(home, bates, sid), _dumps(home)
    code, out = _import(home, falsified["before"], tmp_path)
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2, out
    assert lines[1].startswith("skipped the state 'ok' the bundle gives record ")
    assert lines[1].endswith(
        "revision 1 (failed here): a bundle only takes a record further out of service, never back"
    )
    assert _dumps(home) == dumped and _faces(home, bates, sid) == faces
    code, out = run(home, "import", str(tmp_path / "given.bundle"), "--json")
    said = json.loads(out)
    assert code == 0 and (said["restated"], said["skipped"]) == (0, lines[1:]), out
    assert _dumps(home) == dumped


def test_a_bundle_never_moves_this_homes_own_record(tmp_path: Path) -> None:
    """A home imports its own bundles: one from before it falsified its answer (which would
    restore it) and one from after, once it restored it (which would falsify it again). Each
    is skipped in one line; the record's state is its own events' alone."""
    home = tmp_path / "a"
    before, shown = _answered_home(home, _doc(tmp_path / "docs"))
    bates = next(iter(shown))
    sid = json.loads(before)["sessions"][0]["sid"]
    assert run(home, "falsify", bates, "--state", "failed", "--reason", REASON)[0] == 0
    with Arborist(home) as app:
        after = app.export_bundle([sid])
    for bundle, state in ((before, "failed"), (after, "ok")):
        if state == "ok":
            with Arborist(home) as app:
                app.restore(app.node(bates).cache_key, 1)
        dumped = _dumps(home)
        code, out = _import(home, bundle, tmp_path)
        lines = out.splitlines()
        assert code == 0 and len(lines) == 2, out
        assert lines[1].endswith(
            f"revision 1: it is this home's own record ({state} here), whose state only this "
            "home sets"
        )
        assert _dumps(home) == dumped
        with Arborist(home) as app:
            assert app.audit_now(app.node(bates)).state == state


def test_verify_names_an_import_state_event_that_brings_a_record_back(
    falsified: dict[str, Any], tmp_path: Path
) -> None:
    """An ``import_state`` event written by hand (the store's own writer: the chain holds)
    that says ``ok`` of a record imported as failed: verify names it, and no face reads it."""
    bates, sid = falsified["bates"], falsified["sid"]
    home = _empty_home(tmp_path / "b")
    assert _import(home, falsified["after"], tmp_path)[0] == 0
    faces = _faces(home, bates, sid)
    with Arborist(home) as app:
        (digest,) = app.store_conn.execute(
            "SELECT record_hash FROM imported_records WHERE origin_state = 'failed'"
        ).fetchone()
        with transaction(app.store_conn):
            body = {"record_hash": digest, "state": "ok", "reason": None}
            seq = append_event(app.store_conn, IMPORT_STATE, body=body).seq
        problems = app.verify().problems
    assert problems == [
        f"store.db: import_state event {seq}: moves imported record {digest[:12]}… from failed "
        "to ok: a bundle only takes a record further out of service"
    ]
    assert _faces(home, bates, sid) == faces

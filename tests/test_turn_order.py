"""A session's turns in order, one rule in four places: no turn older than its parent, no
session numbered past a gap (arborist/_forest/shape.py ``order_problems``).

``verify`` and ``import`` held a home's turns to it while ``verify --bundle``, ``export
--bundle`` and the page did not: a bundle whose turn was backdated, or numbered past a gap,
hashed consistently by the library's own writer, verified and showed as verified, while
importing it was refused. Each forged bundle here is what ``export --bundle`` writes of a
home that breaks the rule (the home made by the library's own writer, only the rule's
check at export left out), so every hash, event and tag of it holds; each is then refused
by ``verify --bundle`` naming the turn and the rule, by ``import``, and by the page's check
(js/src/bundle_check.js run by node on the same bytes). The rule itself is held to the
vectors js/test/turn_order.test.js holds its port to (tests/vectors/turn_order.json).

The page held a bundle's turns to no shape at all (``verify --bundle`` held them to a
turn's shape, as ``import`` does, in its form check): it now holds each turn to
``shape_problem`` (ported as js/src/turn_shape.js, held to the same vectors) and its time
to the stored form, the form the order rule compares.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._forest.shape import is_stored_time, order_problems, shape_problem
from arborist._proofs.hashing import node_hash
from tests.exports import QUESTION, answered_turn, export_records, jsonl
from tests.exports import doc as doc_fixture  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
VECTORS = json.loads((ROOT / "tests" / "vectors" / "turn_order.json").read_text("utf-8"))
OLDER = "it is older than its parent (its created_at is before its parent's)"
GAP = (
    "it is numbered past a gap: its session holds no turn 000002 (a session numbers its "
    "turns one after another)"
)
BACKDATED = "2001-01-01T00:00:00.000000Z"


def run(home: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--home", str(home), *args])
    return result.exit_code, result.stdout + result.stderr


def _files(home: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(home.iterdir()) if ".db" in p.name}


@pytest.mark.parametrize("case", VECTORS["order"], ids=lambda case: case["name"])
def test_the_rule_gives_every_vectors_problems(case: dict[str, Any]) -> None:
    turns = [tuple(turn) for turn in case["turns"]]
    assert [list(p) for p in order_problems(turns)] == case["problems"]


@pytest.mark.parametrize("case", VECTORS["shape"], ids=lambda case: case["name"])
def test_a_turns_shape_is_told_as_the_vectors_do(case: dict[str, Any]) -> None:
    fields = {k: v for k, v in case.items() if k not in ("name", "problem")}
    assert shape_problem(**fields) == case["problem"]


def test_the_rule_tells_a_stored_time_as_the_vectors_do() -> None:
    assert any(e["stored"] for e in VECTORS["stored_time"])
    for entry in VECTORS["stored_time"]:
        assert is_stored_time(entry["text"]) == entry["stored"], entry


def _asked(home: Path, doc: Path) -> Path:
    with Arborist(home) as app:
        app.ingest([str(doc)])
        app.ask_turn(QUESTION, sid=None)
    return home


def _backdated_home(tmp_path: Path, doc: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    """A home holding a session whose answered turn is backdated to 2001, under a root of
    today: written by the import's own writer (every hash, event and fold as it makes
    them) with only its check of the times left out. Its store answered the same question,
    so it holds the record the turn shows. Returns the home and the turn."""
    records = export_records(_asked(tmp_path / "elsewhere", doc))
    root = next(r for r in records if r["type"] == "node" and r["parent_bates"] is None)
    turn = answered_turn(records)
    turn["created_at"] = BACKDATED
    turn["node_hash"] = node_hash(
        parent_node_hash=root["node_hash"], bates=turn["bates"], question=turn["question"],
        cache_key=turn["cache_key"], audit_mode=turn["audit_mode"],
        created_at=turn["created_at"], label=turn["created_label"],
    )  # fmt: skip
    home = _asked(tmp_path / "home", doc)
    with monkeypatch.context() as patch:
        patch.setattr("arborist._forest.transfer.time_problem", lambda *_, **__: None)
        with Arborist(home) as app:
            app.import_sessions(jsonl(records))
    return home, turn["bates"]


def _stepped_back_home(
    tmp_path: Path, doc: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, str]:
    """A home holding a session whose second turn, a sibling of the first under the root, is
    dated between the root and the first: after its parent, before the turn numbered before
    it. Written as :func:`_backdated_home` writes its own."""
    elsewhere = _asked(tmp_path / "elsewhere", doc)
    with Arborist(elsewhere) as app:
        ((session, _),) = app.sessions()
        app.ask_turn(
            "When did Spider-Man first appear?", sid=session.sid, parent=session.root_bates
        )
    records = export_records(elsewhere)
    nodes = [r for r in records if r["type"] == "node"]
    root, first, second = nodes
    assert second["parent_bates"] == root["bates"], "a sibling of the first turn"
    # The first turn two microseconds past the root, the second one past it: each after its
    # parent (and before the import that records them), the second before the turn before it.
    at = datetime.strptime(root["created_at"], "%Y-%m-%dT%H:%M:%S.%fZ")
    for node, later in ((first, 2), (second, 1)):
        node["created_at"] = (at + timedelta(microseconds=later)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        node["node_hash"] = node_hash(
            parent_node_hash=root["node_hash"], bates=node["bates"], question=node["question"],
            cache_key=node["cache_key"], audit_mode=node["audit_mode"],
            created_at=node["created_at"], label=node["created_label"],
        )  # fmt: skip
    home = _asked(tmp_path / "home", doc)
    with Arborist(home) as app:  # its store holds the second turn's record too
        app.ask_turn(second["question"], sid=None)
    with monkeypatch.context() as patch:
        patch.setattr("arborist._forest.transfer.time_problem", lambda *_, **__: None)
        with Arborist(home) as app:
            app.import_sessions(jsonl(records))
    return home, second["bates"]


def _gap_home(tmp_path: Path, doc: Path) -> tuple[Path, str]:
    """A home whose session's next seq was edited by hand (bookkeeping no hash covers):
    its next ask, written by the library, is numbered 000005 after 000001."""
    home = _asked(tmp_path / "home", doc)
    conn = sqlite3.connect(home / "sessions.db")
    with conn:
        conn.execute("UPDATE sessions SET next_seq = 5")
    conn.close()
    with Arborist(home) as app:
        ((session, _),) = app.sessions()
        turn = app.ask_turn("When did Spider-Man first appear?", sid=session.sid)
    return home, turn.node.bates


def _sid(bates: str) -> str:
    return bates.rsplit("-", 1)[0]


def _forged_bundle(home: Path, bates: str, monkeypatch: pytest.MonkeyPatch) -> bytes:
    """What ``export --bundle`` writes of the session of ``bates`` with the rule left out of
    its check: every hash, body, tag and head as the library makes them."""
    with monkeypatch.context() as patch:
        patch.setattr("arborist._bundles.check.order_problems", lambda turns: [], raising=False)
        with Arborist(home) as app:
            return app.export_bundle([_sid(bates)])


def _page_check(data: bytes, folder: Path) -> dict[str, Any]:
    """The page's check (js/src/bundle_check.js) of ``data``, run by node: its problems and
    each turn's verdict (what the page marks the turn with)."""
    node = shutil.which("node")
    assert node, "node is not on PATH: the page's check needs node >= 20 (README)"
    path = folder / "page.bundle"
    path.write_bytes(data)
    module = json.dumps((ROOT / "js" / "src" / "bundle_check.js").as_uri())
    script = (
        "import { readFileSync } from 'node:fs';"
        f"import {{ checkBundle, turnVerdicts }} from {module};"
        "const bundle = JSON.parse(readFileSync(process.argv[1], 'utf8'));"
        "const problems = await checkBundle(bundle);"
        "const verdicts = Object.fromEntries(turnVerdicts(bundle, problems));"
        "process.stdout.write(JSON.stringify({ problems, verdicts }));"
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", script, str(path)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


STEPPED_BACK = (
    "it is older than the turn before it in its session (its created_at is before that turn's)"
)
CASES = {
    "a backdated turn": OLDER,
    "a turn older than the turn before it": STEPPED_BACK,
    "a turn numbered past a gap": GAP,
}


def _home_breaking(
    case: str, tmp_path: Path, doc: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, str]:
    if case == "a backdated turn":
        return _backdated_home(tmp_path, doc, monkeypatch)
    if case == "a turn older than the turn before it":
        return _stepped_back_home(tmp_path, doc, monkeypatch)
    return _gap_home(tmp_path, doc)


@pytest.mark.parametrize("case", CASES)
def test_a_forged_bundle_is_refused_by_verify_import_and_the_page_naming_the_turn_and_rule(
    case: str, tmp_path: Path, doc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, bates = _home_breaking(case, tmp_path, doc, monkeypatch)
    line = f"turn {bates}: {CASES[case]}"
    with Arborist(home) as app:
        assert f"sessions.db: {line}" in app.verify().problems  # the home's own verify
    data = _forged_bundle(home, bates, monkeypatch)
    path = tmp_path / "forged.bundle"
    path.write_bytes(data)
    code, out = run(tmp_path / "reader", "verify", "--bundle", str(path))
    assert code == 1 and out.splitlines() == [line], out  # every hash holds: the rule alone
    assert not (tmp_path / "reader").exists()
    target = tmp_path / "target"
    with Arborist(target) as app:
        app.sessions()
    before = _files(target)
    code, out = run(target, "import", str(path))
    assert code != 0 and out.count("\n") == 1 and line in out, out
    assert _files(target) == before
    page = _page_check(data, tmp_path)
    assert page["problems"] == [{"kind": "turn", "id": bates, "text": CASES[case]}], page
    assert page["verdicts"][bates] == [line]
    assert [b for b, found in page["verdicts"].items() if found] == [bates]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("how", ["--bundle", "--html"])
def test_export_refuses_a_home_that_breaks_the_rule_in_one_line_writing_nothing(
    case: str, how: str, tmp_path: Path, doc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, bates = _home_breaking(case, tmp_path, doc, monkeypatch)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    code, out = run(home, "export", how, str(out_dir / "journal"), _sid(bates))
    assert code != 0 and out.count("\n") == 1 and "Traceback" not in out, out
    assert f"turn {bates}: {CASES[case]}" in out, out
    assert list(out_dir.iterdir()) == []


def test_the_page_names_a_turn_whose_time_is_not_in_the_stored_form(
    tmp_path: Path, doc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rule compares times as text, which orders them only in the stored form: the
    page holds a turn's time to that form, as ``verify --bundle``'s form check does
    (a time written ``2099`` would otherwise sort after any parent's)."""
    home = _asked(tmp_path / "home", doc)
    with Arborist(home) as app:
        ((session, _),) = app.sessions()
        data = app.export_bundle([session.sid])
    bundle = json.loads(data)
    turn = bundle["turns"][1]
    turn["created_at"] = turn["created_at"][:19] + "Z"
    forged = json.dumps(bundle, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    page = _page_check(forged.encode("utf-8"), tmp_path)
    said = "its created_at is not a time YYYY-MM-DDTHH:MM:SS.ffffffZ"
    assert {"kind": "turn", "id": turn["bates"], "text": said} in page["problems"], page
    assert f"turn {turn['bates']}: {said}" in page["verdicts"][turn["bates"]]
    path = tmp_path / "forged.bundle"
    path.write_bytes(forged.encode("utf-8"))
    code, out = run(tmp_path / "reader", "verify", "--bundle", str(path))
    assert code == 1 and said in out, out


def _rehash(records: list[dict[str, Any]]) -> None:
    """Every node hash of an export recomputed from its fields, parents first (an export is
    in seq order), as a forger would."""
    hashes: dict[str, str] = {}
    for r in records:
        if r["type"] == "node":
            r["node_hash"] = hashes[r["bates"]] = node_hash(
                parent_node_hash=hashes.get(r["parent_bates"]), bates=r["bates"],
                question=r["question"], cache_key=r["cache_key"], audit_mode=r["audit_mode"],
                created_at=r["created_at"], label=r["created_label"],
            )  # fmt: skip


def test_the_page_refuses_a_turn_of_a_shape_import_refuses(
    tmp_path: Path, doc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session's root holding a question, in a bundle made consistently around it (the
    import's and the export's own writers, only their shape checks left out): ``verify
    --bundle`` and ``import`` refused it, the page showed it verified."""
    records = export_records(_asked(tmp_path / "elsewhere", doc))
    root = next(r for r in records if r["type"] == "node" and r["parent_bates"] is None)
    root["question"] = "Who is the real Spider-Man?"
    _rehash(records)
    home = _asked(tmp_path / "home", doc)
    with monkeypatch.context() as patch:
        patch.setattr("arborist._forest.transfer.shape_problem", lambda **_: None)
        with Arborist(home) as app:
            app.import_sessions(jsonl(records))
        patch.setattr("arborist._bundles.shape.turn_problem", lambda item: None)
        with Arborist(home) as app:
            data = app.export_bundle([_sid(root["bates"])])
    said = "a session's root holds no question, answer, cache key, cited title or label"
    page = _page_check(data, tmp_path)
    assert page["problems"] == [{"kind": "turn", "id": root["bates"], "text": said}], page
    assert page["verdicts"][root["bates"]] == [f"turn {root['bates']}: {said}"]
    path = tmp_path / "forged.bundle"
    path.write_bytes(data)
    code, out = run(tmp_path / "reader", "verify", "--bundle", str(path))
    assert code == 1 and out.splitlines() == [f"turns[0]: turn {root['bates']}: {said}"], out
    target = tmp_path / "target"
    with Arborist(target) as app:
        app.sessions()
    before = _files(target)
    code, out = run(target, "import", str(path))
    assert code != 0 and out.count("\n") == 1 and said in out, out
    assert _files(target) == before

"""bench/followup_learned.py runs leave-one-set-out on files of the blind sets' shape.

Two tiny synthetic sets are written in a temporary folder; only the table's shape is
checked (a row per held-out set, the columns, the means), never a figure. The ten real
sets are run by tests/test_bench_smoke.py with ``--quick``.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "followup_learned.py"


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("arborist_bench_followup_learned", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def write_set(path: Path, pairs: list[tuple[str, str]]) -> Path:
    items = [{"id": f"s-{i}", "question": q, "label": lab} for i, (q, lab) in enumerate(pairs)]
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


def test_two_synthetic_sets_give_a_row_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_bench()
    one = write_set(
        tmp_path / "alpha.json",
        [
            ("How do I sort a list of tuples by the second item?", "standalone"),
            ("What does the GIL do in CPython?", "standalone"),
            ("And for sets?", "followup"),
            ("Why does it do that?", "followup"),
        ],
    )
    two = write_set(
        tmp_path / "beta.json",
        [
            ("How do I open a file for appending in Python?", "standalone"),
            ("And what about dictionaries?", "followup"),
            ("Can you show that with a loop instead?", "followup"),
        ],
    )
    assert bench.main(["--sets", str(one), str(two), "--quick"]) == 0
    out = capsys.readouterr().out
    rows = {
        line.split()[0]: line.split() for line in out.splitlines() if line[:5] in ("alpha", "beta ")
    }
    assert set(rows) == {"alpha", "beta"}
    assert rows["alpha"][1] == "4" and rows["beta"][1] == "3"
    assert all(len(cells) == 2 + len(bench.COLUMNS) for cells in rows.values())
    assert "mean (all sets)" in out and "mean h7..h10" not in out
    assert sorted(tmp_path.iterdir()) == sorted([one, two])  # nothing written


def test_a_file_of_another_shape_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_bench()
    good = write_set(tmp_path / "good.json", [("And for sets?", "followup")])
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"question": "x", "label": "maybe"}]), encoding="utf-8")
    assert bench.main(["--sets", str(good), str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.json" in err
    assert bench.main(["--sets", str(good)]) == 2  # one set cannot be left out

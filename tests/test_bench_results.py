"""``make bench`` fails when a goal is missed, and says which (bench/results.py's run and verdict).

The scripts here are tiny stand-ins written to a temporary folder: the real bench
scripts take minutes. Each prints report lines the way bench/goals.py does
(``MET``, ``MISSED``, ``not measured``).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results.py"


def script(tmp_path: Path, name: str, lines: list[str], status: int = 0) -> Path:
    path = tmp_path / name
    body = "".join(f"print({line!r})\n" for line in lines)
    path.write_text(f"import sys\n{body}sys.exit({status})\n", encoding="utf-8")
    return path


def results(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(RESULTS), *args], capture_output=True, text=True, cwd=cwd, check=False
    )


def test_every_goal_met_passes(tmp_path: Path) -> None:
    missed = tmp_path / "missed"
    met = script(tmp_path, "met.py", ["  ingest   0.69   MET   >= 0.6x", "  depth   not measured"])
    done = results("run", "--missed", str(missed), "--", str(met), cwd=tmp_path)
    assert done.returncode == 0
    assert "MET   >= 0.6x" in done.stdout  # the script's output passes through
    verdict = results("verdict", "--missed", str(missed), cwd=tmp_path)
    assert verdict.returncode == 0
    assert "every goal MET" in verdict.stdout


def test_a_missed_goal_fails_the_verdict_and_is_named(tmp_path: Path) -> None:
    missed = tmp_path / "missed"
    first = script(
        tmp_path,
        "goals.py",
        [
            "  chain-check on real turn events   277,000 events/s   MISSED    >= 300k events/s",
            "  verify   1.80   MET   <= 2x",
        ],
    )
    second = script(tmp_path, "store.py", ["ingest (target >= 0.6) MET", "ask: MISSED; bare"])
    for path in (first, second):  # a miss does not stop the scripts after it
        assert (
            results("run", "--missed", str(missed), "--", str(path), cwd=tmp_path).returncode == 0
        )
    verdict = results("verdict", "--missed", str(missed), cwd=tmp_path)
    assert verdict.returncode == 1
    assert "2 goal(s) MISSED" in verdict.stdout
    assert f"{first}: chain-check on real turn events" in verdict.stdout
    assert f"{second}: ask: MISSED; bare" in verdict.stdout
    assert "verify" not in verdict.stdout


@pytest.mark.parametrize("status", [1, 3])
def test_a_failing_script_fails_its_step(tmp_path: Path, status: int) -> None:
    failing = script(tmp_path, "quality.py", ["recall@5 under the floor"], status)
    done = results("run", "--missed", str(tmp_path / "missed"), "--", str(failing), cwd=tmp_path)
    assert done.returncode == status


def test_the_makefile_runs_every_bench_script_through_it_and_ends_with_the_verdict() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\nbench:", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    steps = [line.strip() for line in recipe]
    assert steps[-1] == "$(BIN)/python bench/results.py verdict --missed $(BENCH_MISSED)"
    for step in steps[1:-1]:
        # A step may set the environment first (bench/foreign.py's one BLAS thread).
        words = [w for w in step.split() if not re.fullmatch(r"\$\([A-Z_]+_THREADS\)", w)]
        if "bench/" in step and words[0] != "$(BENCH)":
            pytest.fail(f"a bench script that bypasses bench/results.py: {step}")

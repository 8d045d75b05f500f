"""The example notebooks run clean: nbclient executes each and fails on any error output.

nbval (run by ``make test`` over notebooks/) compares their outputs; this
catches what nbval cannot: a magic's UsageError prints to stderr without an
error output, so nbval passes it (docs/design.md section 5c).
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_there_are_three_example_notebooks() -> None:
    assert [p.stem for p in NOTEBOOKS] == ["01-quickstart", "02-provenance", "03-forest"]


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_executes_without_any_error_output(path: Path, tmp_path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    ).execute()
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            assert output.output_type != "error", (
                f"cell {index}: {output.get('ename')}: {output.get('evalue')}"
            )
            if output.output_type == "stream" and output.name == "stderr":
                assert "UsageError" not in output.text, f"cell {index}: {output.text}"
                assert "Traceback" not in output.text, f"cell {index}: {output.text}"

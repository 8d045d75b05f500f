"""The example notebooks run clean: nbclient executes each and fails on any error output.

nbval (run by ``make test`` over notebooks/) compares their outputs; this
catches what nbval cannot: a magic's UsageError prints to stderr without an
error output, so nbval passes it (docs/design.md section 5c).
"""

from __future__ import annotations

import runpy
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


def test_an_executed_ingest_cell_saves_its_finished_bar_as_text_and_no_widget(
    tmp_path: Path, home: Path
) -> None:
    """A saved notebook opened without its kernel showed the ingest bar as a widget stuck at
    0% (issue #35): once done, the bar is replaced in place by its last line, as text."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(3):
        (docs / f"note{n}.md").write_text(f"# Note {n}\n\nThe note number {n}.\n", "utf-8")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("%load_ext arborist_nb"),
        nbformat.v4.new_code_cell(f"%arborist ingest {docs}"),
    ]
    NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    ).execute()
    outputs = notebook.cells[1].outputs
    assert not any(
        "application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs
    ), outputs
    shown = [o["data"]["text/plain"] for o in outputs if o.output_type == "display_data"]
    assert len(shown) == 1 and "100%" in shown[0] and "3/3" in shown[0], shown
    printed = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "3 added" in printed
    # nbclient keeps the closed bar's models in the notebook's widget state; the build
    # keeps only those an output shows.
    build = runpy.run_path(str(NOTEBOOKS[0].parent / "build.py"))
    assert notebook.metadata.get("widgets")
    build["prune_widgets"](notebook)
    assert "widgets" not in notebook.metadata


def test_the_build_keeps_the_widget_models_an_output_shows_and_what_they_refer_to() -> None:
    build = runpy.run_path(str(NOTEBOOKS[0].parent / "build.py"))
    notebook = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("%arborist")
    cell.outputs = [
        nbformat.v4.new_output(
            "display_data", data={build["WIDGET_VIEW"]: {"model_id": "aa", "version_major": 2}}
        )
    ]
    notebook.cells = [cell]
    state = {
        "aa": {"state": {"layout": "IPY_MODEL_bb"}},
        "bb": {"state": {}},
        "cc": {"state": {"layout": "IPY_MODEL_dd"}},
        "dd": {"state": {}},
    }
    notebook.metadata["widgets"] = {build["WIDGET_STATE"]: {"state": state}}
    build["prune_widgets"](notebook)
    assert set(notebook.metadata["widgets"][build["WIDGET_STATE"]]["state"]) == {"aa", "bb"}

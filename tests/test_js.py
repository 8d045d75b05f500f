"""The widget's own tests (``node --test`` over js/test/: the view, the Markdown reader, the
WebCrypto port of the hash primitives, the bundle check), run in ``make test``'s pytest run
beside the Python tests rather than before them, so that their seconds overlap the rest.
``make test-js`` runs them alone."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

JS = Path(__file__).resolve().parents[1] / "js"


def test_the_widgets_js_tests_pass() -> None:
    npm = shutil.which("npm")
    assert npm, "npm is not on PATH: make test needs node >= 20 and npm (README)"
    assert (JS / "node_modules").is_dir(), "js/node_modules is missing: run `make install`"
    run = subprocess.run(
        [npm, "test", "--silent"], cwd=JS, capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode == 0, f"node --test failed:\n{run.stdout[-6000:]}\n{run.stderr[-2000:]}"
    assert re.search(r"^# pass [1-9]", run.stdout, re.M), run.stdout[-2000:]  # tests ran
    assert re.search(r"^# fail 0$", run.stdout, re.M), run.stdout[-2000:]

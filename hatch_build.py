"""Build hook: bundle the widget JS (``js/``) into ``arborist_nb/static``, and the page
``export --html`` writes into ``arborist/static``, before packaging.

The bundle is gitignored. Building from a git checkout needs node and npm
(``npm ci`` then ``npm run build``); building from an sdist, which carries
the bundle, needs neither. The wheel always contains the bundle, so
installing it never needs node.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

STATIC = Path("arborist_nb") / "static"
PAGE = Path("arborist") / "static"
BUNDLE = (STATIC / "arborist.js", STATIC / "widget.js", STATIC / "widget.css", PAGE / "page.js",
          PAGE / "page.css")  # fmt: skip


class CustomBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        js = root / "js"
        if (js / "package.json").is_file() and shutil.which("npm"):
            if not (js / "node_modules").is_dir():
                subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=js, check=True)
            subprocess.run(["npm", "run", "build", "--silent"], cwd=js, check=True)
        missing = [str(path) for path in BUNDLE if not (root / path).is_file()]
        if missing:
            raise RuntimeError(
                f"{', '.join(missing)} missing, and npm is not there to build from js/"
            )

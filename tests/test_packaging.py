"""The package's shape: layers import downward, __all__ is honest, the wheel carries the widget bundle."""

from __future__ import annotations

import ast
import importlib
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "arborist"
JUPYTER_MODULES = {"IPython", "ipywidgets", "anywidget", "traitlets", "ipykernel", "jupyter_client"}
PURE = [
    "hashing.py",
    "merkle.py",
    "keys.py",
    "citations.py",
    "terminal.py",
    "analysis.py",
    "qa/sse.py",
    "qa/sanitize.py",
    "store/normalize.py",
    "store/text_titles.py",
]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "static" not in p.parts)


@pytest.mark.parametrize("path", python_files(CORE), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_core_never_imports_jupyter(path: Path) -> None:
    roots = {name.split(".")[0] for name in imported_modules(path)}
    assert not roots & JUPYTER_MODULES


@pytest.mark.parametrize("name", PURE)
def test_pure_modules_use_only_the_standard_library_and_pure_arborist_modules(name: str) -> None:
    allowed_arborist = {"arborist.errors", "arborist.hashing", "arborist.merkle"}
    for module in imported_modules(CORE / name):
        root = module.split(".")[0]
        if root == "arborist":
            assert module in allowed_arborist, f"{name} imports {module}"
        else:
            assert root in sys.stdlib_module_names or root == "__future__", (
                f"{name} imports {module}"
            )


def all_modules() -> list[str]:
    names = []
    for folder in (CORE, ROOT / "arborist_nb"):
        for path in python_files(folder):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__main__":
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            names.append(".".join(parts))
    return names


@pytest.mark.parametrize("module_name", all_modules())
def test_every_module_declares_a_sorted_all_of_names_it_really_has(module_name: str) -> None:
    module = importlib.import_module(module_name)
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"{module_name} has no __all__"
    assert list(exported) == sorted(exported), f"{module_name}.__all__ is not sorted"
    missing = [name for name in exported if not hasattr(module, name)]
    assert not missing, f"{module_name}.__all__ names what it lacks: {missing}"


@pytest.mark.slow
def test_the_wheel_contains_the_widget_bundle_and_installs_without_node(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(ROOT),
            "--no-deps",
            "--no-build-isolation",
            "--quiet",
            "-w",
            str(dist),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    wheel = next(dist.glob("arborist-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert {
        "arborist_nb/static/arborist.js",
        "arborist_nb/static/widget.js",
        "arborist_nb/static/widget.css",
    } <= set(names)
    assert not any("node_modules" in n or n.endswith(".db") for n in names)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", str(wheel)],
        check=True,
        capture_output=True,
        text=True,
    )
    no_node = {**os.environ, "PATH": str(venv / "bin")}
    done = subprocess.run(
        [str(python), "-c", "import arborist_nb; print(arborist_nb.bundle_path().stat().st_size)"],
        capture_output=True,
        text=True,
        env=no_node,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 1000


_OUTSIDE = re.compile(r"DESIGN\.md|NOTES\.md|seeds/")
_SECTION_REF = re.compile(r"docs/design\.md[\s*#]+section (\d+[a-z]?)")


def _tracked_text_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    suffixes = {".py", ".js", ".md", ".toml", ".cfg", ".css", ".json", ""}
    return [
        ROOT / name for name in listed if Path(name).suffix in suffixes and "vectors" not in name
    ]


def test_the_repository_explains_itself() -> None:
    """No comment, test or doc points to a design file outside the repository, and every
    "docs/design.md section N" names a section that exists."""
    design = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^## (\d+[a-z]?)\. ", design, flags=re.MULTILINE))
    outside, dangling = [], []
    for path in _tracked_text_files():
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.name != "test_packaging.py" and _OUTSIDE.search(text):
            outside.append(str(path.relative_to(ROOT)))
        dangling += [
            f"{path.relative_to(ROOT)}: section {ref}"
            for ref in _SECTION_REF.findall(text)
            if ref not in sections
        ]
    assert not outside, f"these point outside the repository: {outside}"
    assert not dangling, f"these name a design section that does not exist: {dangling}"
    assert {"1", "2", "3", "4", "5", "5b", "5c", "6", "7", "8", "9"} <= sections


FACES = {"arborist.cli", "arborist.cli_commands", "arborist.repl", "arborist.sync"}
SERVICES = ("arborist/store", "arborist/forest", "arborist/qa")
FOUNDATIONS = ("db.py", "migrations.py", "integrity.py", "audit.py", "hashing.py", "merkle.py",
               "keys.py", "citations.py", "analysis.py", "terminal.py", "admission.py", "fts.py",
               "clock.py", "pathref.py", "errors.py", "witness.py")  # fmt: skip


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def _arborist_imports(path: Path) -> set[str]:
    return {
        name for name in imported_modules(path) if name.split(".")[0] in ("arborist", "arborist_nb")
    }


def test_layers_import_downward_only() -> None:
    """Faces (the CLI with its REPL, the widget protocol, the notebook) sit on the facade
    and the views; services never reach up to them, and no face borrows another's code
    (the CLI starts its REPL; the notebook shows the widget, which speaks the protocol)."""
    allowed_face_imports = {
        "arborist.cli": {"arborist.cli_commands"},
        "arborist.cli_commands": {"arborist.cli", "arborist.repl"},
        "arborist_nb.widget": {"arborist.sync"},
        "arborist_nb.magics": {"arborist_nb.widget"},
        "arborist.__main__": {"arborist.cli"},
    }
    wrong: list[str] = []
    for path in [*python_files(CORE), *python_files(ROOT / "arborist_nb")]:
        name = _module_name(path)
        imports = _arborist_imports(path)
        faces = {i for i in imports if i in FACES or i.startswith("arborist_nb")}
        faces -= allowed_face_imports.get(name, set())
        faces -= {name}
        if name.startswith("arborist_nb"):
            faces -= {
                "arborist_nb",
                "arborist_nb.display",
                "arborist_nb.assets",
                "arborist_nb.magics",
            }
        if faces:
            wrong.append(f"{name} imports the face(s) {sorted(faces)}")
        relative = str(path.relative_to(ROOT))
        below_facade = relative.startswith(SERVICES) or (
            path.parent == CORE and path.name in FOUNDATIONS
        )
        if below_facade:
            upward = imports & {"arborist.app", "arborist.views", "arborist"}
            if upward:
                wrong.append(f"{name} (below the facade) imports {sorted(upward)}")
    assert not wrong, "\n".join(wrong)


def test_loading_documents_leaves_the_pdf_parser_and_the_http_client_unimported() -> None:
    """pypdf and httpx are the heaviest imports loading has: they come in with the
    first PDF or the first fetch, not with the modules (start-up pays for neither)."""
    code = (
        "import sys, arborist.store.loaders, arborist.store.fetch; "
        "print(sorted({'pypdf', 'httpx'} & set(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


FACES = ["app.py", "cli.py", "cli_commands.py", "repl.py", "commands.py", "views.py", "sync.py"]


@pytest.mark.parametrize(
    "path",
    [CORE / name for name in FACES] + sorted((ROOT / "arborist_nb").glob("*.py")),
    ids=lambda p: p.name,
)
def test_no_face_writes_sql(path: Path) -> None:
    """The faces and the facade call named reads and writes of the forest and the store,
    so a change of schema touches those alone."""
    calls = [
        node.lineno
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in {"execute", "executemany", "executescript"}
    ]
    assert not calls, f"{path.name} runs SQL itself at lines {calls}"


def test_the_store_never_imports_qa() -> None:
    """qa (the ask, the answer checks, the chat clients) stands on the store, never the
    reverse: a hash rule or a citation both need lives below them (keys, citations)."""
    wrong = [
        f"{_module_name(path)} imports {sorted(upward)}"
        for path in python_files(CORE / "store")
        if (
            upward := {i for i in _arborist_imports(path) if i.split(".")[:2] == ["arborist", "qa"]}
        )
    ]
    assert not wrong, "\n".join(wrong)


MAX_FUNCTION_LINES = 60


def test_every_function_fits_on_a_screen() -> None:
    """A function a newcomer can hold: no more than sixty lines, signature and docstring
    included (the house style; a longer one is split along its steps)."""
    long = [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({size} lines)"
        for path in [*python_files(CORE), *python_files(ROOT / "arborist_nb")]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and (size := (node.end_lineno or node.lineno) - node.lineno + 1) > MAX_FUNCTION_LINES
    ]
    assert not long, "\n".join(long)


def test_the_version_loads_no_service() -> None:
    """``arborist --version`` answers from click and the version alone: the facade, the
    store, the chat clients' HTTP stack and the forest load only when a subcommand runs."""
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from arborist.cli import cli\n"
        "result = CliRunner().invoke(cli, ['--version'])\n"
        "assert result.output.startswith('arborist '), result.output\n"
        "heavy = ('arborist.app', 'arborist.store', 'arborist.forest', 'arborist.qa', 'httpx')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]", done.stdout


def test_an_ask_without_an_embedding_model_never_imports_numpy(tmp_path: Path) -> None:
    """numpy (about 0.1 s) loads with the first vector: a lexical ask, the default, skips it."""
    code = (
        "import sys, pathlib, arborist.app\n"
        "home = pathlib.Path(sys.argv[1])\n"
        "(home / 'd.md').parent.mkdir(parents=True, exist_ok=True)\n"
        "(home.parent / 'd.md').write_text('# Tides\\n\\nThe moon pulls the tides.\\n')\n"
        "with arborist.app.Arborist(home) as app:\n"
        "    app.ingest([str(home.parent / 'd.md')])\n"
        "    app.ask('What pulls the tides?')\n"
        "print('numpy' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARBORIST_EMBED_")}
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "home")],
        cwd=ROOT, capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    assert done.stdout.strip() == "False", done.stderr

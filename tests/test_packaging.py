"""The package's shape: layers import downward, __all__ is honest, the wheel carries the widget bundle."""

from __future__ import annotations

import ast
import functools
import importlib
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "arborist"
JUPYTER_MODULES = {"IPython", "ipywidgets", "anywidget", "traitlets", "ipykernel", "jupyter_client"}
PURE = [
    "_proofs/hashing.py",
    "_proofs/merkle.py",
    "_proofs/keys.py",
    "_proofs/citations.py",
    "_text/terminal.py",
    "_text/analysis.py",
    "_standalone/rule.py",
    "_standalone/above.py",
    "_standalone/asked.py",
    "_standalone/continues.py",
    "_standalone/expletive.py",
    "_standalone/foreign.py",
    "_standalone/goes_on.py",
    "_standalone/leans.py",
    "_standalone/marks.py",
    "_standalone/occasion.py",
    "_standalone/picks.py",
    "_standalone/points.py",
    "_standalone/reacts.py",
    "_standalone/replies.py",
    "_standalone/said.py",
    "_standalone/turns.py",
    "_standalone/words.py",
    "_facade/asks.py",
    "_commands/help.py",
    "_text/text_words.py",
    "_text/definitions.py",
    "_gate/shapes.py",
    "_gate/values.py",
    "_gate/prefilters.py",
    "_gate/names.py",
    "_gate/vendors.py",
    "_gate/commands.py",
    "_gate/code.py",
    "_gate/told.py",
    "_gate/context.py",
    "_gate/bare.py",
    "_gate/handed.py",
    "_gate/cued.py",
    "_gate/codes.py",
    "_gate/cards.py",
    "_gate/rows.py",
    "_qa/sse.py",
    "_qa/sanitize.py",
    "_qa/distill.py",
    "_store/fusion.py",
    "_store/normalize.py",
    "_store/places.py",
    "_store/text_titles.py",
    "_store/cache/stored.py",
]


@functools.cache
def _parsed(text: str) -> tuple[ast.Module, tuple[ast.AST, ...]]:
    tree = ast.parse(text)
    return tree, tuple(ast.walk(tree))


def _tree(path: Path) -> ast.Module:
    """``path`` parsed, once for each distinct text: the rules, and each of their mutations
    of a copied checkout, read the same modules many times over (never change the tree)."""
    return _parsed(path.read_text(encoding="utf-8"))[0]


def _nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of ``path``'s tree, as ``ast.walk`` gives them (kept with the tree)."""
    return _parsed(path.read_text(encoding="utf-8"))[1]


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in _nodes(path):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "static" not in p.parts)


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
def _checkout_without_the_bundle(dest: Path) -> Path:
    """The checkout's tracked files copied to ``dest``, with the JS toolchain it installed
    (``js/node_modules``, linked): no built bundle, so the build hook must make it, and the
    checkout's own bundle, which the browser tests load meanwhile, is never rewritten."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():  # a file deleted and not yet committed is still listed
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    (dest / "js" / "node_modules").symlink_to(ROOT / "js" / "node_modules")
    assert not (dest / "arborist_nb" / "static").exists()
    return dest


def test_the_wheel_contains_the_widget_bundle_and_installs_without_node(tmp_path: Path) -> None:
    source = _checkout_without_the_bundle(tmp_path / "checkout")
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(source),
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
        "arborist/static/page.js",
        "arborist/static/page.css",
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
        [
            str(python),
            "-c",
            "import arborist_nb._assets; print(arborist_nb._assets.bundle_path().stat().st_size)",
        ],
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


# --- the architecture rules: each a function of a checkout's root, so that a test can build
# a checkout that breaks it (in tmp_path) and see the rule catch it ---------------------------


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _arborist_imports(path: Path) -> set[str]:
    return {
        name for name in imported_modules(path) if name.split(".")[0] in ("arborist", "arborist_nb")
    }


def _sources(root: Path) -> list[Path]:
    return [*python_files(root / "arborist"), *python_files(root / "arborist_nb")]


def jupyter_in_the_core(root: Path) -> list[str]:
    """Modules of the core that import a Jupyter package."""
    return [
        f"{path.relative_to(root)} imports {sorted(found)}"
        for path in python_files(root / "arborist")
        if (found := {name.split(".")[0] for name in imported_modules(path)} & JUPYTER_MODULES)
    ]


PURE_PACKAGES = {"ahocorasick_rs"}
"""What a pure module may import beyond the standard library: computation with no I/O (the
gate's string-search automaton)."""


def impure_imports(root: Path) -> list[str]:
    """Pure modules importing beyond the standard library, :data:`PURE_PACKAGES` and the pure
    arborist modules."""
    allowed_arborist = {"arborist._errors", "arborist._proofs.hashing", "arborist._proofs.merkle"}
    allowed_arborist |= {"arborist." + name[: -len(".py")].replace("/", ".") for name in PURE}
    wrong = []
    for name in PURE:
        path = root / "arborist" / name
        for module in sorted(imported_modules(path)) if path.is_file() else []:
            top = module.split(".")[0]
            ours = top == "arborist" and module in allowed_arborist
            if not ours and top not in sys.stdlib_module_names | {"__future__"} | PURE_PACKAGES:
                wrong.append(f"{name} imports {module}")
    return wrong


FACES = {
    "arborist._faces.cli",
    "arborist._faces.cli_commands",
    "arborist._faces.repl",
    "arborist._faces.sync",
}
"""The faces among the core's modules (arborist_nb's modules are faces too)."""
SERVICES = ("arborist/_store", "arborist/_forest", "arborist/_qa", "arborist/_bundles")
FOUNDATIONS = ("_clock.py", "_pathref.py", "_errors.py", "_private.py")
FOUNDATION_PACKAGES = (
    *("arborist/_proofs", "arborist/_database", "arborist/_text"),
    *("arborist/_gate", "arborist/_standalone"),
)
"""Below the facade: the services (packages), the foundations (top-level modules) and the
foundations' packages (the hash and journal core, the databases, the text rules, the
secret gate, whether a question stands alone)."""
ALLOWED_FACE_IMPORTS = {
    "arborist._faces.cli": {
        "arborist._faces.cli_commands"
    },  # the group loads its runner when a command runs
    "arborist._faces.cli_commands": {"arborist._faces.repl"},  # the CLI starts its REPL
    "arborist_nb._widget": {"arborist._faces.sync"},
    "arborist_nb._magics": {"arborist_nb._widget"},
    "arborist.__main__": {"arborist._faces.cli"},
}
"""The one face each face may import: no other borrowing, and no cycle (cli_commands never
imports cli back)."""


FACADE = ("_facade", "_views")
"""The facade (the facade package: the ``Arborist`` object, its home, forest and related
sources, the public API, asks and checks) and the views (the views package), by their package: nothing below them imports them, and they import no table."""


def layer_violations(root: Path) -> list[str]:
    """A face importing another face's code, or a module below the facade importing up."""
    wrong: list[str] = []
    for path in _sources(root):
        name = _module_name(path, root)
        imports = _arborist_imports(path)
        faces = {i for i in imports if i in FACES or i.startswith("arborist_nb")}
        faces -= ALLOWED_FACE_IMPORTS.get(name, set()) | {name}
        if name.startswith("arborist_nb"):
            faces -= {
                "arborist_nb",
                "arborist_nb._display",
                "arborist_nb._assets",
                "arborist_nb._cells",
            }
            faces -= {"arborist_nb._magics"} if name == "arborist_nb" else set()  # it loads them
        if faces:
            wrong.append(f"{name} imports the face(s) {sorted(faces)}")
        relative = path.relative_to(root).as_posix()
        below_facade = relative.startswith((*SERVICES, *FOUNDATION_PACKAGES)) or (
            path.parent == root / "arborist" and path.name in FOUNDATIONS
        )
        table = {
            i for i in imports if i.split(".")[1:2] and i.split(".")[1].startswith("_commands")
        }
        above = {i for i in imports if i.split(".")[1:2] and i.split(".")[1].startswith(FACADE)}
        if below_facade and (upward := imports & {"arborist"} | above):
            wrong.append(f"{name} (below the facade) imports {sorted(upward)}")
        if table and (
            below_facade or (name.split(".")[1:2] and name.split(".")[1].startswith(FACADE))
        ):
            wrong.append(f"{name} imports the command table above it: {sorted(table)}")
    return wrong


SQL_FREE = [
    *("_facade/app.py", "_facade/home.py", "_facade/forest.py", "_facade/related.py"),
    *("_facade/checks.py", "_facade/journal.py", "_config.py"),
    *("_faces/cli.py", "_faces/cli_commands.py", "_faces/repl.py", "_faces/sync.py"),
    *("_commands/table.py", "_commands/forest.py", "_commands/store.py", "_commands/answers.py"),
    *("_views/results.py", "_views/common.py", "_views/forest.py"),
]
"""The facade and every face: none of them runs SQL itself."""


def sql_in_faces(root: Path) -> list[str]:
    """Faces and the facade that call ``execute`` themselves, with the lines."""
    paths = [root / "arborist" / name for name in SQL_FREE]
    wrong = [f"{p.relative_to(root)} is listed but missing" for p in paths if not p.is_file()]
    for path in [p for p in paths if p.is_file()] + sorted((root / "arborist_nb").glob("*.py")):
        calls = [
            node.lineno
            for node in _nodes(path)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in {"execute", "executemany", "executescript"}
        ]
        if calls:
            wrong.append(f"{path.name} runs SQL itself at lines {calls}")
    return wrong


def store_imports_qa(root: Path) -> list[str]:
    """Store modules that import qa (which stands on the store)."""
    return [
        f"{_module_name(path, root)} imports {sorted(upward)}"
        for path in python_files(root / "arborist" / "_store")
        if (
            upward := {
                i for i in _arborist_imports(path) if i.split(".")[:2] == ["arborist", "_qa"]
            }
        )
    ]


MAX_FUNCTION_LINES = 60


def long_functions(root: Path) -> list[str]:
    """Functions longer than :data:`MAX_FUNCTION_LINES`, signature and docstring included."""
    return [
        f"{path.relative_to(root)}:{node.lineno} {node.name} ({size} lines)"
        for path in _sources(root)
        for node in _nodes(path)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and (size := (node.end_lineno or node.lineno) - node.lineno + 1) > MAX_FUNCTION_LINES
    ]


MAX_MODULE_LINES = 550
MAX_JS_LINES = 700
"""The most lines a product module (Python in arborist/ and arborist_nb/) and a widget source
file (js/src/) may hold: past them a module holds more than one responsibility."""


def long_modules(root: Path) -> list[str]:
    """Product modules over :data:`MAX_MODULE_LINES` lines, widget sources over
    :data:`MAX_JS_LINES`."""
    limits = [(folder, "*.py", MAX_MODULE_LINES) for folder in ("arborist", "arborist_nb")]
    limits.append(("js/src", "*.js", MAX_JS_LINES))
    return [
        f"{path.relative_to(root)} ({lines} lines)"
        for folder, pattern, limit in limits
        for path in sorted((root / folder).rglob(pattern))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > limit
    ]


def _top_level_names(path: Path) -> set[str]:
    """The names a module binds itself: its functions, classes and assignments (those under
    a top-level ``if`` or ``try`` included), not the names it imports."""
    names: set[str] = set()
    body = _tree(path).body
    for node in body:
        inner = [node]
        if isinstance(node, (ast.If, ast.Try)):
            inner = [*node.body, *node.orelse, *getattr(node, "finalbody", [])]
        for stmt in inner:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(stmt.name)
            targets = stmt.targets if isinstance(stmt, ast.Assign) else []
            targets += [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def _module_file(root: Path, module: str) -> Path | None:
    base = root.joinpath(*module.split("."))
    return next((p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()), None)


def borrowed_names(root: Path) -> list[str]:
    """Names imported from a module of ours that does not define them (a re-export): every
    name is imported from the module that defines it, or is that module. Only ``arborist``
    itself, the public API, re-exports (``from arborist import Arborist``)."""
    wrong = []
    bound: dict[Path, set[str]] = {}  # each module parsed once in this call, not per import
    for path in _sources(root):
        for node in _nodes(path):
            if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                continue
            source = _module_file(root, node.module) if "." in node.module else None
            if source is None or node.module.split(".")[0] not in ("arborist", "arborist_nb"):
                continue
            if source not in bound:
                bound[source] = _top_level_names(source)
            defined = bound[source]
            wrong += [
                f"{path.relative_to(root)} imports {alias.name} from {node.module}, "
                "which does not define it"
                for alias in node.names
                if alias.name not in defined
                and _module_file(root, f"{node.module}.{alias.name}") is None
            ]
    return wrong


def _imported_ours(root: Path, path: Path) -> set[str]:
    """The modules of ours ``path`` imports, anywhere in it (at the top, in a function, under
    ``TYPE_CHECKING``): ``from package import module`` names the module, not the package."""
    found: set[str] = set()
    for node in _nodes(path):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                module = f"{node.module}.{alias.name}"
                found.add(module if _module_file(root, module) else node.module)
    return {name for name in found if name.split(".")[0] in ("arborist", "arborist_nb")}


def import_circles(root: Path) -> list[str]:
    """Modules that import each other, directly or round a longer circle, counting every
    import: type-only ones (under ``TYPE_CHECKING``) and deferred ones (in a function) too,
    since each says the two modules need each other. Tarjan's strongly connected components."""
    graph = {_module_name(path, root): _imported_ours(root, path) for path in _sources(root)}
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for other in sorted(graph[module] & graph.keys() - {module}):
            if other not in order:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], order[other])
        if low[module] == order[module]:
            circle = stack[stack.index(module) :]
            del stack[stack.index(module) :]
            if len(circle) > 1:
                circles.append(sorted(circle))

    for module in sorted(graph):
        if module not in order:
            visit(module)
    return [" ⇄ ".join(circle) for circle in sorted(circles)]


def eager_packages(root: Path) -> list[str]:
    """Package ``__init__`` modules that import a module of ours when the package loads (a
    package holds its modules; it does not load them all for one of them). ``arborist``
    itself, the public API, loads its names lazily and is held by its own tests."""
    wrong = []
    for path in _sources(root):
        if path.name != "__init__.py" or path.parent == root / "arborist":
            continue
        for node in _tree(path).body:
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            names += [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            wrong += [
                f"{path.relative_to(root)} imports {name}"
                for name in names
                if name.split(".")[0] in ("arborist", "arborist_nb")
            ]
    return wrong


RULES = {
    "the core never imports jupyter": jupyter_in_the_core,
    "pure modules import only the standard library and pure modules": impure_imports,
    "layers import downward only; no face borrows another's code": layer_violations,
    "no face writes SQL": sql_in_faces,
    "the store never imports qa": store_imports_qa,
    "every function fits on a screen": long_functions,
    "no product module over 550 lines, no widget source over 700": long_modules,
    "every name is imported from the module that defines it": borrowed_names,
    "no package loads its modules when it loads": eager_packages,
    "no two modules import each other, type-only and deferred imports included": import_circles,
}
"""Every architecture rule docs/design.md states, by what it says."""


@pytest.mark.parametrize("rule", RULES)
def test_the_checkout_keeps_every_architecture_rule(rule: str) -> None:
    """Faces (the CLI with its REPL, the widget protocol, the notebook) sit on the command
    table, the facade and the views; services never reach up to them; no face borrows
    another's code (the CLI starts its REPL; the notebook shows the widget, which speaks
    the protocol); the store stands below qa; faces name reads instead of writing SQL."""
    wrong = RULES[rule](ROOT)
    assert not wrong, "\n".join(wrong)


_LONG_FUNCTION = "def long():\n" + "    x = 1\n" * 60
BREAKS = {
    "the core never imports jupyter": {"arborist/_views/results.py": "import IPython\n"},
    "pure modules import only the standard library and pure modules": {
        "arborist/_proofs/hashing.py": "import httpx\n",
        "arborist/_text/terminal.py": "from arborist._facade.app import Arborist\n",
    },
    "layers import downward only; no face borrows another's code": {
        "arborist/_faces/repl.py": "from arborist._faces.cli import main\n",
        "arborist/_faces/cli_commands.py": "from arborist._faces.cli import fail\n",
        "arborist/_faces/sync.py": "import arborist._faces.repl\n",
        "arborist_nb/_magics.py": "from arborist._faces.cli_commands import run\n",
        "arborist/_store/search.py": "from arborist._facade.app import Arborist\n",
        "arborist/_proofs/audit.py": "from arborist import views\n",
        "arborist/_forest/shard.py": "from arborist._commands.desk import Desk\n",
        "arborist/_views/forest.py": "from arborist._commands.desk import Desk\n",
    },
    "no face writes SQL": {
        "arborist/_commands/forest.py": "def f(conn):\n    conn.execute('DELETE FROM nodes')\n",
        "arborist_nb/_widget.py": "def f(conn):\n    conn.executescript('')\n",
        "arborist/_views/results.py": "def f(conn):\n    conn.execute('SELECT 1')\n",
    },
    "the store never imports qa": {
        "arborist/_store/cache/records.py": "from arborist._qa import check\n"
    },
    "every function fits on a screen": {"arborist/_commands/desk.py": _LONG_FUNCTION},
    "no product module over 550 lines, no widget source over 700": {
        "arborist/_store/more.py": "x = 1\n" * 551,
        "js/src/more.js": "x;\n" * 701,
    },
    "every name is imported from the module that defines it": {
        "arborist/_views/more.py": "from arborist._views.results import Node\n",
        "arborist/_store/more.py": "from arborist._store.cache.states import write_event_body\n",
    },
    "no two modules import each other, type-only and deferred imports included": {
        "arborist/_proofs/merkle.py": "from arborist._proofs.keys import merkle_root\n",
        "arborist/_forest/nodes.py": "def f():\n    from arborist._forest import shard\n",
        "arborist/_store/fusion.py": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from arborist._store.search import Evidence\n"
        ),
    },
    "no package loads its modules when it loads": {
        "arborist/_qa/__init__.py": "from arborist._qa.client import ChatClient\n",
        "arborist/_store/cache/__init__.py": "import arborist._store.cache.records\n",
    },
}
"""For each rule, modules that break it: each alone must make the rule complain."""


@pytest.mark.parametrize(
    ("rule", "path"), [(rule, path) for rule, broken in BREAKS.items() for path in broken]
)
def test_each_rule_catches_a_module_that_breaks_it(rule: str, path: str, tmp_path: Path) -> None:
    """A mutation of the checkout: one module rewritten to break the rule, in a copy (in
    tmp_path) of the folders the rules read. What the rule says of the copy as it is, it
    says of the checkout; once the module is written, it names that module too."""
    for folder in ("arborist", "arborist_nb"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("static"))
    before = RULES[rule](tmp_path)
    assert before == RULES[rule](ROOT)
    broken = tmp_path / path
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_text(BREAKS[rule][path], encoding="utf-8")
    found = [line for line in RULES[rule](tmp_path) if line not in before]
    named = Path(path).name if rule == "no face writes SQL" else Path(path).stem
    assert found and all(named in line for line in found), found


def test_every_rule_is_run_and_broken() -> None:
    """No rule is bound twice or left untested: the table of rules the checkout is held to
    and the table of mutations name the same rules."""
    assert set(BREAKS) == set(RULES)
    body = ast.parse(Path(__file__).read_text(encoding="utf-8")).body
    names = [node.name for node in body if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    for node in body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        targets += [node.target] if isinstance(node, ast.AnnAssign) else []
        names += [target.id for target in targets if isinstance(target, ast.Name)]
    twice = sorted({name for name in names if names.count(name) > 1})
    assert not twice, f"bound twice at module level: {twice}"


def test_loading_documents_leaves_the_pdf_parser_and_the_http_client_unimported() -> None:
    """pypdf and httpx are the heaviest imports loading has: they come in with the
    first PDF or the first fetch, not with the modules (start-up pays for neither)."""
    code = (
        "import sys, arborist._store.loaders, arborist._store.fetch; "
        "print(sorted({'pypdf', 'httpx'} & set(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def test_the_version_loads_no_service() -> None:
    """``arborist --version`` answers from click and the version alone: the facade, the
    store, the chat clients' HTTP stack and the forest load only when a subcommand runs."""
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from arborist._faces.cli import cli\n"
        "result = CliRunner().invoke(cli, ['--version'])\n"
        "assert result.output.startswith('arborist '), result.output\n"
        "heavy = ('arborist._facade.app', 'arborist._store', 'arborist._forest', 'arborist._qa', 'httpx')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]", done.stdout


def test_an_ask_without_an_embedding_model_never_imports_numpy(tmp_path: Path) -> None:
    """numpy (about 0.1 s) loads with the first vector: a lexical ask, the default, skips it."""
    code = (
        "import sys, pathlib, arborist._facade.app\n"
        "home = pathlib.Path(sys.argv[1])\n"
        "(home / 'd.md').parent.mkdir(parents=True, exist_ok=True)\n"
        "(home.parent / 'd.md').write_text('# Tides\\n\\nThe moon pulls the tides.\\n')\n"
        "with arborist._facade.app.Arborist(home) as app:\n"
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


def test_the_packages_offer_only_their_init() -> None:
    """httpx's way: what ``import arborist`` offers is its ``__init__``'s names (pinned by
    tests/test_api.py), and ``arborist_nb`` offers its extension's two hooks; every module
    and package beneath either is ``_``-prefixed, so a script that imports one knows it
    reaches past the API."""
    public = [
        f"{folder.name}/{path.name}"
        for folder in (CORE, ROOT / "arborist_nb")
        for path in sorted(folder.iterdir())
        if (path.suffix == ".py" or (path / "__init__.py").is_file())
        and not path.name.startswith("_")
    ]
    assert public == []

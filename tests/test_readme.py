"""README.md runs as written: its ```sh blocks in order, its Python API block, its TOML.

The shell lines run in a temporary folder laid out like a checkout after ``make demo``:
the Makefile, and ``.venv`` a symbolic link to the virtual environment running these
tests. Each line runs in ``bash`` (``set -eo pipefail``) with the environment the lines
before it left (an ``export`` carries on), ``HOME`` a temporary folder and no
``ARBORIST_*`` variable from outside. The only rewrites, all explicit:

* ``make demo`` is replaced by what it does to the home, minus the install and the
  notebook (too slow here; ``make demo`` itself ends with ``verify --witness`` of the
  notebook): ``arborist --home .demo-home ingest --demo`` and one ask of the Makefile's
  ``DEMO_Q``;
* any other ``make TARGET ...`` runs as ``make -s -o STAMP ... TARGET ...``, every install
  stamp and the JS bundle marked as up to date, so no test installs anything;
* a line ending in ``# needs: network`` or ``# needs: model server`` is skipped (any other
  ``# needs:`` fails the test).

Beyond exit status 0, what the text claims is checked: every ``arborist ask`` answers
(``quotes verified (STRICT)``, never "The documents do not answer"), a line whose comment
says "cache hit" is one, a comment ``# prints X: ...`` means the output holds X, and
``arborist verify`` says ``ok`` for both stores.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
VENV = Path(sys.prefix)
SKIPPED = ("# needs: network", "# needs: model server")
UP_TO_DATE = (
    ".venv/.installed",
    ".venv/.installed-lab",
    ".venv/.installed-demo",
    "arborist_nb/static/arborist.js",
    "arborist/static/page.js",
    "js/node_modules/.package-lock.json",
)
NO_ANSWER = "The documents do not answer"


@dataclass(frozen=True)
class Block:
    language: str
    section: str  # the nearest "## " heading above it
    lines: tuple[str, ...]


def blocks(text: str) -> list[Block]:
    """Every fenced block of README, in order, with its language and section."""
    found, section = [], ""
    lines = iter(text.splitlines())
    for line in lines:
        if line.startswith("## "):
            section = line[3:].strip()
        if line.startswith("```"):
            language, body = line[3:].strip(), []
            for inner in lines:
                if inner.startswith("```"):
                    break
                body.append(inner)
            found.append(Block(language, section, tuple(body)))
    return found


def shell_lines(block: Block) -> list[str]:
    """A block's commands: continuation lines joined, blank and comment-only lines dropped."""
    out: list[str] = []
    pending = ""
    for raw in block.lines:
        line = pending + raw
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        pending = ""
        if line.strip() and not line.lstrip().startswith("#"):
            out.append(line.strip())
    assert not pending, f"a block ends in a continuation: {pending!r}"
    return out


def comment(line: str) -> str:
    """A command line's trailing comment ("" if none): README sets one off by two spaces."""
    return line.split("  # ", 1)[1].join(["# ", ""]) if "  # " in line else ""


def demo_question() -> str:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    match = re.search(r"^DEMO_Q \?= (.+)$", makefile, re.MULTILINE)
    assert match, "the Makefile names no DEMO_Q"
    return match.group(1).strip()


def rewritten(line: str) -> list[str]:
    """What the test runs for one README line (see the module's docstring)."""
    words = line.split()
    if words[:2] == ["make", "demo"]:
        arborist = ".venv/bin/arborist --home .demo-home"
        return [
            "rm -rf .demo-home",
            f"{arborist} ingest --demo",
            f"{arborist} ask {shlex.quote(demo_question())}",
        ]
    if words[0] == "make":
        marks = " ".join(f"-o {stamp}" for stamp in UP_TO_DATE)
        return [f"make -s {marks} {line[len('make ') :]}"]
    return [line]


def checkout(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    work = tmp_path / "checkout"
    work.mkdir()
    for name in ("Makefile", "pyproject.toml", "hatch_build.py"):
        (work / name).write_bytes((ROOT / name).read_bytes())
    (work / ".venv").symlink_to(VENV, target_is_directory=True)
    home = tmp_path / "user"
    home.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("ARBORIST_") and k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")
    }  # a user's shell, not the sub-make `make test` runs this in
    env.update(HOME=str(home), NO_COLOR="1", TERM="dumb")
    return work, env


def run(line: str, work: Path, env: dict[str, str]) -> tuple[str, dict[str, str]]:
    """Run one line in bash with ``env``; return its output and the environment it left."""
    after = work.parent / "env.after"
    script = f"set -eo pipefail\n{line}\nenv -0 > {shlex.quote(str(after))}\n"
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{line!r} exited {done.returncode}:\n{output}"
    pairs = after.read_bytes().decode().split("\0")
    return output, dict(pair.split("=", 1) for pair in pairs if "=" in pair)


def check_claims(line: str, output: str) -> None:
    """What README says the line does, against what it printed."""
    said = comment(line)
    if "arborist ask" in line or "arborist --home .demo-home ask" in line:
        assert NO_ANSWER not in output, f"{line!r} is not answered by the corpus:\n{output}"
        assert re.search(r"^audit\s+quotes verified \(STRICT\)$", output, re.MULTILINE), output
    if "cache hit" in said:
        assert re.search(r"^cache\s+hit\b", output, re.MULTILINE), f"{line!r}: no hit\n{output}"
    if match := re.match(r"# prints (.+?):", said):
        assert match.group(1) in output.split(), f"{line!r} printed {output!r}"
    if re.search(r"arborist verify\b", line):
        assert re.search(r"^store\.db\s+ok\b", output, re.MULTILINE), output
        assert re.search(r"^sessions\.db\s+ok\b", output, re.MULTILINE), output


def readme_blocks() -> list[Block]:
    return blocks(README.read_text(encoding="utf-8"))


def test_readme_has_shell_python_api_and_toml_blocks() -> None:
    languages = [b.language for b in readme_blocks()]
    assert languages.count("sh") >= 3
    assert any(b.language == "python" and b.section == "Python API" for b in readme_blocks())
    assert languages.count("toml") >= 2


def test_every_needs_marker_is_one_the_test_knows() -> None:
    for block in readme_blocks():
        if block.language == "sh":
            for line in shell_lines(block):
                if "# needs:" in line:
                    assert line.endswith(SKIPPED), f"unknown marker: {line!r}"


def test_quick_start_asks_what_the_built_in_corpus_answers() -> None:
    """Spider-Man is no module of the standard library: the quick start must not ask it."""
    quick = next(b for b in readme_blocks() if b.section == "Quick start" and b.language == "sh")
    asks = [line for line in shell_lines(quick) if "arborist ask" in line]
    assert len(asks) >= 3
    assert not any("Spider-Man" in line for line in asks)


@pytest.mark.slow
def test_readme_commands_run_as_written_in_order(tmp_path: Path) -> None:
    work, env = checkout(tmp_path)
    ran, skipped = [], []
    for block in readme_blocks():
        if block.language != "sh":
            continue
        for line in shell_lines(block):
            if line.endswith(SKIPPED):
                skipped.append(line)
                continue
            for command in rewritten(line):
                output, env = run(command, work, env)
                check_claims(command, output)
                ran.append(command)
    assert any("make -s" in command for command in ran)  # the make targets ran too
    assert env.get("ARBORIST_HOME") == str(work / ".demo-home")
    assert [line.split()[0] for line in skipped] == [
        "ARBORIST_EMBED_BASE_URL=http://localhost:8080/v1"
    ]

    # The Python API block, with the checkout's interpreter, in the same folder and home.
    api = [b for b in readme_blocks() if b.language == "python" and b.section == "Python API"]
    for block in api:
        done = subprocess.run(
            [str(work / ".venv" / "bin" / "python"), "-"],
            input="\n".join(block.lines),
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "statistics.median(data): Return the median" in done.stdout
        assert "STRICT" in done.stdout

    # Nothing was made outside the demo's home but what the text says.
    made = sorted(p.name for p in work.iterdir())
    assert made == [".demo-home", ".venv", "Makefile", "hatch_build.py", "pyproject.toml"]


@pytest.mark.parametrize(
    "index", range(sum(b.language == "toml" for b in readme_blocks())), ids=lambda i: f"toml{i}"
)
def test_every_toml_block_parses_and_is_a_config_arborist_reads(index: int, tmp_path: Path) -> None:
    block = [b for b in readme_blocks() if b.language == "toml"][index]
    text = "\n".join(block.lines) + "\n"
    assert tomllib.loads(text)
    from arborist import Arborist

    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "config.toml").write_text(text, encoding="utf-8")
    with Arborist(home) as arb:
        assert arb.config == tomllib.loads(text)


def make_dry_run(*args: str) -> str:
    marks = [arg for stamp in UP_TO_DATE for arg in ("-o", stamp)]
    # Under `make test` this runs in a sub-make: make would then print "Entering/Leaving
    # directory" lines around the recipe, and MAKEFLAGS would carry the parent's flags.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", *marks, *args],
        cwd=ROOT, capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    return done.stdout


def test_make_lab_allows_root_only_as_root() -> None:
    command = make_dry_run("lab")
    assert "jupyter lab" in command
    assert ("--allow-root" in command) == (os.getuid() == 0)
    assert "ARBORIST_NB_HOME=" in command  # a re-run stays in the demo's home


def test_make_demo_runs_the_notebook_in_its_home_and_ends_with_the_witness() -> None:
    recipe = make_dry_run("demo").strip().splitlines()
    nbconvert = next(line for line in recipe if "nbconvert" in line)
    assert f"ARBORIST_NB_HOME={ROOT / '.demo-home'}" in nbconvert
    assert recipe[-2].endswith("verify --witness .demo-home/01-quickstart.ipynb")


@pytest.mark.slow
@pytest.mark.parametrize("named", [True, False], ids=["make-demo-home", "temporary-home"])
def test_the_quickstart_leaves_nothing_outside_its_home(tmp_path: Path, named: bool) -> None:
    """Executed as ``make demo`` does (ARBORIST_NB_HOME), the notebook writes only there and is
    a witness of that shard; without it, its temporary home is gone when it ends."""
    scratch, home = tmp_path / "tmp", tmp_path / "demo-home"
    scratch.mkdir()
    home.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARBORIST_")}
    env["TMPDIR"] = str(scratch)
    if named:
        env["ARBORIST_NB_HOME"] = str(home)
    notebook = ROOT / "notebooks" / "01-quickstart.ipynb"
    nbconvert = [str(VENV / "bin" / "jupyter"), "nbconvert", "--to", "notebook", "--execute"]
    subprocess.run(
        [*nbconvert, "--log-level=ERROR", str(notebook), "--output-dir", str(home)],
        env=env,
        cwd=tmp_path,
        check=True,
        capture_output=True,
        timeout=600,
    )
    assert sorted(p.name for p in scratch.iterdir()) == []  # no arborist-nb-* left behind
    executed = home / "01-quickstart.ipynb"
    if named:
        assert {"store.db", "sessions.db", "01-quickstart.ipynb"} <= {
            p.name for p in home.iterdir()
        }
    else:
        assert sorted(p.name for p in home.iterdir()) == ["01-quickstart.ipynb"]
    verify = subprocess.run(
        [str(VENV / "bin" / "arborist"), "--home", str(home), "verify", "--witness", str(executed)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if named:
        assert verify.returncode == 0, verify.stdout + verify.stderr
        assert "every checkpoint holds" in verify.stdout
    else:  # the shard it saw is gone: an empty home holds none of its checkpoints
        assert verify.returncode == 1
        assert ": truncated: checkpoint" in verify.stdout + verify.stderr

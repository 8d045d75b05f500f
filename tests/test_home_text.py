"""A path under the user's home typed into any text (a question, a label, a reason, an
error line) is stored as ``~/…`` by the one home rule (:func:`arborist._pathref.home_as_tilde`,
which every text the admission gate admits passes first)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arborist._gate.admission import PLACEHOLDER, admit, admit_error_line
from arborist._pathref import home_as_tilde, home_relative, user_homes
from arborist._store.demo import demo_corpus

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``$HOME`` in a temp folder, holding ``papers/notes.md``."""
    folder = tmp_path / "alice"
    (folder / "papers").mkdir(parents=True)
    (folder / "papers" / "notes.md").write_text(
        "Oak trees drop their acorns in autumn, and jays bury them.\n", encoding="utf-8"
    )
    monkeypatch.setenv("HOME", str(folder))
    return folder


def test_the_home_as_a_path_in_text_is_written_tilde_and_nothing_else_is(
    user_home: Path,
) -> None:
    h = str(user_home)
    cases = {
        f"what does {h}/papers/notes.md say?": "what does ~/papers/notes.md say?",
        f"from-{h}/papers": "from-~/papers",
        f"lbl {h}": "lbl ~",
        f'"{h}" and ({h}/x) and `{h}/y`': '"~" and (~/x) and `~/y`',
        f"it is in {h}.": "it is in ~.",
        f"PATH={h}/bin:{h}/.local/bin": "PATH=~/bin:~/.local/bin",
        f"file://{h}/papers/notes.md": "file:~/papers/notes.md",
        f"{h}2/x {h}.bak {h}-old {h}_x": f"{h}2/x {h}.bak {h}-old {h}_x",  # other names
        f"/srv{h}/x ./{h[1:]}/x": f"/srv{h}/x ./{h[1:]}/x",  # inside another path
    }
    for typed, stored in cases.items():
        assert home_as_tilde(typed) == stored, typed
        assert admit(typed).text == stored, typed
    assert home_relative(f"{h}/papers/notes.md") == "~/papers/notes.md"


def test_the_home_is_found_as_written_and_as_it_resolves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tmp_path / "disk" / "alice"
    real.mkdir(parents=True)
    link = tmp_path / "alice-link"
    link.symlink_to(real, target_is_directory=True)
    monkeypatch.setenv("HOME", f"{link}/")  # as written, with its trailing slash
    assert set(user_homes()) == {str(link), str(real)}
    typed = f"{link}/a.md and {real}/b.md"
    assert admit(typed).text == "~/a.md and ~/b.md"


@pytest.mark.parametrize("home", [None, "", "relative/alice", "/", "//", "/home/.."])
def test_no_usable_home_turns_the_rule_off(
    home: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if home is None:
        monkeypatch.delenv("HOME", raising=False)
    else:
        monkeypatch.setenv("HOME", home)
    assert user_homes() == ()
    typed = "see /root/x, relative/alice/y, / and /home/alice"
    assert admit(typed).text == typed


def test_a_redaction_is_placed_in_the_text_the_gate_read(user_home: Path) -> None:
    """Positions are in the text with the home written ``~`` (what the gate read), so the
    placeholder stands where the record says in what is stored."""
    typed = f"cat {user_home}/papers/{TOKEN}.txt and {user_home}/x"
    admitted = admit(typed)
    (r,) = admitted.redactions
    read = home_as_tilde(typed)
    assert read[r.start : r.end] == TOKEN
    placeholder = PLACEHOLDER.format(kind=r.kind)
    assert admitted.text == read[: r.start] + placeholder + read[r.end :]
    assert admitted.text == f"cat ~/papers/{placeholder}.txt and ~/x"
    assert admit(admitted.text).text == admitted.text, "admitting again changes nothing"


@pytest.mark.parametrize("home", ["/root", "/home/user"])
def test_the_demo_corpus_is_admitted_unchanged_under_a_usual_home(
    home: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", home)
    for doc in demo_corpus():
        assert admit(doc.text).text == doc.text, doc.uri
        assert admit(doc.title).text == doc.title, doc.uri


def test_an_error_line_names_a_path_under_the_home_as_tilde(user_home: Path) -> None:
    line = admit_error_line(f"{user_home}/papers/nothere.md: no such file or folder")
    assert line == "~/papers/nothere.md: no such file or folder"


def _run(home: Path, user_home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(user_home), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "arborist", "--home", str(home), *args],
        cwd=user_home, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_a_question_label_and_reason_typed_with_home_paths_store_none_of_them(
    user_home: Path, home: Path
) -> None:
    h = str(user_home)
    said: list[str] = []

    def ok(*args: str) -> str:
        run = _run(home, user_home, *args)
        assert run.returncode == 0, run.stderr
        said.append(run.stdout + run.stderr)
        return run.stdout

    ok("ingest", f"{h}/papers/notes.md")
    asked = ok(
        "ask", f"what does {h}/papers/notes.md say about acorns?", "--label", f"from-{h}/papers"
    )
    bates = next(line.split()[1] for line in asked.splitlines() if line.startswith("bates"))
    ok("label", "--ref", bates, f"lbl {h}/deep")
    ok("falsify", bates, "--state", "failed", "--reason", f"see {h}/papers/why.md")
    exported = ok("export", bates.rsplit("-", 1)[0])
    turn = [json.loads(line) for line in exported.splitlines()][-1]
    assert turn["question"] == "what does ~/papers/notes.md say about acorns?"
    assert (turn["created_label"], turn["label"]) == ("from-~/papers", "lbl ~/deep")
    missing = _run(home, user_home, "ingest", f"{h}/papers/nothere.md")
    assert missing.returncode != 0
    assert missing.stderr == "arborist: error: ~/papers/nothere.md: no such file or folder\n"
    assert not any(h in text for text in said), "nothing printed names the home"
    stored = b"".join(p.read_bytes() for p in sorted(home.iterdir()) if ".db" in p.name)
    assert h.encode() not in stored, "no byte of either store holds the home path"
    for kept in (b"~/papers/why.md", b"lbl ~/deep", b"from-~/papers"):
        assert kept in stored

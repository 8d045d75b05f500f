"""The demo corpus renders every module, privately, byte-identical in any process."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arborist._errors import BadInput, NotFound
from arborist._store import demo
from arborist._store.demo import DEMO_MODULES, demo_corpus, load_module_doc, render_module_text
from arborist._store.fetch import refetch
from arborist._store.loaders import LoadedDocument
from arborist._store.normalize import normalize_text

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def corpus() -> list[LoadedDocument]:
    return list(demo_corpus())


def digests(docs: list[LoadedDocument]) -> dict[str, list[str]]:
    return {
        d.uri: [d.title, d.content_sha256, hashlib.sha256(d.text.encode()).hexdigest()]
        for d in docs
    }


def test_every_demo_module_imports_and_loads_in_order(corpus: list[LoadedDocument]) -> None:
    assert [d.uri for d in corpus] == [f"pydoc:{m}" for m in DEMO_MODULES]
    assert len(set(DEMO_MODULES)) == len(DEMO_MODULES)
    assert 40 <= len(DEMO_MODULES) <= 80


def test_demo_documents_are_titled_normalized_plain_text_hashed_from_their_text(
    corpus: list[LoadedDocument],
) -> None:
    for doc in corpus:
        module = doc.uri.removeprefix("pydoc:")
        assert doc.title == module or doc.title.startswith(f"{module} — "), doc.title
        assert doc.media_type == "text/plain"
        heading = doc.text.split("\n", 1)[0]
        assert heading.startswith("# ") and doc.uri.removeprefix("pydoc:") in heading
        assert normalize_text(doc.text) == doc.text
        assert doc.content_sha256 == hashlib.sha256(doc.text.encode("utf-8")).hexdigest()
    titles = {d.uri: d.title for d in corpus}
    assert titles["pydoc:heapq"] == "heapq — Heap queue algorithm"
    assert titles["pydoc:json"] == "json — JSON encoder and decoder"  # not half a docstring line


def test_demo_text_holds_no_paths_addresses_or_overstrike(corpus: list[LoadedDocument]) -> None:
    private = {str(Path.home()), sys.prefix, sys.base_prefix, sys.exec_prefix, str(REPO)}
    for doc in corpus:
        for path in private:
            assert path not in doc.text, (doc.uri, path)
        assert not re.search(r" at 0x[0-9a-fA-F]", doc.text), doc.uri  # addresses became 0x…
        assert "\b" not in doc.text, doc.uri
        assert "\nFILE\n" not in doc.text, doc.uri
        assert "automatically generated from the Python" not in doc.text, doc.uri
    json_doc = next(d for d in corpus if d.uri == "pydoc:json")
    assert "## Module Reference\n    https://docs.python.org/" in json_doc.text


def test_demo_corpus_is_a_few_megabytes(corpus: list[LoadedDocument]) -> None:
    size = sum(len(d.text.encode("utf-8")) for d in corpus)
    assert 500_000 < size < 5_000_000


def test_a_second_render_in_this_process_is_byte_identical(corpus: list[LoadedDocument]) -> None:
    assert list(demo_corpus()) == corpus


def test_another_process_renders_the_same_bytes(
    corpus: list[LoadedDocument], tmp_path: Path
) -> None:
    script = (
        "import hashlib, json\n"
        "from arborist._store.demo import demo_corpus\n"
        "print(json.dumps({d.uri: [d.title, d.content_sha256,"
        " hashlib.sha256(d.text.encode()).hexdigest()] for d in demo_corpus()}))\n"
    )
    env = dict(os.environ, PYTHONHASHSEED="4242", PYTHONPATH=str(REPO), HOME=str(tmp_path))
    child = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
        check=True,
    )
    assert json.loads(child.stdout) == digests(corpus)


def test_a_shadowing_module_in_the_working_directory_or_pythonpath_is_ignored(
    corpus: list[LoadedDocument], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "heapq.py").write_text(
        '"""A FAKE heapq."""\nraise SystemExit(9)\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setenv("PYTHONSTARTUP", str(tmp_path / "heapq.py"))
    expected = next(d for d in corpus if d.uri == "pydoc:heapq")
    assert load_module_doc("heapq") == expected
    assert refetch("pydoc:heapq") == expected


def test_only_demo_modules_can_be_rendered() -> None:
    with pytest.raises(NotFound, match="not a module of the demo corpus"):
        load_module_doc("antigravity")
    with pytest.raises(BadInput, match="not a module name"):
        load_module_doc("os; rm -rf /")
    with pytest.raises(BadInput, match="not a module name"):
        refetch("pydoc:")


def test_a_module_that_does_not_import_is_skipped_by_the_corpus(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(demo, "DEMO_MODULES", ("arborist_no_such_module", "bisect"))
    assert [d.uri for d in demo_corpus()] == ["pydoc:bisect"]
    with pytest.raises(NotFound, match="does not import on this Python"):
        load_module_doc("arborist_no_such_module")


def test_the_warm_child_renders_every_module_as_a_fresh_interpreter_does(
    corpus: list[LoadedDocument],
) -> None:
    """The corpus comes from one warm child forking a child per module; one module read
    back (rehydration, ``load_module_doc``) comes from a fresh interpreter of its own: the
    same bytes for every module, or a store made by ``ingest --demo`` would not verify."""
    assert [load_module_doc(m) for m in DEMO_MODULES] == corpus


def test_without_fork_each_module_renders_in_a_fresh_interpreter(
    corpus: list[LoadedDocument], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(demo, "DEMO_MODULES", ("arborist_no_such_module", "bisect", "heapq"))
    monkeypatch.delattr(os, "fork")
    assert list(demo_corpus()) == [d for d in corpus if d.uri in ("pydoc:bisect", "pydoc:heapq")]


def test_a_module_that_takes_too_long_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """The warm child kills a module's child past ``RENDER_TIMEOUT`` (here none at all)."""
    monkeypatch.setattr(demo, "DEMO_MODULES", ("bisect",))
    monkeypatch.setattr(demo, "RENDER_TIMEOUT", 0.0)
    with pytest.raises(BadInput, match=r"^pydoc:bisect: rendering took over 0 s$"):
        list(demo_corpus())


def test_render_module_text_drops_private_sections_and_addresses() -> None:
    home = str(Path.home())
    raw = (
        "Python Library Documentation: module fake\n\nNAME\n    fake - Fake.\n\n"
        "MODULE REFERENCE\n    https://docs.python.org/3/library/fake.html\n    \n"
        "    The following documentation is automatically generated from the Python\n"
        "    source files.\n\n"
        "FUNCTIONS\n    f(x=<object object at 0x7f3a1c2b4e50>)\n"
        f"        Reads {home}/notes.txt and {sys.base_prefix}/lib.\n\n"
        f"FILE\n    {sys.base_prefix}/lib/fake.py\n\n"
    )
    # pydoc's banner and section names become headings the chunker starts chunks at.
    assert render_module_text(raw) == (
        "# module fake\n\n## Name\n    fake - Fake.\n\n"
        "## Module Reference\n    https://docs.python.org/3/library/fake.html\n\n"
        "## Functions\n    f(x=<object object at 0x…>)\n"
        "        Reads ~/notes.txt and <python>/lib."
    )

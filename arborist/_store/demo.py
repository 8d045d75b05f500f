"""The built-in demo corpus: the standard library's own pydoc text, offline.

``arborist ingest --demo`` needs no network and no user files: it renders
``pydoc`` plain text for a curated list of documentation-rich, pure-Python
standard-library modules from the running interpreter.

A ``pydoc:<module>`` document must be re-derivable byte for byte, because
rehydration renders it again and checks the chunk leaves against the stored
ones. Rendering in the calling process would not be: pydoc shows live module
state (``logging.lastResort`` names whatever ``sys.stderr`` is, and pytest
or a Jupyter kernel replaces it), memory addresses, and whatever a notebook
has monkeypatched. So every module is rendered in a fresh child interpreter
(``-S``: no site-packages to shadow or patch the stdlib; ``PYTHON*``
variables scrubbed; a fixed hash seed; UTF-8 I/O; for the whole corpus, one
warm interpreter forks each module's child after importing only the renderer, so
that Python does not start 72 times), and the text is then made
deterministic and private: memory addresses become ``0x…``, the ``FILE``
section (an absolute path under the user's home or pyenv) is dropped, and the
``MODULE REFERENCE`` section keeps its docs.python.org link but loses the
boilerplate paragraph every module repeats (it would be a search hit for
every query about "documentation"). The text then goes through the same
:func:`~arborist._store.normalize.normalize_text` as every loaded file.

The text is the interpreter's: a Python upgrade changes it, and rehydrating
an old ``pydoc:`` document then refuses, as it should for a changed source.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from arborist._errors import BadInput, NotFound
from arborist._store.loaders import MAX_TITLE_CHARS, LoadedDocument
from arborist._store.normalize import normalize_text
from arborist._text.text_words import word_list

__all__ = ["DEMO_MODULES", "SYNOPSES", "demo_corpus", "load_module_doc", "render_module_text"]

DEMO_MODULES: tuple[str, ...] = tuple(
    word_list("""abc argparse base64 bisect codecs collections collections.abc colorsys
        concurrent.futures configparser contextlib copy csv dataclasses datetime decimal difflib
        email email.message email.utils enum fnmatch fractions functools getopt glob graphlib
        hashlib heapq hmac html html.parser http http.client http.cookies ipaddress itertools
        json keyword logging numbers operator pathlib pickle pprint queue random re reprlib
        sched secrets shlex shutil sqlite3 statistics string struct tarfile textwrap threading
        timeit tokenize traceback types typing unicodedata urllib.parse uuid warnings weakref
        xml.etree.ElementTree zipfile""")
)
"""Documentation-rich standard-library modules that import on every CPython >= 3.10 on Linux.

Left out on purpose: modules whose pydoc shows machine or session state
(``os.environ``, ``sys``, ``time``'s time zone, ``locale``, ``calendar``'s
day names, ``mimetypes``' system tables, ``zoneinfo``'s search path,
``tempfile``), optional C libraries (``bz2``, ``lzma``, ``gzip``/``zlib``),
and modules deprecated or removed in later versions (``cgi``, ``imghdr``).
"""

SYNOPSES: dict[str, str] = {
    "abc": "Abstract Base Classes",
    "argparse": "Parser for command-line options, arguments and subcommands",
    "base64": "Base16, Base32, Base64, Base85 Data Encodings",
    "bisect": "Array bisection algorithm",
    "codecs": "Codec registry and base classes",
    "collections": "Container datatypes",
    "collections.abc": "Abstract Base Classes for Containers",
    "colorsys": "Conversions between color systems",
    "concurrent.futures": "Launching parallel tasks",
    "configparser": "Configuration file parser",
    "contextlib": "Utilities for with-statement contexts",
    "copy": "Shallow and deep copy operations",
    "csv": "CSV File Reading and Writing",
    "dataclasses": "Data Classes",
    "datetime": "Basic date and time types",
    "decimal": "Decimal fixed-point and floating-point arithmetic",
    "difflib": "Helpers for computing deltas",
    "email": "An email and MIME handling package",
    "email.message": "Representing an email message",
    "email.utils": "Miscellaneous utilities",
    "enum": "Support for enumerations",
    "fnmatch": "Unix filename pattern matching",
    "fractions": "Rational numbers",
    "functools": "Higher-order functions and operations on callable objects",
    "getopt": "C-style parser for command line options",
    "glob": "Unix style pathname pattern expansion",
    "graphlib": "Functionality to operate with graph-like structures",
    "hashlib": "Secure hashes and message digests",
    "heapq": "Heap queue algorithm",
    "hmac": "Keyed-Hashing for Message Authentication",
    "html": "HyperText Markup Language support",
    "html.parser": "Simple HTML and XHTML parser",
    "http": "HTTP modules",
    "http.client": "HTTP protocol client",
    "http.cookies": "HTTP state management",
    "ipaddress": "IPv4/IPv6 manipulation library",
    "itertools": "Functions creating iterators for efficient looping",
    "json": "JSON encoder and decoder",
    "keyword": "Testing for Python keywords",
    "logging": "Logging facility for Python",
    "numbers": "Numeric abstract base classes",
    "operator": "Standard operators as functions",
    "pathlib": "Object-oriented filesystem paths",
    "pickle": "Python object serialization",
    "pprint": "Data pretty printer",
    "queue": "A synchronized queue class",
    "random": "Generate pseudo-random numbers",
    "re": "Regular expression operations",
    "reprlib": "Alternate repr() implementation",
    "sched": "Event scheduler",
    "secrets": "Generate secure random numbers for managing secrets",
    "shlex": "Simple lexical analysis",
    "shutil": "High-level file operations",
    "sqlite3": "DB-API 2.0 interface for SQLite databases",
    "statistics": "Mathematical statistics functions",
    "string": "Common string operations",
    "struct": "Interpret bytes as packed binary data",
    "tarfile": "Read and write tar archive files",
    "textwrap": "Text wrapping and filling",
    "threading": "Thread-based parallelism",
    "timeit": "Measure execution time of small code snippets",
    "tokenize": "Tokenizer for Python source",
    "traceback": "Print or retrieve a stack traceback",
    "types": "Dynamic type creation and names for built-in types",
    "typing": "Support for type hints",
    "unicodedata": "Unicode Database",
    "urllib.parse": "Parse URLs into components",
    "uuid": "UUID objects according to RFC 4122",
    "warnings": "Warning control",
    "weakref": "Weak references",
    "xml.etree.ElementTree": "The ElementTree XML API",
    "zipfile": "Work with ZIP archives",
}
"""Each demo module's title as the Python Library Reference gives it (its ``:synopsis:``):
a docstring's first line is often half a sentence ("JSON (JavaScript Object Notation)
<https://json.org> is a subset of"), and a title is read in every evidence list."""

RENDER_TIMEOUT = 120.0
"""Seconds one module may take to render before the child is killed (``typing`` takes ~0.1 s)."""

_IMPORT_FAILED = 3  # the child's exit status when the module does not import

# Runs in the child. sys.path[0] is '' (the working directory) under -c: drop it first so a
# stray json.py next to the user's notebook cannot stand in for the stdlib's.
_RENDER_SCRIPT = """\
import sys
del sys.path[0]
import importlib, inspect, json, pydoc
try:
    module = importlib.import_module(sys.argv[1])
except Exception as exc:
    sys.stderr.write(f"{type(exc).__name__}: {exc}\\n")
    sys.exit(3)
synopsis, rest = pydoc.splitdoc(inspect.getdoc(module) or "")
first = synopsis or next((line for line in rest.splitlines() if line.strip()), "")
text = pydoc.render_doc(module, renderer=pydoc.plaintext)
sys.stdout.write(json.dumps({"text": text, "first_line": first}))
"""

# Runs in the warm child of demo_corpus: the imports of _RENDER_SCRIPT once (and os and
# select, which a fresh interpreter has loaded or which no demo module's text shows), then
# for each module named on stdin a forked child renders it as _RENDER_SCRIPT does and writes
# its JSON to a pipe; each module's outcome is one line of stdout: its status (0, 3 when it
# does not import, "timeout" when it takes over the seconds given as its argument) with the
# text or the error.
_CORPUS_SCRIPT = f"""\
import sys
del sys.path[0]
import importlib, inspect, json, pydoc
import os, select, time
def render(name):
    try:
        module = importlib.import_module(name)
    except Exception as exc:
        return {_IMPORT_FAILED}, {{"error": f"{{type(exc).__name__}}: {{exc}}"}}
    synopsis, rest = pydoc.splitdoc(inspect.getdoc(module) or "")
    first = synopsis or next((line for line in rest.splitlines() if line.strip()), "")
    text = pydoc.render_doc(module, renderer=pydoc.plaintext)
    return 0, {{"text": text, "first_line": first}}
for name in sys.stdin.read().split():
    sys.stdout.flush()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            status, result = render(name)
        except BaseException as exc:
            status, result = 1, {{"error": f"{{type(exc).__name__}}: {{exc}}"}}
        view = memoryview(json.dumps(result).encode("utf-8"))
        while view:
            view = view[os.write(w, view):]
        os._exit(status)
    os.close(w)
    chunks, deadline, late = [], time.monotonic() + float(sys.argv[1]), False
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([r], [], [], left)[0]:
            os.kill(pid, 9)
            late = True
            break
        chunk = os.read(r, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(r)
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    try:
        result = {{}} if late else json.loads(b"".join(chunks))
    except ValueError:
        result = {{"error": "no answer"}}
    result["status"] = "timeout" if late else code
    sys.stdout.write(json.dumps(result) + "\\n")
"""

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


def load_module_doc(module: str) -> LoadedDocument:
    """Render one demo module's pydoc text as a document with URI ``pydoc:<module>``.

    Only :data:`DEMO_MODULES` can be rendered: a ``pydoc:`` URI read back from a
    store must not become a way to import arbitrary modules (``antigravity``
    opens a browser). A module that does not import here is ``NotFound``.
    """
    if not _MODULE_NAME.fullmatch(module):
        raise BadInput(f"pydoc:{module}: not a module name")
    if module not in DEMO_MODULES:
        raise NotFound(f"pydoc:{module}: not a module of the demo corpus")
    rendered = _render(module)
    if rendered is None:
        raise NotFound(f"pydoc:{module}: the module does not import on this Python")
    return rendered


def demo_corpus() -> Iterator[LoadedDocument]:
    """Every :data:`DEMO_MODULES` document, in order; a module that does not import is skipped.

    One warm child interpreter renders them all (:data:`_CORPUS_SCRIPT`): it starts and
    imports what the renderer needs once, then forks a child for each module, which imports
    that module into the same state as :func:`load_module_doc`'s fresh interpreter and renders
    the same bytes (its addresses aside, which :func:`render_module_text` replaces). Without
    ``os.fork`` (Windows), a fresh interpreter renders each module, two or more at a time.
    """
    modules = tuple(DEMO_MODULES)
    if not hasattr(os, "fork"):
        workers = max(1, min(8, os.cpu_count() or 1))
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="arborist-pydoc")
        try:
            for doc in pool.map(_render, modules):
                if doc is not None:
                    yield doc
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        return
    child = _child(
        ["-c", _CORPUS_SCRIPT, str(RENDER_TIMEOUT)],
        "\n".join(modules),
        (RENDER_TIMEOUT + 5) * (len(modules) + 1),  # the warm child kills a slow module first
    )
    lines = child.stdout.splitlines()
    if child.returncode != 0 or len(lines) != len(modules):
        said = child.stderr.decode("utf-8", "replace").strip().splitlines()
        raise BadInput(
            f"pydoc: rendering the demo corpus failed: {said[-1] if said else child.returncode}"
        )
    for module, line in zip(modules, lines, strict=True):
        try:
            result = json.loads(line)
            status, error = result["status"], str(result.get("error", ""))
        except (ValueError, KeyError, TypeError) as exc:
            raise BadInput(f"pydoc:{module}: the renderer answered garbage: {exc}") from exc
        if status == "timeout":
            raise BadInput(f"pydoc:{module}: rendering took over {RENDER_TIMEOUT:g} s")
        if status == _IMPORT_FAILED:
            continue
        if status != 0:
            raise BadInput(f"pydoc:{module}: rendering failed: {error or status}")
        yield _document(module, result)


def _child(
    args: list[str], given: str | None, timeout: float
) -> subprocess.CompletedProcess[bytes]:
    """``python -S -B ARGS`` with ``given`` on stdin: no site-packages, no ``PYTHON*``
    variables, a fixed hash seed, UTF-8 I/O."""
    if not sys.executable:
        raise BadInput("cannot render pydoc text: this Python does not know its own executable")
    env = {key: value for key, value in os.environ.items() if not key.upper().startswith("PYTHON")}
    env.update(PYTHONHASHSEED="0", PYTHONUTF8="1", PYTHONIOENCODING="utf-8")
    what = f"pydoc:{args[-1]}" if given is None else "pydoc"
    try:
        return subprocess.run(
            [sys.executable, "-S", "-B", *args],
            input=None if given is None else given.encode("utf-8"),
            capture_output=True,
            stdin=subprocess.DEVNULL if given is None else None,
            env=env,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise BadInput(f"{what}: rendering took over {timeout:g} s") from exc
    except OSError as exc:
        raise BadInput(f"{what}: cannot start {sys.executable}: {exc.strerror}") from exc


def _render(module: str) -> LoadedDocument | None:
    """Render ``module`` in a child interpreter; None when it does not import there."""
    child = _child(["-c", _RENDER_SCRIPT, module], None, RENDER_TIMEOUT)
    if child.returncode == _IMPORT_FAILED:
        return None
    if child.returncode != 0:
        lines = child.stderr.decode("utf-8", "replace").strip().splitlines()
        raise BadInput(
            f"pydoc:{module}: rendering failed: {lines[-1] if lines else child.returncode}"
        )
    try:
        result = json.loads(child.stdout)
    except ValueError as exc:
        raise BadInput(f"pydoc:{module}: the renderer answered garbage: {exc}") from exc
    return _document(module, result)


def _document(module: str, result: object) -> LoadedDocument:
    """The document of one rendered module, from the renderer's ``{text, first_line}``."""
    try:
        raw, first_line = str(result["text"]), str(result["first_line"])  # type: ignore[index]
    except (KeyError, TypeError) as exc:
        raise BadInput(f"pydoc:{module}: the renderer answered garbage: {exc}") from exc
    text = render_module_text(raw)
    title = f"{module} — {SYNOPSES.get(module) or _first_sentence(first_line)}".rstrip(" —")
    if len(title) > MAX_TITLE_CHARS:
        title = title[: MAX_TITLE_CHARS - 1].rsplit(" ", 1)[0].rstrip() + "…"
    return LoadedDocument(
        uri=f"pydoc:{module}",
        title=title,
        text=text,
        media_type="text/plain",
        content_sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
    )


def _first_sentence(line: str) -> str:
    """A docstring's first line as a title: up to its first full stop, never a half sentence
    (a line that stops mid-sentence gives nothing, and the title is the module's name)."""
    text = " ".join(normalize_text(line).split())
    end = re.search(r"[.!?](?:\s|$)", text)
    return text[: end.start()] if end else ""


_SECTION = re.compile(r"[A-Z][A-Z ]+")


def render_module_text(raw: str) -> str:
    """Make raw ``pydoc.plaintext`` output deterministic and private (see the module docstring).

    Sections are the lines from one unindented header to the next. Paths of
    this interpreter and the home folder that still appear anywhere become
    ``<python>`` and ``~``, so a docstring that happens to mention one cannot
    leak it either.
    """
    sections: list[list[str]] = []
    for line in raw.replace("\r\n", "\n").split("\n"):
        if (line and not line[0].isspace()) or not sections:
            sections.append([line])
        else:
            sections[-1].append(line)
    kept: list[str] = []
    for section in sections:
        header = section[0].strip()
        if header == "FILE":
            continue
        if header.startswith("Python Library Documentation: "):
            # The banner names the module: make it the document's heading.
            kept.extend(
                ["# " + header.removeprefix("Python Library Documentation: "), *section[1:]]
            )
        elif header == "MODULE REFERENCE":
            link = next((line for line in section[1:] if line.strip()), None)
            kept.extend(["## " + header.title(), link, ""] if link else [])
        elif _SECTION.fullmatch(header):
            # NAME, DESCRIPTION, CLASSES, FUNCTIONS, DATA ...: headings a chunker can see.
            kept.extend(["## " + header.title(), *section[1:]])
        else:
            kept.extend(section)
    text = _ADDRESS.sub(" at 0x…", "\n".join(kept))
    for path, placeholder in _private_paths():
        text = re.sub(re.escape(path) + r"(?=[/\\\s'\")\]>,:;]|$)", placeholder, text, flags=re.M)
    return normalize_text(text)


def _private_paths() -> list[tuple[str, str]]:
    """This interpreter's install paths and the home folder, longest first (a prefix may nest)."""
    pairs = {
        p: "<python>"
        for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)
        if len(p) > 1
    }
    home = str(Path.home())
    if len(home) > 1:
        pairs.setdefault(home, "~")
    return sorted(pairs.items(), key=lambda pair: -len(pair[0]))

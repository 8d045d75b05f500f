"""The foreign corpora of bench/foreign.py, fetched from Debian documentation packages.

Each corpus is some of the files one Debian package ships (its HTML pages, or one PDF
manual), fetched the way apt fetches anything: ``apt-get download PACKAGE`` (the
candidate version of the machine's package lists), then ``dpkg-deb -x``; the files the
corpus names are copied into ``CACHE/NAME/`` beside a file ``VERSION`` naming the
package and its version. A corpus already in the cache is kept as it is (delete its
folder to fetch it again). ``make bench`` runs this before bench/foreign.py:

    python bench/foreign_corpora.py [--cache DIR] [NAME ...]

Only the standard library: it runs before anything else is installed, and it needs
apt-get and dpkg-deb (Debian and its derivatives). Nothing here runs during the tests.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    / "arborist"
    / "bench"
    / "foreign"
)
"""Where the corpora go, outside the checkout (the Makefile's ``BENCH_CACHE``): one folder per
corpus, and the semantic lanes' vectors, kept for every later clone on this machine."""

VERSION_FILE = "VERSION"


@dataclass(frozen=True)
class Corpus:
    """A corpus: the ``pattern`` files of ``folder`` inside Debian package ``package``."""

    name: str
    package: str
    folder: str
    pattern: str
    about: str


CORPORA = (
    Corpus("git", "git-doc", "usr/share/doc/git-doc", "*.html", "git's HTML manual pages"),
    Corpus("sqlite", "sqlite3-doc", "usr/share/doc/sqlite3", "*.html", "SQLite's HTML docs"),
    Corpus("bash", "bash-doc", "usr/share/doc/bash", "bashref.pdf", "the Bash reference, PDF"),
    Corpus("gnuplot", "gnuplot-doc", "usr/share/doc/gnuplot", "gnuplot.pdf", "gnuplot's PDF"),
)
"""The corpora ``make bench`` measures, in the order it reports them."""


def corpus_files(folder: Path) -> list[Path]:
    """The documents of a fetched corpus folder (everything but its ``VERSION``), sorted."""
    return sorted(p for p in folder.iterdir() if p.is_file() and p.name != VERSION_FILE)


def version_of(folder: Path) -> str:
    """What ``VERSION`` in a corpus folder says (``package version``), else ``unknown``."""
    path = folder / VERSION_FILE
    return path.read_text(encoding="utf-8").strip() if path.exists() else "unknown"


SAMPLE_PAGES = {
    "install.html": (
        "Installing tarn",
        "Tarn ships as one static binary. Copy it to a folder on your PATH and run "
        "tarn --version to check that the shell finds it.",
    ),
    "logs.html": (
        "Log rotation",
        "Tarn writes one log file a day. To keep only the last week of logs, run "
        "tarn rotate --keep 7 from a daily timer.",
    ),
    "remote.html": (
        "Remote mirrors",
        "A mirror is added with tarn mirror add NAME URL; tarn pushes to every mirror "
        "after each snapshot.",
    ),
}
SAMPLE_PDF = (
    ["Tarn snapshots", "A snapshot records every tracked file of the working folder."],
    [
        "Pruning snapshots",
        "Old snapshots are removed with tarn prune --older-than 30d,",
        "which never removes the newest snapshot.",
    ],
)
SAMPLE_QUESTIONS = {
    "corpus": "sample",
    "about": "the tiny corpus of bench/foreign.py --quick (not a measurement)",
    "answerable": [
        {
            "id": "s-logs",
            "question": "how do i keep only a week of tarn logs",
            "page": "logs.html",
            "phrase": "tarn rotate --keep 7",
            "holdout": False,
        },
        {
            "id": "s-mirror",
            "question": "add a remote mirror to tarn",
            "page": "remote.html",
            "phrase": "tarn mirror add NAME URL",
            "holdout": False,
        },
        {
            "id": "s-prune",
            "question": "delete snapshots older than a month",
            "page": "2",
            "phrase": "tarn prune --older-than 30d",
            "holdout": False,
        },
    ],
    "unanswerable": [
        {"id": "s-peru", "question": "What is the capital of Peru?", "holdout": False},
        {"id": "s-k8s", "question": "How do I configure a Kubernetes ingress?", "holdout": False},
    ],
}
"""The sample's question set (bench/foreign.py's format)."""


def write_sample(folder: Path) -> tuple[list[Path], dict[str, object]]:
    """A tiny corpus in ``folder`` (three HTML pages about a made-up tool and a two-page
    PDF, made with reportlab, a dev dependency) and its question set: what ``--quick``
    measures."""
    from reportlab.lib.pagesizes import A4  # noqa: PLC0415 - the dev extra, only here
    from reportlab.pdfgen.canvas import Canvas  # noqa: PLC0415

    files = []
    for name, (title, text) in SAMPLE_PAGES.items():
        path = folder / name
        path.write_text(
            f"<html><head><title>{title}</title></head><body><h1>{title}</h1>"
            f"<p>{text}</p></body></html>",
            encoding="utf-8",
        )
        files.append(path)
    pdf = folder / "manual.pdf"
    canvas = Canvas(str(pdf), pagesize=A4)
    for lines in SAMPLE_PDF:
        for n, line in enumerate(lines):
            canvas.drawString(72, 760 - 18 * n, line)
        canvas.showPage()
    canvas.save()
    return [*files, pdf], SAMPLE_QUESTIONS


def _run(command: Sequence[str], cwd: Path) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[-1]
        raise SystemExit(f"{' '.join(command)} failed: {last}")
    return done.stdout


def fetch(corpus: Corpus, cache: Path) -> Path:
    """``CACHE/NAME`` with the corpus's files and ``VERSION``, fetched when not there yet."""
    target = cache / corpus.name
    if (target / VERSION_FILE).exists():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"foreign-{corpus.name}-", dir=cache) as tmp:
        work = Path(tmp).resolve()  # the commands below run inside it
        _run(["apt-get", "download", "-q", corpus.package], work)
        debs = sorted(work.glob(f"{corpus.package}_*.deb"))
        if len(debs) != 1:
            raise SystemExit(f"apt-get download {corpus.package}: expected one .deb, got {debs}")
        version = _run(["dpkg-deb", "-f", str(debs[0]), "Version"], work).strip()
        _run(["dpkg-deb", "-x", str(debs[0]), "x"], work)
        files = sorted((work / "x" / corpus.folder).glob(corpus.pattern))
        if not files:
            raise SystemExit(f"{corpus.package} {version}: no {corpus.folder}/{corpus.pattern}")
        staged = work / "corpus"
        staged.mkdir()
        for path in files:
            shutil.copyfile(path, staged / path.name)
        (staged / VERSION_FILE).write_text(f"{corpus.package} {version}\n", encoding="utf-8")
        shutil.rmtree(target, ignore_errors=True)  # a folder left without VERSION: half done
        staged.rename(target)
    return target


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=CACHE, help=f"default {CACHE}")
    parser.add_argument("names", nargs="*", help="the corpora to fetch (default: all)")
    args = parser.parse_args(argv)
    if unknown := set(args.names) - {c.name for c in CORPORA}:
        parser.error(f"no such corpus: {', '.join(sorted(unknown))}")
    for corpus in CORPORA:
        if args.names and corpus.name not in args.names:
            continue
        folder = fetch(corpus, args.cache)
        print(f"{corpus.name}: {len(corpus_files(folder))} files, {version_of(folder)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

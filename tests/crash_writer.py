"""A writer for the crash and concurrency suites.

    python -m tests.crash_writer HOME CORPUS SEED JOURNAL FOCUS [SECONDS]

Runs random operations on the home until it is killed: ingest a new document
or a new version of one, ask, fork from an earlier turn (any session), label,
falsify an answer, rebuild the co-access index. Before each operation it
appends ``begin <op> <detail>`` to JOURNAL, after it ``done <op> <detail>``
(flushed, so a ``done`` line means the operation returned: its transaction
committed). FOCUS (one of :data:`OPERATIONS`) is chosen six times as often
as each other operation, so that every kind gets killed mid-way. The suite
kills it with SIGKILL at a random moment and checks what the home holds
against the journal. With SECONDS it stops by itself after that long (the
concurrency suite runs four at once); FOCUS ``mixed`` weighs all alike.

    python -m tests.crash_writer --serve

is the crash suite's warm writer: one interpreter that has imported arborist reads one
line of arguments (HOME CORPUS SEED JOURNAL FOCUS, tab-separated) at a time from stdin,
forks a writer for it (a process of its own, opening the home afresh, killed by the suite
as any other), prints ``pid N``, waits for it and prints ``exit CODE`` (``-9`` for a
SIGKILL, as ``subprocess`` reports it). Fifty kills then cost one interpreter's start-up
and imports, not fifty.
"""

from __future__ import annotations

import os
import random
import sys
import time
import traceback
from pathlib import Path
from typing import TextIO

from arborist import Arborist
from arborist._errors import ArboristError
from arborist._store.coaccess import rebuild_related

WORDS = [
    *("tide", "moon", "orbit", "magma", "crust", "lava", "storm", "surge", "delta", "river"),
    *("basin", "glacier", "fjord", "coral", "reef", "plankton", "current", "salinity"),
    *("pressure", "front", "cyclone", "monsoon", "drought", "aquifer", "estuary", "dune"),
]


def paragraph(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def document(rng: random.Random, title: str) -> str:
    sections = [f"# {title}"]
    for s in range(rng.randrange(3, 12)):
        sections.append(f"## Part {s}")
        sections += [paragraph(rng, rng.randrange(20, 120)) for _ in range(rng.randrange(1, 4))]
    return "\n\n".join(sections) + "\n"


def log(journal: TextIO, line: str) -> None:
    journal.write(line + "\n")
    journal.flush()


OPERATIONS = ("ingest", "revise", "ask", "fork", "label", "falsify", "rebuild", "find")


def run(
    home: Path, corpus: Path, seed: int, journal: TextIO, focus: str, seconds: float | None
) -> None:
    rng = random.Random(seed)
    app = Arborist(home)
    sessions = [sid for (sid,) in app.sessions_conn.execute("SELECT sid FROM sessions")]
    if not sessions:
        sessions.append(app.new_session("crash").sid)
    log(journal, "ready")
    step = 0
    stop = time.monotonic() + seconds if seconds is not None else None
    while stop is None or time.monotonic() < stop:
        step += 1
        op = rng.choices(OPERATIONS, [6 if op == focus else 1 for op in OPERATIONS])[0]
        try:
            if op in ("ingest", "revise"):
                existing = sorted(corpus.glob("*.md"))
                path = (
                    rng.choice(existing)
                    if op == "revise" and existing
                    else corpus / f"doc-{seed}-{step}.md"
                )
                path.write_text(document(rng, path.stem), encoding="utf-8")
                log(journal, f"begin {op} {path.as_uri()}")
                app.ingest([str(path)])
                log(journal, f"done {op} {path.as_uri()}")
            elif op in ("ask", "fork"):
                question = f"{rng.choice(WORDS)} {rng.choice(WORDS)} {seed}-{step}?"
                sid = rng.choice(sessions)
                if op == "fork":
                    rows = app.sessions_conn.execute(
                        "SELECT bates FROM nodes ORDER BY random() LIMIT 1"
                    ).fetchall()
                    if rows:
                        app.cd(sid, rows[0][0])
                    if rng.random() < 0.3:
                        sid = app.new_session(f"s{seed}-{step}").sid
                        sessions.append(sid)
                log(journal, f"begin {op} {question}")
                turn = app.ask_turn(question, sid=sid)
                log(journal, f"done {op} {question} {turn.node.bates}")
            elif op == "label":
                sid = rng.choice(sessions)
                log(journal, f"begin label {sid}")
                app.label(sid, f"L{seed}-{step}")
                log(journal, f"done label {sid}")
            elif op == "falsify":
                row = app.store_conn.execute(
                    "SELECT cache_key FROM cache_records WHERE state = 'ok' ORDER BY random() LIMIT 1"
                ).fetchone()
                if row:
                    log(journal, f"begin falsify {row[0]}")
                    app.falsify(row[0], "quarantined", f"crash suite {seed}-{step}")
                    log(journal, f"done falsify {row[0]}")
            elif op == "find":
                query = rng.choice(WORDS)
                log(journal, f"begin find {query}")
                app.find(query, limit=5)
                app.search(query, limit=5)
                log(journal, f"done find {query}")
            else:
                # Small batches and a window that changes between rebuilds (as after a
                # config change) make each rebuild many transactions: the kill can land
                # between any two of them.
                log(journal, "begin rebuild")
                rebuild_related(app.store_conn, window=rng.choice((3, 4)), fanout=8, batch_size=25)
                log(journal, "done rebuild")
        except ArboristError as exc:  # e.g. labelling a root, or a label in use
            log(journal, f"refused {op} {exc}")


def serve() -> None:
    """Fork one writer per line of arguments on stdin; report its pid, then its exit code."""
    for line in sys.stdin:
        home, corpus, seed, journal, focus = line.rstrip("\n").split("\t")
        pid = os.fork()
        if pid == 0:  # the writer: it runs until it is killed, and never returns here
            os.environ["ARBORIST_HOME"] = home
            code = 0
            try:
                with open(journal, "a", encoding="utf-8") as out:
                    run(Path(home), Path(corpus), int(seed), out, focus, None)
            except BaseException:
                traceback.print_exc()
                code = 1
            finally:
                sys.stderr.flush()
                os._exit(code)
        print(f"pid {pid}", flush=True)
        _pid, status = os.waitpid(pid, 0)
        print(f"exit {os.waitstatus_to_exitcode(status)}", flush=True)


if __name__ == "__main__" and sys.argv[1:] == ["--serve"]:
    serve()
elif __name__ == "__main__":
    home, corpus, seed, journal, focus = sys.argv[1:6]
    seconds = float(sys.argv[6]) if len(sys.argv) > 6 else None
    with open(journal, "a", encoding="utf-8") as out:
        run(Path(home), Path(corpus), int(seed), out, focus, seconds)

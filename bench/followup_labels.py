"""Follow-up detection against blind labels: how often ``stands_alone`` agrees with a person.

``bench/natural_questions.json`` holds, under ``followup_labels``, questions a person
labelled ``standalone`` (complete by itself, pronouns that point inside the question
or at the asker's own things included) or ``followup`` (only makes sense after an
earlier question, with or without a pronoun), without looking at arborist's code.
:func:`arborist.analysis.stands_alone` reads each; the report is the agreement and
the two kinds of disagreement, which cost differently in a notebook:

* **standalone called follow-up**: the question is filed under the cell above it
  and borrows that turn's words, so it may be answered from an unrelated module;
* **follow-up called standalone**: the question is filed under the session's root
  and loses the context it needs ("and for sets?" asked of nothing).

Items marked ``holdout`` were kept apart while the rule was written; the default
is the rest (``dev``). ``--holdout`` scores the held-out part instead (run once,
at the end, and reported whatever it shows); ``--json`` prints the figures as
JSON; ``--floor`` exits 1 when dev agreement falls under :data:`FLOOR`. ``--quick``
is accepted for the smoke run (the whole run takes milliseconds). Writes nothing.

    python bench/followup_labels.py [--holdout] [--json] [--floor] [--quick]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arborist.analysis import stands_alone  # noqa: E402

LABELS = ROOT / "bench" / "natural_questions.json"
FLOOR = 0.95
"""Dev agreement under which ``--floor`` (and tests/test_followup_labels.py) fails."""


def load_labels(holdout: bool = False) -> list[dict[str, Any]]:
    """The labelled items of one part: the held-out ones, or the rest (dev)."""
    items = json.loads(LABELS.read_text(encoding="utf-8"))["followup_labels"]
    return [item for item in items if bool(item.get("holdout")) == holdout]


def verdict(question: str) -> str:
    """``standalone`` or ``followup``, as :func:`stands_alone` reads ``question``."""
    return "standalone" if stands_alone(question) else "followup"


@dataclass
class Agreement:
    part: str
    items: int
    agreed: int
    standalone_called_followup: list[str]
    """Ids of standalone questions read as follow-ups (filed under an unrelated turn)."""
    followup_called_standalone: list[str]
    """Ids of follow-ups read as standing alone (asked without their context)."""

    @property
    def rate(self) -> float:
        return self.agreed / self.items if self.items else 0.0


def score(items: Sequence[dict[str, Any]], part: str = "dev") -> Agreement:
    """How many of ``items`` :func:`stands_alone` labels as the person did, and which not."""
    wrong_followup, wrong_standalone = [], []
    for item in items:
        said = verdict(item["question"])
        if said == item["label"]:
            continue
        (wrong_followup if item["label"] == "standalone" else wrong_standalone).append(item["id"])
    agreed = len(items) - len(wrong_followup) - len(wrong_standalone)
    return Agreement(part, len(items), agreed, wrong_followup, wrong_standalone)


def report(figures: Agreement, items: Sequence[dict[str, Any]]) -> str:
    by_id = {item["id"]: item for item in items}
    labels = [item["label"] for item in items]
    lines = [
        f"follow-up labels ({figures.part}): {labels.count('standalone')} standalone, "
        f"{labels.count('followup')} follow-up",
        f"  agreement                    {figures.agreed}/{figures.items} = {figures.rate:.3f}",
        f"  standalone called follow-up  {len(figures.standalone_called_followup)}"
        "  (filed under an unrelated turn)",
        f"  follow-up called standalone  {len(figures.followup_called_standalone)}"
        "  (asked without its context)",
    ]
    for kind, ids in (
        ("standalone called follow-up", figures.standalone_called_followup),
        ("follow-up called standalone", figures.followup_called_standalone),
    ):
        lines += [f"    {kind}: {i}: {by_id[i]['question']}" for i in ids]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--holdout", action="store_true", help="score the held-out part")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--floor", action="store_true", help=f"exit 1 under {FLOOR} (dev)")
    parser.add_argument("--quick", action="store_true", help="the smoke run (the same run)")
    args = parser.parse_args(argv)
    items = load_labels(holdout=args.holdout)
    figures = score(items, "holdout" if args.holdout else "dev")
    if args.json:
        print(json.dumps({**asdict(figures), "rate": figures.rate}, indent=2))
    else:
        print(report(figures, items))
    return 1 if args.floor and not args.holdout and figures.rate < FLOOR else 0


if __name__ == "__main__":
    sys.exit(main())

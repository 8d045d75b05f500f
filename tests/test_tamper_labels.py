"""The labels say no more than ``arborist verify``: after each random edit of store.db by the
tamper suite (tests/test_tamper.py), no turn may still claim its audit mode when verify
names the record its standing rests on or a document that record cites.

The tamper suite checks that verify sees every committed edit; this one checks that the
faces showing labels between two runs of verify (a turn's standing: the tree, find, show,
the widget) hold to what verify found in what the mode certifies: the answer's record and
the bytes it cites, in store.db. A turn's place, label and time in sessions.db are not
what its mode certifies (docs/guarantees.md, section 5c): verify reports their edits.
Problems verify names for a whole file (the audit chain, a search index, a migration)
implicate no one record and are not matched.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from arborist import Arborist
from arborist._errors import ArboristError
from arborist._forest.reads import turn_answers
from tests.test_tamper import edited_copies, pristine, tamper_seed

__all__ = ["pristine"]  # the tamper suite's home, shared


def _claims(app: Arborist) -> list[tuple[str, str, int | None, list[str]]]:
    """Every answered turn that claims a mode now: its bates, key, revision and the URIs of
    the documents its record cites."""
    out = []
    for bates, *_rest in turn_answers(app.sessions_conn):
        node = app.node(bates)
        now = app.audit_now(node)
        if now.mode == "NONE" or now.revision is None:
            continue
        uris = [
            str(uri)
            for (uri,) in app.store_conn.execute(
                "SELECT d.uri FROM cache_evidence AS e JOIN documents AS d ON d.id = e.document_id "
                "JOIN cache_records AS r ON r.id = e.record_id "
                "WHERE r.cache_key = ? AND r.revision = ?",
                (node.cache_key, now.revision),
            )
        ]
        out.append((bates, node.cache_key, now.revision, uris))
    return out


def _implicated(problem: str, key: str, revision: int | None, uris: list[str]) -> bool:
    """Whether ``problem`` is about the record or what a view shows under it: the cited
    documents' rows against their events. (A document's other chunks, or its tree, may be
    broken while the chunks an answer cites still prove to the root its event committed:
    that answer's quotes are still authentic.)"""
    return f"cache record {key[:12]}… revision {revision}" in problem or any(
        f"document {uri}:" in problem and "document_add event" in problem for uri in uris
    )


def test_no_turn_claims_a_mode_verify_finds_broken(
    pristine: Path, tmp_path: Path, long_run: bool
) -> None:
    count = 2000 if long_run else 200
    seed = tamper_seed("tamper labels", count)
    tally: Counter[str] = Counter()
    failures: list[str] = []
    for work, edit in edited_copies(pristine, tmp_path, seed, count, ("store",), tally):
        try:
            with Arborist(work) as app:
                problems = app.verify().problems
                claims = _claims(app)
        except ArboristError:
            tally["refused to open"] += 1  # no face shows a label either
            continue
        for bates, key, revision, uris in claims:
            named = [p for p in problems if _implicated(p, key, revision, uris)]
            if named:
                failures.append(f"{edit.description}: turn {bates} claims a mode; {named[0]}")
        tally["claims checked"] += len(claims)
    print("\n".join(f"  {n:5d}  {what}" for what, n in sorted(tally.items())))
    assert not failures, f"seed {seed}: {len(failures)} claims\n" + "\n".join(
        sorted(set(failures))[:40]
    )
    assert tally["claims checked"] > 0

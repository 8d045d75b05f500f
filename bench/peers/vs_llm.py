"""simonw/llm's log store against the forest: record a turn, then search every turn.

Both sides get the same conversations (same questions, same answers) in the
same order, turn by turn, interleaved so both see the same machine weather.

* **llm**: a tiny in-process ``llm.Model`` answers with the prepared text
  (untimed); the timed part is ``Response.log_to_db(db)``, which is what
  ``llm prompt`` calls after every response (``LogStore.log``: the
  content-addressed messages and parts, the turn row, its search row, the
  thread's tip). Each conversation is one ``llm`` conversation, so turn k
  carries the k-1 turns before it, as ``llm -c`` does. Its database is opened
  the way the CLI opens it (``sqlite_utils.Database``: rollback journal,
  ``synchronous=FULL``), and a second copy with our pragmas (WAL,
  ``synchronous=NORMAL``) so the code paths compare on equal durability.
* **ours**: ``insert_turn`` under the previous turn of the same session (the
  node row, its FTS row, the subtree_hash ripple to the root, the session's
  counters and one hash-chained audit event, in one transaction).

Search is ``llm logs -q QUERY -n 10`` without the printing:
``merged_log_rows(LogStore(db), count=10, query=QUERY)`` (the new tables and
the legacy ``responses`` table, best first by bm25), against
``arborist._forest.shard.find(conn, QUERY, limit=10)``.
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import llm
import sqlite_utils
from common import Row, Vocabulary, median, prose, timed
from llm.logs import LogStore, merged_log_rows

from arborist._database.migrations import open_database
from arborist._forest.schema import SESSIONS_MIGRATIONS
from arborist._forest.shard import create_session, find, insert_turn
from arborist._proofs.hashing import sha256_hex
from arborist._text.text_words import STOPWORDS

LIMIT = 10


class PreparedModel(llm.Model):  # type: ignore[misc]
    """An llm model that answers each prompt with the text prepared for it (no network)."""

    model_id = "bench-prepared"
    can_stream = False

    def __init__(self) -> None:
        self.answers: dict[str, str] = {}

    def execute(self, prompt: Any, stream: bool, response: Any, conversation: Any) -> Iterator[str]:
        yield self.answers[prompt.prompt]


@dataclass(frozen=True)
class Turn:
    conversation: int
    question: str
    answer: str


def make_turns(vocab: Vocabulary, seed: int, conversations: int, per: int) -> list[Turn]:
    rng = random.Random(f"peers-llm:{seed}")
    turns = []
    for c in range(conversations):
        for _ in range(per):
            question = prose(vocab, rng, rng.randint(8, 16)).rstrip(".") + "?"
            turns.append(Turn(c, question, prose(vocab, rng, rng.randint(40, 90))))
    return turns


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


def pick_queries(
    turns: list[Turn], per_class: int, seed: int
) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Query words chosen by how many turns hold them, two-word queries; and each class's label."""
    df = Counter(w for t in turns for w in _words(t.question + " " + t.answer))
    df = Counter({w: d for w, d in df.items() if w not in STOPWORDS and len(w) > 2})
    n = len(turns)

    def spread(pool: list[str]) -> list[str]:
        pool = sorted(pool, key=lambda w: (df[w], w))
        step = max(1, len(pool) // per_class)
        return pool[step // 2 :: step][:per_class]

    rare = spread([w for w, d in df.items() if d <= 3])
    mid = spread([w for w, d in df.items() if n // 200 <= d <= n // 20])
    common = [w for w, _d in df.most_common(per_class)]
    rng = random.Random(f"peers-llm-queries:{seed}")
    pairs = [f"{rng.choice(common)} {rng.choice(mid)}" for _ in range(per_class)]
    low, high = min(df[w] for w in common), max(df[w] for w in common)
    labels = {
        "rare": "rare words (in <= 3 turns)",
        "mid": "words in 0.5-5% of turns",
        "common": f"most frequent words (in {low / n:.0%}-{high / n:.0%} of turns)",
        "two words": "two-word queries (a frequent word and a mid one)",
    }
    return {"rare": rare, "mid": mid, "common": common, "two words": pairs}, labels


def _llm_db(path: Path, *, our_pragmas: bool) -> sqlite_utils.Database:
    db = sqlite_utils.Database(path)
    if our_pragmas:
        db.enable_wal()
        db.execute("PRAGMA synchronous = NORMAL")
    return db


def run(
    tmp: Path, vocab: Vocabulary, seed: int, conversations: int, per: int, repeat: int
) -> list[Row]:
    turns = make_turns(vocab, seed, conversations, per)
    shipped = _llm_db(tmp / "llm-shipped.db", our_pragmas=False)
    wal = _llm_db(tmp / "llm-wal.db", our_pragmas=True)
    stores = {"shipped": LogStore(shipped), "wal": LogStore(wal)}  # migrated before timing
    conn = open_database(tmp / "sessions.db", SESSIONS_MIGRATIONS)
    times = record_turns(turns, {"shipped": shipped, "wal": wal}, stores, conn)
    queries, labels = pick_queries(turns, 8, seed)
    search, mismatched = search_turns(queries, stores["wal"], conn, repeat)
    conn.close()
    shipped.close()
    wal.close()
    n = len(turns)
    rows = record_rows(times, n, conversations, per)
    rows.append(search_row(search, mismatched, queries, labels, n, repeat))
    return rows


def record_turns(
    turns: list[Turn],
    dbs: dict[str, sqlite_utils.Database],
    stores: dict[str, LogStore],
    conn: sqlite3.Connection,
) -> dict[str, list[float]]:
    """Each turn's recording time on each side (llm as shipped, llm on WAL, ours), in
    an order that alternates turn by turn."""
    model = PreparedModel()
    for turn in turns:
        model.answers[turn.question] = turn.answer
    times: dict[str, list[float]] = {"shipped": [], "wal": [], "ours": []}
    conversation: Any = None
    parent = sid = ""
    for i, turn in enumerate(turns):
        if i == 0 or turn.conversation != turns[i - 1].conversation:
            conversation = model.conversation()  # a new chat: a thread and a session, untimed
            for store in stores.values():
                store.ensure_thread(conversation.id, name=turn.question[:40])
            session = create_session(conn)
            sid, parent = session.sid, session.root_bates
        response = conversation.prompt(turn.question)
        assert response.text() == turn.answer  # the model runs untimed

        def ours(turn: Turn = turn, parent: str = parent, sid: str = sid) -> str:
            node = insert_turn(
                conn,
                sid,
                parent,
                question=turn.question,
                answer_text=turn.answer,
                cache_key=sha256_hex(turn.question.encode()),
                audit_mode="STRICT",
            )
            return node.bates

        steps = [
            ("shipped", lambda r=response: r.log_to_db(dbs["shipped"])),
            ("wal", lambda r=response: r.log_to_db(dbs["wal"])),
            ("ours", ours),
        ]
        if i % 2:
            steps.reverse()
        for name, step in steps:
            seconds, result = timed(step)
            times[name].append(seconds)
            if name == "ours":
                parent = result
    return times


def search_turns(
    queries: dict[str, list[str]], store: LogStore, conn: sqlite3.Connection, repeat: int
) -> tuple[dict[str, list[float]], list[str]]:
    """Each query on each side, interleaved, ``repeat`` rounds; and the queries whose
    hit counts differ in the first round."""
    search: dict[str, list[float]] = {"wal": [], "ours": []}
    mismatched = []
    for round_ in range(repeat):
        for words in [q for qs in queries.values() for q in qs]:
            t_llm, rows = timed(lambda w=words: merged_log_rows(store, count=LIMIT, query=w))
            t_ours, hits = timed(lambda w=words: find(conn, w, limit=LIMIT))
            search["wal"].append(t_llm)
            search["ours"].append(t_ours)
            if round_ == 0 and len(rows) != len(hits):
                mismatched.append(f"{words!r}: llm {len(rows)}, ours {len(hits)}")
    return search, mismatched


def record_rows(times: dict[str, list[float]], n: int, conversations: int, per: int) -> list[Row]:
    """The two recording rows: llm as its CLI opens its database, and llm on our pragmas."""
    record_note = (
        f"{conversations} conversations of {per} turns ({n:,} turns, questions of 8-16 words, "
        f"answers of 40-90); median of the {n:,} per-turn latencies. llm: "
        "`Response.log_to_db(db)` (its `LogStore.log`), after the model ran untimed; a turn "
        "re-sends its conversation so far, whose messages are found by hash and skipped. "
        "Ours: `insert_turn` under the previous turn (node + FTS row + subtree_hash ripple + "
        "session counters + hash-chained audit event, one transaction). Threads and sessions "
        "are created untimed."
    )
    totals = (
        f"Totals: llm as shipped {sum(times['shipped']):.2f} s, llm on WAL "
        f"{sum(times['wal']):.2f} s, ours {sum(times['ours']):.2f} s."
    )
    return [
        Row(
            "record a turn",
            "llm log_to_db (as shipped: rollback journal, synchronous=FULL)",
            "median per turn",
            median(times["shipped"]),
            median(times["ours"]),
            notes=[
                record_note,
                "llm opens logs.db with sqlite-utils' defaults (rollback journal, "
                "synchronous=FULL: an fsync per commit); ours is WAL with synchronous=NORMAL. "
                "This row is what a user of each gets out of the box. " + totals,
            ],
        ),
        Row(
            "record a turn",
            "llm log_to_db (on WAL, synchronous=NORMAL, as ours)",
            "median per turn",
            median(times["wal"]),
            median(times["ours"]),
            notes=[
                "The same llm code on a copy of its database switched to our pragmas, so the "
                "row compares code paths at equal durability."
            ],
        ),
    ]


def search_row(
    search: dict[str, list[float]],
    mismatched: list[str],
    queries: dict[str, list[str]],
    labels: dict[str, str],
    n: int,
    repeat: int,
) -> Row:
    """The search row, saying whether both sides found as many hits for every query."""
    all_queries = sum(len(q) for q in queries.values())
    classes = ", ".join(f"{len(queries[k])} {labels[k]}" for k in queries)
    return Row(
        "search turns, top 10",
        "llm logs -q (merged_log_rows)",
        "median per query",
        median(search["wal"]),
        median(search["ours"]),
        notes=[
            f"{all_queries} queries over the {n:,} turns above ({classes}), "
            f"{repeat} interleaved rounds. llm: `merged_log_rows(LogStore(db), count=10, "
            "query=Q)`, the function behind `llm logs -q Q -n 10` (FTS5 over "
            "`turn_search_fts`, bm25 with the prompt weighted 10x, plus its legacy "
            "`responses_fts`, each row rebuilt with its prompt, response and metadata), "
            "without the printing. Ours: `shard.find(conn, Q, limit=10)` (FTS5 over "
            "question and answer, bm25, a snippet per hit, rows as `Node`s). Both use the "
            "unicode61 tokenizer and require every word, so hit counts "
            + (
                "matched on every query."
                if not mismatched
                else f"differed on {len(mismatched)}: {'; '.join(mismatched[:3])}."
            )
        ],
    )

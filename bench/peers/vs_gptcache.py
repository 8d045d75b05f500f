"""GPTCache's exact-match cache against our cache-hit path, on the same questions and answers.

Ours: a store of synthetic documents (bench/store.py's corpus) through
``ingest_document``; each question asked once with the offline extractive
client (a miss that writes the record), then asked again: a hit. A hit is
``arborist._qa.runner.ask(conn, client, question)``: admission, FTS5
retrieval of the evidence, the evidence's Merkle root into the eight-part
cache key, the ``ok`` record looked up, its hit count bumped in a
transaction, the record loaded with its evidence and stored proofs.

GPTCache: ``gptcache.adapter.api.put(question, answer)`` once per question,
then ``get(question)`` timed, each ``Cache`` object configured two ways:

* **map**: ``cache.init(pre_embedding_func=get_prompt)`` with
  ``manager_factory("map")``: the documented exact-match setup (identity
  "embedding", ``ExactMatchEvaluation``); a dict in memory, pickled to disk
  only on flush.
* **sqlite,faiss**: ``manager_factory("sqlite,faiss")``, its persistent
  store (SQLite through SQLAlchemy for the answers, a faiss index for the
  keys), with ``ExactMatchEvaluation``. GPTCache keys that store by an
  embedding vector; no model is downloaded here, so the "embedding" is the
  question's SHA-256 as 32 floats (an exact-match key: equal questions,
  equal vectors). faiss is held to one thread (its default spins up
  OpenMP threads per search, several times slower on this 2-core machine).
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Any

import faiss
import numpy as np
from common import Row, Vocabulary, median, timed
from gptcache import Cache
from gptcache.adapter.api import get, put
from gptcache.manager import manager_factory
from gptcache.processor.pre import get_prompt
from gptcache.similarity_evaluation import ExactMatchEvaluation
from sqlalchemy import event

from arborist._facade.app import Arborist
from arborist._qa.extractive import ExtractiveClient
from arborist._qa.runner import ask as runner_ask
from arborist._store.documents import ingest_document
from bench.store import make_document, make_questions

HASH_DIMENSION = 32


def hash_embedding(data: str, **_: Any) -> Any:
    """An exact-match key for GPTCache's vector store: the question's SHA-256 as 32 floats."""
    digest = hashlib.sha256(data.encode("utf-8")).digest()
    return np.frombuffer(digest, dtype=np.uint8).astype("float32")


class _Closed:
    """Stands in for a closed data manager: GPTCache's atexit hook calls ``close()`` again."""

    def close(self) -> None:
        pass


def _map_cache(folder: Path, size: int) -> Cache:
    cache = Cache()
    cache.init(
        pre_embedding_func=get_prompt,
        data_manager=manager_factory("map", data_dir=str(folder), max_size=size),
    )
    return cache


def _sqlite_cache(folder: Path, size: int, *, our_pragmas: bool = False) -> Cache:
    cache = Cache()
    cache.init(
        pre_embedding_func=get_prompt,
        embedding_func=hash_embedding,
        data_manager=manager_factory(
            "sqlite,faiss",
            data_dir=str(folder),
            max_size=size,
            vector_params={"dimension": HASH_DIMENSION},
        ),
        similarity_evaluation=ExactMatchEvaluation(),
    )
    if our_pragmas:
        engine = cache.data_manager.s._engine  # GPTCache builds it inside SQLStorage

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.execute("PRAGMA journal_mode = WAL")
            dbapi_conn.execute("PRAGMA synchronous = NORMAL")

        engine.dispose()  # pooled connections reopen with the pragmas
        with engine.connect() as connection:
            mode = connection.exec_driver_sql("PRAGMA journal_mode").scalar()
            assert mode == "wal", mode
    return cache


def run(
    tmp: Path, vocab: Vocabulary, seed: int, n_docs: int, n_questions: int, rounds: int
) -> list[Row]:
    logging.getLogger("gptcache").setLevel(logging.WARNING)
    faiss.omp_set_num_threads(1)
    arb = Arborist(tmp / "home")
    conn = arb.store_conn
    chunks = sum(
        ingest_document(conn, make_document(vocab, seed, i, (1_000, 7_000))).document.chunk_count
        for i in range(n_docs)
    )
    client = ExtractiveClient()
    questions = make_questions(vocab, seed, n_questions)
    answers = {}
    for question in questions:
        result = runner_ask(conn, client, question)
        assert not result.hit, question
        answers[question] = result.answer

    caches = {
        "map": _map_cache(tmp / "gptcache-map", 4 * n_questions),
        "sqlite": _sqlite_cache(tmp / "gptcache-sqlite", 4 * n_questions),
        "wal": _sqlite_cache(tmp / "gptcache-wal", 4 * n_questions, our_pragmas=True),
    }
    for question in questions:
        for cache in caches.values():
            put(question, answers[question], cache_obj=cache)
    # One untimed hit each, so every side starts warm.
    for question in questions:
        assert runner_ask(conn, client, question).hit
        for cache in caches.values():
            assert get(question, cache_obj=cache) == answers[question]

    times: dict[str, list[float]] = {name: [] for name in ("ours", *caches)}
    for round_ in range(rounds):
        for i, question in enumerate(questions):
            steps: list[tuple[str, Any]] = [
                ("ours", lambda q=question: runner_ask(conn, client, q)),
                *(
                    (name, lambda q=question, c=c: get(q, cache_obj=c))
                    for name, c in caches.items()
                ),
            ]
            if (round_ + i) % 2:
                steps.reverse()
            for name, step in steps:
                seconds, result = timed(step)
                times[name].append(seconds)
                if name == "ours":
                    assert result.hit and result.answer == answers[question], question
                else:
                    assert result == answers[question], (name, question)
    for cache in caches.values():
        cache.data_manager.close()
        cache.data_manager = _Closed()  # its atexit hook would write into a removed folder
    arb.close()

    setup = (
        f"{len(questions)} questions over {n_docs} documents ({chunks:,} chunks); each asked "
        f"once (a miss, extractive client) and its answer put into GPTCache; then {rounds} "
        f"interleaved rounds of hits, {len(questions) * rounds} hits per side, median latency."
    )
    return [
        Row(
            "cache hit, exact question",
            "GPTCache get, map data manager (in memory)",
            "median per hit",
            median(times["map"]),
            median(times["ours"]),
            notes=[
                setup,
                "GPTCache: `get(q, cache_obj=c)` after `c.init(pre_embedding_func=get_prompt)` "
                "with `manager_factory('map')`, its documented exact-match setup: a dict lookup "
                "in memory (persisted only by pickling on flush) and an exact string compare. "
                "Ours: `runner.ask(conn, client, q)` on `store.db` (SQLite): it must retrieve "
                "the evidence first (FTS5), because the key includes the evidence's Merkle "
                "root, so a hit is also a check that the sources have not changed; then the "
                "lookup, a hit-count update in a transaction, and the record loaded with "
                "its evidence and stored proofs (loaded, not re-verified, on a hit). The two do different jobs: this row prices ours "
                "against the floor of an in-memory exact match.",
            ],
        ),
        Row(
            "cache hit, exact question",
            "GPTCache get, sqlite,faiss data manager (on disk)",
            "median per hit",
            median(times["sqlite"]),
            median(times["ours"]),
            notes=[
                "GPTCache's persistent store: `manager_factory('sqlite,faiss')` "
                "(SQLAlchemy on SQLite with its default rollback journal; faiss flat index) "
                "with `ExactMatchEvaluation`; the 'embedding' is the question's SHA-256 as "
                f"{HASH_DIMENSION} floats (no model download), faiss on one thread. A GPTCache "
                "hit searches faiss, reads the row, and commits twice (access time, hit "
                "report); ours commits once. Neither key nor answer is verified by GPTCache. "
                "As shipped: SQLAlchemy's SQLite defaults (rollback journal, synchronous=FULL)."
            ],
        ),
        Row(
            "cache hit, exact question",
            "GPTCache get, sqlite,faiss (on WAL, synchronous=NORMAL, as ours)",
            "median per hit",
            median(times["wal"]),
            median(times["ours"]),
            notes=[
                "The same, with a connect hook on GPTCache's SQLAlchemy engine (its private "
                "`SQLStorage._engine`) setting our pragmas, so both sides commit at equal "
                "durability."
            ],
        ),
    ]

"""The fusion of the vector lane with the lexical one (arborist/_store/fusion.py): the pure
orders, then a real corpus on a real loopback embeddings server (hashed character n-grams,
tests/chat_server.py) where short chunks are nearest the question and used to take every
place, and the rule's name in the policy and the keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from arborist._facade.app import Arborist
from arborist._qa import policy
from arborist._qa.nearness import vector_query
from arborist._qa.policy import retrieval_policy
from arborist._store import fusion
from arborist._store.fusion import (
    LEXICAL_HEAD,
    PASSAGE_FUSION,
    WORDED_MIN_WORDS,
    WORDED_RRF_K,
    WORDED_SHARE,
    fusion_name,
    in_documents_words,
    passage_order,
    rrf_order,
    words_held,
)
from arborist._store.passages import PASSAGES
from arborist._store.search import retrieve
from arborist._store.vectors import nearest
from tests.chat_server import ChatServer
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401 - the fixture

# --------------------------------------------------------------------------- pure orders


def test_words_held_is_the_share_of_the_question_words_the_text_holds_stemmed() -> None:
    assert words_held(["default", "name", "coprocess"], "The default names of a coprocess") == 1.0
    assert words_held(["default", "name", "coprocess"], "A coprocess.") == pytest.approx(1 / 3)
    assert words_held([], "anything") == 0.0


def test_a_question_is_in_the_documents_words_with_enough_words_held() -> None:
    best = "If NAME is not supplied, the default name of the coprocess is COPROC."
    assert in_documents_words(["default", "name", "coprocess"], best)
    assert in_documents_words(["default", "name", "coprocess", "give", "shell"], best)  # 3 of 5
    assert not in_documents_words(["default", "name", "coprocess", "give", "one", "back"], best)
    assert not in_documents_words(["coprocess", "name"], best)  # two words say little


def test_a_named_question_keeps_the_lexical_head_then_the_vector_lane() -> None:
    order = passage_order([1, 2, 3, 4], [9, 8, 1, 7], named=True, worded=True, limit=6)
    assert order == [1, 2, 3, 9, 8, 7]
    assert order[:LEXICAL_HEAD] == [1, 2, 3]
    assert passage_order([1, 2, 3, 4], [9, 8, 1, 7], named=False, worded=False, limit=6) == [
        9,
        8,
        1,
        7,
        2,
        3,
    ]


def test_a_question_in_other_words_is_led_by_the_vector_lane() -> None:
    assert passage_order([1, 2, 3], [9, 8, 7, 6], named=False, worded=False, limit=5) == [
        9,
        8,
        7,
        6,
        1,
    ]


def test_a_question_in_the_documents_words_takes_each_lanes_first_before_their_middles() -> None:
    """Reciprocal rank fusion with a small constant: a chunk both lanes hold near their tops
    leads; the first of either lane (1/4) outranks a chunk both hold at rank 8 (2/11), which
    outranks the lexical lane's third (1/6); one both hold at rank 12 (2/15) does not."""
    lexical = list(range(1, 13))
    vector = [20, 2, 21, 22, 23, 24, 25, 8, 26, 27, 28, 12]
    assert passage_order(lexical, vector, named=False, worded=True, limit=6) == [2, 1, 20, 8, 3, 21]
    scores = dict(rrf_order(lexical, vector, k=WORDED_RRF_K))
    assert scores[1] == scores[20] == pytest.approx(1 / (WORDED_RRF_K + 1))
    assert scores[8] == pytest.approx(2 / (WORDED_RRF_K + 8))
    assert scores[8] > scores[3] > scores[12]
    assert scores[12] < scores[3]


def test_rrf_keeps_its_head_in_lexical_order_and_counts_every_chunk_once() -> None:
    fused = rrf_order([5, 6, 7, 8], [8, 9, 5], head=2)
    ids = [chunk_id for chunk_id, _ in fused]
    assert ids[:2] == [5, 6] and sorted(ids) == [5, 6, 7, 8, 9]
    assert ids.index(8) < ids.index(7)  # both lanes hold 8
    assert [c for c, _ in rrf_order([], [3, 2], head=3)] == [3, 2]  # no lexical head to keep


# --------------------------------------------------------------------------- a real corpus

QUESTION = "What is the default name of a coprocess?"
FILLER = (
    "The shell keeps a table of the jobs it started, and each job is reported by its number "
    "when it stops or finishes. Redirections apply to the whole command list in order. "
)
ANSWER = (
    "# Coprocesses\n\n" + FILLER * 4 + "A coprocess runs asynchronously in a subshell, joined "
    "to the shell by a two-way pipe. If NAME is not supplied, the default name is COPROC.\n"
)
SHORT = ["reading", "writing", "closing", "waiting", "killing", "naming"]


@pytest.fixture
def short_chunks(tmp_path: Path) -> Path:
    """A manual's long section that answers, and six one-line sections whose words are the
    question's (``coprocess``, ``name``) and little else: nearer the question than the long
    section, whose vector its other sentences dilute."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "coproc.md").write_text(ANSWER, encoding="utf-8")
    for i, word in enumerate(SHORT):
        (docs / f"short{i}.md").write_text(
            f"# Coprocess name {word}\n\nThe coprocess name when {word}.\n", encoding="utf-8"
        )
    return docs


@pytest.fixture
def embedded(chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch, home: Path) -> ChatServer:
    monkeypatch.setenv("ARBORIST_EMBED_BASE_URL", chat_server.url)
    monkeypatch.setenv("ARBORIST_EMBED_MODEL", "ngram")
    return chat_server


def test_short_chunks_nearest_the_question_no_longer_push_out_what_its_words_find(
    embedded: ChatServer, short_chunks: Path, home: Path
) -> None:
    with Arborist(home) as app:
        app.ingest([short_chunks])
        conn, embedder = app.store_conn, app.embedder()
        assert embedder is not None and embedder.profile()["passages"] == PASSAGES
        vectors = vector_query(embedder, QUESTION)
        assert vectors is not None
        answer = conn.execute("SELECT id FROM chunks WHERE text LIKE '%COPROC.%'").fetchone()[0]
        lexical = retrieve(conn, QUESTION)
        near = [chunk_id for chunk_id, _ in nearest(conn, vectors.profile, vectors.vector, 40)]
        # The premise: the words find the answer first; by meaning, the six short chunks lead
        # (passage fusion v1 let them take all five places).
        assert lexical[0].chunk_id == answer and lexical[0].score <= 1.0  # names no definition
        assert answer not in near[:5] and answer in near
        assert in_documents_words(["default", "name", "coprocess"], lexical[0].text)
        fused = retrieve(conn, QUESTION, vectors=vectors)
    ids = [e.chunk_id for e in fused]
    assert answer in ids[:3] and len(ids) == 5
    assert next(e.lane for e in fused if e.chunk_id == answer) == "both"


def test_a_question_in_other_words_still_follows_the_vector_lane(
    embedded: ChatServer, short_chunks: Path, home: Path
) -> None:
    question = "coprocesses"  # one word the answer's section holds, as its title
    other = "killing coprocess naming"
    with Arborist(home) as app:
        app.ingest([short_chunks])
        conn, embedder = app.store_conn, app.embedder()
        assert embedder is not None
        for asked in (question, other):
            vectors = vector_query(embedder, asked)
            assert vectors is not None
            near = [c for c, _ in nearest(conn, vectors.profile, vectors.vector, 40)]
            lexical = retrieve(conn, asked)
            fused = [e.chunk_id for e in retrieve(conn, asked, vectors=vectors)]
            if not in_documents_words(asked.split(), f"{lexical[0].text}\n{lexical[0].title}"):
                assert fused == near[:5]
            else:
                assert fused[0] in {near[0], lexical[0].chunk_id}


# --------------------------------------------------------------------------- keys


def test_a_passage_lane_names_its_fusion_in_the_policy_and_the_memo_key(
    embedded: ChatServer, short_chunks: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Arborist(home) as app:
        app.ingest([short_chunks])
        profile = app.embedder_profile()
        assert profile is not None
        rule = retrieval_policy(embedding=profile)["hybrid"]
        assert isinstance(rule, dict)
        assert rule["passage_fusion"] == {
            "name": PASSAGE_FUSION,
            "lexical_head": LEXICAL_HEAD,
            "worded_min_words": WORDED_MIN_WORDS,
            "worded_share": str(WORDED_SHARE),
            "worded_rrf_k": WORDED_RRF_K,
        }
        whole = {k: v for k, v in profile.items() if k != "passages"}
        assert "passage_fusion" not in retrieval_policy(embedding=whole)["hybrid"]  # type: ignore[operator]
        assert fusion_name(passages=True) == PASSAGE_FUSION
        assert fusion_name(passages=False) == fusion.HYBRID
        first = app.ask(QUESTION)
        assert app.ask(QUESTION).hit
        # Another passage fusion is another policy and another retrieval: a miss.
        monkeypatch.setattr(fusion, "PASSAGE_FUSION", "another-fusion")
        monkeypatch.setattr(policy, "PASSAGE_FUSION", "another-fusion")
        again = app.ask(QUESTION)
    assert not again.hit and again.cache_key != first.cache_key
    assert again.record.policy["hybrid"]["passage_fusion"]["name"] == "another-fusion"


# --------------------------------------------------------------------------- a named definition

NAMED_QUESTION = "What does json.loads do?"
EXAMPLES = (
    "    Decoding JSON::\n\n"
    "        >>> import json\n"
    '        >>> json.loads(\'["foo", {"bar": ["baz", null, 1.0, 2]}]\')\n'
    "        ['foo', {'bar': ['baz', None, 1.0, 2]}]\n"
    '        >>> json.loads(\'"\\\\"foo\\\\bar"\')\n'
    "        '\"foo\\x08ar'\n"
    '        >>> json.loads(\'{"__complex__": true, "real": 1, "imag": 2}\',\n'
    "        ...     object_hook=as_complex)\n"
    "        (1+2j)\n"
    "        >>> json.loads('1.1', parse_float=Decimal) == Decimal('1.1')\n"
    "        True\n"
    "        >>> json.loads('[1, 2]', parse_int=float)\n"
    "        [1.0, 2.0]\n"
)
DEFINES = (
    "    loads(s, *, cls=None, object_hook=None, parse_float=None, **kw)\n"
    "        Deserialize ``s`` (a ``str``, ``bytes`` or ``bytearray`` instance\n"
    "        containing a JSON document) to a Python object.\n\n"
    "        ``object_hook`` is an optional function that will be called with the\n"
    "        result of any object literal decode (a ``dict``). Its return value\n"
    "        is used instead of the ``dict``.\n\n"
    "        ``object_pairs_hook`` is an optional function that will be called with the\n"
    "        result of any object literal decoded with an ordered list of pairs. The\n"
    "        return value of ``object_pairs_hook`` will be used instead of the ``dict``.\n"
    "        If ``object_hook`` is also defined, the ``object_pairs_hook`` takes priority.\n\n"
    "        ``parse_float``, if specified, will be called with the string of every\n"
    "        float to be decoded. By default this is equivalent to ``float(num_str)``.\n"
)


@pytest.fixture
def json_manual(tmp_path: Path) -> Path:
    """A json module's page: a chunk of examples that says ``json.loads`` four times (the
    words' best) and one that defines ``loads(s, ...)`` (second by its words alone, first
    with the definition bonus); and fifty short notes worded like the question, which a
    character n-gram lane finds nearer than either."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "json.md").write_text(
        f"# json — JSON encoder and decoder\n\n## Examples\n\n{EXAMPLES}\n## Functions\n\n{DEFINES}",
        encoding="utf-8",
    )
    for i in range(50):
        (docs / f"note{i}.md").write_text(
            f"# Note {i}\n\nWhat does a jsonl loader do? What does the jsonl loader {i} do?\n",
            encoding="utf-8",
        )
    return docs


def test_a_definition_second_by_its_words_under_examples_keeps_the_lexical_head(
    embedded: ChatServer, json_manual: Path, home: Path
) -> None:
    """The question names ``json.loads``; the chunk that defines it is the lexical lane's
    second (under examples that only use it) and the vector lane's nowhere. It is named all
    the same, so the lexical head leads the five (passage fusion v2 read "named" from the
    best lexical score alone, took it for a question in other words, and let the vector lane
    fill all five)."""
    with Arborist(home) as app:
        app.ingest([json_manual])
        conn, embedder = app.store_conn, app.embedder()
        assert embedder is not None
        vectors = vector_query(embedder, NAMED_QUESTION)
        assert vectors is not None
        defining = conn.execute("SELECT id FROM chunks WHERE text LIKE '%Deserialize%'").fetchone()
        examples = conn.execute(
            "SELECT id FROM chunks WHERE text LIKE '%Decoding JSON%'"
        ).fetchone()
        assert defining is not None and examples is not None and defining != examples
        ranked = retrieve(conn, NAMED_QUESTION, limit=40)
        near = [chunk_id for chunk_id, _ in nearest(conn, vectors.profile, vectors.vector, 40)]
        fused = [e.chunk_id for e in retrieve(conn, NAMED_QUESTION, vectors=vectors)]
    # The premise: the examples lead the words with no bonus (relative BM25 1.0), the
    # definition second by BM25 plus its bonus; the vector lane holds it nowhere in its 40.
    assert [e.chunk_id for e in ranked[:2]] == [examples[0], defining[0]]
    assert ranked[0].score == 1.0 and ranked[1].score < 1.0
    assert defining[0] not in near and len(near) == 40
    assert len(fused) == 5 and fused[:LEXICAL_HEAD] == [e.chunk_id for e in ranked[:LEXICAL_HEAD]]

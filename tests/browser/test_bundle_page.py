"""The page ``arborist export --html`` writes, opened from ``file://`` in headless chromium
with no server: intact, every turn and the whole are verified; with one byte changed in
each kind of field, the page names what fails; hostile text shows as text; and no request
leaves the page (every request is routed, and any but the page's own file fails the test).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Playwright, Route, expect

from arborist._bundles.page import PAGE_ASSETS, bundle_page, embed_bundle
from arborist._proofs.hashing import canonical_json
from arborist._text.terminal import inert
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, JS_SOURCES
from tests.browser.test_xss import (
    AUDIT_SCRIPT,
    CORPUS,
    SINK_SCRIPT,
    build_home,
    payload_of,
    policy,
    shown,
    sink_hits,
)
from tests.test_bundle import QUOKKA, SPIDER, run

pytestmark = pytest.mark.browser

CHECKED_MS = 30_000
PAGE_TAGS = (
    *("section", "h2", "ul", "li", "div", "span", "code", "details", "summary", "ol"),
    *("blockquote", "p", "strong", "em", "a", "pre"),  # an answer's Markdown (markdown.js)
    *("h1", "main", "noscript", "script"),  # the page's frame (arborist/_bundles/page.py)
)
PAGE_ATTRS = ("class", "role", "href", "target", "rel", "start", "id", "type")


@dataclass
class Opened:
    """A page opened from file://, and what it asked for beyond its own file."""

    page: Page
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@pytest.fixture
def open_page(playwright_driver: Playwright) -> Iterator[Callable[[Path], Opened]]:
    built = PAGE_ASSETS / "page.js"
    sources = [p for p in JS_SOURCES.glob("*") if p.suffix in {".js", ".css"}]
    if not built.is_file() or any(p.stat().st_mtime > built.stat().st_mtime for p in sources):
        pytest.fail(f"{built} is missing or older than js/src: run `make js`")
    browser = playwright_driver.chromium.launch(
        executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
    )
    try:

        def opening(path: Path) -> Opened:
            context = browser.new_context(service_workers="block")
            page = context.new_page()
            opened = Opened(page)
            own = path.as_uri()

            def route(route: Route) -> None:
                if route.request.url != own:
                    opened.requests.append(route.request.url)
                    route.abort("blockedbyclient")
                else:
                    route.continue_()

            context.route("**/*", route)
            context.on("request", lambda r: r.url == own or opened.requests.append(r.url))
            page.on("pageerror", lambda error: opened.errors.append(str(error)))
            page.on("dialog", lambda d: (opened.errors.append(f"dialog {d.message}"), d.dismiss()))
            context.add_init_script(SINK_SCRIPT)
            context.add_init_script(AUDIT_SCRIPT)
            page.goto(own)
            expect(page.locator("body"), "the page checks its bundle").to_have_attribute(
                "data-checked", "true", timeout=CHECKED_MS
            )
            return opened

        yield opening
    finally:
        browser.close()


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A home with a session of four turns (an ask, a follow-up, a label, a falsified answer
    asked again), and its page and bundle written by the real CLI."""
    root = tmp_path_factory.mktemp("page")
    docs, home = root / "docs", root / "home"
    docs.mkdir()
    (docs / "spider.md").write_text(SPIDER, encoding="utf-8")
    (docs / "quokka.md").write_text(QUOKKA, encoding="utf-8")
    assert run(home, "ingest", str(docs))[0] == 0
    code, out = run(home, "ask", "--json", "Who created Spider-Man?")
    assert code == 0, out
    first = json.loads(out)
    sid = first["bates"].rsplit("-", 1)[0]
    assert run(home, "ask", "--sid", sid, "What are the powers of Spider-Man?")[0] == 0
    assert run(home, "label", "--sid", sid, "--ref", "1", "creators")[0] == 0
    assert run(home, "falsify", "--state", "failed", "--reason", "x", first["cache_key"])[0] == 0
    assert run(home, "ask", "--sid", sid, "Who created Spider-Man?")[0] == 0
    page, bundle = root / "journal.html", root / "journal.bundle"
    code, out = run(home, "export", "--html", str(page), "--bundle", str(bundle), sid)
    assert code == 0 and "wrote the page of 1 session(s)" in out, out
    return {"page": page, "html": page.read_text(encoding="utf-8"), "data": bundle.read_bytes()}


def verdicts(opened: Opened) -> dict[str, str]:
    rows = opened.page.locator("[role=treeitem]")
    return {
        str(row.get_attribute("data-bates")): str(row.get_attribute("data-verdict"))
        for row in rows.all()
    }


def test_the_page_holds_the_bundles_own_bytes_and_verifies_every_turn_from_file(
    journal: dict[str, Any], open_page: Callable[[Path], Opened]
) -> None:
    assert embed_bundle(journal["data"]) in journal["html"]
    opened = open_page(journal["page"])
    summary = opened.page.locator("#bp-summary")
    expect(summary).to_have_attribute("data-verdict", "verified")
    expect(summary).to_contain_text("Verified in this browser")
    found = verdicts(opened)
    assert len(found) == len(json.loads(journal["data"])["turns"]) == 4
    assert set(found.values()) == {"verified"}, found
    assert opened.page.evaluate("() => isSecureContext"), "file:// has WebCrypto in chromium"
    answer = opened.page.locator("[role=treeitem][data-bates$='-000001'] > .bp-answer")
    expect(answer).to_contain_text("Stan Lee")
    # chunks are numbered from 0, as the CLI, the JSON, the widget and the proof number them
    expect(opened.page.locator(".bp-source").first).to_contain_text(", chunk 0 of 3 (cited)")
    assert opened.requests == [] and opened.errors == []


def _flip(text: str, at: int = 0) -> str:
    """One character of ``text`` changed for another ASCII one (one byte of the page)."""
    new = "0" if text[at] != "0" else "1"
    return text[:at] + new + text[at + 1 :]


def _answered(bundle: dict[str, Any]) -> dict[str, Any]:
    return next(t for t in bundle["turns"] if t["bates"].endswith("-000002"))


def _cited_chunk(bundle: dict[str, Any]) -> dict[str, Any]:
    key = _answered(bundle)["cache_key"]
    record = next(r for r in bundle["records"] if r["cache_key"] == key)
    item = next(e for e in record["evidence"] if e["cited"])
    return next(
        c
        for c in bundle["chunks"]
        if (c["source_root"], c["chunk_index"]) == (item["source_root"], item["chunk_index"])
    )


def _change_answer(b: dict[str, Any]) -> str:
    _answered(b)["answer_text"] = _flip(_answered(b)["answer_text"], 3)
    return "turn "


def _change_question(b: dict[str, Any]) -> str:
    _answered(b)["question"] = _flip(_answered(b)["question"], 2)
    return "turn "


def _change_evidence(b: dict[str, Any]) -> str:
    key = _answered(b)["cache_key"]
    record = next(r for r in b["records"] if r["cache_key"] == key)
    record["evidence"][0]["source_root"] = _flip(record["evidence"][0]["source_root"])
    return "record "


def _change_chunk_text(b: dict[str, Any]) -> str:
    chunk = _cited_chunk(b)
    chunk["text"] = _flip(chunk["text"], 2)
    return "chunk "


def _change_proof(b: dict[str, Any]) -> str:
    chunk = _cited_chunk(b)
    document = next(d for d in b["documents"] if d["source_root"] == chunk["source_root"])
    document["nodes"][chunk["proof"][0]] = _flip(document["nodes"][chunk["proof"][0]])
    return "chunk "


def _change_event_body(b: dict[str, Any]) -> str:
    event = next(e for e in b["chains"]["sessions"]["events"] if e["event_type"] == "label")
    event["body"]["label"] = _flip(event["body"]["label"])
    return f"turn {event['bates']}: its label event (sessions.db seq {event['seq']}) differs"


def _change_event_time(b: dict[str, Any]) -> str:
    seq = _answered(b)["event_seq"]
    event = next(e for e in b["chains"]["sessions"]["events"] if e["seq"] == seq)
    event["created_at"] = _flip(event["created_at"], 2)
    return f"turn {_answered(b)['bates']}: its node_insert event (sessions.db seq {seq}) differs"


def _change_head(b: dict[str, Any]) -> str:
    b["chains"]["sessions"]["head"]["event_hash"] = _flip(
        b["chains"]["sessions"]["head"]["event_hash"]
    )
    return "sessions.db chain: its events do not hash to its head"


def _label_event(b: dict[str, Any]) -> dict[str, Any]:
    return next(e for e in b["chains"]["sessions"]["events"] if e["event_type"] == "label")


CHANGES: dict[str, Callable[[dict[str, Any]], str]] = {
    "a turn's answer": _change_answer,
    "a turn's question": _change_question,
    "a record's evidence": _change_evidence,
    "a chunk's text": _change_chunk_text,
    "a proof element": _change_proof,
    "a chain event's body": _change_event_body,
    "a chain event's time": _change_event_time,
    "a chain's head": _change_head,
}
EVERY_TURN = {"a chain's head"}
"""The changes that fail every turn: a head whose chain's events all meet their tags names no
event. Any other change fails the turns standing on the changed item, where a chain first
differs from its tags the item whose event that is, and the turns standing on an event after
it (docs/bundle.md, "What a changed byte is named as"); the root turn, whose event is the
chain's first, stays verified."""


@pytest.mark.parametrize("what", CHANGES)
def test_one_byte_changed_in_each_kind_of_field_names_what_fails(
    what: str, journal: dict[str, Any], open_page: Callable[[Path], Opened], tmp_path: Path
) -> None:
    bundle = json.loads(journal["data"])
    named = CHANGES[what](bundle)
    changed = journal["html"].replace(
        embed_bundle(journal["data"]), embed_bundle(canonical_json(bundle))
    )
    before, after = journal["html"].encode(), changed.encode()
    assert (
        len(before) == len(after) and sum(x != y for x, y in zip(before, after, strict=True)) == 1
    )
    path = tmp_path / "changed.html"
    path.write_text(changed, encoding="utf-8")
    opened = open_page(path)
    expect(opened.page.locator("#bp-summary")).to_have_attribute("data-verdict", "fails")
    whole = opened.page.locator("#bp-whole li").all_text_contents()
    assert any(line.startswith(named) for line in whole), whole
    found = verdicts(opened)
    touched = _label_event(bundle)["bates"] if what == "a chain event's body" else None
    touched = touched or _answered(bundle)["bates"]
    assert found[touched] == "fails", found
    problems = opened.page.locator(f"[data-bates='{touched}'] > .bp-problems li")
    expect(problems.first).to_be_visible()
    root = next(t["bates"] for t in bundle["turns"] if t["parent_bates"] is None)
    assert found[root] == ("fails" if what in EVERY_TURN else "verified"), found
    assert opened.requests == [] and opened.errors == []


def test_a_turns_time_changed_names_that_turn_and_leaves_the_turns_before_it_verified(
    journal: dict[str, Any], open_page: Callable[[Path], Opened], tmp_path: Path
) -> None:
    """Only the chain covers a turn's time (its node hash, so its event's body, is rebuilt
    from it): the page names the turn whose event is where the chain first differs, the
    turns whose events all come before it stay verified, and a turn standing on an event
    after it fails as one that cannot be checked (docs/bundle.md)."""
    for n in (2, 3):
        bundle = json.loads(journal["data"])
        turn = next(t for t in bundle["turns"] if t["bates"].endswith(f"-{n:06d}"))
        at = len(turn["created_at"]) - 2  # a microsecond digit: still a time
        turn["created_at"] = _flip(turn["created_at"], at)
        path = tmp_path / f"time{n}.html"
        path.write_text(
            journal["html"].replace(
                embed_bundle(journal["data"]), embed_bundle(canonical_json(bundle))
            ),
            encoding="utf-8",
        )
        opened = open_page(path)
        expect(opened.page.locator("#bp-summary")).to_have_attribute("data-verdict", "fails")
        whole = opened.page.locator("#bp-whole li").all_text_contents()
        assert whole == [
            f"turn {turn['bates']}: its node_insert event (sessions.db seq {turn['event_seq']}) "
            "differs from what the bundle committed (its hash is not its tag): the chain first "
            "differs there, and its events after it cannot be checked"
        ], whole
        found = verdicts(opened)
        assert found[turn["bates"]] == "fails", found
        for t in bundle["turns"]:
            events = [t["event_seq"]] + [
                e["seq"] for e in bundle["chains"]["sessions"]["events"]
                if e["event_type"] == "label" and e["bates"] == t["bates"]
            ]  # fmt: skip
            if max(events) < turn["event_seq"]:
                assert found[t["bates"]] == "verified", (n, found)
            elif t is not turn:
                assert found[t["bates"]] == "fails", (n, found)
                said = opened.page.locator(f"[data-bates='{t['bates']}'] > .bp-problems li")
                expect(said.first).to_contain_text("cannot be checked beyond seq")
        assert opened.requests == [] and opened.errors == []
    assert found[turn["bates"]] == "fails" and list(found.values()).count("verified") == 3


def test_a_page_cut_short_or_respaced_fails_as_a_whole(
    journal: dict[str, Any], open_page: Callable[[Path], Opened], tmp_path: Path
) -> None:
    embedded = embed_bundle(journal["data"])
    for name, text in {
        "cut": embedded[:-2],
        "spaced": embedded.replace('{"chains":', '{ "chains":', 1),
    }.items():
        path = tmp_path / f"{name}.html"
        path.write_text(journal["html"].replace(embedded, text), encoding="utf-8")
        opened = open_page(path)
        expect(opened.page.locator("#bp-summary")).to_have_attribute("data-verdict", "fails")
        whole = opened.page.locator("#bp-whole li").all_text_contents()
        assert any(re.search(r"not (canonical )?JSON", line) for line in whole), whole
        assert opened.requests == [] and opened.errors == []


def test_the_xss_corpus_in_questions_answers_labels_and_titles_shows_as_text(
    tmp_path: Path, open_page: Callable[[Path], Opened]
) -> None:
    hostile = build_home(tmp_path / "home", tmp_path / "docs")
    try:
        data = hostile.app.export_bundle([hostile.sid])
    finally:
        hostile.app.close()
    path = tmp_path / "hostile.html"
    path.write_text(bundle_page(data, CORPUS[1]), encoding="utf-8")
    opened = open_page(path)
    expect(opened.page.locator("#bp-summary")).to_have_attribute("data-verdict", "verified")
    bundle = json.loads(data)
    needles = [t["question"] for t in bundle["turns"] if t["parent_bates"]]
    needles += [t["label"] for t in bundle["turns"] if t["label"]]
    needles += [d["title"] for d in bundle["documents"]]
    needles += [s["label"] for s in bundle["sessions"] if s["label"]]
    needles += [
        part
        for answer in hostile.answers.values()
        for part in shown(payload_of(answer))
        if "\x00" not in part
    ]
    needles = [inert(t) for t in needles]  # shown as a notebook output shows them
    result = opened.page.evaluate(
        """({ rules, needles }) => ({
            problems: window.__audit(document.body, rules),
            missing: window.__missing(document.getElementById("bp-forest"), needles),
            rows: document.querySelectorAll("[role=treeitem]").length,
        })""",
        {"rules": policy(PAGE_TAGS, PAGE_ATTRS), "needles": needles},
    )
    assert result["rows"] == len(bundle["turns"]) == len(CORPUS) + 1
    assert not result["problems"], "\n".join(result["problems"][:20])
    assert not result["missing"], [m[:80] for m in result["missing"][:20]]
    assert sink_hits(opened.page) == [] and opened.errors == []
    assert opened.requests == [], opened.requests
    scripts = opened.page.locator("script")
    expect(scripts, "only the page's own two scripts").to_have_count(2)


def test_the_guard_records_a_request_that_leaves_a_page(
    open_page: Callable[[Path], Opened], tmp_path: Path
) -> None:
    """What lets the tests above say no request left: a page that does reach out is caught."""
    path = tmp_path / "leaky.html"
    path.write_text(
        '<body data-checked="true"><img src="http://203.0.113.7/x.png"></body>', encoding="utf-8"
    )
    opened = open_page(path)
    opened.page.wait_for_load_state("load")
    assert set(opened.requests) == {"http://203.0.113.7/x.png"}


def test_a_mode_the_words_beside_the_bundle_claim_beyond_it_is_not_shown(
    open_page: Callable[[Path], Opened], tmp_path: Path
) -> None:
    """The badge keys travel beside the bundle, outside what the page checks: a key naming a
    stronger mode than the turn's own (a VISUAL turn's "STRICT") is shown as the bundle's
    mode, beside "verified"; a weaker one (a STRICT answer that quotes nothing) as said."""
    home, docs = tmp_path / "home", tmp_path / "docs"
    docs.mkdir()
    (docs / "spider.md").write_text(SPIDER, encoding="utf-8")
    assert run(home, "ingest", str(docs))[0] == 0
    _code, out = run(home, "ask", "--json", "Who created Spider-Man?")
    sid = json.loads(out)["bates"].rsplit("-", 1)[0]
    assert run(home, "ask", "--sid", sid, "What is the tallest mountain on Mars?")[0] == 0
    data = tmp_path / "b.bundle"
    assert run(home, "export", "--bundle", str(data), sid)[0] == 0
    bundle = json.loads(data.read_bytes())
    turns = [t for t in bundle["turns"] if t["parent_bates"]]
    visual = next(t for t in turns if t["audit_mode"] == "VISUAL")
    strict = next(t for t in turns if t["audit_mode"] == "STRICT")
    keys = {visual["bates"]: "STRICT", strict["bates"]: "STRICT-unquoted"}
    path = tmp_path / "forged.html"
    path.write_text(bundle_page(data.read_bytes(), "forged", keys), encoding="utf-8")
    opened = open_page(path)
    expect(opened.page.locator("#bp-summary")).to_have_attribute("data-verdict", "verified")

    def mode(bates: str) -> str:
        row = opened.page.locator(f"[role=treeitem][data-bates='{bates}']")
        return str(row.locator(".bp-field", has_text="mode").first.inner_text())

    assert "VISUAL" in mode(visual["bates"]) and "STRICT" not in mode(visual["bates"])
    assert "wording not quoted" in mode(strict["bates"])

"""The page ``export --html`` writes (arborist/_bundles/page.py): the bundle's own bytes with
``<`` escaped, the page's script and style inline under a Content-Security-Policy that
names their hashes and nothing else, from the CLI and from a notebook's or REPL's desk;
refused in one line with nothing written. tests/browser/test_bundle_page.py opens it."""

from __future__ import annotations

import hashlib
import json
import re
from base64 import b64encode
from pathlib import Path
from typing import Any

import pytest

from arborist._bundles.page import PAGE_ASSETS, bundle_page, embed_bundle
from arborist._commands.desk import Desk
from arborist._facade.app import Arborist
from tests.test_bundle import SPIDER, run

EMBEDDED = re.compile(r'<script type="application/json" id="arborist-bundle">(.*?)</script>', re.S)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A home with a session of two asks, and its bundle, by the CLI."""
    root = tmp_path_factory.mktemp("page")
    home = root / "home"
    (root / "spider.md").write_text(SPIDER, encoding="utf-8")
    assert run(home, "ingest", str(root / "spider.md"))[0] == 0
    code, out = run(home, "ask", "--json", "Who created Spider-Man?")
    assert code == 0, out
    sid = json.loads(out)["bates"].rsplit("-", 1)[0]
    assert run(home, "ask", "--sid", sid, "What are the powers of Spider-Man?")[0] == 0
    assert run(home, "export", "--bundle", str(root / "b.bundle"), sid)[0] == 0
    return {"home": home, "sid": sid, "data": (root / "b.bundle").read_bytes()}


def _hash(text: str) -> str:
    return "'sha256-" + b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_export_html_embeds_the_bundles_bytes_and_only_its_own_script(
    made: dict[str, Any], tmp_path: Path
) -> None:
    page, bundle = tmp_path / "j.html", tmp_path / "j.bundle"
    code, out = run(
        made["home"], "export", "--html", str(page), "--bundle", str(bundle), made["sid"]
    )
    assert code == 0, out
    assert bundle.read_bytes() == made["data"]
    text = page.read_text(encoding="utf-8")
    (embedded,) = EMBEDDED.findall(text)
    assert embedded == embed_bundle(made["data"]) and "<" not in embedded
    assert json.loads(embedded) == json.loads(made["data"])
    script = (PAGE_ASSETS / "page.js").read_text(encoding="utf-8")
    style = (PAGE_ASSETS / "page.css").read_text(encoding="utf-8")
    assert f"<script>{script}</script>" in text and f"<style>{style}</style>" in text
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', text)
    assert policy is not None
    assert policy.group(1).startswith("default-src 'none'; ")
    assert f"script-src {_hash(script)};" in policy.group(1)
    assert f"style-src {_hash(style)};" in policy.group(1)
    assert "connect-src 'none'" in policy.group(1)
    assert not re.search(r"\b(https?:)?//", text.replace(script, "")), "the page names no URL"
    assert page.stat().st_mode & 0o077 == 0, "as private as the home"


def test_text_that_would_close_the_element_stays_inside_it() -> None:
    data = b'{"a":"</script><script>alert(1)</script>","format":"arborist-bundle/1"}'
    page = bundle_page(data, "</title><script>x</script>")
    (embedded,) = EMBEDDED.findall(page)
    assert json.loads(embedded)["a"] == "</script><script>alert(1)</script>"
    assert page.count("<script") == 2 and "<title>&lt;/title&gt;" in page


def test_the_command_table_writes_the_page_from_a_desk(
    made: dict[str, Any], tmp_path: Path
) -> None:
    target = tmp_path / "desk.html"
    with Arborist(made["home"]) as app:
        outcome = Desk(app, sid=made["sid"]).run(["export", "--html", str(target)])
    assert "wrote the page of 1 session(s)" in outcome.text
    assert embed_bundle(made["data"]) in target.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "args",
    [
        ["--html", "{missing}/j.html"],
        ["--html", "{tmp}/j.html", "--out", "{tmp}/x"],
        ["--html", "{tmp}/j.html", "20990101T000000Z-abcdef"],
    ],
)
def test_export_html_refuses_in_one_line_and_writes_nothing(
    made: dict[str, Any], tmp_path: Path, args: list[str]
) -> None:
    given = [a.format(tmp=tmp_path, missing=tmp_path / "no" / "such") for a in args]
    code, out = run(made["home"], "export", *given)
    assert code != 0 and out.count("\n") == 1 and "Traceback" not in out, out
    assert list(tmp_path.iterdir()) == []

"""The page ``arborist export --html`` writes (docs/bundle.md, "The page"): one HTML file
holding a bundle and the script that shows and re-checks it, with nothing to fetch.

The bundle's bytes go in a ``<script type="application/json">`` element with every ``<``
written ``\\u003c`` (the same JSON value, and no text of it can end the element); the
page's script and style (``js/src/page.js``, built by ``make js`` into
``arborist/static``, shipped in the wheel) go inline. The words the page says a turn's
audit in are the kernel's, decided at export (:func:`page_words`, in the forest element's
``data-words``): the script holds none. A strict Content-Security-Policy lets the page
load nothing and connect nowhere.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from base64 import b64encode
from collections.abc import Mapping
from pathlib import Path

from arborist._errors import IntegrityError
from arborist._facts import vocabulary

__all__ = ["PAGE_ASSETS", "bundle_page", "embed_bundle", "page_words"]

PAGE_ASSETS = Path(__file__).resolve().parent.parent / "static"
"""Where ``make js`` (or the wheel's build hook) puts ``page.js`` and ``page.css``."""

_CLOSES = re.compile(r"</(script|style)", re.IGNORECASE)


def embed_bundle(data: bytes) -> str:
    """The bundle ``data`` as the page holds it: its text with each ``<`` as ``\\u003c``
    (``<`` is only ever inside a JSON string, where the escape means the same)."""
    return data.decode("utf-8").replace("<", "\\u003c")


def page_words(audit: Mapping[str, str] | None = None) -> str:
    """What the page says beside the bundle, as JSON: the kernel's vocabulary
    (:func:`arborist._facts.vocabulary`) and ``audit``, each turn's badge key by bates
    (:func:`arborist._qa.support.audit_key`, decided at export: the page's script holds no
    word and chooses none; a turn without one shows its mode). The page holds it in its
    forest element's ``data-words`` attribute, escaped: no third script element."""
    said = {"vocabulary": vocabulary(), "audit": dict(audit or {})}
    return json.dumps(said, ensure_ascii=False, sort_keys=True)


def _asset(name: str) -> str:
    path = PAGE_ASSETS / name
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        raise IntegrityError(
            f"{path} is missing: run `make js` (needs node) or reinstall arborist"
        ) from None
    if _CLOSES.search(text):  # it would end its element early
        raise IntegrityError(f"{path} holds a closing tag: it cannot be inlined")
    return text


def _csp_hash(text: str) -> str:
    return "'sha256-" + b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


def bundle_page(data: bytes, title: str, audit: Mapping[str, str] | None = None) -> str:
    """One self-contained HTML page holding the bundle ``data`` (canonical JSON bytes, as
    ``export --bundle`` writes them) and the page's script and style, titled ``title``;
    ``audit``: each turn's badge key by bates, said in words the page holds beside the
    bundle (:func:`page_words`)."""
    script, style = _asset("page.js"), _asset("page.css")
    policy = (
        f"default-src 'none'; script-src {_csp_hash(script)}; style-src {_csp_hash(style)}; "
        "img-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'"
    )
    shown = html.escape(title)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{shown}</title>\n<style>{style}</style>\n</head>\n<body>\n"
        f"<h1>{shown}</h1>\n"
        '<p id="bp-summary" role="status" data-verdict="pending">Checking every hash, proof '
        "and chain link in this browser…</p>\n"
        '<ul id="bp-whole" aria-label="what fails in the bundle"></ul>\n'
        f'<main id="bp-forest" data-words="{html.escape(page_words(audit))}"></main>\n'
        "<noscript>This page checks its bundle with JavaScript; without it, run "
        "<code>arborist verify --bundle</code> on the bundle.</noscript>\n"
        f'<script type="application/json" id="arborist-bundle">{embed_bundle(data)}</script>\n'
        f"<script>{script}</script>\n</body>\n</html>\n"
    )

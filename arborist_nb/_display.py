"""What a ``%%ask`` cell shows and returns: an :class:`Answer`.

Three renderings, made together by one ``_repr_mimebundle_`` from one check of the
answer, so a display re-reads the store once (an answer shown again after its store was
edited shows the failure) and rendering reads nothing: ``text/plain`` (stable, what nbval
compares, and what a terminal's ``repr`` and nbconvert show), ``text/markdown`` and
``text/html``. Each is the answer, then one status line in plain words (new
or from the cache, what the quotes prove, how much of the question they cover,
the turn), then the rest: the turn's facts, its record and evidence, folded in
markdown and HTML. Answer and document text is untrusted: the HTML escapes
every byte of it (``html.escape``), and citations become links to
collapsible, escaped copies of the cited chunks. Every rendering carries both
stores' chain heads at the ask (its witness line), so a saved notebook is a witness
(``arborist verify --witness``).
"""

from __future__ import annotations

import html
import secrets
import string
from collections.abc import Iterator
from typing import Any

from IPython.display import display

from arborist._facade.app import Arborist, Turn
from arborist._facade.journal import Journal
from arborist._facade.journal import Turn as PublicTurn
from arborist._facts import HIT, Source, TurnFacts, fact_rows
from arborist._proofs.keys import DIMENSION_WORDS
from arborist._proofs.quotes import claims_for, quoted_ranges
from arborist._proofs.witness import Heads
from arborist._qa.check import AnswerCheck, ProofStatus
from arborist._qa.standing import Standing, state_words
from arborist._qa.support import audit_words, row_words
from arborist._store.cache.records import OK, RecordEvidence
from arborist._store.places import LINKED_SCHEMES, shown_text, uri_scheme
from arborist._text.terminal import inert
from arborist._views.common import facts_lines
from arborist_nb import _markdown as markdown

__all__ = [
    "Answer",
    "Landing",
    "NO_MATH",
    "answer_markup",
    "md_escape",
    "no_math",
    "progress",
]

_MARKDOWN_PUNCTUATION = str.maketrans(
    {c: "\\" + c for c in string.punctuation if c not in "<>&;\"'"}
)


class Answer(PublicTurn):
    """The answer of one turn. ``_`` holds it after a ``%%ask`` cell: an ``arborist.Turn``
    (:class:`arborist.Turn`: ``.text``, ``.mode``, ``.support``, ``.state``,
    ``.sources``, ``.verify()``, ``.ask()``, ``.fork()``, ``.falsify()``, the same as the
    Python API's), with the notebook's rich display added.

    ``evidence`` is the retrieved chunks (with ``cited`` flags and proofs), ``proofs`` the
    per-item proof data, ``verify()`` re-reads the answer from the store and re-checks it
    here and now. A display checks it once (``verify()``) and renders every mimetype from
    its facts (:meth:`facts`) and that check.
    """

    def __init__(
        self,
        turn: Turn,
        *,
        app: Arborist,
        checkpoint: Heads,
        own: bool = False,
    ) -> None:
        super().__init__(Journal(app), turn.node, None if turn.reused else turn.result)
        self.app = app
        self.turn = turn
        self.record = turn.result.record
        self.node = turn.node
        self.checkpoint = checkpoint
        self.own = own
        """Whether a reused turn is the one this cell showed last (the front end names its
        cells): "this cell's earlier answer"; another's is "asked here before"."""
        self._id = f"arb-{secrets.token_hex(6)}"  # unique across kernels and reopened notebooks

    @property
    def text(self) -> str:
        return self.record.answer_text

    @property
    def bates(self) -> str:
        return self.node.bates

    @property
    def cache_key(self) -> str:
        return self.record.cache_key

    @property
    def hit(self) -> bool:
        return self.turn.result.hit

    @property
    def audit_mode(self) -> str:
        return self.record.audit_mode

    @property
    def evidence(self) -> tuple[RecordEvidence, ...]:
        return self.record.evidence

    @property
    def proofs(self) -> list[dict[str, Any]]:
        """Everything needed to re-verify each evidence item without arborist."""
        return [item.as_json() for item in self.evidence]

    def verify(self) -> AnswerCheck:
        """Re-read this answer from the store now and re-check it: its record hash, its
        evidence root, every proof and every cited text against its leaf.

        The result is truthy only when everything holds (``if answer.verify():``);
        iterate it for one :class:`ProofStatus` per evidence item, and read
        ``.problems`` for what does not hold. A store edited after the ask fails
        here, whatever the copy taken at ask time says.
        """
        return self.app.check_answer(self.record.id)

    def standing(self) -> Standing:
        """What this answer's turn can claim now (:meth:`arborist._facade.app.Arborist.audit_now`)."""
        return self.app.audit_now(self.node)

    # --- renderings --------------------------------------------------------------------------

    def status(self, facts: TurnFacts | None = None) -> str:
        """The one line under the answer: "new answer · quotes verified (STRICT) · partly:
        no cited passage mentions comic · turn #3"; for an answer taken out of service its
        state and reason instead of the support: "· answer failed: the year is wrong"."""
        facts = self.facts() if facts is None else facts
        withdrawn = []
        if facts.state not in (None, OK):
            withdrawn = [state_words(facts.state, facts.state_reason)]
        if self.turn.reused:
            cache = "this cell's earlier answer" if self.own else "asked here before"
        elif facts.served == HIT:
            cache = "from the cache" + (f" ({_first_asked(facts)})" if facts.first_bates else "")
        else:
            cache = f"new answer (replaces {facts.replaces})" if facts.replaces else "new answer"
        turn = f"turn #{self.node.seq}"
        if facts.mode_reason is not None:
            parts = [cache, f"{facts.mode}: {facts.mode_reason}", *withdrawn, turn]
        else:
            support = facts.support
            said = [] if support is None else [support.text() if support.missing else support.level]
            parts = [cache, audit_words(facts.mode, support), *(withdrawn or said), turn]
        return inert(" · ".join(parts), one_line=True)

    def _rows(self, facts: TurnFacts) -> list[tuple[str, str]]:
        """The fold's facts: the turn's bates, every fact :func:`arborist._facts.fact_rows`
        says, what fitting the prompt left out, and both stores' heads (the witness)."""
        return [
            ("bates", self.bates),
            *fact_rows(facts),
            *([("fitted", facts.fitted)] if facts.fitted else []),
            ("witness", str(self.checkpoint)),  # both stores' heads: arborist._proofs.witness
        ]

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        """text/plain, text/markdown and text/html, all from one check made now (IPython
        filters by ``include`` and ``exclude`` itself)."""
        check, facts = self.verify(), self.facts()
        return {
            "text/plain": _render_text(self, facts),
            "text/markdown": _render_markdown(self, facts),
            "text/html": _render_html(self, check, facts),
        }

    def __repr__(self) -> str:
        return _render_text(self, self.facts())

    def _repr_markdown_(self) -> str:
        return _render_markdown(self, self.facts())

    def _repr_html_(self) -> str:
        return _render_html(self, self.verify(), self.facts())


def _first_asked(facts: TurnFacts) -> str:
    """``first asked as #3`` (``of session SID`` when another session's turn paid for it)."""
    sid, _, seq = (facts.first_bates or "").rpartition("-")
    where = (
        f"first asked as #{int(seq)}" if seq.isdigit() else f"first asked at {facts.first_bates}"
    )
    return where + (f" of session {sid}" if sid and sid != facts.sid else "")


class Landing:
    """Where a ``%%ask`` cell's turn was filed, and the option that files it elsewhere: one
    quiet line shown above the answer ("filed under #12 as a follow-up · ``%%ask --parent
    root`` to ask it alone"). Its parts are arborist's own words and references, escaped
    all the same in every rendering."""

    def __init__(self, where: str, option: str | None = None, purpose: str = "") -> None:
        self.where = where
        """Where the turn is: "filed under #12 as a follow-up"."""
        self.option = option
        """The ``%%ask`` line that would file it elsewhere, or None."""
        self.purpose = purpose
        """What that line does: "to ask it alone"."""

    def __repr__(self) -> str:
        if self.option is None:
            return inert(self.where, one_line=True)
        return inert(f"{self.where} · {self.option} {self.purpose}", one_line=True)

    def _repr_markdown_(self) -> str:
        if self.option is None:
            return no_math(md_escape(self.where))
        option = inert(self.option, one_line=True).replace("`", chr(39))
        return no_math(f"{md_escape(self.where)} · `{option}` {md_escape(self.purpose)}")

    def _repr_html_(self) -> str:
        option = (
            "" if self.option is None else f" · <code>{_h(self.option)}</code> {_h(self.purpose)}"
        )
        return (
            f'<div class="arborist-landing {NO_MATH}" style="font-size:smaller;opacity:0.7">'
            f"{_h(self.where)}{option}</div>"
        )


NO_MATH = "tex2jax_ignore mathjax_ignore"
"""Classes that keep JupyterLab's (and classic Notebook's) MathJax off an element:
``$x$`` in an answer is text, not math."""


def no_math(markdown: str) -> str:
    """Markdown wrapped in a block MathJax skips (the markdown inside still renders)."""
    return f'<div class="{NO_MATH}">\n\n{markdown}\n\n</div>\n'


def md_escape(text: str) -> str:
    """Untrusted text as inert markdown: control characters shown as escapes
    (:func:`arborist._text.terminal.inert`), HTML escaped, and every other ASCII punctuation
    backslash-escaped (CommonMark allows it), so no link, image, autolink or emphasis
    can form from answer or document text."""
    return html.escape(inert(text), quote=False).translate(_MARKDOWN_PUNCTUATION)


def _md_code(text: str) -> str:
    """A fact inside a markdown code span: one inert line, no backtick to close the span
    (markdown shows a code span's text as it is: no HTML or link forms inside it)."""
    return inert(text, one_line=True).replace("`", chr(39))


def _h(text: str) -> str:
    """Untrusted text for HTML: control characters shown as escapes, then HTML-escaped."""
    return html.escape(inert(text))


def _answer_html(answer: Answer) -> str:
    """The answer's Markdown as safe HTML (:mod:`arborist_nb._markdown`); each citation a
    disclosure in its line that opens the cited chunk under that line.

    No script runs in an output, so the chunk travels with the citation as a
    ``<details>`` element: clicking the citation shows it.
    """
    return markdown.to_html(markdown.parse(answer.text), _citation_html(answer))


_ANSWER_BOX = '<div class="arborist-md" style="position:relative;container-type:inline-size">'
"""What an opened citation's chunk is placed against (``left:0``, ``100cqw`` wide): the
answer's own box."""


def _citation_html(answer: Answer) -> markdown.CiteHtml:
    """A citation as an inline block whose summary is the bracket. Opened, its chunk spans
    the answer's width under the citation's line while the line reads on: an inline block
    as wide as its chunk would drop to a line of its own, and a ``<details>`` styled inline
    breaks its line even closed. So the chunk is placed out of flow at the answer's left,
    and a hidden copy of it, as wide but pulled left so that it adds no width, holds its
    height in the line; the rest of the sentence stays by the bracket."""
    items = {e.label: e for e in answer.evidence}

    def cite(label: str, raw: str) -> str:
        bracket = _h(raw)
        item = items.get(label)
        if item is None:
            return bracket
        chunk = _chunk_html(answer, item)
        held = _h(shown_text(item.text)) if item.text is not None else chunk
        return (
            f'<details class="arborist-cite" data-label="{_h(label)}" style="display:inline-block;vertical-align:top">'
            f'<summary style="display:inline;cursor:pointer;color:var(--jp-content-link-color,#1a6fb0)">{bracket}</summary>'
            f'<span class="arborist-chunk" style="position:absolute;left:0;z-index:1;background:var(--jp-layout-color0,#fff);display:block;box-sizing:border-box;width:100cqw;margin:2px 0;white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere;border-left:3px solid #bbb;padding-left:6px">{chunk}</span>'
            f'<span aria-hidden="true" style="visibility:hidden;display:block;box-sizing:border-box;width:100cqw;margin:2px 0;white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere;border-left:3px solid #bbb;padding-left:6px;margin-left:-100cqw">{held}</span>'
            "</details>"
        )

    return cite


_MARK = '<mark class="arborist-quoted" style="background:color-mix(in srgb,var(--jp-warn-color1,#9a6700) 28%,var(--jp-layout-color1,#fff));color:inherit">'
"""How a quoted span is marked: the widget's tint (``--arb-mark``), the text's own colour."""


def _chunk_html(answer: Answer, item: RecordEvidence) -> str:
    """A cited chunk's text, escaped, with the spans the answer quotes from it marked
    (:func:`arborist._proofs.quotes.quoted_ranges`, the widget's rule too)."""
    if item.text is None:
        return f"({_h(item.tier)}: text not stored)"
    text = shown_text(item.text)
    parts, at = [], 0
    for start, end in quoted_ranges(text, claims_for(answer.text, item.label)):
        parts.append(f"{_h(text[at:start])}{_MARK}{_h(text[start:end])}</mark>")
        at = end
    return "".join(parts) + _h(text[at:])


def _row_status(answer: Answer, item: RecordEvidence, status: ProofStatus) -> str:
    """What was checked for one evidence row (:func:`arborist._proofs.quotes.row_words`, the
    widget's words too), then how its proof fared; a failed proof says only that."""
    if not status.verified:
        return f"✘ {_h(status.detail)}"
    words = row_words(item.text, answer.text, item.label, item.cited)
    return f'✔ <span class="arborist-row-check">{_h(words)}</span> ({_h(status.detail)})'


def answer_markup(text: str) -> str:
    """Answer text (a streamed part of one, too) as safe HTML: its Markdown rendered, every
    text escaped, citations as their text."""
    return f'<div class="arborist-md {NO_MATH}">{markdown.to_html(markdown.parse(text))}</div>'


def _link_html(link: str) -> str:
    """A document's link, escaped: an anchor only for a ``file``, ``http`` or ``https`` URI
    (never ``javascript:``), opened apart from the notebook; code text otherwise."""
    code = f"<code>{_h(link)}</code>"
    if uri_scheme(link) not in LINKED_SCHEMES:
        return code
    return f'<a href="{_h(link)}" target="_blank" rel="noopener noreferrer">{code}</a>'


_LEFT = 'style="text-align:left"'
"""Hosts right-align table cells (JupyterLab does): the facts read from the left."""


def _fact_row(name: str, value: str, title: str = "") -> str:
    """One row of the fold's table: the facts and the cache key's dimensions are rows of one
    table, so their names and values share two columns; a long value (a hash, the witness
    line) wraps inside its cell instead of pushing the table past the output (issue #35).
    ``title``: what the name means, on hover."""
    said = f' title="{_h(title)}"' if title else ""
    return (
        f'<tr><th{said} style="text-align:left;white-space:nowrap;vertical-align:top">{_h(name)}</th>'
        f'<td style="text-align:left;overflow-wrap:anywhere">'
        f"<code>{_h(value)}</code></td></tr>"
    )


def _dimension_row(key: str, value: str) -> str:
    """A dimension of the cache key as a reader names it, what it binds on hover
    (:data:`arborist._proofs.keys.DIMENSION_WORDS`, the widget's words too); a key not there as it
    is."""
    name, what = DIMENSION_WORDS.get(key, (key, ""))
    return _fact_row(name, value or "(empty)", f"{key}: {what}" if what else key)


def _render_text(answer: Answer, facts: TurnFacts) -> str:
    lines = [answer.text, "", answer.status(facts), "", f"{'bates':<10} {answer.bates}"]
    lines += facts_lines(facts, 10)  # what every face that prints a turn prints
    lines.append(f"{'witness':<10} {answer.checkpoint}")
    return inert("\n".join(lines))


def _source_md(source: Source) -> str:
    lane = f" [{md_escape(source.lane)}]" if source.lane else ""
    return (
        f"- {source.label}{' (cited)' if source.cited else ''}: {md_escape(source.title)} — "
        f"{md_escape(source.uri)} chunk {source.chunk_index}{lane}"
    )


def _render_markdown(answer: Answer, facts: TurnFacts) -> str:
    # The facts are arborist's own (bates, hashes, times): code spans keep them greppable;
    # a withdrawn answer's reason is not, so every fact is escaped as markdown code.
    rows = " · ".join(f"**{name}** `{_md_code(value)}`" for name, value in answer._rows(facts))
    sources = "\n".join(_source_md(source) for source in facts.sources)
    status = md_escape(answer.status(facts))
    folded = (
        f"<details><summary>turn, sources and proofs</summary>\n\n{rows}\n\n{sources}\n\n</details>"
    )
    text = markdown.to_markdown(markdown.parse(answer.text))
    return no_math(f"{text}\n\n*{status}*\n\n{folded}")


def _render_html(answer: Answer, check: AnswerCheck, facts: TurnFacts) -> str:
    statuses = {s.label: s for s in check}
    rows = "".join(_fact_row(name, value) for name, value in answer._rows(facts))
    dims = "".join(_dimension_row(key, value) for key, value in answer.record.dimensions.items())
    lanes = {source.label: source.lane for source in facts.sources}
    evidence = []
    for item in answer.evidence:
        status = statuses[item.label]
        body = _chunk_html(answer, item)
        lane = f" [{_h(lane)}]" if (lane := lanes.get(item.label)) else ""
        evidence.append(
            f'<details id="{answer._id}-{item.label}" data-proof="{"pass" if status.verified else "fail"}">'
            f"<summary>{_h(item.label)}{' (cited)' if item.cited else ''}: "
            f"{_h(item.placed_title)} — chunk {item.chunk_index} of {item.chunk_count}{lane} — "
            f"{_row_status(answer, item, status)}</summary>"
            f"<div>{_link_html(item.link)}</div>"
            f'<pre style="white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere">{body}</pre></details>'
        )
    return (
        f'<div class="arborist-answer {NO_MATH}" '
        f'data-bates="{_h(answer.bates)}">'
        f"{_ANSWER_BOX}{_answer_html(answer)}</div>"
        f'<div class="arborist-status" style="font-size:smaller;opacity:0.8;text-align:left">'
        f"{_h(answer.status(facts))}</div>"
        f'<details class="arborist-fold" style="font-size:smaller;overflow-wrap:anywhere">'
        f"<summary>turn, sources and proofs</summary>"
        f'<table style="margin:0;max-width:100%">{rows}'
        f'<tr><th colspan="2" {_LEFT}>cache key dimensions</th></tr>{dims}</table>'
        f"{''.join(evidence)}</details>"
        f"</div>"
    )


def progress(items: Any) -> Iterator[Any]:
    """Ingest's progress bar while it runs. In a notebook the bar is a widget, and once done
    it is replaced in place by its last line as text (an ``update_display``): a saved
    notebook keeps no progress widget, which a page opened without the kernel shows stuck
    at 0% (issue #35)."""
    from tqdm.auto import tqdm  # noqa: PLC0415 - a notebook progress bar
    from tqdm.notebook import tqdm as widget_bar  # noqa: PLC0415

    if not issubclass(tqdm, widget_bar):  # a terminal's bar is text already
        yield from tqdm(list(items), desc="ingest", unit="doc")
        return
    bar = tqdm(list(items), desc="ingest", unit="doc", display=False)
    handle = display(bar.container, display_id=True)
    try:
        yield from bar
    finally:
        bar.close()
        line = bar.format_meter(**bar.format_dict)
        if handle is not None:
            handle.update({"text/plain": line}, raw=True)
        for part in (bar.container, *bar.container.children):  # with their layouts and styles
            for widget in (part, getattr(part, "layout", None), getattr(part, "style", None)):
                if widget is not None:
                    widget.close()

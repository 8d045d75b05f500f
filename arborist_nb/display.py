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
from functools import cached_property
from typing import Any

from arborist.app import Arborist, Turn
from arborist.forest.shard import Node
from arborist.qa.check import AnswerCheck, ProofStatus
from arborist.qa.standing import Standing
from arborist.qa.support import Support, audit_words, measure_record
from arborist.store.cache import RecordEvidence
from arborist.store.places import LINKED_SCHEMES, shown_text, uri_scheme
from arborist.terminal import inert
from arborist.witness import Heads
from arborist_nb import markdown

__all__ = ["Answer", "Landing", "NO_MATH", "ProofStatus", "answer_markup", "md_escape", "no_math"]

_MARKDOWN_PUNCTUATION = str.maketrans(
    {c: "\\" + c for c in string.punctuation if c not in "<>&;\"'"}
)


class Answer:
    """The answer of one turn. ``_`` holds it after a ``%%ask`` cell.

    ``text`` is the answer, ``evidence`` the retrieved chunks (with ``cited``
    flags and proofs), ``proofs`` the per-item proof data, ``verify()``
    re-reads the answer from the store and re-checks it here and now.

    A display checks it once (``verify()``) and renders every mimetype from that check.
    """

    def __init__(
        self,
        turn: Turn,
        *,
        app: Arborist,
        checkpoint: Heads,
        first_turn: Node | None = None,
    ) -> None:
        self.app = app
        self.turn = turn
        self.record = turn.result.record
        self.node = turn.node
        self.checkpoint = checkpoint
        self.first_turn = first_turn
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

    # --- renderings --------------------------------------------------------------------------

    def _cache_line(self) -> str:
        if self.turn.reused:
            return "reused (this cell's earlier turn)"
        if not self.hit:
            return "miss (answered now)"
        where = f" at {self.first_turn.bates}" if self.first_turn else ""
        return f"hit (first answered{where}, {self.record.created_at})"

    def standing(self) -> Standing:
        """What this answer's turn can claim now (:meth:`arborist.app.Arborist.audit_now`),
        with the state of its answer: a falsified, stale or quarantined one says so, and
        why, in every rendering."""
        return self.app.audit_now(self.node)

    def status(self, check: AnswerCheck | None = None, now: Standing | None = None) -> str:
        """The one line under the answer: "new answer · quotes verified (STRICT) · partly:
        no cited passage mentions comic · turn #3"; for an answer taken out of service its
        state and reason instead of the support: "· answer failed: the year is wrong"."""
        check = self.verify() if check is None else check
        now = self.standing() if now is None else now
        withdrawn = [f"answer {now.state_text}"] if now.withdrawn else []
        if self.turn.reused:
            cache = "this cell's earlier answer"
        elif self.hit:
            first = self.first_turn
            where = "" if first is None else f" (first asked as #{first.seq}"
            if first is not None and first.sid != self.node.sid:
                where += f" of session {first.sid}"
            cache = "from the cache" + (f"{where})" if where else "")
        else:
            cache = "new answer"
        if not check:
            none = f"NONE: does not hold now: {check.summary}"
            return " · ".join([cache, none, *withdrawn, f"turn #{self.node.seq}"])
        support = self._support(check)
        audit = audit_words(self.audit_mode, support)
        said = [] if support is None else [support.text() if support.missing else support.level]
        parts = [cache, audit, *(withdrawn or said), f"turn #{self.node.seq}"]
        return " · ".join(parts)

    def _support(self, check: AnswerCheck) -> Support | None:
        """The support of this answer's record, while it holds (shown by none otherwise)."""
        return self._measured if check else None

    @cached_property
    def _measured(self) -> Support | None:
        # A pure function of the record this Answer holds: measured once, for every rendering.
        record = self.record
        return measure_record(record)

    def _facts(
        self, check: AnswerCheck | None = None, now: Standing | None = None
    ) -> list[tuple[str, str]]:
        check = self.verify() if check is None else check
        now = self.standing() if now is None else now
        audit = self.audit_mode if check else f"NONE: does not hold now: {check.summary}"
        if now.withdrawn:
            audit += f", answer {now.state_text}"
        support = self._support(check)
        return [
            ("bates", self.bates),
            ("cache", self._cache_line()),
            ("audit", audit),
            *([("support", support.text())] if support else []),
            ("time", f"{self.turn.result.elapsed_ms:.0f} ms"),
            ("key", self.cache_key),
            ("witness", str(self.checkpoint)),  # both stores' heads: arborist.witness
        ]

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        """text/plain, text/markdown and text/html, all from one check made now (IPython
        filters by ``include`` and ``exclude`` itself)."""
        check, now = self.verify(), self.standing()
        return {
            "text/plain": _render_text(self, check, now),
            "text/markdown": _render_markdown(self, check, now),
            "text/html": _render_html(self, check, now),
        }

    def __repr__(self) -> str:
        return _render_text(self, self.verify(), self.standing())

    def _repr_markdown_(self) -> str:
        return _render_markdown(self, self.verify(), self.standing())

    def _repr_html_(self) -> str:
        return _render_html(self, self.verify(), self.standing())


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
    (:func:`arborist.terminal.inert`), HTML escaped, and every other ASCII punctuation
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
    """The answer's Markdown as safe HTML (:mod:`arborist_nb.markdown`); each citation a
    disclosure in its line that opens the cited chunk in place.

    No script runs in an output, so the chunk travels with the citation as a
    ``<details>`` element: clicking the citation shows it.
    """
    return markdown.to_html(markdown.parse(answer.text), _citation_html(answer))


def _citation_html(answer: Answer) -> markdown.CiteHtml:
    items = {e.label: e for e in answer.evidence}

    def cite(label: str, raw: str) -> str:
        bracket = _h(raw)
        item = items.get(label)
        if item is None:
            return bracket
        chunk = (
            _h(shown_text(item.text))
            if item.text is not None
            else f"({_h(item.tier)}: text not stored)"
        )
        return (
            f'<details class="arborist-cite" data-label="{_h(label)}" style="display:inline-block;vertical-align:top">'
            f'<summary style="display:inline;cursor:pointer;color:var(--jp-content-link-color,#1a6fb0)">{bracket}</summary>'
            f'<span class="arborist-chunk" style="display:block;white-space:pre-wrap;border-left:3px solid #bbb;padding-left:6px;margin:2px 0">{chunk}</span>'
            "</details>"
        )

    return cite


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


def _render_text(answer: Answer, check: AnswerCheck, now: Standing) -> str:
    lines = [answer.text, "", answer.status(check, now), ""]
    lines += [f"{name:<11}{value}" for name, value in answer._facts(check, now)]
    cited = [e for e in answer.evidence if e.cited]
    if cited:
        lines.append("sources")
        lines += [
            f"  {e.label} {inert(e.placed_title, one_line=True)}  (chunk {e.chunk_index})  "
            f"{inert(e.link, one_line=True)}"
            for e in cited
        ]
    return inert("\n".join(lines))


def _render_markdown(answer: Answer, check: AnswerCheck, now: Standing) -> str:
    # The facts are arborist's own (bates, hashes, times): code spans keep them greppable;
    # a withdrawn answer's reason is not, so every fact is escaped as markdown code.
    facts = " · ".join(
        f"**{name}** `{_md_code(value)}`" for name, value in answer._facts(check, now)
    )
    sources = "\n".join(
        f"- {e.label}{' (cited)' if e.cited else ''}: {md_escape(e.placed_title)} — "
        f"{md_escape(e.link)} chunk {e.chunk_index}"
        for e in answer.evidence
    )
    status = md_escape(answer.status(check, now))
    folded = f"<details><summary>turn, sources and proofs</summary>\n\n{facts}\n\n{sources}\n\n</details>"
    text = markdown.to_markdown(markdown.parse(answer.text))
    return no_math(f"{text}\n\n*{status}*\n\n{folded}")


def _render_html(answer: Answer, check: AnswerCheck, now: Standing) -> str:
    statuses = {s.label: s for s in check}
    facts = "".join(
        f"<tr><th {_LEFT}>{_h(name)}</th><td {_LEFT}><code>{_h(value)}</code></td></tr>"
        for name, value in answer._facts(check, now)
    )
    dims = "".join(
        f"<tr><th {_LEFT}>{_h(name)}</th><td {_LEFT}><code>{_h(value or '(empty)')}</code></td></tr>"
        for name, value in answer.record.dimensions.items()
    )
    evidence = []
    for item in answer.evidence:
        status = statuses[item.label]
        body = (
            _h(shown_text(item.text))
            if item.text is not None
            else f"({_h(item.tier)}: text not stored)"
        )
        evidence.append(
            f'<details id="{answer._id}-{item.label}" data-proof="{"pass" if status.verified else "fail"}">'
            f"<summary>{_h(item.label)}{' (cited)' if item.cited else ''}: "
            f"{_h(item.placed_title)} — chunk {item.chunk_index} of {item.chunk_count} — "
            f"{'✔' if status.verified else '✘'} {_h(status.detail)}</summary>"
            f"<div>{_link_html(item.link)}</div>"
            f'<pre style="white-space:pre-wrap">{body}</pre></details>'
        )
    return (
        f'<div class="arborist-answer {NO_MATH}" '
        f'data-bates="{_h(answer.bates)}">'
        f'<div class="arborist-md">{_answer_html(answer)}</div>'
        f'<div class="arborist-status" style="font-size:smaller;opacity:0.8;text-align:left">'
        f"{_h(answer.status(check, now))}</div>"
        f'<details style="font-size:smaller"><summary>turn, sources and proofs</summary>'
        f'<table style="margin:0">{facts}</table>'
        f'<table style="margin:0">{dims}</table>{"".join(evidence)}</details>'
        f"</div>"
    )

"""What a ``%%ask`` cell shows and returns: an :class:`Answer`.

Three renderings: ``text/plain`` (stable, what nbval compares), ``text/markdown``
and ``text/html``. Answer and document text is untrusted: the HTML escapes
every byte of it (``html.escape``), and citations become links to
collapsible, escaped copies of the cited chunks. Every rendering carries the
forest shard's checkpoint at that moment, so a saved notebook is a witness
(``arborist verify --witness``).
"""

from __future__ import annotations

import html
import secrets
import string
from dataclasses import dataclass
from typing import Any

from arborist.app import Turn
from arborist.audit import Checkpoint
from arborist.forest.shard import Node
from arborist.hashing import leaf_hash
from arborist.merkle import verify_inclusion
from arborist.qa.citations import parse_citations
from arborist.qa.records import RecordEvidence

__all__ = ["Answer", "NO_MATH", "ProofStatus", "check_proof", "md_escape", "no_math"]

_MARKDOWN_PUNCTUATION = str.maketrans(
    {c: "\\" + c for c in string.punctuation if c not in "<>&;\"'"}
)


@dataclass(frozen=True)
class ProofStatus:
    """Whether one evidence item's text and proof verify here, and why not."""

    label: str
    verified: bool
    detail: str


def check_proof(item: RecordEvidence) -> ProofStatus:
    """Re-hash the evidence text (if present) and verify its inclusion proof."""
    try:
        proof = [bytes.fromhex(p) for p in item.proof]
        proved = verify_inclusion(
            bytes.fromhex(item.leaf),
            item.chunk_index,
            item.chunk_count,
            proof,
            bytes.fromhex(item.source_root),
        )
    except ValueError:
        proved = False
    if not proved:
        return ProofStatus(item.label, False, "proof does not verify")
    if item.text is None:
        return ProofStatus(item.label, True, f"proof verifies; text is {item.tier} (not re-hashed)")
    if leaf_hash(item.text.encode("utf-8")).hex() != item.leaf:
        return ProofStatus(item.label, False, "text does not match its leaf")
    return ProofStatus(item.label, True, "text re-hashes and proof verifies")


class Answer:
    """The answer of one turn. ``_`` holds it after a ``%%ask`` cell.

    ``text`` is the answer, ``evidence`` the retrieved chunks (with ``cited``
    flags and proofs), ``proofs`` the per-item proof data, ``verify()``
    re-checks every proof here and now.
    """

    def __init__(
        self,
        turn: Turn,
        *,
        checkpoint: Checkpoint | None,
        first_turn: Node | None = None,
    ) -> None:
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

    def verify(self) -> list[ProofStatus]:
        """Re-verify every evidence item now; all ``verified`` means the answer's sources hold."""
        return [check_proof(item) for item in self.evidence]

    # --- renderings --------------------------------------------------------------------------

    def _cache_line(self) -> str:
        if self.turn.reused:
            return "reused (this cell's earlier turn)"
        if not self.hit:
            return "miss (answered now)"
        where = f" at {self.first_turn.bates}" if self.first_turn else ""
        return f"hit (first answered{where}, {self.record.created_at})"

    def _facts(self) -> list[tuple[str, str]]:
        return [
            ("bates", self.bates),
            ("cache", self._cache_line()),
            ("audit", self.audit_mode),
            ("time", f"{self.turn.result.elapsed_ms:.0f} ms"),
            ("key", self.cache_key),
            ("checkpoint", str(self.checkpoint) if self.checkpoint else "(empty chain)"),
        ]

    def __repr__(self) -> str:
        lines = [self.text, ""]
        lines += [f"{name:<11}{value}" for name, value in self._facts()]
        cited = [e for e in self.evidence if e.cited]
        if cited:
            lines.append("sources")
            lines += [f"  {e.label} {e.title}  (chunk {e.chunk_index})  {e.uri}" for e in cited]
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        # The facts are arborist's own (bates, hashes, times): code spans keep them greppable.
        facts = " · ".join(f"**{name}** `{value}`" for name, value in self._facts())
        sources = "\n".join(
            f"- {e.label}{' (cited)' if e.cited else ''}: {md_escape(e.title)} — "
            f"{md_escape(e.uri)} chunk {e.chunk_index}"
            for e in self.evidence
        )
        return no_math(f"{md_escape(self.text)}\n\n{facts}\n\n{sources}")

    def _repr_html_(self) -> str:
        return _render_html(self)


NO_MATH = "tex2jax_ignore mathjax_ignore"
"""Classes that keep JupyterLab's (and classic Notebook's) MathJax off an element:
``$x$`` in an answer is text, not math."""


def no_math(markdown: str) -> str:
    """Markdown wrapped in a block MathJax skips (the markdown inside still renders)."""
    return f'<div class="{NO_MATH}">\n\n{markdown}\n\n</div>\n'


def md_escape(text: str) -> str:
    """Untrusted text as inert markdown: HTML escaped, and every other ASCII punctuation
    backslash-escaped (CommonMark allows it), so no link, image, autolink or emphasis
    can form from answer or document text."""
    return html.escape(text, quote=False).translate(_MARKDOWN_PUNCTUATION)


def _answer_html(answer: Answer) -> str:
    """The answer, escaped; each citation a disclosure that opens the cited chunk in place.

    No script runs in an output, so the chunk travels with the citation as a
    ``<details>`` element: clicking the citation shows it.
    """
    text = answer.text
    parts: list[str] = []
    position = 0
    items = {e.label: e for e in answer.evidence}
    for citation in parse_citations(text):
        parts.append(html.escape(text[position : citation.start]))
        bracket = html.escape(text[citation.start : citation.end])
        item = items.get(citation.label)
        if item is None:
            parts.append(bracket)
        else:
            chunk = (
                html.escape(item.text)
                if item.text is not None
                else f"({html.escape(item.tier)}: text not stored)"
            )
            parts.append(
                f'<details class="arborist-cite" data-label="{html.escape(citation.label)}" style="display:inline">'
                f'<summary style="display:inline;cursor:pointer;color:var(--jp-content-link-color,#1a6fb0)">{bracket}</summary>'
                f'<span class="arborist-chunk" style="display:block;white-space:pre-wrap;border-left:3px solid #bbb;padding-left:6px;margin:2px 0">{chunk}</span>'
                "</details>"
            )
        position = citation.end
    parts.append(html.escape(text[position:]))
    return "".join(parts)


def _render_html(answer: Answer) -> str:
    statuses = {s.label: s for s in answer.verify()}
    facts = "".join(
        f"<tr><th>{html.escape(name)}</th><td><code>{html.escape(value)}</code></td></tr>"
        for name, value in answer._facts()
    )
    dims = "".join(
        f"<tr><th>{html.escape(name)}</th><td><code>{html.escape(value or '(empty)')}</code></td></tr>"
        for name, value in answer.record.dimensions.items()
    )
    evidence = []
    for item in answer.evidence:
        status = statuses[item.label]
        body = (
            html.escape(item.text)
            if item.text is not None
            else f"({html.escape(item.tier)}: text not stored)"
        )
        evidence.append(
            f'<details id="{answer._id}-{item.label}" data-proof="{"pass" if status.verified else "fail"}">'
            f"<summary>{html.escape(item.label)}{' (cited)' if item.cited else ''}: "
            f"{html.escape(item.title)} — chunk {item.chunk_index} of {item.chunk_count} — "
            f"{'✔' if status.verified else '✘'} {html.escape(status.detail)}</summary>"
            f"<div><code>{html.escape(item.uri)}</code></div>"
            f'<pre style="white-space:pre-wrap">{body}</pre></details>'
        )
    return (
        f'<div class="arborist-answer {NO_MATH}" '
        f'data-bates="{html.escape(answer.bates)}">'
        f'<div style="white-space:pre-wrap">{_answer_html(answer)}</div>'
        f'<table style="font-size:smaller">{facts}</table>'
        f"<details><summary>provenance</summary>"
        f'<table style="font-size:smaller">{dims}</table>{"".join(evidence)}</details>'
        f"</div>"
    )

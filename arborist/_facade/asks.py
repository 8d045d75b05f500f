"""An ask: one question on its way to becoming a turn, as every face hands it down.

The ``arborist ask`` command, the REPL, ``%%ask`` and the widget's fork each build
one :class:`Ask` from what they were told, and
:meth:`arborist._facade.app.Arborist.ask_turn` takes it whole: no face threads a question's
options through keyword after keyword, and what one face adds to an ask every face
can. Pure: the value holds names and flags, never a connection or a client.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Ask"]


@dataclass(frozen=True)
class Ask:
    """A question, where its turn goes, the model that answers it, and how.

    Where: ``sid`` is the session (None: a new one, labelled ``session_label``, made
    with the turn, so a failed ask writes nothing); ``parent`` the turn it is asked
    under (a bates number anywhere, or a seq or label of ``sid``; default the
    session's current turn); ``label`` names the new turn; ``make_current`` false
    leaves the session's current turn where it is (a widget's fork).

    The model: ``llm`` names it (``--llm``; None: ``$ARBORIST_LLM``, else
    extractive); ``timeout`` and ``retries`` bound the wait for a remote one.

    How: ``use_cache`` false asks the model even when a cached answer matches;
    ``keywords`` (``--retrieval-keywords``) are words added to retrieval only, the
    question kept as asked, and named in the record's policy (so its key);
    ``thread`` puts the turns above into the prompt and the key; ``related`` adds
    co-accessed chunks as a second evidence lane; ``reuse`` returns the turn a
    re-run cell asked already; ``transcript`` is the notebook's path, which
    co-access stores redacted.
    """

    question: str
    sid: str | None = None
    session_label: str | None = None
    parent: str | None = None
    label: str | None = None
    make_current: bool = True
    llm: str | None = None
    timeout: float | None = None
    retries: int | None = None
    use_cache: bool = True
    thread: bool = False
    related: bool = False
    keywords: str | None = None
    reuse: bool = False
    transcript: str | None = None

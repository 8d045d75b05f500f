"""How the offline answerer names what a sentence describes: a definition's name as it is
called (``bisect.insort(a, x, …)``), qualified by its module's reference, ahead of its
description's first sentence, and the later sentences that need that first one. Pure;
:mod:`arborist._qa.extractive` quotes them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arborist._proofs.citations import defang_citations
from arborist._qa.sentences import SIGNATURE, read_sentences, short_signature
from arborist._text.definitions import Definition, definitions

__all__ = ["Described", "call_signature", "described", "qualified"]


_MODULE_TITLE = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*")


def qualified(name: str, title: str) -> str:
    """``shuffle`` as ``random.shuffle`` when its document is a module's reference (a title
    whose subject, before " — ", is a module name); otherwise the name as defined."""
    if " — " not in title:  # "Notes", "Evil": a document's title, not a module's reference
        return name
    subject = title.split(" — ", 1)[0].strip()
    qualify = _MODULE_TITLE.fullmatch(subject) and subject != name and "." not in name
    return f"{subject}.{name}" if qualify else name


@dataclass(frozen=True)
class Described:
    """The public definitions' descriptions in a text, as the answer quotes them."""

    heads: dict[str, str]
    """The first sentence of each description, and how the answer names the definition
    ahead of it: "Insert item x in list a, and keep it sorted ..." quoted for "How do I
    keep a list sorted while inserting?" opens with ``bisect.insort(a, x, …)``, what to
    call. A name the question said is the definition opening's
    (:meth:`ExtractiveClient._definition`); this is for the questions that describe a task
    without naming it."""
    names: dict[str, str]
    """The first sentence of each description, and the name it describes."""
    private: frozenset[str]
    """The sentences describing private names and slots: pydoc's stock lines ("list of weak
    references to the object" under ``__weakref__``, in every class), never an answer."""
    leads: dict[str, str]
    """Each later sentence of a description, and the description's first sentence:
    "This function uses the rules ..." says what ``unescape`` does only after "Convert all
    named and numeric character references ...", which says what "this function" is."""


def described(text: str, title: str) -> Described:
    """The heads and leads of the descriptions of ``text``'s public definitions (a private
    name, a slot like ``__sub__``, or a label like "Options:" is not what anyone calls)."""
    heads: dict[str, str] = {}
    names: dict[str, str] = {}
    leads: dict[str, str] = {}
    private: set[str] = set()
    for definition in definitions(defang_citations(text)):
        if definition.name.split(".")[-1].startswith("_"):
            private.update(read_sentences(definition.doc))
            continue
        if not (definition.signature or definition.is_class):
            continue
        sentences = read_sentences(definition.doc)
        if not sentences or sentences[0] in heads:
            continue
        shown = definition.name if definition.nested else qualified(definition.name, title)
        call = call_signature(definition)
        if definition.is_class and call == definition.signature:
            call = ""
        heads[sentences[0]] = f"{shown}{short_signature(call)}"
        names[sentences[0]] = definition.name
        for later in sentences[1:]:
            leads.setdefault(later, sentences[0])
    return Described(heads, names, frozenset(private), leads)


def call_signature(definition: Definition) -> str:
    """How the name is called: a class's constructor line when its description opens with one
    (pydoc's ``groupby(iterable, key=None)`` under ``class groupby(builtins.object)``)."""
    first = definition.doc.split("\n", 1)[0].strip()
    opened = SIGNATURE.fullmatch(first)
    if opened and first.split("(", 1)[0] == definition.name:
        return "(" + first.split("(", 1)[1]
    return definition.signature

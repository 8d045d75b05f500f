"""The query and document roles of an embedding model: what is put before a question and
before a passage when each is embedded. Pure.

Many retrieval models are trained with their texts marked by role, and are used wrongly
without the marks: e5 wants ``query: `` before a question and ``passage: `` before what
it is searched against, nomic-embed ``search_query: `` and ``search_document: ``, bge's
English models an instruction before the question only. Others (gte, all-MiniLM,
mpnet) take texts as they are. :func:`family_roles` knows the common families by the
model's name; a profile may set its own (``query_prefix`` and ``document_prefix`` in
``[embeddings]``, or ``ARBORIST_EMBED_QUERY_PREFIX`` and ``ARBORIST_EMBED_DOCUMENT_PREFIX``),
or name a family (``family = "e5"``) for a model whose name does not say it.

The roles are in the embedding profile (:meth:`Roles.profile`), so its hash changes with
them: another prefix, other vectors, embedded again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arborist._errors import BadInput

__all__ = ["FAMILIES", "Roles", "checked_prefix", "family_roles", "named_family"]

BGE_INSTRUCTION = "Represent this sentence for searching relevant passages: "
"""The query instruction of bge's English models (v1 and v1.5) and of mxbai-embed-large."""

E5_INSTRUCT = (
    "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery: "
)
"""The query instruction of instruction-tuned e5 models (multilingual-e5-large-instruct,
e5-mistral-7b-instruct) and gte-Qwen2-instruct, as their model cards give it."""

MAX_PREFIX = 500
"""The longest prefix or instruction accepted (characters): an instruction is a sentence."""


@dataclass(frozen=True)
class Roles:
    """What goes before a question (``query``) and before a passage (``document``) when
    each is embedded, and where that came from (``family``: a known family's name,
    ``"config"`` when a profile set them, ``""`` when the model is of no known family and
    its texts go as they are)."""

    query: str = ""
    document: str = ""
    family: str = ""

    def profile(self) -> dict[str, object]:
        """The roles as the embedding profile holds them (hashed with it)."""
        return {"query_prefix": self.query, "document_prefix": self.document}

    def describe(self) -> str:
        """One line for ``arborist models``: the prefixes as typed, and their source."""
        source = (
            "set in config"
            if self.family == "config"
            else f"{self.family} default"
            if self.family
            else "no known family: texts as they are (set query_prefix / document_prefix)"
        )
        if not self.query and not self.document:
            return f"none: texts as they are ({source})" if self.family else source
        return f"query {self.query!r}, document {self.document!r} ({source})"


FAMILIES: tuple[tuple[str, str, Roles], ...] = (
    ("e5-instruct", r"e5.*instruct|e5-mistral", Roles(E5_INSTRUCT, "", "e5-instruct")),
    ("e5", r"(^|[^a-z0-9])e5([^a-z0-9]|$)", Roles("query: ", "passage: ", "e5")),
    ("nomic", r"nomic-embed", Roles("search_query: ", "search_document: ", "nomic")),
    ("bge-m3", r"bge-m3", Roles("", "", "bge-m3")),
    ("bge", r"(^|[^a-z0-9])bge-", Roles(BGE_INSTRUCTION, "", "bge")),
    ("mxbai", r"mxbai-embed-large", Roles(BGE_INSTRUCTION, "", "mxbai")),
    ("gte-instruct", r"gte-qwen", Roles(E5_INSTRUCT, "", "gte-instruct")),
    ("gte", r"(^|[^a-z0-9])gte-", Roles("", "", "gte")),
    ("minilm", r"minilm|mpnet", Roles("", "", "minilm")),
)
"""Known families, first match wins, each a name, a pattern of the model's lowercased name
and its roles (from each model card): instruction-tuned e5 before plain e5, bge-m3 (no
instruction) before bge."""


def family_roles(model: str) -> Roles:
    """The roles of the first family of :data:`FAMILIES` whose pattern the model's name
    matches (``intfloat/multilingual-e5-small``, ``nomic-embed-text:v1.5``, ...), else none."""
    name = model.lower()
    for _, pattern, roles in FAMILIES:
        if re.search(pattern, name):
            return roles
    return Roles()


def named_family(family: str, where: str) -> Roles:
    """The roles of the family named ``family`` (a profile's ``family = "e5"``), else a
    one-line :class:`BadInput` listing the known ones."""
    for name, _, roles in FAMILIES:
        if name == family:
            return roles
    known = ", ".join(name for name, _, _ in FAMILIES)
    raise BadInput(f"{where}: family must be one of {known}, not {family!r}")


def checked_prefix(value: object, key: str, where: str) -> str:
    """A prefix setting: a string of printable characters (a line end allowed, as an
    instruction may hold one) at most :data:`MAX_PREFIX` long."""
    if not isinstance(value, str):
        raise BadInput(f"{where}: {key} must be a string")
    if len(value) > MAX_PREFIX or not all(c.isprintable() or c == "\n" for c in value):
        raise BadInput(
            f"{where}: {key} must be at most {MAX_PREFIX} printable characters (line ends allowed)"
        )
    return value

"""Questions and answers: chat clients and the citations their answers carry.

The chat protocol lives in :mod:`arborist.qa.client`, the clients in
:mod:`arborist.qa.extractive`, :mod:`arborist.qa.stub` and :mod:`arborist.qa.openai`,
the choice among them in :mod:`arborist.qa.models` and the citation format in
:mod:`arborist.citations`; this package only re-exports them.
"""

from arborist.citations import (
    Citation,
    cited_labels,
    defang_citations,
    format_citation,
    parse_citations,
)
from arborist.qa.client import (
    SYSTEM_PROMPT,
    ChatClient,
    ChatRequest,
    ChatResult,
    EvidenceText,
    Message,
    build_messages,
    make_request,
)
from arborist.qa.extractive import EXTRACTIVE_MODEL, NO_EVIDENCE_ANSWER, ExtractiveClient
from arborist.qa.models import BUILTIN_CLIENTS, DEFAULT_CLIENT, select_client
from arborist.qa.openai import OpenAIClient
from arborist.qa.sse import iter_sse_data
from arborist.qa.stub import StubClient

__all__ = [
    "BUILTIN_CLIENTS",
    "ChatClient",
    "ChatRequest",
    "ChatResult",
    "Citation",
    "DEFAULT_CLIENT",
    "EXTRACTIVE_MODEL",
    "EvidenceText",
    "ExtractiveClient",
    "Message",
    "NO_EVIDENCE_ANSWER",
    "OpenAIClient",
    "SYSTEM_PROMPT",
    "StubClient",
    "build_messages",
    "cited_labels",
    "defang_citations",
    "format_citation",
    "iter_sse_data",
    "make_request",
    "parse_citations",
    "select_client",
]

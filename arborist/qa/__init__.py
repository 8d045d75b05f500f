"""Questions and answers: chat clients and the citations their answers carry.

The clients live in :mod:`arborist.qa.client`, the citation format in
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
    BUILTIN_CLIENTS,
    DEFAULT_CLIENT,
    EXTRACTIVE_MODEL,
    NO_EVIDENCE_ANSWER,
    SYSTEM_PROMPT,
    ChatClient,
    ChatRequest,
    ChatResult,
    EvidenceText,
    ExtractiveClient,
    Message,
    OpenAIClient,
    StubClient,
    build_messages,
    iter_sse_data,
    make_request,
    select_client,
)

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

"""The test model: a fixed answer, no network, and a count of the calls made."""

from __future__ import annotations

from collections.abc import Callable

from arborist._proofs.citations import format_citation
from arborist._qa.client import ChatRequest, ChatResult, word_pieces

__all__ = ["StubClient"]


class StubClient:
    """A client for tests: a fixed answer, no network, and a count of the calls made.

    The default answer cites the first evidence (or says there was none), so a
    cache record made with it has a citation to prove.
    """

    def __init__(self, text: str | None = None, *, name: str = "stub") -> None:
        self.name = name
        self.text = text
        self.calls = 0
        self.requests: list[ChatRequest] = []

    def __repr__(self) -> str:
        return f"StubClient(text={self.text!r}, name={self.name!r})"

    def profile(self) -> dict[str, object]:
        """The stub's answer is its whole behaviour, so the profile names it."""
        return {"provider": "stub", "model": "stub-v1", "text": self.text}

    def complete(
        self, request: ChatRequest, *, on_token: Callable[[str], None] | None = None
    ) -> ChatResult:
        """Count the call, remember the request, answer the fixed text."""
        self.calls += 1
        self.requests.append(request)
        text = self.text
        if text is None:
            if request.evidence:
                first = request.evidence[0]
                text = f"Stub answer. {format_citation(first.label, first.title, first.uri)}"
            else:
                text = "Stub answer without evidence."
        if on_token is not None:
            for piece in word_pieces(text):
                on_token(piece)
        return ChatResult(text, "stub-v1", "stop", {"provider": "stub", "calls": self.calls})

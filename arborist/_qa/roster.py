"""The models configured, and whether each answers now: what ``arborist models`` lists.

Chat models, in this order: the offline ``extractive`` answerer, every
``[models.NAME]`` of config.toml that is no embeddings profile, the seeds' named
local models that config.toml does not replace (``qwen``, ``hermes``), ``openai``
when ``ARBORIST_BASE_URL`` or ``ARBORIST_MODEL`` is set, and the default (the face's
``--llm``, else ``$ARBORIST_LLM``) when it is none of these. Embedding models: the
one the environment names (``ARBORIST_EMBED_*``), an ``[embeddings]`` table with
settings of its own, and every ``[models.NAME]`` with ``kind = "embeddings"``.

Each is asked once, all at the same time, within ``seconds`` (default
:data:`PROBE_SECONDS`) and never again: a chat model for one token of a one-line
prompt (:meth:`~arborist._qa.openai.OpenAIClient.answers`), an embeddings model for
the vector of one word, the local embedding model by embedding that word in process.
The offline answerers (``extractive``, ``stub``) always answer. A profile that
cannot be built (its key variable unset, a bad setting) does not answer, and says
why in one line; so does a server that refuses, is silent past the time, or answers
an error.

Nothing secret is shown: a server is shown as its client shows it (no credentials, no
query, through the admission gate), a reason is the client's own one-line error (its
key redacted) through the gate again, and a profile that could not be built shows no
server at all.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import httpx

from arborist._config import Trust, names_an_embedder, trust_of
from arborist._errors import one_line
from arborist._gate.admission import admit
from arborist._qa.http import RemoteModel
from arborist._qa.models import DEFAULT_CLIENT, NAMED_PROFILES, select_client
from arborist._qa.openai import OpenAIClient

__all__ = ["ModelStatus", "PROBE_SECONDS", "chat_names", "model_roster"]

PROBE_SECONDS = 5.0
"""How long a model is waited for, to connect and for its reply, when it is asked
whether it answers (``arborist models --timeout`` chooses another)."""

_REASON_CHARS = 240
"""The longest reason shown for a model that does not answer."""

_NOISE = re.compile(r"^model '[^']*' \([^()]*\): (?:gave up after 1 attempt; last error: )?")
"""What a client's error says first (its name, model and server, and that it tried
once), which the listing shows beside it already."""


@dataclass(frozen=True)
class ModelStatus:
    """One configured model: its name, kind (``chat`` or ``embeddings``), provider,
    model and server (None when offline or unknown), whether it answered, and if not,
    why (one line). ``chosen``: the chat model a question goes to without ``--llm``, or
    the embedding model retrieval uses."""

    name: str
    kind: str
    provider: str | None  # None (and model None): its profile could not be built
    model: str | None
    server: str | None
    answers: bool
    reason: str = ""
    chosen: bool = False

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "provider": self.provider,
            "model": self.model,
            "server": self.server,
            "answers": self.answers,
            "reason": self.reason or None,
            "chosen": self.chosen,
        }


def _reason(exc: BaseException) -> str:
    """Why a model did not answer, in one line, through the admission gate."""
    text = _NOISE.sub("", one_line(exc, named=True))
    return one_line(admit(text).text, _REASON_CHARS) or type(exc).__name__


def _probing(client: RemoteModel, seconds: float) -> Any:
    """A copy of ``client`` that waits at most ``seconds`` to connect and for each read,
    and never asks again."""
    probe = copy.copy(client)
    connect = min(client.timeouts.connect or seconds, seconds)
    probe.timeouts = httpx.Timeout(connect=connect, read=seconds, write=seconds, pool=connect)
    probe.max_retries = 0
    probe.deadline = 2 * seconds  # a connect and a read, each in full
    return probe


def chat_names(config: Mapping[str, object], env: Mapping[str, str], default: str) -> list[str]:
    """The chat models listed, in order (see the module's docstring)."""
    models = config.get("models", {})
    profiles = models if isinstance(models, Mapping) else {}
    names = [DEFAULT_CLIENT]
    names += sorted(
        str(name)
        for name, profile in profiles.items()
        if not (isinstance(profile, Mapping) and profile.get("kind") == "embeddings")
        and name not in names
    )
    names += [name for name in NAMED_PROFILES if name not in names]
    if env.get("ARBORIST_BASE_URL", "").strip() or env.get("ARBORIST_MODEL", "").strip():
        names.append("openai")
    return names if default in names else [*names, default]


def _chat_status(
    name: str, config: Mapping[str, object], env: Mapping[str, str], seconds: float
) -> ModelStatus:
    """Whether the chat model ``name`` answers now."""
    try:
        client = select_client(name, config=config, env=env, timeout=seconds, retries=0)
    except Exception as exc:  # a bad or incomplete profile: listed, with why
        return ModelStatus(name, "chat", None, None, None, False, _reason(exc))
    profile = client.profile()
    provider, model = str(profile.get("provider")), str(profile.get("model"))
    server = profile.get("server")
    shown = None if server is None else str(server)
    if not isinstance(client, OpenAIClient):
        return ModelStatus(name, "chat", provider, model, None, True)
    try:
        _probing(client, seconds).answers()
    except Exception as exc:
        return ModelStatus(name, "chat", provider, model, shown, False, _reason(exc))
    return ModelStatus(name, "chat", provider, model, shown, True)


def _embed_status(name: str, build: Callable[[], Any], seconds: float, chosen: bool) -> ModelStatus:
    """Whether the embedding model ``build`` makes answers now (one word embedded)."""
    try:
        embedder = build()
    except Exception as exc:
        return ModelStatus(name, "embeddings", None, None, None, False, _reason(exc), chosen)
    remote = isinstance(embedder, RemoteModel)
    provider = "openai" if remote else "local"
    server = str(embedder.profile()["server"]) if remote else None
    status = ModelStatus(
        name, "embeddings", provider, str(embedder.model), server, True, chosen=chosen
    )
    try:
        (_probing(embedder, seconds) if remote else embedder).embed(["ping"])
    except Exception as exc:
        return replace(status, answers=False, reason=_reason(exc))
    return status


def _embedders(
    config: Mapping[str, object], env: Mapping[str, str]
) -> list[tuple[str, Callable[[], Any], bool]]:
    """The embedding models listed: a name, how to build it, and whether it is the one
    retrieval uses."""
    if not names_an_embedder(config, env):
        return []
    from arborist._qa.embeddings import (  # noqa: PLC0415 - numpy, only with a model
        embedder_from_profile,
        select_embedder,
    )

    found: list[tuple[str, Callable[[], Any], bool]] = []
    named = any(
        env.get(v, "").strip()
        for v in ("ARBORIST_EMBED_PROVIDER", "ARBORIST_EMBED_BASE_URL", "ARBORIST_EMBED_MODEL")
    )
    if named:
        found.append(("environment", lambda: select_embedder(config, env), True))
    section = config.get("embeddings")
    models = config.get("models", {})
    profiles = models if isinstance(models, Mapping) else {}
    chosen = section.get("profile") if isinstance(section, Mapping) else None
    if isinstance(section, Mapping) and section and "profile" not in section:
        found.append(
            (
                "embeddings",
                lambda: embedder_from_profile("embeddings", section, env, trust_of(config)),
                not named,
            )
        )
    kinds = sorted(
        str(n)
        for n, p in profiles.items()
        if isinstance(p, Mapping) and p.get("kind") == "embeddings"
    )
    for name in kinds:
        alone = len(kinds) == 1 and not section
        found.append(
            (
                name,
                _builder(name, profiles[name], env, trust_of(config), embedder_from_profile),
                not named and (chosen == name or alone),
            )
        )
    return found


def _builder(
    name: str,
    profile: Mapping[str, object],
    env: Mapping[str, str],
    trust: Trust,
    build: Callable[..., Any],
) -> Callable[[], Any]:
    return lambda: build(name, profile, env, trust)


def model_roster(
    config: Mapping[str, object] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    default: str | None = None,
    seconds: float = PROBE_SECONDS,
) -> list[ModelStatus]:
    """Every configured model, chat models first, each asked whether it answers now
    (all at once, each within ``seconds``). ``default`` is the face's ``--llm``
    (else ``$ARBORIST_LLM``, else extractive): that chat model is the chosen one."""
    config = config or {}
    env = os.environ if env is None else env
    default = (default or "").strip() or env.get("ARBORIST_LLM", "").strip() or DEFAULT_CLIENT
    jobs: list[Callable[[], ModelStatus]] = [
        _chat_job(name, config, env, seconds, name == default)
        for name in chat_names(config, env, default)
    ]
    jobs += [
        _embed_job(name, build, seconds, chosen) for name, build, chosen in _embedders(config, env)
    ]
    with ThreadPoolExecutor(max_workers=min(8, len(jobs))) as pool:
        return list(pool.map(lambda job: job(), jobs))


def _chat_job(
    name: str, config: Mapping[str, object], env: Mapping[str, str], seconds: float, chosen: bool
) -> Callable[[], ModelStatus]:
    return lambda: replace(_chat_status(name, config, env, seconds), chosen=chosen)


def _embed_job(
    name: str, build: Callable[[], Any], seconds: float, chosen: bool
) -> Callable[[], ModelStatus]:
    return lambda: _embed_status(name, build, seconds, chosen)

"""Which model answers: ``--llm`` or ``$ARBORIST_LLM``, a built-in or a config.toml profile.

The built-ins are ``extractive`` (the default), ``stub`` and ``openai`` (set up
from ``ARBORIST_BASE_URL``, ``ARBORIST_MODEL`` and ``ARBORIST_API_KEY``); any
other name is a ``[models.NAME]`` profile of config.toml. A profile's settings
are checked here, each bad one a one-line :class:`~arborist._errors.BadInput`
naming the profile, before any request is made. How long a remote model is
waited for and how often it is asked again may also be chosen outside the
profile (a parameter, then ``ARBORIST_TIMEOUT`` / ``ARBORIST_RETRIES``).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

from arborist._config import YOURS, Trust, on_loopback, trust_of
from arborist._errors import BadInput
from arborist._qa.client import SYSTEM_PROMPT, ChatClient
from arborist._qa.extractive import ExtractiveClient
from arborist._qa.http import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_READ_TIMEOUT,
    DEFAULT_RETRIES,
    MAX_RETRIES,
    MAX_TIMEOUT,
    HttpSettings,
    server_url,
)
from arborist._qa.openai import OpenAIClient
from arborist._qa.stub import StubClient

__all__ = [
    "BUILTIN_CLIENTS",
    "DEFAULT_CLIENT",
    "LOCAL_SERVER",
    "NAMED_PROFILES",
    "ServerSettings",
    "select_client",
    "server_settings",
]

DEFAULT_CLIENT = "extractive"
BUILTIN_CLIENTS = ("extractive", "stub", "openai")

_PROFILE_KEYS = {
    "openai": {
        "provider",
        "base_url",
        "model",
        "api_key_env",
        "temperature",
        "max_tokens",
        "top_p",
        "system_prompt",
        "context_tokens",
        "timeout",
        "max_retries",
    },
    "extractive": {"provider", "max_sentences", "max_chars"},
    "stub": {"provider", "text"},
}


def _string(profile: Mapping[str, object], key: str, where: str) -> str | None:
    """An optional string setting of a profile."""
    value = profile.get(key)
    if value is None or isinstance(value, str):
        return value
    raise BadInput(f"{where}: {key} must be a string")


def _whole(profile: Mapping[str, object], key: str, where: str, default: int | None) -> int | None:
    """An optional whole-number setting of a profile (TOML booleans are not numbers)."""
    value = profile.get(key, default)
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise BadInput(f"{where}: {key} must be a whole number")


def _number(profile: Mapping[str, object], key: str, where: str) -> float | None:
    """An optional numeric setting of a profile."""
    value = profile.get(key)
    if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return value
    raise BadInput(f"{where}: {key} must be a number")


def _timeouts(profile: Mapping[str, object], where: str) -> tuple[float, float]:
    """``timeout = 60`` (the read timeout) or ``timeout = {connect = 5, read = 60}``."""
    value = profile.get("timeout")
    if value is None:
        return DEFAULT_CONNECT_TIMEOUT, DEFAULT_READ_TIMEOUT
    if isinstance(value, Mapping):
        unknown = {str(key) for key in value} - {"connect", "read"}
        if unknown:
            raise BadInput(f"{where}: timeout takes connect and read, not {sorted(unknown)}")
        connect = _number(value, "connect", where)
        read = _number(value, "read", where)
        return (
            DEFAULT_CONNECT_TIMEOUT if connect is None else connect,
            DEFAULT_READ_TIMEOUT if read is None else read,
        )
    seconds = _number(profile, "timeout", where)
    assert seconds is not None
    return DEFAULT_CONNECT_TIMEOUT, seconds


@dataclass(frozen=True)
class _Overrides:
    """Timeout and retries chosen outside config.toml (a parameter, else the environment)."""

    timeout: float | None
    retries: int | None

    def apply(self, connect: float, read: float, retries: int) -> HttpSettings:
        """The client's settings: ``connect``, ``read`` and ``retries`` with the overrides in
        place; an overriding timeout is the read timeout and caps the connect timeout too."""
        if self.timeout is not None:
            connect, read = min(connect, self.timeout), self.timeout
        retries = retries if self.retries is None else self.retries
        return HttpSettings(connect_timeout=connect, read_timeout=read, max_retries=retries)


def _checked_timeout(value: object, what: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or not 0 < value <= MAX_TIMEOUT
    ):
        raise BadInput(
            f"{what} must be a number of seconds above 0 and at most {MAX_TIMEOUT:g}, not {value!r}"
        )
    return float(value)


def _checked_retries(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_RETRIES:
        raise BadInput(f"{what} must be a whole number from 0 to {MAX_RETRIES}, not {value!r}")
    return value


def _overrides(timeout: float | None, retries: int | None, env: Mapping[str, str]) -> _Overrides:
    """The parameters if given, else ``ARBORIST_TIMEOUT`` / ``ARBORIST_RETRIES``, checked."""
    if timeout is None:
        raw = env.get("ARBORIST_TIMEOUT", "").strip()
        if raw:
            try:
                seconds = float(raw) if re.fullmatch(r"[0-9.eE+-]+", raw) else math.nan
            except ValueError:
                seconds = math.nan
            if not (math.isfinite(seconds) and 0 < seconds <= MAX_TIMEOUT):
                raise BadInput(
                    "ARBORIST_TIMEOUT must be a number of seconds above 0 and at most "
                    f"{MAX_TIMEOUT:g}, not {raw[:40]!r}"
                )
            timeout = seconds
    if retries is None:
        raw = env.get("ARBORIST_RETRIES", "").strip()
        if raw:
            if not re.fullmatch(r"[0-9]{1,9}", raw) or int(raw) > MAX_RETRIES:
                raise BadInput(
                    f"ARBORIST_RETRIES must be a whole number from 0 to {MAX_RETRIES}, "
                    f"not {raw[:40]!r}"
                )
            retries = int(raw)
    return _Overrides(timeout, retries)


def _from_profile(
    name: str,
    profile: Mapping[str, object],
    env: Mapping[str, str],
    timeout: float | None = None,
    retries: int | None = None,
    trust: Trust = YOURS,
) -> ChatClient:
    """A client built from ``[models.NAME]`` in config.toml (``timeout`` and ``retries``
    override its settings, see :func:`select_client`; ``trust``, the file's)."""
    where = f"model profile {name!r}"
    provider = profile.get("provider", "openai")
    if provider not in _PROFILE_KEYS:
        raise BadInput(f"{where}: provider must be openai, extractive or stub, not {provider!r}")
    assert isinstance(provider, str)
    if profile.get("kind", "chat") != "chat":
        raise BadInput(f"{where} is of kind {profile.get('kind')!r}: it does not answer questions")
    unknown = sorted(set(profile) - _PROFILE_KEYS[provider] - {"kind"})
    if unknown:
        raise BadInput(f"{where}: unknown setting {unknown[0]!r} for provider {provider}")
    if provider == "extractive":
        return ExtractiveClient(
            name=name,
            max_sentences=_whole(profile, "max_sentences", where, 3) or 0,
            max_chars=_whole(profile, "max_chars", where, 600) or 0,
        )
    if provider == "stub":
        return StubClient(_string(profile, "text", where), name=name)
    return _openai_profile(name, profile, where, env, timeout, retries, trust)


@dataclass(frozen=True)
class ServerSettings:
    """Where a profile's OpenAI-compatible server is, and how long to wait for it."""

    base_url: str
    model: str
    api_key: str | None
    http: HttpSettings
    key_from: str = "no key"
    """Where the key came from, as the user is told (the variable and the file naming it)."""


def server_settings(
    profile: Mapping[str, object],
    where: str,
    env: Mapping[str, str],
    timeout: float | None,
    retries: int | None,
    example_url: str,
    trust: Trust = YOURS,
) -> ServerSettings:
    """A profile's server, model, API key (read from the variable ``api_key_env`` names,
    never from the file) and timeouts, each bad or missing one refused in one line; shared by
    chat and embeddings profiles, so the one place a config.toml's :class:`Trust` is held
    to: a file that is not the user's own word names a server off this machine, and it is
    refused here, before its key variable is even read."""
    base_url = _string(profile, "base_url", where)
    model = _string(profile, "model", where)
    if not base_url:
        raise BadInput(f"{where}: set base_url (e.g. {example_url})")
    if not model:
        raise BadInput(f"{where}: set model (the name the server knows the model by)")
    key_env = _string(profile, "api_key_env", where)
    if trust.doubt and not on_loopback(base_url):
        raise trust.refusal(where, server_url(base_url))
    api_key = None
    if key_env:
        api_key = env.get(key_env)
        if not api_key:
            raise BadInput(f"{where} reads its API key from ${key_env}, which is not set")
    http = _overrides(timeout, retries, env).apply(
        *_timeouts(profile, where), _whole(profile, "max_retries", where, DEFAULT_RETRIES) or 0
    )
    named = f", named by {trust.source}" if trust.source else ""
    key_from = f"key from ${key_env}{named}" if key_env else "no key"
    return ServerSettings(base_url, model, api_key, http, key_from)


def _openai_profile(
    name: str,
    profile: Mapping[str, object],
    where: str,
    env: Mapping[str, str],
    timeout: float | None,
    retries: int | None,
    trust: Trust,
) -> OpenAIClient:
    """The client of a profile whose provider is ``openai`` (the default provider)."""
    server = server_settings(
        profile, where, env, timeout, retries, "http://localhost:8000/v1", trust
    )
    return OpenAIClient(
        server.base_url,
        server.model,
        api_key=server.api_key,
        name=name,
        temperature=_number(profile, "temperature", where),
        max_tokens=_whole(profile, "max_tokens", where, None),
        top_p=_number(profile, "top_p", where),
        system_prompt=_string(profile, "system_prompt", where) or SYSTEM_PROMPT,
        context_tokens=_whole(profile, "context_tokens", where, None),
        http=server.http,
    )


def select_client(
    name: str | None = None,
    *,
    config: Mapping[str, object] | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    retries: int | None = None,
) -> ChatClient:
    """The client a user asked for: ``name`` (``--llm``), else ``$ARBORIST_LLM``, else extractive.

    ``openai`` is configured from ``ARBORIST_BASE_URL``, ``ARBORIST_MODEL`` and
    ``ARBORIST_API_KEY``; any other name is a ``[models.NAME]`` profile of
    ``config`` (the parsed config.toml), whose key, if any, comes from the
    environment variable its ``api_key_env`` names. The built-in names win
    over profiles of the same name. A profile may name a server off this
    machine only when ``config`` is the user's own word (its :class:`Trust`,
    :mod:`arborist._config`; a mapping passed here is). Nothing is contacted here.

    How long a remote model is waited for, and how often it is asked again,
    come from the first of: the ``timeout`` (seconds) and ``retries``
    parameters (a CLI's ``--timeout``), the environment's ``ARBORIST_TIMEOUT``
    (a number of seconds above 0) and ``ARBORIST_RETRIES`` (a whole number, 0
    for none), the profile's ``timeout`` and ``max_retries``, the defaults
    (:data:`DEFAULT_READ_TIMEOUT`, :data:`DEFAULT_RETRIES`). Each of the two is
    chosen on its own, and an overriding timeout is the read timeout and caps
    the connect timeout. A bad value is a one-line :class:`BadInput` naming
    the parameter or variable (the parameters are checked whatever the model;
    the environment is only read, and checked, when the chosen model is a
    remote one). The offline models ignore both.
    """
    env = os.environ if env is None else env
    if timeout is not None:
        timeout = _checked_timeout(timeout, "timeout")
    if retries is not None:
        retries = _checked_retries(retries, "retries")
    chosen = (name or "").strip() or env.get("ARBORIST_LLM", "").strip() or DEFAULT_CLIENT
    if chosen == "extractive":
        return ExtractiveClient()
    if chosen == "stub":
        return StubClient()
    if chosen == "openai":
        return _from_environment(env, timeout, retries)
    profile = _profile(chosen, config)
    return _from_profile(chosen, profile, env, timeout, retries, trust_of(config))


def _from_environment(
    env: Mapping[str, str], timeout: float | None, retries: int | None
) -> OpenAIClient:
    """The ``openai`` model: its server, model and key from ``ARBORIST_BASE_URL``,
    ``ARBORIST_MODEL`` and ``ARBORIST_API_KEY``."""
    base_url = env.get("ARBORIST_BASE_URL", "").strip()
    model = env.get("ARBORIST_MODEL", "").strip()
    if not base_url:
        raise BadInput(
            "the openai model needs a server: set ARBORIST_BASE_URL (e.g. http://localhost:8000/v1)"
        )
    if not model:
        raise BadInput("the openai model needs a model name: set ARBORIST_MODEL")
    http = _overrides(timeout, retries, env).apply(
        DEFAULT_CONNECT_TIMEOUT, DEFAULT_READ_TIMEOUT, DEFAULT_RETRIES
    )
    return OpenAIClient(base_url, model, api_key=env.get("ARBORIST_API_KEY") or None, http=http)


LOCAL_SERVER = "http://127.0.0.1:8080/v1"
"""Where a llama.cpp server listens unless told otherwise (``llama-server --port 8080``)."""

NAMED_PROFILES: Mapping[str, Mapping[str, object]] = {
    "qwen": {"provider": "openai", "base_url": LOCAL_SERVER, "model": "qwen2.5-7b-instruct"},
    "hermes": {"provider": "openai", "base_url": LOCAL_SERVER, "model": "hermes-3-llama-3.1-8b"},
}
"""The seeds' two local models (``make session LLM=qwen``, ``LLM=hermes``), named out of the
box: an OpenAI-compatible server on this machine (a llama.cpp or vLLM serving the model).
A ``[models.qwen]`` or ``[models.hermes]`` profile in config.toml replaces them whole."""


def _profile(chosen: str, config: Mapping[str, object] | None) -> Mapping[str, object]:
    """The ``[models.NAME]`` table of config.toml for a name that is not a built-in, else
    one of :data:`NAMED_PROFILES`."""
    models = (config or {}).get("models", {})
    if not isinstance(models, Mapping):
        raise BadInput("config.toml: [models] must be a table of model profiles")
    profile = models.get(chosen, NAMED_PROFILES.get(chosen))
    if profile is None:
        raise BadInput(
            f"unknown model {chosen!r}: choose extractive, stub, openai, qwen, hermes or a "
            f"[models.{chosen}] profile in config.toml"
        )
    if not isinstance(profile, Mapping):
        raise BadInput(f"config.toml: [models.{chosen}] must be a table")
    return profile

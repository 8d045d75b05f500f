"""The embeddings client: ``POST /embeddings`` on any OpenAI-compatible server, and its setup.

Servers: llama.cpp (``llama-server --embedding``), Ollama, vLLM, OpenAI. How the
server is reached, waited for and retried, and how its failures become one
line, is :class:`~arborist._qa.http.RemoteModel`'s, as for the chat client; this
module builds the payload (``input``: a batch of texts) and checks the reply:
exactly one vector per text, each of the same (configured) dimension, every
component a finite number, none all zeros. Vectors come back normalized float32.
A request that times out is split in two and each half asked for, the smaller
size kept for the rest of the run (:meth:`EmbeddingsClient.embed`); a server's
client embeds a chunk's passages, as the local model does, and its profile holds
the model's roles (:mod:`arborist._qa.roles`: what goes before a question and a
passage), so another prefix is other vectors.

Which model embeds (:func:`select_embedder`), first match wins:

1. ``ARBORIST_EMBED_BASE_URL`` and ``ARBORIST_EMBED_MODEL`` (key:
   ``ARBORIST_EMBED_API_KEY``; ``ARBORIST_EMBED_BATCH_SIZE``, and the roles'
   ``ARBORIST_EMBED_FAMILY``, ``ARBORIST_EMBED_QUERY_PREFIX``,
   ``ARBORIST_EMBED_DOCUMENT_PREFIX``);
2. ``[embeddings]`` in config.toml with ``base_url`` and ``model`` (or
   ``profile = "NAME"`` naming a ``[models.NAME]`` with ``kind = "embeddings"``);
3. the one ``[models.NAME]`` with ``kind = "embeddings"``.

A profile with ``provider = "local"`` (or ``ARBORIST_EMBED_PROVIDER=local``) runs
all-MiniLM-L6-v2 in process instead of calling a server
(:class:`~arborist._qa.local_embed.LocalEmbedder`: the ``local`` extra; optional
``path``, ``max_tokens``, ``batch_size``). With none of them retrieval stays lexical. The API key is read from the
environment and sent in the ``Authorization`` header only: it is in no profile,
no error and no file.

A config.toml that is not the user's own word (:mod:`arborist._config`: a home beside a
notebook the user did not allow, a link, a file others can change) may name only a loopback
server, as for chat models; and a client of a server off this machine says so once per
command or cell (:meth:`EmbeddingsClient.leaving`): the host, and where its key came from.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

import httpx
import numpy as np
from numpy.typing import NDArray

from arborist._config import YOURS, Trust, on_loopback, trust_of
from arborist._errors import BadInput
from arborist._gate.admission import admit_profile
from arborist._qa.http import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_RETRIES,
    STILL_ARRIVING,
    Attempt,
    HttpSettings,
    RemoteModel,
    Retryable,
    error_text,
)
from arborist._qa.models import _overrides, _whole, server_settings
from arborist._qa.roles import Roles, checked_prefix, family_roles, named_family
from arborist._store.passages import PASSAGES
from arborist._store.vectors import Embedder, profile_key

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_EMBED_TIMEOUT",
    "EmbeddingsClient",
    "MAX_BATCH_SIZE",
    "embedder_facts",
    "embedder_from_profile",
    "select_embedder",
]

DEFAULT_BATCH_SIZE = 32
"""Texts per request unless a profile says otherwise (llama.cpp and Ollama take 32 well)."""
DEFAULT_EMBED_TIMEOUT = 60.0
"""Seconds a request of texts may wait for its reply unless a profile says otherwise: a
batch that takes longer is split in two and each half asked again (see
:meth:`EmbeddingsClient.embed`), so a slow server costs smaller batches, not the run."""
MAX_BATCH_SIZE = 2048
"""OpenAI's own limit on inputs per request."""

_LOCAL_KEYS = {"kind", "provider", "path", "max_tokens", "batch_size"}
"""The settings of a ``provider = "local"`` profile."""

_KEYS = {
    "kind",
    "provider",
    "base_url",
    "model",
    "api_key_env",
    "dimensions",
    "batch_size",
    "timeout",
    "max_retries",
    "family",
    "query_prefix",
    "document_prefix",
}


class _TimedOut(Exception):
    """A request of texts that ran out of time (no reply, or one still arriving): the
    batch is split, not asked again whole."""


class EmbeddingsClient(RemoteModel):
    """A client of ``POST {base_url}/embeddings``: one request per ``batch_size`` texts.

    ``dimensions``, when set, is the vector size the model must answer (a reply of
    another size is an error); it is part of the profile either way. ``roles`` says what
    goes before a question and a passage (default: the model family's, from its name,
    :func:`arborist._qa.roles.family_roles`). A chunk is embedded as its passages
    (:mod:`arborist._store.passages`), keyed as the local model keys them.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        name: str = "embeddings",
        dimensions: int | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        roles: Roles | None = None,
        http: HttpSettings | None = None,
        key_from: str | None = None,
    ) -> None:
        http = http or HttpSettings(read_timeout=DEFAULT_EMBED_TIMEOUT)
        super().__init__(
            base_url,
            model,
            api_key=api_key,
            name=name,
            http=http,
        )
        if dimensions is not None and (
            isinstance(dimensions, bool) or not isinstance(dimensions, int) or dimensions < 1
        ):
            raise BadInput(f"dimensions must be a whole number of 1 or more, not {dimensions!r}")
        if (
            isinstance(batch_size, bool)
            or not isinstance(batch_size, int)
            or not 1 <= batch_size <= MAX_BATCH_SIZE
        ):
            raise BadInput(
                f"batch_size must be a whole number from 1 to {MAX_BATCH_SIZE}, not {batch_size!r}"
            )
        self.dimensions = dimensions
        self.batch_size = batch_size
        self.roles = family_roles(model) if roles is None else roles
        self.working_size = batch_size
        """Texts per request now: ``batch_size`` until a request times out, then half of
        the size that timed out, for the rest of the run."""
        self.key_from = key_from or ("a key given in code" if api_key else "no key")
        """Where the key came from, as :meth:`leaving` tells it (never the key)."""

    def leaving(self) -> str | None:
        """The line that tells the user what leaves this machine for a server that is not
        on loopback (None for one that is): the server, the model, where the key came from."""
        if on_loopback(self.base_url):
            return None
        return (
            f"embeddings: this run's questions and passages go to {self._display} "
            f"(model {self.model}; {self.key_from})"
        )

    def profile(self) -> dict[str, object]:
        """What made a vector: the server (normalised, no credentials), model, dimensions,
        the passage rule and the roles' prefixes. Not the batch size, timeouts or retries
        (they change no vector), never the key: every string passes the admission gate (a
        key in the URL's path or the model name is redacted, the client's own key whatever
        its shape)."""
        profile: dict[str, object] = {
            "kind": "embeddings",
            "provider": "openai",
            "server": self._display,
            "model": self.model,
            "dimensions": self.dimensions,
            "passages": PASSAGES,
            **self.roles.profile(),
        }
        return admit_profile(profile, secrets=(self._api_key,))

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """One normalized float32 row per text, in order, ``working_size`` texts a request.
        A request that times out (no reply within the read timeout, or one still arriving)
        is split in two and each half asked for; the smaller size is kept for the requests
        after. A single text that times out is a one-line :class:`ModelError`."""
        rows: list[NDArray[np.float32]] = []
        start = 0
        while start < len(texts):
            batch = list(texts[start : start + self.working_size])
            rows.append(self._split_on_timeout(batch))
            start += len(batch)
        if not rows:
            return np.zeros((0, self.dimensions or 1), dtype=np.float32)
        return self._joined(rows)

    def _joined(self, parts: list[NDArray[np.float32]]) -> NDArray[np.float32]:
        """The vectors of several requests, one matrix: refused in one line when two
        replies answered different dimensions."""
        sizes = sorted({int(part.shape[1]) for part in parts})
        if len(sizes) > 1:
            raise self._error(
                f"the server answered {sizes[0]} dimensions for some texts and {sizes[-1]} "
                "for others"
            )
        return np.concatenate(parts)

    def _split_on_timeout(self, batch: list[str]) -> NDArray[np.float32]:
        """The batch's vectors, asked for in halves (and halves of those) while it times out."""
        try:
            return self._batch(batch)
        except _TimedOut as exc:
            if len(batch) == 1:
                raise self._error(
                    f"one text took longer than the {exc} s timeout to embed; raise the "
                    "embeddings profile's timeout (or ARBORIST_TIMEOUT)"
                ) from None
            half = (len(batch) + 1) // 2
            self.working_size = min(self.working_size, half)
            first = self._split_on_timeout(batch[:half])
            return self._joined([first, self._split_on_timeout(batch[half:])])

    def _batch(self, batch: list[str]) -> NDArray[np.float32]:
        """One request: a batch of texts, their vectors."""
        payload = {"model": self.model, "input": batch, "encoding_format": "float"}
        return self._post(
            "embeddings",
            payload,
            "application/json",
            lambda response, attempt: self._read(response, attempt, len(batch)),
        )

    def _attempt(self, *args: Any, **kwargs: Any) -> Any:
        """One request, as :class:`RemoteModel`'s, except that running out of time is
        :class:`_TimedOut` (the batch is split) rather than a retry of the same texts."""
        try:
            return super()._attempt(*args, **kwargs)
        except Retryable as exc:
            late = (httpx.ReadTimeout, httpx.WriteTimeout)
            timed_out = isinstance(exc.__cause__, late) or exc.cause.startswith(STILL_ARRIVING)
            if timed_out:
                raise _TimedOut(f"{self.timeouts.read:g}") from exc
            raise

    def _read(self, response: httpx.Response, attempt: Attempt, count: int) -> NDArray[np.float32]:
        """A reply's vectors, checked and normalized, else a one-line ModelError."""
        self._read_whole(response, attempt.whole_by)
        body = self._json_object(response)
        if body.get("error") is not None and "data" not in body:
            reason = error_text(body) or str(body["error"])
            raise self._error(f"the server answered an error: {self._quote(reason)}")
        data = body.get("data")
        if not isinstance(data, list):
            raise self._error("the response has no data list")
        if len(data) != count:
            raise self._error(f"asked for {count} vectors, the server answered {len(data)}")
        vectors = [self._vector(item, position) for position, item in enumerate(data)]
        order = [
            item.get("index", i) if isinstance(item, dict) else i for i, item in enumerate(data)
        ]
        if sorted(order) != list(range(count)):
            raise self._error("the response's data indexes are not 0 to n-1")
        sizes = {len(v) for v in vectors}
        expected = self.dimensions or (sizes.pop() if len(sizes) == 1 else None)
        for position, vector in enumerate(vectors):
            if len(vector) != expected:
                raise self._error(
                    f"vector {position} has {len(vector)} dimensions, expected "
                    f"{expected if expected is not None else 'one size for all'}"
                )
        matrix = np.zeros((count, len(vectors[0]) if vectors else 1), dtype=np.float64)
        for index, vector in zip(order, vectors, strict=True):
            matrix[int(index)] = vector
        with np.errstate(over="ignore", under="ignore"):  # judged below, never warned of
            norms = np.linalg.norm(matrix, axis=1)
        for position, norm in enumerate(norms):
            if not np.isfinite(norm):
                raise self._error(
                    f"vector {position} is out of range: its length overflows a float "
                    "(components past about 1e154)"
                )
            if norm == 0:
                zeros = not np.any(matrix[position])
                raise self._error(
                    "the server answered a vector of zeros"
                    if zeros
                    else f"vector {position} is out of range: too small to normalize"
                )
        unit: NDArray[np.float32] = (matrix / norms[:, None]).astype(np.float32)
        return unit

    def _vector(self, item: object, position: int) -> list[float]:
        """One item's embedding: a non-empty list of finite numbers."""
        embedding = item.get("embedding") if isinstance(item, dict) else None
        if not isinstance(embedding, list) or not embedding:
            raise self._error(f"data item {position} has no embedding list")
        numbers: list[float] = []
        for value in embedding:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise self._error(f"vector {position} holds a value that is not a number")
            try:
                number = float(value)  # an integer of 400 digits is no float: OverflowError
            except OverflowError:
                number = math.inf
            if not math.isfinite(number):
                shown = f"{value!r}" if isinstance(value, float) else "an integer past 1e308"
                raise self._error(f"vector {position} holds {shown}, not a finite number")
            numbers.append(number)
        return numbers


def _local(profile: Mapping[str, object], where: str) -> Embedder:
    """The in-process embedder of a ``provider = "local"`` profile."""
    from arborist._qa.local_embed import (  # noqa: PLC0415 - numpy and the weights, on demand
        DEFAULT_BATCH,
        DEFAULT_MAX_TOKENS,
        LocalEmbedder,
    )

    unknown = sorted(set(profile) - _LOCAL_KEYS)
    if unknown:
        raise BadInput(f'{where}: unknown setting {unknown[0]!r} for provider = "local"')
    path = profile.get("path")
    if path is not None and not isinstance(path, str):
        raise BadInput(f"{where}: path must be a string")
    return LocalEmbedder(
        path,
        max_tokens=_whole(profile, "max_tokens", where, DEFAULT_MAX_TOKENS) or 0,
        batch_size=_whole(profile, "batch_size", where, DEFAULT_BATCH) or 0,
    )


def _roles(settings: Mapping[str, object], model: str, where: str) -> Roles:
    """The roles a profile sets (``query_prefix`` / ``document_prefix``, or ``family``),
    else those of the model's family (:func:`arborist._qa.roles.family_roles`)."""
    family = settings.get("family")
    if family is not None and not isinstance(family, str):
        raise BadInput(f"{where}: family must be a string")
    roles = named_family(family, where) if family else family_roles(model)
    if "query_prefix" not in settings and "document_prefix" not in settings:
        return roles
    query, document = (
        checked_prefix(settings.get(key, default), key, where)
        for key, default in (("query_prefix", roles.query), ("document_prefix", roles.document))
    )
    return Roles(query, document, "config")


def embedder_from_profile(
    name: str, profile: Mapping[str, object], env: Mapping[str, str], trust: Trust = YOURS
) -> Embedder:
    """An embedder built from an ``[embeddings]`` table or a ``[models.NAME]`` of kind
    embeddings: a client of a server (held to the file's ``trust``), or the local model."""
    where = f"embeddings profile {name!r}"
    if profile.get("provider") == "local":
        return _local(profile, where)
    unknown = sorted(set(profile) - _KEYS)
    if unknown:
        raise BadInput(f"{where}: unknown setting {unknown[0]!r}")
    if profile.get("provider", "openai") != "openai":
        raise BadInput(f"{where}: provider must be openai (any OpenAI-compatible server) or local")
    timed = {"timeout": DEFAULT_EMBED_TIMEOUT, **profile}
    server = server_settings(timed, where, env, None, None, "http://localhost:8080/v1", trust)
    return EmbeddingsClient(
        server.base_url,
        server.model,
        api_key=server.api_key,
        name=name,
        dimensions=_whole(profile, "dimensions", where, None),
        batch_size=_whole(profile, "batch_size", where, DEFAULT_BATCH_SIZE) or 0,
        roles=_roles(profile, server.model, where),
        http=server.http,
        key_from=server.key_from,
    )


_ENV_SETTINGS = {
    "ARBORIST_EMBED_FAMILY": "family",
    "ARBORIST_EMBED_QUERY_PREFIX": "query_prefix",
    "ARBORIST_EMBED_DOCUMENT_PREFIX": "document_prefix",
}
"""The variables that set an ``ARBORIST_EMBED_BASE_URL`` server's roles, by setting."""


def _from_env(base_url: str, model: str, env: Mapping[str, str]) -> EmbeddingsClient:
    """The client of the server ``ARBORIST_EMBED_BASE_URL`` names (``ARBORIST_EMBED_BATCH_SIZE``
    texts a request, :data:`DEFAULT_EMBED_TIMEOUT` unless ``ARBORIST_TIMEOUT``; roles by
    :data:`_ENV_SETTINGS`)."""
    http = _overrides(None, None, env).apply(
        DEFAULT_CONNECT_TIMEOUT, DEFAULT_EMBED_TIMEOUT, DEFAULT_RETRIES
    )
    size = env.get("ARBORIST_EMBED_BATCH_SIZE", "").strip() or str(DEFAULT_BATCH_SIZE)
    if not size.isdigit() or not 1 <= int(size) <= MAX_BATCH_SIZE:
        raise BadInput(
            f"ARBORIST_EMBED_BATCH_SIZE must be a whole number from 1 to {MAX_BATCH_SIZE}, "
            f"not {size[:40]!r}"
        )
    settings = {key: env[name] for name, key in _ENV_SETTINGS.items() if name in env}
    key = env.get("ARBORIST_EMBED_API_KEY") or None
    return EmbeddingsClient(
        base_url,
        model,
        api_key=key,
        batch_size=int(size),
        roles=_roles(settings, model, "ARBORIST_EMBED_*"),
        http=http,
        key_from="key from $ARBORIST_EMBED_API_KEY" if key else "no key",
    )


def _configured(config: Mapping[str, object]) -> tuple[str, Mapping[str, object]] | None:
    """The embeddings settings of config.toml, by name, if there are any."""
    models = config.get("models", {})
    if not isinstance(models, Mapping):
        raise BadInput("config.toml: [models] must be a table of model profiles")
    section = config.get("embeddings")
    if section is not None and not isinstance(section, Mapping):
        raise BadInput("config.toml: [embeddings] must be a table")
    if section and "profile" in section:
        chosen = section["profile"]
        found = models.get(chosen) if isinstance(chosen, str) else None
        if not isinstance(found, Mapping) or found.get("kind") != "embeddings":
            raise BadInput(
                f"config.toml: [embeddings] profile = {chosen!r} names no [models.NAME] "
                'with kind = "embeddings"'
            )
        return str(chosen), found
    if section:
        return "embeddings", section
    kinds = [
        n for n, p in models.items() if isinstance(p, Mapping) and p.get("kind") == "embeddings"
    ]
    if len(kinds) > 1:
        raise BadInput(
            f"config.toml: several embeddings models ({', '.join(sorted(kinds))}); choose one "
            'with [embeddings] profile = "NAME"'
        )
    return (kinds[0], models[kinds[0]]) if kinds else None


def select_embedder(
    config: Mapping[str, object] | None = None, env: Mapping[str, str] | None = None
) -> Embedder | None:
    """The embedding model configured (see the module's docstring), else None (lexical only).
    A bad setting is a one-line :class:`BadInput`; nothing is contacted here."""
    env = os.environ if env is None else env
    provider = env.get("ARBORIST_EMBED_PROVIDER", "").strip()
    if provider:
        if provider != "local":
            raise BadInput(
                f"ARBORIST_EMBED_PROVIDER must be local, not {provider!r} (a server is named "
                "by ARBORIST_EMBED_BASE_URL and ARBORIST_EMBED_MODEL)"
            )
        return _local({"provider": "local"}, "ARBORIST_EMBED_PROVIDER=local")
    base_url = env.get("ARBORIST_EMBED_BASE_URL", "").strip()
    model = env.get("ARBORIST_EMBED_MODEL", "").strip()
    if base_url or model:
        if not base_url:
            raise BadInput("ARBORIST_EMBED_MODEL is set: set ARBORIST_EMBED_BASE_URL too")
        if not model:
            raise BadInput("ARBORIST_EMBED_BASE_URL is set: set ARBORIST_EMBED_MODEL too")
        return _from_env(base_url, model, env)
    found = _configured(config or {})
    if found is None:
        return None
    return embedder_from_profile(found[0], found[1], env, trust_of(config))


def embedder_facts(embedder: Embedder) -> dict[str, object]:
    """What ``arborist models`` shows of an embedder: its profile and the profile's key
    (what its vectors are stored under), its roles and where they came from, and how it
    is asked (texts a request; a server's timeout in seconds)."""
    profile = embedder.profile()
    roles = embedder.roles if isinstance(embedder, EmbeddingsClient) else None
    roles = roles or family_roles(str(profile.get("model", "")))
    facts: dict[str, object] = {
        "profile": profile,
        "profile_key": profile_key(profile),
        "query_prefix": roles.query,
        "document_prefix": roles.document,
        "roles": roles.describe(),
        "batch_size": embedder.batch_size,
    }
    if isinstance(embedder, EmbeddingsClient):
        facts["timeout"] = embedder.timeouts.read
    return facts

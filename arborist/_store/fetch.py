"""Documents from the network, and any stored document loaded again from its URI.

:func:`fetch_url` GETs a page and hands its body to the same parsing as a
file's (:func:`~arborist._store.loaders.load_bytes`); :func:`refetch` is
rehydration, which must land on the same text as the first load. httpx is
imported on the first fetch, not with this module: it is one of the heaviest
imports arborist has, and most commands never fetch.

A fetch is bounded twice: its body by ``max_bytes`` (checked as it streams, after
decompression), and the whole of it, redirects included, by one deadline
(:data:`DEFAULT_FETCH_DEADLINE`, or ``ARBORIST_FETCH_DEADLINE``). httpx's own timeouts
bound each wait for bytes, so a server dripping a byte at a time would never meet them;
at the deadline the connection is shut down, even in the middle of a read or of the
headers, and the fetch is one line naming the URL.
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from contextlib import suppress
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arborist._errors import BadInput, NotFound, one_line
from arborist._store.demo import load_module_doc
from arborist._store.loaders import (
    MEDIA_TYPES,
    LoadedDocument,
    load_owned,
    load_path,
    local_path,
)
from arborist._store.redirects import (
    MAX_REDIRECTS,
    Resolver,
    address_class,
    refusal,
    resolve,
)
from arborist._store.uris import unquoted

if TYPE_CHECKING:
    import httpx

__all__ = [
    "DEFAULT_FETCH_DEADLINE",
    "FETCH_DEADLINE_ENV",
    "MAX_FETCH_BYTES",
    "fetch_deadline",
    "fetch_url",
    "refetch",
    "url_file_name",
]

MAX_FETCH_BYTES = 50 * 1024 * 1024
"""Largest body :func:`fetch_url` accepts (after decompression, so a gzip bomb stops here too)."""

DEFAULT_FETCH_DEADLINE = 120.0
"""Seconds a whole fetch may take, from the first connection to the last byte, redirects
included (a 50 MB page arrives in well under that on any working link)."""

FETCH_DEADLINE_ENV = "ARBORIST_FETCH_DEADLINE"
"""The environment variable that sets the deadline instead (seconds, above 0, at most a day)."""

_MAX_DEADLINE = 86_400.0

# HTTP Content-Type → media type. Generic types (text/plain, octet-stream, none)
# defer to the URL's suffix first: raw file hosts serve .md, .ipynb, even .html as text/plain.
_CONTENT_TYPES = {
    "text/html": "text/html",
    "application/xhtml+xml": "text/html",
    "text/markdown": "text/markdown",
    "text/x-markdown": "text/markdown",
    "text/x-rst": "text/x-rst",
    "text/prs.fallenstein.rst": "text/x-rst",
    "text/x-python": "text/x-python",
    "text/x-script.python": "text/x-python",
    "application/x-python": "text/x-python",
    "application/pdf": "application/pdf",
    "application/x-ipynb+json": "application/x-ipynb+json",
}
_GENERIC_CONTENT_TYPES = frozenset(
    {"", "text/plain", "application/octet-stream", "binary/octet-stream"}
)
_JSON_CONTENT_TYPES = frozenset({"application/json", "text/json"})
_CONTENT_TYPE_CHARSET = re.compile(r"""charset\s*=\s*["']?([A-Za-z0-9_.:-]{1,40})""", re.I)


def fetch_deadline(seconds: float | None = None) -> float:
    """The deadline of a fetch: ``seconds`` if given, else ``ARBORIST_FETCH_DEADLINE``, else
    :data:`DEFAULT_FETCH_DEADLINE`; a bad value is one line naming where it came from."""
    where = "the fetch deadline"
    value: object = seconds
    if seconds is None:
        raw = os.environ.get(FETCH_DEADLINE_ENV, "").strip()
        if not raw:
            return DEFAULT_FETCH_DEADLINE
        where = FETCH_DEADLINE_ENV
        try:
            value = float(raw)
        except ValueError:
            value = raw
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not 0 < value <= _MAX_DEADLINE
    ):
        raise BadInput(
            f"{where} must be a number of seconds above 0 and at most {_MAX_DEADLINE:g}, "
            f"not {value!r}"
        )
    return float(value)


class _Deadline:
    """One fetch's deadline: a timer that, when it runs out, shuts down every connection the
    fetch opened (httpx's ``trace`` extension names each as it is made), so a read blocked
    on a dripping server returns at once, whether it waits for the headers or the body."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.ends = time.monotonic() + seconds
        self.fired = False
        self._streams: list[Any] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()

    @property
    def passed(self) -> bool:
        return self.fired or time.monotonic() >= self.ends

    def left(self) -> float:
        return max(self.ends - time.monotonic(), 0.001)

    def trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's trace callback: keep each connection (a TLS one too) as it is made."""
        if event.endswith((".connect_tcp.complete", ".start_tls.complete")):
            stream = info.get("return_value")
            if stream is not None:
                with self._lock:
                    self._streams.append(stream)
                    if self.fired:
                        _shut(stream)

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            for stream in self._streams:
                _shut(stream)


def _shut(stream: Any) -> None:
    """Shut a connection down both ways: a read blocked on it returns."""
    with suppress(Exception):  # already closed, or a stream of another kind: nothing to cut
        sock = stream.get_extra_info("socket")
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)


def fetch_url(
    url: str,
    *,
    client: httpx.Client | None = None,
    timeout: float = 30.0,
    max_bytes: int = MAX_FETCH_BYTES,
    deadline: float | None = None,
    resolver: Resolver = resolve,
) -> LoadedDocument:
    """GET an http(s) URL (following redirects) and load its body; ``uri`` is the URL as given,
    ``fetched_from`` the URL the body came from when redirects led elsewhere.

    Each hop's host is resolved (``resolver``) and connected to at the address checked:
    a redirect to a host with any address that is neither public nor of the first URL's
    class (loopback, link-local, private: :mod:`arborist._store.redirects`), or to a
    scheme other than http(s), is refused in one line before it is connected to.

    The media type comes from ``Content-Type``; a generic one (text/plain,
    octet-stream, none) defers to the final URL's suffix, so raw file hosts
    serving ``.md`` or ``.ipynb`` as text/plain still load as what they are.
    404 and 410 are ``NotFound``; every other non-2xx status, a network error,
    a timeout, a body over ``max_bytes`` (declared or streamed) or a fetch still
    under way at ``deadline`` seconds (:func:`fetch_deadline`) is ``BadInput``.
    ``timeout`` bounds each wait for bytes, ``deadline`` the whole fetch.
    """
    import httpx  # noqa: PLC0415 - on the first fetch, not with this module: see its docstring

    seconds = fetch_deadline(deadline)
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError) as exc:
        raise BadInput(f"{url}: not a valid URL: {one_line(exc)}") from exc
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise BadInput(f"{url}: only http(s) URLs can be fetched")
    with _Deadline(seconds) as clock:
        try:
            if client is None:
                with httpx.Client(follow_redirects=False, timeout=timeout) as own:
                    return _fetch(own, url, timeout, max_bytes, clock, resolver)
            return _fetch(client, url, timeout, max_bytes, clock, resolver)
        except httpx.HTTPError as exc:
            if clock.passed:
                raise _too_slow(url, clock) from exc
            detail = one_line(exc) or type(exc).__name__
            raise BadInput(f"cannot fetch URL: {url}: {detail}") from exc


def _too_slow(url: str, clock: _Deadline) -> BadInput:
    """The deadline's refusal, caused by a timeout: what the network did, so the command
    exits 1 however the deadline was met (:func:`arborist._faces.cli.exit_code`; a
    ``raise ... from`` an httpx error gives another cause of the same kind)."""
    slow = BadInput(
        f"cannot fetch URL: {url}: not fetched within the {clock.seconds:g} s deadline "
        f"(set {FETCH_DEADLINE_ENV} to wait longer)"
    )
    slow.__cause__ = TimeoutError(f"the {clock.seconds:g} s deadline of a fetch")
    return slow


_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


def _pinned(hop: httpx.URL, address: str) -> tuple[httpx.URL, dict[str, str], dict[str, Any]]:
    """The request for ``hop`` sent to ``address``: the URL with the address for its host,
    the name in ``Host`` and, for https, as the TLS server name (the certificate is
    checked against it)."""
    host_header = hop.host if hop.port is None else f"{hop.host}:{hop.port}"
    extensions: dict[str, Any] = {"sni_hostname": hop.host} if hop.scheme == "https" else {}
    return hop.copy_with(host=address), {"Host": host_header}, extensions


def _fetch(
    client: httpx.Client,
    url: str,
    timeout: float,
    max_bytes: int,
    clock: _Deadline,
    resolver: Resolver,
) -> LoadedDocument:
    import httpx  # noqa: PLC0415 - see fetch_url

    hop = httpx.URL(url)
    first: str | None = None  # the first URL's class of address: what its redirects may reach
    for _ in range(MAX_REDIRECTS + 1):
        if hop.scheme not in ("http", "https") or not hop.host:
            raise BadInput(f"{url}: a redirect to {hop} was refused: only http(s) URLs are fetched")
        try:
            addresses = resolver(hop.host, hop.port or (443 if hop.scheme == "https" else 80))
        except BadInput as exc:
            raise BadInput(f"cannot fetch URL: {url}: {exc}") from exc
        if first is None:
            first = address_class(addresses[0])
        else:
            why = refusal(first, str(hop), addresses)
            if why is not None:
                raise BadInput(f"{url}: {why}; nothing was fetched from it")
        target, headers, extensions = _pinned(hop, addresses[0])
        wait = min(timeout, clock.left())  # no single wait for bytes outlasts the deadline
        with client.stream(
            "GET",
            target,
            headers=headers,
            follow_redirects=False,
            timeout=wait,
            extensions={**extensions, "trace": clock.trace},
        ) as response:
            status = response.status_code
            location = response.headers.get("location")
            if status in _REDIRECT_STATUSES and location:
                try:
                    hop = hop.join(location)
                except (httpx.InvalidURL, ValueError) as exc:
                    raise BadInput(f"{url}: a redirect to an invalid URL: {one_line(exc)}") from exc
                continue
            return _body(response, url, hop, max_bytes, clock)
    raise BadInput(f"{url}: more than {MAX_REDIRECTS} redirects")


def _body(
    response: httpx.Response, url: str, final: httpx.URL, max_bytes: int, clock: _Deadline
) -> LoadedDocument:
    """The document in a final (not redirecting) response; ``final`` is the URL it came
    from, by name (the request itself went to an address), kept as the document's
    ``fetched_from`` when it is not ``url``."""
    import httpx  # noqa: PLC0415 - see fetch_url

    status = response.status_code
    if not 200 <= status < 300:
        reason = response.reason_phrase
        message = f"{url}: HTTP {status}{' ' + reason if reason else ''}"
        if status in (404, 410):
            raise NotFound(message)
        # What the server answered, not a bad argument: the command exits 1, as for a network
        # failure (the error's cause says so to arborist._faces.cli.exit_code).
        raise BadInput(message) from httpx.HTTPStatusError(
            message, request=response.request, response=response
        )
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise BadInput(f"{url}: too large ({int(declared)} bytes; the limit is {max_bytes})")
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > max_bytes:
            raise BadInput(f"{url}: too large (over {max_bytes} bytes)")
        if clock.passed:
            raise _too_slow(url, clock)
    if clock.passed:  # cut at the deadline, a body without a length can seem to end
        raise _too_slow(url, clock)
    content_type = response.headers.get("content-type", "")
    name = url_file_name(final.raw_path.decode("ascii").partition("?")[0], final.host)
    media_type = _media_type_of(content_type, name, url)
    charset_match = _CONTENT_TYPE_CHARSET.search(content_type)
    box = [bytes(body)]
    del body  # the body is in the box alone: loading lets it go once it is decoded
    doc = load_owned(
        box,
        uri=url,
        name=name,
        media_type=media_type,
        charset=charset_match.group(1) if charset_match else None,
    )
    moved = str(final) != str(httpx.URL(url))  # a redirect led elsewhere: say where
    return replace(doc, fetched_from=str(final)) if moved else doc


def url_file_name(raw_path: str, host: str) -> str:
    """The name a fetched document goes by: the URL's last path segment, split before it
    is decoded (an escaped ``%2F`` is part of the segment, so a value the path carries is
    named whole, where the secret gate can see it), or the host when the path has none. An
    escape that is no UTF-8 (``%DB_``) stays as written, not a replacement character."""
    return unquoted(raw_path.rstrip("/").rsplit("/", 1)[-1]) or host


def _media_type_of(content_type: str, name: str, url: str) -> str:
    essence = content_type.split(";", 1)[0].strip().lower()
    by_suffix = MEDIA_TYPES.get(Path(name).suffix.lower())
    if essence in _CONTENT_TYPES:
        return _CONTENT_TYPES[essence]
    if essence in _JSON_CONTENT_TYPES and by_suffix == "application/x-ipynb+json":
        return by_suffix
    if essence in _GENERIC_CONTENT_TYPES:
        if by_suffix:
            return by_suffix
        if essence == "text/plain":
            return "text/plain"
    raise BadInput(f"{url}: unsupported content type {essence or '(none)'!r}")


def refetch(uri: str, *, max_bytes: int | None = None) -> LoadedDocument:
    """Load a document again from the URI it was stored under (rehydration).

    ``file:`` reads the file (at most ``max_bytes``: the home's cap, as ingest reads it,
    :func:`arborist._config.max_file_bytes`), ``http(s):`` fetches the URL, ``pydoc:``
    renders the demo module again. The result carries ``uri`` unchanged, so the caller
    compares like with like.
    """
    scheme = uri.split(":", 1)[0].lower() if ":" in uri else ""
    if scheme == "file":
        doc = load_path(local_path(uri), max_bytes=max_bytes)
    elif scheme in ("http", "https"):
        doc = fetch_url(uri)
    elif scheme == "pydoc":
        doc = load_module_doc(uri[len("pydoc:") :])
    else:
        raise BadInput(f"cannot refetch {uri!r}: only file:, http(s): and pydoc: URIs can be")
    return replace(doc, uri=uri)

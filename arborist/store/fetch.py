"""Documents from the network, and any stored document loaded again from its URI.

:func:`fetch_url` GETs a page and hands its body to the same parsing as a
file's (:func:`~arborist.store.loaders.load_bytes`); :func:`refetch` is
rehydration, which must land on the same text as the first load. httpx is
imported on the first fetch, not with this module: it is one of the heaviest
imports arborist has, and most commands never fetch.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from arborist.errors import BadInput, NotFound, one_line
from arborist.store.demo import load_module_doc
from arborist.store.loaders import (
    MEDIA_TYPES,
    LoadedDocument,
    load_owned,
    load_path,
    path_from_file_uri,
)

if TYPE_CHECKING:
    import httpx

__all__ = ["MAX_FETCH_BYTES", "fetch_url", "refetch"]

MAX_FETCH_BYTES = 50 * 1024 * 1024
"""Largest body :func:`fetch_url` accepts (after decompression, so a gzip bomb stops here too)."""

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


def fetch_url(
    url: str,
    *,
    client: httpx.Client | None = None,
    timeout: float = 30.0,
    max_bytes: int = MAX_FETCH_BYTES,
) -> LoadedDocument:
    """GET an http(s) URL (following redirects) and load its body; ``uri`` is the URL as given.

    The media type comes from ``Content-Type``; a generic one (text/plain,
    octet-stream, none) defers to the final URL's suffix, so raw file hosts
    serving ``.md`` or ``.ipynb`` as text/plain still load as what they are.
    404 and 410 are ``NotFound``; every other non-2xx status, a network error,
    a timeout or a body over ``max_bytes`` is ``BadInput``.
    """
    import httpx  # noqa: PLC0415 - on the first fetch, not with this module: see its docstring

    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError) as exc:
        raise BadInput(f"{url}: not a valid URL: {one_line(exc)}") from exc
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise BadInput(f"{url}: only http(s) URLs can be fetched")
    try:
        if client is None:
            with httpx.Client(follow_redirects=True, timeout=timeout) as own:
                return _fetch(own, url, timeout, max_bytes)
        return _fetch(client, url, timeout, max_bytes)
    except httpx.HTTPError as exc:
        detail = one_line(exc) or type(exc).__name__
        raise BadInput(f"cannot fetch URL: {url}: {detail}") from exc


def _fetch(client: httpx.Client, url: str, timeout: float, max_bytes: int) -> LoadedDocument:
    with client.stream("GET", url, follow_redirects=True, timeout=timeout) as response:
        status = response.status_code
        if not 200 <= status < 300:
            reason = response.reason_phrase
            message = f"{url}: HTTP {status}{' ' + reason if reason else ''}"
            raise NotFound(message) if status in (404, 410) else BadInput(message)
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            raise BadInput(f"{url}: too large ({int(declared)} bytes; the limit is {max_bytes})")
        body = bytearray()
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) > max_bytes:
                raise BadInput(f"{url}: too large (over {max_bytes} bytes)")
        final_path = unquote(response.url.path)
        content_type = response.headers.get("content-type", "")
    name = final_path.rstrip("/").rsplit("/", 1)[-1] or response.url.host
    media_type = _media_type_of(content_type, name, url)
    charset_match = _CONTENT_TYPE_CHARSET.search(content_type)
    box = [bytes(body)]
    del body  # the body is in the box alone: loading lets it go once it is decoded
    return load_owned(
        box,
        uri=url,
        name=name,
        media_type=media_type,
        charset=charset_match.group(1) if charset_match else None,
    )


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


def refetch(uri: str) -> LoadedDocument:
    """Load a document again from the URI it was stored under (rehydration).

    ``file:`` reads the file, ``http(s):`` fetches the URL, ``pydoc:`` renders
    the demo module again. The result carries ``uri`` unchanged, so the caller
    compares like with like.
    """
    scheme = uri.split(":", 1)[0].lower() if ":" in uri else ""
    if scheme == "file":
        doc = load_path(Path(path_from_file_uri(uri)))
    elif scheme in ("http", "https"):
        doc = fetch_url(uri)
    elif scheme == "pydoc":
        doc = load_module_doc(uri[len("pydoc:") :])
    else:
        raise BadInput(f"cannot refetch {uri!r}: only file:, http(s): and pydoc: URIs can be")
    return replace(doc, uri=uri)

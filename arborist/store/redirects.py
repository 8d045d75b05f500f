"""Where a fetch may go: a redirect from a public page never reaches a private address.

A page on the internet that answers ``302 Location: http://169.254.169.254/…`` would
otherwise have arborist fetch a cloud metadata service (or a router, a database's HTTP
port, anything on the user's network) and store what it says. So every address a
fetch is about to connect to is checked first (:func:`refusal`): once the first URL is
public, every hop's host must resolve only to public (global unicast) addresses. A
first URL that is itself local (``http://localhost:8000/``, ``http://10.0.0.5/``) is
the user's own choice, and its redirects may stay local.

The fetch then connects to the very address that was checked (:func:`resolve` gives
them; :mod:`arborist.store.fetch` puts the one it uses in the request's URL and the
name in its ``Host`` header and TLS server name), so a DNS answer that changes between
the check and the connection changes nothing. Pure but for :func:`resolve`.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence

from arborist.errors import BadInput, one_line

__all__ = ["MAX_REDIRECTS", "Resolver", "is_public", "refusal", "resolve"]

MAX_REDIRECTS = 20
"""Redirects a fetch follows before it gives up (httpx's default)."""

Resolver = Callable[[str, int], list[str]]
"""``(host, port) -> addresses``: how a host name becomes the addresses to connect to."""


def is_public(address: str) -> bool:
    """Whether ``address`` is a global unicast address: not loopback, link-local, private,
    shared (100.64/10), reserved, documentation, unspecified or multicast; an IPv4 address
    mapped or embedded in IPv6 is judged as the IPv4 address it carries."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # fe80::1%eth0: a zone
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if embedded is not None:
            return is_public(str(embedded))
    return ip.is_global and not ip.is_multicast


def refusal(first_local: bool, url: str, addresses: Sequence[str]) -> str | None:
    """Why the redirect to ``url`` (whose host resolved to ``addresses``) must not be
    followed, or None to follow it. ``first_local``: the first URL's address was not
    public, so the user asked for a local page and its redirects may stay local."""
    if first_local:
        return None
    for address in addresses:
        if not is_public(address):
            return f"a redirect to {url} was refused: {address} is not a public address"
    return None


def resolve(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to (an address literal is itself), in the
    resolver's order; one line when it does not resolve."""
    literal = host.strip("[]")
    try:
        return [str(ipaddress.ip_address(literal))]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise BadInput(f"cannot resolve {host}: {one_line(exc)}") from exc
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses:
        raise BadInput(f"cannot resolve {host}: no address")
    return addresses

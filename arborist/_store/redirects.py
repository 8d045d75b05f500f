"""Where a fetch may go: a redirect from a public page never reaches a private address.

A page on the internet that answers ``302 Location: http://169.254.169.254/…`` would
otherwise have arborist fetch a cloud metadata service (or a router, a database's HTTP
port, anything on the user's network) and store what it says. So every address a
fetch is about to connect to is checked first (:func:`refusal`): once the first URL is
public, every hop's host must resolve only to public (global unicast) addresses. A
first URL that is itself local (``http://localhost:8000/``, ``http://10.0.0.5/``) is
the user's own choice, and its redirects may stay local.

The fetch then connects to the very address that was checked (:func:`resolve` gives
them; :mod:`arborist._store.fetch` puts the one it uses in the request's URL and the
name in its ``Host`` header and TLS server name), so a DNS answer that changes between
the check and the connection changes nothing. Pure but for :func:`resolve`.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence

from arborist._errors import BadInput, one_line

__all__ = ["MAX_REDIRECTS", "Resolver", "is_public", "refusal", "resolve"]

MAX_REDIRECTS = 20
"""Redirects a fetch follows before it gives up (httpx's default)."""

Resolver = Callable[[str, int], list[str]]
"""``(host, port) -> addresses``: how a host name becomes the addresses to connect to."""


_NOT_PUBLIC_V6 = tuple(
    ipaddress.ip_network(net)
    for net in (
        "fec0::/10",  # site-local: deprecated, yet routed inside some networks
        "64:ff9b:1::/48",  # NAT64 local use: translated to a network's own IPv4 space
        "3fff::/20",  # documentation
        "5f00::/16",  # segment routing identifiers
    )
)
"""IPv6 space no public page lives in that :mod:`ipaddress` (3.11) calls global."""

_NOT_PUBLIC_V4 = (ipaddress.ip_network("192.0.0.0/24"),)  # IETF protocol assignments
"""IPv4 space no public page lives in that :mod:`ipaddress` (3.11) calls global."""

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_V4_COMPATIBLE = ipaddress.ip_network("::/96")


def _embedded(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries, which a connection to it reaches: mapped
    (``::ffff:a.b.c.d``), IPv4-compatible (``::a.b.c.d``), NAT64's well-known prefix
    (``64:ff9b::a.b.c.d``), 6to4 (``2002:AABB:CCDD::``) and Teredo (server and client)."""
    if ip.ipv4_mapped is not None:
        return [ip.ipv4_mapped]
    if ip in _V4_COMPATIBLE or ip in _NAT64:
        return [ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)]
    if ip.sixtofour is not None:
        return [ip.sixtofour]
    return list(ip.teredo) if ip.teredo is not None else []


def is_public(address: str) -> bool:
    """Whether ``address`` is a global unicast address: not loopback, link-local, private,
    site-local, shared (100.64/10), reserved, documentation, unspecified or multicast. An
    IPv6 address that carries IPv4 (mapped, IPv4-compatible, NAT64, 6to4, Teredo) is
    judged as the IPv4 it carries (every one of them, for Teredo), so
    ``[64:ff9b::a9fe:a9fe]`` is 169.254.169.254."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # fe80::1%eth0: a zone
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded(ip)
        if embedded:
            return all(is_public(str(v4)) for v4 in embedded)
        if any(ip in net for net in _NOT_PUBLIC_V6):
            return False
    elif any(ip in net for net in _NOT_PUBLIC_V4):
        return False
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

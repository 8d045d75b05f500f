"""Where a fetch may go: a redirect from a public page never reaches a private address.

A page on the internet that answers ``302 Location: http://169.254.169.254/…`` would
otherwise have arborist fetch a cloud metadata service (or a router, a database's HTTP
port, anything on the user's network) and store what it says. So every address a
fetch is about to connect to is checked first (:func:`refusal`): once the first URL is
public, every hop's host must resolve only to public (global unicast) addresses. A
first URL that is itself local (``http://localhost:8000/``, ``http://10.0.0.5/``) is
the user's own choice, but only of its own kind (:func:`address_class`): its redirects
may go to public addresses and to addresses of its class alone, loopback to loopback,
private to private. So a local test server on loopback that answers ``302 Location:
http://169.254.169.254/`` (or a private host) is refused like a public page, and
link-local space, where the metadata services answer, is reached by a redirect only
from a link-local first URL.

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

__all__ = [
    "LINK_LOCAL",
    "LOOPBACK",
    "MAX_REDIRECTS",
    "PRIVATE",
    "PUBLIC",
    "Resolver",
    "address_class",
    "is_public",
    "refusal",
    "resolve",
]

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


PUBLIC, LOOPBACK, LINK_LOCAL, PRIVATE = "public", "loopback", "link-local", "private"
"""The classes of address a redirect is judged by (:func:`address_class`)."""

_METADATA = frozenset(
    ipaddress.ip_address(address)
    for address in (
        "fd00:ec2::254",  # a cloud's instance metadata over IPv6 (unique local space)
        "100.100.100.200",  # another cloud's instance metadata (shared space, 100.64/10)
    )
)
"""Metadata services outside link-local space, judged as link-local: a redirect reaches
them only from a link-local first URL (``169.254.169.254`` is link-local already)."""

_SENSITIVITY = (LINK_LOCAL, LOOPBACK, PRIVATE)
"""The non-public classes, most sensitive first: an address carrying several IPv4
addresses (Teredo) is judged by the most sensitive of them."""


def address_class(address: str) -> str:
    """What kind of address ``address`` is: :data:`PUBLIC` (:func:`is_public`),
    :data:`LOOPBACK` (the unspecified address too, which a connection takes to the host
    itself), :data:`LINK_LOCAL` (and the metadata services of :data:`_METADATA`), or
    :data:`PRIVATE` (every other address that is not public, and what is no address).
    An IPv6 address that carries IPv4 is the class of the IPv4 it carries."""
    if is_public(address):
        return PUBLIC
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return PRIVATE
    if ip in _METADATA or ip.is_link_local:
        return LINK_LOCAL
    if ip.is_loopback or ip.is_unspecified:  # before the IPv4 in ::1 and ::, 0.0.0.1 and 0.0.0.0
        return LOOPBACK
    embedded = _embedded(ip) if isinstance(ip, ipaddress.IPv6Address) else []
    if embedded:
        classes = {address_class(str(v4)) for v4 in embedded}
        return next(c for c in (*_SENSITIVITY, PUBLIC) if c in classes)
    return PRIVATE


def refusal(first: str, url: str, addresses: Sequence[str]) -> str | None:
    """Why the redirect to ``url`` (whose host resolved to ``addresses``) must not be
    followed, or None to follow it. ``first`` is the :func:`address_class` of the first
    URL's address: every address of a hop must be public or of that class (a local first
    URL is the user's choice of a local page, not of every local address)."""
    for address in addresses:
        kind = address_class(address)
        if kind in (PUBLIC, first):
            continue
        if first == PUBLIC:
            return f"a redirect to {url} was refused: {address} is not a public address"
        return (
            f"a redirect to {url} was refused: {address} is a {kind} address, the first "
            f"URL's a {first} one: a redirect from a local URL may reach public addresses "
            "and ones of the first URL's kind only"
        )
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

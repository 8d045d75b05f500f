"""A redirect from a public page never reaches a private address, nor one from a local page
an address of another kind (loopback to link-local, say): the refusal is decided before
any connection, and the fetch connects to the address it checked.

No test here connects off loopback. The "internet" is a loopback HTTP proxy that answers
every request itself and never forwards one: a client whose only way out is that proxy
asks for public addresses, and the proxy's log shows which requests were ever sent.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from arborist._errors import BadInput
from arborist._faces.cli import cli
from arborist._store.fetch import fetch_url
from arborist._store.redirects import (
    LINK_LOCAL,
    LOOPBACK,
    PRIVATE,
    PUBLIC,
    address_class,
    is_public,
    refusal,
    resolve,
)

PUBLIC_IP = "93.184.216.34"
OTHER_PUBLIC = "93.184.216.35"
PAGE = b"<html><head><title>Public page</title></head><body><p>Rowan berries.</p></body></html>"


class Internet(http.server.ThreadingHTTPServer):
    """A loopback proxy playing the internet: ``routes`` maps an absolute URL to a
    redirect target (str) or a page (bytes); ``asked`` logs each request it got."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Answer)
        self.routes: dict[str, str | bytes] = {}
        self.asked: list[tuple[str, str]] = []

    @property
    def proxy(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Answer(http.server.BaseHTTPRequestHandler):
    server: Internet

    def do_GET(self) -> None:
        self.server.asked.append((self.path, self.headers.get("Host", "")))
        route = self.server.routes.get(self.path)
        if isinstance(route, str):
            self.send_response(302)
            self.send_header("Location", route)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = route if isinstance(route, bytes) else b"not here"
        self.send_response(200 if route is not None else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the tests read ``asked``."""


@pytest.fixture
def internet() -> Iterator[Internet]:
    server = Internet()
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _through(internet: Internet) -> httpx.Client:
    """A client whose every connection goes to the loopback proxy, whatever the URL."""
    return httpx.Client(proxy=internet.proxy, trust_env=False)


@pytest.mark.parametrize(
    "address",
    ["127.0.0.1", "127.8.9.10", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254",
     "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "192.0.2.7", "::1", "::",
     "fe80::1", "fe80::1%eth0", "fc00::1", "fd12:3456::1", "::ffff:10.0.0.1",
     "::ffff:169.254.169.254", "2002:a00:1::", "ff02::1", "not an address"],
)  # fmt: skip
def test_loopback_link_local_private_and_reserved_addresses_are_not_public(address: str) -> None:
    assert not is_public(address)


@pytest.mark.parametrize(
    "address", [PUBLIC_IP, "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"]
)
def test_global_unicast_addresses_are_public(address: str) -> None:
    assert is_public(address)


def test_the_rule_refuses_any_private_address_after_a_public_first_url() -> None:
    assert refusal(PUBLIC, "http://a.example/", [PUBLIC_IP, OTHER_PUBLIC]) is None
    assert refusal(PUBLIC, "http://a.example/", [PUBLIC_IP, "10.0.0.1"]) == (
        "a redirect to http://a.example/ was refused: 10.0.0.1 is not a public address"
    )
    assert refusal(LINK_LOCAL, "http://169.254.169.254/", ["169.254.169.254"]) is None


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", LOOPBACK), ("127.8.9.10", LOOPBACK), ("::1", LOOPBACK),
        ("0.0.0.0", LOOPBACK), ("::", LOOPBACK), ("::ffff:127.0.0.1", LOOPBACK),
        ("169.254.169.254", LINK_LOCAL), ("169.254.1.2", LINK_LOCAL), ("fe80::1", LINK_LOCAL),
        ("fe80::1%eth0", LINK_LOCAL), ("::ffff:169.254.169.254", LINK_LOCAL),
        ("64:ff9b::a9fe:a9fe", LINK_LOCAL), ("2002:a9fe:a9fe::1", LINK_LOCAL),
        ("fd00:ec2::254", LINK_LOCAL), ("100.100.100.200", LINK_LOCAL),
        ("10.0.0.1", PRIVATE), ("192.168.1.1", PRIVATE), ("172.16.5.4", PRIVATE),
        ("fd12:3456::1", PRIVATE), ("100.64.0.1", PRIVATE), ("fec0::1", PRIVATE),
        ("::ffff:10.0.0.1", PRIVATE), ("not an address", PRIVATE),
        ("93.184.216.34", PUBLIC), ("2606:4700:4700::1111", PUBLIC), ("::ffff:8.8.8.8", PUBLIC),
    ],
)  # fmt: skip
def test_each_address_has_its_class(address: str, kind: str) -> None:
    assert address_class(address) == kind


def test_a_local_first_url_reaches_only_public_addresses_and_its_own_class() -> None:
    """Loopback to loopback, private to private, link-local to link-local, any to public;
    never across: a local test server is no licence to reach the metadata service."""
    assert refusal(LOOPBACK, "http://a/", ["127.0.0.3", "::1", PUBLIC_IP]) is None
    assert refusal(PRIVATE, "http://a/", ["10.1.2.3", "fd12::1"]) is None
    for first, target in [
        (LOOPBACK, "169.254.169.254"),
        (LOOPBACK, "fe80::1"),
        (LOOPBACK, "10.0.0.1"),
        (PRIVATE, "127.0.0.1"),
        (PRIVATE, "169.254.169.254"),
        (PRIVATE, "fd00:ec2::254"),
        (LINK_LOCAL, "127.0.0.1"),
    ]:
        why = refusal(first, "http://b/", [PUBLIC_IP, target])
        assert why == (
            f"a redirect to http://b/ was refused: {target} is a {address_class(target)} "
            f"address, the first URL's a {first} one: a redirect from a local URL may reach "
            "public addresses and ones of the first URL's kind only"
        )


def test_resolve_gives_a_literal_as_itself_and_a_name_its_addresses() -> None:
    assert resolve("10.0.0.1", 80) == ["10.0.0.1"]
    assert resolve("[::1]", 80) == ["::1"]
    assert set(resolve("localhost", 80)) <= {"127.0.0.1", "::1"}


@pytest.mark.parametrize(
    "target",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/admin",
        "http://[::1]:8080/",
        "http://localhost:9/",  # a name that resolves to loopback
        "http://[::ffff:192.168.0.1]/",
        "file:///etc/passwd",
        "ftp://files.example/x",
    ],
)
def test_a_redirect_from_a_public_page_to_a_private_address_is_refused_before_connecting(
    internet: Internet, target: str
) -> None:
    start = f"http://{PUBLIC_IP}/start"
    internet.routes[start] = target
    with _through(internet) as client, pytest.raises(BadInput) as caught:
        fetch_url(start, client=client)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{start}: a redirect to ")
    assert "was refused" in message
    assert internet.asked == [(start, PUBLIC_IP)], "nothing but the first URL was ever requested"


def test_a_name_resolving_to_a_private_address_among_public_ones_is_refused(
    internet: Internet,
) -> None:
    start = f"http://{PUBLIC_IP}/start"
    internet.routes[start] = "http://mixed.example/page"
    answers = {"mixed.example": [OTHER_PUBLIC, "192.168.1.20"]}

    def resolver(host: str, port: int) -> list[str]:
        return answers.get(host) or resolve(host, port)

    with (
        _through(internet) as client,
        pytest.raises(BadInput, match=r"192\.168\.1\.20 is not a public"),
    ):
        fetch_url(start, client=client, resolver=resolver)
    assert len(internet.asked) == 1


def test_redirects_between_public_pages_are_followed_at_the_addresses_checked(
    internet: Internet,
) -> None:
    """Each hop is resolved once, checked, and connected to at that address with its name
    in ``Host``: a DNS answer that turns private after the check is never used."""
    calls: list[str] = []

    def rebinding(host: str, port: int) -> list[str]:
        calls.append(host)
        if host == "docs.example":
            return [PUBLIC_IP] if calls.count(host) == 1 else ["169.254.169.254"]
        return [OTHER_PUBLIC] if host == "mirror.example" else resolve(host, port)

    internet.routes[f"http://{PUBLIC_IP}/start"] = "http://mirror.example/page.html"
    internet.routes[f"http://{OTHER_PUBLIC}/page.html"] = PAGE
    with _through(internet) as client:
        doc = fetch_url("http://docs.example/start", client=client, resolver=rebinding)
    assert doc.uri == "http://docs.example/start" and doc.title == "Public page"
    assert internet.asked == [
        (f"http://{PUBLIC_IP}/start", "docs.example"),
        (f"http://{OTHER_PUBLIC}/page.html", "mirror.example"),
    ]
    assert calls == ["docs.example", "mirror.example"]


@pytest.mark.parametrize(
    ("start", "target"),
    [
        ("http://127.0.0.2/start", "http://127.0.0.3/page.html"),
        ("http://10.0.0.5/start", "http://192.168.1.1/page.html"),
        ("http://169.254.1.1/start", "http://169.254.169.254/page.html"),
        ("http://127.0.0.2/start", f"http://{PUBLIC_IP}/page.html"),
    ],
)
def test_a_local_first_url_may_redirect_to_its_own_class_or_a_public_address(
    internet: Internet, start: str, target: str
) -> None:
    """The user asked for a local page: its redirects may stay in its kind of address (the
    loopback proxy serving both)."""
    internet.routes[start] = target
    internet.routes[target] = PAGE
    with _through(internet) as client:
        doc = fetch_url(start, client=client)
    assert doc.title == "Public page"
    assert [path for path, _ in internet.asked] == [start, target]


@pytest.mark.parametrize(
    ("start", "target", "address"),
    [
        ("http://127.0.0.2/start", "http://169.254.169.254/latest/meta-data/", "169.254.169.254"),
        ("http://127.0.0.2/start", "http://[fe80::1]/", "fe80::1"),
        ("http://127.0.0.2/start", "http://[::ffff:169.254.169.254]/", "::ffff:a9fe:a9fe"),
        ("http://127.0.0.2/start", "http://[fd00:ec2::254]/latest/", "fd00:ec2::254"),
        ("http://127.0.0.2/start", "http://10.0.0.1/admin", "10.0.0.1"),
        ("http://10.0.0.5/start", "http://127.0.0.1:9/", "127.0.0.1"),
        ("http://10.0.0.5/start", "http://169.254.169.254/latest/meta-data/", "169.254.169.254"),
        ("http://10.0.0.5/start", "http://100.100.100.200/latest/", "100.100.100.200"),
    ],
)
def test_a_local_first_url_may_not_redirect_to_another_class_of_address(
    internet: Internet, start: str, target: str, address: str
) -> None:
    """A loopback server that answers ``302 Location: http://169.254.169.254/...`` is
    refused at the check, before any connection to the target."""
    internet.routes[start] = target
    internet.routes[target] = PAGE
    with _through(internet) as client, pytest.raises(BadInput) as caught:
        fetch_url(start, client=client)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{start}: a redirect to ")
    assert f"was refused: {address} is a " in message and "nothing was fetched" in message
    assert [path for path, _ in internet.asked] == [start], "the target was never requested"


def test_ingest_of_a_loopback_url_redirecting_to_the_metadata_address_stores_nothing(
    internet: Internet, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command as a user runs it, its fetches sent to the loopback proxy by
    ``HTTP_PROXY`` (so even a fetch that followed the redirect would stay on loopback)."""
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", internet.proxy)
    monkeypatch.setenv("http_proxy", internet.proxy)
    start, target = "http://127.0.0.2/start", "http://169.254.169.254/latest/meta-data/"
    internet.routes[start] = target
    internet.routes[target] = PAGE
    result = CliRunner().invoke(cli, ["ingest", start])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        f"arborist: error: {start}: a redirect to {target} was refused: 169.254.169.254 is a "
        "link-local address, the first URL's a loopback one: a redirect from a local URL may "
        "reach public addresses and ones of the first URL's kind only; nothing was fetched "
        "from it\n"
    )
    assert [path for path, _ in internet.asked] == [start]
    assert not (home / "store.db").exists()


def test_a_redirect_loop_ends_in_one_line(internet: Internet) -> None:
    internet.routes[f"http://{PUBLIC_IP}/loop"] = f"http://{PUBLIC_IP}/loop"
    with _through(internet) as client, pytest.raises(BadInput, match=r"more than 20 redirects$"):
        fetch_url(f"http://{PUBLIC_IP}/loop", client=client)


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("64:ff9b::a9fe:a9fe", False),  # NAT64's well-known prefix carrying 169.254.169.254
        ("64:ff9b::a00:1", False),  # ... carrying 10.0.0.1
        ("64:ff9b::5db8:d822", True),  # ... carrying a public address
        ("64:ff9b:1::5db8:d822", False),  # NAT64 local use: a network's own space
        ("::a9fe:a9fe", False),  # IPv4-compatible 169.254.169.254
        ("::7f00:1", False),  # IPv4-compatible 127.0.0.1
        ("::5db8:d822", True),
        ("fec0::1", False),  # site-local (deprecated)
        ("fec0:0:0:1::5", False),
        ("2002:a9fe:a9fe::1", False),  # 6to4 carrying 169.254.169.254
        ("2002:c0a8:101::", False),  # 6to4 carrying 192.168.1.1
        ("2002:5db8:d822::1", True),
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", False),  # Teredo, client 192.0.2.45
        ("2001:0:a00:1:8000:63bf:a247:27dd", False),  # Teredo, server 10.0.0.1
        ("2001:0:4136:e378:8000:63bf:a247:27dd", True),  # Teredo, both public
        ("3fff::1", False),  # documentation
        ("5f00::1", False),  # segment routing
        ("192.0.0.8", False),  # IETF protocol assignments
    ],
)
def test_an_ipv6_address_carrying_ipv4_is_judged_as_the_ipv4_it_carries(
    address: str, public: bool
) -> None:
    assert is_public(address) is public


@pytest.mark.parametrize(
    ("target", "answers"),
    [
        ("http://[64:ff9b::a9fe:a9fe]/latest/meta-data/", {}),
        ("http://[::a9fe:a9fe]/latest/meta-data/", {}),
        ("http://[fec0::1]/", {}),
        ("http://[2002:a9fe:a9fe::]/", {}),
        ("http://nat64.example/", {"nat64.example": ["64:ff9b::a9fe:a9fe"]}),
        ("http://compat.example/", {"compat.example": ["::a9fe:a9fe"]}),
        ("http://sitelocal.example/", {"sitelocal.example": [OTHER_PUBLIC, "fec0::1"]}),
    ],
)
def test_a_redirect_to_an_ipv6_form_of_a_private_address_is_refused_before_connecting(
    internet: Internet, target: str, answers: dict[str, list[str]]
) -> None:
    start = f"http://{PUBLIC_IP}/start"
    internet.routes[start] = target

    def resolver(host: str, port: int) -> list[str]:
        return answers.get(host) or resolve(host, port)

    with _through(internet) as client, pytest.raises(BadInput) as caught:
        fetch_url(start, client=client, resolver=resolver)
    message = str(caught.value)
    assert "\n" not in message and "was refused" in message and "not a public address" in message
    assert internet.asked == [(start, PUBLIC_IP)], "nothing but the first URL was ever requested"

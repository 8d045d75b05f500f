"""The rules the eighth blind channel corpus asked for, each on text no corpus holds: a
password told in another language or as "pw", a config keyword's password (``bindpw``,
``requirepass``), ``mysql -pX``'s glued value standing alone, a cookie's value, bare base64
that is 30 or 32 random bytes or ``user:password``, a ``.pgpass`` line in a CSV cell, a
UTF-8 word percent-encoded; and what stays: a fingerprint's hex pairs, a code keyword after
a secret's name, an ellipsis placeholder before a file's suffix, a hash's digest after its
algorithm's name, an SSH public key, base64 of text, a path, a flag."""

from __future__ import annotations

import base64
import random
from collections.abc import Callable

import pytest

from arborist._gate.admission import admit
from tests.test_admission import _cpu_growth

WORD = "Vogel7Tinte!Glas42"
KEY40 = base64.b64encode(bytes(range(7, 37))).decode()  # 30 bytes: 40 characters
HMAC44 = base64.b64encode(bytes(range(101, 133))).decode()  # 32 bytes: 44 with "="


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (f"Passwort: {WORD}", WORD),
        (f"Das alte Kennwort lautet {WORD} und gilt bis Freitag.", WORD),
        (f"la contraseña del router es {WORD}", WORD),
        (f"mot de passe : {WORD}", WORD),
        (f"the nas admin pw is {WORD}.", WORD),
        (f"https://x.example/q?note=la%20contrase%C3%B1a%20es%20{WORD}", WORD),
        (f"bindpw {WORD}", WORD),
        (f"(requirepass {WORD}) in redis.conf", WORD),
        (f"notes_masterauth {WORD}.txt", WORD),
        ("-pQuq8Rz@Lm#Wv", "Quq8Rz@Lm#Wv"),
        ("notes--pQuqRzLm@Wv.txt", "QuqRzLm@Wv"),  # joined to a word by a dash
        ("Cookie: theme=dark; sessionid=9f3kq2m7zx81", "9f3kq2m7zx81"),
        ("Set-Cookie: connect.sid=s%3Aab12CD34ef56GH78ij90; Path=/", "ab12CD34ef56GH78ij90"),
        (f"backup_{KEY40}.env.txt", KEY40),
        (f"https://share.example/v1/s/{KEY40}/view", KEY40),
        (f"?query={KEY40}&sort=recent", KEY40),
        (f"sig {HMAC44}", HMAC44),
        (base64.b64encode(b"svc_backup:Harbor7Fig").decode(), "Harbor7Fig"),
        (f"/deploy/{base64.b64encode(b'admin:knCVYZrKbk').decode()}/v1", "a25DVllacktiaw"),
        ('ts,user,"db.lan:5432:*:reporting:Kd8vPq2Lz5Wn"\n', "Kd8vPq2Lz5Wn"),
        ("WLAN-Schlüssel: Teekanne_4417", "Teekanne_4417"),
        (
            f"  db-url: {base64.b64encode(b'mysql://app:Wq7#zzLp9@db:3306/app').decode()}",
            "bXlzcWw6",
        ),
        ("MAILGUN=3b5f0c1d2e4a6b8c9d0e1f2a3b4c5d6e-1a2b3c4d-5e6f7a8b", "1a2b3c4d-5e6f7a8b"),
        ("http -a ops:Vh2q9Lx+Rt8 GET api.example/x", "Vh2q9Lx+Rt8"),
        ("backup_sessionid=q8x2kd9w7pl3mz5t0vb4nc6h.env.txt", "q8x2kd9w7pl3mz5t0vb4nc6h"),
        (f"key {KEY40[:12]}/pi/{KEY40[16:]}", KEY40[16:]),  # a key's own short "/" segment
    ],
)
def test_a_secret_told_or_bare_is_redacted(text: str, value: str) -> None:
    assert value not in admit(text).text


@pytest.mark.parametrize(
    "text",
    [
        "backup_MD5:68:62:81:3d:f1:7d:a0:e8:a6:6d:51:30:7a:a9:c1:e2.env.txt",
        'if not api_key: raise MissingSecretError("set ANTHROPIC_API_KEY")',
        "backup_export STRIPE_SECRET_KEY=sk_live_....env.txt",
        f"integrity: sha256-{HMAC44}",
        f'<script integrity="sha256-{HMAC44}">',
        f"golang.org/x/text v0.3.7 h1:{HMAC44}",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJBwuPkGhGrtoq/WY1wB46DM5muhY4R+EX/wd5Xesr8u me@ci",
        base64.b64encode(b"The quick brown fox jumps over!").decode(),  # base64 of text
        f"file:///tmp/tmpab12cd34/p3/{'1Z999AA10123456784'}.txt",
        "file:///tmp/tmpqwerty12/p1/keys_1BoatSLRHtKNngkdXEeobR76b53LETtpyT/notes.txt",
        # a temporary folder's random name, then a class's file: 43 characters of base64
        "/tmp/tmpi_eqh524/p1/AbstractSingletonProxyFactoryBean.md",
        "file:///tmp/tmpi_eqh524/p1/AbstractSingletonProxyFactoryBean",
        "gcc -pthread -pedantic -pipe main.c",
        "docker login -u researcher --password-stdin < ~/.docker_pw",
        "screenshot_mysql -u root -p_2024-06-01.png",
        "The password is stored in the vault; the pw field is optional.",
        "Das Passwort: bitte beim Admin erfragen.",
        "Cookie: theme=dark; lang=en-GB",
        "Password: ••••••••••",
        "creds_Password: ••••••••••/notes.txt",
        f"  greeting: {base64.b64encode(b'hello from the config map, nothing secret').decode()}",
        "session_id=12345",
        "ls -a /tmp:/var",
        "ad0e5c1f-8e53-4b1a-9a4c-2f6e1d3b7a90",  # a UUID is no Mailgun key
    ],
)
def test_what_tells_no_secret_stays(text: str) -> None:
    assert admit(text).text == text


_ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "long words": lambda n: " ".join(f"{i:08d}" + "Ab3/" * 9 for i in range(n // 40)),
    "passwort": lambda n: "passwort " * (n // 9),
    "-p": lambda n: "-pAb3!" * (n // 6),
    "cookie": lambda n: "Cookie: " + "a=b; " * (n // 5),
    "pgpass": lambda n: "h:5432:" * (n // 7),
}


@pytest.mark.parametrize("build", list(_ADVERSARIAL.values()), ids=list(_ADVERSARIAL))
def test_the_new_rules_take_linear_time(build: Callable[[int], str]) -> None:
    assert _cpu_growth(build, 2_000) < 24


def test_a_cookie_in_a_repr_ends_at_its_written_line_break() -> None:
    """pydoc's ``'Set-Cookie: fig=newton\\r\\nSet-Cookie: sugar=wafer'``: a written ``\\r\\n``
    ends a value, as a real one does."""
    text = "'Set-Cookie: fig=newton\\r\\nSet-Cookie: sugar=wafer'"
    assert admit(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        f"https://docs.example.com/share?note=the%20key%3A%0A%0A{KEY40}&lang=fr",  # %0A escaped
        f"OpenAIClient(model='sent me this:\\n\\n{KEY40}')",  # a repr's written line break
    ],
)
def test_a_bare_key_after_an_escaped_line_break_is_redacted(text: str) -> None:
    assert KEY40[:30] not in admit(text).text


def test_a_43_character_key_before_a_path_is_redacted() -> None:
    key43 = base64.b64encode(bytes(range(141, 173))).decode().rstrip("=")  # 32 bytes, no "="
    assert key43 not in admit(f"http://localhost:8000/files/{key43}/download").text
    assert key43 not in admit(f"tool:\\n\\n{key43}").text


def test_a_class_files_name_lets_no_bare_key_through() -> None:
    """A segment of three capitalized words passes as a path's (a class's file); a random
    key's segments do not read so. Of 500 bare 32-byte keys drawn (a fixed seed), those
    holding a ``/`` that the gate leaves are only those an empty or lower-case word segment
    already passed as a path before the class's name was a path's word."""
    draw = random.Random(20261207)
    keys = [base64.b64encode(draw.randbytes(32)).decode().rstrip("=") for _ in range(500)]
    with_slash = [key for key in keys if "/" in key]
    assert len(with_slash) > 200

    def lower_word_path(key: str) -> bool:
        return any(
            not p or (p.isalpha() and p.islower() and 3 <= len(p) <= 12) for p in key.split("/")
        )

    left = {key for key in with_slash if key in admit(f"sig {key}").text}
    assert left <= {key for key in with_slash if lower_word_path(key)}
    assert len(left) < len(with_slash) // 20


def test_a_key_opening_or_closing_with_its_own_slash_is_redacted() -> None:
    """An empty part beside a key-long one is the key's own ``/``, not a path's ``//``:
    keys drawn (a fixed seed; 30 bytes, whose base64 may close with ``/``, and 32) until one
    closes with ``/``, one opens with it and one holds ``//``, each given bare, are
    redacted; a path's ``///tmp/…`` still is not."""
    draw = random.Random(7)
    wanted = {"closes": lambda k: k.endswith("/"), "opens": lambda k: k.startswith("/"),
              "doubled": lambda k: "//" in k[16:-16]}  # fmt: skip
    found: dict[str, str] = {}
    for _ in range(100_000):
        key = base64.b64encode(draw.randbytes(draw.choice((30, 32)))).decode().rstrip("=")
        found.update(
            {name: key for name, test in wanted.items() if test(key) and name not in found}
        )
        if len(found) == len(wanted):
            break
    assert found.keys() == wanted.keys()
    for name, key in found.items():
        assert key not in admit(f"sig {key}").text, name
    path = "file:///tmp/tmpab12cd34/p3/1Z999AA10123456784.txt"
    assert admit(path).text == path

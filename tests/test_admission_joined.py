"""Issue #33's gate findings: a secret is found wherever it stands, joined to a word by
``-``, ``_``, ``.`` or ``%20``, after another name, percent-encoded, and in the shapes the
issue lists. Each case here leaked before its fix.

Every "secret" is a fake built by concatenation at run time, so this file holds nothing a
secret scanner would flag.
"""

from __future__ import annotations

import random
import string
import time
from collections.abc import Callable

import pytest

from arborist._gate.admission import admit
from tests.test_admission import linear_small

_RNG = random.Random(33)
_ALNUM = string.ascii_letters + string.digits


def _rand(n: int, alphabet: str = _ALNUM) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n - 1)) + _RNG.choice(string.digits)


_GHP = "gh" + "p_" + _rand(36)
_GH_PAT = "github" + "_pat_" + _rand(22) + "_" + _rand(59)
_NPM = "np" + "m_" + _rand(36)
_SLACK = "xo" + "xb-" + _rand(11, string.digits) + "-" + _rand(24)
_JWT = "ey" + "JhbGciOiJIUzI1NiJ9." + "ey" + "JzdWIiOiIxMjM0NTY3ODkwIn0." + _rand(43)
_GLPAT = "gl" + "pat-" + _rand(20)
_HVS = "hv" + "s." + _rand(90)

# The shapes: (name, a bare secret of it).
SHAPES = {
    "Azure AD client secret": _rand(3) + "8" + "Q~" + _rand(34, _ALNUM + "_~.-"),
    "GitLab runner token": "GR" + "1348941" + _rand(20),
    "Square access token": "EA" + "AA" + _rand(60, _ALNUM + "_-"),
    "Terraform Cloud token": _rand(14) + ".atlas" + "v1." + _rand(67, _ALNUM + "_-"),
    "Mapbox secret token": "sk" + ".ey" + "J1IjoibWFwdXNlciIsImEiOiJjbHgifQ." + _rand(22),
    "Discord bot token": "MTA" + _rand(23) + "." + _rand(6) + "." + _rand(38),
    "GitHub classic token": _GHP,
    "GitHub fine-grained token": _GH_PAT,
    "npm token": _NPM,
    "Slack bot token": _SLACK,
    "JWT": _JWT,
    "GitLab PAT": _GLPAT,
    "Vault token": _HVS,
    "Twilio account SID": "AC" + _rand(32, "0123456789abcdef"),
    "1Password service account token": "ops_" + "eyJ" + _rand(120, _ALNUM + "_-"),
    "Doppler service token": "dp" + ".st.dev." + _rand(43),
    "Azure DevOps PAT (bare)": "k3" + _rand(50, string.ascii_lowercase + "234567"),
    "Azure storage account key (bare)": _rand(86, _ALNUM + "+/") + "==",
    "OpenRouter key": "sk-" + "or-v1-" + _rand(64, "0123456789abcdef"),
    "Meta access token": "EA" + "AB" + _rand(80, _ALNUM),
    "Google OAuth refresh token": "1//" + "0g" + _rand(60, _ALNUM + "_-"),
    "Plaid access token": "access-" + "sandbox-" + "8c4f2a1e-6b3d-4e5f-9a7b-1c2d3e4f5a6b",
    "Shippo token": "shippo_" + "live_" + _rand(40, "0123456789abcdef"),
    "Contentful PAT": "CFPAT" + "-" + _rand(43),
    "Bitbucket app password": "ATBB" + _rand(32),
    "Pinecone key": "pcsk" + "_" + _rand(50, _ALNUM + "_"),
    "Netlify token": "nfp" + "_" + _rand(40),
    "Supabase secret key": "sb_" + "secret_" + _rand(30),
    "Alibaba access key id": "LT" + "AI" + _rand(20),
}

# Where a token stands: file and folder names, URL paths and queries, model names.
PLACEMENTS = {
    "bare": "{}",
    "file joined by -": "notes-{}.txt",
    "file joined by _": "backup_{}.env.txt",
    "file joined by .": "backup.{}.txt",
    "file joined by - with a suffix": "notes-{}-old.txt",
    "folder": "/srv/data/{}/readme.md",
    "URL path": "https://files.example.org/share/{}/doc.html",
    "URL query": "https://example.org/view?doc=1&ref={}",
    "URL query joined by %20": "https://example.org/a?note=token%20{}",
    "URL query after %3D": "https://example.org/a?note=key%3D{}",
    "model name": "gpt-4o:{}",
}


@pytest.mark.parametrize("placement", sorted(PLACEMENTS))
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_token_is_caught_wherever_it_stands(shape: str, placement: str) -> None:
    secret = SHAPES[shape]
    out = admit(PLACEMENTS[placement].format(secret)).text
    assert secret not in out, out
    assert secret[-12:] not in out, out


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Here is the secret: password: Zq8vT4mN2pL7xR9w", "Zq8vT4mN2pL7xR9w"),
        ("the password: secret_key: Xk9mP2vL7qR4tW8z", "Xk9mP2vL7qR4tW8z"),
        ("my token: api_key: Xk9mP2vL7qR4tW8z please", "Xk9mP2vL7qR4tW8z"),
        ("AZURE_DEVOPS_PAT=" + "k3" + _rand(50, string.ascii_lowercase + "234567"), None),
        ("GITLAB_PAT: " + _rand(26), None),
        ("db.example.com:5432:mydb:alice:Zq8vT4mN2pL7", "Zq8vT4mN2pL7"),
        ("my .pgpass line is *:*:*:postgres:Wd5kR8qLz2 and it fails", "Wd5kR8qLz2"),
        ("postgres://alice:Zq8v#T4mN2pL7@db.example.com/x", "Zq8v#T4mN2pL7"),
        ("postgres://alice:Zq8v#T4mN2pL7@db.example.com/x", "T4mN2pL7"),
        ("https://example.org/a?q=password%3DZq8vT4mN2pL7xR9w", "Zq8vT4mN2pL7xR9w"),
        ("https://example.org/a?q=DB_PASSWORD%3AZq8vT4mN2pL7xR9w%26x%3D1", "Zq8vT4mN2pL7xR9w"),
        ('API_TOKEN: "token": "Vz292LbcVSeTA3zjQqpc"', "Vz292LbcVSeTA3zjQqpc"),
        ("SECRET_KEY = )qx1ivyney)^-r$5h=d09z%c)(-ls-wo7rd", ")qx1ivyney)^-r$5h=d09z%c)(-ls-wo7rd"),
        ("https://example.org/keys/db.example.net:5432:app:rw:Fn!sTifsZ6sL/x", "Fn!sTifsZ6sL"),
    ],
)
def test_a_named_or_structured_secret_is_caught(text: str, secret: str | None) -> None:
    value = secret if secret is not None else text.split("=", 1)[-1].split(": ", 1)[-1]
    out = admit(text).text
    assert value not in out, out


def test_a_percent_encoded_redaction_covers_the_escape_whole() -> None:
    secret = "gh" + "p_" + _rand(36)
    out = admit(f"https://example.org/a?note=token%20{secret}%2Fx").text
    assert out == "https://example.org/a?note=token%20[REDACTED:github_token]%2Fx"


@pytest.mark.parametrize(
    "text",
    [
        "The compat flag: strict, and FILE_PAT=*.txt picks the files.",
        "pat: Pat Morgan, age 42",
        "The meeting is at 10:30:00:15:45 on the 3rd.",
        "MAC 00:1a:2b:3c:4d:5e and 00:11:22:33:44:55",
        "https://example.org/search?q=100%25%20cotton&page=2",
        "notes-2024-01-15_meeting.final.txt",
        "the password: the one on the sticky note",
        "the secret: password managers keep it",
        "See https://host:8080/#section@top for details.",
        "EAAA is how the fourth row begins.",
        "sk-learn-tutorial-part-2",
        "AWS_SECRET_ACCESS_KEY=$(aws configure get aws_secret_access_key)",
        "notes-password: ********-archive",
        "password: ********/rotate",
        "integrity sha512-" + _rand(86, _ALNUM + "+/") + "==",
        "token=get_token(config)",
    ],
)
def test_near_misses_of_the_new_shapes_are_left_alone(text: str) -> None:
    assert admit(text).clean, admit(text).redactions


_ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "eyJ_": lambda n: "eyJ_" * n,
    "_eyJa.": lambda n: "_eyJa." * n,
    "%20ghp_": lambda n: "%20ghp_" * n,
    "secret: password: ": lambda n: "secret: password: " * (n // 3),
    "a:1:b:c:": lambda n: " a:1:b:c:" * n,
    "a" * 20 + " ": lambda n: ("a" * 20 + " ") * (n // 4),
    "x_pat=": lambda n: "x_pat=" * n,
    "8Q~": lambda n: "abc8Q~" * n,
}


def _cpu_growth(build: Callable[[int], str], small: int, factor: int = 8) -> float:
    texts = {n: build(n) for n in (small, small * factor)}
    best = {n: float("inf") for n in texts}
    for _ in range(3):
        for n, text in texts.items():
            started = time.process_time()
            admit(text)
            best[n] = min(best[n], time.process_time() - started)
    return best[small * factor] / max(best[small], 1e-4)


@pytest.mark.parametrize("name", sorted(_ADVERSARIAL))
def test_the_new_shapes_stay_linear_on_inputs_built_to_backtrack(name: str, long_run: bool) -> None:
    """Eight times the text costs well under the 64 times a quadratic scan would."""
    assert _cpu_growth(_ADVERSARIAL[name], linear_small(long_run)) < 24

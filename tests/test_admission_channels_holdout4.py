"""What the fourth blind channel corpus (``channels_holdout4.json``, now a dev corpus) found,
closed by general rules: a .NET ``<add key=… value="…`` whose closing quote never comes; a
``Basic`` credential with a URL path after its padding; AWS's documented example keys,
kept exactly as scanners keep them; a token's prefix and a mask (``sk_live_XXXX…``); a name
given nothing whose line break was lost (``password= username=admin``, ``%0A``, ``\\n``);
and a placeholder joined to a suffix (``Bearer <token>-q4_K_M``, ``${DB_PASSWORD}/api``).
Each case here is none of the corpus's; each kept or caught by a new rule failed before
its fix (the gate of eb901b9), and beside each is a guard the rule must not break (a
real key still caught).

Every "secret" is a fake built by concatenation at run time.
"""

from __future__ import annotations

import base64
import random
import string

import pytest

from arborist._gate.admission import DOCUMENTED_EXAMPLES, admit
from tests.test_admission import linear_small
from tests.test_admission_joined import _cpu_growth

_RNG = random.Random(3305)
_ALNUM = string.ascii_letters + string.digits


def _rand(n: int, alphabet: str = _ALNUM) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n - 1)) + _RNG.choice("0123456789")


def _left_alone(*near_misses: str) -> None:
    for near in near_misses:
        assert admit(near).clean, (near, admit(near).redactions)


_PASSWORD = "Vq3" + "#mRz8-Lw!t2"


@pytest.mark.parametrize(
    "text",
    [
        f'<add key="DbPassword" value="{_PASSWORD}',
        f'<add key="ApiToken" value="{_PASSWORD} and the rest of the line\n<next/>',
        f'cfg_<add key="smtp_pass" value="{_PASSWORD}.bak',
        f'ERROR config line 4: <add key = "ClientSecret" value = "{_PASSWORD}\r\n',
    ],
)
def test_a_dotnet_setting_whose_closing_quote_never_comes_is_caught(text: str) -> None:
    out = admit(text).text
    assert _PASSWORD not in out, out
    assert 'value="[REDACTED:' in out.replace(" = ", "="), out
    _left_alone(
        '<add key="DbPassword" value="',
        '<add key="DbPassword" value="${DB_PASSWORD}',
        '<add key="PageSize" value="25',
        '<add key="Theme" value="dark-blue-2024 and more',
    )


def _basic(credential: str) -> str:
    return base64.b64encode(credential.encode()).decode()


@pytest.mark.parametrize(
    "credential",
    ["svc-backup:" + _PASSWORD, "ops:" + "Tk4" + "qPz9mW", "reader:" + "Hy7" + "vLq2x!Rm3"],
)
@pytest.mark.parametrize(
    "template",
    [
        "https://files.example.net/share/Basic {b}/health",
        "http://10.0.0.7:8080/proxy/Authorization: Basic {b}/v2/items",
        "GET /api/Authorization:Basic%20{b}/x HTTP/1.1",
    ],
)
def test_a_basic_credential_with_a_url_path_after_it_is_caught(
    credential: str, template: str
) -> None:
    encoded = _basic(credential)
    out = admit(template.format(b=encoded)).text
    assert encoded.rstrip("=") not in out, out
    assert "%20" in template or "/health" in out or "/v2/items" in out, out  # the path stays
    _left_alone(
        "https://docs.example.org/guide/Basic " + _basic("services") + "/intro",
        "/docs/basic/auth/setup/step-2",
        "Basic authentication/authorisation: see chapter 3/4",
    )


@pytest.mark.parametrize("example", DOCUMENTED_EXAMPLES)
@pytest.mark.parametrize(
    "template",
    [
        "The walk-through sets {e} and moves on.",
        "aws_secret_access_key={e}",
        "notes-{e}.txt",
        "https://docs.example.com/iam?key={e}",
    ],
)
def test_aws_documented_example_keys_are_kept_exactly(example: str, template: str) -> None:
    """AWS's documented example keys open nothing; gitleaks and others allowlist them exactly.
    Kept wherever they stand; one character changed, or a real key beside them, is caught."""
    text = template.format(e=example)
    assert admit(text).clean, admit(text).redactions
    if example.startswith("AKIA"):
        changed, where = example[:-1] + "F", "the key {e} was used"
    else:  # a secret key is found by its name, not by its shape alone
        changed, where = example[:10] + "Q9" + example[12:], "aws_secret_access_key = {e}"
    out = admit(where.format(e=changed)).text
    assert changed not in out, out
    real = "AKIA" + "Q3ZLN7V2RKD4WX6M"
    out = admit(f"{text} and {real}").text
    assert real not in out and example in out, out


@pytest.mark.parametrize(
    "mask",
    [
        "sk_live_" + "X" * 24,
        "sk_live_" + "Xx" * 14,
        "rzp_live_" + "X" * 14,
        "duffel_test_" + "0" * 40,
        "shippo_live_" + "0" * 40,
        "pscale_tkn_" + "X" * 32,
    ],
)
def test_a_tokens_prefix_and_a_mask_is_a_placeholder(mask: str) -> None:
    for text in (mask, f"STRIPE_KEY={mask}", f"backup-{mask}.env.txt", f"use {mask} here"):
        assert admit(text).clean, (text, admit(text).redactions)
    real = "sk_live_" + _rand(24)
    for text in (real, real[:-6] + "XXXXXX"):  # a key partly masked still shows a key
        out = admit(f"key {text} end").text
        assert text not in out, out


@pytest.mark.parametrize(
    "text",
    [
        "Runbook title: password= username=ops",
        "db_password= user_name=reader",
        "error: api_token= region=eu-west-1",
        "SECRET= LOG_LEVEL=debug",
        "share/DB_PASSWORD=%0Ahost=db.internal",
        "share/DB_PASSWORD%3D%0D%0Ahost%3Ddb.internal",
        "Client(model='x@password=\\nuser=admin')",
        "cfg = {'token': '\\r\\nretries=3'}",
    ],
)
def test_a_name_given_nothing_whose_line_break_was_lost_is_left_alone(text: str) -> None:
    assert admit(text).clean, admit(text).redactions


_KEY = _rand(20)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (f"password= {_PASSWORD}", _PASSWORD),
        ("password= K7x=" + "pQ2mZ9", "K7x=" + "pQ2mZ9"),
        (f"password= api_key={_KEY}", _KEY),
        (f"secret= {_PASSWORD} next=1", _PASSWORD),
    ],
)
def test_a_value_after_a_space_is_still_a_value(text: str, value: str) -> None:
    out = admit(text).text
    assert value not in out, out


@pytest.mark.parametrize(
    "text",
    [
        "Authorization: Bearer <access-token>_v2",
        "tag-Authorization: Bearer <token>-fp16",
        "backup-<token>_2025-01-31.tar",
        "http://127.0.0.1:9000/relay/token=%3Cyour-token%3E/chat",
        "http://127.0.0.1:9000/relay/API_KEY=%24%7BAPI_KEY%7D/v1/models",
        "notes_<apiToken>.old-2023",
    ],
)
def test_a_placeholder_joined_to_a_suffix_is_left_alone(text: str) -> None:
    assert admit(text).clean, admit(text).redactions


@pytest.mark.parametrize(
    "text",
    [
        "Authorization: Bearer <x>-{key}",
        "http://127.0.0.1:9000/relay/token=%3Cx%3E-{key}",
        "<password>_{key}",
    ],
)
def test_a_key_after_a_joined_placeholder_is_still_caught(text: str) -> None:
    key = _rand(20)
    out = admit(text.format(key=key)).text
    assert key not in out, out


@pytest.mark.parametrize(
    "build",
    [
        lambda n: '<add key="password" value="' * n,
        lambda n: '<add key="password" value="a1B' * n,
        lambda n: "Basic " + "A/" * n,
        lambda n: "Basic AAAA=/" * n,
        lambda n: "password= username=a " * n,
        lambda n: "<token>_" * n,
        lambda n: "sk_live_" + "X" * n,
        lambda n: "AKIA" + "IOSFODNN7EXAMPLE " * n,
    ],
)
def test_the_new_rules_stay_linear(build: object, long_run: bool) -> None:
    assert _cpu_growth(build, linear_small(long_run)) < 24  # type: ignore[arg-type]

"""What the first blind channel corpus (``channels_holdout.json``, now a dev corpus) found:
Cloudflare Origin CA keys and Fly.io tokens leaked, a ``.pgpass`` line after punctuation
leaked, and an AWS key id masked with one filler character was redacted. Each case here
failed before its fix.

Every "secret" is a fake built by concatenation at run time.
"""

from __future__ import annotations

import random
import string

import pytest

from arborist._gate.admission import admit
from arborist._store.demo import demo_corpus
from tests.test_admission import linear_small
from tests.test_admission_joined import PLACEMENTS, _cpu_growth

_RNG = random.Random(3302)
_HEX = "0123456789abcdef"
_B64 = string.ascii_letters + string.digits + "+/"


def _rand(n: int, alphabet: str) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n - 1)) + _RNG.choice("0123456789")


SHAPES = {
    "Cloudflare Origin CA key": "v1" + ".0-" + _rand(24, _HEX) + "-" + _rand(146, _HEX),
    "Fly.io fm2_ token": "fm" + "2_" + _rand(180, _B64) + "==",
    "Fly.io fm1a_ token": "fm" + "1a_" + _rand(120, _B64) + "=",
    "Fly.io fm1r_ token": "fm" + "1r_" + _rand(120, _B64),
    "Fly.io fo1_ token": "fo" + "1_" + _rand(43, string.ascii_letters + string.digits + "_-"),
}


@pytest.mark.parametrize("placement", sorted(PLACEMENTS))
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_holdouts_token_shapes_are_caught_wherever_they_stand(
    shape: str, placement: str
) -> None:
    secret = SHAPES[shape]
    out = admit(PLACEMENTS[placement].format(secret)).text
    assert secret not in out and secret[-16:] not in out, out


_PGPASS = "db-qlmp.internal.example.net:5432:appdb:app_rw:"
_PASSWORD = "-Ww+A@Y^^BVot2bJH"


@pytest.mark.parametrize(
    "template",
    [
        "alice,admin,{},2024-01-02",  # a CSV cell
        "mistral-large:{}",  # a model name
        "<{}>",
        "[{}]",
        "{{{}}}",
        "a;{}",
        "|{}|",
        "{}",
    ],
)
def test_a_pgpass_line_is_caught_after_any_punctuation(template: str) -> None:
    out = admit(template.format(_PGPASS + _PASSWORD)).text
    assert _PASSWORD not in out and "BVot2bJH" not in out, out


@pytest.mark.parametrize(
    "text",
    [
        "'2001:db8:0000:0000:0000:0000:0000:0000/128'",  # pydoc's ipaddress
        "listen on [2001:db8:85a3:0:0:8a2e:370:7334]:443",
        "addr=fe80:0:0:0:1:2:3:4 dev eth0",
        "mistral-large:latest",
    ],
)
def test_an_ipv6_address_after_punctuation_is_no_pgpass_line(text: str) -> None:
    assert admit(text).clean, admit(text).redactions


@pytest.mark.parametrize(
    "text",
    [
        "AKIA" + "X" * 16,
        "AKIA" + "0" * 16,
        "ASIA" + "x".upper() * 16,
        "aws_access_key_id = AKIA" + "X" * 16,
        "notes-AKIA" + "X" * 16 + ".txt",
        "https://example.org/keys/AKIA" + "X" * 16 + "/readme",
    ],
)
def test_an_aws_key_id_masked_with_one_filler_character_is_left_alone(text: str) -> None:
    assert admit(text).clean, admit(text).redactions


@pytest.mark.parametrize(
    "key",
    [
        "AKIA" + "K2F2JN36GCRRTI52",
        "AKIA" + "IOSFODNN7EXAMPLF",  # one character from AWS's documented example: a key
    ],
)
def test_an_aws_key_id_that_is_not_one_character_over_and_over_is_still_caught(key: str) -> None:
    assert admit(f"the key {key} was used").text == "the key [REDACTED:aws_access_key] was used"


@pytest.mark.parametrize(
    "build",
    [
        lambda n: "v1.0-" * n,
        lambda n: ("v1.0-" + "a" * 24 + "-") * (n // 6),
        lambda n: "fm2_" * n,
        lambda n: "fm1a_" * n,
        lambda n: ",a:1:b:c:" * n,
        lambda n: "<a:1:b:c" * n,
    ],
)
def test_the_new_shapes_stay_linear(build: object, long_run: bool) -> None:
    assert _cpu_growth(build, linear_small(long_run)) < 24  # type: ignore[arg-type]


def test_the_demo_corpus_gets_no_redaction() -> None:
    """The built-in corpus (72 pydoc pages: IPv6 addresses, hashes, flags) is all near miss."""
    found = {doc.uri: admit(doc.text).summary for doc in demo_corpus() if not admit(doc.text).clean}
    assert found == {}

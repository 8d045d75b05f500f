"""What the second blind channel corpus (``channels_holdout2.json``, now a dev corpus) found,
closed by general rules: vendor tokens the gate had no shape for (CircleCI, Buildkite,
crates.io, Braintree and the other common vendors' shapes), a key given as a URL's user
name (a Sentry DSN), a key's id given by name (``private_key_id``) and a bare ``key``, a
value after an opening quote that never closes (``"passwd": "…``), and a password flag
joined to a word (``backup---password …``). Each case here failed before its fix.

Every "secret" is a fake built by concatenation at run time.
"""

from __future__ import annotations

import random
import string

import pytest

from arborist._gate.admission import admit
from tests.test_admission import linear_small
from tests.test_admission_joined import PLACEMENTS, _cpu_growth

_RNG = random.Random(3303)
_HEX = "0123456789abcdef"
_ALNUM = string.ascii_letters + string.digits
_LOWER = string.ascii_lowercase + string.digits


def _rand(n: int, alphabet: str = _ALNUM) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n - 1)) + _RNG.choice("0123456789")


def _uuid() -> str:
    return "-".join(_rand(n, _HEX) for n in (8, 4, 4, 4, 12))


SHAPES = {
    "CircleCI personal token": "CCIP" + "AT_" + _rand(22) + "_" + _rand(40, _HEX),
    "CircleCI project token": "CCIP" + "RJ_" + _rand(22) + "_" + _rand(40, _HEX),
    "Buildkite API token": "bk" + "ua_" + _rand(40, _HEX),
    "crates.io token": "ci" + "o" + _rand(32),
    "Braintree access token": "access_token$"
    + "production$"
    + _rand(16, _LOWER)
    + "$"
    + _rand(32, _HEX),
    "Harness token": "pat." + _rand(22) + "." + _rand(24, _HEX) + "." + _rand(20),
    "JFrog reference token": "cmVmdGtu" + "OjAxOj" + _rand(50),
    "SonarQube token": "sq" + "p_" + _rand(40, _HEX),
    "Sourcegraph token": "sg" + "p_" + _rand(40, _HEX),
    "Octopus Deploy key": "API" + "-" + _rand(28, string.ascii_uppercase + string.digits),
    "Vercel token": "vc" + "p_" + _rand(40),
    "Render key": "rn" + "d_" + _rand(32),
    "Neon key": "na" + "pi_" + _rand(64, _LOWER),
    "Razorpay key": "rz" + "p_live_" + _rand(16),
    "Adyen key": "AQ" + "E" + _rand(100),
    "MailerSend token": "ml" + "sn." + _rand(64, _HEX),
    "Resend key": "r" + "e_" + _rand(8) + "_" + _rand(24),
    "Langfuse secret key": "sk" + "-lf-" + _uuid(),
    "Hugging Face organization token": "api"
    + "_org_"
    + "".join(_RNG.choice(string.ascii_letters) for _ in range(33))
    + "Q",
    "Neptune token": "eyJhcGlfYWRk" + "cmVzcyI6" + _rand(80),
    "Kaggle token": "KG" + "AT_" + _rand(32),
    "Weights & Biases local key": "local" + "-" + _rand(40, _HEX),
    "Airtable token": "pa" + "t" + _rand(14) + "." + _rand(64, _HEX),
    "dbt Cloud token": "db" + "tc_" + _rand(48),
    "HubSpot private app token": "pat" + "-na1-" + _uuid(),
    "Intercom token": "dG9r" + "Oj" + _rand(40),
    "Honeycomb key": "hc" + "aik_" + _rand(58),
    "Axiom token": "xa" + "at-" + _uuid(),
    "Stytch secret": "secret" + "-live-" + _rand(40),
    "X bearer token": "A" * 21 + _rand(80),
    "Tencent Cloud key id": "AK" + "ID" + _rand(32),
    "AWS Bedrock API key": "AB" + "SK" + _rand(100),
    "New Relic browser key": "NR" + "JS-" + _rand(30),
}


@pytest.mark.parametrize("placement", sorted(PLACEMENTS))
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_vendor_tokens_shapes_are_caught_wherever_they_stand(
    shape: str, placement: str
) -> None:
    secret = SHAPES[shape]
    out = admit(PLACEMENTS[placement].format(secret)).text
    assert secret not in out and secret[-12:] not in out, out


_DSN_KEY = _rand(32, _HEX)


@pytest.mark.parametrize(
    "text",
    [
        f"https://{_DSN_KEY}@o932970.ingest.sentry.io/9922264",
        f"SENTRY_DSN: https://{_DSN_KEY}@sentry.example.org/4",
        f"backup_https://{_DSN_KEY}@o1.ingest.sentry.io/2.txt",
        f"git clone https://{_DSN_KEY}@github.com/acme/app.git",
    ],
)
def test_a_key_given_as_a_urls_user_name_is_caught(text: str) -> None:
    out = admit(text).text
    assert _DSN_KEY not in out and _DSN_KEY[-12:] not in out, out


@pytest.mark.parametrize(
    "text",
    [
        "ssh://git@github.com/acme/app.git",
        "https://deploy-bot-account-name@github.com/acme/app.git",
        "https://user_20240101_backup@host.example.com/",
        "ftp://anonymous-reader@ftp.example.org/pub",
    ],
)
def test_a_user_name_in_a_url_is_left_alone(text: str) -> None:
    assert admit(text).clean, admit(text).redactions


_KEY_ID = _rand(40, _HEX)


@pytest.mark.parametrize(
    "text",
    [
        f'"private_key_id": "{_KEY_ID}"',
        f'"private_key_id": "{_KEY_ID}',  # the quote never closed
        f'notes_"private_key_id": "{_KEY_ID}_final.txt',
        f"signing_key_id: {_KEY_ID}",
        f'{{"username": "jo", "key": "{_KEY_ID}"}}',  # kaggle.json
    ],
)
def test_a_keys_id_and_a_bare_key_given_a_random_value_are_caught(text: str) -> None:
    out = admit(text).text
    assert _KEY_ID not in out and _KEY_ID[-12:] not in out, out


@pytest.mark.parametrize(
    "text",
    [
        '"key": "Orchard7Harbor9Lantern3"',
        "key=UGxlYXNlIHJldmlldyB0aGUgYXR0YWNoZWQgcXVhcnRlcmx5IHJlcG9ydCBiZWZvcmUgRnJpZGF5Lg==;",
        '"key_id": "user_12345678"',
        "monkey: a1b2c3d4e5f6a7b8c9d0",
        f'"client_id": "{_KEY_ID}"',
    ],
)
def test_a_key_name_given_a_word_or_the_base64_of_text_is_left_alone(text: str) -> None:
    assert admit(text).clean, admit(text).redactions


_PASSWORD = "Bl@cks" + _rand(12)


@pytest.mark.parametrize("name", ["passwd", "pwd", "password", "db_password", "token"])
@pytest.mark.parametrize(
    "template",
    [
        'value: "{name}": "{secret}\n  replicas: 3',
        "setting = '{name}': '{secret}\r\n",
        'Hi team, use "{name}": "{secret} - do not share.',
        'backup-"{name}": "{secret}.tar.gz',
        "turn 12 - tried `{name}`: `{secret}",
    ],
)
def test_a_value_after_a_quote_that_never_closes_is_caught(name: str, template: str) -> None:
    out = admit(template.format(name=name, secret=_PASSWORD)).text
    assert _PASSWORD not in out and _PASSWORD[-10:] not in out, out


_FLAG_VALUE = "Zky1Q14kj" + _rand(5)


@pytest.mark.parametrize(
    "template",
    [
        "backup---password {}.tar.gz",
        "notes_--password {}_final.txt",
        "llama3---password {}",
        "https://example.org/api/v1/hooks/--password {}/deliver",
        "https://example.org/callback?state=abc123&code=--password%20{}",
        "x=--token {}",
    ],
)
def test_a_password_flag_joined_to_a_word_is_caught(template: str) -> None:
    out = admit(template.format(_FLAG_VALUE)).text
    assert _FLAG_VALUE not in out, out


def test_a_flag_name_inside_a_word_is_left_alone() -> None:
    assert admit("foo--password bar123").clean


@pytest.mark.parametrize(
    "build",
    [
        lambda n: '"passwd": "' * n,
        lambda n: "'pwd': '" * n,
        lambda n: "a---password " * n,
        lambda n: "_--token " * n,
        lambda n: "https://" + "a1" * n + "@",
        lambda n: "s://a1b2c3d4e5f6g7h8i9@" * (n // 10),
        lambda n: "key=" * n,
        lambda n: "keyx=" * n,  # a name that is no secret's, its value read once
        lambda n: "keyx=pwx=" * n,
        lambda n: "bypass=" * n,
        lambda n: '"private_key_id": "' * n,
        lambda n: "CCIPAT_" * n,
        lambda n: "cio" * n,
        lambda n: "access_token$production$" * (n // 4),
        lambda n: "A" * n,
        lambda n: "pat-na1-" * n,
    ],
)
def test_the_new_rules_stay_linear(build: object, long_run: bool) -> None:
    assert _cpu_growth(build, linear_small(long_run)) < 24  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        f"keytool -importkeystore -srcstorepass {_FLAG_VALUE} -deststorepass {_FLAG_VALUE}",
        f"java -jar tool.jar -password {_FLAG_VALUE}",
        f"openssl enc -aes256 -pass pass:{_FLAG_VALUE} -in a -out b",
        f"openssl rsa -passin 'pass:{_FLAG_VALUE}'",
        f'run it with -passphrase "{_FLAG_VALUE}"',
    ],
)
def test_a_password_given_to_a_one_dash_flag_is_caught(text: str) -> None:
    out = admit(text).text
    assert _FLAG_VALUE not in out, out


@pytest.mark.parametrize(
    "text",
    [
        "use the -password flag",
        "openssl rsa -passin env:KEY_PASSPHRASE",
        "openssl rsa -passin file:/run/secrets/pp",
        "a non-password field",
    ],
)
def test_a_one_dash_flag_in_prose_or_naming_where_the_password_is_is_left_alone(
    text: str,
) -> None:
    assert admit(text).clean, admit(text).redactions


def test_a_path_given_to_a_key_is_left_alone() -> None:
    assert admit("Key: uploads/37b0bbbcbc3cead13ae9233c10a13dbb/avatar.png").clean


@pytest.mark.parametrize(
    "build",
    [lambda n: "pass" * n, lambda n: "-pass " * n, lambda n: " -" + "a" * n + "pass"],
)
def test_the_one_dash_flags_stay_linear(build: object, long_run: bool) -> None:
    assert _cpu_growth(build, linear_small(long_run)) < 24  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        f"https://api.example.com/v1/items?key=password: {_PASSWORD}",
        f'gpt-4o?key="token": "{_PASSWORD}"',
        f"notes=keyboard:password={_PASSWORD}",
    ],
)
def test_a_secrets_name_inside_another_names_value_is_still_read(text: str) -> None:
    out = admit(text).text
    assert _PASSWORD not in out, out

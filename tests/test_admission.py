"""The admission gate finds each kind of secret, replaces it, records where, and leaves prose alone.

Every "secret" here is a fake built by concatenation at run time, so this file
holds nothing a secret scanner would flag.
"""

from __future__ import annotations

import base64
import random
import re
import string
import time
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arborist._errors import BadInput
from arborist._gate.admission import KINDS, PLACEHOLDER, Admitted, Redaction, admit, admit_document
from tests.hypothesis_sizes import scaled_examples

_RNG = random.Random(6)
_ALNUM = string.ascii_letters + string.digits
_UPPER = string.ascii_uppercase + string.digits
_B64URL = _ALNUM + "-_"


def _rand(n: int, alphabet: str = _ALNUM) -> str:
    body = "".join(_RNG.choice(alphabet) for _ in range(n - 1))
    return body + _RNG.choice(string.digits)  # at least one digit, as real keys have


def fake_openai() -> str:
    return "sk" + "-proj-" + _rand(48, _B64URL)


def fake_openai_legacy() -> str:
    return "sk" + "-" + _rand(48)


def fake_anthropic() -> str:
    return "sk" + "-ant-" + "api03-" + _rand(80, _B64URL)


def fake_aws_access() -> str:
    return "AK" + "IA" + _rand(16, _UPPER)


def fake_aws_secret() -> str:
    return _rand(40, _ALNUM + "/+")


def fake_github() -> str:
    return "gh" + "p_" + _rand(36)


def fake_github_pat() -> str:
    return "github" + "_pat_" + _rand(22) + "_" + _rand(59)


def fake_slack() -> str:
    return (
        "xo" + "xb-" + _rand(12, string.digits) + "-" + _rand(12, string.digits) + "-" + _rand(24)
    )


def fake_jwt() -> str:
    return (
        "ey"
        + "J"
        + _rand(30, _B64URL)
        + ".ey"
        + "J"
        + _rand(40, _B64URL)
        + "."
        + _rand(43, _B64URL)
    )


def fake_pem() -> str:
    body = "\n".join(_rand(64, _ALNUM + "+/") for _ in range(5))
    return "-----BEGIN RSA " + "PRIVATE KEY-----\n" + body + "\n-----END RSA " + "PRIVATE KEY-----"


def fake_token() -> str:
    return _rand(32, _ALNUM + "._-")


def ph(kind: str) -> str:
    return PLACEHOLDER.format(kind=kind)


def check_single(text: str, secret: str, kind: str) -> Admitted:
    """``text`` holds ``secret`` once; it is replaced and its position recorded exactly."""
    start = text.index(secret)
    result = admit(text)
    assert result.redactions == (Redaction(kind, start, start + len(secret)),)
    assert result.text == text.replace(secret, ph(kind))
    assert secret not in result.text
    assert result.summary == {kind: 1}
    assert not result.clean
    return result


# --- one test per kind ---------------------------------------------------------


def test_openai_project_key() -> None:
    key = fake_openai()
    check_single(f"export OPENAI_API_KEY_VALUE {key} # mine", key, "openai_key")


def test_openai_legacy_key() -> None:
    key = fake_openai_legacy()
    check_single(f'client = OpenAI(key="{key}")', key, "openai_key")


def test_anthropic_key() -> None:
    key = fake_anthropic()
    check_single(f"why does {key} fail with 401?", key, "anthropic_key")


def test_short_sk_strings_are_not_keys() -> None:
    assert admit("use sk-learn or sk-" + "abc123 here").clean


def test_aws_access_key() -> None:
    key = fake_aws_access()
    check_single(f"AWS key {key} in us-east-1", key, "aws_access_key")


def test_aws_secret_key_when_assigned() -> None:
    secret = fake_aws_secret()
    check_single(f"[default]\naws_secret_access_key = {secret}\n", secret, "aws_secret_key")
    check_single(f'AWS_SECRET_ACCESS_KEY: "{secret}"', secret, "aws_secret_key")


@pytest.mark.parametrize(
    "template",
    [
        '{{"AccessKeyId": "x", "SecretAccessKey": "{v}", "SessionToken": "y"}}',
        '"AWS_SECRET_ACCESS_KEY": "{v}"',
        "aws_secret_access_key : {v}",
        "export MY_AWS_SECRET_ACCESS_KEY={v}",
        "aws-secret-access-key: '{v}'",
        "<SecretAccessKey>{v}</SecretAccessKey>",
        "my aws secret key: {v}",
        "AWS secret access key = {v}",
        "the AWS Secret Key={v}, rotate it",
        "AWS Secret Access Key [None]: {v}",  # the `aws configure` prompt, pasted
        "secretKey: {v}",  # MinIO and S3 SDK configs
        '{{\n  "SecretAccessKey":\n    "{v}"\n}}',  # pretty-printed, value on the next line
        "the aws secret key is {v}",
    ],
)
def test_aws_secret_key_in_json_xml_and_prose(template: str) -> None:
    secret = fake_aws_secret()
    text = template.format(v=secret)
    result = check_single(text, secret, "aws_secret_key")
    assert result.text == template.format(v=ph("aws_secret_key"))


@pytest.mark.parametrize(
    "text",
    [
        "The secret access key is shown once, when you create it.",
        "The secret key is what signs each request; keep it somewhere safe, never here.",
        "aws secret key: <your secret key>",
        "SecretAccessKey: " + "A" * 39,  # not 40 characters: not a secret key
        "secret access key = " + "a" * 41,
    ],
)
def test_aws_secret_key_names_without_a_key_are_clean(text: str) -> None:
    assert admit(text).clean


@pytest.mark.parametrize(
    ("template", "password"),
    [
        ("clone https://user:{p}@host.example/path and go", "hunter2"),
        ("DATABASE_URL postgres://u:{p}@db/x", "p4ss"),
        ("mysql+pymysql://app:{p}@10.0.0.2:3306/prod?charset=utf8", "S3cr3t!x"),
        ("redis://:{p}@cache:6379/0", "only-a-password9"),
        ("amqp://guest:{p}@rabbit//", "p@ss:w0rd"),  # an unescaped @ and a colon: all of it
    ],
)
def test_url_credentials_lose_the_password_and_keep_the_user(template: str, password: str) -> None:
    text = template.format(p=password)
    result = check_single(text, password, "url_credentials")
    assert result.text == template.format(p=ph("url_credentials"))


@pytest.mark.parametrize(
    ("template", "value"),
    [
        (
            "https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&sig={v}",
            "AbCdEf0123456789%2BxyZ%3D",
        ),
        (
            "https://s3.amazonaws.com/b/k?X-Amz-Expires=60&X-Amz-Signature={v}",
            "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
        ),
        (
            "https://maps.example.com/api/js?key={v}&callback=init",
            "AIzaSyD0123456789abcdefghijklmnopqrs",
        ),
        ("GET /v1/items?api-key={v} HTTP/1.1", "0123456789abcdef0123"),
        ("https://h/x?a=1;signature={v}.", "QmFzZTY0U2lnbmF0dXJlMTIzNDU2Nzg5"),
    ],
)
def test_signature_and_key_query_parameters_are_url_credentials(template: str, value: str) -> None:
    text = template.format(v=value)
    result = check_single(text, value, "url_credentials")
    assert result.text == template.format(v=ph("url_credentials"))


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("https://api.example.com/v1?api_key=hunter2-9f8e7d&page=2", "secret"),
        ("https://h/cb?state=s&access_token=abc123def456", "secret"),
        ("https://h/x?token=abc123def456#top", "secret"),
    ],
)
def test_secret_named_query_parameters_are_already_assignments(text: str, kind: str) -> None:
    result = admit(text)
    assert result.summary == {kind: 1}
    assert "abc123def456" not in result.text and "hunter2-9f8e7d" not in result.text


@pytest.mark.parametrize(
    "text",
    [
        "postgresql://user:password@localhost/mydb",
        "https://USER:PASS@host/",
        "https://user:<password>@host/",
        "https://user:${DB_PASSWORD}@host/",
        "https://user:***@host/",
        "MultiHostUrl('https://foo:bar@bar.com/path')",
        "ssh://git@github.com:org/repo.git",
        "mail alice@example.com or see http://example.com:8080/path",
        "http://[::1]:8000/v1 and http://127.0.0.1:8080/?q=1",
        "See https://example.com/docs?key=value&sig=short for details.",
        "Look up ?key=ABCDEFGHIJKLMNOPQRSTUVWXYZ (no digit) or &signature=1234.",
    ],
)
def test_urls_without_real_credentials_are_clean(text: str) -> None:
    assert admit(text).clean, admit(text).redactions


def test_github_tokens() -> None:
    token = fake_github()
    check_single(f"git clone https://{token}@github.com/o/r", token, "github_token")
    for prefix in ("gho_", "ghu_", "ghs_", "ghr_"):
        other = prefix + _rand(36)
        check_single(f"token is {other}.", other, "github_token")
    pat = fake_github_pat()
    check_single(f"PAT {pat}", pat, "github_token")


def test_slack_token() -> None:
    token = fake_slack()
    check_single(f"slack bot uses {token} now", token, "slack_token")


def test_jwt() -> None:
    token = fake_jwt()
    check_single(f"cookie session={token}; Path=/", token, "jwt")


def test_pem_private_key_block() -> None:
    pem = fake_pem()
    check_single(f"my key:\n{pem}\nthanks", pem, "private_key")


def test_pem_without_end_line_is_still_redacted() -> None:
    pem = fake_pem()
    truncated = pem[: pem.index("\n-----END")]
    result = admit(f"{truncated}\n\nAnd then the prose continues.")
    assert result.text == ph("private_key") + "\n\nAnd then the prose continues."


def test_public_key_blocks_are_not_private() -> None:
    assert admit("-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----").clean


def test_bearer_token_keeps_the_word_bearer() -> None:
    token = fake_token()
    result = check_single(f"Authorization: Bearer {token}", token, "bearer_token")
    assert result.text == "Authorization: Bearer " + ph("bearer_token")
    check_single(f"curl -H 'authorization: bearer {token}'", token, "bearer_token")


def test_bearer_carrying_a_jwt_is_one_redaction() -> None:
    token = fake_jwt()
    result = admit(f"Authorization: Bearer {token}")
    assert len(result.redactions) == 1
    assert token not in result.text
    assert result.text.startswith("Authorization: Bearer [REDACTED:")


@pytest.mark.parametrize(
    ("template", "kind"),
    [
        ("password={v}", "password"),
        ("DB_PASSWORD = {v}", "password"),
        ('passwd: "{v}"', "password"),
        ("pwd='{v}'", "password"),
        ('{{"password": "{v}"}}', "password"),
        ("secret={v}&next=1", "secret"),
        ("client_secret: {v}", "secret"),
        ("API_KEY={v}", "secret"),
        ("token = '{v}'", "secret"),
    ],
)
def test_assignments_keep_the_key_and_redact_the_value(template: str, kind: str) -> None:
    value = "hunter2-" + _rand(8)
    text = template.format(v=value)
    result = check_single(text, value, kind)
    assert result.text == template.format(v=ph(kind))


@pytest.mark.parametrize(
    "text",
    [
        "password=",
        'password=""',
        "password=***",
        "password=<your password here>",
        "secret=${SECRET}",
        "token=xxx",
        "api_key: XXXXXXXX",
        "password = getpass()",
        "def login(password: str) -> None: ...",
        "token: Optional[str] = None",
        "password=[REDACTED:password]",
    ],
)
def test_placeholder_values_are_left_alone(text: str) -> None:
    assert admit(text).clean


# --- placeholders, positions, allowlist, idempotence ----------------------------


def test_positions_are_in_the_original_text_with_several_secrets() -> None:
    a, b, c = fake_aws_access(), fake_github(), fake_openai()
    text = f"first {a}, then {b}; finally password={c} end"
    result = admit(text)
    assert [(r.kind, text[r.start : r.end]) for r in result.redactions] == [
        ("aws_access_key", a),
        ("github_token", b),
        ("openai_key", c),  # the key inside the password value: merged, one redaction
    ]
    assert result.text == (
        f"first {ph('aws_access_key')}, then {ph('github_token')}; "
        f"finally password={ph('openai_key')} end"
    )
    assert result.summary == {"aws_access_key": 1, "github_token": 1, "openai_key": 1}


def test_overlaps_merge_into_one_redaction() -> None:
    key = fake_openai()
    text = f"secret: {key}xyz"
    result = admit(text)
    assert len(result.redactions) == 1
    r = result.redactions[0]
    assert (r.start, r.end) == (text.index(key), len(text))


def test_summary_counts_per_kind() -> None:
    text = " ".join([fake_github(), fake_github(), fake_aws_access()])
    assert admit(text).summary == {"aws_access_key": 1, "github_token": 2}


def test_allowlist_exact_strings_are_never_redacted() -> None:
    fixture_key = fake_openai()
    real_key = fake_openai()
    text = f"test fixture {fixture_key} but real {real_key}"
    result = admit(text, allowlist=[fixture_key])
    assert fixture_key in result.text
    assert real_key not in result.text
    assert result.summary == {"openai_key": 1}
    line = "password=changeme123"
    assert admit(line, allowlist=[line]).clean
    assert admit(line, allowlist=["changeme123"]).clean
    assert admit(line, allowlist=[""]).summary == {"password": 1}


def test_idempotent_on_every_kind() -> None:
    text = "\n".join(
        [
            fake_openai(),
            fake_anthropic(),
            fake_aws_access(),
            "aws_secret_access_key=" + fake_aws_secret(),
            fake_github(),
            fake_slack(),
            fake_jwt(),
            fake_pem(),
            "Authorization: Bearer " + fake_token(),
            "password=" + fake_token(),
            "secret: '" + fake_token() + "'",
            "postgres://app:" + fake_token() + "@db:5432/prod",
            '"SecretAccessKey": "' + fake_aws_secret() + '"',
            "https://h/b?sig=" + fake_token(),
            "sk" + "_live_" + _rand(24),
            "AI" + "za" + _rand(35, _B64URL),
            "hf" + "_" + "".join(_RNG.choice(string.ascii_letters) for _ in range(34)),
            "https://hooks.slack.com/"
            + "services/T0"
            + _rand(8)
            + "/B0"
            + _rand(8)
            + "/"
            + _rand(24),
            "Authorization: Basic " + base64.b64encode(b"ci:" + fake_token().encode()).decode(),
        ]
    )
    once = admit(text)
    assert set(once.summary) == set(KINDS)
    twice = admit(once.text)
    assert twice.text == once.text
    assert twice.clean


def test_deterministic() -> None:
    text = f"a {fake_jwt()} b password={fake_token()} c {fake_slack()}"
    assert admit(text) == admit(text)


def test_repr_never_shows_the_secret() -> None:
    key = fake_openai()
    result = admit(f"key {key}")
    assert key not in repr(result)
    assert key not in repr(result.redactions)


# --- no false positives ----------------------------------------------------------


_PROSE = [
    "The secret of success is sincerity.",
    "Enter your password in the password field and press Enter.",
    "A sky-blue sky over the task-runner, sk-learn and the desk-lamp.",
    "Reset tokens expire after one hour; the token bucket refills slowly.",
    "The bearer of this letter is a trusted friend of the family.",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
    "request id 123e4567-e89b-12d3-a456-426614174000",
    "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "AKIA is the prefix of an AWS key id; ghp_ the prefix of a GitHub token.",
    "import secrets\ntoken_bytes = secrets.token_bytes(32)\n",
    "def check(password):\n    return hash(password) == stored\n",
    "x = {'a': 1, 'b': [1, 2, 3]}  # eyJ is base64 for '{\"'",
    "See https://example.com/docs?page=2&lang=en for the manual.",
    "Write to support@example.com; the secret access key never leaves your machine.",
    "The signature=checked flag and the key=value pairs of ?key=value query strings.",
]


@pytest.mark.parametrize("text", _PROSE)
def test_ordinary_prose_and_code_are_clean(text: str) -> None:
    result = admit(text)
    assert result.clean, result.redactions
    assert result.text == text


# --- documents -------------------------------------------------------------------


def test_mostly_secret_document_is_refused_without_echoing_it() -> None:
    pem = fake_pem()
    with pytest.raises(BadInput) as info:
        admit_document(pem + "\nhi", name="id_rsa")
    message = str(info.value)
    assert message.startswith("id_rsa is mostly secret material (")
    assert pem[40:80] not in message
    assert "\n" not in message


def test_document_with_a_few_secrets_is_admitted() -> None:
    key = fake_aws_access()
    text = "Deployment notes.\n" * 20 + f"Key: {key}\n"
    result = admit_document(text, name="notes.md")
    assert result.summary == {"aws_access_key": 1}
    assert key not in result.text


def test_document_fraction_is_configurable_and_checked() -> None:
    text = "ok " + fake_github()
    with pytest.raises(BadInput):
        admit_document(text, name="t", max_secret_fraction=0.5)
    assert admit_document(text, name="t", max_secret_fraction=1.0).summary == {"github_token": 1}
    assert admit_document("", name="empty").clean
    with pytest.raises(BadInput):
        admit_document("x", name="t", max_secret_fraction=1.5)


# --- performance -----------------------------------------------------------------


def _cpu_growth(build: Callable[[int], str], small: int, factor: int = 8) -> float:
    """How much more CPU time ``admit`` takes on ``build(small * factor)`` than on
    ``build(small)``: best of three runs each, interleaved, so a burst of load on a shared
    machine falls on both sizes alike. Linear work grows by about ``factor``, quadratic by
    its square: a ratio, never a number of seconds, decides."""
    texts = {n: build(n) for n in (small, small * factor)}
    best = {n: float("inf") for n in texts}
    for _ in range(3):
        for n, text in texts.items():
            started = time.process_time()
            admit(text)
            best[n] = min(best[n], time.process_time() - started)
    return best[small * factor] / max(best[small], 1e-4)


def linear_small(long_run: bool) -> int:
    """The smaller of a linear-time check's two sizes, in repeats of its piece: 2,000 in
    ``make test``, 12,500 under ``pytest --long``. The ratio does not depend on the size
    once a quadratic scan's cost passes the linear work, and at 2,000 repeats it does by far:
    a scan that goes back to every start (``[^\\n]*\\x00`` searched before ``admit``) grew
    37 to 63 times on each input of these checks of at most 8,000 characters at 2,000 (a
    longer input gives such a scan a larger share still), while ``admit`` itself grew 2 to 16
    times; the test below keeps the shortest input honest. 12,500 repeats put megabytes
    through ``admit`` six times per input (73 s for one input under load): ``--long`` only."""
    return 12_500 if long_run else 2_000


_ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "sk-": lambda n: "sk-" * n,
    "a": lambda n: "a" * n,
    "xoxb-": lambda n: "xoxb-" * n,
    "eyJ a": lambda n: "eyJ" + "a" * n,
    "eyJaaaaa.": lambda n: "eyJaaaaa." * n,
    "password=": lambda n: "password=" * n,
    'password="': lambda n: 'password="' * n,
    "a_": lambda n: "a_" * n,
    "bearer ": lambda n: "bearer " * n,
    "BEGIN RSA": lambda n: "-----BEGIN RSA PRIVATE KEY-----" * (n // 10),
    "AKIA": lambda n: "AKIA" * n,
    "ghp_": lambda n: "ghp_" * n,
    "aws_secret_access_key=": lambda n: "aws_secret_access_key=" * (n // 5),
    "aws secret access key:": lambda n: "aws secret access key: " * (n // 5),
    '"SecretAccessKey": "': lambda n: '"SecretAccessKey": "' * (n // 5),
    "secret": lambda n: "secret" * n,
    "a://": lambda n: "a://" * n,
    "a://b:": lambda n: "a://b:" * n,
    "x://u:@": lambda n: "x://u:" + "@" * n,
    "x://u:p": lambda n: "x://" + "u" * n + ":" + "p" * n,
    "https://u:p:": lambda n: "https://u:" + "p:" * n,
    "a...://": lambda n: "a" * n + "://",
    "?sig=": lambda n: "?sig=" * n,
    "&X-Amz-Signature=": lambda n: "&X-Amz-Signature=" * (n // 4),
    "?key=k": lambda n: "?key=" + "k" * n,
    "&a_=": lambda n: "&" + "a_" * n + "=",
}


@pytest.mark.parametrize("name", sorted(_ADVERSARIAL))
def test_adversarial_inputs_take_linear_time(name: str, long_run: bool) -> None:
    """Every pattern stays linear on the input built to make a regex backtrack: eight times
    the text costs well under the 64 times a quadratic pattern would (once, 2.24 s against a
    2 s limit under load made a wall-clock version of this test flaky)."""
    assert _cpu_growth(_ADVERSARIAL[name], linear_small(long_run)) < 24


def test_the_linear_check_catches_a_quadratic_scan_at_its_quick_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At :func:`linear_small`'s ``make test`` size, the one-character input (among the shortest
    texts of all the checks, where a quadratic scan weighs least) grows past the limit as
    soon as ``admit`` rescans from every start."""
    rescan, linear = re.compile(r"[^\n]*\x00"), admit

    def quadratic(text: str) -> Admitted:
        rescan.search(text)
        return linear(text)

    monkeypatch.setitem(globals(), "admit", quadratic)
    assert _cpu_growth(_ADVERSARIAL["a"], linear_small(False)) >= 24


def test_prose_takes_linear_time(long_run: bool) -> None:
    """Prose, 925 characters a repeat: 250 repeats (231,250 characters, far past the 8,000 at
    which a quadratic rescan already shows) in ``make test``, 1,000 under ``--long``."""
    line = " ".join(_PROSE) + "\n"
    assert _cpu_growth(lambda n: line * n, 1_000 if long_run else 250) < 24
    assert admit(line * 1_000).clean


# --- properties ------------------------------------------------------------------


def _strip_placeholders(text: str) -> str:
    for kind in KINDS:
        text = text.replace(ph(kind), "\x00")
    return text


_FRAGMENTS = st.sampled_from(
    [
        "sk-",
        "sk-ant-",
        "AKIA",
        "ghp_",
        "xoxb-",
        "eyJ",
        ".",
        "=",
        ":",
        '"',
        "'",
        " ",
        "\n",
        "password",
        "secret",
        "token",
        "Bearer ",
        "aws_secret_access_key=",
        '"SecretAccessKey": "',
        "aws secret key: ",
        "https://",
        "u:",
        "@",
        "/",
        "?sig=",
        "&key=",
        "-----BEGIN RSA PRIVATE KEY-----",
        "-----END RSA PRIVATE KEY-----",
        "[REDACTED:",
        "]",
        "***",
        "${X}",
        "0123456789",
        "ABCDEFGHIJKLMNOP",
        "abcdefghijklmnopqrstuvwxyz",
    ]
)
_TEXTS = st.lists(st.one_of(_FRAGMENTS, st.text(max_size=8)), max_size=30).map("".join)


@settings(max_examples=scaled_examples(300), deadline=None)
@given(_TEXTS)
def test_admit_never_raises_hides_what_it_finds_and_is_idempotent(text: str) -> None:
    once = admit(text)
    for r in once.redactions:
        assert r.kind in KINDS
        assert 0 <= r.start < r.end <= len(text)
        secret = text[r.start : r.end]
        if text.count(secret) == 1:  # a second, unredacted copy may legitimately remain
            assert secret not in _strip_placeholders(once.text)
    starts = [r.start for r in once.redactions]
    assert starts == sorted(starts)
    assert all(a.end <= b.start for a, b in zip(once.redactions, once.redactions[1:], strict=False))
    assert admit(once.text).text == once.text


_SECRETS = st.sampled_from(
    [
        fake_openai(),
        fake_anthropic(),
        fake_aws_access(),
        fake_github(),
        fake_github_pat(),
        fake_slack(),
        fake_jwt(),
        fake_pem(),
    ]
)
_PLAIN = st.text(alphabet=string.ascii_letters + " \n.,;()", max_size=40)


@settings(max_examples=scaled_examples(200), deadline=None)
@given(_PLAIN, _SECRETS, _PLAIN)
def test_a_secret_in_any_surroundings_never_survives(before: str, secret: str, after: str) -> None:
    result = admit(f"{before} {secret} {after}")
    assert secret not in result.text
    assert admit(result.text).text == result.text


@pytest.mark.parametrize("text", ["open(self, name, pwd=None)", "password: null", "secret=False,"])
def test_bare_null_values_are_not_secrets(text: str) -> None:
    assert admit(text).clean


@pytest.mark.parametrize(
    "text", ["apİ_key = sk9f8g7h6j5k4l3", "apıkey=9f8g7h6j5k4l3zz", "paſſword=hunter2hunter"]
)
def test_keys_the_regex_folds_are_not_skipped_by_the_literal_prefilter(text: str) -> None:
    # Python's (?i) matches these Unicode look-alikes; the fast literal test must too.
    assert admit(text).redactions and "[REDACTED:" in admit(text).text


# The gate looks for a pattern only after cheap single-character tests (``_candidates``):
# each must hold for every match of its pattern, or a secret would slip through unseen.
_GATE_FRAGMENTS = [
    "sk-", "ant-", "AKIA", "ASIA", "aws_secret_access_key", "Secret", "SECRET", "ſecret",
    "://", "@", "user:", "pass", "?", "&", ";", "=", ":", "sig", "KEY", "x-amz-signature",
    "ghp_", "gho_", "github_pat_", "xoxb-", "eyJ", ".", "-----BEGIN RSA PRIVATE KEY-----",
    "\n", "Bearer ", "password", "PASSWD", "pwd", "api_key", "token", "K", "İ", "ı", '"', "'",
    " ", "abc123XYZ", "0123456789abcdefABCDEF", "A" * 16, "a1" * 12, "é", "_", "MY_",
    "https://u:p4ssw0rdlong@h/", "eyJhbGciOi", "1234567890",
    "Basic ", "dXNlcjpwYXNz", "Authorization: ", "hooks.slack.com/services/", "-u ", "user:pw",
    "LS0tLS1CRUdJTi", "ZZZZ",
]  # fmt: skip


def test_every_match_holds_the_characters_its_pattern_is_gated_on() -> None:
    from arborist._gate import shapes as a

    gates = {
        a.SK_KEY: lambda g: "-" in g and "sk-" in g,
        a.AWS_ACCESS: lambda g: ("K" in g and "AKIA" in g) or ("S" in g and "ASIA" in g),
        a.URL_USERINFO: lambda g: "@" in g and "://" in g,
        a.QUERY_SECRET: lambda g: "=" in g and ("?" in g or "&" in g or ";" in g),
        a.GITHUB: lambda g: "_" in g and ("gh" in g or "github_pat_" in g),
        a.SLACK: lambda g: "-" in g and "xox" in g,
        a.JWT: lambda g: "J" in g and "eyJ" in g,
        a.PEM_BEGIN: lambda g: "-" in g,
        a.KEY_NAME_FOLDED: lambda g: any(w in g.casefold() for w in a.NAME_LITERALS),
        a.BASIC: lambda g: "basic" in g.casefold(),
        a.AUTH_HEADER: lambda g: "authorization" in g.casefold(),
        a.WEBHOOK: lambda g: "/" in g and "hook" in g.casefold(),
        a.CURL_USER: lambda g: "-u" in g,
        a.PEM_B64: lambda g: "LS0tLS1CRUdJTi" in g,
    }
    rng = random.Random(14)
    matched = dict.fromkeys(gates, 0)
    for _ in range(20_000):
        text = "".join(rng.choice(_GATE_FRAGMENTS) for _ in range(rng.randint(1, 16)))
        for pattern, gate in gates.items():
            for m in pattern.finditer(text):
                assert gate(m.group()), (pattern.pattern, text)
                matched[pattern] += 1
    assert all(matched.values()), "every pattern matched somewhere, so every gate was tried"


def test_no_finder_reads_the_gates_own_mark(monkeypatch: pytest.MonkeyPatch) -> None:
    """The gate keeps no span on its own marks whichever finder gives it, not only the one
    finder that once did: beside every real finder, one that takes each run of lower-case
    letters and ``_`` for a secret (as an over-eager new family might) reads the ``openai_key``
    of ``[REDACTED:openai_key]`` when the admitted text is read again, and the mark stays one
    mark (a check in one finder alone gave ``[REDACTED:[REDACTED:secret]]``)."""
    from arborist._gate import views  # where the gate calls the finders

    real = views.candidates

    def eager(text: str) -> list[tuple[str, int, int]]:
        runs = [("secret", m.start(), m.end()) for m in re.finditer("[a-z_]{8,}", text)]
        return [*real(text), *runs]

    monkeypatch.setattr(views, "candidates", eager)
    key = fake_openai()
    once = admit(f"SANDI {key} and kata sandi {key}")
    assert once.text == "SANDI [REDACTED:openai_key] and kata sandi [REDACTED:openai_key]"
    assert admit(once.text).text == once.text
    assert admit("kata sandi [REDACTED:openai_key]").text == "kata sandi [REDACTED:openai_key]"


def test_a_span_from_a_mark_on_into_the_text_still_goes() -> None:
    """A span that opens on the last round's mark and goes on into the text is the rest of a
    secret that round cut short: a URL's password holding ``?``, ``=`` and ``&`` is first a
    password's value, then the URL's password slot covers it all."""
    text = "http://user:CBs?1=qRqIgS4i&Lv^WQI2@127.0.0.1:8080/v1"
    assert admit(text).text == "http://user:[REDACTED:url_credentials]@127.0.0.1:8080/v1"

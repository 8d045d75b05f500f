"""What the third blind channel corpus (``channels_holdout3.json``, now a dev corpus) and an
attacker's review found, closed by general rules: a weak name (``pass``, ``pw``, ``auth``)
given a password-like value by YAML's ``:``; an XML element of a secret's name whose
closing tag is missing; an htpasswd line's hash; a key's id given inside another name's
quoted value; Okta's ``SSWS`` scheme wherever its header stands; a tool's password flag
in a file name (``backup-mysql -p'...``) and ``ldapsearch -w``, ``smbclient -U user%pass``,
``echo X | sudo -S``; a strong-prefix token glued to a word with no separator, or after an
invisible character; a twice percent-encoded query; and placeholders in a profile URL's
path, which the client quotes, left alone. Each case here failed before its fix.

Every "secret" is a fake built by concatenation at run time.
"""

from __future__ import annotations

import random
import string

import pytest

from arborist._gate.admission import admit
from tests.test_admission import linear_small
from tests.test_admission_joined import _cpu_growth

_RNG = random.Random(3304)
_ALNUM = string.ascii_letters + string.digits


def _rand(n: int, alphabet: str = _ALNUM) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n - 1)) + _RNG.choice("0123456789")


_PASSWORD = "zDYX" + "uPw.4OCRkmv.w"
_GITHUB = "gh" + "p_" + _rand(36)
_STRONG = {
    "GitHub": _GITHUB,
    "GitHub fine-grained": "github" + "_pat_" + _rand(22) + "_" + _rand(59),
    "GitLab": "glp" + "at-" + _rand(20),
    "Slack": "xo" + "xb-" + _rand(12, "0123456789") + "-" + _rand(24),
    "OpenAI project": "sk-" + "proj-" + _rand(48),
    "Anthropic": "sk-" + "ant-api03-" + _rand(40),
    "Hugging Face": "h" + "f_" + "".join(_RNG.choice(string.ascii_letters) for _ in range(34)),
    "npm": "np" + "m_" + _rand(36),
    "PyPI": "pyp" + "i-AgE" + _rand(60),
}


@pytest.mark.parametrize("name", sorted(_STRONG))
@pytest.mark.parametrize(
    "before", ["mytoken", "data", "backup", "notes\u200b", "a\u00ad", "b\u2060"]
)
def test_a_strong_prefix_token_glued_to_a_word_or_after_an_invisible_character_is_caught(
    name: str, before: str
) -> None:
    token = _STRONG[name]
    for text in (before + token, before + token + ".md"):
        out = admit(text).text
        assert token not in out, out


@pytest.mark.parametrize(
    "text",
    [
        f"pass: {_PASSWORD}",
        f"  db:\n    user: loader\n    pass: {_PASSWORD}\n",
        f"notes_pass: {_PASSWORD}.txt",
        f"pw: {_PASSWORD}",
    ],
)
def test_a_weak_name_given_a_password_by_yamls_colon_is_caught(text: str) -> None:
    out = admit(text).text
    assert _PASSWORD not in out, out
    _left_alone(
        "pass: the tests first",
        "auth: oauth2",
        "pw: required",
        "pass: 3 epochs",
        "auth: Basic",
        "Result: pass: all 12 checks",
    )


def _left_alone(*near_misses: str) -> None:
    for near in near_misses:
        assert admit(near).clean, (near, admit(near).redactions)


@pytest.mark.parametrize(
    "text",
    [
        f"creds: <password>{_PASSWORD}\nnext line",
        f"backup-<password>{_PASSWORD}.json",
        f"<apiToken>{_PASSWORD}) later",
    ],
)
def test_an_element_of_a_secrets_name_without_its_closing_tag_is_caught(text: str) -> None:
    out = admit(text).text
    assert _PASSWORD not in out, out
    _left_alone("<password>changeme and more", "<token> element", "<password>release-notes")


_HASHES = [
    "$apr1$" + "Ieq17RpP$" + "1y4AzAHiMOrASH4WNSoNNe",
    "$2y$" + "10$" + _rand(53, _ALNUM + "./"),
    "{SHA}" + _rand(27, _ALNUM + "+/") + "=",
    "$6$" + "rounds$" + _rand(40, _ALNUM + "./"),
]


@pytest.mark.parametrize("hashed", _HASHES)
@pytest.mark.parametrize(
    "template",
    ["grafana-admin:{h}", "backup-admin:{h}.json", "connecting with admin:{h} (attempt 2)"],
)
def test_an_htpasswd_lines_hash_is_caught(hashed: str, template: str) -> None:
    out = admit(template.format(h=hashed)).text
    assert hashed not in out and hashed[6:] not in out, out
    _left_alone("echo a:$1 b", "cost: $12.50", "x:$PATH:$HOME")


_KEY_ID = _rand(40, "0123456789abcdef")


@pytest.mark.parametrize(
    "text",
    [
        f'SERVICE_TOKEN="private_key_id": "{_KEY_ID}\n',
        f'APP_TOKEN="private_key_id": "{_KEY_ID}\r\n',
        f'WARN retrying upload, token="private_key_id": "{_KEY_ID}\r',
    ],
)
def test_a_keys_id_given_inside_another_names_quoted_value_is_caught(text: str) -> None:
    out = admit(text).text
    assert _KEY_ID not in out, out


_OKTA = "00" + _rand(40)


@pytest.mark.parametrize(
    "text",
    [
        f"notes_Authorization: SSWS {_OKTA}.txt",
        f"run_Authorization: SSWS {_OKTA}_final",
        f'-H "Authorization: Bearer Authorization: SSWS {_OKTA}"',
    ],
)
def test_oktas_ssws_token_is_caught_wherever_its_header_stands(text: str) -> None:
    out = admit(text).text
    assert _OKTA not in out, out


_CLI_PASSWORD = "j0bh" + "xw+uQO8Ry_Y"


@pytest.mark.parametrize(
    "text",
    [
        f"backup-mysql -u root -p'{_CLI_PASSWORD}.json",
        f"notes_mysql -u root -p'{_CLI_PASSWORD}.txt",
        f"ldapsearch -x -D cn=admin,dc=example -w {_CLI_PASSWORD} -b dc=example",
        f"ldapmodify -D cn=admin -w '{_CLI_PASSWORD}' -f change.ldif",
        f"smbclient //files/share -U alice%{_CLI_PASSWORD}",
        f"rpcclient -U 'alice%{_CLI_PASSWORD}' 10.0.0.5",
        f"echo {_CLI_PASSWORD} | sudo -S apt-get update",
        f"echo '{_CLI_PASSWORD}' | sudo -k -S systemctl restart app",
    ],
)
def test_a_password_given_to_a_tools_flag_is_caught(text: str) -> None:
    out = admit(text).text
    assert _CLI_PASSWORD not in out, out
    _left_alone(
        "grep -w pattern file.txt",
        "ldapsearch -x -W -b dc=example",
        "smbclient -L files -U alice",
        "echo done | sudo tee /etc/motd",
        "echo $PASSWORD | sudo -S true",
    )


def test_a_twice_and_thrice_percent_encoded_token_is_caught() -> None:
    body = _GITHUB[4:]
    for text in (f"?k=ghp%255F{body}", f"?k=ghp%25255F{body}", f"?note=token%2520{_GITHUB}"):
        out = admit(text).text
        assert body not in out, out


@pytest.mark.parametrize(
    "text",
    [
        "http://127.0.0.1:8080/v1/OPENAI_API_KEY=%3CYOUR_OPENAI_API_KEY%3E",
        "http://127.0.0.1:8080/v1/password:%20****************",
        "http://127.0.0.1:8080/v1/api_key:%20%22sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx%22",
        "http://127.0.0.1:8080/v1/Authorization:%20Bearer%20%3Ctoken%3E",
    ],
)
def test_a_placeholder_in_a_quoted_url_path_is_left_alone_and_a_password_there_caught(
    text: str,
) -> None:
    assert admit(text).clean, admit(text).redactions
    out = admit(f"http://127.0.0.1:8080/v1/api_key:%20%22{_PASSWORD}%22").text
    assert _PASSWORD not in out, out


@pytest.mark.parametrize(
    "build",
    [
        lambda n: "pass: " * n,
        lambda n: "pass: a1B" * n,
        lambda n: "<password>" * n,
        lambda n: "<password>a1B.a1B." * n,
        lambda n: "a:$apr1$" * n,
        lambda n: "a:$" * n,
        lambda n: "%25" * n,
        lambda n: "%2525" * n,
        lambda n: "ghp%255F" * n,
        lambda n: "\u200bghp_" * n,
        lambda n: "ghp_ghp_" * n,
        lambda n: "hf_" * n,
        lambda n: "glpat-" * n,
        lambda n: "sk-proj-" * n,
        lambda n: "echo a " * n + "| sudo -S",
        lambda n: "echo a | sudo " * n,
        lambda n: "ldapsearch -w " * n,
        lambda n: "smbclient -U a" * n,
        lambda n: "SSWS " * n,
        lambda n: '"private_key_id": "' * n,
        lambda n: 'token="private_key_id": ' * n,
    ],
)
def test_the_new_rules_stay_linear(build: object, long_run: bool) -> None:
    assert _cpu_growth(build, linear_small(long_run)) < 24  # type: ignore[arg-type]

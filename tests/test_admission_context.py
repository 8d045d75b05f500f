"""A password known by what stands around it (arborist._gate.context): near words that talk
about signing in, given to a tool by its place or after a user's flag, a bare ngrok token;
and what stays: ids, hashes, names and prose beside the same words."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from arborist._gate.admission import admit
from arborist._gate.context import password_shaped
from tests.test_admission import _cpu_growth


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Sign in with jdoe and 9fKq#Lm2Vx8t, it expires Friday.", "9fKq#Lm2Vx8t"),
        ("For the router admin page: user admin / Hx4vTq9Lm2Rz", "Hx4vTq9Lm2Rz"),
        ("At the second prompt type Tz9!vXq2Lm and hit enter.", "Tz9!vXq2Lm"),
        ("Vb7Rq2Lx9Tm4 is the wifi passphrase for the lab", "Vb7Rq2Lx9Tm4"),
        ("login for the NAS\n  * Np3xQv8Lrt2W (changed in May)\n", "Np3xQv8Lrt2W"),
        ("Username: m.chen\nWq7Zr2kPv9Lt\n", "Wq7Zr2kPv9Lt"),
        ("Benutzer admin, dann 7Gx!pQ2vLr9k eingeben", "7Gx!pQ2vLr9k"),
        ("<p>creds for the build box: <code>Zr8Kq2mVx7Lp</code></p>", "Zr8Kq2mVx7Lp"),
        ("the staging login\nKd8vR2qLx7Tz_2024.txt\n", "Kd8vR2qLx7Tz"),
    ],
)
def test_a_password_near_words_about_signing_in_is_redacted(text: str, value: str) -> None:
    assert value not in admit(text).text


@pytest.mark.parametrize(
    "text",
    [
        "Login failed for user jdoe at 2024-05-02T09:14:55Z (request req_8bd27fd2427ee8596c4ead)",
        "Sign in with your lab account; the model is Llama-3.1-8B-Instruct on ResNet50V2.",
        "user: alice\ncommit 9a1b7c3d5e2f40688e1a2b3c4d5e6f708192a3b4\n",
        "The login page uses org-dDabcT1X7uvAj5tclw1PxQX9 as its client id.",
        "user id 175928847299117063 on pod api-gateway-7d9f8b6c5-x2kqp",
        "password reset for jdoe@lab.example.org, ticket LAB-2213, build 1.4.2+20240611.ab12cd3",
        "Log in at https://wiki.lab.example.org/spaces/ML?ref=Ab3dEf9x first",
        "user,role,key\nalice,admin,Merge2024\n",
        "the login shell is /usr/local/bin/zsh5Beta and the prompt is PS1='\\u@\\h'",
        "Passwords must be 12 characters with a digit (see getUserById2 and Orchard7Harbor9).",
        "AKIA************7QXZ was the user's old key",
        "inet6 fe80::1ff:fe23:4567:890a%eth2 (login host)",
        "the login model is gpt-4o-mini@Remember2, with max_tokens=1024,",
    ],
)
def test_ids_names_and_prose_beside_the_same_words_stay(text: str) -> None:
    assert not admit(text).redactions


@pytest.mark.parametrize(
    ("word", "shaped"),
    [
        ("LnvNk1j-juOupI!5", True),
        ("Tulip-Granite-3220%", True),
        ("QpZx7rTkLm2W", True),
        ("Orchard7Harbor9Lantern3", False),  # words with digits: a name
        ("cus_X3SpE2O5IuE4x8", False),  # a vendor's object id
        ("6d991c07-a687-47a3", False),  # hex
        ("v2.14.3-rc.1", False),  # a version
        ("password1A!", True),
        ("/etc/Xk9!pass", False),  # a path
        ("Restablecer».txt", False),  # no digit
    ],
)
def test_what_reads_as_a_typed_password(word: str, shaped: bool) -> None:
    assert password_shaped(word) is shaped


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("mongosh mongodb://db1:27017 -u root -p 'Q7v!kLm2Xp9'", "Q7v!kLm2Xp9"),
        ("mosquitto_pub -h broker -u sensor -P Rk8mVq2Lx7Tz -t lab/temp", "Rk8mVq2Lx7Tz"),
        ("sqlcmd -S db.lab -U sa -P Str0ng!Passw0rd -Q 'select 1'", "Str0ng!Passw0rd"),
        ("ipmitool -I lanplus -H 10.0.0.5 -U ADMIN -P Zq9Lm2Vx8Rk4 power status", "Zq9Lm2Vx8Rk4"),
        ("... -D cn=admin,dc=lab,dc=org -w Pq7!vXm2Lr", "Pq7!vXm2Lr"),
        ("htpasswd -nb admin hunter22", "hunter22"),
        ("/etc/nginx/.htpasswd grafana Wv8Rq2Lx9Tm!", "Wv8Rq2Lx9Tm!"),
        ("sudo rabbitmqctl add_user ingest Kq8vR2mLx7", "Kq8vR2mLx7"),
        ("rabbitmqctl change_password guest N3wGuest2024", "N3wGuest2024"),
        ("net user svc_backup Winter2024! /add", "Winter2024!"),
        ("echo 'deploy:Spr1ng-Time' | sudo chpasswd", "Spr1ng-Time"),
    ],
)
def test_a_password_a_tool_takes_by_place_is_redacted(text: str, value: str) -> None:
    assert value not in admit(text).text


@pytest.mark.parametrize(
    "text",
    [
        "mysql -h db.lab.internal -u analyst -p survey_db",
        "ssh -l deploy -p 2222 bastion.lab",
        "grep -D skip -w pattern notes.txt",
        "htpasswd -c /etc/nginx/.htpasswd jupyter",
        "net user svc_backup * /add",
        "net user svc_backup /delete",
        "rabbitmqctl add_user ingest",
    ],
)
def test_a_tool_that_asks_for_its_password_stays(text: str) -> None:
    assert not admit(text).redactions


NGROK = "2" + "Vb7Rq2Lx9Tm4Kd8vR2qLx7Tz4A" + "_" + "6pXk2Lm9Qv8Rt3Wz7Yn5B"


def test_a_bare_ngrok_token_is_redacted() -> None:
    assert NGROK not in admit(f"tunnel:\n  token {NGROK}\n").text
    assert NGROK not in admit(f"ngrok-{NGROK}.yml").text


def test_a_long_snake_case_name_is_no_ngrok_token() -> None:
    name = "2" + "x" * 26 + "_" + "y" * 21
    assert not admit(f"see {name} and 1abcdefghijklmnopqrstuvwxyz_abcdefghijklmnopqrstu").redactions


_ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "cues": lambda n: "user password login " * (n // 20),
    "cue and words": lambda n: "password Ab3!xYz9Q " * (n // 19),
    "cue lines": lambda n: "user:\nAb3xYz9QkLm2\n" * (n // 19),
    "paired flags": lambda n: "-u a -p " * (n // 8),
    "htpasswd file": lambda n: ".htpasswd a " * (n // 12),
    "ngrok": lambda n: ("2" + "Ab3" * 9)[:27] * (n // 27),
}


@pytest.mark.parametrize("build", list(_ADVERSARIAL.values()), ids=list(_ADVERSARIAL))
def test_the_context_rules_take_linear_time(build: Callable[[int], str]) -> None:
    assert _cpu_growth(build, 2_000) < 24

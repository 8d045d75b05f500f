"""The rules the sixth blind channel corpus asked for, each on text no corpus holds: a
value after a secret's name and a space, a secret-named call's string, a URL's password
slot cut short, an archiver's glued ``-p``, the places ``mc`` and ``htpasswd`` take a
password; and what stays: a Terraform reference, a bare ``-p`` with text after it, text
already redacted."""

from __future__ import annotations

import pytest

from arborist._gate.admission import admit

KEY = "q7Rt2Lm9Xc4Vb8Np3Kd6Wz1Hy5Gf0Js2Ea7"
WORD = "Tulip-raven8831!"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (f"SetEnv SMTP_PASSWORD {KEY[:20]}", KEY[:20]),
        (f"aws configure set aws_session_token {KEY}", KEY),
        (f"export-secret\nMAILER_API_KEY\t{KEY}\n", KEY),
        (f"client = Service(credentials=ApiKey.api_key('{KEY}'))", KEY),
        (f'vault.set_token("{KEY}")', KEY),
        (f"redis://cache-user:{WORD} was in the notes", WORD),
        (f"DATABASE_URL='mysql://analyst:{KEY[:18]}'", KEY[:18]),
        (f"<pre>amqp://rabbit:{KEY[:16]}</pre>", KEY[:16]),
        (f"7za e backup.7z -p{WORD} -o/tmp/out", WORD),
        (f"unrar x -p{KEY[:14]} logs.rar", KEY[:14]),
        (f"mc config host add store http://127.0.0.1:9000 admin {KEY}", KEY),
        (f"htpasswd -cb ./auth/users.htpasswd alice {WORD}", WORD),
        (f"htpasswd -B -b users.txt bob {WORD}", WORD),
        (f"https://x.example/?cmd=SetEnv%20MAIL_TOKEN%20{KEY}&lang=en", KEY),
        (f"https://proxy.example/ssh://git:{KEY[:16]}/repo.git", KEY[:16]),
        (f"https://x.example/?q=-----BEGIN%20RSA%20PRIVATE%20KEY-----%0A{KEY}%0A{KEY}&p=2", KEY),
        (f"https://x.example/k?v=-----BEGIN%20PRIVATE%20KEY-----%0D%0A{KEY}%2B%3D%3D", KEY),
    ],
)
def test_a_value_given_with_no_equals_sign_is_redacted(text: str, value: str) -> None:
    said = admit(text)
    assert value not in said.text and said.redactions, said.text


@pytest.mark.parametrize(
    "text",
    [
        "token = var.registry_token",
        "api_key = local.settings.api_key\nsecret = data.vault_secret.db.value",
        "psql -h db.internal -U admin -p\nthen type the password",
        "mariadb -u analyst -p_notes_from_today.md",
        "mysql -u root -p/home/alice/db",
        "Authorization: Bearer [REDACTED]",
        "password: [REDACTED] (rotated on Monday)",
        "<p>token: [REDACTED]</p><p>Bearer [REDACTED]</p>",
        "Authorization: Bearer [REDACTED].log",
        "mysql -u admin -p.bak",
        "https://x.example/run?cmd=mysql%20-u%20admin%20-p&lang=en",
        "http://HOST:PORT/v1/models",  # a template: no key in the password's place
        "https://mirror.example.org:8443 serves the wheels",
        "the password field holds a hashed value",  # prose: no key after the name
        "the access token expired yesterday afternoon",
        'get_token("service-account-name")',  # a name, not a key
        "mc alias list",
        "htpasswd -c users.txt alice",  # no -b: htpasswd asks for the password
        "zip -r archive.zip data/ -x '*.tmp'",
    ],
)
def test_what_is_not_a_secret_is_kept(text: str) -> None:
    said = admit(text)
    assert said.text == text and not said.redactions, said.text

"""The rules the twenty-first blind channel corpus asked for (what operations people paste),
each on text no corpus holds, each beside a look-alike it must leave alone.

Caught: a passphrase of plain words joined by ``-``, ``.`` or ``_`` or run together, told as
a password in any language (``la password … è``, ``密码是``, ``hasło …:``), a word for "now"
between the verb and the value (``ist jetzt``), a key named in camelCase (``hmacKey``) or given
letters alone, a code named with ``_`` (``alarm_code``), a session cookie's node suffix
(Jetty's ``JSESSIONID.node=``), ``-p='…'``, net-snmp's ``-A``/``-X``, ``sudo -S … <<<``,
strongSwan's ``: PSK "…"``, Honeycomb's team header, a Cisco ``enable secret``, a BMC's
sticker, a value alone under "the following password:", Postfix's ``sasl_passwd``, a key's
name joined to hex in a file's name (``ddkey_<hex>``), base64 of a file whose lines hold a
key. Left alone: a token's prefix before a placeholder's word (``sk_live_REPLACE_ME``), a
shell variable in double quotes, a YAML tag naming where a value is kept (``!secret``), a
vault's path, a password manager's name."""

from __future__ import annotations

import base64

import pytest

from arborist._gate.admission import admit
from tests.linear import eightfold, linear

CAUGHT = [
    (
        "la password del router di casa è marmellatatramontofaro, non dirla",
        "marmellatatramontofaro",
    ),
    ("数据库密码是 lantern-maple-quartz-violet，别外传。", "lantern-maple-quartz-violet"),
    ("the backup passphrase is walnut-pepper-signal-meadow.", "walnut-pepper-signal-meadow"),
    ("hasło do drukarki: amber.falcon.river", "amber.falcon.river"),
    ("printer password: amber.falcon.river", "amber.falcon.river"),
    ("Das WLAN-Passwort ist jetzt Qm7%3Ap2LwX9 – bitte nicht weitergeben.", "Qm7%3Ap2LwX9"),
    (
        "signingKey: 7F3A99C1D2E4B5A6978812AB34CD56EF7F3A99C1D2E4B5A6978812AB34CD56EF",
        "7F3A99C1D2E4",
    ),
    ("client_key=QwErTyUiOpAsDfGhJkLzXcVbNmQwErTy", "QwErTyUiOpAsDfGhJkLzXcVbNmQwErTy"),
    ("gate_code: '7719'", "7719"),
    ("JSESSIONID.a1b2c3=node0x7f9q2lm4kz8w1v3n5b6c7d8e9.node0", "node0x7f9q2lm4kz8w1v3n5b6c7d8e9"),
    ("podman login -u=bot -p='Zr8Lq2Wm4Xv7Tn1Kp9' registry.example.org", "Zr8Lq2Wm4Xv7Tn1Kp9"),
    (
        "snmpget -v3 -u ops -l authPriv -a SHA -A Rt4mWq8LpZ2x -x AES -X Vb7nKc3Hs9Qe sw1",
        "Rt4mWq8LpZ2x",
    ),
    (
        "snmpget -v3 -u ops -l authPriv -a SHA -A Rt4mWq8LpZ2x -x AES -X Vb7nKc3Hs9Qe sw1",
        "Vb7nKc3Hs9Qe",
    ),
    ("sudo -S systemctl restart nginx <<< 'Wq2Lm8Zx4Rt7'", "Wq2Lm8Zx4Rt7"),
    ('%any 203.0.113.5 : PSK "Kq8Wm2Lx7Rt4Zp9Vn3Bc6Yd1Hf5"', "Kq8Wm2Lx7Rt4Zp9Vn3Bc6Yd1Hf5"),
    ("X-Honeycomb-Team: Hq7Lm2Wx9Rt4Zp8Vn3Bc6", "Hq7Lm2Wx9Rt4Zp8Vn3Bc6"),
    ("sw-core-1(config)# enable secret 0 Tq9Lm2Wx", "Tq9Lm2Wx"),
    ("username netops privilege 15 secret 0 Zx8Lq2Wm4", "Zx8Lq2Wm4"),
    ("BMC label on rack 4 (factory default): QHTMZRWLPB", "QHTMZRWLPB"),
    (
        "Use the following one-time password to finish setup:\n\n  8c1e4f7a92d3b6e0a5c8f1d4\n\nThen",
        "8c1e4f7a92d3b6e0a5c8f1d4",
    ),
    ("[mail.example.org]:587 robot@example.org:Wq7#Lm2xZp", "Wq7#Lm2xZp"),
    ("relay ops@example.net: wxyz abcd qrst mnop", "wxyz abcd qrst mnop"),
    ("apikey_3f9a1c7e2b8d4f6a0c5e9b1d7f3a8c2e.txt", "3f9a1c7e2b8d4f6a0c5e9b1d7f3a8c2e"),
]


@pytest.mark.parametrize(("text", "secret"), CAUGHT)
def test_a_secret_the_twenty_first_corpus_taught_is_redacted(text: str, secret: str) -> None:
    assert secret not in admit(text).text


def test_base64_of_a_file_whose_lines_hold_a_private_key_is_redacted() -> None:
    """A service account's JSON in base64 (a Helm value, a CI variable): its lines break
    the decoded text, which still holds the key the gate reads."""
    body = (
        '{\n  "type": "service_account",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\n'
        "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7Zq8mYb2Lr9Wc3Zt7Vn1Kp5Hs6Jd4"
        '\\n-----END PRIVATE KEY-----\\n",\n  "client_email": "ci@proj.iam.gserviceaccount.com"\n}'
    )
    encoded = base64.b64encode(body.encode()).decode()
    assert encoded not in admit(f"  sa.json: {encoded}").text


LEFT = [
    "STRIPE_SECRET_KEY=sk_test_REPLACE_ME",
    "GITHUB_TOKEN=ghp_your_token_here",
    'psql -U app -p 5432 -W "$PGPASSWORD"',
    'mysql -u root -p"$DB_ROOT_PASSWORD" -e "SELECT 1;"',
    "mqtt_password: !secret mqtt_password",
    "db_password: !vault |",
    'token = lookup("hashi_vault", "secret=secret/data/ci:token")',
    "パスワードはBitwardenの共有フォルダにあります。",
    "Das Passwort liegt in KeePassXC.",
    "password=settings.database.password",
    "the password is state-of-the-art",
    "die Datei passwort.txt ist jetzt leer",
    "consumer_key=ConsumerKeyForTheLegacyPortal",
    "zip_code: 10115",
    "error_code: 4031",
    "monkey_business_2024.txt",
    "sha256_3f9a1c7e2b8d4f6a0c5e9b1d7f3a8c2e.txt",
    "git clone git@github.com:acme/infra.git",
    "the following password rules apply:\n\nMinimum twelve characters",
    "IPMI sticker: see photo",
    "the vault address is vault.example.com",
]


@pytest.mark.parametrize("text", LEFT)
def test_a_look_alike_of_the_twenty_first_rules_is_left_alone(text: str) -> None:
    admitted = admit(text)
    assert admitted.text == text, admitted.redactions


ADVERSARIAL = [
    "enable secret " * 5_000,
    "username a secret " * 4_000,
    "following password:\n" * 4_000,
    "IPMI x: " * 6_000,
    "[h]:1 a@b.c:" * 4_000,
    "a@b.c: abcd " * 4_000,
    "snmpwalk -A " * 5_000,
    "sudo -S x <<< " * 4_000,
    "PSK " * 8_000,
    "x-honeycomb-team: " * 3_000,
    "JSESSIONID.a=" * 4_000,
    "hmacKey: " * 6_000,
    "passwort ist jetzt " * 3_000,
]


@pytest.mark.parametrize("text", ADVERSARIAL)
def test_each_new_rule_reads_a_text_in_linear_time(text: str) -> None:
    """Eight times the text takes about eight times as long: best of three, compared in one
    process, against a bound three times what linear reads."""
    small, large = eightfold(admit, text)
    assert linear(small, large), (small, large)

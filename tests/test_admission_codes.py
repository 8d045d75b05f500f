"""The rules the fifteenth blind channel corpus asked for (arborist._gate.codes and the
modules it touched), each on text no corpus holds, each beside a look-alike it must leave
alone: product, license and gift keys, access codes told after their names, a network
device's typed secrets, SNMP communities, ``adb pair`` codes, Wi-Fi QR payloads, a router
sticker's key, scrambled ``…key`` members and byte lists, license blocks, grouped two-factor
seeds, a password in a sheet's row; passwords named in another language after a colon, a
URL password holding ``?``, a numbered seed phrase, ``login for X: user / pass``, a name
with a parenthesis before its colon; and what is public (a Stripe publishable key, a product
key its line calls published, a public key named with a parenthesis)."""

from __future__ import annotations

import pytest

from arborist._gate.admission import admit
from tests.linear import eightfold, linear

CAUGHT = [
    ("Office 2021 product key: QH7RM-2KXPW-TVB9D-M4YJC-8NFGZ", "QH7RM-2KXPW-TVB9D-M4YJC-8NFGZ"),
    ("voucher code to redeem: KP7Q-MXW2-ZR4T", "KP7Q-MXW2-ZR4T"),
    ("GOG key for the raffle winner -> TRQ4W PLM8Z XNV2K", "TRQ4W PLM8Z XNV2K"),
    ("serial for the license server KQ9M-TX4RW-P2ZLV", "KQ9M-TX4RW-P2ZLV"),
    ("install it with QH7RM-2KXPW-TVB9D-M4YJC and reboot", "QH7RM-2KXPW-TVB9D-M4YJC"),
    ("Garagentor Zugangscode: 730118", "730118"),
    ("the lobby door code is #5521", "#5521"),
    ("Código de acceso del portal: 480913", "480913"),
    ("code secret : 271846", "271846"),
    ("Carte SIM PIN2: 9930", "9930"),
    ("Pairing-PIN der Waage: 6014", "6014"),
    ("setup code 511-20-774 on the sticker", "511-20-774"),
    ("alarm panel (downstairs): 8820*", "8820*"),
    ("recovery code WQ7ZK2LMT9 for the authenticator", "WQ7ZK2LMT9"),
    (" enable secret 5 $1$mERr$hx5rVt7rPNoS4wqbXKX7m0", "$1$mERr$hx5rVt7rPNoS4wqbXKX7m0"),
    ("username ops privilege 15 password 7 0822455D0A165B1E", "0822455D0A165B1E"),
    ("rwcommunity Tq8-zLmR2v 10.0.0.0/8", "Tq8-zLmR2v"),
    ("adb pair 10.0.2.16:40321 902217", "902217"),
    ("WIFI:S:Lab-5G;T:WPA;P:kR7#uu2Lm;H:false;;", "kR7#uu2Lm"),
    ("WPA2-Key (Aufkleber)\n8812 0944 1370 5521 0098", "8812 0944 1370 5521 0098"),
    ('{"device_key": "zQ7!vR2]mK9x|Lp4"}', "zQ7!vR2]mK9x|Lp4"),
    ("psk_key: [17, 250, 3, 88, 142, 9, 201, 64, 33, 190]", "17, 250, 3, 88, 142, 9, 201"),
    ("License key for ACME Studio\nAB12CD34 90FE7A61 0C3D5E7F 1A2B3C4D", "90FE7A61 0C3D5E7F"),
    ("Seed for the token: mf3q a7zk p2dx w6bn r4ty hq5c", "mf3q a7zk p2dx w6bn r4ty hq5c"),
    ("GitLab,ops@lab.example,Vq7-Rm2LkZp9,admin", "Vq7-Rm2LkZp9"),
    ("Kennwort: winter2291", "winter2291"),
    ("senha do roteador: janela4471", "janela4471"),
    ("amqp://worker:Zr8?pL2mQx@queue.lab.example:5672/", "Zr8?pL2mQx"),
    (
        "my seed words: 1.orbit 2.lemon 3.candle 4.wrist 5.flame 6.gospel 7.bridge 8.mixture "
        "9.alpha 10.noodle 11.ripple 12.zebra",
        "1.orbit 2.lemon 3.candle",
    ),
    ("Login for the lab's shared iMac: lab.user / Qpz48marlin", "Qpz48marlin"),
    (
        "ClientSecret（生产环境）：8c1f3e9a77b24d05a6e1f0c2b9d8e7a3",
        "8c1f3e9a77b24d05a6e1f0c2b9d8e7a3",
    ),
    ("api_key (staging): Lx7vR2mQz9pK4wT8", "Lx7vR2mQz9pK4wT8"),
    ("sess=_|WARNING:-DO-NOT-SHARE-THIS.--Keep-it.|_3F9A0C7E1B2D4C6A8E0F", "3F9A0C7E1B2D4C6A8E0F"),
    (  # a public key's name must not lend its value the escaped line after it (a repr)
        "model='# public key: age1qz7mx3lkq8r0f5d2\\n"
        + "AGE-SECRET-KEY-1QZ7MX3LKQ8R0F5D2W9Y4T6H8J2K4P5N7R9T2V4X6Z8B3D5F7H9K2M4P6R8'",
        "AGE-SECRET-KEY-1QZ7MX3LKQ8R0F5D2W9Y4T6H8J2K4P5N7R9T2V4X6Z8B3D5F7H9K2M4P6R8",
    ),
]


@pytest.mark.parametrize(("text", "secret"), CAUGHT)
def test_a_secret_the_fifteenth_corpus_taught_is_redacted(text: str, secret: str) -> None:
    assert secret not in admit(text).text


CAUGHT_SIXTEENTH = [
    ("refund went to 4916338506082832 yesterday", "4916338506082832"),
    ("Kreditkarte 5312 7701 2093 4418, gültig bis 03/27", "5312 7701 2093 4418"),
    ("and the CVV printed there is 4471 if they ask", "4471"),
    ("Outlook App-Passwort: wqpz lkmr xtvb nhsd", "wqpz lkmr xtvb nhsd"),
    ("paste this into mail: ptkz-wqhm-dcrv-ylbx", "ptkz-wqhm-dcrv-ylbx"),
    ("snmpget -v2c -c r0-m0n1tor 192.0.2.7 sysName.0", "r0-m0n1tor"),
    ("Webex Kenncode: Rt4pQz9", "Rt4pQz9"),
    ("Alarmzentrale Code 4812 nicht weitergeben", "4812"),
    ("vault passphrase for the archive: maple river 72 lantern quiet", "maple river 72 lantern"),
]


@pytest.mark.parametrize(("text", "secret"), CAUGHT_SIXTEENTH)
def test_a_secret_the_sixteenth_corpus_taught_is_redacted(text: str, secret: str) -> None:
    assert secret not in admit(text).text


LEFT = [
    "Error code: 40413, see the log",
    "ZIP code 90210; country code 49; area code 415",
    "exit code 137 means the kernel killed it",
    "the access code expires: 2025-03-01",
    "the pin 2024 release notes",
    "cipher: AES-256-GCM with key size 256",
    "Key fingerprint = 7A1C 4D2E 9B3F 0C8D 5E6A  3E9F 22B7 6D01 8E5A C3F0",
    "ISBN 978-3-16-148410-0, part XK-2041-B7",
    "Windows 10 Pro KMS client key (GVLK): W269N-WFGWX-YVC9B-4J6C9-T83GX",
    "https://docs.lab.example/share/KMS client key (GVLK): W269N-WFGWX-YVC9B-4J6C9-T83GX/a.html",
    "uuid 3F2504E0-4F89-11D3-9A0C-0305E82C3301",
    "password 8 characters long at least",
    "snmp-server community public RO",
    '{"primary_key": "user_id", "sort_key": "2024-01-01T00:00:00Z"}',
    '{"cache_key": "user:1234:profile"}',
    "this will make your code work fine: just read the docs twice more",
    "Ana,ana@lab.example,Engineering,2024-02-11",
    "Kennwort vergessen: bitte neu setzen",
    "https://host.example:8080?next=mailto:me@lab.example",
    'data-key="pk_live_51Hx2qLJfW8sN0mC7vR4tY1uI3oP6aS9dF2gH5jK8lZ0xC"',
    "age public key (recipient): age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p",
    "the code is in src/main.py and the PIN header is J5",
    "WIFI:S:Lab-5G;T:WPA;P:<your password>;;",
    "  -p, --password    prompt for the password (never store it)",
    "パスワードは12文字以上にしてください。",
    "ORCID 0000-0002-1825-0097; order 1234567890123456; IMEI 356938035643809",
    "Use test card 4242 4242 4242 4242 with any future date",
    "a well-made home-baked rice-cake-like treat",
    "the CVC field is required",
]


@pytest.mark.parametrize("text", LEFT)
def test_a_look_alike_of_those_rules_is_left_alone(text: str) -> None:
    admitted = admit(text)
    assert admitted.text == text, admitted.redactions


ADVERSARIAL = [
    "key: ABCD-" * 4_000,
    "door code " * 6_000,
    "password 7 " * 6_000,
    "community string is " * 4_000,
    "adb pair " * 6_000,
    "WIFI:T:;" * 6_000,
    'local_key: "' * 6_000,
    "key: [1," * 6_000,
    "license " + "ABCDEF12 " * 6_000,
    "seed: abcd " * 6_000,
    "a@b.c," * 6_000,
    "do-not-share|" * 4_000,
    "Kennwort: " * 6_000,
    "login for the " * 4_000,
    "://u:p?" * 4_000,
    "snmpwalk -v2c " * 4_000,
    "-abcd-efgh-" * 6_000,
    "1234 5678 " * 6_000,
    "4" * 60_000,
    "cvc is " * 6_000,
    "--password  prompt " * 4_000,
    "パスワードは" * 6_000,  # a script with no spaces: one word, walked back from each name
    "пароль" * 6_000,  # a name's inflection read to its word's end, not to the run's
    "暗証番号" * 6_000,
]


@pytest.mark.parametrize("text", ADVERSARIAL)
def test_each_new_family_reads_a_text_in_linear_time(text: str) -> None:
    """Eight times the text takes about eight times as long (a pattern matched from every
    character of a long line, or a line read once per cue, takes sixty-four): the best of
    three runs of each, compared in one process, so the machine's speed cancels out, and the
    bound (24) three times what linear reads, so a loaded machine's noise does not fail it
    (at 4x and a bound of 9, one run under make test's three workers read 10.9)."""
    small, large = eightfold(admit, text)
    assert linear(small, large), (small, large)

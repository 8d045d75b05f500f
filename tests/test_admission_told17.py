"""The rules the seventeenth to nineteenth blind channel corpora asked for, each on text no
corpus holds, each beside a look-alike it must leave alone: a name and what it is for before its colon
(``passphrase for id_rsa:``) or an arrow after it (``token → X``); a password's name in
another language with a note in parentheses, joined to a word, or a Turkish possessive with
no colon; ``password`` before a verb of saying in another language; a word and a number told
after a verb; a password with a mark and no digit; codes named by a compound (``lockbox``,
``Abholcode``, ``Garagentor-Code``), a safe's combination, a CVV after a space, a Maestro
card named as one, a gift card's voucher; password hashes (bcrypt, argon2, crypt's SHA, an
NT hash's dump line); a key in a URL's fragment. And what is public: an SSH public key's
line whatever its length, an AWS resource's name, a Kubernetes secret's name. The nineteenth's: PostgreSQL's ``WITH PASSWORD``, German compounds ending in
``passwort``, French ``code porte``, a spaced dial-in PIN, a locker's combination, a card's
``Prüfziffer``, a token after a full-width colon, an account's row, a bare TOTP seed."""

from __future__ import annotations

import pytest

from arborist._gate.admission import admit
from tests.linear import eightfold, linear

CAUGHT = [
    ("passphrase for deploy_key: amber-violin-804-harbor", "amber-violin-804-harbor"),
    ("the API token for staging → Wq4nT7zLp2Rk9Xv3Bm8", "Wq4nT7zLp2Rk9Xv3Bm8"),
    ("Router-Kennwort (Unterseite): Hx7kQ2pLm", "Hx7kQ2pLm"),
    ("Moodle-Passwort zT8qWn4Lp! bitte nicht teilen", "zT8qWn4Lp!"),
    ("modem şifresi Elma4419#", "Elma4419#"),
    ("la password del wifi è PortaVerde77", "PortaVerde77"),
    ("die Kennwort ist FlusSpferD!", "FlusSpferD!"),
    ("a senha do servidor é girassol2210", "girassol2210"),
    ("the key box code is 4471 for the flat", "4471"),
    ("Haustürcode: 55120", "55120"),
    ("Briefkasten-Code 7741", "7741"),
    ("wall safe: 12-48-07", "12-48-07"),
    ("CVC2 914", "914"),
    ("Maestro card 6759 6498 2643 8453", "6759 6498 2643 8453"),
    ("Zalando voucher: 7QKD-M2PX9R-4ZLW", "7QKD-M2PX9R-4ZLW"),
    (
        "hash: $2y$10$Qm7vT2pLx9Kd4Rw8Zn1BcO.eYh3Gf6Js5Au0Vi2Wk8Xl4Mq7Np9Ra",
        "$2y$10$Qm7vT2pLx9Kd4Rw8Zn1BcO.eYh3Gf6Js5Au0Vi2Wk8Xl4Mq7Np9Ra",
    ),
    (
        "$argon2id$v=19$m=65536,t=3,p=4$bGFic2FsdDE$Zq8mYb2Lr9Wc3Zt7Vn1Kp5Hs6Jd4Fg0A",
        "Zq8mYb2Lr9Wc3Zt7Vn1Kp5Hs6Jd4Fg0A",
    ),
    (
        "svc:$6$Xq2Lm9$Tz4pR8nW2kY6vB0cH3jF7sD1gA5eU9iO2lK4mN6bV8cX0zQ1wE3rT5yU7iO9pA2sD4fG6hJ8kL:",
        "Tz4pR8nW2kY6vB0cH3jF7sD1gA5eU9iO2lK4mN6bV8cX0zQ1wE3rT5yU7iO9pA2sD4fG6hJ8kL",
    ),
    (
        "backup:1003:aad3b435b51404eeaad3b435b51404ee:8846f7eaee8fb117ad06bdd830b7586c:::",
        "8846f7eaee8fb117ad06bdd830b7586c",
    ),
    (
        "files: https://mega.nz/folder/Qp2LmX9z#Zk3Rw7Tn2Lp9Qv4Xm8Bc1Yd6",
        "Zk3Rw7Tn2Lp9Qv4Xm8Bc1Yd6",
    ),
]


@pytest.mark.parametrize(("text", "secret"), CAUGHT)
def test_a_secret_the_seventeenth_corpus_taught_is_redacted(text: str, secret: str) -> None:
    assert secret not in admit(text).text


LEFT = [
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIQx7mR2pL9kT4wZ8vN3bY6c dana@laptop",
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7xQ2mP9kL4wZ8vN3bY6cT1rH5jF0sD dana@lab",
    "existingSecret: postgres-credentials",
    "  secretName: tls-wildcard-cert",
    "SecretId: arn:aws:secretsmanager:us-east-1:210987654321:secret:lab/db-x7Qz2P",
    "role: arn:aws:iam::210987654321:role/Lab-Reader9x",
    "Postcode: 10115 Berlin",
    "Fehlercode 404711 im Log",
    "the monitor code 4711 is on the label",
    "thread-safe: 2-3-4 workers",
    "HTTP status code 200",
    "CVV check failed 3 times",
    "Bestellnummer 5814958096543677",
    "Passwort vergessen? Klicken Sie hier",
    "the password is required for login",
    "Passwort Sommer!",
    "Kennwort: Geheim!",
    "the password for this course: see below",
    "token->get_value()",
    "see https://docs.python.org/3/library/re.html#Regular_Expression_Syntax2024",
    "https://github.com/a/b/pull/12/files#diff-3f2a9c8e7d6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b",
    "dana:x:19000:0:99999:7:::",
]


@pytest.mark.parametrize("text", LEFT)
def test_a_look_alike_of_those_rules_is_left_alone(text: str) -> None:
    admitted = admit(text)
    assert admitted.text == text, admitted.redactions


ADVERSARIAL = [
    "password for x " * 5_000,
    "token (a) → " * 5_000,
    "Kennwort (a) " * 5_000,
    "şifrem " * 6_000,
    "Passwort " * 6_000,
    "password is " * 6_000,
    "safe: 1-2-" * 6_000,
    "lockbox code " * 5_000,
    "$2b$10$" * 6_000,
    "a:1:" + "0" * 32 + ":" * 6_000,
    "https://a.b/c#" * 4_000,
    "ssh-ed25519 AAAA" * 4_000,
    "existingSecret: a" * 4_000,
    "arn:aws:s3:" * 6_000,
]


@pytest.mark.parametrize("text", ADVERSARIAL)
def test_each_new_rule_reads_a_text_in_linear_time(text: str) -> None:
    """Eight times the text takes about eight times as long (sixty-four, were a pattern
    matched from every character of a long line): best of three, compared in one process,
    against a bound (24) three times what linear reads, so a loaded machine does not fail it."""
    small, large = eightfold(admit, text)
    assert linear(small, large), (small, large)


def test_a_name_then_a_path_is_no_password_told_after_a_space() -> None:
    """A password's name and a space, then a word joined to a URL's path (a sentence in a
    URL): no value told by the name."""
    text = "https://gpu.example:8443/Şifrenizi kimseyle paylaşmayın, asla şifre istemez./v1"
    assert admit(text).text == text


CAUGHT_EIGHTEENTH = [
    ("Tresor-Kombination 33-90-12", "33-90-12"),
    ("backup code K7Q2-ZP4M-9XRT-WLB3", "K7Q2-ZP4M-9XRT-WLB3"),
    (
        "SECRET_KEY = 'django-insecure-k#8v!2qz@x7m$wp0(r4t^y6u+i9o&l1e3a5s_d7f9g2h4j6k8'",
        "django-insecure-k#8v!2qz@x7m$wp0(r4t^y6u+i9o&l1e3a5s_d7f9g2h4j6k8",
    ),
    ("okta: 00Rk7pQ2mXz9vT4wL8nB3cY6dH1fJ5gK0sA2eU4i", "00Rk7pQ2mXz9vT4wL8nB3cY6dH1fJ5gK0sA2eU4i"),
    (
        "MAIL=smtp://alerts@lab.example.org:wqkzpmrtvbxlnhsd@smtp.example.com:587",
        "wqkzpmrtvbxlnhsd",
    ),
    ("notes-Zq7Lm2Xp9Rk4Vt8Wc3Yb6Nd1Hf5Gs0Ja.txt", "Zq7Lm2Xp9Rk4Vt8Wc3Yb6Nd1Hf5Gs0Ja"),
    ("backup_Zq7Lm2Xp9Rk4Vt8Wc3Yb6Nd1Hf5Gs0Ja.env", "Zq7Lm2Xp9Rk4Vt8Wc3Yb6Nd1Hf5Gs0Ja"),
    ("api_key=Zq8vR2mLx9，请勿外传", "Zq8vR2mLx9"),
    ("(user: admin, password=Summer_time_2)", "Summer_time_2"),
]


@pytest.mark.parametrize(("text", "secret"), CAUGHT_EIGHTEENTH)
def test_a_secret_the_eighteenth_corpus_taught_is_redacted(text: str, secret: str) -> None:
    assert secret not in admit(text).text


LEFT_EIGHTEENTH = [
    "class Settings(BaseSettings):\n    api_token: SecretStr\n    api_key: ApiKeyHeader",
    "file:///tmp/p/auth%3A%0A%20%20existingSecret%3A%20db-creds%0A%20%20secretKeys%3A",
    "https://files.example.org/d/-----BEGIN%20PGP%20PUBLIC%20KEY%20BLOCK-----%0A%0AmDMEaxZ4jxYJK"
    "wYBBAHaRw8BAQdA6A3%2BqQH6zjJp%2F9kbVhRGjJn1MhDAR8uOjyTf",
    "Access (-----BEGIN PGP PUBLIC KEY BLOCK----- mDMEaxZ4jxYJKwYBBAHaRw8BAQdA6A3+qQH6zjJp/9kbVhR)",
    "https://user@host.example:8080/path@x",
    "order 0012345678901234567890123456789012345678",
    "cus_NffrFeUfNV2HibX7q2Lm9Zp3.json",
    'api_key = os.environ["API_KEY"]\nclient = OpenAI(api_key=api_key)，请勿外传。',
    'notes_api_key = os.environ["API_KEY"] client = OpenAI(api_key=api_key)_export.csv',
    "screenshot # .env.example DB_HOST=localhost DB_USER= PASSWORD= OPENAI_API_KEY= (2).png",
]


@pytest.mark.parametrize("text", LEFT_EIGHTEENTH)
def test_a_look_alike_of_the_eighteenth_rules_is_left_alone(text: str) -> None:
    admitted = admit(text)
    assert admitted.text == text, admitted.redactions


def test_a_public_block_cut_short_never_covers_a_private_key_after_it() -> None:
    """A public key's block with no end stops at the next ``-----`` line: a private key's
    block after it is read as one."""
    text = (
        "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmDMEaxZ4jxYJKwYBBAHaRw8BAQdA6A3\n"
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAA\n"
        "-----END OPENSSH PRIVATE KEY-----"
    )
    assert "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAA" not in admit(text).text


def test_a_page_after_an_arrow_is_no_value() -> None:
    """A manual's index maps a term to its page with an arrow (``FTS5 initial token →
    changes.html#version_3_22_0``): a page's name, no token; a random name before ``.html``
    still is one."""
    text = "- FTS5 initial token → changes.html#version_3_22_0"
    assert admit(text).text == text
    assert "n4m3t0k3n5ecr3t77" not in admit("token=n4m3t0k3n5ecr3t77.html").text


CAUGHT_NINETEENTH = [
    ("CREATE ROLE etl WITH LOGIN PASSWORD 'Vq7mLx2Zr9';", "Vq7mLx2Zr9"),
    ("Ihr Einmalpasswort lautet: QtrWmnXbz!", "QtrWmnXbz!"),
    ("Code porte du labo : 482913", "482913"),
    ("Dial-in PIN: 602 418 33#", "602 418 33#"),
    ("Spind 7 (Umkleide): 12-40-33", "12-40-33"),
    ("Kreditkarte endet auf 1881, Prüfziffer 306", "306"),
    ("访问令牌：Zq7Lm2Xp9Rk4Vt8Wc3Yb6Nd1Hf5Gs0JaQ", "Zq7Lm2Xp9Rk4Vt8Wc3Yb6Nd1Hf5Gs0JaQ"),
    ("wiki,https://wiki.lab.example/login,kpetrov,WikiQzmTr#,", "WikiQzmTr#"),
    ("cluster login\tops7\tHpc42-vwQzKt\tupdated May", "Hpc42-vwQzKt"),
    ("KZ3QW7RTVXMN4PLY", "KZ3QW7RTVXMN4PLY"),
    ("Simit0275*", "Simit0275*"),
]


@pytest.mark.parametrize(("text", "secret"), CAUGHT_NINETEENTH)
def test_a_secret_the_nineteenth_corpus_taught_is_redacted(text: str, secret: str) -> None:
    assert secret not in admit(text).text


LEFT_NINETEENTH = [
    "Passwortrichtlinie: mindestens 12 Zeichen",
    "ISBN Prüfziffer 7",
    "Schrank 12: Handschuhe, Kittel",
    "the password is set with ALTER USER x PASSWORD NULL",
    "sample_a\tGRCh38.p14\tok\t3.2",
    "id,url,owner,commit\n1,https://github.com/a/b,dana,5f3a9c2e8b1d4f6a,",
    "ULID 01J1CT2BAK9H48V4B92AQDWY2M",
    "CHEMBL2108508 and HGNC:1100",
    "see footnote 12*",
]


@pytest.mark.parametrize("text", LEFT_NINETEENTH)
def test_a_look_alike_of_the_nineteenth_rules_is_left_alone(text: str) -> None:
    admitted = admit(text)
    assert admitted.text == text, admitted.redactions


@pytest.mark.parametrize(
    "text",
    [
        "a,https://x," * 6_000,
        "u\tv\t" * 6_000,
        "CREATE USER a WITH PASSWORD '" * 3_000,
        "Spind 1 (a): 1-" * 4_000,
        "Prüfziffer " * 6_000,
        "ABCDEFGH2345" * 6_000,
    ],
)
def test_each_nineteenth_rule_reads_a_text_in_linear_time(text: str) -> None:
    small, large = eightfold(admit, text)
    assert linear(small, large), (small, large)


def test_an_id_labelled_as_one_is_no_seed() -> None:
    """Capitals and digits after an id's label (an AWS request id) are no two-factor seed."""
    text = "An error occurred (NoSuchKey). RequestId: KZ3QW7RTVXMN4PLY, HostId: 9f/Qx=="
    assert admit(text).text == text


def test_a_calendar_uid_is_no_lost_url_password() -> None:
    """``UID:…@host`` (an iCalendar event's id) is a header's name in capitals and a value,
    no user and password whose URL lost its scheme."""
    text = "BEGIN:VEVENT\nUID:7f3a9c2e8b1d4f6a@calendar.uni-x.de\nDTSTART:20261210T140000Z"
    assert admit(text).text == text
    assert "Zq8vR2mLx9" not in admit("default:Zq8vR2mLx9@redis-1.example.com").text


CAUGHT_TWENTIETH = [
    ("export token for the shared lab drive: Qw7Zr2Lm9Xp4Vt8K", "Qw7Zr2Lm9Xp4Vt8K"),
    ("sid=Tz8Qm2Xv7LpR4wK9; Path=/; Domain=.library.example.edu", "Tz8Qm2Xv7LpR4wK9"),
    ("curl -X POST https://hooks.zapier.com/hooks/catch/1234567/abc9xq/", "1234567/abc9xq/"),
    ("Passphrase für das Backup: apfel-regen-brot-wolke-27", "apfel-regen-brot-wolke-27"),
    ("frase de contraseña del USB: perro verde bajo la luna 2011", "perro verde bajo la luna 2011"),
    ("código de la puerta del laboratorio: 40817", "40817"),
    ("Lab keypad: 730019#", "730019"),
]


@pytest.mark.parametrize(("text", "secret"), CAUGHT_TWENTIETH)
def test_a_secret_the_twentieth_corpus_taught_is_redacted(text: str, secret: str) -> None:
    assert secret not in admit(text).text


LEFT_TWENTIETH = [
    "theme=dark; path=/",
    "lang=en-US-variant-long; Path=/",
    "the api key for this project: see the vault",
    "frase de ejemplo: el perro come pan",
    "keypad: numeric, 12 keys",
]


@pytest.mark.parametrize("text", LEFT_TWENTIETH)
def test_a_look_alike_of_the_twentieth_rules_is_left_alone(text: str) -> None:
    admitted = admit(text)
    assert admitted.text == text, admitted.redactions


@pytest.mark.parametrize(
    "text", ["a=bbbbbbbbbbbbbbbb; " * 4_000 + "path=/", "frase de " * 6_000, "for a " * 6_000]
)
def test_each_twentieth_rule_reads_a_text_in_linear_time(text: str) -> None:
    small, large = eightfold(admit, text)
    assert linear(small, large), (small, large)


def test_a_table_in_a_file_name_is_no_account_row() -> None:
    """A sample table run into a file's URI (its line breaks escaped) holds no account: the
    field after ``name`` is ``email%0A1``, an escape, no password."""
    text = "file:///tmp/p/id%2Cname%2Cemail%0A1%2CAda%20Lovelace%2Cada%40example.com"
    assert admit(text).text == text
    row = "vpn,https://vpn.lab.example/,dana,Rz7%Qm2x!"
    assert "Rz7%Qm2x!" not in admit(row).text

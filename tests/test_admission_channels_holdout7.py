"""The rules the seventh blind channel corpus asked for, each on text no corpus holds: a
key-like string given to a client's constructor, a credential constructor's password, a
secret-named string key's value, SQL's ``IDENTIFIED BY``, an Oracle JDBC URL's password,
Backblaze's ``b2 account authorize``, ``lftp -u user,X``, zip's ``-P``, a quoted ``-p``
value holding ``(`` or cut short before its closing quote, a UUID given to an ``X-...-Key``
header, a password told in prose; and what stays: Mapbox's public ``pk.`` token, a path
given to a secret's name, a UUID given to no header, prose that tells no password."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from arborist._gate.admission import admit
from tests.test_admission import _cpu_growth

KEY = "Hq4Zt8Wn2Rv6Lp0Xs3Jm7Bc9Fd1Gk5Ny"
WORD = "Lantern!Fig_473"
UUID = "5e0b2c7a-91d4-4f3e-8a6b-c2d7e9f01b34"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (f'api := forecast.NewClient("{KEY}")', KEY),
        (f"llm = vendor.AsyncClient('{KEY[:24]}', timeout=30)", KEY[:24]),  # 8 changes
        (f'var c = new NetworkCredential("backup_svc", "{WORD}");', WORD),
        (f'return new PasswordAuthentication("mailer", "{WORD}".toCharArray());', WORD),
        (f"r = requests.get(url, auth=('reader', '{WORD}'))", WORD),
        (f'creds = HTTPBasicAuth(user, "{WORD}")', WORD),
        (f'new UsernamePasswordCredentials("etl", "{WORD}")', WORD),
        (f'props.setProperty("spring.datasource.password", "{WORD}");', WORD),
        (f"conf.set('fs.azure.account.secret', '{KEY}')", KEY),
        (f"CREATE USER analyst IDENTIFIED BY {WORD};", WORD),
        (f"ALTER USER 'app'@'localhost' IDENTIFIED WITH caching_sha2_password BY '{WORD}';", WORD),
        (f"url = jdbc:oracle:thin:hr/{WORD}@db.example.org:1521/ORCLPDB1", WORD),
        (f"jdbc:oracle:thin:system/{WORD}", WORD),
        (f"b2 authorize-account 0031a2b3c4d5e6f7 {KEY}", KEY),
        (f"b2 account authorize 0031a2b3c4d5e6f70000000002 {KEY}\nb2 ls bucket", KEY),
        (f"lftp -u mirror,{WORD} sftp://files.example.org", WORD),
        (f"zip -r -P '{WORD}' out.zip results/", WORD),
        (f"unzip -P {WORD} in.zip", WORD),
        (f"notes-7z a -p{WORD}.txt", WORD),
        (f"sshpass -p '{WORD}\nssh lab-gw", WORD),
        ("podman login quay.example -u 'team+bot' -p 'x(7Kq#e(2Zm!Vt'", "x(7Kq#e(2Zm!Vt"),
        (f"curl -H 'X-Archive-Key: {UUID}' https://repo.example/api", UUID),
        (f"the admin password for the staging box is {WORD}", WORD),
        ("Our shared passphrase for the backup drive is: maple orbit seven quartz", "maple orbit"),
        (f"Password for the demo account is: {WORD}.", WORD),
        ("<title>My lab passphrase is: amber kettle nine - Forum</title>", "amber kettle nine"),
        ("set the passphrase for the share is: amber kettle nine in the wizard", "kettle"),
        ("https://proxy.example/redis://cache:Otter-Moon77/v1/models", "Otter-Moon77"),
        (f"backup-X-Vault-Key: {UUID}.txt", UUID),
    ],
)
def test_a_value_given_by_place_or_in_prose_is_redacted(text: str, value: str) -> None:
    said = admit(text)
    assert value not in said.text and said.redactions, said.text


@pytest.mark.parametrize(
    "text",
    [
        "map.accessToken = 'pk.eyJ1IjoibGFiLW1hcHMiLCJhIjoiY2x4N2s5cTBzMDB3ZDJrcDZ5bXB6In0.Zx8Qd';",
        "kubectl create secret generic api --from-file=token=./secrets/api-token.txt",
        "password: /etc/app/db-password.conf",
        f"Job {UUID} finished (status: succeeded)",
        f"subscription_key_id: none; tenant: {UUID}",
        "the password is stored in the vault and rotated monthly",
        "Your password is required to continue.",
        "The passphrase is something only you know, so write it down nowhere",
        'fields = ("username", "password", "email")',
        'props.put("mail.smtp.password", System.getenv("SMTP_PASS"));',
        "new NetworkCredential(user, password)",
        "The user is identified by name and e-mail.",
        "client = OpenAI(api_key=os.environ['OPENAI_API_KEY'])",
        'http = httpx.Client("https://api.example.org/v1")',
        "svc = Client('Harbor7Lantern9Quay3Dock')",  # a name with a few digits
        "repo = Client('4be1c0d92f7a36e85b0d1c4a9e7f2b36d8a05c19')",  # a commit
        f"run = Client('{UUID}')",
        "blob = Client('U29tZSBub3RlcyBmcm9tIHRoZSBsYWIgbWVldGluZw==')",  # base64 of text
        "pkg = Client('sha512-Qm9vdHN0cmFwOmxvY2s+Zm9yK3Rlc3Q9PQ7xK2wLp9')",
        "with zip -P would put the password on the command line",
        "backup-HF_TOKEN=xxxxxxxxxxxxxxxxxxxxxxxx-old",
    ],
)
def test_what_tells_no_secret_stays(text: str) -> None:
    said = admit(text)
    assert said.clean and said.text == text, said.text


@pytest.mark.parametrize(
    "build",
    [
        lambda n: "zip " * n + " -Pq",
        lambda n: "lftp " * n + " -u",
        lambda n: "7z " * n + " -p",
        lambda n: "secrettoken" * n,
        lambda n: '"password' * n,
        lambda n: "password for the " * n + " is",
        lambda n: "Client(" * n,
    ],
)
def test_the_new_rules_take_linear_time(build: Callable[[int], str]) -> None:
    """A tool's name repeated on one line, a secret's word repeated in one name: eight
    times the text costs well under the 64 times a quadratic reading would."""
    assert _cpu_growth(build, 2_000) < 24

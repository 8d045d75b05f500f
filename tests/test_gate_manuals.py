"""What real manuals hold that the gate took for secrets (bench/gate_manuals.py lists them),
each beside the closest real secret, still caught; the documented example credentials the
gate keeps redacting; and the views read only around where they differ from a long page.

Wrongly taken, now left alone: prose saying what a thing is identified by (SQLite's
``the table identified by sqlite_stat1.tbl``, git's ``commits identified by "squash"``),
a minus sign inside a square bracket read as ``mysql -pX`` (gnuplot's ``[-pi/2:pi/2]``), a list of
authentication mechanisms given to an ``auth`` name (git's ``--smtp-auth="PLAIN LOGIN
GSSAPI"``) and a PGP signature's armored block (git's signed tags and commits)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from arborist._gate import views
from arborist._gate.admission import admit
from arborist._gate.views import REACH, WHOLE, around
from tests.test_admission import _cpu_growth

WORD = "Lantern!Fig_473"
PROSE = "The sample is read again when the index changes, and each row keeps its order.\n"


@pytest.mark.parametrize(
    "text",
    [
        'rows that have the same value for all columns identified by "aOrderBy".',
        "the approximate number of rows in the table identified by sqlite_stat1.tbl.",
        "an index identified by sqlite_stat3.idx and sqlite_stat3.tbl.",
        "The most severe problem is identified by CVE-2022-35737.",
        'the messages of commits identified by "squash" commands, omitting the messages '
        'of commits identified by "fixup" commands',
        'The user is identified by "Name77x" in the log.',
        "set xrange [-pi/2:pi/2]; set yrange [-pi/2:pi/2]",
        "plot [-pi:pi] [-pi/2:pi/2] sin(x) with lines",
        '$ git send-email --smtp-auth="PLAIN LOGIN GSSAPI" ...',
        "smtp_auth = cram-md5,plain",
        "section:Configuration",  # a word of 13 letters after a name: no DES hash
        "TIME:12:30:45\nhost:localhost\nmode:ReadOnlyModes",
    ],
)
def test_what_manuals_say_is_left_alone(text: str) -> None:
    said = admit(text)
    assert said.clean and said.text == text, said.text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (f"CREATE USER analyst IDENTIFIED BY {WORD};", WORD),
        (f"CREATE USER analyst\n  IDENTIFIED BY '{WORD}';", WORD),
        (f"CREATE USER IF NOT EXISTS jeff IDENTIFIED BY '{WORD}'", WORD),
        (f"ALTER USER 'app'@'localhost' IDENTIFIED BY '{WORD}';", WORD),
        (f"CREATE ROLE auditor IDENTIFIED BY {WORD};", WORD),
        (f'CREATE USER "Bob Smith" IDENTIFIED BY "{WORD}";', WORD),
        (f"GRANT CONNECT TO scott IDENTIFIED BY {WORD};", WORD),
        (f"grant all on db.* to 'u'@'%' identified by '{WORD}'", WORD),
        (f"CREATE DATABASE LINK hr CONNECT TO hr IDENTIFIED BY {WORD} USING 'x'", WORD),
        (f"CREATE USER 'a'@'h' IDENTIFIED BY 'x1y2z3w4', 'b'@'h' IDENTIFIED BY '{WORD}';", WORD),
        (f"mysql -u root -p{WORD}", WORD),
        (f'subprocess.run(["mysql", "-p{WORD}"])', WORD),
        (f"the answer quoted my config (-p{WORD}) but the conclusion is backwards", WORD),
        (f'--smtp-auth="{WORD}"', WORD),
        (f'--smtp-auth="PLAIN {WORD}"', WORD),
        ('"auth": "dXNlcjpQYXNzdzByZCE="', "dXNlcjpQYXNzdzByZCE="),
    ],
)
def test_the_closest_real_secret_is_still_caught(text: str, value: str) -> None:
    said = admit(text)
    assert value not in said.text and said.redactions, said.text


SIGNED_COMMIT = """tree eebfed94e75e7760540d1485c740902590a00332
gpgsig -----BEGIN PGP SIGNATURE-----
 Version: GnuPG v1
 $
 iQEcBAABAgAGBQJXYRjRAAoJEGEJLoW3InGJ3IwIAIY4SA6GxY3BjL60YyvsJPh/
 HRCJwH+w7wt3Yc/9/bW2F+gF72kdHOOs2jfv+OZhq0q4OAN6fvVSczISY/82LpS7
 DVdMQj2/YcHDT4xrDNBnXnviDO9G7am/9OE77kEbXrp7QPxvhjkicHNwy2rEflAA
 EdTwhcTZlI0x5pvJ3H0+4hA2jtldVtmPM4OTB0cTrEWBad7XV6YgiyuII73Ve3I=
 =jKHM
 -----END PGP SIGNATURE-----

signed commit
"""


def test_a_signatures_armored_block_is_public() -> None:
    assert admit(SIGNED_COMMIT).clean
    comment = SIGNED_COMMIT.replace(" $\n", " Comment: GPGTools (signed on a Mac)\n $\n")
    assert admit(comment).clean


def test_a_secret_beside_a_signature_or_in_a_private_block_is_caught() -> None:
    key = "ghp_" + "Zq8vK4p9Lm2Xw7Rt5Yb3Nc6Hd1Jf0Gs4Ue8A"
    after = admit(SIGNED_COMMIT + f"\ntoken: {key}\n")
    assert key not in after.text
    private = SIGNED_COMMIT.replace("PGP SIGNATURE", "PGP PRIVATE KEY BLOCK")
    assert "iQEcBAABAgAGBQJXYRjRAAoJ" not in admit(private).text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("protocol=https\nhost=example.com\nusername=bob\npassword=secr3t\n", "secr3t"),
        (
            "[imap]\n    host = imap://imap.example.com\n    user = bob\n    pass = p4ssw0rd\n",
            "p4ssw0rd",
        ),
        ("   myuser:$1$9K7FzU28$VfF6EoPYCJEYcVQwATgOP/\n", "$1$9K7FzU28$VfF6EoPYCJEYcVQwATgOP/"),
        ("   myuser:sqkNi8zPf01HI\n   myuser:$1$9K7Fz", "sqkNi8zPf01HI"),  # DES crypt
        ("anonymous:\nmyuser:sqkNi8zPf01HI:cvsuser\n", "sqkNi8zPf01HI"),  # CVSROOT/passwd
        ("ops:aB./xY9zQ1wE3", "aB./xY9zQ1wE3"),
    ],
)
def test_a_manuals_example_credential_is_still_redacted(text: str, value: str) -> None:
    """A documented example is redacted as a user's own would be: a value given to a
    password's name is a secret, in prose too, and an htpasswd line's hash opens a door
    to whoever cracks it; nothing in the text tells the manual's from a user's."""
    assert value not in admit(text).text


def _page(middle: str, lines: int = 400) -> tuple[str, str]:
    """Prose long past :data:`WHOLE` before and after ``middle``."""
    pad = PROSE * lines
    assert len(pad) > WHOLE
    return pad, pad + middle + pad


@pytest.mark.parametrize(
    "middle",
    [
        f"url: https://api.example/run?q=token%3D{'ghp_'}Zq8vK4p9Lm2Xw7Rt5Yb3Nc6Hd1Jf0Gs4Ue8A\n",
        f"page%2Fpassword%253D{WORD}%26next\n",
        "key: AKIA\u00ad" + "Q7ZP4XK2MW9RT3LB\n",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun"
        "\n-----END RSA PRIVATE KEY-----sk-proj-" + "Zq8vK4p9Lm2Xw7Rt5Yb3Nc6Hd1Jf0Gs4Ue8A\n",
        f"user:{WORD}@host and then password={WORD} printf('%3d', n)\n",
    ],
)
def test_a_long_page_is_redacted_as_its_short_part(middle: str) -> None:
    """Its views are read only around where they differ (escapes, invisible characters, the
    placeholders of a round of redactions): a secret in a long page comes out as in the
    short text alone, at the same place."""
    pad, page = _page(middle)
    short = admit(middle)
    assert short.redactions
    assert admit(page).text == pad + short.text + pad


def test_a_long_page_with_escapes_and_a_redaction_is_read_about_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A manual's printf escapes (``%3f``) and one redaction: the finders read the page once
    and a few stretches, not once per view (four times, before)."""
    read: list[int] = []
    real = views.candidates

    def counted(text: str) -> Iterator[tuple[str, int, int]]:
        read.append(len(text))
        return real(text)

    monkeypatch.setattr(views, "candidates", counted)
    _pad, page = _page(f"printf('%3f', x)\npassword={WORD}\nprintf('%2d', n)\n", lines=4000)
    assert admit(page).redactions
    assert sum(read) < 1.1 * len(page), read


def test_stretches_are_cut_at_lines_joined_and_whole_when_wide() -> None:
    text = PROSE * 1000
    size, at = len(text), len(text) // 2
    [(a, b)] = around(text, [(at, at + 3), (at + 10, at + 12)])  # near: one stretch
    assert a <= at - REACH and b >= at + 12 + REACH and b - a < 2 * REACH + 2 * len(PROSE)
    assert text[a - 1] == "\n" and text[b] == "\n"
    far = around(text, [(60_000, 60_001), (10_000, 10_001)])
    assert len(far) == 2 and far[0][1] < 10_001 + 2 * REACH < far[1][0]
    assert all(text[x - 1] == "\n" and text[y] == "\n" for x, y in far)
    assert around(text, []) == []
    assert around(PROSE * 10, [(3, 4)]) == [(0, len(PROSE) * 10)]  # short: whole
    assert around(text, [(x, x + 1) for x in range(0, size, 5_000)]) == [(0, size)]


@pytest.mark.parametrize(
    "build",
    [
        lambda n: "user identified " * n,
        lambda n: "CREATE USER u IDENTIFIED " * n,
        lambda n: "[-pi/2:pi/2] " * n,
        lambda n: "\nab:aB3" * n,
        lambda n: "a:" * n,
        lambda n: ("%3f " * 50 + "password=Zq8v.4Kp\n") * (n // 50 + 1),
    ],
)
def test_the_rules_take_linear_time(build: Callable[[int], str]) -> None:
    assert _cpu_growth(build, 2_000) < 24

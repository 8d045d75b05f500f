"""The gate's twelfth round (arborist._gate.bare and the rules beside it): secrets known by
their shape alone in a short text, wallets' keys, a key decoded where it is given, a token a
line break parted, a userinfo whose scheme is lost, groups and codes after their names,
passwords named in more languages; and the near misses each must leave alone. Every value
is made up here, built at run time where a scanner of this repository might take it for
a real one."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from arborist._gate.admission import admit
from arborist._gate.bare import FIELD, strong_password
from arborist._store.fetch import url_file_name
from tests.test_admission import _cpu_growth

B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _b58(n: int, seed: int) -> str:
    """``n`` Base58 characters, spread over the alphabet (no ``0``, ``O``, ``I``, ``l``)."""
    return "".join(B58[(seed + i * 37 + i * i) % len(B58)] for i in range(n))


# --- a strong password in a short text ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Qm4$tLx9!vRz", "Qm4$tLx9!vRz"),  # a label, a model's name: the word alone
        ("IT made me reset it, so now it's Harbor$Mist$Gate5 again.", "Harbor$Mist$Gate5"),
        ("finally got in with Copper_Field_2031!", "Copper_Field_2031!"),
        ("notes-Tern&Stone_0815 - export.pdf", "Tern&Stone_0815"),
        ("backup.pw.Raven!Coast61.tar.gz", "Raven!Coast61"),
        ("pw-Maple!Drift72", "Maple!Drift72"),
        ('svc,owner,cred\nnas,kim,"Fjord#Lime_44",rotated\n', "Fjord#Lime_44"),
        ("https://dash.example.org/search?q=Kx7%24vL2%21pW9%23tR&page=1", "Kx7%24vL2%21pW9%23tR"),
        ("https://notes.example.org/p/Kx7$vL2!pW9#tR", "Kx7$vL2!pW9#tR"),
        ("gpt-4o-mini#Kx7$vL2!pW9#tR", "Kx7$vL2!pW9#tR"),
        ("Note: 4=qkTRD=w+mzF7HG", "4=qkTRD=w+mzF7HG"),  # only + and =, twelve or more
    ],
)
def test_a_strong_password_in_a_short_text_is_redacted(text: str, value: str) -> None:
    assert value not in admit(text).text


@pytest.mark.parametrize(
    "text",
    [
        "Reset your password via the self-service portal at it.example.org.",
        "gpt-4o-mini#Reset your password at the portal",
        "gpt-4o-mini#$API_KEY",
        "gpt-4o-mini#OPENAI_API_KEY=",
        "email bob.smith2@example.org about R&D budgets for Q3",
        "C++17 and C#10 both build; see #Issue42 and @Reviewer2",
        "reference genome GCF_000001405.40 (GRCh38.p14)",
        "Slack channel C04JVN7ERT4, user U02IS1WICXG",
        "https://example.org/a?b=1&Cd=2&eF3=x",
        "Orchard7Harbor9Lantern3 and getUserById2 are names",
        "doi:10.1038/s41586-023-06291-2",
        "screenshot_$TOKEN_2024-06-01.png",  # a shell variable in a name
        "the Ca2+Mg2+ATPase assay",  # charges, not marks
        "a=b+C2d",  # short: a formula
        "Use the key Ctrl+Shift+F5 to refresh",  # keys pressed together
        "press Cmd+Option+Esc3 or Ctrl+Alt+Del1",
    ],
)
def test_names_and_prose_in_a_short_text_stay(text: str) -> None:
    assert not admit(text).redactions


def test_a_long_document_is_not_weighed_word_by_word() -> None:
    """Past FIELD characters a password needs words around it (gate/context): prose
    holding a word of all four classes and nothing about signing in stays as it is."""
    filler = "The rollout moves to Tuesday and the notes say why. " * (FIELD // 50 + 1)
    assert not admit(filler + "Build tag Qm4$tLx9!vRz shipped.").redactions
    assert admit(filler + "The login is Qm4$tLx9!vRz.").redactions


@pytest.mark.parametrize(
    ("word", "strong"),
    [
        ("Qm4$tLx9!vRz", True),
        ("Harbor$Mist$Gate5", True),
        ("Harbor$Mist$Gate", False),  # no digit
        ("harbor$mist$gate5", False),  # one case
        ("Harbor7Mist8Gate", False),  # no mark
        ("gpt-4o-mini#Reset", False),  # a slug and its tag
        ("bob.smith2@Example", False),  # an address
    ],
)
def test_what_reads_as_a_strong_password(word: str, strong: bool) -> None:
    assert strong_password(word) is strong


# --- one random token in a short text ---------------------------------------------------

TOKEN = "Gw7TqPhzx" + "D5qkPNGDfFjimyw" + "8Rc5wm38Moe0l"


@pytest.mark.parametrize(
    "text",
    [TOKEN, f"https://notes.example.org/p/{TOKEN}", f"retry with {TOKEN}", f"{TOKEN[:24]}"],
)
def test_one_random_token_in_a_short_text_is_redacted(text: str) -> None:
    assert TOKEN[:24] not in admit(text).text


@pytest.mark.parametrize(
    "text",
    [
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIiVDZTPKVUAzF9FPvNm96ogh9BF2mZQ6eB+iCbO0h kim@lab",
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUTkWelkVpYrRxKLN0lvDaADjahtYEp6AvbMjAY1C\n"
        "-----END CERTIFICATE-----",
        "eyJldmVudCI6InBhZ2VfdmlldyIsInBhdGgiOiIvcHJpY2luZyJ9",  # base64 of JSON
        "charge ch_HYjDQPy2LRjFSBN2SK3Q0dvR refunded",  # a vendor's public id
        "commit 9f91b99d43458537790deade4419d5f19f8db994",
        "run 6d991c07-a687-47a3-9c3e-0f2b3e0c9a11 done",
        "Orchard7Harbor9Lantern3Meadow5River2",
        "integrity sha512-bAUnKJL+hkrW32kTkR42Mrw16EIL/KIAgJtLRQW4Z5kkRrNFKeJEGUPoIudn7Ke==",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINjXAgbp3zGHD1lgQk9ExwZCHHNTsFmBCktKdUHiFE2n a@b",
        "pk_test_51khsRRDHLqm7T9rCrA4eSHLrjgjJ5YfLZK0WjCcPzN3tjS4TAROFGYscEy51TTeofl33cQ",
        "completion chatcmpl-FmZMlGZFVVmD1UKn45aMjuVDehUZt and msg_01vVGGuI7EbzSgQGobp5MxEz",
        "local/llama3-8b = 1a40dba3bc74d5aef947be717aaa7933-q4_K_M",
        "address 1BoatSLRHtKNngkdXEeobR76b53LETtpyT",
        "ulid 01J1CT2BAK9H48V4B92AQDWY2M",
    ],
)
def test_ids_hashes_and_data_in_a_short_text_stay(text: str) -> None:
    assert not admit(text).redactions


# --- groups, seed phrases, codes ----------------------------------------------------------

GROUPED = "GvAz 8cfp E8tA YSLs FMGQ T9jz 4zD6 j3zQ LVfV gtpX"
SEED = (
    "cabin tower gentle rhythm oyster bundle silk meadow harvest danger pilot vacuum "
    "copper island frozen timber echo marble saddle unveil prosper wrist jungle spatial"
)


@pytest.mark.parametrize(
    "text",
    [
        f"the aws secret, read out: {GROUPED} into the summary.",
        f"{GROUPED}",
        f"Note to self: {SEED}",
        f'Why does "{SEED}" fail?',
        f"the config should read {SEED}, not the default.",
    ],
)
def test_grouped_keys_and_bare_seed_phrases_in_a_short_text_are_redacted(text: str) -> None:
    out = admit(text).text
    assert "E8tA YSLs" not in out and "oyster bundle silk" not in out


@pytest.mark.parametrize(
    "text",
    [
        "PGP fingerprint: CAC4 D250 7CF9 3BB9 B251 5442 74A5 65A5 507F 533E into the summary.",
        "IBAN DE89 3704 0044 0532 0130 00 for the invoice",
        "we want to move all of the old data into the new store before the end of the week",
        "keywords protein folding structure prediction learning benchmark for the lab",
    ],
)
def test_fingerprints_numbers_and_prose_stay(text: str) -> None:
    assert not admit(text).redactions


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Apple app-specific password for the sync: hgtw-pqxz-mkvb-rnyc", "hgtw-pqxz-mkvb-rnyc"),
        ("GitHub recovery code I haven't used yet: 73914-28560", "73914-28560"),
        ("backup codes: 4821 9930, 1187 2245", "4821 9930, 1187 2245"),
        ("Ledger recovery words (keep offline!): orbit thunder velvet canyon lunar", "velvet"),
    ],
)
def test_app_passwords_recovery_codes_and_words_after_their_names(text: str, value: str) -> None:
    assert value not in admit(text).text


@pytest.mark.parametrize(
    "text",
    [
        "Save your recovery codes: you will need them if you lose your phone.",
        "backup code count: 10",
        "app password: see the vault",
    ],
)
def test_prose_about_codes_stays(text: str) -> None:
    assert not admit(text).redactions


# --- wallets' keys, decoded literals, parted tokens, userinfo ----------------------------

WIF = "5J" + _b58(49, 3)
XPRV = "xprv" + _b58(107, 11)
KEYPAIR = _b58(88, 5)


@pytest.mark.parametrize(
    "text",
    [
        f"paper wallet WIF: {WIF}",
        f"{WIF}",
        f"backup_{WIF}.txt",
        f"K{_b58(51, 7)}",
        f"extended key {XPRV}",
        f"solana keypair (base58) for the faucet: {KEYPAIR}",
    ],
)
def test_wallets_private_keys_are_redacted(text: str) -> None:
    key = text.rsplit(" ", maxsplit=1)[-1].removeprefix("backup_").removesuffix(".txt")
    assert key not in admit(text).text


def test_64_bytes_of_base58_with_no_key_named_stay() -> None:
    """A transaction's signature is as long as a keypair: it needs a key's name before it."""
    assert not admit(f"tx signature {KEYPAIR} confirmed").redactions
    assert not admit("IPFS QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG pinned").redactions


HEX = "4eed771fc29279b07ae422b9ccafba333a6f270580ee43a754221816eb7d57da"


@pytest.mark.parametrize(
    "text",
    [
        f"app.secret_key = bytes.fromhex('{HEX}')",
        f'SECRET_KEY = base64.b64decode("{HEX[:44]}")',
        f'const signingKey = Buffer.from("{HEX}", "hex");',
        f'cfg["api_token"] = binascii.unhexlify(b"{HEX}")',
    ],
)
def test_a_key_decoded_where_it_is_given_is_redacted(text: str) -> None:
    assert HEX[:40] not in admit(text).text


@pytest.mark.parametrize(
    "text",
    [
        f"digest = bytes.fromhex('{HEX}')",
        f"expected_sha = unhexlify('{HEX}')",
    ],
)
def test_a_decoded_literal_given_to_another_name_stays(text: str) -> None:
    assert not admit(text).redactions


GHP = "ghp_" + "FZRvHjGawOen1Cub" + "etmp2hKmcQkas6GOgoPG"


@pytest.mark.parametrize("brk", ["-\n", "-\r\n", "-\n   ", "-%0A", "-\\n"])
def test_a_token_parted_by_a_hyphen_at_a_line_end_is_redacted(brk: str) -> None:
    text = f'Why does "{GHP[:20]}{brk}{GHP[20:]}" fail?'
    out = admit(text).text
    assert GHP[:20] not in out and GHP[20:] not in out


def test_hyphenated_prose_stays() -> None:
    assert not admit("the measure-\nments were taken twice, the second batch-\n2024 too").redactions


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("default:XbytSsvxoqiL6NIc3UAE19yHQHBIujBD@redis-1.c1.example.com:12345", "XbytSsvx"),
        ("elastic:El4stic_Search9@es.lab.internal:9200", "El4stic_Search9"),
    ],
)
def test_a_userinfo_whose_scheme_is_lost_is_redacted(text: str, value: str) -> None:
    assert value not in admit(text).text


@pytest.mark.parametrize(
    "text",
    ["mailto:bob@example.org", "git@github.com:lab/repo.git", "ts:2024@host.example.org"],
)
def test_addresses_with_a_colon_stay(text: str) -> None:
    assert not admit(text).redactions


# --- names: more languages; names given nothing ------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("lösenordet till labbdatorn är Älgjakt2022!", "Älgjakt2022!"),
        ("hasło do serwera: Wisla#2024x", "Wisla#2024x"),
        ("passordet er Fjell9!Bekk og brukeren er kim", "Fjell9!Bekk"),
        ("passordet er Fjell9!Bekk", "Fjell9!Bekk"),
        ("la contrasenya és Gaudi#77xQ", "Gaudi#77xQ"),
    ],
)
def test_a_password_named_in_more_languages_is_redacted(text: str, value: str) -> None:
    filler = "Notes from the meeting about the rollout and the plate maps. " * 20
    assert value not in admit(filler + text).text  # a long document: the name is the cue


@pytest.mark.parametrize(
    "text",
    [
        'nas01,kchen,"OPENAI_API_KEY=",rotated in March',
        "model='llama3 OPENAI_API_KEY=', base_url='http://127.0.0.1:9/v1')",
        "https://files.example.org/share/api_key: null/report.pdf",
        "upstream rejected credential $API_KEY: token expired",
        "key: password: token expired",
        "http://llm.example.internal:8000/v1?api_key=valueFrom:\n  secretKeyRef:",
        "backup_OPENAI_API_KEY=.tar.gz.txt",
        "project OPENAI_API_KEY= archive/notes.txt",
        "WireGuard peer PublicKey = UedVZymYlySTx3oDFX1ksm5+aXoDkpq8wTDcFYDv87s=",
        "creds reference genome GRCh38.p14",
    ],
)
def test_a_name_given_nothing_and_a_public_key_stay(text: str) -> None:
    assert not admit(text).redactions


def test_a_private_key_beside_a_public_one_is_still_redacted() -> None:
    text = "PrivateKey = PEYDRMjvA8XSjZhKYrRXKJ3gxoJF4cPyB2HTjIPmVGE=\nPublicKey = Ued5+aX="
    assert "PEYDRMjvA8XS" not in admit(text).text


def test_a_pgpass_line_before_a_colon_and_a_space_is_redacted() -> None:
    text = "rejected credential db.lab.internal:5432:genomics:analyst:PgPass_Line!77: expired"
    assert "PgPass_Line!77" not in admit(text).text


def test_a_url_name_keeps_an_escape_that_is_no_utf8() -> None:
    """``%DB_PASSWORD%`` in a URL's last segment is a variable's name, not a byte: it is
    named as written, and the gate reads a reference, not a value."""
    assert url_file_name("/pages/set%20PGPASSWORD=%DB_PASSWORD%", "h") == (
        "set PGPASSWORD=%DB_PASSWORD%"
    )
    assert url_file_name("/a/contrase%C3%B1a", "h") == "contraseña"
    assert not admit("set PGPASSWORD=%DB_PASSWORD%").redactions


# --- linear time --------------------------------------------------------------------------

_ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "hyphens": lambda n: "abcdefgh1-\n" * (n // 11),
    "ats": lambda n: "a:Ab3dEf9xQ@b.c " * (n // 16),
    "groups": lambda n: "Ab3d " * (n // 5),
    "base58": lambda n: _b58(n, 1),
    "decoding calls": lambda n: "key = bytes.fromhex('" * (n // 21),
    "words": lambda n: "abc " * (n // 4),
}


@pytest.mark.parametrize("build", list(_ADVERSARIAL.values()), ids=list(_ADVERSARIAL))
def test_the_bare_rules_take_linear_time(build: Callable[[int], str]) -> None:
    assert _cpu_growth(build, 2_000) < 24


# --- vendors' tokens added this round ------------------------------------------------------

_R = "Kq7vTz2LmX9pRw4NbY8cHd3FjS6gAe5U"  # 32 letters and digits, made up
_U = "K7QZ2LMX9PRW4NBY8CHD3FJS6GAE5UTV"  # the same in capitals
VENDOR_TOKENS = [
    "IQoJb3JpZ2luX2Vj" + _R * 5 + "==",  # an AWS session token, bare
    "FwoGZXIvYXdzE" + _R * 4,
    "tskey-auth-k" + _R[:9] + "CNTRL-" + _R,  # Tailscale
    "eyJrIjoi" + _R * 2,  # Grafana
    f"A3-{_U[:6]}-{_U[6:17]}-{_U[17:22]}-{_U[22:27]}-{_U[27:32]}",  # 1Password Secret Key
    "AQVN" + _R + "abcd",  # Yandex
    "st.0a1b2c3d-1111-2222-3333-4e5f6a7b8c9d." + "a1b2c3d4" * 4 + "." + "e5f6a7b8" * 4,
    "k9x2m4p7q1z" + "A" * 10 + _R + _R[:11],  # Dropbox, long-lived
    "tk-us-" + _R + _R[:16],  # Scalingo
    "ico-" + _R,  # Infracost
    "jina_" + _R * 2,
]


@pytest.mark.parametrize("token", VENDOR_TOKENS)
def test_vendor_tokens_added_this_round_are_redacted_anywhere(token: str) -> None:
    prose = "The rollout moves to Tuesday and the notes say why. " * (FIELD // 50 + 1)
    for text in (f"{prose}use {token} there", f"backup_{token}.txt", f"?note=token%20{token}"):
        assert token not in admit(text).text


@pytest.mark.parametrize(
    "text",
    [
        "st. louis office, st.john's wort, st.2024 notes",
        "A3-paper size, part A3-BX12 and tskey-auth docs",
        "the ico-sphere mesh and tk-us-east settings",
    ],
)
def test_words_that_open_like_the_new_vendors_stay(text: str) -> None:
    assert not admit(text).redactions

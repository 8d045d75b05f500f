"""The rules the twelfth blind channel corpus asked for (arborist._gate.handed and the
modules it touched), each on text no corpus holds: a password named in many languages, a
code that opens a door, tool flags and protocol lines that take a password, a webhook's
path on any host, a token split across literals, key blocks and keypairs; and what is public
though shaped like a secret (an address, a public name's value, a certificate, a published
sample token), which stays."""

from __future__ import annotations

import base64
import json
from urllib.parse import quote

import pytest

from arborist._gate.admission import admit

WORD = "Lindeboom-47"


@pytest.mark.parametrize(
    "text",
    [
        f"het wachtwoord van de router is {WORD}",
        f"wifin salasana on {WORD}",
        f"heslo k serveru je {WORD}",
        f"lozinka za bazu: {WORD}",
        f"kata sandi admin adalah {WORD}",
        f"adgangskode til nas = {WORD}",
        f"cyfrinair y llwybrydd yw {WORD}",
        f"mat khau may chu la {WORD}",
        f"парола за сървъра: {WORD}",
        f"the initial password for the intern account was set to {WORD}",
    ],
)
def test_a_password_named_in_many_languages_is_redacted(text: str) -> None:
    assert WORD not in admit(text).text


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("the garage door code is 482915 after 6pm", "482915"),
        ("Keypad code: 7316#", "7316"),
        ("PIN = 90417", "90417"),
        ("new passcode -> 558102", "558102"),
    ],
)
def test_a_code_that_opens_a_door_is_redacted(text: str, code: str) -> None:
    assert code not in admit(text).text


@pytest.mark.parametrize(
    "text",
    [
        "wachtwoord: zie de kluis",
        "salasana on vaihdettava kuukausittain",
        "error code is 404 on the staging box",
        "the zip code: 94110",
        "PIN: see the sealed envelope",
        "heslo je v trezoru",
    ],
)
def test_those_names_with_no_password_after_them_stay(text: str) -> None:
    assert not admit(text).redactions


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("xfreerdp /v:db01 /u:ops /p:Qv7!rTx92k /size:1280x800", "Qv7!rTx92k"),
        ("cmdkey /generic:backup /user:svc /pass:tidewater2019", "tidewater2019"),
        ('wpa_psk="Tannenbaum1987"', "Tannenbaum1987"),
        ("ipsec pre-shared-key: tidewater2019", "tidewater2019"),
        ("PASS tidewater2019\r\nNICK relaybot", "tidewater2019"),
        ("twitch irc token oauth:k3v9x1m0q7z2b8n4w6c5r1t0y3u8pa", "k3v9x1m0q7z2"),
        ("after the bastion, Wq7-harbor gets you root on the box", "Wq7-harbor"),
    ],
)
def test_a_password_a_flag_or_a_protocol_takes_is_redacted(text: str, value: str) -> None:
    assert value not in admit(text).text


def test_a_webhook_path_on_any_host_is_redacted() -> None:
    hook = "p8x2kq7m4n9w1v5t3z6y0r2c8b"
    out = admit(f"curl -d @msg.json https://mm.example.net/hooks/{hook}").text
    assert hook not in out and "mm.example.net/hooks/" in out


def test_a_token_split_across_two_literals_is_redacted_and_plain_ones_stay() -> None:
    head, tail = "gh" + "p_Zr8Kq2Lm4Vx9Tn", "3Bw7Yc1Hd5Fj0Gs6Pa4Xe"
    out = admit(f'key = ("{head}" "{tail}")').text
    assert head not in out and tail not in out
    assert not admit('label = ("Orchard Lane" "Harbor Street")').redactions


def test_a_diff_line_keeps_no_url_password() -> None:
    out = admit("+mysql://app:Qe7rTz90Lp@db.internal/app").text
    assert "Qe7rTz90Lp" not in out


def test_a_key_block_a_keypair_array_and_a_wallet_hex_key_are_redacted() -> None:
    body = "\n".join(["4f1a2b3c4d5e6f708192a3b4c5d6e7f8"] * 4)
    block = (
        f"-----BEGIN WireGuard Static key V1-----\n{body}\n-----END WireGuard Static key V1-----"
    )
    assert "4f1a2b3c" not in admit(block).text
    keypair = json.dumps([(i * 37 + 11) % 256 for i in range(64)])
    assert "11," not in admit(f"cat keypair.json\n{keypair}").text
    hexkey = "9c" * 8 + "4e71a0d3b2c5f8e1" * 3
    assert hexkey not in admit(f"wallet private export: {hexkey}").text


def test_a_refresh_token_is_redacted_whole() -> None:
    refresh = "0.ARoA" + "kX9vQ2mL7wT4nB8cY1hJ6dS0aZ5eG3uI9oP2qK7w_Rt-" * 3
    assert "0.ARoAkX9v" not in admit(f"graph refresh -> {refresh}").text


def test_recovery_codes_one_a_line_and_a_numbered_seed_phrase_are_redacted() -> None:
    codes = "recovery codes for the org account:\n40718826\n91530047\n66219385"
    out = admit(codes).text
    assert "40718826" not in out and "66219385" not in out
    words = [
        "maple",
        "river",
        "stone",
        "cloud",
        "amber",
        "piano",
        "lemon",
        "frost",
        "cedar",
        "honey",
        "quartz",
        "tulip",
    ]
    listing = "wallet words:\n" + "\n".join(f"{i}. {w}" for i, w in enumerate(words, 1))
    out = admit(listing).text
    assert "amber" not in out and "tulip" not in out


def test_a_numbered_list_that_is_no_seed_phrase_stays() -> None:
    words = [
        "milk",
        "eggs",
        "bread",
        "rice",
        "tea",
        "jam",
        "salt",
        "oil",
        "flour",
        "beans",
        "soap",
        "soda",
    ]
    listing = "shopping:\n" + "\n".join(f"{i}. {w}" for i, w in enumerate(words, 1))
    assert not admit(listing).redactions


def test_a_passphrase_of_plain_words_keeps_its_small_words() -> None:
    out = admit("Passphrase for the tape vault: yellow kettle sings at dawn").text
    assert "kettle" not in out and "dawn" not in out
    assert not admit("passphrase: ask the admin for it").redactions


def test_a_capitalised_word_with_an_at_sign_for_a_letter_is_a_password_not_an_address() -> None:
    assert "Gr@nada2031" not in admit("login mrossi  Gr@nada2031  (VPN)").text
    assert not admit("login as root@gpu07 first").redactions


@pytest.mark.parametrize(
    "text",
    [
        "tips go to 0x3F9a1b2C4d5E6f708192A3b4C5d6E7f8091a2B3c",
        "VITE_PUBLIC_ANALYTICS_KEY=pk_9Yq2Lm7Vx4Tn8Bz1Rc5Hd0Fj3Gs6Pa",
        '<form data-sitekey="6LdQ8x2AAAAAKm3Vx9Tn4Bz8Rc1Hd5Fj0Gs6Pa"></form>',
        'export DB_PASSWORD="$(pass show lab/db)"',
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ7kX2mL9vT4nB8cY1hJ6dS0aZ5eG3uI9o\n"
        f"{base64.b64encode(bytes(range(7, 39))).decode()}\n-----END CERTIFICATE-----",
    ],
)
def test_what_is_public_or_code_though_shaped_like_a_secret_stays(text: str) -> None:
    assert not admit(text).redactions


def test_the_published_sample_token_stays_and_one_changed_is_redacted() -> None:
    sample = (
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9l"
        "IiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
    )
    assert not admit(f"paste {sample} into the debugger").redactions
    changed = sample[:-1] + "d"
    assert changed not in admit(f"paste {changed} into the debugger").text


def test_a_public_name_does_not_keep_a_secret_key_given_to_it() -> None:
    key = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
    assert key not in admit(f"NEXT_PUBLIC_STRIPE_KEY={key}").text


def test_an_accounts_line_user_slash_password_is_redacted_and_a_route_stays() -> None:
    out = admit("Logins:\n- Wiki: rgarcia / velvet-otter-canyon\n- Fax: none").text
    assert "velvet-otter-canyon" not in out and "rgarcia" in out
    assert not admit("Menu:\n- Home: index / settings-page-view").redactions


def test_an_address_and_a_public_name_stay_percent_encoded_or_joined_to_a_word() -> None:
    address = "0x3F9a1b2C4d5E6f708192A3b4C5d6E7f8091a2B3c"
    assert not admit(f"tips%20to%20{address}-old").redactions
    assert not admit("PUBLIC_MAP_KEY%3Dpk_9Yq2Lm7Vx4Tn8Bz1Rc5Hd0Fj3Gs6Pa").redactions


def test_a_public_name_keeps_its_own_value_only_not_what_follows_it_encoded() -> None:
    key = "9be745c56b5028998c2e7cf32dce83e4"
    text = f'cfg(public_key="pk8xq4r2w", private_key="{key}")'
    assert key not in admit(text).text
    assert key not in admit(quote(text, safe="")).text


def test_a_digest_after_its_hash_name_is_no_wallet_key_even_near_wallet_words() -> None:
    digest = "c3" * 8 + "7d0e91a4b2f68c35" * 3
    assert not admit(f"wallet backup export.tar --hash=sha256:{digest}").redactions
    assert digest not in admit(f"deployer wallet private key {digest}").text


def test_a_name_before_the_gates_own_mark_is_not_read_again() -> None:
    """A password's name before another secret ("SANDI sk-proj-…"): the key is redacted as a
    key, and the round that reads the text again does not take the mark it left
    (``[REDACTED:openai_key]``) for the name's value (hypothesis found it nested)."""
    key = "sk-proj-k-Heas8VOcI-z0myHl2QlU0G4mzLmfzU-ydUF3MTplzoINz6"
    assert admit(f"SANDI {key} ").text == "SANDI [REDACTED:openai_key] "
    assert admit("kata sandi [REDACTED:openai_key]").text == "kata sandi [REDACTED:openai_key]"

"""The rules the tenth blind channel corpus asked for, each on text no corpus holds: a
password named in another script or language (or "pass ... is", "pw ... ->"), and what
stays: the same names with no password after them."""

from __future__ import annotations

import base64

import pytest

from arborist._gate.admission import admit

WORD = "Kiefer8Moos!Tal31"


@pytest.mark.parametrize(
    "text",
    [
        f"데이터베이스 비밀번호: {WORD}",
        f"كلمة السر للراوتر: {WORD}",
        f"数据库的密码是 {WORD}",
        f"データベースのパスワード：{WORD}",
        f"Пароль для базы: {WORD}",
        f"राउटर का पासवर्ड: {WORD}",
        f"ο κωδικός του router: {WORD}",
        f"סיסמה: {WORD}",
        f"la parola d'ordine del server = {WORD}",
        f"mdp admin = {WORD}",
        f"clé de l'API : {WORD}",
        f"the guest pass is {WORD}, good till Friday",
        f"pw for the build box -> {WORD}",
    ],
)
def test_a_password_named_in_another_script_or_language_is_redacted(text: str) -> None:
    assert WORD not in admit(text).text


@pytest.mark.parametrize(
    "text",
    [
        "Пароль: смотрите в вики, раздел 2.",
        "パスワードは後で送ります。",
        "服务器密码：请联系管理员",
        "비밀번호: 관리자에게 문의하세요",
        "the boarding pass is at gate B12 (printed 2024-06-01)",
        "pass is a keyword: def f(): pass",
        'row,"db_pass = see vault",2026-10-02',
        "mdp = os.environ['MDP_2024']",
    ],
)
def test_a_password_name_with_no_password_after_it_stays(text: str) -> None:
    assert not admit(text).redactions


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("TOTP secret key: jbsw y3dp ehpk 3pxp jbsw y3dp", "y3dp ehpk 3pxp"),
        ("the app password for the mailer = qwmz tyrk plso vbne", "tyrk plso"),
        ("seed phrase: orbit lamp canyon fragile velvet ozone", "canyon fragile"),
        ("Backup passphrase: tundra mosaic pebble walrus in the safe", "mosaic pebble"),
        ("mnemonic=gravel honey spider acoustic nephew", "honey spider"),
    ],
)
def test_a_spaced_secret_after_its_name_is_redacted(text: str, value: str) -> None:
    assert value not in admit(text).text


@pytest.mark.parametrize(
    "text",
    [
        "setup Key fingerprint = 6999 2DBF 838B 0B35 D8B2 7DF9 0ECA 4397",
        "passphrase: ask the admin for it",
        "app password: use the vault for them all",
        "the seed phrase has twelve words",
        "np.random.seed(7); run seed: alpha beta",
    ],
)
def test_spaced_words_that_are_a_sentence_or_a_fingerprint_stay(text: str) -> None:
    assert not admit(text).redactions


@pytest.mark.parametrize(
    "text",
    [
        'secret = getpass.getpass("Vault password: ")',
        "it said to set GITHUB_TOKEN= before the run",
        "GITHUB_TOKEN=.txt",
        "token: none</td></tr>",
        "/srv/notes/api_key: null/",
        "?api_key=-----BEGIN PUBLIC KEY-----",
    ],
)
def test_a_name_given_code_a_suffix_armour_or_a_placeholder_stays(text: str) -> None:
    assert not admit(text).redactions


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("SECRET_KEY = )qx1ivyney)^-r$5h=d09z%c)(-ls", "qx1ivyney"),
        ("api_key: Zq8v3LmW2xR7tY9p</code>", "Zq8v3LmW2xR7tY9p"),
    ],
)
def test_a_value_like_them_that_is_a_secret_is_redacted(text: str, value: str) -> None:
    assert value not in admit(text).text


def test_32_random_bytes_in_base64_without_padding_are_redacted_and_text_stays() -> None:
    key = "Qm9vc3Q3Kx9LmZ2RkT1c8aWpV0bXeY4nHs6GdJfA3pE"  # 43 characters: 32 bytes
    assert key not in admit(f"paste this into the tool:\n\n{key}\n").text
    words = base64.b64encode(b"a plain sentence of text, 32 ch").decode().rstrip("=")
    assert not admit(f"paste this:\n\n{words}\n").redactions

"""The rules the fifth blind channel corpus asked for, each on text no corpus holds: a key
given to a tool's ``login`` command, and a shell variable standing for a token with text
glued after it (a placeholder, not a token)."""

from __future__ import annotations

import pytest

from arborist._gate.admission import admit

KEY = "5d0c8e1f7a2b4c6d9e3f1a7b5c2d8e4f6a1b3c9d"


@pytest.mark.parametrize(
    "text",
    [
        f"wandb login {KEY}",
        f"!wandb login --relogin {KEY}",
        f"$ comet login {KEY[:32]}\n",
        f"run `neptune login {KEY}` once per machine",
        f"login\t{KEY}",
    ],
)
def test_a_key_given_to_a_login_command_is_redacted(text: str) -> None:
    said = admit(text)
    assert KEY[:20] not in said.text and said.redactions, said.text


@pytest.mark.parametrize(
    "text",
    [
        "machine example.com login alice_the_researcher password $PASS",  # a user name
        "ssh login to the cluster-head-node-number-two",  # words, no key among them
        "To log in, run huggingface-cli login and paste your token",
        "login abcdefghijklmnopqrstuvwxyz",  # letters alone: a word, not a key
    ],
)
def test_a_name_after_login_is_kept(text: str) -> None:
    assert admit(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        "Authorization: Bearer $TOKEN.ipynb",
        "<code>Authorization: Bearer $API_TOKEN</code></p>",
        'print("Authorization: Bearer $HF_TOKEN\\n")',
        "org/Authorization: Bearer $TOKEN-finetune",
        "Authorization: Bearer %API_KEY%/v1/models",
        "Authorization: Bearer ${TOKEN}_2024-06-11",
    ],
)
def test_a_variable_standing_for_a_token_is_a_placeholder_whatever_follows(text: str) -> None:
    assert admit(text).text == text


def test_a_key_glued_after_a_variable_is_still_a_key() -> None:
    text = "Authorization: Bearer $TOKEN-Zk3v9QpL2mX8wR4tY6uB1nC5"
    said = admit(text)
    assert "Zk3v9QpL2mX8wR4tY6uB1nC5" not in said.text and said.redactions

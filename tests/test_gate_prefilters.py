"""The gate's cheap tests before a scan say what the scan would: each is a faster way to the
same answer (issue #33's throughput), never a different one."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arborist._gate.code import _QUOTE_COMMA
from arborist._gate.commands import _PUTTY_PRIVATE
from arborist._gate.finders import _DISCORD_TAIL, _EYJ, _PEM_HEAD
from arborist._gate.names import _END_TAG
from arborist._gate.prefilters import Literals
from arborist._gate.shapes import DISCORD, opening_characters
from arborist._gate.told import SCRIPT_NAMES, script_name_starts
from tests.hypothesis_sizes import scaled_examples

_SCRIPT_PIECES = ["пароль", "парол", "гасло", "лозинка", "hasło", "ło", "lösenord", "ösen"]
_SCRIPT_PIECES += ["jelszó", "ó", "mật khẩu", "ật", "비밀번호", "암호", "密码", "şifre", "ë"]
_SCRIPT_PIECES += ["a", " ", "…", "é", "word", "л", "п"]


def test_the_first_characters_of_a_pattern_s_alternatives_are_read() -> None:
    assert opening_characters(re.compile("ab|c(?:d|e)|é(?<=xé)|ab")) == "acé"
    assert set(opening_characters(SCRIPT_NAMES)) >= set("비암密пл")


@pytest.mark.parametrize(
    "pattern",
    ["(?i)ab|c", "a|[b]", "a?b|c", "a*b", "a{0,2}b", "ab|", "a||b", "(x)|y", "a|\\d", "", ".a"],
)
def test_a_pattern_whose_first_characters_cannot_be_named_is_refused(pattern: str) -> None:
    """A pattern that folds case, holds a class, makes its first character optional or opens
    an alternative with a group, an escape, nothing or a wildcard could open a match with a
    character not named: a text without the named ones would go unread wrongly."""
    with pytest.raises(ValueError, match=r"first characters|opens with|is empty"):
        opening_characters(re.compile(pattern))


@settings(max_examples=scaled_examples(300), deadline=None)
@given(st.lists(st.sampled_from(_SCRIPT_PIECES), max_size=16))
def test_a_password_s_names_in_other_scripts_are_found_where_a_scan_finds_them(
    parts: list[str],
) -> None:
    """Read only when the text holds a character a match opens with, and then by the scan:
    the same starts as a scan of every text (none where it holds none of them)."""
    folded = "".join(parts)
    expected = [m.start() for m in SCRIPT_NAMES.finditer(folded)]
    assert script_name_starts(Literals(folded)) == expected


@settings(max_examples=scaled_examples(300), deadline=None)
@given(st.text(alphabet="\"' ,x", max_size=12))
def test_a_quote_and_a_comma_are_found_as_the_four_substrings_find_them(text: str) -> None:
    expected = any(pair in text for pair in ('",', "',", '" ,', "' ,"))
    assert (_QUOTE_COMMA.search(text) is not None) == expected


@settings(max_examples=scaled_examples(300), deadline=None)
@given(
    st.lists(
        st.sampled_from(["-----BEGIN ", "-----", "-", "BEGIN ", "BEGIN", " ", "x"]), max_size=8
    ),
    st.integers(min_value=0, max_value=40),
)
def test_a_pem_head_is_found_from_its_begin_where_a_find_finds_it(
    parts: list[str], pos: int
) -> None:
    """From any place on: never one whose dashes start before it, though its ``BEGIN`` is
    after."""
    text = "".join(parts)
    head = _PEM_HEAD.search(text, pos + 5)
    assert (head.start() - 5 if head is not None else -1) == text.find("-----BEGIN ", pos)


@settings(max_examples=scaled_examples(300), deadline=None)
@given(st.lists(st.sampled_from(["eyJ", "ey", "yJ", "e", "J", "<", "/", "</", "x"]), max_size=8))
def test_literals_found_from_a_rarer_character_are_found_as_a_find_finds_them(
    parts: list[str],
) -> None:
    text = "".join(parts)
    assert (_EYJ.search(text) is not None) == ("eyJ" in text)
    assert (_END_TAG.search(text) is not None) == ("</" in text)


@settings(max_examples=scaled_examples(300), deadline=None)
@given(
    st.lists(
        st.sampled_from(["Private-Lines: ", "Lines: ", "Private-", "Lines", "-", " "]), max_size=6
    )
)
def test_a_putty_key_s_private_lines_are_found_as_a_find_finds_them(parts: list[str]) -> None:
    text = "".join(parts)
    assert (_PUTTY_PRIVATE.search(text) is not None) == ("Private-Lines: " in text)


@settings(max_examples=scaled_examples(300), deadline=None)
@given(st.lists(st.sampled_from(["M", "N", "a1", "b2c3d4", ".", "_", "-", " ", "Q"]), max_size=40))
def test_a_discord_token_is_never_missed_by_its_tail_s_test(parts: list[str]) -> None:
    """Every text a search of :data:`DISCORD` matches holds its tail: the cheap test that goes
    first never turns one away."""
    text = "".join(parts)
    if DISCORD.search(text) is not None:
        assert _DISCORD_TAIL.search(text) is not None


def test_a_discord_token_shaped_text_passes_its_tail_s_test() -> None:
    token = "M" + "a1b2c3" * 4 + ".Gh7_Kq" + "." + "x9Y8w7" * 5
    assert DISCORD.search(token) is not None
    assert _DISCORD_TAIL.search(token) is not None


def test_the_empty_starts_a_short_text_shares_stay_empty() -> None:
    """A short text's literal it does not hold is given one shared empty list: no family may
    change it, or every later text would hold that literal's starts."""
    from arborist._gate import prefilters
    from arborist._gate.admission import admit

    for text in ("", "a title", "password: Zq8vR2mLx9!", "bench://corpus/1/0", "PIN 4471"):
        admit(text)
    assert prefilters._NONE == []

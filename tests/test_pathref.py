"""Path redaction: keyed, deterministic, and never a raw home path."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arborist._errors import StorageError
from arborist._pathref import KEY_FILE, load_or_create_key, redact_path, safe_basename


def test_the_key_is_created_once_with_mode_0600(home: Path) -> None:
    key = load_or_create_key(home)
    assert len(key) == 32
    assert stat.S_IMODE((home / KEY_FILE).stat().st_mode) == 0o600
    assert load_or_create_key(home) == key


def test_a_damaged_key_is_a_clear_error(home: Path) -> None:
    home.mkdir(parents=True)
    (home / KEY_FILE).write_bytes(b"short")
    with pytest.raises(StorageError, match="damaged"):
        load_or_create_key(home)


def test_redaction_never_emits_the_home_path_and_keeps_a_safe_basename(home: Path) -> None:
    key = load_or_create_key(home)
    raw = str(Path.home() / "Research" / "alice's thesis (draft).ipynb")
    ref = redact_path(raw, key)
    assert str(Path.home()) not in ref and "Research" not in ref
    digest, name = ref.split(":")
    assert len(digest) == 16 and name == "alice_s_thesis_draft_.ipynb"


def test_redaction_is_deterministic_for_one_key_and_differs_across_keys(tmp_path: Path) -> None:
    one, two = load_or_create_key(tmp_path / "a"), load_or_create_key(tmp_path / "b")
    path = "/Users/bob/notes/run.ipynb"
    assert redact_path(path, one) == redact_path(path, one)
    assert redact_path("/Users/bob/notes/./run.ipynb", one) == redact_path(path, one)
    assert redact_path(path, one) != redact_path(path, two)
    assert redact_path("/Users/carol/notes/run.ipynb", one) != redact_path(path, one)


@given(st.text(min_size=1, max_size=80).filter(lambda s: "\x00" not in s))
def test_any_path_gives_a_display_safe_reference(name: str) -> None:
    ref = redact_path("/home/someone/" + name, b"k" * 32)
    digest, base = ref.split(":", 1)
    assert len(digest) == 16
    assert "/" not in base and "someone" not in base.replace(safe_basename(name), "")
    assert base == safe_basename("/home/someone/" + name)


@pytest.mark.parametrize("path", ["/home/someone/", "/home/someone/\\", "C:\\Users\\someone\\"])
def test_a_path_ending_in_a_separator_never_shows_the_directory_above(path: str) -> None:
    assert redact_path(path, b"k" * 32).split(":", 1)[1] == "untitled"

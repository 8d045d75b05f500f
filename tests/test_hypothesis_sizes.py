"""The property tests' counts follow the profile: ``pytest --long`` draws ten times as many
examples as ``make test`` even where a test sets its own count (which would otherwise
override the ``long`` profile tests/conftest.py loads)."""

from __future__ import annotations

from hypothesis import settings

from tests.hypothesis_sizes import scaled_examples


def test_a_count_is_its_own_in_a_normal_run_and_ten_times_it_under_long() -> None:
    assert scaled_examples(300, settings.get_profile("default")) == 300
    assert scaled_examples(300, settings.get_profile("long")) == 3000
    assert scaled_examples(40, settings.get_profile("long")) == 400


def test_a_count_is_never_zero() -> None:
    assert scaled_examples(0, settings.get_profile("default")) == 1

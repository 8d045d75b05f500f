"""How many examples a property test draws: its own count in ``make test``, ten times as many
under ``pytest --long``.

A test's explicit ``@settings(max_examples=N)`` overrides the loaded profile, so a count
written as a literal would stay the same under ``--long`` (the ``long`` profile of
tests/conftest.py raises only what a test leaves unset). Each count is therefore derived
from the profile's own: 100 normally, 1000 with ``--long``.
"""

from __future__ import annotations

from hypothesis import settings


def scaled_examples(examples: int, profile: settings | None = None) -> int:
    """``examples`` in a normal run, ten times as many under ``pytest --long`` (the count
    scaled as ``profile``, by default the loaded one, scales Hypothesis's own 100)."""
    return max(1, examples * (profile or settings()).max_examples // 100)

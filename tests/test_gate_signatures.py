"""The gate leaves a signature's defaults alone however the answer goes on after it.

The offline answerer writes a definition as ``name(parameters): first sentence``
(docs/retrieval.md). A parameter named like a secret with a null default
(``pwd=None``, ``token=None``) is a signature, not a secret, and the colon the answer
puts after the closing parenthesis must not make it one: ``zipfile.read`` was
answered "read(name, pwd=[REDACTED:password] Return file bytes for name.", its
signature eaten up to the colon. A real value before a colon is still caught.
"""

from __future__ import annotations

import pytest

from arborist._gate.admission import admit


@pytest.mark.parametrize(
    "text",
    [
        "read(name, pwd=None): Return file bytes for name.",
        "login(user='', passwd='', acct=''): Login, default anonymous.",
        "f(x=1, token=None): Return it.",
        "open(file, secret=None, password=None); then close it",
        "connect(password=null), and so on",
    ],
)
def test_a_null_default_before_the_answer_s_colon_is_kept(text: str) -> None:
    assert admit(text).text == text


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("password=hunter2xyz: then", "password=[REDACTED:password]: then"),
        ("db(passwd=Tr0ub4dor3x): open", "db(passwd=[REDACTED:password]): open"),
    ],
)
def test_a_real_value_before_a_colon_is_still_redacted(text: str, kept: str) -> None:
    assert admit(text).text == kept

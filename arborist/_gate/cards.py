"""Payment cards: a card's number and its CVC.

Pure: no I/O. :func:`card_candidates` yields ``(kind, start, end)`` for a card's number
(fifteen or sixteen digits, run together or in groups of four, a network's prefix for its
length and Luhn's check digit, or the prefix alone after a word for a card, a number copied
by hand perhaps mistyped), anywhere in a short text and within a line after a word for a card
in a longer one; the numbers card networks publish for tests are no one's card. And a CVC
(three or four digits) told after its name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from arborist._gate.prefilters import Literals

__all__ = ["card_candidates"]

Candidate = tuple[str, int, int]

_CARD_RUN = re.compile("[0-9]{15}")
"""What a card number run together holds: looked for with no lookbehind, a scan in C."""
_CARD = re.compile(
    r"(?<![0-9A-Za-z.])(?:[0-9]{15,16}|[0-9]{4}([ -])[0-9]{4,6}\1[0-9]{4,5}(?:\1[0-9]{4})?)(?![0-9A-Za-z])"
)
_GROUPED_CARD = re.compile(r"[0-9]{4}[ -][0-9]{4,6}[ -][0-9]{4,5}")
_CVC = re.compile(
    r"(?i)(?:cvc2?|cvv2?|prüfziffer|kartenprüfnummer|cryptogramme)(?![a-z])(?:[^\n0-9]{0,30}?(?:[:=]|[ \t](?:is|ist|est|es)[ \t])|[ \t])"
    r"[ \t]*([0-9]{3,4})(?![0-9])"
)
"""A card's CVC after its name: a colon or a verb of saying after a few words, or a space
alone (``CVV 583``)."""
_TEST_CARDS = frozenset(
    (
        *("4242424242424242", "4111111111111111", "5555555555554444", "5105105105105100"),
        *("378282246310005", "371449635398431", "6011111111111117", "4000056655665556"),
        *("4012888888881881", "5200828282828210", "2223003122003222", "3566002020360505"),
    )
)
"""Card numbers the card networks and payment services publish for tests (Stripe's ``4242 …``):
no one's card."""


def card_candidates(text: str, found: Literals) -> Iterator[Candidate]:
    """A payment card's number (fifteen or sixteen digits, run together or in groups, a
    network's prefix and Luhn's check digit, or the prefix alone after a word for a card):
    anywhere in a short text (:data:`_SHORT_CARD_TEXT`), in a longer one within a line after a
    word for a card; and its CVC after its name."""
    if len(text) <= _SHORT_CARD_TEXT:
        spans = [(0, len(text))] if _CARD_RUN.search(text) or _GROUPED_CARD.search(text) else []
    else:
        cues = sorted({at for cue in _CARD_CUES for at in found.at(cue)})
        spans = [(at, at + _CARD_REACH) for at in cues]
    done = 0
    for start, end in spans:
        for m in _CARD.finditer(text, max(start, done), end):
            done = m.end()
            digits = re.sub("[ -]", "", m.group())
            named = _CARD_WORD.search(text, max(0, m.start() - 40), m.start()) is not None
            if _card_number(digits, named=named) and digits not in _TEST_CARDS:
                yield "secret", m.start(), m.end()
    for at in sorted({*found.at("cvc"), *found.at("cvv"), *found.at("prüfziffer")}):
        cvc = _CVC.match(text, at)
        if cvc is not None:
            yield "password", cvc.start(1), cvc.end(1)


_SHORT_CARD_TEXT = 1024
"""A text this short (a title, a name, a question, a note) is searched for a card number
whole; a longer one only after a word for a card, since a scan of every digit of every page
costs a fifth of the gate's time on the built-in corpus."""
_CARD_CUES = ("card", "kart", "tarjeta", "carte", "visa")
_CARD_REACH = 80
"""How far after a word for a card its number may stand: a label and a colon."""


_CARD_WORD = re.compile(r"(?i)card|karte|tarjeta|carte|cartão|visa|mastercard|amex")
"""A word before a number that says it is a card's: then its prefix is enough (a number
copied by hand may have a wrong check digit)."""


def _card_number(digits: str, *, named: bool) -> bool:
    """A card network's prefix for its length (Visa, Mastercard, American Express, Discover,
    JCB, UnionPay) and, unless a word names it a card's, a valid Luhn check digit; when one
    does, Maestro's prefixes too (``50``, ``56`` to ``69``), which other numbers share."""
    networks = ("4", "51", "52", "53", "54", "55", "22", "23", "24", "25", "26", "27")
    if len(digits) == 15:
        prefix = digits.startswith(("34", "37"))
    else:
        prefix = digits.startswith((*networks, "6011", "64", "65", "35", "62"))
        prefix = prefix or (named and digits.startswith(("50", "56", "57", "58", "6")))
    total = 0
    for i, c in enumerate(reversed(digits)):
        n = int(c) * (2 if i % 2 else 1)
        total += n - 9 if n > 9 else n
    return prefix and (named or total % 10 == 0)

"""The gate's families pass over the blocks whose literals a text does not hold.

Each family asks :meth:`arborist._gate.prefilters.Literals.holds_any` of its cues (the
literal each of its blocks stands at) before reading a text for them: most texts hold none.
A skipped block must be one that would have found nothing. These tests read two committed
secret corpora's texts (every secret in every placement, every near miss) with the guards as
they are and with every guard forced open, and ask for the same candidates; and they hold each
family's cues to the literals its guarded blocks stand at.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arborist._gate import prefilters
from arborist._gate.finders import candidates
from arborist._gate.prefilters import Literals

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ("channels_holdout16.json", "channels_holdout20.json")


def _texts(name: str) -> list[str]:
    """Every secret of the corpus in every placement's template, and every near miss."""
    corpus: dict[str, Any] = json.loads((ROOT / "bench" / "secret_corpus" / name).read_text())
    texts = [near["text"] for near in corpus.get("near_misses", [])]
    for secret in corpus["secrets"]:
        value = secret.get("prefix", "") + secret["secret"] + secret.get("suffix", "")
        texts += [p["template"].replace("{secret}", value) for p in corpus["placements"]]
    return texts


@pytest.mark.parametrize("name", CORPORA)
def test_a_guarded_block_skips_only_what_would_find_nothing(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = _texts(name)
    guarded = [sorted(candidates(text)) for text in texts]
    assert sum(map(bool, guarded)) > len(texts) // 2  # the corpus is read: most hold a secret
    monkeypatch.setattr(Literals, "holds_any", lambda self, literals: True)
    opened = [sorted(candidates(text)) for text in texts]
    assert [t for t, a, b in zip(texts, guarded, opened, strict=True) if a != b] == []


def test_holds_any_says_whether_one_literal_stands_known_or_not() -> None:
    """A known literal is answered from the text's one pass; one the automaton does not know
    yet is found by ``find`` (and learnt); a text with a lone surrogate is answered too."""
    known = prefilters._BUILT[0][3]
    assert "pass" in known and "zq-never-asked" not in known
    found = Literals("the pass is here")
    assert found.holds_any(frozenset({"pass", "token"}))
    assert not found.holds_any(frozenset({"token", "secret"}))
    assert found.holds_any(frozenset({"token", "s is h"}))  # not known: found by find
    assert not found.holds_any(frozenset({"zq-never-asked"}))
    assert Literals("key\udcff").holds_any(frozenset({"key"}))
    assert not Literals("\udcff").holds_any(frozenset({"key"}))


def test_a_literal_learnt_after_a_text_s_pass_is_still_found_in_that_text() -> None:
    """A family may read another text (a decoded view) while the first is being read, and the
    automaton is rebuilt with what was learnt meanwhile: the first text's answers still come
    from its own pass, never from a set of literals it was not read for."""
    first = Literals("xx qv-late-literal yy")
    Literals("nothing").at("qv-late-literal")  # learnt: the next text's pass knows it
    Literals("another text")
    assert "qv-late-literal" in prefilters._BUILT[0][3]
    assert first.holds_any(frozenset({"qv-late-literal"}))
    assert first.at("qv-late-literal") == [3]


_PLAIN = (
    "x = y -z Ab3dE6gH9jK2mN5pQ8sT1=Zz7 \"Ab3dE6gH9jK2mN5pQ8sT1x\" 'q7W2e' : / ? & # @ % "
    '(Ab3dE6gH9jK2mN5pQ8sT1y) Ab3dE6gH9jK2mN5pQ8sT1y-Ab3dE6gH9jK2mN5pQ8sT1y_z \\" 1234 \n'
)
"""A text with no family's cue but the shapes the blocks check before asking theirs (a long
word with ``=``, quotes, brackets, dashes, an escaped quote, digits)."""


def _asked(family: Any, text: str, guards: bool, monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """The literals ``family`` asks of ``text``, its guards as they are or forced closed."""
    asked: set[str] = set()
    ask = Literals.at

    def at(self: Literals, literal: str) -> list[int]:
        asked.add(literal)
        return ask(self, literal)

    def contains(self: Literals, literal: object) -> bool:
        asked.add(str(literal))
        return bool(ask(self, str(literal)))

    with monkeypatch.context() as patch:
        patch.setattr(Literals, "at", at)
        patch.setattr(Literals, "__contains__", contains)
        if not guards:
            patch.setattr(Literals, "holds_any", lambda self, literals: False)
        found = Literals(text.casefold())
        arguments = {"text": text, "found": found, "longs": prefilters.long_words(text)}
        arguments["reader"] = candidates
        names = family.__code__.co_varnames[: family.__code__.co_argcount]
        list(family(*(arguments[name] for name in names)))
    return asked


@pytest.mark.parametrize(
    "module",
    ["handed", "cued", "codes", "told", "context"],
)
def test_every_literal_a_guarded_block_stands_at_is_one_of_its_family_s_cues(
    module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With its guards open a family asks each block's literal first, whatever the text; with
    them closed, only its unguarded blocks' literals: the difference, asked only by guarded
    blocks, must be among the cues that open them, or a text holding only that literal would
    have the block skipped and its secret missed."""
    import importlib

    gate = importlib.import_module(f"arborist._gate.{module}")
    family = {
        "handed": "handed_candidates",
        "cued": "cued_candidates",
        "codes": "coded_candidates",
        "told": "told_candidates",
        "context": "context_candidates",
    }[module]
    function = getattr(gate, family)
    with monkeypatch.context() as patch:
        patch.setattr(Literals, "holds_any", lambda self, literals: True)
        opened = _asked(function, _PLAIN, True, patch)
    closed = _asked(function, _PLAIN, False, monkeypatch)
    assert opened - closed, "the guarded blocks ask their literals"
    assert sorted(opened - closed - gate._CUES) == []

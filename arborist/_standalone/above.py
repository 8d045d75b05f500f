"""What the question of the turn above says of a question asked under it, read for
:mod:`arborist._standalone.rule`. Pure: no I/O.

The question alone cannot always tell a follow-up: "why does the proof need a prime?" is whole
as it stands, but asked under "walk me through the proof that sqrt 2 is irrational" its "the
proof" is that one. Each reading here needs a relation between the two questions' words that
a question on the same topic asked afresh does not have: a definite noun phrase whose noun
the turn above brought in with what says which (an owner after it, or "a" before it), a pick
("the second one") from a pair the turn above named, an item by its number from a count the
turn above asked for ("day 2" of "a 4 day plan"), a clause-less fragment that repeats a run of
the turn above's words with a slot changed or added, or a clause-less choice between words
("fresh or frozen?") under a turn it can qualify. A question that shares the turn above's words
inside a clause of its own ("What year did the war end?" under "Who fought in the war?") is
read by the question alone. docs/retrieval.md ("Follow-ups") gives each with its examples.
"""

from __future__ import annotations

from arborist._standalone.said import Said
from arborist._standalone.words import INTRODUCERS, OWNERS, PREPOSITIONS, RELATIVES

__all__ = ["follows_above"]

PAIRING = frozenset({"between", "vs", "versus", "or", "and"})
"""Words that name two things to choose from; "or" and "and" only between words of their own."""
PICKED_ONE = frozenset({"first", "second", "third", "last", "other", "latter", "former"})
"""After "the", these pick one side of a pair ("the second one", "the latter")."""
COUNTED_ITEMS = frozenset({"first", "second", "third", "fourth", "fifth", "last"})
"""Ordinals in words that number an item of a count the turn above asked for ("the second
day" of "a 3 day plan")."""


def follows_above(said: Said, above: Said) -> bool:
    """``said`` reads as a follow-up of ``above`` by one of the relations of this module."""
    return (
        _elided_owner(said, above)
        or _picks_from_pair(said, above)
        or _numbered_from_count(said, above)
        or _refragment(said, above)
        or _choice(said, above)
    )


def _stem(word: str) -> str:
    """``word`` without a plural's "s" ("letters" and "letter" are one noun here)."""
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _qualified_nouns(above: Said) -> set[str]:
    """The nouns (stems) the turn above brings in with what says which: a content word before
    an owner and a word of its own ("the construction of the reals"), or after "a"/"an"/"my"
    ... within its noun phrase ("a cover letter")."""
    texts, found = above.texts, set()
    for k in range(len(texts)):
        if not above.content(k) or above.kinds[k] != "word":
            continue
        owner = texts[k + 1 : k + 2] != [] and texts[k + 1] in OWNERS
        owned = owner and (above.content(k + 2) or _det(above, k + 2))
        det = _last_det(above, k)
        introduced = 0 <= det >= k - 3 and all(above.content(j) for j in range(det + 1, k))
        if owned or introduced:
            found.add(_stem(texts[k]))
    return found


def _det(said: Said, k: int) -> bool:
    """A determiner at ``k`` with a word of its own after it ("of the reals")."""
    return said.texts[k : k + 1] in (["the"], ["a"], ["an"]) and said.content(k + 1)


def _last_det(said: Said, k: int) -> int:
    """Where the last determiner of :data:`INTRODUCERS` before ``k`` is (-1 when none)."""
    return next((j for j in range(k - 1, -1, -1) if said.texts[j] in INTRODUCERS), -1)


def _elided_owner(said: Said, above: Said) -> bool:
    """A definite noun phrase ("the N", not followed by what it is of or a relative clause, no
    name in it) whose noun the turn above brought in with what says which: the question drops
    what the turn above said of it ("why does the construction need ..." under "explain the
    construction of the real numbers"; "how long should the letter be" under "how do I write a
    cover letter"; not "the construction of a bridge", which says its own)."""
    qualified = _qualified_nouns(above)
    if not qualified:
        return False
    texts = said.texts
    for i in range(len(texts) - 1):
        if texts[i] != "the":
            continue
        span = said.phrase(i + 1)
        if not span or any(said.kinds[k] != "word" or said.proper[k] for k in span):
            continue
        after = texts[span.stop : span.stop + 1]
        if set(after) & (OWNERS | RELATIVES) and not said.ends_clause(span.stop + 1):
            continue  # "the construction of a bridge": what it is of is said here
        if any(_stem(texts[k]) in qualified for k in span):
            return True
    return False


def _picks_from_pair(said: Said, above: Said) -> bool:
    """ "the" and an ordinal or "other" before "one" or at the end of its clause, or "the
    latter"/"the former", when the turn above named a pair ("between", "vs", "or", "and" between
    words of its own) and the question names none of its own: one side of that pair ("do I need
    a lawyer for the second one" under "a will or a trust?")."""
    texts = said.texts
    if set(texts) & (PAIRING - {"and"}) or not _pairs(above):
        return False
    for i in range(len(texts) - 1):
        if texts[i] != "the" or texts[i + 1] not in PICKED_ONE:
            continue
        after = i + 2
        if texts[i + 1] in ("latter", "former") or said.ends_clause(after):
            return True
        if texts[after : after + 1] in (["one"], ["ones"]):
            return True
    return False


def _pairs(above: Said) -> bool:
    """The turn above names two things or more to choose from."""
    texts = above.texts
    if set(texts) & (PAIRING - {"or", "and"}):
        return True
    return any(
        texts[k] in ("or", "and")
        and above.content(k - 1)
        and (above.content(k + 1) or _det(above, k + 1))
        for k in range(1, len(texts) - 1)
    )


def _numbered_from_count(said: Said, above: Said) -> bool:
    """An item by its number ("day 2", "the second day") whose noun the turn above counted ("a
    3 day itinerary", "5 steps"): an item of the list its answer gave ("swap day 2 for a
    museum" under "plan me a 3 day trip"; not "replace line 2 with sed" under "count the lines
    of a file": no count of lines was asked for)."""
    counted = {
        _stem(above.texts[k + 1])
        for k in range(len(above.texts) - 1)
        if above.kinds[k] == "literal" and above.texts[k].isdigit() and above.content(k + 1)
    }
    if not counted:
        return False
    texts, kinds = said.texts, said.kinds
    for k in range(len(texts) - 1):
        if _stem(texts[k]) in counted and kinds[k + 1] == "literal" and texts[k + 1].isdigit():
            return True  # "day 2"
        if (
            texts[k] in COUNTED_ITEMS
            and _stem(texts[k + 1]) in counted
            and k
            and texts[k - 1] == "the"
        ):
            return True  # "the second day"
    return False


def _refragment(said: Said, above: Said) -> bool:
    """A question with no clause (no question word, no auxiliary) that repeats a run of two
    tokens or more of the turn above, a word of its own among them, and adds to it: the turn
    above's question asked again with a slot changed ("every 5 minutes but only on weekdays?"
    under "how do I run a cron job every 5 minutes"; not "how do I run a cron job every
    hour?", which has a clause of its own)."""
    if said.has_clause or said.texts[-1:] != ["?"] or said.contents() < 2:
        return False
    runs = {
        tuple(above.texts[k : k + 2])
        for k in range(len(above.texts) - 1)
        if above.content(k) or above.content(k + 1)
    }
    texts = said.texts
    shared = [k for k in range(len(texts) - 1) if tuple(texts[k : k + 2]) in runs]
    return bool(shared) and said.contents() > sum(said.content(k) for k in _covered(shared))


def _covered(starts: list[int]) -> set[int]:
    """The places a run of two tokens starting at each of ``starts`` covers."""
    return {k for s in starts for k in (s, s + 1)}


def _choice(said: Said, above: Said) -> bool:
    """A question with no clause and no preposition that offers a choice ("X or Y?") of
    at most four words of its own: a choice within what the turn above asked ("fresh or
    frozen?" under "how much spinach for a lasagne"; not "vim or emacs for writing Go?", which
    says what the choice is for). ``above`` is read only as being there."""
    del above
    texts = said.texts
    if said.has_clause or texts[-1:] != ["?"] or "or" not in texts[1:-2]:
        return False
    return not (set(texts) & PREPOSITIONS or said.contents() > 4)

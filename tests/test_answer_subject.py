"""The quickstart's own question, "How does statistics compute the mean?", answered by
``statistics.mean``: a question that names a reference's subject ("statistics") and a
plain word ("mean") names that reference's top-level definition, which no member of the
same name (``NormalDist.mean``) and no other definition sharing more words
(``geometric_mean``'s "compute the geometric mean") takes the place of; and a chunk cut
inside a description never lends its first sentence ("This runs faster than the mean()
function", ``fmean``'s) to the definition quoted before it (arborist/_qa/extractive.py).
The texts are pydoc's statistics reference as the built-in corpus chunks it."""

from __future__ import annotations

from arborist._qa.client import EvidenceText, make_request
from arborist._qa.extractive import ExtractiveClient
from arborist._qa.sentences import cut_at_start

TITLE = "statistics — Mathematical statistics functions"

CLASSES = (
    "    class NormalDist(builtins.object)\n"
    "     |  NormalDist(mu=0.0, sigma=1.0)\n"
    "     |\n"
    "     |  Normal distribution of a random variable\n"
    "     |\n"
    "     |  zscore(self, x)\n"
    "     |      Compute the Standard Score.  (x - mean) / stdev\n"
    "     |\n"
    "     |  mean\n"
    "     |      Arithmetic mean of the normal distribution.\n"
    "     |\n"
    "     |  median\n"
    "     |      Return the median of the normal distribution\n"
)

FMEAN_TAIL = (
    "        This runs faster than the mean() function and it always returns a float.\n"
    "        If the input dataset is empty, it raises a StatisticsError.\n"
    "\n"
    "        >>> fmean([3.5, 4.0, 5.25])\n"
    "        4.25\n"
    "\n"
    "    geometric_mean(data)\n"
    "        Convert data to floats and compute the geometric mean.\n"
    "\n"
    "        Raises a StatisticsError if the input dataset is empty,\n"
    "        if it contains a zero, or if it contains a negative value.\n"
    "\n"
    "    harmonic_mean(data, weights=None)\n"
    "        Return the harmonic mean of data.\n"
)

MEAN = (
    "        >>> linear_regression(x, y)  #doctest: +ELLIPSIS\n"
    "        LinearRegression(slope=3.09078914170..., intercept=1.75684970486...)\n"
    "\n"
    "    mean(data)\n"
    "        Return the sample arithmetic mean of data.\n"
    "\n"
    "        >>> mean([1, 2, 3, 4, 4])\n"
    "        2.8\n"
)


def answer(question: str, *texts: str) -> str:
    items = [EvidenceText(f"E{i}", TITLE, "pydoc:statistics", t) for i, t in enumerate(texts, 1)]
    return ExtractiveClient().complete(make_request(question, items)).text


def test_the_subject_and_a_plain_word_name_the_top_level_definition_over_a_member() -> None:
    said = answer("How does statistics compute the mean?", CLASSES, MEAN, FMEAN_TAIL)
    assert said.startswith("statistics.mean(data): Return the sample arithmetic mean of data."), (
        said
    )
    assert "normal distribution" not in said
    assert "geometric" not in said, "another definition is about something else"


def test_without_the_subject_the_better_ranked_member_still_opens() -> None:
    said = answer("What is the mean of a normal distribution?", CLASSES, MEAN)
    assert said.startswith("mean: Arithmetic mean of the normal distribution."), said


def test_after_the_definition_asked_for_no_other_definition_is_quoted() -> None:
    said = answer("What does statistics.mean return?", MEAN, FMEAN_TAIL)
    assert said.startswith("statistics.mean(data): Return the sample arithmetic mean of data.")
    assert "harmonic" not in said and "geometric" not in said, said


def test_a_chunk_cut_inside_a_description_lends_no_sentence_that_refers_back() -> None:
    said = answer("What does statistics.mean return?", MEAN, FMEAN_TAIL)
    assert said.startswith("statistics.mean(data): Return the sample arithmetic mean of data.")
    assert "runs faster" not in said, said


def test_only_an_indented_opening_that_refers_back_is_cut() -> None:
    assert cut_at_start(
        FMEAN_TAIL, "This runs faster than the mean() function and it always returns a float."
    )
    # A chunk that opens at the margin opens a text of its own: "This module ..." says it.
    opening = "This module provides functions for calculating statistics of numeric data."
    assert not cut_at_start(opening + "\n", opening)
    # An indented sentence that names its own subject is read alone.
    named = "        The harmonic mean is the reciprocal of the arithmetic mean.\n"
    assert not cut_at_start(named, named.strip())
    assert cut_at_start("    it always returns a float.\n", "it always returns a float.")

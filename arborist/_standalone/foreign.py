"""A question in French, Spanish, German, Italian, Portuguese or Dutch read with English function
words, for :mod:`arborist._standalone.said`. Pure: no I/O.

The rule reads English grammar: a continuation opening a question ("and", "but"), a pronoun
or demonstrative with nothing to stand for ("that"), "again", "more", a question word. A
question in another language leans on the turn above by the same words in its own tongue
("et en français ?", "und wie lange hält das im Kühlschrank?", "Kannst du das nochmal
einfacher erklären?"), so those words, and only those, are read as their English
counterparts; the question's own nouns and verbs stay as they are, words of its own. A
question is read so only when it is plainly not English: it opens with "¿", or two of its
words, not capitalised inside it, are function words no English question uses ("und",
"wie", "est", "una", ...) or ones written with their accent ("ça", "qué", "más"); "El
Niño", "Für Elise" and "Vaswani et al." are names.
"""

from __future__ import annotations

from collections.abc import Sequence

from arborist._text.text_words import word_pairs

__all__ = ["ACCENTED", "FOREIGN", "MARKERS", "english"]

FOREIGN = word_pairs(
    # continuations and conditions
    """et:and und:and mais:but pero:but aber:but ou:or oder:or si:if wenn:if falls:if y:and
        e:and""",
    # pronouns and demonstratives that stand for a thing said (German "dafür", "damit": for
    # that, with that; French "lequel": which one of those)
    """ca:that cela:that ceci:this eso:that esto:this esa:that ese:that esta:this este:this
        isso:that isto:this questo:this quello:that dies:this lo:it dafur:that dazu:that
        damit:that davon:that darauf:that dabei:that dagegen:that lequel:which laquelle:which
        lesquels:which lesquelles:which""",
    # Dutch: a continuation, a demonstrative, "also", question words, articles
    """maar:but dat:that dit:this ook:also nog:more wat:what hoe:how waarom:why
        welke:which wanneer:when waar:where kan:can kun:can ik:i het:the een:a voor:for
        met:with zonder:without""",
    # again, more, another
    """nochmal:again encore:again ancora:again mehr:more noch:more mas:more piu:more otra:another
        otro:another autre:another alguna:any alguno:any algun:any""",
    # question words
    """que:what quoi:what was:what cual:which quel:which quelle:which welche:which
        welcher:which como:how comment:how wie:how pourquoi:why warum:why porque:why donde:where
        wo:where cuando:when quand:when wann:when quien:who qui:who wer:who""",
    # auxiliaries and their subjects
    """est:is es:is ist:is sind:are son:are hay:is kannst:can kann:can konnen:can puedes:can
        puedo:can peux:can peut:can du:you tu:you vous:you man:you ich:i mir:me mich:me
        wir:we muss:must""",
    # articles and prepositions
    """le:the la:the les:the el:the los:the las:the der:the die:the dem:the den:the un:a une:a
        una:a uno:a ein:a eine:a einen:a einem:a einer:a en:in dans:in im:in con:with mit:with
        avec:with sin:without sans:without ohne:without para:for pour:for fur:for de:of por:by
        auf:on von:of zu:to aus:from bei:at nach:after uber:about sur:on chez:at desde:from
        hasta:until sobre:about entre:between""",
    # nouns that are of something
    """alternativa:alternative alternativas:alternatives alternativen:alternatives""",
)
"""Function words of French, Spanish, German, Italian and Portuguese (folded: no accents), and
the English word the rule reads for each; "das" is read apart (:func:`english`), and so are
the words of :data:`ACCENTED`."""
ACCENTED = {"está": "is", "están": "are", "esté": "is", "él": "he", "sí": "yes", "é": "is"}
"""Words whose accent tells them from a word of :data:`FOREIGN` ("está", is, not "esta", this),
read by their accent."""
MARKERS = frozenset(FOREIGN) - frozenset(
    {"y", "e", "si", "es", "man", "was", "son", "la", "le", "die", "de", "un", "tu", "que"}
    | {"como", "comment", "porque", "ca", "lo", "mas", "den", "quel", "dies", "fur", "im"}
    | {"con", "sin", "pour", "hay", "falls", "encore", "von", "aus", "sur", "entre"}
    | {"met", "hoe"}  # Dutch words that are English ones too ("we met", "a garden hoe")
) | frozenset({"das"})
"""Of :data:`FOREIGN`, the words no English question uses: two of them, not capitalised inside
the question, mark it as not English."""


def english(
    question: str, texts: list[str], originals: Sequence[str], proper: Sequence[bool]
) -> list[str]:
    """``texts`` (the folded words and marks of ``question``, ``originals`` as typed, ``proper``
    for capitalised words inside it) with the function words of a question that is plainly not
    English read as their English counterparts; ``texts`` itself when it is English. German
    "das" is "the" before a noun, capitalised ("das Eigelb"), and "that" otherwise ("hält das
    im Kühlschrank")."""
    marked = sum(
        (t in MARKERS or (t in FOREIGN and originals[j].lower() != t)) and not proper[j]
        for j, t in enumerate(texts)
    )  # "ça", "qué", "más": a function word with its accent is no English one
    if not (question.lstrip().startswith("¿") or marked >= 2):
        return texts
    read = []
    for j, text in enumerate(texts):
        if proper[j]:
            read.append(text)
        elif originals[j].lower() in ACCENTED:
            read.append(ACCENTED[originals[j].lower()])
        elif text == "das":
            noun = originals[j + 1 : j + 2]
            read.append("the" if noun and noun[0][:1].isupper() else "that")
        else:
            read.append(FOREIGN.get(text, text))
    return read

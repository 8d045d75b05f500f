"""Whether the evidence is about the question: when the extractive answerer refuses.

Pure, over the request alone (the question and the evidence it was given). The extractive
answerer (:mod:`arborist._qa.extractive`) quotes nothing, and says what is missing, when
the evidence

* never says a name the question asks about (:func:`absent_names`): an identifier
  (``os.path.splitext``), a name written with capitals (``Bitbucket``), a name of
  several words (``Entity Framework Core``, said together), words joined by hyphens
  (``fish-style``), a name written as a possessive (``matplotlib's``), a version of what
  the documents are about (``bash 6.0``), the tool the question closes by asking in
  ("... with git lfs") or the system it opens by asking in ("in mercurial how do I ..."),
  or a variant of a word the evidence says ("jsonb" of "json");
  evidence that never names the thing asked about cannot say what it is;
* says what the question asks about only once, in passing (:func:`said_in_passing`):
  its first word of content in one sentence apart from all its other words ("encrypt in
  OpenBSD" for encrypting a repository), or a name it asks about in one sentence holding
  under half of them ("the mirror on GitHub" for the repository size GitHub allows),
  unless a passage is :data:`ABOUT_FLOOR` near the question;
* holds too few of the question's words (:func:`grounded`, :data:`ANSWERED_SHARE`, or
  :data:`LONG_SHARE` of a long question), unless retrieval measured that a passage is near
  it in meaning (:data:`CLOSE_FLOOR`).

Words are counted as the support label counts them (:func:`arborist._qa.support.asked_words`,
:func:`~arborist._qa.support.root`), so the refusal and the label beside an answer agree on
what the question asks.
"""

from __future__ import annotations

import re

from arborist._proofs.citations import defang_citations
from arborist._qa.client import ChatRequest
from arborist._qa.described import described
from arborist._qa.sentences import read_items
from arborist._qa.support import REQUEST_WORDS, asked_words, root
from arborist._text.analysis import read_question
from arborist._text.text_words import STOPWORDS, fold, word_pairs, words

__all__ = [
    "ABOUT_FLOOR",
    "ANSWERED_SHARE",
    "CLOSE_FLOOR",
    "LONG_QUESTION",
    "LONG_SHARE",
    "absent_names",
    "act_said",
    "covered",
    "grounded",
    "said_in_passing",
]

ANSWERED_SHARE = 0.5
"""Share of the question's words the evidence (texts and titles) must hold before sentences are
quoted from it: below it, the evidence is about something else ("Who created Spider-Man?"
over the standard library finds "created" alone) and the answer says so. The words are
those the support label asks for, each in any inflection (``extractive-v18``; before, every
word :func:`~arborist._text.analysis.read_question` reads counted, the "doesn" and "t" of
"doesn't" among them, and "removed" did not hold "remove")."""

LONG_QUESTION = 7
LONG_SHARE = 0.4
"""The share of the question's words a question of ``LONG_QUESTION`` words or more (counted
as :func:`covered` counts them) needs the evidence to hold, rather than
:data:`ANSWERED_SHARE`: a long question tells the trouble around what it asks ("my pipeline
says success even though grep in the middle failed. how do i make the whole pipe fail?"),
words no passage that answers it need say (``extractive-v25``). Measured by replaying every
request of the development sets, words alone (the four manuals of bench/foreign.py; pydoc's
questions, paraphrase, natural and unanswerable): any share from 0.3 to 0.4 from 8 words
answers Bash's pipeline question and pydoc's "convert a string like "2024-03-05 14:30" into
a datetime" (with its phrase), from 6 or 7 words also two of pydoc's refused paraphrases
and natural questions, and newly answers no off-corpus or unanswerable question; 0.45
moves nothing."""

ABOUT_FLOOR = 0.9
"""How near the question (calibrated, as :data:`CLOSE_FLOOR`: 1 is as near as a passage's
nearest thousandth of the corpus is to it) a passage must be to be about the question by
itself (``extractive-v26``): only then does evidence that says a word of the question in
passing (:func:`said_in_passing`) answer it all the same (:data:`CLOSE_FLOOR` before: a
word the evidence does say, once and apart from the rest, tells what it is about, and a
passage near the question in its other words does not say it better: "can i encrypt the
contents of my repo so the remote server can't read the files" over a hook that lets only
authorised users read them, nearest 0.79), and a sentence of such a passage engages the
question with one of its words (:func:`arborist._qa.extractive._engages`: Bash's "...
then all leading tab characters are stripped", nearest 0.98, for "how do I indent the
body of a heredoc with tabs so they get removed"). Replayed over every request of the
development sets (docs/retrieval.md), any floor from 0.8 to 1.2 moves the same answers
for the first, from 0.7 to 0.95 for the second."""

CLOSE_FLOOR = 0.52
"""How near the question (calibrated in floor and scale, as
:data:`arborist._qa.extractive.NEAR_FLOOR`) the nearest passage must be for evidence holding
under :data:`ANSWERED_SHARE` of the question's words to answer it all the same. Chosen as 0.8
on the scale of ``spread-p99-v1`` (MiniLM 0.706 of the unanswerable set refused and 3 of 196
answerable wrongly refused, e5-small 0.706 and 9; replayed, at 0.75 e5 0.647 and 4, at 0.85
0.725 and 12). On the scale of ``spread-p999-v2``, 0.52 is 0.96 of the same nearness for
MiniLM (0.8 / 1.48; at 0.54, the same, e5-small wrongly refused 13 of 196 where it had 9).
Measured there (bench/quality.py --set unanswerable and the recorded asks of the answerable
sets, refused of 51 and of 196, before and after): MiniLM 37 and 4, as before; e5-small 40
and 9 (40 and 8); the n-gram stand-in 39 and 8 (33 and 5), wordllama 37 and 8 (32 and 7);
none of the newly refused answerable questions had an answer holding its phrase."""


def grounded(request: ChatRequest) -> bool:
    """Whether the evidence can answer the question: it names every name the question asks
    about (:func:`absent_names`), says none of what it asks about only in passing
    (:func:`said_in_passing`), and it holds enough of the question's words
    (:func:`covered`) or, when retrieval measured nearness, its nearest passage is
    :data:`CLOSE_FLOOR` near the question (meaning, whatever the words)."""
    if absent_names(request) or said_in_passing(request):
        return False
    near = [score for item in request.evidence for score in item.nearness]
    return covered(request) or (bool(near) and max(near) >= CLOSE_FLOOR)


def covered(request: ChatRequest) -> bool:
    """Whether the evidence (texts and titles) holds :data:`ANSWERED_SHARE` of the question's
    words (:data:`LONG_SHARE` of a question of :data:`LONG_QUESTION` words or more), each in
    any inflection."""
    wanted = {root(w) for w in asked_words(request.question)}
    if not wanted:
        return bool(request.evidence)
    present: set[str] = set()
    for item in request.evidence:
        present |= wanted & {root(w) for w in words(f"{item.title}\n{item.text}")}
    share = LONG_SHARE if len(wanted) >= LONG_QUESTION else ANSWERED_SHARE
    return len(present) >= share * len(wanted)


def absent_names(request: ChatRequest) -> list[str]:
    """The names the question asks about that the evidence never says, as the question
    writes them:

    * identifiers (``os.path.splitext``) whose own name (``splitext``) no passage holds,
      or one of whose qualifying parts (``subprocess`` of ``subprocess.run``) is no word of
      any passage or title;
    * names written with capitals (:func:`_proper_names`: "Bitbucket", "GNOME") or as a
      possessive (:func:`_possessives`: "matplotlib's") that no word of a passage or title
      opens with ("URL" opens "urllib");
    * names of several capitalised words (:func:`_name_runs`: "Entity Framework Core") that
      no passage or title says together, word after word, and words joined by hyphens
      ("fish-style", "time-to-live") that no passage says, a part of which no passage
      holds in any inflection;
    * versions of what the documents are about (:func:`_versions`: "bash 6.0" over
      evidence titled "Bash Reference Manual") that no passage or title holds;
    * the act a question for its agent asks about ("who invented the relational model")
      when no passage says it (:func:`act_said`: in any inflection, as who does it,
      "inventor", or in other words, "artist" for "drew"): evidence that never says it
      was done cannot say who did it;
    * words that write another word of the question with a letter or digits added
      (:func:`_unsaid_variants`: "jsonb" of "json") that no passage says while one says
      the other;
    * the words of the tool, place or medium the question closes by asking in
      (:func:`_closing_words`: "... with git lfs", "... in a jupyter notebook") that no
      passage or title holds in any inflection, unless retrieval measured a passage
      :data:`CLOSE_FLOOR` near the question (which then says them in other words: "in a
      folder" over passages that say "directory") and the question describes the place
      rather than names it (:func:`_closing_named`: "with git lfs" is a name);
    * the words of the system the question opens by asking in (:func:`_opening_words`:
      "in mercurial how do I ...") that no passage or title holds in any inflection.

    Evidence that never says the name, or never names the module, product or release it
    is asked in, cannot say what it is."""
    asked = read_question(request.question)
    texts = [f"{item.title}\n{item.text}" for item in request.evidence]
    folded = [fold(t) for t in texts]
    said = {w for t in texts for w in words(t)}
    absent = [
        name
        for name in asked.identifiers
        if not any(fold(name.split(".")[-1]) in t for t in folded)
        or any(part and fold(part) not in said for part in name.split(".")[:-1])
    ]
    question = request.question
    for name in [*_proper_names(question), *_possessives(question)]:
        if name not in absent and not all(
            any(w.startswith(part) for w in said) for part in words(name)
        ):
            absent.append(name)
    absent += _unsaid_variants(question, said)
    return list(dict.fromkeys(absent + _unsaid_phrases(request, texts, said)))


def _unsaid_variants(question: str, said: set[str]) -> list[str]:
    """The question's words that write another of its words with a letter or with digits
    added ("jsonb" of "json", "utf8mb4" of "utf8", "geopoly2" of "geopoly"), when the
    evidence (whose words are ``said``) says the other but never these: the question asks
    about a variant of what the documents name ("store json in the binary jsonb format"
    over passages on JSON and on other binary formats). An inflection ("lists", "built")
    is no variant, and a word of under four letters ("use" of "user") too short to say."""
    asked = [fold(w) for w in asked_words(question)]
    held = {root(w) for w in said}
    return [
        word
        for word in asked
        if root(word) not in held
        and any(
            len(base) >= 4
            and word.startswith(base)
            and root(base) in held
            and root(base) != root(word)
            and (len(word) == len(base) + 1 or any(c.isdigit() for c in word[len(base) :]))
            for base in asked
        )
    ]


def _unsaid_phrases(request: ChatRequest, texts: list[str], said: set[str]) -> list[str]:
    """The names of several words, words joined by hyphens, closing words, acts and versions
    of :func:`absent_names` that ``texts`` (the evidence's titles and texts, whose words are
    ``said``) never say."""
    question = request.question
    spoken = [f" {' '.join(words(t))} " for t in texts]
    held = {root(w) for w in said}
    absent = [r for r in _name_runs(question) if not any(f" {_joined(r)} " in t for t in spoken)]
    for compound in _HYPHENATED.findall(question):  # "fish-style": a name, once unknown
        unsaid = not any(f" {_joined(compound)} " in t for t in spoken)
        prefixed = fold(compound.split("-", 1)[0]) in _PREFIXES  # "re-run": a word
        if unsaid and not prefixed and any(root(part) not in held for part in words(compound)):
            absent.append(compound)
    near = [score for item in request.evidence for score in item.nearness]
    # a hyphenated tool ("pytest-timeout") is said when each of its parts is, as a
    # passage's words read it ("pytest", "timeout")
    closing = [w for w in _closing_words(question) if any(root(p) not in held for p in words(w))]
    if not near or max(near) < CLOSE_FLOOR or _closing_named(question):
        absent += closing  # near in meaning says a described place in other words
    absent += [w for w in _opening_words(question) if any(root(p) not in held for p in words(w))]
    act = _AGENT_ASKED.match(question)  # "who invented ...": a passage must say the act
    if act and fold(act.group(1)) not in STOPWORDS and not act_said(fold(act.group(1)), said):
        absent.append(act.group(1))
    titles = {w for item in request.evidence for w in words(item.title)}
    for name, version in _versions(question):
        if fold(name) in titles and not any(_holds_version(t, version) for t in texts):
            absent.append(f"{name} {version}")
    return absent


def _joined(name: str) -> str:
    """The words of ``name`` one space apart: how a passage's words, joined so, say it."""
    return " ".join(words(name))


_TOKEN = re.compile(r"[^\W_]+(?:-[^\W_]+)*")


def _proper_names(question: str) -> list[str]:
    """The names the question writes with capitals (``Bitbucket``, ``GNOME``, ``DevOps``,
    ``Spider-Man``): a word of two letters or more with a capital after its first letter,
    or with one at all when it opens no sentence of the question (which any sentence may:
    "... do? Also, what ..."), not "I", not a word that shapes a request ("Python") nor one
    that opens with a digit ("2D": a measure, which a passage may write otherwise)."""
    found = []
    for match in _TOKEN.finditer(question):
        token = match.group()
        inner = any(ch.isupper() for ch in token[1:])
        if len(token) < 2 or token[0].isdigit() or fold(token) in REQUEST_WORDS:
            continue
        if inner or (token[0].isupper() and not _opens_sentence(question, match.start())):
            found.append(token)
    return list(dict.fromkeys(found))


_BEFORE_SENTENCE = re.compile(r"(?:^|[.?!:\n])[\s\"'“‘(\[¿¡*_-]*\Z")
"""Before a word that opens a sentence: nothing, or an end of sentence, a colon or a line
break, then spaces, quotes and opening marks (read back a few characters)."""


def _opens_sentence(question: str, at: int) -> bool:
    return _BEFORE_SENTENCE.search(question, max(0, at - 8), at) is not None


_POSSESSIVE = re.compile(r"(?:([^\W_]+)\s+)?([^\W_]+(?:-[^\W_]+)*)\Z")
_APOSTROPHE_S = re.compile(r"(?<=[^\W_])['’]s\b")
_POSSESSIVE_REACH = 80
"""How far before its ``'s`` a possessive and the word before it are read: a search of the
whole question from every character took time in the square of a long word's length."""

_DETERMINERS = frozenset(
    {"a", "an", "the", "my", "your", "his", "her", "its", "our", "their", "this", "that"}
    | {"these", "those", "each", "every", "any", "some"}
)
"""Words that make what follows them a common noun ("my program's log messages")."""


def _possessives(question: str) -> list[str]:
    """The words the question writes as a possessive with no determiner before them
    ("what is matplotlib's default colormap"): something of a thing it names, so a name,
    whatever its case; not "my program's" or "the user's" (a common noun), not a word of
    no meaning of its own ("what's", "it's", "that's") nor one that shapes a request
    ("python's")."""
    found = []
    for mark in _APOSTROPHE_S.finditer(question):  # read back from each 's, a bounded way
        start = max(0, mark.start() - _POSSESSIVE_REACH)
        match = _POSSESSIVE.search(question, start, mark.start())
        if match is None:
            continue
        before, word = match.group(1), match.group(2)
        if len(word) < 2 or word.isdigit() or fold(word) in STOPWORDS | REQUEST_WORDS:
            continue
        if before is None or fold(before) not in _DETERMINERS:
            found.append(word)
    return list(dict.fromkeys(found))


_AGENT_ASKED = re.compile(r"\s*who\s+([^\W\d_]+)", re.IGNORECASE)
"""A question for who did something, and the word that says what ("who invented ...")."""

_IRREGULAR = word_pairs(
    """drew:draw drawn:draw wrote:write written:write made:make built:build began:begin
        begun:begin sang:sing sung:sing led:lead won:win gave:give took:take ran:run shot:shoot
        taught:teach thought:think bought:buy sold:sell told:tell said:say paid:pay spoke:speak
        chose:choose broke:break stole:steal threw:throw knew:know grew:grow flew:fly held:hold
        found:find slew:slay slain:slay sent:send spent:spend brought:bring sought:seek
        fought:fight""",
)
"""Past forms that no ending gives, and the verb each is of ("drew": ``draw``; "found" is
also an act of its own, "founded", which its ending gives)."""

_ACTS = (
    {"draw", "illustrate", "pencil", "ink", "sketch", "artist", "artwork", "cartoonist"},
    {"paint", "artist"},
    {"write", "author", "coauthor"},
    {"found", "cofound", "establish"},
    {"invent", "devise", "originate"},
    {"build", "construct"},
    {"kill", "murder", "assassinate", "slay"},
    {"play", "portray", "actor", "actress"},
    {"sing", "vocalist"},
    {"win", "champion"},
)
"""Acts a passage may say in other words than the question's ("who drew Spider-Man?" over
"artist Steve Ditko"; "who wrote it?" over "its author"): each set one act, its verbs and
the nouns for who does it that no ending gives; a word may be of several. Only words that
say that act and little else: "create" (for "invent"), "script" (for "write") or "head"
(for "lead") fill technical prose, where they would say every act was done."""


def act_said(act: str, said: set[str]) -> bool:
    """Whether the words ``said`` (folded) say the act ``act`` (a folded verb, as a question
    for its agent writes it: "invented", "drew") in any inflection, as who does it
    ("inventor", "founders"), or in other words of :data:`_ACTS` ("artist" for "drew")."""
    held = {root(w) for w in said} | {root(_IRREGULAR[w]) for w in said if w in _IRREGULAR}
    stems = {root(act), root(_IRREGULAR.get(act, act))}
    stems |= {root(w) for group in _ACTS if stems & {root(w) for w in group} for w in group}
    return any(form in held for stem in stems for form in _act_forms(stem))


def _act_forms(stem: str) -> set[str]:
    """The roots that say the act whose root is ``stem``: the act, and who does it with
    "-er" or "-or" ("creat": "creator"; "writ": "writer"; "win": "winner")."""
    doubled = stem + stem[-1]  # "winner", "programmer", "penciller"
    return {stem, doubled, stem + "er", stem + "or", doubled + "er"}


_PREFIXES = frozenset({"re", "pre", "un", "non", "co", "de", "dis", "mis", "sub", "semi", "multi"})
"""Prefixes a word may be written with a hyphen after ("re-run", "pre-load", "non-empty"):
such a word is a word, not a name, and is left to :func:`covered` (``extractive-v26``:
"re-run an earlier command from history by its number" was refused over gnuplot's
history pages, which say "reexecute")."""

_HYPHENATED = re.compile(r"\b[^\W\d_]+(?:-[^\W_]+)+\b")
"""A word of parts joined by hyphens ("fish-style", "time-to-live", "oh-my-zsh")."""

_CAPITALISED = re.compile(r"\b[A-Z][^\W_]*(?:-[^\W_]+)*(?:\s+[A-Z][^\W_]*(?:-[^\W_]+)*)+")
"""Two or more words in a row, each opening with a capital."""


def _name_runs(question: str) -> list[str]:
    """The names of several words the question writes, each word capitalised ("Entity
    Framework Core", "Azure DevOps"): runs of two or more capitalised words of two
    letters or more, split at words of no meaning of their own ("Pride and Prejudice" is
    two names) and at words that shape a request. None when the question capitalises
    most of its words (a title-cased question says no name by its capitals)."""
    tokens = [t for t in _TOKEN.findall(question) if len(t) > 1]
    if sum(t[0].isupper() for t in tokens) * 2 > len(tokens):
        return []
    found = []
    for match in _CAPITALISED.finditer(question):
        run: list[str] = []
        for token in [*match.group().split(), ""]:
            if len(token) > 1 and fold(token) not in STOPWORDS | REQUEST_WORDS:
                run.append(token)
                continue
            if len(run) > 1:
                found.append(" ".join(run))
            run = []
    return list(dict.fromkeys(found))


_CLOSING = re.compile(
    r"\b(with|using|in|from|via|through|on)\s+((?:a|an|the|my|your|our)\s+)?"
    r"([^\W\d_][\w-]*(?:\s+[^\W\d_][\w-]*)?)\s*[?!.]*\s*$",
    re.IGNORECASE,
)
"""The one or two words a question closes with after a preposition ("... with git lfs",
"... in a jupyter notebook", "... from a shapefile"), and the determiner before them."""

_QUANTIFIERS = frozenset(
    {"one", "two", "three", "several", "many", "few", "all", "each", "every", "some", "any"}
    | {"both", "more", "most", "other", "another", "same"}
)


def _closing_words(question: str) -> list[str]:
    """The content words of the tool, place or medium the question closes by asking in
    ("how do I track large binary files with git lfs": ``git``, ``lfs``; "... in a
    jupyter notebook", "... from a shapefile"): what the answer must be about, as the
    module is of ``subprocess.run``. Not a quantity ("in one go", "with several people"),
    not a kind of thing a place is ("in a comic", "on a schedule": one word after "in" or
    "on" and a determiner, which an answer names an instance of), nor a word of no
    meaning of its own or one that shapes a request ("in python")."""
    match = _CLOSING.search(question.strip())
    if match is None:
        return []
    preposition, determiner, said = match.group(1), match.group(2), _TOKEN.findall(match.group(3))
    if fold(said[0]) in _QUANTIFIERS:
        return []
    if fold(preposition) in {"in", "on"} and determiner and len(said) == 1:
        return []
    return [w for w in said if fold(w) not in STOPWORDS | REQUEST_WORDS and len(w) > 1]


_OPENING = re.compile(
    r"\s*(?:in|with|using)\s+([^\W\d_][\w.-]*(?:\s+[^\W\d_][\w.-]*)?)\s*,?\s+"
    r"(?:how|what|why|where|when|which|who|can|could|should|is|are|do|does|will|would)\b",
    re.IGNORECASE,
)
"""The one or two words a question opens with after "in", "with" or "using", before the
words that ask it ("in mercurial how do I ...", "In pandas, what ...")."""
_ADVERBIAL = frozenset(
    {"general", "short", "brief", "practice", "theory", "particular", "addition", "fact"}
    | {"summary", "total", "detail", "contrast", "turn", "case"}
)
"""Words after "in" that make a manner of speaking, not a system ("In general, how ...")."""


def _opening_words(question: str) -> list[str]:
    """The content words of the system the question opens by asking in ("in mercurial how
    do I unshelve changes": ``mercurial``): named, with no determiner, before the question
    itself, so what the answer must be about, as a passage must say it; not a word of no
    meaning of its own or one that shapes a request ("in python, how ...")."""
    match = _OPENING.match(question)
    said = _TOKEN.findall(match.group(1)) if match else []
    if not said or fold(said[0]) in _QUANTIFIERS | _ADVERBIAL:
        return []  # "in general, what ...", "with several files, how ..."
    return [w for w in said if fold(w) not in STOPWORDS | REQUEST_WORDS and len(w) > 1]


def _closing_named(question: str) -> bool:
    """Whether the question closes by naming its tool in words of its own, two or more after
    the preposition and no determiner ("... with git lfs", "... in wal mode", "... using
    parameter expansion"): a name, which a passage says as it is named, so no nearness in
    meaning stands in for a word of it no passage says ("lfs" of "git lfs" over passages on
    git's large files). A place described ("in a folder", "in a separate thread", "from a
    huge list") a passage may say in other words ("directory")."""
    match = _CLOSING.search(question.strip())
    return match is not None and not match.group(2) and len(_closing_words(question)) > 1


_VERSION = re.compile(r"\b([^\W\d_][^\W_]*)\s+v?(\d+(?:\.\d+)+)(?!\w|\.\d)")
"""A word and, after it, a number with a dot ("bash 6.0", "gnuplot 5.4.2")."""


def _versions(question: str) -> list[tuple[str, str]]:
    """The (name, version) pairs the question writes: a word followed by a number with a
    dot in it ("When is bash 6.0 going to be released?")."""
    return [(m.group(1), m.group(2)) for m in _VERSION.finditer(question)]


def _holds_version(text: str, version: str) -> bool:
    """Whether ``text`` says ``version`` as a number of its own ("6.0", "6.0.1"; not the
    "16.0" or "6.05" of another number)."""
    return re.search(rf"(?<![\d.]){re.escape(version)}(?!\d)", text) is not None


def said_in_passing(request: ChatRequest) -> list[str]:
    """The words the question asks about that the evidence says only once, in passing, as
    the question writes them: in one prose sentence of all its passages, in a passage not
    titled with it, and not in a description of a definition (a term's or a signature's:
    there the word says what something the documents define does), a sentence that

    * for the question's first word of content (what it asks to do or about: "encrypt"
      in "can i encrypt my repo so the server can't read it"), says none of the
      question's other words, nor do the sentences before and after it (each read with
      the heading it is under, the term it describes and its passage's title): "...
      mkpasswd in Linux, encrypt in OpenBSD or pwhash in NetBSD";
    * for a name the question asks about (:func:`_proper_names`, :func:`_possessives`),
      says under half of the question's other words: "GitHub" in "... the mirror on
      GitHub" for "what is the maximum repository size GitHub allows".

    Evidence that says it so is about something else. Evidence that never says the word
    may say it in other words, and is left to :func:`covered`. None when retrieval
    measured a passage :data:`ABOUT_FLOOR` near the question, which then is about it."""
    near = [score for item in request.evidence for score in item.nearness]
    asked = asked_words(request.question)
    if not asked or (near and max(near) >= ABOUT_FLOOR):
        return []
    wanted = {root(w) for w in asked}
    passages = [_passage_roots(item.title, item.text, wanted) for item in request.evidence]
    passing = []
    first = {root(asked[0])}
    if wanted - first and (said := _said_once(passages, first)):
        title, sentences, at = said
        if not title.union(*sentences[max(0, at - 1) : at + 2]) - first:
            passing.append(asked[0])
    for name in [*_proper_names(request.question), *_possessives(request.question)]:
        parts = {root(fold(w)) for w in words(name)}
        if said := _said_once(passages, parts):
            title, sentences, at = said
            if 2 * len((title | sentences[at]) - parts) < len(wanted - parts):
                passing.append(name)
    return list(dict.fromkeys(passing))


_Passage = tuple[set[str], list[set[str]], list[bool]]
"""The roots of the question a passage's title says, those each of its prose sentences
says (with the heading it is under and the term it describes), and whether each describes
a definition."""


def _said_once(
    passages: list[_Passage], parts: set[str]
) -> tuple[set[str], list[set[str]], int] | None:
    """The title and sentences of the passage with the one sentence of ``passages`` that
    says every root of ``parts``, and its place; None when none or several say them, when
    it describes a definition or when a passage is titled with them."""
    if any(parts <= title for title, _, _ in passages):
        return None
    saying = [
        (title, sentences, at, defines[at])
        for title, sentences, defines in passages
        for at, held in enumerate(sentences)
        if parts <= held
    ]
    if len(saying) != 1 or saying[0][3]:
        return None
    return saying[0][:3]


def _passage_roots(title: str, text: str, wanted: set[str]) -> _Passage:
    """The :data:`_Passage` of ``title`` and ``text`` for the question's roots ``wanted``;
    a sentence describes a definition under a term line or a signature (:func:`described`)."""
    about = described(text, title)
    items = read_items(defang_citations(text))
    return (
        wanted & {root(w) for w in words(title)},
        [wanted & {root(w) for w in words(f"{i.sentence}\n{i.heading}\n{i.term}")} for i in items],
        [bool(i.term) or i.sentence in about.heads or i.sentence in about.leads for i in items],
    )

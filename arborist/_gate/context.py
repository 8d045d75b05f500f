"""Secrets known by what stands around them, not by a name given a value: a password near
words that talk about signing in, a password a tool takes by its place, a bare ngrok token.

Pure: no I/O. :func:`context_candidates` yields ``(kind, start, end)`` for

* a password-shaped word (:func:`password_shaped`: one word mixing letter cases, digits
  and marks, not a dictionary word, path, URL, version, identifier, hash or id) in a
  sentence or line that talks about a credential (``password``, ``passphrase``, ``pwd``,
  ``login``, ``sign in``, ``user``, ``prompt``, ``creds``, a password's name in another
  language...), on either side of the word that does, or first on the line after a short
  such line (``- user: admin`` then ``- KsFx…``; ``Password:`` then the value);
* a password a tool takes by its place or after a user's flag (:data:`_PAIRED`, the
  table :data:`_POSITIONAL`): ``-u USER -p X`` (mongosh, mosquitto, ipmitool, sqlcmd's
  ``-U … -P``), ``-D DN -w X`` (an LDAP bind), ``htpasswd -nb USER X``, an htpasswd file
  then a user then a password (``.htpasswd jupyter X``, the command's name lost),
  ``rabbitmqctl add_user USER X``, ``net user USER X``, ``echo USER:X | chpasswd``;
* an ngrok authtoken standing bare (a digit, 26 letters and digits, ``_``, 20 to 22 more,
  both halves mixed).

:mod:`arborist._gate.finders` runs it beside the other shapes. Each family runs only where
its literals are (the cue words' starts, found with the other families' literals by
:class:`arborist._gate.prefilters.Literals`); a cue's sentence is read once however many
cues it holds, at most :data:`_MOST_AROUND` characters each way, and only its words of eight
characters or more are weighed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from arborist._gate.prefilters import Literals
from arborist._gate.shapes import (
    MIN_VALUE,
)
from arborist._gate.told import SCRIPT_NAMES, script_name_starts
from arborist._gate.values import (
    has_digit,
    is_filler,
    random_looking,
    reads_as_password,
)

__all__ = [
    "context_candidates",
    "password_shaped",
    "unpronounceable",
]


def context_candidates(text: str, found: Literals, longs: str) -> Iterator[tuple[str, int, int]]:
    """Every secret this module reads in ``text`` (``found`` the literals of its case-folding,
    positions the same; ``longs`` its long words, as
    :func:`arborist._gate.prefilters.long_words`)."""
    if found.folded.isascii() and not found.holds_any(_CUES):
        pass  # most texts: none of the literals the blocks below stand at
    else:
        cues = _cue_starts(found)
        if cues:
            yield from _near_cues(text, cues)
        dashed = "-" in text
        if dashed and (found.at("-u") or found.at("-d")):
            yield from _paired_flags(text, found)
        for literals, strict, pattern in _POSITIONAL:
            if any(literal in found for literal in literals):
                for m in pattern.finditer(text):
                    group = m.lastindex or 1
                    if _tool_value(m.group(group), strict):
                        yield "password", m.start(group), m.end(group)
    if "_" in longs and _NGROK_AT.search(longs) is not None:
        for m in _NGROK_AT.finditer(text):
            head, tail = text[m.start() - _NGROK_HEAD : m.start()], m.group()[1:]
            if _mixed(head) and _mixed(tail):
                yield "api_token", m.start() - _NGROK_HEAD, m.end()


# --- a password near words that talk about signing in --------------------------------

_CUE = re.compile(
    r"(?i)(?<![^\W_])(?:pass(?:words?|wd|phrases?|codes?|wort|ord(?:et)?|e)?|pwd|pw|"
    r"log[ -]?(?:in|on)|sign[ -]?in|user(?:[ _-]?name)?|prompt|creds|credentials?|kennwort|"
    r"contrase(?:[ñn]a|nya)|senha|mot[ \t]+de[ \t]+passe|mdp|parola|clave|"
    r"benutzer(?:name)?)(?![^\W_])|" + SCRIPT_NAMES.pattern
)
"""A word that talks about a credential: a password's name (in English, the languages
:mod:`arborist._gate.told` reads, Norwegian and Danish ``passord``, Catalan
``contrasenya``: found from the starts of ``pass`` and ``contrase``, which are looked for
anyway), signing in, a user's name, a prompt, credentials."""
_CUE_LITERALS = (
    *("pass", "pw", "login", "logon", "log in", "log-in", "user", "prompt", "creds"),
    *("credential", "kennwort", "contrase", "senha", "mdp", "parola", "clave", "benutzer"),
    *("sign in", "sign-in", "signin"),
)
"""Where a cue may start, in the case-folded text: each literal opens one of :data:`_CUE`'s
words (``mot de passe`` holds ``pass``)."""


def _cue_starts(found: Literals) -> list[int]:
    """Where a word that may be a cue opens (:data:`_CUE` says whether it is one)."""
    starts: list[int] = []
    for literal in _CUE_LITERALS:
        starts += found.at(literal)
    if not found.folded.isascii():
        starts += script_name_starts(found)  # as gate/told's: found once
    return sorted(starts)


_WORD = re.compile(r"\S{8,}")
"""A word long enough to be a password: what a cue's sentence is searched for."""
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")
_MOST_AROUND = 240
"""How far from its cue a sentence is read, each way: a cue's own sentence, not a page."""
_EDGE = "\"'`«»“”‘’()[]{}<>,;.!?:*|"
"""What a word in a sentence is stripped of at each end: quotes, brackets, punctuation."""
_LIST_MARK = re.compile(r"[ \t]*(?:[-*•>]|[0-9]{1,2}[.)])?[ \t]*")


def _near_cues(text: str, cues: list[int]) -> Iterator[tuple[str, int, int]]:
    """A password-shaped word in a cue's sentence (either side of the cue), or first on the
    line after a cue's short line (a list: ``- user: admin`` then ``- X``)."""
    done = -1  # the end of the last sentence read: a sentence is read once
    for at in cues:
        if at < done:
            continue
        cue = _CUE.match(text, at)
        inside = at and text[at].isascii() and (text[at - 1].isalnum() or text[at - 1] == "_")
        if cue is None or inside:
            continue  # "design", "passenger"; a name in a script with no spaces stands anywhere
        start, end = _sentence(text, at)
        done = end
        if _DIGIT.search(text, start, end) is not None:  # every password-shaped word has one
            for m in _WORD.finditer(text, start, end):
                yield from _shaped(text, m.group(), m.start())
        if end < len(text) and text[end] == "\n" and end - start <= _SHORT_LINE:
            yield from _first_word(text, end + 1)


_SHORT_LINE = 80
_DIGIT = re.compile("[0-9]")
"""A cue's line this short is a label or a list's item (``- user: admin``, ``Password:``):
the first word of the line after it is read too."""


def _sentence(text: str, at: int) -> tuple[int, int]:
    """The bounds of the sentence holding ``at``: from the last sentence's end (or a line
    break) to the next, at most :data:`_MOST_AROUND` characters each way."""
    low = max(0, at - _MOST_AROUND)
    start = low
    for stop in _SENTENCE_END.finditer(text, low, at):
        start = stop.end()
    m = _SENTENCE_END.search(text, at, min(len(text), at + _MOST_AROUND))
    end = m.start() if m is not None else min(len(text), at + _MOST_AROUND)
    if m is not None and m.group() != "\n":
        end += 1  # a sentence's stop is its own: the next cue starts after it
    return start, end


def _first_word(text: str, line: int) -> Iterator[tuple[str, int, int]]:
    """The first word of the line at ``line``, a list's mark before it allowed."""
    end = text.find("\n", line)
    end = len(text) if end == -1 else end
    mark = _LIST_MARK.match(text, line, end)
    first = mark.end() if mark is not None else line
    m = _WORD.match(text, first, end)
    if m is not None:
        yield from _shaped(text, m.group(), m.start())


def _shaped(text: str, word: str, at: int) -> Iterator[tuple[str, int, int]]:
    """``word`` (at ``at`` in ``text``) as a password: stripped of quotes, punctuation and
    markup, or its head before a file's suffix (``X_2024.tar.gz``); never a word that holds a
    cue itself (a name, ``DB_PASSWORD_FILE=…``, ``password”.``)."""
    if not has_digit(word) or _CUE.search(word) is not None:
        return  # every password-shaped word holds a digit
    word, at = _stripped(word, at)
    head = _SUFFIXED.fullmatch(word)
    if head is not None:  # a file's name: its head is what may be a password
        word = head.group(1)
    if password_shaped(word):
        yield "password", at, at + len(word)


_SUFFIXED = re.compile(r"([^_.]{8,})[_.][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,4}")
"""A word and a file's suffix joined to it (``X_2024.tar.gz``, ``X.txt``)."""


def _stripped(word: str, at: int) -> tuple[str, int]:
    """``word`` (at ``at``) up to any markup in it (``X</code>``), without the quotes,
    brackets and punctuation at its ends; a ``!`` or ``?`` a password ends with stays when
    nothing follows it."""
    opening = _TAGS.match(word)
    if opening is not None and opening.end():
        word, at = word[opening.end() :], at + opening.end()  # <code>X</code>
    cut = _CUT.search(word)
    if cut is not None:
        word = word[: cut.start()]  # X</code>, X&page=2, X",rotated
    inner = word.strip(_EDGE)
    if not inner:
        return "", at
    head = word.find(inner)
    tail = word[head + len(inner) :]
    if tail[:1] in ("!", "?") and (len(tail) == 1 or tail[1] in _CLOSING):
        inner += tail[0]  # "…juOupI!", "…ButLonger!": a mark the password ends with
    return inner, at + head


_CUT = re.compile(r"</?[A-Za-z]|[&?;][A-Za-z_][\w.-]*=|/|[\"'`][,;)\]}]")
"""Where a word's value ends: markup after it, a query's next parameter, a path's ``/``, a
closing quote before a CSV's next cell or code's next argument (``X",rotated``)."""
_CLOSING = "\"'`»”’)]}"
"""What closes a quote or a bracket after a password's last ``!`` (``"…ButLonger!"``)."""
_TAGS = re.compile(r"(?:</?[A-Za-z][^<>\s]*>)*")


_MARKS = re.compile(r"[!#$%^&*+=?@~|]")
"""A mark a typed password holds and a name does not (``!``, ``@``, ``#``, ``%``, ``^``…)."""
_PIECE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_VOWEL = re.compile("[aeiouyAEIOUY]")
_HEXISH = re.compile(r"(?:0x)?[0-9A-Fa-f]+(?:[-:][0-9A-Fa-f]+)*")
_VERSION = re.compile(r"[vV]?[0-9]+(?:[._][0-9]+)")
_PREFIXED_ID = re.compile(
    r"(?:[a-z][a-z0-9]{1,11}[_-]){1,3}[A-Za-z0-9]{6,}(?:[_-][A-Za-z0-9]{1,4})?"
)
_HOSTED = re.compile(r"[\w.+-]+@[\w.-]+")
_LEET = re.compile(r"[A-Z][a-z]{0,2}@[a-z]")
"""A capitalised word with ``@`` for a letter (``Fr@nkfurt``, ``P@ss``): a typed password's,
where an address's user name is a name of its own (``mchen@lab``, ``root@gpu03``)."""
_RELEASE = re.compile(r"[A-Za-z]+[0-9]+(?:\.[a-z]{0,2}[0-9]+)+")
"""A name, its number and a release or patch after a dot (``GRCh38.p14``, ``hg19.v2``)."""
_SLUG_TAG = re.compile(r"[a-z0-9]+(?:[-.][a-z0-9]+)+[#:@]\S+")
"""A slug in lower case (a model's, a package's: ``gpt-4o-mini``) and a tag or an anchor
after ``#``, ``:`` or ``@``: a name, where a password's mark stands between its own
letters (``Gx7#pLm2qV``)."""
_NOT_A_PASSWORD = re.compile(
    r"^[~.$%#@&=-]|[()\[\]{}<>\"'`/\\,:]|(?:^|[;&?])[A-Za-z_][\w.-]*=|\.\."
    r"|%[0-9A-Fa-f]{2}|\*\*|•|…|\$[A-Z_][A-Z0-9_]+(?![a-z])"
)
"""A path, a URL, a flag, a variable (``$HOME``, ``screenshot_$TOKEN_2024``), markup or code,
an assignment, a number's shape."""
_MIN_SHAPED, _MAX_SHAPED = 8, 32


def password_shaped(word: str) -> bool:
    """Whether ``word`` reads as a typed password: 8 to 32 characters, a digit, a third of it
    letters, both cases or a mark a name never holds (:data:`_MARKS`); not a path, URL, flag,
    markup, code, a CSV's cells or an assignment, not hex (a hash, a UUID, a MAC), a version,
    an address (``user@host``, ``model@tag``) or a vendor's id (``cus_…``, ``org-…``,
    ``sc-PQLqAh-0``); and, when it holds no such mark, not a name: an identifier, a slug or a
    model's name reads as words (``Orchard7Harbor9Lantern3``, ``getUserById2``,
    ``Llama-3.1-8B-Instruct``), where a password's pieces are letters no word holds
    (``KsFxdHUGXDqXqf6okvgn``: ``Fxd``, ``Dq``, ``Xqf``)."""
    if not _MIN_SHAPED <= len(word) <= _MAX_SHAPED or not has_digit(word):
        return False
    marked = _MARKS.search(word) is not None
    cased = any(c.islower() for c in word) and any(c.isupper() for c in word)
    if not (cased or marked) or 3 * sum(c.isalpha() for c in word) < len(word):
        return False  # one case and no mark; a date, a time, a number with a few letters
    if _not_typed(word):
        return False
    return marked or (_PREFIXED_ID.fullmatch(word) is None and unpronounceable(word) >= _LEAST_ODD)


def _not_typed(word: str) -> bool:
    """Whether ``word``'s shape is one no password has: a path, code, an assignment, hex, a
    version (``v2.1``; a build's release after a name, ``GRCh38.p14``), an address
    (``user@host``, a model's tag after a slug, ``gpt-4o-mini#latest``), a placeholder."""
    return (
        _NOT_A_PASSWORD.search(word) is not None
        or _HEXISH.fullmatch(word) is not None
        or _VERSION.match(word) is not None
        or _RELEASE.fullmatch(word) is not None
        or _SLUG_TAG.fullmatch(word) is not None
        or (_HOSTED.fullmatch(word) is not None and _LEET.match(word) is None)
        or is_filler(word, "=", quoted=False)
    )


_LEAST_ODD = 2
"""A password's letters make at least this many pieces no word holds; a name's make none
or one (an abbreviation: ``HTTPS``, ``Xml``)."""


def unpronounceable(word: str) -> int:
    """How many of ``word``'s pieces (split where case or letters and digits change) are two
    letters or more with no vowel: random letters make many, words none."""
    return sum(
        1
        for piece in _PIECE.findall(word)
        if piece.isalpha() and len(piece) >= 2 and _VOWEL.search(piece) is None
    )


def _mixed(value: str) -> bool:
    return random_looking(value) and not value.islower() and not value.isupper()


# --- passwords tools take by place ----------------------------------------------------

_VALUE = r"(?:\"([^\"\r\n]{4,})\"|'([^'\r\n]{4,})'|([^\s'\"<>`|;&]{4,}))"
"""A value, quoted or bare: three groups, the bare one last."""
_PAIRED = re.compile(
    r"(?<!\S)(?:-[uU]|--user(?:name)?|-D)(?:[ \t]+|=)(?:\"[^\"\r\n]*\"|'[^'\r\n]*'|[^\s-]\S*)"
    r"[ \t]+(?:-[pPw]|--pass(?:word)?)(?:[ \t]+|=)" + _VALUE
)
"""A password given right after a user's flag and its value: ``-u USER -p X`` (mongosh,
mosquitto's ``-u U -P X``, ipmitool's and sqlcmd's ``-U U -P X``), ``-D DN -w X`` (an LDAP
bind, the tool's name lost), ``--user U --pass X``: the value must read as a password (a
bare ``-p`` prompts, and what follows it is a database's name)."""


def _paired_flags(text: str, found: Literals) -> Iterator[tuple[str, int, int]]:
    """:data:`_PAIRED` matched at the dash of each ``-u``/``-U``/``-D`` (``--user`` holds a
    ``-u``; ``-d`` is another flag), the lines holding none never read."""
    done = 0
    for at in sorted(found.at("-u") + found.at("-d")):
        start = at - 1 if at and text[at - 1] == "-" else at
        if start < done or text[at + 1] == "d":
            continue
        m = _PAIRED.match(text, start)
        if m is None:
            continue
        done = m.end()
        group = m.lastindex or 3
        if _tool_value(m.group(group), strict=True):
            yield "password", m.start(group), m.end(group)


def _tool_value(value: str, strict: bool) -> bool:
    """Whether a tool's positional ``value`` is a password: with ``strict`` (the tool's name
    lost) one that reads as a password, else any but a plain word or a placeholder."""
    if is_filler(value, "=", quoted=False) or value.startswith(("/", "-")):
        return False  # a switch (``net user X /delete``), a flag
    if strict:  # a path after ``-p`` is a name (``-p survey_db/openai/v1``)
        return reads_as_password(value) and "/" not in value
    return len(value) >= MIN_VALUE and not (value.isalpha() and value.islower())


_USER = r"[^\s'\"<>`|;&-][^\s'\"<>`|;&]*"
_POSITIONAL = (
    (
        ("htpasswd",),
        False,
        re.compile(
            r"(?i)(?<![\w-])htpasswd[ \t]+(?:-[A-Za-z]+[ \t]+)*?-(?=[A-Za-z]*n)[A-Za-z]*b[A-Za-z]*"
            rf"(?:[ \t]+-[A-Za-z]+)*[ \t]+{_USER}[ \t]+{_VALUE}"
        ),
    ),
    (("htpasswd",), True, re.compile(rf"(?i)[\w.-]*\.htpasswd[ \t]+{_USER}[ \t]+{_VALUE}")),
    (
        ("add_user", "change_password"),
        False,
        re.compile(
            r"(?<![\w-])rabbitmqctl[ \t]+(?:-\S+[ \t]+(?:[^\s-]\S*[ \t]+)?)*?"
            rf"(?:add_user|change_password)[ \t]+{_USER}[ \t]+{_VALUE}"
        ),
    ),
    (("net user",), False, re.compile(rf"(?i)(?<![\w-])net[ \t]+user[ \t]+{_USER}[ \t]+{_VALUE}")),
    (
        ("chpasswd",),
        False,
        re.compile(
            r"echo[ \t]+(?:-[ne][ \t]+)?[\"']?[\w.@-]+:([^\s'\"|]+)[\"']?[ \t]*\|[ \t]*"
            r"(?:sudo[ \t]+)?chpasswd"
        ),
    ),
)
"""Passwords tools take by their place: ``htpasswd -nb USER X`` (``-n``: no file), an
htpasswd file then a user then a password (``… .htpasswd jupyter X``: ``htpasswd -b``'s
arguments with the command cut off), ``rabbitmqctl add_user USER X`` (``change_password``),
Windows' ``net user USER X``, ``echo USER:X | chpasswd``; each row's literals, in the
case-folded text, say whether it is read (each read from the starts of ``pass`` or ``user``,
which the cues need anyway: no scan of its own). ``htpasswd -b FILE USER X`` and ``mc alias set``
are :mod:`arborist._gate.commands`'."""
_CUES = frozenset(
    (*_CUE_LITERALS, "-u", "-d", *(literal for row in _POSITIONAL for literal in row[0]))
)
"""The literal every block of :func:`context_candidates` but ngrok's stands at (or, in a text
not all ASCII, a password's name in another script): a text holding none is not read for them."""
_NGROK_HEAD = 27
_NGROK_AT = re.compile(
    r"_(?<=(?<![A-Za-z0-9_])[12][A-Za-z0-9]{26}_)[A-Za-z0-9]{20,22}(?![A-Za-z0-9_])"
)
"""An ngrok authtoken (or API key): a digit, 26 letters and digits, ``_``, 20 to 22 more;
found from its ``_`` (the head read backwards), a search led by a literal, where one led by
a class would try every digit of the text."""

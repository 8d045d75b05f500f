"""Secrets given with no name a scanner knows: told in another language, kept by a config
keyword, sent as a cookie, or bare random bytes in base64.

Pure: no I/O. :func:`told_candidates` yields ``(kind, start, end)`` for

* a password told in German, Spanish, French or Portuguese,
  or as "pw" (``Passwort: X``, ``la contraseña es X``, ``mot de passe : X``, ``Das neue
  Kennwort lautet X``, ``the admin pw is X``): a password-like word after the name and a
  colon or a verb of saying;
* a config keyword that takes a password by place: slapd's and ldap.conf's ``rootpw`` /
  ``bindpw``, Redis's ``requirepass`` and ``masterauth`` (``requirepass X``);
* ``mysql -pX``'s glued value standing alone (``-pDdZFzJoOx@fBg``: a password-like word);
* a cookie's value in a ``Cookie:`` or ``Set-Cookie:`` header (``sessionid=…``,
  ``connect.sid=…``): sixteen characters or more, random-looking, or any value of eight or
  more given to a session's name;
* bare base64 that is a credential: 30 or 32 random bytes (an AWS secret access key's 40
  characters, a SAS signature's or an HMAC key's 44 with ``=``), and the base64 of
  ``user:password`` (an HTTP Basic credential without its ``Basic``). Base64 of text, a
  hash's digest given after its algorithm's name (``sha256-…``, Go's ``h1:…``) and hex
  are not keys;
* a secret written as groups or words after its name (:func:`arborist._gate.codes.spaced_secrets`).

:mod:`arborist._gate.finders` runs it beside the other shapes; each pattern runs only when
a literal every match holds is in the text, or among its long words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from itertools import pairwise

from arborist._gate.codes import spaced_heads, spaced_secrets
from arborist._gate.prefilters import Literals
from arborist._gate.shapes import (
    b64_text,
    opening_characters,
    printable,
)
from arborist._gate.values import (
    has_digit,
    is_filler,
    random_looking,
    reads_as_passphrase,
    reads_as_password,
)

Reader = Callable[[str], Iterator[tuple[str, int, int]]]
"""The gate's reading of a text (:func:`arborist._gate.finders.candidates`), given by its
caller so that this module imports no finder of its own."""

__all__ = [
    "Reader",
    "SCRIPT_NAMES",
    "script_name_starts",
    "told_candidates",
]


def told_candidates(
    text: str, found: Literals, longs: str, reader: Reader
) -> Iterator[tuple[str, int, int]]:
    """Every secret this module reads in ``text`` (``found`` the literals of its case-folding,
    positions the same; ``longs`` its long words, as
    :func:`arborist._gate.prefilters.long_words`; ``reader`` the gate's own reading of a
    text, for what base64 decodes to). Each family runs only where a literal
    its matches hold is found: a few substring scans, no pattern over the whole text."""
    cued = not found.folded.isascii() or found.holds_any(_CUES)  # most texts: none of them
    if cued:
        pw = found.at("pw")  # looked for by the names' families too: found once
        heads = _foreign_heads(found, pw)
        if heads:
            yield from _foreign_prose(text, heads)
        if _config_named(found, pw):
            yield from _config_passwords(text)
        if found.at("-p"):
            yield from _glued_p(text, found.at("-p"))
        if "=" in longs and found.at("cookie"):  # a value worth redacting is a long word
            yield from _cookies(text, found)
    folded_longs = longs.casefold()
    if "sess" in folded_longs or "sid=" in folded_longs:  # name=value: a long word
        yield from _sessions(text)
    if "=" in text and ("path=" in found.folded or "domain=" in found.folded):
        for m in _COOKIE_LINE.finditer(text):  # ezproxy=X; path=/; domain=…: a cookie's line
            value = m.group(1)
            if (
                random_looking(value)
                and has_digit(value)
                and not is_filler(value, "=", quoted=False)
            ):
                yield "secret", m.start(1), m.end(1)
    if cued and found.at("-a"):  # found with "-p" and "-u" by one pass (arborist._gate.prefilters)
        yield from _auth_flags(text, found.at("-a"))
    if "-" in longs and _MAILGUN_AT_DASH.search(longs) is not None:
        for m in _MAILGUN.finditer(text):
            yield "api_token", m.start(), m.end()
    if longs:
        yield from _bare_base64(text, longs, reader)
    spaced = spaced_heads(found) if cued else []
    if spaced:
        yield from spaced_secrets(text, spaced)


_FOREIGN_HEADS = ("kennwort", "schl", "contrase", "clave", "senha", "mdp", "clé", "parola")
"""What each Latin password's name :data:`_FOREIGN` reads opens with, ``passwort``, ``mot de
passe``, ``pass`` and ``pw`` aside: those are found among the starts of ``pass`` (which
every family looks for) and of ``pw`` (which the config keywords need too). Each is found
by :class:`arborist._gate.prefilters.Literals`' one pass."""
_CUES = frozenset(
    (
        *(*_FOREIGN_HEADS, "pw", "pass", "auth", "-p", "cookie", "-a", "key"),
        *("mnemonic", "seed", "phrase", "frase de", "wiederherstellungs"),  # spaced_heads'
    )
)
"""The literal every block of :func:`told_candidates` but the sessions, the cookie lines,
Mailgun's keys and the bare base64 stands at (or, in a text not all ASCII, a password's name in
another script): a text holding none is not read for them."""
SCRIPT_NAMES = re.compile(
    "비밀번호|암호|كلمة ال(?:مرور|سر)|رمز عبور|密码|密碼|口令|パスワード|暗証番号|пароль|"
    "пороль|पासवर्ड|κωδικ|συνθηματικ|סיסמ|รหัสผ่าน|şifre|"
    "ösenord(?<=lösenord)|ło(?<=hasło)|ó(?<=jelszó)|ật khẩu(?<=mật khẩu)|ð(?<=lykilorð)|"
    "žodis(?<=slaptažodis)|ă(?<=parolă)|õna(?<=salasõna)|лозинк|гасл|парол|ëkalim(?<=fjalëkalim)"
)
"""A password's name in another script (Korean, Arabic, Persian, Chinese, Japanese,
Russian and Ukrainian, Hindi, Greek, Hebrew, Thai) or holding a letter outside ASCII
(Turkish ``şifre``, Swedish ``lösenord``, Polish ``hasło``, Hungarian ``jelszó``, Vietnamese
``mật khẩu``, Icelandic ``lykilorð``, Lithuanian ``slaptažodis``, Romanian ``parolă``,
Estonian ``salasõna``, South Slavic ``лозинка``, Bulgarian ``парола``, Ukrainian ``гасло``,
Albanian ``fjalëkalim``):
looked for, by one scan, only in a text that is not all ASCII and holds one of the
characters a match opens with (:func:`script_name_starts`). Each match opens at a
character outside ASCII (a name's letters before it checked behind), so the scan stops at
few places."""
_SCRIPT_HEADS = opening_characters(SCRIPT_NAMES)


def script_name_starts(found: Literals) -> list[int]:
    """:data:`SCRIPT_NAMES`' starts in ``found``'s text, found once for the families that
    ask; none, unread, when the text holds none of the characters a match opens with."""
    return found.pattern_starts(SCRIPT_NAMES, _SCRIPT_HEADS)


def _foreign_heads(found: Literals, pw: list[int]) -> list[int]:
    """Where a password's name in another language (or ``pw``, or ``pass``) may open: each
    name's starts, found by :class:`arborist._gate.prefilters.Literals`' one pass,
    the starts of ``pass`` (``passwort``, ``mot de passe``, ``the wifi pass is``), and in a
    text not all ASCII the starts of :data:`SCRIPT_NAMES`."""
    folded = found.folded
    passes = found.at("pass")
    starts = [at - 7 for at in passes if folded.startswith("mot de passe", at - 7)]
    starts += [
        at for at in passes if folded.startswith(("passwort", "password"), at) or _alone(folded, at)
    ]
    starts += pw
    for head in _FOREIGN_HEADS:
        starts += found.at(head)
    if not folded.isascii():
        starts += script_name_starts(found)
    return sorted(starts)


def _alone(folded: str, at: int) -> bool:
    """Whether the ``pass`` at ``at`` is a word of its own after a space (``the wifi pass
    is``), not a part of ``password`` or ``db_pass``."""
    after = folded[at + 4 : at + 5]
    return (at == 0 or folded[at - 1].isspace()) and not (after.isalnum() or after == "_")


def _config_named(found: Literals, pw: list[int]) -> bool:
    """Whether a config keyword's name is in the text: ``bindpw``/``rootpw`` among the starts
    of ``pw``, ``requirepass`` among those of ``pass``, ``masterauth`` of ``auth``."""
    folded = found.folded
    return (
        any(folded.startswith(("bind", "root"), at - 4) for at in pw if at >= 4)
        or any(folded.startswith("require", at - 7) for at in found.at("pass") if at >= 7)
        or any(folded.startswith("master", at - 6) for at in found.at("auth") if at >= 6)
    )


_FOREIGN = re.compile(
    r"(?i)(?:(?<=[a-zäöüß])(?:passwort|kennwort)|"  # a German compound: Initialpasswort
    r"(?<![^\W_])(?:passwort|kennwort|schl(?:ü|ue)ssel|contrase[ñn]a|clave|"
    r"mot[ \t]+de[ \t]+passe|senha|pw|mdp|clé|parola|"
    r"(?<!\S)pass(?=(?:[ \t]+[\w'’-]+){0,6}?[ \t]+(?:is|was|->|=>|→)[ \t])|"
    r"password(?=(?:[ \t]+[\w'’-]+){0,6}?[ \t]+(?:is|was|è|é|es|est|ist|era|er|är)[ \t]))"
    r"(?![^\W_])|" + SCRIPT_NAMES.pattern + r")\w{0,24}(?:[ \t]*(?:->|=>|→|[:：=])[ \t]*|"
    r"(?:[ \t]+(?:[\w\u0900-\u097f'’-]+|[(（][^)）\n]{0,40}[)）])){0,6}?"
    r"(?:[ \t]*(?:->|=>|→|[:：=])[ \t]*|[ \t]+(?:is|ist|lautet|es|est|é|era|was|это|jest|è|"
    r"är|on|olan|là|هي|هو|है):?[ \t]+(?:(?:jetzt|nun|now|ahora|maintenant|désormais|teraz|"
    r"ora|adesso|agora|nu|nyt|şimdi|still|noch)[ \t]+)?)|[ \t]*(?:は|是|为|為|는|은)[ \t]*)"
    r"[\"'«„“「]?(\S+)"
)
"""A password's name in another language or script (or ``pw``; or ``pass`` standing alone,
a few words and ``is`` or an arrow after it: ``the wifi pass is X``; or ``password`` before a
verb of saying in a few languages: ``la password è X``), then a colon (``：`` too), ``=`` or
an arrow, or a few words and notes in parentheses and one of them (``Passwort für den
Laborserver:``, ``Kennwort (Rückseite):``, ``pw for the shared acct ->``), or a verb of saying (``is``, ``ist``,
``lautet``, ``es``, ``est``, ``é``, ``jest``, ``è``; Arabic ``هي``, Hindi ``है``, whose
vowel signs the words between may hold; ``は``, ``是``, ``는``) and perhaps a word for "now"
(``ist jetzt``), then the value."""


def _foreign_prose(text: str, heads: list[int]) -> Iterator[tuple[str, int, int]]:
    """:data:`_FOREIGN` matched at each of ``heads``, not from every character."""
    done = 0
    for at in heads:
        m = _FOREIGN.match(text, at) if at >= done else None
        bare = m is None
        m = _FOREIGN_BARE.match(text, at) if bare and at >= done else m
        if m is None:
            continue
        done = m.end()
        value = m.group(1).rstrip(".,;:)!?\"'»“”")
        marked = m.group(1).rstrip(".,;:)\"'»“”")  # "QEsOuYXi!": a mark may end a password
        words = _IDEOGRAPHS.search(value)  # "sakura-2024!です。", "8文字以上で、…" (a rule)
        value = value[: words.start()].rstrip("，。；：！？、") if words is not None else value
        code = _CODE_VALUE.search(value) is not None  # os.environ['X_1'], getpass(p2)
        if not words and value != marked and _mixed_marked(marked):
            value = marked
        typed = reads_as_password(value) or _mixed_marked(value)
        typed = typed or (not bare and _given_in_field(text, m, value))
        typed = typed or (not bare and reads_as_passphrase(value))
        if bare and "/" in value:  # "şifrem X/v1", "şifre istemez./v1": a URL's path after it
            value = value.split("/", 1)[0].rstrip(".,;:)\"'»“”")
            typed = reads_as_password(value) or _mixed_marked(value)
        if typed and not code and not is_filler(value, "=", quoted=False):
            yield "password", m.start(1), m.start(1) + len(value)


def _given_in_field(text: str, m: re.Match[str], value: str) -> bool:
    """A value after a colon or ``=`` (a form's field, ``Kennwort: sommer0295``) typed as a
    password though in one case, as ``password:`` takes it; after a verb of saying, a word and
    a number (``la contraseña es marisol1987``): eight characters or more, two digits."""
    colon = any(c in ":：=" for c in text[max(m.start(), m.start(1) - 4) : m.start(1)])
    lettered = any(c.isalpha() for c in value)
    if colon:
        return len(value) >= 6 and has_digit(value) and lettered
    digits = sum(c.isdigit() for c in value)
    return len(value) >= 8 and digits >= 2 and lettered and value.isalnum()


_FOREIGN_BARE = re.compile(
    r"(?i)(?:(?<![^\W_])(?:passwort|kennwort|contrase[ñn]a|senha|parola)|"
    + SCRIPT_NAMES.pattern
    + r")\w{0,4}[ \t]+(\S+)"
)
"""A password's name in another language and the password after a space alone, when no colon
or verb of saying follows it (Turkish ``şifrem X``, ``HISinOne-Passwort X``): taken only when
the value reads as a password by itself (:func:`arborist._gate.shapes.reads_as_password`, or
:func:`_mixed_marked`)."""


def _mixed_marked(value: str) -> bool:
    """Whether ``value`` reads as a password with no digit: eight characters or more, two
    capitals (one past the first letter) and two small letters, and a mark (``QEsOuYXi!``,
    ``GattoxBvmc?``); a word capitalised and punctuated (``Sommer!``) is not."""
    upper = sum(c.isupper() for c in value[1:])
    lower = sum(c.islower() for c in value)
    marked = any(not c.isalnum() for c in value)
    return (
        len(value) >= 8 and upper >= 1 and upper + value[0].isupper() >= 2 and lower >= 2 and marked
    )


_IDEOGRAPHS = re.compile("[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]")
"""Kana, CJK ideographs and Hangul: where a password told in a sentence ends (the sentence goes
on), never part of one."""
_CODE_VALUE = re.compile(r"^[\w.]+[(\[]")
"""A value that is code's call or subscript (``os.environ['MDP_2024']``), not a password."""


def _config_passwords(text: str) -> Iterator[tuple[str, int, int]]:
    for m in _CONFIG_PASSWORD.finditer(text):
        value = m.group(1).rstrip(".,;)")
        if len(value) >= 6 and not is_filler(value, "=", quoted=False):
            yield "password", m.start(1), m.start(1) + len(value)


def _glued_p(text: str, starts: list[int]) -> Iterator[tuple[str, int, int]]:
    """``-pX``: a password-like word with no percent-escape (the decoded text is read too:
    ``%20--password-stdin`` is a flag after a space), matched at each ``-p`` (or ``-P``,
    which the pattern refuses) of ``starts``."""
    for at in starts:
        m = _GLUED_P.match(text, at)
        if m is not None:
            value = m.group(1).rstrip(".,;)")
            escaped = _ESCAPED.search(value) is not None
            if not escaped and _password_like(value) and not is_filler(value, "=", quoted=False):
                yield "password", m.start(1), m.start(1) + len(value)


_CONFIG_PASSWORD = re.compile(
    r"(?i)(?<![^\W_])(?:bindpw|rootpw|requirepass|masterauth)[ \t]+[\"']?([^\s\"'()]+)"
)
"""slapd's ``rootpw X``, ldap.conf's ``bindpw X``, Redis's ``requirepass X`` and
``masterauth X``: a password by place, after its keyword and a space."""
_GLUED_P = re.compile(
    r"(?<![^\W_])(?<!\[)(?<![\s\"'=(\[{,;|]-)(?<!^-)-p([^\W_][^\s\"']{7,127})(?![^\s\"'])"
)
"""``mysql -pX``'s value, glued to its ``-p``: only a password-like word (``-pthread``,
``-pedantic`` are flags), and not just inside a square bracket (``set xrange
[-pi/2:pi/2]``: a range's minus sign; a synopsis's ``[-pPASSWORD]`` names a placeholder).
Inside a parenthesis it is a flag still (``my config (-pX) but``: a command quoted in
prose)."""
_ESCAPED = re.compile("%[0-9A-Fa-f]{2}")
_COOKIE = re.compile(r"(?i)(?<![^\W_])(?:set-)?cookie[ \t]*:[ \t]*([^\r\n]*)")
_COOKIE_PAIR = re.compile(r"([\w.$-]+)=([^;\s\"'\\]*)")
_SESSION_NAME = re.compile(r"(?i)sess|sid|auth|token|remember|jwt|csrf|xsrf")
_COOKIE_ATTRIBUTES = frozenset(
    {"path", "domain", "expires", "max-age", "samesite", "priority", "version", "comment"}
)


_SESSION = re.compile(
    r"(?i)(?<![^\W_])(?:sessionid|session_id|sessid|phpsessid|jsessionid|connect\.sid|[\w-]*_session)"
    r"(?:\.[\w-]{1,40})?=([^\s;&\"'\\]{16,})"
)
"""A session cookie's value given to its name with no header (``sessionid=…``), its name
perhaps suffixed by a node (Jetty's ``JSESSIONID.6f2a1c3b=``): sixteen random-looking
characters or more."""
_COOKIE_LINE = re.compile(
    r"(?<![\w.-])[\w.-]{2,40}=([^\s;&\"'\\]{12,});[ \t]*(?i:path|domain|expires|max-age)="
)
"""A cookie as a browser's store or a ``Set-Cookie`` keeps it, its header lost: a name, a value
of twelve characters or more, and its attributes after ``;``."""
_AUTH_FLAG = re.compile(r"(?<![\w-])(?:-a|--auth)(?:[ \t]+|=)[\"']?[\w.@-]+:([^\s\"']+)")
"""HTTPie's ``http -a user:PASSWORD`` (``--auth``)."""
_MAILGUN = re.compile(r"(?<![0-9a-f])[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}(?![0-9A-Za-z-])")
"""A Mailgun API key: 32 hex, then two groups of 8 (a UUID's groups are 8-4-4-4-12)."""
_MAILGUN_AT_DASH = re.compile(
    r"-(?<=[0-9a-f]{32}-)(?<![0-9a-f][\s\S]{32}-)[0-9a-f]{8}-[0-9a-f]{8}(?![0-9A-Za-z-])"
)
""":data:`_MAILGUN` found from its first ``-``, the 32 hex before it read backwards: a search
led by a literal, where one led by a class tried every hex digit of the long words."""


def _sessions(text: str) -> Iterator[tuple[str, int, int]]:
    for m in _SESSION.finditer(text):
        if random_looking(m.group(1)) and not is_filler(m.group(1), "=", quoted=False):
            yield "secret", m.start(1), m.end(1)


def _auth_flags(text: str, starts: list[int]) -> Iterator[tuple[str, int, int]]:
    """:data:`_AUTH_FLAG` matched at each ``-a`` of the text (``--auth`` holds one), not
    searched: ``starts`` are those of ``-a`` in its case-folding, ``-A`` among them."""
    for at in starts:
        if text[at + 1] != "a":
            continue  # "-A": the flag is "-a"
        m = _AUTH_FLAG.match(text, at - 1 if text.startswith("--auth", at - 1) else at)
        if m is None or len(m.group(1)) < 6 or m.group(1).startswith("/"):
            continue
        if not is_filler(m.group(1), "=", quoted=False):
            yield "password", m.start(1), m.end(1)


def _cookies(text: str, found: Literals) -> Iterator[tuple[str, int, int]]:
    """Each cookie's value in a ``Cookie:`` / ``Set-Cookie:`` header that is random-looking
    and sixteen characters or more, or eight or more given to a session's name (an
    attribute such as ``Path=/`` or ``Expires=…`` is not a cookie); each header matched
    where ``cookie`` is found."""
    for at in found.at("cookie"):
        header = _COOKIE.match(text, at - 4 if found.folded.startswith("set-", at - 4) else at)
        if header is None:
            continue
        base = header.start(1)
        for pair in _COOKIE_PAIR.finditer(header.group(1)):
            name, value = pair.group(1), pair.group(2)
            if name.lower() in _COOKIE_ATTRIBUTES or is_filler(value, "=", quoted=False):
                continue
            session = _SESSION_NAME.search(name) is not None and len(value) >= 8
            if session or (len(value) >= 16 and random_looking(value)):
                yield "secret", base + pair.start(2), base + pair.end(2)


_BARE_B64 = re.compile(r"(?<![A-Za-z0-9+/])([A-Za-z0-9+/]{16,4096}={0,2})(?![A-Za-z0-9+=])")
"""A run of base64 that stands on its own, or joined to a word by ``-``, ``_`` or ``.``
(``backup_….env``)."""
_DIGEST_BEFORE = re.compile(
    r"(?i)(?:sha[0-9]*|md5|blake2[bs]?|h1|base64|digest|hash|integrity|checksum|etag)[-:= ]$"
)
"""A hash's digest given after its algorithm's or its kind's name: ``sha256-…`` (a
subresource integrity), Go's ``h1:…``, ``digest: …``."""
_PUBLIC_BEFORE = re.compile(r"(?i)pub(?:lic)?[ _-]?key[\"']?[ \t]*[:=][ \t]*[\"']?$")
"""A key given to a public key's name (WireGuard's ``PublicKey = …``, ``"public_key": "…"``):
32 random bytes made to be shown, where ``PrivateKey = …`` is the secret."""
_BASIC = re.compile(r"[\w.@+-]{1,64}:[^\s:]{6,}")


_B64_LONG = 40
_B64_RUN = re.compile("[A-Za-z0-9+/]{16}")
"""A long word that may hold a credential's base64 is :data:`_B64_LONG` characters or more,
or padded, and holds a run of sixteen base64 characters: each word is tried, where a
pattern over the long words tried every character."""


def _bare_base64(text: str, longs: str, reader: Reader) -> Iterator[tuple[str, int, int]]:
    """Bare base64 that is a credential: 30 or 32 random bytes, or ``user:password``. The
    long words come in the text's order: each is found after the one before, so the text is
    read once, however many there are."""
    at = 0
    for word in longs.split(" "):
        if not (len(word) >= _B64_LONG or "=" in word) or _B64_RUN.search(word) is None:
            continue
        found = text.find(word, at)
        if found == -1:
            return
        for m in _BARE_B64.finditer(text, found, found + len(word)):
            yield from _credentials_in(text, m.start(1), m.group(1), reader)
        at = found + len(word)


def _credentials_in(
    text: str, start: int, run: str, reader: Reader
) -> Iterator[tuple[str, int, int]]:
    """The first stretch of the base64 ``run`` (at ``start`` in ``text``) that is a
    credential, not given after a digest's name."""
    if start and text[start - 1] in "%\\":
        skip = _ESCAPE_DIGITS.match(run) if text[start - 1] == "%" else _ESCAPE_LETTER.match(run)
        if skip is None:
            return  # an escape's digits begin it: the decoded text is read too (admission)
        start, run = start + skip.end(), run[skip.end() :]  # %0A, \n before it: a line break
    for a, b in _runs(run):
        if _path_like(run[a:b]):
            continue
        if (
            _DIGEST_BEFORE.search(text, max(0, start + a - 12), start + a) is None
            and _PUBLIC_BEFORE.search(text, max(0, start + a - 24), start + a) is None
        ):
            kind = _credential(run[a:b], reader)
            if kind is not None:
                yield kind, start + a, start + b
                return


_ESCAPE_DIGITS = re.compile("0[9ADad]")
_ESCAPE_LETTER = re.compile("[nrt]")
"""What opens a run of base64 after a ``%`` or a ``\\`` when the escape is a line break or a
tab the decoded text does not read (a URL's ``%0A``, a repr's ``\\n``): the run is the rest."""


def _path_like(stretch: str) -> bool:
    """Whether a stretch of base64 reads as a path (``///tmp/tmpab12/p3/1Z99…``,
    ``…LETtpyT/notes``, ``eqh524/p1/AbstractSingletonProxyFactoryBean``): between two ``/``
    a word of three letters or more in lower case, or a name of three capitalized words or
    more (a class's file, under a temporary folder's random name), which a key's random
    ``/`` rarely leaves (a key's ``…CzEYJ/pi/YoISZ…`` is a key); or it opens or closes with
    ``/`` or holds ``//`` while every part is shorter than :data:`_KEY_PART`."""
    if "/" not in stretch:
        return False
    parts = stretch.split("/")
    if any(
        (p.isalpha() and p.islower() and 3 <= len(p) <= 12) or _CAMEL_NAME.fullmatch(p)
        for p in parts
    ):
        return True
    # an empty part (``///tmp``, ``a//b``, a closing ``/``) only among parts shorter than a
    # key's: a key that opens or closes with its own random "/" is a key
    return "" in parts and max(len(p) for p in parts) < _KEY_PART


_KEY_PART = 16  # a credential's least (:func:`_sized`): beside an empty part, a key's own "/"
_CAMEL_NAME = re.compile("(?:[A-Z][a-z]{2,}){3,}")
"""A name of three capitalized words or more (``AbstractSingletonProxyFactoryBean``): a
stretch between two ``/`` of a random 32-byte key in base64 reads so about once in 13,000
(15 of 200,000 drawn)."""


def _password_like(value: str) -> bool:
    """Eight characters or more, a letter, and three of lower case, upper case, digits and
    marks (``DdZFzJoOx@fBg``; not a flag such as ``-pthread`` or ``-pedantic``)."""
    classes = (
        any(c.islower() for c in value),
        any(c.isupper() for c in value),
        has_digit(value),
        not value.isalnum(),
    )
    return len(value) >= 8 and any(c.isalpha() for c in value) and sum(classes) >= 3


def _basic_password(password: str) -> bool:
    """The password of a ``user:password`` pair in base64: six characters or more, not a
    URL's rest (``http://…``), a placeholder or a plain word in one case."""
    if len(password) < 6 or password.startswith("//"):
        return False
    plain = password.isalpha() and (password.islower() or password.istitle())
    return not plain and not is_filler(password, "=", quoted=False)


def _runs(run: str) -> Iterator[tuple[int, int]]:
    """``run`` whole, then each stretch of it between two of its ``/`` (a URL path's segment
    is base64's alphabet too): start and end in ``run``, longest first."""
    yield 0, len(run)
    cuts = [-1]  # each "/" found by a find, not a step of Python per character
    at = run.find("/")
    while at != -1 and len(cuts) < _MOST_CUTS:
        cuts.append(at)
        at = run.find("/", at + 1)
    cuts.append(len(run))
    for a, b in pairwise(cuts[:-1]):  # 32 bytes unpadded, then a path
        if b - a - 1 == _UNPADDED_32 and _PATH_TAIL.fullmatch(run, b):
            yield a + 1, b  # ``files/<43>/download``: the key's segment, the path's words
    spans = [(a + 1, b) for i, a in enumerate(cuts) for b in cuts[i + 1 :] if _sized(b - a - 1)]
    yield from sorted((s for s in spans if s != (0, len(run))), key=lambda s: s[0] - s[1])


def _sized(length: int) -> bool:
    """Whether a stretch this long can be base64 of a credential: sixteen characters or
    more, whole groups of four (a stretch between two ``/`` holds no padding)."""
    return length >= 16 and length % 4 == 0


_MOST_CUTS = 12
_PATH_TAIL = re.compile("(?:/[a-z0-9]*)+")


def _holds_secret(decoded: str, reader: Reader) -> bool:
    """Whether text decoded from base64 holds a secret the gate finds (a Kubernetes Secret's
    ``database-url: <base64 of postgres://u:PASSWORD@…>``, a ``.dockerconfigjson``)."""
    return len(decoded) >= _LEAST_DECODED and next(reader(decoded), None) is not None


_LEAST_DECODED = 12


def _credential(value: str, reader: Reader) -> str | None:
    """The kind of credential the base64 ``value`` is, or None."""
    if (
        (len(value) % 4 and len(value) != _UNPADDED_32)
        or not has_digit(value)
        or value.isupper()
        or value.islower()
    ):
        return None
    data = b64_text(value)
    if data is None:
        return None
    if printable(data.replace(b"\n", b" ").replace(b"\r", b" ").replace(b"\t", b" ")):
        pair = data.decode("ascii")  # a file's lines too: a service account's JSON
        if _BASIC.fullmatch(pair) and _basic_password(pair.split(":", 1)[1]):
            return "basic_auth"
        return "secret" if _holds_secret(pair, reader) else None
    if len(data) in (30, 32) and len(set(value)) >= 20 and not data.startswith(b"\0\0\0"):
        return "api_token"
    return None


_UNPADDED_32 = 43
"""32 random bytes in base64 with its ``=`` left off (a key's 43 characters, as a Fernet or
a PKCE key is written): the one unpadded length read as a key."""

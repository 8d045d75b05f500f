"""The shapes of secrets: the admission gate's pattern catalogue and the tests of a value.

Pure: no I/O. :mod:`arborist._gate.finders` runs these patterns over a text and
:mod:`arborist._gate.admission` replaces what they find; the kinds they stand for, and what
each matches, are listed in :mod:`arborist._gate.admission`'s docstring.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

__all__ = [
    "ADO_PAT",
    "AUTH_HEADER",
    "AWS_ACCESS",
    "AWS_PREFIX",
    "AWS_SECRET",
    "AWS_SECRET_AT",
    "B64_64",
    "B64_64_NAMED",
    "BASIC",
    "BEARER",
    "CODE_REFERENCE",
    "CURL_USER",
    "DASH_P",
    "DASH_PASS",
    "DISCORD",
    "ECHO_SUDO",
    "FLAG",
    "GITHUB",
    "HTPASSWD",
    "INVISIBLE",
    "JWT",
    "KEY_END_REVERSED",
    "KEY_NAME_FOLDED",
    "LDAP_SMB",
    "LDAP_W",
    "MIN_VALUE",
    "MYSQL",
    "NAME_LITERALS",
    "NAME_TAIL",
    "NAME_WINDOW",
    "NETRC",
    "NETRC_CONTEXT",
    "PASSWORD_KEYS",
    "PAT_WORD",
    "PEM_B64",
    "PEM_BEGIN",
    "PEM_BODY",
    "PGPASS",
    "PGPASS_PORT",
    "PUTTY",
    "QUERY_SECRET",
    "QUERY_SECRET_MIN",
    "REDIS_A",
    "SEPARATOR",
    "SK_GLUED",
    "SK_HEX",
    "SK_KEY",
    "SLACK",
    "SMB_U",
    "SSHPASS_P",
    "SSWS",
    "TELEGRAM",
    "TWILIO",
    "URL_FILLER",
    "URL_USERINFO",
    "VALUE",
    "VALUE_ATTRIBUTE",
    "WEAK_KEYS",
    "WEBHOOK",
    "XML_ADD",
    "XML_ELEMENT",
    "XML_OPEN",
    "at_each",
    "b64_text",
    "has",
    "opening_characters",
    "printable",
]


# --- patterns -----------------------------------------------------------------
# Each left boundary excludes every character the body may contain, so a run of
# repeated prefixes ("sk-sk-sk-...") is scanned once, not once per prefix. A
# repetition that may cross a line break consumes the break in the same step as
# the characters after it, so no text can be read two ways.

_WRAP = r"(?:[ \t]*\\?\r?\n[ \t]*(?:>[ \t]*)*)"
"""A line break inside a token: a terminal, an editor or a mail client wrapped it."""

INVISIBLE = re.compile("[\u00ad\u034f\u180e\u200b-\u200f\u2060-\u2064\ufeff]")
"""Characters that show as nothing (soft hyphen, zero-width space and joiners, word
joiner, BOM): a key pasted from a PDF or a chat may carry one. Secrets are looked
for in the text without them, and each redaction covers them in the original."""

SK_KEY = re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{20,}")
SK_HEX = re.compile("[0-9a-f]{32}")
"""An OpenAI or Anthropic key's body is base62, both cases; OpenRouter's ``sk-or-v1-`` is
hex: either, where ``sk-learn-tutorial-part-2`` is a slug."""
AWS_ACCESS = re.compile(
    rf"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])(?:{_WRAP}?[A-Z0-9]){{16}}(?![A-Za-z0-9])"
)
# ASCII-only case folding ((?a)): the names are ASCII, and the literal prefilter
# (``"secret" in folded``) then finds every text the pattern can match.
AWS_SECRET = re.compile(
    r"(?ai)(?<![a-z0-9])"
    r"(?:aws[ _-]?secret(?:[ _-]?access)?[ _-]?key|secret[ _-]?(?:access[ _-]?)?key)"
    r"(?:[ \t]*\[[^\]\n]{0,20}\])?"  # the `aws configure` prompt: "... Key [None]: "
    r"[\"']?[ \t]*(?:[=:>]|\n|is\b)\s*[\"']?"  # = : > (XML), "is", or the value on the next line
    r"(?-i:([A-Za-z0-9/+=]{40}))(?![A-Za-z0-9/+=])"
)
AWS_PREFIX = re.compile("A(?:KIA|SIA|BIA|CCA|3T)")  # one scan for "A", not five for words
AWS_SECRET_AT = re.compile(AWS_SECRET.pattern.replace("(?<![a-z0-9])", "", 1))
""":data:`AWS_SECRET` without its lookbehind, matched where each ``secret`` is found."""
# scheme://user:PASSWORD@host: the user part holds no ":" or brackets (so it never
# starts inside a placeholder), an "@" perhaps (an e-mail address as the user name,
# smtp://me@lab.example:PASSWORD@host); the password runs to the authority's last "@". Or
# scheme://TOKEN@host, a key given as the user name (a Sentry DSN's, git's
# https://TOKEN@github.com), in group 2: a secret only when it reads as a random key.
URL_USERINFO = re.compile(
    r"(?<![A-Za-z0-9.-])[A-Za-z][A-Za-z0-9+.-]*://"
    r"(?:[^\s:/?#\[\]]*:([^\s/?]+(?:\?[^\s/?@]+)??)|([A-Za-z0-9_~.-]{16,}))@"
)
QUERY_SECRET = re.compile(
    r"(?ai)[?&;](?:sig|signature|x-amz-signature|x-goog-signature|key|api-key|x-api-key"
    r"|access-key|subscription-key)=([^\s?&#;'\"<>`]+)"
)
URL_FILLER = re.compile(
    r"(?i)(?:your|my|the|some)?[_-]?(?:password|passwd|pass|pwd|pw|secret|token)|foo|bar|baz"
)
QUERY_SECRET_MIN = 16
"""A key or signature query value shorter than this is a name or an example, not a secret."""
WEBHOOK = re.compile(
    r"(?i)(?:hooks\.slack\.com/(?:services|workflows|triggers)/"
    r"|discord(?:app)?\.com/api/webhooks/|\.webhook\.office\.com/webhookb2/"
    r"|hooks\.zapier\.com/hooks/catch/)"
    r"([A-Za-z0-9/@_-]{8,})"
)
# A prefix and length no word holds: found glued to a word with no separator too
# (``mytokenghp_...``, ``backupxoxb-...``), and past an invisible character before it.
GITHUB = re.compile(r"gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}")
SLACK = re.compile(r"(?:xox[abporsce]|xapp)-[A-Za-z0-9-]{10,}")
SK_GLUED = re.compile(r"sk-(?:proj|ant|svcacct|admin)-[A-Za-z0-9_-]{20,}")
# An Azure DevOps personal access token, bare: 52 characters of lower-case base32.
ADO_PAT = re.compile(r"(?<![A-Za-z0-9])[a-z2-7]{52}(?![A-Za-z0-9])")
# 64 bytes in base64 standing alone: an Azure storage account key (not a digest: those
# say their algorithm, ``sha512-...``).
B64_64 = re.compile(r"(?<![A-Za-z0-9+])[A-Za-z0-9+/]{86}==(?![A-Za-z0-9+=])")
B64_64_NAMED = re.compile(r"(?i)(?:sha[0-9-]*|base64|blake2b?|digest|hash|sig(?:nature)?)[-:=,]$")
# A Discord bot token: base64 of a user id (M, N or O first; any first character when
# nothing joins the token to a word: look-alikes, ids to come), a dot, 6 characters, a
# dot, 27 or more.
DISCORD = re.compile(
    r"(?:[MNO]|(?<![A-Za-z0-9_-])[A-Za-z0-9])[A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}"
)
TELEGRAM = re.compile(r"(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{30,}(?![A-Za-z0-9_-])")
TWILIO = re.compile(r"AC[a-f0-9]{32}[\"']?[ \t]*,[ \t]*[\"']?([a-f0-9]{32})(?![A-Za-z0-9])")
_B64U = r"[A-Za-z0-9_-]"
# A JWT continues over a line break only onto a line that is all token characters: a
# wrapped token, not the next line's words.
_JWT_WRAP = rf"(?:{_WRAP}(?=[A-Za-z0-9_.-]+(?![^\r\n])))"
_SEGMENT = rf"{_B64U}+(?:{_JWT_WRAP}{_B64U}+)*"
JWT = re.compile(  # matched where each "eyJ" is found, not after a letter or digit
    rf"eyJ{_SEGMENT}{_JWT_WRAP}?\.{_JWT_WRAP}?{_SEGMENT}{_JWT_WRAP}?\."
    rf"(?:{_JWT_WRAP}?{_SEGMENT})?"
)
PEM_BEGIN = re.compile(r"-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----")
PEM_BODY = re.compile(
    r"(?:\r?\n[A-Za-z][A-Za-z-]*: [^\r\n]*)*"  # PGP armor headers ("Version: ...")
    r"(?:[ \t]*\r?\n(?=[ \t]*\r?\n))?"  # the blank line after them
    r"(?:(?:[ \t]*\r?\n[ \t]*|\\n|%0[Dd]%0[Aa]|%0[Aa])[A-Za-z0-9+/=]+[ \t]*(?![^\r\n\\\"'%&]))*"
)
# A PEM block base64-encoded once more (kubeconfig's client-key-data: LS0tLS1CRUdJTi...)
PEM_B64 = re.compile(r"LS0tLS1CRUdJTi[A-Za-z0-9+/=]*(?:\r?\n[ \t]*[A-Za-z0-9+/=]+(?![^\r\n]))*")
BEARER = re.compile(r"(?i)(?<![A-Za-z0-9_])bearer[ \t]+([A-Za-z0-9._~+/=-]{16,})")
BASIC = re.compile(r"(?i)basic[ \t]+([A-Za-z0-9+/=]{6,})")
"""``Basic`` and its value, to the end of the base64 characters (a URL path's ``/`` among
them: the finder cuts the value where it decodes)."""
AUTH_HEADER = re.compile(
    r"(?i)authorization[\"']?[^\S\r\n]*[:=][^\S\r\n]*[\"']?"
    r"(?:([A-Za-z][A-Za-z0-9-]*)[^\S\r\n]+)?([^\s\"',;]+)"
)
# Names whose value is a secret, matched where a name ends (``DB_PASSWORD``,
# ``authToken``, ``SECRET_KEY``, ``X-Api-Key``, ``AccountKey``); the longer first.
_KEY_WORDS = (
    r"passw(?:or)?d|passphrase|pwd|secret[_-]?key|secret|token|credentials?|api[_-]?key"
    r"|(?:access|account|private|shared[_-]?access|master|signing|encryption|auth|app|client"
    r"|session|license|subscription)[_-]?key|auth|pass|pw"
)
KEY_NAME_FOLDED = re.compile(f"(?i){_KEY_WORDS}")  # text whose case-folding moves positions


def _key_words() -> list[str]:
    """Every word a secret's name may end with, the longer first."""
    words = ["password", "passwd", "passphrase", "pwd", "secret", "token", "credential"]
    words += ["credentials", "auth", "pass", "pw", PAT_WORD]
    seps = ("", "_", "-")
    for head in ("api", "access", "account", "private", "master", "signing", "encryption"):
        words += [f"{head}{sep}key" for sep in seps]
    for head in ("auth", "app", "client", "session", "license", "subscription", "secret"):
        words += [f"{head}{sep}key" for sep in seps]
    words += [f"shared{a}access{b}key" for a in seps for b in seps]
    return sorted(words, key=lambda w: (-len(w), w))


PAT_WORD = "pat"
"""A personal access token's name (``AZURE_DEVOPS_PAT``, ``GITLAB_PAT``): only after ``_``
or ``-``, and only for a random-looking value (``compat``, ``FILE_PAT=*.txt`` are not)."""
_NAME_SUFFIXES = ("_base", "_value", "_string", "_str", "_base64", "_b64", "_hex", "_raw")
"""What may follow the word at a name's end (Rails' ``secret_key_base``)."""
# A name's end read backwards: the reversed window is matched from its start, which
# is one anchored match, where a search for a word before the end would try each place.
KEY_END_REVERSED = re.compile(
    "(?i)(?P<suffix>"
    + "|".join(re.escape(x[::-1]) for x in _NAME_SUFFIXES)
    + ")?(?P<word>"
    + "|".join(re.escape(w[::-1]) for w in _key_words())
    + ")"
)
WEAK_KEYS = frozenset({"auth", "pass", "pw"})
"""Names that are words too (``pass``, ``auth``): only a whole name, given with ``=`` or quotes."""
MIN_VALUE = 4
"""A shorter value given to a secret's name is an example (``"y"``), not a secret."""
NAME_TAIL = re.compile(r"[A-Za-z0-9_.-]*")
NAME_LITERALS = ("pass", "pw", "secret", "token", "credential", "key", "auth", "_pat", "-pat")
"""One of these is in every name :data:`_KEY_END` matches, case-folded (``_pat`` and
``-pat`` only where they end a name, :data:`PAT_WORD`'s, not in ``_path``)."""
NAME_WINDOW = 64
"""How far back from a name's end its word is looked for."""
_BARE = r"<[^<>\r\n]*>|\$\{\{[^{}\r\n]*\}\}|\{\{[^{}\r\n]*\}\}|\$\{[^{}\r\n]*\}|(?:[^\s\"'`,;&，。；]|[,;&](?![^\S\r\n]*[A-Za-z_][A-Za-z0-9_.-]*[^\S\r\n]*=|\s|\Z))+"
VALUE = re.compile(
    r"([\"'`]?\]?)(?:[ \t]+\([^()\r\n]{1,30}\)|[ \t]*（[^（）\r\n]{1,30}）"
    r"|[ \t]+for(?:[ \t]+[\w.@~-]{1,30}){1,4})?[^\S\r\n]*"
    r"(=>|:=|==|=|:|：|→|[\u00a0\u2000-\u200a\u202f\u205f\u3000])[^\S\r\n]*"
    rf"(?:\"([^\"\r\n]*)\"|'([^'\r\n]*)'|`([^`\r\n]*)`|[\"'`]?({_BARE}))"
)
"""A name's separator and value; a note in parentheses after a space (``api_key (staging):``)
or in full-width ones (``AppSecret（…）：``) may stand between, a call's (``token(self):``) not,
or what it is for (``passphrase for id_rsa:``); an arrow in prose (``token → X``) separates."""
SEPARATOR = re.compile("[=:：→\u00a0\u2000-\u200a\u202f\u205f\u3000]")
"""A character every value given to a name needs after it (:data:`VALUE`'s separators):
text holding none has no assignment, and is not searched for the names."""
CODE_REFERENCE = re.compile(
    r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+|[A-Za-z_][A-Za-z0-9_.]*[\[(].*"
)
NETRC = re.compile(r"(?i)(?<!\S)password[ \t]+(\S+)")
NETRC_CONTEXT = re.compile(r"(?i)(?<![A-Za-z0-9])(?:machine|login)[ \t]")
MYSQL = re.compile(
    r"(?i)(?<![A-Za-z0-9])(?:mysql[a-z]*|mariadb[a-z-]*|sshpass|mongo(?:sh|dump|restore)?"
    r"|(?:docker|podman|buildah|skopeo|nerdctl|oras|helm[ \t]+registry)[ \t]+login|redis-cli)"
    r"(?![A-Za-z0-9_])"
)
LDAP_SMB = re.compile(
    r"(?i)(?<![A-Za-z0-9])(?:ldap(?:search|modify|add|delete|whoami|passwd|compare|modrdn|exop)"
    r"|smbclient|rpcclient)(?![A-Za-z0-9_])"
)
"""The LDAP and SMB tools, whose lines are read only where one is named."""
DASH_P = re.compile(r"(?<!\S)-p([^\s/\\_.&-]\S*)")
"""``mysql -pX``: a value glued to ``-p`` (a bare ``-p`` prompts; ``-p/...`` or ``-p_...`` is
a path or name the flag ends, not a value)."""
REDIS_A = re.compile(r"(?<!\S)-a[ \t]+(?:'([^'\r\n]*)'|\"([^\"\r\n]*)\"|([^\s'\"-]\S*))")
SSHPASS_P = re.compile(r"(?<!\S)-p(?:=|[ \t]*)(?:'([^'\r\n]*)'?|\"([^\"\r\n]*)\"?|([^\s'\"]+))")
"""``sshpass -p X``, ``docker login -p 'X'`` (``-p='X'``): a quote never closed (a line cut
short) runs to the line's end."""
LDAP_W = re.compile(r"(?<!\S)-w[ \t]*(?:'([^'\r\n]*)'|\"([^\"\r\n]*)\"|([^\s'\"-][^\s'\"]*))")
"""``ldapsearch -w PASSWORD`` (``-W`` asks for it)."""
SMB_U = re.compile(r"(?<!\S)-U[ \t]*['\"]?[^\s%'\"]+%([^\s'\"]+)")
"""``smbclient -U user%PASSWORD``."""
ECHO_SUDO = re.compile(
    r"echo[ \t]+(?:-[ne][ \t]+)?(?:'([^'\r\n]*)'|\"([^\"\r\n]*)\"|([^\s|'\"]+))"
    r"[ \t]*\|[ \t]*sudo[ \t]+(?:-[A-Za-z]+[ \t]+)*?-[A-Za-z]*S"
)
"""``echo PASSWORD | sudo -S ...``: a password fed to sudo on its standard input."""
HTPASSWD = re.compile(r"\$(?:apr1|2[abxy]|1|5|6|y)\$[./0-9A-Za-z$]{16,}|\{SHA\}[A-Za-z0-9+/]{27}=")
"""An htpasswd line's hash after its user name and ``:`` (Apache MD5, bcrypt, crypt, SHA-1)."""
SSWS = re.compile(r"SSWS[ \t]+([A-Za-z0-9_-]{20,})")
"""Okta's ``Authorization: SSWS <token>`` scheme."""
# ``--password VALUE``, ``--token VALUE``: a flag named for a secret, its value after a space.
FLAG = re.compile(
    r"--(?:[a-z]+-)*(?:password|passwd|passphrase|token|secret|api-key|apikey|auth-token"
    r"|access-token|access-key|secret-key|client-secret)[ \t]+"
    r"(?:'([^'\r\n]*)'|\"([^\"\r\n]*)\"|([^\s'\"-][^\s'\"]*))"
)
# ``-storepass VALUE``, ``-password VALUE``, ``-passin pass:VALUE``: a one-dash flag named
# for a password (keytool, openssl, Java and .NET tools), matched at its dash.
DASH_PASS = re.compile(
    r"-[a-z]{0,12}pass(?:word|wd|phrase|in|out)?[ \t]+(?:pass:)?"
    r"(?:'([^'\r\n]*)'|\"([^\"\r\n]*)\"|(?!(?:env|file|fd|stdin)(?:[:\s]|$))([^\s'\"-][^\s'\"]*))"
)
# <password>VALUE</password> (XML, a .NET config's <add key="DbPassword" value="VALUE"/>).
XML_ELEMENT = re.compile(r"<([A-Za-z_][\w:.-]{0,63})>([^<\r\n]{4,})</\1>")
XML_OPEN = re.compile(r"<([A-Za-z_][\w:.-]{0,63})>([^\s<>]{8,})")
"""An element whose closing tag is missing (``<password>VALUE``): its value up to a space."""
XML_ADD = re.compile(
    r"(?i)key[ \t]*=[ \t]*\"([^\"\r\n]{1,64})\"[ \t]+value[ \t]*=[ \t]*\""
    r"(?:([^\"\r\n]*)\"|([^\"\s]+))"
)
"""A .NET config's ``<add key="DbPassword" value="VALUE"/>``; a value whose closing quote
never comes (``value="VALUE`` and the line goes on) runs to the next space."""
# A PuTTY private key file's body.
PUTTY = re.compile(
    r"Private-Lines: [0-9]+((?:(?:\r?\n|\\(?:r\\)?n|%0[Dd]%0[Aa]|%0[Aa])[A-Za-z0-9+/=]+"
    r"(?![^\r\n\\%&\"']))+)"
)
"""A PuTTY key file's private lines, after their count: each on a line of its own, the line
break written as a repr's or JSON's ``\\n`` or a URL's ``%0A`` too (a key pasted into a
query or a string)."""
VALUE_ATTRIBUTE = re.compile(r'value[ \t]*=[ \t]*"')  # on the case-folded text
# A .pgpass line, host:port:database:user:password (``*`` for any of the first four).
PGPASS = re.compile(
    r"(?<![A-Za-z0-9._*-])([A-Za-z0-9._-]+|\*):(?:[0-9]{1,5}|\*)"
    r":[^:\s\"',;]+:[^:\s\"',;]+:((?:[^\s:\\\"']|\\.)+)(?=[\s\"']|:(?:\s|\Z)|\Z)"
)
PGPASS_PORT = re.compile(r":(?:[0-9]{1,5}|\*):")
CURL_USER = re.compile(r"-(?:u|-user)(?:[ \t]+|=)[\"']?([^\s:\"'@]+):([^\s\"']+)")

PASSWORD_KEYS = ("passw", "pwd", "passphrase", "pass", "pw")


def at_each(text: str, starts: list[int], pattern: re.Pattern[str]) -> Iterator[re.Match[str]]:
    """``pattern`` matched at each of ``starts`` (where its literal is, in the case-folded
    text: :class:`arborist._gate.prefilters.Literals`) not after a letter, digit or ``_``,
    and past the last match: one anchored match each, where a search of a pattern opening
    with a lookbehind would try every character."""
    after = 0
    for at in starts:
        if at < after or (at and _word_char(text[at - 1])):
            continue
        found = pattern.match(text, at)
        if found is not None:
            yield found
            after = found.end()


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def has(text: str, *needles: str) -> bool:
    return any(needle in text for needle in needles)


def b64_text(value: str) -> bytes | None:
    """``value`` decoded as base64 (padding added), or None when it is not base64."""
    try:
        return base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (ValueError, binascii.Error):
        return None


def printable(data: bytes) -> bool:
    return data.isascii() and data.decode("ascii").isprintable()


def opening_characters(pattern: re.Pattern[str]) -> str:
    """The characters ``pattern``'s matches open with: the first of each of its top-level
    alternatives, each a character of its own (not an escape, a class or a group, and not
    made optional). Raises ValueError for a pattern this cannot tell for (one that folds
    case, is verbose or holds a class) or an alternative opening otherwise: its matches
    could open with a character not named."""
    source = pattern.pattern
    if pattern.flags & (re.IGNORECASE | re.VERBOSE) or "[" in source:
        raise ValueError(f"{source!r}: its first characters are not read")
    heads, depth, escaped = [], 0, False
    at = 0  # where an alternative opens
    for i, char in enumerate(source):
        if i == at:
            if char in _SPECIAL or source[i + 1 : i + 2] in _OPTIONAL:
                raise ValueError(f"{source!r}: an alternative opens with {char!r}")
            heads.append(char)
        elif escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and not depth:
            at = i + 1
    if at >= len(source):  # an empty alternative matches anywhere
        raise ValueError(f"{source!r}: an alternative is empty")
    return "".join(dict.fromkeys(heads))


_SPECIAL = frozenset("\\.^$*+?()[]{}|")
_OPTIONAL = frozenset("?*{")
"""What after a first character could make it optional (``a?``, ``a*``, ``a{0,2}``)."""

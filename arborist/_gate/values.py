"""What a value is: nothing (a placeholder, a mask, a reference, code), or what a password or
a random key reads as.

Pure: no I/O. Every finder of the gate asks these of what it found after a secret's name or
shape (:mod:`arborist._gate.shapes` re-exports them for the finders that import them there).
"""

from __future__ import annotations

import re
from urllib.parse import unquote

__all__ = [
    "PLACEHOLDER_MARK",
    "has_digit",
    "holds_key",
    "is_filler",
    "masked_token",
    "random_looking",
    "random_part",
    "reads_as_passphrase",
    "reads_as_password",
]

PLACEHOLDER_MARK = "[REDACTED:"
"""What every mark the gate writes opens with (``[REDACTED:kind]``)."""

_TYPE_NAMES = frozenset(
    {"str", "string", "int", "bool", "bytes", "none", "null", "true", "false", "optional", "any"}
)
_TYPE_HEAD = re.compile(r"[\[|]")
_NULLS = frozenset({"none", "null", "nil", "undefined", "true", "false"})
"""Bare values that say "no password" (``pwd=None`` in a signature), never a secret."""
_FILLER = re.compile(
    r"(?i)\*+(?:[^\s*A-Za-z0-9]\S*)?|[•●]+(?:[./]\w{1,12})*|x+|\.\.\.|…|<[^<>]*>|\$\{[^{}]*\}|\$?\{\{.*\}\}|\{[^{}]*\}|%\([^()]*\)s"
    r"|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%"
    r"|(?:your|my|enter|insert|put)[_ -].*|.*[_-]here|replace[_-]?me|placeholder|redacted"
    r"|.{0,16}(?:\.\.\.|…)|\[REDACTED(?::|\]).*|(?:.*[_-])?your[_-].*"
    r"|example|sample|dummy|changeme|hidden|masked|removed|required|value"
    r"|(?:api[_-]?)?(?:secret|password|passwd|passphrase|token|key|credentials?)"
    r"|1password|bitwarden|vaultwarden|keepass(?:xc)?|lastpass|dashlane|nordpass|enpass|keychain"
    r"|[a-z][a-z_-]*(?:/[a-z][a-z_-]*){2,}(?::[a-z_]+)?"
)
"""... and what says where a value is kept: a password manager's name (``die Passwörter
liegen in 1Password``), a vault's path of words (``secret=kv/data/db:password``)."""
_CODE_WORDS = frozenset(
    {"raise", "return", "throw", "yield", "await", "assert", "lambda", "not", "elif", "else"}
)
"""A keyword where a bare value would stand: code goes on (``if not api_key: raise …``)."""
_CALL = re.compile(
    r"\$?\(|[A-Za-z_][A-Za-z0-9_.]*\(|(?:Get|Read|Import|Invoke|ConvertTo|ConvertFrom|Unprotect)-"
    r"[A-Z][A-Za-z]+$"
)
"""A value that opens a call, a parenthesis or a shell's ``$(...)``, or is a PowerShell
cmdlet that fetches a value (``Get-Secret``; its flags follow after a space): code."""
_SUBSTITUTION = re.compile(r"\$\([^\r\n]*\)|`[^`\r\n]+`")
"""A shell's command substitution, which runs inside double quotes too: code."""


_VENDOR_PREFIX = re.compile(r"^(?:[A-Za-z0-9]{1,8}[_-]){1,3}")
"""A token's prefix, one to three parts (``ghp_``, ``sk_live_``, ``xoxb-``): what a mask
keeps before its filler."""
_ALNUM = re.compile(r"[^\W_]")


_PERCENT_ESCAPE = re.compile("%[0-9A-Fa-f]{2}")
_QUOTED_OPENINGS = frozenset({"%20", "%22", "%27", "%09"})
"""A value opening with an escaped space or quote belongs to the text decoded, which the
gate reads too (:func:`arborist._gate.admission.admit` decodes percent-escapes)."""
_NEXT_LINE = ("%0A", "%0D", "\\N", "\\R")
"""A value opening with a line break written as an escape (a URL's ``%0A``, a repr's or
JSON's ``\\n``) is on the next line: the name was given nothing, as ``password=`` at a
line's end is in the raw text (``password=\\nusername=admin`` is two lines)."""
_PLACEHOLDER_JOINED = re.compile(
    r"(?:<[^<>\s]+>|\$\{[^{}]*\}|\$?\{\{[^{}]*\}\}|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%"
    r"|x{8,}|X{8,}|[^\s.…]{0,16}(?:\.\.\.|…))[^A-Za-z0-9\s](.*)",
    re.DOTALL,
)
"""A placeholder joined to what follows it (``<token>-q4_K_M``, ``${DB_PASSWORD}/api``,
``xxxxxxxx-backup``, ``<your-key>_2024-06-11``, a shell variable ``$TOKEN`` before ``.ipynb``,
``</code>`` or a
JSON string's ``\\n"``, an ellipsis's ``sk_live_...`` before ``.env.txt``): the value is the
placeholder, the rest is the text's."""
_KEY_PIECE = re.compile("[A-Za-z0-9]{12,}")


def has_digit(value: str) -> bool:
    return any(c.isdigit() for c in value)


def is_filler(value: str, separator: str, quoted: bool) -> bool:
    """Values that are not secrets: empty, masked, templated, type names, calls; also
    once percent-decoded (a URL's path quotes ``<YOUR_API_KEY>`` as ``%3CYOUR_API_KEY%3E``)."""
    if _filler(value, separator, quoted):
        return True
    if "%" not in value or _PERCENT_ESCAPE.search(value) is None:
        return False
    if value[:3].upper() in _QUOTED_OPENINGS:
        return True  # api_key:%20%22...: the separator's space or quote, read decoded
    decoded = unquote(value)
    return decoded != value and _filler(decoded, separator, quoted)


def _filler(value: str, separator: str, quoted: bool) -> bool:
    if not value.strip() or PLACEHOLDER_MARK in value:
        return True
    if _FILLER.fullmatch(value.strip()) or _ALNUM.search(value) is None:
        return True
    if _stands_for_nothing(value) or _SUBSTITUTION.fullmatch(value.strip()) is not None:
        return True
    if not quoted:
        if _CALL.match(value) or value.lower() in _NULLS or value in _CODE_WORDS:
            return True
        head = _TYPE_HEAD.split(value, maxsplit=1)[0].lower()
        if separator == ":" and head in _TYPE_NAMES:
            return True
    return False


def _stands_for_nothing(value: str) -> bool:
    """A value on the next line (:data:`_NEXT_LINE`), a token's mask
    (:func:`masked_token`) or its prefix before a placeholder's word (``sk_live_REPLACE_ME``,
    ``ghp_your_token_here``), a shell variable in double quotes (which expand it: in single
    quotes ``'$ecret1'`` is what it says), a YAML tag naming where the value is kept
    (``!secret openweathermap_key``, ``!vault``), or a placeholder joined to a suffix
    (:data:`_PLACEHOLDER_JOINED`, the suffix holding no key)."""
    if value.upper().startswith(_NEXT_LINE) or masked_token(value) or _prefixed_filler(value):
        return True
    if _QUOTED_VARIABLE.fullmatch(value) is not None or _YAML_TAG.fullmatch(value) is not None:
        return True
    joined = _PLACEHOLDER_JOINED.fullmatch(value)
    return joined is not None and not holds_key(joined.group(1))


_QUOTED_VARIABLE = re.compile(r'"\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[^{}"]*\})"')
_YAML_TAG = re.compile(r"![A-Za-z_][A-Za-z0-9_.-]*")
_PREFIX_PART = re.compile(r"[A-Za-z0-9]{1,8}[_-]")


def _prefixed_filler(value: str) -> bool:
    """Whether ``value`` is a token's prefix (one to three parts, :data:`_VENDOR_PREFIX`)
    before a placeholder's words: each cut of the prefix is tried, since ``REPLACE_`` has
    a prefix's shape too."""
    at = 0
    for _part in range(3):
        part = _PREFIX_PART.match(value, at)
        if part is None:
            return False
        at = part.end()
        rest = value[at:]
        if rest and not has_digit(rest) and _FILLER.fullmatch(rest) is not None:
            return True
    return False


def masked_token(token: str) -> bool:
    """Whether a token is its prefix and a mask: the rest (six characters or more) is one
    or two characters over and over (``ghp_XXXX...``, ``sk_live_XXXX...``,
    ``sk-00000000...``), or one of them fills three quarters of it (the mask and a file's
    suffix, ``pscale_tkn_XXXX....env``). Random characters are never so few."""
    if len(set(token)) > _MASK_MOST:
        return False
    rest = _VENDOR_PREFIX.sub("", token, count=1).lower()
    if len(rest) < _MASK_LEAST:
        return False
    kinds = set(rest)
    return len(kinds) <= 2 or 4 * max(rest.count(c) for c in kinds) >= 3 * len(rest)


_MASK_MOST = 32
"""More distinct characters than this: no mask (a prefix has a few, a mask one or two)."""
_MASK_LEAST = 6


def holds_key(text: str) -> bool:
    """Whether ``text`` holds a run of twelve letters and digits or more with both in it:
    what a key would leave in a suffix, where a date, a path or a model's tag does not."""
    return any(
        has_digit(piece) and any(c.isalpha() for c in piece) for piece in _KEY_PIECE.findall(text)
    )


def reads_as_password(value: str) -> bool:
    """Whether ``value`` reads as a password, not a plain word: eight characters or more,
    letters and digits, and both cases or a mark (``zDYXuPw.4OCRkmv.w``)."""
    return (
        len(value) >= 8
        and has_digit(value)
        and any(c.isalpha() for c in value)
        and ((not value.islower() and not value.isupper()) or not value.isalnum())
    )


def random_looking(token: str) -> bool:
    """A digit, or both cases, and not one character over and over (``ghp_XXXX...``)."""
    mixed = has_digit(token) or (not token.islower() and not token.isupper())
    return mixed and len(set(token)) >= 8


def random_part(value: str) -> bool:
    """Whether a dotted value holds a part no name looks like (digits among eight or more
    distinct characters): ``token=n4m3t0k3n5ecr3t77.txt`` is a secret with a suffix, where
    ``password=args.password`` names one."""
    return any(has_digit(part) and len(set(part)) >= 8 for part in value.split("."))


def reads_as_passphrase(value: str) -> bool:
    """Whether a value told as a password reads as a passphrase of plain words: three words
    or more of three letters or more joined by one ``-``, ``.`` or ``_`` throughout
    (``hammock-otter-tulip-ribbon-harbor``, ``cobalt.copper.ember``), the last no host's
    suffix; or eighteen small letters or more run together (``rocketyogurtlemonotter``),
    longer than a word of prose ends so. Asked only of what a password's name was given."""
    for joint in "-._":
        words = value.split(joint)
        if len(words) >= 3 and all(len(w) >= 3 and w.isalpha() for w in words):
            named = {w.lower() for w in words} & _NAMES_IN_CODE
            return not named and words[-1].lower() not in _HOST_ENDS
    return (
        len(value) >= 18 and value.isalpha() and value.islower() and not value.endswith(_PROSE_ENDS)
    )


_HOST_ENDS = frozenset(
    (
        "com",
        "org",
        "net",
        "edu",
        "gov",
        "int",
        "mil",
        "local",
        "lan",
        "home",
        "arpa",
        "internal",
        "localdomain",
        "corp",
        "intra",
        "html",
        "htm",
        "php",
        "json",
        "yaml",
        "toml",
        "conf",
        "txt",
    )
)
"""What ends a host's or a file's dotted name (``vault.example.com``, ``db.password.txt``)."""
_PROSE_ENDS = ("ly", "tion", "tions", "ness", "ment", "ments", "able", "ible", "ing", "ity")
_NAMES_IN_CODE = frozenset(
    (
        "self",
        "this",
        "args",
        "argv",
        "opts",
        "options",
        "config",
        "conf",
        "cfg",
        "settings",
        "env",
        "environ",
        "process",
        "secrets",
        "vars",
        "params",
        "request",
        "data",
        "ctx",
        "context",
        "app",
        "password",
        "passwd",
        "passphrase",
        "secret",
        "token",
        "key",
        "credentials",
        "auth",
        "value",
    )
)
"""Words a reference in code is made of (``settings.database.password``), never a passphrase."""

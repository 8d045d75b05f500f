"""Passwords on command lines and in the files tools read them from.

Pure: no I/O. :func:`command_candidates` yields ``(kind, start, end)`` for a password
given to a tool (``mysql -pX``, ``sshpass -p X``, ``redis-cli -a X``, ``ldapsearch -w
X``, ``smbclient -U user%X``, ``curl -u user:X``, ``--password X``, ``-storepass X``,
``echo X | sudo -S``) or kept in a tool's file (``.netrc``'s ``password X``, a
``.pgpass`` line, an htpasswd hash, a PuTTY key's private lines) or to its ``login``
command (``wandb login KEY``); :func:`spaced_candidates` yields the values given with no
``=`` or ``:`` (``SetEnv DB_PASSWORD X``, ``Auth.api_key("X")``, ``scheme://user:X`` cut
short, ``7z x a.7z -pX``, ``mc alias set``'s and ``htpasswd -b``'s positional passwords);
:mod:`arborist._gate.finders` runs them beside the other shapes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from arborist._gate.prefilters import Literals, named_matches, secret_words
from arborist._gate.shapes import (
    CURL_USER,
    DASH_P,
    DASH_PASS,
    ECHO_SUDO,
    FLAG,
    HTPASSWD,
    LDAP_SMB,
    LDAP_W,
    MIN_VALUE,
    MYSQL,
    NETRC,
    NETRC_CONTEXT,
    PGPASS,
    PGPASS_PORT,
    PUTTY,
    REDIS_A,
    SMB_U,
    SSHPASS_P,
    at_each,
)
from arborist._gate.values import (
    holds_key,
    is_filler,
    reads_as_password,
)

__all__ = [
    "command_candidates",
    "flag_lines",
    "spaced_candidates",
    "tool_lines",
]


def command_candidates(text: str, found: Literals, longs: str) -> Iterator[tuple[str, int, int]]:
    """Passwords on command lines and in ``.netrc``: ``mysql -pSECRET``, ``curl -u user:pass``,
    ``machine host login user password SECRET``."""
    dashed = "-" in text  # one scan for a character every flag below needs
    if dashed and "pass" in found:
        yield from _dash_pass_flags(text, found)
    for line_start, line_end, tools in _flag_lines(text, found) if dashed else ():
        tool = tools.search(text, line_start, line_end)  # a line is read for its first tool
        if tool is not None:
            for m in _tool_flag(tool.group()).finditer(text, tool.end(), line_end):
                group = next(g for g in range(1, (m.lastindex or 1) + 1) if m.group(g) is not None)
                quoted = text[m.start(group) - 1] in "'\"" and group < (m.re.groups or 1)
                if not is_filler(m.group(group), "=", quoted=quoted):  # 'IC(8m…': not a call
                    yield "password", m.start(group), m.end(group)
    if dashed and "-u" in found:
        for m in _curl_users(text, found.at("-u")):
            if m.start() and not text[m.start() - 1].isspace():
                continue
            user, password = m.group(1), m.group(2)
            if (user.isdigit() and password.isdigit()) or is_filler(password, "=", quoted=True):
                continue  # docker run -u 1000:1000, a user id and a group id
            yield "password", m.start(2), m.end(2)
    if dashed and "--" in text:
        for m in _flags(text):
            group = m.lastindex or 3
            if not is_filler(m.group(group), "=", quoted=group != 3) and len(m.group(group)) >= 4:
                kind = "password" if "pass" in m.group()[:20].lower() else "secret"
                yield kind, m.start(group), m.end(group)
    if _holds(text, ":", 4):
        for m in _pgpass_lines(text):
            host, password = m.group(1), m.group(2)
            if host.isdigit() or host.isupper() or host.lower() in ("http", "https"):
                continue  # 00:11:22:33:44:55, a MAC address; TIME:12:30:...
            if _IPV6_GROUPS.match(m.group()):
                continue  # 2001:db8:0000:0000:0000:...: an IPv6 address, group after group
            if len(password) >= MIN_VALUE and not is_filler(password, "=", quoted=True):
                yield "password", m.start(2), m.end(2)
    if ("$" in text or "{" in text) and (":$" in longs or ":{SHA}" in longs):
        yield from _htpasswd(text)  # a user name and its hash: one long word
    if ":" in text:  # a user name and a DES hash (its "." or "/" may cut a long word)
        for m in _DES_LINE.finditer(text):
            if _des_hash(m.group(1)):
                yield "password", m.start(1), m.end(1)
    if dashed:
        yield from _fed_passwords(text, found)
    yield from _device_lines(text, found)
    if ":" in text and _PUTTY_PRIVATE.search(text) is not None:
        for m in PUTTY.finditer(text):
            yield "private_key", m.start(1), m.end(1)
    if "login" in found:  # wandb login KEY, some-cli login --with KEY
        for m in at_each(text, found.at("login"), _LOGIN_KEY):
            if holds_key(m.group(1)) and not is_filler(m.group(1), "=", quoted=False):
                yield "api_token", m.start(1), m.end(1)
    if "pass" in found and "password" in found and ("machine" in found or "login" in found):
        for m in NETRC.finditer(text):
            near = NETRC_CONTEXT.search(text, max(0, m.start() - 200), m.start())
            if near is not None and not is_filler(m.group(1), "=", quoted=False):
                yield "password", m.start(1), m.end(1)


def _fed_passwords(text: str, found: Literals) -> Iterator[tuple[str, int, int]]:
    """Passwords fed to a tool on its line: ``sudo -S cmd <<< X``, net-snmp's ``-A X`` and
    ``-X X``, ``echo X | sudo -S`` (a line holding a flag: ``-`` is in the text)."""
    if "sudo" in text and "<<<" in text:  # sudo -S cmd <<< PASSWORD
        yield from _told(_SUDO_HERE.finditer(text))
    if "snmp" in found.folded:  # snmpwalk -A AUTHPASS -X PRIVPASS
        for line in _SNMP_LINE.finditer(text):
            yield from _told(_SNMP_PASS.finditer(text, line.start(), line.end()))
    if "|" in text and "sudo" in text:
        yield from _told(ECHO_SUDO.finditer(text))  # its own scan for "echo"


def _told(matches: Iterator[re.Match[str]]) -> Iterator[tuple[str, int, int]]:
    """The password each match gives in one of its three groups: single-quoted, double-
    quoted (a quoted value is never code's), or bare; a placeholder is none."""
    for m in matches:
        group = m.lastindex or 3
        if not is_filler(m.group(group), "=", quoted=group != 3):
            yield "password", m.start(group), m.end(group)


def _device_lines(text: str, found: Literals) -> Iterator[tuple[str, int, int]]:
    """Passwords a device's or a service's own lines give: a Cisco ``enable secret 0 X`` and
    ``username U secret X``, a BMC's sticker (``IPMI … default: ABCDEFGHIJ``, ten capitals),
    a value alone on its line after "the following password:" (Jenkins' first start), and
    Postfix's ``sasl_passwd`` (``[host]:port user:X``, a Google app password's four groups)."""
    folded = found.folded
    if "secret" in found or "pass" in found:
        if "enable" in folded or "username" in folded:
            for m in _CISCO.finditer(text):
                if not is_filler(m.group(1), "=", quoted=False):
                    yield "password", m.start(1), m.end(1)
        if "following" in folded:
            for m in _FOLLOWING.finditer(text):
                if len(m.group(1)) >= MIN_VALUE and not is_filler(m.group(1), "=", quoted=False):
                    yield "password", m.start(1), m.end(1)
    if "ipmi" in folded or "bmc" in folded or "sticker" in folded:
        for m in _BMC_STICKER.finditer(text):
            yield "password", m.start(1), m.end(1)
    if "@" in text and ":" in text:
        for m in _SASL_LINE.finditer(text):
            group = m.lastindex or 1
            if not is_filler(m.group(group), "=", quoted=False):
                yield "password", m.start(group), m.end(group)


_CISCO = re.compile(
    r"(?<![\w-])(?:enable[ \t]+(?:secret|password)|username[ \t]+\S+[ \t]+(?:privilege[ \t]+"
    r"[0-9]+[ \t]+)?(?:secret|password))[ \t]+(?:[0-9][ \t]+)?([^\s\"']{4,})"
)
_FOLLOWING = re.compile(
    r"(?i)following[ \t]+(?:[\w-]+[ \t]+)?(?:password|passphrase|secret|token)[^\r\n:]{0,60}:"
    r"[ \t]*\r?\n(?:[ \t]*\r?\n)*[ \t]*([^\s\"'<>]{8,})[ \t]*(?:\r?\n|\Z)"
)
_BMC_STICKER = re.compile(
    r"(?i:ipmi|bmc|idrac|ilo|sticker)[^\r\n:]{0,60}:[ \t]*([A-Z]{10})(?![A-Za-z0-9])"
)
_SASL_LINE = re.compile(
    r"(?m)^[ \t]*\[[\w.-]+\](?::[0-9]{1,5})?[ \t]+[^\s:@]+@[\w.-]+:([^\r\n]+?)[ \t]*$"
    r"|@[\w-]+(?:\.[\w-]+)+:[ \t]*([a-z]{4}(?: [a-z]{4}){3})(?![\w])"
)
_SUDO_HERE = re.compile(
    r"(?<![\w-])sudo[ \t]+(?:-\w+[ \t]+)*-\w*S\b[^\r\n]*?<<<[ \t]*"
    r"(?:'([^'\r\n]*)'|\"([^\"\r\n]*)\"|([^\s'\"]+))"
)
"""A password fed to ``sudo -S`` (which reads it from its input) by a here-string."""
_SNMP_LINE = re.compile(r"(?i)(?<![\w-])snmp[a-z]*[ \t][^\r\n]*")
_SNMP_PASS = re.compile(r"(?<!\S)-[AX][ \t]*(?:'([^'\r\n]*)'|\"([^\"\r\n]*)\"|([^\s'\"<$-]\S*))")
"""net-snmp's ``-A`` (the authentication pass phrase) and ``-X`` (the privacy one)."""
_PUTTY_PRIVATE = re.compile("Lines: (?<=Private-Lines: )")
"""A PuTTY key file's ``Private-Lines: ``, found from its capital ``L`` (rarer than ``P``), the
rest read behind it."""
_LOGIN_KEY = re.compile(
    r"(?<![\w-])login[ \t]+(?:-{1,2}[\w-]+[ \t]+)?([A-Za-z0-9_-]{20,})(?![\w-])"
)
"""A key given to a tool's ``login`` command as its word (``wandb login 897cbd…``): twenty
characters or more, a run of letters and digits mixed in it (:func:`holds_key`); a user name
after ``login`` (``.netrc``'s, ``ssh -l``'s) is a name, not a key."""


def _curl_users(text: str, flags: list[int]) -> Iterator[re.Match[str]]:
    """:data:`CURL_USER`'s matches, tried at each ``-u`` (``flags``, found in the case-folded
    text) and at the dash before it (``--user``), past the last match: a search of it stops
    at every dash, and pydoc's rules are rows of them."""
    done = 0
    for at in flags:
        for start in (at - 1, at) if at and text[at - 1] == "-" else (at,):
            m = CURL_USER.match(text, start) if start >= done else None
            if m is not None:
                yield m
                done = m.end()


def _flag_lines(text: str, found: Literals) -> list[tuple[int, int, re.Pattern[str]]]:
    """Each line holding a tool's password flag, in order, and the tools looked for there:
    MYSQL's on a line with ``-p`` or ``-a``; LDAP's ``-w`` and SMB's ``-U`` only where such
    a tool is named (``grep -w`` is common), by a pattern of their own. The first flag of a
    line is read from the starts of all four in the case-folding (``-a``, ``-p``, ``-w``,
    ``-u``, found by :class:`arborist._gate.prefilters.Literals`' one pass) that are
    written so (``-[apwU]``), the rest within it."""
    folded = found.folded
    ldap: bool | None = None  # whether such a tool is named: asked once a line needs it
    lines: list[tuple[int, int, re.Pattern[str]]] = []
    flags = sorted(at for flag in _TOOL_FLAGS for at in found.at(flag) if text[at + 1] in "apwU")
    end = 0
    for at in flags:
        if at < end:
            continue  # on the line just read
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end == -1 else end
        if text.find("-p", start, end) != -1 or text.find("-a", start, end) != -1:
            lines.append((start, end, MYSQL))
        if text.find("-w", start, end) != -1 or text.find("-U", start, end) != -1:
            if ldap is None:
                ldap = "ldap" in folded or "client" in folded  # smbclient, rpcclient
            if ldap:
                lines.append((start, end, LDAP_SMB))
    return lines


def _holds(text: str, char: str, times: int) -> bool:
    """Whether ``char`` is in ``text`` ``times`` times or more: a ``find`` each, which stops
    at the last one needed, where a ``count`` reads the whole text."""
    at = -1
    for _time in range(times):
        at = text.find(char, at + 1)
        if at == -1:
            return False
    return True


_TOOL_FLAGS = ("-a", "-p", "-w", "-u")
"""A tool's password flag's dash and letter, case-folded (``-U`` is SMB's)."""


def _tool_flag(tool: str) -> re.Pattern[str]:
    """The flag a tool takes its password by: ``mysql -pX``, ``redis-cli -a X``,
    ``ldapsearch -w X``, ``smbclient -U user%X``, ``sshpass -p X``."""
    name = tool.lower()
    if name.startswith(("mysql", "mariadb")):
        return DASH_P
    if name.startswith("redis"):
        return REDIS_A
    if name.startswith("ldap"):
        return LDAP_W
    return SMB_U if name.startswith(("smb", "rpc")) else SSHPASS_P


def _htpasswd(text: str) -> Iterator[tuple[str, int, int]]:
    """An htpasswd line's hash (``user:$apr1$...``, ``user:$2y$...``, ``user:{SHA}...``),
    matched after each ``:`` that follows a user name's character."""
    done = 0
    for colon in _HASH_COLON.finditer(text):
        at = colon.start()
        if at < done or not at or text[at - 1] not in _USER_CHARS:
            continue
        m = HTPASSWD.match(text, at + 1)
        if m is not None:
            yield "password", m.start(), m.end()
            done = m.end()


_HASH_COLON = re.compile(r":(?=\$|\{SHA\})")

_DES_LINE = re.compile(r"(?m)^[ \t'\"]*[A-Za-z0-9._@-]{1,32}:([./0-9A-Za-z]{13})(?=[:'\"]|[ \t]*$)")
"""A password file's line whose hash is traditional DES crypt, 13 characters of its alphabet
after the user name (CVS's ``CVSROOT/passwd``, an old htpasswd or ``/etc/passwd``:
``myuser:sqkNi8zPf01HI``, ``user:hash:uid:…``), at the start of a line (a quote or a space
before it allowed)."""


def _des_hash(value: str) -> bool:
    """Whether 13 characters read as a DES hash: a digit and both cases, or ``.``/``/`` among
    letters of both cases (not a word such as ``Configuration``)."""
    cases = any(c.islower() for c in value) and any(c.isupper() for c in value)
    return cases and (any(c.isdigit() for c in value) or "." in value or "/" in value)


_USER_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-@")


def _dash_pass_flags(text: str, found: Literals) -> Iterator[tuple[str, int, int]]:
    """:data:`DASH_PASS` matched at the dash before each ``pass`` found (at most 12 letters
    back, so ``passpass...`` is read once), where that dash stands alone: after a space, a
    quote or nothing (``--password`` is :data:`FLAG`'s)."""
    folded = found.folded
    for at in found.at("pass"):
        start = at
        while start > max(0, at - 12) and "a" <= folded[start - 1] <= "z":
            start -= 1
        dash = start - 1
        if dash >= 0 and text[dash] == "-" and (not dash or text[dash - 1] in _FLAG_BEFORE):
            m = DASH_PASS.match(text, dash)
            if m is not None:
                group, value = m.lastindex or 3, m.group(m.lastindex or 3)
                word = group == 3 and value.isalpha() and value.islower()  # "the -password flag"
                if not word and not is_filler(value, "=", quoted=group != 3):
                    yield "password", m.start(group), m.end(group)


_FLAG_BEFORE = frozenset(" \t\n\r\"'")


def _pgpass_lines(text: str) -> Iterator[re.Match[str]]:
    """:data:`PGPASS` matched from the host before each ``:port:`` found (a host is one
    name, at most 253 characters), where a search would try every character."""
    done = 0
    for port in PGPASS_PORT.finditer(text):
        if port.start() < done:
            continue
        start = port.start()
        while start > max(done, port.start() - 253) and text[start - 1] in _HOST_CHARS:
            start -= 1
        m = PGPASS.match(text, start) if start < port.start() else None
        if m is not None:
            yield m
            done = m.end()


_IPV6_GROUPS = re.compile(r"(?:[0-9A-Fa-f]{1,4}:){4}(?:[0-9A-Fa-f]{0,4}:|[0-9A-Fa-f]{1,4}(?!\S))")
"""Four groups of at most four hex digits, and a fifth (or an empty one, ``::``) where a
password would start: an IPv6 address read as ``host:port:db:user:password``."""
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-*")


def _flags(text: str) -> Iterator[re.Match[str]]:
    """:data:`FLAG`'s matches, in order: tried once per run of dashes followed by a letter,
    at its last two (a flag's name follows ``--``), where a search tried every dash of
    pydoc's rules. A flag stands after anything but a letter or digit (a space, a quote,
    ``/``, ``=``, ``_``: a command line pasted into a path, a query or a file name), or
    joined to a word by one more dash (``llama3---password X``)."""
    head = _FLAG_HEAD.search(text)
    while head is not None:
        at = head.start()  # a run's last two dashes: a third before them stands for a space
        m = FLAG.match(text, at)
        described = m is not None and m.lastindex in (None, 3) and _described(text, m, m.group(3))
        if m is not None and (not at or not text[at - 1].isalnum()) and not described:
            yield m  # not a tool's help: "--password    prompt for the password"
        head = _FLAG_HEAD.search(text, m.end() if m is not None else at + 2)


def _described(text: str, m: re.Match[str], value: str) -> bool:
    """Whether the word after a flag (:data:`FLAG`'s match ``m``) is its help's description,
    not its value: a plain lower-case word in a column (two spaces or a tab before it), or
    after a flag given with its short form (``-p, --password prompt …``, a help text whose
    spaces a title or a file name collapsed)."""
    at = m.start(3)
    before = text[max(0, at - 2) : at]
    column = before == "  " or before.endswith("\t")
    short = _SHORT_FORM.search(text, max(0, m.start() - 6), m.start()) is not None
    return (column or short) and value.isalpha() and value.islower()


_SHORT_FORM = re.compile(r"(?<![\w-])-[A-Za-z],[ \t]*$")


_FLAG_HEAD = re.compile("--[a-z]")
"""Where a flag's name can start: a run's last two dashes, a letter after them (a flag's
name opens with one; pydoc's rules of dashes hold none)."""


def spaced_candidates(text: str, found: Literals) -> Iterator[tuple[str, int, int]]:
    """Values given with no ``=`` or ``:``: after a secret's name and a space (``SetEnv
    DB_PASSWORD X``, ``aws configure set aws_secret_access_key X``), as a secret-named
    call's string (``Auth.api_key("X")``), in a URL's password slot cut short before its
    ``@host`` (``postgresql://user:X``), glued to a tool's ``-p`` (``7z x a.7z -pX``), and
    in the places known tools take them (``mc alias set N URL ACCESS X``, ``htpasswd -b
    FILE USER X``). A value after a space or in a call is taken only when it reads as a key
    (letters and digits mixed, :func:`holds_key`): a word in prose is not one."""
    for m in named_matches(text, secret_words(found, keys=True), _NAME_SPACE_VALUE):
        if holds_key(m.group(1)) and not is_filler(m.group(1), "=", quoted=False):
            yield _kind(m.group()), m.start(1), m.end(1)
    if "(" in text:
        for m in _secret_calls(text):
            if holds_key(m.group(1)) and not is_filler(m.group(1), "=", quoted=True):
                yield _kind(m.group()), m.start(1), m.end(1)
    if "://" in text:
        for m in _from_schemes(text):
            value = m.group(1)
            path_next = text.startswith("/", m.end())  # a path after it: only a key-like value
            if (
                not value.isdigit()
                and not (path_next and not (holds_key(value) or reads_as_password(value)))
                and not is_filler(value, "=", quoted=False)
            ):
                yield "password", m.start(1), m.end(1)  # a port is digits, a password not
    if "-p" in found:
        for m in _at_archivers(text, found):
            if not is_filler(m.group(1), "=", quoted=False):
                yield "password", m.start(1), m.end(1)
    if "mc" in found or "htpasswd" in found:  # matched where each is, not at every character
        for m in at_each(text, sorted(found.at("mc") + found.at("htpasswd")), _TOOL_POSITIONAL):
            group = m.lastindex or 1
            if len(m.group(group)) >= MIN_VALUE and not is_filler(
                m.group(group), "=", quoted=False
            ):
                yield "password", m.start(group), m.end(group)


def _secret_calls(text: str) -> Iterator[re.Match[str]]:
    """:data:`_SECRET_CALL` matched from the name before each ``("`` or ``('`` opening a
    long string (:data:`_CALL_OPEN`)."""
    done = 0
    for call in _CALL_OPEN.finditer(text):
        name_end = call.start()
        while name_end > done and text[name_end - 1] in " \t":
            name_end -= 1
        start = name_end
        while start > done and (text[start - 1].isalnum() or text[start - 1] in "_."):
            start -= 1
        if start < name_end:
            m = _SECRET_CALL.match(text, start)
            if m is not None:
                yield m
                done = m.end()


def _from_schemes(text: str) -> Iterator[re.Match[str]]:
    """:data:`_URL_PASSWORD_CUT` matched from the scheme before each ``://``."""
    at = text.find("://")
    while at != -1:
        start = at
        while start and text[start - 1] in _SCHEME_CHARS:
            start -= 1
        m = _URL_PASSWORD_CUT.match(text, start) if text[start].isalpha() else None
        if m is not None:
            yield m
        at = text.find("://", max(at + 3, m.end() if m is not None else 0))


_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")


def _at_archivers(text: str, found: Literals) -> Iterator[re.Match[str]]:
    """:data:`_ARCHIVE_P` matched where each archiver's name starts (``rar`` in ``library``
    fails at once, on the letter before it), on the lines holding its flag (``-p`` or
    ``-P``) alone: a name on another line never reaches one."""
    for start, end in flag_lines(text, found.at("-p")):
        yield from tool_lines(text, found.folded, _ARCHIVER, _ARCHIVER_HEAD, _ARCHIVE_P, start, end)


def flag_lines(text: str, flags: list[int]) -> Iterator[tuple[int, int]]:
    """The lines (start, end: its ``\\n`` or the text's end) holding each of ``flags``
    (positions in ``text``), in order, each once."""
    end = -1
    for at in flags:
        if at > end:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            end = len(text) if end == -1 else end
            yield start, end


def tool_lines(
    text: str,
    folded: str,
    finder: re.Pattern[str],
    head: re.Pattern[str],
    pattern: re.Pattern[str],
    start: int = 0,
    end: int | None = None,
) -> Iterator[re.Match[str]]:
    """``pattern`` matched where ``finder`` finds a tool's name in ``folded`` (from ``start``
    to ``end``, a line's bounds or the whole text) and ``head`` (the name as a word)
    matches. A tool whose line holds no flag the pattern takes fails at every later tool
    of that line too (each reads the same rest of it), so the line is left then: the text
    is read once however often a name repeats on a line."""
    done = 0
    for name in finder.finditer(folded, start, len(folded) if end is None else end):
        if name.start() < done or head.match(text, name.start()) is None:
            continue
        m = pattern.match(text, name.start())
        if m is not None:
            yield m
            done = m.end()
        else:
            line_end = text.find("\n", name.start())
            done = len(text) if line_end == -1 else line_end


_ARCHIVER = re.compile("7z|un(?:rar|zip)|rar|zip")
_ARCHIVER_HEAD = re.compile(
    r"(?i)(?<![A-Za-z0-9])(?:7z[ar]?|7za|rar|unrar|zip|unzip|zipcloak)(?![\w-])"
)


_CALL_OPEN = re.compile(r"\([ \t]*[\"'][^\"'\s]{12,}")


def _kind(name: str) -> str:
    return "password" if "pass" in name.lower() or "pwd" in name.lower() else "secret"


_SECRET_WORD = r"(?:pass(?:word|wd)?|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key)"
_NAME_SPACE_VALUE = re.compile(
    rf"(?i)(?<![\w.-])[A-Za-z_][\w.-]*?{_SECRET_WORD}(?:[_-][A-Za-z0-9]+)*[ \t]+"
    r"([A-Za-z0-9][A-Za-z0-9+/_.~!*#%^-]{15,}={0,2})(?![^\s<\"'`&])"
)
"""A secret's name (an identifier: ``_`` or a letter first, the secret's word in it) and a
space, then a value of sixteen characters or more, ending at a space, markup or a query's
``&``."""
_SECRET_CALL = re.compile(
    rf"(?i)(?<![\w])[\w.]*{_SECRET_WORD}\w*[ \t]*\([ \t]*[\"']([^\"'\s]{{12,}})"
)
"""A call named for a secret given a string (``Auth.api_key("X")``, ``set_token('X')``)."""
_URL_PASSWORD_CUT = re.compile(
    r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@'\"<>\[\]]+:([^\s/@'\"<>\[\]]{4,})(?![^\s'\"<>&/])"
)
"""``scheme://user:VALUE`` with no ``@host`` after: the slot is cut short at a space, a
quote, markup, a query's ``&`` or a path's ``/`` (then only a key-like value is taken:
``http://HOST:PORT/`` is a template); a value of digits is a port (``https://host:8443``)."""
_ARCHIVE_P = re.compile(
    r"(?i)(?<![A-Za-z0-9])(?:7z[ar]?|7za|rar|unrar|zip|unzip|zipcloak)(?![\w-])[^\n]*?"
    r"(?<!\S)-[pP]([^\s/\\_-][^\s\"'<>`]*)"
)
"""An archiver's password glued to its flag: ``7z x a.7z -pX``, ``unrar x -pX a.rar``."""
_TOOL_POSITIONAL = re.compile(
    r"(?<![\w-])(?:mc[ \t]+(?:alias[ \t]+set|config[ \t]+host[ \t]+add)(?:[ \t]+[^\s<\"'`]+){3}"
    r"[ \t]+([^\s<\"'`]+)|htpasswd[ \t]+(?:-[A-Za-z]+[ \t]+)*?-[A-Za-z]*b[A-Za-z]*"
    r"(?:[ \t]+-[A-Za-z]+)*(?:[ \t]+[^\s<\"'`]+){2}[ \t]+([^\s<\"'`]+))"
)
"""Passwords known tools take by their place: ``mc alias set NAME URL ACCESS SECRET`` and
``htpasswd -b FILE USER PASSWORD`` (``-b``: the password is on the command line)."""

"""The admission gate: secrets are replaced by typed placeholders before text is stored.

Pure: no I/O. Every text that enters a store (a question, an answer, an
ingested document) passes through :func:`admit` first; what comes out holds
``[REDACTED:<kind>]`` wherever a secret was, and a tuple of
:class:`Redaction` records (kind and position in the *original* text), never
the secret itself.

Detected kinds:

* ``openai_key`` / ``anthropic_key``: ``sk-...``, ``sk-proj-...``, ``sk-ant-...``
  with at least 20 characters after ``sk-`` and a digit, also joined to a word by
  ``-`` or ``_`` (``creds-sk-proj-....txt``);
* ``aws_access_key``: ``AKIA``/``ASIA``/``ABIA``/``ACCA``/``A3T.`` and 16 uppercase
  letters or digits, also wrapped over lines (then with a digit);
* ``aws_secret_key``: the 40-character value given to an AWS secret key's name:
  ``aws_secret_access_key = ...`` (any case, ``_``/``-``/space between the words, a
  prefix such as ``MY_`` allowed), the JSON ``"SecretAccessKey": "..."`` and
  ``"AWS_SECRET_ACCESS_KEY": "..."``, the XML ``<SecretAccessKey>...``, and prose
  such as ``aws secret key: ...`` or ``AWS secret access key = ...``;
* ``github_token``: ``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_`` + 36 characters,
  ``github_pat_...``;
* ``slack_token``: ``xoxa-``/``xoxb-``/``xoxp-``/``xoxe-``/... and ``xapp-`` tokens;
* ``stripe_key``: ``sk_live_``/``sk_test_``/``rk_live_``..., ``whsec_``;
* ``google_api_key``: ``AIza`` and 35 characters;
* ``api_token``: tokens whose prefix names their vendor (Hugging Face ``hf_``,
  GitLab ``glpat-``..., npm ``npm_``, PyPI ``pypi-AgE``, SendGrid ``SG.``, Shopify,
  DigitalOcean, Databricks, Docker, Atlassian, Groq, Replicate, xAI, Sentry, Vault,
  age, Square, Mailgun, Twilio, Mailchimp, Postman, Notion, LangSmith, Telegram and
  Discord bot tokens, Google OAuth ``ya29.``/``GOCSPX-``...), and a Twilio auth token
  given beside its account SID;
* ``jwt``: base64url segments, the header starting ``eyJ``: signed, unsigned
  (``alg: none``, an empty signature after the payload's ``eyJ``) or wrapped over
  lines onto lines that are all token;
* ``private_key``: a PEM or PGP ``-----BEGIN ... PRIVATE KEY[ BLOCK]-----`` block
  through its END line (through the end of the base64 body, armor headers first,
  when END is missing); a PEM private key base64-encoded again (kubeconfig's
  ``client-key-data: LS0tLS1CRUdJTi...``, decoded to tell it from a certificate);
  a PuTTY key file's private lines;
* ``bearer_token``: the token after ``Bearer`` (16 characters or more, with a digit);
  the word Bearer stays; ``basic_auth``: the value after ``Basic`` when it decodes to
  ``user:password``; the value of any ``Authorization:`` header;
* ``webhook_url``: the path of a Slack, Discord or Teams webhook URL;
* ``url_credentials``: the password of a URL's userinfo (``https://user:PASSWORD@host``,
  ``postgres://u:PASSWORD@db/x``; the user name stays; up to the last ``@`` of the
  authority, so a password holding an unescaped ``@`` goes whole), and the value of a
  signature or key query parameter (``?sig=``, ``&signature=``, ``X-Amz-Signature=``,
  ``?key=``, ``api-key=``...) of 16 characters or more with a digit. Obvious
  placeholders (``user:password@``, ``user:<pass>@``, ``${PASS}``) are left alone.
  Secret-named parameters that read as assignments (``?api_key=``, ``&token=``,
  ``?auth=``, ``&pass=``) are the ``secret``/``password`` kinds below;
* ``password`` / ``secret``: the value given to a name that ends in a secret's word
  (``password``, ``passwd``, ``pwd``, ``passphrase``, ``secret``, ``token``,
  ``credentials``, ``api_key``, ``access_key``, ``account_key``, ``private_key``,
  ``client_key``...; ``DB_PASSWORD``, ``SECRET_KEY``, ``authToken``, ``X-Api-Key``,
  ``AccountKey``, ``_authToken``, Rails' ``secret_key_base``; ``pass``, ``auth`` and
  ``pw`` only as a whole name given with ``=`` or quotes: ``DB_PASS=``, Docker's
  ``"auth": "..."``) by ``=``, ``:``, ``:=``, ``=>``, ``==`` (quoted), a no-break
  space, an XML element or a .NET ``<add key=... value=...>``; a bare value runs over
  ``&``, ``;`` and ``,`` unless a ``name=`` or a space follows. Also ``--password
  VALUE``-style flags, ``mysql -pVALUE``, ``sshpass -p VALUE``, ``curl -u
  user:VALUE`` and ``.netrc``'s ``password VALUE``. The name stays; empty values,
  numbers given to a non-password name, code (``os.environ[...]``, ``args.password``,
  ``password=password``) and placeholders (``***``, ``<...>``, ``${VAR}``, ``{{
  ... }}``, ``xxx``, ``YOUR_API_KEY_HERE``, ``ghp_XXXX...``, ``sk-...``) are left
  alone.

Secrets are looked for past invisible characters (a soft hyphen or zero-width
space pasted inside a key); a redaction covers them in the original text.
:func:`admit_profile` admits every string of a model's or an embedder's profile.

Overlapping matches merge into one redaction; the result is deterministic;
placeholders are never matched again, so admitting twice changes nothing.
Every pattern is linear in the length of the text (no nested quantifiers that
can backtrack catastrophically; a repetition that crosses a line break consumes
the break and what follows it in one step).
"""

from __future__ import annotations

import base64
import binascii
import bisect
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from arborist.errors import BadInput

__all__ = [
    "Admitted",
    "KINDS",
    "PLACEHOLDER",
    "Redaction",
    "admit",
    "admit_document",
    "admit_profile",
]

PLACEHOLDER = "[REDACTED:{kind}]"
"""What replaces a secret; ``kind`` is one of :data:`KINDS`."""

_PLACEHOLDER_MARK = "[REDACTED:"

KINDS = (
    "private_key",
    "jwt",
    "anthropic_key",
    "openai_key",
    "aws_access_key",
    "aws_secret_key",
    "github_token",
    "slack_token",
    "stripe_key",
    "google_api_key",
    "api_token",
    "webhook_url",
    "bearer_token",
    "basic_auth",
    "url_credentials",
    "password",
    "secret",
)
"""Every kind the gate reports, in priority order (earlier wins a tie on overlap)."""

_PRIORITY = {kind: rank for rank, kind in enumerate(KINDS)}


@dataclass(frozen=True)
class Redaction:
    """One replaced secret: its kind and ``[start, end)`` in the original text."""

    kind: str
    start: int
    end: int


@dataclass(frozen=True)
class Admitted:
    """Text fit to store: secrets replaced by placeholders, with the record of each."""

    text: str
    redactions: tuple[Redaction, ...]

    @property
    def summary(self) -> dict[str, int]:
        """How many redactions of each kind, keys sorted."""
        counts = Counter(r.kind for r in self.redactions)
        return {kind: counts[kind] for kind in sorted(counts)}

    @property
    def clean(self) -> bool:
        """True when nothing was redacted."""
        return not self.redactions


# --- patterns -----------------------------------------------------------------
# Each left boundary excludes every character the body may contain, so a run of
# repeated prefixes ("sk-sk-sk-...") is scanned once, not once per prefix. A
# repetition that may cross a line break consumes the break in the same step as
# the characters after it, so no text can be read two ways.

_WRAP = r"(?:[ \t]*\\?\r?\n[ \t]*(?:>[ \t]*)*)"
"""A line break inside a token: a terminal, an editor or a mail client wrapped it."""

_INVISIBLE = re.compile("[\u00ad\u034f\u180e\u200b-\u200f\u2060-\u2064\ufeff]")
"""Characters that show as nothing (soft hyphen, zero-width space and joiners, word
joiner, BOM): a key pasted from a PDF or a chat may carry one. Secrets are looked
for in the text without them, and each redaction covers them in the original."""

_SK_KEY = re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{20,}")
_AWS_ACCESS = re.compile(
    rf"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])(?:{_WRAP}?[A-Z0-9]){{16}}(?![A-Za-z0-9])"
)
# ASCII-only case folding ((?a)): the names are ASCII, and the literal prefilter
# (``"secret" in folded``) then finds every text the pattern can match.
_AWS_SECRET = re.compile(
    r"(?ai)(?<![a-z0-9])"
    r"(?:aws[ _-]?secret(?:[ _-]?access)?[ _-]?key|secret[ _-]?(?:access[ _-]?)?key)"
    r"(?:[ \t]*\[[^\]\n]{0,20}\])?"  # the `aws configure` prompt: "... Key [None]: "
    r"[\"']?[ \t]*(?:[=:>]|\n|is\b)\s*[\"']?"  # = : > (XML), "is", or the value on the next line
    r"(?-i:([A-Za-z0-9/+=]{40}))(?![A-Za-z0-9/+=])"
)
_AWS_PREFIX = re.compile("A(?:KIA|SIA|BIA|CCA|3T)")  # one scan for "A", not five for words
_AWS_SECRET_AT = re.compile(_AWS_SECRET.pattern.replace("(?<![a-z0-9])", "", 1))
""":data:`_AWS_SECRET` without its lookbehind, matched where each ``secret`` is found."""
# scheme://user:PASSWORD@host: the user part holds no ":", "@" or brackets (so it never
# starts inside a placeholder); the password runs to the authority's last "@".
_URL_USERINFO = re.compile(
    r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@\[\]]*:([^\s/?#]+)@"
)
_QUERY_SECRET = re.compile(
    r"(?ai)[?&;](?:sig|signature|x-amz-signature|x-goog-signature|key|api-key|x-api-key"
    r"|access-key|subscription-key)=([^\s?&#;'\"<>`]+)"
)
_URL_FILLER = re.compile(
    r"(?i)(?:your|my|the|some)?[_-]?(?:password|passwd|pass|pwd|pw|secret|token)|foo|bar|baz"
)
_QUERY_SECRET_MIN = 16
"""A key or signature query value shorter than this is a name or an example, not a secret."""
_WEBHOOK = re.compile(
    r"(?i)(?:hooks\.slack\.com/(?:services|workflows|triggers)/"
    r"|discord(?:app)?\.com/api/webhooks/|\.webhook\.office\.com/webhookb2/)"
    r"([A-Za-z0-9/@_-]{8,})"
)
_GITHUB = re.compile(
    r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"
)
_SLACK = re.compile(r"(?<![A-Za-z0-9-])(?:xox[abporsce]|xapp)-[A-Za-z0-9-]{10,}")
# Tokens whose prefix names the vendor: (the literals one of which every match holds,
# its kind, its pattern). Each runs only when one of its literals is in the text.
_VENDOR_PATTERNS = (
    (("_live_", "_test_"), "stripe_key", r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}"),
    (("whsec_",), "stripe_key", r"whsec_[A-Za-z0-9]{24,}"),
    (("AIza",), "google_api_key", r"AIza[0-9A-Za-z_-]{35}"),
    (("GOCSPX-", "ya29."), "api_token", r"GOCSPX-[A-Za-z0-9_-]{20,}|ya29\.[0-9A-Za-z_-]{30,}"),
    (("hf_",), "api_token", r"hf_[A-Za-z]{30,}"),  # Hugging Face
    (("gl",), "api_token", r"gl(?:pat|ptt|dt|rt|cbt|oas|ft|imt|soat|agent)-[A-Za-z0-9_-]{20,}"),
    (("npm_",), "api_token", r"npm_[A-Za-z0-9]{36}"),
    (("pypi-AgE",), "api_token", r"pypi-AgE[A-Za-z0-9_-]{50,}"),
    (("rubygems_",), "api_token", r"rubygems_[a-f0-9]{48}"),
    (("SG.",), "api_token", r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),  # SendGrid
    (("shp",), "api_token", r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"),  # Shopify
    (("_v1_",), "api_token", r"do[opr]_v1_[a-f0-9]{64}"),  # DigitalOcean
    (("dapi",), "api_token", r"dapi[a-f0-9]{32}"),  # Databricks
    (("dckr_pat_",), "api_token", r"dckr_pat_[A-Za-z0-9_-]{20,}"),
    (("ATATT3",), "api_token", r"ATATT3[A-Za-z0-9_=-]{50,}"),  # Atlassian
    (("lin_api_", "figd_"), "api_token", r"lin_api_[A-Za-z0-9]{30,}|figd_[A-Za-z0-9_-]{30,}"),
    (("gsk_", "r8_"), "api_token", r"gsk_[A-Za-z0-9]{40,}|r8_[A-Za-z0-9]{30,}"),
    (("pplx-", "xai-"), "api_token", r"pplx-[A-Za-z0-9]{40,}|xai-[A-Za-z0-9]{40,}"),
    (("nvapi-", "tvly-"), "api_token", r"nvapi-[A-Za-z0-9_-]{40,}|tvly-[A-Za-z0-9_-]{20,}"),
    (("sntry",), "api_token", r"sntry[su]_[A-Za-z0-9+/=_-]{40,}"),  # Sentry
    (("hvs.",), "api_token", r"hvs\.[A-Za-z0-9_-]{24,}"),  # Vault
    (("AGE-SECRET-KEY-1",), "api_token", r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    (("sq0",), "api_token", r"sq0(?:atp|csp)-[0-9A-Za-z_-]{22,}"),  # Square
    (("key-",), "api_token", r"key-[0-9a-f]{32}"),  # Mailgun
    (("SK",), "api_token", r"SK[0-9a-f]{32}"),  # Twilio API key
    (("-us",), "api_token", r"[0-9a-f]{32}-us[0-9]{1,2}"),  # Mailchimp
    (("PMAK-",), "api_token", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),  # Postman
    (("sbp_", "ntn_"), "api_token", r"sbp_[a-f0-9]{40}|ntn_[A-Za-z0-9]{40,}"),
    (("pscale_",), "api_token", r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{30,}"),
    (("secret_",), "api_token", r"secret_[A-Za-z0-9]{43}"),  # Notion
    (("lsv2_",), "api_token", r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"),  # LangSmith
    (("glc_", "glsa_"), "api_token", r"gl(?:c|sa)_[A-Za-z0-9_+/=-]{32,}"),  # Grafana
    (("NRAK-", "NRII-"), "api_token", r"NR(?:AK|II)-[A-Za-z0-9]{27,32}"),  # New Relic
    (("xkeysib-",), "api_token", r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}"),  # Brevo
    (("dt0c01.",), "api_token", r"dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}"),  # Dynatrace
    (("FLWSECK",), "api_token", r"FLWSECK(?:_TEST)?-[a-h0-9]{32}-X"),  # Flutterwave
    (("AKCp",), "api_token", r"AKCp[A-Za-z0-9]{60,}"),  # Artifactory
    (("AAAA",), "api_token", r"AAAA[A-Za-z0-9_-]{7}:[A-Za-z0-9_-]{100,}"),  # Firebase FCM
    (("sl.",), "api_token", r"sl\.[A-Za-z0-9_-]{130,}"),  # Dropbox
    (("oy2",), "api_token", r"oy2[a-z0-9]{43}"),  # NuGet
    (("EZAK", "EZTK"), "api_token", r"EZ[AT]K[A-Za-z0-9]{54}"),  # EasyPost
    (("dp.",), "api_token", r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}"),  # Doppler
    (
        ("fo1_", "pnu_", "pul-", "rdme_", "tfp_", "HRKU-"),
        "api_token",
        r"fo1_[A-Za-z0-9_-]{40,}|pnu_[A-Za-z0-9]{36}|pul-[a-f0-9]{40}|rdme_[a-z0-9]{60,}"
        r"|tfp_[A-Za-z0-9_.=-]{40,}|HRKU-[A-Za-z0-9_-]{30,}",
    ),
    (("sk_",), "api_token", r"sk_[a-f0-9]{48}"),  # ElevenLabs
    (("_",), "api_token", r"[0-9]{8,10}:AA[A-Za-z0-9_-]{30,}"),  # Telegram (checked below)
)
_VENDOR = tuple(
    (literals, kind, re.compile(f"(?<![A-Za-z0-9_.-])(?:{p})(?![A-Za-z0-9_-])"))
    for literals, kind, p in _VENDOR_PATTERNS[:-1]
)
_VENDOR_LITERALS = sorted({lit for literals, _, _ in _VENDOR for lit in literals})
_VENDOR_LITERAL = re.compile("|".join(map(re.escape, _VENDOR_LITERALS)))
_SHORT_LONGS = 4096


def _holds_vendor_literal(longs: str) -> bool:
    """Whether one of :data:`_VENDOR`'s literals is among the long words: the vendors are
    tried one by one only then. A few long words (most prose) are searched once for all
    the literals (sre skips a branch whose first character differs: half the cost of an
    ``in`` per literal); many (pydoc's) with an ``in`` per literal, which runs at memory
    speed where the search tries the branches at most characters."""
    if len(longs) < _SHORT_LONGS:
        return bool(longs) and _VENDOR_LITERAL.search(longs) is not None
    return any(literal in longs for literal in _VENDOR_LITERALS)


# A Discord bot token: base64 of a user id, a dot, 6 characters, a dot, 27 or more.
_DISCORD = re.compile(
    r"[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])"
)
_TELEGRAM = re.compile(r"(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{30,}(?![A-Za-z0-9_-])")
_TWILIO = re.compile(r"AC[a-f0-9]{32}[\"']?[ \t]*,[ \t]*[\"']?([a-f0-9]{32})(?![A-Za-z0-9])")
_B64U = r"[A-Za-z0-9_-]"
# A JWT continues over a line break only onto a line that is all token characters: a
# wrapped token, not the next line's words.
_JWT_WRAP = rf"(?:{_WRAP}(?=[A-Za-z0-9_.-]+(?![^\r\n])))"
_SEGMENT = rf"{_B64U}+(?:{_JWT_WRAP}{_B64U}+)*"
_JWT = re.compile(
    rf"(?<![A-Za-z0-9_-])eyJ{_SEGMENT}{_JWT_WRAP}?\.{_JWT_WRAP}?{_SEGMENT}{_JWT_WRAP}?\."
    rf"(?:{_JWT_WRAP}?{_SEGMENT})?"
)
_PEM_BEGIN = re.compile(r"-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----")
_PEM_BODY = re.compile(
    r"(?:\r?\n[A-Za-z][A-Za-z-]*: [^\r\n]*)*"  # PGP armor headers ("Version: ...")
    r"(?:[ \t]*\r?\n(?=[ \t]*\r?\n))?"  # the blank line after them
    r"(?:(?:[ \t]*\r?\n[ \t]*|\\n)[A-Za-z0-9+/=]+[ \t]*(?![^\r\n\\\"']))*"
)
# A PEM block base64-encoded once more (kubeconfig's client-key-data: LS0tLS1CRUdJTi...)
_PEM_B64 = re.compile(r"LS0tLS1CRUdJTi[A-Za-z0-9+/=]*(?:\r?\n[ \t]*[A-Za-z0-9+/=]+(?![^\r\n]))*")
_BEARER = re.compile(r"(?i)(?<![A-Za-z0-9_])bearer[ \t]+([A-Za-z0-9._~+/=-]{16,})")
_BASIC = re.compile(r"(?i)basic[ \t]+([A-Za-z0-9+/]{6,}={0,2})(?![A-Za-z0-9+/=])")
_AUTH_HEADER = re.compile(
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
_KEY_NAME_FOLDED = re.compile(f"(?i){_KEY_WORDS}")  # text whose case-folding moves positions


def _key_words() -> list[str]:
    """Every word a secret's name may end with, the longer first."""
    words = ["password", "passwd", "passphrase", "pwd", "secret", "token", "credential"]
    words += ["credentials", "auth", "pass", "pw"]
    seps = ("", "_", "-")
    for head in ("api", "access", "account", "private", "master", "signing", "encryption"):
        words += [f"{head}{sep}key" for sep in seps]
    for head in ("auth", "app", "client", "session", "license", "subscription", "secret"):
        words += [f"{head}{sep}key" for sep in seps]
    words += [f"shared{a}access{b}key" for a in seps for b in seps]
    return sorted(words, key=lambda w: (-len(w), w))


_NAME_SUFFIXES = ("_base", "_value", "_string", "_str", "_base64", "_b64", "_hex", "_raw")
"""What may follow the word at a name's end (Rails' ``secret_key_base``)."""
# A name's end read backwards: the reversed window is matched from its start, which
# is one anchored match, where a search for a word before the end would try each place.
_KEY_END_REVERSED = re.compile(
    "(?i)(?P<suffix>"
    + "|".join(re.escape(x[::-1]) for x in _NAME_SUFFIXES)
    + ")?(?P<word>"
    + "|".join(re.escape(w[::-1]) for w in _key_words())
    + ")"
)
_WEAK_KEYS = frozenset({"auth", "pass", "pw"})
"""Names that are words too (``pass``, ``auth``): only a whole name, given with ``=`` or quotes."""
_MIN_VALUE = 4
"""A shorter value given to a secret's name is an example (``"y"``), not a secret."""
_NAME_TAIL = re.compile(r"[A-Za-z0-9_.-]*")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_NAME_LITERALS = ("pass", "pw", "secret", "token", "credential", "key", "auth")
"""One of these is in every name :data:`_KEY_END` matches, case-folded."""
_NAME_WINDOW = 64
"""How far back from a name's end its word is looked for."""
_BARE = r"<[^<>\r\n]*>|\$\{\{[^{}\r\n]*\}\}|\{\{[^{}\r\n]*\}\}|\$\{[^{}\r\n]*\}|(?:[^\s\"'`,;&]|[,;&](?![^\S\r\n]*[A-Za-z_][A-Za-z0-9_.-]*[^\S\r\n]*=|\s|\Z))+"
_VALUE = re.compile(
    r"([\"']?\]?)[^\S\r\n]*(=>|:=|==|=|:|[\u00a0\u2000-\u200a\u202f\u205f\u3000])[^\S\r\n]*"
    rf"(?:\"([^\"\r\n]*)\"|'([^'\r\n]*)'|`([^`\r\n]*)`|({_BARE}))"
)
_SEPARATOR = re.compile("[=:\u00a0\u2000-\u200a\u202f\u205f\u3000]")
"""A character every value given to a name needs after it (:data:`_VALUE`'s separators):
text holding none has no assignment, and is not searched for the names."""
_CODE_REFERENCE = re.compile(
    r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+|[A-Za-z_][A-Za-z0-9_.]*[\[(].*"
)
_NETRC = re.compile(r"(?i)(?<!\S)password[ \t]+(\S+)")
_NETRC_CONTEXT = re.compile(r"(?i)(?<![A-Za-z0-9])(?:machine|login)[ \t]")
_MYSQL = re.compile(
    r"(?i)(?<![A-Za-z0-9_-])(?:mysql[a-z]*|mariadb[a-z-]*|sshpass|mongo(?:sh|dump|restore)?"
    r"|(?:docker|podman|buildah|skopeo|nerdctl|oras|helm[ \t]+registry)[ \t]+login|redis-cli)"
    r"(?![A-Za-z0-9_])"
)
_DASH_P = re.compile(r"(?<!\S)-p([^\s-]\S*)")
_REDIS_A = re.compile(r"(?<!\S)-a[ \t]+(?:'([^'\r\n]*)'|\"([^\"\r\n]*)\"|([^\s'\"-]\S*))")
_SSHPASS_P = re.compile(r"(?<!\S)-p[ \t]*(?:'([^'\r\n]*)'|\"([^\"\r\n]*)\"|([^\s'\"]+))")
# ``--password VALUE``, ``--token VALUE``: a flag named for a secret, its value after a space.
_FLAG = re.compile(
    r"--(?:[a-z]+-)*(?:password|passwd|passphrase|token|secret|api-key|apikey|auth-token"
    r"|access-token|access-key|secret-key|client-secret)[ \t]+"
    r"(?:'([^'\r\n]*)'|\"([^\"\r\n]*)\"|([^\s'\"-][^\s'\"]*))"
)
# <password>VALUE</password> (XML, a .NET config's <add key="DbPassword" value="VALUE"/>).
_XML_ELEMENT = re.compile(r"<([A-Za-z_][\w:.-]{0,63})>([^<\r\n]{4,})</\1>")
_XML_ADD = re.compile(
    r"(?i)key[ \t]*=[ \t]*\"([^\"\r\n]{1,64})\"[ \t]+value[ \t]*=[ \t]*\"([^\"\r\n]*)\""
)
# A PuTTY private key file's body.
_PUTTY = re.compile(r"Private-Lines: [0-9]+((?:\r?\n[A-Za-z0-9+/=]+(?![^\r\n]))+)")
_VALUE_ATTRIBUTE = re.compile(r'value[ \t]*=[ \t]*"')  # on the case-folded text
_CURL_USER = re.compile(r"-(?:u|-user)(?:[ \t]+|=)[\"']?([^\s:\"'@]+):([^\s\"']+)")

_PASSWORD_KEYS = ("passw", "pwd", "passphrase", "pass", "pw")
_TYPE_NAMES = frozenset(
    {"str", "string", "int", "bool", "bytes", "none", "null", "true", "false", "optional", "any"}
)
_TYPE_HEAD = re.compile(r"[\[|]")
_NULLS = frozenset({"none", "null", "nil", "undefined", "true", "false"})
"""Bare values that say "no password" (``pwd=None`` in a signature), never a secret."""
_FILLER = re.compile(
    r"(?i)\*+|x+|\.\.\.|…|<[^<>]*>|\$\{[^{}]*\}|\$?\{\{.*\}\}|\{[^{}]*\}|%\([^()]*\)s"
    r"|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%"
    r"|(?:your|my|enter|insert|put)[_ -].*|.*[_-]here|replace[_-]?me|placeholder|redacted"
    r"|.{0,16}(?:\.\.\.|…)|\[REDACTED:.*|(?:.*[_-])?your[_-].*"
    r"|example|sample|dummy|changeme|hidden|masked|removed|required|secret|password|value"
)


_VENDOR_PREFIX = re.compile(r"^[A-Za-z0-9]{1,8}[_-]")
_ALNUM = re.compile(r"[^\W_]")


def _has_digit(value: str) -> bool:
    return any(c.isdigit() for c in value)


def _is_filler(value: str, separator: str, quoted: bool) -> bool:
    """Values that are not secrets: empty, masked, templated, type names, calls."""
    if not value.strip() or _PLACEHOLDER_MARK in value:
        return True
    if _FILLER.fullmatch(value.strip()) or _ALNUM.search(value) is None:
        return True
    if len(set(value)) <= 12:  # few characters: perhaps one over and over
        rest = _VENDOR_PREFIX.sub("", value, count=1)
        if len(rest) >= 6 and len(set(rest.lower())) <= 2:  # ghp_XXXX..., sk-00000000...
            return True
    if not quoted:
        if "(" in value or value.lower() in _NULLS:
            return True
        head = _TYPE_HEAD.split(value, maxsplit=1)[0].lower()
        if separator == ":" and head in _TYPE_NAMES:
            return True
    return False


def _at_each(
    text: str, folded: str, literal: str, pattern: re.Pattern[str]
) -> Iterator[re.Match[str]]:
    """``pattern`` matched where each occurrence of ``literal`` (in ``folded``) starts,
    not after a letter, digit or ``_``: one ``find`` and one anchored match each, where a
    search of a pattern opening with a lookbehind would try every character. Text whose
    case-folding moved positions is searched the slow way."""
    if len(folded) != len(text):
        for m in pattern.finditer(text):
            if not m.start() or not _word_char(text[m.start() - 1]):
                yield m
        return
    at = folded.find(literal)
    while at != -1:
        after = at + 1
        if not at or not _word_char(text[at - 1]):
            found = pattern.match(text, at)
            if found is not None:
                yield found
                after = max(after, found.end())
        at = folded.find(literal, after)


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _random_looking(token: str) -> bool:
    """A digit, or both cases, and not one character over and over (``ghp_XXXX...``)."""
    mixed = _has_digit(token) or (not token.islower() and not token.isupper())
    return mixed and len(set(token)) >= 8


def _random_part(value: str) -> bool:
    """Whether a dotted value holds a part no name looks like (digits among eight or more
    distinct characters): ``token=n4m3t0k3n5ecr3t77.txt`` is a secret with a suffix, where
    ``password=args.password`` names one."""
    return any(_has_digit(part) and len(set(part)) >= 8 for part in value.split("."))


def _has(text: str, *needles: str) -> bool:
    return any(needle in text for needle in needles)


def _b64_text(value: str) -> bytes | None:
    """``value`` decoded as base64 (padding added), or None when it is not base64."""
    try:
        return base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (ValueError, binascii.Error):
        return None


def _printable(data: bytes) -> bool:
    return data.isascii() and data.decode("ascii").isprintable()


def _candidates(text: str) -> Iterator[tuple[str, int, int]]:
    """Every raw match as ``(kind, start, end)``; overlaps are resolved by the caller.

    Each pattern runs only when the literal every match of it contains is in the
    text (case-folded for the case-insensitive ones, whose literals hold no ``i``
    or ``s``/``k`` that Unicode folds differently, or whose pattern folds ASCII
    only (``(?ai)``: the AWS secret's names, the query parameters); the
    assignment names are looked for with a regex that folds as (?i) does): a
    pattern that opens with a lookbehind cannot use the regex engine's own
    literal scan, and most text holds no secret at all. A literal is looked for
    only after a single character every match needs (``-``, ``_``, ``@``, ``=``,
    ``:``, ``J``, ``K``, ``S``): one of those is a ``memchr``, about 40 times cheaper
    than a search for a word.
    """
    folded = text.casefold()
    longs = _long_words(text)
    yield from _key_candidates(text, folded, longs)
    yield from _url_candidates(text, folded, longs)
    yield from _token_candidates(text, folded, longs)
    yield from _header_candidates(text, folded)
    yield from _assignment_candidates(text, folded)
    yield from _command_candidates(text, folded)


_LONG_WORD = 20
"""No vendor token, webhook or AWS secret is shorter: the words this long, joined, are
where their literals are looked for (a few percent of most text), not the whole text,
and a text with none of them is not searched for those secrets at all."""
_AWS_SECRET_SIZE = 40
"""An AWS secret access key's length: a word at least this long holds it."""
_SPACE = re.compile(r"\s")
_PIECE = 1 << 20
_MARKS = bytes(32 if c < 128 and chr(c).isspace() else 120 for c in range(256))
"""A byte table: what ``str.split`` takes for whitespace (ASCII's, with ``\\x1c``-``\\x1f``) to a
space, every other byte (a UTF-8 sequence's included) to ``x``."""
_LONG_RUN = b"x" * _LONG_WORD


def _long_words(text: str) -> str:
    """The words of :data:`_LONG_WORD` characters or more that could hold a token, joined
    by spaces: in ASCII, those with a digit or letters of both cases (every token, key
    or signed value the callers look for is random-looking so; pydoc's rules of dashes
    and ``__getattribute__(self,`` are not), in other text every long word.

    The text is read a piece of about 1 MiB at a time, each piece ending at a space so
    no word is cut (a whole big document's copies at once took many times its size in
    memory). An ASCII piece (most of them) is read through a copy in which every
    whitespace byte is a space and every other byte an ``x``: each long word is found
    there with a ``find`` of :data:`_LONG_RUN`, the fast substring search, where
    splitting into words and measuring each cost five times as much. Another piece is
    split into words only when its UTF-8 copy holds such a run (a word of 20 characters
    is at least 20 bytes, none of them a space).
    """
    found: list[str] = []
    start, size = 0, len(text)
    while start < size:
        end = start + _PIECE
        if end < size:
            space = _SPACE.search(text, end)
            end = space.start() if space else size
        piece = text[start:end] if start or end < size else text
        start = end
        if not piece.isascii():
            if _LONG_RUN in piece.encode("utf-8", "surrogatepass").translate(_MARKS):
                found += [word for word in piece.split() if len(word) >= _LONG_WORD]
            continue
        marks = piece.encode("ascii").translate(_MARKS)
        at = marks.find(_LONG_RUN)
        while at != -1:
            first = marks.rfind(b" ", 0, at) + 1
            last = marks.find(b" ", at)
            last = len(marks) if last == -1 else last
            word = piece[first:last]
            if _ASCII_DIGIT.search(word) is not None or word.lower() != word != word.upper():
                found.append(word)
            at = marks.find(_LONG_RUN, last)
    return " ".join(found)


_ASCII_DIGIT = re.compile("[0-9]")


def _has_long(longs: str, size: int) -> bool:
    """Whether one of :func:`_long_words`'s words is ``size`` characters or more."""
    return len(longs) >= size and any(len(word) >= size for word in longs.split(" "))


def _key_candidates(text: str, folded: str, longs: str) -> Iterator[tuple[str, int, int]]:
    """Provider API keys: OpenAI and Anthropic ``sk-``, AWS keys, vendor-prefixed tokens."""
    if "-" in text and "sk-" in text:
        for m in _SK_KEY.finditer(text):
            body = m.group()[3:]
            if _has_digit(body):
                kind = "anthropic_key" if body.startswith("ant-") else "openai_key"
                yield kind, m.start(), m.end()
    if _AWS_PREFIX.search(text) is not None:
        for m in _AWS_ACCESS.finditer(text):
            key = m.group()
            if "\n" not in key or _has_digit(key[4:]):  # a wrapped one: not a word in capitals
                yield "aws_access_key", m.start(), m.end()
    if _has_long(longs, _AWS_SECRET_SIZE) and "secret" in folded:
        for m in _aws_secrets(text, folded):
            if _random_looking(m.group(1)):
                yield "aws_secret_key", m.start(1), m.end(1)
    for literals, kind, pattern in _VENDOR if _holds_vendor_literal(longs) else ():
        if literals[0] in longs or (len(literals) > 1 and _has(longs, *literals[1:])):
            for m in pattern.finditer(text):
                if _random_looking(m.group()):
                    yield kind, m.start(), m.end()
    if "." in longs and _DISCORD.search(longs):
        for m in _DISCORD.finditer(text):
            if (not m.start() or text[m.start() - 1] not in _NAME_CHARS) and _random_looking(
                m.group()
            ):
                yield "api_token", m.start(), m.end()
    if ":" in text and ":AA" in text:
        for m in _TELEGRAM.finditer(text):
            yield "api_token", m.start(), m.end()
    if "AC" in longs and "," in text:
        for m in _TWILIO.finditer(text):
            yield "api_token", m.start(1), m.end(1)


def _userinfos(text: str) -> Iterator[re.Match[str]]:
    """:data:`_URL_USERINFO` matched from each ``://``'s scheme: a ``find`` per URL, where
    a search of a pattern opening with a lookbehind tries every character."""
    at = text.find("://")
    while at != -1:
        start = at
        while start and text[start - 1] in _SCHEME_CHARS:
            start -= 1
        m = _URL_USERINFO.match(text, start) if text[start].isalpha() else None
        if m is not None:
            yield m
        at = text.find("://", max(at + 3, m.end() if m is not None else 0))


_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")


def _aws_secrets(text: str, folded: str) -> Iterator[re.Match[str]]:
    """:data:`_AWS_SECRET`'s matches, tried where each ``secret`` (``aws_``, ``aws`` or
    nothing before it) is found, not at every character."""
    if len(folded) != len(text):
        yield from _AWS_SECRET.finditer(text)
        return
    done = 0
    at = folded.find("secret")
    while at != -1:
        for start in (at - 4, at - 3, at):
            if start < done or start < 0:
                continue
            before = text[start - 1] if start else ""
            if before.isascii() and before.isalnum():  # the lookbehind: (?a) [a-z0-9]
                continue
            m = _AWS_SECRET_AT.match(text, start)
            if m is not None:
                yield m
                done = m.end()
                break
        at = folded.find("secret", max(at + 1, done))


def _url_candidates(text: str, folded: str, longs: str) -> Iterator[tuple[str, int, int]]:
    """Credentials in URLs: ``user:password@``, signing or key query parameters, webhooks."""
    if "@" in text and "://" in text:
        for m in _userinfos(text):
            value = m.group(1)
            if not (_is_filler(value, ":", quoted=True) or _URL_FILLER.fullmatch(value)):
                yield "url_credentials", m.start(1), m.end(1)
    if (  # "?sig=" and 16 characters with a digit: one word, among the long ones
        "=" in longs
        and ("?" in longs or "&" in longs or ";" in longs)
        and _has(longs.casefold(), "sig", "key")
    ):
        for m in _QUERY_SECRET.finditer(text):
            value = m.group(1).rstrip(".)]}")
            if (
                len(value) >= _QUERY_SECRET_MIN
                and _has_digit(value)
                and not _is_filler(value, "=", quoted=True)
            ):
                yield "url_credentials", m.start(1), m.start(1) + len(value)
    if "/" in longs and "hook" in longs.casefold():
        for m in _WEBHOOK.finditer(text):
            if _has_digit(m.group(1)):
                yield "webhook_url", m.start(1), m.end(1)


def _token_candidates(text: str, folded: str, longs: str) -> Iterator[tuple[str, int, int]]:
    """Bearer-style tokens: GitHub, Slack, JWTs, private keys."""
    if "_" in text and (
        ("gh" in text and _has(text, "ghp_", "gho_", "ghu_", "ghs_", "ghr_"))
        or "github_pat_" in text
    ):
        for m in _GITHUB.finditer(text):
            if _random_looking(m.group()[4:]):
                yield "github_token", m.start(), m.end()
    dash = "-" in text
    if dash and ("xox" in text or "xapp" in text):
        for m in _SLACK.finditer(text):
            if _has_digit(m.group()[5:]):
                yield "slack_token", m.start(), m.end()
    if "J" in text and "eyJ" in text:
        yield from _jwts(text)
    if dash:
        yield from _private_keys(text)
    if "LS0tLS1CRUdJTi" in text:
        for m in _PEM_B64.finditer(text):
            head = _b64_text("".join(m.group()[:80].split())[:76])
            if head is not None and b"PRIVATE KEY" in head.split(b"\n", 1)[0]:
                yield "private_key", m.start(), m.end()


def _jwts(text: str) -> Iterator[tuple[str, int, int]]:
    """JSON Web Tokens, signed or not (``alg: none``), whole or wrapped over lines."""
    for m in _JWT.finditer(text):
        token = m.group()
        wrapped = "\n" in token
        parts = re.sub(r"[\s\\]", "", token).split(".")
        header, payload, signature = parts[0], parts[1], parts[2]
        if len(header) < 8 or len(payload) < 5:
            continue
        claims = payload.startswith("eyJ")
        if (len(signature) >= 10 and (claims or not wrapped)) or (claims and not signature):
            yield "jwt", m.start(), m.end()


def _header_candidates(text: str, folded: str) -> Iterator[tuple[str, int, int]]:
    """HTTP credentials: ``Bearer`` and ``Basic`` values, any ``Authorization`` header's."""
    if "bearer" in folded:
        for m in _BEARER.finditer(text):
            if _has_digit(m.group(1)):
                yield "bearer_token", m.start(1), m.end(1)
    if "basic" in folded:
        for m in _at_each(text, folded, "basic", _BASIC):
            decoded = _b64_text(m.group(1))
            if decoded is not None and b":" in decoded and _printable(decoded):
                yield "basic_auth", m.start(1), m.end(1)
    if ("=" in text or ":" in text) and "authorization" in folded:
        for m in _at_each(text, folded, "authorization", _AUTH_HEADER):
            scheme, value = (m.group(1) or "").lower(), m.group(2).rstrip(".)]}>")
            if len(value) < 8 or _is_filler(value, ":", quoted=True):
                continue
            if scheme == "basic":  # its value must be what Basic sends: base64 of user:password
                decoded = _b64_text(value)
                if decoded is None or b":" not in decoded or not _printable(decoded):
                    continue  # "Authorization: Basic followed by the base64 of ...": prose
            elif not (_has_digit(value) or _random_looking(value)):
                continue  # "Authorization: Bearer followed by the token": a word
            kind = {"basic": "basic_auth", "bearer": "bearer_token"}.get(scheme, "secret")
            yield kind, m.start(2), m.start(2) + len(value)


_FOLD_IN_PLACE = {
    **{ord(c): c.lower() for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
    ord("\u017f"): "s",  # long s
    ord("\u212a"): "k",  # Kelvin sign
    ord("\u0131"): "i",  # dotless i
    ord("\u0130"): "i",  # dotted capital I
}
"""What ``(?i)`` folds onto the names' ASCII letters, one character for one: positions stay."""


def _name_ends(text: str, folded: str) -> Iterator[int]:
    """Where each name holding one of :data:`_NAME_LITERALS` ends, in order, each once.

    A literal found is skipped past the end of its name, so a name is read once per
    literal however many times it repeats one (``passwordpassword...``)."""
    if len(folded) != len(text):  # case-folding moved positions ("ß"): fold in place
        folded = text.translate(_FOLD_IN_PLACE)
        if len(folded) != len(text):  # pragma: no cover - the table maps one to one
            for m in _KEY_NAME_FOLDED.finditer(text):
                yield _NAME_TAIL.match(text, m.end()).end()  # type: ignore[union-attr]
            return
    ends: set[int] = set()
    for literal in _NAME_LITERALS:
        at = folded.find(literal)
        while at != -1:
            end = _NAME_TAIL.match(text, at + len(literal)).end()  # type: ignore[union-attr]
            ends.add(end)
            at = folded.find(literal, max(end, at + 1))
    yield from sorted(ends)


_ANY_KEY_END = re.compile(r"(?i)yek[_-][a-z0-9]")  # a name ending in _KEY or -key, reversed
_RANDOM_VALUE = re.compile(r"[A-Za-z0-9+/=_-]{16,}")
_MIXED = re.compile(r"[A-Za-z][0-9]|[0-9][A-Za-z]")
_MIN_MIXED = 4
"""A random key changes between letters and digits often; ``user_12345678`` once."""
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _random_key_value(text: str, name_end: int) -> Iterator[tuple[str, int, int]]:
    """The value of a name such as ``MAPS_KEY`` or ``hmac-key``, when it reads as a key:
    16 or more key characters, random-looking (letters and digits), not a UUID."""
    v = _VALUE.match(text, name_end)
    if v is None or v.group(2) not in ("=", ":", ":=", "=>"):
        return
    group = v.lastindex or 6
    value = v.group(group)
    if (
        _RANDOM_VALUE.fullmatch(value)
        and _random_looking(value)
        and any(c.isalpha() for c in value)
        and any(c.isdigit() for c in value)
        and not _UUID.fullmatch(value)
        and len(_MIXED.findall(value)) >= _MIN_MIXED
        and not _is_filler(value, "=", quoted=True)
    ):
        yield "secret", v.start(group), v.end(group)


def _assignment_candidates(text: str, folded: str) -> Iterator[tuple[str, int, int]]:
    """Values given to a password, secret, token or key name: ``name = value``, ``name:
    value``, ``name => value``, a name and a no-break space, ``"name": "value"``."""
    if not ("=" in text or ":" in text) and (text.isascii() or _SEPARATOR.search(text) is None):
        return  # every form names, then separates (what _VALUE opens with)
    if not _has(folded, *_NAME_LITERALS):
        return
    value_end = last = -1
    for name_end in _name_ends(text, folded):
        if name_end < value_end or name_end == last:  # inside the last value, or seen
            continue
        last = name_end
        v = _VALUE.match(text, name_end)  # first: most names in prose are given no value
        if v is None:
            continue
        window = text[max(0, name_end - _NAME_WINDOW) : name_end][::-1]
        m = _KEY_END_REVERSED.match(window)
        if m is None:  # not a secret's word; a ``*_KEY`` name's value only if random
            if _ANY_KEY_END.match(window):
                yield from _random_key_value(text, name_end)
            continue
        word = m.group("word")[::-1].lower()
        word_start = name_end - m.end()
        weak = word in _WEAK_KEYS
        if weak and (m.group("suffix") or (word_start and text[word_start - 1].isalnum())):
            continue  # "bypass", "oauth": another word
        value_end = v.end()
        separator = v.group(2)
        group = v.lastindex or 6  # the value's group (3 to 6) is the last that matched
        quoted = group != 6
        if separator == "==" and not quoted:
            continue
        if weak and separator != "=" and not (quoted and v.group(1)):
            continue
        value, start, end = v.group(group), v.start(group), v.end(group)
        said = separator if separator in "=:" else "="
        if not quoted:
            stripped = value.rstrip(".)]}>")
            if stripped != value and _is_filler(value, said, quoted=False):
                continue  # <your-password>: a placeholder whole, before its ">" goes
            end -= len(value) - len(stripped)
            value = stripped
            if (
                _CODE_REFERENCE.fullmatch(value) and not _random_part(value)
            ) or value.lower() == m.group()[::-1].lower():
                continue  # password=args.password, token=token: a name, not a value
            if word == "pwd" and value.startswith(("/", "~")):
                continue  # $PWD, the working directory
            if value.isdigit() and len(value) < 16 and not word.startswith(_PASSWORD_KEYS[:3]):
                continue  # SQLITE_IOERR_AUTH = 7178, max_token: 256: a number, not a secret
        if len(value) < _MIN_VALUE or _is_filler(value, said, quoted=quoted):
            continue
        kind = "password" if word.startswith(_PASSWORD_KEYS) else "secret"
        yield kind, start, end


def _secret_name(name: str) -> bool:
    """True when the whole of ``name`` ends in a secret's word (not a weak one alone)."""
    m = _KEY_END_REVERSED.match(name[::-1])
    if m is None:
        return False
    word = m.group("word")[::-1].lower()
    start = len(name) - m.end()
    return word not in _WEAK_KEYS or not (
        m.group("suffix") or (start and name[start - 1].isalnum())
    )


def _name_kind(name: str) -> str:
    word = _KEY_END_REVERSED.match(name[::-1])
    spelled = word.group("word")[::-1].lower() if word is not None else ""
    return "password" if spelled.startswith(_PASSWORD_KEYS) else "secret"


def _command_candidates(text: str, folded: str) -> Iterator[tuple[str, int, int]]:
    """Passwords on command lines and in ``.netrc``: ``mysql -pSECRET``, ``curl -u user:pass``,
    ``machine host login user password SECRET``."""
    dashed = "-" in text  # one scan for a character every flag below needs
    for line_start, line_end in _lines_holding(text, "-p", "-a") if dashed else ():
        tool = _MYSQL.search(text, line_start, line_end)  # a line is read for its first tool
        if tool is not None:
            name = tool.group().lower()
            spaced = _SSHPASS_P if not name.startswith("redis") else _REDIS_A
            attached = name.startswith(("mysql", "mariadb"))
            for m in (_DASH_P if attached else spaced).finditer(text, tool.end(), line_end):
                group = next(g for g in range(1, (m.lastindex or 1) + 1) if m.group(g) is not None)
                if not _is_filler(m.group(group), "=", quoted=False):
                    yield "password", m.start(group), m.end(group)
    if dashed and "-u" in text:
        for m in _CURL_USER.finditer(text):
            if m.start() and not text[m.start() - 1].isspace():
                continue
            user, password = m.group(1), m.group(2)
            if (user.isdigit() and password.isdigit()) or _is_filler(password, "=", quoted=True):
                continue  # docker run -u 1000:1000, a user id and a group id
            yield "password", m.start(2), m.end(2)
    if dashed and "--" in text:
        for m in _flags(text):
            group = m.lastindex or 3
            if m.start() and not text[m.start() - 1].isspace() and text[m.start() - 1] not in "\"'":
                continue
            if not _is_filler(m.group(group), "=", quoted=group != 3) and len(m.group(group)) >= 4:
                kind = "password" if "pass" in m.group()[:20].lower() else "secret"
                yield kind, m.start(group), m.end(group)
    if "<" in text and "</" in text:
        for m in _XML_ELEMENT.finditer(text):
            if _secret_name(m.group(1)) and not _is_filler(m.group(2), "=", quoted=True):
                yield _name_kind(m.group(1)), m.start(2), m.end(2)
    if '"' in text and "=" in text and "key" in folded and _VALUE_ATTRIBUTE.search(folded):
        for m in _XML_ADD.finditer(text):
            value = m.group(2)
            secret = _secret_name(m.group(1)) and len(value) >= _MIN_VALUE
            if secret and not _is_filler(value, "=", quoted=True):
                yield _name_kind(m.group(1)), m.start(2), m.end(2)
    if ":" in text and "Private-Lines: " in text:
        for m in _PUTTY.finditer(text):
            yield "private_key", m.start(1), m.end(1)
    if "password" in folded and ("machine" in folded or "login" in folded):
        for m in _NETRC.finditer(text):
            near = _NETRC_CONTEXT.search(text, max(0, m.start() - 200), m.start())
            if near is not None and not _is_filler(m.group(1), "=", quoted=False):
                yield "password", m.start(1), m.end(1)


def _flags(text: str) -> Iterator[re.Match[str]]:
    """:data:`_FLAG`'s matches, in order: tried once per run of dashes, at its last two (a
    flag's name follows ``--``), where a search tried every dash of pydoc's rules."""
    at = text.find("--")
    while at != -1:
        run_end = _DASHES.match(text, at).end()  # type: ignore[union-attr]
        m = _FLAG.match(text, run_end - 2)
        if m is not None:
            yield m
        at = text.find("--", m.end() if m is not None else run_end)


_DASHES = re.compile("-+")


def _lines_holding(text: str, *needles: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each line (up to its ``\\n``) holding one of ``needles``, in
    order: a ``find`` per needle per line, where a search for the tools' names ran over
    all of the text."""
    lines: set[tuple[int, int]] = set()
    for needle in needles:
        at = text.find(needle)
        while at != -1:
            end = text.find("\n", at)
            end = len(text) if end == -1 else end
            lines.add((text.rfind("\n", 0, at) + 1, end))
            at = text.find(needle, end)
    return sorted(lines)


def _private_keys(text: str) -> Iterator[tuple[str, int, int]]:
    """PEM and PGP private key blocks; a missing END line redacts through the base64 body."""
    missing: set[str] = set()
    pos = 0
    while True:
        m = _PEM_BEGIN.search(text, pos)
        if m is None:
            return
        label, block = m.group(1), m.group(2) or ""
        end = -1
        if label + block not in missing:
            marker = f"-----END {label}PRIVATE KEY{block}-----"
            found = text.find(marker, m.end())
            if found == -1:
                missing.add(label + block)
            else:
                end = found + len(marker)
        if end == -1:
            body = _PEM_BODY.match(text, m.end())
            end = body.end() if body is not None else m.end()
            while end > m.end() and text[end - 1].isspace():
                end -= 1
        yield "private_key", m.start(), end
        pos = end


def _visible(text: str) -> tuple[str, list[tuple[int, int]]] | None:
    """``text`` without its invisible characters, and where each piece of it was
    (``(start in the result, start in text)``); None when it has none."""
    if text.isascii() or _INVISIBLE.search(text) is None:
        return None
    pieces: list[tuple[int, int]] = []
    parts: list[str] = []
    pos = out = 0
    for m in _INVISIBLE.finditer(text):
        if m.start() > pos:
            pieces.append((out, pos))
            parts.append(text[pos : m.start()])
            out += m.start() - pos
        pos = m.end()
    pieces.append((out, pos))
    parts.append(text[pos:])
    return "".join(parts), pieces


def _from_visible(pieces: Sequence[tuple[int, int]], at: int) -> int:
    """A position in the visible text as a position in the original."""
    i = bisect.bisect_right(pieces, (at, 1 << 62)) - 1
    out, orig = pieces[max(i, 0)]
    return orig + (at - out)


def _raw_candidates(text: str) -> list[tuple[str, int, int]]:
    """:func:`_candidates`, looked for past invisible characters (positions in ``text``)."""
    visible = _visible(text)
    if visible is None:
        return list(_candidates(text))
    view, pieces = visible
    return [
        (kind, _from_visible(pieces, start), _from_visible(pieces, end - 1) + 1)
        for kind, start, end in _candidates(view)
        if end > start
    ]


def _allowed_spans(text: str, allowlist: Sequence[str]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for entry in allowlist:
        if not entry:
            continue
        i = text.find(entry)
        while i != -1:
            spans.append((i, i + len(entry)))
            i = text.find(entry, i + 1)
    return spans


def _find(text: str, allowlist: Sequence[str]) -> tuple[Redaction, ...]:
    """The merged, ordered redactions of ``text`` (positions in ``text``)."""
    candidates = _raw_candidates(text)
    if not candidates:  # most text: nothing to weigh against the allowlist
        return ()
    allowed = frozenset(allowlist)
    allowed_spans = _allowed_spans(text, allowlist)
    found = [
        (start, -(end - start), _PRIORITY[kind], kind, end)
        for kind, start, end in candidates
        if end > start
        and text[start:end] not in allowed
        and not any(a <= start and end <= b for a, b in allowed_spans)
    ]
    found.sort()
    return _merge([Redaction(kind, start, end) for start, _, _, kind, end in found])


def _apply(
    text: str, redactions: Sequence[Redaction]
) -> tuple[str, list[tuple[int, int, int, int]]]:
    """``text`` with each redaction replaced, and the map of its pieces:
    ``(start, end)`` in the result beside ``(start, end)`` in ``text``."""
    parts: list[str] = []
    pieces: list[tuple[int, int, int, int]] = []
    pos = out = 0
    for r in redactions:
        for chunk, orig_end in (
            (text[pos : r.start], r.start),
            (PLACEHOLDER.format(kind=r.kind), r.end),
        ):
            pieces.append((out, out + len(chunk), pos, orig_end))
            parts.append(chunk)
            out += len(chunk)
            pos = orig_end
    pieces.append((out, out + len(text) - pos, pos, len(text)))
    parts.append(text[pos:])
    return "".join(parts), pieces


def _to_original(pieces: Sequence[tuple[int, int, int, int]], at: int, *, end: bool) -> int:
    for start, stop, orig_start, orig_stop in pieces:
        if start <= at < stop or (end and at == stop):
            if orig_stop - orig_start == stop - start:  # original text: same offsets
                return orig_start + (at - start)
            return orig_stop if end else orig_start  # inside a placeholder: all of it
    return pieces[-1][3]


def _merge(redactions: Sequence[Redaction]) -> tuple[Redaction, ...]:
    merged: list[Redaction] = []
    for r in sorted(redactions, key=lambda r: (r.start, -(r.end - r.start), _PRIORITY[r.kind])):
        if merged and r.start < merged[-1].end:
            last = merged[-1]
            if r.end > last.end:
                merged[-1] = Redaction(last.kind, last.start, r.end)
            continue
        merged.append(r)
    return tuple(merged)


MAX_ROUNDS = 8


def admit(text: str, *, allowlist: Sequence[str] = ()) -> Admitted:
    """Replace every detected secret in ``text`` with ``[REDACTED:<kind>]``.

    ``allowlist`` holds exact strings never redacted (declared false positives):
    a match equal to an entry, or lying inside an occurrence of one, is kept.

    The result is a fixed point: a placeholder can make a neighbouring secret
    newly recognisable (``-----BEGIN ... KEY-----sk-...``: the ``sk-`` key only
    stands alone once the BEGIN line is gone), so the gate looks again until
    nothing more is found; admitting the result changes nothing.
    """
    redactions = _find(text, allowlist)
    if not redactions:  # the text as it is (what _apply gives for no redaction)
        return Admitted(text, redactions)
    for _round in range(MAX_ROUNDS):
        admitted, pieces = _apply(text, redactions)
        more = _find(admitted, allowlist) if redactions else ()
        if not more:
            return Admitted(admitted, redactions)
        redactions = _merge(
            [
                *redactions,
                *(
                    Redaction(
                        r.kind,
                        _to_original(pieces, r.start, end=False),
                        _to_original(pieces, r.end, end=True),
                    )
                    for r in more
                ),
            ]
        )
    return Admitted(_apply(text, redactions)[0], redactions)


def admit_document(
    text: str,
    *,
    name: str,
    allowlist: Sequence[str] = (),
    max_secret_fraction: float = 0.5,
) -> Admitted:
    """:func:`admit` for a whole document, refusing one that is mostly secret material.

    Raises :class:`~arborist.errors.BadInput` when the redacted characters exceed
    ``max_secret_fraction`` of the document's non-whitespace characters. The
    message names the document and the counts, never the secrets.
    """
    if not 0.0 <= max_secret_fraction <= 1.0:
        raise BadInput(f"max_secret_fraction must be in [0, 1], got {max_secret_fraction!r}")
    admitted = admit(text, allowlist=allowlist)
    redacted = sum(r.end - r.start for r in admitted.redactions)
    if not redacted:
        return admitted
    significant = len("".join(text.split()))  # non-whitespace characters, counted in C
    if redacted > max_secret_fraction * significant:
        raise BadInput(
            f"{name} is mostly secret material ({redacted} of {significant} "
            f"non-whitespace characters redacted, limit {max_secret_fraction:.0%}); "
            "remove the secrets or add false positives to the allowlist"
        )
    return admitted


KEY_PLACEHOLDER = "[REDACTED:api_key]"
"""What replaces a client's own API key in its profile (as a remote client's replies say)."""
_MIN_KNOWN_SECRET = 8
"""A known secret shorter than this (``"EMPTY"``, ``"none"``) is not looked for."""


def admit_profile(
    profile: Mapping[str, object], *, secrets: Sequence[str | None] = ()
) -> dict[str, object]:
    """``profile`` (a model's or an embedder's) fit to hash, store and print.

    Every string in it, keys included and at any depth (the base URL and its
    path, the model name, headers), passes :func:`admit`, after each of
    ``secrets`` (the client's own API key, of whatever shape) of
    :data:`_MIN_KNOWN_SECRET` characters or more is replaced by
    :data:`KEY_PLACEHOLDER`: a key pasted into the model name or the URL by a
    swapped variable never reaches a file. No allowlist: the profile is hashed
    into cache keys, so its redaction depends on nothing but its own text, and
    admitting the result changes nothing. Numbers, booleans and None stay.
    """
    known = sorted({k for k in secrets if k and len(k) >= _MIN_KNOWN_SECRET}, key=len, reverse=True)

    def clean(value: object) -> object:
        if isinstance(value, str):
            for key in known:
                value = value.replace(key, KEY_PLACEHOLDER)
            return admit(value).text
        if isinstance(value, Mapping):
            return {str(clean(str(k))): clean(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [clean(v) for v in value]
        return value

    return {str(clean(str(k))): clean(v) for k, v in profile.items()}

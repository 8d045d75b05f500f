"""The shapes of secrets: the admission gate's pattern catalogue and the tests of a value.

Pure: no I/O. :mod:`arborist.secret_finders` runs these patterns over a text and
:mod:`arborist.admission` replaces what they find; the kinds they stand for, and what
each matches, are listed in :mod:`arborist.admission`'s docstring.
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
    "DISCORD",
    "FLAG",
    "GITHUB",
    "INVISIBLE",
    "JWT",
    "KEY_END_REVERSED",
    "KEY_NAME_FOLDED",
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
    "PLACEHOLDER_MARK",
    "PUTTY",
    "QUERY_SECRET",
    "QUERY_SECRET_MIN",
    "REDIS_A",
    "SEPARATOR",
    "SK_HEX",
    "SK_KEY",
    "SLACK",
    "SSHPASS_P",
    "TELEGRAM",
    "TWILIO",
    "URL_FILLER",
    "URL_USERINFO",
    "VALUE",
    "VALUE_ATTRIBUTE",
    "VENDOR",
    "WEAK_KEYS",
    "WEBHOOK",
    "XML_ADD",
    "XML_ELEMENT",
    "at_each",
    "b64_text",
    "has",
    "has_digit",
    "holds_vendor_literal",
    "is_filler",
    "printable",
    "random_looking",
    "random_part",
]

PLACEHOLDER_MARK = "[REDACTED:"

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
# scheme://user:PASSWORD@host: the user part holds no ":", "@" or brackets (so it never
# starts inside a placeholder); the password runs to the authority's last "@".
URL_USERINFO = re.compile(
    r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@\[\]]*:([^\s/?]+)@"
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
    r"|discord(?:app)?\.com/api/webhooks/|\.webhook\.office\.com/webhookb2/)"
    r"([A-Za-z0-9/@_-]{8,})"
)
GITHUB = re.compile(r"(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})")
SLACK = re.compile(r"(?<![A-Za-z0-9])(?:xox[abporsce]|xapp)-[A-Za-z0-9-]{10,}")
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
    (
        ("dp.",),
        "api_token",
        r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,}",
    ),  # Doppler
    (
        ("fo1_", "pnu_", "pul-", "rdme_", "tfp_", "HRKU-"),
        "api_token",
        r"fo1_[A-Za-z0-9_-]{40,}|pnu_[A-Za-z0-9]{36}|pul-[a-f0-9]{40}|rdme_[a-z0-9]{60,}"
        r"|tfp_[A-Za-z0-9_.=-]{40,}|HRKU-[A-Za-z0-9_-]{30,}",
    ),
    (("fm1", "fm2_"), "api_token", r"fm(?:1[ar]?|2)_[A-Za-z0-9+/]{60,}={0,3}"),  # Fly.io macaroon
    (("v1.0-",), "api_token", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{100,}"),  # Cloudflare Origin CA key
    (("sk_",), "api_token", r"sk_[a-f0-9]{48}"),  # ElevenLabs
    (("AC",), "api_token", r"AC[a-f0-9]{32}"),  # Twilio account SID
    (("ops_eyJ",), "api_token", r"ops_eyJ[A-Za-z0-9+/=_-]{50,}"),  # 1Password service account
    (("Q~",), "api_token", r"[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}"),  # Azure AD
    (("GR1348941",), "api_token", r"GR1348941[A-Za-z0-9_-]{20,}"),  # GitLab runner
    (("EAA",), "api_token", r"EAA[A-Z][A-Za-z0-9_-]{60,}"),  # Square (bare), Meta
    (("1//0",), "api_token", r"1//0[A-Za-z0-9_-]{40,}"),  # Google OAuth refresh token
    (("access-",), "api_token", r"access-(?:sandbox|development|production)-[0-9a-f-]{36}"),
    (
        ("shippo_", "CFPAT-"),
        "api_token",
        r"shippo_(?:live|test)_[a-f0-9]{40}|CFPAT-[A-Za-z0-9_-]{43}",
    ),
    (("ATBB", "ATCTT3"), "api_token", r"ATBB[A-Za-z0-9_=.-]{32,}|ATCTT3[A-Za-z0-9_=-]{50,}"),
    (
        ("pcsk_", "nfp_"),
        "api_token",
        r"pcsk_[A-Za-z0-9_-]{40,}|nfp_[A-Za-z0-9]{36,}",
    ),  # Pinecone, Netlify
    (("sb_secret_", "hvb."), "api_token", r"sb_secret_[A-Za-z0-9_-]{20,}|hvb\.[A-Za-z0-9_-]{100,}"),
    (("lin_oauth_", "LTAI"), "api_token", r"lin_oauth_[A-Za-z0-9]{40,}|LTAI[A-Za-z0-9]{12,20}"),
    (("sess-",), "api_token", r"sess-[A-Za-z0-9]{40}"),  # OpenAI session
    (("atlasv1",), "api_token", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}"),  # Terraform
    (("sk.eyJ", "tk.eyJ"), "api_token", r"[st]k\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
    (("_",), "api_token", r"[0-9]{8,10}:AA[A-Za-z0-9_-]{30,}"),  # Telegram (checked below)
)
# A token joined to a word by ``-``, ``_`` or ``.`` (``notes-<token>.txt``,
# ``backup_<token>.env``) stands after a character no body opens with a run of: each
# body either excludes the joining characters or matches at its first try, so
# allowing them before a prefix costs no second scan.
VENDOR = tuple(
    (literals, kind, re.compile(f"(?<![A-Za-z0-9])(?:{p})(?![A-Za-z0-9])"))
    for literals, kind, p in _VENDOR_PATTERNS[:-1]
)
_VENDOR_LITERALS = sorted({lit for literals, _, _ in VENDOR for lit in literals})
_VENDOR_LITERAL = re.compile("|".join(map(re.escape, _VENDOR_LITERALS)))
_SHORT_LONGS = 4096


def holds_vendor_literal(longs: str) -> bool:
    """Whether one of :data:`VENDOR`'s literals is among the long words: the vendors are
    tried one by one only then. A few long words (most prose) are searched once for all
    the literals (sre skips a branch whose first character differs, so one search beats an
    ``in`` per literal); many (pydoc's) with an ``in`` per literal, which runs at memory
    speed where the search tries the branches at most characters."""
    if len(longs) < _SHORT_LONGS:
        return bool(longs) and _VENDOR_LITERAL.search(longs) is not None
    return any(literal in longs for literal in _VENDOR_LITERALS)


# An Azure DevOps personal access token, bare: 52 characters of lower-case base32.
ADO_PAT = re.compile(r"(?<![A-Za-z0-9])[a-z2-7]{52}(?![A-Za-z0-9])")
# 64 bytes in base64 standing alone: an Azure storage account key (not a digest: those
# say their algorithm, ``sha512-...``).
B64_64 = re.compile(r"(?<![A-Za-z0-9+])[A-Za-z0-9+/]{86}==(?![A-Za-z0-9+=])")
B64_64_NAMED = re.compile(r"(?i)(?:sha[0-9-]*|base64|blake2b?|digest|hash|sig(?:nature)?)[-:=,]$")
# A Discord bot token: base64 of a user id, a dot, 6 characters, a dot, 27 or more.
DISCORD = re.compile(r"[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}")
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
    r"(?:(?:[ \t]*\r?\n[ \t]*|\\n)[A-Za-z0-9+/=]+[ \t]*(?![^\r\n\\\"']))*"
)
# A PEM block base64-encoded once more (kubeconfig's client-key-data: LS0tLS1CRUdJTi...)
PEM_B64 = re.compile(r"LS0tLS1CRUdJTi[A-Za-z0-9+/=]*(?:\r?\n[ \t]*[A-Za-z0-9+/=]+(?![^\r\n]))*")
BEARER = re.compile(r"(?i)(?<![A-Za-z0-9_])bearer[ \t]+([A-Za-z0-9._~+/=-]{16,})")
BASIC = re.compile(r"(?i)basic[ \t]+([A-Za-z0-9+/]{6,}={0,2})(?![A-Za-z0-9+/=])")
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
_BARE = r"<[^<>\r\n]*>|\$\{\{[^{}\r\n]*\}\}|\{\{[^{}\r\n]*\}\}|\$\{[^{}\r\n]*\}|(?:[^\s\"'`,;&]|[,;&](?![^\S\r\n]*[A-Za-z_][A-Za-z0-9_.-]*[^\S\r\n]*=|\s|\Z))+"
VALUE = re.compile(
    r"([\"']?\]?)[^\S\r\n]*(=>|:=|==|=|:|[\u00a0\u2000-\u200a\u202f\u205f\u3000])[^\S\r\n]*"
    rf"(?:\"([^\"\r\n]*)\"|'([^'\r\n]*)'|`([^`\r\n]*)`|({_BARE}))"
)
SEPARATOR = re.compile("[=:\u00a0\u2000-\u200a\u202f\u205f\u3000]")
"""A character every value given to a name needs after it (:data:`VALUE`'s separators):
text holding none has no assignment, and is not searched for the names."""
CODE_REFERENCE = re.compile(
    r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+|[A-Za-z_][A-Za-z0-9_.]*[\[(].*"
)
NETRC = re.compile(r"(?i)(?<!\S)password[ \t]+(\S+)")
NETRC_CONTEXT = re.compile(r"(?i)(?<![A-Za-z0-9])(?:machine|login)[ \t]")
MYSQL = re.compile(
    r"(?i)(?<![A-Za-z0-9_-])(?:mysql[a-z]*|mariadb[a-z-]*|sshpass|mongo(?:sh|dump|restore)?"
    r"|(?:docker|podman|buildah|skopeo|nerdctl|oras|helm[ \t]+registry)[ \t]+login|redis-cli)"
    r"(?![A-Za-z0-9_])"
)
DASH_P = re.compile(r"(?<!\S)-p([^\s-]\S*)")
REDIS_A = re.compile(r"(?<!\S)-a[ \t]+(?:'([^'\r\n]*)'|\"([^\"\r\n]*)\"|([^\s'\"-]\S*))")
SSHPASS_P = re.compile(r"(?<!\S)-p[ \t]*(?:'([^'\r\n]*)'|\"([^\"\r\n]*)\"|([^\s'\"]+))")
# ``--password VALUE``, ``--token VALUE``: a flag named for a secret, its value after a space.
FLAG = re.compile(
    r"--(?:[a-z]+-)*(?:password|passwd|passphrase|token|secret|api-key|apikey|auth-token"
    r"|access-token|access-key|secret-key|client-secret)[ \t]+"
    r"(?:'([^'\r\n]*)'|\"([^\"\r\n]*)\"|([^\s'\"-][^\s'\"]*))"
)
# <password>VALUE</password> (XML, a .NET config's <add key="DbPassword" value="VALUE"/>).
XML_ELEMENT = re.compile(r"<([A-Za-z_][\w:.-]{0,63})>([^<\r\n]{4,})</\1>")
XML_ADD = re.compile(
    r"(?i)key[ \t]*=[ \t]*\"([^\"\r\n]{1,64})\"[ \t]+value[ \t]*=[ \t]*\"([^\"\r\n]*)\""
)
# A PuTTY private key file's body.
PUTTY = re.compile(r"Private-Lines: [0-9]+((?:\r?\n[A-Za-z0-9+/=]+(?![^\r\n]))+)")
VALUE_ATTRIBUTE = re.compile(r'value[ \t]*=[ \t]*"')  # on the case-folded text
# A .pgpass line, host:port:database:user:password (``*`` for any of the first four).
PGPASS = re.compile(
    r"(?<![A-Za-z0-9._*-])([A-Za-z0-9._-]+|\*):(?:[0-9]{1,5}|\*)"
    r":[^:\s]+:[^:\s]+:(\S+)"
)
PGPASS_PORT = re.compile(r":(?:[0-9]{1,5}|\*):")
CURL_USER = re.compile(r"-(?:u|-user)(?:[ \t]+|=)[\"']?([^\s:\"'@]+):([^\s\"']+)")

PASSWORD_KEYS = ("passw", "pwd", "passphrase", "pass", "pw")
_TYPE_NAMES = frozenset(
    {"str", "string", "int", "bool", "bytes", "none", "null", "true", "false", "optional", "any"}
)
_TYPE_HEAD = re.compile(r"[\[|]")
_NULLS = frozenset({"none", "null", "nil", "undefined", "true", "false"})
"""Bare values that say "no password" (``pwd=None`` in a signature), never a secret."""
_FILLER = re.compile(
    r"(?i)\*+(?:[^\s*A-Za-z0-9]\S*)?|x+|\.\.\.|…|<[^<>]*>|\$\{[^{}]*\}|\$?\{\{.*\}\}|\{[^{}]*\}|%\([^()]*\)s"
    r"|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%"
    r"|(?:your|my|enter|insert|put)[_ -].*|.*[_-]here|replace[_-]?me|placeholder|redacted"
    r"|.{0,16}(?:\.\.\.|…)|\[REDACTED:.*|(?:.*[_-])?your[_-].*"
    r"|example|sample|dummy|changeme|hidden|masked|removed|required|secret|password|value"
)
_CALL = re.compile(r"\$?\(|[A-Za-z_][A-Za-z0-9_.]*\(")
"""A value that opens a call, a parenthesis or a shell's ``$(...)``: code."""


_VENDOR_PREFIX = re.compile(r"^[A-Za-z0-9]{1,8}[_-]")
_ALNUM = re.compile(r"[^\W_]")


def has_digit(value: str) -> bool:
    return any(c.isdigit() for c in value)


def is_filler(value: str, separator: str, quoted: bool) -> bool:
    """Values that are not secrets: empty, masked, templated, type names, calls."""
    if not value.strip() or PLACEHOLDER_MARK in value:
        return True
    if _FILLER.fullmatch(value.strip()) or _ALNUM.search(value) is None:
        return True
    if len(set(value)) <= 12:  # few characters: perhaps one over and over
        rest = _VENDOR_PREFIX.sub("", value, count=1)
        if len(rest) >= 6 and len(set(rest.lower())) <= 2:  # ghp_XXXX..., sk-00000000...
            return True
    if not quoted:
        if _CALL.match(value) or value.lower() in _NULLS:
            return True
        head = _TYPE_HEAD.split(value, maxsplit=1)[0].lower()
        if separator == ":" and head in _TYPE_NAMES:
            return True
    return False


def at_each(
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


def random_looking(token: str) -> bool:
    """A digit, or both cases, and not one character over and over (``ghp_XXXX...``)."""
    mixed = has_digit(token) or (not token.islower() and not token.isupper())
    return mixed and len(set(token)) >= 8


def random_part(value: str) -> bool:
    """Whether a dotted value holds a part no name looks like (digits among eight or more
    distinct characters): ``token=n4m3t0k3n5ecr3t77.txt`` is a secret with a suffix, where
    ``password=args.password`` names one."""
    return any(has_digit(part) and len(set(part)) >= 8 for part in value.split("."))


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

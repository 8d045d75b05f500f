"""Tokens whose prefix names their vendor: the gate's table of them, and its prefilter.

Pure: no I/O. Each row is the literals one of which every match holds, the kind, and
the pattern; :mod:`arborist._gate.finders` tries a row only when one of its literals is
among a text's long words (:func:`arborist._gate.prefilters.long_words`), so a row
costs nothing on text that cannot hold its token. Grouped by what issues the tokens
(CI systems and registries, payment, e-mail and SMS, AI and ML APIs and experiment
trackers, data platforms, observability, identity, clouds), so a missing vendor is seen
where it belongs.
"""

from __future__ import annotations

import re

from arborist._gate.prefilters import trie
from arborist._text.text_words import word_list

__all__ = [
    "VENDOR",
    "vendor_rows",
]

# Tokens whose prefix names the vendor: (the literals one of which every match holds,
# its kind, its pattern). Each runs only when one of its literals is in the text.
_VENDOR_PATTERNS = (
    (("_live_", "_test_"), "stripe_key", r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}"),
    (("whsec_",), "stripe_key", r"whsec_[A-Za-z0-9]{24,}"),
    (("AIza",), "google_api_key", r"AIza[0-9A-Za-z_-]{35}"),
    (("GOCSPX-", "ya29."), "api_token", r"GOCSPX-[A-Za-z0-9_-]{20,}|ya29\.[0-9A-Za-z_-]{30,}"),
    (("hf_",), "api_token", r"hf_[A-Za-z0-9]{30,}"),  # Hugging Face (letters; digits too)
    (("nsec1",), "private_key", r"nsec1[02-9ac-hj-np-z]{58}"),  # a Nostr key (bech32)
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
    (("NRAK-", "NRII-", "NRJS-", "NRAA-"), "api_token", r"NR(?:AK|II|JS|AA)-[A-Za-z0-9]{27,32}"),
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
    # CI systems and registries
    (("CCIP",), "api_token", r"CCIP(?:AT|RJ)_[A-Za-z0-9_]{30,}"),  # CircleCI
    (("bkua_", "bkat_", "bkct_"), "api_token", r"bk(?:ua|at|ct)_[A-Za-z0-9]{30,}"),  # Buildkite
    (("cio",), "api_token", r"cio[A-Za-z0-9]{32}"),  # crates.io
    (("pat.",), "api_token", r"pat\.[A-Za-z0-9_-]{22}\.[0-9a-f]{24}\.[A-Za-z0-9]{20}"),  # Harness
    (("cmVmdGtuOjAxOj",), "api_token", r"cmVmdGtuOjAxOj[A-Za-z0-9]{40,}"),  # JFrog reference
    (("CLOJARS_",), "api_token", r"CLOJARS_[a-z0-9]{60}"),
    (("sqp_", "squ_", "sqa_"), "api_token", r"sq[pua]_[a-f0-9]{40}"),  # SonarQube
    (("sgp_",), "api_token", r"sgp_(?:[A-Za-z0-9]{16}_)?[a-f0-9]{40}"),  # Sourcegraph
    (("API-",), "api_token", r"API-[A-Z0-9]{26,}"),  # Octopus Deploy
    (("vcp_", "vci_", "vca_", "vcr_", "vck_"), "api_token", r"vc[pikar]_[A-Za-z0-9]{24,}"),
    (("rnd_", "napi_"), "api_token", r"rnd_[A-Za-z0-9]{32}|napi_[a-z0-9]{64}"),  # Render, Neon
    # payment
    (
        ("access_token$",),
        "api_token",
        r"access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}",
    ),
    (
        ("rzp_", "duffel_"),
        "api_token",
        r"rzp_(?:live|test)_[A-Za-z0-9]{14,}|duffel_(?:live|test)_[A-Za-z0-9_-]{40,}",
    ),
    (("AQE",), "api_token", r"AQE[A-Za-z0-9+/=._-]{80,}"),  # Adyen
    # e-mail and SMS
    (
        ("mlsn.", "md-"),
        "api_token",
        r"mlsn\.[a-f0-9]{64}|md-[A-Za-z0-9_-]{22}",
    ),  # MailerSend, Mandrill
    (("re_",), "api_token", r"re_[A-Za-z0-9]{8}_[A-Za-z0-9]{20,}"),  # Resend
    (("KEY0",), "api_token", r"KEY0[0-9A-F]{32}_[A-Za-z0-9]{22}"),  # Telnyx
    # AI and ML APIs, experiment trackers
    (
        ("sk-lf-",),
        "api_token",
        r"sk-lf-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    ),  # Langfuse
    (("api_org_",), "api_token", r"api_org_[A-Za-z]{34}"),  # Hugging Face organization
    (("eyJhcGlfYWRkcmVzcyI6",), "api_token", r"eyJhcGlfYWRkcmVzcyI6[A-Za-z0-9+/=]{40,}"),  # Neptune
    (("KGAT_", "local-"), "api_token", r"KGAT_[A-Za-z0-9]{20,}|local-[0-9a-f]{40}"),  # Kaggle, W&B
    (("esecret_", "fw_"), "api_token", r"esecret_[A-Za-z0-9]{20,}|fw_[A-Za-z0-9]{20,}"),
    (("tgp_v1_", "csk-"), "api_token", r"tgp_v1_[A-Za-z0-9_-]{30,}|csk-[a-z0-9]{40,}"),
    # data platforms, work tools
    (("pat",), "api_token", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"),  # Airtable
    (("dbtc_", "dbtu_", "dose"), "api_token", r"dbt[cu]_[A-Za-z0-9_-]{40,}|dose[a-f0-9]{32}"),
    (("mdb_sa_sk_",), "api_token", r"mdb_sa_sk_[A-Za-z0-9_-]{20,}"),  # MongoDB Atlas
    (
        ("dG9rOj", "pat-"),
        "api_token",
        r"dG9rOj[A-Za-z0-9+/=_-]{30,}|pat-(?:na|eu)[0-9]-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    ),
    (("00D",), "api_token", r"00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{80,}"),  # Salesforce session
    (("pk_",), "api_token", r"pk_[0-9]{6,}_[A-Z0-9]{32}"),  # ClickUp
    (("fio-u-",), "api_token", r"fio-u-[A-Za-z0-9_=-]{64}"),  # Frame.io
    # observability, identity, clouds
    (("hcaik_", "hcxik_", "hcaic_", "hcxic_"), "api_token", r"hc[ax]i[kc]_[A-Za-z0-9]{50,}"),
    (
        ("xaat-", "xapt-"),
        "api_token",
        r"xa[ap]t-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    ),  # Axiom
    (("secret-live-", "secret-test-"), "api_token", r"secret-(?:live|test)-[A-Za-z0-9_=-]{30,}"),
    (("AAAAAAAAAAAAAAAAAAAAA",), "api_token", r"AAAAAAAAAAAAAAAAAAAAA[A-Za-z0-9%]{30,}"),  # X
    (("y0_", "AKID"), "api_token", r"y0_[A-Za-z0-9_-]{55}|AKID[A-Za-z0-9]{32}"),  # Yandex, Tencent
    (("ABSK",), "api_token", r"ABSK[A-Za-z0-9+/]{60,}={0,2}"),  # AWS Bedrock API key
    (
        ("IQoJb3JpZ2luX2Vj", "FwoGZXIvYXdzE"),
        "api_token",
        r"(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdzE)[A-Za-z0-9+/]{100,}={0,2}",
    ),  # an AWS session token, bare (STS's, by its serialized opening)
    (("tskey-",), "api_token", r"tskey-[a-z]+-[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}"),  # Tailscale
    (("eyJrIjoi",), "api_token", r"eyJrIjoi[A-Za-z0-9+/]{40,}={0,2}"),  # Grafana API key
    (
        ("A3-",),
        "api_token",
        r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}"
        r"-[A-Z0-9]{5}",
    ),  # a 1Password account's Secret Key
    (
        ("AQVN", "t1."),
        "api_token",
        r"AQVN[A-Za-z0-9_-]{35,38}|t1\.[A-Za-z0-9_-]+={0,2}\.[A-Za-z0-9_-]{86}={0,2}",
    ),  # Yandex API key, IAM token
    (("st.",), "api_token", r"st\.[a-f0-9-]{36}\.[a-f0-9]{32}\.[a-f0-9]{32}"),  # Infisical
    (("AAAAAAAAAA",), "api_token", r"[a-z0-9]{11}AAAAAAAAAA[A-Za-z0-9_=-]{43}"),  # Dropbox
    (("tk-us-", "ico-"), "api_token", r"tk-us-[A-Za-z0-9_-]{48}|ico-[A-Za-z0-9]{32}"),
    (("jina_",), "api_token", r"jina_[A-Za-z0-9_-]{40,}"),  # Jina AI
    (("django-insecure-",), "secret", r"django-insecure-[^\s'\"`]{40,}"),  # a Django SECRET_KEY
    (("00",), "api_token", r"00(?=[\w-]{0,39}[a-z])(?=[\w-]{0,39}[A-Z])[A-Za-z0-9_-]{40}"),  # Okta
    # A password's hash, which a dictionary cracks: bcrypt's, argon2's, crypt(3)'s SHA and
    # yescrypt's, and the NT hash of a Windows account's dump line (user:RID:LM:NT:::)
    (("$2a$", "$2b$", "$2y$", "$2x$"), "secret", r"\$2[abxy]\$[0-9]{2}\$[./A-Za-z0-9]{53}"),
    (
        ("$argon2",),
        "secret",
        r"\$argon2(?:id|i|d)\$v=[0-9]+\$m=[0-9]+,t=[0-9]+,p=[0-9]+\$[A-Za-z0-9+/]{8,}\$[A-Za-z0-9+/]{16,}",
    ),
    (
        ("$5$", "$6$", "$y$"),
        "secret",
        r"\$[56]\$(?:rounds=[0-9]+\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{43,86}"
        r"|\$y\$[./A-Za-z0-9]+\$[./A-Za-z0-9]{1,86}\$[./A-Za-z0-9]{43}",
    ),
    ((":::",), "secret", r"(?<=[0-9]:[0-9A-Fa-f]{32}:)[0-9A-Fa-f]{32}(?=:::)"),
    (("_",), "api_token", r"[0-9]{8,10}:AA[A-Za-z0-9_-]{30,}"),  # Telegram (checked below)
)
# A token joined to a word by ``-``, ``_`` or ``.`` (``notes-<token>.txt``,
# ``backup_<token>.env``) stands after a character no body opens with a run of: each
# body either excludes the joining characters or matches at its first try, so
# allowing them before a prefix costs no second scan.
# A prefix whose literal and length no word holds (``hf_``, ``glpat-``, ``npm_``,
# ``pypi-AgE``...) is found glued to a word with no separator too (``datahf_...``,
# ``backupnpm_....md``): those rows have no lookbehind. Each body opens with the
# literal itself, so a run of them is read at its first try (``hf_hf_hf_...`` fails at
# the second ``_``, ``glpat-glpat-...`` is one match).
GLUED = frozenset(
    word_list("""whsec_ GOCSPX- ya29. hf_ gl npm_ pypi-AgE rubygems_ shp _v1_ dckr_pat_ ATATT3 lin_api_
        figd_ gsk_ pplx- xai- nvapi- tvly- sntry hvs. AGE-SECRET-KEY-1 sq0 PMAK- sbp_ ntn_
        pscale_ lsv2_ glc_ glsa_ NRAK- xkeysib- dt0c01. FLWSECK""")
)
VENDOR = tuple(
    (
        literals,
        kind,
        re.compile(
            f"(?:{p})(?![A-Za-z0-9])"
            if GLUED.intersection(literals)
            else f"(?<![A-Za-z0-9])(?:{p})(?![A-Za-z0-9])"
        ),
    )
    for literals, kind, p in _VENDOR_PATTERNS[:-1]
)
_VENDOR_LITERALS = sorted({lit for literals, _, _ in VENDOR for lit in literals})


def _by_head(words: list[str]) -> tuple[re.Pattern[str], ...]:
    """A trie (:func:`arborist._gate.prefilters.trie`) of ``words`` for each character they
    open with: a search for one of them runs as a search for its first character, where a
    search of one trie of them all tried each of its forty first characters in turn at
    every place."""
    heads: dict[str, list[str]] = {}
    for word in words:
        heads.setdefault(word[0], []).append(word)
    return tuple(re.compile(trie(heads[head])) for head in sorted(heads))


_VENDOR_HEADS = _by_head(_VENDOR_LITERALS)
_MOST_PLACES = 256
"""How many places holding a literal are read one by one (most texts' long words hold a
few; the demo corpus's 72 pages, 47 in all)."""
_SHORTER = {
    literal: frozenset(other for other in _VENDOR_LITERALS if literal.startswith(other))
    for literal in _VENDOR_LITERALS
}
"""Each literal and the literals it opens with (``pat.`` holds ``pat``): where the trie finds
the longest, every one of these is there too."""


def vendor_rows(longs: str) -> list[tuple[tuple[str, ...], str, re.Pattern[str]]]:
    """The rows of :data:`VENDOR` one of whose literals is among the long words: only those
    are tried. The literals there are found by a search for those opening with each
    character, a trie of them (:data:`_VENDOR_HEADS`), from each place after the last one
    found: the longest literal at each place that holds one, and with it the shorter ones it
    opens with (:data:`_SHORTER`), so every literal present is found, in a pass over the long
    words per first character, where an ``in`` per literal read them once for each of the
    hundred and more. Past :data:`_MOST_PLACES`
    places, an ``in`` per literal again: a text of literals over and over costs a bounded
    number of scans, not a step of Python per place. Each word is read once however often
    it repeats (no literal holds a space, so which are there is a matter of which words
    are): a page's long words are mostly its names over and over, the trie's search costs
    a step at nearly every character, and the words once each are less than half of them."""
    if not longs:  # no long word, no token: most titles, names and questions
        return []
    longs = " ".join(dict.fromkeys(longs.split(" ")))
    found: set[str] = set()
    places = 0
    for head in _VENDOR_HEADS:
        m = head.search(longs)
        while m is not None and places < _MOST_PLACES:
            found |= _SHORTER[m.group()]
            places += 1
            m = head.search(longs, m.start() + 1)
        if m is not None:  # literals at many places ("ACACAC..."): an ``in`` for each literal
            found = {literal for literal in _VENDOR_LITERALS if literal in longs}
            break
    if not found:
        return []
    return [row for row in VENDOR if not found.isdisjoint(row[0])]

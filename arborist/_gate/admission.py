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
  user:VALUE`` and ``.netrc``'s ``password VALUE``; values given by place: a client
  constructor's key (``cohere.Client("KEY")``), a credential constructor's password
  (``NetworkCredential("u", "X")``, ``auth=("u", "X")``), a secret-named string key's
  value (``props.put("mail.smtp.password", "X")``), SQL's ``IDENTIFIED BY X``, an Oracle
  JDBC ``user/X``, ``b2 account authorize ID KEY``, ``lftp -u user,X``, ``zip -P X``;
  a password told in prose (``my password … is X``, ``the passphrase is: X``); a UUID
  given to an ``X-…-Key`` header. The name stays; empty values,
  numbers given to a non-password name, code (``os.environ[...]``, ``args.password``,
  ``password=password``) and placeholders (``***``, ``<...>``, ``${VAR}``, ``{{
  ... }}``, ``xxx``, ``YOUR_API_KEY_HERE``, ``ghp_XXXX...``, ``sk-...``) are left
  alone, and so are a path given to a secret's name and Mapbox's public ``pk.eyJ…``.

Wherever it stands: a token joined to a word by ``-``, ``_`` or ``.``
(``notes-<token>.txt``; every prefix is matched after any character but a letter or
digit), a value given to a name that was itself given as another name's value
(``secret: password: X``), and text with percent-escapes (``token%20ghp_...``,
``password%3D...``), which is searched decoded too; also Azure AD client secrets
(``...8Q~...``), GitLab runner tokens, Square/Meta ``EAA...``, Terraform
``.atlasv1.``, Mapbox ``sk.eyJ``, 1Password ``ops_eyJ``, Cloudflare Origin CA keys
(``v1.0-<hex>-<hex>``), Fly.io tokens (``fm1a_``, ``fm1r_``, ``fm2_``, ``fo1_``),
``.pgpass`` lines (after any character no host name holds), ``*_PAT`` names, and bare
Azure DevOps PATs and Azure storage keys (see :mod:`arborist._gate.shapes`). An AWS key
id whose 16 characters are one filler over and over (``AKIAXXXXXXXXXXXXXXXX``) is a mask.

:func:`admit_error_line` is the one boundary every face prints an error line through.

Secrets are looked for past invisible characters (a soft hyphen or zero-width space
pasted inside a key, dropped; one just before a token, read as a space too) and
percent-escapes (decoded until none is left, at most :data:`DECODE_ROUNDS` times); a
redaction covers them in the original text. A token whose prefix and length no word
holds (``ghp_``, ``glpat-``, ``sk-proj-``, ``hf_``...) is found glued to a word with no
separator (``mytokenghp_...``); htpasswd hashes, an unclosed ``<password>X``, YAML's
``pass: X`` with a password-like value, ``ldapsearch -w``, ``smbclient -U user%X`` and
``echo X | sudo -S`` are read too; so is a password-shaped word in a sentence about signing
in (``password``, ``login``, ``user``, ``prompt``...) or first on the line after a short one,
one after a user's flag (``-u U -p X``, ``-D DN -w X``) or where a tool takes it by place
(``htpasswd -nb U X``, ``net user U X``...), and a bare ngrok token.
:func:`admit_profile` admits every string of a model's or an embedder's profile.

Overlapping matches merge into one redaction; the result is deterministic;
placeholders are never matched again, so admitting twice changes nothing.
Every pattern is linear in the length of the text (no nested quantifiers that
can backtrack catastrophically; a repetition that crosses a line break consumes
the break and what follows it in one step).

Kept, though shaped like secrets: AWS's documented example keys, exactly
(:data:`DOCUMENTED_EXAMPLES`: AWS publishes them as examples that open nothing, and
gitleaks and other scanners allowlist them exactly); a token's prefix and a mask
(``sk_live_XXXX...``: the rest one character over and over, or nearly); a name given
nothing on its line whose line break was lost (``password= username=admin``, a value
opening with ``%0A`` or a written ``\\n``: the next line's name, not a value); a
placeholder joined to a suffix (``Bearer <token>-q4_K_M``, ``${DB_PASSWORD}/api``, the
suffix holding no key); what manuals say (``bench/gate_manuals.py``): prose telling what a thing
is identified by (``the table identified by sqlite_stat1.tbl``: SQL's ``IDENTIFIED BY`` only
after an account), a minus sign just inside a square bracket (``[-pi/2:pi/2]``, no
``mysql -pX``),
the mechanisms an ``auth`` name is given (``--smtp-auth="PLAIN LOGIN"``) and a signature's
armored block (``-----BEGIN PGP SIGNATURE-----``: published beside what it signs). A manual's
example credential given to a password's name (``password=secr3t``) is redacted as a
user's own would be. Read too: a .NET ``<add key=... value="X`` whose closing quote
never comes (to the next space), and a ``Basic`` credential a URL path goes on after
(``Basic <base64>=/status``: the base64 ends at its padding).

The gate is twelve modules under this one: :mod:`arborist._gate.shapes` (the patterns
and the tests of a value), :mod:`arborist._gate.vendors` (the tokens whose prefix names
their vendor, by family), :mod:`arborist._gate.prefilters` (the long words a text's
tokens can be in, and the text past its invisible characters and escapes), :mod:`arborist._gate.finders` (each shape's prefilter and pattern
run over a text), :mod:`arborist._gate.views` (a text read whole once, and its views, decoded,
visible or redacted, only around where they differ from it),
:mod:`arborist._gate.names` (values given to a secret's name, in
any syntax), :mod:`arborist._gate.commands` (passwords given to a tool's flag or kept
in a tool's file), :mod:`arborist._gate.code` (passwords and keys code and prose give
by place), :mod:`arborist._gate.told` (told in another language, cookies, bare base64) and
:mod:`arborist._gate.context` (known by the words around them or a tool's place),
:mod:`arborist._gate.bare` (by their shape alone), :mod:`arborist._gate.handed` (many
languages' names, flags, and what is public), :mod:`arborist._gate.cued` (a cue that names
what follows: app passwords, two-factor seeds, backup codes, .pgpass lines, hex that spells
a token; and more that is public); this one weighs, merges and replaces.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arborist._errors import BadInput
from arborist._gate.cued import cued_public_spans
from arborist._gate.handed import public_spans
from arborist._gate.values import (
    PLACEHOLDER_MARK,
)
from arborist._gate.views import read_candidates, view_public_spans
from arborist._pathref import home_as_tilde
from arborist._text.terminal import inert

__all__ = [
    "Admitted",
    "DOCUMENTED_EXAMPLES",
    "KINDS",
    "PLACEHOLDER",
    "Redaction",
    "admit",
    "admit_document",
    "admit_error_line",
    "admit_profile",
]

PLACEHOLDER = "[REDACTED:{kind}]"
"""What replaces a secret; ``kind`` is one of :data:`KINDS`."""

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


DOCUMENTED_EXAMPLES = (
    "AKIA" + "IOSFODNN7EXAMPLE",
    "AKIA" + "I44QH8DHBEXAMPLE",
    "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY",
    "je7MtGbClwBF/2Zp9Utk/" + "h3yCo8nvbEXAMPLEKEY",
)
"""AWS's documented example credentials, exactly: the two key ids and two secret keys its
documentation and SDKs print (``aws configure``'s walk-through, the IAM guide). AWS
publishes them as examples that open nothing, gitleaks and other scanners allowlist them
exactly, and a reader of AWS's documentation pastes them often: they are kept, as if
every allowlist held them. Only these exact strings (a match equal to one, or inside an
occurrence of one): any other key, one character changed, is redacted. Built by
concatenation so this file does not itself hold them whole."""
_EXAMPLE_MARK = "EXAMPLE"
"""Every one of :data:`DOCUMENTED_EXAMPLES` holds this: a text without it is not searched."""


_MARK = re.compile(
    "|".join(re.escape(PLACEHOLDER.format(kind=kind)) for kind in (*KINDS, "api_key"))
)
"""A mark the gate writes: :data:`PLACEHOLDER` of one of :data:`KINDS`, or of ``api_key``
(:data:`KEY_PLACEHOLDER`, a client's own key in its profile)."""


def _marks(text: str) -> tuple[list[int], list[int]] | None:
    """Where the gate's own marks are in ``text``: their starts and their ends, in order (they
    never overlap); None when it holds none."""
    if PLACEHOLDER_MARK not in text:
        return None
    spans = [m.span() for m in _MARK.finditer(text)]
    return ([a for a, _b in spans], [b for _a, b in spans]) if spans else None


def _off_marks(marks: tuple[list[int], list[int]], start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` widened to the whole of a mark it cuts into, or ``(start, start)``
    when it lies wholly on ``marks``."""
    starts, ends = marks
    i = bisect.bisect_right(ends, start)  # the first mark ending after start
    if i < len(starts) and starts[i] < start:
        start = starts[i]
    at, j = start, i
    while j < len(starts) and starts[j] <= at < end:  # marks one after another from start
        at, j = ends[j], j + 1
    if at >= end:
        return start, start
    k = bisect.bisect_right(ends, end - 1)  # the mark that holds the span's last character
    if k < len(starts) and starts[k] < end:
        end = ends[k]
    return start, end


def _find(
    text: str, allowlist: Sequence[str], near: Sequence[tuple[int, int]] | None = None
) -> tuple[Redaction, ...]:
    """The merged, ordered redactions of ``text`` (positions in ``text``).

    No span on the marks the gate writes (``[REDACTED:kind]``) alone is kept, whichever
    finder gave it, and one that cuts into a mark covers all of it: the round that reads a
    text again after its redactions (and a text admitted twice) holds the marks of the last,
    and a name before one (``kata sandi [REDACTED:openai_key]``) must not take it for its
    value, nor a pattern its words for a token (nested, ``[REDACTED:[REDACTED:password]``,
    it would no longer be one mark). A span from a mark on into the text (``user:[REDACTED:
    password]&rest@host``, the rest of a password the last round cut short) still goes.
    ``near``: only the stretches around these spans are searched (:func:`arborist._gate.views.read_candidates`);
    what is public or allowed is weighed in the whole text."""
    candidates = read_candidates(text, near)
    marks = _marks(text) if candidates else None
    if marks is not None:
        candidates = [(kind, *_off_marks(marks, start, end)) for kind, start, end in candidates]
        candidates = [(kind, start, end) for kind, start, end in candidates if end > start]
    if not candidates:  # most text, and most of a text read again: nothing to weigh
        return ()
    if _EXAMPLE_MARK in text:
        allowlist = (*allowlist, *DOCUMENTED_EXAMPLES)
    allowed = frozenset(allowlist)
    allowed_spans = _allowed_spans(text, allowlist) + public_spans(text) + cued_public_spans(text)
    if "%" in text or not text.isascii():  # a view may show what the text hides
        allowed_spans += view_public_spans(text)
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


def _placeholders(redactions: Sequence[Redaction]) -> list[tuple[int, int]]:
    """Where each of ``redactions``' placeholders stands in the text :func:`_apply` gives."""
    spans: list[tuple[int, int]] = []
    shift = 0
    for r in redactions:
        width = len(PLACEHOLDER.format(kind=r.kind))
        spans.append((r.start + shift, r.start + shift + width))
        shift += width - (r.end - r.start)
    return spans


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

    The user's home is written ``~`` first (:func:`arborist._pathref.home_as_tilde`, the one
    home rule): a redaction's position is in that text.
    """
    text = home_as_tilde(text)
    redactions = _find(text, allowlist)
    if not redactions:  # the text as it is (what _apply gives for no redaction)
        return Admitted(text, redactions)
    for _round in range(MAX_ROUNDS):
        admitted, pieces = _apply(text, redactions)
        more = _find(admitted, allowlist, _placeholders(redactions))
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

    Raises :class:`~arborist._errors.BadInput` when the redacted characters exceed
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


def admit_error_line(message: str) -> str:
    """An error line as a person is shown it: one line, no credential, nothing a terminal
    acts on.

    Every face prints its error lines through this one function (the ``arborist``
    command's printer, the REPL's, the magics' ``UsageError``), whatever raised them: an
    ingest refusal names a path as typed (``notes-ghp_....xyz: unsupported file type``),
    a fetch that failed its URL (``?token=...``), a parser the word it refused, and a
    notebook saves what a cell printed into the ``.ipynb``. The gate reads the line as it
    came (a key that ends in ``\\r`` ends at the ``\\r``), then again once its whitespace
    runs are one space (``Bearer`` and a token that a line break had parted), and
    :func:`arborist._text.terminal.inert` then shows every control character left as an escape.
    No allowlist: an error line is never stored, so erring safe costs nothing.
    """
    line = inert(admit(message).text, one_line=True)
    return inert(admit(line).text, one_line=True)

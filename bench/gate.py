"""The admission gate against corpora of secrets and near misses, beside detect-secrets.

    python bench/gate.py [--quick] [--holdout] [--rounds N] [--channels-only]

Goals (issues #22 and #33): every secret of the dev corpus caught; at least 99% of the
channel corpus's placements caught; no more than 2% of either's near misses redacted;
the built-in demo corpus still admitted with no redaction; ingest throughput within 10%
of the gate issue #22 replaced. ``--quick`` is a smoke run (an eighth of the first channel corpus
alone, no detect-secrets on the
channels, one short timing round, no timing goal). ``--holdout`` also scores the
held-out corpora (``holdout.json``, and ``channels_holdout22.json`` when it is there),
written blind beside the dev ones and never tuned on. ``--channels-only`` stops after the
corpora.

``channels_holdout.json`` was the first blind channel holdout; its figures were seen (at
55d384f: 97.7% caught, 2.8% of near misses flagged) and its leaks fixed, so it is a dev
corpus now, scored on every run. ``channels_holdout2.json`` was the second (seen at
bf83f31: 92.1% caught, 0 of 1014 near misses flagged); its leaks were closed by general
rules, and it too is a dev corpus now, scored on every run. ``holdout.json`` was likewise
seen and fixed before; it is kept under ``--holdout`` for completeness, measuring nothing
blind. ``channels_holdout3.json`` was the third (seen at 63f69a8, the gate of 5aec19b:
1989/2068 placements caught, 96.2%, MISSED; 6/856 near misses flagged, 0.7%, MET;
detect-secrets 806/2068 and 54/856); its leaks were closed by general rules, and it is a
dev corpus now, scored on every run. ``channels_holdout4.json`` was the fourth (seen at
3fd2cce, the gate of 714f421: 1682/1705 placements caught, 98.7%, MISSED; 64/1041 near
misses flagged, 6.1%, MISSED; detect-secrets 643/1705 and 79/1041); its leaks and false
alarms were closed by general rules, and it is a dev corpus now, scored on every run.
``channels_holdout5.json`` was the fifth (seen at 0c05d75, the merge of issue #33's
holdout4 fixes: 2508/2538 placements caught, 98.8%, MISSED, every leak one
secret, a bare key given to ``wandb login``; 8/1555 near misses flagged, 0.5%, MET, all
``Bearer $TOKEN`` with text glued after the variable; detect-secrets 902/2538 and
138/1555); both were closed by general rules (a key given to a tool's ``login`` command;
a shell variable joined to what follows is a placeholder), and it is a dev corpus now,
scored on every run. ``channels_holdout6.json`` was the sixth (seen at da02ba3: 3434/3705
placements caught, 92.7%, MISSED; 23/1732 near misses flagged, 1.3%, MET; detect-secrets
1155/3705 and 111/1732); its leaks and false alarms were closed by general rules (18
placements still leak: a value left alone in a URL path's last segment once its ``%2F`` is
decoded and split, and private keys in a query), and it is a dev corpus now, scored on
every run. ``channels_holdout7.json`` was the seventh (seen at e920116: 3715/4167
placements caught, 89.2%, MISSED; 89/1941 near misses flagged, 4.6%, MISSED;
detect-secrets 1069/4167 and 110/1941); its leaks and false alarms were closed by general
rules (still flagged: a Sentry DSN's key, 27 placements, which ``channels_holdout2.json``
and ``channels_holdout5.json`` count as a secret; still leaking: a client's key percent-
encoded into a profile URL's path, 2 placements), and it is a dev corpus now, scored on
every run. ``channels_holdout8.json`` was the eighth (seen at 4c8d7b0: 4758/5197
placements caught, 91.6%, MISSED; 56/2982 near misses flagged, 1.9%, MET; detect-secrets
2308/5197 and 294/2982); its leaks and false alarms were closed by general rules
(``arborist._gate.told``: passwords told in other languages, config keywords, cookies,
bare base64 that is random bytes or ``user:password``), and it is a dev corpus now,
scored on every run. ``channels_holdout9.json`` was the ninth (seen at 0eb834a: 5129/5380
placements caught, 95.3%, MISSED; 41/2625 near misses flagged, 1.6%, MET; detect-secrets
1596/5380 and 255/2625); its leaks were closed by general rules (base64 whose decoded text
holds a secret, session cookies by name, ``http -a``, Mailgun keys; still leaking: a bare
random password with nothing around it, 33 placements; still flagged: a Twilio Account
SID, which ``channels.json`` counts as a secret), and it is a dev corpus now, scored on
every run. ``channels_holdout10.json`` was the tenth (seen at e2288e3: 5708/6485
placements caught, 88.0%, MISSED; 19/3685 near misses flagged, 0.5%, MET; detect-secrets
2064/6485 and 276/3685); its leaks were closed by general rules (a password named in other
scripts and languages, spaced secrets after their names, 32 bytes of unpadded base64: 98.5%
caught, 8 flagged; then ``arborist._gate.context``, a password known by the words around it,
a user's flag before it or a tool's place, and bare keys and PuTTY keys behind escaped line
breaks: 6485/6485 caught, the same 8 flagged), and it is a dev corpus now, scored on every
run. ``channels_holdout11.json`` was the eleventh (158 secrets x 48 placements, 90 near
misses; scored with the gate of b09aae1 before the eleventh round's rules, the figures
alone read: 6495/7339 caught, 88.5%, and 66/4032 flagged, 1.6%; then seen once with the
eleventh round's gate, bc98170: 6689/7339 placements caught, 91.1%, MISSED; 84/4032 near
misses flagged, 2.1%, MISSED; detect-secrets 2429/7339 and 285/4032): eleven blind rounds
have each found a tenth or less of a new writer's placements uncaught, and a round's
rules carry two or three points onto the next writer's set. It is a dev corpus now,
scored on every run. Its false alarms were names given nothing (``"API_KEY=",next``,
``api_key: null/…``, ``$API_KEY: token expired``), a public key given to its name
(``PublicKey = <base64>``), a build's release and a model's tag read as passwords
(``GRCh38.p14``, ``gpt-4o-mini#Reset``) and an undecodable escape in a URL's name; its leaks,
passwords with no name near them, wallets' keys and seed phrases, a key decoded where it is
given, app passwords and recovery codes, grouped and hyphen-wrapped keys and passwords
named in more languages. With the eleventh round's rules (``arborist._gate.bare``, a
short text's words weighed by their shape alone, wallets' keys, a key decoded where it is
given; and the modules beside it), ours alone (detect-secrets not rerun): 7338/7339 caught
(100.0%; the one leak a PuTTY key's private line in a URL path's last segment, its line
breaks lost) and 0/4032 flagged. The other dev corpora, the same run: ``channels.json``
3711/3711 and 0/1532; ``channels_holdout.json`` 1061/1061, 1/464; ``…2`` 2228/2228, 0/1014;
``…3`` 2068/2068, 0/856; ``…4`` 1705/1705, 1/1041; ``…5`` 2538/2538, 0/1555; ``…6``
3705/3705, 0/1732; ``…7`` 4167/4167, 30/1941 (1.5%: a Sentry DSN's key, 27, as decided);
``…8`` 5197/5197, 0/2982; ``…9`` 5373/5380 (99.9%: a bare random password joined to a
name, ``backup_7=…``, and a password opening with ``#`` in a query), 34/2625 (the Twilio
SID, as decided); ``…10`` 6485/6485, 2/3685; ``corpus.json`` 135/135, 2/116; ``holdout.json``
43/43, 0/36. These are dev figures, fitted to: a blind writer's set says what carries.
``channels_holdout12.json`` was the twelfth (166 secrets x 48 placements, 90 near misses;
scored with main's gate before this round, 6abc6e2, the figures alone read: 6368/7645
caught, 83.3%, and 197/4080 flagged, 4.8%; then seen once with this round's gate, the merge
of 'gate12': 6815/7645 placements caught, 89.1%, MISSED; 230/3990 near misses flagged, 5.8%,
MISSED; detect-secrets 2146/7645 and 433/3990). The round carried six points onto a new
writer's set and cost one of false alarms: its leaks are passwords named in yet other
languages (Dutch, Vietnamese, Finnish), a password a sentence hands over with no name near
it ("then hunter2-lab gets you sudo", "set to Tmp-8842-Welcome"), an alarm code, a wallet's
hex key after "metamask export", a WPA ``psk=``, ``xfreerdp /p:``, an IRC ``PASS oauth:``,
a ``cloudflared`` token, a webhook's path and a token split across two literals; its false
alarms a public key's name (``NEXT_PUBLIC_POSTHOG_KEY=phc_…``), a reCAPTCHA site key, an
Ethereum address, a certificate and the jwt.io sample token. It is a dev corpus now, scored
on every run. The thirteenth round's rules (``arborist._gate.handed``, by classes: a
password's name in many languages at once with their verbs of saying, a door's code, tool
flags that take a password (``/p:``, ``psk=``, a protocol's ``PASS``), a password handed by
what it opens, webhook paths on any host, split literals, armored key blocks and keypair
arrays, recovery codes one a line, numbered seed phrases, ``Label: user / password`` lines;
kept as public: ``0x`` addresses, public names' values, certificates' and public keys'
armor, published sample tokens; and a shell's ``$(…)`` is code) gave, ours alone:
``channels_holdout12.json`` 7614/7645 caught (99.6%; left: a user / password line in a
URL or a title, names in file names whose spaces became ``_``, a numbered seed phrase and
recovery codes in a query, a tunnel token in file names, a password after a model's ``:``)
and 15/3990 flagged (0.4%: a certificate, the jwt.io sample and a git commit in an error
line cut short, config lines given to ``?api_key=``); the other dev corpora the same run:
``channels.json`` 3711/3711, 0/1532; ``…`` (the first holdout) 1061/1061, 1/432 (a
``/hooks/`` placement now names its value, as a URL's password slot does); ``…2``
2228/2228, 0/976 (the same); ``…3`` 2068/2068, 0/856; ``…4`` 1705/1705, 1/1041; ``…5``
2538/2538, 0/1555; ``…6`` 3705/3705, 0/1732; ``…7`` 4167/4167, 30/1941; ``…8`` 5197/5197,
0/2982; ``…9`` 5373/5380, 34/2625; ``…10`` 6485/6485, 2/3685; ``…11`` 7338/7339, 0/4032;
``corpus.json`` 135/135, 0/116 (a PGP public key block and a certificate no longer flagged);
``holdout.json`` 43/43, 0/36.

``channels_holdout13.json`` (179 secrets x 48 placements, 91 near misses), written blind by
a helper who read no code and no earlier corpus, committed at 70130e2 before anything was
measured on it, was scored once: the gate before the thirteenth round (9a82a8d's, the figure
alone read) caught 7163/8128 (88.1%) and flagged 195/4076 (4.8%); the thirteenth round's
(merge of 'gate13') 7309/8128 (89.9%) and 122/4076 (3.0%); detect-secrets 2466/8128 (30.3%)
and 397/4076 (9.7%). It is a dev corpus now. The fourteenth round's rules
(``arborist._gate.cued``: what a cue names, app passwords, two-factor seeds, grouped backup
codes, ``.pgpass`` lines, hex spelling a token, quoted passphrases, escaped JSON, cookies told
in prose; Discord look-alikes, Nostr keys, a PUK, literals split over two lines; public:
PostHog project keys, Google document ids, public JSON Web Keys) gave, ours alone: 8063/8128
caught (99.2%) and 22/4076 flagged (0.5%); every other dev corpus identical, leak for leak.

``channels_holdout14.json`` (184 secrets x 48 placements, 92 near misses), written blind the
same way and committed at 1a15849 before anything was measured on it, was scored once: the
gate before the fourteenth round (dd034d3's, the figure alone read) caught 8008/8588
(93.2%) and flagged 62/4088 (1.5%); the fourteenth round's (0444032) 8047/8588 (93.7%,
MISSED) and 105/4088 (2.6%, MISSED: 43 of them one regex given to ``password_policy:``, which
the round's quoted-password rule read as a password); detect-secrets 2473/8588 (28.8%) and
357/4088 (8.7%). Its leaks and false alarms were then closed by general rules (a quoted
value only after a name that ends there; a code after its name with no colon; an app
password of sixteen letters; a seed of sixteen base32 letters with no digit; a value given
in parts, ``…_PART_1=``/``…_PART_2=``, read joined; Arabic's and Hindi's verb of saying;
``creds for X: user:password``; a token ``for the X:`` with a strong value; a PowerShell
cmdlet that fetches a value is code; then ``wifi: user / password`` anywhere in a line):
8548/8588 (99.5%) and 17/4088 (0.4%), a dev corpus now, scored on every run.

``channels_holdout15.json`` (184 secrets x 48 placements, 94 near misses), written blind by a
writer asked to think of leaks a rule-writer would not think of first (product and license
keys, gift cards, pairing and setup codes, game and school accounts, IoT keys, OCR'd
stickers), committed at 1661e8a, was scored once with the fourteenth round's gate (ac09afa,
fitted to the thirteenth and fourteenth corpora): 7222/8574 caught (84.2%, MISSED) and
51/4328 flagged (1.2%, MET); dd034d3's gate, the figure alone read: 7129/8574 (83.1%) and
50/4328 (1.2%); detect-secrets 1597/8574 (18.6%) and 214/4328 (4.9%). It is a dev corpus
now, fitted by the fifteenth round (arborist/_gate/codes.py: product, license and gift keys;
access codes after their names in several languages; a device's typed secrets, SNMP
communities, ``adb pair``, Wi-Fi QR payloads and a router sticker's key; scrambled ``…key``
members and byte lists; license blocks; grouped two-factor seeds; a sheet row's password;
and elsewhere a foreign password's name before a colon taking a one-case value, a URL's
password holding ``?``, a numbered seed phrase without spaces, ``login for X: user / pass``,
a note in parentheses between a name and its colon, an ``Authorization`` header joined to a
file name; public: Stripe publishable keys, a product key its line calls published):
8551/8574 (99.7%) and 12/4328 (0.3%).

``channels_holdout16.json`` (187 secrets x 48 placements, 100 near misses), written blind by a
writer asked to be broad (at least 90 kinds, ten languages), committed at 37f831a, was scored
once with the fifteenth round's gate (fe0402c): 8236/8699 caught (94.7%, MISSED) and 112/4468
flagged (2.5%, MISSED); 0544829's gate, the figure alone read: 7956/8699 (91.5%) and 112/4468
(2.5%); detect-secrets 2464/8699 (28.3%) and 394/4468 (8.8%). Its leaks: card numbers and a
CVC, app passwords written bare or after ``App-Passwort``, a Zoom ``Kenncode``, a diceware
passphrase with nothing around it, an SNMP community given to ``snmpwalk -c``; its false
alarms, 90 of them two lines: a tool's help (``-p, --password    prompt for the password``) and
a Japanese sentence about passwords. A dev corpus now, fitted by the sixteenth round
(arborist/_gate/cards.py: a card's number by its network's prefix and Luhn's check, anywhere in
a short text and after a word for a card in a longer one, its CVC; in codes.py an app password
written bare, ``snmpwalk -c``, ``Kenncode``, a code after ``Alarmanlage``, a passphrase with
numbers among its words; a flag's help text is no flag's value; a password told in Japanese
ends where the sentence's words start; Hugging Face tokens with digits; recovery codes split by
``%0A``): 8650/8699 (99.4%) and 22/4468 (0.5%). Two of a script's names (``пароль``,
``暗証番号``) were read once per name in a run with no spaces (a 48 KB run took 182 s); read
to a bounded word's end now, linear.

``channels_holdout17.json`` (189 secrets x 48 placements, 95 near misses), written blind by a
writer asked for secrets as people write them in passing (chat, e-mail, tickets, OCR'd
screenshots, voice-note transcripts, shell history) and for near misses that talk about
credentials without holding one, committed at 55da5a5, was scored once with the sixteenth
round's gate (15b174f): 7777/8822 caught (88.2%, MISSED) and 174/4143 flagged (4.2%, MISSED);
the fifteenth round's gate (980e5d2), the figure alone read: 7597/8822 (86.1%) and 176/4143
(4.2%); detect-secrets 2081/8822 (23.6%) and 309/4143 (7.5%). Its leaks are codes told in a
sentence (a garage's, a safe's, a lockbox's, a parcel locker's, a phone's PIN, an SMS code),
passwords told in Italian, Turkish and a voice note's words, hashes (NTLM, bcrypt), a MEGA
link's key; 126 of its false alarms are three lines the gates before flagged the same (an SSH
public key, a Helm chart's ``existingSecret`` name, a secret manager's ARN). A dev corpus now,
fitted by the seventeenth round (a name and what it is for before its colon, an arrow after it;
a foreign password's name with a note in parentheses, or after a space alone, Turkish's
``şifrem X``; ``password`` before another language's verb of saying; a word and a number told
after a verb; a password with a mark and no digit; codes named by compounds, ``lockbox``,
``Abholcode``, ``Garagentor-Code``, a safe's combination, a CVV after a space, a Maestro card
named as one, a voucher; password hashes, bcrypt, argon2, crypt's SHA, yescrypt and an NT dump
line; a key in a URL's fragment; public: an SSH public key's line, an AWS ARN, a Kubernetes
secret's name): 8482/8822 (96.1%) and 66/4143 (1.6%), the rest bare numbers and bare words.

``channels_holdout18.json`` (190 secrets x 48 placements, 95 near misses), written blind by a
writer asked for the breadth of what a researcher's notebook leaks (many vendors, eleven
languages, key material, everyday codes, tokens joined to other text), committed at 43c9ff7,
was scored once with the seventeenth round's gate (df48024): 7704/8366 caught (92.1%, MISSED)
and 144/3502 flagged (4.1%, MISSED); 49a6770's gate (the sixteenth round's), the figure alone
read: 7650/8366 (91.4%) and 174/3597 (4.8%); detect-secrets 2008/8366 (24.0%) and 280/3502
(8.0%). Its leaks are mostly bare: passwords and passphrases with nothing around them, a
locker's combination, a TOTP seed, an Ethereum key (a transaction's hash has its shape), a
Vercel token; and a ``Tresor-Kombination``, a Django insecure key, an Okta token, an e-mail
address as an SMTP URL's user name, a token after ``backup_`` in a file name. Its false alarms:
a Twilio Account SID (kept redacted: the decision below), a type's name after a token's name
(``api_token: SecretStr``), and public blocks and secret names inside escaped file names and
URLs. A dev corpus now, fitted by the eighteenth round (what is public is weighed in the view
that shows it, escapes decoded; the rest above): 7915/8366 (94.6%) and 84/3502 (2.4%), the
rest bare words and numbers, an Ethereum key, and the Twilio SID's 36 false alarms.
``channels_holdout19.json`` (195 secrets x 48 placements, 101 near misses), written blind by a
writer asked for what a research group's shared material leaks (a lab wiki, a chat export,
notebooks, CI logs, cluster job scripts, cloud-sync configs, password-manager and browser
exports, dotfiles), committed at cfdaf2e, was scored once with the eighteenth round's gate
(dc13018): 7635/8790 caught (86.9%, MISSED) and 150/4542 flagged (3.3%, MISSED); 49a6770's gate
(the sixteenth round's), the figure alone read: 7574/8790 (86.2%) and 158/4542 (3.5%);
detect-secrets 2375/8790 (27.0%) and 199/4542 (4.4%). Half its secrets were written bare, and
those are most of its leaks (passwords, passphrases, a W&B key that is hex like a commit's
hash, a session cookie in one case). A dev corpus now, fitted by the nineteenth round
(PostgreSQL's ``WITH PASSWORD``, German compounds ending in ``passwort``, ``code porte``, a
spaced dial-in PIN, a locker's combination, a card's ``Prüfziffer``, a token after a full-width
colon, an account's row after a user name (arborist/_gate/rows.py), a bare TOTP seed in a
field, a password's last ``*``; a calendar's ``UID:…@host`` is no URL password): 8083/8790
(92.0%) and 150/4542 (3.3%), its false alarms a Sentry DSN (which the eighteenth writer called
a secret and this one public: kept redacted), a cache key's hex after ``key=``, and that UID.

``channels_holdout20.json`` (192 secrets x 48 placements, 95 near misses), written blind by a
writer asked for what researchers and students type into their own notes and tools (journals,
READMEs, ``.env`` files, shell histories, notebooks, tickets, forum posts, course material,
cloud-GPU rentals, the keys of many LLM providers), committed at 40067fc, was scored once with
the nineteenth round's gate (92d7c7a): 8055/8835 caught (91.2%, MISSED) and 3/4355 flagged
(0.1%, MET); 49a6770's gate (the sixteenth round's), the figure alone read: 8002/8835 (90.6%)
and 3/4355 (0.1%); detect-secrets 2497/8835 (28.3%) and 203/4355 (4.7%). Its leaks: keys that
are bare hex (Kaggle's, Twilio's, Datadog's, Paperspace's, figshare's: a hash's shape), bare
passphrases and recovery codes, and a Zapier hook, a cookie's line, a Spanish door code, a
keypad's code, a passphrase joined by hyphens, an API key named with what it is for in three
words. A dev corpus now, fitted by the twentieth round (those named after "and"): 8308/8835
(94.0%) and 3/4355 (0.1%).
``channels_holdout21.json`` (193 secrets x 48 placements, 96 near misses), written blind by a
writer asked for what operations people, SREs and home-lab hobbyists paste into their notes
and tools (CI configs, Kubernetes and Helm values, Terraform and Ansible, compose files,
router and NAS configs, Home Assistant's ``secrets.yaml``, shell histories, postmortems,
tickets, chat in thirteen languages), committed at 5730c17, was scored once with the gate of
b554373 (the twentieth round's): 7950/8688 caught (91.5%, MISSED) and 244/3928 flagged (6.2%,
MISSED); detect-secrets 3004/8688 (34.6%) and 244/3928 (6.2%). Its false alarms are five
near misses flagged wherever they stand: a placeholder ``sk_live_REPLACE_ME``, Home
Assistant's ``!secret name``, ``-p"$MYSQL_ROOT_PASSWORD"``, an Ansible vault ``lookup(...)``
and a Japanese sentence that says where a password is kept. Its leaks: passwords and
passphrases told in Italian, Polish, German and Chinese prose, Wi-Fi keys of words joined by
dots, an IPMI sticker's bare password, a ``docker login -p='…'``, ``hmacKey:``,
``consumer_key=``, ``alarm_code: '2483'``, a Jetty ``JSESSIONID.<node>=`` cookie, a Datadog
key joined into a file name, a GCP service account's key. A dev corpus now, fitted by the
twenty-first round (a token's prefix before a placeholder's word, a shell variable in double
quotes, a YAML tag, a vault's path and a password manager's name are nothing; a passphrase of
plain words told as a password, a word for "now" after the verb, a camelCase key's name, letters
alone as a key, ``alarm_code``, a cookie's node suffix, ``-p='…'``, net-snmp's ``-A``/``-X``,
``sudo -S … <<<``, strongSwan's ``: PSK``, Honeycomb's header, Cisco's ``enable secret``, a
BMC's sticker, a value under "the following password:", Postfix's ``sasl_passwd``, a key's
name joined to hex in a file's name, base64 of a file whose lines hold a key): 8640/8688
(99.4%) and 49/3928 (1.2%); every other dev corpus unchanged but for two placements that give
``key_`` a value (``…8``, ``…9``: 78 near misses fewer placed) and two false alarms fewer
(``…17``).
``channels_holdout22.json`` (198 secrets x 48 placements, 99 near misses), written blind by a
writer asked for what business-software, shop, payments, mobile and data teams and the IT
staff of clinics, schools, law and accounting offices paste (SaaS integrations, payment
processors, app signing, warehouses, identity providers, device management, health records,
school systems, door and safe codes; fifteen languages, three written right to left; a third
of its secrets bare or behind a vague phrase), committed at 83546ca, was scored once with the
twenty-first round's gate (the merge of 'gate21'): 6453/8928 caught (72.3%, MISSED) and
242/4438 flagged (5.5%, MISSED); main's gate before that round (d333e90's), the figure alone read:
6452/8928 (72.3%) and 279/4438 (6.3%); detect-secrets 1465/8928 (16.4%) and 571/4438 (12.9%).
The twenty-first round's rules carried one placement onto this writer's set. Its leaks are
mostly what nothing around them names: bare hex keys (Amplitude's, Clever's, Twilio's auth
token: a hash's shape), bare passwords and passphrases in many scripts
(``Kaffeebohne_Montag_17``, ``sieben-katzen-tanzen-leise``, ``ירושלים-זהב-42``), vendor
tokens with a public-looking prefix (Klaviyo's ``pk_``, WooCommerce's ``ck_``), a
Microsoft app password, MFA backup codes, and values after a phrase that names no secret
("the one from the console:", "der zweite Wert:", "нове:"); its false alarms a Twilio
Messaging Service SID, Stripe's documented sample key, a JWKS public key, an invoice's
payment reference and a Drive folder's id. Not fitted yet: it is the next round's dev corpus,
and ``channels_holdout23.json`` the next blind one (``--holdout`` scores whichever
:data:`CHANNELS_HOLDOUT` names, once it is there).

* **Ours, texts** (``corpus.json``): a secret is caught when its ``secret`` substring
  is no longer in :func:`arborist._gate.admission.admit`'s output; a near miss is flagged
  when the output has any redaction.
* **Ours, channels** (``channels.json``): each secret (with the name or suffix its
  entry gives around it; percent-encoded where the placement says so) is put into
  each placement template of each channel, and the text goes through the path that
  channel takes into the stores or onto the screen:

  - document text, file names, folder names: ``load_bytes``/``load_path`` (a real
    file in a scratch folder) and ``prepare_document``: the URI, the title and the
    text it stores; a refused document stores nothing and its one-line refusal
    is the output;
  - URL path and query: ``load_bytes`` as ``fetch_url`` calls it (the name from the
    URL's last path segment), then ``prepare_document``; nothing is fetched;
  - titles: an HTML page's ``<title>``, loaded and prepared;
  - questions: what ``runner.ask`` admits; labels: ``Arborist.new_session``'s stored
    label; falsify reasons: ``Arborist.admitted``, what ``Arborist.falsify`` stores;
  - profile fields: ``OpenAIClient(base_url, model)``'s ``profile()`` (through
    ``admit_profile``) and ``repr``, or its one-line refusal;
  - error lines: a loopback chat server answers 401 with the text as its error
    message, and the output is the client's one-line ``ModelError`` as every face
    prints an error line: through :func:`arborist._gate.admission.admit_error_line`, the one
    boundary of the CLI's, the REPL's and the magics' error lines.

  A placement is caught when neither the secret nor its percent-encoded form is in
  the output. Each near miss goes into each placement that does not name its value
  (a near miss is flagged when its output has any redaction); a placement names its
  value when it redacts a plain word (``Orchard``, ``Orchard7Harbor9Lantern3``) put in
  it (``token={secret}``, ``?key={secret}``, ``secret_key: {secret}``) or stands in
  a URL's password slot (``://user:{secret}@``, a password by where it stands, which
  the client drops whole): those placements are listed in the report.

  Counted out, each one named in the report, never dropped: a secret (with its name)
  holding ``/`` in a file or folder name, which no name can hold, and one longer than
  a file name may be (255 bytes), and a placement in a channel the bench has no path for.
  A name without a suffix ingest reads (``{secret}`` alone) is given ``.txt``, since a
  walk skips it otherwise. A path that raises (what no face should) counts its secret as
  leaked and its near miss as flagged, each error named: a blind corpus is run once, and
  one traceback must not stop the rest.
* **detect-secrets** (PyPI, its default plugins and filters, as ``detect-secrets
  scan`` runs them on a file): a secret is caught when a line holding part of
  it is flagged; a near miss is flagged when any of its lines is. It reports
  lines, it does not rewrite them, so this is the more lenient count. On the
  channels it reads the placed text itself (not what a path stores of it).
* **Throughput**: the gate alone on the demo corpus's text, and a whole ingest
  (``prepare_document`` + ``store_document`` into a fresh store) with the gate
  as it is and with the gate at the commit before issue #22's changes
  (``OLD_GATE``, read with ``git show``), interleaved round by round in one
  process: the best of N each, and the goal on the median of the rounds' ratios,
  since machines here are shared and noisy.
"""

from __future__ import annotations

import argparse
import contextlib
import html
import importlib.util
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arborist._gate import admission  # noqa: E402
from arborist._gate.values import PLACEHOLDER_MARK  # noqa: E402
from arborist._store import documents  # noqa: E402
from arborist._store.demo import demo_corpus  # noqa: E402

CORPUS = ROOT / "bench" / "secret_corpus" / "corpus.json"
HOLDOUT = ROOT / "bench" / "secret_corpus" / "holdout.json"
CHANNELS = ROOT / "bench" / "secret_corpus" / "channels.json"
CHANNELS_SEEN = ROOT / "bench" / "secret_corpus" / "channels_holdout.json"
"""The first blind channel holdout: seen at 55d384f and fixed since, a dev corpus now."""
CHANNELS_SEEN2 = ROOT / "bench" / "secret_corpus" / "channels_holdout2.json"
"""The second blind channel holdout: seen at bf83f31 and fixed since, a dev corpus now."""
CHANNELS_SEEN3 = ROOT / "bench" / "secret_corpus" / "channels_holdout3.json"
"""The third blind channel holdout: seen at 63f69a8 and fixed since, a dev corpus now."""
CHANNELS_SEEN4 = ROOT / "bench" / "secret_corpus" / "channels_holdout4.json"
"""The fourth blind channel holdout: seen at 3fd2cce and fixed since, a dev corpus now."""
CHANNELS_SEEN5 = ROOT / "bench" / "secret_corpus" / "channels_holdout5.json"
"""The fifth blind channel holdout: seen at 0c05d75 and fixed since, a dev corpus now."""
CHANNELS_SEEN6 = ROOT / "bench" / "secret_corpus" / "channels_holdout6.json"
"""The sixth blind channel holdout: seen at da02ba3 and fixed since, a dev corpus now."""
CHANNELS_SEEN7 = ROOT / "bench" / "secret_corpus" / "channels_holdout7.json"
"""The seventh blind channel holdout: seen at e920116 and fixed since, a dev corpus now."""
CHANNELS_SEEN8 = ROOT / "bench" / "secret_corpus" / "channels_holdout8.json"
"""The eighth blind channel holdout: seen at 4c8d7b0 and fixed since, a dev corpus now."""
CHANNELS_SEEN9 = ROOT / "bench" / "secret_corpus" / "channels_holdout9.json"
"""The ninth blind channel holdout: seen at 0eb834a and fixed since, a dev corpus now."""
CHANNELS_SEEN10 = ROOT / "bench" / "secret_corpus" / "channels_holdout10.json"
"""The tenth blind channel holdout: seen at e2288e3 and fixed since, a dev corpus now."""
CHANNELS_SEEN11 = ROOT / "bench" / "secret_corpus" / "channels_holdout11.json"
"""The eleventh blind channel holdout: seen at bc98170, a dev corpus now."""
CHANNELS_SEEN12 = ROOT / "bench" / "secret_corpus" / "channels_holdout12.json"
"""The twelfth blind channel holdout: seen at the merge of 'gate12', a dev corpus now."""
CHANNELS_SEEN13 = ROOT / "bench" / "secret_corpus" / "channels_holdout13.json"
"""The thirteenth blind channel holdout: seen at the merge of 'gate13', a dev corpus now."""
CHANNELS_SEEN14 = ROOT / "bench" / "secret_corpus" / "channels_holdout14.json"
"""The fourteenth blind channel holdout: seen at the merge of 'gate14', a dev corpus now."""
CHANNELS_SEEN15 = ROOT / "bench" / "secret_corpus" / "channels_holdout15.json"
"""The fifteenth blind channel holdout: seen at ac09afa, a dev corpus now."""
CHANNELS_SEEN16 = ROOT / "bench" / "secret_corpus" / "channels_holdout16.json"
"""The sixteenth blind channel holdout: seen at the merge of 'fu15' and 'refuse', a dev corpus now."""
CHANNELS_SEEN17 = ROOT / "bench" / "secret_corpus" / "channels_holdout17.json"
"""The seventeenth blind channel holdout: seen at 15b174f, a dev corpus now."""
CHANNELS_SEEN18 = ROOT / "bench" / "secret_corpus" / "channels_holdout18.json"
"""The eighteenth blind channel holdout: seen at df48024, a dev corpus now."""
CHANNELS_SEEN19 = ROOT / "bench" / "secret_corpus" / "channels_holdout19.json"
"""The nineteenth blind channel holdout: seen at dc13018, a dev corpus now."""
CHANNELS_SEEN20 = ROOT / "bench" / "secret_corpus" / "channels_holdout20.json"
"""The twentieth blind channel holdout: seen at 92d7c7a, a dev corpus now."""
CHANNELS_SEEN21 = ROOT / "bench" / "secret_corpus" / "channels_holdout21.json"
"""The twenty-first blind channel holdout: seen at b554373, a dev corpus now."""
CHANNELS_HOLDOUT = ROOT / "bench" / "secret_corpus" / "channels_holdout22.json"
"""The blind channel holdout ``--holdout`` scores when it is there (the lead commits it)."""
QUICK_EVERY = 8
"""``--quick`` scores every eighth secret and near miss of the first channel corpus, each
through every placement (a smoke run: the paths, not the figures)."""
OLD_GATE = "c8136f0"
"""The commit whose arborist/admission.py is the gate before issue #22's changes."""
MAX_NEAR_MISS_FLAGGED = 0.02
MIN_PLACEMENTS_CAUGHT = 0.99
MIN_THROUGHPUT_RATIO = 0.90


def load(path: Path) -> dict[str, list[dict[str, str]]]:
    corpus: dict[str, list[dict[str, str]]] = json.loads(path.read_text(encoding="utf-8"))
    return corpus


# --- ours ------------------------------------------------------------------------------


def ours(corpus: dict[str, list[dict[str, str]]]) -> tuple[list[str], list[str]]:
    """The ids of the secrets missed and of the near misses flagged by our gate."""
    missed = [s["id"] for s in corpus["secrets"] if s["secret"] in admission.admit(s["text"]).text]
    flagged = [n["id"] for n in corpus["near_misses"] if admission.admit(n["text"]).redactions]
    return missed, flagged


# --- detect-secrets --------------------------------------------------------------------


def _flagged_lines(text: str, scratch: Path) -> set[int] | None:
    """The 1-based line numbers detect-secrets flags in ``text`` written to a file;
    None when detect-secrets is not installed."""
    try:
        from detect_secrets.core.secrets_collection import SecretsCollection  # noqa: PLC0415
        from detect_secrets.settings import default_settings  # noqa: PLC0415
    except ImportError:
        return None
    path = scratch / "sample.txt"
    path.write_text(text, encoding="utf-8")
    found = SecretsCollection()
    with default_settings():
        found.scan_file(str(path))
    return {secret.line_number for _name, secret in found}


def _secret_lines(text: str, secret: str) -> set[int]:
    start = text.index(secret)
    first = text.count("\n", 0, start) + 1
    return set(range(first, first + secret.count("\n") + 1))


def detect_secrets(corpus: dict[str, list[dict[str, str]]]) -> tuple[list[str], list[str]] | None:
    """The ids of the secrets missed and of the near misses flagged by detect-secrets."""
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        missed, flagged = [], []
        for s in corpus["secrets"]:
            lines = _flagged_lines(s["text"], scratch)
            if lines is None:
                return None
            if not lines & _secret_lines(s["text"], s["secret"]):
                missed.append(s["id"])
        for n in corpus["near_misses"]:
            if _flagged_lines(n["text"], scratch):
                flagged.append(n["id"])
    return missed, flagged


# --- channels --------------------------------------------------------------------------
#
# Every input channel, each through the path it takes into the stores. A runner takes the
# placed text and returns what the stores (or the screen) get of it.


class _Channels:
    """The real path of each channel, set up once: a scratch folder for files and folders,
    a home for session labels, a loopback chat server for error lines."""

    def __init__(self, scratch: Path) -> None:
        from arborist._facade.app import Arborist  # noqa: PLC0415
        from tests.chat_server import ChatServer  # noqa: PLC0415 - the loopback test server

        self.scratch = scratch
        self.app = Arborist(scratch / "home")
        self.server = ChatServer()
        self.server.start()
        self.made = 0

    def close(self) -> None:
        self.server.stop()
        self.app.close()

    def run(self, channel: str, text: str) -> str:
        """What ``channel`` stores or shows of ``text``; a refused text (a label holding a
        control character) stores nothing, and its one-line refusal, as every face prints
        it, is the output."""
        from arborist._errors import BadInput  # noqa: PLC0415

        try:
            return str(getattr(self, f"_{channel}")(text))
        except BadInput as exc:
            return admission.admit_error_line(str(exc))

    # documents: the text, its title and its URI, as prepare_document admits them
    @staticmethod
    def _prepared(loaded: Any) -> str:
        """The URI, title and text a document is stored with; a refused one stores
        nothing, and its one-line refusal is what the user sees."""
        from arborist._errors import BadInput  # noqa: PLC0415

        try:
            doc = documents.prepare_document(loaded)
        except BadInput as exc:
            return str(exc)
        return "\n".join((doc.uri, doc.title, doc.text))

    def _document_text(self, text: str) -> str:
        from arborist._store.loaders import load_bytes  # noqa: PLC0415

        data = text.encode("utf-8")
        return self._prepared(load_bytes(data, uri="file:///srv/notes/notes.md", name="notes.md"))

    def _fresh(self) -> Path:
        self.made += 1
        folder = self.scratch / f"p{self.made}"
        folder.mkdir()
        return folder

    def _file_name(self, name: str) -> str:
        from arborist._store.loaders import SUPPORTED_SUFFIXES, load_path  # noqa: PLC0415

        if Path(name).suffix.lower() not in SUPPORTED_SUFFIXES:
            name += ".txt"  # a name no ingest reads (no suffix it knows) is given one
        path = self._fresh() / name
        path.write_text("Meeting notes: the rollout moves to Tuesday.\n", encoding="utf-8")
        return self._prepared(load_path(path))

    def _folder_name(self, name: str) -> str:
        from arborist._store.loaders import load_path  # noqa: PLC0415

        folder = self._fresh() / name
        folder.mkdir()
        path = folder / "notes.txt"
        path.write_text("Meeting notes: the rollout moves to Tuesday.\n", encoding="utf-8")
        return self._prepared(load_path(path))

    def _url(self, url: str) -> str:
        """What a fetched page stores: load_bytes as fetch_url calls it (the name from the
        URL's last path segment), never a connection."""
        from urllib.parse import urlsplit  # noqa: PLC0415

        from arborist._store.fetch import url_file_name  # noqa: PLC0415
        from arborist._store.loaders import load_bytes  # noqa: PLC0415

        parts = urlsplit(url)
        name = url_file_name(parts.path, parts.hostname or "")
        data = b"<html><body><p>Meeting notes: the rollout moves to Tuesday.</p></body></html>"
        return self._prepared(load_bytes(data, uri=url, name=name, media_type="text/html"))

    _url_path = _url
    _url_query = _url

    def _title(self, title: str) -> str:
        from arborist._store.loaders import load_bytes  # noqa: PLC0415

        page = f"<html><head><title>{html.escape(title)}</title></head><body><p>notes</p></body>"
        loaded = load_bytes(page.encode("utf-8"), uri="https://example.org/a.html", name="a.html")
        return self._prepared(loaded)

    @staticmethod
    def _question(question: str) -> str:
        from arborist._qa.runner import _normalized_question  # noqa: PLC0415

        return admission.admit(_normalized_question(question)).text  # as runner.ask does

    def _label(self, label: str) -> str:
        return self.app.new_session(label).label or ""  # the label as sessions.db holds it

    def _reason(self, reason: str) -> str:
        return self.app.admitted(reason)  # what Arborist.falsify stores

    @staticmethod
    def _profile(base_url: str, model: str) -> str:
        from arborist._errors import ArboristError  # noqa: PLC0415
        from arborist._qa.openai import OpenAIClient  # noqa: PLC0415

        try:
            client = OpenAIClient(base_url, model)
        except ArboristError as exc:  # what the user sees instead
            return str(exc)
        return json.dumps([client.profile(), repr(client)])

    def _profile_url(self, url: str) -> str:
        return self._profile(url, "test-model")

    def _profile_model(self, model: str) -> str:
        return self._profile("http://127.0.0.1:9/v1", model)

    def _error_line(self, line: str) -> str:
        """A server's error body, as the client renders it in its one-line error and a
        face prints that (:func:`arborist._gate.admission.admit_error_line`)."""
        from arborist._errors import ModelError  # noqa: PLC0415
        from arborist._qa.client import ChatRequest, Message  # noqa: PLC0415
        from arborist._qa.http import HttpSettings  # noqa: PLC0415
        from arborist._qa.openai import OpenAIClient  # noqa: PLC0415
        from tests.chat_server import error_reply  # noqa: PLC0415

        self.server.script(error_reply(401, line))
        client = OpenAIClient(self.server.url, "test-model", http=HttpSettings(max_retries=0))
        try:
            client.complete(ChatRequest("q", (), (Message("user", "q"),)))
        except ModelError as exc:
            return admission.admit_error_line(str(exc))
        raise AssertionError("the server was scripted to refuse")


def _placed(secret: dict[str, Any], placement: dict[str, Any]) -> tuple[str, list[str]]:
    """The placement's text with the secret (its name and suffix around it) in it, and the
    forms of the secret whose presence in an output is a leak."""
    value = secret.get("prefix", "") + secret["secret"] + secret.get("suffix", "")
    forms = [secret["secret"]]
    if placement.get("percent_encode"):
        value = quote(value, safe="")
        forms.append(quote(secret["secret"], safe=""))
    return placement["template"].replace("{secret}", value), forms


_NAME_CHANNELS = ("file_name", "folder_name")
_NEUTRAL = ("Orchard", "Orchard7Harbor9Lantern3")
"""A plain word and a plain name with digits: a placement that redacts either gives its
value to a secret's name (``token=``, ``?key=``)."""
_USERINFO_SLOT = re.compile(r"://(?:[^/@\s]*:)?\{secret\}@")
"""A placement in a URL's userinfo, its password slot (``://user:{secret}@``) or all of it
(``://{secret}@``, a token given as the user name, as git's ``https://TOKEN@github.com``):
a credential by where it stands, and a URI and a client's profile drop the userinfo
whole, so a plain word there shows no redaction."""


def counted_out(channel: str, text: str) -> str | None:
    """Why a placement cannot be measured, or None. Named in the report, never dropped."""
    if channel in _NAME_CHANNELS:
        name = text
        if "/" in name or "\x00" in name:
            return "a file or folder name cannot hold '/'"
        if len(name.encode("utf-8")) > 250:
            return "longer than a file name may be (255 bytes)"
    return None


def _run(
    channels: _Channels, channel: str, text: str, errors: list[tuple[str, str]], where: str
) -> str | None:
    """:meth:`_Channels.run`, or None when the path raised what no face should (named in
    the report: a blind corpus is run once, so one traceback must not stop the rest)."""
    try:
        return channels.run(channel, text)
    except Exception as exc:  # any failure of the path is reported, never hidden
        first = (str(exc).splitlines() or [""])[0][:120]
        errors.append((where, f"{type(exc).__name__}: {first}"))
        return None


def channel_scores(corpus: dict[str, Any], channels: _Channels) -> dict[str, Any]:
    """Every secret in every placement of every channel, and every near miss in every
    placement that does not name its value (:data:`_NEUTRAL`), through the real path.

    A placement in a channel the bench has no path for is counted out, each named; a path
    that raises counts its secret as leaked and its near miss as flagged, each error named
    in ``errors`` (the worse reading: a traceback shows what it was given)."""
    result: dict[str, Any] = {"placed": [], "out": [], "near": [], "naming": [], "errors": []}
    errors: list[tuple[str, str]] = result["errors"]
    placements = []
    for placement in corpus["placements"]:
        if not hasattr(channels, f"_{placement['channel']}"):
            result["out"].append(("every entry", placement["id"], "no such channel"))
        else:
            placements.append(placement)
    naming = set()
    for placement in placements:
        if _USERINFO_SLOT.search(placement["template"]):
            naming.add(placement["id"])
        for word in _NEUTRAL:
            neutral = placement["template"].replace("{secret}", word)
            where = f"the probe of {placement['id']} (not counted)"
            output = _run(channels, placement["channel"], neutral, errors, where)
            if output is not None and PLACEHOLDER_MARK in output:
                naming.add(placement["id"])
    result["naming"] = sorted(naming)
    for placement in placements:
        channel = placement["channel"]
        for secret in corpus["secrets"]:
            text, forms = _placed(secret, placement)
            why = counted_out(channel, text)
            if why is not None:
                result["out"].append((secret["id"], placement["id"], why))
                continue
            where = f"{secret['id']} in {placement['id']}"
            output = _run(channels, channel, text, errors, where)
            leaked = output is None or any(form in output for form in forms)
            result["placed"].append((secret, placement, text, leaked))
        if placement["id"] in naming:
            continue
        for near in corpus["near_misses"]:
            text = placement["template"].replace("{secret}", near["text"])
            if counted_out(channel, text) is not None:
                result["out"].append((near["id"], placement["id"], "near miss: name with '/'"))
                continue
            output = _run(channels, channel, text, errors, f"{near['id']} in {placement['id']}")
            flagged = output is None or PLACEHOLDER_MARK in output
            result["near"].append((near, placement, text, flagged))
    return result


def detect_secrets_channels(result: dict[str, Any]) -> tuple[int, int] | None:
    """detect-secrets on the same placed texts: (placements caught, near misses flagged)."""
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        caught = flagged = 0
        for secret, _placement, text, _leaked in result["placed"]:
            lines = _flagged_lines(text, scratch)
            if lines is None:
                return None
            at = text.find(secret["secret"])
            first = text.count("\n", 0, max(at, 0)) + 1
            caught += bool(lines & {first}) if at != -1 else bool(lines)
        for _near, _placement, text, _flagged in result["near"]:
            flagged += bool(_flagged_lines(text, scratch))
    return caught, flagged


def score_channels(
    name: str, path: Path, *, with_detect_secrets: bool, every: int = 1
) -> tuple[bool, list[str]]:
    """Print one channel corpus's table; True when ours meets both goals on it. ``every``
    above 1 keeps every ``every``-th secret and near miss (``--quick``: each placement, so
    every channel's path, still runs)."""
    corpus = json.loads(path.read_text(encoding="utf-8"))
    corpus["secrets"] = corpus["secrets"][::every]
    corpus["near_misses"] = corpus["near_misses"][::every]
    with tempfile.TemporaryDirectory() as tmp:
        channels = _Channels(Path(tmp))
        try:
            result = channel_scores(corpus, channels)
        finally:
            channels.close()
    placed, near = result["placed"], result["near"]
    leaks = [(s, p) for s, p, _text, leaked in placed if leaked]
    flags = [(n, p) for n, p, _text, flagged in near if flagged]
    caught = len(placed) - len(leaks)
    lines = [
        f"{name}: {len(corpus['secrets'])} secrets x {len(corpus['placements'])} placements, "
        f"{len(corpus['near_misses'])} near misses",
        _row(("detector", "placements caught", "near misses flagged"), (28, 22, 26)),
        _row(
            (
                "ours (every channel's path)",
                f"{caught}/{len(placed)} ({caught / len(placed):.1%})",
                f"{len(flags)}/{len(near)} ({len(flags) / max(len(near), 1):.1%})",
            ),
            (28, 22, 26),
        ),
    ]
    theirs = detect_secrets_channels(result) if with_detect_secrets else None
    if theirs is not None:
        lines.append(
            _row(
                (
                    "detect-secrets",
                    f"{theirs[0]}/{len(placed)} ({theirs[0] / len(placed):.1%})",
                    f"{theirs[1]}/{len(near)} ({theirs[1] / max(len(near), 1):.1%})",
                ),
                (28, 22, 26),
            )
        )
    by_channel: dict[str, list[int]] = {}
    for _s, p, _text, leaked in placed:
        counts = by_channel.setdefault(p["channel"], [0, 0])
        counts[0] += not leaked
        counts[1] += 1
    lines.append("  by channel: " + ", ".join(f"{c} {a}/{b}" for c, (a, b) in by_channel.items()))
    lines.append(
        f"  near misses not placed where the template names its value ({len(result['naming'])} "
        f"placements): {', '.join(result['naming'])}"
    )
    for secret, placement in leaks:
        lines.append(f"  leaked: {secret['id']} in {placement['id']}")
    for near_miss, placement in flags:
        lines.append(f"  flagged: {near_miss['id']} in {placement['id']}")
    for what, where, why in result["out"]:
        lines.append(f"  counted out: {what} in {where}: {why}")
    for where, error in result["errors"]:
        lines.append(f"  error: {where}: {error}")
    ok = caught >= MIN_PLACEMENTS_CAUGHT * len(placed) and len(flags) <= (
        MAX_NEAR_MISS_FLAGGED * len(near)
    )
    return ok, lines


# --- throughput ------------------------------------------------------------------------


def old_gate() -> ModuleType:
    """arborist/admission.py (its path then) as it was at :data:`OLD_GATE`, loaded as a module of its own."""
    source = subprocess.run(
        ["git", "show", f"{OLD_GATE}:arborist/admission.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    from arborist import BadInput  # noqa: PLC0415

    # its one import of the package is the error tree's BadInput: read from where it is now
    source = re.sub(
        r"^from arborist\.\w+ import BadInput$",
        f"from {BadInput.__module__} import BadInput",
        source,
        flags=re.M,
    )
    spec = importlib.util.spec_from_loader("old_admission", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_admission"] = module  # dataclasses look their module up
    exec(compile(source, "old_admission.py", "exec"), module.__dict__)
    return module


@contextlib.contextmanager
def gate_in_ingest(gate: ModuleType) -> Iterator[None]:
    """Ingest (arborist._store.documents) admitting with ``gate``'s admit functions."""
    saved = {name: getattr(documents, name) for name in ("admit", "admit_document")}
    for name in saved:
        setattr(documents, name, getattr(gate, name))
    try:
        yield
    finally:
        for name, function in saved.items():
            setattr(documents, name, function)


def ingest_seconds(docs: Sequence[Any]) -> float:
    """One whole ingest of ``docs`` into a fresh store."""
    from arborist._database.migrations import open_database  # noqa: PLC0415
    from arborist._store.schema import STORE_MIGRATIONS  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as tmp:
        conn = open_database(Path(tmp) / "store.db", STORE_MIGRATIONS)
        try:
            started = time.perf_counter()
            prepared = [documents.prepare_document(doc) for doc in docs]
            for doc in prepared:
                documents.store_document(conn, doc)
            return time.perf_counter() - started
        finally:
            conn.close()


def best_interleaved(
    runs: dict[str, Callable[[], float]], rounds: int
) -> tuple[dict[str, float], float]:
    """The best of ``rounds`` of each of the two runs (``old`` and ``new``), taking turns
    round by round (which goes first alternates), and the median over the rounds of
    old/new (a burst of load on a shared machine slows one pair, not the median)."""
    best = dict.fromkeys(runs, float("inf"))
    ratios = []
    for turn in range(rounds):
        seconds = {}
        for name in sorted(runs, reverse=turn % 2 == 1):
            seconds[name] = runs[name]()
            best[name] = min(best[name], seconds[name])
        ratios.append(seconds["old"] / seconds["new"])
    return best, statistics.median(ratios)


def _timed(fn: Callable[[], object]) -> Callable[[], float]:
    def run() -> float:
        started = time.perf_counter()
        fn()
        return time.perf_counter() - started

    return run


# --- report ----------------------------------------------------------------------------


def _row(cells: Sequence[str], widths: Sequence[int]) -> str:
    return "  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True))


def score(name: str, corpus: dict[str, list[dict[str, str]]]) -> tuple[bool, list[str]]:
    """Print one corpus's table; True when our gate meets the goal on it."""
    n_secrets, n_near = len(corpus["secrets"]), len(corpus["near_misses"])
    mine = ours(corpus)
    theirs = detect_secrets(corpus)
    widths = (28, 22, 26)
    lines = [
        f"{name}: {n_secrets} secrets, {n_near} near misses",
        _row(("detector", "secrets caught", "near misses flagged"), widths),
    ]
    for label, result in (("ours (arborist._gate.admission)", mine), ("detect-secrets", theirs)):
        if result is None:
            lines.append(_row((label, "not installed", "-"), widths))
            continue
        missed, flagged = result
        caught = n_secrets - len(missed)
        lines.append(
            _row(
                (
                    label,
                    f"{caught}/{n_secrets} ({caught / n_secrets:.1%})",
                    f"{len(flagged)}/{n_near} ({len(flagged) / n_near:.1%})",
                ),
                widths,
            )
        )
    missed, flagged = mine
    ok = not missed and len(flagged) <= MAX_NEAR_MISS_FLAGGED * n_near
    if missed:
        lines.append(f"  ours missed: {', '.join(missed)}")
    if flagged:
        lines.append(f"  ours flagged: {', '.join(flagged)}")
    return ok, lines


def blind_channels() -> list[tuple[str, Path]]:
    """The blind channel corpus to score, when it is there (:data:`CHANNELS_HOLDOUT`); when
    it is not, a line says so and there is none."""
    name = f"bench/secret_corpus/{CHANNELS_HOLDOUT.name}"
    if CHANNELS_HOLDOUT.is_file():
        return [(f"holdout channel corpus ({name}), blind", CHANNELS_HOLDOUT)]
    print(f"holdout channel corpus: {name} is not there\n")
    return []


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: no timing goal")
    parser.add_argument("--holdout", action="store_true", help="also score the held-out corpus")
    parser.add_argument("--rounds", type=int, default=9, help="timing rounds")
    parser.add_argument(
        "--channels-only", action="store_true", help="the corpora alone: no demo corpus, no timing"
    )
    args = parser.parse_args()

    goals: list[tuple[str, bool, str]] = []
    corpora = [("dev corpus (bench/secret_corpus/corpus.json)", CORPUS)]
    if args.holdout:
        corpora.append(("holdout (bench/secret_corpus/holdout.json)", HOLDOUT))
    for name, path in corpora:
        ok, lines = score(name, load(path))
        print("\n".join(lines), end="\n\n")
        goals.append((f"{path.name}: every secret caught, <= 2% near misses", ok, ""))

    channel_corpora = [
        ("dev channel corpus (bench/secret_corpus/channels.json)", CHANNELS),
        ("dev channel corpus, the first holdout, seen (channels_holdout.json)", CHANNELS_SEEN),
        ("dev channel corpus, the second holdout, seen (channels_holdout2.json)", CHANNELS_SEEN2),
        ("dev channel corpus, the third holdout, seen (channels_holdout3.json)", CHANNELS_SEEN3),
        ("dev channel corpus, the fourth holdout, seen (channels_holdout4.json)", CHANNELS_SEEN4),
        ("dev channel corpus, the fifth holdout, seen (channels_holdout5.json)", CHANNELS_SEEN5),
        ("dev channel corpus, the sixth holdout, seen (channels_holdout6.json)", CHANNELS_SEEN6),
        ("dev channel corpus, the seventh holdout, seen (channels_holdout7.json)", CHANNELS_SEEN7),
        ("dev channel corpus, the eighth holdout, seen (channels_holdout8.json)", CHANNELS_SEEN8),
        ("dev channel corpus, the ninth holdout, seen (channels_holdout9.json)", CHANNELS_SEEN9),
        ("dev channel corpus, the tenth holdout, seen (channels_holdout10.json)", CHANNELS_SEEN10),
        (
            "dev channel corpus, the eleventh holdout, seen (channels_holdout11.json)",
            CHANNELS_SEEN11,
        ),
        (
            "dev channel corpus, the twelfth holdout, seen (channels_holdout12.json)",
            CHANNELS_SEEN12,
        ),
        (
            "dev channel corpus, the thirteenth holdout, seen (channels_holdout13.json)",
            CHANNELS_SEEN13,
        ),
        (
            "dev channel corpus, the fourteenth holdout, seen (channels_holdout14.json)",
            CHANNELS_SEEN14,
        ),
        (
            "dev channel corpus, the fifteenth holdout, seen (channels_holdout15.json)",
            CHANNELS_SEEN15,
        ),
        (
            "dev channel corpus, the sixteenth holdout, seen (channels_holdout16.json)",
            CHANNELS_SEEN16,
        ),
        (
            "dev channel corpus, the seventeenth holdout, seen (channels_holdout17.json)",
            CHANNELS_SEEN17,
        ),
        (
            "dev channel corpus, the eighteenth holdout, seen (channels_holdout18.json)",
            CHANNELS_SEEN18,
        ),
        (
            "dev channel corpus, the nineteenth holdout, seen (channels_holdout19.json)",
            CHANNELS_SEEN19,
        ),
        (
            "dev channel corpus, the twentieth holdout, seen (channels_holdout20.json)",
            CHANNELS_SEEN20,
        ),
        (
            "dev channel corpus, the twenty-first holdout, seen (channels_holdout21.json)",
            CHANNELS_SEEN21,
        ),
    ]
    if args.quick:  # a smoke run: a sample of one channel corpus through every channel's path
        channel_corpora = channel_corpora[:1]
    if args.holdout:
        channel_corpora += blind_channels()
    for name, path in channel_corpora:
        ok, lines = score_channels(
            name, path, with_detect_secrets=not args.quick, every=QUICK_EVERY if args.quick else 1
        )
        print("\n".join(lines), end="\n\n")
        goals.append((f"{path.name}: >= 99% of placements caught, <= 2% near misses", ok, ""))
    if args.channels_only:
        return 0 if all(ok for _label, ok, _detail in goals) else 1

    docs = list(demo_corpus())
    redactions = sum(len(admission.admit(doc.text).redactions) for doc in docs)
    goals.append(("demo corpus: no redaction", redactions == 0, f"{redactions} redactions"))

    old = old_gate()
    rounds = 1 if args.quick else args.rounds
    timed_docs = docs[:8] if args.quick else docs
    texts = [doc.text for doc in timed_docs]
    size = sum(map(len, texts))
    gate, gate_ratio = best_interleaved(
        {
            "old": _timed(lambda: [old.admit(t) for t in texts]),
            "new": _timed(lambda: [admission.admit(t) for t in texts]),
        },
        rounds,
    )

    def ingest_with(module: ModuleType) -> Callable[[], float]:
        def run() -> float:
            with gate_in_ingest(module):
                return ingest_seconds(timed_docs)

        return run

    ingest, ingest_ratio = best_interleaved(
        {"old": ingest_with(old), "new": ingest_with(admission)}, rounds
    )
    widths = (34, 12, 12, 22)
    print(f"throughput on the demo corpus ({len(timed_docs)} documents, {size / 1e6:.2f} MB)")
    print(
        f"{rounds} rounds, interleaved: the best of each, and the median of the rounds' "
        f"new/old; old gate = arborist/admission.py at {OLD_GATE}"
    )
    print(_row(("measure", "old gate", "this gate", "new/old best (median)"), widths))
    for label, best, median in (
        ("the gate alone (admit)", gate, gate_ratio),
        ("ingest (prepare + store)", ingest, ingest_ratio),
    ):
        print(
            _row(
                (
                    label,
                    f"{size / best['old'] / 1e6:.2f} MB/s",
                    f"{size / best['new'] / 1e6:.2f} MB/s",
                    f"{best['old'] / best['new']:.2f} ({median:.2f})",
                ),
                widths,
            )
        )
    ratio = ingest_ratio
    if not args.quick:
        goals.append(
            (
                f"ingest throughput >= {MIN_THROUGHPUT_RATIO:.0%} of the old gate's",
                ratio >= MIN_THROUGHPUT_RATIO,
                f"{ratio:.2f}",
            )
        )

    print("\ngoals")
    for label, ok, detail in goals:
        print(f"  {'MET   ' if ok else 'MISSED'} {label}{f' ({detail})' if detail else ''}")
    return 0 if all(ok for _label, ok, _detail in goals) else 1


if __name__ == "__main__":
    sys.exit(main())

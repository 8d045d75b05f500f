"""Generate the blind labelled secret-detection corpus (dev + held-out).

Deterministic: every random part comes from one seeded random.Random, so
`python3 bench/secret_corpus/make_corpus.py` rewrites corpus.json and holdout.json
byte for byte.  All secrets are FAKE (random characters in the right shapes).

Split: every kind has a list of templates (contexts).  For every kind the
brief names (plus 3 seeded picks of the extra vendor kinds) the last template
goes to the held-out set and the others to the development set; the other
vendor kinds are dev-only.  So the two sets share shapes but not contexts
or values; held-out is about 30% the size of dev.
"""

import base64
import hashlib
import json
import os
import random
import string

SEED = 20240611
R = random.Random(SEED)

AL = string.ascii_letters + string.digits
UP = string.ascii_uppercase + string.digits
LO = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64 = AL + "+/"
URLS = AL + "-_"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
SHY = "\u00ad"
ZWSP = "\u200b"
NBSP = "\u00a0"


def rs(n, al=AL):
    return "".join(R.choice(al) for _ in range(n))


def rb(n):
    return bytes(R.getrandbits(8) for _ in range(n))


def b64(b):
    return base64.b64encode(b).decode()


def b64u(b):
    return base64.urlsafe_b64encode(b).decode().rstrip("=")


def digits(n):
    return str(R.randint(1, 9)) + rs(n - 1, string.digits)


def hexs(n):
    return rs(n, HEX)


def urlsafe(n):
    s = rs(n, URLS)
    return R.choice(AL) + s[1:-1] + R.choice(AL)


WORDS = [
    "Maple",
    "Falcon",
    "Orbit",
    "Copper",
    "Harbor",
    "Tundra",
    "Violet",
    "Quartz",
    "Ember",
    "Walrus",
    "Cactus",
    "Saffron",
    "Glacier",
    "Nimbus",
]


def pw(n=None, safe=False):
    """A realistic password; safe=True keeps it URL/shell friendly."""
    if R.random() < 0.35:
        p = (
            R.choice(WORDS)
            + R.choice(WORDS).lower()
            + digits(R.randint(2, 4))
            + R.choice("!#.*_-~")
        )
        return p
    n = n or R.randint(11, 18)
    sym = "-_.~!" if safe else "!#%*+-.?@^_~"
    while True:
        p = rs(n, AL + sym)
        if (
            any(c.isdigit() for c in p)
            and any(c.isupper() for c in p)
            and any(c.islower() for c in p)
            and any(not c.isalnum() for c in p)
            and p[0].isalnum()
        ):
            return p


USERS = ["deploy", "admin", "svc_ci", "jenkins", "alice", "bob.k", "app", "etl_user", "grafana"]


def user():
    return R.choice(USERS)


# ----------------------------------------------------------------- key shapes
def openai_legacy():
    return "sk-" + rs(20) + "T3BlbkFJ" + rs(20)


def openai_proj():
    return "sk-proj-" + urlsafe(74) + "T3BlbkFJ" + urlsafe(74)


def openai_svc():
    return "sk-svcacct-" + urlsafe(74) + "T3BlbkFJ" + urlsafe(74)


def anthropic():
    return "sk-ant-api03-" + urlsafe(93) + "AA"


def anthropic_admin():
    return "sk-ant-admin01-" + urlsafe(93) + "AA"


def ghp():
    return "ghp_" + rs(36)


def gho():
    return "gho_" + rs(36)


def ghpat():
    return "github_pat_11" + rs(20, UP) + "_" + rs(59)


def glpat():
    return "glpat-" + urlsafe(20)


def hf():
    return "hf_" + rs(34, string.ascii_letters)


def xoxb():
    return "xoxb-" + digits(11) + "-" + digits(13) + "-" + rs(24)


def xoxp():
    return "xoxp-" + digits(11) + "-" + digits(11) + "-" + digits(13) + "-" + hexs(32)


def xapp():
    return "xapp-1-A" + rs(10, UP) + "-" + digits(13) + "-" + hexs(64)


def slack_hook_parts():
    return "T" + rs(8, UP), "B" + rs(10, UP), rs(24)


def sk_live():
    return "sk_live_51" + rs(R.choice([22, 96]))


def rk_live():
    return "rk_live_51" + rs(R.choice([22, 96]))


def google():
    return "AIza" + rs(35, URLS)


def akia():
    return "AKIA" + rs(16, B32)


def asia():
    return "ASIA" + rs(16, B32)


def aws_secret():
    while True:
        s = rs(40, B64)
        if any(c in "+/" for c in s):
            return s


def jwt(alg="HS256", sign=True):
    hdr = b64u(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
    body = {
        "sub": digits(8),
        "name": R.choice(["Ada Park", "Ivo Marsh", "Lena Ortiz"]),
        "role": R.choice(["admin", "user", "ops"]),
        "iat": 1700000000 + R.randint(0, 9999999),
    }
    body["exp"] = body["iat"] + 3600
    pl = b64u(json.dumps(body, separators=(",", ":")).encode())
    if not sign:
        return hdr + "." + pl + "."
    sig = b64u(rb(32 if alg.startswith("HS") else 256))
    return hdr + "." + pl + "." + sig


def wrap(s, n=64):
    return [s[i : i + n] for i in range(0, len(s), n)]


def pem(label, prefix_b64, nbytes, width=64):
    body = prefix_b64 + b64(rb(nbytes))
    body = body[: len(body) - len(body) % 4] if len(body) % 4 else body
    lines = wrap(body, width)
    txt = "-----BEGIN {}-----\n{}\n-----END {}-----".format(label, "\n".join(lines), label)
    mid = lines[len(lines) // 2]
    return txt, mid


def rsa_pem():
    return pem("RSA PRIVATE KEY", "MIIEpAIBAAKCAQEA", 600)


def pkcs8_pem():
    return pem("PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ", 560)


def ec_pem():
    return pem("EC PRIVATE KEY", "MHcCAQEEI", 111)


def openssh_pem():
    return pem(
        "OPENSSH PRIVATE KEY",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACB",
        300,
        width=70,
    )


def pgp_private():
    body = "lQdGBG" + rs(2) + b64(rb(520))
    body = body[: len(body) - len(body) % 4]
    lines = wrap(body, 64)
    txt = (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
        + "\n".join(lines)
        + "\n="
        + rs(4, B64)
        + "\n-----END PGP PRIVATE KEY BLOCK-----"
    )
    return txt, lines[len(lines) // 2]


def kube_key_data():
    txt, _ = rsa_pem()
    data = b64((txt + "\n").encode())
    return data, data[300:380]


def django_key():
    return "django-insecure-" + rs(50, "abcdefghijklmnopqrstuvwxyz0123456789!@#%^*(-_=+)")


def npm_tok():
    return "npm_" + rs(36)


def azure_key():
    return b64(rb(64))


def twilio_sk():
    return "SK" + hexs(32)


def sendgrid():
    return "SG." + urlsafe(22) + "." + urlsafe(43)


def discord():
    uid = str(R.randint(10**17, 10**18))
    return b64u(uid.encode()) + "." + rs(6, URLS) + "." + urlsafe(38)


def telegram():
    return digits(10) + ":AA" + urlsafe(33)


def dop():
    return "dop_v1_" + hexs(64)


def mailgun():
    return "key-" + hexs(32)


def shopify():
    return "shpat_" + hexs(32)


def pypi():
    return "pypi-AgEIcHlwaS5vcmc" + b64u(rb(120))


def age_key():
    return "AGE-SECRET-KEY-1" + rs(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")


def databricks():
    return "dapi" + hexs(32)


def opaque(n=40):
    return rs(n)


# ------------------------------------------------------------------ templates
def T(fmt, gen):
    """Template: '@@' in fmt is replaced by the generated secret; %U% by a user."""

    def make():
        k = gen()
        return fmt.replace("%U%", user()).replace("@@", k), k

    return make


def F(fn):
    return fn


SECRET_KINDS = {}


def kind(name, *templates):
    SECRET_KINDS[name] = list(templates)


kind(
    "openai_key_legacy",
    T("my openai key is @@ can you tell me why it says quota exceeded?", openai_legacy),
    T("OPENAI_API_KEY=@@", openai_legacy),
    T('import openai\nopenai.api_key = "@@"\n', openai_legacy),
    T("$ export OPENAI_API_KEY='@@'\n$ python chat.py", openai_legacy),
)
kind(
    "openai_key_project",
    T('client = OpenAI(api_key="@@")', openai_proj),
    T('[openai]\napi_key = "@@"\nmodel = "gpt-4o-mini"', openai_proj),
    T("- Notes 2024-05-02: rotated the prod key, new one is @@ (old one revoked)", openai_proj),
    T("  env:\n    - name: OPENAI_API_KEY\n      value: @@", openai_svc),
    T('{"openai": {"key": "@@", "org": "org-acme"}}', openai_proj),
)


def _shy():
    k = openai_proj()
    i = R.randint(20, 60)
    k = k[:i] + SHY + k[i:]
    return "Here is the key I pasted from the PDF: " + k + " - it fails with 401", k


def _zwsp():
    k = openai_legacy()
    i = R.randint(10, 30)
    k = k[:i] + ZWSP + k[i:]
    return "OPENAI_API_KEY=" + k, k


def _zwsp2():
    k = openai_proj()
    i = R.randint(30, 90)
    k = k[:i] + ZWSP + k[i:]
    return "api key (copied from Slack): " + k, k


kind("openai_key_invisible_char", F(_shy), F(_zwsp), F(_zwsp2))


def _joined(fmt, gen):
    def make():
        k = gen()
        return fmt.replace("@@", k), k

    return make


kind(
    "openai_key_joined_to_word",
    _joined("Saved it as ~/Downloads/creds-@@.txt", openai_proj),
    _joined("backup_key_@@.json", openai_legacy),
    _joined("key_@@", openai_legacy),
    _joined("s3://team-scratch/tmp/openai-@@-backup.env", openai_proj),
)
kind(
    "anthropic_key",
    T("ANTHROPIC_API_KEY=@@", anthropic),
    T('client = anthropic.Anthropic(api_key="@@")', anthropic),
    T("why does claude return 401 with my key @@ ??", anthropic),
    T("anthropic:\n  admin_key: @@", anthropic_admin),
)
kind(
    "github_token",
    T("git remote set-url origin https://@@@github.com/acme/infra.git", ghp),
    T("GITHUB_TOKEN=@@", ghp),
    T("gh auth login --with-token <<< @@", gho),
    T("// TODO remove before commit\nconst octokit = new Octokit({ auth: '@@' });", ghpat),
    T("I generated a fine-grained token @@ but the API says resource not accessible", ghpat),
    T("oauth_token: @@\nuser: %U%", gho),
)
kind(
    "gitlab_token",
    T('curl --header "PRIVATE-TOKEN: @@" https://gitlab.example.com/api/v4/projects', glpat),
    T("GITLAB_TOKEN=@@ glab mr list", glpat),
    T('[gitlab]\ntoken = "@@"', glpat),
)
kind(
    "huggingface_token",
    T("huggingface-cli login --token @@", hf),
    T("HF_TOKEN=@@", hf),
    T('from huggingface_hub import login\nlogin("@@")', hf),
    T('model = AutoModel.from_pretrained("acme/private-llm", token="@@")', hf),
)
kind(
    "slack_token",
    T("SLACK_BOT_TOKEN=@@", xoxb),
    T('slack:\n  bot_token: "@@"\n  channel: "#alerts"', xoxb),
    T('client = WebClient(token="@@")', xoxp),
    T("SLACK_APP_TOKEN=@@  # socket mode", xapp),
    T("the user token @@ stopped working after I reinstalled the app", xoxp),
)


def _hook(fmt):
    def make():
        t, b, s = slack_hook_parts()
        url = f"https://hooks.slack.com/services/{t}/{b}/{s}"
        return fmt.replace("@@", url), s

    return make


kind(
    "slack_webhook_url",
    _hook(
        "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"deploy done\"}' @@"
    ),
    _hook("SLACK_WEBHOOK_URL=@@"),
    _hook(
        "alertmanager:\n  receivers:\n    - name: slack\n      slack_configs:\n        - api_url: '@@'"
    ),
    _hook("Post to #ops via @@ when the nightly job fails."),
)
kind(
    "stripe_secret_key",
    T('stripe.api_key = "@@"', sk_live),
    T("STRIPE_SECRET_KEY=@@", sk_live),
    T("curl https://api.stripe.com/v1/charges -u @@:", sk_live),
    T("restricted key for the reporting job: @@", rk_live),
    T("stripe:\n  secret: @@\n  webhook_tolerance: 300", rk_live),
)
kind(
    "google_api_key",
    T(
        '<script src="https://maps.googleapis.com/maps/api/js?key=@@&callback=initMap"></script>',
        google,
    ),
    T("GOOGLE_API_KEY=@@", google),
    T('genai.configure(api_key="@@")', google),
    T('"firebase": {"apiKey": "@@", "projectId": "acme-prod"}', google),
)
kind(
    "aws_access_key_id",
    T("aws_access_key_id = @@", akia),
    T("export AWS_ACCESS_KEY_ID=@@", akia),
    T("The CI logs show the key id @@ being used from an unknown IP.", akia),
    T("AWS_ACCESS_KEY_ID=@@\nAWS_SESSION_TOKEN=(see vault)", asia),
    T('{"AccessKeyId": "@@", "Expiration": "2024-06-01T12:00:00Z"}', asia),
)


def _aws_split():
    k = akia()
    i = R.randint(8, 12)
    s = k[:i] + "\n" + k[i:]
    return "my access key (the terminal wrapped it) is " + s + " and the secret is in 1password", s


def _aws_split2():
    k = akia()
    s = k[:10] + "\n" + k[10:]
    return "> aws_access_key_id=" + k[:10] + "\n" + k[10:] + "\n> region=eu-west-1", s


kind("aws_access_key_id_split", F(_aws_split), F(_aws_split2))
kind(
    "aws_secret_access_key",
    T(
        "[default]\naws_access_key_id = " + "AKIA" + rs(16, B32) + "\naws_secret_access_key = @@",
        aws_secret,
    ),
    T('export AWS_SECRET_ACCESS_KEY="@@"', aws_secret),
    T('s3 = boto3.client("s3", aws_secret_access_key="@@")', aws_secret),
    T('"SecretAccessKey": "@@",', aws_secret),
    T("aws:\n  secretAccessKey: @@", aws_secret),
)
kind(
    "jwt_signed",
    T("Authorization: Bearer @@", jwt),
    T('token = "@@"', lambda: jwt("RS256")),
    T("this JWT @@ decodes fine on jwt.io but my server rejects it, why?", jwt),
    T('document.cookie = "session=@@; path=/"', jwt),
)
kind(
    "jwt_unsigned",
    T("test with an alg=none token: @@", lambda: jwt("none", False)),
    T('curl -H "Authorization: Bearer @@" https://api.internal/me', lambda: jwt("none", False)),
    T("id_token: @@", lambda: jwt("none", False)),
)


def _jwt_wrapped():
    t = jwt("RS256")
    lines = wrap(t, 76)
    return "access_token:\n" + "\n".join(lines), lines[0]


def _jwt_wrapped2():
    t = jwt()
    lines = wrap(t, 60)
    return "> Here's the token from the email:\n> " + "\n> ".join(lines), lines[1]


kind("jwt_line_wrapped", F(_jwt_wrapped), F(_jwt_wrapped2))


def _pemt(fmt, gen):
    def make():
        txt, mid = gen()
        return fmt.replace("@@", txt), mid

    return make


def _indent(gen, n):
    def g():
        txt, mid = gen()
        return txt.replace("\n", "\n" + " " * n), mid

    return g


kind(
    "pem_private_key",
    _pemt("@@", rsa_pem),
    _pemt("$ cat ~/.ssh/id_ed25519\n@@", openssh_pem),
    _pemt("tls.key: |\n    @@", _indent(ec_pem, 4)),
    _pemt('PRIVATE_KEY = """@@"""', pkcs8_pem),
    _pemt("can someone help, my deploy key is not accepted:\n```\n@@\n```", openssh_pem),
    _pemt("# server.key\n@@", ec_pem),
)


def _kube(fmt):
    def make():
        data, piece = kube_key_data()
        return fmt.replace("@@", data), piece

    return make


kind(
    "pem_base64_kubeconfig",
    _kube(
        "users:\n- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=\n    client-key-data: @@"
    ),
    _kube("apiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.key: @@"),
    _kube("client-key-data: @@"),
)
kind(
    "pgp_private_key",
    _pemt("@@", pgp_private),
    _pemt(
        "gpg --export-secret-keys --armor alice@example.com > key.asc\n$ cat key.asc\n@@",
        pgp_private,
    ),
    _pemt("GPG_PRIVATE_KEY: |\n  @@", _indent(pgp_private, 2)),
)
kind(
    "assignment_secret_key",
    T("SECRET_KEY = '@@'", django_key),
    T("app.config['SECRET_KEY'] = \"@@\"", lambda: rs(48, HEX)),
    T("secret_key_base: @@", lambda: hexs(128)),
    T("JWT_SECRET=@@", lambda: rs(43, URLS)),
)
kind(
    "assignment_auth_token",
    T("authToken: @@", opaque),
    T('{"authToken": "@@", "refresh": true}', lambda: rs(64, HEX)),
    T("const config = { apiBase: '/v2', authToken: '@@' };", opaque),
    T('auth_token = "@@"', lambda: rs(32, HEX)),
)
kind(
    "assignment_ruby_php_password",
    T(
        "ActiveRecord::Base.establish_connection(adapter: 'mysql2', username: 'app', :password => '@@')",
        pw,
    ),
    T("'password' => '@@',", pw),
    T("$config = ['user' => 'root', 'password' => \"@@\"];", pw),
    T("  :password => \"@@\",\n  :host => 'db.internal'", pw),
)


def _nbsp(fmt):
    def make():
        k = pw()
        return fmt.replace("@@", k), k

    return make


kind(
    "password_nbsp",
    _nbsp("Wi-Fi for the offsite: network AcmeGuest, password" + NBSP + "@@"),
    _nbsp("VPN login — user: {}, password:".format("jdoe") + NBSP + "@@"),
    _nbsp("password" + NBSP + "@@ (expires Friday)"),
)


def amp_pw():
    a = rs(R.randint(3, 5), string.ascii_letters + string.digits)
    b = rs(R.randint(4, 6), string.ascii_letters + string.digits)
    return a[0].upper() + a[1:] + "&" + b + R.choice("!#.?")


kind(
    "password_with_ampersand",
    T("password=@@", amp_pw),
    T('DB_PASS="@@"', amp_pw),
    T("jdbc:sqlserver://db01:1433;databaseName=crm;user=sa;password=@@;", amp_pw),
    T("login with password=@@ and then change it", amp_pw),
)
kind(
    "assignment_passwd_pwd",
    T("passwd: @@", pw),
    T("Server=sql01.internal;Database=Billing;Uid=billing_rw;Pwd=@@;", lambda: pw(safe=True)),
    T("pwd=@@", lambda: pw(safe=True)),
    T('ftp:\n  host: ftp.partner.example\n  user: upload\n  passwd: "@@"', pw),
)
kind(
    "assignment_client_secret",
    T("client_secret=@@", lambda: rs(40, URLS)),
    T('"client_id": "8f1c2e3a-web", "client_secret": "@@"', lambda: "GOCSPX-" + urlsafe(28)),
    T("OAUTH_CLIENT_SECRET=@@", lambda: rs(34, URLS + "~.")),
    T("auth:\n  clientSecret: @@", lambda: rs(40, URLS)),
)
kind(
    "dotenv_db_password",
    T("DB_HOST=localhost\nDB_USER=app\nDB_PASSWORD=@@\nDB_NAME=app", pw),
    T("DB_PASSWORD=@@", pw),
    T("POSTGRES_PASSWORD=@@", pw),
    T("MYSQL_ROOT_PASSWORD='@@'", pw),
)


def basic_cred():
    return b64((f"{user()}:{pw()}").encode())


kind(
    "http_basic_auth",
    T("Authorization: Basic @@", basic_cred),
    T('curl -H "Authorization: Basic @@" https://jenkins.internal/api/json', basic_cred),
    T('headers = {"Authorization": "Basic @@"}', basic_cred),
)
kind(
    "http_bearer",
    T("Authorization: Bearer @@", opaque),
    T("curl -H 'Authorization: Bearer @@' https://api.example.io/v1/users", lambda: rs(48, URLS)),
    T("headers={'Authorization': f'Bearer @@'}", opaque),
)
kind(
    "http_api_key_header",
    T("X-Api-Key: @@", lambda: rs(32, HEX)),
    T('curl -H "x-api-key: @@" https://api.partner.com/v3/quotes', opaque),
    T('requests.get(url, headers={"X-API-Key": "@@"})', lambda: rs(36, AL)),
)
kind(
    "npm_auth_token",
    T("//registry.npmjs.org/:_authToken=@@", npm_tok),
    T(
        "# .npmrc\nregistry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=@@",
        npm_tok,
    ),
    T("//npm.pkg.github.com/:_authToken=@@", ghp),
)


def docker_auth():
    return b64((f"{user()}:{pw()}").encode())


kind(
    "docker_config_auth",
    T(
        '{\n  "auths": {\n    "https://index.docker.io/v1/": {\n      "auth": "@@"\n    }\n  }\n}',
        docker_auth,
    ),
    T('{"auths":{"registry.gitlab.com":{"auth":"@@"}}}', docker_auth),
    T('~/.docker/config.json has "auth": "@@" in it, is that safe to share?', docker_auth),
)
kind(
    "netrc_password",
    T(
        "machine api.heroku.com\n  login %U%@example.com\n  password @@",
        lambda: hexs(8) + "-" + hexs(4) + "-" + hexs(4) + "-" + hexs(4) + "-" + hexs(12),
    ),
    T("machine github.com login %U% password @@", ghp),
    T('echo "machine ftp.example.org login %U% password @@" >> ~/.netrc', pw),
)


def azure_conn(fmt):
    def make():
        k = azure_key()
        acct = "acme" + rs(6, string.ascii_lowercase)
        cs = f"DefaultEndpointsProtocol=https;AccountName={acct};AccountKey={k};EndpointSuffix=core.windows.net"
        return fmt.replace("@@", cs), k

    return make


kind(
    "azure_storage_account_key",
    azure_conn('AZURE_STORAGE_CONNECTION_STRING="@@"'),
    azure_conn('"ConnectionStrings": {"Blob": "@@"}'),
    azure_conn('blob = BlobServiceClient.from_connection_string("@@")'),
)
kind(
    "cli_password_flag",
    T("mysql -u root -p@@ -h 127.0.0.1 shop", lambda: pw(safe=True)),
    T("$ mysqldump -uadmin -p@@ --all-databases > dump.sql", lambda: pw(safe=True)),
    T("sshpass -p '@@' ssh %U%@10.0.4.17", pw),
    T('psql "postgresql://app@db/app" # PGPASSWORD=@@', lambda: pw(safe=True)),
)
kind(
    "curl_user_password",
    T("curl -u %U%:@@ https://nexus.internal/repository/releases/", lambda: pw(safe=True)),
    T(
        "curl --user admin:@@ -X POST https://grafana.local/api/dashboards/db",
        lambda: pw(safe=True),
    ),
    T(
        "wget --http-user=%U% --http-password=@@ https://files.example.com/dump.tgz",
        lambda: pw(safe=True),
    ),
)
kind(
    "url_query_credential",
    T("https://api.example.com/v1/report?auth=@@&format=csv", lambda: rs(32, HEX)),
    T("http://192.168.1.20/cgi-bin/login.cgi?user=admin&pass=@@", lambda: pw(safe=True)),
    T("wss://stream.example.net/feed?token=@@", lambda: rs(40, URLS)),
    T("GET /download?file=q3.pdf&access_token=@@ HTTP/1.1", lambda: rs(40, URLS)),
    T("https://firebaseio.example.com/users.json?auth=@@", lambda: rs(40, AL)),
)


def url_cred(fmt):
    def make():
        p = pw(safe=True)
        return fmt.replace("%U%", user()).replace("@@", p), p

    return make


kind(
    "url_userinfo_password",
    url_cred("DATABASE_URL=postgres://%U%:@@@db.internal:5432/app"),
    url_cred("git clone https://%U%:@@@git.example.com/team/repo.git"),
    url_cred("REDIS_URL=redis://:@@@cache.internal:6379/0"),
    url_cred("mongodb+srv://%U%:@@@cluster0.ab1cd.mongodb.net/prod?retryWrites=true"),
    url_cred("amqp://%U%:@@@rabbitmq:5672/%2f"),
)
kind(
    "twilio",
    T("TWILIO_AUTH_TOKEN=@@", lambda: hexs(32)),
    T('client = Client("AC' + hexs(32) + '", "@@")', lambda: hexs(32)),
    T("twilio api key: @@ secret: (in vault)", twilio_sk),
)
kind(
    "sendgrid",
    T("SENDGRID_API_KEY=@@", sendgrid),
    T("sg = SendGridAPIClient('@@')", sendgrid),
    T("smtp:\n  user: apikey\n  pass: @@", sendgrid),
)
kind(
    "discord_bot_token",
    T("client.run('@@')", discord),
    T("DISCORD_TOKEN=@@", discord),
    T("my bot token is @@ and the bot shows offline", discord),
)
kind(
    "telegram_bot_token",
    T("TELEGRAM_BOT_TOKEN=@@", telegram),
    T("curl https://api.telegram.org/bot@@/getUpdates", telegram),
    T('bot = telebot.TeleBot("@@")', telegram),
)
kind(
    "digitalocean_token",
    T("doctl auth init --access-token @@", dop),
    T("DIGITALOCEAN_TOKEN=@@", dop),
    T('provider "digitalocean" {\n  token = "@@"\n}', dop),
)
kind(
    "mailgun_key",
    T("MAILGUN_API_KEY=@@", mailgun),
    T("curl -s --user 'api:@@' https://api.mailgun.net/v3/mg.example.com/messages", mailgun),
)
kind(
    "shopify_token", T("X-Shopify-Access-Token: @@", shopify), T("SHOPIFY_ADMIN_TOKEN=@@", shopify)
)
kind(
    "pypi_token",
    T("[pypi]\n  username = __token__\n  password = @@", pypi),
    T("twine upload -u __token__ -p @@ dist/*", pypi),
    T("PYPI_API_TOKEN=@@", pypi),
)
kind(
    "misc_vendor_token",
    T("AGE_IDENTITY=@@", age_key),
    T("DATABRICKS_TOKEN=@@", databricks),
    T("# age identity\n@@", age_key),
)


# -------------------------------------------------------------- near misses
NEAR = {}


def near(name, *templates):
    NEAR[name] = list(templates)


def N(fmt, **gens):
    def make():
        s = fmt
        for k, g in gens.items():
            s = s.replace("{" + k + "}", g())
        return s

    return make


def sha256():
    return hashlib.sha256(rb(16)).hexdigest()


def sha1():
    return hashlib.sha1(rb(16)).hexdigest()


def sha7():
    return hexs(7)


def uuid4():
    h = hexs(32)
    return "{}-{}-4{}-{}{}-{}".format(
        h[:8], h[8:12], h[13:16], R.choice("89ab"), h[17:20], h[20:32]
    )


def b64text(s):
    return b64(s.encode())


def pub_block():
    body = "mQINBG" + rs(2) + b64(rb(420))
    body = body[: len(body) - len(body) % 4]
    return (
        "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n"
        + "\n".join(wrap(body, 64))
        + "\n="
        + rs(4, B64)
        + "\n-----END PGP PUBLIC KEY BLOCK-----"
    )


def cert_block():
    body = "MIIDdzCCAl+gAwIBAgIU" + b64(rb(520))
    body = body[: len(body) - len(body) % 4]
    return (
        "-----BEGIN CERTIFICATE-----\n" + "\n".join(wrap(body, 64)) + "\n-----END CERTIFICATE-----"
    )


def pubkey_block():
    body = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + b64(rb(228))
    body = body[: len(body) - len(body) % 4]
    return "-----BEGIN PUBLIC KEY-----\n" + "\n".join(wrap(body, 64)) + "\n-----END PUBLIC KEY-----"


def ed25519():
    return "AAAAC3NzaC1lZDI1NTE5AAAAI" + b64(rb(32))[:43]


def sshrsa():
    return "AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + b64(rb(380))[:500]


near(
    "sha256_hex_digest",
    N("{h}  dist/acme-cli-1.4.2.tar.gz", h=sha256),
    N("Checksum (SHA-256): {h}", h=sha256),
    N('echo "{h}  node-v20.11.1-linux-x64.tar.xz" | sha256sum -c -', h=sha256),
    N("The build is reproducible: both machines produced {h}.", h=sha256),
    N("| file | sha256 |\n|------|--------|\n| app.zip | {h} |", h=sha256),
)
near(
    "sha1_hex_digest",
    N("SHA1 Fingerprint={h}", h=sha1),
    N('resolved "https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#{h}"', h=sha1),
    N("sha1sum report.pdf\n{h}  report.pdf", h=sha1),
    N('"shasum": "{h}",', h=sha1),
)
near(
    "git_sha_full",
    N(
        "commit {h}\nAuthor: Jane Doe <jane@example.com>\nDate:   Tue Mar 5 14:02:11 2024 +0100\n\n    Fix flaky retry test",
        h=sha1,
    ),
    N("This reverts commit {h}.", h=sha1),
    N("pip install git+https://github.com/psf/requests@{h}", h=sha1),
    N("The regression was introduced in {h} and fixed two days later.", h=sha1),
    N("  - uses: actions/checkout@{h} # v4.1.1", h=sha1),
)
near(
    "git_sha_short",
    N(
        "{a} Fix typo in README\n{b} Bump version to 2.3.1\n{c} Merge pull request #142 from acme/feature",
        a=sha7,
        b=sha7,
        c=sha7,
    ),
    N("Fixed in {a}, see the PR for details.", a=sha7),
    N("HEAD is now at {a} Merge branch 'main' into release", a=sha7),
    N("git cherry-pick {a} {b}", a=sha7, b=sha7),
)
near(
    "uuid",
    N("request_id={u} status=200 latency_ms=41", u=uuid4),
    N("Trace ID: {u}", u=uuid4),
    N('{"id": "{u}", "type": "order", "status": "shipped"}', u=uuid4),
    N("GET /api/v2/orders/{u}/items HTTP/1.1", u=uuid4),
    N("Partition UUID {u} mounted on /data", u=uuid4),
)
near(
    "base64_image_data",
    N(
        '<img alt="logo" src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9h{b}">',
        b=lambda: b64(rb(150)),
    ),
    N(
        "background: url(data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7);"
    ),
    N("![chart](data:image/jpeg;base64,/9j/4AAQSkZJRgABAQEASABIAAD/{b})", b=lambda: b64(rb(120))),
    N(
        '"thumbnail": "data:image/webp;base64,UklGRlYAAABXRUJQVlA4IEoAAADQAQCdASoQABAAPm0{b}"',
        b=lambda: b64(rb(60)),
    ),
)
near(
    "base64_of_plain_text",
    N("echo '" + b64text("Hello, World!") + "' | base64 -d"),
    N(
        "The string `"
        + b64text("The quick brown fox jumps over the lazy dog")
        + "` is the classic base64 example."
    ),
    N("payload: " + b64text('{"event":"page_view","path":"/pricing"}')),
    N("> base64 of 'user guide chapter 3' is " + b64text("user guide chapter 3")),
)
near(
    "s3_object_key",
    N("s3://acme-data-lake/raw/events/2024/03/05/part-00017-{u}.c000.snappy.parquet", u=uuid4),
    N("Key: uploads/{h}/avatar.png", h=lambda: hexs(32)),
    N("aws s3 cp s3://ml-artifacts/models/{h}/model.tar.gz .", h=lambda: hexs(40)),
    N("https://acme-assets.s3.eu-west-1.amazonaws.com/img/{h}.jpg", h=lambda: hexs(24)),
)
near(
    "docker_image_digest",
    N("FROM python:3.12-slim@sha256:{h}", h=sha256),
    N("Digest: sha256:{h}\nStatus: Downloaded newer image for nginx:1.25", h=sha256),
    N("image: ghcr.io/acme/api@sha256:{h}", h=sha256),
)
near(
    "subresource_integrity_hash",
    N(
        '<script src="https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/js/bootstrap.bundle.min.js" integrity="sha384-{b}" crossorigin="anonymous"></script>',
        b=lambda: b64(rb(48)),
    ),
    N('"integrity": "sha512-{b}",', b=lambda: b64(rb(64))),
    N('<link rel="stylesheet" href="/app.css" integrity="sha256-{b}">', b=lambda: b64(rb(32))),
)
near(
    "pip_lock_hash",
    N("requests==2.31.0 \\\n    --hash=sha256:{a} \\\n    --hash=sha256:{b}", a=sha256, b=sha256),
    N(
        '[[package]]\nname = "idna"\nversion = "3.6"\nfiles = [\n    {file = "idna-3.6-py3-none-any.whl", hash = "sha256:{a}"},\n]',
        a=sha256,
    ),
)
near(
    "placeholder_angle_brackets",
    N("password=<your-password>"),
    N("curl -H 'Authorization: Bearer <TOKEN>' https://api.example.com/v1/me"),
    N("export OPENAI_API_KEY=<your key here>"),
    N("git clone https://<username>:<personal-access-token>@github.com/org/repo.git"),
    N("mysql -u root -p<password> mydb"),
)
near(
    "placeholder_env_or_template",
    N("DB_PASSWORD=${DB_PASSWORD}"),
    N('password: "{{ .Values.postgresql.auth.password }}"'),
    N("token: ${{ secrets.GITHUB_TOKEN }}"),
    N('api_key = os.environ["OPENAI_API_KEY"]'),
    N("AWS_SECRET_ACCESS_KEY=$(aws configure get aws_secret_access_key)"),
    N("SECRET_KEY = env('DJANGO_SECRET_KEY')"),
)
near(
    "placeholder_masked",
    N("password: ********"),
    N("OPENAI_API_KEY=sk-..."),
    N("AWS_SECRET_ACCESS_KEY=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    N("Authorization: Bearer ••••••••••••"),
    N("DB_PASSWORD=****"),
)
near(
    "placeholder_named",
    N("API_KEY=YOUR_API_KEY_HERE"),
    N("token = 'REPLACE_ME'"),
    N("GITHUB_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"),
    N('stripe.api_key = "sk_test_your_secret_key"'),
    N("password: example"),
    N("client_secret=YOUR_CLIENT_SECRET"),
)
near(
    "empty_or_null_value",
    N("password="),
    N('DB_PASSWORD=""'),
    N("token: null"),
    N("secret: ~\napi_key: ''"),
)
near(
    "prose_password",
    N("Reset your password in Settings > Security."),
    N("The password policy requires at least 12 characters, one digit and one symbol."),
    N("If you forgot your password, click 'Forgot password?' on the login page."),
    N("Passwords are hashed with argon2id before they are stored."),
    N("Never share your password with anyone, including support staff."),
)
near(
    "prose_token_secret_key",
    N("We rate-limit requests with a token bucket algorithm."),
    N("The secret to good bread is a long, cold fermentation."),
    N("The tokenizer splits text into subword tokens before embedding."),
    N("Keep API keys out of version control; use a secrets manager instead."),
    N("The primary key of the table is (tenant_id, order_id)."),
    N("Press the Windows key and type 'credential manager'."),
)
near(
    "python_docs_text",
    N("hashlib.sha256() returns a hash object; call .hexdigest() to get the digest as hex."),
    N("secrets.token_hex(16) returns a random text string of 32 hex digits."),
    N("secrets.token_urlsafe(nbytes=None) returns a random URL-safe text string."),
    N("getpass.getpass(prompt='Password: ') prompts the user for a password without echoing."),
    N("hmac.compare_digest(a, b) returns a == b using a constant-time comparison."),
)
near(
    "code_reference_no_value",
    N("api_key = get_api_key()"),
    N(
        "def check_password(user, password):\n    return bcrypt.checkpw(password.encode(), user.password_hash)"
    ),
    N("password = getpass.getpass()"),
    N('response = client.chat.completions.create(model="gpt-4o", max_tokens=4096)'),
    N('if not token:\n    raise AuthError("missing token")'),
    N("self.secret_key = secret_key"),
)
near(
    "doc_url_query_params",
    N("https://docs.python.org/3/search.html?q=secrets&check_keywords=yes&area=default"),
    N("https://example.com/products?page=2&sort=asc"),
    N("https://www.google.com/search?q=how+to+reset+password"),
    N("https://api.github.com/repos/octocat/hello-world/issues?state=open&per_page=100"),
    N("https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s"),
)
near(
    "css_color",
    N("color: #1e90ff; background-color: #fafafa;"),
    N(":root { --brand-primary: #3b82f6; --brand-accent: #f59e0b; }"),
    N('<rect fill="#ff6347" stroke="#333333" />'),
)
near(
    "version_string",
    N("numpy==1.26.4\npandas==2.2.1\nscikit-learn==1.4.1.post1"),
    N("Python 3.12.2 (main, Feb  6 2024, 20:19:44) [Clang 15.0.0 (clang-1500.1.0.2.5)] on darwin"),
    N("Released v2.14.0-rc.1+build.5678"),
    N("Linux build-7 6.5.0-26-generic #26~22.04.1-Ubuntu SMP x86_64 GNU/Linux"),
)
near(
    "isbn",
    N("ISBN 978-0-13-468599-1"),
    N("Designing Data-Intensive Applications (ISBN-13: 9781449373320)"),
    N("isbn: 0-596-52068-9"),
)
near(
    "phone_number",
    N("Call us at +1 (415) 555-0132."),
    N("Tel: 020 7946 0958"),
    N('<a href="tel:+442079460958">+44 20 7946 0958</a>'),
)
near(
    "pgp_public_key_block",
    N("{b}", b=pub_block),
    N("Import my key before emailing me:\n{b}", b=pub_block),
)
near(
    "ssh_public_key",
    N("ssh-ed25519 {k} alice@laptop", k=ed25519),
    N("# ~/.ssh/authorized_keys\nssh-rsa {k} deploy@ci-runner-3", k=sshrsa),
    N("ssh_authorized_keys:\n  - ssh-ed25519 {k} bob@workstation", k=ed25519),
)
near(
    "pem_certificate_or_public_key",
    N("{b}", b=cert_block),
    N("ca.crt: |\n  {b}", b=lambda: cert_block().replace("\n", "\n  ")),
    N("# public key for verifying webhooks\n{b}", b=pubkey_block),
)
near(
    "lookalike_words",
    N("The skeleton loader shows while the page fetches data."),
    N("We use sk-learn (scikit-learn) for the baseline model."),
    N("The task-force met on Tuesday to review the risk_live_dashboard."),
    N("Standing AKIAkimbo-style with hands on hips is the pose in slide 4."),
    N("The whisk-antenna design was patented in 1931."),
    N("Please post in #ask-project-leads if you are blocked."),
)
near(
    "auth_scheme_prose",
    N("Basic authentication is a simple scheme built into the HTTP protocol."),
    N("Bearer tokens are sent in the Authorization header of each request."),
    N("The X-Api-Key header is required for all endpoints except /health."),
    N("Set Authorization: Basic followed by the base64 of user:password."),
)
near(
    "jwt_prose",
    N("A JWT has three base64url parts separated by dots; the header usually starts with eyJ."),
    N('Use PyJWT\'s jwt.decode(token, key, algorithms=["RS256"]) to verify a token.'),
    N('Reject tokens whose header says "alg": "none".'),
)
near(
    "shell_lookalike_flags",
    N("docker run -p 8080:80 nginx:1.25"),
    N("mysql -u root -p"),
    N('cd "$(pwd)/build" && make -j8'),
    N("sudo passwd alice"),
    N("ssh -i ~/.ssh/id_ed25519 deploy@10.0.0.5"),
    N('curl -u "$USER" https://api.example.com/me'),
)
near(
    "url_without_password",
    N("git clone git@github.com:acme/infra.git"),
    N("DATABASE_URL=postgres://localhost:5432/app_dev"),
    N("https://jdoe@bitbucket.org/team/repo.git"),
    N("redis://cache.internal:6379/0"),
)
near(
    "cloud_public_identifiers",
    N("arn:aws:iam::{a}:role/github-deploy", a=lambda: digits(12)),
    N("aws ec2 describe-instances --instance-ids i-{h}", h=lambda: hexs(17)),
    N("ami-{h} in vpc-{v}, subnet-{s}", h=lambda: hexs(17), v=lambda: hexs(17), s=lambda: hexs(17)),
    N("Subscription ID: {u}", u=uuid4),
    N("gcloud config set project acme-prod-{d}", d=lambda: digits(6)),
)
near(
    "public_vendor_ids",
    N("Customer cus_{a} was charged; see charge ch_{b}.", a=lambda: rs(14), b=lambda: rs(24)),
    N("gtag('config', 'G-{a}');", a=lambda: rs(10, UP)),
    N("Slack channel ID C{a}, user ID U{b}", a=lambda: rs(10, UP), b=lambda: rs(10, UP)),
    N("Twilio Account SID is shown on the console dashboard under Account Info."),
)
near(
    "network_identifiers",
    N("inet6 fe80::1c2b:3aff:fe4d:5e6f/64 scope link"),
    N("MAC 00:1A:2B:3C:4D:5E"),
    N("listen 10.20.30.40:8443 ssl;"),
)


# -------------------------------------------------------------------- build
def build():
    dev = {"secrets": [], "near_misses": []}
    hold = {"secrets": [], "near_misses": []}

    def add(bucket, kind_name, text, secret=None):
        prefix = "s" if secret is not None else "n"
        lst = bucket["secrets" if secret is not None else "near_misses"]
        tag = "dev" if bucket is dev else "ho"
        item = {
            "id": f"{tag}-{prefix}-{kind_name}-"
            f"{sum(1 for x in lst if x['kind'] == kind_name) + 1:02d}",
            "kind": kind_name,
            "text": text,
        }
        if secret is not None:
            item["secret"] = secret
        lst.append(item)

    extras = [
        "twilio",
        "sendgrid",
        "discord_bot_token",
        "telegram_bot_token",
        "digitalocean_token",
        "mailgun_key",
        "shopify_token",
        "pypi_token",
        "misc_vendor_token",
    ]
    sk = [k for k in SECRET_KINDS if k not in extras] + sorted(R.sample(extras, 3))
    nk = list(NEAR)
    for name, tpls in SECRET_KINDS.items():
        if name not in sk:
            for t in tpls:
                add(dev, name, *t())
            continue
        for t in tpls[:-1]:
            add(dev, name, *t())
        t, s = tpls[-1]()
        add(hold, name, t, s)
    for name, tpls in NEAR.items():
        if name not in nk:
            for t in tpls:
                add(dev, name, t())
            continue
        for t in tpls[:-1]:
            add(dev, name, t())
        add(hold, name, tpls[-1]())
    return dev, hold


def check(d):
    ids = set()
    for it in d["secrets"] + d["near_misses"]:
        assert it["id"] not in ids, it["id"]
        ids.add(it["id"])
    for it in d["secrets"]:
        assert it["secret"] and it["secret"] in it["text"], it["id"]


if __name__ == "__main__":
    dev, hold = build()
    check(dev)
    check(hold)
    here = os.path.dirname(os.path.abspath(__file__))
    for fn, d in (("corpus.json", dev), ("holdout.json", hold)):
        with open(os.path.join(here, fn), "w", encoding="utf-8") as f:
            json.dump(d, f, ensure_ascii=False, indent=1)
            f.write("\n")
        print(fn, len(d["secrets"]), "secrets", len(d["near_misses"]), "near misses")

"""A config.toml the user did not write sends nothing off this machine (finding #11).

A home can sit beside a notebook in a repository someone clones, and its config.toml can
name an embedding server and ``api_key_env = "OPENAI_API_KEY"``: every question, every
ingested passage and the key would go there, unasked. arborist/_config.py's rule: a
config.toml may name a model server off this machine (chat or embeddings) only when it is
the user's own word: a file, not a link, that only the user can change, in the default
home (``~/.arborist``) or in a home the user allowed (``--trust-config``,
``ARBORIST_TRUST_CONFIG``). Otherwise only loopback servers, and the refusal is one line.
A server off this machine that is used is told once per command and once per cell: the
host and where the key came from, never the key.

The server "off this machine" is a recording server on loopback reached as an HTTP proxy:
arborist asks for ``http://embed.example/v1/embeddings`` and the request arrives here
whole (its Host, its Authorization header, its texts), with no name looked up.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from arborist import Arborist
from arborist._config import TRUST_ENV, judge, on_loopback
from arborist._faces.repl import Repl, scripted_reader
from tests.chat_server import ChatServer, RecordedRequest, Reply
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX owners and modes")

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-proj-Zq8rT2vW9xY4kL7mN3pB6cD1fG5hJ0sA"
"""The user's OpenAI key, in the environment: it must reach no server a planted file names."""
FAR = "http://embed.example/v1"
EMBED_MODEL = "text-embedding-3-small"
NOTE = "# Tides\n\nThe moon pulls the tides twice a day.\n"
QUESTION = "What pulls the tides?"
PLANTED = (
    f'[embeddings]\nbase_url = "{FAR}"\nmodel = "{EMBED_MODEL}"\napi_key_env = "OPENAI_API_KEY"\n'
)


class Proxy(ChatServer):
    """The recording server, reached as every client's HTTP proxy: a request for
    ``http://embed.example/v1/embeddings`` is recorded and answered under its path."""

    def answer(self, request: RecordedRequest) -> Reply:
        return super().answer(replace(request, path=urlsplit(request.path).path))


@pytest.fixture(name="far")
def _far() -> Iterator[Proxy]:
    server = Proxy()
    server.start()
    try:
        yield server
    finally:
        server.stop()
    assert not server.errors, server.errors


def told(config: Path | str) -> str:
    """The line a command says once when its questions go to the far server (a path in the
    user's HOME shown from ``~``, as the admission gate shows every home path)."""
    return (
        f"arborist: embeddings: this run's questions and passages go to {FAR} "
        f"(model {EMBED_MODEL}; key from $OPENAI_API_KEY, named by {config})"
    )


def user_env(tmp_path: Path, far: ChatServer | None, **extra: str) -> dict[str, str]:
    """The user's environment: their own HOME, their key, every client's proxy the far
    server (None: no proxy), nothing of arborist's but ``extra``."""
    proxies = {"http_proxy", "https_proxy", "all_proxy", "no_proxy"}
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("ARBORIST_") and k.lower() not in proxies
    }
    env.update(HOME=str(tmp_path / "user"), OPENAI_API_KEY=KEY, PYTHONPATH=str(ROOT))
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    if far is not None:  # every host through it but this machine's (the seeds' qwen, hermes)
        env["HTTP_PROXY"] = f"http://127.0.0.1:{far.server_address[1]}"
        env["NO_PROXY"] = "localhost,127.0.0.1,::1"
    env.update(extra)
    return env


def arborist(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arborist", *args],
        cwd=env["HOME"], env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def cloned(tmp_path: Path, config: str = PLANTED) -> Path:
    """A repository someone cloned: a notebook's home beside it holding ``config``, and a
    note to ingest. The home, as the README has a user export it."""
    home = tmp_path / "clone" / ".demo-home"
    home.mkdir(parents=True)
    (home / "config.toml").write_text(config, encoding="utf-8")
    (tmp_path / "user").mkdir(exist_ok=True)
    (tmp_path / "user" / "note.md").write_text(NOTE, encoding="utf-8")
    return home


def assert_refused(done: subprocess.CompletedProcess[str], *words: str) -> None:
    """One error line, exit 2, naming ``words``; the key nowhere."""
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith("arborist: error: ")
    for word in words:
        assert word in done.stderr
    assert KEY not in done.stdout + done.stderr


def test_a_cloned_homes_config_sends_no_question_and_no_key_off_the_machine(
    tmp_path: Path, far: Proxy
) -> None:
    home = cloned(tmp_path)
    env = user_env(tmp_path, far, ARBORIST_HOME=str(home))
    config = str(home / "config.toml")
    for args in (("ingest", "note.md"), ("ask", QUESTION), ("embed",)):
        done = arborist(env, *args)
        assert_refused(done, "embed.example", config, "--trust-config", f"{TRUST_ENV}={home}")
    assert far.requests == 0
    assert "0 surface" in arborist(env, "stats").stdout  # the refused ingest wrote nothing


@pytest.mark.parametrize("how", ["flag", "environment", "default home"])
def test_the_user_who_wrote_it_is_told_once_where_the_questions_go(
    tmp_path: Path, far: Proxy, how: str
) -> None:
    if how == "default home":  # ~/.arborist: no notebook or folder chooses it
        home = tmp_path / "user" / ".arborist"
        home.mkdir(parents=True, mode=0o700)
        (home / "config.toml").write_text(PLANTED, encoding="utf-8")
        (tmp_path / "user" / "note.md").write_text(NOTE, encoding="utf-8")
        env, flags = user_env(tmp_path, far), []
        shown: Path | str = "~/.arborist/config.toml"
    else:
        home = cloned(tmp_path)
        allowed = {TRUST_ENV: str(home)} if how == "environment" else {}
        env = user_env(tmp_path, far, ARBORIST_HOME=str(home), **allowed)
        flags = ["--trust-config"] if how == "flag" else []
        shown = home / "config.toml"
    line = told(shown)
    for args in (("ingest", "note.md"), ("ask", QUESTION)):
        done = arborist(env, *flags, *args)
        assert done.returncode == 0, done.stderr
        assert done.stderr.splitlines().count(line) == 1, done.stderr
        assert KEY not in done.stdout + done.stderr
    sent = [r for r in far.received if r.path == "/v1/embeddings"]
    assert len(sent) >= 2 and far.requests == len(sent)
    assert {r.headers["host"] for r in sent} == {"embed.example"}
    assert {r.headers["authorization"] for r in sent} == {f"Bearer {KEY}"}
    texts = [text for r in sent for text in r.body["input"]]
    assert any("moon pulls the tides" in t for t in texts) and QUESTION in texts


def test_a_homes_own_loopback_server_keeps_everything_here_and_needs_no_word(
    tmp_path: Path, chat_server: ChatServer
) -> None:
    """A home beside a notebook may name a server on this machine, with its key: nothing
    leaves the machine, so nothing is refused or told."""
    local = PLANTED.replace(FAR, chat_server.url)
    env = user_env(tmp_path, None, ARBORIST_HOME=str(cloned(tmp_path, local)))
    for args in (("ingest", "note.md"), ("ask", QUESTION)):
        done = arborist(env, *args)
        assert done.returncode == 0, done.stderr
        assert "embeddings:" not in done.stderr
    assert chat_server.embed_requests >= 2


def _world_writable(config: Path) -> str:
    config.chmod(0o666)
    return "writable by other users (chmod go-w"


def _linked(config: Path) -> str:
    elsewhere = config.parent.parent / "shared.toml"
    config.rename(elsewhere)
    config.symlink_to(elsewhere)
    return "a symbolic link"


def _open_folder(config: Path) -> str:
    config.parent.chmod(0o777)
    return f"in a folder other users can change ({config.parent})"


def _others_group(config: Path) -> str:
    if os.geteuid() != 0:
        pytest.skip("changing a file's group to one the user is not alone in takes root")
    os.chown(config, -1, 65534 if os.getegid() != 65534 else 1)
    config.chmod(0o664)
    return "writable by other users"


def _another_owner(config: Path) -> str:
    if os.geteuid() != 0:
        pytest.skip("giving a file to another user takes root")
    os.chown(config, 65534, -1)
    return "owned by another user (uid 65534)"


@pytest.mark.parametrize(
    "make", [_world_writable, _linked, _open_folder, _others_group, _another_owner]
)
def test_a_config_others_can_change_is_refused_even_in_a_home_the_user_allowed(
    tmp_path: Path, far: Proxy, make: Callable[[Path], str]
) -> None:
    home = cloned(tmp_path)
    doubt = make(home / "config.toml")
    env = user_env(tmp_path, far, ARBORIST_HOME=str(home), **{TRUST_ENV: str(home)})
    for args in (("ask", QUESTION), ("--trust-config", "ask", QUESTION)):
        assert_refused(arborist(env, *args), doubt, "embed.example")
    assert far.requests == 0


def test_a_planted_chat_profile_is_refused_the_same_way(tmp_path: Path, far: Proxy) -> None:
    """``[models.qwen]`` replaces the seeds' local qwen: a user who runs ``--llm qwen``
    would send the question, its evidence and the key to the file's server."""
    planted = (
        '[models.qwen]\nbase_url = "http://chat.example/v1"\nmodel = "qwen2.5-7b-instruct"\n'
        'api_key_env = "OPENAI_API_KEY"\n'
    )
    home = cloned(tmp_path, planted)
    env = user_env(tmp_path, far, ARBORIST_HOME=str(home))
    assert arborist(env, "ingest", "note.md").returncode == 0
    assert_refused(arborist(env, "ask", "--llm", "qwen", QUESTION), "chat.example", "qwen")
    listed = arborist(env, "models", "--json")
    assert listed.returncode == 0 and "not sending anything to http://chat.example" in listed.stdout
    assert KEY not in listed.stdout + listed.stderr
    assert far.requests == 0
    done = arborist(env, "--trust-config", "ask", "--llm", "qwen", "--no-cache", QUESTION)
    assert done.returncode == 0, done.stderr
    assert "/v1/chat/completions" in {r.path for r in far.received}
    assert {(r.headers["host"], r.headers["authorization"]) for r in far.received} == {
        ("chat.example", f"Bearer {KEY}")
    }


def test_allowing_one_home_allows_no_other(tmp_path: Path, far: Proxy) -> None:
    home = cloned(tmp_path)
    other = tmp_path / "mine"
    other.mkdir()
    allowed = os.pathsep.join([str(other), str(other / "config.toml"), ""])
    env = user_env(tmp_path, far, ARBORIST_HOME=str(home), **{TRUST_ENV: allowed})
    assert_refused(arborist(env, "ask", QUESTION), "embed.example")
    assert far.requests == 0


def test_a_notebook_is_told_once_in_every_cell_that_sends(
    tmp_path: Path, far: Proxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = cloned(tmp_path)
    for name, value in user_env(tmp_path, far, ARBORIST_HOME=str(home)).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv(TRUST_ENV, str(home))
    ip = InteractiveShell.instance()
    try:
        assert ip.run_cell("%load_ext arborist_nb").success
        said = []
        cells = [("arborist", f"ingest {tmp_path / 'user' / 'note.md'}"), ("ask", QUESTION)]
        cells += [("ask", "How often do the tides turn?"), ("ask", QUESTION)]  # a cache hit
        for magic, text in cells:  # each its own cell, as a %%ask cell is
            with capture_output() as cell:
                if magic == "ask":
                    ip.run_cell_magic("ask", "", text)
                else:
                    ip.run_line_magic(magic, text)
            said.append(cell.stderr.splitlines().count(told(home / "config.toml")))
        assert said == [1, 1, 1, 1]
        assert KEY not in cell.stdout + cell.stderr
    finally:
        ip.run_line_magic("unload_ext", "arborist_nb")
        InteractiveShell.clear_instance()
    assert far.embed_requests >= 3


def test_a_repl_is_told_once_in_every_line_that_sends(
    tmp_path: Path, far: Proxy, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    home = cloned(tmp_path)
    for name, value in user_env(tmp_path, far).items():
        monkeypatch.setenv(name, value)
    with Arborist(home, trust_config=True) as app:
        app.ingest([str(tmp_path / "user" / "note.md")])
        assert capfd.readouterr().err.splitlines().count(told(home / "config.toml")) == 1
        out: list[str] = []
        script = [QUESTION, "How often do the tides turn?", "/search tides"]
        Repl(app, None, read=scripted_reader(script), write=out.append).run()
    said = capfd.readouterr().err.splitlines()
    assert said.count(told(home / "config.toml")) == 2  # the two questions; a search embeds none
    assert far.embed_requests >= 3
    assert KEY not in "\n".join(out + said)


def test_a_users_private_group_may_write_it(tmp_path: Path) -> None:
    """Debian's umask 002 makes every file group-writable, the group the user's own and
    no one else's: that file is still the user's word (a group with others is not)."""
    import grp  # POSIX only, as this module
    import pwd

    user = pwd.getpwuid(os.geteuid())
    group = grp.getgrgid(user.pw_gid)
    if group.gr_name != user.pw_name or any(m != user.pw_name for m in group.gr_mem):
        pytest.skip("the user has no private group here")
    config = cloned(tmp_path) / "config.toml"
    os.chown(config, -1, user.pw_gid)
    config.chmod(0o664)
    config.parent.chmod(0o775)
    assert judge(config, {TRUST_ENV: str(config.parent)}).doubt == ""
    assert "not in your default home" in judge(config, {}).doubt


@pytest.mark.parametrize(
    ("url", "here"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://127.9.8.7/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://[::1]:8080/v1", True),
        ("http://[::ffff:127.0.0.1]/v1", True),
        ("http://127.0.0.1:80@evil.example/v1", False),  # userinfo: the host is evil.example
        ("http://127.0.0.1\\@evil.example/v1", False),
        ("http://localhost.evil.example/v1", False),
        ("http://127.0.0.1.nip.io/v1", False),  # resolves to loopback today, not by its name
        ("http://0.0.0.0:8080/v1", False),
        ("https://api.openai.com/v1", False),
        ("http://[::1/v1", False),  # not a URL
    ],
)
def test_loopback_is_the_host_httpx_connects_to_by_its_name_alone(url: str, here: bool) -> None:
    assert on_loopback(url) is here


def test_a_file_of_another_owner_is_named_whoever_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The owner check without root: the process takes itself for another user."""
    config = cloned(tmp_path) / "config.toml"
    config.chmod(stat.S_IRUSR | stat.S_IWUSR)
    mine = os.geteuid()
    assert judge(config, {TRUST_ENV: str(config)}).doubt == ""
    monkeypatch.setattr(os, "geteuid", lambda: mine + 1)
    assert judge(config, {TRUST_ENV: str(config)}).doubt == f"owned by another user (uid {mine})"

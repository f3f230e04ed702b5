"""s193: every gem command reads the gemrc files (RubyGems 3.3, ``Gem::ConfigFile``): the
system's ``/etc/gemrc``, the user's (``--config-file``'s value, else ``$GEMRC``, else ~/.gemrc
or ~/.config/gem/gemrc) and each file of ``$GEMRC``. Their ``:sources:`` are where ``gem
install NAME`` fetches the gem it installs (and a gem's install runs its extension's build):
with the agent allowed to write ~/, a rule ``gem **`` was a rule for whatever server the agent
wrote into ~/.gemrc. The engine counted none of them (it knew only that ``gem sources --add``
writes one).

Proven here with gem 3.3 under bash and dash: a loopback server sees the fetch."""

from __future__ import annotations

import http.server
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_of as _effect
from .engine_verdicts import rule_text as _rules
from .passed_env import pass_on


class _Seen(http.server.BaseHTTPRequestHandler):
    paths: list[str] = []

    def do_GET(self) -> None:
        self.paths.append(self.path)
        self.send_error(404)

    do_HEAD = do_GET

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[http.server.HTTPServer]:
    _Seen.paths = []
    httpd = http.server.HTTPServer(("127.0.0.1", 0), _Seen)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_gem_install_fetches_from_the_sources_of_the_users_gemrc(tmp_path: Path, server: http.server.HTTPServer,
                                                                  shell: str) -> None:
    if shutil.which("gem") is None or shutil.which(shell) is None:
        pytest.skip(f"gem or {shell} is not installed")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gemrc").write_text(f"---\n:sources:\n- http://127.0.0.1:{server.server_port}/\n", encoding="utf-8")
    argv = [shell, "-c", f"gem install --install-dir {tmp_path / 'gems'} nosuchgem"]
    if shell == "bash":
        argv[1:1] = ["--noprofile", "--norc"]
    subprocess.run(argv, cwd=tmp_path, env={"HOME": str(home), "PATH": "/usr/bin:/bin"}, capture_output=True,
                   timeout=60, check=False)
    assert any("nosuchgem" in p or "specs" in p for p in _Seen.paths), _Seen.paths


@pytest.mark.parametrize(("writable", "line"), [
    ("~/**", "gem install rake"),
    ("~/.config/**", "gem list"),
    ("//etc/**", "gem install rake"),
    ("@workspace/out/**", "gem install --config-file out/gemrc rake"),
    ("@workspace/out/**", "gem install rake --config-file=out/gemrc"),
    ("@workspace/out/**", "gem --config-file ./out/../out/gemrc install rake"),
])
def test_a_gemrc_the_agent_may_write_asks(setup: Setup, writable: str, line: str) -> None:
    setup.write_user_rules(_rules("gem **") + _rules(writable, tool="write"))
    assert _effect(setup, line) is not Effect.ALLOW


def test_a_gemrc_named_by_gemrc_counts(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    """(``$GEMRC`` in the environment the commands inherit: a list, relative to where gem runs.)"""
    pass_on(monkeypatch, "GEMRC", "/nowhere/gemrc:out/gemrc")
    setup.write_user_rules(_rules("gem **") + _rules("@workspace/out/**", tool="write"))
    assert _effect(setup, "gem install rake") is not Effect.ALLOW


@pytest.mark.parametrize("line", ["gem install rake", "gem install --config-file src/gemrc rake", "gem list"])
def test_gemrc_files_the_agent_cannot_write_leave_the_rule_in_force(setup: Setup, line: str) -> None:
    setup.write_user_rules(_rules("gem **") + _rules("@workspace/out/**", tool="write"))
    assert _effect(setup, line) is Effect.ALLOW

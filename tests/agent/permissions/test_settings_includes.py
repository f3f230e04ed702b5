"""Settings files that name other files (s150): the person's own settings, or a repository's,
may include a file, or name a program or code to load, in a folder the agent may write. The
file they name is then the agent's: a rule naming the program no longer allows it, as for
git's ``include.path`` (``git_config``). Proven for hg 6.3 (the hostile corpus, issue
``s150``): ``%include`` in ``~/.hgrc`` or ``.hg/hgrc``, a hook's program or python file, an
extension's file, the file ``$HGRCPATH`` names."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect, hg_config
from echo_desk.agent.permissions.git_config import Named

from .conftest import Setup
from .engine_verdicts import effect_under
from .passed_env import pass_on

HG = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[hg|cd] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"
"""


def _verdict(setup: Setup, rules: str, line: str) -> Effect | None:
    return effect_under(setup, rules, line)


def _hg_repository(setup: Setup, hgrc: str) -> None:
    """A repository in src/ (every folder of it counts already: s140), beside the agent's out/."""
    (setup.workspace / "src" / ".hg").mkdir(exist_ok=True)
    (setup.workspace / "src" / ".hg" / "hgrc").write_text(hgrc, encoding="utf-8")


@pytest.mark.parametrize("hgrc", [
    "%include ../../out/shared.rc\n",
    "[hooks]\npre-status = sh ../out/h.sh\n",
    "[hooks]\npre-status = python:../out/h.py:f\n",
    "[extensions]\nx = ../out/ext.py\n",
    "[merge-tools]\nm.executable = ../out/merge.sh\n",
    # (a value continued on the next line)
    "[hooks]\npre-status = true &&\n  sh ../out/h.sh\n",
])
@pytest.mark.parametrize("line", ["cd src && hg status", "hg -R src status"])
def test_a_repository_hgrc_naming_a_file_the_agent_may_write_asks(setup: Setup, hgrc: str, line: str) -> None:
    _hg_repository(setup, hgrc)
    assert _verdict(setup, HG, line) is not Effect.ALLOW


@pytest.mark.parametrize("hgrc", [
    "[ui]\nusername = me\n", "[hooks]\npre-status = sh ../docs/h.sh\n", "%include ../../docs/x.rc\n",
    "[extensions]\nrebase =\n", "[extensions]\nx = !\n",
])
def test_a_repository_hgrc_naming_nothing_the_agent_may_write_leaves_the_rule_in_force(setup: Setup,
                                                                                        hgrc: str) -> None:
    _hg_repository(setup, hgrc)
    assert _verdict(setup, HG, "cd src && hg status") is Effect.ALLOW


def test_an_extension_is_found_from_the_folder_hg_runs_in(setup: Setup) -> None:
    """``[extensions] x = ext.py``: a file to load, slash or not, from the folder hg runs in.
    (Any hg command asks while an extension file is loaded, s317: ``hg_unaudited``; the file is
    still named, for a rule that would otherwise allow it.)"""
    _hg_repository(setup, "[extensions]\nx = ext.py\n")
    hgrc = setup.workspace / "src" / ".hg" / "hgrc"
    src, out = setup.workspace / "src", setup.workspace / "out"
    assert Named(src / "ext.py") in hg_config.named([hgrc], [src], setup.home)
    assert Named(out / "ext.py") in hg_config.named([hgrc], [out, src], setup.home)
    assert _verdict(setup, HG, "cd out && hg -R ../src status") is not Effect.ALLOW


@pytest.mark.parametrize("hgrc", ["%include ~/shared.rc\n", "%include ../ws/out/x.rc\n"])
def test_the_persons_hgrc_including_a_file_the_agent_may_write_asks(setup: Setup, hgrc: str) -> None:
    rules = HG + '\n[[rule]]\neffect = "allow"\ntool = "write"\npattern = "~/shared.rc"\n'
    assert _verdict(setup, rules, "hg status") is Effect.ALLOW
    (setup.home / ".hgrc").write_text(hgrc.replace("../ws", str(setup.workspace)), encoding="utf-8")
    assert _verdict(setup, rules, "hg status") is not Effect.ALLOW


def test_an_included_file_is_followed(setup: Setup) -> None:
    """An included file's own ``%include`` and paths count too; a file hg cannot parse names
    every folder hg runs in."""
    (setup.workspace / "docs").mkdir()
    (setup.workspace / "docs" / "a.rc").write_text("%include ../out/b.rc\n", encoding="utf-8")
    _hg_repository(setup, "%include ../../docs/a.rc\n")
    assert _verdict(setup, HG, "cd src && hg status") is not Effect.ALLOW


def test_a_settings_file_hg_cannot_parse_names_the_folders_it_runs_in(setup: Setup) -> None:
    (setup.home / ".hgrc").write_text("  not hgrc\n", encoding="utf-8")
    assert _verdict(setup, HG, "cd out && hg status") is not Effect.ALLOW


@pytest.mark.parametrize(("named", "effect"), [("rc/x.rc", None), ("rc", None), ("other.rc", Effect.ALLOW)])
def test_the_settings_hgrcpath_names(setup: Setup, monkeypatch: pytest.MonkeyPatch, named: str,
                                     effect: Effect | None) -> None:
    """``$HGRCPATH`` in the environment the commands inherit from Echo Desk: hg reads the files
    it names (a folder: its ``*.rc`` files) instead of the system's and the user's."""
    rules = HG + '\n[[rule]]\neffect = "allow"\ntool = "write"\npattern = "~/rc/**"\n'
    (setup.home / "rc").mkdir()
    pass_on(monkeypatch, "HGRCPATH", str(setup.home / named))
    assert (_verdict(setup, rules, "hg status") is Effect.ALLOW) is (effect is Effect.ALLOW)



def _share(setup: Setup, source: str, shared_path: str, requires: str = "share-safe\nshared\n") -> Path:
    """src/ made a share (``hg share``) of the repository ``source`` (a workspace folder):
    its .hg holds the path of the source's .hg and its requirements, nothing the agent may
    write."""
    (setup.workspace / source / ".hg").mkdir(parents=True, exist_ok=True)
    share = setup.workspace / "src" / ".hg"
    share.mkdir(exist_ok=True)
    (share / "requires").write_text(requires, encoding="utf-8")
    (share / "sharedpath").write_text(shared_path.replace("@ws@", str(setup.workspace)), encoding="utf-8")
    return share


@pytest.mark.parametrize(("shared_path", "requires"), [
    ("@ws@/out/main/.hg", "share-safe\nshared\n"),
    ("@ws@/out/main/.hg\n", "shared\n"),
    ("../../out/main/.hg", "relshared\nshare-safe\n"),  # (hg share --relative)
])
@pytest.mark.parametrize("line", ["cd src && hg status", "hg -R src status", "hg --cwd src root"])
def test_a_share_of_a_repository_the_agent_may_write_asks(setup: Setup, shared_path: str, requires: str,
                                                           line: str) -> None:
    """A share reads the settings (hooks) of the repository its .hg/sharedpath names: the
    agent's hooks there ran under a plain ``hg status`` in the share (hg 6.3)."""
    _share(setup, "out/main", shared_path, requires)
    assert _verdict(setup, HG, line) is not Effect.ALLOW


def test_a_share_of_a_repository_whose_settings_name_a_file_the_agent_may_write_asks(setup: Setup) -> None:
    _share(setup, "docs/main", "@ws@/docs/main/.hg")
    assert _verdict(setup, HG, "cd src && hg status") is Effect.ALLOW
    (setup.workspace / "docs" / "main" / ".hg" / "hgrc").write_text("[hooks]\npre-status = sh ../out/h.sh\n",
                                                                    encoding="utf-8")
    assert _verdict(setup, HG, "cd src && hg status") is not Effect.ALLOW


def test_a_sharedpath_not_read_may_name_any_folder(setup: Setup) -> None:
    share = _share(setup, "docs/main", "@ws@/docs/main/.hg")
    (share / "sharedpath").unlink()
    (share / "sharedpath").mkdir()
    assert _verdict(setup, HG, "cd src && hg status") is not Effect.ALLOW


@pytest.mark.skipif(shutil.which("hg") is None, reason="hg is not installed")
def test_hg_runs_the_hooks_of_the_repository_a_share_names(tmp_path: Path) -> None:
    """The harm, for real: hooks written into the source's .hg/hgrc run under ``hg status``
    in a share of it."""
    env = {"HOME": str(tmp_path), "PATH": os.environ["PATH"], "HGRCPATH": "", "HGUSER": "t"}
    subprocess.run(["hg", "init", "main"], cwd=tmp_path, env=env, check=True)
    subprocess.run(["hg", "--config", "extensions.share=", "share", "-U", "main", "share"], cwd=tmp_path, env=env,
                   check=True, capture_output=True)
    (tmp_path / "main" / ".hg" / "hgrc").write_text("[hooks]\npre-status = touch ../PWNED\n", encoding="utf-8")
    subprocess.run(["hg", "status"], cwd=tmp_path / "share", env=env, check=True)
    assert (tmp_path / "PWNED").exists()


GDB = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[gdb|cd] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "~/dotfiles/**"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"
"""


@pytest.mark.parametrize(("init", "line"), [
    # gdb runs the file a `source` line of its init file names (proven, gdb 13: a file of
    # commands, a python file; a relative one from the folder gdb runs in).
    ("source ~/dotfiles/gdbinit\n", "gdb -batch"),
    ("source -v ~/dotfiles/x.py\n", "gdb -batch"),
    ("so ~/dotfiles/x.gdb\n", "gdb -batch"),
    ("source ~/tools/pwndbg/gdbinit.py\n", "gdb -batch"),  # (its folder below: ~/tools/pwndbg/** …)
    ("source x.gdb\n", "cd src && gdb -batch"),
    ("python import sys; sys.path.insert(0, '~/dotfiles/gdb')\n", "gdb -batch"),
])
def test_a_file_the_persons_gdbinit_names_counts(setup: Setup, init: str, line: str) -> None:
    rules = GDB.replace("~/dotfiles/**", "~/tools/pwndbg/pwndbg/**") if "pwndbg" in init else GDB
    rules = rules.replace("~/dotfiles/**", "@workspace/src/*.gdb") if init == "source x.gdb\n" else rules
    assert _verdict(setup, rules, line) is Effect.ALLOW
    (setup.home / ".gdbinit").write_text(init, encoding="utf-8")
    assert _verdict(setup, rules, line) is not Effect.ALLOW


def test_a_sourced_file_is_followed(setup: Setup) -> None:
    (setup.home / "gdb").mkdir()
    (setup.home / "gdb" / "main.gdb").write_text("source ~/dotfiles/more.gdb\n", encoding="utf-8")
    (setup.home / ".config" / "gdb").mkdir()
    (setup.home / ".config" / "gdb" / "gdbinit").write_text("source ~/gdb/main.gdb\n", encoding="utf-8")
    assert _verdict(setup, GDB, "gdb -batch") is not Effect.ALLOW


@pytest.mark.parametrize("init", ["set history save on\n", "source ~/gdb/x.gdb\n", "# source ~/dotfiles/x\n"])
def test_a_gdbinit_naming_nothing_the_agent_may_write_leaves_the_rule_in_force(setup: Setup, init: str) -> None:
    (setup.home / ".gdbinit").write_text(init, encoding="utf-8")
    assert _verdict(setup, GDB, "gdb -batch") is Effect.ALLOW


SSH = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[scp|sftp|cd] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "~/.orbstack/**"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"
"""


@pytest.mark.parametrize(("line", "effect"), [
    # scp and sftp run ssh, which runs what its settings say (proven, OpenSSH 9.2, with a host
    # that does not exist): -o sets any of them (ProxyCommand), -F names the settings file (its
    # Include, Match exec), -J a host to jump through, -S and -D a program run instead of ssh or
    # the server; sftp -b reads commands from a file (`!cmd` runs a local one: from its manual).
    ("scp -o ProxyCommand='touch PWNED' x:/a b", None), ("scp -oProxyCommand=x x:/a b", None),
    ("scp -F out/cfg x:/a b", None), ("scp -S out/prog x:/a b", None), ("scp -J jump x:/a b", None),
    ("scp -D out/prog x:/a b", None), ("sftp -o ProxyCommand=x x", None), ("sftp -F out/cfg x", None),
    ("sftp -D out/prog", None), ("sftp -b out/batch x", None), ('scp "$OPT" x:/a b', None),
    ("scp x:/a out/b", Effect.ALLOW), ("scp -r -P 22 x:/a out/b", Effect.ALLOW), ("scp -3 x:/a y:/b", Effect.ALLOW),
    ("sftp x", Effect.ALLOW), ("sftp -P 2222 -q x", Effect.ALLOW),
    ("scp x:/a -o out/ProxyCommand=x", Effect.ALLOW),  # (after an operand: a file's name, scp does not permute)
    # (the local destination is judged by the write rules: s202)
    ("scp x:/a b", None), ("scp x:/a b -o ProxyCommand=x", None),
])
def test_ssh_options_of_scp_and_sftp_are_covered_only_by_naming_them(setup: Setup, line: str,
                                                                      effect: Effect | None) -> None:
    assert (_verdict(setup, SSH, line) is Effect.ALLOW) is (effect is Effect.ALLOW)


@pytest.mark.parametrize("config", [
    # An Include the agent may write (OrbStack adds this one to ~/.ssh/config), relative to
    # ~/.ssh too, or a glob; a path in a value (a ProxyCommand's program, Match exec).
    "Include ~/.orbstack/ssh/config\n", "Include ../.orbstack/ssh/config\n", "Include ~/.orbstack/*/config\n",
    "Host x\n  ProxyCommand ~/.orbstack/bin/proxy %h\n", 'Match exec "sh out/x.sh"\n',
    "Host *\n  Include=~/.orbstack/ssh/config\n",
])
@pytest.mark.parametrize("line", ["scp x:/a out/b", "sftp x"])
def test_the_files_ssh_settings_name_count(setup: Setup, config: str, line: str) -> None:
    assert _verdict(setup, SSH, line) is Effect.ALLOW
    (setup.home / ".ssh" / "config").write_text(config, encoding="utf-8")
    assert _verdict(setup, SSH, line) is not Effect.ALLOW


def test_an_included_ssh_file_is_followed(setup: Setup) -> None:
    (setup.home / ".ssh" / "hosts").write_text("Include ~/.orbstack/x\n", encoding="utf-8")
    (setup.home / ".ssh" / "config").write_text("Include hosts\n", encoding="utf-8")
    assert _verdict(setup, SSH, "scp x:/a out/b") is not Effect.ALLOW


@pytest.mark.parametrize("config", ["Host x\n  User me\n  IdentityFile ~/.ssh/id_x\n", "Include ~/.ssh/config.d/*\n",
                                    "# Include ~/.orbstack/x\n"])
def test_ssh_settings_naming_nothing_the_agent_may_write_leave_the_rule_in_force(setup: Setup, config: str) -> None:
    (setup.home / ".ssh" / "config").write_text(config, encoding="utf-8")
    assert _verdict(setup, SSH, "scp x:/a out/b") is Effect.ALLOW


def test_ssh_settings_the_agent_may_write_count(setup: Setup) -> None:
    rules = SSH + '\n[[rule]]\neffect = "allow"\ntool = "write"\npattern = "~/.ssh/config"\n'
    assert _verdict(setup, rules, "scp x:/a out/b") is not Effect.ALLOW


CURL = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[curl|cd] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "~/dotfiles/**"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"
"""


@pytest.mark.parametrize("curlrc", [
    # curl follows a `config` line of its settings file (proven, curl 7.88: `output` there wrote
    # a file), spelled as any option may be.
    'config = "~/dotfiles/curlrc"\n', "-K ~/dotfiles/curlrc\n", "--config: ~/dotfiles/curlrc\n",
    "config ../ws/out/curlrc\n",
    # A path a value names (a file it sends, a CA it trusts) the agent may write.
    'data = "@~/dotfiles/body"\n',
])
def test_a_file_the_persons_curlrc_names_counts(setup: Setup, curlrc: str) -> None:
    assert _verdict(setup, CURL, "cd src && curl -s http://127.0.0.1/") is Effect.ALLOW
    (setup.home / ".curlrc").write_text(curlrc.replace("../ws", str(setup.workspace)), encoding="utf-8")
    assert _verdict(setup, CURL, "cd src && curl -s http://127.0.0.1/") is not Effect.ALLOW


def test_an_included_curl_file_is_followed(setup: Setup) -> None:
    (setup.home / "curl.d").mkdir()
    (setup.home / "curl.d" / "a").write_text("config = ~/dotfiles/b\n", encoding="utf-8")
    (setup.home / ".curlrc").write_text("--config ~/curl.d/a\n", encoding="utf-8")
    assert _verdict(setup, CURL, "curl -s http://127.0.0.1/") is not Effect.ALLOW


@pytest.mark.parametrize("curlrc", ["silent\nuser-agent = \"x/1\"\n", "url = https://example.com/dotfiles/x\n",
                                    "# config ~/dotfiles/x\n", "config = ~/curl.d/a\n"])
def test_a_curlrc_naming_nothing_the_agent_may_write_leaves_the_rule_in_force(setup: Setup, curlrc: str) -> None:
    (setup.home / ".curlrc").write_text(curlrc, encoding="utf-8")
    assert _verdict(setup, CURL, "curl -s http://127.0.0.1/") is Effect.ALLOW


@pytest.mark.parametrize(("named", "effect"), [("dotfiles", None), ("other", Effect.ALLOW)])
def test_the_curlrc_of_curl_home(setup: Setup, monkeypatch: pytest.MonkeyPatch, named: str,
                                 effect: Effect | None) -> None:
    """``$CURL_HOME`` in the environment the commands inherit from Echo Desk moves ``.curlrc``
    (proven: its ``output`` wrote a file)."""
    pass_on(monkeypatch, "CURL_HOME", str(setup.home / named))
    assert (_verdict(setup, CURL, "curl -s http://127.0.0.1/") is Effect.ALLOW) is (effect is Effect.ALLOW)


@pytest.mark.parametrize("line", [
    # A local socket instead of the network: docker's creates and starts a container (proven
    # with a listener receiving the request).
    "curl -s --unix-socket /var/run/docker.sock -d '{}' http://localhost/containers/create",
    "curl --unix-sock /var/run/docker.sock http://localhost/", "curl --abstract-unix-socket x http://localhost/",
])
def test_curl_to_a_local_socket_is_covered_only_by_naming_it(setup: Setup, line: str) -> None:
    assert _verdict(setup, CURL, line) is not Effect.ALLOW


def test_a_rule_naming_the_socket_option_covers_it(setup: Setup) -> None:
    rules = CURL.replace("[curl|cd] **", "[curl|cd|curl --unix-socket] **")
    assert _verdict(setup, rules, "curl --unix-socket out/app.sock http://localhost/") is Effect.ALLOW


GIT = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[git|cd] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "~/dotfiles/**"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"
"""
#: Comment lines more than a megabyte long in all: a settings file read only so far (1 MB)
#: would hide a line below them.
_PADDING = ("# " + "x" * 1000 + "\n") * 1100


@pytest.mark.parametrize(("rules", "file", "naming", "line"), [
    (HG, "@workspace/src/.hg/hgrc", "%include ../../out/shared.rc\n", "cd src && hg status"),
    (GDB, "~/.gdbinit", "source ~/dotfiles/gdbinit\n", "gdb -batch"),
    (SSH, "~/.ssh/config", "Include ~/.orbstack/ssh/config\n", "scp x:/a out/b"),
    (CURL, "~/.curlrc", 'config = "~/dotfiles/curlrc"\n', "cd src && curl -s http://127.0.0.1/"),
    (GIT, "~/.gitconfig", "[include]\n\tpath = ~/dotfiles/gitconfig\n", "git -C src status"),
])
def test_a_settings_file_too_long_to_read_whole_does_not_hide_what_it_names(
        setup: Setup, rules: str, file: str, naming: str, line: str) -> None:
    """A settings file longer than Echo Desk reads names a file the agent may write below the
    part read: the line asks (before, the part not read was dropped and the rule allowed it)."""
    if file.startswith("@workspace/src/.hg/"):
        (setup.workspace / "src" / ".hg").mkdir()
    if file.startswith("~/.gitconfig"):
        subprocess.run(["git", "init", "-q", str(setup.workspace / "src")], check=True, env={"HOME": str(setup.home)})
    path = Path(file.replace("@workspace", str(setup.workspace)).replace("~", str(setup.home)))
    path.write_text("", encoding="utf-8")
    assert _verdict(setup, rules, line) is Effect.ALLOW
    path.write_text(_PADDING + naming, encoding="utf-8")
    assert _verdict(setup, rules, line) is not Effect.ALLOW

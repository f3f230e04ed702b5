"""Nothing a sandboxed command plants for a program other than git runs later outside the sandbox.

Each test runs one hostile command through the real ``run_command`` in a real bwrap sandbox,
then does what the person does next, outside Echo Desk (``hg status`` in the workspace, a
shell prompt with mise activated). The
code the command tried to plant appends to a marker file outside the workspace; it must stay
absent. Each attack is first shown to be real: the same file, written by hand, does run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path, PurePosixPath

import pytest
from sandbox_helpers import Jail, context, kubeconfig_with_exec, requires_bwrap, run, tool_with

pytestmark = requires_bwrap

needs_hg = pytest.mark.skipif(shutil.which("hg") is None, reason="needs Mercurial (hg) to show its hooks run")
needs_mise = pytest.mark.skipif(shutil.which("mise") is None, reason="needs mise to show its hooks run")


def _marker(jail: Jail) -> Path:
    return jail.base / "planted-ran"


def _ran(jail: Jail) -> int:
    marker = _marker(jail)
    return len(marker.read_text().splitlines()) if marker.exists() else 0


def _person_runs_hg_status(folder: Path, jail: Jail, *, own_settings: bool = False) -> None:
    """``hg status`` as the person runs it: outside any sandbox, their own home (whose settings
    files are read only with ``own_settings``: the machine's own could differ)."""
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), **({} if own_settings else {"HGRCPATH": ""})}
    subprocess.run(["hg", "status"], cwd=folder, env=env, capture_output=True, text=True, timeout=60)


def _hg_hook(jail: Jail) -> str:
    """A Mercurial settings file whose hook runs before every ``hg status``."""
    return f"[hooks]\npre-status = echo ran >> {_marker(jail)}\n"


def _make_hg_repository(folder: Path) -> None:
    subprocess.run(["hg", "init", "-q", str(folder)], env={"PATH": os.environ["PATH"], "HGRCPATH": ""},
                   check=True, capture_output=True, timeout=60)


@needs_hg
def test_a_mercurial_hook_written_by_hand_runs_on_hg_status(jail: Jail) -> None:
    _make_hg_repository(jail.workspace)
    (jail.workspace / ".hg" / "hgrc").write_text(_hg_hook(jail))
    _person_runs_hg_status(jail.workspace, jail)
    assert _ran(jail) == 1


@needs_hg
@pytest.mark.parametrize("already_hg", [False, True], ids=["new .hg", "existing hg repository"])
async def test_a_planted_mercurial_hook_does_not_run_on_hg_status(jail: Jail, already_hg: bool) -> None:
    ws = jail.workspace
    if already_hg:
        _make_hg_repository(ws)
    hook = _hg_hook(jail).replace("\n", "\\n")
    command = (f"mkdir -p .hg/store; [ -e .hg/requires ] || printf 'dotencode\\nfncache\\nstore\\n' > .hg/requires; "
               f"printf '{hook}' > .hg/hgrc; cat .hg/hgrc")
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_runs_hg_status(ws, jail)
    assert _ran(jail) == 0, result.output
    assert not (ws / ".hg" / "hgrc").exists()


@needs_hg
async def test_a_mercurial_share_of_a_repository_of_the_commands_own_runs_no_hook(jail: Jail) -> None:
    """``.hg/sharedpath`` (with ``share-safe``) makes hg read the settings of the repository it
    names: one the command made, elsewhere in the workspace, with its own hooks."""
    ws = jail.workspace
    _make_hg_repository(ws)
    hook = _hg_hook(jail).replace("\n", "\\n")
    command = (f"HGRCPATH= hg init -q evil && printf '{hook}' > evil/.hg/hgrc && "
               f"printf 'share-safe\\nshared\\n' > .hg/requires && printf '{ws}/evil/.hg' > .hg/sharedpath")
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_runs_hg_status(ws, jail)
    assert _ran(jail) == 0, result.output


@needs_hg
async def test_a_link_in_place_of_dot_hg_to_a_repository_of_the_commands_own_runs_no_hook(jail: Jail) -> None:
    ws = jail.workspace
    hook = _hg_hook(jail).replace("\n", "\\n")
    command = f"HGRCPATH= hg init -q evil && printf '{hook}' > evil/.hg/hgrc && ln -s evil/.hg .hg"
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_runs_hg_status(ws, jail)
    assert _ran(jail) == 0, result.output


#: Every name mise reads a project's settings by (besides ``mise.<env>.toml`` for a ``MISE_ENV``).
MISE_FILES = ("mise.toml", "mise.local.toml", ".mise.toml", ".mise.local.toml", ".config/mise.toml",
              ".config/mise.local.toml", "mise/config.toml", ".mise/config.toml", ".config/mise/config.toml",
              ".config/mise/conf.d/tools.toml")


def _mise(jail: Jail, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """mise as the person runs it: their own home, where it keeps which folders they trust."""
    home = jail.base / "mise-home"
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "MISE_DATA_DIR": str(home / "data"),
           "MISE_STATE_DIR": str(home / "state"), "MISE_CONFIG_DIR": str(home / "config"),
           "MISE_CACHE_DIR": str(home / "cache"), "MISE_YES": "0"}
    return subprocess.run(["mise", *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=120)


def _mise_plant(jail: Jail) -> str:
    """Settings that run a hook on entering the folder and source a script for its variables."""
    return f'[hooks]\nenter = "echo hook >> {_marker(jail)}"\n[env]\n_.source = "./on-enter.sh"\n'


def _trusted_mise_project(jail: Jail) -> None:
    """A project using mise that the person trusted once (``mise trust``): mise remembers the
    folder, not the content, and reads any of its settings files there from then on."""
    (jail.workspace / "mise.toml").write_text('[env]\nPROJECT = "demo"\n')
    assert _mise(jail, "trust", "--quiet", cwd=jail.workspace).returncode == 0
    (jail.workspace / "on-enter.sh").write_text(f"echo ran >> {_marker(jail)}\n")


@needs_mise
def test_mise_settings_written_by_hand_in_a_trusted_project_run_at_the_next_prompt(jail: Jail) -> None:
    _trusted_mise_project(jail)
    (jail.workspace / "mise.local.toml").write_text(_mise_plant(jail).replace("\\n", "\n"))
    _mise(jail, "hook-env", "-s", "bash", cwd=jail.workspace)  # what an activated shell runs at each prompt
    assert _ran(jail) == 2


@needs_mise
@pytest.mark.parametrize("name", MISE_FILES)
async def test_mise_settings_planted_in_a_trusted_project_do_not_run(jail: Jail, name: str) -> None:
    _trusted_mise_project(jail)
    folder = os.path.dirname(name) or "."
    command = f"mkdir -p {folder} && printf '{_mise_plant(jail)}' > {name}; cat {name}"
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _mise(jail, "hook-env", "-s", "bash", cwd=jail.workspace)
    assert _ran(jail) == 0, result.output


#: Editors and tools that could not be installed here, each with what its documentation says
#: runs from the file in a project the person already trusts (trust is given to a folder, once):
#: Zed starts the language servers (``lsp.*.binary``) and MCP servers (``context_servers``) of
#: ``.zed/settings.json``; Helix starts the ``language-server`` commands of
#: ``.helix/languages.toml`` (helix-editor/helix#9514); VS Code's Dev Containers run a
#: ``devcontainer.json``'s ``initializeCommand`` on your own machine before the container starts.
#: Coding agents start the MCP servers of their project settings: Gemini CLI's
#: ``.gemini/settings.json``, Codex's ``.codex/config.toml`` (in a trusted project), opencode's
#: ``opencode.json(c)`` or ``.opencode/``; aider runs the ``lint-cmd`` of ``.aider.conf.yml`` (at
#: the repository's top) after every edit it makes (auto-lint is on by default).
EDITOR_PLANTS = {
    ".zed/settings.json": '{"lsp": {"pyright": {"binary": {"path": "./evil"}}}}',
    ".helix/languages.toml": '[language-server.evil]\ncommand = "./evil"\n',
    ".devcontainer/devcontainer.json": '{"image": "debian", "initializeCommand": "./evil"}',
    ".devcontainer.json": '{"image": "debian", "initializeCommand": "./evil"}',
    ".gemini/settings.json": '{"mcpServers": {"x": {"command": "./evil"}}}',
    ".codex/config.toml": '[mcp_servers.x]\ncommand = "./evil"\n',
    "opencode.json": '{"mcp": {"x": {"type": "local", "command": ["./evil"]}}}',
    "opencode.jsonc": '{"mcp": {"x": {"type": "local", "command": ["./evil"]}}}',
    ".opencode/opencode.json": '{"mcp": {"x": {"type": "local", "command": ["./evil"]}}}',
    ".aider.conf.yml": 'lint-cmd: ./evil\n',
}


@pytest.mark.parametrize("name", sorted(EDITOR_PLANTS))
async def test_an_editors_project_settings_planted_by_a_command_do_not_stay(jail: Jail, name: str) -> None:
    ws = jail.workspace
    body = EDITOR_PLANTS[name].replace("\n", "\\n")
    folder = os.path.dirname(name) or "."
    command = f"mkdir -p {folder} && printf '{body}' > {name} && printf '#!/bin/sh\\necho ran\\n' > evil"
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    planted = [p["path"] for p in result.metadata["sandbox"]["planted"]]
    assert any(name == p or name.startswith(p + "/") for p in planted), result.output
    assert not (ws / name).exists()


@needs_hg
@pytest.mark.parametrize("name", [".hgrc", ".config/hg/hgrc"])
async def test_mercurials_own_settings_planted_in_the_home_folder_do_not_run(jail: Jail, name: str) -> None:
    """The home folder as the workspace: hg reads ``~/.hgrc`` (or the XDG one) in every repository."""
    project = jail.base / "project"
    _make_hg_repository(project)
    hook = _hg_hook(jail).replace("\n", "\\n")
    folder = os.path.dirname(name) or "."
    result = await run(tool_with(), {"command": f"mkdir -p {folder} && printf '{hook}' > {name}"}, context(jail.home))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_runs_hg_status(project, jail, own_settings=True)
    assert _ran(jail) == 0, result.output


needs_direnv = pytest.mark.skipif(shutil.which("direnv") is None, reason="needs direnv to show what it runs")


def _direnv(jail: Jail, *args: str) -> None:
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home)}
    subprocess.run(["direnv", *args], cwd=jail.home / "project", env=env, capture_output=True, timeout=60)


@needs_direnv
@pytest.mark.parametrize("name, body", [
    # Every .envrc allowed without asking: the one the command wrote below the workspace runs.
    (".config/direnv/direnv.toml", '[whitelist]\\nprefix = [ \\"/\\" ]\\n'),
    # Run before every .envrc direnv loads: the person's own, allowed, in a project below.
    (".config/direnv/direnvrc", "echo ran >> {marker}\\n"),
], ids=["whitelist", "direnvrc"])
async def test_direnvs_own_settings_planted_in_the_home_folder_allow_and_run_nothing(
        jail: Jail, name: str, body: str) -> None:
    """The home folder as the workspace: direnv's own settings, which decide which ``.envrc``
    runs without asking (an ``.envrc`` in any folder of a workspace is on the list itself)."""
    marker = _marker(jail)
    command = (f"mkdir -p .config/direnv project && printf \"{body.format(marker=marker)}\" > {name} && "
               f"echo 'echo ran >> {marker}' > project/.envrc")
    result = await run(tool_with(), {"command": command}, context(jail.home))
    assert result.metadata["sandbox"]["sandboxed"] is True
    if name.endswith("direnvrc"):
        (jail.home / "project" / ".envrc").write_text("export PROJECT=1\n")  # the person's own
        _direnv(jail, "allow", ".")
    _direnv(jail, "export", "bash")  # what the shell's hook runs at every prompt
    assert _ran(jail) == 0, result.output


def _person_enters(jail: Jail, folder: Path) -> None:
    """The person's shell with direnv's hook, at a prompt in ``folder``, outside the sandbox. Their
    own direnv settings trust every ``.envrc`` under the workspace (``[whitelist] prefix``: a
    projects folder they work in), as many set it up."""
    settings = jail.home / ".config" / "direnv" / "direnv.toml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(f'[whitelist]\nprefix = [ "{jail.workspace}" ]\n')
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home)}
    subprocess.run(["direnv", "export", "bash"], cwd=folder, env=env, capture_output=True, timeout=60)


@needs_direnv
@pytest.mark.parametrize("folder", [".", "src/app"])
def test_an_envrc_written_by_hand_in_a_trusted_projects_folder_runs_when_the_person_enters_it(
        jail: Jail, folder: str) -> None:
    """direnv loads the nearest ``.envrc`` from the folder the person is in up; under a whitelist
    prefix it asks nothing, at the top of the workspace or in any folder below it."""
    (jail.workspace / folder).mkdir(parents=True, exist_ok=True)
    (jail.workspace / folder / ".envrc").write_text(f"echo ran >> {_marker(jail)}\n")
    _person_enters(jail, jail.workspace / folder)
    assert _ran(jail) == 1


@needs_direnv
@pytest.mark.parametrize("folder", [".", "src/app"])
async def test_an_envrc_planted_in_any_folder_of_the_workspace_runs_nothing(jail: Jail, folder: str) -> None:
    """Only the workspace's top ``.envrc`` was on the list: one planted in ``src/app`` stayed and
    ran at the person's ``cd src/app``."""
    ws = jail.workspace
    command = f"mkdir -p {folder} && echo 'echo ran >> {_marker(jail)}' > {folder}/.envrc"
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_enters(jail, ws / folder)
    assert _ran(jail) == 0, result.output
    planted = [p["path"] for p in result.metadata["sandbox"]["planted"]]
    assert (".envrc" if folder == "." else f"{folder}/.envrc") in planted


def _prompt_then_git(jail: Jail, folder: Path) -> None:
    """The person's shell with mise activated: at the prompt in ``folder`` it applies what mise
    says (its ``PATH`` too), then the person types ``git status``. No ``mise trust`` anywhere."""
    home = jail.base / "mise-home"
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "MISE_DATA_DIR": str(home / "data"),
           "MISE_STATE_DIR": str(home / "state"), "MISE_CONFIG_DIR": str(home / "config"),
           "MISE_CACHE_DIR": str(home / "cache"), "MISE_YES": "0"}
    subprocess.run(["bash", "--noprofile", "--norc", "-c", 'eval "$(mise hook-env -s bash)"; git status'],
                   cwd=folder, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)


def _fake_git(jail: Jail) -> str:
    return f"#!/bin/sh\\necho ran >> {_marker(jail)}\\n"


@needs_mise
@pytest.mark.parametrize("folder", [".", "src/app"])
def test_a_tool_versions_file_written_by_hand_puts_a_folder_of_the_workspace_first_on_path(
        jail: Jail, folder: str) -> None:
    """``.tool-versions`` (mise's and asdf's) can name a tool's version as ``path:<folder>``:
    mise puts that folder's ``bin`` first on ``PATH`` at the next prompt, in any folder (no
    trust asked) and in every folder below it, so a ``git`` there runs when the person types it."""
    ws = jail.workspace
    (ws / "tools/bin").mkdir(parents=True)
    (ws / "tools/bin/git").write_text(_fake_git(jail).replace("\\n", "\n"))
    (ws / "tools/bin/git").chmod(0o755)
    (ws / folder).mkdir(parents=True, exist_ok=True)
    (ws / folder / ".tool-versions").write_text(f"node path:{ws}/tools\n")
    _prompt_then_git(jail, ws / folder)
    assert _ran(jail) == 1


@needs_mise
@pytest.mark.parametrize("folder", [".", "src/app"])
async def test_a_planted_tool_versions_file_puts_nothing_on_path(jail: Jail, folder: str) -> None:
    ws = jail.workspace
    command = (f"mkdir -p tools/bin {folder} && printf '{_fake_git(jail)}' > tools/bin/git && chmod +x tools/bin/git"
               f" && echo 'node path:{ws}/tools' > {folder}/.tool-versions")
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _prompt_then_git(jail, ws / folder)
    assert _ran(jail) == 0, result.output
    planted = [p["path"] for p in result.metadata["sandbox"]["planted"]]
    assert (".tool-versions" if folder == "." else f"{folder}/.tool-versions") in planted


BASH_COMPLETION = "/usr/share/bash-completion/bash_completion"
needs_bash_completion = pytest.mark.skipif(not os.path.isfile(BASH_COMPLETION),
                                           reason="needs bash-completion to show what it sources")
#: The person's own ~/.bashrc loading bash-completion, as Debian's and Ubuntu's /etc/skel/.bashrc does.
_LOADS_COMPLETION = f". {BASH_COMPLETION}\n"
COMPLETION_FILES = (".bash_completion", ".local/share/bash-completion/completions/git")


def _person_opens_a_terminal_and_completes_git(jail: Jail) -> None:
    """An interactive bash (it reads ~/.bashrc), then the completion of ``git`` (what ``git <TAB>`` loads)."""
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "TERM": "dumb"}
    subprocess.run(["bash", "-i", "-c", "__load_completion git"], cwd=jail.home, env=env, stdin=subprocess.DEVNULL,
                   capture_output=True, text=True, timeout=60)


@needs_bash_completion
@pytest.mark.parametrize("name", COMPLETION_FILES)
def test_bash_completion_files_written_by_hand_in_the_home_folder_run(jail: Jail, name: str) -> None:
    (jail.home / ".bashrc").write_text(_LOADS_COMPLETION)
    (jail.home / name).parent.mkdir(parents=True, exist_ok=True)
    (jail.home / name).write_text(f"echo ran >> {_marker(jail)}\n")
    _person_opens_a_terminal_and_completes_git(jail)
    assert _ran(jail) == 1


@needs_bash_completion
@pytest.mark.parametrize("name", COMPLETION_FILES)
async def test_bash_completion_files_planted_in_the_home_folder_do_not_run(jail: Jail, name: str) -> None:
    """The home folder as the workspace: bash-completion sources ``~/.bash_completion`` in every
    interactive shell, and a command's completions from ``~/.local/share/bash-completion``
    before the system's."""
    (jail.home / ".bashrc").write_text(_LOADS_COMPLETION)
    folder = os.path.dirname(name) or "."
    command = f"mkdir -p {folder} && echo 'echo ran >> {_marker(jail)}' > {name}"
    result = await run(tool_with(), {"command": command}, context(jail.home))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_opens_a_terminal_and_completes_git(jail)
    assert _ran(jail) == 0, result.output


def _person_types_a_line_in_bash(jail: Jail) -> str:
    """An interactive bash in a terminal (a pseudo-terminal: readline reads ``~/.inputrc`` only
    there): the person types ``echo hello`` and Enter once the prompt shows, then ``exit``."""
    import pty
    import select
    import time

    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover (the child)
        env = {"HOME": str(jail.home), "PATH": os.environ["PATH"], "TERM": "xterm", "PS1": "PROMPT> "}
        os.execve("/bin/bash", ["bash", "--norc", "--noprofile", "-i"], env)
    seen = b""

    def until(text: bytes) -> None:
        nonlocal seen
        deadline = time.monotonic() + 30
        while text not in seen and time.monotonic() < deadline:
            if select.select([fd], [], [], 0.2)[0]:
                try:
                    seen += os.read(fd, 4096)
                except OSError:
                    return
    try:
        until(b"PROMPT> ")
        seen = b""
        os.write(fd, b"echo hello\r")  # typed after the prompt: readline has the terminal then
        until(b"PROMPT> ")
        os.write(fd, b"exit\r")
    finally:
        os.waitpid(pid, 0)
        os.close(fd)
    return seen.decode(errors="replace")


def _inputrc(jail: Jail) -> str:
    """A readline macro on Enter: it adds a command to every line the person types, then runs it."""
    return f'"\\\\C-m": "\\\\C-e; echo ran >> {_marker(jail)}\\\\C-j"\\n'


def test_a_readline_macro_written_by_hand_in_the_home_folder_runs_on_enter(jail: Jail) -> None:
    jail.home.mkdir(exist_ok=True)
    (jail.home / ".inputrc").write_text(_inputrc(jail).replace("\\\\", "\\").replace("\\n", "\n"))
    shown = _person_types_a_line_in_bash(jail)
    assert _ran(jail) == 1, shown


async def test_a_readline_macro_planted_in_the_home_folder_does_not_run(jail: Jail) -> None:
    result = await run(tool_with(), {"command": f"printf '{_inputrc(jail)}' > .inputrc; cat .inputrc"},
                       context(jail.home))
    assert result.metadata["sandbox"]["sandboxed"] is True
    shown = _person_types_a_line_in_bash(jail)
    assert _ran(jail) == 0, result.output + shown


def test_a_readline_macro_written_by_hand_in_a_file_inputrc_includes_runs_on_enter(jail: Jail) -> None:
    jail.home.mkdir(exist_ok=True)
    (jail.home / ".inputrc").write_text("$include ~/.inputrc.local\n")
    (jail.home / ".inputrc.local").write_text(_inputrc(jail).replace("\\\\", "\\").replace("\\n", "\n"))
    shown = _person_types_a_line_in_bash(jail)
    assert _ran(jail) == 1, shown


@pytest.mark.parametrize("existed", [False, True], ids=["new", "existing"])
async def test_a_readline_macro_planted_in_a_file_inputrc_includes_does_not_run(jail: Jail, existed: bool) -> None:
    """``$include ~/.inputrc.local`` in the person's protected ``~/.inputrc``: the included file is
    read as if it were there."""
    jail.home.mkdir(exist_ok=True)
    (jail.home / ".inputrc").write_text("$include ~/.inputrc.local\n")
    if existed:
        (jail.home / ".inputrc.local").write_text("set bell-style none\n")
    result = await run(tool_with(), {"command": f"printf '{_inputrc(jail)}' > .inputrc.local"}, context(jail.home))
    assert result.metadata["sandbox"]["sandboxed"] is True
    shown = _person_types_a_line_in_bash(jail)
    assert _ran(jail) == 0, result.output + shown


def _person_uses_vim(jail: Jail) -> None:
    env = {"HOME": str(jail.home), "PATH": os.environ["PATH"], "TERM": "dumb"}
    subprocess.run(["vim", "-E", "-c", "qa"], env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)


def _person_uses_less(jail: Jail) -> None:
    """``less`` with lesspipe as Ubuntu's ``.bashrc`` sets it up (``LESSOPEN``)."""
    env = {"HOME": str(jail.home), "PATH": os.environ["PATH"], "TERM": "dumb"}
    subprocess.run(["bash", "-c", 'eval "$(SHELL=/bin/sh lesspipe)"; less "$0" > /dev/null', str(jail.base / "README")],
                   env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)


def _person_uses_sensible_editor(jail: Jail) -> None:
    """Debian's ``sensible-editor`` (``crontab -e``, mutt, …), with no ``VISUAL`` set (it reads
    ``~/.selected_editor`` whatever ``EDITOR`` says: ``true`` here, so nothing waits for a person)."""
    env = {"HOME": str(jail.home), "PATH": os.environ["PATH"], "TERM": "dumb", "EDITOR": "true"}
    subprocess.run(["sensible-editor", str(jail.base / "README")], env=env, stdin=subprocess.DEVNULL,
                   capture_output=True, timeout=60)


def _person_uses_curl(jail: Jail) -> None:
    """``curl`` fetching something of the person's own; what a planted ``.curlrc`` adds to every
    run (a URL, where to write it) is a file beside the marker that says ``ran``."""
    Path(f"{_marker(jail)}.payload").write_text("ran\n")
    env = {"HOME": str(jail.home), "PATH": os.environ["PATH"]}
    subprocess.run(["curl", "-s", "file:///etc/hostname"], env=env, stdin=subprocess.DEVNULL, capture_output=True,
                   timeout=60)


def _person_uses_maven(jail: Jail) -> None:
    env = {"HOME": str(jail.home), "PATH": os.environ["PATH"]}
    subprocess.run(["mvn", "--version"], env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=120)


def _person_uses_gdb(jail: Jail) -> None:
    env = {"HOME": str(jail.home), "PATH": os.environ["PATH"]}
    subprocess.run(["gdb", "-batch", "-ex", "echo"], env=env, stdin=subprocess.DEVNULL, capture_output=True,
                   timeout=60)


def _person_uses_perl(jail: Jail) -> None:
    """``perl`` as local::lib's line in ``~/.bashrc`` leaves it: ``~/perl5/lib/perl5`` first on ``PERL5LIB``."""
    env = {"HOME": str(jail.home), "PATH": os.environ["PATH"], "PERL5LIB": str(jail.home / "perl5/lib/perl5")}
    subprocess.run(["perl", "-e", "use strict; 1"], env=env, stdin=subprocess.DEVNULL, capture_output=True,
                   timeout=60)


#: What runs from the home folder when the person uses an ordinary program: where, its content
#: ({marker} is the file it appends to), what the person does, and the program it needs.
HOME_PROGRAMS = {
    ".vim/plugin/x.vim": ("call writefile(['ran'], '{marker}', 'a')\n", _person_uses_vim, "vim"),
    ".lessfilter": ("#!/bin/sh\necho ran >> {marker}\n", _person_uses_less, "lesspipe"),
    ".config/lessfilter": ("#!/bin/sh\necho ran >> {marker}\n", _person_uses_less, "lesspipe"),
    # Not code, but a write of the command's choice into any file of the person's (~/.bashrc).
    ".curlrc": ("url = file://{marker}.payload\noutput = {marker}\n", _person_uses_curl, "curl"),
    ".mavenrc": ("echo ran >> {marker}\n", _person_uses_maven, "mvn"),
    ".selected_editor": ("echo ran >> {marker}\nSELECTED_EDITOR=true\n", _person_uses_sensible_editor,
                         "sensible-editor"),
    # gdb 11 and later read it before anything else, at every start.
    ".gdbearlyinit": ("shell echo ran >> {marker}\n", _person_uses_gdb, "gdb"),
    # local::lib's modules, before Perl's own.
    "perl5/lib/perl5/strict.pm": ("system(q{{echo ran >> {marker}}}); 1;\n", _person_uses_perl, "perl"),
}


def _needs_program(name: str) -> pytest.MarkDecorator:
    program = HOME_PROGRAMS[name][2]
    return pytest.mark.skipif(shutil.which(program) is None, reason=f"needs {program} to show what it runs")


HOME_PROGRAM_CASES = [pytest.param(name, marks=_needs_program(name), id=name) for name in HOME_PROGRAMS]


@pytest.mark.parametrize("name", HOME_PROGRAM_CASES)
def test_a_file_written_by_hand_in_the_home_folder_runs_when_a_program_is_used(jail: Jail, name: str) -> None:
    body, use, _program = HOME_PROGRAMS[name]
    (jail.base / "README").write_text("hello\n")
    (jail.home / name).parent.mkdir(parents=True, exist_ok=True)
    (jail.home / name).write_text(body.format(marker=_marker(jail)))
    (jail.home / name).chmod(0o755)
    use(jail)
    assert _ran(jail) == 1


@pytest.mark.parametrize("name", HOME_PROGRAM_CASES)
async def test_a_file_planted_in_the_home_folder_does_not_run_when_a_program_is_used(jail: Jail, name: str) -> None:
    body, use, _program = HOME_PROGRAMS[name]
    (jail.base / "README").write_text("hello\n")
    folder = os.path.dirname(name) or "."
    text = body.format(marker=_marker(jail)).replace("\n", "\\n")
    command = f"mkdir -p {folder} && printf \"{text}\" > {name} && chmod +x {name}"
    result = await run(tool_with(), {"command": command}, context(jail.home))
    assert result.metadata["sandbox"]["sandboxed"] is True
    use(jail)
    assert _ran(jail) == 0, result.output


def _wheel_running_code_at_every_start(folder: Path, marker: Path) -> None:
    """A wheel named like a package the person installs, holding a ``.pth`` file (Python runs it
    at every start of the environment it is installed in)."""
    import base64
    import hashlib
    import zipfile

    info = "requests-99.0.dist-info"
    files = {
        "requests_planted.pth": f"import os; open({str(marker)!r}, 'a').write('ran\\n')\n",
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: requests\nVersion: 99.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    folder.mkdir(parents=True, exist_ok=True)
    record = []
    with zipfile.ZipFile(folder / "requests-99.0-py3-none-any.whl", "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)
            digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
            record.append(f"{name},sha256={digest},{len(text)}")
        wheel.writestr(f"{info}/RECORD", "\n".join([*record, f"{info}/RECORD,,"]) + "\n")


def _person_installs_requests_then_starts_python(jail: Jail) -> None:
    """``pip install requests`` into a virtual environment of the person's, then Python started there."""
    import sys

    venv = jail.base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    # Never the network (the index the settings name is what the test is about, not PyPI).
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "PIP_DISABLE_PIP_VERSION_CHECK": "1",
           "PIP_NO_INDEX": "1"}
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin/python"), "install", "-q", "requests"],
                   env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=300)
    subprocess.run([str(venv / "bin/python"), "-c", "pass"], env=env, capture_output=True, timeout=60)


PIP_SETTINGS = (".config/pip/pip.conf", ".pip/pip.conf")


def _pip_settings(jail: Jail) -> str:
    """Settings that make pip take its packages from a folder of the command's choice (a server of
    its choice just as well)."""
    return f"[global]\nfind-links = {jail.base / 'wheels'}\n"


@pytest.mark.parametrize("name", PIP_SETTINGS)
def test_pip_settings_written_by_hand_in_the_home_folder_install_what_they_name(jail: Jail, name: str) -> None:
    _wheel_running_code_at_every_start(jail.base / "wheels", _marker(jail))
    (jail.home / name).parent.mkdir(parents=True, exist_ok=True)
    (jail.home / name).write_text(_pip_settings(jail))
    _person_installs_requests_then_starts_python(jail)
    assert _ran(jail) >= 1


@pytest.mark.parametrize("name", PIP_SETTINGS)
async def test_pip_settings_planted_in_the_home_folder_install_nothing(jail: Jail, name: str) -> None:
    _wheel_running_code_at_every_start(jail.base / "wheels", _marker(jail))
    folder = os.path.dirname(name)
    text = _pip_settings(jail).replace("\n", "\\n")
    result = await run(tool_with(), {"command": f"mkdir -p {folder} && printf '{text}' > {name}"},
                       context(jail.home))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_installs_requests_then_starts_python(jail)
    assert _ran(jail) == 0, result.output


needs_wget = pytest.mark.skipif(shutil.which("wget") is None, reason="needs wget to show what its settings do")


def _person_uses_wget(jail: Jail) -> None:
    """``wget`` of the person's own (nothing listens there: no network needed)."""
    env = {"HOME": str(jail.home), "PATH": os.environ["PATH"]}
    subprocess.run(["wget", "-q", "-t", "1", "http://127.0.0.1:9/"], cwd=jail.base, env=env,
                   stdin=subprocess.DEVNULL, capture_output=True, timeout=60)


@needs_wget
def test_wget_settings_written_by_hand_in_the_home_folder_write_over_a_file_of_the_persons(jail: Jail) -> None:
    """``output_document`` in ``~/.wgetrc``: every download goes into (and first empties) that file."""
    (jail.base / "mine").write_text("mine\n")
    (jail.home / ".wgetrc").write_text(f"output_document = {jail.base / 'mine'}\n")
    _person_uses_wget(jail)
    assert (jail.base / "mine").read_text() == ""


@needs_wget
async def test_wget_settings_planted_in_the_home_folder_write_over_nothing(jail: Jail) -> None:
    (jail.base / "mine").write_text("mine\n")
    result = await run(tool_with(), {"command": f"echo 'output_document = {jail.base / 'mine'}' > .wgetrc"},
                       context(jail.home))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_uses_wget(jail)
    assert (jail.base / "mine").read_text() == "mine\n", result.output


#: The folder below the workspace's top where the person works on one part of it (a monorepo's package).
_BELOW = "src/app"


@needs_mise
@pytest.mark.parametrize("name", MISE_FILES)
def test_mise_settings_written_by_hand_below_the_top_put_a_folder_of_the_workspace_first_on_path(
        jail: Jail, name: str) -> None:
    """mise reads its settings files in every folder from the current one up, and a tool's
    version ``path:<folder>`` asks no trust (as in ``.tool-versions``): the folder's ``bin`` is
    first on ``PATH`` at the next prompt there, so a ``git`` in it runs when the person types it."""
    ws = jail.workspace
    (ws / "tools/bin").mkdir(parents=True)
    (ws / "tools/bin/git").write_text(_fake_git(jail).replace("\\n", "\n"))
    (ws / "tools/bin/git").chmod(0o755)
    (ws / _BELOW / name).parent.mkdir(parents=True, exist_ok=True)
    (ws / _BELOW / name).write_text(f'[tools]\nnode = "path:{ws}/tools"\n')
    _prompt_then_git(jail, ws / _BELOW)
    assert _ran(jail) == 1


@needs_mise
@pytest.mark.parametrize("name", MISE_FILES)
async def test_mise_settings_planted_below_the_top_put_nothing_on_path(jail: Jail, name: str) -> None:
    ws = jail.workspace
    folder = os.path.dirname(f"{_BELOW}/{name}")
    command = (f"mkdir -p tools/bin {folder} && printf '{_fake_git(jail)}' > tools/bin/git && chmod +x tools/bin/git"
               f" && printf '[tools]\\nnode = \"path:{ws}/tools\"\\n' > {_BELOW}/{name}")
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _prompt_then_git(jail, ws / _BELOW)
    assert _ran(jail) == 0, result.output


needs_rustup = pytest.mark.skipif(shutil.which("rustup") is None, reason="needs rustup to show what its files do")
#: rustup's toolchain files (read from the current folder up): the TOML one, and the older plain one.
RUST_TOOLCHAIN_FILES = {"rust-toolchain.toml": '[toolchain]\npath = "{toolchain}"\n', "rust-toolchain": "{toolchain}\n"}


def _person_asks_cargo_its_version(jail: Jail, folder: Path) -> None:
    """``cargo --version``, rustup's proxy as the person has it: it runs no project code of its own."""
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "RUST_BACKTRACE": "0"}
    subprocess.run(["cargo", "--version"], cwd=folder, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                   text=True, timeout=120)


@needs_rustup
@pytest.mark.parametrize("folder", [".", _BELOW])
@pytest.mark.parametrize("name", sorted(RUST_TOOLCHAIN_FILES))
def test_a_rust_toolchain_file_written_by_hand_runs_a_cargo_of_the_workspace(jail: Jail, name: str,
                                                                             folder: str) -> None:
    """A toolchain file can name a toolchain by its folder (``path``): rustup's ``cargo``,
    ``rustc`` and ``rustfmt`` (an editor's format on save) run that folder's ``bin/`` programs,
    in that folder and every one below it, without asking."""
    ws = jail.workspace
    (ws / "tc/bin").mkdir(parents=True)
    (ws / "tc/bin/cargo").write_text(_fake_git(jail).replace("\\n", "\n"))
    (ws / "tc/bin/cargo").chmod(0o755)
    (ws / folder).mkdir(parents=True, exist_ok=True)
    (ws / folder / name).write_text(RUST_TOOLCHAIN_FILES[name].format(toolchain=ws / "tc"))
    _person_asks_cargo_its_version(jail, ws / folder)
    assert _ran(jail) == 1


@needs_rustup
@pytest.mark.parametrize("folder", [".", _BELOW])
@pytest.mark.parametrize("name", sorted(RUST_TOOLCHAIN_FILES))
async def test_a_planted_rust_toolchain_file_runs_nothing(jail: Jail, name: str, folder: str) -> None:
    ws = jail.workspace
    content = RUST_TOOLCHAIN_FILES[name].format(toolchain=ws / "tc").replace("\n", "\\n").replace('"', '\\"')
    command = (f"mkdir -p tc/bin {folder} && printf '{_fake_git(jail)}' > tc/bin/cargo && chmod +x tc/bin/cargo"
               f" && printf \"{content}\" > {folder}/{name}")
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_asks_cargo_its_version(jail, ws / folder)
    assert _ran(jail) == 0, result.output
    planted = [p["path"] for p in result.metadata["sandbox"]["planted"]]
    assert (name if folder == "." else f"{folder}/{name}") in planted


needs_cargo = pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo to show what its settings do")
#: The person's own rustup and toolchains (read before a test points ``HOME`` at its fake one).
_RUSTUP_HOME = os.environ.get("RUSTUP_HOME") or os.path.expanduser("~/.rustup")
#: cargo's settings files, read in the current folder and every one above it (the older name too).
CARGO_SETTINGS = (".cargo/config.toml", ".cargo/config")
#: Where the person's Rust project is: at the top, and below a folder whose settings apply to it.


def _rust_project(folder: Path) -> None:
    """A Rust project of the person's, with no dependencies (nothing to download)."""
    (folder / "src").mkdir(parents=True, exist_ok=True)
    (folder / "Cargo.toml").write_text('[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n')
    (folder / "src/main.rs").write_text("fn main() {}\n")


def _person_asks_cargo_metadata(jail: Jail, folder: Path) -> None:
    """``cargo metadata``, as rust-analyzer runs it when the person's editor opens the project
    (``cargo tree`` does the same): it builds nothing and runs no code of the project's."""
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "RUSTUP_HOME": _RUSTUP_HOME,
           "CARGO_HOME": str(jail.base / "cargo-home"), "CARGO_NET_OFFLINE": "true", "RUST_BACKTRACE": "0"}
    subprocess.run(["cargo", "metadata", "--format-version", "1"], cwd=folder, env=env, stdin=subprocess.DEVNULL,
                   capture_output=True, text=True, timeout=180)


def _cargo_wrapper_settings(ws: Path) -> str:
    return f'[build]\nrustc-wrapper = "{ws}/tools/wrap"\n'


@needs_cargo
@pytest.mark.parametrize("folder", [".", _BELOW])
@pytest.mark.parametrize("name", CARGO_SETTINGS)
def test_cargo_settings_written_by_hand_run_a_program_at_cargo_metadata(jail: Jail, name: str, folder: str) -> None:
    """cargo's settings name a compiler wrapper (``build.rustc-wrapper``); cargo runs it to ask
    the compiler its version for every ``cargo metadata`` (an editor opening the project) in that
    folder and every one below it, though nothing is built."""
    ws = jail.workspace
    _rust_project(ws / _BELOW)
    (ws / "tools").mkdir()
    (ws / "tools/wrap").write_text(_fake_git(jail).replace("\\n", "\n"))
    (ws / "tools/wrap").chmod(0o755)
    (ws / folder / name).parent.mkdir(parents=True, exist_ok=True)
    (ws / folder / name).write_text(_cargo_wrapper_settings(ws))
    _person_asks_cargo_metadata(jail, ws / _BELOW)
    assert _ran(jail) >= 1


@needs_cargo
@pytest.mark.parametrize("folder", [".", _BELOW])
@pytest.mark.parametrize("name", CARGO_SETTINGS)
async def test_planted_cargo_settings_run_nothing_at_cargo_metadata(jail: Jail, name: str, folder: str) -> None:
    ws = jail.workspace
    _rust_project(ws / _BELOW)
    content = _cargo_wrapper_settings(ws).replace("\n", "\\n").replace('"', '\\"')
    command = (f"mkdir -p tools {folder}/.cargo && printf '{_fake_git(jail)}' > tools/wrap && chmod +x tools/wrap"
               f" && printf \"{content}\" > {folder}/{name}")
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_asks_cargo_metadata(jail, ws / _BELOW)
    assert _ran(jail) == 0, result.output
    planted = [p["path"] for p in result.metadata["sandbox"]["planted"]]
    assert (name if folder == "." else f"{folder}/{name}") in planted


needs_mvn_and_cc = pytest.mark.skipif(shutil.which("mvn") is None or shutil.which("cc") is None,
                                      reason="needs Maven (mvn) and a C compiler to show what its Java options do")
#: A native library whose loading appends to a file (``MARK``): what a JVM option can load.
_NATIVE_AGENT = ('#include <stdio.h>\n#include <stdlib.h>\n__attribute__((constructor)) static void ran(void) '
                 '{ FILE *f = fopen(getenv("MARK"), "a"); if (f) { fputs("ran\\n", f); fclose(f); } }\n'
                 'int Agent_OnLoad(void *vm, char *options, void *reserved) { return 0; }\n')


def _native_agent(jail: Jail) -> Path:
    """Built outside the workspace (where the command could have put it as well: it is only data)."""
    source, built = jail.base / "agent.c", jail.base / "agent.so"
    source.write_text(_NATIVE_AGENT)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(built), str(source)], check=True, capture_output=True,
                   timeout=120)
    return built


def _person_asks_mvn_its_version(jail: Jail, folder: Path) -> None:
    """``mvn -v``: it builds nothing and reads no project file but Maven's own launcher settings."""
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "MARK": str(_marker(jail))}
    subprocess.run(["mvn", "-v"], cwd=folder, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                   timeout=180)


@needs_mvn_and_cc
@pytest.mark.parametrize("folder", [".", _BELOW])
def test_maven_java_options_written_by_hand_load_a_library_at_mvn_version(jail: Jail, folder: str) -> None:
    """``.mvn/jvm.config`` in the nearest folder (from the current one up) that has a ``.mvn``:
    Maven's launcher hands its lines to Java, an ``-agentpath`` among them, for every ``mvn``."""
    ws = jail.workspace
    (ws / folder / ".mvn").mkdir(parents=True)
    (ws / folder / ".mvn/jvm.config").write_text(f"-agentpath:{_native_agent(jail)}\n")
    (ws / _BELOW / "deep").mkdir(parents=True, exist_ok=True)
    _person_asks_mvn_its_version(jail, ws / _BELOW / "deep")
    assert _ran(jail) >= 1


@needs_mvn_and_cc
@pytest.mark.parametrize("folder", [".", _BELOW])
async def test_planted_maven_java_options_load_nothing_at_mvn_version(jail: Jail, folder: str) -> None:
    ws = jail.workspace
    agent = _native_agent(jail)
    command = f"mkdir -p {folder}/.mvn {_BELOW}/deep && echo '-agentpath:{agent}' > {folder}/.mvn/jvm.config"
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_asks_mvn_its_version(jail, ws / _BELOW / "deep")
    assert _ran(jail) == 0, result.output
    planted = [p["path"] for p in result.metadata["sandbox"]["planted"]]
    assert (".mvn/jvm.config" if folder == "." else f"{folder}/.mvn/jvm.config") in planted


@pytest.mark.parametrize("folder", [".", _BELOW])
async def test_planted_maven_options_and_core_extensions_are_put_aside(jail: Jail, folder: str) -> None:
    """``.mvn/maven.config`` is added to every mvn's command line there and below (its local
    repository: ``-Dmaven.repo.local=``), and ``.mvn/extensions.xml`` makes mvn load a jar from that
    repository into its own core, before any project is read, with no ``pom.xml`` naming it (seen
    with Maven 3.8.7: "Populating class realm coreExtension>evil:ext:1.0 / Included
    <workspace>/repo/evil/ext/1.0/ext-1.0.jar" at ``mvn validate``)."""
    ws = jail.workspace
    extension = "<extensions><extension><groupId>evil</groupId><artifactId>ext</artifactId><version>1.0</version>" \
                "</extension></extensions>"
    command = (f"mkdir -p {folder}/.mvn && echo '-Dmaven.repo.local=repo' > {folder}/.mvn/maven.config && "
               f"echo '{extension}' > {folder}/.mvn/extensions.xml")
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    planted = {p["path"] for p in result.metadata["sandbox"]["planted"]}
    prefix = "" if folder == "." else f"{folder}/"
    assert {f"{prefix}.mvn/maven.config", f"{prefix}.mvn/extensions.xml"} <= planted, result.output
    assert not (ws / folder / ".mvn/maven.config").exists() and not (ws / folder / ".mvn/extensions.xml").exists()


needs_r = pytest.mark.skipif(shutil.which("R") is None, reason="needs R to show what its start-up files do")


def _r_code(jail: Jail) -> str:
    return f"cat('ran\\n', file='{_marker(jail)}', append=TRUE)"


def _r_start_up_file(jail: Jail, name: str) -> bytes:
    """What the command plants as ``name``: for ``.Renviron``, a variable that names the profile R
    runs (a file of the workspace that is no ``.Rprofile``); for ``.RData``, a saved workspace
    whose ``.First`` function R calls once it restored it."""
    if name == ".Renviron":
        (jail.workspace / "notes.R").write_text(_r_code(jail) + "\n")
        return f"R_PROFILE_USER={jail.workspace / 'notes.R'}\n".encode()
    made = jail.base / "r-made"
    made.mkdir(exist_ok=True)
    subprocess.run(["R", "-q", "--no-save", "-e", f".First <- function() {_r_code(jail)}; save.image()"], cwd=made,
                   env={"PATH": os.environ["PATH"], "HOME": str(jail.home)}, stdin=subprocess.DEVNULL,
                   capture_output=True, check=True, timeout=120)
    data = (made / ".RData").read_bytes()
    assert _ran(jail) == 0  # (saving it ran nothing)
    return data


def _person_starts_r(jail: Jail, folder: Path) -> None:
    """R started in ``folder``: it reads the ``.Renviron`` there, then the profile, then restores
    the ``.RData`` there (as RStudio does for a project)."""
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home)}
    subprocess.run(["R", "-q", "--no-save", "-e", "1"], cwd=folder, env=env, stdin=subprocess.DEVNULL,
                   capture_output=True, timeout=120)


@needs_r
@pytest.mark.parametrize("folder", [".", _BELOW])
@pytest.mark.parametrize("name", [".Renviron", ".RData"])
def test_r_start_up_files_written_by_hand_run_r_code_when_r_starts(jail: Jail, name: str, folder: str) -> None:
    ws = jail.workspace
    data = _r_start_up_file(jail, name)
    (ws / folder).mkdir(parents=True, exist_ok=True)
    (ws / folder / name).write_bytes(data)
    _person_starts_r(jail, ws / folder)
    assert _ran(jail) == 1


@needs_r
@pytest.mark.parametrize("folder", [".", _BELOW])
@pytest.mark.parametrize("name", [".Renviron", ".RData"])
async def test_planted_r_start_up_files_run_nothing_when_r_starts(jail: Jail, name: str, folder: str) -> None:
    ws = jail.workspace
    (jail.base / "planted").write_bytes(_r_start_up_file(jail, name))
    command = f"mkdir -p {folder} && cp {jail.base / 'planted'} {folder}/{name}"
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_starts_r(jail, ws / folder)
    assert _ran(jail) == 0, result.output
    planted = [p["path"] for p in result.metadata["sandbox"]["planted"]]
    assert (name if folder == "." else f"{folder}/{name}") in planted


#: Python modules under the name of one Python imports from elsewhere, each with what the person
#: does in the workspace that runs it: Python puts the folder it starts in first on ``sys.path``
#: for its prompt, ``-c`` and ``-m``, so a module there is found before the standard library's
#: and pip's. None of these runs any code of the project's own.
PYTHON_SHADOWS = {
    "readline.py": ["-i"],  # the prompt's start-up imports readline
    "readline/__init__.py": ["-i"],
    "pip.py": ["-m", "pip", "--version"],  # how pip's own documentation says to run it
    "pip/__init__.py": ["-m", "pip", "--version"],
    "venv.py": ["-m", "venv", "--help"],
    "json.py": ["-c", "import json"],
}


def _shadow(jail: Jail) -> str:
    return f"print('ran', file=open({str(_marker(jail))!r}, 'a'))\n"


def _person_starts_python(jail: Jail, args: list[str]) -> None:
    """The person's Python, started in the workspace (the prompt is given one line)."""
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home)}
    subprocess.run([sys.executable, *args], cwd=jail.workspace, env=env, input="pass\n", capture_output=True,
                   text=True, timeout=120)


@pytest.mark.parametrize("name", sorted(PYTHON_SHADOWS))
def test_a_python_module_written_by_hand_under_the_name_of_pythons_own_runs_when_python_starts(
        jail: Jail, name: str) -> None:
    (jail.workspace / name).parent.mkdir(parents=True, exist_ok=True)
    (jail.workspace / name).write_text(_shadow(jail))
    _person_starts_python(jail, PYTHON_SHADOWS[name])
    assert _ran(jail) == 1


@pytest.mark.parametrize("name", sorted(PYTHON_SHADOWS))
async def test_a_planted_python_module_under_the_name_of_pythons_own_runs_nothing(jail: Jail, name: str) -> None:
    folder = os.path.dirname(name) or "."
    code = _shadow(jail).replace("\n", "\\n")
    result = await run(tool_with(), {"command": f'mkdir -p {folder} && printf "{code}" > {name}'},
                       context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert (jail.workspace / name).exists() or result.metadata["sandbox"]["planted"], result.output
    _person_starts_python(jail, PYTHON_SHADOWS[name])
    assert _ran(jail) == 0, result.output
    assert name in [p["path"] for p in result.metadata["sandbox"]["planted"]]


#: The interpreter itself: a venv's link to it under /tmp (a checkout there) is hidden in the sandbox.
REAL_PYTHON = os.path.realpath(sys.executable)


async def test_a_planted_compiled_python_module_under_the_name_of_pythons_own_runs_nothing(jail: Jail) -> None:
    """A ``.pyc`` with no source beside it is imported as well (and could not be reviewed)."""
    code = _shadow(jail).replace("\n", "")
    command = f"printf \"{code}\" > x.py && {REAL_PYTHON} -c \"import py_compile; py_compile.compile('x.py', cfile='readline.pyc')\" && rm x.py"
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_starts_python(jail, ["-i"])
    assert _ran(jail) == 0, result.output
    assert "readline.pyc" in [p["path"] for p in result.metadata["sandbox"]["planted"]]


async def test_a_module_under_the_name_of_pythons_own_below_the_top_is_ordinary_content(jail: Jail) -> None:
    """``src/app/types.py`` is part of a package: a command writes it as any other file."""
    result = await run(tool_with(), {"command": "mkdir -p src/app && echo 'X = 1' > src/app/types.py"},
                       context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert result.metadata["sandbox"]["planted"] == [], result.output
    assert (jail.workspace / "src/app/types.py").read_text() == "X = 1\n"


def _person_debugs(jail: Jail, folder: Path) -> None:
    """A ``breakpoint()`` in the person's own code, run from ``folder``; they type ``c`` to go on."""
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home)}
    subprocess.run([sys.executable, "-c", "breakpoint()"], cwd=folder, env=env, input="c\n", capture_output=True,
                   text=True, timeout=120)


@pytest.mark.parametrize("folder", [".", _BELOW])
def test_a_pdbrc_written_by_hand_runs_when_the_person_debugs(jail: Jail, folder: str) -> None:
    """pdb runs the lines of ``.pdbrc`` in the current folder (and the home folder's) as if typed
    at its prompt, Python statements included: ``python -m pdb``, ``breakpoint()``, ``pytest --pdb``."""
    (jail.workspace / folder).mkdir(parents=True, exist_ok=True)
    (jail.workspace / folder / ".pdbrc").write_text(_shadow(jail))
    _person_debugs(jail, jail.workspace / folder)
    assert _ran(jail) == 1


@pytest.mark.parametrize("folder", [".", _BELOW])
async def test_a_planted_pdbrc_runs_nothing(jail: Jail, folder: str) -> None:
    code = _shadow(jail).replace("\n", "\\n")
    result = await run(tool_with(), {"command": f'mkdir -p {folder} && printf "{code}" > {folder}/.pdbrc'},
                       context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_debugs(jail, jail.workspace / folder)
    assert _ran(jail) == 0, result.output


@needs_hg
def test_a_mercurial_hook_written_by_hand_in_a_nested_repository_runs_on_hg_status_there(jail: Jail) -> None:
    nested = jail.workspace / _BELOW
    nested.mkdir(parents=True)
    _make_hg_repository(nested)
    (nested / ".hg" / "hgrc").write_text(_hg_hook(jail))
    _person_runs_hg_status(nested, jail)
    assert _ran(jail) == 1


@needs_hg
@pytest.mark.parametrize("already_hg", [False, True], ids=["new nested repository", "existing nested repository"])
async def test_a_mercurial_hook_planted_in_a_nested_repository_does_not_run(jail: Jail, already_hg: bool) -> None:
    nested = jail.workspace / _BELOW
    nested.mkdir(parents=True)
    if already_hg:
        _make_hg_repository(nested)
    hook = _hg_hook(jail).replace("\n", "\\n")
    command = f"cd {_BELOW} && {{ [ -d .hg ] || HGRCPATH= hg init -q .; }} && printf '{hook}' > .hg/hgrc"
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_runs_hg_status(nested, jail)
    assert _ran(jail) == 0, result.output
    assert f"{_BELOW}/.hg/hgrc" in [p["path"] for p in result.metadata["sandbox"]["planted"]]


needs_sqlite3 = pytest.mark.skipif(shutil.which("sqlite3") is None, reason="needs sqlite3 to show what its start-up file does")


def _person_opens_sqlite3(jail: Jail) -> None:
    """``sqlite3`` of the person's, whose home folder is the jail's: it takes the home folder from
    the password database, not ``HOME``, so it runs with one of its own (bwrap binds it over)."""
    uid = str(os.getuid())
    lines = [":".join([*f[:5], str(jail.home), *f[6:]]) if len(f) > 6 and f[2] == uid else ":".join(f)
             for f in (line.split(":") for line in Path("/etc/passwd").read_text().splitlines())]
    passwd = jail.base / "passwd"
    passwd.write_text("\n".join(lines) + "\n")
    subprocess.run(["bwrap", "--dev-bind", "/", "/", "--ro-bind", str(passwd), "/etc/passwd", "sqlite3", ":memory:",
                    "select 1"], env={"PATH": os.environ["PATH"], "HOME": str(jail.home)}, stdin=subprocess.DEVNULL,
                   capture_output=True, text=True, timeout=60)


@needs_sqlite3
def test_a_sqliterc_written_by_hand_in_the_home_folder_runs_a_command_when_sqlite3_starts(jail: Jail) -> None:
    """``~/.sqliterc`` is read at every start, and its ``.system`` runs a shell command."""
    (jail.home / ".sqliterc").write_text(f".system echo ran >> {_marker(jail)}\n")
    _person_opens_sqlite3(jail)
    assert _ran(jail) == 1


@needs_sqlite3
async def test_a_sqliterc_planted_in_the_home_folder_runs_nothing(jail: Jail) -> None:
    result = await run(tool_with(), {"command": f"echo '.system echo ran >> {_marker(jail)}' > .sqliterc"},
                       context(jail.home))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_opens_sqlite3(jail)
    assert _ran(jail) == 0, result.output


needs_less = pytest.mark.skipif(shutil.which("less") is None, reason="needs less to show what its key file does")
#: less's key files in the home folder (read as source since less 582); ``#env`` sets variables
#: for less itself, ``LESSOPEN`` among them: a command it runs for every file it shows (``|-``:
#: what it reads from a pipe too, as from ``git log`` or ``man``).
LESSKEY_FILES = (".lesskey", ".config/lesskey")


def _person_reads_with_less(jail: Jail) -> None:
    (jail.base / "notes.txt").write_text("notes\n")
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "XDG_CONFIG_HOME": str(jail.home / ".config")}
    subprocess.run(["less", "-F", str(jail.base / "notes.txt")], env=env, stdin=subprocess.DEVNULL,
                   capture_output=True, text=True, timeout=60)


def _lesskey(jail: Jail) -> str:
    return f"#env\nLESSOPEN=|-echo ran >> {_marker(jail)}; cat %s\n"


@needs_less
@pytest.mark.parametrize("name", LESSKEY_FILES)
def test_a_less_key_file_written_by_hand_in_the_home_folder_runs_a_command_for_every_file(jail: Jail, name: str) -> None:
    (jail.home / name).parent.mkdir(parents=True, exist_ok=True)
    (jail.home / name).write_text(_lesskey(jail))
    _person_reads_with_less(jail)
    assert _ran(jail) == 1


@needs_less
@pytest.mark.parametrize("name", LESSKEY_FILES)
async def test_a_less_key_file_planted_in_the_home_folder_runs_nothing(jail: Jail, name: str) -> None:
    content = _lesskey(jail).replace("\n", "\\n").replace("%", "%%")
    command = f"mkdir -p {os.path.dirname(name) or '.'} && printf '{content}' > {name}"
    result = await run(tool_with(), {"command": command}, context(jail.home))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_reads_with_less(jail)
    assert _ran(jail) == 0, result.output


needs_vim = pytest.mark.skipif(shutil.which("vim") is None, reason="needs vim to show what its start-up files do")


def _person_opens_a_file_in_vim(jail: Jail) -> None:
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home)}
    subprocess.run(["vim", "-T", "dumb", "-c", "qa!", str(jail.base / "notes.txt")], env=env,
                   stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)


@needs_vim
def test_an_exrc_written_by_hand_in_the_home_folder_runs_when_vim_starts(jail: Jail) -> None:
    """Without a ``~/.vimrc`` (Debian's vim then uses its defaults.vim), Vim reads ``~/.exrc``, as vi does."""
    (jail.home / ".exrc").write_text(f"silent !echo ran >> {_marker(jail)}\n")
    _person_opens_a_file_in_vim(jail)
    assert _ran(jail) == 1


@needs_vim
async def test_an_exrc_planted_in_the_home_folder_runs_nothing(jail: Jail) -> None:
    result = await run(tool_with(), {"command": f"echo 'silent !echo ran >> {_marker(jail)}' > .exrc"},
                       context(jail.home))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_opens_a_file_in_vim(jail)
    assert _ran(jail) == 0, result.output


needs_npm = pytest.mark.skipif(shutil.which("npm") is None, reason="needs npm to show what its settings do")


def _person_runs_an_npm_script(jail: Jail) -> None:
    """``npm run hello`` in a project of the person's own, outside the workspace: its script is ``echo hi``."""
    project = jail.base / "project"
    project.mkdir(exist_ok=True)
    (project / "package.json").write_text('{"name": "p", "version": "1.0.0", "scripts": {"hello": "echo hi"}}')
    subprocess.run(["npm", "run", "hello"], cwd=project, env={"PATH": os.environ["PATH"], "HOME": str(jail.home)},
                   stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)


def _npm_shell(jail: Jail) -> str:
    return f"#!/bin/sh\\necho ran >> {_marker(jail)}\\nexec /bin/sh \"$@\"\\n"


@needs_npm
def test_npm_settings_written_by_hand_in_the_home_folder_run_every_script_through_a_shell_of_theirs(
        jail: Jail) -> None:
    """``script-shell`` in ``~/.npmrc``: every ``npm run``, ``npm test``, install script of every project."""
    (jail.home / "sh").write_text(_npm_shell(jail).replace("\\n", "\n").replace('\\"', '"'))
    (jail.home / "sh").chmod(0o755)
    (jail.home / ".npmrc").write_text(f"script-shell={jail.home / 'sh'}\n")
    _person_runs_an_npm_script(jail)
    assert _ran(jail) == 1


@needs_npm
async def test_npm_settings_planted_in_the_home_folder_run_nothing(jail: Jail) -> None:
    command = f"printf '{_npm_shell(jail)}' > sh && chmod +x sh && echo 'script-shell={jail.home / 'sh'}' > .npmrc"
    result = await run(tool_with(), {"command": command}, context(jail.home))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_runs_an_npm_script(jail)
    assert _ran(jail) == 0, result.output
    assert ".npmrc" in [p["path"] for p in result.metadata["sandbox"]["planted"]]


needs_kubectl = pytest.mark.skipif(shutil.which("kubectl") is None, reason="needs kubectl to show what its settings run")


def _person_runs_kubectl(jail: Jail) -> None:
    subprocess.run(["kubectl", "get", "pods", "--request-timeout=2s"], cwd=jail.base,
                   env={"PATH": os.environ["PATH"], "HOME": str(jail.home)}, stdin=subprocess.DEVNULL,
                   capture_output=True, text=True, timeout=120)


@needs_kubectl
def test_a_kubeconfig_written_by_hand_runs_its_credential_command_at_every_kubectl(jail: Jail) -> None:
    (jail.home / ".kube" / "config").write_text(kubeconfig_with_exec(jail))
    _person_runs_kubectl(jail)
    assert _ran(jail) >= 1


@needs_kubectl
async def test_a_secret_folder_that_did_not_exist_gets_no_settings_of_the_commands(jail: Jail) -> None:
    """A secret's folder is hidden only when it exists (a mount needs something there): the
    person without a ``~/.kube`` yet, the home folder as the workspace."""
    shutil.rmtree(jail.home / ".kube")
    content = kubeconfig_with_exec(jail).replace("\n", "\\n")
    result = await run(tool_with(), {"command": f"mkdir -p .kube && printf \"{content}\" > .kube/config"},
                       context(jail.home))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_runs_kubectl(jail)
    assert _ran(jail) == 0, result.output
    assert ".kube" in [p["path"] for p in result.metadata["sandbox"]["planted"]]


#: A task VS Code runs by itself when the folder is opened (``runOptions.runOn: folderOpen``), in
#: a folder it trusts: every folder below one the person trusted is.
_FOLDER_OPEN_TASK = ('{"version": "2.0.0", "tasks": [{"label": "x", "type": "shell", "command": "id", '
                     '"runOptions": {"runOn": "folderOpen"}}]}')


@pytest.mark.parametrize("planted", [".vscode/tasks.json", ".idea/runConfigurations/x.xml", ".mcp.json",
                                     ".claude/settings.json", ".echo-desk/permissions.local.toml"])
async def test_editor_and_agent_settings_planted_below_the_top_are_put_aside(jail: Jail, planted: str) -> None:
    """An editor or agent opened on a sub-folder (a package of a monorepo) reads that folder's own
    settings: not tried with the editors themselves (none is installed where the tests run), but
    VS Code documents both that a folder-open task runs by itself and that trusting a folder
    trusts every folder below it. Fail closed: the same as at the top."""
    ws = jail.workspace
    where = f"{_BELOW}/{planted}"
    command = f"mkdir -p \"$(dirname {where})\" && printf '%s' '{_FOLDER_OPEN_TASK}' > {where}"
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert not (ws / where).exists(), result.output
    assert any(p["path"].startswith(f"{_BELOW}/{planted.split('/')[0]}") for p in result.metadata["sandbox"]["planted"])


#: The version files version managers read from the current folder up, each with a version that
#: names a folder of the workspace (mise: ``path:``, from the file's folder; ``.sdkmanrc`` names its
#: tool, and reads a ``-`` in the version as sdkman's vendor suffix, so the path is relative): mise, with its
#: idiomatic version files on for a tool (``idiomatic_version_file_enable_tools``, a setting of the
#: person's own), puts that folder's ``bin`` first on ``PATH`` at the next prompt, asking no trust.
VERSION_FILES = {name: "path:{tools}\n" for name in (
    ".nvmrc", ".node-version", ".python-version", ".python-versions", ".ruby-version", ".go-version",
    ".java-version", ".bun-version", ".deno-version", ".yvmrc", ".zig-version", ".swift-version")}
VERSION_FILES[".sdkmanrc"] = "java=path:{tools}\n"
#: mise's tools whose idiomatic version files the person switched on (every one above).
_IDIOMATIC = "node,python,ruby,go,java,bun,deno,yarn,zig,swift"


def _prompt_with_idiomatic_files_then_git(jail: Jail, folder: Path) -> None:
    """As ``_prompt_then_git``, for a person who switched mise's idiomatic version files on."""
    home = jail.base / "mise-home"
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "MISE_DATA_DIR": str(home / "data"),
           "MISE_STATE_DIR": str(home / "state"), "MISE_CONFIG_DIR": str(home / "config"),
           "MISE_CACHE_DIR": str(home / "cache"), "MISE_YES": "0", "MISE_IDIOMATIC_VERSION_FILE_ENABLE_TOOLS": _IDIOMATIC}
    subprocess.run(["bash", "--noprofile", "--norc", "-c", 'eval "$(mise hook-env -s bash)"; git status'],
                   cwd=folder, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)


@needs_mise
@pytest.mark.parametrize("name", sorted(VERSION_FILES))
def test_a_version_file_written_by_hand_puts_a_folder_of_the_workspace_first_on_path(jail: Jail, name: str) -> None:
    ws = jail.workspace
    (ws / "tools/bin").mkdir(parents=True)
    (ws / "tools/bin/git").write_text(_fake_git(jail).replace("\\n", "\n"))
    (ws / "tools/bin/git").chmod(0o755)
    (ws / _BELOW).mkdir(parents=True)
    (ws / _BELOW / name).write_text(VERSION_FILES[name].format(tools=os.path.relpath(ws / "tools", ws / _BELOW)))
    _prompt_with_idiomatic_files_then_git(jail, ws / _BELOW)
    assert _ran(jail) == 1


@needs_mise
@pytest.mark.parametrize("folder", [".", _BELOW])
@pytest.mark.parametrize("name", sorted(VERSION_FILES))
async def test_a_planted_version_file_puts_nothing_on_path(jail: Jail, name: str, folder: str) -> None:
    ws = jail.workspace
    tools = "/".join([*[".."] * len(PurePosixPath(folder).parts), "tools"])  # from the file's folder
    content = VERSION_FILES[name].format(tools=tools).replace("\n", "\\n")
    command = (f"mkdir -p tools/bin {folder} && printf '{_fake_git(jail)}' > tools/bin/git && chmod +x tools/bin/git"
               f" && printf '{content}' > {folder}/{name}")
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _prompt_with_idiomatic_files_then_git(jail, ws / folder)
    assert _ran(jail) == 0, result.output
    planted = [p["path"] for p in result.metadata["sandbox"]["planted"]]
    assert (name if folder == "." else f"{folder}/{name}") in planted


needs_rbenv = pytest.mark.skipif(shutil.which("rbenv") is None, reason="needs rbenv to show what .ruby-version does")


def _rbenv_root(jail: Jail) -> Path:
    """The person's rbenv with one Ruby installed (its ``ruby`` shim exists once a version has one)."""
    root = jail.base / "rbenv"
    if not (root / "shims" / "ruby").exists():
        (root / "versions/3.2.0/bin").mkdir(parents=True)
        (root / "versions/3.2.0/bin/ruby").write_text("#!/bin/sh\necho ruby 3.2.0\n")
        (root / "versions/3.2.0/bin/ruby").chmod(0o755)
        subprocess.run(["rbenv", "rehash"], env={"PATH": os.environ["PATH"], "RBENV_ROOT": str(root)},
                       check=True, capture_output=True, timeout=60)
    return root


def _person_asks_ruby_its_version(jail: Jail, folder: Path) -> None:
    """``ruby -v`` through rbenv's shim, as the person types it: it runs no project code."""
    root = _rbenv_root(jail)
    env = {"PATH": f"{root / 'shims'}:{os.environ['PATH']}", "HOME": str(jail.home), "RBENV_ROOT": str(root)}
    subprocess.run(["ruby", "-v"], cwd=folder, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                   timeout=60)


def _ruby_version_to(jail: Jail, folder: Path) -> str:
    """A ``.ruby-version`` naming a folder by a path from rbenv's ``versions/`` (rbenv before 1.2,
    Debian's and Ubuntu's 1.1.2, takes it: it checks only that ``versions/<version>`` is a folder)."""
    return os.path.relpath(folder, _rbenv_root(jail) / "versions")


@needs_rbenv
@pytest.mark.parametrize("folder", [".", _BELOW])
def test_a_ruby_version_file_written_by_hand_runs_a_ruby_of_the_workspace(jail: Jail, folder: str) -> None:
    ws = jail.workspace
    (ws / "tools/bin").mkdir(parents=True)
    (ws / "tools/bin/ruby").write_text(_fake_git(jail).replace("\\n", "\n"))
    (ws / "tools/bin/ruby").chmod(0o755)
    (ws / folder).mkdir(parents=True, exist_ok=True)
    (ws / folder / ".ruby-version").write_text(_ruby_version_to(jail, ws / "tools") + "\n")
    _person_asks_ruby_its_version(jail, ws / folder)
    assert _ran(jail) == 1


@needs_rbenv
@pytest.mark.parametrize("folder", [".", _BELOW])
async def test_a_planted_ruby_version_file_runs_no_ruby_of_the_workspace(jail: Jail, folder: str) -> None:
    ws = jail.workspace
    command = (f"mkdir -p tools/bin {folder} && printf '{_fake_git(jail)}' > tools/bin/ruby && chmod +x tools/bin/ruby"
               f" && echo '{_ruby_version_to(jail, ws / 'tools')}' > {folder}/.ruby-version")
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_asks_ruby_its_version(jail, ws / folder)
    assert _ran(jail) == 0, result.output
    assert (ws / folder / ".ruby-version").exists() is False


needs_vim = pytest.mark.skipif(shutil.which("vim") is None, reason="needs Vim to show what its exrc option runs")
VIM_FILES = (".exrc", ".vimrc", "_vimrc", ".gvimrc")


def _person_starts_vim_with_exrc_on(jail: Jail, folder: Path) -> None:
    """Vim as the person starts it in ``folder``, their own vimrc having ``set exrc`` (read only
    by gvim for ``.gvimrc``: checked here through Vim's own rule that it reads the current
    folder's ``.vimrc`` or, without one, its ``.exrc``)."""
    (jail.home / ".vimrc").write_text("set exrc\n")
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "TERM": "dumb"}
    subprocess.run(["vim", "-c", "qa!"], cwd=folder, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                   timeout=60)


@needs_vim
@pytest.mark.parametrize("name", [".exrc", ".vimrc", "_vimrc"])
def test_an_exrc_written_by_hand_below_the_top_runs_when_vim_starts_there(jail: Jail, name: str) -> None:
    """With ``exrc`` on, Vim runs the current folder's ``.vimrc`` (else ``.exrc``), ``:!`` shell
    commands included (the person owns it, so ``secure`` does not apply)."""
    (jail.workspace / _BELOW).mkdir(parents=True)
    (jail.workspace / _BELOW / name).write_text(f":silent !echo ran >> {_marker(jail)}\n")
    _person_starts_vim_with_exrc_on(jail, jail.workspace / _BELOW)
    assert _ran(jail) == 1


@needs_vim
@pytest.mark.parametrize("name", VIM_FILES)
async def test_an_exrc_planted_below_the_top_does_not_run_when_vim_starts_there(jail: Jail, name: str) -> None:
    ws = jail.workspace
    command = f"mkdir -p {_BELOW} && echo ':silent !echo ran >> {_marker(jail)}' > {_BELOW}/{name}"
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_starts_vim_with_exrc_on(jail, ws / _BELOW)
    assert _ran(jail) == 0, result.output
    assert f"{_BELOW}/{name}" in [p["path"] for p in result.metadata["sandbox"]["planted"]]


needs_gdb = pytest.mark.skipif(shutil.which("gdb") is None, reason="needs gdb to show what its .gdbinit does")


def _person_starts_gdb_with_auto_load_anywhere(jail: Jail, folder: Path) -> None:
    """gdb as the person starts it in ``folder``, their own ~/.gdbinit letting it auto-load
    from anywhere (the line gdb's own warning suggests)."""
    (jail.home / ".gdbinit").write_text("set auto-load safe-path /\n")
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "TERM": "dumb"}
    subprocess.run(["gdb", "-batch"], cwd=folder, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)


@needs_gdb
def test_a_gdbinit_written_by_hand_below_the_top_runs_when_gdb_starts_there(jail: Jail) -> None:
    (jail.workspace / _BELOW).mkdir(parents=True)
    (jail.workspace / _BELOW / ".gdbinit").write_text(f"shell echo ran >> {_marker(jail)}\n")
    _person_starts_gdb_with_auto_load_anywhere(jail, jail.workspace / _BELOW)
    assert _ran(jail) == 1


@needs_gdb
@pytest.mark.parametrize("folder", [".", _BELOW])
async def test_a_gdbinit_planted_in_a_folder_does_not_run_when_gdb_starts_there(jail: Jail, folder: str) -> None:
    ws = jail.workspace
    command = f"mkdir -p {folder} && echo 'shell echo ran >> {_marker(jail)}' > {folder}/.gdbinit"
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_starts_gdb_with_auto_load_anywhere(jail, ws / folder)
    assert _ran(jail) == 0, result.output
    assert (".gdbinit" if folder == "." else f"{folder}/.gdbinit") in [p["path"] for p in result.metadata["sandbox"]["planted"]]


#: Debuggers' and prompts' start-up files read from the folder they start in (with none in the
#: home folder, for irb), each with what the person types there: nothing of the project's runs.
#: perl -d runs ``.perldb`` as Perl (owned by the person, as the sandbox writes: perl5db.pl);
#: irb (1.4, Ruby 3.1) runs the first of ``~/.irbrc``, ``./.irbrc``, ``./irb.rc``, ``./_irbrc``
#: and ``./$irbrc`` that exists, as Ruby.
needs_perl = pytest.mark.skipif(shutil.which("perl") is None, reason="needs perl to show what .perldb does")
needs_irb = pytest.mark.skipif(shutil.which("irb") is None, reason="needs irb to show what .irbrc does")
REPL_START_UP_FILES = {
    ".perldb": pytest.param(["perl", "-d", "-e", "1"], "system(q{echo ran >> MARKER});\n", marks=needs_perl),
    ".irbrc": pytest.param(["irb"], "system('echo ran >> MARKER')\n", marks=needs_irb),
    "irb.rc": pytest.param(["irb"], "system('echo ran >> MARKER')\n", marks=needs_irb),
    "_irbrc": pytest.param(["irb"], "system('echo ran >> MARKER')\n", marks=needs_irb),
    "$irbrc": pytest.param(["irb"], "system('echo ran >> MARKER')\n", marks=needs_irb),
}


def _person_starts_a_prompt(jail: Jail, folder: Path, args: list[str]) -> None:
    """The person's debugger or prompt, started in ``folder`` (typing ``q``, then ``exit``)."""
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "TERM": "dumb"}
    subprocess.run(args, cwd=folder, env=env, input="q\nexit\n", capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("folder", [".", _BELOW])
@pytest.mark.parametrize(("name", "args", "code"), [pytest.param(n, *p.values, marks=p.marks, id=n)
                                                    for n, p in REPL_START_UP_FILES.items()])
def test_a_prompts_start_up_file_written_by_hand_runs_when_the_person_starts_it_there(
        jail: Jail, name: str, args: list[str], code: str, folder: str) -> None:
    (jail.workspace / folder).mkdir(parents=True, exist_ok=True)
    (jail.workspace / folder / name).write_text(code.replace("MARKER", str(_marker(jail))))
    _person_starts_a_prompt(jail, jail.workspace / folder, args)
    assert _ran(jail) == 1


@pytest.mark.parametrize("folder", [".", _BELOW])
@pytest.mark.parametrize(("name", "args", "code"), [pytest.param(n, *p.values, marks=p.marks, id=n)
                                                    for n, p in REPL_START_UP_FILES.items()])
async def test_a_planted_prompts_start_up_file_runs_nothing(jail: Jail, name: str, args: list[str], code: str,
                                                             folder: str) -> None:
    (jail.base / "planted").write_text(code.replace("MARKER", str(_marker(jail))))
    command = f"mkdir -p {folder} && cp {jail.base / 'planted'} '{folder}/{name}'"
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_starts_a_prompt(jail, jail.workspace / folder, args)
    assert _ran(jail) == 0, result.output
    planted = [p["path"] for p in result.metadata["sandbox"]["planted"]]
    assert (name if folder == "." else f"{folder}/{name}") in planted


#: The person's own ~/.bashrc as rustup's and pyenv's installers leave it (this machine's own):
#: it sources a file of the home folder, puts folders of it first on PATH and runs a program of
#: it. ``SHELL_LOADS`` is what the command plants there, and what the person then types.
_BASHRC_OF_TOOLS = ('export PYENV_ROOT="$HOME/.pyenv"\n'
                    'export PATH="$PYENV_ROOT/bin:$PATH"\n'
                    'eval "$(pyenv init -)"\n'
                    '. "$HOME/.cargo/env"\n'
                    'export PATH=~/.cargo/bin:$PATH\n'
                    '[ -f ~/.fzf.bash ] && source ~/.fzf.bash\n'
                    # Fedora's own /etc/skel/.bashrc: every file of ~/.bashrc.d
                    'if [ -d ~/.bashrc.d ]; then\n    for rc in ~/.bashrc.d/*; do\n'
                    '        if [ -f "$rc" ]; then\n            . "$rc"\n        fi\n    done\nfi\n'
                    # Every bash script sources BASH_ENV; a name built at run time; a pattern of
                    # the home folder's own files; a variable ~/.profile sets (read after ~/.bashrc
                    # here, before it by a login shell).
                    'export BASH_ENV=~/.bash_env\n'
                    '[ -f ~/.bashrc.$(echo local) ] && . ~/.bashrc.$(echo local)\n'
                    'for f in ~/.*.sh; do . "$f"; done\n'
                    '[ -n "$MYRC" ] && [ -f "$MYRC" ] && . "$MYRC"\n')
_PROFILE = 'export MYRC=~/.myrc\n'
SHELL_LOADS = {
    ".cargo/env": "",  # sourced: runs at the terminal's start
    ".fzf.bash": "",  # sourced when it exists (it did not)
    ".pyenv/bin/pyenv": "",  # run by the eval at the terminal's start
    ".cargo/bin/git": "git --version",  # first on PATH: runs when the person types git
    ".bashrc.d/zz": "",  # every file of the folder is sourced
    ".bash_env": "bash -c true",  # read by every bash script (BASH_ENV)
    ".bashrc.local": "",  # ~/.bashrc.$(echo local): any .bashrc.* could be it
    ".aliases.sh": "",  # for f in ~/.*.sh
    ".myrc": "",  # "$MYRC", set by ~/.profile
}


def _person_opens_a_terminal(jail: Jail, typed: str) -> None:
    """An interactive bash (it reads ~/.bashrc) where the person types ``typed``; ``MYRC`` as
    ``~/.profile`` set it for the whole session at login."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(jail.home), "TERM": "dumb", "MYRC": str(jail.home / ".myrc")}
    subprocess.run(["bash", "-i", "-c", typed or "true"], cwd=jail.home, env=env, stdin=subprocess.DEVNULL,
                   capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("name", sorted(SHELL_LOADS))
def test_what_the_shells_start_up_file_loads_written_by_hand_runs_in_the_next_terminal(jail: Jail, name: str) -> None:
    (jail.home / ".bashrc").write_text(_BASHRC_OF_TOOLS)
    (jail.home / ".profile").write_text(_PROFILE)
    (jail.home / name).parent.mkdir(parents=True, exist_ok=True)
    (jail.home / name).write_text(f"#!/bin/sh\necho ran >> {_marker(jail)}\n")
    (jail.home / name).chmod(0o755)
    _person_opens_a_terminal(jail, SHELL_LOADS[name])
    assert _ran(jail) == 1


@pytest.mark.parametrize("name", sorted(SHELL_LOADS))
@pytest.mark.parametrize("existed", [False, True], ids=["new", "existing"])
async def test_what_the_shells_start_up_file_loads_planted_in_the_home_folder_runs_nothing(
        jail: Jail, name: str, existed: bool) -> None:
    """The home folder as the workspace: ``~/.bashrc`` is protected, and so must be what it
    makes bash read or run without asking (a file it sources, a folder it puts on ``PATH``, a
    program it runs), as for an ``.envrc``."""
    (jail.home / ".bashrc").write_text(_BASHRC_OF_TOOLS)
    (jail.home / ".profile").write_text(_PROFILE)
    if existed:
        (jail.home / name).parent.mkdir(parents=True, exist_ok=True)
        (jail.home / name).write_text("#!/bin/sh\ntrue\n")
        (jail.home / name).chmod(0o755)
    command = (f"mkdir -p $(dirname {name}) && printf '#!/bin/sh\\necho ran >> {_marker(jail)}\\n' > {name}; "
               f"chmod 755 {name}")
    result = await run(tool_with(), {"command": command}, context(jail.home))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_opens_a_terminal(jail, SHELL_LOADS[name])
    assert _ran(jail) == 0, result.output


#: Python environments installed in the home folder that the person's programs run from wherever
#: they are: pyenv's Pythons (its shim runs ``~/.pyenv/versions/<v>/bin/python`` for every
#: ``python``), uv's and pipx's tools (each app its own environment). A ``.pth`` file in their
#: site-packages runs at every start of that Python, as one in ``~/.local/lib`` does.
HOME_PYTHONS = (".pyenv/versions/3.12.0", ".local/share/uv/tools/ruff", ".local/share/pipx/venvs/black")


def _home_python(jail: Jail, where: str) -> Path:
    """An environment at ``where`` in the home folder (a venv of this Python stands in for the
    real install: it reads its own site-packages alike); its site-packages folder."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(jail.home / where)], check=True,
                   capture_output=True, timeout=120)
    found = sorted((jail.home / where).glob("lib/python3*/site-packages"))
    assert found
    return found[0]


def _person_runs_that_python(jail: Jail, where: str) -> None:
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home)}
    subprocess.run([str(jail.home / where / "bin/python"), "-c", "pass"], env=env, capture_output=True, timeout=60)


@pytest.mark.parametrize("where", HOME_PYTHONS)
def test_a_pth_file_written_by_hand_in_a_python_of_the_home_folder_runs_at_its_next_start(
        jail: Jail, where: str) -> None:
    site = _home_python(jail, where)
    (site / "zz.pth").write_text(f"import os; os.system('echo ran >> {_marker(jail)}')\n")
    _person_runs_that_python(jail, where)
    assert _ran(jail) >= 1  # (twice here: the venv's lib64 link names its site-packages again)


@pytest.mark.parametrize("where", HOME_PYTHONS)
async def test_a_pth_file_planted_in_a_python_of_the_home_folder_runs_nothing(jail: Jail, where: str) -> None:
    site = _home_python(jail, where)
    relative = site.relative_to(jail.home)
    line = f"import os; os.system('echo ran >> {_marker(jail)}')"
    result = await run(tool_with(), {"command": f'echo "{line}" > {relative}/zz.pth'}, context(jail.home))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_runs_that_python(jail, where)
    assert _ran(jail) == 0, result.output


needs_gem = pytest.mark.skipif(shutil.which("gem") is None, reason="needs RubyGems to show what its plugins run")
#: RubyGems' user folder (Debian's RubyGems: ~/.local/share/gem; upstream's before: ~/.gem) is
#: first on its gem path: every ``gem`` command loads the plugins of its ``plugins/``.


def _user_gem_plugin(jail: Jail) -> str:
    found = subprocess.run(["ruby", "-e", "print Gem.user_dir"], env={"PATH": os.environ["PATH"], "HOME": str(jail.home)},
                           capture_output=True, text=True, check=True, timeout=60).stdout
    return f"{os.path.relpath(found, jail.home)}/plugins/zz_plugin.rb"


def _person_lists_gems(jail: Jail) -> None:
    subprocess.run(["gem", "list"], env={"PATH": os.environ["PATH"], "HOME": str(jail.home)}, capture_output=True,
                   timeout=120)


@needs_gem
def test_a_rubygems_plugin_written_by_hand_in_the_home_folder_runs_at_every_gem_command(jail: Jail) -> None:
    plugin = jail.home / _user_gem_plugin(jail)
    plugin.parent.mkdir(parents=True)
    plugin.write_text(f"system('echo ran >> {_marker(jail)}')\n")
    _person_lists_gems(jail)
    assert _ran(jail) == 1


@needs_gem
async def test_a_rubygems_plugin_planted_in_the_home_folder_runs_nothing(jail: Jail) -> None:
    plugin = _user_gem_plugin(jail)
    command = f"mkdir -p $(dirname {plugin}) && echo \"system('echo ran >> {_marker(jail)}')\" > {plugin}"
    result = await run(tool_with(), {"command": command}, context(jail.home))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_lists_gems(jail)
    assert _ran(jail) == 0, result.output


def _gem_source_running_code_at_install(folder: Path, marker: Path) -> None:
    """A gem source (a folder with RubyGems' index) offering ``rake`` 999, whose extension's
    ``extconf.rb`` (run when it is installed) appends to ``marker``."""
    made = folder.parent / "rake-999"
    (made / "ext/rake").mkdir(parents=True)
    (made / "rake.gemspec").write_text(
        'Gem::Specification.new do |s|\n  s.name = "rake"; s.version = "999.0"; s.summary = "x"; s.authors = ["x"]\n'
        '  s.files = ["ext/rake/extconf.rb"]; s.extensions = ["ext/rake/extconf.rb"]\nend\n')
    (made / "ext/rake/extconf.rb").write_text(f'system("echo ran >> {marker}"); File.write("Makefile", "all:\\ninstall:\\n")\n')
    env = {"PATH": os.environ["PATH"], "HOME": str(folder.parent)}
    subprocess.run(["gem", "build", "rake.gemspec"], cwd=made, env=env, capture_output=True, check=True, timeout=120)
    (folder / "gems").mkdir(parents=True)
    shutil.copy(made / "rake-999.0.gem", folder / "gems")
    subprocess.run(["gem", "generate_index", "-d", str(folder)], env=env, capture_output=True, check=True, timeout=120)


def _person_installs_rake(jail: Jail) -> None:
    # Never the network (without the settings, RubyGems' own source: a proxy that is not there).
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "http_proxy": "http://127.0.0.1:9",
           "https_proxy": "http://127.0.0.1:9"}
    subprocess.run(["gem", "install", "--user-install", "--no-document", "rake"], cwd=jail.base, env=env,
                   stdin=subprocess.DEVNULL, capture_output=True, timeout=300)


def _gemrc(jail: Jail) -> str:
    """Settings that make RubyGems take its gems from a source of the command's choice only."""
    return f":sources:\n- file://{jail.base / 'gems'}/\n"


@needs_gem
def test_rubygems_settings_written_by_hand_in_the_home_folder_install_what_they_name(jail: Jail) -> None:
    _gem_source_running_code_at_install(jail.base / "gems", _marker(jail))
    (jail.home / ".gemrc").write_text(_gemrc(jail))
    _person_installs_rake(jail)
    assert _ran(jail) == 1


@needs_gem
async def test_rubygems_settings_planted_in_the_home_folder_install_nothing(jail: Jail) -> None:
    _gem_source_running_code_at_install(jail.base / "gems", _marker(jail))
    text = _gemrc(jail).replace("\n", "\\n")
    result = await run(tool_with(), {"command": f"printf '{text}' > .gemrc"}, context(jail.home))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_installs_rake(jail)
    assert _ran(jail) == 0, result.output

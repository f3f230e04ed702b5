"""Nothing a sandboxed command plants where a tool's OWN settings file (which the person wrote)
moves a protected place runs later outside the sandbox (``echo_desk.sandbox.settings_moved``).

``go env -w GOMODCACHE=~/work/gomodcache`` writes ``~/.config/go/env``; no variable is set, yet
every later ``go build`` builds the modules unpacked there as it finds them. The attack is first
shown to be real: the same change, made by hand, does run at the person's next build.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_helpers import (
    MAVEN_PLUGIN,
    MAVEN_PLUGIN_POM,
    Jail,
    context,
    go_project_using_a_module,
    maven_plugin_jar,
    needs_maven,
    person_builds_and_runs_go,
    person_runs_maven_offline,
    planted_go_module,
    requires_bwrap,
    run,
    run_go,
    tool_with,
)
from sandbox_helpers import planted_runs as _ran

from echo_desk.sandbox import inventory, moved, settings_moved

needs_go = pytest.mark.skipif(shutil.which("go") is None, reason="needs go to show what it builds")


@pytest.fixture(autouse=True)
def _no_moving_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the settings files move anything here (the variables are ``moved``'s job)."""
    for name in ("XDG_CONFIG_HOME", "GOENV", "GOPATH", "GOMODCACHE", "GOBIN", "CARGO_HOME", "CARGO_INSTALL_ROOT",
                 "PIP_CONFIG_FILE", "PIP_CACHE_DIR", "NPM_CONFIG_USERCONFIG", "npm_config_userconfig",
                 "NPM_CONFIG_CACHE", "npm_config_cache", "NPM_CONFIG_PREFIX", "npm_config_prefix"):
        monkeypatch.delenv(name, raising=False)


# --- go: go env -w moves the module cache (GOMODCACHE, or GOPATH's pkg/mod) -------------------


#: go env -w's variable, and where the module lands below its value.
_GO_SETTINGS = [("GOMODCACHE", "gomodcache"), ("GOPATH", "gopath/pkg/mod")]


@pytest.fixture(params=_GO_SETTINGS, ids=[name for name, _ in _GO_SETTINGS])
def go_project(jail: Jail, request: pytest.FixtureRequest) -> Iterator[tuple[Path, str]]:
    """The person's ``go env -w`` naming a folder of the workspace, and their Go project (outside
    it) built once: the module it uses is unpacked in the workspace and named in ``go.sum``."""
    name, below = request.param
    value = jail.workspace / below.split("/", 1)[0]
    written = run_go(jail, jail.base, "env", "-w", f"{name}={value}")
    assert written.returncode == 0, written.stderr
    assert f"{name}={value}" in (jail.home / ".config/go/env").read_text()
    project = go_project_using_a_module(jail)
    module = f"{below}/example.com/lib@v1.0.0"
    assert (jail.workspace / module / "lib.go").exists()
    yield project, module
    # go leaves its module cache read-only: make it removable again.
    subprocess.run(["chmod", "-R", "u+w", str(jail.workspace), str(jail.base)], capture_output=True)


@needs_go
def test_a_module_changed_by_hand_in_a_module_cache_go_env_moved_runs_at_the_next_build(
        jail: Jail, go_project: tuple[Path, str]) -> None:
    project, module = go_project
    folder = jail.workspace / module
    folder.chmod(0o755)
    (folder / "lib.go").chmod(0o644)
    (folder / "lib.go").write_text(planted_go_module(jail))
    person_builds_and_runs_go(jail, project)
    assert _ran(jail) == 1


@needs_go
@requires_bwrap
async def test_a_module_changed_by_a_command_in_a_module_cache_go_env_moved_into_the_workspace_never_runs(
        jail: Jail, go_project: tuple[Path, str]) -> None:
    project, module = go_project
    text = planted_go_module(jail).replace("\\", "\\\\").replace('"', '\\"')
    command = f'chmod u+w {module} {module}/lib.go; printf %s "{text}" > {module}/lib.go'
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    person_builds_and_runs_go(jail, project)
    assert _ran(jail) == 0, result.output


@requires_bwrap
async def test_a_module_cache_go_env_names_that_does_not_exist_yet_is_not_left_to_the_command(jail: Jail) -> None:
    """Before the first build: a module the command would unpack there ahead of go (with the
    ``.ziphash`` go compares with ``go.sum``) would be taken as downloaded. It is put aside."""
    (jail.home / ".config/go").mkdir(parents=True)
    (jail.home / ".config/go/env").write_text(f"GOMODCACHE={jail.workspace / 'gomodcache'}\n")
    module = "gomodcache/example.com/lib@v1.0.0"
    result = await run(tool_with(), {"command": f"mkdir -p {module} && echo package lib > {module}/lib.go"},
                       context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert not (jail.workspace / module / "lib.go").exists(), result.output


# --- Maven: <localRepository> in ~/.m2/settings.xml moves the local repository -----------------


@pytest.fixture
def maven_repository(jail: Jail) -> tuple[Path, Path]:
    """The person's ``settings.xml`` naming a folder of the workspace as the local repository
    (filled by their earlier builds), and a plugin's jar whose goal appends to the marker."""
    repository = jail.workspace / "m2repo"
    (jail.home / ".m2").mkdir(parents=True, exist_ok=True)  # (it holds a hidden canary)
    (jail.home / ".m2/settings.xml").write_text(
        '<?xml version="1.0"?>\n<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">\n'
        f"  <localRepository>{repository}</localRepository>\n</settings>\n")
    return repository, maven_plugin_jar(jail, repository)


@needs_maven
def test_a_plugin_jar_put_by_hand_in_the_local_repository_settings_xml_names_runs_at_mvn_offline(
        jail: Jail, maven_repository: tuple[Path, Path]) -> None:
    repository, jar = maven_repository
    folder = repository / MAVEN_PLUGIN
    folder.mkdir(parents=True)
    shutil.copy(jar, folder)
    (folder / "hello-maven-plugin-1.0.pom").write_text(MAVEN_PLUGIN_POM)
    person_runs_maven_offline(jail)
    assert _ran(jail) == 1


@needs_maven
@requires_bwrap
async def test_a_plugin_jar_planted_in_the_local_repository_settings_xml_moves_into_the_workspace_never_runs(
        jail: Jail, maven_repository: tuple[Path, Path]) -> None:
    _, jar = maven_repository
    folder = f"m2repo/{MAVEN_PLUGIN}"
    command = (f"mkdir -p {folder} && cp {jar} {folder}/ && "
               f"printf %s '{MAVEN_PLUGIN_POM.strip()}' > {folder}/hello-maven-plugin-1.0.pom")
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    person_runs_maven_offline(jail)
    assert _ran(jail) == 0, result.output


def _mounted(workspace: Path, home: Path, environ: dict[str, str] | None = None) -> set[str]:
    return {w.path for w in inventory.take(workspace, home=home, environs=(environ or {},)).watched if w.mounted}


# --- each tool's settings file, read as the tool reads it (the mounts; verdict only) ----------
# go's is proven above. npm's prefix/bin and cargo's install.root/bin are on PATH (what is
# planted there runs when you type its name); npm's cache, pip's and Maven's local repository
# are used by later installs and builds as they are (as at their default places).


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    (folder / "work").mkdir(parents=True)
    return folder


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.parametrize(("name", "value", "where"), [
    ("GOMODCACHE", "@W/mods", "mods"),
    ("GOPATH", "/elsewhere:@W/gopath", "gopath/pkg"),
    ("GOPATH", "@W/gopath", "gopath/bin"),
    ("GOBIN", "@W/gobin", "gobin"),
    ("GOCACHE", "@W/gocache", "gocache"),
])
def test_go_env_files_places_are_mounted(home: Path, name: str, value: str, where: str) -> None:
    work = home / "work"
    (work / where).mkdir(parents=True)
    _write(home / ".config/go/env", f"GOFLAGS=-mod=mod\n# a comment\n{name}={value.replace('@W', str(work))}\n")
    assert f"{work}/{where}" in _mounted(work, home)


def test_go_reads_the_env_file_goenv_or_xdg_config_home_names(home: Path, tmp_path: Path) -> None:
    work = home / "work"
    (work / "a").mkdir()
    (work / "b").mkdir()
    _write(tmp_path / "goenv", f"GOMODCACHE={work}/a\n")
    _write(tmp_path / "cfg/go/env", f"GOMODCACHE={work}/b\n")
    assert f"{work}/a" in _mounted(work, home, {"GOENV": str(tmp_path / "goenv")})
    assert f"{work}/b" in _mounted(work, home, {"XDG_CONFIG_HOME": str(tmp_path / "cfg")})


@pytest.mark.parametrize(("line", "where"), [
    ("cache=@W/npm-cache", "npm-cache"),
    ("cache = \"@W/npm-cache\"", "npm-cache"),
    ("prefix=~/work/npm-global", "npm-global"),
    ("prefix=${WORKSPACE}/npm-global", "npm-global"),
])
def test_npmrcs_cache_and_prefix_are_mounted(home: Path, line: str, where: str) -> None:
    work = home / "work"
    (work / where).mkdir()
    _write(home / ".npmrc", "; settings\nregistry=https://registry.npmjs.org/\n" + line.replace("@W", str(work)) + "\n")
    assert f"{work}/{where}" in _mounted(work, home, {"WORKSPACE": str(work)})


def test_npm_reads_the_settings_file_its_variable_names(home: Path, tmp_path: Path) -> None:
    work = home / "work"
    (work / "npm-global").mkdir()
    _write(tmp_path / "npmrc", f"prefix={work}/npm-global\n")
    assert f"{work}/npm-global" in _mounted(work, home, {"NPM_CONFIG_USERCONFIG": str(tmp_path / "npmrc")})


def test_npms_prefix_variable_is_mounted(home: Path) -> None:
    work = home / "work"
    (work / "npm-global").mkdir()
    assert f"{work}/npm-global" in _mounted(work, home, {"npm_config_prefix": str(work / "npm-global")})


@pytest.mark.parametrize("file", [".config/pip/pip.conf", ".pip/pip.conf"])
@pytest.mark.parametrize("text", ["[global]\ncache-dir = @W/pip-cache\n", "[install]\ncache_dir=@W/pip-cache\n",
                                  "[download]\n--cache-dir = @W/pip-cache\n"])
def test_pip_confs_cache_dir_is_mounted(home: Path, file: str, text: str) -> None:
    work = home / "work"
    (work / "pip-cache").mkdir()
    _write(home / file, text.replace("@W", str(work)))
    assert f"{work}/pip-cache" in _mounted(work, home)


@pytest.mark.parametrize(("value", "where"), [("@W/tools", "tools/bin"), ("work/tools", "tools/bin")])
def test_cargo_install_root_is_mounted(home: Path, value: str, where: str) -> None:
    """A relative root is relative to the folder ``~/.cargo`` is in (the home folder)."""
    work = home / "work"
    (work / where).mkdir(parents=True)
    _write(home / ".cargo/config.toml", f'[install]\nroot = "{value.replace("@W", str(work))}"\n')
    assert f"{work}/{where}" in _mounted(work, home)


@pytest.mark.parametrize("value", ["@W/m2repo", "${user.home}/work/m2repo", "${env.WORKSPACE}/m2repo"])
def test_mavens_local_repository_is_mounted(home: Path, value: str) -> None:
    work = home / "work"
    (work / "m2repo").mkdir()
    _write(home / ".m2/settings.xml", '<?xml version="1.0"?>\n<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">'
           f"\n  <localRepository>{value.replace('@W', str(work))}</localRepository>\n</settings>\n")
    assert f"{work}/m2repo" in _mounted(work, home, {"WORKSPACE": str(work)})


@pytest.mark.parametrize("text", [
    "---\ngemhome: @W/gems\n", ":gemhome: '@W/gems'  # mine\n", "gempath:\n  - /elsewhere\n  - @W/gems\n",
    "gempath: [/elsewhere, \"@W/gems\"]\n", "gempath: /elsewhere:@W/gems\n",
])
def test_gemrcs_gemhome_and_gempath_are_mounted(home: Path, text: str) -> None:
    """(RubyGems 3.3 reads each but ``:gemhome:``, which is read here too: ``gem env gempath``.)"""
    work = home / "work"
    (work / "gems").mkdir()
    _write(home / ".gemrc", text.replace("@W", str(work)))
    assert f"{work}/gems" in _mounted(work, home)


def test_gem_reads_the_settings_files_gemrc_names(home: Path, tmp_path: Path) -> None:
    work = home / "work"
    (work / "gems").mkdir()
    _write(tmp_path / "gemrc", f"gemhome: {work}/gems\n")
    assert f"{work}/gems" in _mounted(work, home, {"GEMRC": f"/nothing:{tmp_path}/gemrc"})


@pytest.mark.parametrize(("file", "text"), [
    (".cargo/config.toml", '[install\nroot = "@W/tools"\n'),
    (".m2/settings.xml", "<settings><localRepository>@W/tools</localRepository>"),
    (".config/pip/pip.conf", "cache-dir = @W/tools\n"),
    (".m2/settings.xml", "<settings><localRepository>${maven.repo.base}/tools</localRepository></settings>"),
    (".gemrc", "gemhome: &home @W/tools\n"),
    (".gemrc", "gemhome: |\n  @W/tools\n"),
])
def test_a_settings_file_its_tool_cannot_read_moves_nothing(home: Path, file: str, text: str) -> None:
    """cargo, Maven and pip stop on such a file: they keep their default place, protected anyway.
    A value left to what this does not read (a Maven property, YAML beyond a plain value) names
    no place: documented, not guessed."""
    work = home / "work"
    (work / "tools/bin").mkdir(parents=True)
    _write(home / file, text.replace("@W", str(work)))
    assert not {p for p in _mounted(work, home) if p.startswith(f"{work}/tools")}


def test_a_named_pipe_for_a_settings_file_is_not_opened(home: Path) -> None:
    """Opening a pipe nobody writes would wait forever: it is skipped."""
    (home / ".config/go").mkdir(parents=True)
    os.mkfifo(home / ".config/go/env")
    os.mkfifo(home / ".npmrc")
    assert inventory.take(home / "work", home=home, environs=({},)) is not None


def test_every_setting_moves_an_entry_of_the_list() -> None:
    """A row that moved nothing would be a place left unprotected by a typo."""
    assert [m for m in settings_moved.MOVERS if not (moved._moved_by(m) or moved._hidden_by(m))] == []


def test_a_settings_file_changed_since_it_was_read_is_read_again(home: Path) -> None:
    """What is read is kept per file until it changes: the new value counts at once."""
    work = home / "work"
    (work / "a").mkdir()
    (work / "b").mkdir()
    _write(home / ".config/go/env", f"GOMODCACHE={work}/a\n")
    assert f"{work}/a" in _mounted(work, home)
    _write(home / ".config/go/env", f"GOMODCACHE={work}/b\n")
    mounted = _mounted(work, home)
    assert f"{work}/b" in mounted and f"{work}/a" not in mounted

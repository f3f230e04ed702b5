"""A suggested rule never promises what it does not deliver (s329). The approval dialog offers
"Allow “git commit **”"; since s314 a commit without a message runs the editor, which that rule
does not cover, so the next ``git commit`` asked again. Each shell suggestion is now tried against
the engine: with it added, its command is allowed; or the suggestion names the programs the
command also runs that the rules do not allow (``also_runs``); or it is not offered. What the line
still asks for with every rule offered (a redirection into a file no write rule allows) is
``Verdict.still_asks``."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import HERE, Setup
from .engine_verdicts import effect_under, rule_text, verdict_under, writes_allowed
from .test_editor_settings import install_nano
from .test_editor_starts import MESSAGE_GIVEN, STARTS_AN_EDITOR

#: Lines that start the editor and that no rule asks for an option of (the rule offered covers
#: every word; only the editor keeps them asking).
_EDITOR_LINES = [line for line in STARTS_AN_EDITOR if "-C " not in line and "--cwd" not in line]
EVERYDAY = [line for line in (HERE / "everyday_lines.txt").read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]
_GIT_EDITORS = ("editor", "vi")
_HG_EDITORS = ("sensible-editor", "editor", "vi")


@pytest.fixture(autouse=True)
def _no_editor_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("EDITOR", "VISUAL", "GIT_EDITOR", "HGEDITOR"):
        monkeypatch.delenv(name, raising=False)


def _repository(setup: Setup) -> None:
    (setup.workspace / ".git").mkdir()
    (setup.workspace / ".hg").mkdir()


@pytest.mark.parametrize("line", _EDITOR_LINES)
def test_the_rule_offered_for_a_command_that_starts_the_editor_names_the_editor(setup: Setup, line: str) -> None:
    _repository(setup)
    verdict = verdict_under(setup, "", line)
    [suggestion] = verdict.suggestions
    assert suggestion.also_runs == (_HG_EDITORS if line.startswith("hg") else _GIT_EDITORS), suggestion
    assert suggestion.pattern is not None and verdict.still_asks == ()  # (said by the suggestion)
    # What it says is so: with the rule alone the line still asks.
    assert effect_under(setup, rule_text(suggestion.pattern), line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["git commit", "git commit --amend", "git notes add", "hg commit"])
def test_with_a_rule_for_the_editor_named_the_rule_offered_allows_the_line(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory, line: str) -> None:
    _repository(setup)
    monkeypatch.setenv("EDITOR", "nano")
    monkeypatch.setenv("TERM", "xterm")
    install_nano(tmp_path_factory, monkeypatch)  # (Debian's hg runs sensible-editor: nano when there is one, s324)
    [suggestion] = verdict_under(setup, "", line).suggestions
    assert suggestion.also_runs == ("nano",) and suggestion.pattern is not None
    assert effect_under(setup, rule_text(suggestion.pattern), line) is not Effect.ALLOW
    assert effect_under(setup, rule_text(suggestion.pattern, "nano **"), line) is Effect.ALLOW
    # Once the editor is allowed, the rule offered is enough alone, and says nothing more.
    [again] = verdict_under(setup, rule_text("nano **"), line).suggestions
    assert again.pattern == suggestion.pattern and again.also_runs == ()


def test_a_line_a_suggestion_names_a_wrapper_for_carries_the_editor_on_each_of_its_rules(setup: Setup) -> None:
    _repository(setup)
    verdict = verdict_under(setup, "", "timeout 60 git commit")
    assert [(s.pattern, s.also_runs) for s in verdict.suggestions] == [
        ("timeout **", _GIT_EDITORS), ("git commit **", _GIT_EDITORS)]


@pytest.mark.parametrize("line", [line for line in MESSAGE_GIVEN if line.split()[1] in ("commit", "ci")])
def test_a_commit_with_its_message_is_offered_a_rule_that_allows_it(setup: Setup, line: str) -> None:
    _repository(setup)
    [suggestion] = verdict_under(setup, "", line).suggestions
    assert suggestion.also_runs == () and suggestion.pattern is not None
    assert effect_under(setup, rule_text(suggestion.pattern), line) is Effect.ALLOW


def test_a_rule_that_would_allow_nothing_more_is_not_offered(setup: Setup) -> None:
    """xargs's words come from find's output (a planted name injects options): the rules for find,
    xargs and wc do not allow the line, and offering them again would promise it next time."""
    rules = rule_text("find **", "xargs **", "wc **")
    verdict = verdict_under(setup, rules, "find . -name '*.py' | xargs wc -l")
    assert verdict.effect is not Effect.ALLOW and verdict.suggestions == ()


def test_a_rule_in_force_already_is_not_offered_again(setup: Setup) -> None:
    # (vi reads commands from its input, which is not a terminal: as git's editor it always asks)
    _repository(setup)
    verdict = verdict_under(setup, rule_text("git commit **", "editor **", "vi **"), "git commit")
    assert verdict.effect is not Effect.ALLOW and verdict.suggestions == ()


@pytest.mark.parametrize(("line", "still"), [
    ("git log --oneline > tmp/history.txt", ("> tmp/history.txt",)),
    ("python -m pytest -q 2>&1 | tail -20", ("python -m pytest -q",)),
    ("ls | wc -l", ()),
])
def test_what_the_line_still_asks_for_with_every_rule_offered_is_said(setup: Setup, line: str,
                                                                     still: tuple[str, ...]) -> None:
    verdict = verdict_under(setup, "", line)
    assert verdict.suggestions and verdict.still_asks == still
    patterns = [s.pattern or "" for s in verdict.suggestions]
    assert (effect_under(setup, rule_text(*patterns), line) is Effect.ALLOW) is (not still)


def test_every_rule_offered_for_the_everyday_lines_keeps_its_promise(setup: Setup) -> None:
    """Under no rules (every line asks): the rules offered for a command that name nothing else
    allow it once added; with every rule offered, the line is allowed unless the verdict said
    what would still ask."""
    (setup.workspace / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
                                                    encoding="utf-8")
    (setup.workspace / "tests").mkdir()
    writes = writes_allowed("@workspace/out/**")
    broken: list[str] = []
    for line in EVERYDAY:
        verdict = verdict_under(setup, writes, line)
        if verdict.effect is Effect.ALLOW or not verdict.suggestions:
            continue
        # (a wrapper's rule and its command's are offered for one command: `npx **`, `tsc **`)
        groups: dict[str, list[str]] = {}
        for suggestion in verdict.suggestions:
            if not suggestion.also_runs:
                groups.setdefault(suggestion.label, []).append(suggestion.pattern or "")
        for command, group in groups.items():
            parts = verdict_under(setup, writes + rule_text(*group), line).parts
            if not any(p.text == command and p.effect is Effect.ALLOW for p in parts):
                broken.append(f"{line!r}: {group!r} do not allow {command!r}")
        patterns = [s.pattern or "" for s in verdict.suggestions]
        allowed = verdict_under(setup, writes + rule_text(*patterns), line).effect is Effect.ALLOW
        explained = bool(verdict.still_asks) or any(s.also_runs for s in verdict.suggestions)
        if allowed is explained:
            broken.append(f"{line!r}: every rule offered {'allows' if allowed else 'does not allow'} it, "
                          f"still_asks={verdict.still_asks!r}")
    assert not broken, "\n".join(broken)


@pytest.mark.parametrize(("line", "wrapper", "program"), [
    ("nice -n 5 make test", "nice **", "make test **"),
    ("timeout 5 make test", "timeout **", "make test **"),
    ("npx tsc", "npx **", "tsc **"),
])
def test_a_wrappers_rule_and_its_programs_each_name_the_other_they_need(
        setup: Setup, line: str, wrapper: str, program: str) -> None:
    """(s337) Tried alone, neither allows the command: each says it needs the other offered beside
    it (``Suggestion.needs``), and so it is: each alone leaves the line asking, both allow it."""
    (setup.workspace / "Makefile").write_text("test:\n\ttrue\n", encoding="utf-8")
    verdict = verdict_under(setup, "", line)
    assert [(s.pattern, s.needs) for s in verdict.suggestions] == [(wrapper, (program,)), (program, (wrapper,))]
    assert effect_under(setup, rule_text(wrapper), line) is not Effect.ALLOW
    assert effect_under(setup, rule_text(program), line) is not Effect.ALLOW
    assert effect_under(setup, rule_text(wrapper, program), line) is Effect.ALLOW
    # With the wrapper's rule in force, its program's rule is offered alone, and is enough.
    [alone] = verdict_under(setup, rule_text(wrapper), line).suggestions
    assert (alone.pattern, alone.needs) == (program, ())


@pytest.mark.parametrize("line", ["ls | wc -l", "git status && git log", "git commit && git push"])
def test_the_rules_of_a_lines_several_commands_need_nothing_beside_them(setup: Setup, line: str) -> None:
    _repository(setup)
    assert all(s.needs == () for s in verdict_under(setup, "", line).suggestions)


def test_the_editor_the_settings_name_is_said_by_the_rule_offered(setup: Setup) -> None:
    """s324: git runs ``core.editor`` from the person's settings; the rule offered for ``git
    commit`` says that program too (it was offered as if the defaults ran, s329)."""
    _repository(setup)
    (setup.home / ".gitconfig").write_text("[core]\n\teditor = emacs\n", encoding="utf-8")
    [suggestion] = verdict_under(setup, "", "git commit").suggestions
    assert "emacs" in suggestion.also_runs, suggestion


#: (s342) Lines env gives what ``env **`` does not name (assignments, ``-i``, ``-C``): before, no
#: rule was offered at all, so the person could only approve them once, every time.
_ENV_NAMED = [
    ("env FOO=1 make test", "env FOO=1 make test **"),
    ("env -i make test", "env -i make test **"),
    ("env -C sub make test", "env -C sub make test **"),
    ("env -i FOO=1 make test", "env -i FOO=1 make test **"),
    ("env -iu X make test", "env -iu X make test **"),
    ("env FOO=1 git status", "env FOO=1 git status **"),
]


def _make_project(setup: Setup) -> None:
    (setup.workspace / "Makefile").write_text("test:\n\ttrue\n", encoding="utf-8")
    (setup.workspace / "sub").mkdir()
    (setup.workspace / "sub" / "Makefile").write_text("test:\n\ttrue\n", encoding="utf-8")
    _repository(setup)


@pytest.mark.parametrize(("line", "pattern"), _ENV_NAMED)
def test_a_command_env_gives_what_a_rule_must_name_is_offered_one_naming_it(setup: Setup, line: str,
                                                                             pattern: str) -> None:
    """One rule, env's words as written and the program's narrow pattern (as ``FOO=1 make test``
    is offered ``FOO=1 make test **``): narrower than ``env FOO=1 **`` beside ``make test **``."""
    _make_project(setup)
    verdict = verdict_under(setup, "", line)
    assert verdict.effect is not Effect.ALLOW
    assert [(s.pattern, s.needs, s.also_runs) for s in verdict.suggestions] == [(pattern, (), ())]
    assert verdict.suggestions[0].examples.match == (line,)
    assert effect_under(setup, rule_text(pattern), line) is Effect.ALLOW


def test_a_wrapper_around_env_is_offered_its_rule_beside_envs(setup: Setup) -> None:
    _make_project(setup)
    verdict = verdict_under(setup, "", "nice env FOO=1 make test")
    assert [(s.pattern, s.needs) for s in verdict.suggestions] == [
        ("nice **", ("env FOO=1 make test **",)), ("env FOO=1 make test **", ("nice **",))]
    assert effect_under(setup, rule_text("nice **", "env FOO=1 make test **"), "nice env FOO=1 make test") is Effect.ALLOW


@pytest.mark.parametrize(("pattern", "line"), [
    ("env FOO=1 make test **", "env FOO=1 LD_PRELOAD=x.so make test"),
    ("env FOO=1 make test **", "env LD_PRELOAD=x.so FOO=1 make test"),
    ("env FOO=1 make test **", "env FOO=1 make test LD_PRELOAD=/tmp/x.so"),
    ("env FOO=1 make test **", "env FOO=1 PATH=bin make test"),
    ("env -i make test **", "env -i LD_PRELOAD=x.so make test"),
    ("env -i make test **", "env -i PATH=bin make test"),
    ("env -C sub make test **", "env -C sub LD_PRELOAD=x.so make test"),
    ("env FOO=1 git status **", "env FOO=1 GIT_DIR=x git status"),
    ("FOO=1 make test **", "FOO=1 LD_PRELOAD=x.so make test"),
])
def test_with_the_rule_offered_a_dangerous_variable_still_asks(setup: Setup, pattern: str, line: str) -> None:
    _make_project(setup)
    assert effect_under(setup, rule_text(pattern), line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "env LD_PRELOAD=x.so make test", "env PATH=bin make test", "env -u PATH make test",
    "env -i PATH=/usr/bin make test", "env GIT_DIR=x git status", "env PYTHONPATH=out make test",
    "env FOO=a/b make test",
    "LD_PRELOAD=x.so make test", "PATH=bin make test", "BASH_ENV=x make test", "MAKEFILES=x make test",
    "GIT_DIR=x git status",
])
def test_no_rule_is_offered_that_names_a_variable_naming_code_or_settings(setup: Setup, line: str) -> None:
    """``PATH=bin make test`` was offered ``PATH=bin make test **``, which allows it: a ``bin/make``
    the agent planted then ran (bash 5.2 and dash 0.5.12, strace). Such a line asks, offering
    nothing; the person may still approve it once."""
    _make_project(setup)
    verdict = verdict_under(setup, "", line)
    assert verdict.effect is not Effect.ALLOW and verdict.suggestions == ()


@pytest.mark.parametrize(("line", "suggested"), [
    ("FOO=1 make test", ["FOO=1 make test **"]),
    ("DEBUG=1 make test", ["DEBUG=1 make test **"]),
    ("env -u X make test", ["env **", "make test **"]),
    ("env make test", ["env **", "make test **"]),
])
def test_what_was_offered_before_is_offered_still(setup: Setup, line: str, suggested: list[str]) -> None:
    _make_project(setup)
    assert [s.pattern for s in verdict_under(setup, "", line).suggestions] == suggested

"""Task runners whose settings file is code they run (s221): pre-commit runs the hooks of the
repository's .pre-commit-config.yaml (or the file -c/--config names: a local hook is any
command), kubectl the ``exec`` credential command of the settings file --kubeconfig names, or of
~/.kube/config. Where the write rules let the agent write that file, a rule naming the program
no longer allows the line. The hostile corpus proves the harm (rule set task-runners)."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .passed_env import pass_on
from .test_fail_closed import _effect, _rules


def _judged(setup: Setup, line: str, writable: str) -> Effect | None:
    setup.write_user_rules(_rules("[pre-commit run|kubectl get|cd] **") + _rules(writable, tool="write"))
    setup.engine.refresh()
    return _effect(setup, line)


@pytest.mark.parametrize(("line", "writable"), [
    ("pre-commit run -a", "@workspace/**"), ("pre-commit run --all-files", "@workspace/.pre-commit-config.yaml"),
    ("cd src && pre-commit run -a", "@workspace/**"),
    ("pre-commit run -c out/p.yaml -a", "@workspace/out/**"), ("pre-commit run -ac out/p.yaml", "@workspace/out/**"),
    ("pre-commit run --config=out/p.yaml", "@workspace/out/**"),
    ("pre-commit run --con out/p.yaml", "@workspace/out/**"),
    ("kubectl get pods --kubeconfig out/k", "@workspace/out/**"), ("kubectl get pods --kubeconfig=out/k", "@workspace/out/**"),
    ("kubectl get pods", "~/.kube/**"),
])
def test_a_settings_file_the_agent_may_write_asks(setup: Setup, line: str, writable: str) -> None:
    (setup.workspace / "src").mkdir(exist_ok=True)
    assert _judged(setup, line, writable) is not Effect.ALLOW, line


@pytest.mark.parametrize("line", [
    "pre-commit run -a", "pre-commit run --all-files --hook-stage manual", "pre-commit run -c .pre-commit-config.yaml",
    "kubectl get pods", "kubectl get pods -o wide", "kubectl get pods --kubeconfig ~/.kube/config",
])
def test_settings_the_agent_cannot_write_leave_the_rule_in_force(setup: Setup, line: str) -> None:
    assert _judged(setup, line, "@workspace/out/**") is Effect.ALLOW, line


@pytest.mark.parametrize("value", ["out/k", ":out/k", "/nonexistent/k:out/k", "out/k:/nonexistent/k", "~/k", "{ws}/out/k"])
def test_the_settings_files_kubeconfig_names_in_echo_desk_s_environment_are_kubectl_s(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    """``KUBECONFIG=:out/k`` in the environment kubectl inherits made ``kubectl get pods`` run
    out/k's ``exec`` command (kubectl 1.32, bash and dash; a list, empty entries skipped, a
    relative file in the folder it runs in): a file there the agent may write asks, as
    ``--kubeconfig out/k`` does. (``~/k``: kubectl reads ~ as a folder name; the shell that set
    it may have expanded it: both count.)"""
    pass_on(monkeypatch, "KUBECONFIG", value.format(ws=setup.workspace))
    assert _judged(setup, "kubectl get pods", "@workspace/**") is not Effect.ALLOW


@pytest.mark.parametrize("value", ["/nonexistent/k", "/nonexistent/a::/nonexistent/b", ""])
def test_settings_files_kubeconfig_names_the_agent_cannot_write_leave_the_rule_in_force(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    pass_on(monkeypatch, "KUBECONFIG", value)
    assert _judged(setup, "kubectl get pods", "@workspace/**") is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "KUBECONFIG=out/k kubectl get pods", "env KUBECONFIG=out/k kubectl get pods",
    "env KUBECONFIG=/nonexistent/k:{ws}/out/k kubectl get pods",
])
def test_kubeconfig_given_on_the_line_names_kubectl_s_settings_too(setup: Setup, line: str) -> None:
    setup.write_user_rules(_rules("[kubectl get|env KUBECONFIG=* kubectl get] **") + _rules("@workspace/**", tool="write"))
    setup.engine.refresh()
    assert _effect(setup, line.format(ws=setup.workspace)) is not Effect.ALLOW


@pytest.mark.parametrize("rule", ["pre-commit **", "pre-commit * **", "pre-commit run **"])
@pytest.mark.parametrize("line", [
    "pre-commit try-repo ../other/hooks", "pre-commit try-repo . x --all-files", "pre-commit try-repo out/hooks",
    "pre-commit try-repo https://example.invalid/hooks.git", "pre-commit -V try-repo ../other/hooks",
])
def test_hooks_of_another_repository_need_a_rule_naming_try_repo(setup: Setup, rule: str, line: str) -> None:
    """``pre-commit try-repo ../other/hooks x -a`` ran a hook that repository lists (pre-commit
    3.0, bash and dash): a rule for pre-commit trusts the project's hooks, not another's."""
    setup.write_user_rules(_rules(rule))
    setup.engine.refresh()
    assert _effect(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["pre-commit try-repo ../other/hooks", "pre-commit try-repo . x --all-files"])
def test_a_rule_naming_try_repo_covers_it(setup: Setup, line: str) -> None:
    setup.write_user_rules(_rules("pre-commit try-repo **"))
    setup.engine.refresh()
    assert _effect(setup, line) is Effect.ALLOW


@pytest.mark.parametrize("line", ["pre-commit run try-repo", "pre-commit help try-repo", "pre-commit --version"])
def test_try_repo_as_a_word_of_another_subcommand_is_not_it(setup: Setup, line: str) -> None:
    setup.write_user_rules(_rules("pre-commit **"))
    setup.engine.refresh()
    assert _effect(setup, line) is Effect.ALLOW

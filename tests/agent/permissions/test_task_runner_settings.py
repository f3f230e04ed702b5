"""Task runners whose settings file is code they run (s221): pre-commit runs the hooks of the
repository's .pre-commit-config.yaml (or the file -c/--config names: a local hook is any
command), kubectl the ``exec`` credential command of the settings file --kubeconfig names, or of
~/.kube/config. Where the write rules let the agent write that file, a rule naming the program
no longer allows the line. The hostile corpus proves the harm (rule set task-runners)."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
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

"""s241: docker's settings folder (``--config DIR``, ``$DOCKER_CONFIG``, ``~/.docker``) names the
programs docker runs: ``config.json``'s ``credsStore``/``credHelpers`` (``docker --config out
pull 127.0.0.1:1/x`` ran the helper out/config.json named) and ``cli-plugins/docker-NAME``
(``docker --config out compose version`` ran out/cli-plugins/docker-compose), proven with docker
28.2 under bash and dash (the s241 lines of the hostile corpus). A host ``ssh://`` makes docker
run ssh, which runs what its settings say."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.docker_settings import settings

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, writes_allowed
from .passed_env import pass_on

RULES = rule_text("docker **", "cd **") + writes_allowed("@workspace/out/**")


@pytest.mark.parametrize("line", [
    "docker --config out ps", "docker --config=out pull 127.0.0.1:1/x", "cd out && docker --config . compose version",
    "docker --config $D ps", "docker -D --config out/ ps",
])
def test_a_settings_folder_the_agent_may_write_asks(setup: Setup, line: str) -> None:
    assert effect_under(setup, RULES, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["docker ps", "docker compose version", "docker -H tcp://127.0.0.1:1 ps"])
def test_the_home_settings_folder_counts(setup: Setup, line: str) -> None:
    assert effect_under(setup, RULES, line) is Effect.ALLOW
    assert effect_under(setup, RULES + writes_allowed("~/.docker/**"), line) is not Effect.ALLOW


def test_the_folder_docker_config_names_counts(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    pass_on(monkeypatch, "DOCKER_CONFIG", str(setup.workspace / "out" / "docker"))
    assert effect_under(setup, RULES, "docker ps") is not Effect.ALLOW


@pytest.mark.parametrize("line", ["docker -H ssh://x ps", "docker --host=ssh://x ps", "docker --context remote ps",
                                  "docker -c remote ps", "docker -H $H ps"])
def test_a_host_reached_through_ssh_counts_ssh_s_settings(setup: Setup, line: str) -> None:
    assert effect_under(setup, RULES, line) is Effect.ALLOW or "$" in line
    assert effect_under(setup, RULES + writes_allowed("~/.ssh/**"), line) is not Effect.ALLOW


def test_the_host_and_context_of_the_environment_and_the_settings_count(setup: Setup, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    rules = RULES + writes_allowed("~/.ssh/**")
    assert effect_under(setup, rules, "docker ps") is Effect.ALLOW
    pass_on(monkeypatch, "DOCKER_HOST", "ssh://x")
    assert effect_under(setup, rules, "docker ps") is not Effect.ALLOW
    pass_on(monkeypatch, "DOCKER_HOST", "unix:///run/docker.sock")
    assert effect_under(setup, rules, "docker ps") is Effect.ALLOW
    monkeypatch.delenv("DOCKER_HOST")
    (setup.home / ".docker").mkdir()
    (setup.home / ".docker" / "config.json").write_text('{"currentContext": "remote"}', encoding="utf-8")
    assert effect_under(setup, rules, "docker ps") is not Effect.ALLOW


def test_the_settings_folders_read(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    assert settings(("docker", "ps"), [ws], home).folders == (home / ".docker",)
    assert settings(("docker", "--config", "out", "ps"), [ws], home).folders == (ws / "out",)
    assert settings(("docker", "--config=~/d", "ps"), [ws], home).folders == (ws / "~/d", home / "d")
    assert settings(("docker", "ps", "--config", "out"), [ws], home).folders == (home / ".docker",)  # (ps's own word)
    assert settings(("docker", "--config", None, "ps"), [ws], home).folders == (None,)
    assert not settings(("docker", "ps"), [ws], home).runs_ssh

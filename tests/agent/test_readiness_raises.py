"""A tool whose readiness check raises is not ready, with a reason, and logged: the tools the
model is offered leave it out (the others stay), and a direct call of it fails with
``dependency``. Before, the exception went up through ``SchemaFactory.definitions``, so every
turn of the agent failed because of one plugin."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from echo_desk.agent.model import ToolCall
from echo_desk.i18n import shown
from echo_desk.tools import ErrorKind
from tests.agent.fakes import Echo, WhoAmI, make_engine


class Broken(Echo):
    name = "broken_echo"

    def is_ready(self) -> bool:
        raise RuntimeError("keyring probe exploded")


class BrokenDetail(Echo):
    """Says it is not ready, then fails to say why."""

    name = "broken_detail"

    def is_ready(self) -> bool:
        return False

    def readiness_detail(self) -> str:
        raise KeyError("detail")


@pytest.fixture
def engine(tmp_path: Path, engines: list):
    dispatcher, factory, settings = make_engine(tmp_path, Echo(), WhoAmI(), Broken(), BrokenDetail())
    engines.append(dispatcher)
    return dispatcher, factory, settings


def test_the_model_is_offered_every_other_tool_and_the_reason_is_logged(engine, scope, caplog) -> None:
    _dispatcher, factory, _settings = engine
    with caplog.at_level(logging.WARNING, logger="echo_desk.agent.readiness"):
        names = {d.name for d in factory.definitions(scope)}
        factory.definitions(scope)  # asked again: logged once
    assert "echo" in names and "broken_echo" not in names and "broken_detail" not in names
    hidden = {a.name: a.reason for a in factory.availability(scope) if not a.visible}
    assert hidden["broken_echo"] == "not ready: its readiness check failed (RuntimeError: keyring probe exploded)"
    assert hidden["broken_detail"].startswith("not ready: its readiness check failed (KeyError")
    logged = [r for r in caplog.records if "broken_echo" in r.getMessage()]
    assert len(logged) == 1 and logged[0].exc_info is not None


async def test_a_direct_call_fails_as_not_ready_in_the_persons_language(engine, scope, host, chinese) -> None:
    dispatcher, _factory, _settings = engine
    env = await dispatcher.execute_tool(ToolCall(id="c1", name="broken_echo", arguments=json.dumps({"text": "x"})),
                                        scope, host)
    assert (env.ok, env.error_kind) == (False, ErrorKind.DEPENDENCY)
    assert "RuntimeError: keyring probe exploded" in env.error  # the model's English keeps the words
    assert "就绪检查失败" in shown(env.error), shown(env.error)
    assert host.requests == []

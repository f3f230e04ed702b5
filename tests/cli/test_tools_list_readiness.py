"""``echo-desk tools list`` says why a tool is not ready in the person's language, as the app's
catalog does: an MCP tool's reason (``for_person``: its ``str`` is the model's English) and a
plugin's (a message id of its own catalog); ``--json`` keeps the tool's own text for scripts."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from echo_desk import i18n
from echo_desk.cli.with_runtime import _tools_list
from echo_desk.i18n import N_, for_person
from echo_desk.runtime import Runtime
from echo_desk.tools import Tool


@pytest.fixture
def runtime() -> Iterator[Runtime]:
    made = Runtime.create()
    yield made
    made.close()




def _not_ready(runtime: Runtime, monkeypatch: pytest.MonkeyPatch, reason: str) -> Tool:
    entry = runtime.registry.get("echo_text")
    assert entry is not None
    tool = entry.tool
    monkeypatch.setattr(tool, "is_ready", lambda: False)
    monkeypatch.setattr(tool, "readiness_detail", lambda: reason)
    return tool


def test_an_mcp_tools_reason_is_printed_in_chinese_and_the_json_keeps_the_models_english(
        runtime, chinese, monkeypatch, capsys) -> None:
    # Before: "echo_text … 否 …（MCP server 'memory': awaiting_approval）" under a Chinese locale.
    _not_ready(runtime, monkeypatch, for_person(
        "MCP server 'memory': awaiting_approval",
        N_("the MCP server “{server}” is waiting for your approval to start"), server="memory"))
    _tools_list(runtime, as_json=False)
    line = next(row for row in capsys.readouterr().out.splitlines() if row.startswith("echo_text "))
    assert "MCP 服务器“memory”" in line, line
    assert not re.search(r"[a-z]{3,} [a-z]{3,}", line), line

    _tools_list(runtime, as_json=True)
    row = next(t for t in json.loads(capsys.readouterr().out)["tools"] if t["name"] == "echo_text")
    assert row["readiness"] == "MCP server 'memory': awaiting_approval"


def test_a_plugins_reason_is_printed_through_its_own_catalog(runtime, chinese, monkeypatch, capsys) -> None:
    # Before: "（API key not configured）": the CLI printed a plugin's message id as it was.
    tool = _not_ready(runtime, monkeypatch, "API key not configured")
    monkeypatch.setattr(tool, "translation_domain", "echo_desk_weather")
    locale = Path(__file__).parents[2] / "examples/weather-plugin/src/echo_desk_weather/locale"
    monkeypatch.setattr(i18n, "locale_dir_of", lambda _cls: locale)
    _tools_list(runtime, as_json=False)
    line = next(row for row in capsys.readouterr().out.splitlines() if row.startswith("echo_text "))
    assert "未设置 API 密钥" in line, line


def test_a_readiness_check_that_raises_shows_that_tool_as_not_ready_and_lists_the_rest(
        runtime, chinese, monkeypatch, capsys) -> None:
    # Before: the RuntimeError went up through ``_tools_list``: no list at all.
    entry = runtime.registry.get("echo_text")
    assert entry is not None

    def broken() -> bool:
        raise RuntimeError("disk quota probe exploded")

    monkeypatch.setattr(entry.tool, "is_ready", broken)
    assert _tools_list(runtime, as_json=False) == 0
    lines = capsys.readouterr().out.splitlines()
    line = next(row for row in lines if row.startswith("echo_text "))
    assert "未就绪：" in line and "就绪检查失败" in line, line
    assert "disk quota" not in line  # the developer's English is for --json and the log
    others = [row for row in lines[1:] if not row.startswith("echo_text ")]
    assert len(others) == len(runtime.registry.entries()) - 1

    assert _tools_list(runtime, as_json=True) == 0
    row = next(t for t in json.loads(capsys.readouterr().out)["tools"] if t["name"] == "echo_text")
    assert row["ready"] is False and row["visible"] is False
    assert row["readiness"] == "its readiness check failed (RuntimeError: disk quota probe exploded)"

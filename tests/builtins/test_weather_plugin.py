"""The example plugin (examples/weather-plugin), installed through its entry point, against a
loopback HTTP server standing in for the weather API."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from tool_test_helpers import LoopbackServer, Route

from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.registry import ToolRegistry
from echo_desk.agent.scope import Scope
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SettingsStore
from echo_desk.tools import ErrorKind, ToolExecutionContext, ToolResult, secrets

try:
    from echo_desk_weather import WeatherTool
except ImportError:  # not installed: still test the code; the entry-point test below then fails
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "weather-plugin" / "src"))
    from echo_desk_weather import WeatherTool


def _weather(path: str) -> Route:
    query = parse_qs(urlsplit(path).query)
    if query.get("appid") != ["k-123"]:
        return 401, {"Content-Type": "application/json"}, b'{"cod": 401, "message": "Invalid API key"}'
    city = query["q"][0]
    if city == "Atlantis":
        return 404, {"Content-Type": "application/json"}, b'{"cod": "404", "message": "city not found"}'
    if city == "Broken":
        return 200, {"Content-Type": "application/json"}, b"{not json"
    if city == "Down":
        return 503, {"Content-Type": "text/plain"}, b"maintenance"
    body = {"name": city.split(",")[0], "sys": {"country": "FR"}, "main": {"temp": 17.46, "humidity": 61},
            "weather": [{"description": "light rain"}], "wind": {"speed": 3.6}, "units": query["units"][0]}
    return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()


@pytest.fixture
def api() -> Iterator[LoopbackServer]:
    slow: Route = (200, {"Content-Type": "application/json"}, b"{}")
    with LoopbackServer({"/weather": _weather, "/slow/weather": slow}) as srv:  # type: ignore[dict-item]
        yield srv


@pytest.fixture
def api_key() -> None:
    secrets.secret_store().set("weather.api_key", "k-123")


async def _run(tool: WeatherTool, city: str) -> ToolResult:
    ctx = ToolExecutionContext(call_id="w", tool_name=tool.name, scope_id="s")
    try:
        return await tool.execute({"city": city}, ctx)
    except Exception as exc:  # what the dispatcher does with a raised ToolError
        kind = getattr(exc, "kind", ErrorKind.INTERNAL)
        return ToolResult.fail(kind, str(exc))


def test_the_entry_point_registers_the_tool() -> None:
    registry = ToolRegistry()
    results = registry.load_plugins()
    # Fails when the plugin is not installed: `pip install -e examples/weather-plugin` (make setup).
    assert any(r.ok and r.name == "get_weather" for r in results), [r.message for r in results]
    entry = registry.get("get_weather")
    assert entry is not None and entry.source == "plugin" and isinstance(entry.tool, WeatherTool)


def test_not_ready_without_an_api_key() -> None:
    tool = WeatherTool()
    assert not tool.is_ready() and tool.readiness_detail() == "API key not configured"
    secrets.secret_store().set("weather.api_key", "k")
    assert tool.is_ready() and tool.readiness_detail() == ""


async def test_current_weather(api: LoopbackServer, api_key: None) -> None:
    result = await _run(WeatherTool(base_url=api.url), "Paris,FR")
    assert result.success, result.error
    assert result.output == "Paris, FR: 17.5 °C, light rain, humidity 61 %, wind 3.6 m/s"
    assert "units=metric" in api.requests[0]


async def test_failures_have_the_documented_kinds(api: LoopbackServer, api_key: None) -> None:
    tool = WeatherTool(base_url=api.url)
    missing = await _run(tool, "Atlantis")
    assert (missing.error_kind, missing.error) == (ErrorKind.BUSINESS, "city not found: Atlantis")
    for city in ("Broken", "Down"):
        assert (await _run(tool, city)).error_kind is ErrorKind.DEPENDENCY
    secrets.secret_store().set("weather.api_key", "wrong")
    assert "refused the API key" in (await _run(tool, "Paris")).error
    closed = await _run(WeatherTool(base_url="http://127.0.0.1:9"), "Paris")
    assert closed.error_kind is ErrorKind.DEPENDENCY and "unreachable" in closed.error
    secrets.secret_store().delete("weather.api_key")
    assert (await _run(tool, "Paris")).error_kind is ErrorKind.DEPENDENCY


async def test_a_server_that_hangs_is_a_timeout(api: LoopbackServer, api_key: None) -> None:
    result = await _run(WeatherTool(base_url=f"{api.url}/slow", request_timeout=0.5), "Paris")
    assert result.error_kind is ErrorKind.TIMEOUT


async def test_through_the_runtime_like_the_app(api: LoopbackServer, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ECHO_DESK_WEATHER_URL", api.url)
    runtime = Runtime.create(settings_store=SettingsStore.in_dir(tmp_path / "cfg"), data_dir=tmp_path)
    try:
        host = ScriptedHost(choice=ApprovalChoice.DENY)
        scope = Scope(workspace_roots=(tmp_path,))
        call = ToolCall(id="c1", name="get_weather", arguments='{"city": "Lyon"}')
        not_ready = await runtime.dispatcher.execute_tool(call, scope, host)
        assert not_ready.error_kind is ErrorKind.DEPENDENCY and "API key not configured" in not_ready.error
        secrets.secret_store().set("weather.api_key", "k-123")
        env = await runtime.dispatcher.execute_tool(call, scope, host)
        assert env.ok and env.content.startswith("Lyon, FR: 17.5 °C")
        assert host.requests == []  # a read tool: no approval needed
    finally:
        runtime.close()


PLUGIN_SRC = Path(__file__).resolve().parents[2] / "examples" / "weather-plugin" / "src"


def test_the_plugin_ships_its_own_chinese_catalog() -> None:
    # The catalog shows the plugin's title and description from its own gettext domain, read
    # from the .po it ships in its package (no compile step), in the language of the moment.
    from echo_desk import i18n
    from echo_desk.ui.core.backend import CatalogBackend

    tool = WeatherTool()
    assert i18n.locale_dir_of(WeatherTool) == Path(sys.modules["echo_desk_weather"].__file__).parent / "locale"
    try:
        i18n.set_language("zh_CN")
        assert CatalogBackend.title(tool) == "天气"
        assert CatalogBackend.description(tool).startswith("查询某个城市的当前天气")
        assert i18n.translate_in(tool.translation_domain, tool.readiness_detail(), i18n.locale_dir_of(WeatherTool)) \
            == "未设置 API 密钥"  # not ready: no key saved in the test's keyring
        i18n.set_language("en")
        assert CatalogBackend.title(tool) == "Weather"
    finally:
        i18n.set_language("en")


def test_every_marked_string_of_the_plugin_is_in_its_catalog() -> None:
    from babel.messages.extract import extract_from_dir
    from babel.messages.pofile import read_po

    marked = {message for _file, _line, message, _comments, _context
              in extract_from_dir(str(PLUGIN_SRC), keywords={"N_": None}) if isinstance(message, str)}
    po = PLUGIN_SRC / "echo_desk_weather" / "locale" / "zh_CN" / "LC_MESSAGES" / "echo_desk_weather.po"
    with po.open("rb") as f:
        translated = {m.id for m in read_po(f) if m.id and m.string}
    assert marked and marked <= translated, marked - translated

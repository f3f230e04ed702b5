"""What a fetch rule matched is what fetch_url sends: each URL is checked by the real engine
under ``allow fetch "domain:localhost GET /v1/"``, then fetched from a loopback server that
records the request line it received. Dot segments, escapes, backslashes and case never let a
request leave /v1/ under that allow, and the request line is always the URL the rule saw."""

from __future__ import annotations

from pathlib import Path

import pytest
from tool_test_helpers import LoopbackServer, MakeCtx, run_tool

from echo_desk.agent.permissions import Effect, PermissionEngine
from echo_desk.builtins import FetchUrl
from echo_desk.store.grants import GrantStore

RULE = '[[rule]]\neffect = "allow"\ntool = "fetch"\npattern = "domain:localhost GET /v1/"\n'

#: Reach /admin on a server (or may, where it merges // or decodes %2F): never allowed.
LEAVING = ["/v1/../admin", "/v1/%2e%2e/admin", "/v1/%2E%2e/admin", "/v1/.%2e/admin", "/v1\\..\\admin",
           "/v1/..\\admin", "/v1/..%2Fadmin", "/v1/%2e%2e%2fadmin", "//v1/../admin", "/V1/../admin", "//admin"]
#: Stay inside /v1/ (some only once dot segments are resolved, which is how they are sent).
STAYING = ["/v1/page", "/v1//../admin", "/v1/./x/../y", "/v1/%7Euser/%61", "/v1/a%20b/é", "/v1/x?next=../../admin",
           "/v1/%zz", "/v1/;/../admin", "/v1/x#/../../admin", "/v1/%252e%252e/admin"]
TAILS = LEAVING + STAYING


@pytest.fixture
def engine(tmp_path: Path) -> PermissionEngine:
    config = tmp_path / "config"
    config.mkdir()
    (config / "permissions.toml").write_text(RULE)
    store = GrantStore(tmp_path / "grants.sqlite3")
    return PermissionEngine(config_dir=config, grants=store, home=tmp_path)


@pytest.fixture
def server() -> LoopbackServer:
    with LoopbackServer({"*": (200, {"Content-Type": "text/plain"}, b"ok")}) as srv:
        yield srv


@pytest.mark.parametrize("tail", TAILS)
async def test_the_request_line_is_the_url_the_rule_matched(engine: PermissionEngine, server: LoopbackServer,
                                                           make_ctx: MakeCtx, tail: str) -> None:
    port = server.server.server_address[1]
    url = f"http://localhost:{port}{tail}"
    verdict = engine.check_url(url)
    (part,) = verdict.parts
    ctx = make_ctx("fetch_url", approved_by_person=True)  # a local address: the person approved
    result = await run_tool(FetchUrl(), {"url": url}, ctx)
    assert result.success, result.error
    assert ctx.preview is not None and ctx.preview.targets[0].value == part.text  # the dialog shows it too
    (line, host) = server.received[-1]
    method, target, _version = line.split(" ")
    assert method == "GET" and host == f"localhost:{port}"
    assert f"http://{host}{target}" == part.text  # sent exactly as matched
    path = target.split("?")[0]
    assert "/../" not in path and "/./" not in path and "\\" not in path  # no segment a server reads twice
    assert (verdict.effect is Effect.ALLOW) is (tail in STAYING), tail
    if verdict.effect is Effect.ALLOW:
        assert path.startswith("/v1/") and "%2F" not in path.upper()


async def test_a_url_with_two_readings_is_not_fetched(make_ctx: MakeCtx, server: LoopbackServer) -> None:
    port = server.server.server_address[1]
    ctx = make_ctx("fetch_url", approved_by_person=True)
    for url in (f"http://evil.example\\@localhost:{port}/v1/", f"http://localhost:{port}\\v1/x",
                f"http:/localhost:{port}/v1/"):
        result = await run_tool(FetchUrl(), {"url": url}, ctx)
        assert not result.success and result.error_kind is not None and result.error_kind.value == "validation"
    assert server.received == []

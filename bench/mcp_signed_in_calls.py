"""Signing in, and what a signed-in connection costs per call.

A guarded streamable-HTTP MCP server and the MCP SDK's own authorization server, both on
loopback (the sign-in tests' servers); the browser step is an HTTP client. Prints:
- the median time of a whole sign-in (discovery, dynamic registration, the browser, the token),
- the median round trip of a tool call through ``MCPTool.execute`` with the sign-in's bearer
  (token read from the secret store, renewed when due) and, as the baseline measured in the same
  run, with the same valid token written as a static ``Authorization`` header, calls interleaved;
  and their ratio.

Run: PYTHONPATH=. python bench/mcp_signed_in_calls.py [calls] [sign-ins]
"""

from __future__ import annotations

import asyncio
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Run as a script, this file's folder comes first on sys.path: keep it from shadowing packages.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))
HOME = Path(tempfile.mkdtemp(prefix="echo-desk-bench-oauth-"))
for var, sub in (("ECHO_DESK_CONFIG_DIR", "config"), ("ECHO_DESK_DATA_DIR", "data"), ("ECHO_DESK_CACHE_DIR", "cache")):
    os.environ[var] = str(HOME / sub)

from echo_desk.agent.registry import ToolRegistry  # noqa: E402
from echo_desk.mcp import McpManager  # noqa: E402
from echo_desk.mcp.config import parse_server  # noqa: E402
from echo_desk.mcp.oauth import ClientSettings, SignIns, loopback_http_allowed, sign_in  # noqa: E402
from echo_desk.store.settings import SettingsStore  # noqa: E402
from echo_desk.tools import NullToolHost, ToolExecutionContext, secrets  # noqa: E402
from tests.mcp.oauth.browser import Browser  # noqa: E402
from tests.mcp.oauth.resource_server import Guard, make_resource_app  # noqa: E402
from tests.mcp.oauth.sdk_server import SdkProvider, sdk_auth_app  # noqa: E402
from tests.mcp.oauth.serving import Served  # noqa: E402


async def _sign_in_once(url: str, name: str) -> float:
    browser = Browser()
    started = time.perf_counter()
    await sign_in(name, url, ClientSettings(), browser.open)
    took = time.perf_counter() - started
    browser.join()
    return took


async def _call(tool: object) -> float:
    ctx = ToolExecutionContext(call_id="c", tool_name=tool.name, scope_id="bench", host=NullToolHost())  # type: ignore[attr-defined]
    started = time.perf_counter()
    result = await tool.execute({}, ctx)  # type: ignore[attr-defined]
    took = time.perf_counter() - started
    assert result.success, result.error
    return took


async def run(calls: int, sign_ins: int) -> None:
    provider = SdkProvider()
    guard = Guard()
    with loopback_http_allowed(), Served(lambda u: sdk_auth_app(provider, u)) as auth, \
            Served(make_resource_app(guard)) as mcp:

        async def verify(token: str) -> tuple[list[str], str] | None:
            found = await provider.load_access_token(token)
            return (found.scopes, found.resource or "") if found is not None else None

        guard.issuer, guard.verify = auth.url, verify
        url = f"{mcp.url}/mcp"
        sign_in_times = [await _sign_in_once(url, f"s{i}") for i in range(sign_ins)]
        await _sign_in_once(url, "signed")
        kept = SignIns().current("signed")
        assert kept is not None and kept.tokens is not None
        servers = {"signed": parse_server("signed", {"type": "http", "url": url}),
                   "static": parse_server("static", {"type": "http", "url": url, "headers": {
                       "Authorization": f"Bearer {kept.tokens.access_token}"}})}
        registry = ToolRegistry()
        manager = McpManager(SettingsStore.in_memory(), registry=registry, servers=servers,
                             loop=asyncio.get_running_loop())
        for name in servers:
            request = manager.start_request(name)
            assert request is not None and manager.approve_start(name, request.fingerprint)
        try:
            await manager.start_all()
            signed, static = registry.get("signed__whoami").tool, registry.get("static__whoami").tool
            for _ in range(10):  # warm both connections
                await _call(signed)
                await _call(static)
            with_bearer: list[float] = []
            with_header: list[float] = []
            for _ in range(calls):
                with_bearer.append(await _call(signed))
                with_header.append(await _call(static))
        finally:
            await manager.aclose()
    ms = 1000
    print(f"whole sign-in (SDK auth server, dynamic registration, HTTP-client browser), median of {sign_ins}: "
          f"{statistics.median(sign_in_times) * ms:.1f} ms")
    bearer, header = statistics.median(with_bearer), statistics.median(with_header)
    print(f"tool call round trip, median of {calls}: signed in (bearer) {bearer * ms:.2f} ms, "
          f"static Authorization header (baseline) {header * ms:.2f} ms, ratio {bearer / header:.2f}x")


def main() -> None:
    logging.disable(logging.INFO)  # the loopback servers log every request
    secrets.install_secret_store(secrets.MemorySecretStore())
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    sign_ins = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    asyncio.run(run(calls, sign_ins))


if __name__ == "__main__":
    main()

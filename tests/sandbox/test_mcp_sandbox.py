"""A stdio MCP server started in the sandbox: its own folder writable, everything else read-only,
secrets hidden; imported servers default to it; no bwrap means it is not started at all."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_helpers import Jail, LoopbackSite, loopback_site, requires_bwrap

from echo_desk import sandbox
from echo_desk.mcp import contained as contained_module
from echo_desk.mcp.config import ServerConfig, parse_server
from echo_desk.mcp.connection import ServerConnection
from echo_desk.mcp.importers import apply_import, preview_import

PROBE = Path(__file__).with_name("probe_server.py")
#: The interpreter itself, not a venv's link to it (a venv under /tmp would be hidden).
REAL_PYTHON = os.path.realpath(sys.executable)


async def _nothing(*_args: object) -> None:
    return None


def _connection(cfg: ServerConfig) -> ServerConnection:
    return ServerConnection(cfg, elicitation=_nothing, on_tools_changed=_nothing,  # type: ignore[arg-type]
                            on_lost=lambda _reason: None)


@requires_bwrap
async def test_a_sandboxed_server_is_contained(jail: Jail) -> None:
    own = jail.base / "server-folder"
    own.mkdir()
    cfg = ServerConfig(name="probe", command=sys.executable, args=("-I", str(PROBE)), cwd=str(own),
                       env={"PROBE_TOKEN": "server-own-value"}, sandbox=True)
    ssh_key = jail.home / ".ssh/id_ed25519"
    before = jail.snapshot()
    conn = _connection(cfg)
    await conn.start()
    try:
        result = await conn.call_tool("probe", {
            "read": [str(ssh_key), str(jail.own_dirs[0] / "secret.json"), str(jail.outside / "canary.txt")],
            "write": [str(own / "state.json"), str(jail.outside / "canary.txt"), str(jail.workspace / "x")]})
    finally:
        await conn.close()
    report = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert report["read"][str(ssh_key)].startswith("refused")
    assert report["read"][str(jail.own_dirs[0] / "secret.json")].startswith("refused")
    assert report["read"][str(jail.outside / "canary.txt")].startswith("read:canary-")  # read-only, not hidden
    assert report["write"][str(own / "state.json")] == "wrote"
    assert (own / "state.json").read_text() == "written-by-server"
    assert report["write"][str(jail.outside / "canary.txt")] == "refused:Read-only file system"
    assert report["write"][str(jail.workspace / "x")] == "refused:Read-only file system"
    assert report["env"]["PROBE_TOKEN"] == "server-own-value" and report["cwd"] == str(own)
    assert "OPENAI_API_KEY" not in report["env"]
    # Echo Desk itself wrote the seccomp program into its cache; nothing else changed.
    own_cache = str(jail.own_dirs[2] / "sandbox")
    after = {k: v for k, v in jail.snapshot().items() if not k.startswith(own_cache)}
    assert after == before
    # The outside canary is readable (read-only, not hidden); no secret is.
    assert jail.leaked(result.content[0].text) == [str(jail.outside / "canary.txt")]  # type: ignore[union-attr]


async def test_without_bwrap_a_sandboxed_server_is_not_started(jail: Jail, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(jail.base / "no-bwrap-here"))
    sandbox.forget()
    marker = jail.base / "started"
    cfg = ServerConfig(name="probe", command=sys.executable, args=("-c", f"open('{marker}', 'w')"), sandbox=True)
    with pytest.raises(Exception, match="unavailable") as raised:
        await _connection(cfg).start()
    assert "Turn this server's sandbox off" in str(raised.value) or "sandbox" in str(raised.value)
    assert not marker.exists()


def test_the_sandbox_flag_round_trips_and_is_part_of_what_the_person_approved() -> None:
    cfg = parse_server("s", {"command": "npx", "args": ["x"], "sandbox": True})
    assert cfg.sandbox and cfg.to_json()["sandbox"] is True
    plain = parse_server("s", {"command": "npx", "args": ["x"]})
    assert not plain.sandbox and "sandbox" not in plain.to_json()
    assert cfg.fingerprint() != plain.fingerprint()
    with pytest.raises(Exception, match="sandbox must be true or false"):
        parse_server("s", {"command": "npx", "sandbox": "yes"})


def test_servers_imported_from_other_apps_start_in_the_sandbox(tmp_path: Path) -> None:
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(json.dumps({"mcpServers": {"files": {"command": "npx", "args": ["-y", "srv"]},
                                                 "web": {"url": "https://example.com/mcp"}}}))
    preview = preview_import(source, use_keyring=False, current={})
    apply_import(preview)
    from echo_desk.mcp.config import load_config

    loaded = load_config()
    assert loaded["files"].sandbox is True
    assert loaded["web"].sandbox is False  # an HTTP server runs elsewhere: nothing to contain


@pytest.fixture
def site(monkeypatch: pytest.MonkeyPatch) -> Iterator[LoopbackSite]:
    with loopback_site("api.example.test", b"hello-mcp-through-the-proxy") as served:
        monkeypatch.setattr(contained_module, "make_proxy", served.make_proxy)
        yield served


@requires_bwrap
async def test_a_sandboxed_server_reaches_its_allowed_domains_only(jail: Jail, site: LoopbackSite) -> None:
    own = jail.base / "net-server"
    own.mkdir()
    cfg = ServerConfig(name="probe", command=REAL_PYTHON, args=("-I", str(PROBE)),
                       cwd=str(own), sandbox=True, allowed_domains=("*.example.test",))
    conn = _connection(cfg)
    await conn.start()
    try:
        allowed = f"http://api.example.test:{site.port}/ok"
        others = [f"http://evil.test:{site.port}/no", f"http://127.0.0.1:{site.port}/direct"]
        result = await conn.call_tool("probe", {"fetch": [allowed, *others]})
    finally:
        await conn.close()
    report = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert report["fetch"][allowed] == "fetched:hello-mcp-through-the-proxy"
    assert report["fetch"][others[0]] == "refused:403"
    assert not report["fetch"][others[1]].startswith("fetched")  # a bare IP: never through the proxy
    assert site.hits == [f"api.example.test:{site.port}"]  # nothing else reached the site
    assert report["env"]["HTTP_PROXY"].startswith("http://127.0.0.1:")
    assert len(site.proxies) == 1 and site.proxies[0]._relay is None  # closed with the server


@requires_bwrap
async def test_a_sandboxed_server_without_domains_has_no_network(jail: Jail, site: LoopbackSite) -> None:
    own = jail.base / "no-net-server"
    own.mkdir()
    cfg = ServerConfig(name="probe", command=REAL_PYTHON, args=("-I", str(PROBE)),
                       cwd=str(own), sandbox=True)
    conn = _connection(cfg)
    await conn.start()
    try:
        url = f"http://api.example.test:{site.port}/ok"
        result = await conn.call_tool("probe", {"fetch": [url, f"http://127.0.0.1:{site.port}/x"]})
    finally:
        await conn.close()
    report = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert all(v.startswith("failed:") for v in report["fetch"].values()), report["fetch"]
    assert "HTTP_PROXY" not in report["env"] and site.hits == []


def test_allowed_domains_are_checked_in_mcp_json_and_need_a_new_approval() -> None:
    from echo_desk.mcp.config import ConfigError

    cfg = parse_server("s", {"command": "srv", "sandbox": True, "allowed_domains": ["pypi.org"]})
    assert cfg.allowed_domains == ("pypi.org",) and cfg.to_json()["allowed_domains"] == ["pypi.org"]
    assert cfg.fingerprint() != parse_server("s", {"command": "srv", "sandbox": True}).fingerprint()
    for bad in (["10.0.0.1"], ["localhost"], "pypi.org", [1]):
        with pytest.raises(ConfigError, match="allowed_domains"):
            parse_server("s", {"command": "srv", "sandbox": True, "allowed_domains": bad})

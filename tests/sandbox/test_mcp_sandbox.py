"""A stdio MCP server started in the sandbox: its own folder writable, everything else read-only,
secrets hidden; imported servers default to it; no bwrap means it is not started at all."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_helpers import Jail, LoopbackSite, loopback_site, requires_bwrap

from echo_desk import sandbox
from echo_desk.agent.dispatcher import new_call_id
from echo_desk.agent.envelope import Envelope
from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.i18n import current_language, set_language, shown
from echo_desk.mcp import ServerState
from echo_desk.mcp import contained as contained_module
from echo_desk.mcp.config import ServerConfig, config_path, parse_config, parse_server
from echo_desk.mcp.connection import ServerConnection
from echo_desk.mcp.explain import explained
from echo_desk.mcp.importers import apply_import, preview_import
from echo_desk.mcp.results import convert_result, with_planted
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SandboxSettings, SettingsStore
from echo_desk.tools.planted import Change, planted_of
from echo_desk.ui.chat.card_parse import sandbox_of
from echo_desk.ui.chat.sandbox_card import sandbox_lines

PROBE = Path(__file__).with_name("probe_server.py")
#: The interpreter itself, not a venv's link to it (a venv under /tmp would be hidden).
REAL_PYTHON = os.path.realpath(sys.executable)


def _text_of(path: str) -> str:
    return Path(path).read_text()


async def _nothing(*_args: object) -> None:
    return None


def _connection(cfg: ServerConfig, settings: SandboxSettings | None = None) -> ServerConnection:
    return ServerConnection(cfg, elicitation=_nothing, on_tools_changed=_nothing,  # type: ignore[arg-type]
                            on_lost=lambda _reason: None,
                            sandbox_settings=(lambda: settings) if settings is not None else None)


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


@requires_bwrap
async def test_the_paths_the_person_hid_are_hidden_from_a_sandboxed_server_too(jail: Jail) -> None:
    """Settings › Sandbox's hidden paths are for anything sandboxed, not only commands; and the
    person's additions to the protected list are read-only to a server as to a command."""
    own = jail.base / "server-folder"
    (own / "scripts").mkdir(parents=True)
    (own / "scripts" / "deploy.sh").write_text("echo deploy\n")
    private = jail.outside / "private"
    private.mkdir()
    (private / "tax.txt").write_text("tax-secret")
    settings = SandboxSettings(hidden_paths=[str(private)], protected_paths=["scripts/deploy.sh"])
    cfg = ServerConfig(name="probe", command=REAL_PYTHON, args=("-I", str(PROBE)), cwd=str(own), sandbox=True)
    conn = _connection(cfg, settings)
    await conn.start()
    try:
        result = await conn.call_tool("probe", {"read": [str(private / "tax.txt"), str(jail.outside / "canary.txt")],
                                                "write": [str(own / "scripts" / "deploy.sh")]})
    finally:
        await conn.close()
    report = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert report["read"][str(private / "tax.txt")].startswith("refused")
    assert report["read"][str(jail.outside / "canary.txt")].startswith("read:canary-")
    assert report["write"][str(own / "scripts" / "deploy.sh")].startswith("refused")
    assert (own / "scripts" / "deploy.sh").read_text() == "echo deploy\n"


@requires_bwrap
async def test_what_a_sandboxed_server_plants_in_the_persons_folder_is_put_aside_after_each_call(jail: Jail) -> None:
    """A server working in the person's project (its ``cwd``) runs on between calls: what it left
    that would run code later (an ``.envrc``, a git hook) is put aside after the call, said on
    the call's card and to the model. The person's own (``tasks.json``) is read-only to it."""
    workspace = jail.workspace
    (workspace / ".vscode").mkdir()
    (workspace / ".vscode" / "tasks.json").write_text('{"tasks": []}')
    cfg = ServerConfig(name="probe", command=REAL_PYTHON, args=("-I", str(PROBE)), cwd=str(workspace), sandbox=True)
    conn = _connection(cfg)
    await conn.start()
    try:
        raw = await conn.call_tool("probe", {"write": [str(workspace / ".envrc"), str(workspace / "notes.txt"),
                                                       str(workspace / ".vscode" / "tasks.json")]})
        planted = await conn.planted()
        again = await conn.planted()  # nothing new since
    finally:
        await conn.close()
    assert [(p.path, p.change) for p in planted] == [(".envrc", Change.CREATED)]
    assert again == ()
    report = json.loads(raw.content[0].text)  # type: ignore[union-attr]
    assert report["write"][str(workspace / ".vscode" / "tasks.json")] == "refused:Read-only file system"
    assert not (workspace / ".envrc").exists()
    assert (workspace / ".vscode" / "tasks.json").read_text() == '{"tasks": []}'
    assert (workspace / "notes.txt").read_text() == "written-by-server"  # its work stands
    kept = next(p.kept for p in planted if p.path == ".envrc")
    assert kept.startswith(f"{jail.own_dirs[1]}/put-aside/") and _text_of(kept) == "written-by-server"

    told = with_planted(convert_result(raw, server="probe", tool="probe"), planted)
    assert "[sandbox] blocked: the server left files in its folder" in told.output and ".envrc (created" in told.output
    facts = sandbox_of(told.metadata)
    assert facts is not None and [p.path for p in facts.planted] == [".envrc"]


@requires_bwrap
async def test_what_a_sandboxed_server_plants_is_put_aside_when_it_stops(jail: Jail) -> None:
    """Between its last call and its stop nothing checks it: the stop does."""
    workspace = jail.workspace
    cfg = ServerConfig(name="probe", command=REAL_PYTHON, args=("-I", str(PROBE)), cwd=str(workspace), sandbox=True)
    conn = _connection(cfg)
    await conn.start()
    try:
        await conn.call_tool("probe", {"write": [str(workspace / ".envrc")]})
        assert (workspace / ".envrc").exists()  # (the call's own check is the router's, not made here)
    finally:
        await conn.close()
    assert not (workspace / ".envrc").exists()


@requires_bwrap
async def test_a_server_in_its_own_folder_is_not_checked(jail: Jail) -> None:
    """Its own folder under Echo Desk's data is no one's project: a server may keep a repository there."""
    cfg = ServerConfig(name="probe", command=REAL_PYTHON, args=("-I", str(PROBE)), sandbox=True)
    folder = contained_module.server_folder("probe", sandboxed=True)
    conn = _connection(cfg)
    await conn.start()
    try:
        await conn.call_tool("probe", {"write": [str(folder / ".envrc")]})
        assert await conn.planted() == ()
    finally:
        await conn.close()
    assert (folder / ".envrc").read_text() == "written-by-server"


async def _engine_with_probe(jail: Jail, store: SettingsStore, *, own_thread: bool = False,
                             env: dict[str, str] | None = None, client: str = "",
                             data_dir: Path | None = None) -> Runtime:
    """The real wiring: mcp.json naming the sandboxed probe server (working in the workspace),
    approved, and the engine attached to it (``own_thread``: the manager on a thread of its own,
    as in the app; ``env``: the server's own variables; ``client``: the connected app a gateway's
    own engine serves; ``data_dir``: the engine's data folder, else one of its own)."""
    document = {"mcpServers": {"probe": {"command": REAL_PYTHON, "args": ["-I", str(PROBE)],
                                         "cwd": str(jail.workspace), "sandbox": True, **({"env": env} if env else {})}}}
    config_path().write_text(json.dumps(document), encoding="utf-8")
    for name, cfg in parse_config(document).items():
        store.update(lambda s, n=name, c=cfg: s.mcp_approved.update({n: c.fingerprint()}))
    runtime = Runtime.create(settings_store=store, data_dir=data_dir or jail.base / "engine-data", with_builtins=False,
                             with_plugins=False, client=client)
    await runtime.attach_mcp(ScriptedHost(), own_thread=own_thread)
    return runtime


async def _probe(runtime: Runtime, **arguments: list[str] | str) -> Envelope:
    return await runtime.dispatcher.execute_tool(
        ToolCall(id=new_call_id(), name="probe__probe", arguments=json.dumps(arguments)),
        Scope(label="chat"), ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE))


@requires_bwrap
async def test_through_the_engine_a_sandboxed_servers_plants_are_on_its_result(jail: Jail) -> None:
    """The call's result says what was put aside, and the hidden path the person set is hidden
    from the server."""
    private = jail.outside / "private.txt"
    private.write_text("private-value")
    store = SettingsStore.in_memory()
    store.update(lambda s: s.sandbox.hidden_paths.append(str(private)))
    runtime = await _engine_with_probe(jail, store)
    try:
        envelope = await _probe(runtime, read=[str(private)], write=[str(jail.workspace / ".envrc")])
    finally:
        await runtime.aclose()
    assert envelope.ok, envelope.error
    assert "private-value" not in envelope.content
    assert "[sandbox] blocked: the server left files in its folder" in envelope.content
    assert not (jail.workspace / ".envrc").exists()
    facts = sandbox_of(envelope.metadata)
    assert facts is not None and [(p.path, p.change) for p in facts.planted] == [(".envrc", Change.CREATED)]
    lines = [text for text, _colour in sandbox_lines(facts)]
    assert lines[0] == "The server runs in the sandbox · no network"
    assert lines[1].startswith("Blocked: the sandboxed server left in its folder what would run code later, "
                               "outside the sandbox: .envrc (new: put aside)")


@requires_bwrap
async def test_what_a_sandboxed_server_planted_is_in_its_calls_audit_row_with_its_full_path(jail: Jail) -> None:
    runtime = await _engine_with_probe(jail, SettingsStore.in_memory())
    try:
        envelope = await _probe(runtime, write=[str(jail.workspace / ".envrc")])
        [row] = runtime.audit.query(tool="probe__probe")
    finally:
        await runtime.aclose()
    assert envelope.ok, envelope.error
    [envrc] = planted_of(row["planted"])
    assert (envrc.path, envrc.change) == (str(jail.workspace / ".envrc"), Change.CREATED)
    assert envrc.kept.startswith(f"{jail.own_dirs[1]}/put-aside/") and row["source"] == "mcp:probe"


@requires_bwrap
async def test_a_path_hidden_while_a_sandboxed_server_runs_is_hidden_from_it_at_once(jail: Jail) -> None:
    """The server is started again with the new hidden paths (its old start could still read them)."""
    private = jail.outside / "private.txt"
    private.write_text("private-value")
    store = SettingsStore.in_memory()
    runtime = await _engine_with_probe(jail, store)
    try:
        before = await _probe(runtime, read=[str(private)])
        assert "private-value" in before.content  # not hidden yet: read-only, like the rest of the disk
        manager = runtime.mcp
        assert manager is not None
        first = manager.status("probe")
        store.update(lambda s: s.sandbox.hidden_paths.append(str(private)))
        deadline = time.monotonic() + 30
        while True:  # a call made during the restart may find the server stopped: asked again
            seen = await _probe(runtime, read=[str(private)])
            if seen.ok and json.loads(seen.content)["read"][str(private)].startswith("refused"):
                break
            assert time.monotonic() < deadline, f"the server still reads the hidden path: {seen.content[:200]}"
            await asyncio.sleep(0.05)
        assert manager.status("probe").state is first.state  # running again
    finally:
        await runtime.aclose()



@requires_bwrap
async def test_once_a_hidden_path_is_saved_no_call_of_a_running_server_reads_it(jail: Jail) -> None:
    """The restart for the new hidden paths was scheduled on the manager's loop: a call made just
    after the setting was saved (the page says so) could still reach the server started before it,
    which read the path. The server started with the old paths is stopped before the change returns."""
    private = jail.outside / "private.txt"
    private.write_text("private-value")
    store = SettingsStore.in_memory()
    runtime = await _engine_with_probe(jail, store)
    try:
        assert "private-value" in (await _probe(runtime, read=[str(private)])).content
        store.update(lambda s: s.sandbox.hidden_paths.append(str(private)))
        after = await _probe(runtime, read=[str(private)])
    finally:
        await runtime.aclose()
    assert "private-value" not in after.content + after.error

@requires_bwrap
async def test_a_call_in_flight_when_a_path_is_hidden_does_not_read_it_afterwards(jail: Jail) -> None:
    """A call the server is still working on when the person saves a hidden path: the server
    started before it went on and read the path once the setting was saved (it kept the mounts it
    started with until its restart), and kept it in its folder (tested: the file held the value,
    though the call's result was dropped with the restart). It is ended before the change
    returns: it reads nothing more."""
    private = jail.outside / "private.txt"
    private.write_text("private-value")
    mark, flag, kept = jail.workspace / "in-flight", jail.base / "go-on", jail.workspace / "kept.json"
    store = SettingsStore.in_memory()
    runtime = await _engine_with_probe(jail, store)
    try:
        call = asyncio.ensure_future(_probe(runtime, read=[str(private)], wait_for=[str(mark), str(flag)],
                                            keep=str(kept)))
        deadline = time.monotonic() + 30
        while not _exists(mark):
            assert time.monotonic() < deadline and not call.done(), "the call never reached the server"
            await asyncio.sleep(0.02)
        store.update(lambda s: s.sandbox.hidden_paths.append(str(private)))
        flag.touch()  # (the server, were it still running, reads the path now)
        during = await call
    finally:
        flag.touch()
        await runtime.aclose()
    assert "private-value" not in during.content + during.error
    assert not _exists(kept) or "private-value" not in kept.read_text()


@requires_bwrap
async def test_a_server_whose_call_saw_it_end_for_new_hidden_paths_is_started_again_without_another_call(
        jail: Jail) -> None:
    """The call in flight noticed the server's end before the restart ran: the manager let go of
    the connection, the restart found nothing to restart, and the server stayed down ("the
    connection to the server was lost") until the next call. The manager on its own thread, as in
    the app: there the call's end was seen first every time."""
    private = jail.outside / "private.txt"
    private.write_text("private-value")
    mark, flag = jail.workspace / "in-flight", jail.base / "go-on"
    store = SettingsStore.in_memory()
    runtime = await _engine_with_probe(jail, store, own_thread=True)
    try:
        manager = runtime.mcp
        assert manager is not None
        call = asyncio.ensure_future(_probe(runtime, read=[str(private)], wait_for=[str(mark), str(flag)]))
        deadline = time.monotonic() + 30
        while not _exists(mark):
            assert time.monotonic() < deadline and not call.done(), "the call never reached the server"
            await asyncio.sleep(0.02)
        store.update(lambda s: s.sandbox.hidden_paths.append(str(private)))
        during = await call
        assert not during.ok and "restarted" in during.error, during.error
        while (status := manager.status("probe")).state is not ServerState.CONNECTED:
            assert time.monotonic() < deadline, f"still down: {status.state} {shown(status.detail)}"
            await asyncio.sleep(0.05)
        after = await _probe(runtime, read=[str(private)])
    finally:
        flag.touch()
        await runtime.aclose()
    assert after.ok and json.loads(after.content)["read"][str(private)].startswith("refused"), after.content


def _exists(path: Path) -> bool:
    return path.exists()

@requires_bwrap
@pytest.mark.parametrize("inside", ["data:connected-apps", "data:mcp-servers/other", "cache:sandbox"])
async def test_a_server_cwd_inside_echo_desks_own_folders_is_not_started(jail: Jail, inside: str) -> None:
    """A sandboxed server's ``cwd`` is bound writable even inside a hidden folder: one set to a
    folder of Echo Desk's own (the Connected apps records and backups, another server's folder,
    the sandbox's seccomp program) could change Echo Desk's own trust. Such a server is not
    started; nothing there changes."""
    which, rest = inside.split(":")
    folder = (jail.own_dirs[1] if which == "data" else jail.own_dirs[2]) / rest
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "records.json").write_text("{}")
    cfg = ServerConfig(name="probe", command=REAL_PYTHON, args=("-I", str(PROBE)), cwd=str(folder), sandbox=True)
    with pytest.raises(contained_module.SandboxUnavailableError, match="Echo Desk's own"):
        contained_module.contained(cfg, {})
    conn = _connection(cfg)
    try:
        await conn.start()
    except Exception:  # refused: the connection says why (the server never ran)
        pass
    else:
        try:
            await conn.call_tool("probe", {"read": [], "write": [str(folder / "records.json")]})
        finally:
            await conn.close()
    assert (folder / "records.json").read_text() == "{}"


async def _refusal_said(cfg: ServerConfig, language: str) -> str:
    """What the server's row says, in ``language``, when the sandbox refuses to start ``cfg``."""
    before = current_language()
    set_language(language)
    try:
        with pytest.raises(contained_module.SandboxUnavailableError) as raised:
            await _connection(cfg).start()
        return shown(explained(raised.value))
    finally:
        set_language(before)


@requires_bwrap
@pytest.mark.parametrize("language", ["en", "zh_CN"])
async def test_a_server_whose_folder_a_variable_hides_is_not_started_and_its_row_says_why(
        jail: Jail, monkeypatch: pytest.MonkeyPatch, language: str) -> None:
    """``GNUPGHOME`` names the folder a sandboxed server works in: the sandbox refuses to start
    it there (``sandbox.HiddenWorkspace``). That reached the server's row as a ``ValueError``
    quoted in English as technical detail; it is said in the person's language, naming the
    variable and that the server was not started."""
    monkeypatch.setenv("GNUPGHOME", str(jail.workspace))
    cfg = ServerConfig(name="probe", command=REAL_PYTHON, args=("-I", str(PROBE)), cwd=str(jail.workspace),
                       sandbox=True)
    there = sorted(jail.workspace.rglob("*"))
    said = await _refusal_said(cfg, language)
    assert "GNUPGHOME" in said and str(jail.workspace) in said, said
    assert ("was not started" if language == "en" else "未启动") in said, said
    assert "technical detail" not in said and sorted(jail.workspace.rglob("*")) == there


@requires_bwrap
@pytest.mark.parametrize("language", ["en", "zh_CN"])
async def test_a_server_whose_folder_a_hidden_places_link_leads_to_is_not_started_and_its_row_names_the_link(
        jail: Jail, language: str) -> None:
    """``~/.ssh/keys -> `` the server's folder: refused as for a variable, and the row names the
    link (path → target) that causes it, which is what the person has to remove."""
    link = jail.home / ".ssh" / "keys"
    link.symlink_to(jail.workspace)
    cfg = ServerConfig(name="probe", command=REAL_PYTHON, args=("-I", str(PROBE)), cwd=str(jail.workspace),
                       sandbox=True)
    said = await _refusal_said(cfg, language)
    assert f"{link} → {jail.workspace}" in said, said
    assert ("was not started" if language == "en" else "未启动") in said, said


@requires_bwrap
@pytest.mark.parametrize("language", ["en", "zh_CN"])
async def test_a_server_whose_folder_a_protected_places_link_leads_to_is_not_started_and_its_row_names_the_link(
        jail: Jail, language: str) -> None:
    """``~/.vim/plugin/project ->`` the server's folder: Vim would run any ``.vim`` file the server
    writes there, which only a read-only folder would prevent (``sandbox.ProtectedLinkToWorkspace``).
    Not started, and the row names the link."""
    link = jail.home / ".vim" / "plugin" / "project"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(jail.workspace)
    cfg = ServerConfig(name="probe", command=REAL_PYTHON, args=("-I", str(PROBE)), cwd=str(jail.workspace),
                       sandbox=True)
    said = await _refusal_said(cfg, language)
    assert f"{link} → {jail.workspace}" in said, said
    assert ("was not started" if language == "en" else "未启动") in said, said


@requires_bwrap
@pytest.mark.parametrize("how", ["a secret place of its home", "a variable's ~/ value", "a link in its secret place"])
async def test_a_servers_own_home_folder_has_its_secret_places_hidden(jail: Jail, how: str) -> None:
    """A server configured with a ``HOME`` of its own (``"env": {"HOME": "/srv/agent"}``) reads
    its keys and credentials there, and a ``~/`` in its variables (``GNUPGHOME=~/keys``) from
    there: the sandbox hid only Echo Desk's home folder's, and the server read the key."""
    own = jail.base / "server-folder"
    own.mkdir()
    agent_home = jail.base / "agent-home"
    env = {"HOME": str(agent_home)}
    if how == "a variable's ~/ value":
        key = agent_home / "keys" / "private-keys-v1.d" / "key.key"
        env["GNUPGHOME"] = "~/keys"
    elif how == "a link in its secret place":
        key = jail.base / "srv" / "agent-keys" / "id_ed25519"
        (agent_home / ".ssh").mkdir(parents=True)
        (agent_home / ".ssh" / "id_ed25519").symlink_to(key)
    else:
        key = agent_home / ".ssh" / "id_ed25519"
    key.parent.mkdir(parents=True)
    key.write_text("agent-key-canary")
    cfg = ServerConfig(name="probe", command=REAL_PYTHON, args=("-I", str(PROBE)), cwd=str(own), env=env,
                       sandbox=True)
    conn = _connection(cfg)
    await conn.start()
    try:
        result = await conn.call_tool("probe", {"read": [str(key), str(jail.outside / "canary.txt")]})
    finally:
        await conn.close()
    report = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert report["env"]["HOME"] == str(agent_home)
    assert report["read"][str(key)].startswith("refused"), report["read"]
    assert report["read"][str(jail.outside / "canary.txt")].startswith("read:canary-")


@requires_bwrap
async def test_a_hidden_path_of_the_persons_home_is_hidden_in_a_servers_own_home_too(jail: Jail) -> None:
    """Settings › Sandbox's ``~/private``: the person's own, and the one of the server's ``HOME``
    (a tool there reads ``~`` so)."""
    own = jail.base / "server-folder"
    own.mkdir()
    agent_home = jail.base / "agent-home"
    mine, theirs = jail.home / "private" / "tax.txt", agent_home / "private" / "tax.txt"
    for path in (mine, theirs):
        path.parent.mkdir(parents=True)
        path.write_text("tax-secret")
    cfg = ServerConfig(name="probe", command=REAL_PYTHON, args=("-I", str(PROBE)), cwd=str(own),
                       env={"HOME": str(agent_home)}, sandbox=True)
    conn = _connection(cfg, SandboxSettings(hidden_paths=["~/private"]))
    await conn.start()
    try:
        result = await conn.call_tool("probe", {"read": [str(mine), str(theirs)]})
    finally:
        await conn.close()
    report = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert report["read"][str(mine)].startswith("refused") and report["read"][str(theirs)].startswith("refused")


@requires_bwrap
@pytest.mark.parametrize(("language", "expected"), [
    ("en", "no system-call filter for this processor (riscv64)"),
    ("zh_CN", "没有适用于这种处理器（riscv64）的系统调用过滤器"),
])
async def test_on_a_processor_the_filter_does_not_know_a_server_is_not_started_and_its_row_says_why(
        jail: Jail, monkeypatch: pytest.MonkeyPatch, language: str, expected: str) -> None:
    """No seccomp program for this machine: refused as the sandbox being unavailable, in the
    person's language (before, the probe said it worked and the start failed on
    ``UnsupportedArchitecture``, an internal error)."""
    import platform

    monkeypatch.setattr(platform, "machine", lambda: "riscv64")
    sandbox.forget()
    marker = jail.base / "started"
    cfg = ServerConfig(name="probe", command=sys.executable, args=("-c", f"open('{marker}', 'w')"), sandbox=True)
    try:
        said = await _refusal_said(cfg, language)
    finally:
        sandbox.forget()
    assert expected in said, said
    assert not marker.exists()

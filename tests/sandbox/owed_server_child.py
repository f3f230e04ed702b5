"""A child Echo Desk process for test_owed_server_checks.py: starts the sandboxed probe server
working in the workspace, which writes an ``.envrc`` there as it starts, keeping its check as owed
in the data folder's store; then waits, to be killed (SIGKILL) while the server runs."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from echo_desk.agent.host import ScriptedHost
from echo_desk.mcp.config import config_path, parse_config
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SettingsStore

PROBE = Path(__file__).with_name("probe_server.py")
REAL_PYTHON = os.path.realpath(sys.executable)


async def main(workspace: Path, data: Path, token: str) -> None:
    # ``token`` names the server's process, for the test to see it gone with this one.
    document = {"mcpServers": {"probe": {"command": REAL_PYTHON,
                                         "args": ["-I", str(PROBE), token], "cwd": str(workspace), "sandbox": True,
                                         "env": {"PROBE_PLANT_AT_START": ".envrc"}}}}
    config_path().write_text(json.dumps(document), encoding="utf-8")
    store = SettingsStore.in_memory()
    approved = {name: cfg.fingerprint() for name, cfg in parse_config(document).items()}
    store.update(lambda s: s.mcp_approved.update(approved))
    runtime = Runtime.create(settings_store=store, data_dir=data, with_builtins=False, with_plugins=False)
    await runtime.attach_mcp(ScriptedHost(), own_thread=False)
    print("started", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]))

"""Driving the npm clients from the tests: the TypeScript SDK client (through ts_client.mjs) and
the MCP Inspector's command-line mode."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
from pathlib import Path
from typing import Any

from .conftest import NODE_DIR, TS_CLIENT, stop_process


class TsClient:
    """One TypeScript SDK client process; ``request`` sends a command and waits for its answer."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.ids = itertools.count(1)
        self.answers: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.progress: dict[int, list[str]] = {}
        self.connected: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.reading = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls, *target: str, env: dict[str, str], timeout: float = 60) -> TsClient:
        process = await asyncio.create_subprocess_exec(
            "node", str(TS_CLIENT), *target, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            env=env, limit=64 * 1024 * 1024)
        client = cls(process)
        event = await asyncio.wait_for(client.connected, timeout)
        if "fatal" in event:
            await client.close()
            raise ConnectionError(event["fatal"])
        return client

    async def _read(self) -> None:
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            event = json.loads(line)
            if "connected" in event or "fatal" in event:
                if not self.connected.done():
                    self.connected.set_result(event)
            elif "progress" in event:
                self.progress.setdefault(event["id"], []).append(event["progress"])
            else:
                future = self.answers.get(event["id"])
                if future is not None and not future.done():
                    future.set_result(event)
        if not self.connected.done():
            self.connected.set_result({"fatal": "the client process ended"})
        for future in self.answers.values():
            if not future.done():
                future.set_result({"error": "the client process ended"})

    def send(self, op: str, **fields: Any) -> int:
        request_id = next(self.ids)
        self.answers[request_id] = asyncio.get_running_loop().create_future()
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"op": op, "id": request_id, **fields}).encode() + b"\n")
        return request_id

    def abort(self, request_id: int) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"op": "abort", "id": request_id}).encode() + b"\n")

    async def answer(self, request_id: int, timeout: float = 60) -> dict[str, Any]:
        return await asyncio.wait_for(self.answers[request_id], timeout)

    async def request(self, op: str, timeout: float = 60, **fields: Any) -> dict[str, Any]:
        return await self.answer(self.send(op, **fields), timeout)

    async def close(self) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError):
            assert self.process.stdin is not None
            self.process.stdin.write(b'{"op": "close"}\n')
        await stop_process(self.process)
        self.reading.cancel()


def inspector() -> Path:
    return NODE_DIR / "node_modules" / ".bin" / "mcp-inspector"


async def run_inspector(args: list[str], env: dict[str, str], cwd: Path, timeout: float = 120) -> tuple[int, str, str]:
    """``mcp-inspector --cli ARGS``: (exit code, stdout, stderr)."""
    env = {**env, "MCP_CATALOG_PATH": str(cwd / "inspector-catalog.json"), "HOME": str(cwd)}
    process = await asyncio.create_subprocess_exec(
        str(inspector()), "--cli", *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        stdin=asyncio.subprocess.DEVNULL, env=env, cwd=str(cwd))
    try:
        out, err = await asyncio.wait_for(process.communicate(), timeout)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    return process.returncode or 0, out.decode(), err.decode()


def gateway_script(folder: Path, client: str, env: dict[str, str]) -> Path:
    """A small program that starts the gateway (the Inspector takes a command and its words; a
    script keeps ``-m``/``--client`` from being read as the Inspector's own options)."""
    from .conftest import gateway_command

    script = folder / f"gateway-{client}.sh"
    words = " ".join(f"'{w}'" for w in gateway_command(client))
    # The Inspector starts a server with a few safe variables only: the test's folders go in here.
    exports = "".join(f"export {k}='{v}'\n" for k, v in sorted(env.items())
                      if k == "PYTHONPATH" or k.startswith("ECHO_DESK_"))
    script.write_text(f"#!/bin/sh\n{exports}exec {words}\n", encoding="utf-8")
    os.chmod(script, 0o755)
    return script

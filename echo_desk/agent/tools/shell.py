"""``run_command``: a shell command line in the workspace, streamed live, bounded in time and memory.

The child runs in its own session (so its own process group); on timeout or cancel the whole
group is killed, grandchildren included. Output is streamed to the card up to a limit and kept
as head + tail, so gigabytes of output cost a fixed amount of memory.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
import time
from collections.abc import Mapping
from typing import Any, ClassVar

from echo_desk.agent.redact import SECRET_NAME  # one list of secret-looking names
from echo_desk.agent.tools import fs
from echo_desk.agent.tools.common import BuiltinTool, get_int, get_str, require_writable
from echo_desk.agent.tools.leftovers import CommandLeash
from echo_desk.i18n import _
from echo_desk.tools import (
    N_,
    CancelledByUser,
    ErrorKind,
    RiskLevel,
    Target,
    ToolError,
    ToolExecutionContext,
    ToolPreview,
    ToolResult,
)

MAX_COMMAND = 10_000
MAX_TIMEOUT = 600
HEAD_BYTES = 32 * 1024
TAIL_BYTES = 32 * 1024
STREAM_LIMIT = 1024 * 1024
CHUNK = 64 * 1024


def scrubbed_environment(source: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment minus variables whose names look like they hold secrets."""
    env = dict(os.environ if source is None else source)
    return {k: v for k, v in env.items() if not SECRET_NAME.search(k)}


class OutputBuffer:
    """Keeps the first and the last bytes of an unbounded stream."""

    def __init__(self) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = HEAD_BYTES - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > TAIL_BYTES:
                del self.tail[: len(self.tail) - TAIL_BYTES]

    @property
    def truncated(self) -> bool:
        return self.total > len(self.head) + len(self.tail)

    def text(self) -> str:
        head = self.head.decode("utf-8", "replace")
        if not self.truncated:
            return head + self.tail.decode("utf-8", "replace")
        omitted = self.total - len(self.head) - len(self.tail)
        return f"{head}\n[... {omitted} bytes of output omitted ...]\n{self.tail.decode('utf-8', 'replace')}"


def _enter(cwd: fs.Resolved) -> tuple[int, str]:
    """Open the working folder through the symlink-free walk; the child changes into that very
    folder (``/proc/self/fd/N`` on Linux), so a folder swapped for a link after the check is not
    followed."""
    try:
        fd = fs.open_dir(cwd.root, cwd.parts)
    except OSError as exc:
        raise fs.os_error(exc, cwd, "enter") from exc
    return fd, (f"/proc/self/fd/{fd}" if os.path.isdir("/proc/self/fd") else str(cwd))


def kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


class RunCommand(BuiltinTool):
    name = "run_command"
    description = (
        "Run a shell command line (/bin/sh -c) with its working folder inside the workspace. "
        "stdout and stderr are merged and returned with the exit code; long output keeps its start "
        "and end. The command is killed (with all its child processes) after timeout_seconds; "
        "background processes it started are stopped when it ends. Environment variables that "
        "look like secrets are removed."
    )
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "minLength": 1, "maxLength": MAX_COMMAND,
                        "description": "The command line, run by /bin/sh -c."},
            "cwd": {"type": "string", "minLength": 1, "maxLength": fs.MAX_PATH_CHARS, "default": ".",
                    "description": "Working folder, relative to the workspace or absolute inside it."},
            "timeout_seconds": {"type": "integer", "minimum": 1, "maximum": MAX_TIMEOUT, "default": 120},
        },
        "required": ["command"],
        "additionalProperties": False,
    }
    risk_level = RiskLevel.EXEC
    timeout_seconds = float(MAX_TIMEOUT + 30)  # the tool enforces the per-call timeout itself
    stream_capable = True
    capabilities = frozenset({"shell"})
    title = N_("Run command")
    catalog_description = N_("Runs a command in a terminal in your workspace and shows its output live.")

    def _args(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> tuple[str, fs.Resolved, int]:
        require_writable(ctx, self.name)
        command = get_str(params, "command", max_len=MAX_COMMAND)
        if not command.strip():
            raise ToolError("'command' is blank", kind=ErrorKind.VALIDATION)
        cwd = fs.resolve(get_str(params, "cwd", max_len=fs.MAX_PATH_CHARS, required=False, default="."),
                         ctx.write_roots, what="cwd")
        fs.require_dir(cwd)
        return command, cwd, get_int(params, "timeout_seconds", default=120, low=1, high=MAX_TIMEOUT)

    async def preview(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolPreview:
        command, cwd, timeout = self._args(params, ctx)
        return ToolPreview(targets=(Target(kind="command", value=command, detail=str(cwd)),),
                           summary=_("Run in {cwd} (timeout {seconds} s)").format(cwd=cwd, seconds=timeout))

    async def run(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        command, cwd, timeout = self._args(params, ctx)
        started = time.monotonic()
        dir_fd, workdir = _enter(cwd)
        argv = ["/bin/sh", "-c", command]
        leash = CommandLeash.create()  # ends setsid/daemonized leftovers too; knows the shell's exit
        try:
            proc = await asyncio.create_subprocess_exec(
                *(leash.wrap(argv) if leash else argv), cwd=workdir,
                env={**scrubbed_environment(), "PWD": str(cwd)},
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT, start_new_session=True, pass_fds=leash.pass_fds if leash else (),
            )
            if leash:
                await leash.started(proc.stdout)
        finally:
            os.close(dir_fd)
        buffer = OutputBuffer()
        reader = asyncio.create_task(self._pump(proc, buffer, ctx))
        ended = ""
        try:
            ended = await self._supervise(reader, ctx, started + timeout, leash)
        finally:
            # Whatever happened (normal end included), no straggler survives us.
            if leash:
                await leash.end()
            kill_group(proc.pid)
            if not reader.done():
                with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                    await asyncio.wait_for(reader, 2.0)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(proc.wait(), 5.0)
        exit_code = leash.exit_code if leash and leash.exit_code is not None else proc.returncode
        if leash and leash.ended and not ended:
            buffer.feed(f"\n[{leash.ended} background process(es) the command left running were ended]\n".encode())
        meta = {"exit_code": exit_code, "pid": proc.pid, "bytes": buffer.total,
                "truncated": buffer.truncated, "seconds": round(time.monotonic() - started, 3), "cwd": str(cwd)}
        if ended == "cancel":
            raise CancelledByUser(f"run_command was cancelled; its process group was killed. "
                                  f"Output so far:\n{buffer.text()}")
        if ended == "timeout":
            return ToolResult.fail(
                ErrorKind.TIMEOUT,
                f"the command ran longer than {timeout} s; its process group was killed. "
                f"Output so far:\n{buffer.text()}",
                metadata=meta,
            )
        return ToolResult.ok(f"exit code {exit_code}\n{buffer.text()}", metadata=meta)

    @staticmethod
    async def _supervise(reader: asyncio.Task[None], ctx: ToolExecutionContext, deadline: float,
                         leash: CommandLeash | None = None) -> str:
        # Poll so a Stop from another thread (cancel_event) is noticed within 0.1 s.
        while True:
            done, _ = await asyncio.wait({reader}, timeout=0.05 if leash else 0.1)
            if done or (leash and leash.done()):
                return ""
            if ctx.cancel_event.is_set():
                return "cancel"
            if time.monotonic() >= deadline:
                return "timeout"

    @staticmethod
    async def _pump(proc: asyncio.subprocess.Process, buffer: OutputBuffer, ctx: ToolExecutionContext) -> None:
        assert proc.stdout is not None
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        streamed = 0
        while chunk := await proc.stdout.read(CHUNK):
            buffer.feed(chunk)
            if streamed < STREAM_LIMIT:
                streamed += len(chunk)
                ctx.emit(decoder.decode(chunk))
                if streamed >= STREAM_LIMIT:
                    ctx.emit("\n[live output paused after 1 MB; the result keeps the start and the end]\n")
        await proc.wait()

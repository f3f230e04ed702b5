"""``run_command``: a shell command line in the workspace, streamed live, bounded in time and memory.

The child runs in its own session (so its own process group); on timeout or cancel the whole
group is killed, grandchildren included. Output is streamed to the card up to a limit and kept
as head + tail, so gigabytes of output cost a fixed amount of memory.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import os
import signal
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Annotated

from pydantic import Field

from echo_desk import sandbox
from echo_desk.builtins.arguments import Arguments
from echo_desk.builtins.common import BuiltinTool, require_writable
from echo_desk.builtins.shell import command_sandbox
from echo_desk.builtins.shell.leftovers import CommandLeash
from echo_desk.common import fs
from echo_desk.i18n import deferred, for_person
from echo_desk.sandbox import ending
from echo_desk.sandbox import owed as sandbox_owed
from echo_desk.sandbox.shell import command_shell
from echo_desk.store.owed_checks import OwedChecksStore
from echo_desk.store.settings import Settings
from echo_desk.tools import (
    N_,
    SANDBOX_TARGET,
    ErrorKind,
    RiskLevel,
    RuleFamily,
    Target,
    ToolError,
    ToolExecutionContext,
    ToolPreview,
    ToolResult,
    ToolRole,
)
from echo_desk.tools.planted import CheckedLater, Planted
from echo_desk.tools.planted_told import named_and_counted

log = logging.getLogger(__name__)

MAX_COMMAND = 10_000
MAX_TIMEOUT = 600
HEAD_BYTES = 32 * 1024
TAIL_BYTES = 32 * 1024
STREAM_LIMIT = 1024 * 1024
CHUNK = 64 * 1024


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


def _command_target(command: str, cwd: fs.Resolved) -> Target:
    """The line and the folder it runs in (resolved: what the dialog names is where it runs)."""
    return Target(kind="command", value=command, detail=str(cwd))


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


class CommandArguments(Arguments):
    command: Annotated[str, Field(min_length=1, max_length=MAX_COMMAND, description="The command line, run by bash -c "
                                                                                   "(no start-up files).")]
    cwd: Annotated[str, fs.path_argument("Working folder, relative to the workspace or absolute inside it.")] = "."
    timeout_seconds: Annotated[int, Field(ge=1, le=MAX_TIMEOUT)] = 120
    outside_sandbox: Annotated[bool, Field(description="Ask to run outside the sandbox with all the person's rights; "
                                                       "only the person can approve it.")] = False


def _prepare(spec: sandbox.SandboxSpec, argv: list[str], bwrap: str) -> sandbox.Launch:
    """``sandbox.prepare``, refusing with words for the person when the sandbox hides the folder
    the command would run in (``GNUPGHOME=$PWD``, or a hidden place's link to it), or cannot tell
    what a hidden place's links lead to: nothing runs, and running it outside the sandbox is not
    offered, since what is hidden holds keys or credentials."""
    try:
        return sandbox.prepare(spec, argv, bwrap)
    except sandbox.LinksTooFar as exc:
        raise ToolError(for_person(f"not run: {exc}. Tell the person; they can remove some of those links", N_(
            "Not run: the links below {place}, a hidden place, lead on further than the sandbox follows (more "
            "than {bound} folders or {entries} entries in them), so it cannot hide what they lead to. Remove some "
            "of those links.")
            if exc.hidden else N_(
            "Not run: the links below {place}, a place programs run code from, lead on further than the sandbox "
            "follows (more than {bound} folders or {entries} entries in them), so it cannot keep what they lead to "
            "read-only. Remove some of those links."),
            place=str(exc.place), bound=exc.bound, entries=exc.entries), kind=ErrorKind.BUSINESS) from None
    except sandbox.HiddenSystemFolder as exc:
        raise ToolError(_hides_what_runs(exc), kind=ErrorKind.BUSINESS) from None
    except sandbox.ProtectedLinkToWorkspace as exc:
        raise ToolError(for_person(f"not run: {exc}. Tell the person; they can point the link at a subfolder", N_(
            "Not run: the link {links} leads a place programs run code from (an editor's or shell's settings) to "
            "the workspace or a folder holding it, so the sandbox cannot keep that code read-only without making "
            "the whole workspace read-only. Point the link at a subfolder of the workspace (as a dotfiles folder "
            "does), or open another folder."), links=exc.links), kind=ErrorKind.BUSINESS) from None
    except sandbox.HiddenWorkspace as exc:
        causes = [*exc.variables, *(["the link"] if exc.links else [])]
        change = f"change {' or '.join(causes)} or " if causes else ""
        model_text = f"not run: {exc}, so it would see an empty folder. Tell the person; they can {change}open another folder"
        if exc.links:
            raise ToolError(for_person(model_text, N_(
                "Not run: the sandbox hides {path}, where the command would run: a hidden place leads there "
                "through {links}. Remove that link, or open another folder."), path=str(exc.path), links=exc.links),
                kind=ErrorKind.BUSINESS) from None
        if exc.variables:
            raise ToolError(for_person(model_text, N_(
                "Not run: the sandbox hides {path}, where the command would run: {variables} names it as a place "
                "of keys or credentials."), path=str(exc.path), variables=exc.variables),
                kind=ErrorKind.BUSINESS) from None
        raise ToolError(for_person(model_text, N_(
            "Not run: the sandbox hides {path}, where the command would run: it is on the list of hidden places."),
            path=str(exc.path)), kind=ErrorKind.BUSINESS) from None



def _hides_what_runs(exc: sandbox.HiddenSystemFolder) -> str:
    """A hidden place leads to (or a variable names, or the person hid) a folder every command
    needs: nothing runs, and running it outside the sandbox is not offered (what is hidden holds
    keys or credentials)."""
    model_text = f"not run: {exc}. Tell the person; they can remove the cause"
    if exc.links:
        return for_person(model_text, N_(
            "Not run: the sandbox would hide {path}, which every command needs (programs, their libraries or "
            "settings): a hidden place leads there through {links}. Remove that link."),
            path=str(exc.path), links=exc.links)
    if exc.variables:
        return for_person(model_text, N_(
            "Not run: the sandbox would hide {path}, which every command needs (programs, their libraries or "
            "settings): {variables} names it as a place of keys or credentials. Change {variables}."),
            path=str(exc.path), variables=exc.variables)
    return for_person(model_text, N_(
        "Not run: the sandbox would hide {path}, which every command needs (programs, their libraries or "
        "settings): it is on the list of hidden places. Take it off the list in Settings › Sandbox."),
        path=str(exc.path))

class RunCommand(BuiltinTool[CommandArguments]):
    name = "run_command"
    role = ToolRole.RUN
    description = (
        "Run a shell command line (bash --noprofile --norc -c) with its working folder inside the workspace. "
        "stdout and stderr are merged and returned with the exit code; long output keeps its start "
        "and end. The command is killed (with all its child processes) after timeout_seconds; "
        "background processes it started are stopped when it ends. Only harmless environment "
        "variables are passed on. Usually it runs in a sandbox: the workspace is writable, the rest "
        "of the disk read-only, secret folders hidden, no network; if it failed because of the "
        "sandbox, you may ask to run it outside with outside_sandbox: true (the person decides)."
    )
    arguments = CommandArguments
    risk_level = RiskLevel.EXEC
    timeout_seconds = float(MAX_TIMEOUT + 30)  # the tool enforces the per-call timeout itself
    stream_capable = True
    capabilities = frozenset({"shell"})
    reports_when_stopped = True  # what a stopped sandboxed command planted is checked and returned
    rule_family = RuleFamily.SHELL
    title = N_("Run command")
    catalog_description = N_("Runs a command in a terminal in your workspace and shows its output live.")

    def __init__(self, settings: Callable[[], Settings] | None = None, owed: OwedChecksStore | None = None) -> None:
        self._settings = settings or Settings
        #: Where each sandboxed command's check is kept as owed until it was made (``store.owed_checks``).
        self._owed = owed

    def _plan(self, args: CommandArguments, ctx: ToolExecutionContext,
              command: str, cwd: fs.Resolved) -> tuple[command_sandbox.CommandPlan, tuple[Target, ...]]:
        plan = command_sandbox.plan_command(self._settings(), ctx.workspace, outside=args.outside_sandbox)
        extra = (plan.target,) if plan.target else ()
        return plan, (*extra, *command_sandbox.own_folder_targets(command, cwd.path, sandboxed=plan.sandboxed))

    def _args(self, args: CommandArguments, ctx: ToolExecutionContext) -> tuple[str, fs.Resolved, int]:
        require_writable(ctx, self.name)
        command = args.command
        if not command.strip():
            raise ToolError(for_person("'command' is blank", N_("The command is blank.")), kind=ErrorKind.VALIDATION)
        cwd = fs.resolve(args.cwd, ctx.write_roots, what="cwd")
        fs.require_dir(cwd)
        return command, cwd, args.timeout_seconds

    async def preview_parsed(self, args: CommandArguments, ctx: ToolExecutionContext) -> ToolPreview:
        command, cwd, timeout = self._args(args, ctx)
        _plan, extra = self._plan(args, ctx, command, cwd)
        return ToolPreview(targets=(_command_target(command, cwd), *extra),
                           summary=deferred(N_("Run with {shell} in {cwd} (timeout {seconds} s)"),
                                            shell=command_shell().shown, cwd=cwd, seconds=timeout))

    async def execute_parsed(self, args: CommandArguments, ctx: ToolExecutionContext) -> ToolResult:
        command, cwd, timeout = self._args(args, ctx)
        plan, extra = self._plan(args, ctx, command, cwd)
        self._check_as_approved(ctx, _command_target(command, cwd), extra)
        started = time.monotonic()
        dir_fd, workdir = _enter(cwd)
        # The shell whose grammar the permission rules parsed, reading no start-up file.
        shell = command_shell()
        # (The environment the permission engine judged it with: ``sandbox.command_environment``.)
        argv, env = shell.argv(command), {**sandbox.command_environment(), "PWD": str(cwd)}
        pass_fds: tuple[int, ...] = ()
        launch: sandbox.Launch | None = None
        # Outside the sandbox a supervisor ends setsid/daemonized leftovers and knows the shell's
        # exit; inside, the sandbox's own process namespace ends them all with the command.
        leash = None if plan.sandboxed else CommandLeash.create()
        owed_id: int | None = None
        try:
            if plan.sandboxed:
                spec = command_sandbox.sandbox_spec(self._settings(), plan, ctx.write_roots, cwd.path)
                launch = _prepare(spec, argv, plan.availability.bwrap or "bwrap")
                argv, env, pass_fds = launch.argv, launch.env, launch.pass_fds
                owed_id = _owe_check(self._owed, launch, ctx)
            proc = await asyncio.create_subprocess_exec(
                *(leash.wrap(argv) if leash else argv), cwd=workdir, env=env,
                pass_fds=pass_fds + (leash.pass_fds if leash else ()),
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT, start_new_session=True,
            )
            if leash:
                await leash.started(proc.stdout)
        except BaseException:
            if launch is not None:
                launch.release()  # nothing started (or it is being torn down): no placeholder stays
            _settle(self._owed, owed_id)
            raise
        finally:
            os.close(dir_fd)
            if launch is not None:
                launch.close()
        network = command_sandbox.start_network(plan, launch)
        # The guard's paths are relative to their workspace: named once here when there is only one
        # (the card and the audit make them full with it; with several, each names its own).
        one_workspace = str(ctx.write_roots[0]) if len(ctx.write_roots) == 1 else ""
        planted: tuple[Planted, ...] = ()
        later_check: Future[CheckedLater] | None = None
        buffer = OutputBuffer()
        output_ended = asyncio.Event()
        reader = asyncio.create_task(self._pump(proc, buffer, ctx, output_ended))
        ended = ""
        try:
            ended = await self._supervise(reader, ctx, started + timeout, leash, output_ended)
        except asyncio.CancelledError:
            # The caller stopped waiting (Stop, or the tool's own limit): the account below (what
            # was put aside, for the card and the audit) still reaches it, as the handler's return.
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            ended = "cancel"
        finally:
            # Whatever happened (normal end included), no straggler survives us.
            if leash:
                await leash.end()
            # The sandbox's own init too: bwrap gone, its processes still have a moment to run
            # on while the guard looks (see sandbox.ending).
            inside = launch.inside() if launch is not None else None
            ending.end(inside)
            kill_group(proc.pid)
            if not reader.done():
                with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                    await asyncio.wait_for(reader, 2.0)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(proc.wait(), 5.0)
            if launch is not None:
                planted, later_check = await _check_what_it_left(proc, launch, inside, one_workspace)
                _settle_once_checked(self._owed, owed_id, later_check)
        exit_code = leash.exit_code if leash and leash.exit_code is not None else proc.returncode
        if leash and leash.ended and not ended:
            buffer.feed(f"\n[{leash.ended} background process(es) the command left running were ended]\n".encode())
        sandbox_meta = plan.metadata()
        refused_note = await command_sandbox.finish_network(network, sandbox_meta)
        planted_note = command_sandbox.planted_facts(planted, launch, sandbox_meta,
                                                     checked_later=later_check is not None)
        meta = {"exit_code": exit_code, "pid": proc.pid, "bytes": buffer.total, "shell": shell.name,
                "truncated": buffer.truncated, "seconds": round(time.monotonic() - started, 3), "cwd": str(cwd),
                "sandbox": sandbox_meta}
        planted_in = one_workspace if planted else ""
        folders_checked = launch.max_folders if launch is not None and launch.search_cut else 0  # for the audit
        if ended == "cancel":
            # Returned, not raised: a stop must not lose what the check found.
            return ToolResult.fail(
                ErrorKind.CANCELLED,
                for_person(f"run_command was cancelled; its process group was killed. "
                           f"Output so far:\n{buffer.text()}{planted_note}",
                           N_("The command was stopped and its processes were ended. Output so far:\n{output}"),
                           output=buffer.text()),
                metadata=meta, planted=planted, planted_in=planted_in, later_check=later_check,
                folders_checked=folders_checked,
            )
        if ended == "timeout":
            output = buffer.text()
            return ToolResult.fail(
                ErrorKind.TIMEOUT,
                for_person(f"the command ran longer than {timeout} s; its process group was killed. "
                           f"Output so far:\n{output}{planted_note}",
                           N_("The command ran longer than {seconds} s and was stopped (with every process it "
                              "started). Output so far:\n{output}"),
                           seconds=timeout, output=output + planted_note),
                metadata=meta, planted=planted, planted_in=planted_in, later_check=later_check,
                folders_checked=folders_checked,
            )
        note = ""
        if plan.sandboxed:
            blocked = sandbox.what_was_blocked(exit_code, buffer.text())
            sandbox_meta["blocked"] = [b.value for b in blocked]
            note = command_sandbox.blocked_note(blocked) + refused_note + planted_note
        return ToolResult.ok(f"exit code {exit_code}\n{buffer.text()}{note}", metadata=meta, planted=planted,
                             planted_in=planted_in, later_check=later_check, folders_checked=folders_checked)

    @staticmethod
    def _check_as_approved(ctx: ToolExecutionContext, command: Target, extra: tuple[Target, ...]) -> None:
        """Run only what was shown: the same line in the same folder (a link named as the cwd
        may lead elsewhere by now), the same place (sandbox or not) and, for a protected target
        (outside the sandbox, Echo Desk's own folders), the person's own approval of it."""
        if ctx.preview is not None:
            if [(t.value, t.detail) for t in ctx.preview.targets if t.kind == "command"] != [
                    (command.value, command.detail)]:
                raise ToolError(for_person(
                    f"the folder the command runs in is {command.detail} now, not the one shown "
                    "when it was approved (it changed since); nothing was run",
                    N_("The folder the command runs in is {folder} now, not the one shown when you approved it; "
                       "nothing was run."), folder=command.detail), kind=ErrorKind.BUSINESS)
            shown = tuple(t for t in ctx.preview.targets if t.kind != "command")
            if shown != extra:
                raise ToolError(for_person(
                    "where the command runs (sandbox, protected folders) changed since it was approved; nothing was run",
                    N_("Where the command runs (sandbox, protected folders) changed since you approved it; "
                       "nothing was run.")), kind=ErrorKind.BUSINESS)
        for target in extra:
            if target.protections and target not in ctx.approved_protected_targets(target.kind):
                why = "; ".join(p.english_reason for p in target.protections)
                model_text = f"not run: {why} needs the person's own approval"
                raise ToolError(
                    for_person(model_text, N_("Not run: running it outside the sandbox needs your own approval."))
                    if target.kind == SANDBOX_TARGET else
                    for_person(model_text, N_("Not run: {path} is protected and needs your own approval."),
                               path=target.value), kind=ErrorKind.BUSINESS)

    @staticmethod
    async def _supervise(reader: asyncio.Task[None], ctx: ToolExecutionContext, deadline: float,
                         leash: CommandLeash | None = None, output_ended: asyncio.Event | None = None) -> str:
        # The end of the output, and the supervisor's exit line plus its grace, are awaited; only
        # a Stop from another thread (a threading.Event) is looked at every 0.1 s.
        leashed = asyncio.create_task(leash.wait_done(output_ended or asyncio.Event())) if leash else None
        waiting = {reader} if leashed is None else {reader, leashed}
        try:
            while True:
                left = deadline - time.monotonic()
                done, _ = await asyncio.wait(waiting, timeout=max(0.0, min(0.1, left)),
                                             return_when=asyncio.FIRST_COMPLETED)
                if done:
                    return ""
                if ctx.cancel_event.is_set():
                    return "cancel"
                if time.monotonic() >= deadline:
                    return "timeout"
        finally:
            if leashed is not None:
                leashed.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await leashed

    @staticmethod
    async def _pump(proc: asyncio.subprocess.Process, buffer: OutputBuffer, ctx: ToolExecutionContext,
                    output_ended: asyncio.Event | None = None) -> None:
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
        if output_ended is not None:
            output_ended.set()  # EOF: with a supervisor, the process itself ends only when told
        await proc.wait()


def _owe_check(store: OwedChecksStore | None, launch: sandbox.Launch, ctx: ToolExecutionContext) -> int | None:
    """Keep the check of this launch as owed, before its command starts, so that a kill of Echo
    Desk (or a quit before a late check ended) leaves it for the next start (``store.owed_checks``).
    A store that fails is logged: the command runs, and its check is made here as always."""
    if store is None or not launch.guards:
        return None
    try:
        return store.owe(conversation_id=ctx.conversation_id, call_id=ctx.call_id, tool=ctx.tool_name,
                         held_by=ctx.held_by, workspace=str(launch.guards[0].workspace),
                         snapshot=sandbox_owed.owed(launch.guards, launch.placeholders))
    except Exception:  # (sqlite3.Error, OSError, a snapshot that does not pickle: never the command's fault)
        log.exception("the check of a sandboxed command could not be kept as owed; it is made when the command ends")
        return None


def _settle_once_checked(store: OwedChecksStore | None, owed_id: int | None,
                         later_check: Future[CheckedLater] | None) -> None:
    """The check was made, or will be by a late check: owed until that ended (a quit before
    then cancels it, and leaves the check to the next start)."""
    if later_check is None:
        _settle(store, owed_id)
    else:
        later_check.add_done_callback(lambda done: None if done.cancelled() else _settle(store, owed_id))


def _settle(store: OwedChecksStore | None, owed_id: int | None) -> None:
    if store is None or owed_id is None:
        return
    try:
        store.settle(owed_id)
    except Exception:  # the next start makes the check again: it finds nothing new, and says so
        log.exception("an owed check that was made could not be marked as made")


#: Checks of sandboxes that outlived their command's result (kept here: a task nobody holds may
#: be collected before it ends).
_late_checks: set[asyncio.Task[None]] = set()


async def _check_what_it_left(proc: asyncio.subprocess.Process, launch: sandbox.Launch,
                              inside: ending.Inside | None,
                              workspace: str) -> tuple[tuple[Planted, ...], Future[CheckedLater] | None]:
    """What the sandbox left that could run code later, put aside or put back once nothing of it
    runs. When something of it still runs at the bound (bwrap not reaped, a process the kernel has
    not ended: a machine under heavy load, a process stuck in the kernel), the check is neither
    skipped nor made while it may still write: it runs when the sandbox ends, and the future
    returned says what it found (``workspace``: the one the paths are relative to, or '')."""
    if proc.returncode is not None and await ending.gone(inside):
        # Its placeholders can go now (never earlier, see placeholders).
        launch.release()
        return launch.check(), None
    log.warning("the sandbox of pid %s still runs after its command ended: what it leaves is checked when it ends",
                proc.pid)
    found: Future[CheckedLater] = Future()
    task = asyncio.create_task(_check_when_ended(proc, launch, inside, found, workspace))
    _late_checks.add(task)
    task.add_done_callback(_late_checks.discard)
    return (), found


async def _check_when_ended(proc: asyncio.subprocess.Process, launch: sandbox.Launch,
                            inside: ending.Inside | None, found: Future[CheckedLater], workspace: str) -> None:
    try:
        await proc.wait()
        while not await ending.gone(inside):
            ending.end(inside)
        launch.release()
        planted = launch.check()
    except asyncio.CancelledError:  # Echo Desk quits: whoever waits is not kept waiting
        found.cancel()
        raise
    except Exception as exc:
        found.set_exception(exc)
        raise
    log.warning("the sandbox of pid %s ended late; put aside or back: %s", proc.pid,
                named_and_counted(planted, lambda p: f"{p.shown} ({p.change.value})") or "nothing")
    found.set_result(CheckedLater(planted, workspace if planted else ""))

"""The ``bwrap`` command line for one sandboxed command.

Order matters (later mounts cover earlier ones): the whole disk read-only, fresh ``/dev``,
``/proc`` and ``/tmp``, the hidden paths emptied, the workspaces writable, then what makes a
program run code (``inventory``: the workspace repository's hooks and configuration, the protected
list) made read-only again, and last the hidden paths inside a workspace emptied (after every
mount that could hold one: a mount shows the disk as it is). Just before the
command starts, a ``guard`` takes a snapshot of all of it, nested repositories included, which
``Launch.check()`` compares with what the command left.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from echo_desk.sandbox import (
    ending,
    forwarder,
    hidden_list,
    inventory,
    linked,
    placeholders,
    repositories,
    seccomp,
)
from echo_desk.sandbox import relay as relay_launcher
from echo_desk.sandbox.environment import command_environment
from echo_desk.sandbox.guard import Guard
from echo_desk.sandbox.helper import helper_command
from echo_desk.sandbox.paths import existing_real, is_under
from echo_desk.sandbox.placeholders import Placeholder
from echo_desk.tools.planted import Planted

FORWARDER = Path(forwarder.__file__)  # imported, so the desktop bundle carries it too
RELAY = Path(relay_launcher.__file__)
DEFAULT_TMP_BYTES = 512 * 1024 * 1024
#: The kernel's settings, read-only over the sandbox's own /proc. bwrap covers /proc/sys only
#: when it finds the folder writable, and it never is (mode 555); the files in it are (644), for
#: the global root. Run as root, the sandbox's uid 0 is that root: it could set core_pattern to
#: a pipe into a script of its own, which the kernel runs as root, outside every namespace, on
#: the next crash (or kernel.modprobe, run for an unknown binary format). The host's copy is
#: what gets bound (bwrap binds from outside); it is only read, and only network values differ.
_KERNEL_SETTINGS_READ_ONLY = ("--ro-bind-try", "/proc/sys", "/proc/sys")
#: bwrap covers it only when it finds it writable; bound read-only here whatever it finds, as
#: /proc/sys (root could reboot or crash the machine through it). Skipped where the kernel has none.
_SYSRQ_READ_ONLY = ("--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger")
#: The kernel's key lists, which no namespace separates: ``/proc/keys`` names every key the
#: person can view (their session's and user keyrings: a Kerberos cache's principal, a network
#: share's user), ``/proc/key-users`` counts them. The seccomp filter refuses the key system
#: calls, not reading these. Covered by ``/dev/null``, which a read-only bind makes unopenable
#: (``nodev``): reading says "Permission denied". Only where the kernel has them (a bind needs its
#: target; a kernel without keys has none to show).
_KEY_LISTS = ("/proc/keys", "/proc/key-users")
#: RLIMIT_NPROC inside: bounds a fork bomb for an ordinary user (the kernel exempts root).
DEFAULT_MAX_PROCESSES = 2048


@dataclass(frozen=True)
class SandboxSpec:
    """What one sandboxed run may touch.

    ``writable``: the workspaces (read-write). ``hidden``: extra paths emptied for reading too
    (Echo Desk's own folders); ``hidden_by_person``: the paths the person added, emptied too and
    walked for links as the list's places are; the usual secret folders of ``home`` are always
    hidden. ``cwd`` must lie inside a writable folder.
    """

    writable: tuple[Path, ...]
    cwd: Path
    hidden: tuple[Path, ...] = ()
    #: (Echo Desk's own folders are not walked: what a command planted is put aside there, and a
    #: planted link to ``/`` would then refuse every command.)
    hidden_by_person: tuple[Path, ...] = ()
    home: Path = field(default_factory=Path.home)
    tmp_bytes: int = DEFAULT_TMP_BYTES
    max_processes: int = DEFAULT_MAX_PROCESSES
    #: Extra bwrap arguments a caller needs.
    extra_args: tuple[str, ...] = ()
    #: With allowed domains the command gets a proxy (``proxy.DomainProxy`` on ``Launch.relay``).
    proxied: bool = False
    #: Files the program runs from, as configured and approved (an MCP server's command and
    #: arguments): any under /tmp stay visible, read-only, over the private /tmp.
    runs_from: tuple[str, ...] = ()
    #: Cover protected paths that do not exist yet with read-only placeholders (made in the
    #: workspace while the command runs; the caller must ``Launch.release()`` after it ended).
    guard_missing: bool = True
    #: Take a snapshot of what can make a program run code, for ``Launch.check()`` once the
    #: command ended (a long-running server, whose end nothing here sees, goes without).
    check_after: bool = True
    #: The person's own additions to the protected list (``runs_code.added``).
    protected: tuple[str, ...] = ()
    #: Where ``Launch.check()`` moves what a command planted (``None``: it is deleted).
    put_aside: Path | None = None
    #: The bound of the search for repositories in each workspace (``repositories.MAX_FOLDERS``).
    max_repository_folders: int = repositories.MAX_FOLDERS
    #: Folders kept read-only even inside a writable folder: Echo Desk's own program and the
    #: virtual environment it runs from (what is written there runs at its next start).
    kept_read_only: tuple[Path, ...] = ()


@dataclass
class Launch:
    """The full ``argv`` to exec, the descriptors it must inherit; ``close()`` after the spawn."""

    argv: list[str]
    pass_fds: tuple[int, ...]
    hidden: tuple[Path, ...]
    read_only: tuple[Path, ...]
    #: The environment to spawn ``argv`` with (bwrap passes it on): ``command_environment``'s,
    #: with the caller's own values. Kept out of ``argv``, where any process could read it.
    env: dict[str, str] = field(default_factory=dict)
    #: Echo Desk's end of the socket pair the forwarder hands connections through (when proxied).
    relay: socket.socket | None = None
    _child_ends: tuple[socket.socket, ...] = ()
    #: Empty stand-ins bwrap makes for protected paths that did not exist (see ``placeholders``).
    placeholders: tuple[Placeholder, ...] = ()
    #: One snapshot per workspace of what can make a program run code (``check()``).
    guards: tuple[Guard, ...] = ()
    #: The search for repositories stopped at its bound in a workspace, before the command or
    #: (once ``check()`` ran) after it: some may be unwatched.
    search_cut: bool = False
    #: The home folder's (or a moved) places whose walk for links into the workspace stopped at
    #: its bound (``linked.MAX_ENTRIES_PER_PLACE``): a link further down was not followed.
    links_cut: tuple[str, ...] = ()
    #: Our end of the pipe bwrap writes its ``--info-fd`` report to (the sandbox's init and PID
    #: namespace: ``inside()``), when it was started with one.
    info_fd: int | None = None
    #: The bound ``search_cut`` stopped at (``SandboxSpec.max_repository_folders``): the folders checked.
    max_folders: int = repositories.MAX_FOLDERS

    def __post_init__(self) -> None:
        self._placed = self.placeholders

    def inside(self) -> ending.Inside | None:
        """Which processes are the sandbox's (call once it started; ``None``: bwrap did not say)."""
        fd, self.info_fd = self.info_fd, None
        if fd is None:
            return None
        try:
            return ending.read_info(fd)
        finally:
            os.close(fd)

    def release(self) -> None:
        """Call once the sandbox has ended (never before: see ``placeholders``): removes the
        placeholders no other running command uses, if they are still empty. Idempotent."""
        taken, self.placeholders = self.placeholders, ()
        placeholders.release(taken)
        if self.info_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.info_fd)
            self.info_fd = None

    def check(self) -> tuple[Planted, ...]:
        """Once the command ended (after ``release()``): what it left that could make a program
        run code later, put aside or put back (see ``guard``). Idempotent."""
        guards, self.guards = self.guards, ()
        # Left alone: a placeholder another running command still has mounted (moving it would
        # detach that command's read-only cover), and what is in one of this command's own
        # placeholders (read-only for it all along: only someone outside can have put it there).
        skip = frozenset(str(p) for p in placeholders.in_use()) | frozenset(str(p.path) for p in self._placed)
        # Each guard's paths are relative to its workspace: with several, each entry names its own.
        several = len(guards) > 1
        planted = tuple(replace(p, workspace=str(g.workspace)) if several else p
                        for g in guards for p in g.after(skip=skip))
        self.search_cut = self.search_cut or any(g.cut_after for g in guards)
        return planted

    def close(self) -> None:
        """Close what only the child needed (call once it started); ``relay`` stays open."""
        for fd in self.pass_fds:
            if not any(end.fileno() == fd for end in self._child_ends):
                with contextlib.suppress(OSError):
                    os.close(fd)
        for end in self._child_ends:
            end.close()


#: What the proxy's forwarder runs from: this Python (and its environment) and the script.
_FORWARDER_NEEDS = (sys.executable, sys.prefix, str(FORWARDER))


def _own_folders_in_tmp(paths: list[str]) -> list[Path]:
    """The folders under /tmp that the program runs from (its executable, a Python or a venv, an
    approved server's script): the private /tmp would hide them and it could not start, so they
    stay visible, read-only. Only these paths' top folders; nothing else of /tmp (a shell command
    line is not looked into: what it names under /tmp stays hidden)."""
    tmp = Path(os.path.realpath("/tmp"))
    found: list[Path] = []
    for raw in paths:
        if not raw.startswith("/"):
            continue
        for path in {Path(raw), Path(os.path.realpath(raw))}:
            parts = path.parts
            try:
                exists = path.exists()
            except OSError:  # not a path (too long, ...)
                exists = False
            if len(parts) > 2 and Path(*parts[:2]) in (Path("/tmp"), tmp) and exists:
                top = Path(*parts[:3])
                if top not in found:
                    found.append(top)
    return found


def _in_private_tmp(top: Path) -> list[str]:
    """How a folder (or file) of /tmp the program runs from appears in the sandbox's own /tmp.
    bwrap binds what a link leads to under the link's name, where no hidden place is hidden
    (``/tmp/x -> ~`` showed ``/tmp/x/.ssh`` whole): a link is made again, as the same link,
    and leads where the sandbox shows it. Only what the person owns is bound: another user
    could swap theirs for a link between this look and the bind (``/tmp`` is shared)."""
    try:
        st = os.lstat(top)
    except OSError:
        return []
    if stat.S_ISLNK(st.st_mode):
        return ["--symlink", os.readlink(top), str(top)]
    if st.st_uid != os.geteuid() or not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
        return []
    return ["--ro-bind", str(top), str(top)]


def _hide(path: Path, *, holds_workspace: bool = False) -> list[str]:
    # A folder becomes an empty tmpfs (left writable only when a workspace is bound inside it
    # later, so its mount point can be made); a file becomes an empty, read-only file.
    if path.is_dir():
        return ["--tmpfs", str(path)] + ([] if holds_workspace else ["--remount-ro", str(path)])
    return ["--ro-bind", "/dev/null", str(path)]


def prepare(spec: SandboxSpec, command: list[str], bwrap: str, env: dict[str, str] | None = None, *,
            own_env: dict[str, str] | None = None, seccomp_file: Path | None = None,
            relay_path: Path | None = None) -> Launch:
    """Build the command line; opens the seccomp program descriptor (closed by ``close()``).

    The command gets what a sandboxed ``run_command`` line gets (``command_environment`` of
    ``env``, default this process's: the definition the permission engine judges with), and
    ``PWD``; ``own_env`` (e.g. an MCP server's configured variables) is added as is, under the
    sandbox's own values. With ``seccomp_file`` the program is written there and read by a
    ``/bin/sh`` redirection instead of an inherited descriptor, for spawners that cannot pass one
    (then ``pass_fds`` is empty). A proxied sandbox started that way also needs ``relay_path``:
    the Unix socket the proxy listens on, which the ``relay`` launcher connects to just before it
    becomes bwrap (outside the sandbox, so the seccomp rule against new Unix sockets holds inside).
    """
    writable = existing_real(spec.writable)
    if not writable:
        raise ValueError("a sandboxed command needs at least one existing writable folder")
    cwd = Path(os.path.realpath(spec.cwd))
    if not any(is_under(cwd, w) for w in writable):
        raise ValueError(f"working folder {cwd} is outside the writable folders")
    environment = command_environment(env, sandboxed=True, own=own_env)
    environment["PWD"] = str(cwd)
    # Where the variables move the list's places (``moved``): as the programs you start later
    # read them (Echo Desk's own environment, from your session) and as the command gets them.
    environs = (os.environ if env is None else env, environment)
    own_homes = _own_homes(spec.home, environment, cwd)
    found = [inventory.take(w, home=spec.home, extra=spec.protected, writable=tuple(writable),
                            max_folders=spec.max_repository_folders, environs=environs, other_homes=own_homes,
                            hidden=spec.hidden_by_person)
             for w in writable]
    read_only, frozen = _read_only(found, writable, spec.kept_read_only)
    # (With the places' landings through links in the workspaces: ``linked``.)
    listed = [*(p for home in (spec.home, *own_homes) for p in _always_hidden(home, environs, found)),
              *spec.hidden, *spec.hidden_by_person]
    hidden = existing_real([*listed, *(Path(p) for inv in found for p in inv.hidden)])
    leading = _leading_links(found, listed)
    _refuse_hidden_links_holding_home(found, listed)
    _refuse_hiding_what_runs(hidden, environment, spec.home, environs, leading)
    _refuse_links_too_far(found)
    _refuse_protected_links_to_workspace(found)
    _refuse_a_hidden_workspace(hidden, writable, cwd, spec.home, environs, leading)

    argv = [
        bwrap, "--die-with-parent", "--new-session", "--unshare-user", "--unshare-pid", "--unshare-net",
        "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--cap-drop", "ALL",
        "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", *_KERNEL_SETTINGS_READ_ONLY, *_SYSRQ_READ_ONLY,
        *_key_lists_covered(),
        "--size", str(spec.tmp_bytes), "--tmpfs", "/tmp",
    ]
    stand_ins = _missing_protected(found, writable) if spec.guard_missing else []
    argv += _mounts(spec, command, writable, hidden, read_only, found, [s.path for s in stand_ins])
    guards = tuple(Guard.before(inv, home=spec.home, extra=spec.protected, writable=tuple(writable),
                                frozen=frozen, put_aside=spec.put_aside, max_folders=spec.max_repository_folders,
                                environs=environs)
                   for inv in found) if spec.check_after else ()
    cut = any(inv.cut for inv in found)
    links_cut = tuple(dict.fromkeys(place for inv in found for place in inv.links_cut))
    for stand_in in stand_ins:
        argv += stand_in.bwrap_args()
    argv += list(spec.extra_args)
    if seccomp_file is not None:
        if spec.proxied and relay_path is None:
            raise ValueError("a proxied sandbox started by a spawner needs the proxy's socket (relay_path)")
        _write_private(seccomp_file, seccomp.program())
        if spec.proxied:
            command = [*helper_command(forwarder.__name__, FORWARDER), str(relay_launcher.RELAY_FD), "--", *command]
        argv += ["--seccomp", str(relay_launcher.SECCOMP_FD), "--chdir", str(cwd), "--",
                 *_with_process_limit(command, spec.max_processes)]
        if spec.proxied:
            assert relay_path is not None
            wrapped = [*helper_command(relay_launcher.__name__, RELAY), str(relay_path), str(seccomp_file), "--", *argv]
        else:
            wrapped = ["/bin/sh", "-c", 'exec "$@" 3<"$0"', str(seccomp_file), *argv]
        placeholders.take(stand_ins)
        return Launch(wrapped, (), tuple(hidden), tuple(read_only), environment, placeholders=tuple(stand_ins),
                      guards=guards, search_cut=cut, links_cut=links_cut,
                      max_folders=spec.max_repository_folders)
    fd = seccomp.program_fd()
    info_read, info_write = os.pipe()
    os.set_blocking(info_read, False)  # read once the command ended, when the report is long there
    argv += ["--info-fd", str(info_write), "--seccomp", str(fd), "--chdir", str(cwd), "--"]
    relay = child_end = None
    if spec.proxied:
        relay, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        command = [*helper_command(forwarder.__name__, FORWARDER), str(child_end.fileno()), "--", *command]
    argv += _with_process_limit(command, spec.max_processes)
    fds = (fd, info_write) if child_end is None else (fd, info_write, child_end.fileno())
    placeholders.take(stand_ins)
    return Launch(argv, fds, tuple(hidden), tuple(read_only), environment, relay,
                  () if child_end is None else (child_end,), tuple(stand_ins), guards, cut, links_cut, info_read,
                  spec.max_repository_folders)


def _key_lists_covered() -> list[str]:
    return [arg for path in _KEY_LISTS if os.path.exists(path) for arg in ("--ro-bind", "/dev/null", path)]


class HiddenWorkspace(ValueError):
    """A hidden path is a workspace, or holds the folder the command runs in, from inside a
    workspace (``GNUPGHOME=$PWD``): the sandbox would show the command an empty, read-only folder
    (and bwrap could not make its stand-ins there). Refused, naming the cause, rather than run in
    that confusing state; ``variables``: those whose value hides it (``hidden_list.naming``), if any;
    ``links``: the links that lead a hidden place there (``link → path``), if any
    (``~/.ssh/keys → ~/project``: the person must see which one to remove)."""

    def __init__(self, path: Path, variables: tuple[str, ...], links: tuple[str, ...] = ()) -> None:
        self.path = path
        self.variables = variables
        self.links = links
        said = _why_hidden(variables, links)
        super().__init__(f"the sandbox hides {path} (keys or credentials: {said}), and the command would run in it")


class HiddenSystemFolder(ValueError):
    """A hidden path is, or holds, a folder every command needs (``needed_to_run``: ``~/.ssh/x ->
    /usr``): hidden, no command could run, and one that did would fail as if it had written
    outside the workspace. Refused before anything runs, naming the cause (as ``HiddenWorkspace``):
    it cannot be left in view either, since a hidden place leads there (fail closed)."""

    def __init__(self, path: Path, variables: tuple[str, ...], links: tuple[str, ...] = ()) -> None:
        self.path = path
        self.variables = variables
        self.links = links
        said = _why_hidden(variables, links)
        super().__init__(f"the sandbox would hide {path} (keys or credentials: {said}), and every command needs it "
                         "(programs, their libraries or settings)")


def _why_hidden(variables: tuple[str, ...], links: tuple[str, ...]) -> str:
    """Why the sandbox hides a path, for the English message of ``HiddenWorkspace`` and
    ``HiddenSystemFolder``: the variables naming it, the links leading a hidden place there."""
    why = [f"{', '.join(variables)} names it"] if variables else []
    why += [f"the link {', '.join(links)} leads a hidden place there"] if links else []
    return "; ".join(why) or "it is on the hidden list"


#: The system's folders of programs, their libraries and settings (``needed_to_run``).
_SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")


def needed_to_run(environment: Mapping[str, str]) -> tuple[list[Path], list[Path]]:
    """The folders no command runs without: the system's (``/lib`` is ``/usr/lib`` on most
    systems: real paths), and those on the command's ``PATH``."""
    on_path = [Path(path) for path in environment.get("PATH", "").split(":") if path.startswith("/")]
    return existing_real(Path(path) for path in _SYSTEM_FOLDERS), existing_real(on_path)


def _refuse_hiding_what_runs(hidden: list[Path], environment: Mapping[str, str], home: Path,
                             environs: tuple[Mapping[str, str], ...], links: Mapping[str, tuple[str, ...]]) -> None:
    """A folder on ``PATH`` counts only where a link leads: a place hidden by its own name holding
    one is hidden as it is (fnm puts a folder of the session's runtime folder, hidden whole, on
    ``PATH``: its programs are missing in the sandbox, the rest runs)."""
    system, on_path = needed_to_run(environment)
    for path in hidden:
        needed = [*system, *(on_path if str(path) in links else ())]
        if any(is_under(folder, path) for folder in needed):
            raise HiddenSystemFolder(path, tuple(hidden_list.naming(home, environs, str(path))),
                                     links.get(str(path), ()))


def _refuse_hidden_links_holding_home(found: list[inventory.Inventory], listed: list[Path]) -> None:
    """A hidden place that leads through a link to ``/`` or a folder holding the home folder
    (``~/.ssh/home -> ~``): hidden, no command could find its programs' settings (or programs);
    left in view, as it was, whatever the place reaches there was readable (``IdentityFile
    ~/.ssh/home/key`` is ``~/key``). Refused, naming the link (fail closed)."""
    links: dict[str, dict[str, None]] = {}
    for inv in found:
        for link, real in inv.hidden_links_holding_home:
            links.setdefault(real, {})[f"{link} → {real}"] = None
    for path in listed:  # (``existing_real`` drops ``/``: a place that is a link to it was left in view)
        if os.path.realpath(path) == "/" and os.path.lexists(path) and str(path) != "/":
            links.setdefault("/", {})[f"{path} → /"] = None
    for real, named in links.items():
        raise HiddenSystemFolder(Path(real), (), tuple(named))


class LinksTooFar(ValueError):
    """The links below the hidden (or, ``hidden`` false, protected) place ``place`` lead further
    than the sandbox follows (``linked.MAX_FOLLOWED``, ``MAX_ENTRIES_FOLLOWED``): what lies on is not
    known, so it cannot be hidden (kept read-only). Refused rather than run with it readable
    (writable): fail closed."""

    def __init__(self, place: Path, *, hidden: bool = True) -> None:
        self.place = place
        self.hidden = hidden
        self.bound = linked.MAX_FOLLOWED
        self.entries = linked.MAX_ENTRIES_FOLLOWED
        what, cannot = ("a hidden place", "hide") if hidden else ("a place programs run code from", "keep read-only")
        super().__init__(f"the links below {place}, {what}, lead on further than the sandbox follows (more than "
                         f"{self.bound} folders or {self.entries} entries in them), so it cannot {cannot} what they "
                         "lead to")


def _refuse_links_too_far(found: list[inventory.Inventory]) -> None:
    for inv in found:
        for place in inv.links_too_far:
            raise LinksTooFar(Path(place))
        for place in inv.protected_links_too_far:
            raise LinksTooFar(Path(place), hidden=False)


class ProtectedLinkToWorkspace(ValueError):
    """A protected place leads through a link to the workspace itself or to a folder holding it
    (``~/.vim -> ~/project``, ``~/.vim/plugin/x -> ~``): the editor (or shell) may then run any
    file of the workspace, and only a read-only workspace would keep that code from the command.
    Refused rather than run with it writable (fail closed) or with nothing writable; ``links``:
    ``link → path``, for the person to point elsewhere (a subfolder is kept read-only alone)."""

    def __init__(self, links: tuple[str, ...]) -> None:
        self.links = links
        super().__init__(f"the link {', '.join(links)} leads a place programs run code from to the workspace or a "
                         "folder holding it, so the sandbox cannot keep that code read-only without making the whole "
                         "workspace read-only")


def _refuse_protected_links_to_workspace(found: list[inventory.Inventory]) -> None:
    links = tuple(dict.fromkeys(f"{link} → {real}" for inv in found for link, real in inv.protected_links_to_workspace))
    if links:
        raise ProtectedLinkToWorkspace(links)


def _leading_links(found: list[inventory.Inventory], listed: list[Path]) -> dict[str, tuple[str, ...]]:
    """Each real path a hidden place reaches through a link, with the links (``link → path``):
    a link found below a hidden place (``inventory``), or a listed place that is a link or has
    one on its way (``~/.ssh -> ~/project``)."""
    links: dict[str, dict[str, None]] = {}
    for inv in found:
        for link, target in inv.hidden_links:
            links.setdefault(target, {})[f"{link} → {target}"] = None
    for path in listed:
        real = os.path.realpath(path)
        if real != str(path) and os.path.lexists(path):
            links.setdefault(real, {})[f"{path} → {real}"] = None
    return {target: tuple(named) for target, named in links.items()}


def _refuse_a_hidden_workspace(hidden: list[Path], writable: list[Path], cwd: Path, home: Path,
                               environs: tuple[Mapping[str, str], ...],
                               links: Mapping[str, tuple[str, ...]]) -> None:
    # (A hidden folder that holds a workspace is emptied but the workspace is bound back into it:
    # only one at or inside a workspace covers it.)
    for path in hidden:
        if any(is_under(path, w) for w in writable) and (path in writable or is_under(cwd, path)):
            raise HiddenWorkspace(path, tuple(hidden_list.naming(home, environs, str(path))), links.get(str(path), ()))


def _own_homes(home: Path, environment: Mapping[str, str], cwd: Path) -> tuple[Path, ...]:
    """The command's own home folder when it is not Echo Desk's (an MCP server configured with
    ``"HOME": "/srv/agent"``): the tools it runs look for their keys there and read ``~/`` in a
    variable's value from there. Its secret places are hidden as Echo Desk's home folder's are,
    and a ``~/`` value is read in both (the programs the person starts later read it in theirs).
    A relative ``HOME`` is read from the folder the command starts in, as a tool would."""
    raw = environment.get("HOME", "")
    if not raw:
        return ()
    theirs = Path(os.path.realpath(os.path.join(cwd, raw)))
    return () if theirs == Path(os.path.realpath(home)) else (theirs,)


def _always_hidden(home: Path, environs: tuple[Mapping[str, str], ...],
                   found: list[inventory.Inventory]) -> list[Path]:
    """The places of ``hidden_list`` (the list Settings › Sandbox shows). A relative value of a
    variable that moves one (``GNUPGHOME=keys/gnupg``) is read by the tool from the folder it runs
    in: it stands for that path below the home folder, where a terminal starts (the list has it),
    and below every folder of each workspace the search read (fail closed)."""
    paths: list[Path] = []
    for place in hidden_list.always(home, environs):
        paths.append(Path(place.path))
        if place.relative:
            below = os.path.relpath(place.path, os.path.realpath(home))
            paths += [Path(p) for inv in found if inv.found is not None
                      for p in inventory.below_every_folder(below, str(inv.workspace), inv.found)]
    return paths


def _read_only(found: list[inventory.Inventory], writable: list[Path],
               kept: tuple[Path, ...] = ()) -> tuple[list[Path], frozenset[str]]:
    """What to mount read-only (real paths inside a writable folder: outside, the disk is
    read-only already) and, of those, the watched paths that are the mount itself (not reached
    through a link): nothing below them can change during the run."""
    mounts: dict[Path, None] = {}
    for program in existing_real(kept):  # read-only wherever it meets a writable folder, inside or around it
        for folder in writable:
            if is_under(program, folder) or is_under(folder, program):
                mounts.setdefault(program if is_under(program, folder) else folder, None)
    frozen: set[str] = set()
    for inv in found:
        for watched in inv.watched:
            if not watched.mounted or not os.path.lexists(watched.path):
                continue
            real = existing_real([Path(watched.path)])
            if real and any(is_under(real[0], w) for w in writable):
                mounts.setdefault(real[0], None)
                if str(real[0]) == watched.path:
                    frozen.add(watched.path)
    return list(mounts), frozenset(frozen)


def _mounts(spec: SandboxSpec, command: list[str], writable: list[Path], hidden: list[Path],
            read_only: list[Path], found: list[inventory.Inventory], stand_ins: list[Path]) -> list[str]:
    """bwrap's arguments for what the command sees over the read-only root: its own program's
    folders under /tmp, the hidden paths, the writable folders and, inside them, what stays
    read-only (the order matters: a later mount covers an earlier one). ``stand_ins``: the
    placeholders' paths (mounted after these)."""
    argv: list[str] = []
    for folder in _own_folders_in_tmp([command[0], *spec.runs_from, *(_FORWARDER_NEEDS if spec.proxied else ())]):
        argv += _in_private_tmp(folder)
    for path in hidden:
        if not any(is_under(path, w) for w in writable):
            argv += _hide(path, holds_workspace=any(is_under(w, path) for w in writable))
    for folder in writable:
        argv += ["--bind", str(folder), str(folder)]
    # A mount point cannot be renamed: without these, 'mv ~/.config ~/.cfg' (the home folder as
    # the workspace) takes the hidden ~/.config/gcloud along, and the next command, whose list
    # names ~/.config/gcloud, reads ~/.cfg/gcloud; or takes the read-only ~/.config/git along, and
    # a git config of the command's own stands at its name until the check after the command (a
    # 'git status' the person runs meanwhile runs its fsmonitor); 'mv .git .git2' and a rebuilt
    # .git with a hooks folder of the command's own would walk around the read-only hooks.
    # (Shallowest first: a bind covers what was bound below it before.)
    gitdirs = [g for g in existing_real(Path(g) for inv in found for g in inv.self_bound)
               if any(is_under(g, w) for w in writable)]
    kept_in_place = dict.fromkeys([*_holding([*hidden, *read_only, *stand_ins], writable), *gitdirs])
    for folder in sorted(kept_in_place, key=lambda p: len(p.parts)):
        argv += ["--bind", str(folder), str(folder)]
    for path in read_only:
        argv += ["--ro-bind", str(path), str(path)]
    # Last: a mount is taken from the disk as it is, not as the sandbox sees it, so a read-only
    # ``~/.config/git/`` (the home folder as the workspace) would bring the hidden credentials in
    # it back, were they hidden before it.
    for path in hidden:
        if any(is_under(path, w) for w in writable):
            argv += _hide(path)
    return argv


def _holding(kept: list[Path], writable: list[Path]) -> list[Path]:
    """The folders of a workspace between it and a place kept inside it, hidden, read-only or a
    placeholder (``~/.config`` for ``~/.config/gcloud`` or ``~/.config/git`` with the home folder
    open), shallowest first: each is bound onto itself, so the command can neither rename nor
    replace it (the place is a mount point itself)."""
    found: dict[Path, None] = {}
    for path in kept:
        for folder in writable:
            if is_under(path, folder) and path != folder:
                for parent in reversed(path.relative_to(folder).parents[:-1]):
                    found.setdefault(folder / parent, None)
    return sorted(found, key=lambda p: len(p.parts))


def _missing_protected(found: list[inventory.Inventory], writable: list[Path]) -> list[Placeholder]:
    """Stand-ins for the protected paths of each workspace that do not exist yet and take one
    (``Watched.placeholder``): Echo Desk's ``.echo-desk``, the repository's ``hooks`` and
    ``info`` (empty folders, which git neither lists nor commits), and the shell start-up files
    only when the workspace is the home folder, the one place a shell reads them from (an empty
    placeholder file would show up in ``git status`` and be committed by ``git add -A``)."""
    candidates = [(Path(w.path), w.folder) for inv in found for w in inv.watched if w.placeholder]
    return placeholders.missing(candidates, writable)


def _write_private(path: Path, data: bytes) -> None:
    # In Echo Desk's cache folder: 0600 in a 0700 folder (the sandbox cannot use store.private).
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path.parent, 0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def _with_process_limit(command: list[str], limit: int) -> list[str]:
    # prlimit from util-linux is on every Linux desktop; without it the limit is skipped (the
    # pid namespace still ends every process with the command).
    prlimit = "/usr/bin/prlimit"
    if limit > 0 and os.path.exists(prlimit) and stat.S_ISREG(os.stat(prlimit).st_mode):
        return [prlimit, f"--nproc={limit}", "--", *command]
    return command

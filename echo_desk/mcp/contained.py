"""Start a stdio MCP server in the command sandbox (``ServerConfig.sandbox``).

The server gets its own folder writable (its configured ``cwd``, or a folder of its own under
Echo Desk's data folder), the rest of the disk read-only, the secret folders, Echo Desk's own
folders and the paths the person hid in Settings › Sandbox hidden, no network (or, with its own allowed domains, those through the same proxy and
forwarder as ``run_command``), and the environment allow-list plus its own configured variables.
Where the sandbox cannot run, the server is not started: it never runs unsandboxed silently.

A server working in a folder the person chose (its ``cwd``) is checked as a command is, for what
could make a program run code later there (a git hook, an ``.envrc``): after each of its calls
and when it stops, since it runs on between calls (``Contained.planted``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from echo_desk import sandbox
from echo_desk.i18n import N_, deferred, for_person
from echo_desk.mcp.config import ServerConfig
from echo_desk.mcp.explain import explained
from echo_desk.mcp.own_folder import own_folder_of, server_folder
from echo_desk.sandbox.domains import DomainRule, parse_rules
from echo_desk.sandbox.proxy import DomainProxy, RelayListener
from echo_desk.store import own_files, paths
from echo_desk.store.settings import SandboxSettings
from echo_desk.tools.planted import Planted

#: Builds a server's proxy from its rules (tests give it a resolver mapping a test name to loopback).
make_proxy: Callable[[tuple[DomainRule, ...]], DomainProxy] = DomainProxy


def network_for(cfg: ServerConfig) -> RelayListener | None:
    """The proxy (listening on a private Unix socket) for a sandboxed server with allowed
    domains, on the running loop; ``None`` without domains (no network). Close it when the
    server's connection ends."""
    if not (cfg.sandbox and cfg.allowed_domains):
        return None
    return RelayListener(make_proxy(parse_rules(cfg.allowed_domains)))


class SandboxUnavailableError(RuntimeError):
    """The server is set to run in the sandbox, and the sandbox cannot run here (or not in the
    folder it is set to work in). Its message is ``deferred``: the server's row says it in the
    language of the moment (``explain.explained``), never as a developer's English quoted."""


def _refuse_own_places(name: str, folder: Path) -> None:
    """A server's ``cwd`` is bound writable even inside a hidden folder, so one inside Echo
    Desk's own folders (the Connected apps records and backups, another server's folder, the
    sandbox's seccomp program) or a keyring folder could change Echo Desk's own trust: refused.
    Its own folder (``server_folder``) is the one exception."""
    real = Path(os.path.realpath(folder))
    if real == Path(os.path.realpath(own_folder_of(name, sandboxed=True))):
        return
    held = paths.own_place_holding(real)
    if held is not None:
        raise SandboxUnavailableError(deferred(
            N_("“{name}” is set to work in {folder}, inside Echo Desk's own folder {held}: a server may not "
               "change Echo Desk's own files, so it was not started. Choose another working folder for it."),
            name=name, folder=str(folder), held=str(held[1])))


@dataclass
class Contained:
    """How to start one sandboxed server, and the check of what it left in its folder."""

    command: str
    args: list[str]
    env: dict[str, str]
    launch: sandbox.Launch
    _checking: threading.Lock = field(default_factory=threading.Lock)

    @property
    def checked(self) -> bool:
        """Whether ``planted`` looks at anything (the server works in a folder the person chose)."""
        return bool(self.launch.guards)

    def planted(self) -> tuple[Planted, ...]:
        """What the server left since it started that could make a program run code later: put
        aside, and what it changed or removed put back (``sandbox.guard``). Blocking (it walks
        the folder): call off the loop. Each time against the snapshot taken before the start,
        so what it plants between two calls is found at the next one; one check at a time."""
        with self._checking:
            return tuple(p for guard in self.launch.guards for p in guard.after())


def persons_paths(settings: SandboxSettings) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What of the person's sandbox settings a server is started with (hidden, protected): a
    change to them needs a new start to take effect."""
    return tuple(settings.hidden_paths), tuple(settings.protected_paths)


def contained(cfg: ServerConfig, env: dict[str, str], relay_path: Path | None = None,
              settings: SandboxSettings | None = None) -> Contained:
    """How to start ``cfg`` inside the sandbox. With allowed domains, ``relay_path`` is the Unix
    socket of the server's proxy (``network_for``). ``settings``: the person's hidden paths and
    additions to the protected list apply to servers as to commands."""
    found = sandbox.availability()
    if not found.available or found.bwrap is None:
        # The sandbox's own reason and fix, in the person's language (``found.english()`` is the model's).
        raise SandboxUnavailableError(deferred(
            N_("“{name}” is set to run in the sandbox, which is unavailable here, so it was not started. "
               "{reason} {fix} Or turn this server's sandbox off to run it with all your rights."),
            name=cfg.name, reason=deferred(found.reason, detail=found.detail),
            fix=deferred(found.fix) if found.fix else ""))
    folder = Path(cfg.cwd).expanduser() if cfg.cwd else server_folder(cfg.name, sandboxed=True)
    if cfg.cwd:
        _refuse_own_places(cfg.name, folder)
    try:
        own_files.unshare_own_program()
    except OSError as exc:
        raise SandboxUnavailableError(deferred(
            N_("A file of Echo Desk's own program has another name (a hard link) that a sandboxed server could "
               "change it through, and Echo Desk could not give it a copy of its own ({error}), so “{name}” was "
               "not started."), error=explained(exc), name=cfg.name)) from exc  # ``exc``: technical detail
    added = settings or SandboxSettings()
    by_person = [*(Path(p).expanduser() for p in added.hidden_paths if p.strip()),
                 *_in_servers_home(added.hidden_paths, env.get("HOME", ""), folder)]
    spec = sandbox.SandboxSpec(writable=(folder,), cwd=folder, hidden=tuple(folder for _, folder in paths.own_places()),
                               hidden_by_person=tuple(by_person),
                               runs_from=(cfg.command, *cfg.args),
                               # A server runs until stopped, so no placeholders (they would
                               # stay): protected paths missing in its folder are not covered
                               # while it runs, only checked after (docs/sandbox.md).
                               guard_missing=False,
                               # Its own folder under Echo Desk's is no one's project: nothing
                               # there runs for the person (not even this server outside the
                               # sandbox: its folder there is another, ``own_folder``), and a
                               # server may keep a repository.
                               check_after=bool(cfg.cwd), protected=tuple(added.protected_paths),
                               put_aside=paths.put_aside_dir(), proxied=relay_path is not None,
                               kept_read_only=paths.own_program())
    try:
        launch = sandbox.prepare(spec, [cfg.command, *cfg.args], found.bwrap, own_env=env,
                                 seccomp_file=paths.cache_dir() / "sandbox" / "seccomp.bpf", relay_path=relay_path)
    except sandbox.HiddenWorkspace as exc:
        raise _hidden_folder(cfg.name, exc) from None
    except sandbox.LinksTooFar as exc:
        raise _unknown_links(cfg.name, exc) from None
    except sandbox.HiddenSystemFolder as exc:
        raise _hides_what_runs(cfg.name, exc) from None
    except sandbox.ProtectedLinkToWorkspace as exc:
        raise _unavailable(N_(
            "{name} was not started: the link {links} leads a place programs run code from (an editor's or shell's "
            "settings) to the folder it is set to work in or a folder holding it, so the sandbox cannot keep that "
            "code read-only without making the whole folder read-only. Point the link at a subfolder, or choose "
            "another working folder for it."), {"name": cfg.name, "links": exc.links}) from None
    return Contained(launch.argv[0], launch.argv[1:], launch.env, launch)



def _in_servers_home(hidden_paths: list[str], home: str, folder: Path) -> list[Path]:
    """The person's hidden ``~/…`` paths in the server's own home folder too, when it is given
    one (``"HOME": "/srv/agent"``): the person wrote them for their own, and a tool in the server
    reads ``~`` as its ``HOME`` (a relative one from the folder it starts in). Both are hidden."""
    if not home:
        return []
    theirs = folder / Path(home).expanduser()
    return [theirs / p.strip()[2:] for p in hidden_paths if p.strip().startswith("~/")]


def _hidden_folder(name: str, exc: sandbox.HiddenWorkspace) -> SandboxUnavailableError:
    """The server's folder is hidden (``GNUPGHOME`` names it, a hidden place links to it, or the
    person hid it): it would work in an empty, read-only folder. Said on its row in the person's
    language (a plain ``ValueError`` was quoted there as technical detail, in English); the
    server never ran."""
    if exc.links:
        message = N_("{name} was not started: the sandbox hides {path}, the folder it is set to work in: a hidden "
                     "place leads there through {links}. Remove that link, or choose another working folder for it.")
        params: dict[str, object] = {"name": name, "path": str(exc.path), "links": exc.links}
    elif exc.variables:
        message = N_("{name} was not started: the sandbox hides {path}, the folder it is set to work in: {variables} "
                     "names it as a place of keys or credentials. Choose another working folder for it, or change "
                     "{variables}.")
        params = {"name": name, "path": str(exc.path), "variables": exc.variables}
    else:
        message = N_("{name} was not started: the sandbox hides {path}, the folder it is set to work in: it is on "
                     "the list of hidden places. Choose another working folder for it.")
        params = {"name": name, "path": str(exc.path)}
    return _unavailable(message, params)


def _unknown_links(name: str, exc: sandbox.LinksTooFar) -> SandboxUnavailableError:
    """A hidden (or protected) place's links lead further than the sandbox follows: what they lead
    to could not be hidden (kept read-only), so the server is not started (``launch.LinksTooFar``)."""
    if exc.hidden:
        message = N_("{name} was not started: the links below {place}, a hidden place, lead on further than the "
                     "sandbox follows (more than {bound} folders or {entries} entries in them), so it cannot hide "
                     "what they lead to. Remove some of those links.")
    else:
        message = N_("{name} was not started: the links below {place}, a place programs run code from, lead on "
                     "further than the sandbox follows (more than {bound} folders or {entries} entries in them), so "
                     "it cannot keep what they lead to read-only. Remove some of those links.")
    return _unavailable(message, {"name": name, "place": str(exc.place), "bound": exc.bound, "entries": exc.entries})


def _hides_what_runs(name: str, exc: sandbox.HiddenSystemFolder) -> SandboxUnavailableError:
    """A hidden place leads to a folder every program needs (``launch.HiddenSystemFolder``): the
    server is not started."""
    if exc.links:
        message = N_("{name} was not started: the sandbox would hide {path}, which every program needs (programs, "
                     "their libraries or settings): a hidden place leads there through {links}. Remove that link.")
        params: dict[str, object] = {"name": name, "path": str(exc.path), "links": exc.links}
    elif exc.variables:
        message = N_("{name} was not started: the sandbox would hide {path}, which every program needs (programs, "
                     "their libraries or settings): {variables} names it as a place of keys or credentials. "
                     "Change {variables}.")
        params = {"name": name, "path": str(exc.path), "variables": exc.variables}
    else:
        message = N_("{name} was not started: the sandbox would hide {path}, which every program needs (programs, "
                     "their libraries or settings): it is on the list of hidden places. Take it off the list in "
                     "Settings › Sandbox.")
        params = {"name": name, "path": str(exc.path)}
    return _unavailable(message, params)


def _unavailable(message: str, params: dict[str, object]) -> SandboxUnavailableError:
    english = message.format(**{k: ", ".join(v) if isinstance(v, tuple) else v for k, v in params.items()})
    return SandboxUnavailableError(for_person(english, message, **params))

"""Where ``run_command`` runs a command: in the sandbox or outside, decided from the workspace's
sandbox settings and whether the sandbox works here, shown as a target before approval.

The sandbox itself (``echo_desk.sandbox``) knows nothing of settings or Echo Desk's folders; this
module is the glue: it passes in the workspaces, Echo Desk's own folders, the person's hidden
paths, and turns the plan into the targets the approval policy reads.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from echo_desk import sandbox
from echo_desk.common.diffs import quote_path
from echo_desk.i18n import N_, Deferred, for_person
from echo_desk.sandbox.domains import BadDomain, DomainRule, parse_rules
from echo_desk.sandbox.proxy import DomainProxy
from echo_desk.store import own_files, paths
from echo_desk.store.settings import SandboxMode, Settings
from echo_desk.tools import SANDBOX_TARGET, Placement, Protection, ProtectionReason, Target, ToolError
from echo_desk.tools.planted import Planted
from echo_desk.tools.planted_told import first_and_counted, named_and_counted
from echo_desk.tools.sandbox_kept import FOLDERS_CHECKED_KEY, MAX_ENTRIES, REFUSED_MORE_KEY

NO_NETWORK = "network: none"
ONLY_DOMAINS = "network: only "


def network_detail(domains: Iterable[str]) -> str:
    """The sandbox target's network line: English for the model and the terminal, carrying its
    message id and the domains for the dialog (a ``Deferred``: nothing parses the English back)."""
    listed = ", ".join(domains)
    if not listed:
        return Deferred(NO_NETWORK, N_("no network"))
    return Deferred(ONLY_DOMAINS + listed, N_("network only to: {domains}"), {"domains": listed})


@dataclass(frozen=True)
class CommandPlan:
    """Where one command will run; ``outside_reason`` says why it runs outside (``None``: it does not
    need saying: in the sandbox, or the sandbox is off)."""

    mode: SandboxMode
    sandboxed: bool
    availability: sandbox.Availability
    outside_reason: ProtectionReason | None = None
    #: Allowed domains as the person wrote them (empty: no network at all).
    domains: tuple[str, ...] = ()

    @property
    def rules(self) -> tuple[DomainRule, ...]:
        return parse_rules(self.domains)

    @property
    def network(self) -> str:
        return network_detail(self.domains)

    @property
    def target(self) -> Target | None:
        """The line the approval dialog shows (and the policy reads); none when the sandbox is off."""
        if self.sandboxed:
            return Target(kind=SANDBOX_TARGET, value=Placement.IN_SANDBOX, detail=self.network)
        if self.outside_reason is not None:
            why = Protection(reason=self.outside_reason)
            return Target(kind=SANDBOX_TARGET, value=Placement.OUTSIDE_SANDBOX, protections=(why,))
        return None

    def metadata(self) -> dict[str, object]:
        network = ("domains" if self.domains else "none") if self.sandboxed else "host"
        return {"mode": self.mode.value, "sandboxed": self.sandboxed, "network": network,
                "domains": list(self.domains) if self.sandboxed else [], "status": self.availability.status.value}


def plan_command(settings: Settings, workspace: Path | None, *, outside: bool) -> CommandPlan:
    """The plan for a command in ``workspace``; ``outside``: the model asked to leave the sandbox."""
    chosen = settings.sandbox.for_workspace(workspace)
    mode = chosen.mode
    found = sandbox.availability()
    if mode is SandboxMode.OFF:
        return CommandPlan(mode, False, found)
    if mode is SandboxMode.ASK_UNSANDBOXED:
        return CommandPlan(mode, False, found, ProtectionReason.OUTSIDE_SANDBOX_ALWAYS_ASK)
    if not found.available:
        return CommandPlan(mode, False, found, ProtectionReason.OUTSIDE_SANDBOX_UNAVAILABLE)
    if outside:
        return CommandPlan(mode, False, found, ProtectionReason.OUTSIDE_SANDBOX_ASKED)
    return CommandPlan(mode, True, found, domains=tuple(d for d in chosen.allowed_domains if _valid(d)))


def _valid(domain: str) -> bool:
    # The settings page refuses bad entries; one written by hand into the file is left out.
    try:
        DomainRule.parse(domain)
    except BadDomain:
        return False
    return True


def _spellings(folder: Path) -> set[str]:
    real = os.path.realpath(folder)
    found = {str(folder), real}
    home = str(Path.home())
    for path in (str(folder), real):
        if path.startswith(home + os.sep):
            rest = path[len(home):]
            found |= {f"~{rest}", f"$HOME{rest}", f"${{HOME}}{rest}"}
    return found


_WORD = re.compile(r"""[^\s;&|()<>`'"]+""")


def _words_leading_to(command: str, cwd: Path) -> list[Path]:
    """Where each path-like word of ``command`` leads through the symlinks on disk now (a link
    planted in the workspace, ``cfg -> ~/.config/echo-desk``, makes ``cp x cfg/settings.json``
    write there without naming it). ``--opt=path`` counts as ``path``; words with a ``$`` are
    left to the spellings above. Best effort, like the rest."""
    found: list[Path] = []
    for match in _WORD.finditer(command):
        word = match.group(0).split("=", 1)[-1] if match.group(0).startswith("-") else match.group(0)
        if not word or "$" in word or word.startswith("~"):
            continue
        joined = word if os.path.isabs(word) else os.path.join(cwd, word)
        try:
            found.append(Path(os.path.realpath(joined)))
        except OSError:  # a link it may not read (/proc/1/root): the command cannot follow it either
            continue
    return found


def own_folder_targets(command: str, cwd: Path, *, sandboxed: bool) -> tuple[Target, ...]:
    """Protected targets for Echo Desk's own folders that the command names or runs in, and,
    run outside the sandbox, its own program.

    Best effort on the command text (a command can build a path at run time); in the sandbox
    these folders are hidden, and its program read-only, anyway, so this is the always-ask for
    commands run outside. (Running Echo Desk's own Python in the sandbox is no write.)
    """
    real_cwd = Path(os.path.realpath(cwd))
    leads = _words_leading_to(command, real_cwd)

    def reached(folder: Path) -> Path | None:
        real = Path(os.path.realpath(folder))
        named = any(spelling in command for spelling in _spellings(folder))
        inside = real_cwd == real or real_cwd.is_relative_to(real)
        linked = any(p == real or p.is_relative_to(real) for p in leads)
        return real if named or inside or linked else None

    found: list[Target] = []
    for reason, folder in paths.own_places():
        if (real := reached(folder)) is not None:
            found.append(Target(kind="path", value=str(real), protections=(Protection(reason=reason),)))
    for folder in () if sandboxed else paths.own_program():
        if (real := reached(folder)) is not None:
            found.append(Target(kind="path", value=str(real), protections=(paths.own_program_protection(folder),)))
    return tuple(found)


def sandbox_spec(settings: Settings, plan: CommandPlan, writable: Iterable[Path], cwd: Path) -> sandbox.SandboxSpec:
    own_program_unshared()
    hidden = [folder for _, folder in paths.own_places()]
    by_person = [Path(p).expanduser() for p in settings.sandbox.hidden_paths if p.strip()]
    return sandbox.SandboxSpec(writable=tuple(writable), cwd=cwd, hidden=tuple(hidden),
                               hidden_by_person=tuple(by_person), proxied=bool(plan.domains),
                               protected=tuple(settings.sandbox.protected_paths), put_aside=paths.put_aside_dir(),
                               kept_read_only=paths.own_program())


def own_program_unshared() -> None:
    """No file of Echo Desk's own program may have a name a sandboxed process can write through
    (``store.own_files``); when one cannot be given a copy of its own, nothing runs."""
    try:
        own_files.unshare_own_program()
    except OSError as exc:
        raise ToolError(for_person(
            f"nothing was run: a file of Echo Desk's own program has another name (a hard link) that a sandboxed "
            f"command could change it through, and Echo Desk could not give it a copy of its own ({exc})",
            N_("Nothing was run: a file of Echo Desk's own program has another name (a hard link) that a sandboxed "
               "command could change it through, and Echo Desk could not give it a copy of its own ({error})."),
            error=str(exc))) from exc


#: Builds the proxy from the rules (tests give it a resolver that maps a test name to loopback).
make_proxy: Callable[[tuple[DomainRule, ...]], DomainProxy] = DomainProxy


def start_network(plan: CommandPlan, launch: sandbox.Launch | None) -> DomainProxy | None:
    """The proxy for the allowed domains, serving the forwarder of ``launch`` (on this loop)."""
    if launch is None or launch.relay is None:
        return None
    proxy = make_proxy(plan.rules)
    proxy.attach(launch.relay)
    return proxy


async def finish_network(proxy: DomainProxy | None, meta: dict[str, object]) -> str:
    """Stop the proxy; record refused hosts in ``meta`` and return the line for the model."""
    if proxy is None:
        return ""
    await proxy.close()
    # A command may try thousands of hosts: the card keeps the stored cap, the model a named few.
    meta["refused_hosts"] = list(proxy.refused[:MAX_ENTRIES])
    if len(proxy.refused) > MAX_ENTRIES:
        meta[REFUSED_MORE_KEY] = len(proxy.refused) - MAX_ENTRIES
    if not proxy.refused:
        return ""
    hosts = first_and_counted(proxy.refused, between=", ")
    return (f"\n[sandbox] network access refused for: {hosts} (not an allowed domain of this workspace, a bare IP "
            "address, or a local address). The person can add a domain in Settings › Sandbox.")


def planted_facts(planted: tuple[Planted, ...], launch: sandbox.Launch | None,
                  meta: dict[str, object], *, checked_later: bool = False) -> str:
    """Record in ``meta`` what the command tried to plant (typed: ``Planted.to_json``; the card
    reads it) and return the line for the model ('' when nothing). ``checked_later``: the sandbox
    still ran when the command ended, and is checked when it ends."""
    if launch is None:
        return ""
    meta["planted"] = [p.to_json() for p in planted]
    meta["search_cut"] = launch.search_cut
    if launch.search_cut:
        meta[FOLDERS_CHECKED_KEY] = launch.max_folders
    meta["links_cut"] = list(launch.links_cut)
    meta["checked_later"] = checked_later
    # Said even when nothing was found: past the bound, "nothing" means "nothing in what was looked at".
    unchecked = (f"\n[sandbox] only the first {launch.max_folders:,} folders of the workspace were checked for "
                 "planted files (git hooks and the like); what the command left in others was not looked at."
                 if launch.search_cut else "")
    if checked_later:
        return ("\n[sandbox] processes of the command still ran when it ended: what they leave in the workspace "
                "is checked, and put aside or back, when they end." + unchecked)
    if not planted:
        return unchecked
    # Named up to a bound, with the total: thousands of planted files must not flood the model.
    what = named_and_counted(planted, lambda p: f"{quote_path(p.full())} ({p.change.value})")
    return (f"\n[sandbox] blocked: the command tried to plant files that make a program run code later "
            f"(git hooks or configuration, editor or shell start-up files): {what}. They were moved out of "
            "the workspace (what it changed or removed is back as it was); do not try to work around this."
            + unchecked)


def blocked_note(blocked: tuple[sandbox.Blocked, ...]) -> str:
    """English lines for the model when a sandboxed command failed, saying what was refused."""
    if not blocked:
        return ""
    what = "; ".join(b.english for b in blocked)
    return (f"\n[sandbox] the command probably failed because the sandbox refused: {what}. "
            "If it must run outside the sandbox, call run_command again with outside_sandbox: true; "
            "the person has to approve that themselves.")

"""Wires the engine together for the app, the CLI and tests: settings, registry (built-ins,
plugins, later MCP), breakers, audit, dispatcher and schema factory. Qt-free."""

from __future__ import annotations

import functools
import logging
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from echo_desk.agent.breaker import BreakerBoard
from echo_desk.agent.dispatcher import Dispatcher
from echo_desk.agent.model import ChatModel
from echo_desk.agent.permissions import PermissionEngine, ToolStanding, registered_grammar
from echo_desk.agent.permissions.standing import tool_standing
from echo_desk.agent.policy import is_enabled
from echo_desk.agent.registry import RegistrationResult, ToolRegistry
from echo_desk.agent.schema import SchemaFactory
from echo_desk.agent.sources import ToolSource
from echo_desk.agent.undo.journal import UndoJournal
from echo_desk.agent.undo.revert import Reverter
from echo_desk.agent.undo.wiring import open_undo
from echo_desk.store import paths
from echo_desk.store.audit import AuditLog, server_left
from echo_desk.store.grants import GRANTS_FILE, GrantStore
from echo_desk.store.left_at_quit import LEFT_AT_QUIT_FILE, LeftAtQuitStore
from echo_desk.store.owed_checks import OWED_CHECKS_FILE, OwedChecksStore
from echo_desk.store.settings import SettingsStore
from echo_desk.tools.base import Tool
from echo_desk.tools.host import ToolHost
from echo_desk.tools.planted_told import named_and_counted

if TYPE_CHECKING:
    from echo_desk.agent.owed_checks import CardsToShow, UpdatedCard
    from echo_desk.mcp.manager import McpManager
    from echo_desk.mcp.owed_server_checks import OwedServerChecks
    from echo_desk.mcp.untold import Untold
    from echo_desk.store.conversations import ConversationStore
    from echo_desk.store.owed_checks import OwedCheck

log = logging.getLogger(__name__)

AUDIT_FILE = "audit.sqlite3"


@dataclass
class Runtime:
    settings: SettingsStore
    registry: ToolRegistry
    breakers: BreakerBoard
    audit: AuditLog
    dispatcher: Dispatcher
    schema_factory: SchemaFactory
    problems: list[RegistrationResult] = field(default_factory=list)
    #: The MCP servers of mcp.json, once ``attach_mcp`` ran.
    mcp: McpManager | None = None
    #: What tools wrote, kept for Revert, and the reverter (``echo-desk changes``, the chat).
    undo: UndoJournal | None = None
    reverter: Reverter | None = None
    #: What sandboxed servers left that was put aside as the MCP servers closed, until told.
    left_at_quit: LeftAtQuitStore | None = None
    #: Each sandboxed command's check, kept as owed until made (``store.owed_checks``).
    owed_checks: OwedChecksStore | None = None
    #: The connected app this engine serves alone (the gateway's own engine, when the app cannot
    #: be reached): named on the rows of what its MCP servers left. '' for the app and the CLI,
    #: whose servers serve every caller.
    client: str = ""
    #: The saved cards a server's start brought up to date by making the owed checks first,
    #: for the app's open chat (``agent.owed_checks.CardsToShow``; the CLI and the gateway, with
    #: no chat, keep the few there are until they end).
    cards_to_show: CardsToShow = field(default_factory=lambda: _cards_to_show())

    @classmethod
    def create(
        cls,
        *,
        settings_store: SettingsStore | None = None,
        data_dir: Path | None = None,
        with_builtins: bool = True,
        with_plugins: bool = True,
        extra_tools: list[Tool] | None = None,
        client: str = "",
    ) -> Runtime:
        settings = settings_store or SettingsStore.in_dir(paths.config_dir())
        registry = ToolRegistry()
        problems: list[RegistrationResult] = []
        owed_checks = OwedChecksStore((data_dir or paths.data_dir()) / OWED_CHECKS_FILE)
        if with_builtins:
            for tool in _builtin_tools(settings, owed_checks):
                problems.append(registry.register(tool, source="builtin"))
        if with_plugins:
            problems.extend(registry.load_plugins())
        for tool in extra_tools or []:
            problems.append(registry.register(tool, source="plugin"))
        breakers = BreakerBoard(
            threshold=lambda: settings.current.breaker_threshold,
            cooldown=lambda: settings.current.breaker_cooldown_seconds,
        )
        audit = AuditLog((data_dir or paths.data_dir()) / AUDIT_FILE)
        permissions = _permission_engine(settings, data_dir or paths.data_dir(), registry)
        undo, reverter = open_undo(data_dir or paths.data_dir(), settings)
        dispatcher = Dispatcher(registry, settings, audit, breakers, permissions=permissions, undo=undo)
        runtime = cls(
            settings=settings,
            registry=registry,
            breakers=breakers,
            audit=audit,
            dispatcher=dispatcher,
            schema_factory=SchemaFactory(registry, settings, breakers),
            problems=[p for p in problems if not p.ok],
            undo=undo,
            reverter=reverter,
            left_at_quit=LeftAtQuitStore((data_dir or paths.data_dir()) / LEFT_AT_QUIT_FILE),
            owed_checks=owed_checks,
            client=client,
        )
        if with_builtins:
            # Listed everywhere (CLI and app see the same catalog); it starts sub-agents only
            # once the app or `ask` connects a model through enable_delegation.
            from echo_desk.agent.delegate import no_model

            runtime.enable_delegation(no_model)
        return runtime

    def enable_delegation(self, model_factory: Callable[[], ChatModel]) -> RegistrationResult:
        """Register ``delegate``: sub-agents get a fresh model from ``model_factory`` each."""
        from echo_desk.agent.delegate import DelegateTool, DelegationServices

        self.registry.unregister("delegate")
        services = DelegationServices(
            model_factory=model_factory, dispatcher=self.dispatcher, schema_factory=self.schema_factory
        )
        return self.registry.register(DelegateTool(services), source="builtin")

    def is_enabled(self, name: str) -> bool:
        entry = self.registry.get(name)
        return entry is not None and is_enabled(entry, self.settings.current)

    @property
    def permissions(self) -> PermissionEngine | None:
        """The permission rules engine (rules, grants, trust) the dispatcher consults."""
        return self.dispatcher.permissions

    def standings(self, names: Iterable[str], workspaces: tuple[Path, ...] = ()) -> dict[str, ToolStanding]:
        """``standing`` for many tools at once (the rules are loaded once, not per tool)."""
        engine = self.permissions
        rules = engine.load(workspaces).rules if engine is not None else ()
        settings = self.settings.current
        found = ((name, self.registry.get(name)) for name in names)
        return {name: tool_standing(entry, settings, rules) for name, entry in found if entry is not None}

    def standing(self, name: str, workspaces: tuple[Path, ...] = ()) -> ToolStanding | None:
        """The engine's one answer for a tool: enabled? default? what decided? how many rules."""
        entry = self.registry.get(name)
        if entry is None:
            return None
        engine = self.permissions
        rules = engine.load(workspaces).rules if engine is not None else ()
        return tool_standing(entry, self.settings.current, rules)

    async def attach_mcp(
        self, host: ToolHost | None = None, *, wait: bool = True, own_thread: bool = True, **options: Any
    ) -> McpManager:
        """Start the MCP servers of mcp.json and register their tools (``mcp:<server>``).

        ``host`` answers elicitations and, if it has ``approve_server_start``, first starts.
        ``own_thread=False`` keeps the sessions on the calling loop (headless use).
        ``options`` go to ``echo_desk.mcp.attach_mcp`` (``only``, ``handshake_timeout``).
        """
        from echo_desk.mcp import attach_mcp

        if self.mcp is None:
            self.mcp = await attach_mcp(
                self.registry, self.settings, host, wait=wait, own_thread=own_thread, owed=self.owed_server_checks(),
                **options
            )
            # What a server's end put aside as it stopped (in Settings, or on its own) is in the
            # audit log from then on, not only as Echo Desk quits.
            self.mcp.record_left = functools.partial(record_server_left, self.audit, client=self.client)
        return self.mcp

    async def close_mcp(self, *, shown_here: bool = False) -> list[Untold]:
        """Close every MCP session and end every server process. What the checks at the servers'
        ends put aside that no call said is returned and kept (``left_at_quit``): the app's next
        start shows it, unless ``shown_here`` (the caller shows it to the person now)."""
        if self.mcp is None:
            return []
        manager, self.mcp = self.mcp, None
        await manager.aclose()
        untold = manager.left_untold()
        keep_untold(self.left_at_quit, untold, shown_here=shown_here, audit=self.audit, client=self.client)
        return untold

    def make_owed_checks(self, conversations: ConversationStore | None = None,
                         updated: list[UpdatedCard] | None = None, made: list[OwedCheck] | None = None) -> int:
        """Make the checks of sandboxed commands and servers that an earlier process owed (killed,
        or quit before a late check ended): recorded, and their saved messages brought up to date
        (in ``conversations``, else in the app's store of the data folder; each added to
        ``updated``); the person is told from ``owed_checks.untold()``. How many were made (each
        added to ``made``)."""
        from echo_desk.agent.owed_checks import conversations_beside, make_owed_checks

        if self.owed_checks is None:
            return 0
        return make_owed_checks(self.owed_checks, self.audit, conversations, updated,
                                conversations_at=conversations_beside(self.owed_checks), made=made)

    def owed_server_checks(self) -> OwedServerChecks | None:
        """Where its sandboxed MCP servers' checks are kept as owed (``mcp.owed_server_checks``)."""
        from echo_desk.mcp.owed_server_checks import OwedServerChecks

        if self.owed_checks is None:
            return None
        return OwedServerChecks(self.owed_checks, self.make_owed_checks_first, client=self.client)

    def make_owed_checks_first(self) -> None:
        """Before a sandboxed MCP server takes its snapshot of a folder (blocking: off the loop):
        the owed checks, so that what they put aside is gone from it first (else the server's own
        checks would take that for its doing, ``mcp.owed_server_checks``). The saved cards it
        brings up to date go to ``cards_to_show`` (a chat open on one shows it). A failure is
        logged: it starts all the same."""
        updated: list[UpdatedCard] = []
        try:
            self.make_owed_checks(updated=updated)
            self.cards_to_show.add(updated)
        except Exception:
            log.exception("the checks owed since an earlier Echo Desk was closed could not be made")

    async def aclose(self) -> None:
        await self.close_mcp()
        self.close()

    def close(self) -> None:
        self.dispatcher.close()
        self.audit.close()
        if self.permissions is not None:
            self.permissions.grants.close()
        if self.undo is not None:
            self.undo.close()


def _cards_to_show() -> CardsToShow:
    from echo_desk.agent.owed_checks import CardsToShow

    return CardsToShow()


def keep_untold(store: LeftAtQuitStore | None, untold: Iterable[Untold], *, shown_here: bool = False,
                audit: AuditLog | None = None, client: str = "") -> None:
    """Record each server's ``Untold`` in ``store``, for the person, and in ``audit``, where no call's
    row says it, naming ``client`` (``Runtime.client``) when one app's engine ran the servers (a
    store that fails is logged: quitting goes on)."""
    for left in untold:
        log.warning("MCP server %s left files that were put aside as it closed: %s", left.server,
                    named_and_counted(left.planted, lambda p: p.shown))
        unrecorded = tuple(p for p in left.planted if p not in left.recorded)  # (recorded as it stopped)
        if audit is not None and unrecorded:
            try:
                record_server_left(audit, replace(left, planted=unrecorded), client=client)
            except Exception:  # a bug in building one record must not stop the quit
                log.exception("what MCP server %s left could not be recorded in the audit log", left.server)
        if store is None:
            continue
        try:
            store.add(left.server, left.folder, [p.to_json() for p in left.planted], told=shown_here)
        except (OSError, sqlite3.Error):
            log.exception("what MCP server %s left could not be kept to be shown at the next start", left.server)


def _permission_engine(settings: SettingsStore, data_dir: Path, registry: ToolRegistry) -> PermissionEngine:
    """Rules live next to the settings file (its folder is the config dir the floor protects);
    a rule naming a tool reads its pattern in the grammar the registered tool declares."""
    config = settings.path.parent if settings.path is not None else paths.config_dir()
    return PermissionEngine(config_dir=config, grants=GrantStore(data_dir / GRANTS_FILE),
                            tools=registered_grammar(registry.get))


def _builtin_tools(settings: SettingsStore, owed: OwedChecksStore) -> list[Tool]:
    from echo_desk.builtins import builtin_tools
    from echo_desk.builtins.database import database_tools

    # The database tools read the connection list from the settings on every use.
    return [*builtin_tools(lambda: settings.current, owed), *database_tools(settings)]


def record_server_left(audit: AuditLog, left: Untold, client: str = "") -> None:
    """The audit row of what ``left.server`` left in its folder that no call's row says (``client``:
    the connected app whose engine ran it, ``Runtime.client``)."""
    audit.append(server_left(left.server, str(ToolSource.mcp(left.server)), left.folder, left.planted, time.time(),
                             client=client))

"""Everything the window needs from the rest of the app, loaded after the first frame.

Heavy modules (pydantic settings, the engine, MCP, providers, a local llama.cpp server) are
imported here, off the first paint. Each missing piece is recorded with the reason, so the
window can say what is not there instead of pretending.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

from echo_desk.common.visible_text import visible
from echo_desk.i18n import N_, _, deferred, sentences, shown
from echo_desk.ui.app.conversations import open_store
from echo_desk.ui.core.backend import CatalogBackend, ModelFactory
from echo_desk.ui.core.marshal import BackgroundOp
from echo_desk.ui.widgets.failure_text import failure_said

if TYPE_CHECKING:  # loaded after the first frame, see load_services
    from echo_desk.agent.host import Host
    from echo_desk.agent.model import ChatModel
    from echo_desk.gateway.service import GatewayService
    from echo_desk.mcp.manager import McpManager
    from echo_desk.runtime import Runtime
    from echo_desk.store.conversations import ConversationStore
    from echo_desk.store.settings import LocalModelSettings, ProviderSettings, SettingsStore
    from echo_desk.tools.host import ToolHost

log = logging.getLogger(__name__)


@dataclass
class Services:
    settings: SettingsStore
    backend: CatalogBackend
    runtime: Runtime | None
    conversations: ConversationStore
    model: ChatModel | None = None
    #: Why no model is connected, in sentences of Echo Desk's own (``deferred``: the banner says
    #: them in the language of the moment); the exception's English goes to the log only.
    model_error: str = ""
    providers_available: bool = False
    #: Why the tool engine did not start, a clause (``deferred``), likewise.
    engine_error: str = ""
    mcp: McpManager | None = None
    #: Why the MCP servers did not start, a clause (``deferred``), likewise.
    mcp_error: str = ""
    #: Echo Desk as an MCP server for other clients (``echo-desk gateway``), once started.
    gateway: GatewayService | None = None
    #: Why the gateway did not start, a clause (``deferred``), likewise.
    gateway_error: str = ""

    def banner(self) -> str:
        """The honest one-paragraph state of the chat ('' when all is well)."""
        notes: list[str] = []
        if self.runtime is None:
            notes.append(sentences(
                _("The tool engine could not be started: {reason}. The agent can neither answer nor use "
                  "tools.").format(reason=_reason(self.engine_error) or _("not available in this build")),
                _("Restart Echo Desk to try again; started from a terminal, it prints the technical detail "
                  "there.")))
        if self.model is None:
            how = _("To connect one, open Settings › Models and choose the built-in local model, an Ollama or "
                    "other OpenAI-compatible server, Anthropic or Gemini.")
            if not self.providers_available:
                notes.append(_("No model is connected, so the agent cannot answer yet. Model providers are not "
                               "available in this build yet; once they are, Settings › Models connects the "
                               "built-in local model, an Ollama or other OpenAI-compatible server, Anthropic "
                               "or Gemini."))
            elif self.model_error:
                notes.append(sentences(_("No model is connected, so the agent cannot answer yet."),
                                       _reason(self.model_error), how))
            else:
                notes.append(_("No model is connected, so the agent cannot answer yet. {how}").format(how=how))
        return "\n".join(notes)

    async def close_gateway(self) -> None:
        """Stop serving connected apps: their calls are withdrawn, their handed sessions handed
        back to their gateways (once; the app's shutdown does it before refusing its dialogs)."""
        if self.gateway is not None:
            gateway, self.gateway = self.gateway, None
            await gateway.shutdown()

    async def aclose(self) -> None:
        from echo_desk.store import own_files

        await BackgroundOp(own_files.stop_background).run_async()  # its thread must not outlive us
        # The gateway first: it runs on the MCP manager's loop, and its clients' calls are
        # withdrawn (their dialogs say so) before the engine goes.
        await self.close_gateway()
        # MCP next: its servers are child processes that must end with us. (A runtime that
        # owns the manager closes it in its own aclose.)
        own_mcp = self.mcp if self.runtime is None or self.mcp is not self.runtime.mcp else None
        for thing in (own_mcp, self.model, self.runtime):
            if thing is None:
                continue
            try:
                await thing.aclose()
            except Exception:  # shutting down: log and keep closing the rest
                log.exception("closing %r failed", thing)
        self.conversations.close()


def _load_settings() -> SettingsStore:
    from echo_desk.store.paths import config_dir
    from echo_desk.store.settings import SettingsStore

    return SettingsStore.in_dir(config_dir())


def _install_system_secrets() -> bool:
    from echo_desk.store.secrets import install_system_store

    return install_system_store()


def _import(name: str) -> ModuleType:
    return importlib.import_module(name)


async def load_services(settings_store: SettingsStore | None = None, host: ToolHost | None = None) -> Services:
    """Import and start the engine, storage and model, off the first frame."""
    # Before anything reads a secret (the model's API key, mcp.json's keyring references,
    # MCP sign-ins): the system keyring when there is one, off the UI thread (it may probe D-Bus).
    await BackgroundOp(_install_system_secrets).run_async()
    if settings_store is None:
        settings_store = await BackgroundOp(_load_settings).run_async()
    runtime: Runtime | None = None
    engine_error = ""
    try:
        module = await BackgroundOp(_import, "echo_desk.runtime").run_async()
        runtime = module.Runtime.create(settings_store=settings_store)
        # The walk over Echo Desk's own program the first sandboxed process waits for, done now.
        from echo_desk.store import own_files

        own_files.unshare_in_background()
    except ImportError as exc:
        engine_error = deferred(N_("not available in this build ({module})"), module=exc.name or "")
    except Exception as exc:  # the window must come up and say what went wrong
        log.exception("starting the engine failed")
        engine_error = failure_said(exc)
    conversations = await BackgroundOp(open_store).run_async()
    # Warm the agent loop's module now rather than on the first Send.
    await BackgroundOp(_import, "echo_desk.agent.loop").run_async()
    services = Services(settings=settings_store, backend=CatalogBackend(settings_store, runtime),
                        runtime=runtime, conversations=conversations,
                        engine_error=engine_error)
    if runtime is not None:
        await attach_mcp_servers(services, host)
    await connect_model(services)
    return services


async def attach_mcp_servers(services: Services, host: ToolHost | None) -> None:
    """Start the configured MCP servers in the background (unless the engine already did)."""
    runtime = services.runtime
    if runtime is None:
        return
    if runtime.mcp is not None:
        services.mcp = runtime.mcp
        return
    try:
        # The runtime owns the manager (and closes it in aclose); servers start in the background.
        services.mcp = await runtime.attach_mcp(host, wait=False)
    except Exception as exc:  # a broken mcp.json must not keep the window from working
        log.exception("starting MCP servers failed")
        services.mcp_error = failure_said(exc)


def start_gateway(services: Services, host: Host) -> None:
    """Listen for ``echo-desk gateway`` connections (other MCP clients), on the MCP manager's
    loop when there is one (a call of an MCP tool then needs no hop between threads), else on a
    thread of its own. Another Echo Desk listening already, or no runtime: not started, said why."""
    runtime = services.runtime
    if runtime is None:
        return
    from echo_desk.gateway.service import GatewayService

    service = GatewayService(runtime, host)
    try:
        if runtime.mcp is not None:
            service.start_on(runtime.mcp.loop)
        else:
            service.start_in_thread()
    except (OSError, TimeoutError) as exc:
        log.warning("the gateway for other MCP clients is not available: %s", exc)
        services.gateway_error = failure_said(exc)
        return
    services.gateway = service


def _create(create_model: ModelFactory, provider: ProviderSettings,
            local: LocalModelSettings) -> ChatModel:
    from echo_desk.tools.secrets import secret_store

    return create_model(provider, secret_store(), local=local)


def model_factory() -> ModelFactory | None:
    """``echo_desk.providers.create_model`` when this build has it, else ``None``."""
    try:
        providers = importlib.import_module("echo_desk.providers")
    except ImportError:
        return None
    factory: ModelFactory = providers.create_model
    return factory


async def connect_model(services: Services) -> None:
    """(Re)create the active provider's model; on failure keep the reason for the banner."""
    old = services.model
    services.model = None
    services.model_error = ""
    if old is not None:
        try:
            await old.aclose()
        except Exception:
            log.exception("closing the previous model failed")
    try:
        providers = await BackgroundOp(_import, "echo_desk.providers").run_async()
    except ImportError:
        services.providers_available = False
        wire_delegation(services)
        return
    create_model = providers.create_model
    services.providers_available = True
    settings = services.settings.current
    provider = settings.providers.get(settings.active_provider)
    if provider is None:
        services.model_error = deferred(N_("There is no provider named {name} in the settings."),
                                        name=settings.active_provider)
        wire_delegation(services)
        return
    try:
        # Creating a local model may start a llama.cpp server: never on the UI thread.
        services.model = await BackgroundOp(_create, create_model, provider, settings.local_model).run_async()
    except Exception as exc:  # shown in the window as the model's error; the app still opens
        log.warning("connecting the model failed", exc_info=True)
        services.model_error = _model_failed(exc)
    wire_delegation(services, provider, settings.local_model)


def _model_failed(exc: BaseException) -> str:
    """Why the model did not connect, in sentences: a ``ModelError`` is Echo Desk's own sentence
    for the person ("The model file … does not exist."); anything else is named, not quoted."""
    from echo_desk.agent.model import ModelError

    if isinstance(exc, ModelError) and exc.args and isinstance(exc.args[0], str) and exc.args[0]:
        return exc.args[0]
    return deferred(N_("Connecting the model failed: {reason}."), reason=failure_said(exc))


def mcp_failed_text(reason: str) -> str:
    """What Settings › MCP says when the servers did not start (``reason``: ``Services.mcp_error``)."""
    from echo_desk.store.paths import config_dir

    return sentences(
        _("The MCP servers could not be started: {reason}. Their tools are not available; Echo Desk's "
          "own tools work.").format(reason=_reason(reason)),
        _("Check mcp.json in {folder}, then restart Echo Desk.").format(folder=visible(str(config_dir()))))


def _reason(text: str) -> str:
    """A reason kept on ``Services``, in the language of the moment, every hidden character
    shown (a file or a program name in it comes from outside)."""
    return visible(shown(text))


def wire_delegation(services: Services, provider: ProviderSettings | None = None,
                    local: LocalModelSettings | None = None) -> None:
    """(Re-)register ``delegate`` for the current model: sub-agents of the built-in model share
    its server, remote providers get a fresh client each. Without a model ``delegate`` stays in
    the catalog (so it can be switched on or off) but refuses to start anything."""
    if services.runtime is None:
        return
    from echo_desk.agent.delegate import no_model

    factory: Callable[[], ChatModel] = no_model
    if services.model is not None and provider is not None:
        try:
            from echo_desk.providers.factory import sub_agent_factory
            from echo_desk.tools.secrets import secret_store

            factory = sub_agent_factory(services.model, provider, secret_store(), local=local)
        except ImportError:  # a build without providers has no model to share either
            factory = no_model
    try:
        services.runtime.enable_delegation(factory)
    except Exception:  # the chat works without sub-agents; say so in the log
        log.exception("registering the delegate tool failed")

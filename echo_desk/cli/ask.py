"""``echo-desk ask``: one agent exchange in the terminal, through the same loop and dispatcher."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from echo_desk.agent.envelope import Envelope
from echo_desk.agent.host import ApprovalChoice
from echo_desk.agent.loop import NullListener
from echo_desk.agent.model import ModelError, ToolCall
from echo_desk.agent.session import ConversationSession
from echo_desk.cli.terminal_host import TerminalHost
from echo_desk.common.visible_text import visible, visible_json
from echo_desk.i18n import _, shown
from echo_desk.runtime import Runtime
from echo_desk.store.settings import ProviderKind, ProviderSettings, Settings


def provider_settings(settings: Settings, name: str | None, base_url: str | None, model: str | None) -> ProviderSettings:
    chosen = name or settings.active_provider
    if chosen in settings.providers:
        base = settings.providers[chosen]
    else:
        try:
            base = ProviderSettings(kind=ProviderKind(chosen))
        except ValueError:
            raise SystemExit(
                f"unknown provider {chosen!r}: use one of {', '.join(settings.providers)} or a kind "
                f"({', '.join(k.value for k in ProviderKind)})"
            ) from None
    update: dict[str, str] = {}
    if base_url:
        update["base_url"] = base_url
    if model:
        update["model"] = model
    return base.model_copy(update=update)


class _Printer(NullListener):
    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.calls: list[dict[str, Any]] = []

    def on_text(self, delta: str) -> None:
        if not self.quiet:
            sys.stdout.write(visible(delta))  # model text: escapes shown, never obeyed
            sys.stdout.flush()

    def on_tool_call(self, call: ToolCall) -> None:
        self.calls.append({"id": call.id, "name": call.name, "arguments": call.arguments})
        tag = _("[tool]")
        print(f"\n{tag} {visible(call.name, one_line=True)} {visible(call.arguments, one_line=True)}",
              file=sys.stderr, flush=True)

    def on_tool_result(self, call_id: str, envelope: Envelope) -> None:
        for record in self.calls:
            if record["id"] == call_id:
                record["envelope"] = envelope.to_json()
        status = _("ok") if envelope.ok else f"{envelope.error_kind.value if envelope.error_kind else ''}: {envelope.error}"
        tag = _("[tool]")
        print(f"{tag} {visible(envelope.tool, one_line=True)} → {visible(status, one_line=True)}",
              file=sys.stderr, flush=True)

    def on_error(self, message: str) -> None:
        print("\n" + _("[error] {message}").format(message=visible(shown(message))), file=sys.stderr, flush=True)


async def run_ask(runtime: Runtime, args: argparse.Namespace) -> int:
    from echo_desk.providers.factory import create_model, sub_agent_factory  # the engine never imports these

    workspace = (args.workspace or Path.cwd()).resolve()
    if not workspace.is_dir():
        print(_("workspace {path} is not a folder").format(path=workspace), file=sys.stderr)
        return 2
    chosen = provider_settings(runtime.settings.current, args.provider, args.base_url, args.model)

    local = runtime.settings.current.local_model
    try:
        model = create_model(chosen, local=local)
    except ModelError as exc:
        print(_("cannot reach a model: {error}").format(error=visible(shown(exc.reason))), file=sys.stderr)
        return 2
    runtime.enable_delegation(sub_agent_factory(model, chosen, local=local))
    auto = ApprovalChoice.ALLOW_ONCE if args.yes else ApprovalChoice.DENY if args.no else None
    host = TerminalHost(auto=auto)
    printer = _Printer(quiet=args.json)
    # The same session as the window's (system prompt, history), unsaved.
    session = ConversationSession()
    session.open_workspace(workspace)
    session.add_user(args.prompt)
    try:
        outcome = await session.run_turn(model, runtime.dispatcher, runtime.schema_factory, host, printer,
                                         max_turns=runtime.settings.current.max_turns)
    finally:
        await model.aclose()
    if args.json:
        print(visible_json({
            "completed": outcome.completed,
            "stop_reason": outcome.stop_reason.value,
            "error": outcome.error,
            "answer": outcome.final_text,
            "tool_calls": printer.calls,
            "check": outcome.count_mismatch.describe() if outcome.count_mismatch else None,
        }, indent=2))
    else:
        print()
        if outcome.count_mismatch is not None:  # a number beside what a tool counted
            print(f"[{outcome.count_mismatch.note()}]")
    return 0 if outcome.completed else 1

"""The sandbox line of a ``run_command`` card: where the command ran, with what network, what the
sandbox refused, what the command tried to plant (put aside or put back). From the typed
``SandboxFacts`` (read once from the envelope's ``metadata["sandbox"]``, see ``card_facts``),
translated here. No Qt."""

from __future__ import annotations

import html
import os
from typing import TYPE_CHECKING

from echo_desk.common.visible_text import visible
from echo_desk.i18n import N_, _, list_text

# The facts are read once where the result enters the transcript; imported from here too.
from echo_desk.ui.chat.card_parse import planted_of as planted_of
from echo_desk.ui.chat.card_parse import sandbox_of as sandbox_of
from echo_desk.ui.core.checked_after_restart_text import failure_reason
from echo_desk.ui.core.palette import Palette, in_use
from echo_desk.ui.core.planted_text import done_text, folders_checked_line, planted_label

if TYPE_CHECKING:
    from collections.abc import Sequence

    from echo_desk.tools.planted import Planted
    from echo_desk.ui.chat.card_facts import SandboxFacts

BLOCKED_LABELS = {
    "write_outside": N_("writing outside the workspace"),
    "network": N_("network access"),
    "unix_socket": N_("connecting to a local socket"),
    "hidden_path": N_("reading a hidden folder"),
    "kept_in_place": N_("moving a folder the sandbox keeps in place"),
}


_MOST_NAMED = 6


def planted_lines(planted: Sequence[Planted], palette: Palette | None = None, *,
                  server: bool = False, more: int = 0) -> list[tuple[str, str]]:
    """``(text, colour)``: "Blocked: the command tried to plant …" (or the server, after its
    call) and where it was put; ``more``: entries past the stored cap, counted with the unnamed."""
    if not planted:
        return []
    p = palette or in_use()
    named = [_("{path} ({what})").format(path=visible(item.full(), one_line=True), what=done_text(item))
             for item in planted[:_MOST_NAMED]]
    unnamed = max(len(planted) - _MOST_NAMED, 0) + more
    if unnamed:
        named.append(_("{count} more").format(count=unnamed))
    blocked = (_("Blocked: the sandboxed server left in its folder what would run code later, outside the "
                 "sandbox: {what}") if server else
               _("Blocked: the command tried to plant what would run code later, outside the sandbox: {what}"))
    lines = [(blocked.format(what=list_text(named)), p.warn)]
    kept = sorted({item.kept for item in planted if item.kept})
    if kept:
        folder = _common_folder(kept)
        lines.append((_("What it left is kept, never run, in {folder}").format(folder=visible(folder, one_line=True)),
                      p.muted))
    return lines


#: The href of a tool card's "plants blocked" mark: the view shows ``planted_tooltip`` over it.
PLANTED_ANCHOR = "echo-desk:planted"


def planted_mark(count: int, palette: Palette | None = None) -> str:
    """The mark in a card's header that the call (or a sub-agent's calls) planted ``count``
    entries ('' for none): in view however the card is folded, and wherever the card is shown
    again (a reopened conversation)."""
    if not count:
        return ""
    p = palette or in_use()
    label = planted_label(count)
    return (f"<a href='{PLANTED_ANCHOR}' style='color:{p.warn}; text-decoration:none'>"
            f"{html.escape(label)}</a>")


def _common_folder(paths: list[str]) -> str:
    return os.path.commonpath(paths) if len(paths) > 1 else os.path.dirname(paths[0])


def sandbox_lines(facts: SandboxFacts, palette: Palette | None = None) -> list[tuple[str, str]]:
    """``(text, colour)`` lines for the card, in the person's language."""
    p = palette or in_use()
    if facts.sandboxed:
        network = (_("network only to: {domains}").format(domains=list_text(facts.domains))
                   if facts.domains else _("no network"))
        ran = _("The server runs in the sandbox · {network}") if facts.server else _("Ran in the sandbox · {network}")
        lines = [(ran.format(network=network), p.muted)]
    elif facts.mode == "off":
        return []
    else:
        lines = [(_("Ran outside the sandbox, with all your rights"), p.warn)]
        unavailable = _unavailable_reason(facts.status)
        if unavailable:
            lines.append((unavailable, p.warn))
    blocked = [_(BLOCKED_LABELS[b]) for b in facts.blocked if b in BLOCKED_LABELS]
    if blocked:
        lines.append((_("The sandbox probably refused: {what}").format(what=list_text(blocked)), p.warn))
    if facts.refused_hosts:
        hosts = [visible(h, one_line=True) for h in facts.refused_hosts[:_MOST_NAMED]]
        unnamed = max(len(facts.refused_hosts) - _MOST_NAMED, 0) + facts.refused_more
        if unnamed:
            hosts.append(_("{count} more").format(count=unnamed))
        lines.append((_("Network refused for: {hosts} (allow a domain in Settings › Sandbox)").format(
            hosts=list_text(hosts)), p.warn))
    lines += what_it_left_lines(facts, p)
    if facts.sandboxed and facts.search_cut:
        from echo_desk.sandbox.repositories import MAX_FOLDERS  # rare: loaded only for this line

        lines.append((folders_checked_line(facts.folders_checked or MAX_FOLDERS), p.warn))
    return lines


def what_it_left_lines(facts: SandboxFacts, palette: Palette | None = None) -> list[tuple[str, str]]:
    """``(text, colour)``: what the call planted, and that its check is still to come (the lines a
    sub-agent's call shows in its nested card too)."""
    p = palette or in_use()
    lines = planted_lines(facts.planted, p, server=facts.server, more=facts.planted_more)
    if facts.sandboxed and facts.checked_later:
        lines.append((_("Processes of this command still ran in the sandbox when it ended: what they leave is "
                        "checked, and put aside or back, when they end"), p.warn))
    if facts.sandboxed and facts.checked_after_restart and facts.not_checked_after_restart:
        lines.append((_("Echo Desk closed before it had checked what this command left, and at the next start the "
                        "check could not be made ({why}). Look yourself for what it may have left that would run "
                        "code later (git hooks, .envrc, editor settings).").format(
                            why=failure_reason(facts.not_checked_after_restart)), p.warn))
    elif facts.sandboxed and facts.checked_after_restart:
        lines.append((_("Echo Desk closed before it had checked what this command left: it was checked at the "
                        "next start, and what is said above was found") if facts.planted else
                      _("Echo Desk closed before it had checked what this command left: it was checked at the "
                        "next start, and nothing was found"), p.warn))
    return lines


def _unavailable_reason(status: str) -> str:
    """"Sandbox unavailable: <why>" for a stored status that is not "available", else ''."""
    from echo_desk.sandbox.detect import REASONS, UNAVAILABLE, Status  # not before the first frame

    try:
        found = Status(status)
    except ValueError:
        return ""
    if found is Status.AVAILABLE:
        return ""
    return _(UNAVAILABLE).format(reason=_(REASONS[found]).format(detail="")).rstrip(": ：")


def sandbox_html(facts: SandboxFacts, palette: Palette | None = None) -> str:
    return "".join(f"<div style='color:{colour}'>{html.escape(text)}</div>"
                   for text, colour in sandbox_lines(facts, palette))

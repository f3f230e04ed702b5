"""The sandbox line of a ``run_command`` card: where the command ran, with what network, what the
sandbox refused. Read from the envelope's ``metadata["sandbox"]`` (typed values, translated here)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from echo_desk.i18n import N_, _, list_text
from echo_desk.sandbox.detect import REASONS, UNAVAILABLE, Status
from echo_desk.ui.core import theme

if TYPE_CHECKING:
    from echo_desk.tools.results import JsonObject

BLOCKED_LABELS = {
    "write_outside": N_("writing outside the workspace"),
    "network": N_("network access"),
    "unix_socket": N_("connecting to a local socket"),
    "hidden_path": N_("reading a hidden folder"),
}


def sandbox_of(metadata: object) -> JsonObject | None:
    """The card's sandbox facts from an envelope's metadata (or a stored copy), or ``None``."""
    if not isinstance(metadata, dict):
        return None
    facts = metadata.get("sandbox", metadata if "sandboxed" in metadata else None)
    if not isinstance(facts, dict) or not isinstance(facts.get("sandboxed"), bool):
        return None
    def strings(key: str) -> list[str]:
        value = facts.get(key)
        return [str(v) for v in value][:50] if isinstance(value, list) else []
    return {"sandboxed": facts["sandboxed"], "domains": strings("domains"), "blocked": strings("blocked"),
            "refused_hosts": strings("refused_hosts"), "mode": str(facts.get("mode", "")),
            "status": str(facts.get("status", ""))}


def sandbox_lines(facts: JsonObject) -> list[tuple[str, str]]:
    """``(text, colour)`` lines for the card, in the person's language."""
    if facts["sandboxed"]:
        network = (_("network only to: {domains}").format(domains=list_text(facts["domains"]))
                   if facts["domains"] else _("no network"))
        lines = [(_("Ran in the sandbox · {network}").format(network=network), theme.colour('muted'))]
    elif facts["mode"] == "off":
        return []
    else:
        lines = [(_("Ran outside the sandbox, with all your rights"), theme.colour("warn"))]
        unavailable = _unavailable_reason(facts["status"])
        if unavailable:
            lines.append((unavailable, theme.colour("warn")))
    blocked = [_(BLOCKED_LABELS[b]) for b in facts["blocked"] if b in BLOCKED_LABELS]
    if blocked:
        lines.append((_("The sandbox probably refused: {what}").format(what=list_text(blocked)), theme.colour("warn")))
    if facts["refused_hosts"]:
        lines.append((_("Network refused for: {hosts} (allow a domain in Settings › Sandbox)").format(
            hosts=list_text(facts["refused_hosts"])), theme.colour("warn")))
    return lines


def _unavailable_reason(status: str) -> str:
    """"Sandbox unavailable: <why>" for a stored status that is not "available", else ''."""
    try:
        found = Status(status)
    except ValueError:
        return ""
    if found is Status.AVAILABLE:
        return ""
    return _(UNAVAILABLE).format(reason=_(REASONS[found]).format(detail="")).rstrip(": ：")


def sandbox_html(facts: JsonObject) -> str:
    return "".join(f"<div style='color:{colour}'>{html.escape(text)}</div>" for text, colour in sandbox_lines(facts))

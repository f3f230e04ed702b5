"""The sandbox line of a ``run_command`` card: where the command ran, with what network, what the
sandbox refused, what the command tried to plant (put aside or put back). Read from the
envelope's ``metadata["sandbox"]`` (typed values, translated here)."""

from __future__ import annotations

import html
import os
from typing import TYPE_CHECKING

from echo_desk.common.visible_text import visible
from echo_desk.i18n import N_, _, list_text
from echo_desk.sandbox.planted import Change, Planted
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
            "status": str(facts.get("status", "")),
            # Kept as JSON (the facts are stored with the message), checked as the typed record.
            "planted": [p.to_json() for p in planted_of(facts.get("planted"))],
            "search_cut": facts.get("search_cut") is True}


def planted_of(value: object) -> list[Planted]:
    """The typed record of what the command tried to plant (entries that do not read as one are left out)."""
    found: list[Planted] = []
    for item in value if isinstance(value, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("path"), str):
            continue
        try:
            change = Change(str(item.get("change")))
        except ValueError:
            continue
        found.append(Planted(item["path"], change, item.get("put_back") is True, str(item.get("kept") or "")))
    return found


#: How each change is said after its path, by (change, whether the earlier version is back or,
#: for something new, whether it was kept).
_DONE = {
    (Change.CREATED, True): N_("new: put aside"),
    (Change.CREATED, False): N_("new: removed"),
    (Change.CHANGED, True): N_("changed: put aside, your earlier version is back"),
    (Change.CHANGED, False): N_("changed: put aside, your earlier version could not be put back"),
    (Change.REMOVED, True): N_("removed: put back"),
    (Change.REMOVED, False): N_("removed: could not be put back"),
}
_MOST_NAMED = 6


def _done(p: Planted) -> str:
    return _(_DONE[(p.change, bool(p.kept) if p.change is Change.CREATED else p.put_back)])


def planted_lines(planted: list[Planted]) -> list[tuple[str, str]]:
    """``(text, colour)``: "Blocked: the command tried to plant …" and where it was put."""
    if not planted:
        return []
    named = [_("{path} ({what})").format(path=visible(p.path, one_line=True), what=_done(p))
             for p in planted[:_MOST_NAMED]]
    if len(planted) > _MOST_NAMED:
        named.append(_("{count} more").format(count=len(planted) - _MOST_NAMED))
    lines = [(_("Blocked: the command tried to plant what would run code later, outside the sandbox: {what}").format(
        what=list_text(named)), theme.colour("warn"))]
    kept = sorted({p.kept for p in planted if p.kept})
    if kept:
        folder = _common_folder(kept)
        lines.append((_("What it left is kept, never run, in {folder}").format(folder=visible(folder, one_line=True)),
                      theme.colour("muted")))
    return lines


def _common_folder(paths: list[str]) -> str:
    return os.path.commonpath(paths) if len(paths) > 1 else os.path.dirname(paths[0])


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
    lines += planted_lines(planted_of(facts.get("planted")))
    if facts["sandboxed"] and facts.get("search_cut") is True:
        from echo_desk.sandbox.repositories import MAX_FOLDERS  # rare: loaded only for this line

        lines.append((_("Not every folder of this workspace was searched for repositories (it has more than {count}): "
                        "a hook planted beyond them was not checked").format(count=MAX_FOLDERS), theme.colour("muted")))
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


def sandbox_html(facts: JsonObject) -> str:
    return "".join(f"<div style='color:{colour}'>{html.escape(text)}</div>" for text, colour in sandbox_lines(facts))

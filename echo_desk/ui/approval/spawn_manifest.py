"""A sub-agent spawn manifest (``ApprovalRequest.spawn``) in the person's language.

The engine hands over typed grants (``SpawnGrants`` in ``echo_desk.agent.subagents``): the
tools, read-only or the folders it may change, the limits and each refusal with its reason.
This module words them; nothing is parsed back from text. No Qt here.
"""

from __future__ import annotations

from collections.abc import Sequence

from echo_desk.agent.scope import ScopeLink
from echo_desk.agent.subagents import Refusal, RefusalReason, SpawnGrants
from echo_desk.i18n import _, labelled, list_text, ngettext
from echo_desk.ui.core.labels import risk_label


def access_text(grants: SpawnGrants) -> str:
    if grants.read_only:
        return _("Read-only: it cannot change files or run commands")
    return _("May change files only inside the folders below (at most “{risk}” tools)").format(
        risk=risk_label(grants.risk_ceiling))


def limits_text(grants: SpawnGrants) -> str:
    minutes, secs = divmod(round(grants.time_limit_seconds), 60)
    time_text = (_("{m} min {s} s").format(m=minutes, s=secs) if minutes and secs
                 else _("{m} min").format(m=minutes) if minutes else _("{s} s").format(s=secs))
    return _("at most {turns} turns and {time}").format(turns=grants.max_turns, time=time_text)


def refusal_text(refusal: Refusal, max_depth: int) -> str:
    """One refused item with its reason, in the current language."""
    match refusal.reason:
        case RefusalReason.OUTSIDE_PARENT_ROOTS:
            return _("write folder {root}: not inside the folders the parent may change").format(root=refusal.subject)
        case RefusalReason.NO_SUCH_TOOL:
            return _("{tool}: there is no such tool").format(tool=refusal.subject)
        case RefusalReason.NOT_GRANTED_TO_PARENT:
            return _("{tool}: the agent asking was not granted it itself").format(tool=refusal.subject)
        case RefusalReason.ABOVE_CEILING:
            return _("{tool}: a “{risk}” tool, above what this sub-agent may do (“{ceiling}”)").format(
                tool=refusal.subject, risk=risk_label(refusal.risk or ""), ceiling=risk_label(refusal.ceiling or ""))
        case RefusalReason.TOO_DEEP:
            return ngettext("delegate: sub-agents may nest at most {n} level deep",
                            "delegate: sub-agents may nest at most {n} levels deep", max_depth).format(n=max_depth)
    return str(refusal)


def refused_texts(grants: SpawnGrants) -> list[str]:
    return [refusal_text(r, grants.max_depth) for r in grants.refused]


def scope_names(links: Sequence[ScopeLink]) -> list[str]:
    """The scope chain of a request, with sub-agents named in the current language."""
    names: list[str] = []
    for i, link in enumerate(links):
        if link.subagent_goal:
            names.append(_("Sub-agent: {goal}").format(goal=link.subagent_goal))
        elif i == 0:
            # The root is always the open conversation (its scope keeps the title it had when
            # opened, which a rename makes stale).
            names.append(_("This conversation"))
        else:
            names.append(link.label)
    return names


def asking_subagent_goal(links: Sequence[ScopeLink]) -> str | None:
    """The goal of the sub-agent asking (the last link of the chain), or ``None`` for the
    conversation's own agent."""
    if len(links) > 1 and links[-1].subagent_goal:
        return links[-1].subagent_goal
    return None


def manifest_lines(grants: SpawnGrants) -> list[str]:
    """The manifest as the terminal shows it: the panel's rows in the same words, one fact per
    line (each folder and each refusal on its own)."""
    tools = list_text(grants.tools) if grants.tools else _("none: no sub-agent can start")
    lines = [labelled(_("Goal"), grants.goal or _("(no goal given)")), labelled(_("Tools granted"), tools),
             labelled(_("Access"), access_text(grants))]
    roots = [str(root) for root in grants.write_roots] or [_("nothing (no folders)")]
    lines += [labelled(_("Folders it may change"), root) for root in roots]
    lines.append(labelled(_("Limits"), limits_text(grants)))
    refused = refused_texts(grants) or [_("nothing: every request fits")]
    return lines + [labelled(_("Refused"), item) for item in refused]

"""Reading a ``delegate`` approval request as a spawn manifest, in the person's language.

The engine describes the resulting grants as target lines (``Grants.describe()`` in
``echo_desk.agent.subagents``: ``tools: …``, ``mode: …``, ``write roots: …``, ``limits: …``,
``refused: …``, plus ``goal: …``). This module turns them back into fields the dialog can
label and translate. Anything it does not recognise is kept verbatim in ``other``, so a
change on the engine side shows up as raw text rather than disappearing. No Qt here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from echo_desk.i18n import _
from echo_desk.ui.labels import risk_label

SUBAGENT_PREFIX = "sub-agent: "
_NONE = "(none)"
_MODE = re.compile(r"^(?P<mode>read-only|may write inside its roots)(?: \(risk ceiling (?P<ceiling>\w+)\))?$")
_LIMITS = re.compile(r"^(?P<turns>\d+) turns, (?P<seconds>\d+) s$")
# The reasons ``narrow()`` gives; each is shown translated, or verbatim when unknown.
_REASONS: list[tuple[re.Pattern[str], Any]] = [
    (re.compile(r"^write root (?P<root>.+): not inside the parent's write roots$"),
     lambda m: _("write folder {root}: not inside the folders the parent may change").format(root=m["root"])),
    (re.compile(r"^(?P<tool>[^:]+): no such tool$"),
     lambda m: _("{tool}: there is no such tool").format(tool=m["tool"])),
    (re.compile(r"^(?P<tool>[^:]+): the parent was not granted it$"),
     lambda m: _("{tool}: the agent asking was not granted it itself").format(tool=m["tool"])),
    (re.compile(r"^(?P<tool>[^:]+): (?P<risk>\w+) tools exceed this sub-agent's ceiling \((?P<ceiling>\w+)\)$"),
     lambda m: _("{tool}: a “{risk}” tool, above what this sub-agent may do (“{ceiling}”)").format(
         tool=m["tool"], risk=risk_label(m["risk"]), ceiling=risk_label(m["ceiling"]))),
    (re.compile(r"^delegate: sub-agents may nest at most (?P<n>\d+) deep$"),
     lambda m: _("delegate: sub-agents may nest at most {n} levels deep").format(n=m["n"])),
]


@dataclass
class SpawnManifest:
    """What a sub-agent will get if the person allows the spawn (and what it will not)."""

    goal: str = ""
    tools: list[str] = field(default_factory=list)
    read_only: bool = True
    risk_ceiling: str = "read"
    write_roots: list[str] = field(default_factory=list)
    max_turns: int | None = None
    seconds: int | None = None
    refused: list[str] = field(default_factory=list)
    other: list[str] = field(default_factory=list)

    def access_text(self) -> str:
        if self.read_only:
            return _("Read-only: it cannot change files or run commands")
        return _("May change files only inside the folders below (at most “{risk}” tools)").format(
            risk=risk_label(self.risk_ceiling))

    def limits_text(self) -> str:
        if self.max_turns is None or self.seconds is None:
            return ""
        minutes, secs = divmod(self.seconds, 60)
        time_text = (_("{m} min {s} s").format(m=minutes, s=secs) if minutes and secs
                     else _("{m} min").format(m=minutes) if minutes else _("{s} s").format(s=secs))
        return _("at most {turns} turns and {time}").format(turns=self.max_turns, time=time_text)

    def refused_texts(self) -> list[str]:
        return [refusal_text(r) for r in self.refused]


def refusal_text(reason: str) -> str:
    """One of ``narrow()``'s refusal reasons in the current language (verbatim if unknown)."""
    for pattern, render in _REASONS:
        match = pattern.match(reason)
        if match:
            return str(render(match))
    return reason


def _split_list(text: str) -> list[str]:
    return [] if text == _NONE else [part.strip() for part in text.split(",") if part.strip()]


def parse_manifest(targets: Any) -> SpawnManifest:
    """The manifest shown by a ``delegate`` request's targets (``ApprovalRequest.targets``)."""
    manifest = SpawnManifest()
    for target in targets:
        if getattr(target, "kind", "") != "other":
            continue  # the write roots also come as path targets; the "write roots" line has them
        key, sep, value = str(target.value).partition(": ")
        if not sep:
            manifest.other.append(str(target.value))
        elif key == "goal":
            manifest.goal = value
        elif key == "tools":
            manifest.tools = _split_list(value)
        elif key == "write roots":
            manifest.write_roots = _split_list(value)
        elif key == "refused":
            manifest.refused.append(value)
        elif key == "mode" and (mode := _MODE.match(value)):
            manifest.read_only = mode["mode"] == "read-only"
            manifest.risk_ceiling = mode["ceiling"] or ("read" if manifest.read_only else "write")
        elif key == "limits" and (limits := _LIMITS.match(value)):
            manifest.max_turns, manifest.seconds = int(limits["turns"]), int(limits["seconds"])
        else:
            manifest.other.append(str(target.value))
    return manifest


def scope_names(chain: Any) -> list[str]:
    """The scope chain of a request, with sub-agents named in the current language."""
    names: list[str] = []
    for i, label in enumerate(chain or ()):
        label = str(label)
        if label.startswith(SUBAGENT_PREFIX):
            names.append(_("Sub-agent: {goal}").format(goal=label[len(SUBAGENT_PREFIX):]))
        elif i == 0:
            # The root is always the open conversation (its scope keeps the title it had when
            # opened, which a rename makes stale).
            names.append(_("This conversation"))
        else:
            names.append(label)
    return names


def asking_subagent_goal(chain: Any) -> str | None:
    """The goal of the sub-agent asking (the last link of the chain), or ``None`` for the
    conversation's own agent."""
    chain = tuple(chain or ())
    if len(chain) > 1 and str(chain[-1]).startswith(SUBAGENT_PREFIX):
        return str(chain[-1])[len(SUBAGENT_PREFIX):]
    return None

"""The permission engine's values in the person's language: effects, scopes, why a command is
opaque, and "allowed by rule `git status **` in permissions.toml line 4".

Everything is worded from the engine's enums and fields, never by parsing its English text.
Patterns, commands and paths are untrusted: callers show the results as plain text.
"""

from __future__ import annotations

import html
import time

from echo_desk.agent.permissions import Decider, Effect, GrantScope, Layer, Opaque, Part, Provenance, Rule
from echo_desk.agent.permissions.floor import SETTINGS_FOLDER
from echo_desk.agent.permissions.model import OWN_AGENT
from echo_desk.common.visible_text import visible
from echo_desk.gateway.clients import display_name
from echo_desk.i18n import N_, _, aside, list_text, quoted
from echo_desk.ui.core import theme
from echo_desk.ui.core.labels import VERDICT_LABELS

#: Palette roles (``ui.theme``) per verdict; ``None`` = no rule decided.
VERDICT_ROLES = {Effect.ALLOW: "ok", Effect.ALLOW_IN_SANDBOX: "accent", Effect.ASK: "warn", Effect.DENY: "danger",
                 None: "muted"}


def verdict_colour(effect: Effect | None) -> str:
    """The colour of a verdict in the current theme."""
    return theme.colour(VERDICT_ROLES.get(effect, "muted"))

SCOPE_LABELS = {
    GrantScope.ONCE: N_("this call only"),
    GrantScope.MINUTES_15: N_("for 15 minutes"),
    GrantScope.CONVERSATION: N_("for this conversation"),
    GrantScope.WORKSPACE: N_("in this workspace"),
    GrantScope.ALWAYS: N_("always (added to permissions.toml)"),
}

LAYER_LABELS = {
    Layer.FLOOR: N_("Built-in"),
    Layer.USER: N_("Your rules"),
    Layer.WORKSPACE: N_("Workspace (shared)"),
    Layer.WORKSPACE_LOCAL: N_("Workspace (personal)"),
    Layer.GRANT: N_("Grant"),
}

OPAQUE_LABELS = {
    Opaque.PARSE_ERROR: N_("the command line could not be parsed"),
    Opaque.TOO_LONG: N_("the command is too long to check"),
    Opaque.FUNCTION_DEFINITION: N_("it defines a shell function"),
    Opaque.EVAL: N_("it runs text as a command (eval, source, exec)"),
    Opaque.EXPANSION_IN_COMMAND: N_("the program name is only known when it runs"),
    Opaque.UNSAFE_ASSIGNMENT: N_("it sets an environment variable that can change what runs"),
    Opaque.CD_OUTSIDE: N_("it changes into a folder outside the workspace"),
    Opaque.ELEVATION: N_("it runs as another user or on another machine"),
    Opaque.DANGEROUS_OPTION: N_("an option that runs a program, writes a file or reads commands, which the rule "
                                "does not name"),
    Opaque.DYNAMIC_ARGUMENT: N_("its arguments are only known when it runs"),
    Opaque.UNSUPPORTED: N_("a shell construct Echo Desk does not check"),
    Opaque.COMPOUND: N_("a compound command (subshell, group, loop, if, case, [[ ]], (( ))): a rule allows plain "
                        "commands only"),
    Opaque.BACKGROUND: N_("it runs a command in the background (&)"),
    Opaque.GLOB_OPTION: N_("a wildcard that can expand to an option (a file named like -rf)"),
    Opaque.HEREDOC: N_("a here-document whose text is expanded when it runs"),
    Opaque.UNSUPPORTED_CHARACTER: N_("a control character or a character Echo Desk does not parse"),
    Opaque.NOT_PLAIN_WORDS: N_("bash is not installed: /bin/sh runs the line, so only plain words can be allowed"),
    Opaque.RUNS_OTHER_COMMAND: N_("it runs another command that cannot be checked"),
    Opaque.AGENT_SETTINGS: N_("it reads settings or code from a file the agent may write (such as mypy.ini or "
                              "ruff.toml in a folder the rules let the agent write)"),
}


def verdict_label(effect: Effect | None) -> str:
    """"Allowed" / "Asks" / "Refused", or "No rule" when nothing spoke."""
    return _(VERDICT_LABELS[effect]) if effect is not None else _("No rule")


def rule_place(rule: Rule) -> str:
    """``permissions.toml line 4`` or ``built-in floor rule`` (the file's name; the tool tip has the path)."""
    if rule.source.path is None:
        return _("built-in rule")
    return _("{file} line {line}").format(file=rule.source.path.name, line=rule.source.line)


def rule_reason(rule: Rule) -> str:
    """A built-in rule's reason in the person's language; a file's rule says what its author wrote."""
    return _(rule.reason) if rule.source.layer is Layer.FLOOR and rule.reason else rule.reason


def rule_pattern(rule: Rule) -> str | None:
    """The pattern as shown: a built-in rule's placeholder for the settings folder is translated."""
    if rule.pattern is None or rule.source.layer is not Layer.FLOOR or SETTINGS_FOLDER not in rule.pattern:
        return rule.pattern
    return rule.pattern.replace(SETTINGS_FOLDER, _(SETTINGS_FOLDER))


def rule_callers(rule: Rule) -> str:
    """Whom a rule speaks for, when not every caller (``client = …``): "Cursor", "Echo Desk's
    chat", "any app through MCP"; empty for a rule without ``client``."""
    if not rule.clients:
        return ""
    return list_text(_("Echo Desk's chat") if c == OWN_AGENT else _("any app through MCP") if c == "*"
                     else visible(display_name(c), one_line=True) for c in rule.clients)


def rule_tool(rule: Rule) -> str:
    """The rule's tool, with whom it speaks for when not every caller: ``shell (for Cursor)``."""
    tool = visible(rule.tool, one_line=True)
    callers = rule_callers(rule)
    return _("{tool} (for {callers})").format(tool=tool, callers=callers) if callers else tool


def rule_phrase(rule: Rule) -> str:
    """``rule “git status **” (shell) in permissions.toml line 4``."""
    pattern = rule_pattern(rule)
    # A workspace's rule file is untrusted: its pattern is shown with hidden characters visible.
    what = (aside(quoted(visible(pattern, one_line=True)), rule.tool) if pattern is not None
            else quoted(visible(rule.tool, one_line=True)))
    if rule.source.path is None:
        return _("built-in rule {what}").format(what=what)
    callers = rule_callers(rule)
    if callers:
        return _("rule {what} for {callers} in {place}").format(what=what, callers=callers, place=rule_place(rule))
    return _("rule {what} in {place}").format(what=what, place=rule_place(rule))


def scope_label(scope: GrantScope) -> str:
    return _(SCOPE_LABELS[scope])


def decided_by(provenance: Provenance | None) -> str:
    """Who decided, in words: a rule with its file and line, a grant, why a command is opaque…"""
    if provenance is None:
        return _("no rule or grant: the tool's own setting decides")
    if provenance.rule is not None:
        return rule_phrase(provenance.rule)
    grant = provenance.grant
    if grant is not None:
        what = (aside(quoted(visible(grant.pattern, one_line=True)), grant.tool) if grant.pattern is not None
                else quoted(visible(grant.tool, one_line=True)))
        return _("grant {what}, {scope}").format(what=what, scope=scope_label(grant.scope))
    if provenance.kind is Decider.PROTECTED:
        return _("a protected target: always asks")
    if provenance.kind is Decider.OPAQUE:
        return _("cannot be allowed by a rule")
    return _("no rule matches: the tool's own setting decides")


def part_reason(part: Part) -> str:
    """The "decided by" text of one part, with the reason an opaque command always asks and
    every other reason it asks (``Part.also``): the person needs each to change the verdict."""
    if part.opaque is not None:
        shown = _("cannot be allowed by a rule: {why}").format(why=_(OPAQUE_LABELS[part.opaque]))
    else:
        shown = decided_by(part.provenance)
    for why in part.also:
        shown = _("{reason}; it also asks: {why}").format(reason=shown, why=_(OPAQUE_LABELS[why]))
    return shown


def when(seconds: float | None) -> str:
    """A local date and time (``—`` for none)."""
    if seconds is None:
        return "—"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


def plain_tooltip(text: str) -> str:
    """A tool tip that shows ``text`` literally: Qt guesses whether a tip is rich text, so a
    pattern like ``<b>x</b>`` from a repository's rule file would otherwise be rendered."""
    if not text:
        return ""
    return "<p style='white-space:pre-wrap'>" + html.escape(text) + "</p>"

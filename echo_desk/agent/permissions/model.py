"""The typed values of permission rules: what a rule says, where it came from, what was decided.

Everything here is plain data (frozen dataclasses and enums), Qt-free and safe to pass between
threads. The UI shows these values; it never recomputes them. Text meant for people
(``reason``, ``message``) is either written by the person (a rule's reason) or English for the
audit and the model; the UI translates from the enum values, never by parsing text.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from echo_desk.store.grants import Grant, GrantScope

if TYPE_CHECKING:  # the settings' ladders (policy.py loads the settings model: not for a rules check)
    from echo_desk.agent.policy import DefaultBy, EnabledBy
    from echo_desk.tools.results import RiskLevel

__all__ = ["Grant", "GrantScope"]  # re-exported: the rules API in one place


class Effect(enum.StrEnum):
    """What a rule (or the whole engine) says about a call. Ordered: ``DENY`` beats ``ASK``
    beats ``ALLOW_IN_SANDBOX`` beats ``ALLOW`` when several parts of a call differ (see
    ``strictest``)."""

    ALLOW = "allow"
    #: Runs without asking only when the command runs in the sandbox; asks otherwise (shell only).
    ALLOW_IN_SANDBOX = "allow-in-sandbox"
    ASK = "ask"
    DENY = "deny"

    @property
    def rank(self) -> int:
        return {Effect.ALLOW: 0, Effect.ALLOW_IN_SANDBOX: 1, Effect.ASK: 2, Effect.DENY: 3}[self]

    @property
    def allows(self) -> bool:
        """An allow of some kind (plain, or only in the sandbox)."""
        return self in (Effect.ALLOW, Effect.ALLOW_IN_SANDBOX)

    @property
    def exit_code(self) -> int:
        """The exit code of ``echo-desk rules check``: 0 allow, 1 ask, 2 deny, 3 allow in the
        sandbox only."""
        return {Effect.ALLOW: 0, Effect.ASK: 1, Effect.DENY: 2, Effect.ALLOW_IN_SANDBOX: 3}[self]


def strictest(effects: list[Effect] | tuple[Effect, ...]) -> Effect:
    """The strictest of ``effects`` (``ALLOW`` for none)."""
    return max(effects, key=lambda e: e.rank, default=Effect.ALLOW)


class Family(enum.StrEnum):
    """Which argument grammar a rule's pattern uses (see ``docs/permissions.md``)."""

    SHELL = "shell"  # argv-token patterns over every command a shell line would run
    READ = "read"  # path globs: files a tool (or a shell redirection) reads
    WRITE = "write"  # path globs: files a tool (or a shell redirection) writes
    FETCH = "fetch"  # domain:host [METHOD] [/path-prefix]
    MCP = "mcp"  # mcp:<server>[/<tool>], pattern = top-level JSON field matchers
    DB = "db"  # db:<connection>, pattern = read | write | schema
    TOOL = "tool"  # a tool named exactly; pattern not allowed


class Layer(enum.StrEnum):
    """Where a rule comes from, strongest first. ``FLOOR`` rules are built in and cannot be
    switched off; ``GRANT`` is a grant the person gave in an approval (store: ``GrantStore``)."""

    FLOOR = "floor"
    USER = "user"  # <config dir>/permissions.toml
    WORKSPACE = "workspace"  # <workspace>/.echo-desk/permissions.toml (may be committed)
    WORKSPACE_LOCAL = "workspace_local"  # <workspace>/.echo-desk/permissions.local.toml
    GRANT = "grant"


class Inactive(enum.StrEnum):
    """Why a loaded rule is not consulted (``Rule.inactive``)."""

    UNTRUSTED_WORKSPACE = "untrusted_workspace"  # an allow in a workspace file not trusted (or changed since)


#: ``client = "@chat"``: a rule for Echo Desk's own agent (its chat, its sub-agents, ``echo-desk
#: call``), never a gateway client. Not a client's name: those cannot hold ``@``.
OWN_AGENT = "@chat"


@dataclass(frozen=True, kw_only=True)
class RuleSource:
    """Where a rule was written: the file and the 1-based line of its ``[[rule]]`` header.

    Built-in floor rules have ``path=None`` and ``line=0``."""

    layer: Layer
    path: Path | None = None
    line: int = 0

    def describe(self) -> str:
        """``permissions.toml line 4`` / ``built-in floor rule`` (English; for audit and CLI)."""
        if self.path is None:
            return "built-in floor rule"
        return f"{self.path} line {self.line}"


@dataclass(frozen=True, kw_only=True)
class Examples:
    """A rule's own examples, checked when it loads: every ``match`` must match the pattern and
    no ``not_match`` may."""

    match: tuple[str, ...] = ()
    not_match: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Rule:
    """One ``[[rule]]``. ``tool`` is exactly as written (``shell``, ``read``, ``write``,
    ``fetch``, ``mcp:srv/tool``, ``db:conn`` or a tool name); ``pattern`` is ``None`` for the
    whole tool. ``inactive`` is set when the rule is loaded but not consulted (an untrusted
    workspace's allow): show it greyed, never apply it."""

    effect: Effect
    tool: str
    family: Family
    pattern: str | None
    reason: str
    examples: Examples
    source: RuleSource
    inactive: Inactive | None = None
    #: The callers the rule is about: MCP clients of the gateway (``client = "cursor"``), ``*``
    #: for any of them, ``@chat`` for Echo Desk's own agent. Empty: every caller.
    clients: tuple[str, ...] = ()

    @property
    def active(self) -> bool:
        return self.inactive is None

    def applies_to(self, client: str) -> bool:
        """Whether the rule speaks for a call from ``client`` ('' = Echo Desk's own agent)."""
        if not self.clients:
            return True
        if not client:
            return OWN_AGENT in self.clients
        return "*" in self.clients or client in self.clients

    def describe(self) -> str:
        """``allow shell "git status **"`` — for the audit, the CLI and the model (English)."""
        pat = f' "{self.pattern}"' if self.pattern is not None else ""
        who = f" (client {', '.join(self.clients)})" if self.clients else ""
        return f"{self.effect.value} {self.tool}{pat}{who}"


class Severity(enum.StrEnum):
    ERROR = "error"  # the whole file was refused
    WARNING = "warning"  # loaded, but something is worth fixing (e.g. a shadowed rule)


class ProblemKind(enum.StrEnum):
    """What went wrong while loading (for the UI to word in the person's language)."""

    TOML_SYNTAX = "toml_syntax"
    BAD_RULE = "bad_rule"  # unknown key, bad effect, bad tool, bad pattern
    EXAMPLE_FAILED = "example_failed"  # the rule's own example does not behave as it says
    UNREADABLE = "unreadable"
    SHADOWED = "shadowed"  # an allow/ask that a deny (or stronger rule) always overrides


@dataclass(frozen=True, kw_only=True)
class LoadProblem:
    """One error or warning, naming the file and line (``line`` 0 = the whole file)."""

    severity: Severity
    kind: ProblemKind
    path: Path
    line: int
    message: str  # English, precise: what is wrong and how to fix it
    example: str = ""  # for EXAMPLE_FAILED: the example that failed

    def describe(self) -> str:
        where = f"{self.path} line {self.line}" if self.line else str(self.path)
        return f"{where}: {self.severity.value}: {self.message}"


@dataclass(frozen=True, kw_only=True)
class LoadReport:
    """Every rule from every layer (active or not) and every problem found loading them.

    A file with any error contributes no rules at all (nothing half-applied); the other layers
    keep working."""

    rules: tuple[Rule, ...] = ()
    problems: tuple[LoadProblem, ...] = ()

    @property
    def errors(self) -> tuple[LoadProblem, ...]:
        return tuple(p for p in self.problems if p.severity is Severity.ERROR)

    @property
    def warnings(self) -> tuple[LoadProblem, ...]:
        return tuple(p for p in self.problems if p.severity is Severity.WARNING)


class Decider(enum.StrEnum):
    """What kind of thing decided a verdict (``Provenance.kind``)."""

    FLOOR = "floor"  # a built-in floor rule
    RULE = "rule"  # a rule from a file
    GRANT = "grant"  # a stored grant
    OPAQUE = "opaque"  # the command could not be understood (see ``Opaque``)
    PROTECTED = "protected"  # a protected target always asks
    SETTINGS = "settings"  # today's per-tool policy (Always allow / Ask / Never)
    DEFAULT = "default"  # risk default (read runs, write/exec ask) or the tool always asks
    NOT_ENABLED = "not_enabled"  # tool disabled / not granted: nothing runs whatever rules say


@dataclass(frozen=True, kw_only=True)
class Provenance:
    """Who decided: a rule (with its source file+line), a grant (id) or a setting/default."""

    kind: Decider
    rule: Rule | None = None
    grant: Grant | None = None
    detail: str = ""  # English, for audit: e.g. "settings: always allow", "risk default: read"

    def describe(self) -> str:
        """One line for the audit log and the CLI, e.g.
        ``rule allow shell "git status **" (/home/a/.config/echo-desk/permissions.toml line 4)``."""
        if self.rule is not None:
            return f"{self.kind.value} {self.rule.describe()} ({self.rule.source.describe()})"
        if self.grant is not None:
            pat = f' "{self.grant.pattern}"' if self.grant.pattern is not None else ""
            return f"grant {self.grant.id} {self.grant.tool}{pat} ({self.grant.scope.value})"
        return f"{self.kind.value}: {self.detail}" if self.detail else self.kind.value


class Opaque(enum.StrEnum):
    """Why a shell command cannot be allowed by a rule (it always asks, unless a deny matches)."""

    PARSE_ERROR = "parse_error"
    TOO_LONG = "too_long"
    FUNCTION_DEFINITION = "function_definition"
    EVAL = "eval"  # eval / source / . / exec of a string
    EXPANSION_IN_COMMAND = "expansion_in_command"  # $x, $(…), `…` as the program name
    UNSAFE_ASSIGNMENT = "unsafe_assignment"  # VAR=… not on the safe list
    CD_OUTSIDE = "cd_outside"
    ELEVATION = "elevation"  # sudo, doas, su, ssh, env -S: never unwrapped
    DANGEROUS_OPTION = "dangerous_option"  # runs, writes or reads code: covered only by a rule naming it
    DYNAMIC_ARGUMENT = "dynamic_argument"  # $x, $(…), globs, braces: the words are not known before it runs
    UNSUPPORTED = "unsupported"  # a construct the collector does not understand
    COMPOUND = "compound"  # a subshell, group, loop, if/case, [[ ]], (( )): only plain commands are allowed
    BACKGROUND = "background"  # `&` runs a command in the background
    GLOB_OPTION = "glob_option"  # a glob that can expand to an option (`*.py` matches a file named `-rf.py`)
    HEREDOC = "heredoc"  # a here-document whose text is expanded when it runs
    UNSUPPORTED_CHARACTER = "unsupported_character"  # a control character, or one outside the BMP
    NOT_PLAIN_WORDS = "not_plain_words"  # bash is missing: /bin/sh runs it, and only plain words are allowed
    RUNS_OTHER_COMMAND = "runs_other_command"  # a wrapper whose command cannot be read (env -S, sh script.sh)
    AGENT_SETTINGS = "agent_settings"  # it reads settings or code from a file the agent may write (mypy.ini, ruff.toml)


class PartKind(enum.StrEnum):
    """What one part of a call is: a command of the line, a redirection's target, a path, a
    URL, an MCP call, a database statement, or the call of a tool as a whole."""

    COMMAND = "command"
    REDIRECT = "redirect"
    PATH = "path"
    URL = "url"
    MCP = "mcp"
    DB = "db"
    TOOL = "tool"


@dataclass(frozen=True, kw_only=True)
class Part:
    """The verdict for one collected sub-command (or one path/URL/redirect target).

    ``text`` is what the person sees (the sub-command as written, or the target); ``argv`` the
    unquoted words matched (empty for non-shell parts); ``opaque`` set when no allow may apply."""

    text: str
    effect: Effect | None  # None: nothing decided this part (the tool's defaults will)
    provenance: Provenance
    argv: tuple[str, ...] = ()
    kind: PartKind = PartKind.COMMAND
    opaque: Opaque | None = None
    #: Other reasons this part asks, each enough alone: a rule the person adds or changes for the
    #: reason shown leaves these (``ruff check .`` asks for a write deny below ``.`` and for
    #: settings the agent may write: both must be settled before a rule can allow it).
    also: tuple[Opaque, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Suggestion:
    """A narrow rule the approval dialog can offer ("Allow `git status …`"). One per collected
    command (never for an opaque one). ``tool``/``pattern`` are exactly what a ``Grant`` or an
    appended rule would carry; ``examples.match`` holds the command it was made from."""

    tool: str
    pattern: str | None  # None: the whole tool (an MCP tool)
    label: str  # the command, file, host or tool it generalises, as written, for display
    examples: Examples = field(default_factory=Examples)
    #: The programs its command also runs that the rule does not cover and no rule allows yet
    #: (the editor ``git commit`` starts without ``-m``): alone, the rule does not allow the
    #: command next time; each needs a rule of its own. Empty: the rule allows it.
    also_runs: tuple[str, ...] = ()
    #: The patterns of the other rules offered for the same command that it needs beside it: a
    #: wrapper's ``nice **`` allows ``nice -n 5 make test`` only with ``make test **`` (and that
    #: one only with ``nice **``). Empty: alone, it is enough for its command.
    needs: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Verdict:
    """The rules' answer for one call: the overall effect, the deciding provenance, and the
    per-part breakdown. ``effect is None`` means no rule or grant spoke: the tool's policy and
    risk defaults decide (``policy.approval_for``)."""

    effect: Effect | None
    provenance: Provenance | None
    parts: tuple[Part, ...] = ()
    suggestions: tuple[Suggestion, ...] = ()
    #: True when nothing decided but the allow rules of a workspace file not (yet) trusted would
    #: allow this call: the dialog can say "trusting this workspace would allow it".
    untrusted_allow: bool = False
    #: The parts of a shell line that would still ask with every suggested rule added (a
    #: redirection into a file no write rule allows, a command no rule offered allows), but for
    #: those a suggestion's ``also_runs`` explains: the dialog says so rather than let a rule
    #: look like it allows the line next time.
    still_asks: tuple[str, ...] = ()


class Default(enum.StrEnum):
    """What a call to a tool does when no rule or grant speaks."""

    RUNS = "runs"  # runs without asking
    ASKS = "asks"
    REFUSED = "refused"  # settings: never


@dataclass(frozen=True, kw_only=True)
class ToolStanding:
    """The engine's one answer for the catalog, the CLI's ``tools list`` and the dispatcher:
    is the tool enabled, what happens to a call by default, and why.

    ``enabled_by`` names what decided enabled ("source disabled", "tool toggle", "profile");
    ``default_by`` what decided the default ("settings: always allow", "risk default: read",
    "the tool always asks"); ``policy_explicit`` is True when the person set the policy (the
    catalog shows it plainly, otherwise as "Default (…)"); ``rule_count`` counts the rules (of
    every layer, active or not) that mention this tool or its family."""

    name: str
    enabled: bool
    enabled_by: EnabledBy
    risk: RiskLevel  # the effective risk, after the person's override for MCP tools
    default: Default
    default_by: DefaultBy
    policy_explicit: bool
    rule_count: int = 0

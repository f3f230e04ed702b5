"""Permission rules: argument patterns per tool family, layered TOML files, expiring grants.

The public API for the dispatcher, the CLI and the UI (import from here):

- ``PermissionEngine`` — load layers, ``evaluate`` a ``Subject``, ``check_command`` /
  ``check_path`` / ``check_url`` / ``check_mcp`` for the tester, ``grant`` / ``revoke`` /
  ``trust``.
- ``tool_standing(entry, settings, rules)`` — enabled? default? what decided? (one answer for
  the dispatcher, ``tools list`` and the catalog).
- ``subject_for(entry, params)`` — a call in the rules' terms.
- Values: ``Effect``, ``Family``, ``Layer``, ``Rule``, ``RuleSource``, ``LoadReport``,
  ``LoadProblem``, ``Grant``, ``GrantScope``, ``Verdict``, ``Part``, ``Provenance``,
  ``Suggestion``, ``Opaque``, ``ToolStanding``, ``Default``.

See docs/permissions.md for the file format and the precedence.
"""

from echo_desk.agent.permissions.engine import PermissionEngine, workspace_files
from echo_desk.agent.permissions.model import (
    Decider,
    Default,
    Effect,
    Examples,
    Family,
    Grant,
    GrantScope,
    Inactive,
    Layer,
    LoadProblem,
    LoadReport,
    Opaque,
    Part,
    ProblemKind,
    Provenance,
    Rule,
    RuleSource,
    Severity,
    Suggestion,
    ToolStanding,
    Verdict,
)
from echo_desk.agent.permissions.standing import tool_standing
from echo_desk.agent.permissions.subjects import Subject, subject_for

__all__ = [
    "Decider", "Default", "Effect", "Examples", "Family", "Grant", "GrantScope", "Inactive", "Layer",
    "LoadProblem", "LoadReport", "Opaque", "Part", "PermissionEngine", "ProblemKind", "Provenance",
    "Rule", "RuleSource", "Severity", "Subject", "Suggestion", "ToolStanding", "Verdict",
    "subject_for", "tool_standing", "workspace_files",
]

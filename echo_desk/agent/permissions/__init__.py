"""Permission rules: argument patterns per tool family, layered TOML files, expiring grants.

The public API for the dispatcher, the CLI and the UI (import from here):

- ``PermissionEngine`` — load layers, ``evaluate`` a ``Subject``, ``check_command`` /
  ``check_path`` / ``check_url`` / ``check_mcp`` for the tester, ``grant`` / ``revoke`` /
  ``trust_snapshot`` then ``trust`` (bound to the bytes shown).
- ``standing.tool_standing(entry, settings, rules)`` — enabled? default? what decided? (one
  answer for the dispatcher, ``tools list`` and the catalog; import it from its module: it reads
  the settings model, which a rules check does not need).
- ``subject_for(entry, params)`` — a call in the rules' terms, from the tool's declared family
  and path arguments; ``rule_names_for(entry)`` — the rule ``tool`` values that mention a tool;
  ``family_of(tool, named)`` — which grammar a rule uses (``ValueError`` for a malformed
  ``tool``); ``registered_grammar(lookup)`` — ``named`` from the registry.
- Values: ``Effect``, ``Family``, ``Layer``, ``Rule``, ``RuleSource``, ``LoadReport``,
  ``LoadProblem``, ``Grant``, ``GrantScope``, ``Verdict``, ``Part``, ``Provenance``,
  ``Suggestion``, ``Opaque``, ``ToolStanding``, ``Default``.

See docs/permissions.md for the file format and the precedence.
"""

from echo_desk.agent.permissions.compiled import family_of
from echo_desk.agent.permissions.engine import (
    FILE_CHECK_SECONDS,
    PermissionEngine,
    file_sha256,
    workspace_files,
)
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
    PartKind,
    ProblemKind,
    Provenance,
    Rule,
    RuleSource,
    Severity,
    Suggestion,
    ToolStanding,
    Verdict,
)
from echo_desk.agent.permissions.subjects import (
    PathUse,
    Subject,
    grammar_of,
    registered_grammar,
    rule_names_for,
    subject_for,
)
from echo_desk.agent.permissions.trust import TrustChanged, TrustFile, TrustSnapshot

__all__ = [
    "FILE_CHECK_SECONDS",
    "Decider",
    "Default",
    "Effect",
    "Examples",
    "Family",
    "Grant",
    "GrantScope",
    "Inactive",
    "Layer",
    "LoadProblem",
    "LoadReport",
    "Opaque",
    "Part",
    "PartKind",
    "PathUse",
    "PermissionEngine",
    "ProblemKind",
    "Provenance",
    "Rule",
    "RuleSource",
    "Severity",
    "Subject",
    "Suggestion",
    "ToolStanding",
    "TrustChanged",
    "TrustFile",
    "TrustSnapshot",
    "Verdict",
    "family_of",
    "file_sha256",
    "grammar_of",
    "registered_grammar",
    "rule_names_for",
    "subject_for",
    "workspace_files",
]

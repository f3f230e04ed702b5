"""The public tool contract. Third-party tools import only from here.

A tool is one class::

    from echo_desk.tools import BaseTool

    class Shout(BaseTool):
        name = "shout"
        description = "Return the text in capitals."
        input_schema = {"type": "object", "properties": {"text": {"type": "string"}},
                        "required": ["text"]}

        async def run(self, text: str) -> str:
            return text.upper()

Each name loads with its own module on first use, so that importing one light part of the
contract (``echo_desk.tools.results``, say) does not import all of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from echo_desk.lazy_names import names_from_modules

if TYPE_CHECKING:
    from echo_desk.tools.base import (
        N_,
        RESERVED_HIDDEN_PARAMETERS,
        BaseTool,
        ElicitationTool,
        Tool,
    )
    from echo_desk.tools.context import CancelledByUser, HunkSelection, ToolExecutionContext
    from echo_desk.tools.host import (
        Answer,
        AnswerAction,
        NullToolHost,
        Question,
        TodoItem,
        TodoStatus,
        ToolHost,
    )
    from echo_desk.tools.protection import Protection, ProtectionReason
    from echo_desk.tools.results import (
        COUNTS_KEY,
        SANDBOX_TARGET,
        Counted,
        DiffHunk,
        ErrorKind,
        FileChange,
        FileChangeKind,
        Placement,
        RiskLevel,
        Target,
        TargetKind,
        ToolError,
        ToolPreview,
        ToolResult,
        counted,
    )
    from echo_desk.tools.roles import CHANGING_ROLES, LOOKING_ROLES, ToolRole, role_from_annotations
    from echo_desk.tools.rules import READS, WRITES, PathAccess, PathArgument, RuleFamily, declared_family
    from echo_desk.tools.secrets import get_secret

_HOME = {
    "BaseTool": "base",
    "ElicitationTool": "base",
    "N_": "base",
    "RESERVED_HIDDEN_PARAMETERS": "base",
    "Tool": "base",
    "CancelledByUser": "context",
    "HunkSelection": "context",
    "ToolExecutionContext": "context",
    "Answer": "host",
    "AnswerAction": "host",
    "NullToolHost": "host",
    "Question": "host",
    "TodoItem": "host",
    "TodoStatus": "host",
    "ToolHost": "host",
    "Protection": "protection",
    "ProtectionReason": "protection",
    "COUNTS_KEY": "results",
    "Counted": "results",
    "DiffHunk": "results",
    "ErrorKind": "results",
    "FileChange": "results",
    "FileChangeKind": "results",
    "Placement": "results",
    "RiskLevel": "results",
    "SANDBOX_TARGET": "results",
    "Target": "results",
    "TargetKind": "results",
    "ToolError": "results",
    "ToolPreview": "results",
    "ToolResult": "results",
    "counted": "results",
    "CHANGING_ROLES": "roles",
    "LOOKING_ROLES": "roles",
    "ToolRole": "roles",
    "role_from_annotations": "roles",
    "PathAccess": "rules",
    "PathArgument": "rules",
    "READS": "rules",
    "RuleFamily": "rules",
    "WRITES": "rules",
    "declared_family": "rules",
    "get_secret": "secrets",
}

__all__ = [
    "CHANGING_ROLES",
    "COUNTS_KEY",
    "LOOKING_ROLES",
    "N_",
    "READS",
    "RESERVED_HIDDEN_PARAMETERS",
    "SANDBOX_TARGET",
    "WRITES",
    "Answer",
    "AnswerAction",
    "BaseTool",
    "CancelledByUser",
    "Counted",
    "DiffHunk",
    "ElicitationTool",
    "ErrorKind",
    "FileChange",
    "FileChangeKind",
    "HunkSelection",
    "NullToolHost",
    "PathAccess",
    "PathArgument",
    "Placement",
    "Protection",
    "ProtectionReason",
    "Question",
    "RiskLevel",
    "RuleFamily",
    "Target",
    "TargetKind",
    "TodoItem",
    "TodoStatus",
    "Tool",
    "ToolError",
    "ToolExecutionContext",
    "ToolHost",
    "ToolPreview",
    "ToolResult",
    "ToolRole",
    "counted",
    "declared_family",
    "get_secret",
    "role_from_annotations",
]

__getattr__, __dir__ = names_from_modules(__name__, _HOME)

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
"""

from echo_desk.tools.base import (
    N_,
    RESERVED_HIDDEN_PARAMETERS,
    BaseTool,
    ElicitationTool,
    Tool,
)
from echo_desk.tools.context import CancelledByUser, HunkSelection, ToolExecutionContext
from echo_desk.tools.host import Answer, AnswerAction, NullToolHost, Question, TodoItem, TodoStatus, ToolHost
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

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
from echo_desk.tools.context import CancelledByUser, ToolExecutionContext
from echo_desk.tools.host import Answer, AnswerAction, NullToolHost, Question, TodoItem, TodoStatus, ToolHost
from echo_desk.tools.protection import Protection, ProtectionReason
from echo_desk.tools.results import (
    COUNTS_KEY,
    Counted,
    ErrorKind,
    FileChange,
    FileChangeKind,
    RiskLevel,
    Target,
    ToolError,
    ToolPreview,
    ToolResult,
    counted,
)
from echo_desk.tools.roles import CHANGING_ROLES, LOOKING_ROLES, ToolRole, role_from_annotations
from echo_desk.tools.secrets import get_secret

__all__ = [
    "CHANGING_ROLES",
    "COUNTS_KEY",
    "LOOKING_ROLES",
    "N_",
    "RESERVED_HIDDEN_PARAMETERS",
    "Answer",
    "AnswerAction",
    "BaseTool",
    "CancelledByUser",
    "Counted",
    "ElicitationTool",
    "ErrorKind",
    "FileChange",
    "FileChangeKind",
    "NullToolHost",
    "Protection",
    "ProtectionReason",
    "Question",
    "RiskLevel",
    "Target",
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
    "get_secret",
    "role_from_annotations",
]

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
    DiffHunk,
    ErrorKind,
    FileChange,
    FileChangeKind,
    RiskLevel,
    Target,
    ToolError,
    ToolPreview,
    ToolResult,
)
from echo_desk.tools.secrets import get_secret

__all__ = [
    "N_",
    "RESERVED_HIDDEN_PARAMETERS",
    "Answer",
    "AnswerAction",
    "BaseTool",
    "CancelledByUser",
    "DiffHunk",
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
    "get_secret",
]

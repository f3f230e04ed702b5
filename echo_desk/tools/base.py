"""The two ways to write a tool: ``Tool`` (full contract) and ``BaseTool`` (light style)."""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from typing import Any, ClassVar

from echo_desk.tools.context import ToolExecutionContext
from echo_desk.tools.results import RiskLevel, ToolPreview, ToolResult
from echo_desk.tools.roles import ToolRole
from echo_desk.tools.rules import PathAccess, RuleFamily

#: Parameter names that are never model-visible. A tool lists the ones it wants in
#: ``hidden_parameters``; the dispatcher injects them from the context and refuses them
#: when a model tries to supply them.
RESERVED_HIDDEN_PARAMETERS = frozenset(
    {"user_id", "workspace_id", "conversation_id", "scope_id", "session_id", "auth_token", "api_key"}
)


def N_(message: str) -> str:
    """Mark a catalog string for extraction; it is translated where it is shown."""
    return message


class Tool:
    """A capability the agent can call.

    Subclasses set the class attributes and implement ``execute``. ``description`` and
    ``parameters`` are model-visible and stay in English; ``title`` and
    ``catalog_description`` are the person-facing catalog text (marked with ``N_`` so they
    can be translated).
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}
    risk_level: ClassVar[RiskLevel] = RiskLevel.READ
    #: What kind of step a call is (look, search, change, create, move, run… see ``ToolRole``).
    #: Undeclared, a tool is ``UNKNOWN``: treated as one that may change anything.
    role: ClassVar[ToolRole] = ToolRole.UNKNOWN
    timeout_seconds: ClassVar[float] = 30.0
    max_retries: ClassVar[int] = 0
    #: Write/exec tools are only retried if running them twice is harmless.
    idempotent: ClassVar[bool] = False
    stream_capable: ClassVar[bool] = False
    #: Ask the person before every call even if the risk is ``read`` (e.g. spawning a
    #: sub-agent); settings ("Always allow") and conversation grants still apply.
    requires_approval: ClassVar[bool] = False
    #: The tool can write part of a previewed change: the person may keep only some hunks of
    #: each diff, and ``execute`` then writes exactly ``ctx.hunk_selection`` of them.
    writes_hunk_selection: ClassVar[bool] = False
    capabilities: ClassVar[frozenset[str]] = frozenset()
    #: Stopped while it runs (Stop, or out of time), ``execute`` still returns promptly with what
    #: it left (a sandboxed command's check of what it planted): the dispatcher waits (bounded)
    #: for that account. Others are not waited for unless Revert kept files to compare with, so a
    #: handler blocked in a thread cannot make a timeout late.
    reports_when_stopped: ClassVar[bool] = False
    #: Which permission rules judge the calls (``echo_desk.tools.rules``); ``None``: the files
    #: rules when ``path_arguments`` names any, else only rules that name the tool.
    rule_family: ClassVar[RuleFamily | None] = None
    #: The top-level string arguments that are paths, and whether the tool reads or writes
    #: there: the read and write rules judge each (both ends of a move or a copy).
    path_arguments: ClassVar[Mapping[str, PathAccess]] = {}
    hidden_parameters: ClassVar[tuple[str, ...]] = ()
    #: The parameters a small model is offered (``None``: all of them); the others keep their
    #: defaults. For options a small model misuses more often than it needs them (a 0.5B model
    #: gave ``search_files`` its regex as the file-name glob too, so nothing was searched).
    basic_parameters: ClassVar[tuple[str, ...] | None] = None
    #: For a ``SEARCH`` tool: the string argument that holds what it looks for, and whether that
    #: is a regular expression. A small model that said it searches for a name the request holds
    #: is then held to that name there (escaped, for a regular expression); left to itself, the
    #: 0.5B model searched for ``.*``.
    query_argument: ClassVar[str | None] = None
    query_is_regex: ClassVar[bool] = False
    title: ClassVar[str] = ""
    catalog_description: ClassVar[str] = ""
    #: Gettext domain holding the translations of ``title``/``catalog_description``.
    translation_domain: ClassVar[str] = "echo_desk"

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        raise NotImplementedError

    async def preview(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolPreview | None:
        """What the call would touch, for the approval dialog. ``None``: nothing to show."""
        return None

    def is_ready(self) -> bool:
        return True

    def readiness_detail(self) -> str:
        """Why the tool is not ready (e.g. "API key not configured"); empty when ready."""
        return ""

    @property
    def display_title(self) -> str:
        return self.title or self.name

    @property
    def display_description(self) -> str:
        return self.catalog_description or self.description

    @property
    def display_icon(self) -> bytes | None:
        """A small PNG, JPEG, GIF or WebP image the catalog shows beside the tool; none by default."""
        return None

    @property
    def has_preview(self) -> bool:
        return type(self).preview is not Tool.preview


class ElicitationTool(Tool):
    """A tool that suspends the turn to ask the person something (see ``ask_user``)."""

    elicits: ClassVar[bool] = True


class BaseTool(Tool):
    """The light authoring style: ``input_schema`` plus ``async def run(self, **kwargs)``.

    ``run`` returns any JSON-serializable value (strings pass through unchanged) and raises
    on error: ``ToolError`` for a chosen kind, anything else becomes ``internal``. Hidden
    parameters listed in ``hidden_parameters`` arrive as keyword arguments.
    """

    input_schema: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "input_schema" in cls.__dict__:
            cls.parameters = cls.input_schema

    async def run(self, **kwargs: Any) -> Any:
        raise NotImplementedError

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        value = await self.run(**dict(params))
        if isinstance(value, ToolResult):
            return value
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        return ToolResult.ok(text)


def synchronous_handlers(tool: Tool) -> list[str]:
    """Names of handler methods a tool defines as plain (blocking) functions."""
    names = ["execute", "preview"] + (["run"] if isinstance(tool, BaseTool) else [])
    return [n for n in names if not inspect.iscoroutinefunction(getattr(tool, n))]


"""The tool registry: every tool the app knows, with where it came from."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata

from echo_desk.agent.converters import name_is_valid_for_all_providers
from echo_desk.agent.sources import BUILTIN, PLUGIN, ToolSource
from echo_desk.tools.base import RESERVED_HIDDEN_PARAMETERS, Tool, synchronous_handlers
from echo_desk.tools.rules import PathAccess, RuleFamily

log = logging.getLogger(__name__)

RESERVED_NAMES = frozenset({"load_skill", "unload_skill"})
PLUGIN_GROUP = "echo_desk.tools"

@dataclass(frozen=True)
class RegisteredTool:
    tool: Tool
    source: ToolSource
    #: Set only by the engine's own adapters (MCP) whose handlers hand the work to a thread the
    #: engine owns and never block: the dispatcher awaits them on the caller's loop instead of
    #: hopping to a tool worker and back. Plugins cannot ask for it.
    offloaded: bool = False

    @property
    def name(self) -> str:
        return self.tool.name


@dataclass(frozen=True)
class RegistrationResult:
    ok: bool
    name: str
    message: str = ""


def _rule_declaration_problem(tool: Tool) -> str:
    """What is wrong with what ``tool`` declares to the permission rules ("" when nothing): a path
    argument the rules could not see would leave that path unjudged."""
    if tool.rule_family is not None and not isinstance(tool.rule_family, RuleFamily):
        return f"rule_family must be a RuleFamily, not {tool.rule_family!r}"
    properties = tool.parameters.get("properties") or {}
    for argument, access in dict(tool.path_arguments).items():
        if not isinstance(access, PathAccess):
            return f"path_arguments[{argument!r}] must be PathAccess.READ or PathAccess.WRITE"
        spec = properties.get(argument)
        if not isinstance(spec, dict):
            return f"path argument {argument!r} is not in the parameters schema"
        item = spec.get("items") if spec.get("type") == "array" else spec
        if not isinstance(item, dict) or item.get("type") != "string":
            return f"path argument {argument!r} must be a string (or an array of strings) in the schema"
    return ""


def _small_model_declaration_problem(tool: Tool) -> str:
    """What is wrong with ``basic_parameters`` or ``query_argument`` ("" when nothing): a small
    model must still be able to give every required parameter, a name the schema lacks is a
    typo, and a query is a string argument."""
    properties = tool.parameters.get("properties") or {}
    query = tool.query_argument
    if query is not None and (properties.get(query) or {}).get("type") != "string":
        return f"query_argument {query!r} must be a string parameter of the schema"
    basic = tool.basic_parameters
    if basic is None:
        return ""
    if query is not None and query not in basic:
        return f"basic_parameters must keep the query_argument {query!r}"
    unknown = [p for p in basic if p not in properties]
    if unknown:
        return f"basic_parameters names parameters the schema lacks: {', '.join(unknown)}"
    left_out = [p for p in tool.parameters.get("required") or [] if p not in basic]
    if left_out:
        return f"basic_parameters must keep every required parameter: {', '.join(left_out)}"
    return ""


class ToolRegistry:
    """Holds tools by unique name. Registration checks the contract and the schema."""

    def __init__(self) -> None:
        self._tools: dict[str, RegisteredTool] = {}
        self.problems: list[RegistrationResult] = []
        #: Goes up with every change to the set of tools, so what is derived from it (a client's
        #: granted tools) can be kept until it changes instead of recomputed per call.
        self.generation = 0

    def register(self, tool: Tool, source: ToolSource | str = BUILTIN, *,
                 offloaded: bool = False, replace: bool = False) -> RegistrationResult:
        """Register ``tool`` from ``source`` (a ``ToolSource`` or its spelling, e.g. ``mcp:memory``).

        ``replace`` puts it in the place of a tool of the same name in one step: a call looked up
        from another thread finds the old tool or the new one, never none (an MCP server's
        changed tool must read "changed, re-approve", not "unknown tool")."""
        result = self._check(tool, replacing=replace)
        if result.ok:
            self._tools[tool.name] = RegisteredTool(tool, ToolSource(source), offloaded)
            self.generation += 1
        else:
            log.warning("tool not registered: %s", result.message)
            self.problems.append(result)
        return result

    def _check(self, tool: Tool, *, replacing: bool = False) -> RegistrationResult:
        name = getattr(tool, "name", "")
        label = name or f"<{type(tool).__name__} without a name>"

        def refuse(why: str) -> RegistrationResult:
            return RegistrationResult(False, name, f"{label}: {why}")

        if not isinstance(tool, Tool):
            return refuse("is not an echo_desk.tools.Tool")
        if name in RESERVED_NAMES:
            return refuse("the name is reserved")
        if not name_is_valid_for_all_providers(name):
            return refuse("names must be 1-64 letters, digits, '_' or '-', starting with a letter or '_'")
        if name in self._tools and not replacing:
            return refuse(f"a tool with this name is already registered (from {self._tools[name].source})")
        blocking = synchronous_handlers(tool)
        if blocking:
            return refuse(
                f"{', '.join(blocking)} must be 'async def' (wrap blocking work in asyncio.to_thread)"
            )
        if not tool.description:
            return refuse("needs a description for the model")
        from echo_desk.agent.schema_checks import check_tool_schema

        problems = check_tool_schema(tool.parameters)
        if problems:
            return refuse("invalid parameters schema: " + "; ".join(problems))
        declared = set((tool.parameters.get("properties") or {}).keys())
        leaked = declared & (RESERVED_HIDDEN_PARAMETERS | set(tool.hidden_parameters))
        if leaked:
            return refuse(f"hidden parameters must not be in the schema: {', '.join(sorted(leaked))}")
        wrong = _rule_declaration_problem(tool) or _small_model_declaration_problem(tool)
        if wrong:
            return refuse(wrong)
        return RegistrationResult(True, name)

    def unregister(self, name: str) -> bool:
        removed = self._tools.pop(name, None) is not None
        if removed:
            self.generation += 1
        return removed

    def get(self, name: str) -> RegisteredTool | None:
        return self._tools.get(name)

    def entries(self) -> list[RegisteredTool]:
        return list(self._tools.values())

    def __iter__(self) -> Iterator[RegisteredTool]:
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def load_plugins(self, group: str = PLUGIN_GROUP) -> list[RegistrationResult]:
        """Instantiate and register tools advertised by installed packages' entry points."""
        results: list[RegistrationResult] = []
        for entry in metadata.entry_points(group=group):
            try:
                loaded = entry.load()
                tools = loaded() if callable(loaded) and not isinstance(loaded, type) else [loaded()]
                if isinstance(tools, Tool):
                    tools = [tools]
            except Exception as exc:  # a broken plugin must not stop the app  # noqa: BLE001
                problem = RegistrationResult(False, entry.name, f"plugin {entry.name}: {exc!r}")
                log.warning("%s", problem.message)
                self.problems.append(problem)
                results.append(problem)
                continue
            for tool in tools:
                results.append(self.register(tool, source=PLUGIN))
        return results

"""A quick "certainly matches" check of a tool's structured result, ahead of the SDK's.

The SDK checks every structured result against the tool's declared ``outputSchema`` with its
compiled jsonschema validator (``ClientSession.validate_tool_result``): ~200 Python calls, about
0.1 ms of the app's CPU, on every call of such a tool (mcp-server-time's tools declare one), more
than the rest of the dispatcher's checks together. Most output schemas are plain objects of
typed properties, which ``schema_quick`` compiles into a check of a few microseconds.

The check only ever skips the SDK's when it *accepts*: a result it is not sure of, a tool the
session has not listed, a schema the SDK would refuse as a schema, or one using anything the quick
check does not model, goes to the SDK as before, so what is refused, and why, is the SDK's alone.
It is compiled once per tool and schema, and again when the session lists a new schema for the
tool (a changed tool), read from the session's own cache of listed schemas: a session without
that cache (another SDK version) gets no quick check.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from echo_desk.agent.schema_quick import Quick, compile_quick


class QuickOutputCheck:
    """One session's compiled quick checks, by tool name."""

    def __init__(self) -> None:
        #: The schema each check was compiled from (the session's own object: a new listing of
        #: the tool puts a new one there) and the check (``None``: no quick check for it).
        self._compiled: dict[str, tuple[object, Quick | None]] = {}

    def surely_fits(self, session: Any, name: str, result: types.CallToolResult) -> bool:
        """``True`` only when the SDK's ``validate_tool_result(name, result)`` would certainly
        find nothing wrong (and ask nothing of the server); ``False``: let the SDK check it."""
        listed = getattr(session, "_tool_output_schemas", None)
        if type(listed) is not dict or name not in listed or "structured_content" not in result.model_fields_set:
            return False
        schema = listed[name]
        if schema is None:
            return False  # nothing to check: the SDK's own way is as quick
        compiled = self._compiled.get(name)
        if compiled is None or compiled[0] is not schema:
            compiled = (schema, _compile(schema))
            self._compiled[name] = compiled
        quick = compiled[1]
        return quick is not None and quick(result.structured_content)


def _compile(schema: Any) -> Quick | None:
    """The quick check of an output schema the SDK accepts as a schema, under the draft it picks
    for it; ``None`` for anything else (the SDK says what is wrong with it, on every call)."""
    from jsonschema import SchemaError
    from jsonschema.validators import validator_for

    try:
        validator_for(schema).check_schema(schema)
    except (SchemaError, TypeError, ValueError):
        return None
    return compile_quick(schema)

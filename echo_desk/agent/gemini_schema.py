"""JSON Schema → the OpenAPI-3.0 subset Gemini accepts in ``functionDeclarations[].parameters``.

Targets the stricter of Google's two APIs (the Gemini Developer API; Vertex accepts a superset):
``$ref``/``$defs`` are inlined, ``const`` becomes a one-value ``enum``, ``null`` branches become
``nullable``, and keywords Gemini rejects are dropped. Dropping only ever *loosens* what the model
is told: the dispatcher still validates every call against the tool's original schema. Hints a
model benefits from (a default, a string format, numeric enums) move into the description.
Anything whose meaning cannot survive (recursion, free-form objects, untyped values, tuples)
raises :class:`GeminiSchemaError` with the place it happened.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

# Inlining a DAG of $defs can grow exponentially; untrusted schemas must not get to do that.
MAX_NODES = 4_000
MAX_DEPTH = 48

_TYPES = {"string", "number", "integer", "boolean", "array", "object"}
_KEEP = {
    "string": ("minLength", "maxLength", "pattern"),
    "number": ("minimum", "maximum"),
    "integer": ("minimum", "maximum"),
    "boolean": (),
    "array": ("minItems", "maxItems"),
    "object": ("minProperties", "maxProperties"),
}
_NUMBER_FORMATS = {"number": {"float", "double"}, "integer": {"int32", "int64"}}
_STRING_FORMATS = {"date-time"}
_STRUCTURAL = {"type", "properties", "items", "prefixItems", "$ref", "enum", "const", "anyOf", "oneOf", "allOf"}


class GeminiSchemaError(ValueError):
    """The schema cannot be expressed for Gemini; the message names where and why."""


def _where(path: str) -> str:
    return f"at {path}" if path else "at the top level"


def _hint(node: dict[str, Any], text: str) -> None:
    description = node.get("description", "")
    node["description"] = f"{description} ({text})" if description else text[:1].upper() + text[1:]


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:79] + "…"


class _Converter:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.refs: list[str] = []  # the $ref chain being expanded, to detect recursion
        self.nodes = 0
        self.depth = 0

    def resolve(self, ref: str, path: str) -> Any:
        if not ref.startswith("#"):
            raise GeminiSchemaError(f"{_where(path)}: only local $ref can be inlined, got {ref!r}")
        if ref == "#":
            return self.root
        if not ref.startswith("#/"):
            raise GeminiSchemaError(f"{_where(path)}: $ref {ref!r} uses an anchor, which cannot be inlined")
        target: Any = self.root
        for raw in ref[2:].split("/"):
            part = unquote(raw).replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and part in target:
                target = target[part]
            elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                target = target[int(part)]
            else:
                raise GeminiSchemaError(f"{_where(path)}: $ref {ref!r} points nowhere")
        return target

    def convert(self, node: Any, path: str) -> dict[str, Any]:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise GeminiSchemaError(f"inlining $ref makes the schema larger than {MAX_NODES} nodes")
        if self.depth >= MAX_DEPTH:
            raise GeminiSchemaError(f"{_where(path)}: nested more than {MAX_DEPTH} levels")
        self.depth += 1
        try:
            return self._convert(node, path)
        finally:
            self.depth -= 1

    def _convert(self, node: Any, path: str) -> dict[str, Any]:
        if node is True or node == {}:
            raise GeminiSchemaError(f"{_where(path)}: accepts any value, but Gemini needs a type")
        if not isinstance(node, dict):
            raise GeminiSchemaError(f"{_where(path)}: expected a schema object, got {_show(node)}")
        if "$dynamicRef" in node or "$recursiveRef" in node:
            raise GeminiSchemaError(f"{_where(path)}: dynamic references cannot be inlined")
        if "$ref" in node:
            return self._inline(node, path)
        for keyword in ("allOf", "anyOf", "oneOf"):
            if keyword in node:
                return self._combinator(node, keyword, path)
        return self._plain(node, path)

    def _inline(self, node: dict[str, Any], path: str) -> dict[str, Any]:
        ref = node["$ref"]
        if not isinstance(ref, str):
            raise GeminiSchemaError(f"{_where(path)}: $ref must be a string")
        if ref in self.refs:
            chain = " → ".join([*self.refs[self.refs.index(ref):], ref])
            raise GeminiSchemaError(f"{_where(path)}: recursive $ref ({chain}) cannot be inlined for Gemini")
        target = self.resolve(ref, path)
        if not isinstance(target, dict):
            raise GeminiSchemaError(f"{_where(path)}: $ref {ref!r} does not point at a schema object")
        # Sibling keywords (usually a description) refine the referenced schema.
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        self.refs.append(ref)
        try:
            return self.convert(merged, path)
        finally:
            self.refs.pop()

    def _combinator(self, node: dict[str, Any], keyword: str, path: str) -> dict[str, Any]:
        branches = node[keyword]
        rest = {k: v for k, v in node.items() if k != keyword}
        if not isinstance(branches, list) or not branches:
            raise GeminiSchemaError(f"{_where(path)}: {keyword} must be a non-empty list")
        structural = [b for b in branches if not isinstance(b, dict) or set(b) & _STRUCTURAL]
        if not structural and set(rest) & _STRUCTURAL:
            # e.g. anyOf: [{"required": [...]}, ...] next to the real properties: a pure constraint.
            return self.convert(rest, path)
        if keyword == "allOf":
            if len(branches) == 1:
                return self.convert({**branches[0], **rest}, path)
            raise GeminiSchemaError(f"{_where(path)}: allOf with several schemas cannot be expressed for Gemini")
        others = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null" and len(b) == 1)]
        nullable = len(others) < len(branches)
        if not others:
            raise GeminiSchemaError(f"{_where(path)}: only null is allowed, which Gemini cannot express")
        if len(others) == 1:
            only = others[0]
            result = self.convert({**only, **rest} if isinstance(only, dict) else only, path)
        else:
            # Keywords beside the anyOf apply to every branch, so each branch carries them.
            shared = {k: v for k, v in rest.items() if k not in ("description", "title", "default")}
            result = {
                "anyOf": [
                    self.convert({**shared, **b} if isinstance(b, dict) else b, f"{path}.{keyword}[{i}]")
                    for i, b in enumerate(others)
                ]
            }
            if isinstance(rest.get("description"), str):
                result["description"] = rest["description"]
        if nullable:
            result["nullable"] = True
        return result

    def _plain(self, node: dict[str, Any], path: str) -> dict[str, Any]:
        node = dict(node)
        if "const" in node:
            node["enum"] = [node.pop("const")]
        kind = node.get("type")
        nullable = False
        if isinstance(kind, list):
            kinds = [k for k in kind if k != "null"]
            nullable = len(kinds) < len(kind)
            if len(kinds) > 1:
                result = {"anyOf": [self._plain({**node, "type": k}, path) for k in kinds]}
                return {**result, "nullable": True} if nullable else result
            kind = kinds[0] if kinds else "null"
        enum = node.get("enum")
        if isinstance(enum, list) and None in enum:
            enum = [v for v in enum if v is not None]
            nullable = True
        if kind is None:
            kind = self._infer(node, enum, path)
        if kind not in _TYPES:
            raise GeminiSchemaError(f"{_where(path)}: type {kind!r} cannot be expressed for Gemini")
        out: dict[str, Any] = {"type": kind.upper()}
        # A title stands in for a missing description, except at the root, where the function's
        # own description says it better (pydantic puts the class name there).
        described = node.get("description") or (node.get("title") if path else None)
        if isinstance(described, str) and described:
            out["description"] = described
        if nullable:
            out["nullable"] = True
        for key in _KEEP[kind]:
            if key in node:
                out[key] = node[key]
        _values_and_hints(node, out, kind, enum)
        if kind == "object":
            self._object(node, out, path)
        elif kind == "array":
            self._array(node, out, path)
        return out

    def _array(self, node: dict[str, Any], out: dict[str, Any], path: str) -> None:
        items = node.get("items")
        if items is None or items is False:
            what = "a tuple (prefixItems)" if "prefixItems" in node else "an array without 'items'"
            raise GeminiSchemaError(f"{_where(path)}: {what} cannot be expressed for Gemini")
        out["items"] = self.convert(items, f"{path}[]" if path else "[]")

    def _infer(self, node: dict[str, Any], enum: Any, path: str) -> str:
        if "properties" in node:
            return "object"
        if "items" in node or "prefixItems" in node:
            return "array"
        if isinstance(enum, list) and enum and all(isinstance(v, str) for v in enum):
            return "string"
        raise GeminiSchemaError(f"{_where(path)}: the schema has no type, which Gemini needs")

    def _object(self, node: dict[str, Any], out: dict[str, Any], path: str) -> None:
        properties = node.get("properties") or {}
        if not isinstance(properties, dict):
            raise GeminiSchemaError(f"{_where(path)}: properties must be an object")
        converted = {
            name: self.convert(sub, f"{path}.{name}" if path else name)
            for name, sub in properties.items()
            if sub is not False  # a property that may never be present: leaving it out says the same
        }
        if not converted:
            if path:
                raise GeminiSchemaError(
                    f"{_where(path)}: a free-form object (no named properties) cannot be expressed for Gemini"
                )
            return
        out["properties"] = converted
        required = [r for r in node.get("required") or [] if r in converted]
        if required:
            out["required"] = required


def to_gemini_schema(parameters: dict[str, Any]) -> dict[str, Any] | None:
    """Convert a tool's parameters schema; ``None`` for a tool without parameters.

    Gemini rejects an ``OBJECT`` with empty ``properties``, so a parameterless tool must leave
    ``parameters`` out of its declaration altogether.
    """
    converter = _Converter(parameters)
    result = converter.convert(parameters, "")
    if result.get("type") != "OBJECT" or result.get("nullable"):
        raise GeminiSchemaError("the parameters must be an object schema")
    return result if "properties" in result else None


def _values_and_hints(node: dict[str, Any], out: dict[str, Any], kind: str, enum: Any) -> None:
    """Keep what Gemini can check (string enums, known formats); say the rest in the description."""
    if isinstance(enum, list):
        if kind == "string" and enum and all(isinstance(v, str) for v in enum):
            out["enum"] = list(enum)  # never share a list with the registry's schema
        else:
            _hint(out, "one of " + ", ".join(_show(v) for v in enum))
    fmt = node.get("format")
    if isinstance(fmt, str):
        if fmt in _NUMBER_FORMATS.get(kind, ()) or (kind == "string" and fmt in _STRING_FORMATS):
            out["format"] = fmt
        else:
            _hint(out, f"format: {fmt}")
    for key, sign in (("exclusiveMinimum", ">"), ("exclusiveMaximum", "<")):
        if isinstance(node.get(key), int | float) and kind in ("number", "integer"):
            _hint(out, f"must be {sign} {node[key]}")
    if node.get("default") is not None:
        _hint(out, f"default: {_show(node['default'])}")

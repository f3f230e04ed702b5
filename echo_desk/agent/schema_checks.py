"""Checks for tool parameter schemas: admission caps, compiled validators, model-facing messages.

Schemas from MCP servers and plugins are untrusted, so :func:`check_tool_schema` caps their size,
nesting and property count *before* anything recursive (the metaschema check, ``json.dumps``)
touches them. Validators are compiled once per distinct schema and cached.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, ValidationError, best_match

from echo_desk.agent.schema_quick import Quick, compile_quick
from echo_desk.i18n import N_, deferred, for_person

# Keywords whose value is one subschema / a list of subschemas / a map of name -> subschema.
_SINGLE = (
    "items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
    "unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema",
)
_LISTS = ("prefixItems", "allOf", "anyOf", "oneOf")
_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")

#: A JSON type as the person reads it (the model reads the JSON name).
_TYPES_FOR_PERSON = {"string": N_("text"), "integer": N_("a whole number"), "number": N_("a number"),
                     "boolean": N_("true or false"), "array": N_("a list"), "object": N_("an object"),
                     "null": N_("empty")}

_JSON_TYPE_NAMES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
                    (list, "array"), (dict, "object"), (type(None), "null"))


def _walk(schema: Any, most_values: int) -> tuple[int, int, int, list[str], bool]:
    """One iterative pass: (JSON nesting depth, subschema depth, property count, non-local $refs,
    whether it stopped after ``most_values`` JSON values, which cannot fit in fewer bytes)."""
    max_json = max_schema = props = values = 0
    remote: list[str] = []
    # (value, json depth, schema depth or 0 when the value is plain data such as an enum list)
    stack: list[tuple[Any, int, int]] = [(schema, 1, 1)]
    while stack:
        values += 1
        if values > most_values:
            return max_json, max_schema, props, remote, True
        value, jdepth, sdepth = stack.pop()
        max_json = max(max_json, jdepth)
        max_schema = max(max_schema, sdepth)
        if isinstance(value, list):
            stack.extend((item, jdepth + 1, 0) for item in value)
        elif isinstance(value, dict):
            if not sdepth:
                stack.extend((item, jdepth + 1, 0) for item in value.values())
                continue
            ref = value.get("$ref")
            if isinstance(ref, str) and not ref.startswith("#"):
                remote.append(ref)
            if isinstance(value.get("properties"), dict):
                props += len(value["properties"])
            for key, sub in value.items():
                if key in _SINGLE:
                    stack.append((sub, jdepth + 1, sdepth + 1))
                elif key in _LISTS and isinstance(sub, list):
                    stack.extend((item, jdepth + 2, sdepth + 1) for item in sub)
                elif key in _MAPS and isinstance(sub, dict):
                    stack.extend((item, jdepth + 2, sdepth + 1) for item in sub.values())
                else:
                    stack.append((sub, jdepth + 1, 0))
    return max_json, max_schema, props, remote, False


def check_tool_schema(
    schema: dict[str, Any], *, max_bytes: int = 32_768, max_depth: int = 12, max_properties: int = 256
) -> list[str]:
    """Return the problems that keep ``schema`` from being a tool's parameters (empty when fine).

    It must be a JSON object schema (``"type": "object"``), valid under the Draft 2020-12
    metaschema, at most ``max_bytes`` of compact JSON, at most ``max_depth`` nested subschemas and
    ``max_properties`` property names in total, with only local (``#...``) ``$ref``s.
    """
    if not isinstance(schema, dict):
        return [f"the schema must be a JSON object, not {_json_type(schema)}"]
    # Every JSON value takes at least a byte: past ``max_bytes`` of them the schema is too large
    # whatever they are, and the walk (a server's schema can be megabytes) stops there.
    json_depth, schema_depth, properties, remote, endless = _walk(schema, max_bytes)
    # Plain data (enum values, defaults) may nest a little deeper than subschemas do; beyond this
    # the recursive checks below could exhaust the stack, so stop here.
    if json_depth > 4 * max_depth + 8:
        return [f"the schema is nested too deeply ({json_depth} levels of JSON)"]
    if endless:
        return [f"the schema has more than {max_bytes} values (limit {max_bytes} bytes)"]
    problems: list[str] = []
    if schema.get("type") != "object":
        problems.append(f'the schema must describe an object ("type": "object"), got type {schema.get("type")!r}')
    if schema_depth > max_depth:
        problems.append(f"the schema nests {schema_depth} levels deep (limit {max_depth})")
    if properties > max_properties:
        problems.append(f"the schema declares {properties} properties (limit {max_properties})")
    if remote:
        problems.append(f"only local $ref ('#/...') is allowed, got {remote[0]!r}")
    try:
        size = len(canonical_json(schema).encode())
    except (TypeError, ValueError) as exc:
        problems.append(f"the schema is not plain JSON: {exc}")
        return problems
    if size > max_bytes:
        problems.append(f"the schema is {size} bytes (limit {max_bytes})")
    if problems:
        # Refused already: the metaschema check costs in proportion to the schema (seconds for
        # the megabytes a server may send), so only a schema within the caps gets it.
        return problems
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.path) or "(root)"
        problems.append(f"not a valid JSON Schema (Draft 2020-12) at {where}: {exc.message}")
    return problems


def strip_hidden(schema: Mapping[str, Any], hidden_names: Iterable[str]) -> dict[str, Any]:
    """Return a copy of ``schema`` without the hidden parameters in ``properties`` and ``required``.

    Hidden parameters (user_id, auth_token, ...) are injected from the execution context; the model
    must never see them. The input is not modified.
    """
    hidden = set(hidden_names)
    result = copy.deepcopy(dict(schema))
    props = result.get("properties")
    if isinstance(props, dict):
        result["properties"] = {k: v for k, v in props.items() if k not in hidden}
    required = result.get("required")
    if isinstance(required, list):
        kept = [r for r in required if r not in hidden]
        if kept:
            result["required"] = kept
        else:
            del result["required"]  # an empty list says nothing, and a few providers dislike it
    return result


def canonical_json(value: Any) -> str:
    """Key-sorted compact JSON: equal schemas give equal text whatever their key order."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


_CACHE_SIZE = 512


@dataclass(frozen=True)
class _Compiled:
    validator: Draft202012Validator
    #: ``True`` only for arguments the validator certainly accepts (None: no quick check).
    quick: Quick | None


_cache: OrderedDict[str, _Compiled] = OrderedDict()
#: id(schema) -> (that schema object, a deep copy of it then, its compiled checks). A tool passes
#: the same dict on every call; comparing it with the copy (a C-level walk) is far cheaper than
#: canonical JSON + SHA-256 of it, and still notices a dict changed in place.
_by_identity: OrderedDict[int, tuple[Mapping[str, Any], dict[str, Any], _Compiled]] = OrderedDict()
_cache_lock = threading.Lock()
_stats = {"hits": 0, "misses": 0}


def compiled_validator(schema: Mapping[str, Any]) -> Draft202012Validator:
    """A Draft 2020-12 validator for ``schema``, compiled once per distinct schema (LRU cache).

    The key is a SHA-256 of the canonical JSON, so two equal schemas share one validator even when
    they are different dict objects. ``format`` stays an annotation, as Draft 2020-12 specifies.
    """
    return _compiled(schema).validator


def validation_errors(schema: Mapping[str, Any], instance: Any) -> list[ValidationError]:
    """The validator's errors for ``instance``, in path order (empty when it is valid).

    Arguments the schema's quick check accepts skip jsonschema (they have no error to find);
    all others, and so every error and its message, come from the validator itself.
    """
    compiled = _compiled(schema)
    if compiled.quick is not None and compiled.quick(instance):
        return []
    return sorted(compiled.validator.iter_errors(instance), key=lambda e: list(e.path))


def _compiled(schema: Mapping[str, Any]) -> _Compiled:
    seen = _by_identity.get(id(schema))  # one dict read: atomic, no lock needed to look
    if seen is not None and seen[0] is schema and seen[1] == schema:
        with _cache_lock:
            _stats["hits"] += 1
        return seen[2]
    snapshot = copy.deepcopy(dict(schema))
    key = hashlib.sha256(canonical_json(snapshot).encode()).hexdigest()
    with _cache_lock:
        compiled = _cache.get(key)
        if compiled is not None:
            _cache.move_to_end(key)
            _stats["hits"] += 1
        else:
            _stats["misses"] += 1
    if compiled is None:
        # Compiled outside the lock; a rare duplicate compile is harmless. The validator gets
        # the copy, so a caller's later change to its dict cannot change what it checks.
        compiled = _Compiled(Draft202012Validator(snapshot), compile_quick(snapshot))
    with _cache_lock:
        _cache[key] = compiled
        _cache.move_to_end(key)
        _by_identity[id(schema)] = (schema, snapshot, compiled)
        _by_identity.move_to_end(id(schema))
        for table in (_cache, _by_identity):
            while len(table) > _CACHE_SIZE:
                table.popitem(last=False)
    return compiled


def validator_cache_info() -> dict[str, int]:
    """Hits, misses and current size of the validator cache (for tests and diagnostics)."""
    with _cache_lock:
        return {**_stats, "size": len(_cache)}


def _json_type(value: Any) -> str:
    for kind, name in _JSON_TYPE_NAMES:
        if isinstance(value, kind):
            return name
    return type(value).__name__


def _show(value: Any, limit: int = 60) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _count(n: Any, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _field(path: Iterable[Any]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def describe_validation_error(error: ValidationError) -> str:
    """One sentence the model can act on: which argument, what was expected, what it sent."""
    where = _field(error.absolute_path)
    subject = f"argument '{where}'" if where else "arguments"
    kind, expected, instance = error.validator, error.validator_value, error.instance
    if kind in ("anyOf", "oneOf") and error.context:
        here = [e for e in error.context if not e.path]
        if here and all(e.validator == "type" for e in here) and len(here) == len(error.context):
            kinds: list[str] = []
            for e in here:
                kinds += e.validator_value if isinstance(e.validator_value, list) else [e.validator_value]
            return f"{subject}: expected {' or '.join(dict.fromkeys(kinds))}, got {_json_type(instance)}"
        # Errors from branches whose type did match say what is really wrong (inside, or a bound).
        fitting = [e for e in error.context if e.path or e.validator != "type"]
        if fitting:
            chosen = best_match(fitting)
            if chosen is not None:
                return describe_validation_error(chosen)
        return f"{subject}: does not match any of the allowed forms, got {_show(instance)}"

    def prefixed(name: str) -> str:
        return f"{where}.{name}" if where else name

    if kind == "required" and isinstance(instance, dict):
        missing = [n for n in expected if n not in instance]
        # jsonschema reports each missing name as its own error, naming it first in the message.
        missing = [n for n in missing if error.message.startswith(repr(n) + " ")] or missing
        return "; ".join(f"missing required argument '{prefixed(n)}'" for n in missing)
    if kind in ("additionalProperties", "unevaluatedProperties") and isinstance(instance, dict):
        schema = error.schema if isinstance(error.schema, dict) else {}
        known = set(schema.get("properties") or {})
        patterns = list((schema.get("patternProperties") or {}).keys())
        extra = [n for n in instance if n not in known and not any(re.search(p, n) for p in patterns)]
        if extra and expected is False:
            allowed = ", ".join(sorted(known)) or "none"
            return "; ".join(f"unexpected argument '{prefixed(n)}'" for n in extra) + f" (allowed: {allowed})"
    got = f"got {_json_type(instance)}" if kind == "type" else f"got {_show(instance)}"
    messages: dict[str, Callable[[], str]] = {
        "type": lambda: "expected " + " or ".join(expected if isinstance(expected, list) else [expected]),
        "enum": lambda: "expected one of " + ", ".join(_show(v) for v in expected),
        "const": lambda: f"expected exactly {_show(expected)}",
        "minLength": lambda: f"expected at least {_count(expected, 'character')}",
        "maxLength": lambda: f"expected at most {_count(expected, 'character')}",
        "pattern": lambda: f"expected a string matching the pattern {_show(expected)}",
        "minimum": lambda: f"expected a number >= {expected}",
        "maximum": lambda: f"expected a number <= {expected}",
        "exclusiveMinimum": lambda: f"expected a number > {expected}",
        "exclusiveMaximum": lambda: f"expected a number < {expected}",
        "multipleOf": lambda: f"expected a multiple of {expected}",
        "minItems": lambda: f"expected at least {_count(expected, 'item')}",
        "maxItems": lambda: f"expected at most {_count(expected, 'item')}",
        "uniqueItems": lambda: "expected items without duplicates",
        "format": lambda: f"expected the format {_show(expected)}",
    }
    if kind in ("minLength", "maxLength") and isinstance(instance, str):
        got = f"got {len(instance)}"
    elif kind in ("minItems", "maxItems") and isinstance(instance, list):
        got = f"got {len(instance)}"
    describe = messages.get(str(kind))
    if describe is None:
        return f"{subject}: {error.message}"
    return f"{subject}: {describe()}, {got}"


def validation_text(errors: list[ValidationError]) -> str:
    """What is wrong with a call's arguments: the model reads a sentence per error (the first
    five); the person reads the first in their language (``for_person``), for the mistakes a
    call makes most (a name left out, a name the tool does not take, a value of the wrong type)
    and with the validator's sentence otherwise."""
    model_text = "; ".join(describe_validation_error(e) for e in errors[:5])
    first = errors[0]
    where = _field(first.absolute_path)
    kind, expected, instance = first.validator, first.validator_value, first.instance
    if kind == "required" and isinstance(instance, dict) and isinstance(expected, list):
        missing = tuple(f"{where}.{n}" if where else n for n in expected if n not in instance)
        if missing:
            return for_person(model_text, N_("missing argument: {names}"), names=missing)
    if kind == "additionalProperties" and expected is False and isinstance(instance, dict) \
            and isinstance(first.schema, dict):
        known = tuple(sorted(first.schema.get("properties") or {}))
        extra = tuple(n for n in instance if n not in known)
        if extra:
            return for_person(model_text, N_("the tool takes no argument {names} (it takes: {known})"),
                              names=extra, known=known)
    if kind == "type" and where:
        kinds = [str(k) for k in expected] if isinstance(expected, list) else [str(expected)]
        wanted = _type_for_person(kinds[0])
        for other in kinds[1:]:
            wanted = deferred(N_("{first} or {second}"), first=wanted, second=_type_for_person(other))
        return for_person(model_text, N_("argument {name} should be {expected}, not {got}"),
                          name=where, expected=wanted, got=_type_for_person(_json_type(instance)))
    return for_person(model_text, N_("the arguments do not fit the tool: {detail}"), detail=model_text)


def _type_for_person(json_type: str) -> str:
    msgid = _TYPES_FOR_PERSON.get(json_type)
    return deferred(msgid) if msgid else json_type

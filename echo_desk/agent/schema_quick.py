"""A quick "certainly valid" check for simple parameter schemas, ahead of jsonschema.

Running jsonschema's validator over a tool's arguments costs 10–20 µs even for a schema of one
string, on every call. Most tool schemas use a small set of keywords (types, properties,
required, additionalProperties, lengths, bounds, enum, items), which compile here into plain
Python checks of a few hundred nanoseconds.

The check only ever *accepts*: ``True`` means jsonschema (Draft 2020-12, formats as
annotations) would find no error; ``False`` means "not sure". Every argument set it does not
accept goes to jsonschema as before, so what is rejected, and every message the model reads
about it, comes from the same validator as always. Anything this module does not model exactly
(a keyword it does not know, ``1.0`` for an integer, a dict subclass, NaN) answers "not sure".
A schema using any other keyword gets no quick check at all (``compile_quick`` returns None).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping
from typing import Any

Quick = Callable[[Any], bool]

#: Keywords that never make an instance invalid under the compiled validator (formats are
#: annotations: the validator is built without a format checker). ``$schema`` names a dialect;
#: it only matters to ``$ref`` resolution, and a schema with ``$ref`` gets no quick check.
_ANNOTATIONS = frozenset({
    "title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly", "format",
    "$schema",
})
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),  # exactly int: bool is not an integer, and 1.0 is left to jsonschema
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
    "null": (type(None),),
}
_SCALARS = (str, int, bool, type(None))
_NUMBERS = (int, float)


def _is_count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _is_bound(value: Any) -> bool:
    return type(value) in (int, float) and value == value and value not in (float("inf"), float("-inf"))


def compile_quick(schema: Any) -> Quick | None:
    """A predicate that returns ``True`` only for instances ``schema`` certainly accepts, or
    ``None`` when the schema uses something this module does not model."""
    if schema is True:
        return _always
    if type(schema) is not dict:
        return None  # ``False`` rejects everything: jsonschema says why
    checks: list[Quick] = []
    for key, value in schema.items():
        if key in _ANNOTATIONS:
            continue
        check = _compile_keyword(key, value, schema)
        if check is None:
            return None
        if check is not _always:
            checks.append(check)
    return _all_of(checks)


def _all_of(checks: list[Quick]) -> Quick:
    """One predicate for several (plain loops and ``and``: a generator costs microseconds)."""
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda instance: first(instance) and second(instance)
    ordered = tuple(checks)

    def every(instance: Any) -> bool:
        for check in ordered:
            if not check(instance):
                return False
        return True

    return every


def _always(_: Any) -> bool:
    return True


def _compile_keyword(key: str, value: Any, schema: Mapping[str, Any]) -> Quick | None:
    compiler = _KEYWORDS.get(key)
    return compiler(key, value, schema) if compiler is not None else None


def _members_check(key: str, value: Any, _: Mapping[str, Any]) -> Quick | None:
    members = value if key == "enum" else [value]
    if not isinstance(members, list):
        return None
    # Only scalars equal *and of the same type* (jsonschema tells True from 1, but not 1 from 1.0).
    known = frozenset((type(m), m) for m in members if type(m) in _SCALARS)
    return lambda instance: type(instance) in _SCALARS and (type(instance), instance) in known


def _size_check(key: str, value: Any, _: Mapping[str, Any]) -> Quick | None:
    if not _is_count(value):
        return None
    kind = str if key.endswith("Length") else list
    if key.startswith("min"):
        return lambda instance: type(instance) is not kind or len(instance) >= value
    return lambda instance: type(instance) is not kind or len(instance) <= value


def _pattern_check(_key: str, value: Any, _: Mapping[str, Any]) -> Quick | None:
    if not isinstance(value, str):
        return None
    try:
        search = re.compile(value).search  # the same ``re.search`` jsonschema runs
    except re.error:
        return None
    return lambda instance: type(instance) is not str or search(instance) is not None


def _required_check(_key: str, value: Any, _: Mapping[str, Any]) -> Quick | None:
    if not isinstance(value, list) or not all(type(name) is str for name in value):
        return None
    names = frozenset(value)
    return lambda instance: type(instance) is not dict or names.issubset(instance)


def _items_check(_key: str, value: Any, _: Mapping[str, Any]) -> Quick | None:
    each = compile_quick(value)
    if each is None:
        return None
    def every_item(instance: Any) -> bool:
        if type(instance) is list:
            for item in instance:
                if not each(item):
                    return False
        return True

    return every_item


def _unique_check(_key: str, value: Any, _: Mapping[str, Any]) -> Quick | None:
    return _always if value is False else None


def _type_check(_key: str, value: Any, _: Mapping[str, Any]) -> Quick | None:
    names = value if isinstance(value, list) else [value]
    if not names or not all(isinstance(n, str) and n in _TYPES for n in names):
        return None
    accepted = frozenset(t for n in names for t in _TYPES[n])
    return lambda instance: type(instance) in accepted


def _bound_check(key: str, value: Any, _: Mapping[str, Any]) -> Quick | None:
    if not _is_bound(value):
        return None
    holds = {"minimum": operator.ge, "maximum": operator.le, "exclusiveMinimum": operator.gt,
             "exclusiveMaximum": operator.lt}[key]
    # Not a number: the keyword does not apply. A NaN fails every comparison: "not sure".
    return lambda instance: type(instance) not in _NUMBERS or holds(instance, value)


def _properties_check(_key: str, value: Any, _: Mapping[str, Any]) -> Quick | None:
    if type(value) is not dict:
        return None
    subs: dict[str, Quick] = {}
    for name, sub in value.items():
        check = compile_quick(sub)
        if check is None:
            return None
        if check is not _always:
            subs[name] = check
    if not subs:
        return _always
    def each_present(instance: Any) -> bool:
        if type(instance) is dict:
            for name, value in instance.items():
                check = subs.get(name)
                if check is not None and not check(value):
                    return False
        return True

    return each_present


def _additional_check(_key: str, value: Any, schema: Mapping[str, Any]) -> Quick | None:
    if "patternProperties" in schema:
        return None
    known = schema.get("properties", {})
    if type(known) is not dict:
        return None
    names = frozenset(known)
    if value is False:
        return lambda instance: type(instance) is not dict or names.issuperset(instance)
    extra = compile_quick(value)
    if extra is None:
        return None
    if extra is _always:
        return _always
    def each_extra(instance: Any) -> bool:
        if type(instance) is dict:
            for name, item in instance.items():
                if name not in names and not extra(item):
                    return False
        return True

    return each_extra


#: How each keyword this module models compiles: (keyword, its value, the schema holding it).
_KEYWORDS: dict[str, Callable[[str, Any, Mapping[str, Any]], Quick | None]] = {
    "type": _type_check,
    "enum": _members_check,
    "const": _members_check,
    "minLength": _size_check,
    "maxLength": _size_check,
    "minItems": _size_check,
    "maxItems": _size_check,
    "minimum": _bound_check,
    "maximum": _bound_check,
    "exclusiveMinimum": _bound_check,
    "exclusiveMaximum": _bound_check,
    "pattern": _pattern_check,
    "required": _required_check,
    "properties": _properties_check,
    "additionalProperties": _additional_check,
    "items": _items_check,
    "uniqueItems": _unique_check,
}

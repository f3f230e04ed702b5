"""A server's question cut to what a person can read, before any host lays it out.

A server chooses every text of its question: the message, and in a form each field's name,
title, description, default value and choices. Unbounded, a 1 MB message held the window
frozen for 3.5 s and 15 MB for a minute while a label wrapped it. Here, on the manager's
loop, each text is cut to a readable size; the host is told how much of each was left out and
says so, and the log keeps the full sizes.

What a person picks and sends back cannot be cut: a field's name, a choice. A form whose names
or choices are too long, or too many, to be shown whole is refused, not shown in part; so is a
number field whose default or bounds are not numbers (no number box can show "abc"). A cut
default is the server's own value: the answer "keep it" sends it back whole (``restore``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from echo_desk.common.cut_text import cut
from echo_desk.tools.host import FormText

#: A message longer than this is cut: a dozen screens of the dialog's box.
MOST_MESSAGE_CHARS = 10_000
#: A field's description or default longer than this is cut (one is a tooltip, the other a
#: one-line field: neither grows the dialog).
MOST_FORM_TEXT_CHARS = 1_000
#: A field's title longer than this is cut: it is the field's label, wrapped beside it, and a
#: longer one pushed the form past the screen's height.
MOST_TITLE_CHARS = 200
#: A form with more fields, or a field with more choices, is refused.
MOST_FIELDS = 50
MOST_CHOICES = 200
#: A field name or a choice longer than this (its JSON text, for a choice) is refused.
MOST_NAME_CHARS = 200

_CUT_TEXTS: dict[FormText, int] = {"title": MOST_TITLE_CHARS, "description": MOST_FORM_TEXT_CHARS}


class UnshowableForm(ValueError):
    """The form cannot be shown whole; the message says why, for the server."""


@dataclass(frozen=True)
class CappedQuestion:
    """What reaches the host: the cut message and form, and what was cut from where."""

    prompt: str
    prompt_cut: int
    schema: dict[str, Any] | None
    form_cuts: dict[tuple[str, FormText], int] = field(default_factory=dict)
    #: The defaults that were cut, whole, by field name.
    whole_defaults: dict[str, str] = field(default_factory=dict)

    @property
    def chars_cut(self) -> int:
        return self.prompt_cut + sum(self.form_cuts.values())

    def restore(self, values: dict[str, Any]) -> dict[str, Any]:
        """The person's answers with each cut default they kept sent back whole."""
        props = (self.schema or {}).get("properties") or {}
        return {name: (self.whole_defaults[name] if name in self.whole_defaults and value == props[name]["default"]
                       else value) for name, value in values.items()}


def cap_message(message: str) -> tuple[str, int]:
    return cut(message, MOST_MESSAGE_CHARS)


def _check_field(name: str, spec: dict[str, Any]) -> None:
    """Raise ``UnshowableForm`` when a part of the field that is sent back, or a number box's
    value, cannot be shown whole."""
    if len(name) > MOST_NAME_CHARS:
        raise UnshowableForm(f"a field's name is {len(name)} characters long; Echo Desk shows at most {MOST_NAME_CHARS}")
    default = spec.get("default")
    if "default" in spec and not isinstance(default, str) and _json_length(default) > MOST_NAME_CHARS:
        raise UnshowableForm(f"the default of the field {name!r} is not a text and too long to show")
    if spec.get("type") in ("integer", "number"):
        for key in ("default", "minimum", "maximum"):
            value = spec.get(key)
            if key in spec and (isinstance(value, bool) or not isinstance(value, int | float)
                                or not math.isfinite(value)):
                raise UnshowableForm(f"the {key} of the number field {name!r} is not a number")
    choices = spec.get("enum")
    if isinstance(choices, list):
        if len(choices) > MOST_CHOICES:
            raise UnshowableForm(f"the field {name!r} has {len(choices)} choices; Echo Desk shows at most "
                                 f"{MOST_CHOICES}")
        if any(_json_length(choice) > MOST_NAME_CHARS for choice in choices):
            raise UnshowableForm(f"a choice of the field {name!r} is longer than {MOST_NAME_CHARS} characters, "
                                 "the most Echo Desk shows")


def _json_length(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str))


def cap_question(message: str, schema: dict[str, Any] | None) -> CappedQuestion:
    """``message`` and ``schema``'s shown texts cut; raises ``UnshowableForm``."""
    prompt, prompt_cut = cap_message(message)
    props = (schema or {}).get("properties")
    if not isinstance(props, dict) or schema is None:
        return CappedQuestion(prompt, prompt_cut, schema)
    if len(props) > MOST_FIELDS:
        raise UnshowableForm(f"the form has {len(props)} fields; Echo Desk shows at most {MOST_FIELDS}")
    shown: dict[str, Any] = {}
    cuts: dict[tuple[str, FormText], int] = {}
    whole_defaults: dict[str, str] = {}
    for name, spec in props.items():
        if not isinstance(spec, dict):
            _check_field(name, {})
            shown[name] = spec
            continue
        _check_field(name, spec)
        spec = dict(spec)
        for key, most in _CUT_TEXTS.items():
            if isinstance(spec.get(key), str):
                spec[key], cuts[(name, key)] = cut(spec[key], most)
        default = spec.get("default")
        if isinstance(default, str):
            spec["default"], cuts[(name, "default")] = cut(default, MOST_FORM_TEXT_CHARS)
            if cuts[(name, "default")]:
                whole_defaults[name] = default
        shown[name] = spec
    return CappedQuestion(prompt, prompt_cut, {**schema, "properties": shown},
                          {where: n for where, n in cuts.items() if n}, whole_defaults)

"""A server's question cut to what a person can read, before any host lays it out.

A server chooses every text of its question: the message, and in a form each field's name,
title, description, default value and choices. Unbounded, a 1 MB message held the window
frozen for 3.5 s and 15 MB for a minute while a label wrapped it. Here, on the manager's
loop, each text is cut to a readable size; the host is told how much of each was left out and
says so, and the log keeps the full sizes.

What a person picks and sends back cannot be cut: a field's name, a choice. A form whose names
or choices are too long, or too many, to be shown whole is refused, not shown in part; so is a
number field whose default or bounds are not numbers (no number box can show "abc"), and a
yes/no field whose default is not ``true`` or ``false``: a tick cannot show "false", and neither
state is safe to guess (ticked, "Delete the old files?" is agreed to; unticked, "Keep a
backup?" is refused). A cut default is the server's own value: the answer "keep it" sends it
back whole (``restore``).

Choices with titles, in either of the protocol's spellings (``enum`` with ``enumNames``, or
``oneOf`` of ``{const, title}``), reach the host as one: ``enum`` holds the values sent back,
``enumNames`` the titles shown for them. A host that knows no titles still offers the values.
The titles are what the person picks by, so they are held to a choice's caps, and titles that
do not tell their choices apart (one title twice, fewer titles than choices) refuse the form.

A field of several choices (``"type": "array"``) reaches the host in the same shape, in its
``items`` (``items.anyOf`` of ``{const, title}`` made ``items.enum`` and ``items.enumNames``:
``common.multi_choice`` reads it). Its answer goes back as a list of texts, the only list the
protocol carries, so it is refused unless its choices are texts the person can tick whole, its
default is some of them, and its ``minItems`` can be met: a form no answer could satisfy is
refused, not shown with Answer off for good.
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
    if spec.get("type") == "array":
        _check_several_choices(name, spec)
        return
    default = spec.get("default")
    if "default" in spec and not isinstance(default, str) and _json_length(default) > MOST_NAME_CHARS:
        raise UnshowableForm(f"the default of the field {name!r} is not a text and too long to show")
    if spec.get("type") == "boolean" and default is not None and not isinstance(default, bool):
        raise UnshowableForm(f"the default of the yes/no field {name!r} is not true or false")
    if spec.get("type") in ("integer", "number"):
        for key in ("default", "minimum", "maximum"):
            value = spec.get(key)
            if key in spec and (isinstance(value, bool) or not isinstance(value, int | float)
                                or not math.isfinite(value)):
                raise UnshowableForm(f"the {key} of the number field {name!r} is not a number")
    _check_choices(name, spec)


def _check_choices(name: str, spec: dict[str, Any]) -> None:
    """Raise ``UnshowableForm`` when a field's choices (``spec``'s ``enum`` and ``enumNames``, the
    field's own or its items') cannot be shown whole and told apart."""
    choices = spec.get("enum")
    if isinstance(choices, list):
        if not choices:  # nothing the person could pick, and an answer must hold one
            raise UnshowableForm(f"the field {name!r} has no choices")
        if len(choices) > MOST_CHOICES:
            raise UnshowableForm(f"the field {name!r} has {len(choices)} choices; Echo Desk shows at most "
                                 f"{MOST_CHOICES}")
        if any(_json_length(choice) > MOST_NAME_CHARS for choice in choices):
            raise UnshowableForm(f"a choice of the field {name!r} is longer than {MOST_NAME_CHARS} characters, "
                                 "the most Echo Desk shows")
    titles = spec.get("enumNames")
    if "enumNames" in spec:
        if not isinstance(choices, list) or not isinstance(titles, list) or len(titles) != len(choices) \
                or not all(isinstance(title, str) for title in titles):
            raise UnshowableForm(f"the choices of the field {name!r} do not each have one title")
        if any(len(title) > MOST_NAME_CHARS for title in titles):
            raise UnshowableForm(f"a choice's title in the field {name!r} is longer than {MOST_NAME_CHARS} "
                                 "characters, the most Echo Desk shows")
        if len(set(titles)) != len(titles):
            raise UnshowableForm(f"two choices of the field {name!r} have the same title")


def _check_several_choices(name: str, spec: dict[str, Any]) -> None:
    """Raise ``UnshowableForm`` when a list field is not several of a set of texts that a person
    can choose within its bounds, starting from choices the boxes can show ticked."""
    items = spec.get("items")
    if any(key in spec for key in ("enum", "enumNames", "oneOf")) or not isinstance(items, dict) \
            or not isinstance(items.get("enum"), list):
        raise UnshowableForm(f"the list field {name!r} is not a list of choices in its items (enum or anyOf); "
                             "Echo Desk asks for no other list")
    _check_choices(name, items)
    choices = items["enum"]
    # The protocol sends several choices back as texts (a list of strings): others could not be.
    if not all(isinstance(choice, str) for choice in choices):
        raise UnshowableForm(f"the choices of the list field {name!r} are not all texts")
    if len(set(choices)) != len(choices):
        raise UnshowableForm(f"two choices of the field {name!r} are the same value")
    bounds = {key: spec[key] for key in ("minItems", "maxItems") if key in spec}
    if any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in bounds.values()):
        raise UnshowableForm(f"the minItems or maxItems of the field {name!r} is not a count")
    least, most = bounds.get("minItems", 0), bounds.get("maxItems", len(choices))
    # No answer could be sent: the Answer button would stay off with nothing the person can do.
    if least > min(most, len(choices)):
        raise UnshowableForm(f"the field {name!r} asks for at least {least} of {len(choices)} choices"
                             + (f" and at most {most}" if "maxItems" in spec else ""))
    if "default" in spec:
        default = spec["default"]
        # Every value of the default is shown ticked; one that is not a choice has no box to tick.
        if not isinstance(default, list) or not all(value in choices for value in default) \
                or len(set(default)) != len(default):
            raise UnshowableForm(f"the default of the list field {name!r} is not a list of its choices")


def _titled_choices(name: str, spec: dict[str, Any], key: str = "oneOf") -> dict[str, Any]:
    """``spec`` with a ``key`` (``oneOf``, or ``anyOf`` in a list's items) list of
    ``{const, title}`` made ``enum`` and ``enumNames``."""
    if key not in spec:
        return spec
    options = spec[key]
    if "enum" in spec or not isinstance(options, list) or not all(
            isinstance(option, dict) and "const" in option for option in options):
        raise UnshowableForm(f"the field {name!r} has a {key} that is not a list of choices, each with a const")
    return {**{k: value for k, value in spec.items() if k != key},
            "enum": [option["const"] for option in options],
            # A choice without a title is shown by its value, as a choice of a plain enum is.
            "enumNames": [option.get("title", str(option["const"])) for option in options]}


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
        spec = _titled_choices(name, spec)
        if spec.get("type") == "array" and isinstance(spec.get("items"), dict):
            spec = {**spec, "items": _titled_choices(name, spec["items"], "anyOf")}
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

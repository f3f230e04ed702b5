"""The variables a Makefile's rules and recipes refer to (``make_references``, s335)."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions.make_references import referred


@pytest.mark.parametrize(("text", "given", "expected"), [
    ("a = $(b)\nb = x\nc = $(d)\nt:\n\techo $(a)\n", {}, {"a", "b"}),
    ("a = 1\na += $(e)\nt:\n\techo $(a)\n", {}, {"a", "e"}),  # (every assignment of a name)
    ("t: $(p)\n", {}, {"p"}),  # (a rule's prerequisites)
    ("t:\n\techo $$(c) $${d} $(x:.c=.o) $V\n", {}, {"x", "V"}),  # (`$$`: the shell's)
    ("t:\n\techo $(v_$(V))\nv_0 = $(z)\nw = 1\n", {}, {"v_0", "z", "V"}),
    ("t:\n\techo $($(V))\na = 1\n", {}, {"a", "V"}),
    ("t:\n\techo $(a)\n", {"a": "$(f)"}, {"a", "f"}),  # (make's line on top)
    ("# $(c)\nt:\n\t# $(d)\n", {}, {"d"}),  # (a comment outside a recipe is not expanded)
])
def test_what_the_rules_refer_to(text: str, given: dict[str, str], expected: set[str]) -> None:
    assert referred(text, given) == frozenset(expected)


@pytest.mark.parametrize("text", ["t:\n\t$(shell touch x)\n", "a = $(value b)\nt:\n\t$(a)\n",
                                  "t:\n\techo $(foreach d,x,$(d))\n"])
def test_a_function_of_make_s_is_not_followed(text: str) -> None:
    assert referred(text, {}) is None

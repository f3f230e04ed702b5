"""A rule's own examples: each must match the rule as written, checked when the file loads."""

from __future__ import annotations

import json
import os
from pathlib import Path

from echo_desk.agent.permissions import floor
from echo_desk.agent.permissions.compiled import Compiled
from echo_desk.agent.permissions.matchers import PathPattern
from echo_desk.agent.permissions.model import Effect, Family
from echo_desk.agent.permissions.shell_verdict import covers_line, rule_catches
from echo_desk.agent.permissions.tokens import Match
from echo_desk.common.json_text import read_json

#: A stand-in workspace root for checking a rule's own examples (``@workspace/src/a.py``).
EXAMPLE_WORKSPACE = Path("/__workspace__")


def example_matches(item: Compiled, example: str, *, home: Path, protected: tuple[Path, ...]) -> bool:
    """Whether ``item`` matches its example: for an allow, the rule alone allows the whole
    example; for deny/ask, the rule catches some part of it."""
    family, matcher = item.family, item.matcher
    rule = item.rule
    effect = rule.effect if rule else Effect.ALLOW
    if family is Family.SHELL:
        where = floor.Where(cwd=EXAMPLE_WORKSPACE, home=home, workspaces=(EXAMPLE_WORKSPACE,), protected=protected)
        return covers_line(item, example, where) if effect.allows else rule_catches(item, example, where)
    if family in (Family.READ, Family.WRITE):
        if matcher is None:
            return True
        text = example.replace("@workspace", str(EXAMPLE_WORKSPACE), 1) if example.startswith("@workspace") \
            else example
        if text.startswith("~"):
            text = str(home) + text[1:]
        assert isinstance(matcher, PathPattern)
        return matcher.match(Path(os.path.normpath(text)), workspaces=(EXAMPLE_WORKSPACE,), home=home,
                             contents=not effect.allows) is Match.YES
    if matcher is None:
        return True
    if family is Family.FETCH:
        words = example.split()
        method, url = (words[0], words[1]) if len(words) == 2 else ("GET", example)
        return bool(matcher.match(url, method) is Match.YES)
    if family is Family.MCP:
        try:
            arguments = read_json(example)
        except json.JSONDecodeError:
            return False
        return isinstance(arguments, dict) and matcher.match(arguments) is Match.YES
    if family is Family.DB:
        return bool(matcher.match(example.strip()) is Match.YES)
    return True

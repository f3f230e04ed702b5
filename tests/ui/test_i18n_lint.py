"""A lint over the UI code and the CLI: no sentence or label is glued together from a translated
message and other text. ``_("Changed") + ": " + path`` keeps an English colon in Chinese and fixes
the word order; ``", ".join(names)`` keeps an English comma where Chinese uses 、. Such text is one
message with named placeholders (``_("Changed: {path}")``), or goes through the helpers of
``echo_desk.i18n`` (``labelled``, ``aside``, ``list_text``, ``clause_text``). Marks drawn the same in
both languages (white space, HTML tags, bullets, arrows, a dash between parts) may stand around one.

A line that joins text that is not prose (a file name, HTML) says so with ``# not prose: why``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKED = [*sorted((ROOT / "echo_desk" / "ui").rglob("*.py")), *sorted((ROOT / "echo_desk" / "cli").glob("*.py"))]
#: Functions that return text already translated (besides ``_`` itself).
TRANSLATING = {"_", "risk_label", "status_label", "policy_label", "source_label", "profile_label",
               "capability_label", "target_value_text", "shown_detail", "labelled", "list_text", "clause_text",
               "aside", "sentences", "quoted", "ngettext"}
#: Marks that read the same in both languages: white space, HTML tags and entities, bullets, rules.
_NEUTRAL = re.compile(r"<[^>]*>|&[a-z]+;|[\s·•●⚠↶›→…—─+−▸▾]")
_PRAGMA = "# not prose:"


def _translates(node: ast.AST, translated_names: set[str]) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in TRANSLATING:
                return True
        if isinstance(sub, ast.Name) and sub.id in translated_names:
            return True
    return False


def _neutral(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and not _NEUTRAL.sub("", node.value)


def _literal_text(node: ast.JoinedStr) -> str:
    """The f-string's own text, values left out, HTML tags (and values inside them) removed."""
    template = "".join(v.value if isinstance(v, ast.Constant) else "\x00" for v in node.values)
    return re.sub(r"<[^>]*>", "", template).replace("\x00", "")


def _added(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _added(node.left) + _added(node.right)
    return [node]


def _scopes(tree: ast.Module) -> Iterator[ast.AST]:
    yield tree
    yield from (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))


def glued_text(source: str, path: str = "<text>", check_joins: bool = True) -> list[str]:
    """Every place in ``source`` where translated text is glued to other text."""
    tree = ast.parse(source)
    lines = source.splitlines()
    found: set[str] = set()

    def report(node: ast.AST, what: str) -> None:
        line = lines[node.lineno - 1] if node.lineno <= len(lines) else ""
        if _PRAGMA not in line:
            found.add(f"{path}:{node.lineno}: {what}: {ast.unparse(node)[:100]}")

    for scope in _scopes(tree):
        # A name bound to translated text is translated text (``label = _(...)``).
        names = {t.id for n in ast.walk(scope) if isinstance(n, ast.Assign) and _translates(n.value, set())
                 for t in n.targets if isinstance(t, ast.Name)}
        for node in ast.walk(scope):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
                parts = _added(node)
                others = [p for p in parts if not _translates(p, names)]
                numbers = any(isinstance(p, ast.Constant) and not isinstance(p.value, str) for p in parts)
                if len(others) < len(parts) and not numbers and not all(_neutral(p) for p in others):
                    report(node, "concatenation")
            elif isinstance(node, ast.JoinedStr):
                if any(_translates(v.value, names) for v in node.values if isinstance(v, ast.FormattedValue)) \
                        and _NEUTRAL.sub("", _literal_text(node)):
                    report(node, "f-string")
            elif check_joins and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "join" and isinstance(node.func.value, ast.Constant) \
                    and isinstance(node.func.value.value, str) and re.search(r"[,;:，；、]", node.func.value.value):
                report(node, "list joined with a fixed separator")
    return sorted(found)


def test_the_lint_finds_each_kind_of_glued_text() -> None:
    assert glued_text('x = _("Changed") + ": " + path')
    assert glued_text('x = name + _(" (in use)")')
    assert glued_text('label = _("File")\nx = f"{label}: {value}"')
    assert glued_text('x = f"{_(CHANGE_LABELS[k])} ({path})"')
    assert glued_text('x = ", ".join(names)')
    # …and leaves alone what is one message, or neutral marks around one message.
    assert glued_text('x = _("Changed: {path}").format(path=p)') == []
    assert glued_text('x = "\\n" + _("Tools:")') == []
    assert glued_text('x = f"<p>{html.escape(_(text))}</p>"') == []
    assert glued_text('x = f"{title}.md"  # not prose: a file name') == []


def test_ui_and_cli_text_is_never_glued_together() -> None:
    found: list[str] = []
    for path in CHECKED:
        # The CLI joins names and ids with commas (tools, environment variables), not prose.
        in_ui = "ui" in path.relative_to(ROOT).parts
        found += glued_text(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)), check_joins=in_ui)
    assert found == [], "\n".join(found)


#: A count written into a message ("1 MCP server…", "{n} bytes", "grant(s)"): English has two
#: forms and other languages more, so a counted message is one ``ngettext`` call with both.
_COUNTED = re.compile(r"^1 [A-Za-z]|\{n\} (?:more )?[a-z]+(?:s\b|\(s\))")


def counted_without_plural(source: str, path: str = "<text>") -> list[str]:
    """Every ``_()``/``N_()`` message in ``source`` that counts something without ``ngettext``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("_", "N_") \
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str) \
                and _COUNTED.search(node.args[0].value):
            found.append(f"{path}:{node.lineno}: {node.args[0].value}")
    return found


def test_the_count_lint_finds_a_count_written_into_one_form() -> None:
    assert counted_without_plural('x = _("1 MCP server awaits approval: {commands}")')
    assert counted_without_plural('x = _("revoked {n} grant(s)").format(n=n)')
    assert counted_without_plural('x = _("Binary content, {n} bytes").format(n=n)')
    assert counted_without_plural('x = ngettext("{n} rule", "{n} rules", n)') == []
    assert counted_without_plural('x = _("{n} in").format(n=tokens)') == []


def test_ui_and_cli_counts_use_ngettext() -> None:
    found: list[str] = []
    for path in CHECKED:
        found += counted_without_plural(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert found == [], "\n".join(found)

"""docs/adding-a-tool.md (and its Chinese version) is what a tool author copies: the reason its example gives for not being
ready must be marked for translation (``N_``), as the example plugin's is, and must be what
Settings › Tools and ``echo-desk tools list`` really translate through the plugin's catalog."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from echo_desk import i18n
from echo_desk.i18n import said_by_tool

ROOT = Path(__file__).parents[2]
PLUGIN = ROOT / "examples/weather-plugin/src/echo_desk_weather"


GUIDES = ("docs/adding-a-tool.md", "docs/adding-a-tool.zh_CN.md")


def _module_assignments(guide: str) -> dict[str, ast.expr]:
    """The module-level ``NAME = value`` of every Python block of the guide that parses alone."""
    found: dict[str, ast.expr] = {}
    for block in re.findall(r"```python\n(.*?)```", (ROOT / guide).read_text(), re.S):
        try:
            tree = ast.parse(block)
        except SyntaxError:  # a method shown on its own, indented
            continue
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                found[node.targets[0].id] = node.value
    return found


@pytest.mark.parametrize("guide_path", GUIDES)
def test_the_readiness_reason_of_the_guide_is_marked_and_translated_through_the_plugins_catalog(
        chinese, monkeypatch, guide_path: str) -> None:
    # Before: ``NOT_CONFIGURED = "API key not configured"``: pybabel's ``-k N_`` never extracts it.
    guide = (ROOT / guide_path).read_text()
    returned = re.search(r"def readiness_detail\(self\) -> str:\n\s+return .* else (\w+)\n", guide)
    assert returned, "the guide's readiness_detail example moved: update this test"
    value = _module_assignments(guide_path)[returned.group(1)]
    assert isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "N_", \
        ast.unparse(value)
    plugin_line = next(line for line in (PLUGIN / "tool.py").read_text().splitlines()
                       if line.startswith(f"{returned.group(1)} ="))
    assert plugin_line.split("  #")[0] == f"{returned.group(1)} = {ast.unparse(value).replace(chr(39), chr(34))}"

    reason = eval(compile(ast.Expression(value), "guide", "eval"), {"N_": i18n.N_})  # the guide's own value

    class Weather:
        translation_domain = "echo_desk_weather"

    monkeypatch.setattr(i18n, "locale_dir_of", lambda _cls: PLUGIN / "locale")
    assert said_by_tool(Weather(), reason) == "未设置 API 密钥"


def _code(guide: str) -> list[str]:
    """Every code block of a guide: fenced, and indented by four spaces after a blank line."""
    text = (ROOT / guide).read_text()
    return re.findall(r"```.*?```", text, re.S) + re.findall(r"(?<=\n\n)((?: {4}\S.*\n)+)", text)


def test_the_chinese_guide_shows_the_english_guide_s_code_as_it_is() -> None:
    # The code is what a tool author copies and what the tests above run: one text in both languages.
    english, chinese = (_code(guide) for guide in GUIDES)
    assert len(english) > 10 and chinese == english


def test_each_guide_links_to_the_other() -> None:
    english, chinese = ((ROOT / guide).read_text() for guide in GUIDES)
    assert "(adding-a-tool.zh_CN.md)" in english and "(adding-a-tool.md)" in chinese
    assert "(docs/adding-a-tool.zh_CN.md)" in (ROOT / "README.md").read_text()

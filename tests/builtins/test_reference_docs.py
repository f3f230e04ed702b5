"""docs/tools.md is generated from the registry and must be current; catalog text is translated."""

from __future__ import annotations

from pathlib import Path

from echo_desk.builtins import builtin_tools
from scripts.tool_reference import DEFAULT_OUTPUT, MISSING, chinese_catalog, generate, main


def test_committed_reference_is_current() -> None:
    assert DEFAULT_OUTPUT.exists(), "docs/tools.md is missing: run python -m scripts.tool_reference"
    assert DEFAULT_OUTPUT.read_text(encoding="utf-8") == generate(), (
        "docs/tools.md is stale: run python -m scripts.tool_reference and commit the result"
    )


def test_reference_lists_every_builtin_with_both_languages() -> None:
    text = generate()
    zh = chinese_catalog()
    for tool in builtin_tools():
        assert f"## {tool.name}\n" in text
        assert zh.get(tool.title) and zh.get(tool.catalog_description), tool.name
        assert all(ord(ch) < 0x2E80 for ch in tool.title)  # English in the source, Chinese in the catalog
        assert zh[tool.catalog_description] in text
    assert MISSING not in text


def test_check_mode_detects_a_stale_file(tmp_path: Path) -> None:
    target = tmp_path / "tools.md"
    assert main(["--output", str(target), "--check"]) == 1
    assert main(["--output", str(target)]) == 0
    assert main(["--output", str(target), "--check"]) == 0
    target.write_text(target.read_text(encoding="utf-8").replace("read_file", "read_fil"), encoding="utf-8")
    assert main(["--output", str(target), "--check"]) == 1


def test_every_marked_string_of_the_builtin_tools_is_translated() -> None:
    from babel.messages.extract import extract_from_file

    zh = chinese_catalog()
    folder = Path(__file__).resolve().parents[2] / "echo_desk" / "builtins"
    found = {
        message
        for module in folder.rglob("*.py")
        for _, message, _, _ in extract_from_file("python", str(module), keywords={"_": None, "N_": None})
    }
    assert "Saving {path}" in found and "Read file" in found
    assert sorted(m for m in found if not zh.get(m)) == []

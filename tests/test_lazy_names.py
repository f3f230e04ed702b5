"""Packages whose public names load with their module on first use (``echo_desk.lazy_names``):
every listed name resolves to the module it is said to live in, and a light import stays light."""

from __future__ import annotations

import subprocess
import sys
from types import ModuleType

import pytest

from echo_desk import mcp, sandbox, tools

LAZY_PACKAGES = [mcp, sandbox, tools]


@pytest.mark.parametrize("package", LAZY_PACKAGES, ids=lambda p: p.__name__)
def test_every_public_name_resolves_to_its_module_and_the_lists_agree(package: ModuleType) -> None:
    homes: dict[str, str] = package._HOME
    assert sorted(package.__all__) == sorted(homes)
    for name in package.__all__:
        value = getattr(package, name)
        owner = getattr(value, "__module__", None)
        if owner is not None and owner.startswith("echo_desk."):  # constants (READS, SANDBOX_TARGET) have none
            assert owner == f"{package.__name__}.{homes[name]}", name
        assert value is getattr(sys.modules[f"{package.__name__}.{homes[name]}"], name)
    assert set(package.__all__) <= set(dir(package))


@pytest.mark.parametrize("package", LAZY_PACKAGES, ids=lambda p: p.__name__)
def test_an_unknown_name_is_an_attribute_error(package: ModuleType) -> None:
    with pytest.raises(AttributeError, match="no attribute 'launcher'"):
        package.launcher  # noqa: B018


def _loaded_after(code: str) -> str:
    code += "\nimport sys\nprint(sorted(m for m in sys.modules if m.startswith('echo_desk')))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60).stdout


def test_asking_whether_the_sandbox_works_loads_neither_the_launcher_nor_the_guard() -> None:
    out = _loaded_after("from echo_desk import sandbox\nsandbox.availability")
    assert "echo_desk.sandbox.detect" in out
    for heavy in ("launch", "guard", "seccomp", "inventory"):
        assert f"echo_desk.sandbox.{heavy}'" not in out, out


def test_a_tool_result_type_loads_neither_the_tool_base_nor_its_context() -> None:
    out = _loaded_after("from echo_desk.tools.results import ToolResult")
    assert "echo_desk.tools.results" in out
    for heavy in ("base", "context"):
        assert f"echo_desk.tools.{heavy}'" not in out, out


def test_an_mcp_status_value_loads_no_mcp_sdk() -> None:
    code = ("from echo_desk.mcp.status import FlagKind\nimport sys\n"
            "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'echo_desk.mcp.'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60).stdout
    assert out.strip() == "['echo_desk.mcp.status']", out

"""The sandbox package loads a name's module only when the name is first used."""

from __future__ import annotations

import subprocess
import sys

import pytest

from echo_desk import sandbox


def test_every_public_name_resolves_to_its_module_and_the_lists_agree() -> None:
    assert sorted(sandbox.__all__) == sorted(sandbox._HOME)
    for name in sandbox.__all__:
        value = getattr(sandbox, name)
        assert value.__module__ == f"echo_desk.sandbox.{sandbox._HOME[name]}", name


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'launcher'"):
        sandbox.launcher  # noqa: B018


def test_asking_whether_the_sandbox_works_loads_neither_the_launcher_nor_the_guard() -> None:
    code = ("import sys\nfrom echo_desk import sandbox\nsandbox.availability\n"
            "print(sorted(m for m in sys.modules if m.startswith('echo_desk.sandbox')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60).stdout
    assert "echo_desk.sandbox.detect" in out
    for heavy in ("launch", "guard", "seccomp", "inventory"):
        assert f"echo_desk.sandbox.{heavy}'" not in out, out

"""``echo-desk gateway install|uninstall`` and Settings › Connected apps say the outcome ("not
changed", "Nothing was changed") once: a ``PlanError`` carries the cause alone. It used to read
"…: not changed: the file changed since the diff was made; nothing was written." and, for a disk
that refused the write, "…: not changed: Echo Desk could not write …: the disk is full. The
original file is unchanged."."""

from __future__ import annotations

import ast
import errno
import re
from pathlib import Path

import pytest

from echo_desk.cli.connected import _print_not_changed
from echo_desk.common.fs import os_error
from echo_desk.i18n import _, set_language
from echo_desk.mcp.connected import PlanError, apply_install, locations_of, plan_install
from tests.mcp.connected.homes import make_home

ROOT = Path(__file__).resolve().parents[3]
GATEWAY = ["/opt/echo/bin/echo-desk"]
#: The outcome, said by the command line and the Settings page around a reason.
OUTCOME = {"en": re.compile(r"not changed|unchanged|nothing was (written|changed)|will not rewrite", re.I),
           "zh_CN": re.compile(r"未改动|未写入|未做任何更改|保持不变|不会改写|原样保留")}


def _reasons() -> list[str]:
    """The message id of every ``PlanError`` reason written in the connected-apps code."""
    found: list[str] = []
    for path in sorted((ROOT / "echo_desk/mcp/connected").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        raisers = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
                   and getattr(node.func, "id", "") in ("PlanError", "refuse")]
        found += [inner.args[0].value for call in raisers for inner in ast.walk(call)
                  if isinstance(inner, ast.Call) and getattr(inner.func, "id", "") == "N_"
                  and isinstance(inner.args[0], ast.Constant)]
        found += [node.value.args[0].value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                  and isinstance(node.value, ast.Call) and getattr(node.value.func, "id", "") == "N_"
                  and any(getattr(t, "id", "") == "CHANGED_SINCE_THE_DIFF" for t in node.targets)]
    return found


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_no_reason_says_the_outcome_again(language: str) -> None:
    reasons = _reasons()
    assert len(reasons) > 10, reasons
    set_language(language)
    try:
        twice = [f"{msgid!r} → {_(msgid)!r}" for msgid in reasons if OUTCOME[language].search(_(msgid))]
    finally:
        set_language("en")
    assert twice == [], "\n".join(twice)


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_a_file_changed_since_the_diff_is_said_not_changed_once(
        home: Path, language: str, capsys: pytest.CaptureFixture[str]) -> None:
    where = make_home(home)
    location = locations_of("cursor")[0]
    plan = plan_install(location, command=GATEWAY)
    where["cursor"].write_text(where["cursor"].read_text() + "\n")
    with pytest.raises(PlanError) as raised:
        apply_install(plan)
    set_language(language)
    try:
        _print_not_changed(location.path, raised.value.reason)
    finally:
        set_language("en")
    said = capsys.readouterr().err
    assert len(OUTCOME[language].findall(said)) == 1, said


def test_a_refused_write_is_said_by_its_cause_alone(
        home: Path, monkeypatch: pytest.MonkeyPatch, chinese: None) -> None:
    import echo_desk.common.atomic as atomic

    def full(path: object, *_args: object, **_kwargs: object) -> object:
        # What ``atomic_write`` raises when the disk refuses the temp file.
        err = os_error(OSError(errno.ENOSPC, "No space left on device"), path, "write")
        from echo_desk.i18n import for_person
        from echo_desk.tools import ToolError

        raise ToolError(for_person(f"{err.message}; the original file is unchanged", atomic.LEFT_UNCHANGED,
                                   error=err.message))

    make_home(home)
    plan = plan_install(locations_of("cursor")[0], command=GATEWAY)
    monkeypatch.setattr(atomic, "atomic_write", full)
    with pytest.raises(PlanError) as raised:
        apply_install(plan)
    assert raised.value.reason == "磁盘已满"

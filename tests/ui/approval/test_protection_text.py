"""Protected targets are shown translated from their typed reason, never from the engine's English."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import echo_desk.ui
from echo_desk import i18n
from echo_desk.builtins import FetchUrl
from echo_desk.builtins.files.lifecycle import protections_of
from echo_desk.builtins.shell.command_sandbox import network_detail
from echo_desk.common.fs import resolve
from echo_desk.sandbox import runs_code
from echo_desk.tools import Protection, ProtectionReason, Target, ToolExecutionContext
from echo_desk.ui.approval.protection_text import REASON_TEXTS, protection_text, shown_detail

UI = Path(echo_desk.ui.__file__).parent




async def test_the_reasons_tools_give_are_shown_in_both_languages(tmp_path: Path, chinese: None) -> None:
    ctx = ToolExecutionContext(call_id="c", tool_name="fetch_url", scope_id="s")
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.txt").write_text("x")
    os.link(tmp_path / "a.txt", tmp_path / "b.txt")
    targets = [(await FetchUrl().preview({"url": "http://[::1]:8080/admin"}, ctx)).targets[0],
               *(Target(kind="path", value=p, protections=protections_of(resolve(p, (tmp_path,))))
                 for p in (str(tmp_path / ".git" / "config"), str(tmp_path / "a.txt")))]
    assert [shown_detail(t) for t in targets] == [
        "受保护：::1 是本机或局域网内的地址（::1）", "受保护：位于 .git 文件夹内（仓库内部数据）", "受保护：硬链接（2 个名称共用此文件）：其他名称保留现有内容"]
    i18n.set_language("en")  # the same typed values, read again after a switch
    assert [shown_detail(t) for t in targets] == [
        "Protected: ::1 is this computer or its local network (::1)",
        "Protected: inside a .git folder (repository internals)",
        "Protected: hard-linked (2 names share this file): the other names keep what they hold now"]


def _why_of(path: str) -> str:
    return next(e.why for e in runs_code.ENTRIES if e.path == path)


def test_every_reason_has_a_chinese_text(chinese: None) -> None:
    assert set(REASON_TEXTS) == set(ProtectionReason)
    facts = {ProtectionReason.HARD_LINKED: {"links": 2}, ProtectionReason.MORE_INSIDE: {"more": 3},
             ProtectionReason.LOCAL_NETWORK: {"host": "nas", "addresses": ("10.0.0.2", "10.0.0.3")},
             ProtectionReason.RUNS_CODE: {"entry": ".envrc", "why": _why_of(".envrc")}}
    for reason in ProtectionReason:
        text = protection_text(Protection(reason=reason, **facts.get(reason, {})))  # type: ignore[arg-type]
        assert text.startswith("受保护：") and not any(c.isascii() and c.isalpha() for c in
                                                     text.replace("Echo Desk", "").replace("nas", "").replace(".git", "").replace(
                                                         ".envrc", "").replace("direnv", "")), text


def test_every_entry_of_the_protected_list_says_why_in_chinese(chinese: None) -> None:
    for entry in (*runs_code.ENTRIES, *runs_code.GIT_PARTS, *runs_code.added(["tools/"])):
        text = protection_text(Protection(reason=ProtectionReason.RUNS_CODE, entry=entry.shown, why=entry.why))
        assert text.startswith(f"受保护：{entry.shown} 会让程序日后运行代码：") and i18n._(entry.why) != entry.why, text


def test_a_folder_with_protected_files_inside_keeps_its_context_and_names_each_file(chinese: None) -> None:
    inside = (Protection(reason=ProtectionReason.GIT_FOLDER, inside="/ws/p/.git/HEAD"),
              Protection(reason=ProtectionReason.MORE_INSIDE, more=4))
    target = Target(kind="path", value="/ws/p", detail=i18n.deferred(i18n.N_("move from")), protections=inside)
    assert shown_detail(target) == "移动：原位置；受保护：位于 .git 文件夹内（仓库内部数据）（/ws/p/.git/HEAD）；受保护：另有 4 个文件在内"


def test_other_details_are_shown_as_they_came() -> None:
    assert shown_detail(Target(kind="command", value="ls", detail="/home/me/ws")) == "/home/me/ws"
    assert shown_detail(Target(kind="sandbox", value="in_sandbox", detail=network_detail(()))) == "no network"


def test_nothing_in_the_ui_reads_protection_out_of_engine_prose() -> None:
    for path in UI.rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        # The engine's English marker and its English lines are for the model and the terminal only.
        assert not any(s.startswith("protected") for s in strings), path
        assert "PROTECTED_PREFIX" not in source and ".english" not in source and "full_detail" not in source, path
        # Nor the sandbox's network line or a sub-agent out of a scope label: they come typed.
        assert not any(s.startswith(("network:", "sub-agent:")) for s in strings), path
        if path.name == "protection_text.py":
            assert "import re" not in source and "re.compile" not in source

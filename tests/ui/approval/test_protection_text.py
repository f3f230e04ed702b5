"""Protected-target reasons are shown translated; the English marker the policy needs stays in the data."""

from __future__ import annotations

import os
from pathlib import Path

from echo_desk import i18n
from echo_desk.builtins import FetchUrl
from echo_desk.builtins.files.fs import resolve
from echo_desk.builtins.files.lifecycle import protection_warnings
from echo_desk.tools import ToolExecutionContext
from echo_desk.ui.approval.protection_text import shown_detail


def _real_details(tmp_path: Path) -> list[str]:
    """Details exactly as the tools produce them, so the patterns cannot drift from the producers."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.txt").write_text("x")
    os.link(tmp_path / "a.txt", tmp_path / "b.txt")
    return ["; ".join(protection_warnings(resolve(p, (tmp_path,))))
            for p in (str(tmp_path / ".git" / "config"), str(tmp_path / "a.txt"))]


async def test_every_reason_a_tool_gives_is_translated(tmp_path: Path) -> None:
    ctx = ToolExecutionContext(call_id="c", tool_name="fetch_url", scope_id="s")
    fetch = (await FetchUrl().preview({"url": "http://[::1]:8080/admin"}, ctx)).targets[0].detail
    details = [fetch, *_real_details(tmp_path)]
    assert all(d.startswith("protected: ") for d in details), details
    i18n.set_language("zh_CN")
    try:
        shown = [shown_detail(d) for d in details]
    finally:
        i18n.set_language("en")
    assert shown[0] == "受保护：::1 是本机或局域网内的地址（::1）"
    assert shown[1] == "受保护：位于 .git 文件夹内（仓库内部数据）"
    assert shown[2] == "受保护：硬链接（2 个名称共用此文件）"


def test_other_details_are_shown_as_they_came() -> None:
    assert shown_detail("/home/me/ws") == "/home/me/ws"
    assert shown_detail("protected: a reason nobody taught us") == "Protected: a reason nobody taught us"

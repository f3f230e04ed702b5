"""The run_command card, shown in the chat, says when the sandbox's search for planted files
stopped at its bound ("Only the first 1,000 folders ... were checked"), and names a few of the
hosts the network proxy refused with how many more, in English and in Chinese. Before, the card
said only that repositories were not all searched, and named every refused host it kept (50)."""

from __future__ import annotations

import re

import pytest
from pytestqt.qtbot import QtBot

from echo_desk.agent.envelope import Envelope
from echo_desk.ui.approval.host import QtHost
from echo_desk.ui.chat.chat_session import ChatSession
from echo_desk.ui.chat.tool_card import card_html
from echo_desk.ui.core import i18n_qt

CJK = re.compile(r"[\u4e00-\u9fff]")
HOSTS = [f"h{i:04}.example" for i in range(50)]
CUT = {"en": "Only the first 1,000 folders of this workspace were checked for planted files",
       "zh_CN": "只检查了这个工作区的前 1,000 个文件夹里有没有植入的文件"}
#: 44 of the 50 kept, unnamed, and the 1,150 past what was kept.
MORE = {"en": "1194 more", "zh_CN": "另有 1194 项"}


def _envelope() -> Envelope:
    sandbox = {"sandboxed": True, "mode": "sandboxed", "domains": [], "blocked": [], "planted": [],
               "search_cut": True, "folders_checked": 1000, "refused_hosts": HOSTS, "refused_more": 1150}
    return Envelope(ok=True, tool="run_command", call_id="c1", content="exit code 0", metadata={"sandbox": sandbox})


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_card_says_only_the_first_folders_were_checked_and_names_a_few_refused_hosts(
        qtbot: QtBot, language: str) -> None:
    i18n_qt.apply_language(language)
    try:
        session = ChatSession(QtHost(lambda: None))
        card = session.transcript.add_tool_call("c1", "run_command", "{}")
        session.transcript.set_tool_result("c1", _envelope())
        qtbot.waitUntil(lambda: CUT[language] in card_html(card, "Run command"), timeout=5000)
        shown = card_html(card, "Run command")
        assert "h0000.example" in shown and "h0005.example" in shown and "h0006.example" not in shown
        assert MORE[language] in shown, shown
        if language == "zh_CN":
            assert CJK.search(shown)
    finally:
        i18n_qt.apply_language("en")

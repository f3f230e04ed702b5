"""The Activity tab's "decided by" for calls no rule or grant decided: every fixed form the
dispatcher writes into the audit, worded in the language of the moment; unknown text as stored.
A connected app's call no one could answer says so in that language and quotes what the app was
told (English: the app's model read it)."""

from __future__ import annotations

import pytest

from echo_desk.agent.host import NoOneToAsk
from echo_desk.gateway.fallback import NobodyHost
from echo_desk.i18n import set_language
from echo_desk.ui.core.audit_text import provenance_phrase
from tests.ui.test_language import _request

CASES = [
    ("risk default: read", "the default for its risk (Read)", "按风险级别默认（读取）"),
    ("risk default: exec", "the default for its risk (Execute)", "按风险级别默认（执行）"),
    ("settings: always allow", "the tool's setting: Always allow", "工具设置：始终允许"),
    ("settings: never", "the tool's setting: Never", "工具设置：始终拒绝"),
    ("person: allow_once", "you allowed it once", "你允许了一次"),
    ("person: denied", "you denied it", "你已拒绝"),
    ("person: allow_conversation (grant g_1a2b)", "you allowed it for this conversation (grant g_1a2b)",
     "你在本对话中允许了它（授权 g_1a2b）"),
    ('person: allow_once (arguments edited by the person: {"path": "a.txt"})',
     'you allowed it once (arguments you edited: {"path": "a.txt"})', '你允许了一次（你修改后的参数：{"path": "a.txt"}）'),
    ("a future engine's words", "a future engine's words", "a future engine's words"),
]


@pytest.mark.parametrize(("stored", "english", "chinese"), CASES)
def test_each_audit_provenance_is_worded_in_both_languages(stored: str, english: str, chinese: str) -> None:
    try:
        set_language("en")
        assert provenance_phrase(stored) == english
        set_language("zh_CN")
        assert provenance_phrase(stored) == chinese
    finally:
        set_language("en")


async def test_a_connected_apps_call_no_one_could_answer_is_said_in_chinese_with_what_the_app_was_told() -> None:
    # Before: the stored English as it was ("no one to ask: Echo Desk is not running, so …"): its
    # "(run echo-desk)" kept it from matching any form, so not a word of it was Chinese.
    with pytest.raises(NoOneToAsk) as refused:
        await NobodyHost(why="Echo Desk is not running").request_approval(_request())
    stored = f"no one to ask: {refused.value}"  # as the dispatcher writes it (pipeline/approval.py)
    try:
        set_language("zh_CN")
        said = provenance_phrase(stored)
        assert said.startswith("无人可以询问，因此未运行；发起调用的应用收到的是：“Echo Desk is not running, so no one"), said
        assert said.endswith("calls that Echo Desk's rules allow run without it.”"), said
        set_language("en")
        assert provenance_phrase("no one to ask: 3 calls of connected apps already wait") == (
            "no one could be asked, so it did not run; the app that called was told: "
            "“3 calls of connected apps already wait”")
    finally:
        set_language("en")

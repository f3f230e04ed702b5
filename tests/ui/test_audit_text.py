"""The Activity tab's "decided by" for calls no rule or grant decided: every fixed form the
dispatcher writes into the audit, worded in the language of the moment; unknown text as stored."""

from __future__ import annotations

import pytest

from echo_desk.i18n import set_language
from echo_desk.ui.core.audit_text import provenance_phrase

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

"""Does the model's final answer claim a change to the person's files?

A small model often says "I added the line" when its call failed, was denied or never made.
The loop compares this with what really happened in the exchange (a successful call with a
side effect) and marks the answer; the transcript then says "no file was changed in this
turn". This reads the *model's* prose, in English and Chinese; it never reads our own text.
"""

from __future__ import annotations

import re

_CHANGE_EN = re.compile(
    r"\b(created|written|wrote|added|appended|updated|changed|modified|edited|renamed|moved|deleted|"
    r"removed|saved|replaced|bumped|fixed)\b",
    re.IGNORECASE,
)
_ZH_VERBS = "创建|新建|添加|追加|加入|修改|更新|更改|编辑|重命名|移动|删除|保存|写入|替换"
_CHANGE_ZH = re.compile(rf"((已经?|成功)[^。！？\n]{{0,30}}?({_ZH_VERBS})|({_ZH_VERBS})了)")
_NEGATION = re.compile(
    r"(\bnot\b|n't\b|\bno\b|\bunable\b|\bfailed\b|\bdenied\b|\bwould\b|\bcan\b|\bwill\b|\bplease\b|"
    r"未|没有|没|无法|不能|不会|拒绝|失败)",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"[^.!?。！？\n]+")


def claims_change(text: str) -> bool:
    """True when a sentence of ``text`` states, without negation, that a change was made."""
    for sentence in _SENTENCE.findall(text):
        if (_CHANGE_EN.search(sentence) or _CHANGE_ZH.search(sentence)) and not _NEGATION.search(sentence):
            return True
    return False

"""One Chinese term per concept (i18n/glossary.toml), in the catalog, the docs and the packaging.

A catalog entry whose English names a glossary concept must use the glossary's Chinese term and
none of its forbidden variants; some variants (停用, 代理, 副作用, 工作文件夹, 词元…) are banned from
every Chinese text we ship. Settings pages are named one way in both languages: "Settings › Models".
Every Chinese message also follows one typography: full-width brackets, colons and commas after
Chinese, —— for a dash, no space after 。, no ``{x!r}`` (it prints ASCII quotes), no Markdown.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = ROOT / "i18n" / "glossary.toml"
ZH = ROOT / "i18n" / "zh_CN" / "LC_MESSAGES" / "echo_desk.po"
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
#: The mark of an Alt-letter key in a message id ("Re&voke"; "&&" is an ampersand).
_MNEMONIC_MARK = re.compile(r"&(.)")
#: Code in an English message names no concept: command-line options and paths (--url, docs/gateway.md).
_CODE = re.compile(r"(?<!\w)--[\w-]+|\S+/\S+")
_CJK = re.compile(r"[\u4e00-\u9fff]")
# Where 代理 may stay: a search keyword is matched against what people type, not read.
_KEYWORD_LINE = re.compile(r"^Keywords\[zh_CN\]=|<keyword xml:lang=\"zh-CN\">")


@dataclass(frozen=True)
class Term:
    english: tuple[re.Pattern[str], ...]
    chinese: str
    forbidden: tuple[str, ...]
    everywhere: tuple[str, ...]
    exceptions: tuple[re.Pattern[str], ...]
    required: bool

    def found_in(self, msgid: str) -> bool:
        text = _CODE.sub(" ", _PLACEHOLDER.sub(" ", msgid))
        for exception in self.exceptions:
            text = exception.sub(" ", text)
        return any(p.search(text) for p in self.english)


def _glossary() -> tuple[list[Term], list[re.Pattern[str]]]:
    data = tomllib.loads(GLOSSARY.read_text(encoding="utf-8"))
    terms = [
        Term(english=tuple(re.compile(p, re.IGNORECASE) for p in t["en"]), chinese=t["zh"],
             forbidden=tuple(t.get("forbidden", ())), everywhere=tuple(t.get("everywhere", ())),
             exceptions=tuple(re.compile(p, re.IGNORECASE) for p in t.get("except", ())),
             required=t.get("zh_required", True))
        for t in data["term"]
    ]
    return terms, [re.compile(p) for p in data["settings_path"]["forbidden"]]


TERMS, SETTINGS_PATH_FORBIDDEN = _glossary()


def catalog_problems(pairs: list[tuple[str, str]]) -> list[str]:
    """Every glossary breach in (msgid, Chinese msgstr) pairs, as readable lines."""
    problems: list[str] = []
    for msgid, msgstr in pairs:
        shown = _PLACEHOLDER.sub(" ", msgstr)
        present = [t for t in TERMS if t.found_in(_MNEMONIC_MARK.sub(r"\1", msgid))]  # "Disa&ble" is "Disable"
        allowed = " ".join(t.chinese for t in present)
        for term in present:
            if term.required and term.chinese not in shown:
                problems.append(f"{msgid!r}: uses no {term.chinese} → {msgstr!r}")
            for variant in term.forbidden:
                if variant in shown and variant not in allowed:
                    problems.append(f"{msgid!r}: {variant} instead of {term.chinese} → {msgstr!r}")
        problems += [f"{msgid!r}: {p}" for p in text_problems(msgstr)]
        problems += [f"{msgid!r}: {p}" for p in typography_problems(msgstr)]
        if _CJK.search(msgstr) and _ENDS_IN_CODE.search(msgstr):
            problems.append(f"{msgid!r}: its last sentence ends in code, a sentence after it runs into it: "
                            f"put the code in “” and end with 。 → {msgstr!r}")
    return problems


def text_problems(text: str) -> list[str]:
    """Variants banned from every Chinese text, and the arrow form of a settings path. A variant
    inside another term's Chinese is that term (代理 in 代理服务器)."""
    found = [f"{v} (banned everywhere; the term is {t.chinese})"
             for t in TERMS for v in t.everywhere if v in _without_terms_holding(text, v)]
    found += [f"settings path written {p.pattern!r}: use “设置 › 模型”" for p in SETTINGS_PATH_FORBIDDEN if p.search(text)]
    return found


def _without_terms_holding(text: str, variant: str) -> str:
    for term in TERMS:
        if variant in term.chinese and term.chinese != variant:
            text = text.replace(term.chinese, " ")
    return text


_HAN = "\u3400-\u4dbf\u4e00-\u9fff"
_FULL_WIDTH_AFTER = "\u3000-\u303f\uff00-\uffef“”‘’"
#: Placeholders that hold words already in the person's language or text in “”: a translated label
#: ({kind} 文件, {default} 询问), a sentence ({reason}, {fix}), a quoted pattern ({rule}, {what}).
#: They sit against Chinese with no space; every other placeholder holds a name, a path or a number
#: ("Cursor", "shop.py", "3"), which Chinese text keeps a space from, as it does Latin text.
_HOLDS_WORDS = (r"(?:rule|what|default|how|kind|expected|got|place|error|first|second|why|statements|fix|reason"
                r"|quoted_\w+)[}!:]")
#: (what is wrong, where it is) in a Chinese message; each check is about the text around Chinese.
TYPOGRAPHY = (
    ("a half-width bracket beside Chinese: use （）", re.compile(f"[{_HAN}]\\s*\\(|\\)\\s*[{_HAN}]")),
    ("ASCII punctuation after Chinese: use ，：；！？", re.compile(f"[{_HAN}][,:;!?](?=\\s|$|[{_HAN}])")),
    ("a space after full-width punctuation", re.compile(f"[。，、：；！？）{_FULL_WIDTH_AFTER}] (?![›])")),
    ("a single — as a dash: use ——", re.compile("(?<!—)—(?!—)")),
    ("{x!r} prints ASCII quotes: use “{x}”", re.compile(r"\{[^{}]*![rsa][^{}]*\}")),
    ("Markdown backticks: a Qt label shows them", re.compile("`")),
    ("a space before full-width punctuation", re.compile(f"[{_HAN}] +[。，、：；！？）]")),
    ("code run into Chinese: put it in “”", re.compile(f"[-./_][A-Za-z0-9_]+[{_HAN}]")),
    ("a settings path inside a sentence: put it in “”", re.compile("(?<![“（])设置 ›")),
    ("Latin letters or digits run into Chinese: a space between", re.compile(f"[{_HAN}][A-Za-z0-9]|[A-Za-z0-9][{_HAN}]")),
    ("a name, path or number run into Chinese: a space either side of {x}",
     re.compile(f"[{_HAN}]{{(?!{_HOLDS_WORDS})[^{{}}]*}}|{{(?!{_HOLDS_WORDS})[^{{}}]*}}[{_HAN}]")),
)
#: A message of sentences whose last one ends in code: a command, a path, a placeholder after a
#: colon ("日志：{log}"). A sentence said after it (``i18n.sentences``, the window's banner) runs
#: into it: "请运行：python -m …fetch_default要连接模型…". The code goes in “” and the sentence ends.
_ENDS_IN_CODE = re.compile("[。！？][^\n]*(?:[A-Za-z0-9_./-]|[^。！？\n]\\{[^{}]*\\})$")


#: A file dialog's filter: Qt reads its patterns inside ASCII brackets ("GGUF 模型 (*.gguf)").
_FILE_FILTER = re.compile(r"\(\*[^()]*\)$")
#: An Alt-letter key, written as Chinese Qt applications write it: ASCII brackets after the words ("保存(&S)").
_MNEMONIC = re.compile(r"\(&[A-Z0-9]\)")


def typography_problems(text: str) -> list[str]:
    """How a Chinese message breaks the typography (nothing for a text with no Chinese)."""
    if not _CJK.search(text):
        return []
    text = _MNEMONIC.sub("", _FILE_FILTER.sub(" ", text))
    return [f"{what}: …{text[max(0, m.start() - 8):m.end() + 8]}…"
            for what, pattern in TYPOGRAPHY for m in [pattern.search(text)] if m is not None]


def _zh_catalog_pairs(path: Path = ZH) -> list[tuple[str, str]]:
    with path.open("rb") as f:
        catalog = read_po(f, locale="zh_CN")
    # A counted message is checked in each of its forms (Chinese has one), against its plural English.
    return [(m.id, m.string) if isinstance(m.id, str) else (m.id[-1], form)
            for m in catalog if m.id for form in ([m.string] if isinstance(m.id, str) else m.string)]


def _chinese_doc_lines() -> list[tuple[str, str]]:
    """(where, line) for every line of Chinese we ship outside the catalog."""
    files = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md",
             *sorted((ROOT / "packaging").glob("*.desktop")), *sorted((ROOT / "packaging").glob("*.metainfo.xml")),
             *sorted((ROOT / "examples").glob("*/README.md"))]
    lines = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _CJK.search(line) and not _KEYWORD_LINE.search(line):
                lines.append((f"{path.relative_to(ROOT)}:{number}", line))
    return lines


def test_the_glossary_catches_a_forbidden_variant() -> None:
    # The checker itself: each kind of breach it exists for is found.
    assert catalog_problems([("Disable", "停用")])
    assert catalog_problems([("Target", "目标")])
    assert catalog_problems([("Working folder: {cwd}", "工作文件夹：{cwd}")])
    assert catalog_problems([("Its side effects", "副作用")])
    assert catalog_problems([("Never", "从不")])
    assert catalog_problems([("URL:", "URL：")])
    assert catalog_problems([("Check the key in Settings → Models.", "请在“设置 → 模型”中检查密钥。")])
    assert catalog_problems([("Message the agent", "给代理发消息")])
    assert catalog_problems([("{n} tokens", "{n} 个词元")])
    assert catalog_problems([("Revert changes", "撤销更改")])
    assert catalog_problems([("Next match (Enter)", "下一个匹配（回车）")])
    # …and the typography of every Chinese message, whatever its English.
    assert catalog_problems([("Edit file (edit_file)", "编辑文件 (edit_file)")])
    assert catalog_problems([("Stopped. Try again.", "已停止。 请重试。")])
    assert catalog_problems([("{name!r} is not valid", "{name!r} 无效")])
    assert catalog_problems([("Run `ls`", "运行 `ls`")])
    assert catalog_problems([("Done — see below", "完成 — 见下文")])
    assert catalog_problems([("Name: {x}", "名称: {x}")])
    assert catalog_problems([("Not yet. Run: python -m fetch", "尚未下载。请运行：python -m fetch")])
    assert catalog_problems([("Failed. Log: {log}", "失败。日志：{log}")])
    assert catalog_problems([("Run fetch.sh to get it", "运行 fetch.sh下载它")])
    assert catalog_problems([("Open with Echo Desk", "用Echo Desk 打开")])
    assert catalog_problems([("Step 3 of 4", "第 3 步，共4步")])
    assert catalog_problems([("Rules for {callers}", "针对{callers}的规则")])
    assert catalog_problems([("{path} is missing", "{path}不存在")])
    assert catalog_problems([("Approve it in Settings › Models.", "请在 设置 › 模型 中批准。")])
    assert catalog_problems([("Approve it in Settings › Models.", "请在“设置 › 模型”中批准。")]) == []
    assert catalog_problems([("None yet (Settings › Models).", "还没有（设置 › 模型）。")]) == []
    assert catalog_problems([("Open with Echo Desk", "用 Echo Desk 打开")]) == []
    assert catalog_problems([("Rules for {callers}", "针对 {callers} 的规则")]) == []
    assert catalog_problems([("This {kind} is outside", "此{kind}在外面")]) == []  # {kind} is a translated word
    assert catalog_problems([("changes to {quoted_path}", "更改{quoted_path}")]) == []  # in “” already
    assert catalog_problems([("Not yet. Run “fetch”.", "尚未下载。请运行“fetch”。")]) == []
    assert catalog_problems([("No model. {how}", "没有模型。{how}")]) == []  # a sentence of its own
    assert catalog_problems([("Stopped. Output:\n{output}", "已停止。输出：\n{output}")]) == []
    assert catalog_problems([("GGUF models (*.gguf)", "GGUF 模型 (*.gguf)")]) == []  # Qt's filter syntax
    # …and what is right passes: 目标 is the goal's term when both meet in one message.
    assert catalog_problems([("Goal and targets", "目标和操作对象")]) == []
    assert catalog_problems([("Endpoint URL", "接口地址")]) == []
    assert catalog_problems([("Fetch {url}", "获取 {url}")]) == []
    assert catalog_problems([("Through the proxy", "经过代理服务器")]) == []
    assert catalog_problems([("Server URL:", "服务器地址：")]) == []
    assert catalog_problems([("Enter an address.", "请输入地址。")]) == []
    assert catalog_problems([("Edit file (edit_file) — {n} tokens", "编辑文件（edit_file）——{n} 个 token")]) == []


def test_every_zh_cn_catalog_entry_uses_the_glossary_terms() -> None:
    problems = catalog_problems(_zh_catalog_pairs())
    assert problems == [], "\n".join(problems)


def test_english_messages_name_settings_pages_one_way() -> None:
    wrong = [msgid for msgid, _msgstr in _zh_catalog_pairs()
             if any(p.search(msgid) for p in SETTINGS_PATH_FORBIDDEN)]
    assert wrong == []


def test_chinese_docs_and_packaging_use_the_glossary_terms() -> None:
    problems = [f"{where}: {p}" for where, line in _chinese_doc_lines() for p in text_problems(line)]
    assert problems == [], "\n".join(problems)


def test_plugin_catalogs_use_the_glossary_terms() -> None:
    catalogs = sorted((ROOT / "examples").glob("*/src/*/locale/zh_CN/LC_MESSAGES/*.po"))
    assert catalogs, "the example plugin ships a zh_CN catalog"
    problems = [f"{po.relative_to(ROOT)}: {p}" for po in catalogs for p in catalog_problems(_zh_catalog_pairs(po))]
    assert problems == [], "\n".join(problems)


def test_proxy_s_word_for_agent_is_a_search_keyword_only_in_the_desktop_entry() -> None:
    desktop = next((ROOT / "packaging").glob("*.desktop")).read_text(encoding="utf-8")
    keywords = next(line for line in desktop.splitlines() if line.startswith("Keywords[zh_CN]="))
    assert "智能体" in keywords and "代理" in keywords
    assert "代理" not in desktop.replace(keywords, "")
    assert "智能体" in desktop.replace(keywords, "")


def test_an_alt_letter_in_chinese_is_not_a_bracket_mistake() -> None:
    assert typography_problems("保存(&S)") == [] and typography_problems("名称(&N)：") == []
    assert typography_problems("保存(S)") != []  # brackets that are not a letter's mark still are one
    assert catalog_problems([("Disa&ble", "停用(&B)")])  # the term is found through the mark

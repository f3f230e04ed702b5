"""A rule whose pattern breaks the grammar is listed in Settings › Permissions in the person's
language: what is wrong in the pattern and how to write it. ``rules check`` and the log keep the
engine's English (``str`` of the message), whatever the language."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from echo_desk.agent.permissions import loader
from echo_desk.agent.permissions.matchers import compile_fields
from echo_desk.agent.permissions.model import Layer, LoadReport
from echo_desk.agent.permissions.tokens import PatternError
from echo_desk.i18n import shown
from echo_desk.ui.settings.rules_tab import problem_lines

_CJK = re.compile(r"[\u4e00-\u9fff]")
#: Words a Chinese line may keep: the rule file's own keys and values, HTTP's and the examples' code.
_CODE = re.compile(r"@workspace|domain:|example\.com|permissions\.toml|pattern|deny|read|write|schema|fetch|"
                   r"MCP|db|HTTP|GET|POST|IP|repo|acme|branch|main|exec|api|src|[a-z]\|[a-z]")

#: (tool, pattern, what Chinese says, what English says, how ``rules check`` begins)
CASES = [
    ("shell", "git ] log", "不在“[…]”之内", "stands outside “[…]”", "']' outside '[…]'"),
    ("shell", "git | log", "不在“[…]”之内", "write alternatives as [a|b]", "'|' outside '[…]'"),
    ("shell", "find ** !", "“!”后面没有紧跟要排除的词", "“!” is not followed by a word", "'!' without a token"),
    ("shell", "!rm", "没有可匹配的词", "has no word to match", "pattern '!rm' has no tokens"),
    ("shell", " ".join(["[a|b]"] * 7), "展开后有 128 种组合，超过了一条规则最多允许的 64 种",
     "expands to 128 alternatives, more than the 64", "pattern '[a|b] [a|b]"),
    ("shell", "git [a [b|c]]", "备选项不能嵌套", "alternatives do not nest", "'[' inside '[…]'"),
    ("shell", "git [a|!b]", "“!b”位于“[…]”之内", "put it outside the brackets", "'!b' inside '[…]'"),
    ("shell", "git [a|b", "“[”没有用“]”结束", "is not closed with “]”", "'[' without ']'"),
    ("shell", "git 'log", "缺少结束的 '", "not closed with its '", "unclosed ' in pattern"),
    ("read", "src/**", "必须以 @workspace/、~/ 或 //（绝对路径）开头", "must start with @workspace/, ~/ or //",
     "path pattern 'src/**' must start"),
    ("read", "~src", "后面必须紧跟“/”", "“/” must come right after", "path pattern '~src': expected '/'"),
    ("write", "@workspace/!secret", "不能用“!”排除路径", "write a deny rule for that path instead",
     "path pattern '@workspace/!secret': negation"),
    ("read", "@workspace/../x", "不允许出现“..”", "“..” is not allowed", "path pattern '@workspace/../x': '..'"),
    ("fetch", "example.com", "必须以 domain: 加主机名开头", "must start with domain: and a host name",
     "fetch pattern 'example.com' must start"),
    ("fetch", "domain:127.0.0.1", "IP 地址不是域名", "an IP address is not a domain", "fetch pattern 'domain:127"),
    ("fetch", "domain:exa_mple.com", "域名必须是主机名", "the domain must be a host name, such as",
     "fetch pattern 'domain:exa_mple.com': the domain"),
    ("fetch", "domain:example.com /a/../b", "不能含反斜杠，也不能含“.”或“..”这样的段", "may hold no backslash",
     "fetch pattern 'domain:example.com /a/../b': a path prefix"),
    ("fetch", "domain:example.com FETCH", "既不是 HTTP 方法", "is neither an HTTP method",
     "fetch pattern 'domain:example.com FETCH': unexpected"),
    ("mcp:github", "repo acme", "请写成以逗号分隔的", "pairs separated by commas, e.g.", "MCP pattern 'repo acme': write"),
    ("mcp:github", "repo = 1", "的值必须是加引号的通配符", "must be a glob in quotes", "MCP pattern 'repo = 1': the value"),
    ("db:main", "delete", "请使用 read、write 或 schema", "for several, join them with |", "db pattern 'delete': use"),
]


def _listed(tmp_path: Path, tool: str, pattern: str) -> tuple[str, str]:
    """The rules list's line for a file holding one rule with ``pattern``, and ``rules check``'s."""
    path = tmp_path / "permissions.toml"
    path.write_text(f'[[rule]]\neffect = "allow"\ntool = "{tool}"\npattern = {json.dumps(pattern)}\n',
                    encoding="utf-8")
    _, problems, _ = loader.read_rule_file(path, Layer.USER, lambda _rule: [])
    listed = problem_lines(LoadReport(problems=tuple(problems)))
    assert len(problems) == 1 and len(listed) == 1, listed
    return listed[0], problems[0].describe()


@pytest.mark.parametrize(("tool", "pattern", "chinese_said", "english_said", "check_said"), CASES)
def test_a_pattern_mistake_is_listed_in_chinese(tmp_path: Path, chinese, tool: str, pattern: str,
                                                chinese_said: str, english_said: str, check_said: str) -> None:
    # Before: "错误 · permissions.toml 第 1 行 · …：path pattern 'src/**' must start with @workspace/ …".
    listed, checked = _listed(tmp_path, tool, pattern)
    assert chinese_said in listed, listed
    left = _CODE.sub("", listed.replace(pattern, "").replace(tool, ""))
    for word in pattern.split():  # the file's own words, quoted back
        left = left.replace(word, "")
    assert not re.search(r"[A-Za-z]{2,}", left), listed
    assert check_said in checked and not _CJK.search(checked), checked  # ``rules check`` and the log


@pytest.mark.parametrize(("tool", "pattern", "chinese_said", "english_said", "check_said"), CASES)
def test_a_pattern_mistake_is_listed_in_english(tmp_path: Path, tool: str, pattern: str,
                                                chinese_said: str, english_said: str, check_said: str) -> None:
    listed, checked = _listed(tmp_path, tool, pattern)
    assert english_said in listed and not _CJK.search(listed), listed
    assert check_said in checked, checked


def test_an_mcp_pattern_with_no_field_is_said_in_both_languages(chinese) -> None:
    # Not reachable from a file (an empty pattern is refused first); the message is said all the same.
    with pytest.raises(PatternError) as caught:
        compile_fields("")
    message = caught.value.args[0]
    assert shown(message).startswith("MCP 模式“”没有指定任何字段"), shown(message)
    assert str(message) == "MCP pattern '' has no fields"

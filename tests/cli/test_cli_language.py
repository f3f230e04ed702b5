"""The command line speaks the person's language: LANG=zh_CN.UTF-8, or Chinese chosen in the app
(Settings › General), gives Chinese help, headings, verdicts and errors; JSON keys, ids and
values stay as scripts read them. Run in a fresh interpreter, as a person runs it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ui.test_glossary import typography_problems

_CJK = re.compile(r"[\u4e00-\u9fff]")


def _cli(tmp_path: Path, *args: str, lang: str, chosen: str | None = None,
         home: Path | None = None) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    if chosen is not None:
        (config / "settings.json").write_text(json.dumps({"language": chosen}), encoding="utf-8")
    env = {**os.environ, "LANG": lang, "LC_ALL": "", "LC_MESSAGES": "", "LANGUAGE": "",
           "ECHO_DESK_CONFIG_DIR": str(config), "ECHO_DESK_DATA_DIR": str(tmp_path / "data"),
           "ECHO_DESK_CACHE_DIR": str(tmp_path / "cache"), "XDG_RUNTIME_DIR": str(tmp_path / "run"),
           **({"HOME": str(home)} if home is not None else {})}
    return subprocess.run([sys.executable, "-m", "echo_desk", *args], capture_output=True, text=True, timeout=120,
                          env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, check=False)


def _english_sentences(text: str) -> list[str]:
    """Lines of help that are still English prose (three words in a row)."""
    return [line for line in text.splitlines() if re.search(r"\b[a-z]{2,} [a-z]{2,} [a-z]{2,}\b", line)
            and not line.lstrip().startswith(("usage", "用法", "echo-desk", "{", "-", "["))]


@pytest.mark.parametrize(("lang", "chosen"), [("zh_CN.UTF-8", None), ("C.UTF-8", "zh_CN")])
def test_help_is_chinese_under_a_chinese_locale_or_the_app_s_choice(tmp_path: Path, lang: str,
                                                                   chosen: str | None) -> None:
    for args in (["--help"], ["rules", "check", "--help"], ["changes", "revert", "--help"]):
        done = _cli(tmp_path, *args, lang=lang, chosen=chosen)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("用法：") and "选项：" in done.stdout, done.stdout
        assert _english_sentences(done.stdout) == [], done.stdout
        assert [p for line in done.stdout.splitlines() for p in typography_problems(line.strip())] == []


def test_english_stays_english(tmp_path: Path) -> None:
    done = _cli(tmp_path, "--help", lang="C.UTF-8", chosen="en")
    assert done.stdout.startswith("usage: ") and "options:" in done.stdout and not _CJK.search(done.stdout)
    wrong = _cli(tmp_path, "rules", "nope", lang="C.UTF-8")
    assert "invalid choice" in wrong.stderr


def test_an_error_from_argparse_is_chinese(tmp_path: Path) -> None:
    done = _cli(tmp_path, "rules", "nope", lang="zh_CN.UTF-8")
    assert done.returncode == 2 and "错误：" in done.stderr and "无效的选项：'nope'" in done.stderr, done.stderr


def test_rules_check_keeps_its_json_and_says_the_verdict_in_chinese(tmp_path: Path) -> None:
    done = _cli(tmp_path, "rules", "check", "--", "git status", lang="zh_CN.UTF-8")
    verdict = json.loads(done.stdout)
    assert verdict["verdict"] == "ask" and verdict["parts"][0]["kind"] == "command"  # keys and ids as they were
    assert done.stderr.strip() == "无规则（没有规则或授权：由工具自身的设置决定）"
    denied = _cli(tmp_path, "rules", "check", "--", "rm -rf /", lang="zh_CN.UTF-8")
    assert denied.returncode == 2 and denied.stderr.startswith("未获准——决定依据："), denied.stderr


def test_rules_list_tools_list_and_changes_list_read_in_chinese(tmp_path: Path) -> None:
    rules = _cli(tmp_path, "rules", "list", lang="zh_CN.UTF-8")
    assert rules.stdout.splitlines()[0].startswith("拒绝") and "<内置规则>" in rules.stdout
    assert "递归删除" in rules.stdout  # a built-in rule's reason is ours: translated
    tools = _cli(tmp_path, "--no-mcp", "tools", "list", lang="zh_CN.UTF-8")
    header, *rows = tools.stdout.splitlines()
    assert header.split()[:3] == ["名称", "来源", "风险"]
    read_file = next(r for r in rows if r.startswith("read_file "))
    assert "读取" in read_file and "是" in read_file
    # Wide characters take two cells: the columns still line up under their headings.
    from echo_desk.cli.words import cells

    assert cells(header[:header.index("风险")]) == cells(read_file[:read_file.index("读取")])
    as_json = json.loads(_cli(tmp_path, "--no-mcp", "tools", "list", "--json", lang="zh_CN.UTF-8").stdout)
    assert {"name", "risk", "default", "breaker"} <= as_json["tools"][0].keys()
    assert as_json["tools"][0]["risk"] in ("read", "write", "exec")
    changes = _cli(tmp_path, "changes", "list", lang="zh_CN.UTF-8")
    assert changes.stdout.split()[:3] == ["时间", "调用", "工具"]


@pytest.mark.parametrize("args", [["--help"], ["gateway", "--help"], ["ask", "--help"]])
def test_chinese_help_fits_the_terminal_by_the_cells_it_takes(tmp_path: Path, args: list[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from echo_desk.cli.language import cells

    monkeypatch.setenv("COLUMNS", "80")  # argparse's width (a Chinese character takes two cells of it)
    done = _cli(tmp_path, *args, lang="zh_CN.UTF-8")
    assert done.returncode == 0, done.stderr
    assert _CJK.search(done.stdout)
    assert [line for line in done.stdout.splitlines() if cells(line) > 80] == []


def test_text_wraps_between_wide_characters_and_keeps_punctuation_with_what_it_closes() -> None:
    from echo_desk.cli.language import cells, wrap_cells

    text = "把 Echo Desk 的工具提供给其他 MCP 客户端（见 docs/gateway.zh_CN.md），不改变任何文件。"
    lines = wrap_cells(text, 20)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")  # nothing lost, nothing added
    assert all(cells(line) <= 20 for line in lines if "docs/" not in line)  # a word longer than a line stands alone
    assert not any(line.startswith(("，", "。", "）")) for line in lines)
    assert any("docs/gateway.zh_CN.md）" in line for line in lines)  # the bracket stays with what it closes
    assert wrap_cells("a few English words here", 10) == ["a few", "English", "words here"]


def _server(command: str = "/usr/bin/true", **extra: object) -> dict[str, object]:
    return {"command": command, "args": ["--port", "1"], **extra}


def _chinese_only(out: str) -> None:
    # Commands to type stay as they are typed; a diff keeps patch's own marker ("\\ No newline
    # at end of file"): tools read it.
    prose = "\n".join(re.sub(r"echo-desk [^，。；）]*", "", line) for line in out.splitlines()
                      if not line.startswith("\\ "))
    assert _english_sentences(prose) == [], out
    assert [p for line in out.splitlines() for p in typography_problems(line.strip())] == [], out


def test_mcp_import_approve_and_list_read_in_chinese(tmp_path: Path) -> None:
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(json.dumps({"mcpServers": {"files": _server(env={"API_TOKEN": "s3cret"}),
                                                 "local": _server(envFile=".env")}}), encoding="utf-8")
    preview = _cli(tmp_path, "mcp", "import", str(source), lang="zh_CN.UTF-8")
    assert preview.returncode == 0, preview.stderr
    assert "添加" in preview.stdout and "跳过" in preview.stdout and "使用了 envFile，而 Echo Desk 不读取该文件" in preview.stdout
    assert "留在 mcp.json 中（没有系统密钥环）：env.API_TOKEN" in preview.stdout  # this machine has no keyring
    assert "没有写入任何内容（加上 --apply 才会写入 mcp.json）" in preview.stdout
    _chinese_only(preview.stdout)
    applied = _cli(tmp_path, "mcp", "import", str(source), "--apply", lang="zh_CN.UTF-8")
    assert "已写入 mcp.json：files" in applied.stdout, applied.stdout

    asked = _cli(tmp_path, "mcp", "approve", "files", lang="zh_CN.UTF-8")
    assert asked.returncode == 1
    assert "MCP 服务器“files”（stdio）请求启动：\n  命令行     /usr/bin/true --port 1\n  环境变量名 API_TOKEN\n" in asked.stdout
    assert asked.stderr.strip() == "未批准：没有可以询问你的终端（可使用 --yes）"
    _chinese_only(asked.stdout + asked.stderr)
    missing = _cli(tmp_path, "mcp", "approve", "nope", lang="zh_CN.UTF-8")
    assert missing.returncode == 2 and missing.stderr.strip() == "mcp.json 中没有名为“nope”的 MCP 服务器"

    listed = _cli(tmp_path, "mcp", "list", lang="zh_CN.UTF-8")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.split()[:3] == ["files", "stdio", "等待你批准启动"], listed.stdout
    _chinese_only(listed.stdout)


def test_gateway_install_uninstall_and_status_read_in_chinese(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".cursor").mkdir(parents=True)
    (home / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": {"files": _server()}}), encoding="utf-8")
    dry = _cli(tmp_path, "gateway", "install", "--client", "cursor", "--dry-run", lang="zh_CN.UTF-8", home=home)
    assert dry.returncode == 0, dry.stderr
    assert "  移入  files：已加入 Echo Desk（在沙箱中运行）" in dry.stdout
    assert "试运行：" in dry.stdout and "都没有写入" in dry.stdout
    _chinese_only(dry.stdout)
    done = _cli(tmp_path, "gateway", "install", "--client", "cursor", lang="zh_CN.UTF-8", home=home)
    assert done.returncode == 0, done.stderr
    assert "已改写" in done.stdout and "备份：" in done.stdout
    assert "请在 Echo Desk 询问时批准它首次启动，或现在运行：echo-desk mcp approve files" in done.stdout
    _chinese_only(done.stdout)
    undone = _cli(tmp_path, "gateway", "uninstall", "--client", "cursor", lang="zh_CN.UTF-8", home=home)
    assert undone.returncode == 0, undone.stderr
    assert "从 Echo Desk 中移除：files" in undone.stdout and "已还原" in undone.stdout
    _chinese_only(undone.stdout)
    again = _cli(tmp_path, "gateway", "uninstall", "--client", "cursor", lang="zh_CN.UTF-8", home=home)
    assert again.returncode == 1 and again.stderr.strip() == "cursor：Echo Desk 没有移动过它的服务器（没有可还原的内容）"

    status = _cli(tmp_path, "gateway", "status", lang="zh_CN.UTF-8")
    assert status.returncode == 1 and status.stdout.startswith("Echo Desk 没有在运行（套接字 "), status.stdout
    bad = _cli(tmp_path, "gateway", "token", "--client", "no way", lang="zh_CN.UTF-8")
    assert bad.returncode == 2 and "客户端名称“no way”不可用" in bad.stderr, bad.stderr

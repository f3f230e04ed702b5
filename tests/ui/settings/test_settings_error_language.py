"""What Settings › Permissions, Settings › Sandbox and the local model's panel say when something
fails is in the person's language, and says what did and did not happen: an exception's own
English ("[Errno 28] No space left on device", "Expecting property name …", "[Errno 111]
Connection refused", the engine's "… has errors; fix them first: …") never reaches the label; it
stays in the tooltip, for a report. The real pages and the real engine, in zh_CN; only the
failure itself is made (a full disk, a refused read, a file changed meanwhile, a broken rule file)."""

from __future__ import annotations

import errno
import re
from pathlib import Path

import httpx
import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox

from echo_desk import sandbox
from echo_desk.agent.permissions import GrantScope, Suggestion, loader, sandbox_toggle
from echo_desk.agent.permissions.model import Layer, LoadReport
from echo_desk.common.explain import technical_detail
from echo_desk.i18n import shown
from echo_desk.ui.settings.model_download import describe_error
from echo_desk.ui.settings.permissions_page import PermissionsPage
from echo_desk.ui.settings.rules_tab import problem_lines
from echo_desk.ui.settings.sandbox_page import SandboxPage
from echo_desk.ui.widgets.failure_text import failure_reason
from tests.ui.settings.test_permissions_page import USER_RULES, _run, page
from tests.ui.settings.test_trust_dialog import _page

__all__ = ["page"]

#: English words of the exceptions made below, or of a sentence left untranslated.
ENGLISH = re.compile(r"\b(space|device|Errno|Expecting|value|refused|Connection|errors|fix|first|"
                     r"written|could|not|the|directory|Is|a)\b")
BROKEN = '[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "make **"\n\n[[rule]]\neffect = "maybe"\n'




def _full_disk(*_args: object, **_kwargs: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def _english_left(said: str) -> list[str]:
    return ENGLISH.findall(re.sub(r"\S*permissions(\.local)?\.toml", "", said))


def test_a_full_disk_on_saving_the_rules_is_said_in_chinese(page: PermissionsPage, config_dir: Path, chinese,
                                                            monkeypatch) -> None:
    # Before: "Not changed: could not write …/permissions.toml: the disk is full; the original file is
    # unchanged" — the model's English, in a Chinese window.
    monkeypatch.setattr("echo_desk.common.atomic._write_all", _full_disk)
    editor = page.rules
    editor.editor.setPlainText(USER_RULES + "\n# one more line\n")
    editor.save.click()
    said = editor.validation.text()
    assert said.startswith("未保存；你的规则文件未改动（") and "磁盘已满" in said, said
    assert not _english_left(said), said
    assert "No space left on device" in editor.validation.toolTip()  # the technical detail, kept
    assert (config_dir / "permissions.toml").read_text() == USER_RULES
    editor.editor.setPlainText(USER_RULES)  # the next text goes without the failure's tooltip
    assert editor.validation.toolTip() == ""


def test_a_rule_file_changed_meanwhile_is_said_in_chinese(page: PermissionsPage, config_dir: Path, chinese,
                                                          monkeypatch) -> None:
    # The file changes between the editor's read and the write (another program, a second window).
    editor = page.rules
    editor.editor.setPlainText(USER_RULES + "\n# one more line\n")
    monkeypatch.setattr("echo_desk.ui.settings.rules_tab.current_sha256", lambda _path: "0" * 64)
    editor.save.click()
    said = editor.validation.text()
    assert said == "未保存；你的规则文件未改动（permissions.toml 在此期间被另一个程序改动了，因此没有写入任何内容）", said
    assert "changed by another program" in editor.validation.toolTip()
    assert (config_dir / "permissions.toml").read_text() == USER_RULES


def test_trusting_a_rule_file_with_errors_says_where_in_chinese(qtbot, builtin_runtime, workspace: Path,
                                                                chinese) -> None:
    # Before: "未信任任何内容：…/permissions.toml has errors; nothing was trusted: … line 6: error: …".
    page = _page(qtbot, builtin_runtime, workspace, BROKEN)
    page.rules.ask_trust()
    page.rules.trust_box.done(QMessageBox.StandardButton.Yes)
    said = page.rules.trust_note.text()
    assert said == "未信任任何内容（permissions.toml 有错误（第 6 行），请先修正）", said
    assert "has errors" in page.rules.trust_note.toolTip()
    assert not builtin_runtime.permissions.is_trusted(workspace)


def test_a_rule_file_that_cannot_be_read_is_not_trusted_and_says_why_in_chinese(qtbot, builtin_runtime,
                                                                                workspace: Path, chinese,
                                                                                monkeypatch) -> None:
    # Before: "未信任任何内容：…/permissions.local.toml cannot be read: [Errno 13] Permission denied: …".
    page = _page(qtbot, builtin_runtime, workspace, BROKEN.split("\n\n")[0] + "\n")
    local = workspace / ".echo-desk" / "permissions.local.toml"
    local.write_text("")
    read_bytes = Path.read_bytes

    def refused(path: Path) -> bytes:  # the system refuses the personal file (root reads any mode)
        if path == local:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", refused)
    monkeypatch.setattr(page.rules, "_untrusted_workspace", lambda: workspace)
    page.rules.ask_trust()
    said = page.rules.trust_note.text()
    assert said == "未信任任何内容（无法读取 permissions.local.toml；系统拒绝了此操作：权限不足）", said
    assert "Permission denied" in page.rules.trust_note.toolTip()
    assert not hasattr(page.rules, "trust_box")  # no dialog: nothing to trust was shown


def test_the_engines_refusal_stays_english_for_the_cli_and_the_model(builtin_runtime, config_dir: Path,
                                                                     chinese) -> None:
    # The same error, read by the CLI or the model (``str``), in English whatever the language.
    (config_dir / "permissions.toml").write_text('[[rule]]\neffect = "maybe"\n')
    builtin_runtime.permissions.refresh()
    with pytest.raises(ValueError, match=r"permissions.toml has errors; fix them first: .*line 1") as caught:
        builtin_runtime.permissions.grant(Suggestion(tool="shell", pattern="ls **", label="ls"), GrantScope.ALWAYS,
                                          call_id="c1")
    assert shown(caught.value.args[0]) == "permissions.toml 有错误（第 1 行），请先修正"


def test_an_export_that_fails_says_so_in_chinese(page: PermissionsPage, builtin_runtime, scope, tmp_path: Path,
                                                 chinese, monkeypatch) -> None:
    # Before: "未导出任何内容：[Errno 2] No such file or directory: '…'".
    _run(builtin_runtime, scope, "echo one", "c1")
    activity = page.activity
    assert activity is not None
    activity.reload()
    gone = tmp_path / "gone" / "activity.jsonl"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a, **_k: (str(gone), ""))
    activity._ask_export()
    said = activity.detail.text()
    assert said == "未导出任何内容（系统拒绝了此操作：没有这个文件或文件夹）", said
    assert "No such file or directory" in activity.detail.toolTip()
    assert not gone.exists()


def test_arguments_that_are_not_json_are_said_in_chinese(page: PermissionsPage, chinese) -> None:
    # Before: "参数不是有效的 JSON：Expecting property name enclosed in double quotes: line 1 column 2 (char 1)".
    tester = page.tester
    tester.kind.setCurrentIndex(4)
    tester.input.setText("github create_issue {bad")
    assert tester.result.text() == "未检查：参数不是有效的 JSON（第 1 行，第 2 列）", tester.result.text()
    assert "Expecting property name" in tester.result.toolTip() and tester.verdict is None
    tester.input.setText("github create_issue {}")
    assert tester.result.toolTip() == ""


@pytest.mark.parametrize(("exc", "expected"), [
    (httpx.ConnectError("[Errno 111] Connection refused"), "无法连接到服务器。请检查地址和网络，然后重新下载。"),
    (OSError(errno.EACCES, "Permission denied"), "无法写入模型文件（系统拒绝了此操作：权限不足）。"),
    (httpx.RemoteProtocolError("peer closed connection without sending complete message body"),
     "与服务器的连接中断了。重新下载即可从中断处继续。"),
    (RuntimeError("Event loop is closed"), "下载失败（发生了 Echo Desk 未预料到的错误）。"),
])
def test_a_download_failure_is_said_in_chinese(tmp_path: Path, chinese, exc: BaseException, expected: str) -> None:
    # Before: "无法连接到服务器（[Errno 111] Connection refused）…", "下载失败：RuntimeError: Event loop is closed".
    said = describe_error(exc, tmp_path)
    assert said == expected, said
    assert not _english_left(said), said


@pytest.mark.skipif(not sandbox.probe().available, reason="bwrap cannot run here")
def test_an_untrusted_rule_file_under_the_sandbox_box_is_said_in_chinese(qtbot, runtime, tmp_path: Path,
                                                                         chinese) -> None:
    # Before: "未更改：…/permissions.local.toml holds rules you have not trusted yet; review and trust
    # them in Settings › Permissions first".
    local = tmp_path / ".echo-desk" / "permissions.local.toml"
    local.parent.mkdir()
    local.write_text("[[rule]\n")
    page = SandboxPage(runtime.settings, workspace=lambda: str(tmp_path), rules=runtime.permissions)
    qtbot.addWidget(page)
    page.without_asking.setChecked(True)
    said = page.rule_error.text()
    assert said == ("未更改；此复选框显示规则文件的实际状态（permissions.local.toml 含有你尚未信任的规则，"
                    "请先在“设置 › 权限”中查看并信任它们）"), said
    assert "have not trusted yet" in page.rule_error.toolTip()
    assert not page.without_asking.isChecked() and local.read_text() == "[[rule]\n"


def test_a_rule_file_that_is_not_toml_keeps_the_parsers_words_as_detail(runtime, config_dir: Path, chinese) -> None:
    # Unticking in the user's own file, broken by hand: where it breaks is the parser's English.

    (config_dir / "permissions.toml").write_text("[[rule]\n")
    with pytest.raises(ValueError) as caught:
        sandbox_toggle.set_on(runtime.permissions, None, False)
    assert failure_reason(caught.value) == "permissions.toml 不是有效的 TOML，请先修正"
    assert "Expected ']]'" in str(caught.value)  # the CLI's English, as it was
    assert "TOMLDecodeError: Expected ']]'" in technical_detail(caught.value)  # the tooltip's


def _denied(*_args: object, **_kwargs: object) -> None:
    raise OSError(errno.EACCES, "Permission denied")


@pytest.mark.parametrize("where", ["echo_desk.common.atomic._write_all", "echo_desk.common.atomic.atomic_write"])
@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_a_failed_save_says_the_rule_file_is_unchanged_once(page: PermissionsPage, config_dir: Path, monkeypatch,
                                                            request, where: str, language: str) -> None:
    # Before: "Not saved; your rule file was not changed (Could not write …/permissions.toml: the disk is
    # full. The original file is unchanged.)", and "(permissions.toml could not be written; it is
    # unchanged, …)" when the write failed before the file was opened.
    if language == "zh_CN":
        request.getfixturevalue("chinese")
    monkeypatch.setattr(where, _denied)
    editor = page.rules
    editor.editor.setPlainText(USER_RULES + "\n# one more line\n")
    editor.save.click()
    said = editor.validation.text()
    outcome = r"not changed|unchanged" if language == "en" else r"未改动|没有改动|保持原样"
    assert len(re.findall(outcome, said)) == 1, said
    assert re.search(r"permission denied" if language == "en" else r"权限不足|无法写入", said), said
    assert (config_dir / "permissions.toml").read_text() == USER_RULES


@pytest.mark.parametrize("language", ["en", "zh_CN"])
@pytest.mark.parametrize("unreadable", ["refused", "not_utf8"])
def test_a_rules_file_that_cannot_be_read_is_said_and_nothing_can_overwrite_it(
        page: PermissionsPage, config_dir: Path, monkeypatch, request, language: str, unreadable: str) -> None:
    # Before: the OSError / UnicodeDecodeError went up out of Revert (and out of the page's making).
    if language == "zh_CN":
        request.getfixturevalue("chinese")
    user_file = config_dir / "permissions.toml"
    if unreadable == "not_utf8":
        user_file.write_bytes(b'[[rule]]\neffect = "allow"\ntool = "shell"\nreason = "caf\xe9"\n')
    else:
        read_text = Path.read_text

        def refused(path: Path, *args: object, **kwargs: object) -> str:  # root reads any mode
            if path == user_file:
                raise PermissionError(errno.EACCES, "Permission denied", str(path))
            return read_text(path, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(Path, "read_text", refused)
    before = user_file.read_bytes()
    editor = page.rules
    editor.load_user_file()  # as the page does when made, and Revert
    said = editor.validation.text()
    if language == "en":
        assert said.startswith("permissions.toml cannot be read (" if unreadable == "refused"
                               else "permissions.toml is not UTF-8 text"), said
        assert "it was not changed" in said, said
    else:
        assert "它没有被改动" in said and not _english_left(said), said
        assert ("权限不足" if unreadable == "refused" else "不是 UTF-8 文本") in said, said
    assert ("Permission denied" if unreadable == "refused" else "UnicodeDecodeError") in editor.validation.toolTip()
    assert editor.editor.isReadOnly() and editor.editor.toPlainText() == ""
    assert not editor.save.isEnabled() and not editor.add_rule.isEnabled() and editor.revert.isEnabled()
    editor.save_user_file()  # even when called: nothing is written over the file it never showed
    assert user_file.read_bytes() == before

    monkeypatch.undo()
    user_file.write_text(USER_RULES)
    editor.revert.click()  # readable again: the editor is back
    assert not editor.editor.isReadOnly() and editor.editor.toPlainText() == USER_RULES
    assert editor.add_rule.isEnabled() and "permissions.toml" not in editor.validation.text()


@pytest.mark.parametrize("problem", ["not_utf8", "refused", "too_big"])
def test_a_rule_file_s_read_problem_is_listed_in_chinese(tmp_path: Path, chinese, problem: str) -> None:
    # Before: "错误 · permissions.toml 第 4 行 · 无法读取该文件：not UTF-8 text" (the engine's English).
    path = tmp_path / "permissions.toml"
    if problem == "not_utf8":
        path.write_bytes(b'[[rule]]\neffect = "allow"\ntool = "shell"\nreason = "caf\xe9"\n')
    elif problem == "too_big":
        path.write_bytes(b"#" * (loader.MAX_FILE_BYTES + 1))
    else:
        path.mkdir()  # reading a folder: the system refuses (root reads any mode)
    _, problems, _ = loader.read_rule_file(path, Layer.USER, lambda _rule: [])
    assert problems, problem
    listed = problem_lines(LoadReport(problems=tuple(problems)))
    assert len(listed) == 1 and "无法读取该文件" in listed[0], listed
    assert not re.search(r"[A-Za-z]{2,}", re.sub(r"permissions\.toml|UTF-8", "", listed[0])), listed
    # ``rules check`` and the log keep the engine's English
    assert str(problems[0].message).startswith(
        {"not_utf8": "not UTF-8", "too_big": "file is", "refused": "cannot read:"}[problem])


@pytest.mark.parametrize(("text", "said"), [
    ('[[rule]]\neffect "allow"\n', "键后面缺少“=”（第 8 列）"),
    ('[[rule]\neffect = "allow"\n', "“[[rule]]”没有用“]]”结束（第 7 列）"),
    ('[[rule]]\neffect = allow\n', "缺少值或值无效（文本需要加引号）（第 10 列）"),
    ('[[rule]]\nreason = "open\n', "文本缺少结束的引号"),
    ('[[rule]]\neffect = "allow" tool = "shell"\n', "值的后面同一行还有内容"),
    ('[[rule]]\neffect = "allow"\ntool = "shell"\ncolour = "red"\n', "未知的键“colour”"),
    ('[[rule]]\neffect = "maybe"\ntool = "shell"\n', "ask 或 deny，而不是“maybe”"),
    ('[[rule]]\neffect = "allow"\ntool = "a b"\n', "tool“a b”既不是规则类别"),
    ('[[rule]]\neffect = "allow"\ntool = "shell"\npattern = " "\n', "pattern 为空"),
])
def test_a_rule_file_s_syntax_or_rule_problem_is_listed_in_chinese(
        tmp_path: Path, chinese, text: str, said: str) -> None:
    # Before: "错误 · permissions.toml 第 2 行 · 不是有效的 TOML：not valid TOML: Expected '=' after a key in
    # a key/value pair (at line 2, column 8)" — tomllib's English in the Chinese list.
    path = tmp_path / "permissions.toml"
    path.write_text(text, encoding="utf-8")
    _, problems, _ = loader.read_rule_file(path, Layer.USER, lambda _rule: [])
    listed = problem_lines(LoadReport(problems=tuple(problems)))
    assert len(listed) == 1 and said in listed[0], listed
    # No English but the file's name, TOML's and the rule file's own words.
    kept = r"permissions\.toml|TOML|rule|effect|allow-in-sandbox|allow|ask|deny|maybe|colour|tool|pattern|reason|examples|client|shell|read|write|fetch|mcp|db"
    assert not re.search(r"[A-Za-z]{2,}", re.sub(kept, "", listed[0])), listed
    # ``rules check`` and the log keep the engine's English (tomllib's own words for a syntax error).
    english = str(problems[0].message)
    assert not re.search(r"[\u4e00-\u9fff]", english) and english[:1].islower(), english

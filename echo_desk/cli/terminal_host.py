"""The ``Host`` for the headless CLI: approvals and questions on the terminal.

``--yes`` / ``--no`` answer every approval without asking; without them a person answers
on stdin after seeing the full targets and diffs. No terminal and no flag means "no".

Every untrusted string (targets, arguments, diffs, questions, command output) is printed through
``common.visible_text``: the terminal shows ``⟨ESC⟩`` and ``⟨U+202E⟩``, it never obeys them.
"""

from __future__ import annotations

import asyncio
import getpass
import json
import math
import sys
from typing import Any, TextIO

from echo_desk.agent.host import ApprovalChoice, ApprovalDecision, ApprovalRequest
from echo_desk.cli.browser import open_in_browser
from echo_desk.common.secret_names import is_secret_field
from echo_desk.common.visible_text import split_lines, visible, visible_json
from echo_desk.tools.host import Answer, AnswerAction, NullToolHost, Question, TodoItem, TodoStatus


class TerminalHost(NullToolHost):
    def __init__(
        self,
        *,
        auto: ApprovalChoice | None = None,
        out: TextIO | None = None,
        inp: TextIO | None = None,
    ) -> None:
        self.auto = auto
        self.out = out or sys.stderr
        self.inp = inp or sys.stdin
        self.ascii_only = not can_show_brackets(self.out)

    def _print(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def _show(self, text: str, *, one_line: bool = False) -> str:
        return visible(text, one_line=one_line, ascii_only=self.ascii_only)

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        show = self._show
        self._print(f"\n── Approval needed: {show(request.tool_title, one_line=True)} "
                    f"({show(request.tool_name, one_line=True)}), risk {request.risk.value}")
        self._print(f"   asked by: {show(' → '.join(request.scope_chain), one_line=True)}")
        if request.hides_text():
            self._print("   ! this request contains hidden or control characters, shown as "
                        + ("\\x.. / \\u...." if self.ascii_only else "⟨…⟩") + ": read it carefully")
        if request.spawn is not None:  # a sub-agent start: its manifest (its targets are its write roots)
            for line in request.spawn.terminal_lines():
                self._print(f"   {show(line, one_line=True)}")
        else:
            for target in request.targets:
                detail = f"   ({show(target.full_detail, one_line=True)})" if target.full_detail else ""
                self._print(f"   {show(target.kind, one_line=True)}: {show(target.value, one_line=True)}{detail}")
        if request.arguments:
            self._print("   arguments: " + visible_json(request.arguments))
        for change in request.file_changes:
            self._print(f"   {change.kind.value}: {show(change.path, one_line=True)}")
            self._print("\n".join(split_lines(change.diff.rstrip("\n"))))
            if change.truncated:
                self._print("   (diff truncated)")
        if self.auto is not None:
            self._print(f"   → {'allowed (--yes)' if self.auto.allows else 'denied (--no)'}")
            return ApprovalDecision(call_id=request.call_id, choice=self.auto, binding=request.binding)
        if not self.inp.isatty():
            self._print("   → denied: no terminal to ask on (use --yes or --no)")
            return ApprovalDecision(
                call_id=request.call_id, choice=ApprovalChoice.DENY, binding=request.binding,
                message="no one was there to approve it",
            )
        answer = await asyncio.to_thread(self._prompt, "Allow? [y]es once / [a]llow for this run / [N]o: ")
        choice = {"y": ApprovalChoice.ALLOW_ONCE, "a": ApprovalChoice.ALLOW_CONVERSATION}.get(
            answer.strip().lower()[:1], ApprovalChoice.DENY
        )
        message = ""
        if choice is ApprovalChoice.DENY:
            message = (await asyncio.to_thread(self._prompt, "Message for the model (optional): ")).strip()
        return ApprovalDecision(call_id=request.call_id, choice=choice, message=message, binding=request.binding)

    def _prompt(self, text: str) -> str:
        self.out.write(text)
        self.out.flush()
        return self.inp.readline()

    async def ask(self, question: Question) -> Answer:
        if not self.inp.isatty():
            return Answer(action=AnswerAction.CANCEL)
        show = self._show
        self._print("\n── " + asker_line(question, ascii_only=self.ascii_only))
        self._print("   " + show(question.prompt).replace("\n", "\n   "))
        if question.mcp_server:
            self._print(f"   (your answer is sent to the MCP server {show(question.mcp_server, one_line=True)!s}; "
                        "Echo Desk never asks for its own keys or passwords here)")
        for i, choice in enumerate(question.choices, 1):
            self._print(f"   {i}. {show(choice, one_line=True)}")
        if question.url:
            return await self._ask_to_open(question.url)
        if question.schema:
            values: dict[str, object] = {}
            for name, spec in (question.schema.get("properties") or {}).items():
                value = await self._ask_field(name, spec if isinstance(spec, dict) else {})
                if value is not _UNSET:
                    values[name] = value
            return Answer(action=AnswerAction.ACCEPT, values=values)
        raw = (await asyncio.to_thread(self._prompt, "> ")).strip()
        if not raw:
            return Answer(action=AnswerAction.DECLINE)
        if question.choices and raw.isdigit() and 1 <= int(raw) <= len(question.choices):
            raw = question.choices[int(raw) - 1]
        return Answer(action=AnswerAction.ACCEPT, text=raw)

    async def _ask_to_open(self, url: str) -> Answer:
        """URL-mode elicitation: the address in full, then y/N; opened only on yes."""
        self._print(f"   It asks you to open this address in your browser:\n     {self._show(url)}")
        raw = (await asyncio.to_thread(self._prompt, "Open it? [y/N]: ")).strip().lower()
        if raw[:1] != "y":
            return Answer(action=AnswerAction.DECLINE)
        if not await open_in_browser(url):
            self._print("   (no browser here: open the address above yourself)")
        return Answer(action=AnswerAction.ACCEPT)

    async def _ask_field(self, name: str, spec: dict[str, Any]) -> object:
        """One form field, converted to its schema type; asked again until the text fits.
        An empty answer takes the default (a field without one is left out, a text is "")."""
        default = spec.get("default", _UNSET)
        shown = "" if default is _UNSET else json.dumps(default, ensure_ascii=False).strip('"')
        hint = f" ({'/'.join(map(str, spec['enum']))})" if "enum" in spec else _TYPE_HINTS.get(spec.get("type", ""), "")
        hint = self._show(hint, one_line=True)
        title = self._show(str(spec.get("title") or name), one_line=True)
        secret = looks_secret(name, spec)
        while True:
            if secret:
                # Not echoed: typed like a password, and still sent to whoever asked.
                raw = (await asyncio.to_thread(self._prompt_secret, f"{title}{hint} (hidden): ")).strip()
            else:
                prompt = f"{title}{hint} [{self._show(shown, one_line=True)}]: "
                raw = (await asyncio.to_thread(self._prompt, prompt)).strip()
            if not raw:
                if default is not _UNSET:
                    return default
                return "" if spec.get("type", "string") == "string" and "enum" not in spec else _UNSET
            try:
                return field_value(spec, raw)
            except ValueError as exc:
                self._print(f"   {exc}; try again")

    def _prompt_secret(self, text: str) -> str:
        """Like ``_prompt`` with echo off on the answering terminal (``getpass`` would read /dev/tty)."""
        try:
            import termios  # Unix only
        except ImportError:
            return getpass.getpass(text)
        fd = self.inp.fileno()
        saved = termios.tcgetattr(fd)
        quiet = termios.tcgetattr(fd)
        quiet[3] &= ~termios.ECHO
        termios.tcsetattr(fd, termios.TCSANOW, quiet)
        try:
            return self._prompt(text)
        finally:
            termios.tcsetattr(fd, termios.TCSANOW, saved)
            self._print()

    def tool_output(self, call_id: str, text: str) -> None:
        self.out.write(self._show(text))
        self.out.flush()

    def todos_updated(self, scope_id: str, todos: tuple[TodoItem, ...]) -> None:
        marks = {TodoStatus.DONE: "x", TodoStatus.IN_PROGRESS: "~"}
        for todo in todos:
            self._print(f"   [{marks.get(todo.status, ' ')}] {self._show(todo.text, one_line=True)}")


_UNSET = object()
_TYPE_HINTS = {"integer": " (a whole number)", "number": " (a number)", "boolean": " (yes/no)"}
_TRUE = frozenset({"y", "yes", "true", "1", "on"})
_FALSE = frozenset({"n", "no", "false", "0", "off"})


def field_value(spec: dict[str, Any], raw: str) -> object:
    """``raw`` typed for a form field of a flat JSON schema, as the schema's type (as the app's
    form gives it). Raises ``ValueError`` saying what fits when it does not."""
    if "enum" in spec:
        for option in spec["enum"]:
            if raw == str(option):
                return option
        raise ValueError(f"choose one of {', '.join(map(str, spec['enum']))}")
    kind = spec.get("type", "string")
    if kind == "boolean":
        if raw.lower() in _TRUE:
            return True
        if raw.lower() in _FALSE:
            return False
        raise ValueError("answer yes or no")
    if kind in ("integer", "number"):
        try:
            value: float = int(raw) if kind == "integer" else float(raw)
        except ValueError:
            raise ValueError("a whole number is needed" if kind == "integer" else "a number is needed") from None
        if not math.isfinite(value):
            raise ValueError("a finite number is needed")
        if "minimum" in spec and value < spec["minimum"]:
            raise ValueError(f"at least {spec['minimum']}")
        if "maximum" in spec and value > spec["maximum"]:
            raise ValueError(f"at most {spec['maximum']}")
        return value
    if "minLength" in spec and len(raw) < int(spec["minLength"]):
        raise ValueError(f"at least {spec['minLength']} characters")
    if "maxLength" in spec and len(raw) > int(spec["maxLength"]):
        raise ValueError(f"at most {spec['maxLength']} characters")
    return raw


def can_show_brackets(stream: TextIO) -> bool:
    """Whether ``stream`` can print the ⟨…⟩ escapes (else they are written ``\\x1b``, ``\\u202e``)."""
    try:
        "⟨⟩…".encode(getattr(stream, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def asker_line(question: Question, *, ascii_only: bool = False) -> str:
    """Who asks, first: a server's question must never pass for Echo Desk's own."""
    if question.mcp_server:
        return f"MCP server '{visible(question.mcp_server, one_line=True, ascii_only=ascii_only)}' asks:"
    who = question.asked_by if question.asked_by not in ("", "agent") else ""
    suffix = f" ({visible(who, one_line=True, ascii_only=ascii_only)})" if who else ""
    return f"The agent{suffix} asks:"


def looks_secret(name: str, spec: dict[str, Any]) -> bool:
    """Whether a form field asks for something to keep hidden (by its name, title or format)."""
    return is_secret_field(name, str(spec.get("title") or ""), str(spec.get("format") or ""))

"""The ``Host`` for the headless CLI: approvals and questions on the terminal.

``--yes`` / ``--no`` answer every approval without asking; without them a person answers
on stdin after seeing the full targets and diffs. No terminal and no flag means "no".
"""

from __future__ import annotations

import asyncio
import json
import math
import sys
from typing import Any, TextIO

from echo_desk.agent.host import ApprovalChoice, ApprovalDecision, ApprovalRequest
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

    def _print(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        self._print(f"\n── Approval needed: {request.tool_title} ({request.tool_name}), risk {request.risk.value}")
        self._print(f"   asked by: {' → '.join(request.scope_chain)}")
        if request.spawn is not None:  # a sub-agent start: its manifest (its targets are its write roots)
            for line in request.spawn.terminal_lines():
                self._print(f"   {line}")
        else:
            for target in request.targets:
                detail = f"   ({target.detail})" if target.detail else ""
                self._print(f"   {target.kind}: {target.value}{detail}")
        if request.arguments:
            self._print("   arguments: " + json.dumps(request.arguments, ensure_ascii=False, indent=None))
        for change in request.file_changes:
            self._print(f"   {change.kind.value}: {change.path}")
            self._print(change.diff.rstrip("\n"))
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
        self._print(f"\n── Question: {question.prompt}")
        for i, choice in enumerate(question.choices, 1):
            self._print(f"   {i}. {choice}")
        if question.schema:
            values: dict[str, object] = {}
            for name, spec in (question.schema.get("properties") or {}).items():
                value = await self._ask_field(name, spec)
                if value is not _UNSET:
                    values[name] = value
            return Answer(action=AnswerAction.ACCEPT, values=values)
        raw = (await asyncio.to_thread(self._prompt, "> ")).strip()
        if not raw:
            return Answer(action=AnswerAction.DECLINE)
        if question.choices and raw.isdigit() and 1 <= int(raw) <= len(question.choices):
            raw = question.choices[int(raw) - 1]
        return Answer(action=AnswerAction.ACCEPT, text=raw)

    async def _ask_field(self, name: str, spec: dict[str, Any]) -> object:
        """One form field, converted to its schema type; asked again until the text fits.
        An empty answer takes the default (a field without one is left out, a text is "")."""
        default = spec.get("default", _UNSET)
        shown = "" if default is _UNSET else json.dumps(default, ensure_ascii=False).strip('"')
        hint = f" ({'/'.join(map(str, spec['enum']))})" if "enum" in spec else _TYPE_HINTS.get(spec.get("type", ""), "")
        while True:
            raw = (await asyncio.to_thread(self._prompt, f"{spec.get('title', name)}{hint} [{shown}]: ")).strip()
            if not raw:
                if default is not _UNSET:
                    return default
                return "" if spec.get("type", "string") == "string" and "enum" not in spec else _UNSET
            try:
                return field_value(spec, raw)
            except ValueError as exc:
                self._print(f"   {exc}; try again")

    def tool_output(self, call_id: str, text: str) -> None:
        self.out.write(text)
        self.out.flush()

    def todos_updated(self, scope_id: str, todos: tuple[TodoItem, ...]) -> None:
        marks = {TodoStatus.DONE: "x", TodoStatus.IN_PROGRESS: "~"}
        for todo in todos:
            self._print(f"   [{marks.get(todo.status, ' ')}] {todo.text}")


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

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
from echo_desk.cli.typed_choices import NONE_TYPED, typed_positions
from echo_desk.cli.words import RISK_LABELS, label
from echo_desk.common.cut_text import cut_note
from echo_desk.common.multi_choice import MultiChoice
from echo_desk.common.secret_names import is_secret_field
from echo_desk.common.visible_text import split_lines, visible, visible_json
from echo_desk.i18n import N_, _, aside, labelled, list_text, shown, translate_in
from echo_desk.tools.host import (
    Answer,
    AnswerAction,
    NullToolHost,
    Question,
    TodoItem,
    TodoStatus,
    choice_titles,
)
from echo_desk.ui.approval.spawn_manifest import manifest_lines
from echo_desk.ui.approval.targets_text import format_targets
from echo_desk.ui.core.labels import CHANGE_LABELS, TARGET_LABELS


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
        self._print("\n── " + _("Approval needed: {title} ({name}), risk: {risk}").format(
            # The tool's own title in the person's language, from its catalog (a plugin's own), as the window does.
            title=show(translate_in(request.tool_domain, request.tool_title, request.tool_locale_dir)
                       if request.tool_title else request.tool_name, one_line=True),
            name=show(request.tool_name, one_line=True),
            risk=label(RISK_LABELS, request.risk.value)))
        self._print("   " + _("asked by: {chain}").format(chain=show(" → ".join(request.scope_chain), one_line=True)))
        if request.asked_because:
            self._print("   ! " + shown(request.asked_because))
        if request.hides_text():
            self._print("   " + _("! this request contains hidden or control characters, shown as {marks}: "
                                  "read it carefully").format(marks="\\x.. / \\u...." if self.ascii_only else "⟨…⟩"))
        if request.spawn is not None:  # a sub-agent start: its manifest (its targets are its write roots)
            for line in manifest_lines(request.spawn):
                self._print(f"   {show(line, one_line=True)}")
        else:
            # The window's words: each kind, each protection and each change in the person's language.
            targets = format_targets(request, ascii_only=self.ascii_only, changes=False, one_line=True)
            for line in targets.splitlines():
                self._print(f"   {line}")
        if request.arguments:
            self._print("   " + _("arguments: {json}").format(json=visible_json(request.arguments)))
        for change in request.file_changes:
            self._print("   " + labelled(_(TARGET_LABELS["path"]), aside(show(change.path, one_line=True),
                                                                       label(CHANGE_LABELS, change.kind.value))))
            self._print("\n".join(split_lines(change.diff.rstrip("\n"))))
            if change.truncated:
                self._print("   " + _("(diff truncated)"))
        if self.auto is not None:
            self._print("   → " + (_("allowed (--yes)") if self.auto.allows else _("denied (--no)")))
            return ApprovalDecision(call_id=request.call_id, choice=self.auto, binding=request.binding)
        if not self.inp.isatty():
            self._print("   → " + _("denied: no terminal to ask on (use --yes or --no)"))
            return ApprovalDecision(
                call_id=request.call_id, choice=ApprovalChoice.DENY, binding=request.binding,
                message="no one was there to approve it",
            )
        # The keys stay y / a / n in every language: what is typed, not what is read.
        answer = await asyncio.to_thread(self._prompt, _("Allow? [y]es once / [a]llow for this run / [N]o: "))
        choice = {"y": ApprovalChoice.ALLOW_ONCE, "a": ApprovalChoice.ALLOW_CONVERSATION}.get(
            answer.strip().lower()[:1], ApprovalChoice.DENY
        )
        message = ""
        if choice is ApprovalChoice.DENY:
            message = (await asyncio.to_thread(self._prompt, _("Message for the model (optional): "))).strip()
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
        if question.prompt_cut:
            self._print("   " + cut_note(question.prompt_cut))
        if question.mcp_server:
            self._print("   " + _("(your answer is sent to the MCP server {server}; Echo Desk never asks for its own "
                                  "keys or passwords here)").format(server=show(question.mcp_server, one_line=True)))
        for i, choice in enumerate(question.choices, 1):
            self._print(f"   {i}. {show(choice, one_line=True)}")
        if question.url:
            return await self._ask_to_open(question.url)
        if question.schema:
            values: dict[str, object] = {}
            for name, spec in (question.schema.get("properties") or {}).items():
                value = await self._ask_field(name, spec if isinstance(spec, dict) else {}, question)
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
        self._print("   " + _("It asks you to open this address in your browser:"))
        self._print("     " + self._show(url))
        raw = (await asyncio.to_thread(self._prompt, _("Open it? [y/N]: "))).strip().lower()
        if raw[:1] != "y":
            return Answer(action=AnswerAction.DECLINE)
        if not await open_in_browser(url):
            self._print("   " + _("(no browser here: open the address above yourself)"))
        return Answer(action=AnswerAction.ACCEPT)

    async def _ask_field(self, name: str, spec: dict[str, Any], question: Question) -> object:
        """One form field, converted to its schema type; asked again until the text fits.
        An empty answer takes the default (a field without one is left out, a text is "")."""
        title = self._show(str(spec.get("title") or name), one_line=True)
        if cut := question.form_cuts.get((name, "title"), 0):
            title += " " + cut_note(cut)
        if (several := MultiChoice.of(spec)) is not None:
            return await self._ask_several(title, several)
        default = spec.get("default", _UNSET)
        shown = "" if default is _UNSET else json.dumps(default, ensure_ascii=False).strip('"')
        kind = spec.get("type", "")
        hint = f" ({_options(spec)})" if "enum" in spec else (  # not prose: the options
            " " + _(_TYPE_HINTS[kind]) if kind in _TYPE_HINTS else "")
        hint = self._show(hint, one_line=True)
        if cut := question.form_cuts.get((name, "default"), 0):
            shown += " " + cut_note(cut)
        secret = looks_secret(name, spec)
        while True:
            if secret:
                # Not echoed: typed like a password, and still sent to whoever asked.
                prompt = _("{field}{hint} (hidden): ").format(field=title, hint=hint)
                raw = (await asyncio.to_thread(self._prompt_secret, prompt)).strip()
            else:
                prompt = _("{field}{hint} [{default}]: ").format(field=title, hint=hint,
                                                                 default=self._show(shown, one_line=True))
                raw = (await asyncio.to_thread(self._prompt, prompt)).strip()
            if not raw:
                if default is not _UNSET:
                    return default
                return "" if spec.get("type", "string") == "string" and "enum" not in spec else _UNSET
            try:
                return field_value(spec, raw)
            except ValueError as exc:
                self._print("   " + _("{problem}; try again").format(problem=exc))

    async def _ask_several(self, title: str, several: MultiChoice) -> list[Any]:
        """A field answered with several of its choices: each numbered, the default's marked;
        asked again until what is typed names choices, as many as the field allows."""
        self._print("   " + labelled(title, several.rule() or _("Choose any number.")))
        for number, (value, choice_title) in enumerate(zip(several.values, several.titles, strict=True), 1):
            mark = "x" if number - 1 in several.first_chosen else " "
            named = choice_title if str(value) == choice_title else f"{value} = {choice_title}"  # typed by value, read by title
            self._print(f"     {number}. [{mark}] {self._show(named, one_line=True)}")
        kept = ",".join(str(position + 1) for position in sorted(several.first_chosen))
        prompt = _("Numbers or values, separated by commas ({none} for none) [{default}]: ").format(
            none=NONE_TYPED, default=kept)
        while True:
            raw = (await asyncio.to_thread(self._prompt, prompt)).strip()
            try:
                positions = typed_positions(several, raw) if raw else sorted(several.first_chosen)
            except ValueError as exc:
                self._print("   " + self._show(str(exc), one_line=True))
                continue
            if (problem := several.problem(len(positions))) is None:
                return several.chosen(positions)
            self._print("   " + problem)

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
_TYPE_HINTS = {"integer": N_("(a whole number)"), "number": N_("(a number)"), "boolean": N_("(yes/no)")}
_TRUE = frozenset({"y", "yes", "true", "1", "on"})
_FALSE = frozenset({"n", "no", "false", "0", "off"})


def _options(spec: dict[str, Any]) -> str:
    """A field's choices as typed, each with its title where it has one ("keep = Keep my files")."""
    pairs = [(str(value), title) for value, title in zip(spec["enum"], choice_titles(spec), strict=True)]
    if all(value == title for value, title in pairs):
        return "/".join(value for value, _title in pairs)
    return " / ".join(value if value == title else f"{value} = {title}" for value, title in pairs)


def field_value(spec: dict[str, Any], raw: str) -> object:
    """``raw`` typed for a form field of a flat JSON schema, as the schema's type (as the app's
    form gives it). Raises ``ValueError`` saying what fits when it does not."""
    if "enum" in spec:
        for option in spec["enum"]:
            if raw == str(option):
                return option
        raise ValueError(_("choose one of {options}").format(options=list_text(map(str, spec["enum"]))))
    kind = spec.get("type", "string")
    if kind == "boolean":
        if raw.lower() in _TRUE:
            return True
        if raw.lower() in _FALSE:
            return False
        raise ValueError(_("answer yes or no"))
    if kind in ("integer", "number"):
        try:
            value: float = int(raw) if kind == "integer" else float(raw)
        except ValueError:
            raise ValueError(_("a whole number is needed") if kind == "integer" else _("a number is needed")) from None
        if not math.isfinite(value):
            raise ValueError(_("a finite number is needed"))
        if "minimum" in spec and value < spec["minimum"]:
            raise ValueError(_("at least {minimum}").format(minimum=spec["minimum"]))
        if "maximum" in spec and value > spec["maximum"]:
            raise ValueError(_("at most {maximum}").format(maximum=spec["maximum"]))
        return value
    if "minLength" in spec and len(raw) < int(spec["minLength"]):
        raise ValueError(_("at least {count} characters").format(count=spec["minLength"]))
    if "maxLength" in spec and len(raw) > int(spec["maxLength"]):
        raise ValueError(_("at most {count} characters").format(count=spec["maxLength"]))
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
        return _("MCP server '{server}' asks:").format(server=visible(question.mcp_server, one_line=True,
                                                                       ascii_only=ascii_only))
    who = question.asked_by if question.asked_by not in ("", "agent") else ""
    if not who:
        return _("The agent asks:")
    # The question dialog's own words, brackets included: ASCII ones glued to Chinese read as code.
    return _("The agent ({scope}) asks:").format(scope=visible(who, one_line=True, ascii_only=ascii_only))


def looks_secret(name: str, spec: dict[str, Any]) -> bool:
    """Whether a form field asks for something to keep hidden (by its name, title or format)."""
    return is_secret_field(name, str(spec.get("title") or ""), str(spec.get("format") or ""))

"""Every error a built-in tool gives carries the person's words (``i18n.for_person``): the model
reads the English, the tool card shows the person's text in their language. A message written
as a bare literal (or an f-string) reaches a Chinese-speaking person in English."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The built-in tools, and the shared file code whose errors they pass on as they are.
SOURCES = [*sorted((ROOT / "echo_desk" / "builtins").rglob("*.py")), ROOT / "echo_desk" / "agent" / "delegate.py",
           *(ROOT / "echo_desk" / "common" / f"{name}.py" for name in ("fs", "entries", "atomic", "xattrs", "textcodec")),
           # The dispatcher's own refusals and failures, shown on the same card.
           *sorted((ROOT / "echo_desk" / "agent" / "pipeline").glob("*.py")), ROOT / "echo_desk" / "agent" / "dispatcher.py",
           # (Not the tool contract, echo_desk/tools: it imports nothing of the app's translations; the
           # pipeline gives its plain stop the person's words.)
           *(ROOT / "echo_desk" / "mcp" / f"{name}.py" for name in ("tool", "calls"))]


def _plain_text(node: ast.expr) -> bool:
    """A message written right there: a literal, an f-string, ``+`` or ``%`` of them, or ``.format``."""
    if isinstance(node, ast.Constant | ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return _plain_text(node.left) or _plain_text(node.right)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"
            and _plain_text(node.func.value))


def _message(call: ast.Call) -> ast.expr | None:
    """The message of ``ToolError(message)``, ``bad(message)``, ``CancelledByUser(message)``,
    ``CallStopped(kind, message)``, ``ToolResult.fail(kind, message)``,
    ``ToolResult(..., error=message)`` and an error class's ``super().__init__(message)``."""
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    keyword = {k.arg: k.value for k in call.keywords}
    if name in ("ToolError", "bad", "CancelledByUser"):
        return call.args[0] if call.args else keyword.get("message")
    if name == "CallStopped":
        return call.args[1] if len(call.args) > 1 else keyword.get("error")
    if name == "fail" and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id == "ToolResult":
        return call.args[1] if len(call.args) > 1 else keyword.get("error")
    if name == "ToolResult":
        return keyword.get("error")
    if name == "__init__" and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call) \
            and isinstance(func.value.func, ast.Name) and func.value.func.id == "super":
        return call.args[0] if call.args else None
    return None


def plain_messages(source: str, where: str = "") -> list[str]:
    """``file:line`` of each tool error in ``source`` whose message does not go through ``for_person``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            message = _message(node)
            if message is not None and _plain_text(message):
                found.append(f"{where}:{node.lineno}")
    return found


def test_the_check_finds_a_message_written_only_for_the_model() -> None:
    assert plain_messages('raise ToolError("sql is empty", kind=ErrorKind.VALIDATION)')
    assert plain_messages('raise ToolError(f"{target} already exists")')
    assert plain_messages('raise ToolError("no sub-agent: (" + "; ".join(x) + ")")')
    assert plain_messages('return ToolResult.fail(ErrorKind.TIMEOUT, f"ran {n} s", metadata=m)')
    assert plain_messages('return ToolResult(success=False, error=f"sub-agent {e}", error_kind=k)')
    assert plain_messages('raise bad("give \'glob\', \'regex\' or both")')
    assert plain_messages('class Binary(ToolError):\n def __init__(self, w):\n  super().__init__(f"{w} is binary")')
    assert plain_messages('raise CallStopped(ErrorKind.REJECTED, f"refused by {rule}")')
    assert plain_messages('raise CancelledByUser("the person dismissed the question")')
    assert not plain_messages('raise ToolError(for_person(f"{t} exists", N_("{path} exists"), path=t))')
    assert not plain_messages('return ToolResult.fail(exc.kind, exc.message)')


def test_every_builtin_error_is_written_for_the_person_too() -> None:
    found = [hit for path in SOURCES
             for hit in plain_messages(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))]
    assert not found, "errors a person would read in English only (wrap them in i18n.for_person):\n" + "\n".join(found)

"""JSON and JSON-with-comments read with the position of every value, and edited in place.

Another program's config file is changed by splicing text at known offsets, never by dumping
the whole document again: everything outside the edited span (key order, spacing, comments,
a trailing comma, a BOM, CRLF line ends) stays byte for byte. ``jsonc=True`` accepts what VS Code
and Zed accept in their settings (``//`` and ``/* */`` comments, trailing commas); without it the
grammar is strict JSON, checked against ``json.loads``.

Anything this reader does not understand is a ``JsoncError`` with the line and column: the
caller then refuses to write, it never guesses.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from echo_desk.common.json_text import read_json
from echo_desk.i18n import N_, deferred

_WS = " \t\r\n"
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"')
_LITERALS = {"true": True, "false": False, "null": None}
#: The rest of a line after a member: spaces and perhaps a ``//`` comment, up to the line end.
_LINE_TAIL = re.compile(r"[ \t]*(?://[^\n]*)?(?=\n)")
#: Deeper documents are refused instead of risking Python's recursion limit.
MAX_DEPTH = 200


class JsoncError(ValueError):
    """The text is not JSON (or JSONC) this reader understands; says where and why, to the
    person (``deferred``: the page and the CLI say it in the language of the moment)."""


@dataclass
class Node:
    """One value and where it is: ``text[start:end]`` is exactly its source."""

    kind: str  # object | array | string | number | literal
    start: int
    end: int
    value: Any
    members: list[Member] = field(default_factory=list)
    items: list[Node] = field(default_factory=list)

    def member(self, key: str) -> Member | None:
        """The member named ``key``; ``JsoncError`` if the object names it twice (ambiguous)."""
        found = [m for m in self.members if m.key == key]
        if len(found) > 1:
            raise JsoncError(deferred(N_("the key “{key}” appears {count} times in one object"), key=key,
                                      count=len(found)))
        return found[0] if found else None


@dataclass
class Member:
    key: str
    key_start: int
    value: Node
    #: Offset of the comma after this member, ``None`` for a last member without one.
    comma: int | None = None


@dataclass
class Document:
    text: str
    root: Node
    jsonc: bool

    def find(self, path: tuple[str, ...]) -> tuple[Node | None, Node]:
        """The node at ``path`` (``None`` when absent) and the deepest existing object on the way.

        ``JsoncError`` when something on the way is not an object."""
        node = self.root
        for depth, key in enumerate(path):
            if node.kind != "object":
                raise JsoncError(deferred(N_("{key} is not an object"), key=".".join(path[:depth]))
                                 if depth else deferred(N_("the document is not an object")))
            member = node.member(key)
            if member is None:
                return None, node
            node = member.value
        return node, node


class _Reader:
    def __init__(self, text: str, jsonc: bool) -> None:
        self.text = text
        self.jsonc = jsonc
        self.pos = 0

    def fail(self, message: str, at: int | None = None, **params: object) -> JsoncError:
        """``message`` (an ``N_`` id, with ``params``) and where in the text."""
        where = self.pos if at is None else at
        line = self.text.count("\n", 0, where) + 1
        column = where - (self.text.rfind("\n", 0, where) + 1) + 1
        return JsoncError(deferred(N_("line {line}, column {column}: {message}"), line=line, column=column,
                                   message=deferred(message, **params)))

    def skip(self) -> None:
        text, n = self.text, len(self.text)
        while self.pos < n:
            ch = text[self.pos]
            if ch in _WS:
                self.pos += 1
            elif ch == "/" and self.jsonc and text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = n if end < 0 else end + 1
            elif ch == "/" and self.jsonc and text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.fail(N_("a /* comment is never closed"))
                self.pos = end + 2
            elif ch == "/":
                raise self.fail(N_("comments are not allowed in this file (strict JSON)"))
            else:
                return

    def value(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise self.fail(N_("nested deeper than {depth} levels"), depth=MAX_DEPTH)
        self.skip()
        if self.pos >= len(self.text):
            raise self.fail(N_("the text ends where a value should be"))
        ch = self.text[self.pos]
        if ch == "{":
            return self.obj(depth)
        if ch == "[":
            return self.array(depth)
        if ch == '"':
            return self.string()
        match = _NUMBER.match(self.text, self.pos)
        if match:
            start, self.pos = self.pos, match.end()
            return Node("number", start, self.pos, read_json(match.group()))
        for word, literal in _LITERALS.items():
            if self.text.startswith(word, self.pos):
                start = self.pos
                self.pos += len(word)
                return Node("literal", start, self.pos, literal)
        raise self.fail(N_("unexpected character {char}"), char=repr(ch))

    def string(self) -> Node:
        match = _STRING.match(self.text, self.pos)
        if not match:
            raise self.fail(N_("a string is not closed or holds a raw control character or a bad escape"))
        start, self.pos = self.pos, match.end()
        return Node("string", start, self.pos, read_json(match.group()))

    def obj(self, depth: int) -> Node:
        start = self.pos
        self.pos += 1
        node = Node("object", start, start, {})
        while True:
            self.skip()
            if self.text.startswith("}", self.pos):
                if node.members and node.members[-1].comma is not None and not self.jsonc:
                    raise self.fail(N_("a trailing comma is not allowed in strict JSON"), node.members[-1].comma)
                self.pos += 1
                break
            if node.members and node.members[-1].comma is None:
                raise self.fail(N_("expected , or } after a member"))
            if not self.text.startswith('"', self.pos):
                raise self.fail(N_("expected a quoted key"))
            key = self.string()
            self.skip()
            if not self.text.startswith(":", self.pos):
                raise self.fail(N_("expected : after a key"))
            self.pos += 1
            member = Member(key=key.value, key_start=key.start, value=self.value(depth + 1))
            node.members.append(member)
            node.value[member.key] = member.value.value  # the last one wins, as in json.loads
            self.skip()
            if self.text.startswith(",", self.pos):
                member.comma = self.pos
                self.pos += 1
        node.end = self.pos
        return node

    def array(self, depth: int) -> Node:
        start = self.pos
        self.pos += 1
        node = Node("array", start, start, [])
        comma_after_last: int | None = None
        while True:
            self.skip()
            if self.text.startswith("]", self.pos):
                if comma_after_last is not None and not self.jsonc:
                    raise self.fail(N_("a trailing comma is not allowed in strict JSON"), comma_after_last)
                self.pos += 1
                break
            if node.items and comma_after_last is None:
                raise self.fail(N_("expected , or ] after an item"))
            item = self.value(depth + 1)
            node.items.append(item)
            node.value.append(item.value)
            self.skip()
            comma_after_last = None
            if self.text.startswith(",", self.pos):
                comma_after_last = self.pos
                self.pos += 1
        node.end = self.pos
        return node


def parse(text: str, *, jsonc: bool = False) -> Document:
    """The document with positions; ``JsoncError`` for anything else (a BOM is skipped)."""
    reader = _Reader(text, jsonc)
    if text.startswith("\ufeff"):
        reader.pos = 1
    root = reader.value(0)
    reader.skip()
    if reader.pos != len(text):
        raise reader.fail(N_("more text after the document"))
    if not jsonc:
        # Belt and braces: a strict file must read the same with the standard parser.
        try:
            standard = read_json(text.removeprefix("\ufeff"))
        except json.JSONDecodeError as exc:  # its English stays the cause, for a report
            raise JsoncError(deferred(N_("line {line}, column {column}: the standard JSON parser cannot read it"),
                                      line=exc.lineno, column=exc.colno)) from exc
        if standard != root.value:
            raise JsoncError(deferred(N_("the file reads differently with the standard JSON parser")))
    return Document(text=text, root=root, jsonc=jsonc)


# -- writing ----------------------------------------------------------------------------------


def newline_of(text: str) -> str:
    """The file's own line end: CRLF when its first line ends so."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _indent_at(text: str, pos: int) -> str:
    start = _line_start(text, pos)
    return text[start:start + len(text[start:pos]) - len(text[start:pos].lstrip(" \t"))]


def indent_unit(text: str) -> str:
    """The indentation step the file uses (its first indented line), two spaces by default."""
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and stripped[0] in "\"}]{[" and line != stripped:
            return line[: len(line) - len(stripped)]
    return "  "


def dumps(value: Any, *, indent: str, level: str, newline: str) -> str:
    """``value`` as JSON laid out like the file: ``indent`` per level, starting at ``level``; a
    short list of plain values stays on one line (``"args": ["gateway", "--client", "zed"]``)."""
    if not indent:
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict) and value:
        inner = level + indent
        parts = [f"{json.dumps(str(k), ensure_ascii=False)}: {dumps(v, indent=indent, level=inner, newline=newline)}"
                 for k, v in value.items()]
        return "{" + newline + inner + ("," + newline + inner).join(parts) + newline + level + "}"
    if isinstance(value, list) and value:
        flat = json.dumps(value, ensure_ascii=False)
        if len(flat) <= 80 and not any(isinstance(v, (dict, list)) for v in value):
            return flat.replace('", "', '", "')
        inner = level + indent
        parts = [dumps(v, indent=indent, level=inner, newline=newline) for v in value]
        return "[" + newline + inner + ("," + newline + inner).join(parts) + newline + level + "]"
    return json.dumps(value, ensure_ascii=False)


def _member_text(key: str, value: Any, *, indent: str, level: str, newline: str) -> str:
    return f"{json.dumps(key, ensure_ascii=False)}: {dumps(value, indent=indent, level=level, newline=newline)}"


def insert_member(doc: Document, obj: Node, key: str, value: Any) -> str:
    """The text with ``"key": value`` added as ``obj``'s last member, laid out like its siblings."""
    unit = indent_unit(doc.text)
    newline = newline_of(doc.text)
    return _insert(doc, obj, lambda level, inline: _member_text(
        key, value, indent="" if inline else unit, level=level, newline=newline))


def insert_source(doc: Document, obj: Node, source: str) -> str:
    """The text with a member's own source text (``"key": value`` as it was written, comments
    inside it included) added as ``obj``'s last member."""
    return _insert(doc, obj, lambda _level, _inline: source)


def _insert(doc: Document, obj: Node, member_at: Callable[[str, bool], str]) -> str:
    text = doc.text
    newline = newline_of(text)
    single_line = "\n" not in text[obj.start:obj.end]
    if obj.members:
        last = obj.members[-1]
        if single_line:
            member = member_at("", True)
            if last.comma is not None:
                return text[: last.comma + 1] + " " + member + text[last.comma + 1:]
            return text[: last.value.end] + ", " + member + text[last.value.end:]
        level = _indent_at(text, last.key_start)
        member = member_at(level, False)
        # After the last member's comma (a JSONC trailing one: ours then goes without), and
        # after a comment ending that line, so the comment stays with the member it follows.
        pos, comma = (last.comma + 1, "") if last.comma is not None else (last.value.end, ",")
        tail = _LINE_TAIL.match(text, pos)
        at = tail.end() if tail else pos
        if tail and text[at - 1:at] == "\r":
            at -= 1
        return text[:pos] + comma + text[pos:at] + newline + level + member + text[at:]
    outer = _indent_at(text, obj.start)
    level = outer + indent_unit(text)
    member = member_at(level, False)
    inside = text[obj.start + 1: obj.end - 1]
    if inside.strip():  # only comments inside: keep them, the member goes after
        body = inside.rstrip(" \t\r\n") + newline + level + member + newline + outer
    else:
        body = newline + level + member + newline + outer
    return text[: obj.start + 1] + body + text[obj.end - 1:]


def leading_comment(text: str, start: int) -> int:
    """Where the comment lines right above ``start``'s line begin (``//`` lines and one-line
    ``/* */`` blocks; the first ``/``), or
    ``start`` when there are none: such a comment belongs to the member below it."""
    line = _line_start(text, start)
    if text[line:start].strip(" \t"):
        return start
    found = start
    while line > 0:
        previous = _line_start(text, line - 1)
        content = text[previous:line].strip(" \t\r\n")
        whole_block = content.startswith("/*") and content.endswith("*/") and "*/" not in content[2:-2]
        if not (content.startswith("//") or whole_block):
            break
        found = previous + text[previous:line].index("/")
        line = previous
    return found


def remove_member(doc: Document, obj: Node, key: str) -> str:
    """The text without ``obj``'s member ``key`` (and its line, when it had a line of its own,
    with the ``//`` comment lines right above it)."""
    text = doc.text
    index = next(i for i, m in enumerate(obj.members) if m.key == key)
    member = obj.members[index]
    end = member.comma + 1 if member.comma is not None else member.value.end
    if index + 1 < len(obj.members) or member.comma is not None:
        start = leading_comment(text, member.key_start)
        line = _line_start(text, start)
        if not text[line:start].strip(" \t"):
            start = line
        rest = text[end:]
        after = len(rest) - len(rest.lstrip(" \t"))
        if start == line and (rest[after:after + 1] == "\n" or rest[after:after + 2] == "\r\n"):
            end += after + (1 if rest[after] == "\n" else 2)  # the member's whole line
        else:
            # Something else shares the line (``{"a": 1, "b": 2}``): only the member and the
            # spaces after its comma go.
            start = member.key_start
            end += after
        return text[:start] + text[end:]
    if index == 0:  # the only member: an empty object is left, comments around it kept
        kept = text[obj.start + 1: member.key_start] + text[end: obj.end - 1]
        return text[: obj.start + 1] + ("" if not kept.strip() else kept) + text[obj.end - 1:]
    previous = obj.members[index - 1]
    assert previous.comma is not None
    return text[: previous.comma] + text[end:]


def replace_value(doc: Document, node: Node, value: Any) -> str:
    """The text with ``node`` replaced by ``value``, laid out at ``node``'s indentation."""
    text = doc.text
    level = _indent_at(text, node.start)
    single_line = "\n" not in text[node.start:node.end] and node.kind in ("object", "array") and node.value
    unit = "" if single_line else indent_unit(text)
    return text[: node.start] + dumps(value, indent=unit, level=level, newline=newline_of(text)) + text[node.end:]


def replace_span(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]

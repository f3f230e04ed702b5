"""A client's list of servers inside its config file, edited without touching anything else.

``read_section(location, text)`` finds the list (JSON, JSON with comments or goose's YAML) and
knows the exact source of every entry. Each edit returns the whole new text: only the entry
removed or added changes, the rest of the file is the same text. A file whose layout this
module cannot edit that way raises ``SectionError`` with the reason; nothing is written then.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from echo_desk.i18n import N_, deferred
from echo_desk.mcp.connected import jsonc
from echo_desk.mcp.connected.clients import Format, Location


class SectionError(ValueError):
    """The file cannot be read, or not edited faithfully; the message says why."""


class Section(Protocol):
    """The server list of one file (absent lists are empty and created on the first entry)."""

    text: str
    #: Every entry as parsed, in file order.
    entries: dict[str, Any]
    #: The whole document as parsed (to check an edit changed nothing else).
    document: Any

    def source_of(self, name: str) -> str: ...

    def without(self, name: str) -> str: ...

    def with_entry(self, name: str, value: Any) -> str: ...

    def with_source(self, name: str, source: str) -> str: ...


def read_section(location: Location, text: str) -> Section:
    if location.format is Format.YAML:
        return YamlSection(text, location.key_path)
    return JsonSection(text, location.key_path, comments=location.format is Format.JSONC)


def _nest(keys: tuple[str, ...], value: Any) -> Any:
    for key in reversed(keys):
        value = {key: value}
    return value


# -- JSON and JSON with comments --------------------------------------------------------------


class JsonSection:
    def __init__(self, text: str, key_path: tuple[str, ...], *, comments: bool) -> None:
        self.text = text
        self.key_path = key_path
        try:
            self.doc = jsonc_parse(text, comments)
            node, self._parent = self.doc.find(key_path)
            self._node = node
            if node is not None and node.kind != "object":
                raise SectionError(deferred(N_("{key} is not an object"), key=".".join(key_path)))
            if node is not None:
                for member in node.members:  # a list naming one server twice is ambiguous
                    node.member(member.key)
        except jsonc.JsoncError as exc:
            raise SectionError(*exc.args) from exc  # its words, deferred: ``str`` would drop the translation
        self.document = self.doc.root.value
        self.entries: dict[str, Any] = dict(node.value) if node is not None else {}

    def _member(self, name: str) -> jsonc.Member:
        assert self._node is not None
        member = self._node.member(name)
        assert member is not None
        return member

    def source_of(self, name: str) -> str:
        """The member as written, with the ``//`` comment lines right above it."""
        member = self._member(name)
        return self.text[jsonc.leading_comment(self.text, member.key_start): member.value.end]

    def without(self, name: str) -> str:
        assert self._node is not None
        return jsonc.remove_member(self.doc, self._node, name)

    def with_entry(self, name: str, value: Any) -> str:
        if self._node is not None:
            return jsonc.insert_member(self.doc, self._node, name, value)
        # The list does not exist yet: the missing keys are created around the entry.
        depth = _depth_found(self.doc, self.key_path)
        missing = self.key_path[depth:]
        return jsonc.insert_member(self.doc, self._parent, missing[0], _nest(missing[1:], {name: value}))

    def with_source(self, name: str, source: str) -> str:
        if self._node is None:
            raise SectionError(deferred(N_("{key} is gone from the file"), key=".".join(self.key_path)))
        return jsonc.insert_source(self.doc, self._node, source)


def jsonc_parse(text: str, allow_comments: bool) -> jsonc.Document:
    doc = jsonc.parse(text, jsonc=allow_comments)
    if doc.root.kind != "object":
        raise jsonc.JsoncError(deferred(N_("the file must hold a JSON object")))
    return doc


def _depth_found(doc: jsonc.Document, path: tuple[str, ...]) -> int:
    node = doc.root
    for depth, key in enumerate(path):
        member = node.member(key) if node.kind == "object" else None
        if member is None:
            return depth
        node = member.value
    return len(path)


# -- goose's YAML -----------------------------------------------------------------------------

_COMMENT_OR_BLANK = re.compile(r"^\s*(#.*)?$")
_COMMENT = re.compile(r"^\s*#")


@dataclass
class _Span:
    first_line: int
    last_line: int  # inclusive


def _refuse_unusual(events: list[Any]) -> None:
    """Anchors, aliases, custom tags or several documents: not rewritten (a splice could break them)."""
    import yaml

    for event in events:
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise SectionError(deferred(N_("the file uses YAML anchors or aliases, which Echo Desk does not rewrite")))
        tag = getattr(event, "tag", None)
        if tag and not getattr(event, "implicit", True) and not str(tag).startswith("tag:yaml.org,2002:"):
            raise SectionError(deferred(N_("the file uses the YAML tag {tag}, which Echo Desk does not rewrite"),
                                        tag=str(tag)))
    if sum(isinstance(e, yaml.DocumentStartEvent) for e in events) > 1:
        raise SectionError(deferred(N_("the file holds several YAML documents")))


@dataclass
class YamlSection:
    """The ``extensions`` mapping of goose's ``config.yaml``, kept as lines of text.

    Only a block mapping at the top level (``extensions:`` then indented entries) is edited;
    anchors, aliases, tags, several documents or a flow-style list are refused."""

    text: str
    key_path: tuple[str, ...]
    entries: dict[str, Any] = field(init=False)
    document: Any = field(init=False)

    def __post_init__(self) -> None:
        import yaml

        if len(self.key_path) != 1:
            raise SectionError(deferred(N_("only a top-level list can be edited in YAML")))
        try:
            _refuse_unusual(list(yaml.parse(self.text, Loader=yaml.SafeLoader)))
            self.document = yaml.safe_load(self.text)
            root = yaml.compose(self.text, Loader=yaml.SafeLoader)
        except yaml.YAMLError as exc:
            # Where, not the reader's English ("could not find expected ':'"): that stays the cause.
            mark = getattr(exc, "problem_mark", None)
            raise SectionError(deferred(N_("line {line}, column {column}: not YAML that can be read"),
                                        line=mark.line + 1, column=mark.column + 1) if mark is not None
                               else deferred(N_("not YAML that can be read"))) from exc
        self.lines = self.text.splitlines(keepends=True)
        self.entries = {}
        self._spans: dict[str, _Span] = {}
        self._block: Any = None
        self._key_line = -1
        self._indent = 2
        if root is None:
            self.document = {}
            return
        if not isinstance(root, yaml.MappingNode) or not isinstance(self.document, dict):
            raise SectionError(deferred(N_("the file must hold a YAML mapping")))
        self._find_block(root)
        if self._block is not None:
            self._measure()

    def _find_block(self, root: Any) -> None:
        """The list's mapping node; an empty list (``extensions:``, ``~`` or ``{}``) is none."""
        import yaml

        key = self.key_path[0]
        for key_node, value_node in root.value:
            if key_node.value != key:
                continue
            self._key_line = key_node.start_mark.line
            empty = isinstance(value_node, yaml.ScalarNode) and value_node.value in ("", "~", "null")
            if empty or (isinstance(value_node, yaml.MappingNode) and value_node.flow_style and not value_node.value):
                return
            if not isinstance(value_node, yaml.MappingNode):
                raise SectionError(deferred(N_("{key} is not a mapping"), key=key))
            if value_node.flow_style:
                raise SectionError(deferred(N_("{key} is written in flow style ({{…}}), which Echo Desk does not "
                                               "rewrite"), key=key))
            self._block = value_node

    def _measure(self) -> None:
        """Each entry's lines: from its key to its last line that is not blank or a comment."""
        import yaml

        pairs = self._block.value
        starts = [k.start_mark.line for k, _ in pairs]
        for index, (key_node, value_node) in enumerate(pairs):
            if not isinstance(key_node, yaml.ScalarNode):
                raise SectionError(deferred(N_("{key} has a key that is not plain text"), key=self.key_path[0]))
            end = starts[index + 1] - 1 if index + 1 < len(starts) else value_node.end_mark.line
            if index + 1 == len(starts) and value_node.end_mark.column == 0:
                end -= 1  # a block value ends where the next line starts
            while end > starts[index] and _COMMENT_OR_BLANK.match(self.lines[end]):
                end -= 1
            first = starts[index]
            while first > 0 and _COMMENT.match(self.lines[first - 1]):
                first -= 1  # a comment right above an entry belongs to it
            self._spans[key_node.value] = _Span(first, end)
        listed = self.document[self.key_path[0]]
        self.entries = {k.value: listed[k.value] for k, _ in pairs}
        self._indent = pairs[0][0].start_mark.column

    def source_of(self, name: str) -> str:
        span = self._spans[name]
        return "".join(self.lines[span.first_line: span.last_line + 1])

    def without(self, name: str) -> str:
        span = self._spans[name]
        return "".join(self.lines[: span.first_line] + self.lines[span.last_line + 1:])

    def _newline(self) -> str:
        return jsonc.newline_of(self.text)

    def with_entry(self, name: str, value: Any) -> str:
        import yaml

        indent = self._indent
        dumped = yaml.safe_dump({name: value}, default_flow_style=False, sort_keys=False, allow_unicode=True,
                                indent=2, width=1000)
        source = "".join(" " * indent + line for line in dumped.splitlines(keepends=True))
        return self._insert(source.replace("\n", self._newline()))

    def with_source(self, name: str, source: str) -> str:
        return self._insert(source)

    def _insert(self, source: str) -> str:
        newline = self._newline()
        if not source.endswith("\n"):
            source += newline
        key = self.key_path[0]
        if self._block is not None:
            last = max(span.last_line for span in self._spans.values())
            lines = list(self.lines)
            if lines[last] and not lines[last].endswith("\n"):
                lines[last] += newline
            return "".join(lines[: last + 1]) + source + "".join(lines[last + 1:])
        if self._key_line >= 0:  # "extensions:" with nothing, null or {} after it
            line = self.lines[self._key_line]
            ending = newline if line.endswith("\n") else ""
            head = f"{key}:{ending or newline}"
            return "".join(self.lines[: self._key_line]) + head + source + "".join(self.lines[self._key_line + 1:])
        text = self.text
        if text and not text.endswith("\n"):
            text += newline
        return text + f"{key}:{newline}" + source

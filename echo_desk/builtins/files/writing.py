"""The write tools: ``write_file`` (create or overwrite), ``edit_file`` (exact replacements) and
``append_to_file`` (text added at the end)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from echo_desk.builtins.common import bad, get_bool, get_str
from echo_desk.builtins.files import fs
from echo_desk.builtins.files.lifecycle import FileWriteTool
from echo_desk.builtins.files.textcodec import TextFormat, decode, encode, to_newline
from echo_desk.tools import N_, ErrorKind, ToolError

MAX_CONTENT = 2_000_000
MAX_EDITS = 50
MAX_EDIT_TEXT = 200_000


def _short(text: str, limit: int = 60) -> str:
    one_line = text.replace("\n", "\\n")
    return repr(one_line if len(one_line) <= limit else one_line[:limit] + "…")


class WriteFile(FileWriteTool):
    name = "write_file"
    description = (
        "Create a text file, or replace the whole content of an existing one, inside the workspace. "
        "Missing parent folders are created. An existing file keeps its encoding, BOM and line endings. "
        "To change part of a file prefer edit_file."
    )
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "minLength": 1, "maxLength": fs.MAX_PATH_CHARS,
                     "description": "File path, relative to the workspace or absolute inside it."},
            "content": {"type": "string", "maxLength": MAX_CONTENT, "description": "The complete new text."},
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    }
    create_parents = True
    title = N_("Write file")
    catalog_description = N_("Creates a file in your workspace or replaces its whole content. You see the diff first.")

    def new_content(
        self, params: Mapping[str, Any], before: bytes | None, target: fs.Resolved
    ) -> tuple[str, str, bytes]:
        content = get_str(params, "content", max_len=MAX_CONTENT, allow_empty=True)
        if before is None:
            return "", content, encode(content, TextFormat(), target)
        old_text, fmt = decode(before, target)
        new_text = to_newline(content, fmt.newline)
        return old_text, new_text, encode(new_text, fmt, target)


class EditFile(FileWriteTool):
    name = "edit_file"
    description = (
        "Change a text file by exact text replacement. Each edit replaces 'old' (which must occur "
        "exactly once, including whitespace) with 'new'. Several edits are applied in order, all or "
        "nothing. Read the file first; include enough surrounding lines to make 'old' unique."
    )
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "minLength": 1, "maxLength": fs.MAX_PATH_CHARS,
                     "description": "File path, relative to the workspace or absolute inside it."},
            "edits": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_EDITS,
                "items": {
                    "type": "object",
                    "properties": {
                        "old": {"type": "string", "minLength": 1, "maxLength": MAX_EDIT_TEXT,
                                "description": "Exact text to replace; must occur once."},
                        "new": {"type": "string", "maxLength": MAX_EDIT_TEXT, "description": "Replacement text."},
                        "replace_all": {"type": "boolean", "default": False,
                                        "description": "Replace every occurrence of 'old' (e.g. to rename a "
                                                       "variable), not just one."},
                    },
                    "required": ["old", "new"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["path", "edits"],
        "additionalProperties": False,
    }
    title = N_("Edit file")
    catalog_description = N_("Replaces exact pieces of text in a file of your workspace. You see the diff first.")

    def new_content(
        self, params: Mapping[str, Any], before: bytes | None, target: fs.Resolved
    ) -> tuple[str, str, bytes]:
        edits = params.get("edits")
        if edits is None:
            raise bad("missing required argument 'edits'")
        if not isinstance(edits, list) or not edits:
            raise bad("'edits' must be a non-empty list of {old, new}")
        if len(edits) > MAX_EDITS:
            raise bad(f"'edits' has {len(edits)} items; the limit is {MAX_EDITS}")
        pairs: list[tuple[str, str, bool]] = []
        for number, edit in enumerate(edits, start=1):
            if not isinstance(edit, Mapping) or set(edit) - {"old", "new", "replace_all"}:
                raise bad(f"edit {number} must be an object with 'old' and 'new' (and 'replace_all')")
            old = get_str(edit, "old", max_len=MAX_EDIT_TEXT)
            new = get_str(edit, "new", max_len=MAX_EDIT_TEXT, allow_empty=True)
            every = get_bool(edit, "replace_all", default=False)
            if old == new:
                raise bad(f"edit {number}: 'old' and 'new' are the same")
            pairs.append((old, new, every))
        if before is None:
            raise fs.not_a_file(target, "does not exist (write_file creates a new file)")
        old_text, fmt = decode(before, target)
        text = old_text
        for number, (old, new, every) in enumerate(pairs, start=1):
            text = self._apply(text, old, new, fmt, number, every=every)
        return old_text, text, encode(text, fmt, target)

    @staticmethod
    def _apply(text: str, old: str, new: str, fmt: TextFormat, number: int, *, every: bool) -> str:
        # The model usually writes LF: in a CRLF file look for the CRLF form first (and for the
        # LF form of a CRLF text in an LF file), then for the text exactly as given.
        candidates = [(old, new)]
        if fmt.newline != "\n" or "\r\n" in old:
            candidates.insert(0, (to_newline(old, fmt.newline), to_newline(new, fmt.newline)))
        for find, replace in candidates:
            count = text.count(find)
            if count == 1 or (count > 1 and every):
                return text.replace(find, replace)
            if count > 1:
                raise ToolError(
                    f"edit {number}: the old text {_short(old)} occurs {count} times; include more "
                    "surrounding text so it is unique, or set replace_all to change every one. "
                    "Nothing was written.",
                    kind=ErrorKind.BUSINESS,
                )
        raise ToolError(
            f"edit {number}: the old text {_short(old)} was not found (after the edits before it). "
            "Nothing was written.",
            kind=ErrorKind.BUSINESS,
        )


class AppendToFile(FileWriteTool):
    """Text added at the end of an existing file: nothing there can be lost, so nothing of it has
    to be read or repeated first. Small models asked to "add a line at the end" rewrote the whole
    file with ``write_file`` and dropped or reordered lines, or replaced the last line with
    ``edit_file`` (bench/agent_tasks.py)."""

    name = "append_to_file"
    description = (
        "Add text at the end of an existing text file in the workspace, on a new line. The file keeps "
        "its encoding and line endings. To create a file use write_file."
    )
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "minLength": 1, "maxLength": fs.MAX_PATH_CHARS,
                     "description": "File path, relative to the workspace or absolute inside it."},
            "text": {"type": "string", "minLength": 1, "maxLength": MAX_CONTENT,
                     "description": "The text to add, without the file's current content."},
        },
        "required": ["path", "text"],
        "additionalProperties": False,
    }
    title = N_("Append to file")
    catalog_description = N_("Adds text at the end of a file in your workspace. You see the diff first.")

    def new_content(
        self, params: Mapping[str, Any], before: bytes | None, target: fs.Resolved
    ) -> tuple[str, str, bytes]:
        added = get_str(params, "text", max_len=MAX_CONTENT)
        if before is None:
            raise fs.not_a_file(target, "does not exist (write_file creates a new file)")
        old_text, fmt = decode(before, target)
        # Whole lines: the text starts on a line of its own and ends its line.
        separator = "" if not old_text or old_text.endswith(("\n", "\r")) else "\n"
        tail = "" if added.endswith(("\n", "\r")) else "\n"
        new_text = old_text + to_newline(separator + added + tail, fmt.newline)
        return old_text, new_text, encode(new_text, fmt, target)

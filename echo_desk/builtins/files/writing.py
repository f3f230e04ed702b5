"""The write tools: ``write_file`` (create or overwrite), ``edit_file`` (exact replacements) and
``append_to_file`` (text added at the end)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from echo_desk.builtins.arguments import Arguments
from echo_desk.builtins.common import bad
from echo_desk.builtins.files.lifecycle import FileArguments, FileWriteTool
from echo_desk.common import fs
from echo_desk.common.textcodec import TextFormat, decode, encode, to_newline
from echo_desk.i18n import for_person, quoted_later
from echo_desk.tools import N_, ErrorKind, ToolError, ToolRole

MAX_CONTENT = 2_000_000
MAX_EDITS = 50
MAX_EDIT_TEXT = 200_000


def _short(text: str) -> str:
    return repr(_cut(text))


def _cut(text: str, limit: int = 60) -> str:
    one_line = text.replace("\n", "\\n")
    return one_line if len(one_line) <= limit else one_line[:limit] + "…"


class WriteArguments(FileArguments):
    content: Annotated[str, Field(max_length=MAX_CONTENT, description="The complete new text.")]


class WriteFile(FileWriteTool[WriteArguments]):
    name = "write_file"
    role = ToolRole.CREATE
    description = (
        "Create a text file, or replace the whole content of an existing one, inside the workspace. "
        "Missing parent folders are created. An existing file keeps its encoding, BOM and line endings. "
        "To change part of a file prefer edit_file."
    )
    arguments = WriteArguments
    create_parents = True
    title = N_("Write file")
    catalog_description = N_("Creates a file in your workspace or replaces its whole content. You see the diff first.")

    def new_content(self, args: WriteArguments, before: bytes | None, target: fs.Resolved) -> tuple[str, str, bytes]:
        content = args.content
        if before is None:
            return "", content, encode(content, TextFormat(), target)
        old_text, fmt = decode(before, target)
        new_text = to_newline(content, fmt.newline)
        return old_text, new_text, encode(new_text, fmt, target)


class Edit(Arguments):
    old: Annotated[str, Field(min_length=1, max_length=MAX_EDIT_TEXT, description="Exact text to replace; must occur once.")]
    new: Annotated[str, Field(max_length=MAX_EDIT_TEXT, description="Replacement text.")]
    replace_all: Annotated[bool, Field(description="Replace every occurrence of 'old' (e.g. to rename a variable), "
                                                   "not just one.")] = False


class EditArguments(FileArguments):
    edits: Annotated[list[Edit], Field(min_length=1, max_length=MAX_EDITS)]


class EditFile(FileWriteTool[EditArguments]):
    name = "edit_file"
    role = ToolRole.CHANGE
    description = (
        "Change a text file by exact text replacement. Each edit replaces 'old' (which must occur "
        "exactly once, including whitespace) with 'new'. Several edits are applied in order, all or "
        "nothing. Read the file first; include enough surrounding lines to make 'old' unique."
    )
    arguments = EditArguments
    title = N_("Edit file")
    catalog_description = N_("Replaces exact pieces of text in a file of your workspace. You see the diff first.")

    def new_content(self, args: EditArguments, before: bytes | None, target: fs.Resolved) -> tuple[str, str, bytes]:
        for number, edit in enumerate(args.edits, start=1):
            if edit.old == edit.new:
                raise bad(for_person(f"edit {number}: 'old' and 'new' are the same",
                                     N_("Edit {number}: the old and the new text are the same."), number=number))
        if before is None:
            raise fs.not_a_file(target, "does not exist (write_file creates a new file)")
        old_text, fmt = decode(before, target)
        text = old_text
        for number, edit in enumerate(args.edits, start=1):
            text = self._apply(text, edit.old, edit.new, fmt, number, every=edit.replace_all)
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
                raise ToolError(for_person(
                    f"edit {number}: the old text {_short(old)} occurs {count} times; include more "
                    "surrounding text so it is unique, or set replace_all to change every one. "
                    "Nothing was written.",
                    N_("Edit {number}: the old text {old} occurs {count} times, so it is not clear which one to "
                       "change. Nothing was written."),
                    number=number, old=quoted_later(_cut(old)), count=count), kind=ErrorKind.BUSINESS)
        raise ToolError(for_person(
            f"edit {number}: the old text {_short(old)} was not found (after the edits before it). "
            "Nothing was written.",
            N_("Edit {number}: the old text {old} was not found in the file. Nothing was written."),
            number=number, old=quoted_later(_cut(old))), kind=ErrorKind.BUSINESS)


class AppendArguments(FileArguments):
    text: Annotated[str, Field(min_length=1, max_length=MAX_CONTENT,
                               description="The text to add, without the file's current content.")]


class AppendToFile(FileWriteTool[AppendArguments]):
    """Text added at the end of an existing file: nothing there can be lost, so nothing of it has
    to be read or repeated first. Small models asked to "add a line at the end" rewrote the whole
    file with ``write_file`` and dropped or reordered lines, or replaced the last line with
    ``edit_file`` (bench/agent_tasks.py)."""

    name = "append_to_file"
    role = ToolRole.APPEND
    description = (
        "Add text at the end of an existing text file in the workspace, on a new line. The file keeps "
        "its encoding and line endings. To create a file use write_file."
    )
    arguments = AppendArguments
    title = N_("Append to file")
    catalog_description = N_("Adds text at the end of a file in your workspace. You see the diff first.")

    def new_content(self, args: AppendArguments, before: bytes | None, target: fs.Resolved) -> tuple[str, str, bytes]:
        added = args.text
        if before is None:
            raise fs.not_a_file(target, "does not exist (write_file creates a new file)")
        old_text, fmt = decode(before, target)
        # Whole lines: the text starts on a line of its own and ends its line.
        separator = "" if not old_text or old_text.endswith(("\n", "\r")) else "\n"
        tail = "" if added.endswith(("\n", "\r")) else "\n"
        new_text = old_text + to_newline(separator + added + tail, fmt.newline)
        return old_text, new_text, encode(new_text, fmt, target)

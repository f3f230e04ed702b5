"""The built-in tools: files, search, shell, web, questions and the task list.

``builtin_tools()`` returns one fresh instance of each; the runtime registers them with
source ``builtin``.
"""

from __future__ import annotations

from collections.abc import Callable

from echo_desk.builtins.echo import EchoText
from echo_desk.builtins.files.lifecycle import KnowsProtectedPaths
from echo_desk.builtins.files.operations import CopyPath, CreateFolder, DeletePath, MovePath
from echo_desk.builtins.files.reading import ListDir, ReadFile
from echo_desk.builtins.files.writing import AppendToFile, EditFile, WriteFile
from echo_desk.builtins.interaction import AskUser, UpdateTodos
from echo_desk.builtins.search.search_files import SearchFiles
from echo_desk.builtins.shell.run_command import RunCommand
from echo_desk.builtins.web.fetch_url import FetchUrl
from echo_desk.store.owed_checks import OwedChecksStore
from echo_desk.store.settings import Settings
from echo_desk.tools import Tool

BUILTIN_CLASSES: tuple[type[Tool], ...] = (
    EchoText,
    ReadFile,
    ListDir,
    SearchFiles,
    WriteFile,
    EditFile,
    AppendToFile,
    MovePath,
    CopyPath,
    DeletePath,
    CreateFolder,
    RunCommand,
    FetchUrl,
    AskUser,
    UpdateTodos,
)


def builtin_tools(settings: Callable[[], Settings] | None = None, owed: OwedChecksStore | None = None) -> list[Tool]:
    """A fresh instance of every built-in tool, in catalog order. ``run_command`` reads its
    sandbox settings from ``settings`` (default: the defaults) and keeps each sandboxed command's
    check in ``owed`` until it was made; the file tools read the person's own protected paths
    (Settings › Sandbox)."""
    return [RunCommand(settings, owed) if cls is RunCommand
            else cls(settings) if issubclass(cls, KnowsProtectedPaths) else cls()
            for cls in BUILTIN_CLASSES]


__all__ = [
    "BUILTIN_CLASSES",
    "AppendToFile",
    "AskUser",
    "CopyPath",
    "CreateFolder",
    "DeletePath",
    "EchoText",
    "EditFile",
    "FetchUrl",
    "ListDir",
    "MovePath",
    "ReadFile",
    "RunCommand",
    "SearchFiles",
    "UpdateTodos",
    "WriteFile",
    "builtin_tools",
]

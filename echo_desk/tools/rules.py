"""What a tool tells the permission rules about itself: which family of rules judges its calls
and which of its arguments are paths it reads or writes.

Rules never key on a tool's name: ``deny write @workspace/secret/**`` stops every tool that
declares a written path argument, a built-in or a plugin's. A tool declares on its class::

    class Archive(Tool):
        name = "archive"
        path_arguments = {"source": PathAccess.READ, "archive": PathAccess.WRITE}

(the built-ins mark the fields of their argument models with ``READS`` / ``WRITES`` instead,
and their ``path_arguments`` are made from that). A tool that moves or deletes a file writes at
both ends: the source of a move or a delete is a write, the source of a copy a read.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass


class RuleFamily(enum.StrEnum):
    """Which rules judge a tool's calls (``docs/permissions.md``)."""

    #: Only rules that name the tool (the default for a tool without path arguments).
    NAMED = "named"
    #: Its path arguments (``path_arguments``), each by the read or the write rules.
    FILES = "files"
    #: Its ``command`` argument is a shell line, judged by the shell rules.
    SHELL = "shell"
    #: Its ``url`` argument is fetched (with ``method``, GET when absent), judged by the fetch rules.
    FETCH = "fetch"
    #: Its ``connection`` and ``sql`` arguments, judged by the ``db:<connection>`` rules
    #: (a read-risk tool reads; otherwise the statement decides: write or schema).
    DATABASE = "database"


class PathAccess(enum.StrEnum):
    """What a tool does at a path argument: the ``read`` or the ``write`` rules judge it."""

    READ = "read"
    #: Creates, changes, moves away or deletes what is there.
    WRITE = "write"


@dataclass(frozen=True)
class PathArgument:
    """Marks a field of an argument model as a path: ``Annotated[str, Field(...), WRITES]``."""

    access: PathAccess


READS = PathArgument(PathAccess.READ)
WRITES = PathArgument(PathAccess.WRITE)


def declared_family(rule_family: RuleFamily | None, path_arguments: Mapping[str, PathAccess]) -> RuleFamily:
    """A tool's family: as it declared it, else files when it has path arguments, else named."""
    if rule_family is not None:
        return rule_family
    return RuleFamily.FILES if path_arguments else RuleFamily.NAMED

"""Running a command (or an MCP server) contained by bubblewrap, on Linux.

A leaf package: it imports nothing of Echo Desk's but the public tool contract. Callers pass in
what they know (workspaces, Echo Desk's own folders, the person's hidden paths); this package
says whether the sandbox works here, builds the ``bwrap`` command line, the seccomp filter and
the environment, and reads back what a failed command was probably refused.

Each name below loads with its module on first use: asking whether the sandbox works here
(``sandbox.detect``) does not import the launcher, the planted-file guard or the seccomp filter
(the probe itself reads which machines the filter knows).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from echo_desk.lazy_names import names_from_modules

if TYPE_CHECKING:
    from echo_desk.sandbox.blocked import Blocked, what_was_blocked
    from echo_desk.sandbox.detect import Availability, Status, availability, check_at_start, forget, probe
    from echo_desk.sandbox.environment import allowed_environment, command_environment
    from echo_desk.sandbox.launch import (
        HiddenSystemFolder,
        HiddenWorkspace,
        Launch,
        LinksTooFar,
        ProtectedLinkToWorkspace,
        SandboxSpec,
        prepare,
    )

_HOME = {
    "Blocked": "blocked",
    "what_was_blocked": "blocked",
    "Availability": "detect",
    "Status": "detect",
    "availability": "detect",
    "check_at_start": "detect",
    "forget": "detect",
    "probe": "detect",
    "allowed_environment": "environment",
    "command_environment": "environment",
    "HiddenSystemFolder": "launch",
    "HiddenWorkspace": "launch",
    "Launch": "launch",
    "LinksTooFar": "launch",
    "ProtectedLinkToWorkspace": "launch",
    "SandboxSpec": "launch",
    "prepare": "launch",
}

__all__ = [
    "Availability",
    "Blocked",
    "HiddenSystemFolder",
    "HiddenWorkspace",
    "Launch",
    "LinksTooFar",
    "ProtectedLinkToWorkspace",
    "SandboxSpec",
    "Status",
    "allowed_environment",
    "availability",
    "check_at_start",
    "command_environment",
    "forget",
    "prepare",
    "probe",
    "what_was_blocked",
]

__getattr__, __dir__ = names_from_modules(__name__, _HOME)

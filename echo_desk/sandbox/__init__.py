"""Running a command (or an MCP server) contained by bubblewrap, on Linux.

A leaf package: it imports nothing of Echo Desk's but the public tool contract. Callers pass in
what they know (workspaces, Echo Desk's own folders, the person's hidden paths); this package
says whether the sandbox works here, builds the ``bwrap`` command line, the seccomp filter and
the environment, and reads back what a failed command was probably refused.
"""

from echo_desk.sandbox.blocked import Blocked, what_was_blocked
from echo_desk.sandbox.detect import Availability, Status, availability, check_at_start, forget, probe
from echo_desk.sandbox.environment import allowed_environment
from echo_desk.sandbox.guard import Change, Planted
from echo_desk.sandbox.launch import Launch, SandboxSpec, prepare

__all__ = [
    "Availability",
    "Blocked",
    "Change",
    "Launch",
    "Planted",
    "SandboxSpec",
    "Status",
    "allowed_environment",
    "availability",
    "check_at_start",
    "forget",
    "prepare",
    "probe",
    "what_was_blocked",
]

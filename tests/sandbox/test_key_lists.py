"""The kernel's key lists (``/proc/keys``, ``/proc/key-users``) from inside the sandbox. No
namespace separates keys: ``/proc/keys`` names every key the person can view, whichever process
added it, so a command read the names of the session's keys (a Kerberos cache's principal, a
network share's user) although the seccomp filter refuses the key system calls. Tried for real,
with a key whose name is a canary, by a command under bash and dash and by a stdio MCP server.
"""

from __future__ import annotations

import ctypes
import json
import os
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_helpers import Jail, context, requires_bwrap, run, tool_with

from echo_desk.mcp.config import ServerConfig
from echo_desk.mcp.connection import ServerConnection

pytestmark = [requires_bwrap,
              pytest.mark.skipif(not os.path.exists("/proc/keys"), reason="this kernel keeps no keys")]

PROBE = Path(__file__).with_name("probe_server.py")
REAL_PYTHON = os.path.realpath(sys.executable)
_ADD_KEY = {"x86_64": 248, "aarch64": 217}
_KEYCTL = {"x86_64": 250, "aarch64": 219}
_KEY_SPEC_PROCESS_KEYRING = -2
_KEYCTL_INVALIDATE = 21


@pytest.fixture
def key_name() -> Iterator[str]:
    """A key in this process's own keyring (gone with the process; invalidated after the test):
    its owner may view it, so ``/proc/keys`` outside lists its name, as it lists a login session's."""
    machine = os.uname().machine
    if machine not in _ADD_KEY:
        pytest.skip(f"no system-call numbers for {machine} here")
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    name = f"krb_ccache:canary-{secrets.token_hex(8)}"
    serial = libc.syscall(_ADD_KEY[machine], b"user", name.encode(), b"ticket", 6, _KEY_SPEC_PROCESS_KEYRING)
    if serial < 0:
        pytest.skip(f"cannot add a key here: {os.strerror(ctypes.get_errno())}")
    try:
        assert name in Path("/proc/keys").read_text(), "the key's name is not listed outside either"
        yield name
    finally:
        libc.syscall(_KEYCTL[machine], _KEYCTL_INVALIDATE, serial)


@pytest.mark.parametrize("shell", ["bash", "dash"])
async def test_a_command_cannot_read_the_names_of_the_persons_keys(jail: Jail, key_name: str, shell: str) -> None:
    line = "cat /proc/keys /proc/key-users; echo done"
    command = line if shell == "bash" else f"dash -c '{line}'"
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert "done" in result.output
    assert key_name not in result.output
    assert "/proc/keys: Permission denied" in result.output
    assert "/proc/key-users: Permission denied" in result.output


async def test_a_server_cannot_read_the_names_of_the_persons_keys(jail: Jail, key_name: str) -> None:
    own = jail.base / "server-folder"
    own.mkdir()
    cfg = ServerConfig(name="probe", command=REAL_PYTHON, args=("-I", str(PROBE)), cwd=str(own), sandbox=True)

    async def nothing(*_args: object) -> None:
        return None

    conn = ServerConnection(cfg, elicitation=nothing, on_tools_changed=nothing,  # type: ignore[arg-type]
                            on_lost=lambda _reason: None)
    await conn.start()
    try:
        result = await conn.call_tool("probe", {"read": ["/proc/keys", "/proc/key-users"]})
    finally:
        await conn.close()
    report = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert report["read"] == dict.fromkeys(["/proc/keys", "/proc/key-users"], "refused:Permission denied")

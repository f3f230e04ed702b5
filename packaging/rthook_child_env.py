"""PyInstaller runtime hook: give the programs Echo Desk starts the user's environment back.

On Linux the bundle's launcher points LD_LIBRARY_PATH at the bundle, so every command the agent
runs (run_command, MCP servers, git, python...) would load the bundle's copies of libssl, libz,
libstdc++... instead of its own, and break in odd ways. The launcher keeps the user's value in
LD_LIBRARY_PATH_ORIG; put it back. This process is unaffected: the dynamic linker read the
variable once at start-up.
"""

import os
import sys

if sys.platform.startswith("linux"):
    for name in ("LD_LIBRARY_PATH",):
        original = os.environ.pop(f"{name}_ORIG", None)
        if original is not None:
            os.environ[name] = original
        else:
            os.environ.pop(name, None)

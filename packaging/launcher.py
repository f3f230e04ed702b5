"""Entry script of the PyInstaller bundle: the same ``echo-desk`` command as the wheel's.

In a bundle ``sys.executable`` is this program, not a Python, so ``[sys.executable, "-m",
"echo_desk.x", ...]`` (how the app starts its helper processes, e.g. the local model's server)
would reach the CLI. Run such a module as ``python -m`` would; only our own modules.
"""

import runpy
import sys


def _run_module_if_asked() -> bool:
    if len(sys.argv) >= 3 and sys.argv[1] == "-m" and sys.argv[2].startswith("echo_desk."):
        module = sys.argv[2]
        sys.argv = [sys.argv[0], *sys.argv[3:]]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        return True
    return False


if __name__ == "__main__":
    if not _run_module_if_asked():
        from echo_desk.__main__ import main

        raise SystemExit(main())

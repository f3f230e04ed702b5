"""Python modules at a workspace's top under the name of one Python imports from elsewhere.

Python puts the folder it starts in first on ``sys.path`` for its prompt, ``python -c`` and
``python -m`` (a script gets its own folder there instead), so a module there is found before the
standard library's or pip's: ``readline.py`` runs when the person opens Python's prompt in the
folder, ``pip/__init__.py`` at ``python -m pip install …``, ``venv.py`` at ``python -m venv``,
``linecache.py`` at any ``python -c`` of Python 3.13. None of that runs the project's own code.
A project rarely has such a module at its top (it would break its own imports), so each is
watched, not only the names known to be imported at start-up: which ones are differs from one
version of Python, and one command of the person's, to the next.

Only at the top: below it (``src/app/types.py``) they are an ordinary part of a package, and the
person starts Python there rarely (see docs/sandbox.md).
"""

from __future__ import annotations

import sys

from echo_desk.tools import N_

#: The standard library's top-level modules as this Python knows them, those of newer ones that
#: their start-up imports (3.13's prompt), and pip (run as ``python -m pip``, as its documentation says).
NAMES = frozenset(sys.stdlib_module_names) | {"_pyrepl", "_colorize", "pip"}
#: What Python imports a module from, besides a folder with an ``__init__``: its source, a
#: compiled one with no source beside it, an extension (``json.cpython-313-x86_64-linux-gnu.so``).
_SUFFIXES = (".py", ".pyc", ".so")
WHY = N_("Python runs it instead of its own module (or pip) of that name when you start Python in this folder: "
         "its prompt, python -c, python -m pip")


def _module_file(name: str, module: str | None = None) -> bool:
    """``name`` is a file Python imports the module ``module`` (any of ``NAMES`` if ``None``) from."""
    stem = name.split(".", 1)[0]
    return name.endswith(_SUFFIXES) and (stem in NAMES if module is None else stem == module)


def covers(parts: tuple[str, ...]) -> bool:
    """Whether the workspace-relative path ``parts`` is such a module: ``json.py`` or ``json/__init__.py``."""
    if len(parts) == 1:
        return _module_file(parts[0])
    return len(parts) == 2 and parts[0] in NAMES and _module_file(parts[1], "__init__")


def package_names(top: frozenset[str]) -> list[str]:
    """Of the names at the top, those a package of ``NAMES`` could be (the ``__init__`` in them is watched)."""
    return [name for name in top if name in NAMES]

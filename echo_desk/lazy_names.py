"""A package's public names, each loaded with its own module on first use (PEP 562).

Importing one light module of a package (``echo_desk.tools.results``) runs the package's
``__init__`` first; when that ``__init__`` imports every module of the package, the light import
pays for all of them — the window's first frame and the CLI's answer would wait for code they
never run. A package lists where each name lives instead, and this makes the lookup.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping


def names_from_modules(package: str, homes: Mapping[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose public name ``n`` lives in the
    module ``package + "." + homes[n]``."""

    def attribute(name: str) -> object:
        module = homes.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)  # the next lookup is a plain module attribute
        return value

    def names() -> list[str]:
        return sorted({*vars(sys.modules[package]), *homes})

    return attribute, names

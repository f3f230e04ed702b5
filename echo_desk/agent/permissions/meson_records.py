"""The install folders of meson's build folder (``install_records``): where each file
``meson-info/intro-installed.json`` lists goes, and the prefix and install folders of
``meson-info/intro-buildoptions.json`` (empty folders and links are installed from there)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from echo_desk.agent.permissions.record_files import read_record

__all__ = ["is_meson", "meson_folders"]


def is_meson(build: Path) -> bool:
    """Whether ``build`` is a build folder meson wrote."""
    return (build / "meson-info").is_dir() or (build / "meson-private").is_dir()


def meson_folders(build: Path) -> list[str] | None:
    """The absolute folders meson's build folder ``build`` installs below (``None``: a record
    not of the form read here, or a folder not absolute)."""
    installed = json.loads(read_record(build / "meson-info" / "intro-installed.json"))
    options = json.loads(read_record(build / "meson-info" / "intro-buildoptions.json"))
    if not isinstance(installed, dict) or not isinstance(options, list):
        return None
    folders = {v: None for v in (str(d) for d in installed.values())}
    named = {o.get("name"): o.get("value") for o in options
             if isinstance(o, dict) and o.get("section") == "directory"}
    prefix = named.get("prefix")
    if not isinstance(prefix, str) or not os.path.isabs(prefix):
        return None
    found = [os.path.dirname(f) for f in folders if os.path.isabs(f)]
    if len(found) != len(folders):
        return None
    found.append(prefix)
    for value in named.values():
        if not isinstance(value, str):
            return None
        found.append(os.path.join(prefix, value))  # (an absolute one stands alone)
    return list(dict.fromkeys(os.path.normpath(f) for f in found))

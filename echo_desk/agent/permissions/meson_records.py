"""The install folders of meson's build folder (``install_records``): where each file
``meson-info/intro-installed.json`` lists goes, and the prefix and install folders of
``meson-info/intro-buildoptions.json`` (empty folders and links are installed from there).

meson keeps what the install does in ``meson-private/install.dat``, a pickle read here only for
the classes it names (never loaded): the project's ``meson.add_install_script`` lands there as
a command (``ExecutableSerialisation``) that ``meson install`` runs wherever it writes (meson
1.12, bash and dash: the script ran), which no record says. Install data naming any class but
those of plain files, folders and links makes the record unread, so the line asks (s300)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from echo_desk.agent.permissions.pickled_classes import pickled_classes
from echo_desk.agent.permissions.record_files import read_record, read_record_bytes

__all__ = ["is_meson", "meson_folders"]

#: The classes of meson's install data that only say what is copied where (meson 1.x): the
#: targets, data, headers, manual pages, folders, empty folders and links, and their modes.
_INSTALL_CLASSES = frozenset({"InstallData", "TargetInstallData", "InstallDataBase", "SubdirInstallData",
                              "InstallEmptyDir", "InstallSymlinkData", "FileMode", "OctalInt", "OptionString"})


def is_meson(build: Path) -> bool:
    """Whether ``build`` is a build folder meson wrote."""
    return (build / "meson-info").is_dir() or (build / "meson-private").is_dir()


def meson_folders(build: Path) -> list[str] | None:
    """The absolute folders meson's build folder ``build`` installs below (``None``: a record
    not of the form read here, or a folder not absolute)."""
    if not _only_copies(build):
        return None
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


def _only_copies(build: Path) -> bool:
    """Whether ``build``'s install data names only the classes of what is copied (no script)."""
    classes = pickled_classes(read_record_bytes(build / "meson-private" / "install.dat"))
    return classes is not None and all(module.startswith("mesonbuild.") and name in _INSTALL_CLASSES
                                       for module, name in classes)

"""Where bare ``pytest`` (no operands) collects: the ``testpaths`` of the settings file it finds,
when that file is in the folder it runs in (pytest uses ``testpaths`` only from its rootdir);
otherwise the folder it runs in, with every folder under it.

Read as pytest 8-9 finds its settings file: in the folder and then each folder above, the first
of ``pytest.ini``, ``.pytest.ini``, ``pyproject.toml``, ``tox.ini``, ``setup.cfg`` that holds
pytest's settings. Anything not understood (a file that does not parse, ``addopts`` that may
add operands, a glob in ``testpaths``, testpaths none of which exists) gives ``None``: the
folder it runs in, all of it.
"""

from __future__ import annotations

import configparser
import shlex
import tomllib
from pathlib import Path

#: pytest's settings files in the order it tries them in one folder, with their section.
SETTINGS_FILES = (("pytest.ini", "pytest"), (".pytest.ini", "pytest"), ("pyproject.toml", None),
                  ("tox.ini", "pytest"), ("setup.cfg", "tool:pytest"))
_GLOB = frozenset("*?[")


class NotUnderstood(Exception):
    """A settings file whose pytest settings are not read here."""


#: What reading pytest's settings files may raise: the file is then not understood.
READ_ERRORS = (OSError, UnicodeDecodeError, ValueError, configparser.Error, tomllib.TOMLDecodeError, NotUnderstood)


def testpaths(cwd: Path) -> list[str] | None:
    """The folders bare ``pytest`` run from ``cwd`` collects, relative to it, or ``None`` when
    they are not known to be fewer than ``cwd`` and every folder under it."""
    try:
        for folder in (cwd, *cwd.parents):
            for name, section in SETTINGS_FILES:
                path = folder / name
                if not path.is_file():
                    continue
                found = settings_in(path, section)
                if found is None:
                    continue
                if folder != cwd or "addopts" in found:
                    return None
                return _existing(cwd, _paths(found.get("testpaths")))
    except READ_ERRORS:
        return None
    return None


def settings_in(path: Path, section: str | None) -> dict[str, object] | None:
    """pytest's settings in ``path`` (``None``: the file holds none, pytest looks on); raises
    one of ``READ_ERRORS`` when they are not understood."""
    if section is None:
        tool = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {})
        pytest = tool.get("pytest") if isinstance(tool, dict) else None
        if pytest is None:
            return None
        if not isinstance(pytest, dict) or set(pytest) - {"ini_options"}:
            raise NotUnderstood  # pytest 9's own [tool.pytest] settings: not read here
        options = pytest.get("ini_options", {})
        if not isinstance(options, dict):
            raise NotUnderstood
        return options
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(path.read_text(encoding="utf-8"))
    if parser.has_section(section):
        return dict(parser.items(section))
    # A pytest.ini (and .pytest.ini) is pytest's even without a [pytest] section.
    return {} if path.name in ("pytest.ini", ".pytest.ini") else None


def _existing(cwd: Path, paths: list[str] | None) -> list[str] | None:
    """pytest collects the testpaths that exist; when none does, it collects the folder it runs
    in after all."""
    found = [p for p in paths or () if (cwd / p).exists()]
    return found or None


def _paths(value: object) -> list[str] | None:
    if isinstance(value, str):
        words = shlex.split(value)
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        words = list(value)
    else:
        return None
    if not words or any(_GLOB & set(w) for w in words):
        return None
    return words

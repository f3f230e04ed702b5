"""Where a tool's own settings file (yours) moves the home folder's places of the protected list.

``moved`` reads the variables that move a place; a tool's settings file moves the same places
without any variable: after ``go env -w GOMODCACHE=~/work/gomodcache`` (written to
``~/.config/go/env``) every later ``go build`` builds the modules unpacked there as it finds them.
Each file is read here as its tool reads it, and each value it gives becomes that of the variable
the tool takes for the same setting (``cache=`` in ``~/.npmrc`` is ``npm_config_cache``), so that
``moved`` places it exactly as it places the variable: ``~``, relative values, protection in every
workspace. A setting with no variable has a row of its own (``MOVERS``).

A file that cannot be read or parsed moves nothing: its tool cannot read it either (cargo, pip
and Maven stop on it, RubyGems warns and ignores it; go and npm skip the lines they do not
understand, as this does), so the tool keeps the default place, which stays protected. What this
reads less than its tool does is left out, not guessed (docs/sandbox.md says so): a value left to
an interpolation it does not know (Maven's ``${some.property}``), YAML beyond a plain value or list
in ``~/.gemrc`` (the standard library has no YAML parser).
"""

from __future__ import annotations

import configparser
import os
import re
import tomllib
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable, Mapping, Sequence

from echo_desk.sandbox import gitconfig, moved

#: Settings files are small: more than this is not read (what is past it moves nothing).
MAX_BYTES = 256 * 1024

#: Settings that no variable moves, under the name the tool gives them (a name no variable has).
MOVERS: tuple[moved.Mover, ...] = (
    *moved.MOVERS,
    # Maven's local repository (``-Dmaven.repo.local=`` on a command line only).
    moved.Mover("maven localRepository", ".m2/repository"),
)

#: go env -w's file: the keys that move a place of the list (go reads the others too).
_GO_KEYS = ("GOPATH", "GOMODCACHE", "GOBIN", "GOCACHE")
#: npm's settings file: the key and the variable that sets the same (``npm_config_<key>``).
_NPM_KEYS = {"cache": "npm_config_cache", "prefix": "npm_config_prefix"}


def places(home: str, environs: Sequence[Mapping[str, str]]) -> list[moved.Place]:
    """Where the settings files of ``home`` (the real home folder), and those the variables of
    ``environs`` name in its stead, move the list's places."""
    found: list[dict[str, str]] = []
    for read in (_go, _npm, _pip, _cargo, _maven, _gem):
        found += ({name: value} for name, value in read(home, environs))
    return moved.places(home, found, MOVERS) if found else []


def _named(environs: Iterable[Mapping[str, str]], *variables: str) -> list[str]:
    """The absolute values of ``variables`` (a relative one names a file below wherever the tool
    runs: not read, as the settings file in a workspace it would be is protected)."""
    return [v for name in variables for v in moved.values(environs, name, False) if v.startswith("/")]


def _text(path: str) -> str | None:
    data = gitconfig.read_regular(path, MAX_BYTES)
    return None if data is None else data.decode("utf-8", "replace")


def _go(home: str, environs: Sequence[Mapping[str, str]]) -> list[tuple[str, str]]:
    """go's ``env`` file: ``GOENV``'s, else the one in ``os.UserConfigDir()`` (``XDG_CONFIG_HOME``,
    else ``~/.config``). Read as go 1.19's ``initEnvCache`` does: ``KEY=value`` lines whose key
    starts with a capital letter, the value as it is (not trimmed); each value counts, not only
    the last (a variable of the same name wins over the file: ``moved`` has it already)."""
    files = [f for f in _named(environs, "GOENV") if f != "off"]
    files += [f"{folder}/go/env" for folder in [*_named(environs, "XDG_CONFIG_HOME"), f"{home}/.config"]]
    found: list[tuple[str, str]] = []
    for text in filter(None, map(_text, dict.fromkeys(files))):
        for line in text.split("\n"):
            key, equals, value = line.partition("=")
            if equals and key in _GO_KEYS:
                found.append((key, value))
    return found


def _npm(home: str, environs: Sequence[Mapping[str, str]]) -> list[tuple[str, str]]:
    """npm's user settings (``npm_config_userconfig``'s file, else ``~/.npmrc``): ``key = value``
    lines of an ini file (npm's ``ini``: ``;`` and ``#`` start a comment, a value may be quoted).
    A key in a ``[section]`` counts too (npm ignores it there: protecting it costs nothing).
    npm replaces ``${VAR}`` in a value: with each of ``environs``' values."""
    files = [*_named(environs, "npm_config_userconfig", "NPM_CONFIG_USERCONFIG"), f"{home}/.npmrc"]
    found: list[tuple[str, str]] = []
    for text in filter(None, map(_text, dict.fromkeys(files))):
        for line in text.splitlines():
            key, equals, value = line.partition("=")
            variable = _NPM_KEYS.get(key.strip())
            if not equals or variable is None or line.lstrip()[:1] in (";", "#"):
                continue
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            found += ((variable, v) for v in _expanded(value, environs))
    return found


_NPM_VARIABLE = re.compile(r"(?<!\\)\$\{([^${}]+)\}")


def _expanded(value: str, environs: Sequence[Mapping[str, str]]) -> list[str]:
    """``value`` with npm's ``${VAR}`` replaced by each environment's value ('' when unset, as npm
    leaves it: then the value is kept as written, which names nothing more)."""
    if not _NPM_VARIABLE.search(value):
        return [value]
    return list(dict.fromkeys(_substituted(_NPM_VARIABLE, value, e) for e in environs))


def _substituted(pattern: re.Pattern[str], value: str, known: Mapping[str, str]) -> str:
    """``value`` with each match of ``pattern`` whose name ``known`` has a value replaced by it."""
    return pattern.sub(lambda m: known.get(m.group(1)) or m.group(0), value)


def _pip(home: str, environs: Sequence[Mapping[str, str]]) -> list[tuple[str, str]]:
    """pip's settings files (``PIP_CONFIG_FILE``'s, the user's under ``XDG_CONFIG_HOME`` or
    ``~/.config`` and the older ``~/.pip``, the site's under ``XDG_CONFIG_DIRS`` and ``/etc``),
    read as pip reads them (``RawConfigParser``: a file it cannot parse stops pip): ``cache-dir``
    (or ``cache_dir``, ``--cache-dir``) in any section, each of which pip reads for some command.
    (A virtual environment's own ``pip.conf`` is not the person's: not read.)"""
    user = [*_named(environs, "XDG_CONFIG_HOME"), f"{home}/.config"]
    site = [d for e in environs for d in (e.get("XDG_CONFIG_DIRS") or "").split(":") if d.startswith("/")]
    files = [*_named(environs, "PIP_CONFIG_FILE"), *(f"{d}/pip/pip.conf" for d in [*user, *site, "/etc/xdg"]),
             f"{home}/.pip/pip.conf", "/etc/pip.conf"]
    found: list[tuple[str, str]] = []
    for text in filter(None, map(_text, dict.fromkeys(files))):
        parser = configparser.RawConfigParser()
        try:
            parser.read_string(text)
        except configparser.Error:
            continue
        for section in parser.sections():
            for key, value in parser.items(section):
                if key.replace("_", "-").removeprefix("--") == "cache-dir" and value:  # (as pip's _normalize_name)
                    found.append(("PIP_CACHE_DIR", value))
    return found


def _cargo(home: str, environs: Sequence[Mapping[str, str]]) -> list[tuple[str, str]]:
    """cargo's settings in its home (``CARGO_HOME``, else ``~/.cargo``): ``install.root``, where
    ``cargo install`` puts programs (``bin/``, on PATH). A relative value is relative to the
    folder the settings' folder is in, as cargo takes it."""
    found: list[tuple[str, str]] = []
    for folder in dict.fromkeys([*_named(environs, "CARGO_HOME"), f"{home}/.cargo"]):
        for name in ("config.toml", "config"):
            text = _text(f"{folder}/{name}")
            try:
                root = tomllib.loads(text).get("install", {}).get("root") if text else None
            except (tomllib.TOMLDecodeError, AttributeError):
                continue  # (cargo stops on it)
            if isinstance(root, str) and root:
                found.append(("CARGO_INSTALL_ROOT", os.path.join(os.path.dirname(folder), root)))
    return found


_MAVEN_PROPERTY = re.compile(r"\$\{([^}]*)\}")


def _maven(home: str, environs: Sequence[Mapping[str, str]]) -> list[tuple[str, str]]:
    """Maven's user settings (``~/.m2/settings.xml``): ``<localRepository>``, with the
    ``${user.home}`` and ``${env.NAME}`` it interpolates (another property names no place)."""
    text = _text(f"{home}/.m2/settings.xml")
    if not text:
        return []
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError:
        return []  # (Maven stops on it)
    found: list[tuple[str, str]] = []
    for element in root:
        value = (element.text or "").strip()
        if element.tag.rpartition("}")[2] != "localRepository" or not value:
            continue
        for environ in environs:
            known = {"user.home": home, **{f"env.{k}": v for k, v in environ.items()}}
            resolved = _substituted(_MAVEN_PROPERTY, value, known)
            if "${" not in resolved:
                found.append(("maven localRepository", resolved))
    return found


#: A plain YAML value, quoted or not, and a comment after it: no anchor, alias, tag, block or flow
#: mapping, not a multi-line string.
_YAML_PLAIN = re.compile(r"""(?:"([^"\\]*)"|'([^']*)'|([^\s&*!|>{\[#"'].*?))(?:\s+#.*)?""")


def _gem(home: str, environs: Sequence[Mapping[str, str]]) -> list[tuple[str, str]]:
    """RubyGems' settings (``~/.gemrc``, ``/etc/gemrc`` and each file of ``GEMRC``, a ``:``
    list): ``gemhome`` and ``gempath`` (a plain value, a ``[a, b]`` list or ``- a`` lines
    below the key), where every ``gem`` command installs and looks for gems (the programs of
    their ``bin/``). No YAML parser in the standard library: a value written otherwise (an anchor,
    a block string) names no place here (docs/sandbox.md says so)."""
    files = [f for f in moved.values(environs, "GEMRC", True) if f.startswith("/")]
    found: list[tuple[str, str]] = []
    for text in filter(None, map(_text, dict.fromkeys([f"{home}/.gemrc", "/etc/gemrc", *files]))):
        key = ""
        for line in text.splitlines():
            if key and line.lstrip().startswith("- ") and line[:1].isspace():
                found += _gem_values(key, line.lstrip()[2:])
                continue
            name, colon, value = line.partition(":") if not line.startswith(":") else line[1:].partition(":")
            key = {"gemhome": "GEM_HOME", "gempath": "GEM_PATH"}.get(name, "") if colon else ""
            if key and value.strip().startswith("[") and value.strip().endswith("]"):
                for item in value.strip()[1:-1].split(","):
                    found += _gem_values(key, item)
            elif key:
                found += _gem_values(key, value)
    return found


def _gem_values(variable: str, value: str) -> list[tuple[str, str]]:
    """``value`` (a plain YAML scalar) unquoted; none when it is empty or not plain."""
    plain = _YAML_PLAIN.fullmatch(value.strip())
    found = next((g for g in plain.groups() if g), "") if plain else ""
    return [(variable, found)] if found else []

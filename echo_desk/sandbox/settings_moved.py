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
import time
import tomllib
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Iterable, Mapping, Sequence

from echo_desk.sandbox import gitconfig, moved

#: Settings files are small: more than this is not read (what is past it moves nothing).
MAX_BYTES = 256 * 1024

#: ``moved``'s table, and the settings no variable moves, under the name the tool gives them (a
#: name no variable has, so that the environment never sets it).
MOVERS: tuple[moved.Mover, ...] = (
    *moved.MOVERS,
    # Maven's local repository (else only ``-Dmaven.repo.local=``, in a command line or MAVEN_OPTS: not read).
    moved.Mover("maven localRepository", ".m2/repository"),
)

#: go env -w's file: the keys that move a place of the list (go reads the others too).
_GO_KEYS = ("GOPATH", "GOMODCACHE", "GOBIN", "GOCACHE")
#: npm's settings file: the key and the variable that sets the same (``npm_config_<key>``).
_NPM_KEYS = {"cache": "npm_config_cache", "prefix": "npm_config_prefix"}
#: RubyGems' settings: the key and the variable that sets the same.
_GEM_KEYS = {"gemhome": "GEM_HOME", "gempath": "GEM_PATH"}

#: What a file gives: (variable, value as written) pairs.
_Pairs = tuple[tuple[str, str], ...]


def places(home: str, environs: Sequence[Mapping[str, str]]) -> list[moved.Place]:
    """Where the settings files of ``home`` (the real home folder), and those the variables of
    ``environs`` name in its stead, move the list's places."""
    found: list[dict[str, str]] = []
    for read in (_go, _npm, _pip, _cargo, _maven, _gem):
        found += ({name: value} for name, value in read(home, environs))
    return moved.places(home, found, MOVERS) if found else []


def _named(environs: Iterable[Mapping[str, str]], *variables: str, listed: bool = False) -> list[str]:
    """The absolute values of ``variables`` (a relative one names a file below wherever the tool
    runs: not read, as the settings file in a workspace it would be is protected)."""
    return [v for name in variables for v in moved.values(environs, name, listed) if v.startswith("/")]


#: A file read less than this after it last changed is read again next time (as ``gitconfig``).
_RACY_NS = 2_000_000_000
_MAX_CACHED = 1000
_parsed: dict[tuple[str, str], tuple[tuple[int, ...], _Pairs]] = {}


def _read(files: Iterable[str], parse: Callable[[str], _Pairs]) -> list[tuple[str, str]]:
    """What ``parse`` finds in each of ``files`` that is a regular file (read once each; kept
    per file until it changes: its size, times or inode). A command runs twice a check of these
    (before and after it), and the system's ``pip.conf`` is read for every one."""
    found: list[tuple[str, str]] = []
    for path in dict.fromkeys(files):
        try:
            st = os.stat(path)
        except OSError:
            continue
        stamp = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        known = _parsed.get((path, parse.__name__))
        if known is None or known[0] != stamp or time.time_ns() - st.st_ctime_ns <= _RACY_NS:
            data = gitconfig.read_regular(path, MAX_BYTES)
            known = (stamp, parse(data.decode("utf-8", "replace")) if data is not None else ())
            if len(_parsed) > _MAX_CACHED:
                _parsed.clear()
            _parsed[(path, parse.__name__)] = known
        found += known[1]
    return found


def _go(home: str, environs: Sequence[Mapping[str, str]]) -> list[tuple[str, str]]:
    """go's ``env`` file: ``GOENV``'s, else the one in ``os.UserConfigDir()`` (``XDG_CONFIG_HOME``,
    else ``~/.config``); each value counts, not only the last (a variable of the same name wins
    over the file: ``moved`` has it already)."""
    files = [f for f in _named(environs, "GOENV") if f != "off"]
    files += [f"{folder}/go/env" for folder in [*_named(environs, "XDG_CONFIG_HOME"), f"{home}/.config"]]
    return _read(files, _go_env)


def _go_env(text: str) -> _Pairs:
    """As go 1.19's ``initEnvCache`` reads it: ``KEY=value`` lines, the value as it is (not trimmed)."""
    return tuple((key, value) for key, equals, value in (line.partition("=") for line in text.split("\n"))
                 if equals and key in _GO_KEYS)


def _npm(home: str, environs: Sequence[Mapping[str, str]]) -> list[tuple[str, str]]:
    """npm's user settings (``npm_config_userconfig``'s file, else ``~/.npmrc``). npm replaces
    ``${VAR}`` in a value: with each of ``environs``' values."""
    files = [*_named(environs, "npm_config_userconfig", "NPM_CONFIG_USERCONFIG"), f"{home}/.npmrc"]
    return [(variable, v) for variable, value in _read(files, _npmrc) for v in _expanded(value, environs)]


def _npmrc(text: str) -> _Pairs:
    """``key = value`` lines of an ini file (npm's ``ini``: ``;`` and ``#`` start a comment, a
    value may be quoted). A key in a ``[section]`` counts too (npm ignores it there: protecting
    it costs nothing)."""
    found: list[tuple[str, str]] = []
    for line in text.splitlines():
        key, equals, value = line.partition("=")
        variable = _NPM_KEYS.get(key.strip())
        if not equals or variable is None or line.lstrip()[:1] in (";", "#"):
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        found.append((variable, value))
    return tuple(found)


_NPM_VARIABLE = re.compile(r"(?<!\\)\$\{([^${}]+)\}")


def _expanded(value: str, environs: Sequence[Mapping[str, str]]) -> list[str]:
    """``value`` with npm's ``${VAR}`` replaced by each environment's value (kept as written when
    unset, as npm leaves it: then it names nothing more)."""
    if not _NPM_VARIABLE.search(value):
        return [value]
    return list(dict.fromkeys(_substituted(_NPM_VARIABLE, value, e) for e in environs))


def _substituted(pattern: re.Pattern[str], value: str, known: Mapping[str, str]) -> str:
    """``value`` with each match of ``pattern`` whose name ``known`` has a value replaced by it."""
    return pattern.sub(lambda m: known.get(m.group(1)) or m.group(0), value)


def _pip(home: str, environs: Sequence[Mapping[str, str]]) -> list[tuple[str, str]]:
    """pip's settings files: ``PIP_CONFIG_FILE``'s, the user's under ``XDG_CONFIG_HOME`` or
    ``~/.config`` and the older ``~/.pip``, the site's under ``XDG_CONFIG_DIRS`` and ``/etc``.
    (A virtual environment's own ``pip.conf`` is not the person's: not read.)"""
    user = [*_named(environs, "XDG_CONFIG_HOME"), f"{home}/.config"]
    site = _named(environs, "XDG_CONFIG_DIRS", listed=True)
    files = [*_named(environs, "PIP_CONFIG_FILE"), *(f"{d}/pip/pip.conf" for d in [*user, *site, "/etc/xdg"]),
             f"{home}/.pip/pip.conf", "/etc/pip.conf"]
    return _read(files, _pip_conf)


def _pip_conf(text: str) -> _Pairs:
    """As pip reads it (``RawConfigParser``: a file it cannot parse stops pip): ``cache-dir`` (or
    ``cache_dir``, ``--cache-dir``, as pip's ``_normalize_name``) in any section, each of which
    pip reads for some command."""
    parser = configparser.RawConfigParser()
    try:
        parser.read_string(text)
    except configparser.Error:
        return ()
    return tuple(("PIP_CACHE_DIR", value) for section in parser.sections() for key, value in parser.items(section)
                 if key.replace("_", "-").removeprefix("--") == "cache-dir" and value)


def _cargo(home: str, environs: Sequence[Mapping[str, str]]) -> list[tuple[str, str]]:
    """cargo's settings in its home (``CARGO_HOME``, else ``~/.cargo``): ``install.root``, where
    ``cargo install`` puts programs (``bin/``, on PATH). A relative value is relative to the
    folder the settings' folder is in, as cargo takes it."""
    return [(variable, os.path.join(os.path.dirname(folder), root))
            for folder in dict.fromkeys([*_named(environs, "CARGO_HOME"), f"{home}/.cargo"])
            for variable, root in _read([f"{folder}/config.toml", f"{folder}/config"], _cargo_config)]


def _cargo_config(text: str) -> _Pairs:
    try:
        install = tomllib.loads(text).get("install")
    except tomllib.TOMLDecodeError:
        return ()  # (cargo stops on it)
    root = install.get("root") if isinstance(install, dict) else None
    return (("CARGO_INSTALL_ROOT", root),) if isinstance(root, str) and root else ()


_MAVEN_PROPERTY = re.compile(r"\$\{([^}]*)\}")


def _maven(home: str, environs: Sequence[Mapping[str, str]]) -> list[tuple[str, str]]:
    """Maven's user settings (``~/.m2/settings.xml``): ``<localRepository>``, with the
    ``${user.home}`` and ``${env.NAME}`` it interpolates (another property names no place)."""
    found: list[tuple[str, str]] = []
    for variable, value in _read([f"{home}/.m2/settings.xml"], _maven_settings):
        for environ in environs:
            known = {"user.home": home, **{f"env.{k}": v for k, v in environ.items()}}
            resolved = _substituted(_MAVEN_PROPERTY, value, known)
            if "${" not in resolved:
                found.append((variable, resolved))
    return found


def _maven_settings(text: str) -> _Pairs:
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError:
        return ()  # (Maven stops on it)
    values = ((element.tag.rpartition("}")[2], (element.text or "").strip()) for element in root)
    return tuple(("maven localRepository", value) for tag, value in values if tag == "localRepository" and value)


def _gem(home: str, environs: Sequence[Mapping[str, str]]) -> list[tuple[str, str]]:
    """RubyGems' settings (``~/.gemrc``, ``/etc/gemrc`` and each file of ``GEMRC``, a ``:``
    list): ``gemhome`` and ``gempath``, where every ``gem`` command installs and looks for gems
    (the programs of their ``bin/``)."""
    return _read([f"{home}/.gemrc", "/etc/gemrc", *_named(environs, "GEMRC", listed=True)], _gemrc)


#: A plain YAML value, quoted or not, and a comment after it: no anchor, alias, tag, block or flow
#: mapping, not a multi-line string.
_YAML_PLAIN = re.compile(r"""(?:"([^"\\]*)"|'([^']*)'|([^\s&*!|>{\[#"'].*?))(?:\s+#.*)?""")


def _gemrc(text: str) -> _Pairs:
    """A top-level key's plain value, ``[a, b]`` list or ``- a`` lines below it. No YAML parser
    in the standard library: a value written otherwise (an anchor, a block string) names no
    place here (docs/sandbox.md says so)."""
    found: list[tuple[str, str]] = []
    key = ""
    for line in text.splitlines():
        if key and line[:1].isspace() and line.lstrip().startswith("- "):
            found += _gem_values(key, line.lstrip()[2:])
            continue
        name, colon, value = line.removeprefix(":").partition(":")
        key = _GEM_KEYS.get(name, "") if colon else ""
        value = value.strip()
        items = value[1:-1].split(",") if value.startswith("[") and value.endswith("]") else [value]
        for item in items if key else ():
            found += _gem_values(key, item)
    return tuple(found)


def _gem_values(variable: str, value: str) -> list[tuple[str, str]]:
    """``value`` (a plain YAML scalar) unquoted; none when it is empty or not plain."""
    plain = _YAML_PLAIN.fullmatch(value.strip())
    found = next((g for g in plain.groups() if g), "") if plain else ""
    return [(variable, found)] if found else []

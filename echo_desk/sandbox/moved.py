"""Where the person's environment moves the home folder's places of the protected list, and
those of the hidden list (``paths.HIDDEN_IN_HOME``).

``runs_code`` names each place where a tool keeps it by default (``~/.cargo/registry``,
``~/.config/nvim``, ``~/go/pkg``). A variable moves it: with ``CARGO_HOME=~/work/.cargo`` cargo
builds the crates unpacked in ``~/work/.cargo/registry``, with ``XDG_CONFIG_HOME=~/work/cfg`` Neovim
runs ``~/work/cfg/nvim/init.lua``. Such a place inside a workspace is protected as the entry is at
its default (which stays protected too: a program started without the variable still reads it).

The values are those of Echo Desk's own environment (what it got from your session, as the
programs you start later do) and of the one it gives the command. A value that names no place on
its own fails closed: a relative one (the tool reads it from the folder it runs in: cargo, for
``CARGO_HOME=.cargo-home``) stands for that path below every folder of the workspace the search
for repositories reads; ``~/...`` and ``~user/...`` (which some tools expand and others take as
a folder named ``~`` or ``~user``) for both. An empty one is the default (every tool here takes it so).

A hidden place is hidden where a variable moves it (``GNUPGHOME=~/keys/gnupg``: gpg's private
keys; ``KUBECONFIG``: the cluster credentials), inside a workspace too, and at its default still.
``hidden`` says where; a relative value is taken from the home folder (where a terminal starts)
and from every folder of the workspace the search read (``launch``).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from echo_desk.sandbox import runs_code
from echo_desk.sandbox.paths import HIDDEN_IN_HOME


class Mover(NamedTuple):
    """``variable``'s value (each of them, a ``:`` list when ``listed``), joined with ``under``,
    is where the tool keeps what is ``default`` in the home folder. ``file``: it names a file.
    ``system``: a list of system-wide folders read after the person's own (``XDG_DATA_DIRS``:
    ``/usr/share``): what runs from there is protected, but no secret of the person's is kept
    there, so it hides nothing (``/usr/share/keyrings`` holds the packages' public keys).
    ``beside``: ``under`` lies beside the file the value names, in its folder (huggingface_hub
    keeps ``stored_tokens`` in the folder of ``HF_TOKEN_PATH``'s token, wherever that is).
    ``expands``: the tool replaces ``$VAR`` and ``${VAR}`` in the value with its own environment's
    (Python's ``os.path.expandvars``); the others take a ``$`` as it is."""

    variable: str
    default: str
    under: str = ""
    listed: bool = False
    file: bool = False
    system: bool = False
    beside: bool = False
    expands: bool = False


def _same(default: str, *variables: str, listed: bool = False, file: bool = False) -> tuple[Mover, ...]:
    return tuple(Mover(v, default, listed=listed, file=file) for v in variables)


#: The variables the tools read for the places of the list (each tool's documentation).
MOVERS: tuple[Mover, ...] = (
    # The XDG base directories (the specification): every entry under ~/.config, ~/.local/share
    # and ~/.cache; the session also reads autostart/, systemd/ and environment.d/ of each folder
    # of XDG_CONFIG_DIRS, and applications/, dbus-1/services/, systemd/ of XDG_DATA_DIRS (Flatpak's
    # own user folder is first on it).
    Mover("XDG_CONFIG_HOME", ".config"),
    Mover("XDG_DATA_HOME", ".local/share"),
    Mover("XDG_CACHE_HOME", ".cache"),
    Mover("XDG_CONFIG_DIRS", ".config", listed=True, system=True),
    Mover("XDG_DATA_DIRS", ".local/share", listed=True, system=True),
    # Rust.
    Mover("CARGO_HOME", ".cargo"),
    Mover("CARGO_INSTALL_ROOT", ".cargo/bin", "bin"),
    Mover("RUSTUP_HOME", ".rustup"),
    # Go: the module cache, installed programs, the build cache, go env -w's file.
    Mover("GOPATH", "go", listed=True),
    Mover("GOMODCACHE", "go/pkg/mod"),
    Mover("GOBIN", "go/bin"),
    Mover("GOCACHE", ".cache/go-build"),
    Mover("GOENV", ".config/go/env", file=True),
    # Java, JavaScript, .NET, Dart.
    Mover("GRADLE_USER_HOME", ".gradle"),
    *_same(".npm", "npm_config_cache", "NPM_CONFIG_CACHE"),
    # npm's global prefix: its bin/ is on PATH, its lib/node_modules/ what those programs run. No
    # default in the home folder (the system's), so it is placed as a tool's own folder is (~/.nvm).
    *_same(".nvm", "npm_config_prefix", "NPM_CONFIG_PREFIX"),
    *_same(".npmrc", "npm_config_userconfig", "NPM_CONFIG_USERCONFIG", file=True),
    Mover("PNPM_HOME", ".local/share/pnpm"),
    Mover("YARN_CACHE_FOLDER", ".cache/yarn"),
    Mover("VOLTA_HOME", ".volta"),
    Mover("NVM_DIR", ".nvm"),
    Mover("NODENV_ROOT", ".nodenv"),
    Mover("FNM_DIR", ".local/share/fnm"),
    Mover("BUN_INSTALL", ".bun"),
    Mover("DENO_INSTALL", ".deno"),
    Mover("DENO_DIR", ".cache/deno"),
    Mover("NUGET_PACKAGES", ".nuget/packages"),
    Mover("PUB_CACHE", ".pub-cache"),
    Mover("SDKMAN_DIR", ".sdkman"),
    # Python: the user site-packages (lib/) and its programs (bin/), pip's and uv's caches and
    # settings, pyenv, pipx, uv's tools and Pythons, virtualenv's unpacked seeds, pre-commit's hooks.
    Mover("PYTHONUSERBASE", ".local/lib", "lib"),
    Mover("PYTHONUSERBASE", ".local/bin", "bin"),
    Mover("PIP_CACHE_DIR", ".cache/pip"),
    Mover("PIP_CONFIG_FILE", ".config/pip/pip.conf", file=True),
    Mover("UV_CACHE_DIR", ".cache/uv"),
    Mover("UV_TOOL_DIR", ".local/share/uv/tools"),
    Mover("UV_PYTHON_INSTALL_DIR", ".local/share/uv/python"),
    Mover("UV_TOOL_BIN_DIR", ".local/bin"),
    Mover("PYENV_ROOT", ".pyenv"),
    Mover("PIPX_HOME", ".local/share/pipx"),
    Mover("PIPX_BIN_DIR", ".local/bin"),
    Mover("VIRTUALENV_OVERRIDE_APP_DATA", ".local/share/virtualenv"),
    Mover("PRE_COMMIT_HOME", ".cache/pre-commit"),
    Mover("PLAYWRIGHT_BROWSERS_PATH", ".cache/ms-playwright"),
    Mover("CONDARC", ".condarc", file=True),
    Mover("IPYTHONDIR", ".ipython"),
    # Other languages' versions and packages.
    Mover("RBENV_ROOT", ".rbenv"),
    *_same(".gem", "GEM_HOME", "GEM_PATH", listed=True),
    Mover("ASDF_DATA_DIR", ".asdf"),
    Mover("MISE_DATA_DIR", ".local/share/mise"),
    Mover("MISE_CONFIG_DIR", ".config/mise"),
    Mover("CABAL_DIR", ".cabal"),
    Mover("STACK_ROOT", ".stack"),
    Mover("JULIA_DEPOT_PATH", ".julia", listed=True),
    Mover("OPAMROOT", ".opam"),
    Mover("COMPOSER_HOME", ".config/composer"),
    # Start-up files named by a variable: zsh's (ZDOTDIR), git's, readline's, psql's, wget's,
    # curl's (CURL_HOME/.curlrc), less's, R's; coding agents' folders.
    *(Mover("ZDOTDIR", name, name) for name in (".zshenv", ".zprofile", ".zshrc", ".zlogin", ".zlogout")),
    Mover("GIT_CONFIG_GLOBAL", ".gitconfig", file=True),
    # ccache: its folder (settings and cache) and its settings file (ccache's manual, "Location of
    # the configuration file").
    Mover("CCACHE_DIR", ".ccache"),
    Mover("CCACHE_CONFIGPATH", ".config/ccache/ccache.conf", file=True),
    Mover("INPUTRC", ".inputrc", file=True),
    Mover("PSQLRC", ".psqlrc", file=True),
    Mover("WGETRC", ".wgetrc", file=True),
    Mover("CURL_HOME", ".curlrc", ".curlrc"),
    Mover("LESSKEYIN", ".lesskey", file=True),
    Mover("LESSKEY", ".less", file=True),
    Mover("R_PROFILE_USER", ".Rprofile", file=True),
    Mover("R_ENVIRON_USER", ".Renviron", file=True),
    Mover("CLAUDE_CONFIG_DIR", ".claude"),
    Mover("CODEX_HOME", ".codex"),
    # Where keys and credentials of the hidden list are kept instead (each tool's documentation;
    # CARGO_HOME, NPM_CONFIG_USERCONFIG, the XDG folders and the agents' above move some too).
    # gpg(1) ENVIRONMENT; pass(1) ENVIRONMENT VARIABLES; docker's CLI reference ("Environment
    # variables"); kubectl's "Organizing cluster access using kubeconfig files" (a ':' list of
    # files); the AWS CLI's "Environment variables to configure the AWS CLI".
    Mover("GNUPGHOME", ".gnupg"),
    Mover("PASSWORD_STORE_DIR", ".password-store"),
    Mover("DOCKER_CONFIG", ".docker"),
    Mover("KUBECONFIG", ".kube/config", listed=True, file=True),
    # botocore's ``raw_config_parse`` (the AWS CLI's too) reads both files at
    # ``expanduser(expandvars(value))``.
    Mover("AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials", file=True, expands=True),
    Mover("AWS_CONFIG_FILE", ".aws/config", file=True, expands=True),
    # gcloud's "gcloud topic configurations" (CLOUDSDK_CONFIG) and Google's "How Application
    # Default Credentials works" (a key file); Azure CLI's "CLI configuration" (AZURE_CONFIG_DIR);
    # gh's "gh help environment"; hub(1); 1Password CLI's "environment variables"; podman's
    # containers-auth.json(5); Terraform's "CLI Configuration File"; boto's "Boto Config";
    # Databricks' "configuration profiles"; the OCI CLI's "CLI Environment Variables".
    Mover("CLOUDSDK_CONFIG", ".config/gcloud"),
    Mover("GOOGLE_APPLICATION_CREDENTIALS", ".config/gcloud/application_default_credentials.json", file=True),
    Mover("AZURE_CONFIG_DIR", ".azure"),
    Mover("GH_CONFIG_DIR", ".config/gh"),
    Mover("HUB_CONFIG", ".config/hub", file=True),
    Mover("OP_CONFIG_DIR", ".config/op"),
    Mover("REGISTRY_AUTH_FILE", ".config/containers/auth.json", file=True),
    Mover("TF_CLI_CONFIG_FILE", ".terraformrc", file=True),
    Mover("BOTO_CONFIG", ".boto", file=True),
    Mover("DATABRICKS_CONFIG_FILE", ".databrickscfg", file=True),
    Mover("OCI_CLI_CONFIG_FILE", ".oci/config", file=True),
    # inetutils' ftp(1) and libcurl (8.16 on) read NETRC; libpq's "The Password File"
    # (PGPASSFILE); MySQL's mysql_config_editor (MYSQL_TEST_LOGIN_FILE, read by its clients);
    # rclone's "--config"; sops' "Encrypting using age" (SOPS_AGE_KEY_FILE); huggingface_hub's
    # "Environment variables" (the token in $HF_HOME, or at HF_TOKEN_PATH); Chromium's "User Data
    # Directory" (CHROME_CONFIG_HOME stands for ~/.config for Chrome and Chromium).
    Mover("NETRC", ".netrc", file=True),
    Mover("PGPASSFILE", ".pgpass", file=True),
    Mover("MYSQL_TEST_LOGIN_FILE", ".mylogin.cnf", file=True),
    Mover("RCLONE_CONFIG", ".config/rclone/rclone.conf", file=True),
    Mover("SOPS_AGE_KEY_FILE", ".config/sops/age/keys.txt", file=True),
    # huggingface_hub's constants read both at ``expandvars(expanduser(value))``.
    Mover("HF_HOME", ".cache/huggingface", expands=True),
    # huggingface_hub's constants: HF_STORED_TOKENS_PATH is os.path.join(os.path.dirname(HF_TOKEN_PATH),
    # "stored_tokens") (every token saved by ``hf auth login``), so HF_TOKEN_PATH moves both files.
    Mover("HF_TOKEN_PATH", ".cache/huggingface/token", file=True, expands=True),
    Mover("HF_TOKEN_PATH", ".cache/huggingface/stored_tokens", "stored_tokens", file=True, beside=True, expands=True),
    *(Mover("CHROME_CONFIG_HOME", f".config/{name}", name) for name in ("google-chrome", "chromium")),
)

#: The variables of ``MOVERS`` (the environment is looked up once each).
VARIABLES = tuple(dict.fromkeys(m.variable for m in MOVERS))
_VARIABLE_SET = frozenset(VARIABLES)
#: Those whose tool expands the variables named in the value (``Mover.expands``).
_EXPANDED = frozenset(m.variable for m in MOVERS if m.expands)
#: What ``os.path.expandvars`` replaces (posixpath's own pattern).
_NAMED_VARIABLE = re.compile(r"\$(\w+|\{[^}]*\})", re.ASCII)


def _moved_by(mover: Mover) -> tuple[tuple[str, runs_code.Entry], ...]:
    """The entries ``mover`` moves, each with its path below the variable's place: those at or
    under its default (``.cargo/registry``: ``registry``), and the one its default lies in
    (``GOMODCACHE``'s ``go/pkg/mod`` is in ``go/pkg``: the place itself, '')."""
    found: list[tuple[str, runs_code.Entry]] = []
    if mover.beside:
        return ()  # (only secrets are kept beside a file a variable names: ``hidden``)
    prefix = mover.default + "/"
    for entry in runs_code.ENTRIES:
        if entry.pattern:
            continue
        if entry.path == mover.default:
            found.append((mover.under, entry))
        elif entry.path.startswith(prefix) and not mover.file:
            found.append((f"{mover.under}/{entry.path[len(prefix):]}".lstrip("/"), entry))
        elif entry.folder and mover.default.startswith(entry.path + "/"):
            found.append((mover.under, dataclasses.replace(entry, folder=False) if mover.file else entry))
    return tuple(found)


_MOVED = {m: _moved_by(m) for m in MOVERS}


class Place(NamedTuple):
    """A variable's value (absolute, or ``relative`` to any folder) and the entries it moves,
    each with its path below it. ``system``: a system-wide folder of a search list (``Mover``)."""

    root: str
    moved: tuple[tuple[str, runs_code.Entry], ...]
    relative: bool = False
    system: bool = False


def values(environs: Iterable[Mapping[str, str]], variable: str, listed: bool) -> list[str]:
    """Every non-empty value of ``variable`` (each of a ``:`` list when ``listed``)."""
    found: list[str] = []
    for environ in environs:
        raw = environ.get(variable)
        if not raw:
            continue
        for value in raw.split(":") if listed else [raw]:
            if value and value not in found:
                found.append(value)
    return found


def _set(environs: Iterable[Mapping[str, str]], names: frozenset[str] = _VARIABLE_SET) -> list[dict[str, str]]:
    """The values of ``names`` each environment sets, a value its tool expands (``Mover.expands``)
    expanded with that same environment: it is the one the tool started with it reads."""
    # (Only the names set: ``os.environ.get`` decodes, slow for a hundred names twice a command.)
    return [{name: _expanded(e[name], e) if name in _EXPANDED else e[name] for name in names.intersection(e) if e[name]}
            for e in environs]


def _expanded(value: str, environ: Mapping[str, str]) -> str:
    """``value`` as ``os.path.expandvars`` gives it in ``environ``: ``$NAME`` and ``${NAME}`` of a
    variable it sets replaced (not expanded again), any other left as written. A ``~`` it
    leaves or brings is read as one written so (``_readings``: in the home folder, and as a
    folder named ``~``), whichever of the two the tool expands first."""
    if "$" not in value:
        return value

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name.startswith("{") and name.endswith("}"):
            name = name[1:-1]
        found = environ.get(name)
        return match.group(0) if found is None else found

    return _NAMED_VARIABLE.sub(one, value)


def _readings(home: str, kept: list[dict[str, str]], mover: Mover) -> list[tuple[str, bool]]:
    """Where each value of ``mover``'s variable is, with whether it is relative (to any folder).
    A value starting with ``~`` (``~/x``, ``~user/x``) is read both in that home folder and as a
    folder named so: some tools expand it (gpg, Python's ``expanduser``), others do not (git,
    kubectl, docker; a shell expands it only where it is typed). For a ``beside`` one only the folder's links are followed: what lies beside the file is in
    the folder the tool names, not in the one a link named as the file leads to."""
    readings: list[tuple[str, bool]] = []
    if not any(mover.variable in k for k in kept):
        return readings
    real = _real_folder if mover.beside else os.path.realpath
    for value in values(kept, mover.variable, mover.listed):
        if value.startswith("/"):
            readings.append((real(value), False))
        else:
            if value == "~" or value.startswith("~/"):
                readings.append((real(home + value[1:]), False))
            elif value.startswith("~") and (theirs := _in_users_home(value)):
                readings.append((real(theirs), False))
            readings.append((os.path.normpath(value), True))
    return readings


def _in_users_home(value: str) -> str:
    """``~user/rest`` in that user's home folder, as Python's ``os.path.expanduser`` (so
    huggingface_hub and botocore) and gpg's ``make_filename`` read it (the password database's
    entry); ``""`` for a user it does not know (they take the value as written then)."""
    expanded = os.path.expanduser(value)
    return expanded if expanded.startswith("/") else ""


def _real_folder(path: str) -> str:
    folder, name = os.path.split(os.path.normpath(path))
    return os.path.join(os.path.realpath(folder), name)


def places(home: str, environs: Iterable[Mapping[str, str]], movers: tuple[Mover, ...] = MOVERS) -> list[Place]:
    """The places the variables of ``environs`` move the list's entries to (``home``: the real
    home folder, for a ``~/`` value). Absolute ones with their links resolved, as the workspace is.
    ``movers``: another table (a tool's settings file's keys: ``settings_moved``)."""
    kept = _set(environs, _VARIABLE_SET if movers is MOVERS else frozenset(m.variable for m in movers))
    return [Place(at, moved, relative, mover.system) for mover in movers if (moved := _MOVED.get(mover) or _moved_by(mover))
            for at, relative in _readings(home, kept, mover)]


def _hidden_by(mover: Mover) -> tuple[str, ...]:
    """The paths below the variable's place of the hidden places ``mover`` moves, as ``_moved_by``
    finds the protected ones: at or under its default, or the one its default lies in
    (``KUBECONFIG``'s ``.kube/config`` is in the hidden ``.kube``: the file named itself, '')."""
    if mover.system:
        return ()
    found: list[str] = []
    prefix = mover.default + "/"
    for name in HIDDEN_IN_HOME:
        if name == mover.default or mover.default.startswith(name + "/"):
            found.append(mover.under)
        elif name.startswith(prefix) and not mover.file:
            found.append(f"{mover.under}/{name[len(prefix):]}".lstrip("/"))
    return tuple(dict.fromkeys(found))


_HIDDEN = {m: _hidden_by(m) for m in MOVERS}


def moves_anything(mover: Mover) -> bool:
    """Whether ``mover`` moves a place of either list (one that moves none is a mistake)."""
    return bool(_MOVED[mover] or _HIDDEN[mover])


class MovedSecret(NamedTuple):
    """A hidden place where ``variable`` moves it: ``path``, relative to any folder when
    ``relative`` (the caller says which: the tool reads it from the folder it runs in)."""

    path: str
    relative: bool
    variable: str


def hidden(home: str, environs: Iterable[Mapping[str, str]]) -> list[MovedSecret]:
    """Where the variables of ``environs`` move the hidden places of the home folder (``home``:
    the real one, for a ``~/`` value), each with the variable that moves it: a place two move
    is listed for each (``hidden_list`` keeps one reason per place for the person, and names
    them all when the sandbox refuses a command for it: ``hidden_list.naming``)."""
    kept = _set(environs)
    found: dict[MovedSecret, None] = {}
    for mover in MOVERS:
        if not _HIDDEN[mover]:
            continue
        for at, relative in _readings(home, kept, mover):
            base = os.path.dirname(at) if mover.beside else at
            for rest in _HIDDEN[mover]:
                path = os.path.normpath(os.path.join(base, rest)) if rest else at
                found[MovedSecret(path, relative, mover.variable)] = None
    return list(found)

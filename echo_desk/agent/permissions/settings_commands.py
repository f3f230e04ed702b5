"""Where a program's own settings command writes, for the write rules to judge
(``Reading.written``): ``pip config set``, ``hg config --edit``, ``rustup default``, ``conda
config --set``, ``poetry config``, ``gh config set``, ``bundle config set``, ``gem sources
--add``, ``composer config``. The file such a command writes is code the person runs later or
where their code comes from: ``global.index-url`` is where every later ``pip install`` fetches
from, a ``[hooks]`` line in ~/.hgrc runs at ``hg status``, a toolchain linked and made the
default is the program every ``cargo build`` runs, ``gh config set editor`` and a ``gh alias set
--shell`` run commands, ``channel_alias`` and ``repositories.*`` move where conda and poetry
fetch, bundler's ``gemfile`` is the Ruby every later ``bundle`` evaluates, gem's ``:sources:``
are where ``gem install`` fetches from. A rule naming the program (``pip **``) trusts the
program, not every settings file it may write, so each writing form is judged as a redirection
to the file it writes:

- one the engine can place (the user's file, a ``--file`` value) is judged by the write rules;
- one it cannot (the environment's or the system's file, a project's file found by walking up,
  an action or option it does not know, a word only known when the line runs) is ``None``, so
  the write rules ask;
- an editor run on the file (``pip config edit``, ``hg config --edit``) runs a program the
  agent may choose (``pip config --editor CMD edit`` runs CMD with a shell) and writes what the
  agent types into it: never placed, it asks;
- the reading forms (``pip config list``, ``gh config get``, ``conda config --show``, ``poetry
  config KEY``, ``hg config``) write nothing.

Each program's command is data (``SettingsCommand``); the reading is shared (``written``).
``git config`` (``git_settings_writes``) and ``npm config set`` (``npm_settings_writes``) are
the same idea with their own readers (git's ``-C`` and repository files, npm's locations).
Versions read: pip 23, hg 6.3, rustup 1.29, bundler 2.3, RubyGems 3.3 (proven); conda 24, poetry 2, gh 2,
composer 2 (their documentation: not installed here).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from echo_desk.agent.permissions import line_environment
from echo_desk.agent.permissions import program_options as table
from echo_desk.agent.permissions.options import OptionSet, Seen, Takes, flags, opt, read_options, values

Paths = tuple[str | None, ...]
#: The files a scope writes: paths (``~`` is the home folder), ``None`` for a file not known
#: here, or ``VALUE`` for the file the option's value names (a scope may give a function of
#: the environment instead).
Files = tuple[str | None, ...]
VALUE = "\0value"
_NOT_KNOWN: Files = (None,)


@dataclass(frozen=True)
class SettingsCommand:
    """One settings command of a program, as data.

    ``words``: the subcommand's words after the program's own options, each a set of spellings
    (``hg conf`` is ``hg config``). ``reads``, ``writes`` and ``edits`` hold actions: words
    (the first operand: ``set``, ``get``) or option names (``--set``, ``--show``). With
    ``writes_from``, that many operands write and fewer read (``poetry config k v`` writes,
    ``poetry config k`` reads; ``rustup default NAME``). A form neither reading nor writing,
    with operands, is an action not known here: not placed.
    """

    words: tuple[frozenset[str], ...]
    before: OptionSet
    options: OptionSet
    files: Callable[[], Files]
    reads: frozenset[str] = frozenset()
    writes: frozenset[str] = frozenset()
    edits: frozenset[str] = frozenset()
    writes_from: int = 0
    scopes: Mapping[str, Files | Callable[[], Files]] = field(default_factory=dict)
    #: ``files`` are folders written anywhere below (rustup's home: settings, linked toolchains).
    below: bool = False
    #: A word the program takes before its options that starts so (rustup's ``+TOOLCHAIN``).
    leading: str = ""
    #: The program lowers the command's words before it looks them up (``gem SOURCES``).
    any_case: bool = False


def written(argv: Sequence[str | None], commands: Sequence[SettingsCommand], offset: int = 1) -> tuple[Paths, Paths]:
    """The settings files (and folders written below) the command ``argv`` (the program's own
    words from ``offset`` on) writes with one of its ``commands``: none for a reading form or
    another subcommand (see the module doc)."""
    files: list[str | None] = []
    below: list[str | None] = []
    for command in commands:
        found = _written(argv[offset:], command)
        (below if command.below else files).extend(found)
    return tuple(files), tuple(below)


def _written(args: Sequence[str | None], command: SettingsCommand) -> Files:
    at = _command_at(args, command)
    if at is None:
        return ()
    if at < 0:
        return _NOT_KNOWN
    parsed = read_options(args[at:], command.options)
    if parsed.dynamic or any(s.option is None for s in parsed.seen):
        return _NOT_KNOWN  # (an option it may read as a writing action, or as another file)
    names = {n for s in parsed.seen if s.option is not None for n in s.option.names}
    operands = [w for _, w in parsed.operands]
    first = operands[0] if operands else ""
    if first is None:
        return _NOT_KNOWN
    if names & command.edits or first in command.edits:
        return _NOT_KNOWN  # an editor runs: what it writes is typed into it
    if names & command.writes or first in command.writes:
        return _files(parsed.seen, command)
    if names & command.reads or first in command.reads or not operands:
        return ()
    if command.writes_from:  # (``bundle config get NAME`` reads: its action is named first)
        return _files(parsed.seen, command) if len(operands) >= command.writes_from else ()
    return _NOT_KNOWN if _by_words(command) else ()


def _by_words(command: SettingsCommand) -> bool:
    """Whether the command's actions are words (``set``), so an operand not known is one."""
    return any(not a.startswith("-") for a in command.reads | command.writes | command.edits)


def _command_at(args: Sequence[str | None], command: SettingsCommand) -> int | None:
    """Where the command's own words end in ``args`` (``None``: another subcommand; below zero:
    maybe this one, after a word or an option of the program not known here)."""
    skip = 1 if command.leading and args and (args[0] or "").startswith(command.leading) else 0
    parsed = read_options(args[skip:], command.before)
    unsure = parsed.dynamic or any(s.option is None for s in parsed.seen)
    if parsed.rest is None:
        return None
    at = skip + parsed.rest
    for spellings in command.words:
        word = args[at] if at < len(args) else ""
        if word is None:
            return -1
        word = word.lower() if command.any_case else word
        if word not in spellings:
            # An option of the program not known here may have taken a word as its value.
            return -1 if unsure and any(w in spellings for w in args[at:] if w) else None
        at += 1
    return at


def _files(seen: Sequence[Seen], command: SettingsCommand) -> Files:
    """The files the scope options among ``seen`` name, or the command's own file."""
    found: list[str | None] = []
    scoped = False
    for s in seen:
        scope = next((n for n in s.option.names if n in command.scopes), None) if s.option is not None else None
        if scope is not None:
            scoped = True
            files = command.scopes[scope]
            found += [s.value if f == VALUE else f for f in (files() if callable(files) else files)]
    return tuple(found) if scoped else command.files()


def _home_files(*paths: str, env: Sequence[tuple[str, str]] = ()) -> Callable[[], Files]:
    """The files ``paths`` in the home folder, and those the environment the commands inherit
    from Echo Desk, or the line gives them (``line_environment``), names instead
    (``(VARIABLE, file under the folder it names)``)."""
    def files() -> Files:
        found: list[str | None] = list(paths)
        for variable, name in env:
            folder = line_environment.get(variable, "")
            if os.path.isabs(folder):
                found.append(os.path.join(folder, name) if name else folder)
        return tuple(found)
    return files


def _not_known() -> Files:
    return _NOT_KNOWN


def _one(words: str) -> frozenset[str]:
    return frozenset(words.split())


def _prefixes(word: str, shortest: int) -> frozenset[str]:
    """``word`` and its prefixes of at least ``shortest`` letters (hg takes a unique prefix of
    a command's name: ``hg conf``, ``hg showc``)."""
    return frozenset(word[:k] for k in range(shortest, len(word) + 1))


_ANY_BEFORE = OptionSet((), strict=False, permute=False)

# -- pip 23: ``pip config [--user|--global|--site] [--editor E] ACTION`` ---------------------------
#: With no file option pip writes the environment's file (``sys.prefix/pip.conf``) when it
#: exists, else the user's: which pip runs is only known when the line runs. ``--global`` is
#: under the system's folders for settings, ``--site`` the environment's.
_PIP = SettingsCommand(
    words=(_one("config"),),
    before=table.PIP_BEFORE,
    options=OptionSet((*table.PIP_GENERAL.options, *flags("--user --global --site"), opt("--editor", Takes.VALUE))),
    files=_not_known,
    reads=_one("list get debug"),
    writes=_one("set unset"),
    edits=_one("edit"),
    scopes={"--user": _home_files("~/.config/pip/pip.conf", "~/.pip/pip.conf", env=(("XDG_CONFIG_HOME", "pip/pip.conf"),)),
            "--global": _NOT_KNOWN, "--site": _NOT_KNOWN},
)

# -- hg 6.3: ``hg config --edit`` runs the editor on ~/.hgrc (``-l``: the repository's) ------------
_HG_GLOBAL = (*flags("-y|--noninteractive -q|--quiet -v|--verbose --debug --traceback --time --profile --version "
                     "-h|--help --hidden --noninteractive"),
              *values("-R|--repository|--repo --cwd --encoding --encodingmode --color --pager"),
              opt("--config", Takes.VALUE))
_HG = SettingsCommand(
    words=(_prefixes("config", 3) | _prefixes("showconfig", 4) | _prefixes("debugconfig", 6),),
    before=OptionSet(_HG_GLOBAL, permute=False, strict=False),
    options=OptionSet((*_HG_GLOBAL, *flags("-u|--untrusted -l|--local --source --shared --non-shared -g|--global"),
                       opt("-e --edit"), *values("-T|--template"))),
    files=_not_known,
    edits=_one("--edit"),
)

# -- rustup 1.29: its settings (default, overrides) and linked toolchains are in ~/.rustup -------
#: ``rustup toolchain link NAME PATH`` and ``rustup default NAME`` (or ``override set NAME`` in
#: a folder) make every later ``cargo``/``rustc`` run PATH/bin's program.
_RUSTUP_HOME = _home_files("~/.rustup", env=(("RUSTUP_HOME", ""),))
_RUSTUP_BEFORE = OptionSet((*flags("-v|--verbose -q|--quiet -h|--help -V|--version"),), permute=False, strict=False)


def _rustup(words: str, writes: str = "", reads: str = "", options: OptionSet | None = None,
            writes_from: int = 0) -> SettingsCommand:
    return SettingsCommand(words=(_one(words),), before=_RUSTUP_BEFORE, leading="+",
                           options=options or OptionSet(flags("-h|--help")), files=_RUSTUP_HOME,
                           writes=_one(writes), reads=_one(reads), writes_from=writes_from, below=True)


#: ``rustup self uninstall`` deletes rustup's home and cargo's (``$CARGO_HOME``: ~/.cargo, with
#: every program cargo installed), proven; ``self update`` replaces the rustup program there.
_RUSTUP_SELF = SettingsCommand(words=(_one("self"),), before=_RUSTUP_BEFORE, leading="+",
                               options=OptionSet(flags("-h|--help -y --no-modify-path")),
                               files=_home_files("~/.rustup", "~/.cargo", env=(("RUSTUP_HOME", ""), ("CARGO_HOME", ""))),
                               writes=_one("uninstall update upgrade-data"), reads=_one("help"), below=True)

_RUSTUP = (
    _RUSTUP_SELF,
    _rustup("default", options=OptionSet(flags("-h|--help --force-non-host")), writes_from=1),
    _rustup("toolchain", "link install add uninstall remove", "list help"),
    _rustup("override", "set add unset remove", "list help",
            OptionSet((*flags("-h|--help --nonexistent --force-non-host"), *values("--path")))),
    _rustup("set", "default-host profile auto-self-update auto-install", "help"),
)

# -- conda 24: ``conda config --set|--add …`` writes ~/.condarc (``--file F``: F) ------------------
_CONDA = SettingsCommand(
    words=(_one("config"),),
    before=_ANY_BEFORE,
    options=OptionSet((*flags("--system --env --json -v|--verbose -q|--quiet -h|--help -d|--dry-run -y|--yes "
                              "--show --show-sources --validate --describe --get --stdin --write-default "
                              "--remove-key"),
                       *values("--file --set --append --prepend|--add --remove"))),
    files=_home_files("~/.condarc"),
    reads=_one("--show --show-sources --validate --describe --get"),
    writes=_one("--set --append --prepend --add --remove --remove-key --stdin --write-default"),
    scopes={"--file": (VALUE,), "--system": _NOT_KNOWN, "--env": _NOT_KNOWN},
)

# -- poetry 2: ``poetry config KEY VALUE`` writes config.toml (``--local``: the project's) ----------
_POETRY_GLOBAL = (*flags("-h|--help -q|--quiet -V|--version --ansi --no-ansi -n|--no-interaction --no-plugins "
                         "--no-cache -v|--verbose"), *values("-C|--directory -P|--project"))
_POETRY = SettingsCommand(
    words=(_one("config"),),
    before=OptionSet(_POETRY_GLOBAL, permute=False, strict=False),
    options=OptionSet((*_POETRY_GLOBAL, *flags("--list --unset --local --migrate"))),
    files=_home_files("~/.config/pypoetry/config.toml", env=(("POETRY_CONFIG_DIR", "config.toml"),
                                                             ("XDG_CONFIG_HOME", "pypoetry/config.toml"))),
    reads=_one("--list"),
    writes=_one("--unset --migrate"),
    writes_from=2,
    scopes={"--local": _NOT_KNOWN},
)

# -- gh 2: ``gh config set``/``gh alias set`` write ~/.config/gh/config.yml --------------------------
_GH_FILES = _home_files("~/.config/gh/config.yml", env=(("GH_CONFIG_DIR", "config.yml"),
                                                        ("XDG_CONFIG_HOME", "gh/config.yml")))
_GH = (
    SettingsCommand(words=(_one("config"),), before=_ANY_BEFORE,
                    options=OptionSet((*flags("--help"), *values("-h|--host"))),
                    files=_GH_FILES, reads=_one("get list help"), writes=_one("set")),
    SettingsCommand(words=(_one("alias"),), before=_ANY_BEFORE,
                    options=OptionSet(flags("--help -s|--shell --clobber")),
                    files=_GH_FILES, reads=_one("list ls help"), writes=_one("set delete import")),
)

# -- bundler 2.3: ``bundle config set NAME VALUE`` writes ~/.bundle/config ---------------------------
#: Its ``gemfile`` is the Gemfile every later ``bundle`` command evaluates, as Ruby (proven:
#: ``bundle config set --global gemfile F`` and a plain ``bundle check`` ran F). ``--local`` writes
#: the project's file (where the Gemfile is, or ``$BUNDLE_APP_CONFIG``): not placed here. The old
#: form ``bundle config NAME VALUE`` writes too; ``bundle config NAME`` reads.
_BUNDLE = SettingsCommand(
    words=(_one("config"),),
    before=OptionSet(flags("-V|--verbose --no-color -r|--retry -h|--help"), permute=False, strict=False),
    options=OptionSet(flags("--global --local --delete --parseable -h|--help")),
    files=_home_files("~/.bundle/config", env=(("BUNDLE_USER_CONFIG", ""), ("BUNDLE_USER_HOME", "config"))),
    reads=_one("list get"),
    writes=_one("set unset --delete"),
    writes_from=2,
    scopes={"--global": _home_files("~/.bundle/config", env=(("BUNDLE_USER_CONFIG", ""),
                                                              ("BUNDLE_USER_HOME", "config"))),
            "--local": _NOT_KNOWN},
)

# -- RubyGems 3.3: ``gem sources --add|--remove URL`` writes the gemrc's ``:sources:`` -----------
#: The sources are where every later ``gem install`` fetches from (proven: ``gem sources --add
#: http://127.0.0.1:8765/`` rewrote ~/.config/gem/gemrc). The file written is ``--config-file``'s
#: value, else ``$GEMRC``, else ~/.gemrc when it exists, else ``$XDG_CONFIG_HOME``/gem/gemrc
#: (~/.config/gem/gemrc). ``--add``, ``--update`` and ``--clear-all`` (``rm -rf``) write the specs
#: cache too. gem lowers the command's name and takes a unique prefix of it (``gem SO``).
_GEM_BEFORE = OptionSet(flags("--backtrace --traceback --debug"), permute=False, strict=False)
_GEM_SOURCES = OptionSet((*values("-a|--add -r|--remove"), *flags("-l|--list -c|--clear-all -u|--update -f|--force "
                          "--no-force -h|--help -V|--verbose --no-verbose -q|--quiet --silent --backtrace "
                          "--debug --norc"), opt("--config-file", Takes.VALUE)))
_GEM = (
    SettingsCommand(words=(_prefixes("sources", 2),), before=_GEM_BEFORE, options=_GEM_SOURCES, any_case=True,
                    files=_home_files("~/.gemrc", "~/.config/gem/gemrc", env=(("GEMRC", ""),
                                                                              ("XDG_CONFIG_HOME", "gem/gemrc"))),
                    reads=_one("--list --update --clear-all"), writes=_one("--add --remove"),
                    scopes={"--config-file": (VALUE,)}),
    SettingsCommand(words=(_prefixes("sources", 2),), before=_GEM_BEFORE, options=_GEM_SOURCES, any_case=True,
                    files=_home_files("~/.gem/specs", "~/.local/share/gem/specs",
                                      env=(("GEM_SPEC_CACHE", ""), ("XDG_DATA_HOME", "gem/specs"))),
                    reads=_one("--list"), writes=_one("--add --update --clear-all"), below=True),
)

# -- composer 2: ``composer config KEY VALUE`` writes composer.json, ``--global`` config.json -------
#: Without ``--global`` it writes the project's composer.json (the folder ``-d`` names, or the
#: file ``$COMPOSER`` names; composer offers a parent folder's when there is none here): not
#: placed, nor is ``--file``'s. ``--global`` (``--auth``: auth.json) writes in composer's home: ``$COMPOSER_HOME``,
#: ``$XDG_CONFIG_HOME/composer``, ~/.config/composer or ~/.composer. ``repositories.*`` is where
#: every later ``composer install`` fetches from, ``scripts.*`` commands it runs. ``KEY`` alone
#: reads; ``--editor`` opens the editor. It takes a unique prefix of the command's name (``conf``)
#: and the application's options anywhere (composer's documentation: not installed here).
_COMPOSER_GLOBAL = (*flags("-h|--help -q|--quiet -V|--version --ansi --no-ansi -n|--no-interaction --profile "
                           "--no-plugins --no-scripts --no-cache -v|--verbose -vv -vvv"), *values("-d|--working-dir"))
_COMPOSER_FILES = ("config.json", "auth.json")
_COMPOSER = SettingsCommand(
    words=(_prefixes("config", 2),),
    before=OptionSet(_COMPOSER_GLOBAL, permute=False, strict=False, abbreviations=False),
    options=OptionSet((*_COMPOSER_GLOBAL, *flags("-g|--global -e|--editor -a|--auth --unset -l|--list --absolute "
                                                 "-j|--json -m|--merge --append --source"), *values("-f|--file")),
                      abbreviations=False),
    files=_not_known,
    reads=_one("--list"),
    writes=_one("--unset"),
    edits=_one("--editor"),
    writes_from=2,
    scopes={"--global": _home_files(*(f"{home}/{name}" for home in ("~/.config/composer", "~/.composer")
                                      for name in _COMPOSER_FILES),
                                    env=tuple((variable, f"{folder}{name}") for variable, folder in
                                              (("COMPOSER_HOME", ""), ("XDG_CONFIG_HOME", "composer/"))
                                              for name in _COMPOSER_FILES)),
            # (relative to ``-d``'s folder, which may come after it: not placed)
            "--file": _NOT_KNOWN},
)

#: The settings commands, by the name the engine knows the program by.
COMMANDS: dict[str, tuple[SettingsCommand, ...]] = {
    "pip": (_PIP,), "hg": (_HG,), "rustup": _RUSTUP, "conda": (_CONDA,), "poetry": (_POETRY,), "gh": _GH,
    "bundle": (_BUNDLE,), "gem": _GEM, "composer": (_COMPOSER,),
}

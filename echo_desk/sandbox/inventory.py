"""Everything in a workspace that makes a program run code later: what the sandbox keeps
read-only while a command runs, and what the guard compares before and after it.

* every git folder in the workspace (the workspace's own ``.git``, its submodules and
  worktrees under ``.git/modules`` and ``.git/worktrees``, nested repositories, a folder that is
  a git folder itself, as a bare repository is): its ``config``,
  ``config.worktree``, ``commondir``, ``gitdir``, ``hooks/`` and ``info/``; every ``.git`` file;
  the hooks folder ``core.hooksPath`` names and the files git's configuration includes, when they
  lie in the workspace;
* a module at the top under the name of one of Python's own (``shadows``: ``readline.py``);
* the entries of ``runs_code`` (``.vscode/``, ``.envrc``, …) and the person's own; those read
  from every folder (``.tool-versions``, mise's settings, rustup's toolchain files) wherever the walk
  for repositories finds them.

Only the workspace's own repository and the list are mounted read-only: a mount costs about half
a millisecond of start-up each (bwrap re-reads the mount table for every one), so nested
repositories, however many, are watched by the guard instead (put back after the command).
Paths are plain strings here: this runs twice for every command.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from echo_desk.sandbox import (
    direnv,
    gitconfig,
    hidden_list,
    linked,
    moved,
    repositories,
    runs_code,
    settings_moved,
    shadows,
    shellrc,
)
from echo_desk.sandbox.paths import HIDDEN_IN_HOME


class Watched(NamedTuple):
    """One absolute path that can make a program run code. ``mounted``: read-only while the
    command runs (if it exists); ``placeholder``: if missing, an empty read-only stand-in is made
    meanwhile; ``hooks``: a git hooks folder (its ``*.sample`` files never run: not watched);
    ``why``: a message id saying what runs it (the file tools show it when they ask).
    (A named tuple: hundreds are made for every command in a workspace of many repositories.)"""

    path: str
    folder: bool
    mounted: bool = False
    placeholder: bool = False
    hooks: bool = False
    why: str = ""
    #: Names of ``path``'s folder that match it (``.bashrc.*``): ``path`` is that folder joined
    #: with the pattern, which names nothing (the names matching now are watched on their own);
    #: the file tools ask for a new one that matches.
    pattern: str = ""


@dataclass(frozen=True)
class Inventory:
    workspace: Path
    watched: tuple[Watched, ...]
    #: ``.git`` folders bound over themselves: a mount point cannot be renamed, so ``mv .git x``
    #: and a rebuilt ``.git`` of the command's own cannot walk around the read-only parts.
    self_bound: tuple[str, ...] = ()
    #: The search for repositories stopped at its bound (``repositories.MAX_FOLDERS``).
    cut: bool = False
    #: The search itself (the one after a command is given the one before: ``take(before=)``).
    found: repositories.Found | None = None
    #: Where the home folder's hidden places land in the workspace through a link and exist
    #: (``~/.ssh/config -> ~/dotfiles/ssh/config``): hidden as the places are.
    hidden: tuple[str, ...] = ()
    #: The places whose walk for links stopped at its bound (``linked.Finder.cut``).
    links_cut: tuple[str, ...] = ()
    #: The hidden places whose links lead through more folders than are followed
    #: (``linked.Finder.too_far``): ``launch`` refuses the command.
    links_too_far: tuple[str, ...] = ()
    #: Each link of a hidden place (or a place with a link on its way) and the real path it
    #: leads to, to name the link when that path is why the command is refused (``launch``).
    hidden_links: tuple[tuple[str, str], ...] = ()
    #: The protected places whose links lead through more folders than are followed
    #: (``linked.Finder.too_far_protected``): ``launch`` refuses the command.
    protected_links_too_far: tuple[str, ...] = ()
    #: A protected place's links to the workspace itself or a folder holding it, with where they
    #: lead (``linked.Finder.holds_workspace``): ``launch`` refuses the command.
    protected_links_to_workspace: tuple[tuple[str, str], ...] = ()
    #: A hidden place's links to ``/`` or a folder holding the home folder, with where they lead
    #: (``linked.Finder.hidden_holds_home``): ``launch`` refuses the command.
    hidden_links_holding_home: tuple[tuple[str, str], ...] = ()


def _global_configs(home: Path) -> list[str]:
    # As git ranks them after the repository's own: ~/.gitconfig over the XDG file over the system's.
    return [f"{home}/.gitconfig", f"{home}/.config/git/config", "/etc/gitconfig"]


def inside(path: str, folder: str) -> bool:
    # Compared as strings: pathlib's is_relative_to builds and discards paths (slow in a loop).
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def take(workspace: Path, *, home: Path, extra: Iterable[str] = (), writable: Iterable[Path] = (),
         max_folders: int = repositories.MAX_FOLDERS, before: Inventory | None = None,
         environs: Sequence[Mapping[str, str]] | None = None, other_homes: Sequence[Path] = (),
         hidden: Sequence[Path] = ()) -> Inventory:
    """The inventory of ``workspace`` (a real, absolute folder). ``writable``: every folder the
    command may change (a git folder elsewhere in one of them is watched too). ``before``: the
    inventory taken before the command, when this one is after it. ``environs``: the environments
    whose variables move the list's places (``moved``; by default Echo Desk's own). ``other_homes``:
    the home folders the command itself is given (its own ``HOME``), whose hidden places are
    followed through their links as ``home``'s are. ``hidden``: the paths the person hid, whose
    links are followed as the list's places' are."""
    base = str(workspace)
    folders = [base, *(str(w) for w in writable)]
    found = repositories.find(workspace, max_folders, before.found if before is not None else None)
    watched: list[Watched] = []
    self_bound: list[str] = []
    seen: set[str] = set()
    # Only a relative or ``~/`` hooks path of the global files can land in the workspace, and only
    # a file they include in it (the home folder as the workspace: ``~/.gitconfig.local``).
    global_config = gitconfig.read(_global_configs(home), str(home))
    for entry in found.entries:
        top = entry.path if entry.bare else os.path.dirname(entry.path)
        own = top == base and not entry.bare  # the workspace's own repository: mounted
        if entry.folder:
            gitdir: str | None = entry.path
            if own:
                self_bound.append(entry.path)
        else:
            watched.append(Watched(entry.path, folder=False, mounted=own, why=runs_code.GIT_FILE))
            gitdir = repositories.gitdir_of_file(entry.path)
        if gitdir is None or not any(inside(gitdir, f) for f in folders):
            continue  # a git folder outside every writable folder is read-only anyway
        names = repositories.names_in(gitdir)
        common = repositories.common_dir_of(gitdir) if "commondir" in names else None
        inner = repositories.gitdirs_in(gitdir, names)
        if common is not None and any(inside(common, f) for f in folders):
            inner.append(common)
        for g in inner:
            if g not in seen:
                seen.add(g)
                watched += _git_parts(g, names if g == gitdir else repositories.names_in(g), own)
        watched += _configured([*inner, *([common] if common else [])], global_config, top=top, base=base,
                               folders=folders, home=home, own=own)
    watched += [Watched(included, folder=False, mounted=True, why=runs_code.INCLUDED_CONFIG)
                for included in global_config.included if inside(included, base)]
    watched += _named_by_config(global_config, [base], mounted=True)
    in_home = base == os.path.realpath(home)
    top_level = repositories.names_in(base)
    watched += _entries_at(base, top_level, runs_code.all_entries(extra, in_home=in_home),
                       lambda path: path == ".echo-desk" or (in_home and path in runs_code.HOME_PLACEHOLDERS))
    watched += _home_inside(home, base)
    environs = (os.environ,) if environs is None else environs
    finder = linked.Finder(str(home), base)
    watched += _placed(home, base, found, environs, finder)
    # Python's own modules shadowed at the top (``shadows``): watched by the guard, not mounted.
    watched += [Watched(f"{base}/{name}", folder=False, why=shadows.WHY) for name in top_level
                if shadows.covers((name,))]
    watched += [Watched(f"{base}/{package}/{name}", folder=False, why=shadows.WHY)
                for package in shadows.package_names(top_level)
                for name in repositories.names_in(f"{base}/{package}") if shadows.covers((package, name))]
    # Below the top too, watched by the guard (one at the top is mounted with the list above:
    # ``_unique`` keeps that first one).
    for path in found.named:
        listed = runs_code.entry_of(tuple(path[len(base) + 1:].split("/")), runs_code.EVERY_FOLDER, fold=True)
        if listed is not None:
            watched.append(Watched(path, folder=listed.folder, why=listed.why))
    watched += _direnv_loads(watched, base)
    watched += _shell_loads(home, base)
    # (The home folder as the workspace too: its places' links may lead out of it and back in,
    # or on from one of its folders to another.)
    watched += _linked_from_home(home, base, finder)
    watched += _landed_on(watched, folders)
    # (A hidden place's link to the workspace itself lands too: ``launch`` refuses the command, as
    # for a hidden place that is the workspace; nothing to watch there.)
    hidden_landings = [landing for name in HIDDEN_IN_HOME
                       for landing in finder.landings(name, runs_code.HIDDEN_SECRET, whole=True)]
    hidden_landings += _linked_from_moved_secrets(home, base, found, environs, finder)
    for other in other_homes:
        theirs = linked.Finder(str(other), base, shared=finder)
        hidden_landings += [landing for name in HIDDEN_IN_HOME
                            for landing in theirs.landings(name, runs_code.HIDDEN_SECRET, whole=True)]
        hidden_landings += _linked_from_moved_secrets(other, base, found, environs, theirs)
    persons = linked.Finder(str(home), base, shared=finder, programs_in_view=True)
    for place in dict.fromkeys(os.path.realpath(path) for path in hidden):
        hidden_landings += persons.below(place, runs_code.HIDDEN_SECRET, whole=True)
    if before is None:  # (the check after the command looks again at what was watched before)
        watched += _missing_secrets(home, base, environs)
        # Watched by the check after the command too: a hidden place's link to what does not
        # exist yet (nothing to hide: what the command created there is put aside, as for a missing
        # place in the workspace), and one that exists (its hiding mount moves with a folder above
        # it renamed: ``mv dotfiles x`` and a new ``dotfiles/ssh/config`` are put aside).
        # (One outside the workspace is only hidden: the command cannot write there.)
        watched += [Watched(landing.path, folder=not landing.exists or os.path.isdir(landing.path), why=landing.why)
                    for landing in hidden_landings if landing.path != base and inside(landing.path, base)]
    return Inventory(workspace, tuple(_unique(watched)), tuple(self_bound), found.cut, found,
                     tuple(dict.fromkeys(landing.path for landing in hidden_landings if landing.exists)),
                     tuple(finder.cut), tuple(finder.too_far),
                     tuple(dict.fromkeys((landing.link, landing.path) for landing in hidden_landings if landing.link)),
                     tuple(finder.too_far_protected), tuple(finder.holds_workspace), tuple(finder.hidden_holds_home))


def _linked_from_moved_secrets(home: Path, base: str, found: repositories.Found,
                               environs: Sequence[Mapping[str, str]], finder: linked.Finder) -> list[linked.Landing]:
    """Where links below a hidden place the environment moves land in the workspace
    (``GNUPGHOME=/srv/keys`` holding ``private-keys-v1.d -> ~/dotfiles/gnupg/keys``). The place
    itself, and a link on the way to it, are resolved where it is hidden (``launch``); a
    relative value is taken from the home folder and every folder the search read, as there."""
    real_home = os.path.realpath(home)
    landings: list[linked.Landing] = []
    # (A place two variables move is walked once.)
    for path, relative in dict.fromkeys((p, r) for p, r, _ in moved.hidden(real_home, environs)):
        roots = [f"{real_home}/{path}", *below_every_folder(path, base, found)] if relative else [path]
        for root in roots:
            real = os.path.realpath(root)
            if os.path.isdir(real):
                landings += finder.below(real, runs_code.HIDDEN_SECRET, whole=True)
    return landings


def _direnv_loads(watched: list[Watched], base: str) -> list[Watched]:
    """What each watched ``.envrc`` makes direnv read without a new ``direnv allow`` (``direnv``):
    the files it sources (and what those source in turn), the ``.env`` files it loads, the folders
    it puts on ``PATH``, when they lie in the workspace."""
    found: list[Watched] = []
    queue = [w.path for w in watched if not w.folder and os.path.basename(w.path) == ".envrc"]
    # The ones above the workspace too (a project's .envrc naming a file of the sub-folder opened).
    above = base
    while above != "/":
        above = os.path.dirname(above)
        if os.path.isfile(f"{above.rstrip('/')}/.envrc"):
            queue.append(f"{above.rstrip('/')}/.envrc")
    seen = set(queue)
    while queue and len(seen) < direnv.MAX_FILES:
        for path, folder in direnv.loaded(queue.pop(0)):
            if path in seen or not inside(path, base) or path == base:
                continue
            if not folder and os.path.isdir(path):
                continue  # a folder's .envrc (source_env ..) is named on its own
            seen.add(path)
            found.append(Watched(path, folder=folder, why=runs_code.DIRENV_LOADS))
            if not folder:
                queue.append(path)  # (a sourced file may source another; a .env sources nothing: no harm)
    return found


def _shell_loads(home: Path, base: str) -> list[Watched]:
    """What the person's shell start-up files make every terminal read or run without asking
    (``shellrc``: a file they source, a folder they put on ``PATH``, a program they run), when it
    lies in the workspace (the home folder as the workspace; a dotfiles folder)."""
    real = os.path.realpath(home)
    found: list[Watched] = []
    for named in shellrc.loaded(real):
        if inside(named.path, base) and named.path != base:
            # (a pattern below the top: its whole folder, as for ``~/.bashrc.d/*``)
            found.append(Watched(named.path, folder=named.folder or bool(named.pattern), why=runs_code.SHELL_LOADS))
        elif named.pattern and inside(base, named.path):
            # A pattern of the workspace's top (or of a folder holding it): each name it matches
            # now (the check after the command sees what the command created).
            # Only those of its kind: a sourced file is no folder, a folder on PATH no file.
            at = named.path.rstrip("/")
            found.append(Watched(f"{at}/{named.pattern}", folder=named.folder, why=runs_code.SHELL_LOADS,
                                 pattern=named.pattern))
            found += [Watched(f"{at}/{name}", folder=named.folder, why=runs_code.SHELL_LOADS)
                      for name in sorted(repositories.names_in(named.path))
                      if fnmatch.fnmatchcase(name, named.pattern) and inside(f"{at}/{name}", base)
                      and f"{at}/{name}" != base and os.path.isdir(f"{at}/{name}") == named.folder]
    return found


def _home_inside(home: Path, base: str) -> list[Watched]:
    """A workspace that holds the home folder below its top (``/home``, ``/``): the list's entries
    in the home folder, as if it were the workspace (those of the home folder only included, and
    its shell start-up files' placeholders)."""
    real = os.path.realpath(home)
    if real == base or not inside(real, base):
        return []
    return _entries_at(real, repositories.names_in(real), runs_code.ENTRIES,
                   lambda path: path in runs_code.HOME_PLACEHOLDERS)


def _placed(home: Path, base: str, found: repositories.Found, environs: Sequence[Mapping[str, str]],
            finder: linked.Finder) -> list[Watched]:
    """The list's places of the home folder that lie in a workspace below it (``~/.config`` or
    ``~/.local`` as the workspace: one that is or holds the home folder has them already), and
    those the person's environment or a tool's own settings file moves into the workspace
    (``moved``: ``CARGO_HOME=~/work/.cargo``; ``settings_moved``: ``go env -w GOMODCACHE=…``),
    mounted read-only as the entries at the top are. A relative value stands for that path below
    every folder the search read (fail closed). A moved place elsewhere is followed through its
    links into the workspace as the home folder's are (``_linked_from_moved``)."""
    real = os.path.realpath(home)
    places = [*moved.places(real, environs), *settings_moved.places(real, environs)]
    if inside(base, real) and base != real:
        places.append(moved.Place(real, _HOME_PLACES))
    watched: list[Watched] = []
    for place in places:
        ats = below_every_folder(place.root, base, found) if place.relative else [place.root]
        if not (place.relative or place.system or place.root == real or inside(place.root, base)):
            watched += _linked_from_moved(place, base, finder)  # (one in the workspace is protected whole)
        for at in ats:
            if not (inside(at, base) or inside(base, at)):
                continue  # (most values: nothing of it is in this workspace)
            # Above the workspace: only what lies in it (``~/.config`` of all the home folder's).
            within = base[len(at) + 1:] + "/" if base != at and inside(base, at) else ""
            # Only those whose first part is there, as at the top (one the command makes is
            # found by the inventory after it): a moved ~/.config has seventy entries.
            names = repositories.names_in(at)
            for rest, entry in place.moved:
                if (within and not rest.startswith(within)) or (rest and rest.split("/", 1)[0] not in names):
                    continue
                path = f"{at}/{rest}" if rest else at
                if path != base:
                    watched.append(Watched(path, entry.folder, mounted=True, why=entry.why))
    return watched


#: The list's entries as places of the home folder (``_placed``).
_HOME_PLACES = tuple((e.path, e) for e in runs_code.ENTRIES if not e.pattern)


def below_every_folder(relative: str, base: str, found: repositories.Found) -> list[str]:
    """Where the ``relative`` path leads from each folder the search read, when it exists there
    (a new one is found by the inventory after the command), links resolved."""
    first = relative.split("/", 1)[0]
    ats: list[str] = []
    for folder, subfolders in found.read.items():
        if first == ".." or first in subfolders or os.path.lexists(f"{folder}/{first}"):
            at = os.path.realpath(f"{folder}/{relative}")
            if os.path.lexists(at) and inside(at, base) and at not in ats:
                ats.append(at)
    return ats


def _entries_at(root: str, top_level: Collection[str], entries: Iterable[runs_code.Entry],
            placeholder: Callable[[str], bool]) -> list[Watched]:
    """The entries of the protected list at ``root`` (whose own names are ``top_level``): those
    whose first part is there, and those that take a ``placeholder`` when missing (what is
    missing otherwise is not looked at)."""
    found = [Watched(f"{root}/{item.path}", item.folder, mounted=True, placeholder=placeholder(item.path), why=item.why)
             for item in entries if not item.pattern and (placeholder(item.path) or item.path.split("/", 1)[0] in top_level)]
    for item in entries:
        if item.pattern:
            found += _matching(root, item, top_level)
    return found


def _matching(root: str, item: runs_code.Entry, top_level: Collection[str]) -> list[Watched]:
    """A pattern entry (``.psqlrc-*``) at ``root``: the pattern itself (it names nothing: the
    file tools ask for a new name that matches, the check after the command finds one it
    created) and each name that matches now (mounted read-only)."""
    head, _, name = item.path.rpartition("/")
    folder = f"{root}/{head}" if head else root
    if head and head.split("/", 1)[0] not in top_level:
        return [Watched(f"{folder}/{name}", item.folder, why=item.why, pattern=name)]
    names = top_level if not head else repositories.names_in(folder)
    # (Those first: one named as the pattern itself, ``.psqlrc-*``, is mounted too.)
    return [*(Watched(f"{folder}/{n}", item.folder, mounted=True, why=item.why)
              for n in sorted(names) if fnmatch.fnmatchcase(n, name)),
            Watched(f"{folder}/{name}", item.folder, why=item.why, pattern=name)]


def _missing_secrets(home: Path, base: str, environs: Sequence[Mapping[str, str]]) -> list[Watched]:
    """The hidden places of the home folder (``paths.HIDDEN_IN_HOME``), and where the person's
    environment moves them (``moved.hidden``: ``KUBECONFIG=~/work/kube/config``), that lie in the
    workspace and do not exist: a mount needs something there, so a command could create one — the
    settings ``~/.kube/config``, ``~/.ssh/config``, ``~/.aws/config`` whose programs run the
    commands they name (an exec credential plugin, ``ProxyCommand``, ``credential_process``).
    Watched by the check after the command (one that exists is hidden, and so unchangeable).
    A relative value is taken from the home folder only (one below a folder of the workspace is
    hidden when it exists, but a new one there is not looked for)."""
    found: list[Watched] = []
    for path in (place.path for place in hidden_list.always(home, environs) if not place.runtime):
        if inside(path, base) and path != base and not os.path.lexists(path):
            found.append(Watched(path, folder=True, why=runs_code.HIDDEN_SECRET))
    return found


#: Entries looked at for links in what is watched, per inventory (``.idea/`` can be large).
MAX_LINK_SEARCH = 2000


def _landed_on(watched: list[Watched], folders: list[str]) -> list[Watched]:
    """What a link among the watched paths lands on, when that is in a writable folder: a hook
    the person installed as ``ln -s ../../tools/pre-commit .git/hooks/pre-commit``, a shared
    ``.vscode/tasks.json``. The program runs that file, an ordinary one of the workspace
    otherwise: it is watched as the link is (read-only too, if the link's place is)."""
    found: list[Watched] = []
    pending = [(w.path, w) for w in watched]
    looked = 0
    while pending and looked < MAX_LINK_SEARCH:
        path, source = pending.pop()
        looked += 1
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode):
            pending.extend((f"{path}/{name}", source) for name in repositories.names_in(path, st))
        elif stat.S_ISLNK(st.st_mode):
            real = os.path.realpath(path)
            if any(inside(real, f) and real != f for f in folders) and os.path.lexists(real):
                found.append(source._replace(path=real, folder=os.path.isdir(real), placeholder=False, hooks=False))
    return found


def _git_parts(gitdir: str, present: frozenset[str], own: bool) -> list[Watched]:
    """What makes git run code in one git folder (``present``: its entry names). Missing hooks/
    and info/ of the workspace's own repository get an empty read-only folder (git neither lists
    nor commits one); a missing file cannot: an empty ``commondir`` breaks git. What is missing
    and gets no placeholder is not watched now: if the command creates it, the inventory taken
    after the command has it."""
    found: list[Watched] = []
    for part in runs_code.GIT_PARTS:
        placeholder = own and part.folder
        if placeholder or part.path in present:
            found.append(Watched(f"{gitdir}/{part.path}", part.folder, mounted=own, placeholder=placeholder,
                                 hooks=part.path == "hooks", why=part.why))
    return found


def _configured(gitdirs: list[str], global_config: gitconfig.Found, *, top: str, base: str, folders: list[str],
                home: Path, own: bool) -> list[Watched]:
    """Every hooks folder that could apply to one repository (its own settings, its worktrees' and
    submodules', the global ones) and every file its settings include, when in the workspace."""
    config = gitconfig.read([f"{g}/{name}" for g in gitdirs for name in ("config.worktree", "config")], str(home))
    found: list[Watched] = []
    for hooks in (*config.hooks_paths, *global_config.hooks_paths):
        # As git resolves it: ``~/`` in the home folder, an absolute path as it is (``git config
        # core.hooksPath "$PWD/.githooks"``, as setup scripts write it), else from the work tree.
        place = os.path.normpath(f"{home}/{hooks[2:]}" if hooks.startswith("~/") else
                                 hooks if hooks.startswith("/") else f"{top}/{hooks}")
        if inside(place, base) and place != base:
            found.append(Watched(place, folder=True, mounted=own, hooks=True, why=runs_code.HOOKS_PATH))
    found += [Watched(included, folder=False, mounted=own, why=runs_code.INCLUDED_CONFIG)
              for included in config.included if any(inside(included, f) for f in folders)]
    # A program named by a relative path runs from the top of the work tree (``core.fsmonitor =
    # ./tools/fsmon``, ``alias.x = !./scripts/x.sh``): the repository's and the global settings'.
    found += [Watched(path, folder=os.path.isdir(path), mounted=own, why=runs_code.CONFIG_PROGRAM)
              for path in (*config.in_work_tree(top), *global_config.in_work_tree(top))
              if any(inside(path, f) and path != f for f in folders)]
    return found + _named_by_config(config, folders, mounted=own)


def _named_by_config(config: gitconfig.Found, folders: list[str], *, mounted: bool) -> list[Watched]:
    """The programs (and files and folders of code) git's settings name by path
    (``gitconfig.PROGRAM_KEYS``: ``core.fsmonitor``, an alias, ``init.templateDir``), when in one
    of ``folders`` (not a folder itself)."""
    return [Watched(path, folder=os.path.isdir(path), mounted=mounted, why=runs_code.CONFIG_PROGRAM)
            for path in config.programs if any(inside(path, f) and path != f for f in folders)]


def _linked_from_moved(place: moved.Place, base: str, finder: linked.Finder) -> list[Watched]:
    """Where a moved place's entries (``XDG_CONFIG_HOME=/srv/cfg``: ``/srv/cfg/nvim``) land in the
    workspace through a link on the way, at the entry or below it (GNU stow's
    ``/srv/cfg/nvim/init.lua -> ~/dotfiles/nvim/init.lua``), as ``_linked_from_home``. A system
    folder of a search list (``/usr/share``) is not walked: its links are the packages'."""
    at = linked.Finder(place.root, base, shared=finder)
    found: list[linked.Landing] = []
    for rest, entry in place.moved:
        found += at.landings(rest, entry.why) if rest else at.below(at.home, entry.why)
    return _as_watched(found)


def _as_watched(landings: Iterable[linked.Landing]) -> list[Watched]:
    """A landing that exists is mounted read-only; a missing one is watched by the check after
    the command (it could create what the link names)."""
    return [Watched(landing.path, folder=os.path.isdir(landing.path), mounted=True, why=landing.why) if landing.exists
            else Watched(landing.path, folder=True, why=landing.why)
            for landing in landings]


def _linked_from_home(home: Path, base: str, finder: linked.Finder) -> list[Watched]:
    """A dotfiles workspace: the home folder's entries of the list (``~/.bashrc``,
    ``~/.config/fish``, ``~/.gitconfig``…) that are links, lie below one or hold one landing in
    the workspace, under whatever name they have there (``bashrc``): mounted read-only when they
    exist; else watched by the check after the command (it could create what the link names)."""
    places: list[tuple[str, str]] = []
    for item in runs_code.ENTRIES:
        if item.pattern:
            head, _, name = item.path.rpartition("/")
            places += [(f"{head}/{n}" if head else n, item.why)
                       for n in sorted(repositories.names_in(f"{home}/{head}" if head else str(home)))
                       if fnmatch.fnmatchcase(n, name)]
        else:
            places.append((item.path, item.why))
    return _as_watched(landing for relative, why in places for landing in finder.landings(relative, why))


def _listed(folder: str, parts: list[str], names: dict[str, frozenset[str]]) -> bool:
    """Whether ``folder/parts…`` exists, by the kept listings (``repositories.names_in``; each
    folder's once per call, in ``names``)."""
    for part in parts:
        held = names.get(folder)
        if held is None:
            held = names[folder] = repositories.names_in(folder)
        if part not in held:
            return False
        folder = f"{folder}/{part}"
    return True


def _unique(watched: list[Watched]) -> list[Watched]:
    """One per path (the first, which is the most protective), none inside another one."""
    by_path: dict[tuple[str, ...], Watched] = {}
    for w in watched:
        by_path.setdefault(tuple(w.path.split("/")), w)
    kept: list[Watched] = []
    folders: set[tuple[str, ...]] = set()
    for parts in sorted(by_path):
        # Already watched as part of a folder (``.git/info/attributes`` is in ``info/``).
        covered = False
        for i in range(len(parts) - 1, 0, -1):
            if parts[:i] in folders:
                covered = True
                break
        if covered:
            continue
        w = by_path[parts]
        kept.append(w)
        if w.folder:
            folders.add(parts)
    return kept

"""hg commands hg does not have of its own: those an extension gives. With ``[extensions] extdiff
=`` in ~/.hgrc, under ``hg **`` with ``@workspace/src/**`` read-denied, ``hg extdiff -p touch -o
PWNED -c 0`` ran touch, ``hg extdiff -p grep -o -r -o KEY -c 0`` printed src/main.py's
``KEY=secret`` from the snapshot hg wrote of it, and ``[extdiff] cmd.kd = grep`` made ``hg kd``
do the same (hg 6.3, bash and dash, s296), while the engine took a word naming none of the
commands it reads for one running and reading nothing. The bundled extensions alone run programs
(extdiff, fix's ``[fix]`` tools, patchbomb's mailer, histedit's plan) and read the whole history
(churn); any extension file may do anything.

So a command word is trusted only when it names one of hg 6.3's own commands (``OWN``), one of
an extension the engine reads as well (``READ_HERE``), or an alias of the settings
(``hg_aliases``: judged as what it runs); a prefix of one only when the settings enable no
extension (hg takes a command an extension gives, ``hg show``, over a prefix of its own,
``showconfig``). Any other word is a command the engine does not read: a rule covers it only by
naming it (``hg extdiff **``), and it counts as reading the whole repository.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.permissions import hg_aliases
from echo_desk.agent.permissions.hg_commands import command_at
from echo_desk.agent.permissions.options import Does
from echo_desk.agent.permissions.reading import Flag

__all__ = ["OWN", "foreign_commands", "foreign_flags"]

Args = tuple[str | None, ...]

#: hg 6.3's own commands and their other names (``commands.table`` with no extension loaded).
OWN = frozenset("""
abort add addremove annotate archive backout bisect blame bookmark bookmarks branch branches bundle cat
checkout ci clean clone co commit config continue copy cp debug-delta-find debug-repair-issue6528
debug-revlog-index debugancestor debugantivirusrunning debugapplystreamclonebundle debugbackupbundle
debugbuilddag debugbundle debugcapabilities debugchangedfiles debugcheckstate debugcolor debugcommands
debugcomplete debugconfig debugcreatestreamclonebundle debugdag debugdata debugdate debugdeltachain
debugdirstate debugdirstateignorepatternshash debugdiscovery debugdownload debugextensions debugfileset
debugformat debugfsinfo debuggetbundle debugignore debugindex debugindexdot debugindexstats debuginstall
debugknown debuglabelcomplete debuglocks debugmanifestfulltextcache debugmergestate debugnamecomplete
debugnodemap debugobsolete debugp1copies debugp2copies debugpathcomplete debugpathcopies debugpeer
debugpickmergetool debugpushkey debugpvec debugrebuilddirstate debugrebuildfncache debugrebuildstate
debugrename debugrequirements debugrequires debugrevlog debugrevlogindex debugrevspec debugserve
debugsetparents debugshell debugsidedata debugssl debugstate debugstrip debugsub debugsuccessorssets
debugtagscache debugtemplate debuguigetpass debuguiprompt debugupdatecaches debugupgraderepo debugwalk
debugwhyunstable debugwireargs debugwireproto diff export files forget graft grep heads help history id
identify import in incoming init locate log manifest merge move mv out outgoing parents patch paths phase
pull purge push recover remove rename resolve revert rm rollback root serve shelve showconfig st status
sum summary tag tags tip unbundle unshelve up update verify version
""".split())
#: Commands of bundled extensions the engine reads as it reads hg's own: ``share`` (the folder it
#: makes: ``hg_folder_writes``; the settings of its source: ``hg_config.shared_sources``).
READ_HERE = frozenset({"share"})


def foreign_commands(args: Args, folders: Sequence[Path], home: Path | None, runner: str | None = None) -> list[str]:
    """The words naming the command of ``hg`` (started as ``runner``) with ``args`` (after its
    name), run in any of ``folders``, and of the aliases it runs, that may name a command hg
    does not have of its own (see the module doc). A word known only when the line runs is
    ``hg_runners``' business."""
    at = command_at(("hg", *args))
    if at is None or at > len(args) or args[at - 1] is None:
        return []
    word = args[at - 1]
    assert word is not None
    entries = hg_aliases.settings(args, folders, home, runner)
    runs = hg_aliases.expansions(args, folders, home, runner)
    if entries is None or runs is None:
        return [] if word in OWN | READ_HERE else [word]  # (settings not read: only whole names are known)
    aliases = {key.partition(":")[0] for section, key, _ in entries if section == "alias"}
    # (under --cwd/-R a prefix asks, as it did while their settings were not read: s296)
    extensions = hg_aliases.elsewhere(args) or any(
        section == "extensions" and not value.startswith("!") for section, _, value in entries)
    found: list[str] = []
    for words in runs:
        named = words[at - 1] if at - 1 < len(words) else None
        if named is None or not _known(named, aliases, extensions):
            found.append(named or "")
    return list(dict.fromkeys(found))


def foreign_flags(argv: Sequence[str | None], folders: Sequence[Path], home: Path | None) -> list[Flag]:
    """The hg command ``argv``'s command words hg may take for a command it does not have of its
    own (``foreign_commands``), each a flag a rule covers only by naming it."""
    found = foreign_commands(tuple(argv[1:]), folders, home, argv[0])
    return [Flag(frozenset({word} - {""}), word, Does.RUNS) for word in found]


def _known(word: str, aliases: set[str], extensions: bool) -> bool:
    """Whether hg surely takes ``word`` for one of its own commands or an alias (whose words the
    engine judges): the name itself, or with no extension enabled, a prefix of one (a prefix of
    several stops hg)."""
    if word in OWN or word in READ_HERE or word in aliases:
        return True
    return not extensions and not word.startswith("-") and any(
        name.startswith(word) for name in (*OWN, *READ_HERE, *aliases))

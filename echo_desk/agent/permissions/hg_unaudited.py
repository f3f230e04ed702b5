"""Extensions that change what hg's OWN commands do, beyond what the engine reads of them. With
``[extensions] fsmonitor =`` in ~/.hgrc, a plain ``hg status`` ran ``watchman`` from ``PATH``
(``watchman --output-encoding=bser get-sockname``: a script of that name created a file; hg
6.3.2, scratch home, bash 5.2 and dash 0.5.12, strace, s317), while the engine judged it as hg
with no extension: running nothing. Others of hg 6.3's bundled extensions do the like:
``schemes`` turns a word of ``pull``/``push``/``clone`` into a folder or address no word names,
``journal`` writes the ``.hg`` of a share's source, ``remotefilelog`` and ``infinitepush`` keep
caches and stores outside the repository, ``zeroconf`` and ``clonebundles`` reach the network at
``paths``/``clone``, ``factotum`` reads ``/mnt/factotum``, ``logtoprocess`` runs programs at
every command; and an extension loaded from a file, or one hg 6.3 does not bundle, may do
anything.

So an hg command counts as doing what the engine cannot judge (a flag no rule covers: it asks)
while its settings enable an extension not in ``AUDITED``: the bundled extensions read in
hg 6.3's code whose changes to hg's own commands stay inside the repository (``eol`` reads
``.hgeol``, ``keyword`` expands in the working copy, ``blackbox`` writes ``.hg/blackbox.log``,
``mq``/``rebase``/``histedit`` refuse or add options…), add only commands of their own (judged
by ``hg_extensions``), run only where the person's ``[hooks]`` name them (``acl``, ``notify``,
``bugzilla``, ``hooklib``), or are judged as they behave (``largefiles``/``lfs``:
``hg_extension_writes``; ``share``: ``hg_config.shared_sources``), and the names hg 6.3 ignores
as once-separate extensions now in hg (``color``, ``shelve``…). An extension counts as audited
only as hg loads it bundled: an empty value (a value is a file hg loads instead).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.permissions import hg_aliases
from echo_desk.agent.permissions.reading import Flag

__all__ = ["AUDITED", "unaudited", "unaudited_flags"]

Args = tuple[str | None, ...]

#: See the module doc (hg 6.3.2, ``hgext/``; ``extensions._builtin`` for the ignored names).
AUDITED = frozenset("""
absorb acl amend automv beautifygraph blackbox bookflow bugzilla censor children churn closehead
commitextras convert eol extdiff fastexport fetch fix githelp gpg graphlog hgk highlight histedit
hooklib keyword largefiles lfs mq notify pager patchbomb purge rebase record releasenotes relink
remotenames share show sparse split strip transplant uncommit win32mbcs win32text
bookmarks color hbisect hgcia inotify interhg parentrevspec progress shelve
""".split())
#: What an extension the engine has not audited makes of the command: only known when it runs.
_UNKNOWN = Flag(frozenset(), "", None)


def unaudited(args: Args, folders: Sequence[Path], home: Path | None, runner: str | None = None) -> list[str]:
    """The extensions not in ``AUDITED`` that the settings of ``hg`` (started as ``runner``) with
    ``args`` (after its name), run in any of ``folders``, enable (``""``: settings not read)."""
    entries = hg_aliases.settings(args, folders, home, runner)
    if entries is None:
        return [""]  # (the settings are not read: any extension may be enabled)
    found = [key for section, key, value in entries
             if section == "extensions" and not value.startswith("!")
             and (value.strip() or _bundled(key) not in AUDITED)]
    return list(dict.fromkeys(found))


def unaudited_flags(argv: Sequence[str | None], folders: Sequence[Path], home: Path | None) -> list[Flag]:
    """A flag no rule covers when the hg command ``argv`` runs with an extension enabled that
    the engine has not audited (see the module doc)."""
    return [_UNKNOWN] if unaudited(tuple(argv[1:]), folders, home, argv[0]) else []


def _bundled(key: str) -> str:
    """The bundled extension an ``[extensions]`` key names (``hgext.rebase``, ``hgext/rebase``)."""
    return key.replace("/", ".").removeprefix("hgext.")

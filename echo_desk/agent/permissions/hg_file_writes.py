"""The files hg's commands write where their words say, for the write rules to judge
(``Reading.written``), as the folders of ``hg_folder_writes``. A rule naming hg (``hg **``)
trusts hg, not every file it may write: with the agent's writes kept to ``out/``, ``hg cat -o
~/.bashrc FILE`` put a file of the repository in place of your ``~/.bashrc``, ``hg export -o``
and ``hg bundle`` overwrote it with a patch or a bundle, ``hg serve --pid-file``/``-A``/``-E``
wrote there too and ``hg serve --daemon-postexec unlink:F`` deleted F (proven with hg 6.3),
while nothing judged those paths as writes. Each command of hg 6.3 (its own and its debug
commands') whose words name a file it writes outside the repository:

- ``hg bundle FILE [DEST]``, ``hg debugcreatestreamclonebundle FILE``: FILE;
  ``hg debuggetbundle REPO FILE``: FILE;
- ``hg cat -o PATTERN``, ``hg export -o PATTERN``: the file the pattern names (``-``: the
  output); a ``%`` in it names the file after the revision or the file (``%s``, ``%n``, ``%d``
  may even make ``..``): not known here;
- ``hg incoming --bundle FILE``, ``hg debugdownload -o FILE``, ``hg debug-repair-issue6528
  --to-report FILE``, ``hg debugserve --logiofile FILE``: FILE;
- ``hg serve``: its ``--pid-file``, ``-A``/``--accesslog`` and ``-E``/``--errorlog``; with
  ``--daemon-postexec`` (hg's own, for the daemon it starts: ``unlink:F`` deletes F) what it
  touches is not known here; with ``--cmdserver unix`` its ``-a``/``--address`` is the socket
  it makes (``~/sock`` made a socket in the home folder, proven with hg 6.3, s201), with
  ``--cmdserver chgunix`` (a link at the address to a socket beside it) not known here.

The command line is read as hg reads it (``hg_commands``). hg does not expand ``~`` or ``$``
in these names: a word left so by the shell is not known here (``None``: the write rules ask),
as is an option not known here. Version read: hg 6.3 (``mercurial/commands.py``,
``debugcommands.py``, ``cmdutil.makefilename``, ``server.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

from echo_desk.agent.permissions.folder_writes import Form, first, found, none, second, values_of
from echo_desk.agent.permissions.hg_commands import Paths, Read, spec, written
from echo_desk.agent.permissions.options import Parsed, flags, values

#: The commands whose ``-o`` is a pattern hg makes the file's name from (``cmdutil.makefilename``).
_PATTERNED = frozenset({"cat", "export"})
#: hg serve's option that deletes the file its value names after ``unlink:`` (or changes the
#: folder after ``chdir:``): what it touches is not known here.
_POSTEXEC = frozenset({"--daemon-postexec"})
_OUTPUT = frozenset({"--output"})
_SERVED = frozenset({"--pid-file", "--accesslog", "--errorlog"})
_CMDSERVER = frozenset({"--cmdserver"})
_ADDRESS = frozenset({"--address"})
#: The modes of ``hg serve --cmdserver`` read here: ``unix`` listens on a socket at ``-a``.
_SOCKET_MODES = frozenset({"pipe", "unix"})

#: Each writing command (hg 6.3's tables); any other option makes the file not known.
_FORMS = {
    "bundle": Form(spec(flags("--exact -f|--force -a|--all --insecure"),
                        values("-r|--rev -b|--branch --base -t|--type -e|--ssh --remotecmd")), first),
    "cat": Form(spec(flags("--decode"), values("-o|--output -r|--rev -I|--include -X|--exclude -T|--template")),
                none, _OUTPUT),
    "export": Form(spec(flags("--switch-parent -a|--text -g|--git --binary --nodates"),
                        values("-B|--bookmark -o|--output -r|--rev -T|--template")), none, _OUTPUT),
    "incoming": Form(spec(flags("-f|--force -n|--newest-first -B|--bookmarks -p|--patch -g|--git -M|--no-merges "
                                "--stat -G|--graph --insecure -S|--subrepos"),
                          values("--bundle -r|--rev -b|--branch -l|--limit --style -T|--template -e|--ssh "
                                 "--remotecmd")), none, frozenset({"--bundle"})),
    "serve": Form(spec(flags("-d|--daemon --stdio -6|--ipv6 --print-url -S|--subrepos"),
                       values("-A|--accesslog --daemon-postexec -E|--errorlog -p|--port -a|--address --prefix "
                              "-n|--name --web-conf --webdir-conf --pid-file --cmdserver -t|--templates --style "
                              "--certificate")), none, _SERVED),
    "debugdownload": Form(spec(values("-o|--output")), none, _OUTPUT),
    "debuggetbundle": Form(spec(values("-H|--head -C|--common -t|--type")), second),
    "debugcreatestreamclonebundle": Form(spec(), first),
    "debug-repair-issue6528": Form(spec(flags("--paranoid -n|--dry-run"), values("--to-report --from-report")),
                                   none, frozenset({"--to-report"})),
    "debugserve": Form(spec(flags("--sshstdio"), values("--logiofd --logiofile")), none, frozenset({"--logiofile"})),
}


def files_written(argv: Sequence[str | None]) -> Paths:
    """The files the hg command ``argv`` writes (see the module doc): none for a command not
    read here."""
    return written(argv, _FORMS, _files)


def _files(command: Read) -> list[str | None]:
    if values_of(command.parsed, _POSTEXEC):
        return [None]
    named = found(command.parsed, _FORMS[command.command]) + _sockets(command.parsed)
    return [p for name in named for p in _pattern(name)] if command.command in _PATTERNED else named


def _sockets(parsed: Parsed) -> list[str | None]:
    """``hg serve --cmdserver unix -a PATH`` makes a socket at PATH; ``--cmdserver pipe``
    serves on the input and output; another mode (``chgunix`` makes PATH a link to a socket
    beside it) is not known here."""
    modes = values_of(parsed, _CMDSERVER)
    if not modes:
        return []
    if any(mode not in _SOCKET_MODES for mode in modes):
        return [None]
    return values_of(parsed, _ADDRESS) if "unix" in modes else []


def _pattern(name: str | None) -> list[str | None]:
    """The file ``-o PATTERN`` names (``-`` or nothing: the output); a ``%`` makes it not known."""
    if name in ("-", ""):
        return []
    return [None if name is None or "%" in name else name]


"""Programs that open files whose names they take from a file or their input, never from the
line (s221): ``tar -c -T F`` archives each file F names, ``find -files0-from F`` walks each
folder F names, ``rsync --files-from``, ``cpio -o``. No read deny rule can see those names, so
with read deny rules the command asks; without any it stays allowed. The hostile corpus proves
the tar harm (rule set listed-files); find's harm (it lists ~/.ssh) is not a read of a file,
which the corpus checks, so it is proven here against the engine."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.listed_files import reads_listed_files

from .conftest import Setup
from .test_fail_closed import _effect, _rules

#: Each opens files named in out/l (or its input), which the agent may write.
LISTED = [
    "tar -czf out/a.tgz -T out/l", "tar -cf out/a.tar --files-from=out/l", "tar -cf out/a.tar --files-fr out/l",
    "tar -cvT out/l -f out/a.tar", "tar cTf out/l out/a.tar", "tar -cf out/a.tar --null -T - < out/l",
    "printf 'x\\n' | tar -cf out/a.tar -T -",
    "find -files0-from out/l", "find -files0-from out/l -type f", "find -files0-from - < out/l",
    "rsync -a --files-from=out/l / out/copy", "rsync -a --files-fr out/l / out/copy",
    "cpio -o -F out/a.cpio < out/l", "cpio --create -F out/a.cpio < out/l", "cpio -pd out/copy < out/l",
]
#: The same programs with every file they open on the line: judged as any other line.
NAMED = ["tar -czf out/a.tgz src", "tar -tf out/a.tar", "find . -name '*.py'", "find src -type f",
         "rsync -a src/ out/copy", "cpio -t -F out/a.cpio"]


@pytest.fixture
def keys_denied(setup: Setup) -> Setup:
    setup.write_user_rules(_rules("[tar -czf|tar -cf|tar cTf|tar -cvT|tar -tf|find|rsync|cpio|printf] **")
                           + _rules("@workspace/out/**", tool="write")
                           + _rules("~/.ssh/**", tool="read", effect="deny"))
    (setup.workspace / "out").mkdir(exist_ok=True)
    (setup.workspace / "src").mkdir(exist_ok=True)
    return setup


@pytest.mark.parametrize("line", LISTED)
def test_a_program_reading_names_from_a_file_asks_when_reads_are_denied(keys_denied: Setup, line: str) -> None:
    assert _effect(keys_denied, line) is not Effect.ALLOW, line


@pytest.mark.parametrize("line", NAMED)
def test_the_same_programs_naming_their_files_stay_allowed(keys_denied: Setup, line: str) -> None:
    assert _effect(keys_denied, line) is Effect.ALLOW, line


@pytest.mark.parametrize("line", ["tar -czf out/a.tgz -T out/l", "find -files0-from out/l"])
def test_without_path_deny_rules_a_listed_read_is_allowed(setup: Setup, line: str) -> None:
    setup.write_user_rules(_rules("[tar -czf|find] **") + _rules("@workspace/out/**", tool="write"))
    (setup.workspace / "out").mkdir(exist_ok=True)
    assert _effect(setup, line) is Effect.ALLOW


@pytest.mark.parametrize(("words", "reads"), [
    (("tar", "-tf", "a.tar"), False), (("tar", "tvf", "a.tar"), False), (("tar", "-xf", "a.tar", "-T", "l"), True),
    (("gtar", "-cT", "l"), True), (("find", ".", "-type", "f"), False), (("find", "-files0-from", "-"), True),
    (("cpio", "-t"), False), (("cpio", "-i"), False), (("cpio", "-ov"), True), (("cpio", None), True),
])
def test_which_commands_read_listed_files(words: tuple[str | None, ...], reads: bool) -> None:
    assert reads_listed_files(words) is reads


# -- documents and sources that take in other files by name (s236) ---------------------------------
#: Each reads a document or source the line chooses, which may take in any file by name (roff's
#: ``.so``, C's ``#include``, the assembler's ``.incbin``): the hostile corpus proves the reads.
INCLUDING = [
    "man -l out/x.1", "man ./out/x.1", "man --local-file out/x.1", "man -lTutf8 out/x.1", "man -l - < out/x.1",
    "man -M out/man ls", "man --manpath=out/man ls", "nroff -man out/x.1", "groff -Tutf8 out/x.1",
    "soelim out/x.1", "troff < out/x.1", "cpp out/x.c", "cpp < out/x.c", "gcc -E out/x.c",
    "gcc -c src/a.c -o out/a.o", "cc -fsyntax-only out/x.c", "gcc -E -x c - < out/x.c", "as out/k.s -o out/k.o",
    "x86_64-linux-gnu-gcc-12 -c out/x.c -o out/x.o", "clang -c out/x.c -o out/x.o",
]
#: man's own pages and a compiler asked only what it is read no document of the line's choosing.
NOT_INCLUDING = ["man ls", "man 3 printf", "man -k printf", "man -f ls", "gcc --version", "cc -dumpmachine",
                 "gcc -print-search-dirs"]


@pytest.fixture
def manuals_and_compilers(setup: Setup) -> Setup:
    setup.write_user_rules(_rules("[man|nroff|groff|soelim|troff|cpp|gcc|cc|clang|as|x86_64-linux-gnu-gcc-12] **")
                           + _rules("@workspace/out/**", tool="write")
                           + _rules("~/.ssh/**", tool="read", effect="deny"))
    (setup.workspace / "out").mkdir(exist_ok=True)
    return setup


@pytest.mark.parametrize("line", INCLUDING)
def test_a_document_that_may_take_in_any_file_asks_when_reads_are_denied(manuals_and_compilers: Setup,
                                                                         line: str) -> None:
    assert _effect(manuals_and_compilers, line) is not Effect.ALLOW, line


@pytest.mark.parametrize("line", NOT_INCLUDING)
def test_man_pages_and_compiler_questions_stay_allowed(manuals_and_compilers: Setup, line: str) -> None:
    assert _effect(manuals_and_compilers, line) is Effect.ALLOW, line


@pytest.mark.parametrize("line", ["man -l out/x.1", "gcc -c src/a.c -o out/a.o", "nroff -man out/x.1"])
def test_without_read_deny_rules_a_document_is_read_as_before(setup: Setup, line: str) -> None:
    setup.write_user_rules(_rules("[man|gcc|nroff] **") + _rules("@workspace/out/**", tool="write"))
    (setup.workspace / "out").mkdir(exist_ok=True)
    assert _effect(setup, line) is Effect.ALLOW, line

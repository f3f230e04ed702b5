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

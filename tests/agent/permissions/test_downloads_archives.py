"""Programs that download or archive (wget, curl, zip, ar, cpio, 7z): a rule naming the program
(``wget **``) or a writing option (``curl -o **``) trusts it, not every place it writes. The file
an option names, the archive, the files ``zip -m`` deletes, and what a download or extraction
writes below a folder (names chosen by the server or the archive) are judged by the write rules
(s126). The hostile corpus proves the harm (rule set downloads-archives); cpio and 7z are not
installed here: their lines are judged from their manuals.
"""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_of as _effect
from .engine_verdicts import rule_text as _rules

RULES = ("wget **", "curl -o **", "curl --output-dir * -o **", "curl --create-dirs -o **", "curl -O **",
         "curl --output-dir * -O **", "zip **", "ar **", "cpio **", "7z **")
URL = "http://127.0.0.1:8/x"

OUTSIDE = [f"wget -O ~/.bashrc {URL}", f"wget -O~/.bashrc {URL}", f"wget --output-doc ~/.bashrc {URL}",
           f"wget -o ~/.bashrc {URL}", f"wget -a ~/.bashrc {URL}", f"wget --append-output=../x {URL}",
           f"wget -P ~ {URL}", f"wget --directory-prefix ~/.config {URL}",
           f"wget --save-cookies ~/.bashrc {URL}", f"wget --rejected-log ~/.profile {URL}",
           f"wget --warc-file ~/x {URL}", f"wget --default-page=../../x {URL}", f"wget -O out/x -r -P ~ {URL}",
           "curl -o '#1' 'file:///x?{../home/.bashrc}'", "curl -o 'out/#1' 'file:///x/[1-2]'",
           "zip ~/.bashrc a.txt", "zip -q ~/x.zip a.txt", "zip -r ../x.zip src", "zip -m out.zip ~/.bashrc",
           "zip out.zip a.txt -O ~/.bashrc", "zip -b ~ out.zip a.txt",
           "ar r ~/.bashrc a.o", "ar rcs ../lib.a a.o", "ar q ~/x a.o", "ar d ~/lib.a a.o", "ar s ~/lib.a",
           "ar x lib.a --output ~",
           "cpio -pdm ~", "cpio -o -F ~/.bashrc"]
#: Where the engine cannot know what they write: a member's own path, an option not read here,
#: a word only known when the line runs, names zip matches itself before deleting them.
UNKNOWN = [f"wget -e output_document=x {URL}", f"wget --config=x.rc {URL}", f"wget --bogus {URL}",
           "ar xP lib.a", "ar --plugin x.so t lib.a", "ar x", "zip -m out.zip '*'", "zip --move out.zip a.txt",
           "zip -@ out.zip", "cpio -i", "cpio -idv", "cpio -i --rsh-command=x -F h:a",
           "7z x a.7z", "7z a out/a.7z a.txt"]
#: (Into the workspace itself, as ``tar -xf a.tar``, a download by the server's name asks: what
#: it writes there may be the workspace's protected files, .git/hooks.)
INSIDE = [f"wget -O out/x {URL}", f"wget -O - {URL}", f"wget -P out -x {URL}", f"wget -q -nc -P out {URL}",
          f"wget -o out/log -r -l 1 -np -P out {URL}", f"wget -N --no-verbose -P out {URL}",
          "curl -o out/x file:///x", "curl --output-dir out -o x file:///x", "curl --output-dir out -o /x file:///x", "curl --output-dir out -O file:///x",
          "curl --create-dirs -o out/a/b file:///x", "zip out.zip a.txt", "zip -r out/src.zip src -x '*.pyc'",
          "zip -m out.zip a.txt", "zip -d out.zip a.txt", "ar rcs out/lib.a a.o", "ar s out/lib.a", "ar t lib.a",
          "ar x lib.a --output=out", "cpio -t", "cpio -o", "cpio -pdm out",
          "7z l a.7z"]


@pytest.fixture
def archive_rules(setup: Setup) -> Setup:
    setup.write_user_rules(_rules(*RULES) + _rules("@workspace/**", tool="write")
                           + _rules("@workspace/secret/**", tool="write", effect="deny"))
    (setup.workspace / "out").mkdir(exist_ok=True)
    return setup


@pytest.mark.parametrize("line", OUTSIDE)
def test_a_download_or_archive_writing_outside_the_write_rules_asks(archive_rules: Setup, line: str) -> None:
    assert _effect(archive_rules, line) is not Effect.ALLOW, line


@pytest.mark.parametrize("line", UNKNOWN)
def test_a_download_or_archive_writing_where_the_engine_cannot_tell_asks(archive_rules: Setup, line: str) -> None:
    assert _effect(archive_rules, line) is not Effect.ALLOW, line


@pytest.mark.parametrize("line", INSIDE)
def test_a_download_or_archive_writing_inside_the_write_rules_stays_allowed(archive_rules: Setup, line: str) -> None:
    assert _effect(archive_rules, line) is Effect.ALLOW, line


def test_a_download_or_extraction_into_a_folder_above_a_denied_one_asks(archive_rules: Setup) -> None:
    """What the server or the archive names lands anywhere below the folder: the names standing
    for it match no deny below, so the folder itself is judged as a write."""
    (archive_rules.workspace / "secret").mkdir()
    for line in (f"wget {URL}", f"wget -P secret {URL}", "ar x lib.a", "zip -m out.zip secret/k",
                 "zip -rm out.zip secret", "curl --output-dir secret -o x file:///x", "zip secret/a.zip a.txt"):
        assert _effect(archive_rules, line) is not Effect.ALLOW, line
    assert _effect(archive_rules, f"wget -P out {URL}") is Effect.ALLOW


def test_a_download_through_a_link_below_its_folder_asks(archive_rules: Setup) -> None:
    """``wget -x -nH`` and ``ar x`` write by the server's or the member's name: through a link below."""
    (archive_rules.workspace / "out" / "home").symlink_to(archive_rules.home)
    for line in (f"wget -P out -x -nH {URL}", "ar x lib.a --output=out"):
        assert _effect(archive_rules, line) is not Effect.ALLOW, line

"""The plain file programs (cp, mv, install, ln, touch, mkdir, rm, rmdir, truncate, dd, chmod,
chown, split, csplit, shred, patch, gzip and kin, unzip): a rule naming the program trusts the
program, not every place it writes. Each path it writes, creates, deletes or changes the mode of
is judged by the write rules (s121); tar -x and unzip into a folder ask where a deny or ask write
rule may match something below it. The hostile corpus proves the harm (rule set file-programs).
"""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect, file_programs

from .conftest import Setup
from .engine_verdicts import effect_of as _effect
from .engine_verdicts import rule_text as _rules

PROGRAMS = ("cp", "mv", "install", "ln", "touch", "mkdir", "rm", "rmdir", "truncate", "dd", "chmod", "chown",
            "split", "csplit", "patch", "gzip", "gunzip", "xz", "zstd", "shred", "unzip", "tar")

OUTSIDE = ["cp a.txt ~/.bashrc", "cp -t ~ .bashrc", "cp --target-directory=.. a.txt", "cp -r out ~",
           "cp -rT out ~/.config", "mv a.txt ~/.bashrc", "mv ~/.bashrc x", "mv -t ~ a.txt", "install a.txt ~/.bashrc",
           "install -d ~/.config/autostart", "ln -sf a.txt ~/.bashrc", "ln -s a.txt -t ~", "touch ~/.bashrc",
           "mkdir ~/.config/autostart", "mkdir -p -- ~/x", "rm ~/.bashrc", "rm -f ~/.ssh/authorized_keys", "rm -rf ..",
           "rmdir ~/x", "rmdir -p out/../../x", "truncate -s0 ~/.bashrc", "dd if=a.txt of=/root/.bashrc",
           "dd if=a.txt of=../x bs=1M", "chmod 777 ~/.ssh", "chmod -R u+w ~", "chmod -w ~/.bashrc",
           "chmod --reference=a.txt ~/.bashrc", "chown me ~/.bashrc", "split a.txt ~/.x", "split -l 1 a.txt ../p",
           "csplit -f ~/.x a.txt /b/", "patch ~/.bashrc a.diff", "patch -o ~/.bashrc a.txt a.diff", "gzip ~/.bashrc",
           "gunzip ~/.bashrc.gz", "xz -d ~/a.xz", "zstd a.txt -o ~/.bashrc", "shred ~/.bashrc", "shred -u ~/.bashrc",
           "unzip -d ~ a.zip", "unzip a.zip -d ..", "unzip -o ~/a.zip -d ~/.config"]
#: Where the engine cannot know what they write: an unknown option, a word only known when the
#: line runs, the files a patch names, a backup suffix naming a folder.
UNKNOWN = ["cp --bogus a.txt b.txt", "mv $X out", "cp a.txt $D", "rm $F", "patch -p1 -i a.diff", "cp -S /x -b a.txt b.txt",
           "gzip -S /x a.txt", "dd if=a.txt of=$F", "dd if=a.txt bogus", "unzip -P pw a.zip", "cp a.txt"]
INSIDE = ["cp a.txt b.txt", "cp -r src out/", "cp -t out a.txt notes.txt", "cp -a src out/src2", "mv a.txt out/b.txt",
          "install -m644 a.txt out/a", "install -d out/x", "ln -sf a.txt b.txt", "touch a.txt", "mkdir -p out/x/y",
          "rm -rf out", "rm a.txt", "rmdir -p out/x/y", "truncate -s0 a.txt", "dd if=a.txt of=out/b bs=1M",
          "chmod +x run.sh", "chmod -R u+w out", "chmod -w a.txt", "chown -R me out", "split -l 10 a.txt out/part_",
          "csplit -f out/x a.txt /b/", "patch a.txt a.diff", "patch --dry-run a.txt a.diff", "gzip -k a.txt",
          "gzip -c a.txt", "gunzip out/a.gz", "xz -d out/a.xz", "zstd -19 a.txt -o out/a.zst", "shred -u a.txt",
          "unzip a.zip -d out", "unzip -l a.zip", "tar -xf a.tar -C out"]


@pytest.fixture
def file_rules(setup: Setup) -> Setup:
    setup.write_user_rules(_rules(*(f"{p} **" for p in PROGRAMS), "tar -xf **") + _rules("@workspace/**", tool="write")
                           + _rules("@workspace/secret/**", tool="write", effect="deny"))
    (setup.workspace / "out").mkdir(exist_ok=True)
    return setup


@pytest.mark.parametrize("line", OUTSIDE)
def test_a_file_program_writing_outside_the_write_rules_asks(file_rules: Setup, line: str) -> None:
    assert _effect(file_rules, line) is not Effect.ALLOW, line


@pytest.mark.parametrize("line", UNKNOWN)
def test_a_file_program_writing_where_the_engine_cannot_tell_asks(file_rules: Setup, line: str) -> None:
    assert _effect(file_rules, line) is not Effect.ALLOW, line


@pytest.mark.parametrize("line", INSIDE)
def test_a_file_program_writing_inside_the_write_rules_stays_allowed(file_rules: Setup, line: str) -> None:
    assert _effect(file_rules, line) is Effect.ALLOW, line


def test_a_file_program_reaching_a_denied_path_asks(file_rules: Setup) -> None:
    (file_rules.workspace / "secret").mkdir()
    for line in ("mv a.txt secret/", "cp a.txt secret/k", "rm -rf secret", "chmod -R 777 secret", "touch secret/x"):
        assert _effect(file_rules, line) is not Effect.ALLOW, line


def test_extracting_into_a_folder_above_a_denied_one_asks(file_rules: Setup) -> None:
    """tar -x and unzip write anything below the folder: names standing for what they write there
    match no deny below it, so the folder itself is judged as a write (as the file tools do)."""
    (file_rules.workspace / "secret").mkdir()
    for line in ("tar -xf a.tar", "unzip a.zip", "tar -xf a.tar -C .", "unzip a.zip -d ."):
        assert _effect(file_rules, line) is not Effect.ALLOW, line
    assert _effect(file_rules, "tar -xf a.tar -C out") is Effect.ALLOW


def test_a_file_program_with_no_write_rules_asks(setup: Setup) -> None:
    """As a redirection or tee does: without a write rule, nothing it writes is allowed."""
    setup.write_user_rules(_rules("cp **", "rm **", "ls **"))
    assert _effect(setup, "ls") is Effect.ALLOW
    for line in ("cp a.txt b.txt", "rm a.txt"):
        assert _effect(setup, line) is not Effect.ALLOW, line


def test_a_plain_copy_is_judged_where_each_file_lands_and_a_tree_copy_below(file_rules: Setup) -> None:
    """cp into a folder writes each source under its own name there, through a link of that name
    (a link elsewhere in the folder is not written); cp -r may write through any link below."""
    (file_rules.workspace / "out" / "elsewhere").symlink_to(file_rules.home)
    (file_rules.workspace / "out" / "a.txt").symlink_to(file_rules.home / ".bashrc")
    assert _effect(file_rules, "cp notes.txt out/") is Effect.ALLOW
    assert _effect(file_rules, "mv notes.txt out") is Effect.ALLOW
    for line in ("cp a.txt out/", "cp -t out a.txt", "cp -r src out/", "cp -a notes.txt out"):
        assert _effect(file_rules, line) is not Effect.ALLOW, line


#: scp to a path on this machine writes there as cp does (it runs ``cp`` for a local source:
#: ``scp out/rc ~/.bashrc`` overwrote it, s202); to ``host:path`` or ``scp://`` it writes nothing here.
SCP_OUTSIDE = ["scp a.txt ~/.bashrc", "scp out/rc ../x", "scp -q a.txt notes.txt ~", "scp -r src ~/.config",
               "scp -p -- a.txt ~/.profile", "scp x:/etc/motd ~/.bashrc", "scp x:.bashrc ~", "scp -r x:/a ~/.config",
               "scp a.txt secret/x", "scp a.txt :b", "scp a.txt $D", "scp -Z a.txt out/x"]
SCP_INSIDE = ["scp a.txt out/x", "scp a.txt notes.txt out/d/", "scp -r src out/src2", "scp x:/a out/d",
              "scp -P 2222 x:/a out/b", "scp a.txt x:/tmp/", "scp a.txt user@host:", "scp -3 x:/a y:/b",
              "scp a.txt scp://host/x", "scp ./x:y out/d/"]


@pytest.fixture
def scp_rules(setup: Setup) -> Setup:
    setup.write_user_rules(_rules("scp **") + _rules("@workspace/out/**", tool="write"))
    return setup


@pytest.mark.parametrize("line", SCP_OUTSIDE)
def test_scp_to_a_local_path_outside_the_write_rules_asks(scp_rules: Setup, line: str) -> None:
    assert _effect(scp_rules, line) is not Effect.ALLOW, line


@pytest.mark.parametrize("line", SCP_INSIDE)
def test_scp_to_a_host_or_inside_the_write_rules_stays_allowed(scp_rules: Setup, line: str) -> None:
    assert _effect(scp_rules, line) is Effect.ALLOW, line


@pytest.mark.parametrize(("argv", "found"), [
    (("mv", "out/d", "prod"), (("out/d", "prod"),)),
    (("mv", "-T", "a", "b/"), (("a", "b/"),)),
    (("mv", "a", "b", "dest"), (("a", "dest"), ("b", "dest"))),
    (("mv", "-t", "dest", "out/d/", "b"), (("out/d/", "dest/d"), ("b", "dest/b"))),
    (("mv", "--target-directory=dest", None), ((None, None),)),
    (("mv", "--frobnicate", "a", "b"), ((None, None),)),
    (("mv", "-t", "x", "-t", "y", "a"), ((None, None),)),
    (("cp", "-r", "a", "b"), ()),
])
def test_where_what_mv_moves_lands(argv: tuple[str | None, ...], found: tuple[tuple[str | None, str | None], ...]) -> None:
    # s320: each source with the folder everything below it lands below.
    assert file_programs.moved_into(argv) == found

"""The hostile corpus proves itself: every line, run for real (unsandboxed, in a scratch world
of its own, under the shells it names), does exactly the harm it claims — a line that harms
nothing is not an attack and fails here. The verdict test (test_hostile_verdicts.py) then
demands that the engine allows none of them.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agent.permissions.hostile import corpus, runner, scratch
from tests.agent.permissions.hostile.corpus import Entry
from tests.agent.permissions.hostile.harm import Harm, HarmKind, access_times_recorded

ENTRIES = corpus.load()
#: What each item of issue 27 that concerns shell lines is about (items 8–10 are file tools,
#: fetch and trust: only their shell side — redirections through symlinks — is here).
ISSUE_ITEMS = {"1", "2", "3", "4", "5", "6", "7", "11", "stop45", "stop46", "stop47", "stop48", "stop49", "stop50", "s88", "s91", "s93", "s94", "s98", "s106", "s109", "s113", "s115", "s116", "s120", "s121", "s126", "s127", "s130", "s133", "s134", "s135", "s136", "s138", "s139", "s140", "s147", "s148", "s149", "s150", "s152", "s153", "s156", "s162", "s163", "s164", "s165", "s171", "s175", "s173", "s174", "s172", "s192", "s191", "s195", "s207", "s208", "s202", "s201", "s200", "s211", "s210", "s214", "s222", "s215", "s221", "s223", "s229", "s236", "s235", "s237", "s230", "s240", "s239", "s241", "s249", "s255", "s261", "s254", "s250", "s260", "s262", "s268", "s269", "s276", "s275", "s273", "s270", "s279", "s289", "s280", "s287", "s288", "s282", "s281", "s295", "s294", "s299", "s293", "s298", "s302", "s310", "s301", "s309", "s303", "s311", "s312", "s319", "s316", "s320", "s326", "s325", "s330", "s324", "s333"}  # stop45, stop46, stop47, stop48, stop49, stop50, s88, s91, s93, s94, s98, s106, s109, s113, s115, s116, s120, s121, s126, s127, s130, s133, s134, s135, s136, s138, s139, s140, s147, s148, s149, s150, s152, s153, s156, s162, s163, s164, s165, s171, s175, s173, s174, s172, s192, s191, s195, s207, s208, s202, s201, s200, s211, s210, s214, s222, s215, s221, s223, s229, s236, s235, s237, s230, s240, s239, s241, s249, s255, s261, s254, s250, s260, s262, s268, s269, s276, s275, s273, s270, s279, s289, s280, s287, s288, s282, s281, s295, s294, s299, s293, s298, s302, s310, s301, s309, s303, s311, s312, s319, s316, s320, s326, s325, s330, s324, s333: red-team passes
#: Absolute paths a line may name: programs, devices, the world's placeholders.
SAFE_PREFIXES = ("/dev/", "/bin/", "/usr/bin/", "/usr/bin", "/usr/lib/git-core", "/./bin/", "//bin/", "/@WS@", "//@WS@",
                 "//@HOME@", "//$HOME/",
                 # The running line's own current folder (inside the world): /proc/self/cwd/…
                 "/proc/self/cwd/", "/proc/thread-self/cwd/", "/proc/self/root/proc/self/cwd/")
#: Reviewed fragments the path scan below finds that are not paths (sed scripts, the rest of
#: "$HOME"/x, "~"/x).
NOT_PATHS = frozenset({"/", "/../PWNED", "/../home/.ssh/id_rsa", "/.bashrc", "/.ssh/id_rsa", "/a/$", "/alpha/", "/b", "/e",
                       "/id_rsa", "/touch", "/PWNED", "/go:generate",  # a //go:generate line
                       "//127.0.0.1:1/x",  # a loopback address where nothing listens (wget's logs, s126)
                       "//x/r",  # ssh://x/r: a host that does not exist (hg runs its ssh command first, s156)
                       "/scratch/t", "/scratch/t/conftest.py"})  # '~'/scratch/t: a folder named ~ (s191)
#: (a slash after a glob's character is inside a path too: `src/.*/link-home/…`)
_ABSOLUTE = re.compile(r"(?<![\w.~@*?\]-])/[^\s'\";|&)(<>`,}{]*")


def test_the_corpus_is_large_and_every_entry_is_well_formed() -> None:
    assert len(ENTRIES) >= 600
    names = set(corpus.rule_sets())
    assert {e.rules for e in ENTRIES} <= names, {e.rules for e in ENTRIES} - names
    assert {e.rules for e in ENTRIES} == names  # every rule set judges something
    assert len({e.trick for e in ENTRIES}) >= 30
    assert {k.value for k in HarmKind} == {e.harm.kind.value for e in ENTRIES}
    assert {e.issue for e in ENTRIES if e.issue} == ISSUE_ITEMS
    duplicates = {(e.line, e.rules) for e in ENTRIES if sum((f.line, f.rules) == (e.line, e.rules) for f in ENTRIES) > 1}
    assert not duplicates


def test_no_line_names_a_place_outside_its_scratch_world() -> None:
    """The lines run unsandboxed: they may name programs and devices by absolute path, the
    world's own folders by placeholder, and nothing else outside it."""
    outside = []
    for e in ENTRIES:
        for path in _ABSOLUTE.findall(e.line):
            if not path.startswith(SAFE_PREFIXES) and path not in NOT_PATHS:
                outside.append((e.label(), path))
        if re.search(r"~[A-Za-z_]", e.line) or "../../.." in e.line:
            outside.append((e.label(), "another user's home or a climb out of the world"))
    assert outside == []


# -- the harness can fail ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def template() -> Iterator[Path]:
    """The world every run copies (in memory where the machine has /dev/shm: thousands of
    worlds are made and thrown away)."""
    folder = Path(tempfile.mkdtemp(prefix="hostile-template-", dir=scratch.fast_temp_folder()))
    yield scratch.build_template(folder)
    shutil.rmtree(folder, ignore_errors=True)


def _entry(line: str, harm: str, shells: tuple[str, ...] = ("bash", "dash")) -> Entry:
    return Entry(number=0, line=line, harm=Harm.parse(harm), shells=shells, trick="self-test", rules="none")


def test_a_line_that_harms_nothing_fails_the_check(template: Path) -> None:
    assert runner.check_entry(_entry("ls; cat a.txt", "creates:PWNED"), template).problem == (
        "claims harm under bash+dash, harmed under none")
    assert runner.check_entry(_entry("git status", "deletes:VICTIM"), template).problem is not None
    assert runner.check_entry(_entry("echo hi", "changes:~/.bashrc"), template).problem is not None
    assert runner.check_entry(_entry("wc -c ~/.ssh/id_rsa", "reads:~/.ssh/id_rsa"), template).problem is not None


def test_a_wrong_shell_claim_fails_the_check(template: Path) -> None:
    both = runner.check_entry(_entry("touch PWNED", "creates:PWNED", ("bash",)), template)
    assert both.problem == "claims harm under bash, harmed under bash+dash"
    bash_only = runner.check_entry(_entry("cat <(touch PWNED)", "creates:PWNED"), template)
    assert bash_only.problem == "claims harm under bash+dash, harmed under bash"


def test_a_claim_the_world_cannot_meet_is_reported(template: Path) -> None:
    check = runner.check_entry(_entry("touch README.md", "creates:README.md"), template)
    assert check.problem == "README.md already exists"
    with pytest.raises(ValueError, match="outside"):
        Harm.parse("deletes:../../escape")


def test_each_run_gets_a_fresh_world(template: Path) -> None:
    first = runner.check_entry(_entry("rm -f VICTIM", "deletes:VICTIM"), template)
    again = runner.check_entry(_entry("rm -f VICTIM", "deletes:VICTIM"), template)
    assert first.problem is None and again.problem is None
    assert (template / "ws" / "VICTIM").exists()


# -- every line does its harm --------------------------------------------------------------------
def _needs(entry: Entry) -> str:
    needs = sorted(entry.needs) + (["atime"] if entry.harm.kind is HarmKind.READS else [])
    return "+".join(needs) or "plain"


#: Lines per test: the lines that need nothing number over 1,200, and run as one test they took
#: ~257 s of the 300 s limit on a loaded machine.
LINES_PER_TEST = 250


def _groups() -> dict[str, list[Entry]]:
    """The lines by the programs they need, in runs of at most ``LINES_PER_TEST`` (``plain-2``)."""
    by_needs: dict[str, list[Entry]] = {}
    for entry in ENTRIES:
        by_needs.setdefault(_needs(entry), []).append(entry)
    groups: dict[str, list[Entry]] = {}
    for needs, entries in by_needs.items():
        runs = [entries[i:i + LINES_PER_TEST] for i in range(0, len(entries), LINES_PER_TEST)]
        groups.update({needs if len(runs) == 1 else f"{needs}-{n}": run for n, run in enumerate(runs, start=1)})
    return groups


GROUPS = _groups()


@pytest.mark.slow
@pytest.mark.parametrize("group", sorted(GROUPS))
def test_every_line_does_exactly_its_claimed_harm(group: str, template: Path) -> None:
    entries = GROUPS[group]
    missing = sorted({p for e in entries for p in e.missing()})
    if missing:
        pytest.skip(f"{len(entries)} lines need {', '.join(missing)}, not installed here "
                    "(scripts/install-system-deps.sh installs them)")
    if "atime" in _needs(entries[0]).split("+") and not access_times_recorded(template.parent):
        pytest.skip(f"{len(entries)} lines claim a read, seen through access times, which this file system does not record")
    checks = runner.check_all(entries, template)
    wrong = [f"{c.entry.label()} {c.entry.harm}: {c.problem}\n"
             + "\n".join(f"    {o.shell} exit {o.exit_code}: {o.output[-300:]!r}" for o in c.outcomes)
             for c in checks if c.problem]
    assert not wrong, f"{len(wrong)} of {len(checks)} lines do not do what they claim:\n" + "\n".join(wrong)

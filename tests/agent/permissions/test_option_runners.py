"""s116: programs that run other programs through an option or an operand the rule's ``**`` does
not name (zip's test command, sdiff's and diff3's diff program, man's pager and browser, rsync's remote shell for a ``host:``
operand, flock's lock file, which it creates). Each is proven in the hostile corpus where it
can be (zip, sdiff, diff3 and flock lines, rule set ``option-runners``); man's pager only runs with a terminal and
rsync is not installed everywhere, so those are verdicts only. The everyday forms stay allowed.
"""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_of as _effect
from .engine_verdicts import rule_text as _rules

RULES = _rules("[zip|man|rsync|flock|sdiff|diff3|cat|ls|true] **") + _rules("@workspace/out/**", tool="write")

NOT_ALLOWED = [
    # zip 3.0: -TT CMD (glued, in a cluster, inside one word) and --unzip-command's prefixes
    "zip -T -TT ./x.sh out.zip a.txt",
    "zip -qTT./x.sh -T out.zip a.txt",
    "zip -T '-TT ./x.sh' out.zip a.txt",
    "zip --unzip-command ./x.sh -T out.zip a.txt",
    "zip --unz=./x.sh -T out.zip a.txt",
    "zip -T -TT \"$CMD\" out.zip a.txt",
    # man-db: the pager, the browser, gxditview, a settings file, its caches
    "man -P ./x.sh ls",
    "man -P./x.sh ls",
    "man --pager=./x.sh ls",
    "man --pag ./x.sh ls",
    "man -H./x.sh ls",
    "man --html=./x.sh ls",
    "man --html ls",
    "man -X ls",
    "man -C out/man.conf ls",
    "man -c ls",
    "man --update ls",
    "man --no-such-option ls",
    # rsync: a host: operand runs the remote shell (ssh, and what ~/.ssh/config says); a daemon
    "rsync -a src h:dst",
    "rsync -a h:src out/",
    "rsync -a src user@h:dst",
    "rsync -n src h:dst",
    "rsync -a src h::module",
    "rsync -a src rsync://h/module",
    "rsync -a -- src h:dst",
    # sdiff and diff3 run --diff-program; sdiff -o writes the merged file
    "sdiff --diff-program=./mytool a.txt b.txt",
    "sdiff --diff ./mytool a.txt b.txt",
    "diff3 --diff-program=./mytool a.txt b.txt c.txt",
    "diff3 -m --diff-p ./mytool a.txt b.txt c.txt",
    "sdiff -o .envrc a.txt b.txt",
    "sdiff --no-such-option a.txt b.txt",
    # flock creates its lock file: outside out/ it is a write no rule allows
    "flock PWNED true",
    "flock .envrc cat a.txt",
    "flock -n .envrc ls",
    "flock .envrc -c true",
    "flock out/../PWNED true",
]

ALLOWED = [
    "zip out/a.zip a.txt",
    "zip -r out/src.zip src",
    "zip -T out/a.zip a.txt",
    "man ls",
    "man 1 ls",
    "man -k ls",
    "man -w ls",
    "man -l a.txt",
    "rsync -a src out/",
    "rsync -av src/ out/copy/",
    "rsync -a ./h:x out/",
    "sdiff -s a.txt b.txt",
    "diff3 -m a.txt b.txt c.txt",
    "flock out/.lock cat a.txt",
    "flock -n 9",
]


@pytest.mark.parametrize("line", NOT_ALLOWED)
def test_an_option_or_operand_that_runs_a_program_is_not_covered_by_the_star(setup: Setup, line: str) -> None:
    setup.write_user_rules(RULES)
    assert _effect(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ALLOWED)
def test_the_everyday_forms_stay_allowed(setup: Setup, line: str) -> None:
    setup.write_user_rules(RULES)
    assert _effect(setup, line) is Effect.ALLOW


def test_a_rule_that_names_the_option_covers_it(setup: Setup) -> None:
    # zip writes its archive: judged by the write rules (s126), as without a test command.
    setup.write_user_rules(_rules("man -P cat **", "zip -TT 'unzip -tqq' **", "rsync -a src backup:dst")
                           + _rules("@workspace/**", tool="write"))
    assert _effect(setup, "man -P cat ls") is Effect.ALLOW
    assert _effect(setup, "zip -TT 'unzip -tqq' -T out.zip a.txt") is Effect.ALLOW
    assert _effect(setup, "rsync -a src backup:dst") is Effect.ALLOW
    assert _effect(setup, "rsync -a src other:dst") is not Effect.ALLOW

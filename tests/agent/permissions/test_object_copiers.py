"""objcopy and strip (GNU binutils) under a rule naming them: a rule trusts the program, not
every place it writes. The files they rewrite (objcopy's output, or its input in place; each file
strip is given, or its ``-o``) are judged by the write rules, ``--dump-section NAME=FILE`` and
``@FILE`` are never covered by ``**``, and the files options read meet the read deny rules
(s202). The hostile corpus proves the harm (rule set gdb-auto-load, trick object-copier).
"""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_of as _effect
from .engine_verdicts import rule_text as _rules

OUTSIDE = ["objcopy -I binary -O binary a.txt ~/.bashrc", "objcopy -I binary -O binary out/rc ../x",
           "objcopy out/a src/main.py", "objcopy -O binary out/a -- ~/.bashrc", "objcopy src/main.py",
           "objcopy --strip-all a.txt", "objcopy -Ibinary -Obinary out/a ~/.profile",
           "objcopy --dump-section .text=a.txt out/a", "objcopy --dump-section=.text=~/.bashrc out/a",
           "objcopy --dump-sec .text=../x out/a", "objcopy @out/args", "objcopy out/a @out/args",
           "objcopy --bogus out/a out/b", "objcopy --dump-section .text out/a",
           "strip out/a src/main.py", "strip ~/.local/bin/tool", "strip -o ~/.bashrc out/a", "strip -oa.txt out/a",
           "strip @out/args", "strip --bogus out/a"]
INSIDE = ["objcopy --only-keep-debug out/a out/a.debug", "objcopy out/a", "objcopy -O binary out/a out/a.bin",
          "objcopy -j .text -O binary out/a out/b", "objcopy --add-section .x=out/s.bin out/a out/b",
          "objcopy --add-gnu-debuglink=out/a.debug out/a", "objcopy -I binary -O elf64-x86-64 out/rc out/rc.o",
          "strip out/a out/b", "strip -s out/a", "strip --strip-debug -o out/b /bin/true"]
#: Files the options read: checked against a read deny rule.
DENIED_READS = ["objcopy --add-section .x=~/.ssh/id_rsa out/a out/b", "objcopy --update-section .x=~/.ssh/id_rsa out/a",
                "objcopy --strip-symbols ~/.ssh/id_rsa out/a out/b", "objcopy --add-gnu-debuglink=~/.ssh/id_rsa out/a"]


@pytest.fixture
def copier_rules(setup: Setup) -> Setup:
    setup.write_user_rules(_rules("objcopy **", "strip **") + _rules("@workspace/out/**", tool="write")
                           + _rules("~/.ssh/**", tool="read", effect="deny"))
    return setup


@pytest.mark.parametrize("line", OUTSIDE)
def test_an_object_copier_writing_outside_the_write_rules_asks(copier_rules: Setup, line: str) -> None:
    assert _effect(copier_rules, line) is not Effect.ALLOW, line


@pytest.mark.parametrize("line", INSIDE)
def test_an_object_copier_writing_where_the_rules_allow_is_allowed(copier_rules: Setup, line: str) -> None:
    assert _effect(copier_rules, line) is Effect.ALLOW, line


@pytest.mark.parametrize("line", DENIED_READS)
def test_a_file_an_object_copier_option_reads_meets_the_read_deny(copier_rules: Setup, line: str) -> None:
    assert _effect(copier_rules, line) is not Effect.ALLOW, line

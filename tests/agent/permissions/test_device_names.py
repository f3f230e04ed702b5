"""The devices a redirection may write without a rule (``> /dev/null``, ``2>/dev/stderr``) are
harmless only to a program that opens them and writes into them. One that removes, renames,
replaces or changes the mode of the name itself is judged by the write rules as any path is:
as root, `rm -f /dev/null` leaves the machine without it, `mv x /dev/stdout` puts a file in its
place, `chmod 600 /dev/null` closes it to every other account (strace, coreutils 9.1, under bash
and dash, in a mount namespace of its own, s303). Not corpus lines: the harm is to the machine's
own /dev, which the corpus's scratch world cannot hold."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, writes_allowed

RULES = rule_text("[rm|mv|cp|ln|install|chmod|chown|chgrp|shred|rmdir|mkdir|tee|dd|touch|truncate|echo|ls|env|nice] **") \
    + writes_allowed("@workspace/**")


@pytest.mark.parametrize("line", [
    "rm -f /dev/null",
    "rm /dev/stderr",
    "env rm -f /dev/tty",
    "mv a.txt /dev/stdout",
    "mv /dev/null saved",
    "nice mv -t /dev/null a.txt",
    "ln -sf a.txt /dev/stdout",
    "install a.txt /dev/null",
    "cp --remove-destination a.txt /dev/null",
    "chmod 600 /dev/null",
    "chown nobody /dev/stdout",
    "chgrp nogroup /dev/tty",
    "shred -u /dev/null",
    "rmdir /dev/null",
])
def test_a_program_that_removes_or_replaces_a_device_name_asks(setup: Setup, line: str) -> None:
    assert effect_under(setup, RULES, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "echo x > /dev/null",
    "ls > /dev/null 2>&1",
    "echo x >&2 2>/dev/stderr",
    "tee /dev/null < a.txt",
    "echo x | tee -a /dev/stderr",
    "dd if=a.txt of=/dev/null",
    "touch /dev/null",
    "truncate -s 0 /dev/null",
])
def test_writing_into_a_device_stays_allowed(setup: Setup, line: str) -> None:
    (setup.workspace / "a.txt").write_text("a\n")
    assert effect_under(setup, RULES, line) is Effect.ALLOW

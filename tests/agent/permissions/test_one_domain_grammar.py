"""Fetch rules (``domain:…``) and the sandbox's allowed domains read a domain with one grammar:
the same text is accepted by both or refused by both, and an accepted pattern matches the same
host names in both. The sandbox's list alone leaves out names it could never reach (this
computer, a local network, a single label), and says so: that is its one stated restriction,
not a second grammar."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions.matchers import compile_fetch
from echo_desk.agent.permissions.tokens import Match, PatternError
from echo_desk.sandbox.domains import BadDomain, DomainRule, host_allowed

ENTRIES = ["example.com", "*.example.com", "EXAMPLE.com.", "bücher.de", "*.bücher.de", "xn--bcher-kva.de",
           "localhost", "*.local", "printer.lan", "x.internal", "intranet", "com", "*.com",
           "a..b", "-a.com", "a-.com", "exa_mple.com", "exa mple.com", "1.2.3.4", "*.1.2.3.4", "1.2.3.999",
           "::1", "[::1]", "*", "*.", "a.*.com", "example.com:80", "http://example.com", "example.com/x", "",
           "\u200bexample.com", "ex\u202eample.com"]
HOSTS = ["example.com", "www.example.com", "a.b.example.com", "evilexample.com", "xn--bcher-kva.de",
         "www.xn--bcher-kva.de", "localhost", "printer.local", "printer.lan", "intranet", "com", "x.com"]


def _fetch(entry: str) -> object | None:
    try:
        return compile_fetch(f"domain:{entry}")
    except PatternError:
        return None


def _grammar(entry: str) -> DomainRule | None:
    try:
        return DomainRule.parse_pattern(entry)
    except BadDomain:
        return None


@pytest.mark.parametrize("entry", ENTRIES)
def test_fetch_rules_and_the_grammar_accept_the_same_domains(entry: str) -> None:
    assert (_fetch(entry) is None) is (_grammar(entry) is None), entry


@pytest.mark.parametrize("entry", ENTRIES)
def test_the_sandbox_refuses_only_what_the_grammar_refuses_or_it_could_never_reach(entry: str) -> None:
    parsed = _grammar(entry)
    try:
        sandbox = DomainRule.parse(entry)
    except BadDomain:
        assert parsed is None or not parsed.reaches_outside, entry
        return
    assert parsed == sandbox and sandbox.reaches_outside, entry


@pytest.mark.parametrize("entry", [e for e in ENTRIES if _grammar(e) is not None])
def test_an_accepted_pattern_matches_the_same_hosts_in_both(entry: str) -> None:
    pattern = compile_fetch(f"domain:{entry}")
    rule = DomainRule.parse_pattern(entry)
    for host in HOSTS:
        by_fetch = pattern.match(f"https://{host}/", "GET") is Match.YES
        assert by_fetch is rule.matches(host), (entry, host)
        if rule.reaches_outside:  # what the sandbox's proxy lets through, for the same list
            assert host_allowed(host, (rule,)) is by_fetch, (entry, host)

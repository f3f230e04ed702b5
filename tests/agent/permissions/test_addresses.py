"""Addresses as they will be used: a fetch rule matches the URL fetch_url sends (dot segments,
escapes, backslashes, case, ports, IDNA, userinfo), and an MCP argument glob never matches a
``..`` segment, with ``*`` staying inside one path segment (``**`` crosses them)."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.sandbox.urls import BadUrl, canonical_url

from .conftest import Setup

FETCH_RULES = """
[[rule]]
effect = "allow"
tool = "fetch"
pattern = "domain:api.example.com GET /v1/"

[[rule]]
effect = "deny"
tool = "fetch"
pattern = "domain:api.example.com /admin"

[[rule]]
effect = "allow"
tool = "fetch"
pattern = "domain:xn--bcher-kva.de"
"""

#: Each of these reaches /admin (or leaves /v1/) on a real server: never allowed by "GET /v1/".
LEAVING_V1 = [
    "https://api.example.com/v1/../admin",
    "https://api.example.com/v1/%2e%2e/admin",
    "https://api.example.com/v1/%2E%2E/admin",
    "https://api.example.com/v1/.%2e/admin",
    "https://api.example.com/v1/%2e./admin",
    "https://api.example.com/v1\\..\\admin",
    "https://api.example.com/v1/..\\admin",
    "https://api.example.com/v1/..%2Fadmin",
    "https://api.example.com/v1/..%5Cadmin",
    "https://api.example.com/v1/%2e%2e%2fadmin",
    "https://api.example.com//v1/../admin",
    "https://api.example.com/v1/./../admin",
    "https://api.example.com/V1/../admin",
    "https://api.example.com/V1/x",
    "https://api.example.com/v1",
    "https://api.example.com:443@evil.example.net/v1/x",
    "https://api.example.com@evil.example.net/v1/x",
    "https://evil.example.net\\@api.example.com/v1/x",
    "https://evil.example.net#@api.example.com/v1/x",
    "https://api.example.com%2F@evil.example.net/v1/x",
    "https:/api.example.com/v1/x",
    "https:\\\\api.example.com/v1/x",
    "https://api.example.com%40evil.example.net/v1/x",
]

#: The same place however it is spelt: allowed, and sent in one form.
INSIDE_V1 = {
    "https://api.example.com/v1/x": "https://api.example.com/v1/x",
    "HTTPS://API.Example.COM:443/v1/x": "https://api.example.com/v1/x",
    "https://api.example.com./v1/x": "https://api.example.com/v1/x",
    "https://api.example.com/v1/%7efoo/%41": "https://api.example.com/v1/~foo/A",
    "https://api.example.com/v1/a/./b/../c?q=../x#frag": "https://api.example.com/v1/a/c?q=../x",
    "https://api.example.com/v1/é x": "https://api.example.com/v1/%C3%A9%20x",
    "https://api.example.com/v1/%c3%a9": "https://api.example.com/v1/%C3%A9",
    "https://user:p%61ss@api.example.com/v1/x": "https://user:pass@api.example.com/v1/x",
}


@pytest.mark.parametrize("url", LEAVING_V1)
def test_a_path_rule_never_allows_a_url_that_leaves_its_path(setup: Setup, url: str) -> None:
    setup.write_user_rules(FETCH_RULES)
    verdict = setup.engine.check_url(url)
    assert verdict.effect is not Effect.ALLOW, url


@pytest.mark.parametrize(("url", "sent"), INSIDE_V1.items())
def test_every_spelling_of_an_allowed_place_is_allowed_and_shown_as_sent(setup: Setup, url: str, sent: str) -> None:
    setup.write_user_rules(FETCH_RULES)
    verdict = setup.engine.check_url(url)
    assert verdict.effect is Effect.ALLOW, url
    assert [p.text for p in verdict.parts] == [sent]  # the part names the URL as fetch_url sends it
    assert canonical_url(url).text == sent


def test_a_deny_catches_every_spelling_and_asks_where_a_server_may_read_it_so(setup: Setup) -> None:
    setup.write_user_rules(FETCH_RULES)
    e = setup.engine
    for url in ("https://api.example.com/v1/../admin", "https://api.example.com/v1/%2e%2e/admin",
                "https://api.example.com/v1\\..\\admin", "https://API.example.com:443/%61dmin/x"):
        assert e.check_url(url).effect is Effect.DENY, url
    # A server may merge //, decode %2F or ignore case: not certainly /admin, so it asks.
    for url in ("https://api.example.com//admin", "https://api.example.com/v1/..%2Fadmin",
                "https://api.example.com/ADMIN"):
        assert e.check_url(url).effect is Effect.ASK, url


def test_unicode_host_names_match_their_punycode_rule(setup: Setup) -> None:
    setup.write_user_rules(FETCH_RULES)
    assert setup.engine.check_url("https://BÜCHER.de/x").effect is Effect.ALLOW
    assert setup.engine.check_url("https://bücher.de/x").parts[0].text == "https://xn--bcher-kva.de/x"


def test_a_rule_path_is_read_the_same_way_and_may_not_climb() -> None:
    from echo_desk.agent.permissions.matchers import compile_fetch
    from echo_desk.agent.permissions.tokens import PatternError

    assert compile_fetch("domain:a.example.com /v1/%7efoo/").path_prefix == "/v1/~foo/"
    for bad in ("domain:a.example.com /v1/../admin", "domain:a.example.com /v1/%2e%2e/", "domain:a.example.com /v1\\x"):
        with pytest.raises(PatternError):
            compile_fetch(bad)


@pytest.mark.parametrize("url", ["https://evil.example.net\\@api.example.com/", "http://a b.example.com/",
                                 "https://api.example.com:99999/", "ftp://api.example.com/", "https:///x",
                                 "https://a@b@api.example.com/", "https://[::1/", "https://api.example.com\t/"])
def test_urls_without_one_clear_reading_are_refused(url: str) -> None:
    with pytest.raises(BadUrl):
        canonical_url(url)


MCP_RULES = """
[[rule]]
effect = "allow"
tool = "mcp:fs"
pattern = 'path = "/srv/notes/*"'

[[rule]]
effect = "allow"
tool = "mcp:fs/read_tree"
pattern = 'path = "/srv/notes/**"'

[[rule]]
effect = "deny"
tool = "mcp:fs"
pattern = 'path = "/root/**"'

[[rule]]
effect = "allow"
tool = "mcp:gh"
pattern = 'repo = "acme/*"'
"""


def test_an_mcp_glob_never_matches_a_dot_dot_segment(setup: Setup) -> None:
    setup.write_user_rules(MCP_RULES)
    e = setup.engine
    assert e.check_mcp("fs", "read_file", {"path": "/srv/notes/todo.md"}).effect is Effect.ALLOW
    for path in ("/srv/notes/../../root/.bashrc", "/srv/notes/..", "/srv/notes/..\\..\\etc\\passwd",
                 "/srv/notes/sub/../../../etc/shadow"):
        assert e.check_mcp("fs", "read_file", {"path": path}).effect is not Effect.ALLOW, path
        assert e.check_mcp("fs", "read_tree", {"path": path}).effect is not Effect.ALLOW, path
    # A deny sees through the climb (and asks, since the server decides how it reads "..").
    assert e.check_mcp("fs", "read_file", {"path": "/srv/notes/../../root/.bashrc"}).effect is Effect.ASK
    assert e.check_mcp("fs", "read_file", {"path": "/root/.bashrc"}).effect is Effect.DENY


def test_an_mcp_star_stays_in_one_segment_and_double_star_crosses(setup: Setup) -> None:
    setup.write_user_rules(MCP_RULES)
    e = setup.engine
    assert e.check_mcp("fs", "read_file", {"path": "/srv/notes/deep/er.md"}).effect is None
    assert e.check_mcp("fs", "read_tree", {"path": "/srv/notes/deep/er.md"}).effect is Effect.ALLOW
    assert e.check_mcp("gh", "create_issue", {"repo": "acme/web"}).effect is Effect.ALLOW
    assert e.check_mcp("gh", "create_issue", {"repo": "acme/web/../secret"}).effect is None
    assert e.check_mcp("gh", "create_issue", {"repo": "acme/x/y"}).effect is None

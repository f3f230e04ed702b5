"""The add/edit form's rules, without Qt: names, URLs, env/header rows and keyring references."""

from __future__ import annotations

import pytest

from echo_desk.mcp.config import parse_server
from echo_desk.mcp.editing import (
    Entry,
    FormError,
    ServerDraft,
    build_server,
    split_command_line,
    store_secrets,
)
from echo_desk.tools.secrets import secret_store


def test_a_changed_secret_goes_to_its_existing_reference_and_an_unchanged_one_is_kept():
    draft = ServerDraft(name="gh", command="docker", args=("run", "-i"), env=(
        Entry("TOKEN", "new-token", keyring=True, ref="my.old.ref"),
        Entry("OTHER", "", keyring=True, ref="mcp.gh.env.OTHER"),
        Entry("PLAIN", "1", keyring=False)))
    built = build_server(draft, taken={"time"})
    assert built.config.env == {"TOKEN": {"keyring": "my.old.ref"}, "OTHER": {"keyring": "mcp.gh.env.OTHER"},
                                "PLAIN": "1"}
    assert built.secrets == {"my.old.ref": "new-token"}
    store_secrets(built.secrets)
    assert secret_store().get("my.old.ref") == "new-token"
    # What the form builds is what mcp.json parses back.
    assert parse_server("gh", built.config.to_json()) == built.config


@pytest.mark.parametrize(("draft", "message"), [
    (ServerDraft(name="x", transport="sse", url="http://h/sse", headers=(Entry("Bad Header", "v", False),)),
     "headers: “Bad Header” is not a valid name"),
    (ServerDraft(name="x", command="c", env=(Entry("A", "1", False), Entry("A", "2", False))), "env: A appears twice"),
    (ServerDraft(name="", command="c"), "The server needs a name."),
    (ServerDraft(name="x", command="c", timeout=0), "The timeout must be between 1 second and 1 day."),
])
def test_bad_drafts_are_refused_with_the_reason(draft, message):
    with pytest.raises(FormError) as caught:
        build_server(draft, taken=set())
    assert str(caught.value) == message


def test_an_existing_name_with_other_characters_may_be_kept_but_not_chosen():
    draft = ServerDraft(name="my server", command="c")
    assert build_server(draft, taken=set(), original="my server").config.name == "my server"
    with pytest.raises(FormError):
        build_server(draft, taken=set())


def test_split_command_line_follows_shell_quoting():
    assert split_command_line('uvx mcp-server-time --local-timezone "Europe/Oslo"', "") == (
        "uvx", ("mcp-server-time", "--local-timezone", "Europe/Oslo"))
    assert split_command_line("", "") == ("", ())


def test_the_sign_in_settings_survive_an_edit_and_a_pasted_secret_goes_to_the_keyring():
    # Editing an HTTP server used to drop its "oauth" entry: the pasted client ID was lost.
    kept = parse_server("g", {"type": "http", "url": "https://mcp.example.com/mcp", "oauth": {
        "client_id": "echo-123", "client_secret": {"keyring": "mine.g.secret"}, "scope": "files.read"}})
    draft = ServerDraft.from_config(kept)
    assert build_server(draft, taken=set(), original="g").config == kept
    typed = ServerDraft(name="g", transport="http", url="https://mcp.example.com/mcp", client_id=" echo-9 ",
                        client_secret="s3cret", client_metadata_url="https://echo.example.org/client.json")
    built = build_server(typed, taken=set())
    assert built.config.oauth.client_id == "echo-9"
    assert built.config.oauth.client_secret == {"keyring": "mcp.g.oauth.client_secret"}
    assert built.secrets == {"mcp.g.oauth.client_secret": "s3cret"}
    assert "s3cret" not in str(built.config.to_json())
    assert parse_server("g", built.config.to_json()) == built.config


@pytest.mark.parametrize(("draft", "message"), [
    (ServerDraft(name="g", transport="http", url="https://h/mcp", client_secret="s"),
     "A client secret needs the client ID it belongs to."),
    (ServerDraft(name="g", transport="http", url="https://h/mcp", client_metadata_url="http://echo.example/c.json"),
     "The client metadata document must be at an https:// address."),
])
def test_bad_sign_in_settings_are_refused_with_the_reason(draft, message):
    with pytest.raises(FormError) as caught:
        build_server(draft, taken=set())
    assert caught.value.message == message

"""A target's kind and a rules part's kind are enums: a plugin may still write the documented
string, which is read as its kind; anything else is refused with the list of kinds (a typo is
no longer shown as an "other" target)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from echo_desk.agent.permissions import PartKind, PermissionEngine
from echo_desk.store.grants import GrantStore
from echo_desk.tools import SANDBOX_TARGET, Target, TargetKind


def test_a_documented_string_is_read_as_its_kind() -> None:
    target = Target(kind="path", value="/ws/a.txt")
    assert target.kind is TargetKind.PATH and target.kind == "path"
    assert dataclasses.replace(target, value="/ws/b.txt").kind is TargetKind.PATH
    assert Target(kind=SANDBOX_TARGET, value="in_sandbox").kind is TargetKind.SANDBOX
    assert json.dumps([target.kind]) == '["path"]'  # what the approval's binding hashes: unchanged


def test_an_unknown_kind_is_refused_with_the_kinds_it_may_be() -> None:
    with pytest.raises(ValueError, match="'file' is not one of: path, command, url, server, database, sandbox, other"):
        Target(kind="file", value="/ws/a.txt")


def test_every_part_the_rules_return_has_a_typed_kind(tmp_path) -> None:  # type: ignore[no-untyped-def]
    engine = PermissionEngine(config_dir=tmp_path / "cfg", grants=GrantStore(tmp_path / "g.sqlite3"), home=tmp_path)
    kinds = {
        part.kind
        for verdict in (engine.check_command("ls > out.txt && git status"), engine.check_path("/etc/hosts", write=False),
                        engine.check_url("https://example.com/"), engine.check_mcp("srv", "t", {}))
        for part in verdict.parts
    }
    assert kinds == {PartKind.COMMAND, PartKind.REDIRECT, PartKind.PATH, PartKind.URL, PartKind.MCP}
    assert all(type(k) is PartKind for k in kinds)

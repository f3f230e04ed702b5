"""s192: a folder hg creates, given by a name of its settings' ``[paths]``, is the place the name
stands for. With ``~/.hgrc`` holding ``[paths] e3 = ~/bin``, ``hg init e3`` made ``~/bin/.hg``
and ``hg clone . e3`` checked the repository out into ``~/bin``, while the write rules judged
``./e3``; ``hg clone e3`` clones into the folder named after the last part of that place
(proven with hg 6.3 under bash and dash, in a scratch home). hg reads these names from the
settings it reads outside a repository, not from the ``.hg/hgrc`` of the one it runs in
(proven too).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect, hg_paths

from .conftest import Setup
from .engine_verdicts import effect_of as _verdict
from .hg_rules import HG_ANY_WRITES_OUT, judged_under

#: The agent may write out/ and the folders named like hg's paths in the workspace (not the
#: workspace itself: hg would then read a .hg/hgrc the agent may write, and every line asks).
RULES = HG_ANY_WRITES_OUT + "".join(f"""
[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/{name}/**"
""" for name in ("e3", "abs", "rel", "url", "next", "multi"))


@pytest.fixture
def hgrc(setup: Setup) -> Path:
    judged_under(setup, RULES)
    path = setup.home / ".hgrc"
    path.write_text(f"[paths]\ne3 = ~/bin\nabs = {setup.home}/x\nrel = x\n"
                    "url = file:///tmp/x\nnext = path://e3\nmulti = a\nmulti:multi-urls = yes\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("line", [
    "hg init e3",
    "hg init abs",
    "hg init rel",  # (relative to the home folder)
    "hg clone . e3",
    "hg clone -U . e3",
    "hg clon . e3",
    "hg share . e3",
    "hg clone e3",  # (into ./bin, named after ~/bin)
    "hg init url",  # (a URL: not read here)
    "hg init next",
    "hg init multi",
])
def test_a_folder_named_through_hg_paths_is_judged_where_it_is(setup: Setup, hgrc: Path, line: str) -> None:
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["hg init out/r", "hg clone . out/r", "hg init out/e3", "hg clone . out/e3"])
def test_a_folder_named_inside_the_write_rules_is_allowed(setup: Setup, hgrc: Path, line: str) -> None:
    assert _verdict(setup, line) is Effect.ALLOW


def test_a_settings_file_not_read_may_name_any_folder(tmp_path: Path) -> None:
    hgrc = tmp_path / "hgrc"
    hgrc.write_text("[paths\n", encoding="utf-8")  # (hg stops with a parse error; the engine cannot read it)
    assert hg_paths.folders_named(("hg", "init", "out/r"), [hgrc], tmp_path) == [None]


def test_clone_without_a_folder_is_named_after_the_place_the_source_names(tmp_path: Path) -> None:
    hgrc = tmp_path / "hgrc"
    hgrc.write_text("[paths]\nsrc = /srv/repos/tools\n", encoding="utf-8")
    assert hg_paths.folders_named(("hg", "clone", "src"), [hgrc], tmp_path) == ["./tools"]
    assert hg_paths.folders_named(("hg", "--cwd", "out", "clone", "src"), [hgrc], tmp_path) == ["out/tools"]
    assert hg_paths.folders_named(("hg", "share", "src"), [hgrc], tmp_path) == []  # (share takes the name as written)
    assert hg_paths.folders_named(("hg", "init", "other"), [hgrc], tmp_path) == []


def test_an_included_file_names_paths_too(tmp_path: Path) -> None:
    (tmp_path / "more").write_text("[paths]\nE3 = /srv/x\n", encoding="utf-8")
    hgrc = tmp_path / "hgrc"
    hgrc.write_text("%include more\n", encoding="utf-8")
    assert hg_paths.folders_named(("hg", "init", "e3"), [hgrc], tmp_path) == ["/srv/x"]

"""An earlier command of a line changes what a later one finds (s138): go walks up from the
folder it runs in to the go.mod it rewrites, so once ``rm go.mod`` or ``mv go.mod x`` ran it
rewrites the go.mod of a module above; and a path at or below a link the line makes
(``ln -s ~ out/h``) leads wherever the link does. The hostile corpus proves the harm (rule set
nearest-file).
"""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_of as _effect
from .engine_verdicts import rule_text as _rules


@pytest.fixture
def nested(setup: Setup) -> Setup:
    """The agent's module (the workspace) inside the person's (the folder above), the agent's
    writes open across the workspace only."""
    setup.write_user_rules(_rules("go mod tidy **", "go get **", "go build **")
                           + _rules("[rm|mv|ln|cp|cd|mkdir|touch|echo|printf|tee] **")
                           + _rules("@workspace/**", tool="write"))
    (setup.workspace.parent / "go.mod").write_text("module p\n", encoding="utf-8")
    (setup.workspace / "go.mod").write_text("module ws\n\ngo 1.19\n", encoding="utf-8")
    (setup.workspace / "a.txt").write_text("a\n", encoding="utf-8")
    return setup


#: Lines whose go.mod the line leaves alone, or changes only where the agent may write.
OWN_MODULE = ["go mod tidy", "go get", "mkdir -p sub && cd sub && go mod tidy", "go mod tidy && echo done > out/log.txt",
              "cd out && go mod tidy", "echo x > notes.txt && go mod tidy", "rm -rf out/cache && go mod tidy"]


def test_go_after_its_go_mod_may_be_gone_judges_the_one_above(nested: Setup) -> None:
    for line in ("rm go.mod && go mod tidy", "mv go.mod old.mod && go mod tidy", "rm -f ./go.mod; go get",
                 "go mod tidy; rm go.mod; go mod tidy", "mv go.mod out/ && go mod tidy"):
        assert _effect(nested, line) is not Effect.ALLOW, line
    for line in OWN_MODULE:
        assert _effect(nested, line) is Effect.ALLOW, line


def test_a_go_mod_the_line_removes_and_the_one_above_both_count(nested: Setup) -> None:
    # A module inside the workspace's module, none above: the agent may write whichever go
    # finds (`rm go.mod` may run in either folder: both count).
    (nested.workspace / "sub").mkdir()
    (nested.workspace / "sub" / "go.mod").write_text("module sub\n", encoding="utf-8")
    assert _effect(nested, "cd sub && rm go.mod && go mod tidy") is not Effect.ALLOW  # the person's above
    (nested.workspace.parent / "go.mod").unlink()
    assert _effect(nested, "cd sub && rm go.mod && go mod tidy") is Effect.ALLOW


def test_a_path_through_a_link_the_line_may_make_asks(nested: Setup) -> None:
    for line in ("ln -s .. out/up && cd out/up && go mod tidy", "ln -s ~ out/h && echo x > out/h/.bashrc",
                 "ln -s ~/.bashrc out/x && echo x >> out/x", "ln -s ~ out/h && cd out/h && touch .bashrc",
                 "ln -s ~ out/h && touch out/h/.bashrc", "ln -s ~ out/h && echo x | tee out/h/.bashrc",
                 "cp -a src out/x && echo x > out/x/y", "mv out/l out/m && printf x > out/m/.bashrc"):
        assert _effect(nested, line) is not Effect.ALLOW, line
    # What never makes a link, or writes nothing through one, is judged as before.
    for line in ("mkdir -p out/x && echo hi > out/x/y", "ln -s a.txt out/l", "cp -r src out/x",
                 "touch out/x && echo hi >> out/x", "mkdir -p out/a && cd out/a && touch b",
                 "ln -sf ../a.txt out/l && echo done"):
        assert _effect(nested, line) is Effect.ALLOW, line


def test_a_plain_copy_is_a_file_and_a_copy_that_may_keep_or_make_a_link_is_not(nested: Setup) -> None:
    # cp with no option that keeps or makes links follows a source link and writes a new file.
    for line in ("cp a.txt b.txt && echo x >> b.txt", "cp -f a.txt b.txt && printf y > b.txt",
                 "mkdir -p out/d && cp -v a.txt out/d/ && echo hi > out/d/a.txt", "cp -- a.txt b.txt && echo x >> b.txt"):
        assert _effect(nested, line) is Effect.ALLOW, line
    # -s and -l make links, -P/-d/-a/-r/--preserve keep the ones the source has (a hard link is
    # the same file: writing it writes the source).
    for line in ("cp -s ~/.bashrc out/x && echo x >> out/x", "cp -l ~/.bashrc out/x && echo x >> out/x",
                 "cp -P l out/x && echo x >> out/x", "cp -d l out/x && echo x >> out/x",
                 "cp -a l out/x && echo x >> out/x", "cp -fs ~/.bashrc out/x && echo x >> out/x",
                 "cp --preserve=links l out/x && echo x >> out/x", "cp --symbolic-link ~/.bashrc out/x && echo x >> out/x",
                 "cp -r d out/x && echo x > out/x/y", "cp $O a.txt out/x && echo x >> out/x"):
        assert _effect(nested, line) is not Effect.ALLOW, line

"""s282: ``pushd DIR`` of an ``&&`` chain goes from the folder the chain is in, as a plain ``cd
DIR`` does (s230, s269), and keeps the folder it left, which a plain ``popd`` goes back to:
``cd src && pushd ..`` ends at the workspace's top (strace, bash 5.2: chdir to src, then to
the top; nothing opened) and asked beside a denied ``.git/**`` as if ``..`` were taken from the
top too, above the workspace. A line starts with an empty stack: a ``popd`` with nothing pushed
before it is not read here, and asks. dash has no pushd: it fails there, and what follows in
the chain does not run."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text

RULES = rule_text("[cd|pushd|popd|ls|cat] **") + rule_text("@workspace/.git/**", effect="deny", tool="read")
#: s215's compiling chain: gcc writes its object file where it runs, and only out/ may be written.
COMPILING = rule_text("[cd|pushd|popd|gcc] **") + rule_text("@workspace/out/**", tool="write")


@pytest.fixture(autouse=True)
def _folders(setup: Setup) -> None:
    for name in (".git", "src", "out"):
        (setup.workspace / name).mkdir(exist_ok=True)
    (setup.workspace / "src" / "a.c").write_text("int x;\n", encoding="utf-8")


@pytest.mark.parametrize("line", [
    "cd src && pushd ..",
    "cd src && pushd .. && ls",
    "pushd src && popd",
    "pushd src; popd",
    "pushd src && pushd ../out && popd && popd && ls",
    "pushd src && cd .. && popd && cd src",  # (popd goes back to the top)
    "pushd out && popd && cat src/a.c",
])
def test_the_folder_stack_of_a_chain_is_followed(setup: Setup, line: str) -> None:
    assert effect_under(setup, RULES, line) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "popd",  # (nothing pushed: the stack is not read here)
    "popd && ls",
    "pushd src && popd && popd",
    "cd src && pushd ../..",  # (above the workspace)
    "cd src && pushd ../.git",
    "pushd src && popd && cat .git/config",
    "cd src; pushd ..",  # (cd src may fail: .. may be above the workspace)
    "pushd src && pushd +1 && cd ../.. && ls",  # (the stack turned: not read here)
    "pushd out && popd -n && cd ../.. && ls",
    "pushd src && cd .. && popd && cd ..",  # (popd goes back to the top: .. is above it)
])
def test_a_stack_it_cannot_follow_or_a_denied_folder_asks(setup: Setup, line: str) -> None:
    assert effect_under(setup, RULES, line) is not Effect.ALLOW


@pytest.mark.parametrize(("line", "allowed"), [
    ("cd src && pushd ../out && gcc -c ../src/a.c", True),  # (out/a.o only: strace, gcc 12, bash)
    ("pushd out && gcc -c ../src/a.c && popd && gcc -c ../src/a.c", False),  # (the second: from the top)
    ("pushd out && popd && pushd out && gcc -c ../src/a.c", True),
    ("pushd src && pushd ../out && popd && gcc -c a.c", False),  # (src/a.o: no write rule)
])
def test_what_runs_after_it_is_judged_from_the_folder_it_leads_to(setup: Setup, line: str, allowed: bool) -> None:
    assert (effect_under(setup, COMPILING, line) is Effect.ALLOW) is allowed

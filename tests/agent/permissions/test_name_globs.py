"""Whether a write rule's name glob and the names a program runs as code may share a name."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions.name_globs import (
    fnmatch_tokens,
    gitignore_tokens,
    may_share_a_name,
    may_share_a_path,
    suffix_tokens,
)

DOCTESTS = fnmatch_tokens("test*.txt")


@pytest.mark.parametrize(("rule", "shared"), [
    ("notes.txt", False), ("tes", False), ("test.txt.bak", False), ("x*", False), ("*.md", False),
    ("test_notes.txt", True), ("*.txt", True), ("test*", True), ("t*", True), ("**", True), ("*", True),
    ("te?t.txt", True), ("[t]est.txt", True), ("[!x]est.txt", True),  # a class may be any character
    ("\\test.txt", True), ("\\*.txt", False),  # an escaped character is itself
])
def test_a_rule_glob_against_doctest_files(rule: str, shared: bool) -> None:
    assert may_share_a_name(gitignore_tokens(rule), DOCTESTS) is shared


@pytest.mark.parametrize(("rule", "suffix", "shared"), [
    ("test*", ".py", True), ("x.py", ".py", True), ("x.pyc", ".py", False), ("*.p?", ".py", True),
    ("notes.txt", "", True), ("a", ".rc", False),
])
def test_a_rule_glob_against_a_suffix(rule: str, suffix: str, shared: bool) -> None:
    assert may_share_a_name(gitignore_tokens(rule), suffix_tokens(suffix)) is shared


def test_a_doctest_glob_with_a_slash_is_matched_on_the_path_so_any_name() -> None:
    assert may_share_a_name(gitignore_tokens("a.md"), fnmatch_tokens("docs/*.txt"))


def test_a_long_rule_glob_is_judged_without_recursion() -> None:
    assert not may_share_a_name(gitignore_tokens("*a" * 3000 + "b"), fnmatch_tokens("*c"))


def _target(*parts: str) -> list[tuple[str, ...]]:
    return [suffix_tokens("") if p == "*" else tuple(p) for p in parts]


@pytest.mark.parametrize(("pattern", "target", "shared"), [
    (["**"], ("lib", "cmake", "*", "*"), True),
    (["lib", "**"], ("lib", "cmake", "*", "*"), True),
    (["share", "*.cmake"], ("share", "*", "*"), False),  # one part short
    (["share", "**", "*.cmake"], ("share", "*", "*"), True),
    (["foo-x", "share", "foo", "foo-config.cmake"], ("*", "share", "*", "*"), True),
    (["notes", "**"], ("lib", "*", "*"), False),
    (["lib*", "**"], ("lib64", "*", "*"), True),
])
def test_a_rule_pattern_against_a_path_shape(pattern: list[str], target: tuple[str, ...], shared: bool) -> None:
    assert may_share_a_path(pattern, _target(*target)) is shared

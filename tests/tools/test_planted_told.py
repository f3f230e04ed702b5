"""What the model reads of what a sandbox planted (``tools.planted_told``): a few entries named,
all of them when they are few, else the most telling first and the total; never every one of
thousands. Before, a command that planted 10,000 files sent every path to the model."""

from __future__ import annotations

from echo_desk.tools.planted import Change, Planted
from echo_desk.tools.planted_told import LONGEST_NAME, MOST_NAMED, most_telling_first, named_and_counted

MANY = 10_000
CREATED = tuple(Planted(f"pkg{i:05}/.git/hooks/pre-commit", Change.CREATED, kept=f"/aside/{i}") for i in range(MANY))
STILL_THERE = Planted("deep/er/.vscode/tasks.json", Change.CREATED, still_there=True)
NOT_PUT_BACK = Planted("a/b/.envrc", Change.CHANGED)
PUT_BACK = Planted("x/y/z/.bashrc", Change.REMOVED, put_back=True)
SHALLOW = Planted(".git/hooks/post-checkout", Change.CREATED)


def _name(p: Planted) -> str:
    return f"{p.full()} ({p.change.value})"


def test_a_few_entries_are_all_named_in_the_guards_order() -> None:
    few = (*CREATED[:3], STILL_THERE)
    assert named_and_counted(few, _name) == "; ".join(_name(p) for p in few)
    assert named_and_counted((), _name) == ""


def test_ten_thousand_entries_name_a_few_and_say_the_total() -> None:
    text = named_and_counted(CREATED, _name)
    assert len(text) < MOST_NAMED * (LONGEST_NAME + 2) + 100
    assert text.endswith(f"; and {MANY - MOST_NAMED:,} more ({MANY:,} in all, not named here)")
    assert text.count("(created)") == MOST_NAMED
    assert "pkg00000/.git/hooks/pre-commit (created)" in text  # (by path within a rank: always alike)


def test_what_must_be_acted_on_comes_before_what_only_informs() -> None:
    planted = (*CREATED, PUT_BACK, SHALLOW, NOT_PUT_BACK, STILL_THERE)
    assert most_telling_first(planted)[:4] == [STILL_THERE, NOT_PUT_BACK, PUT_BACK, SHALLOW]
    text = named_and_counted(planted, _name)
    assert text.index("tasks.json") < text.index(".envrc") < text.index(".bashrc") < text.index("post-checkout")
    assert f"({MANY + 4:,} in all" in text


def test_a_long_name_is_cut_in_its_middle() -> None:
    long = Planted("/".join(["d" * 250] * 16) + "/.git/hooks/pre-push", Change.CREATED)
    [text] = named_and_counted((long,), _name).split("; ")
    assert len(text) == LONGEST_NAME and text.startswith("ddd") and text.endswith("pre-push (created)")
    assert "…" in text

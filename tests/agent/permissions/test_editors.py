"""s147: editors whose words and input are a command language (vim and its other names, nvim, ed)
and cpp, which writes its second file word. A rule naming the program (``vim **``) trusts it to
open files: an option that runs commands, sources a script or writes is covered only by naming
it, a ``+cmd`` word (vim) or ``!cmd`` file (ed) runs a command, and commands the line feeds them
on their input (a pipe, a ``<``) are commands the rules cannot read. Proven in the hostile
corpus (rule set ``editors``) for vim 9.0, GNU ed 1.19 and cpp 12; nvim is not installed here:
its lines are verdicts only, from its documentation (``nvim -h``).
"""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_of as _effect
from .engine_verdicts import rule_text as _rules

RULES = (_rules("[vim|vi|ex|view|nvim|vim.basic|ed|red|cpp|x86_64-linux-gnu-cpp-12|printf|cat|timeout|env|xargs|bash] **")
         + _rules("@workspace/out/**", tool="write"))

NOT_ALLOWED = [
    # vim's options that run Ex commands (`!cmd` runs a shell command, `w FILE` writes anywhere)
    "vim -es -c '!touch PWNED' -c q a.txt",
    "vim -c'!touch PWNED' a.txt",
    "vim --cmd '!touch PWNED' a.txt",
    "vim -es -c 'w! ~/.bashrc' -c q a.txt",
    "vim --remote-send ':!touch PWNED<CR>' a.txt",
    "vi -c '!touch PWNED' a.txt",
    "ex -c '!touch PWNED' a.txt",
    "view -c '!touch PWNED' a.txt",
    "vim.basic -c '!touch PWNED' a.txt",
    "nvim -c '!touch PWNED' a.txt",
    "nvim --headless -l out/x.lua",
    "nvim --listen /tmp/n.sock a.txt",
    # a `+` word other than `+` and `+N` is an Ex command
    "vim +'!touch PWNED' a.txt",
    "vim '+w ~/.bashrc' a.txt",
    "vim a.txt +'!touch PWNED'",
    "vim +/x a.txt",
    # scripts and key files it reads, files it writes
    "vim -S out/s.vim a.txt",
    "vim -S a.txt",
    "vim -s out/keys a.txt",
    "vim -u out/vimrc a.txt",
    "vim -Nu out/vimrc a.txt",
    "vim -U out/gvimrc a.txt",
    "vim -t tag",
    "vim -q out/errors",
    "vim -w ~/.bashrc a.txt",
    "vim -W ~/.bashrc a.txt",
    "vim -V20~/.bashrc a.txt",
    "vim -i ~/.bashrc a.txt",
    "vim --startuptime ~/.bashrc a.txt",
    "vim --log ~/.bashrc a.txt",
    # an option vim reads that the table does not know (vim takes odd spellings)
    "vim --CMD '!touch PWNED' a.txt",
    "vim --no-such-option a.txt",
    # commands the line gives on the input
    "printf ':!touch PWNED\\n:q!\\n' | vim a.txt",
    "printf '!touch PWNED\\nq\\n' | ex a.txt",
    "printf '!touch PWNED\\nq\\n' | vim -e a.txt",
    "vim a.txt < out/keys",
    "vim a.txt <<< ':!touch PWNED'",
    "printf ':!touch PWNED\\n' | env vim a.txt",
    "printf ':!touch PWNED\\n' | timeout 5 vim a.txt",
    # ed: its commands always come from its input; a `!` file is a shell command
    "printf '!touch PWNED\\nq\\n' | ed a.txt",
    "printf '!touch PWNED\\nq\\n' | ed -s a.txt",
    "ed -s a.txt < out/cmds",
    "ed a.txt <<< '!touch PWNED'",
    "ed '!touch PWNED'",
    "ed -s '!touch PWNED'",
    "red '!touch PWNED'",
    "ed --no-such-option a.txt",
    # cpp writes its second file word, and -o's file
    "cpp a.c ~/.bashrc",
    "cpp -P a.c ~/.bashrc",
    "cpp -o ~/.bashrc a.c",
    "cpp -o../home/.bashrc a.c",
    "x86_64-linux-gnu-cpp-12 a.c ~/.bashrc",
    "cpp -Wp,-o,../x a.c",
    "cpp @out/opts a.c",
]

ALLOWED = [
    "vim a.txt",
    "vi a.txt",
    "view a.txt",
    "ex a.txt",
    "nvim a.txt",
    "vim -R a.txt",
    "vim +10 a.txt",
    "vim + a.txt",
    "vim -d a.txt b.txt",
    "vim -O a.txt b.txt",
    "vim -p3 a.txt b.txt",
    "vim -- a.txt",
    "vim a.txt 2>&1",
    "ed a.txt",
    "ed -p '> ' a.txt",
    "cpp a.c",
    "cpp -P -DX=1 -Iinclude a.c",
    "cpp a.c out/a.i",
    "cpp a.c -o out/a.i",
    "cpp a.c -",
]


@pytest.mark.parametrize("line", NOT_ALLOWED)
def test_commands_an_editor_is_given_are_not_covered_by_the_star(setup: Setup, line: str) -> None:
    setup.write_user_rules(RULES)
    assert _effect(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ALLOWED)
def test_opening_a_file_stays_allowed(setup: Setup, line: str) -> None:
    setup.write_user_rules(RULES)
    assert _effect(setup, line) is Effect.ALLOW


def test_a_rule_that_names_the_option_covers_it(setup: Setup) -> None:
    setup.write_user_rules(_rules("vim -u NONE **", "vim -es **", "cpp **") + _rules("@workspace/out/**", tool="write"))
    assert _effect(setup, "vim -u NONE a.txt") is Effect.ALLOW
    assert _effect(setup, "vim -es a.txt") is Effect.ALLOW
    # Naming -es does not trust what the line feeds it, nor cpp's output outside the write rules.
    assert _effect(setup, "vim -es a.txt < out/cmds") is not Effect.ALLOW
    assert _effect(setup, "cpp a.c ~/.bashrc") is not Effect.ALLOW


def test_a_shell_the_rules_let_run_gives_its_input_to_the_editor(setup: Setup) -> None:
    setup.write_user_rules(_rules("bash -c **", "[vim|printf] **"))
    assert _effect(setup, "bash -c 'vim a.txt'") is not Effect.ALLOW
    assert _effect(setup, "printf ':!touch PWNED\\n:q!\\n' | bash -c 'vim a.txt'") is not Effect.ALLOW


#: s165: with 'exrc' set in the person's vimrc (which Echo Desk does not read), vim runs the
#: startup file of the folder it starts in (proven, vim 9.0: ./.vimrc, else ./.exrc, ran
#: `call system(…)` under a plain `vim a.txt`; the hostile corpus, rule set ``vim-exrc``).
EXRC_RULES = _rules("[vim|vi|view|vim.basic|cd] **") + _rules("@workspace/out/**", tool="write")


@pytest.mark.parametrize("line", ["cd out && vim a.txt", "cd out && vi a.txt", "cd out && view a.txt",
                                  "cd out && vim.basic a.txt"])
def test_a_folder_startup_file_the_agent_may_write_is_not_covered_by_the_star(setup: Setup, line: str) -> None:
    setup.write_user_rules(EXRC_RULES)
    assert _effect(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["vim a.txt", "vim out/a.txt", "cd src && vim a.txt"])
def test_opening_a_file_from_a_folder_of_the_persons_stays_allowed(setup: Setup, line: str) -> None:
    setup.write_user_rules(EXRC_RULES)
    assert _effect(setup, line) is Effect.ALLOW


def test_the_persons_vimrc_the_agent_may_write_is_not_covered_by_the_star(setup: Setup) -> None:
    setup.write_user_rules(EXRC_RULES + _rules("~/.vim/**", tool="write"))
    assert _effect(setup, "vim a.txt") is not Effect.ALLOW

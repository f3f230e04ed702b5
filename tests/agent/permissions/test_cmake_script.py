"""cmake's script language read into commands (``cmake_script``, s300): what it does not take
apart makes the whole script unread."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions.cmake_script import commands


def test_commands_and_their_arguments() -> None:
    text = ('# a comment\nIF(NOT DEFINED X)\n  set(X "/a b" c) # why\nendif()\n'
            'message(STATUS "say \\"hi\\"")\nif((A OR B) AND C)\nendif ()\n')
    assert commands(text) == [("if", ["NOT", "DEFINED", "X"]), ("set", ["X", "/a b", "c"]), ("endif", []),
                              ("message", ["STATUS", 'say \\"hi\\"']),
                              ("if", ["(", "A", "OR", "B", ")", "AND", "C"]), ("endif", [])]


@pytest.mark.parametrize("text", [
    "message([[x]])", "message([=[x]=])", "#[[ a comment ]]\n", "set(X", 'set(X "open)', "set X", "(x)",
    "if(A)\n#[==[\n]==]\nendif()",
])
def test_a_form_not_read_here_leaves_the_script_unread(text: str) -> None:
    assert commands(text) is None

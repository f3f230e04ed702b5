"""The classes a Python pickle names, read from its opcodes without loading it (loading runs
whatever the pickle says): ``meson_records`` tells by them what meson's install data holds."""

from __future__ import annotations

import pickletools

__all__ = ["pickled_classes"]

_STRINGS = frozenset({"SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE", "STRING", "BINSTRING",
                      "SHORT_BINSTRING"})
_GETS = frozenset({"GET", "BINGET", "LONG_BINGET"})
_PUTS = frozenset({"PUT", "BINPUT", "LONG_BINPUT"})
#: Opcodes that name a class some other way than by its module and name (a registered code).
_OTHER_NAMES = frozenset({"EXT1", "EXT2", "EXT4"})


def pickled_classes(data: bytes) -> set[tuple[str, str]] | None:
    """The (module, name) of every class or function ``data`` names, or ``None``: one named in a
    way not followed here, or not a pickle."""
    found: set[tuple[str, str]] = set()
    memo: dict[int, object] = {}
    # (what each opcode left on top of the stack, where it matters: a string, or None)
    pushed: list[object] = []
    try:
        for op, arg, _ in pickletools.genops(data):
            if op.name in _STRINGS:
                pushed.append(arg)
            elif op.name in _GETS:
                pushed.append(memo.get(_index(arg)))
            elif op.name == "MEMOIZE":
                memo[len(memo)] = pushed[-1] if pushed else None
            elif op.name in _PUTS:
                memo[_index(arg)] = pushed[-1] if pushed else None
            elif op.name == "STACK_GLOBAL":
                module, name = pushed[-2:] if len(pushed) > 1 else (None, None)
                if not isinstance(module, str) or not isinstance(name, str):
                    return None
                found.add((module, name))
                pushed.append(None)
            elif op.name in ("GLOBAL", "INST"):
                module, _, name = str(arg).partition(" ")
                found.add((module, name))
                pushed.append(None)
            elif op.name in _OTHER_NAMES:
                return None
            elif op.name != "FRAME":
                pushed.append(None)
    except ValueError:
        return None
    return found


def _index(arg: object) -> int:
    """A memo index as an opcode gives it (an int, or the text of one for the oldest protocol)."""
    return arg if isinstance(arg, int) else int(str(arg))

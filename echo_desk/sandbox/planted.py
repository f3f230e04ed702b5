"""What a command planted (``Planted``, ``Change``): plain values kept with the tools' result
types (``tools/planted.py``), since a call's result carries them to its audit record; named here
too, where the sandbox's guard makes them."""

from echo_desk.tools.planted import Change, Planted

__all__ = ["Change", "Planted"]

"""The variables the rules and recipes of a Makefile refer to, directly or through the values
of the variables they refer to (``autotools_records``, s335): the install folders automake's
install recipes write into are named there (``"$(DESTDIR)$(bindir)"``), and a folder no rule
refers to is one no recipe writes into.

configure writes every folder of the GNU layout into every Makefile automake generated, also
those the project installs nothing into (``oldincludedir = /usr/include``); automake writes the
rule that installs there (``install-oldincludeHEADERS``) only for a Makefile.am that has such
files. A reference is read wherever it may be expanded, so this is a superset of what an
install runs: every rule and recipe line (a recipe's ``#`` line too: make expands it), also
those no install step reaches; every value a variable is given (each assignment of it, make's
line's on top). A name made of another reference (``$(am__v_at_$(V))``) stands for every
variable whose name starts as written (``am__v_at_…``; all of them for ``$($(x))``), and a
call of one of make's functions (``$(shell …)``, ``$(value …)``, ``$(foreach …)``) is not
followed here: the answer is then ``None`` (not known).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = ["ASSIGNMENT", "referred"]

#: A variable's assignment outside a recipe: its name, then the value.
ASSIGNMENT = re.compile(r"([A-Za-z_][\w.]*)\s*[:+?]?=\s*(.*)")
#: What may follow ``$(`` or ``${`` as the (start of the) name of a variable.
_NAME = re.compile(r"[^\s$(){}:=,#]*")


def referred(text: str, variables: Mapping[str, str]) -> frozenset[str] | None:
    """The names of the variables the Makefile ``text``'s rules and recipes refer to, with
    ``variables`` (make's on the line) on top of its own (``None``: one of make's functions
    is called, whose reading is not sure)."""
    values: dict[str, list[str]] = {name: [value] for name, value in variables.items()}
    seeds: list[str] = []
    for line in text.replace("\\\n", " ").splitlines():
        if line.startswith("\t"):
            seeds.append(line)
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        assignment = ASSIGNMENT.fullmatch(line.strip())
        if assignment is None:
            seeds.append(line)  # (a rule: its targets and prerequisites, a recipe after `;`)
        else:
            values.setdefault(assignment.group(1), []).append(assignment.group(2))
    return _closure(seeds, values)


def _closure(seeds: Iterable[str], values: Mapping[str, list[str]]) -> frozenset[str] | None:
    found: set[str] = set()
    pending: list[str] = []
    for seed in seeds:
        if not _add(seed, values, found, pending):
            return None
    while pending:
        name = pending.pop()
        for value in values.get(name, ()):
            if not _add(value, values, found, pending):
                return None
    return frozenset(found)


def _add(text: str, values: Mapping[str, list[str]], found: set[str], pending: list[str]) -> bool:
    """Adds the variables ``text`` refers to (``False``: it calls one of make's functions)."""
    names = _references(text)
    if names is None:
        return False
    plain, prefixes = names
    # (a name made of another reference: every variable whose name starts as written)
    plain |= {name for name in values for prefix in prefixes if name.startswith(prefix)}
    for name in plain - found:
        found.add(name)
        pending.append(name)
    return True


def _references(text: str) -> tuple[set[str], set[str]] | None:
    """The names ``text`` refers to, and the beginnings of the names made of another reference
    (``None``: a function call)."""
    names: set[str] = set()
    prefixes: set[str] = set()
    k = 0
    while k < len(text):
        if text[k] != "$":
            k += 1
            continue
        following = text[k + 1:k + 2]
        if following in ("(", "{"):
            name = _NAME.match(text, k + 2)
            assert name is not None  # (the pattern matches the empty string)
            after = text[name.end():name.end() + 1]
            if after in ("$", "(", "{"):
                prefixes.add(name.group())
            elif after in (" ", "\t", ","):
                return None  # (`$(shell …)`, `$(value x)`, `$(foreach …)`: not followed here)
            elif name.group():
                names.add(name.group())  # (`$(x)`, `$(x:.c=.o)`)
            k = name.end()  # (a reference inside is read next)
            continue
        if following and following != "$":
            names.add(following)  # (`$V`, `$@`)
        k += 2  # (`$$`: a `$` for the shell)
    return names, prefixes

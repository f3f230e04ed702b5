"""Reading a program's options the way its own parser does (GNU ``getopt_long`` by default).

- ``--name=value`` and ``--name value`` (when the option takes a value);
- a unique prefix of a long option names it (``sed --in`` is ``--in-place``, ``sort --o=F`` is
  ``--output``) where the program's parser accepts that; an exact name wins over a prefix;
- short options cluster (``-ni`` is ``-n -i``) and glue their value (``-ofile``, ``-e's/x/y/'``);
- ``--`` ends the options; GNU programs take options after operands too (``permute``), wrappers
  stop at their first operand (the command they run).

What a program does with an option is data (``Does``): the engine never lets a rule's ``**``
cover an option that runs a program, writes a file or reads code, nor (``strict``) an option it
does not know of a program that has such options.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field


class Takes(enum.Enum):
    NOTHING = "nothing"
    VALUE = "value"  # required: glued, after '=', or the next word
    OPTIONAL = "optional"  # only glued (short) or after '=' (long)


class Does(enum.Enum):
    NOTHING = "nothing"
    RUNS = "runs"  # runs a program or code given in its value (or chosen by it)
    WRITES = "writes"  # writes or deletes files
    READS_CODE = "reads_code"  # reads commands, a script or options from a file
    CONFIG = "config"  # changes configuration that can run programs (git -c)
    SCRIPT = "script"  # its value is a program text the caller checks (sed -e, awk --source)
    SHELL = "shell"  # its value is a shell command line (flock -c, su -c)


@dataclass(frozen=True)
class Option:
    names: tuple[str, ...]
    takes: Takes = Takes.NOTHING
    does: Does = Does.NOTHING


def opt(names: str, takes: Takes = Takes.NOTHING, does: Does = Does.NOTHING) -> Option:
    """``opt("-o --output", VALUE, WRITES)``: names separated by spaces."""
    return Option(tuple(names.split()), takes, does)


def flags(names: str) -> tuple[Option, ...]:
    """Options that take no value and do nothing dangerous, one per spelling group ``a|b``."""
    return tuple(Option(tuple(group.split("|"))) for group in names.split())


def values(names: str) -> tuple[Option, ...]:
    """Options that take a harmless value."""
    return tuple(Option(tuple(group.split("|")), Takes.VALUE) for group in names.split())


@dataclass(frozen=True)
class OptionSet:
    """How a program reads its options."""

    options: tuple[Option, ...]
    abbreviations: bool = True  # unique prefixes of long options
    permute: bool = True  # options after operands (GNU); False: the first operand ends them
    strict: bool = True  # an unknown option must be named by the rule
    numbers: bool = False  # ``-5`` is an option (head, nice, tail)

    def __post_init__(self) -> None:
        long: dict[str, Option] = {}
        short: dict[str, Option] = {}
        for option in self.options:
            for name in option.names:
                if name.startswith("--"):
                    long[name] = option
                elif name.startswith("-") and len(name) == 2:
                    short[name[1]] = option
                else:
                    long[name] = option  # a single-dash long option (-name): exact only
        object.__setattr__(self, "_long", long)
        object.__setattr__(self, "_short", short)

    def long(self, name: str) -> tuple[Option | None, bool]:
        """The option ``--name`` names (exactly, or by a unique prefix), and whether ``name`` is
        a prefix of a dangerous option among several (then it is unknown, and flagged)."""
        table: dict[str, Option] = self.__dict__["_long"]
        found = table.get(name)
        if found is not None or not self.abbreviations:
            return found, False
        candidates = {option for key, option in table.items() if key.startswith(name) and key.startswith("--")}
        if len(candidates) == 1:
            return candidates.pop(), False
        return None, any(o.does is not Does.NOTHING for o in candidates)

    def exact(self, name: str) -> Option | None:
        """The option named ``name`` exactly (no prefix of another)."""
        table: dict[str, Option] = self.__dict__["_long"]
        return table.get(name)

    def short(self, letter: str) -> Option | None:
        table: dict[str, Option] = self.__dict__["_short"]
        return table.get(letter)


@dataclass(frozen=True)
class Seen:
    """One option as read: the option (``None``: unknown), the words it took, its value."""

    option: Option | None
    token: str
    value: str | None
    index: int  # where it starts in the argument list
    words: int = 1  # 2 when its value is the next word


@dataclass
class Parsed:
    seen: list[Seen] = field(default_factory=list)
    operands: list[tuple[int, str | None]] = field(default_factory=list)
    #: A word only known when the line runs, where an option could be.
    dynamic: bool = False
    #: Index of the first argument not read as options or operands (``permute=False`` stops at
    #: the first operand; everything from there on is the command a wrapper runs).
    rest: int | None = None
    #: Index of the ``--`` that ended the options (not one taken as an option's value).
    ended_at: int | None = None


def read_options(args: Sequence[str | None], spec: OptionSet, *, stop_after: int = 0) -> Parsed:
    """Read ``args`` (the words after the program name). With ``permute=False`` the options end
    at the first operand, and the words after ``stop_after`` operands are the rest (a wrapper's
    command: ``Parsed.rest``)."""
    parsed = Parsed()
    ended = False
    i, n = 0, len(args)
    while i < n:
        token = args[i]
        if not ended and token == "--":
            ended = True
            parsed.ended_at = i
            i += 1
            continue
        if not ended and token is not None and token.startswith("-") and len(token) > 1:
            if spec.numbers and token[1:].isascii() and token[1:].isdigit():
                parsed.seen.append(Seen(Option((token,)), token, None, i))
                i += 1
            elif token.startswith("--"):
                i = _long(args, i, spec, parsed)
            else:
                i = _short(args, i, spec, parsed)
            continue
        if not spec.permute:
            ended = True
            if len(parsed.operands) >= stop_after:
                parsed.rest = i
                return parsed
        parsed.operands.append((i, token))
        i += 1
    return parsed


def _long(args: Sequence[str | None], i: int, spec: OptionSet, parsed: Parsed) -> int:
    token = args[i]
    assert token is not None
    name, eq, glued = token.partition("=")
    option, _ambiguous = spec.long(name)
    if option is None:
        parsed.seen.append(Seen(None, token, glued if eq else None, i))
        return i + 1
    if option.takes is Takes.VALUE and not eq:
        value = args[i + 1] if i + 1 < len(args) else None
        if i + 1 < len(args) and value is None:
            parsed.dynamic = True
        parsed.seen.append(Seen(option, token, value, i, 2))
        return i + 2
    if option.takes is Takes.NOTHING and eq:
        parsed.seen.append(Seen(None, token, glued, i))  # refused by the program: not understood
        return i + 1
    parsed.seen.append(Seen(option, token, glued if eq else None, i))
    return i + 1


def _short(args: Sequence[str | None], i: int, spec: OptionSet, parsed: Parsed) -> int:
    token = args[i]
    assert token is not None
    k = 1
    while k < len(token):
        option = spec.short(token[k])
        if option is None:
            parsed.seen.append(Seen(None, token, token[k + 1:] or None, i))
            return i + 1
        if option.takes is Takes.NOTHING:
            parsed.seen.append(Seen(option, token, None, i))
            k += 1
            continue
        glued = token[k + 1:]
        if glued or option.takes is Takes.OPTIONAL:
            parsed.seen.append(Seen(option, token, glued or None, i))
            return i + 1
        value = args[i + 1] if i + 1 < len(args) else None
        if i + 1 < len(args) and value is None:
            parsed.dynamic = True
        parsed.seen.append(Seen(option, token, value, i, 2))
        return i + 2
    return i + 1

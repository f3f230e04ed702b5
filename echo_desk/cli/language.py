"""The command line speaks the person's language: the one chosen in the app (Settings › General),
else the system's (``LANG=zh_CN.UTF-8``). What a person reads is translated (help, headings,
verdicts, errors); JSON keys, ids and values stay as they are for scripts.

Light on purpose (``--help`` answers at once): the settings file is read as plain JSON, without
the settings model.
"""

from __future__ import annotations

import argparse
import re
import unicodedata

from echo_desk import i18n
from echo_desk.common.json_text import read_json
from echo_desk.i18n import N_, _

#: The settings file's name in the config folder (``store.settings.SETTINGS_FILE``, not imported:
#: it loads pydantic).
SETTINGS_FILE = "settings.json"

#: argparse's own words, translated through our catalog (Python ships no Chinese for them).
ARGPARSE_WORDS = (
    N_("usage: "), N_("positional arguments"), N_("options"), N_("show this help message and exit"),
    N_("show program's version number and exit"), N_("the following arguments are required: %s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"), N_("unrecognized arguments: %s"),
    N_("%(prog)s: error: %(message)s\n"), N_("expected one argument"),
    N_("argument %(argument_name)s: %(message)s"), N_("not allowed with argument %s"),
    N_("one of the arguments %s is required"), N_("invalid %(type)s value: %(value)r"),
)


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's help with the language's own colon after a section's heading ("选项："), and
    its text wrapped by the cells it takes on a terminal: argparse counts characters, and a
    Chinese character takes two cells, so its Chinese lines ran past the terminal's edge."""

    def format_help(self) -> str:
        return _HEADING.sub(lambda m: _("{heading}:").format(heading=m.group(1)) + "\n", super().format_help())

    def _split_lines(self, text: str, width: int) -> list[str]:
        return wrap_cells(" ".join(text.split()), width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in wrap_cells(" ".join(text.split()), width - len(indent)))


def cells(text: str) -> int:
    """How many terminal cells ``text`` takes (wide and full-width characters take two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


#: The wide characters a line may break between (CJK, kana, hangul, full-width forms).
_WIDE = "\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6"
#: Spaces, a word (anything but a space or a wide character), or one wide character.
_PIECE = re.compile(rf" +|[^\s{_WIDE}]+|\S")
#: What a line must not begin with (CJK closing punctuation stays with what it closes).
_NO_LINE_START = frozenset("，。、；：？！）」』】》,.;:?!)")


def wrap_cells(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` cells: between words, and between any two wide
    characters (Chinese has no spaces); a word longer than a line keeps a line of its own."""
    lines: list[str] = []
    line, used = "", 0
    for piece in _PIECE.findall(text):
        size = cells(piece)
        if piece.isspace():
            if line:
                line, used = line + " ", used + 1
            continue
        if line and used + size > max(width, 1) and piece[0] not in _NO_LINE_START:
            lines.append(line.rstrip())
            line, used = "", 0
        line, used = line + piece, used + size
    if line.strip():
        lines.append(line.rstrip())
    return lines


#: A section heading as argparse writes it: a line of its own, flush left, ending in ":".
_HEADING = re.compile(r"^(\S[^\n:]*):\n", re.MULTILINE)


def localise_help(parser: argparse.ArgumentParser) -> None:
    """Every (sub)parser's help with the language's own colons after headings."""
    parser.formatter_class = _HelpFormatter
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                localise_help(child)


def use_chosen_language() -> str:
    """Switch ``_()`` (and argparse's own words) to the app's language or the system's."""
    chosen = i18n.set_language(_app_language())
    argparse._ = i18n._  # type: ignore[attr-defined]  # argparse looks its words up at call time
    return chosen


def _app_language() -> str | None:
    from echo_desk.store import paths

    try:
        data = read_json((paths.config_dir() / SETTINGS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    language = data.get("language") if isinstance(data, dict) else None
    return language if language in i18n.LANGUAGES else None

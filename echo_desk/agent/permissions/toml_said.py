"""A rule file's TOML syntax error in the person's words: tomllib says it in English only
("Expected '=' after a key in a key/value pair (at line 3, column 5)"). Settings lists it in the
language of the moment; ``rules check`` and the log keep tomllib's own text."""

from __future__ import annotations

import re
import tomllib

from echo_desk.i18n import N_, deferred, for_person

_WHERE = re.compile(r"^(?P<what>.*) \((?:at line (?P<line>\d+), column (?P<column>\d+)|at end of document)\)$", re.S)

#: tomllib's messages (Python 3.11–3.13) and what each means, said for a person who edits the file.
_SAYS = {
    "Expected '=' after a key in a key/value pair": N_("a key is not followed by “=”"),
    "Expected ']' at the end of a table declaration": N_("a table's name is not closed with “]”"),
    "Expected ']]' at the end of an array declaration": N_("“[[rule]]” is not closed with “]]”"),
    "Expected newline or end of document after a statement": N_("something follows a value on its line: "
                                                                "each key = value goes on a line of its own"),
    "Invalid value": N_("a value is missing or not valid (a text needs quotes)"),
    "Unterminated string": N_("a text is not closed with its quote"),
    # A line break inside a "…" text: its closing quote is missing.
    "Illegal character '\\n'": N_("a text is not closed with its quote"),
    "Invalid statement": N_("a line is neither key = value nor a [[rule]] header"),
    "Invalid initial character for a key part": N_("a key starts with a character a key cannot have"),
    "Cannot overwrite a value": N_("a key is given twice in one rule"),
    "Unclosed array": N_("a list is not closed with “]”"),
    "Unclosed inline table": N_("a { … } table is not closed with “}”"),
    "Unescaped '\\' in a string": N_("a backslash in a quoted text is not doubled"),
}
#: Messages that name what they found after these words.
_STARTS = (
    ("Cannot declare ", N_("a table is declared twice")),
    ("Duplicate inline table key ", N_("a key is given twice in one rule")),
    ("Illegal character ", N_("a character TOML does not allow here")),
    ("Found invalid character ", N_("a character TOML does not allow here")),
)


def toml_problem(exc: tomllib.TOMLDecodeError, text: str) -> tuple[int, str]:
    """(line, message) for ``exc`` raised reading ``text``: the message is tomllib's English as a
    ``str`` and, shown (``i18n.shown``), what is wrong and at which column in the person's words."""
    english = f"not valid TOML: {exc}"
    found = _WHERE.match(str(exc))
    if found is None:  # a message of a newer tomllib: its line, if it says one
        line = re.search(r"line (\d+)", str(exc))
        return (int(line.group(1)) if line else 0), for_person(english, N_("the file is not valid TOML"))
    what = found["what"]
    said = _SAYS.get(what) or next((s for start, s in _STARTS if what.startswith(start)), "")
    what_said = deferred(said) if said else deferred(N_("TOML cannot read it"))
    if found["line"] is None:
        return text.count("\n") + 1, for_person(english, N_("{what} (at the end of the file)"), what=what_said)
    return int(found["line"]), for_person(english, N_("{what} (column {column})"), what=what_said,
                                          column=int(found["column"]))

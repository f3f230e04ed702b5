"""Extract, update and compile the gettext catalogs (``python -m echo_desk.i18n_build ...``).

``extract``: scan the sources into ``i18n/messages.pot`` and merge it into each ``.po``.
``compile``: write ``echo_desk/locale/<lang>/LC_MESSAGES/echo_desk.mo`` (done by the set-up).
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages import frontend

from echo_desk.i18n import LANGUAGES

ROOT = Path(__file__).resolve().parent.parent
I18N = ROOT / "i18n"
LOCALE = Path(__file__).resolve().parent / "locale"
LANGS = LANGUAGES


def _run(argv: list[str]) -> None:
    frontend.CommandLineInterface().run(["pybabel", "-q", *argv])


def extract() -> None:
    pot = I18N / "messages.pot"
    pot.parent.mkdir(parents=True, exist_ok=True)
    _run(["extract", "-k", "_", "-k", "N_", "--no-location", "--sort-output",
          "--project", "Echo Desk", "-o", str(pot), str(ROOT / "echo_desk")])
    for lang in LANGS:
        po = I18N / lang / "LC_MESSAGES" / "echo_desk.po"
        if po.exists():
            _run(["update", "-i", str(pot), "-d", str(I18N), "-l", lang, "-D", "echo_desk",
                  "--no-fuzzy-matching", "--ignore-obsolete"])
        else:
            _run(["init", "-i", str(pot), "-d", str(I18N), "-l", lang, "-D", "echo_desk"])


def compile_catalogs() -> None:
    for lang in LANGS:
        po = I18N / lang / "LC_MESSAGES" / "echo_desk.po"
        if not po.exists():
            continue
        out = LOCALE / lang / "LC_MESSAGES"
        out.mkdir(parents=True, exist_ok=True)
        _run(["compile", "-i", str(po), "-o", str(out / "echo_desk.mo"), "-D", "echo_desk", "-l", lang])


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "compile"
    if command == "extract":
        extract()
    elif command == "compile":
        compile_catalogs()
    else:
        print(f"unknown command {command!r}: use extract or compile", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""Hatch build hook: compile the gettext catalogs into the wheel.

``i18n/<lang>/LC_MESSAGES/<domain>.po`` (the sources, shipped in the sdist) become
``echo_desk/locale/<lang>/LC_MESSAGES/<domain>.mo`` inside the wheel, so ``pip install`` of the
wheel runs in every language with no extra step. A regular wheel gets freshly compiled catalogs
from a temporary folder (never a stale ``echo_desk/locale`` left in a checkout); an editable
install compiles into ``echo_desk/locale`` itself, because that is where it imports from.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from hatchling.builders.hooks.plugin.interface import BuildHookInterface

LOCALE_IN_PACKAGE = "echo_desk/locale"
_FIELD = re.compile(r"\{([^{}]*)\}")


def _fields(text: str) -> set[str]:
    """The ``str.format`` fields of a message (``{{``/``}}`` are literal braces, not fields)."""
    return set(_FIELD.findall(text.replace("{{", "").replace("}}", "")))


def placeholder_errors(catalog: Any) -> list[str]:
    """Translations whose ``{fields}`` differ from the source's: an unknown field raises KeyError
    at run time in that language only, a missing one hides what the English shows (a path, a tool)."""
    errors = []
    for message in catalog:
        if not message.id or not message.string or message.fuzzy:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        allowed = set().union(*(_fields(i) for i in ids))
        for string in filter(None, strings):
            found = _fields(string)
            # Plural forms may leave out the count; a singular message must keep every field.
            if (found != allowed) if len(ids) == 1 else not found <= allowed:
                errors.append(f"line {message.lineno}: {ids[0]!r} -> {string!r}")
    return errors


def compile_catalogs(source: Path, target: Path) -> list[Path]:
    """Compile every ``<lang>/LC_MESSAGES/*.po`` under ``source`` into the same layout under
    ``target``; returns the ``.mo`` files written. A malformed ``.po`` fails the build."""
    written = []
    for po in sorted(source.glob("*/LC_MESSAGES/*.po")):
        lang = po.parent.parent.name
        with po.open("rb") as handle:
            catalog = read_po(handle, locale=lang, domain=po.stem, abort_invalid=True)
        errors = placeholder_errors(catalog)
        if errors:
            raise ValueError(f"{po}: translation fields differ from the source:\n  " + "\n  ".join(errors))
        mo = target / lang / "LC_MESSAGES" / f"{po.stem}.mo"
        mo.parent.mkdir(parents=True, exist_ok=True)
        with mo.open("wb") as handle:
            # Fuzzy entries are guesses from `pybabel update`: never ship them as translations.
            write_mo(handle, catalog, use_fuzzy=False)
        written.append(mo)
    return written


class CatalogBuildHook(BuildHookInterface[Any]):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        source = Path(self.root) / "i18n"
        if not any(source.glob("*/LC_MESSAGES/*.po")):
            # A wheel without catalogs would run in English only, silently: refuse to build it.
            raise RuntimeError(f"no translation catalogs under {source}: the sdist or checkout is incomplete")
        if version == "editable":
            compile_catalogs(source, Path(self.root) / LOCALE_IN_PACKAGE)
            return
        self._tmp = Path(tempfile.mkdtemp(prefix="echo-desk-mo-"))
        for mo in compile_catalogs(source, self._tmp):
            build_data["force_include"][str(mo)] = f"{LOCALE_IN_PACKAGE}/{mo.relative_to(self._tmp).as_posix()}"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        tmp = getattr(self, "_tmp", None)
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)

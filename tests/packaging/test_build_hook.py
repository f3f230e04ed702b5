"""The wheel's build hook (hatch_build.py): what it compiles, and what it refuses."""

from __future__ import annotations

import gettext
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from tests.packaging.artifacts import REPO

pytest.importorskip("hatchling", reason="hatchling comes with the test extras")


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hatch_build_under_test", REPO / "hatch_build.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _po(folder: Path, lang: str, body: str) -> None:
    path = folder / lang / "LC_MESSAGES" / "echo_desk.po"
    path.parent.mkdir(parents=True)
    path.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n' + body, encoding="utf-8")


def test_compiles_every_language_and_leaves_fuzzy_guesses_out(tmp_path: Path) -> None:
    source, target = tmp_path / "i18n", tmp_path / "locale"
    _po(source, "zh_CN", 'msgid "Stop"\nmsgstr "停止"\n\n#, fuzzy\nmsgid "Stopped"\nmsgstr "停止"\n')
    _po(source, "de", 'msgid "Stop"\nmsgstr "Anhalten"\n')
    written = _hook().compile_catalogs(source, target)
    assert sorted(p.relative_to(target).as_posix() for p in written) == [
        "de/LC_MESSAGES/echo_desk.mo", "zh_CN/LC_MESSAGES/echo_desk.mo"]
    with (target / "zh_CN/LC_MESSAGES/echo_desk.mo").open("rb") as handle:
        catalog = gettext.GNUTranslations(handle)
    assert catalog.gettext("Stop") == "停止"
    assert catalog.gettext("Stopped") == "Stopped"


def test_a_malformed_catalog_fails_the_build(tmp_path: Path) -> None:
    source = tmp_path / "i18n"
    _po(source, "zh_CN", 'msgid "Stop"\nmsgstrr "停止"\n')
    with pytest.raises(Exception, match="misformatted keyword"):
        _hook().compile_catalogs(source, tmp_path / "locale")


@pytest.mark.parametrize("translation", ["批准 {tool}？{path}", "批准 {tol}？", "批准？"])
def test_a_translation_with_other_fields_fails_the_build(tmp_path: Path, translation: str) -> None:
    source = tmp_path / "i18n"
    _po(source, "zh_CN", f'msgid "Approve {{tool}}?"\nmsgstr "{translation}"\n')
    with pytest.raises(ValueError, match="fields differ"):
        _hook().compile_catalogs(source, tmp_path / "locale")


def test_literal_braces_and_plural_counts_are_fine(tmp_path: Path) -> None:
    source = tmp_path / "i18n"
    _po(source, "zh_CN",
        'msgid "Use {{braces}} for {name}"\nmsgstr "用 {{括号}} 表示 {name}"\n\n'
        'msgid "{n} file"\nmsgid_plural "{n} files"\nmsgstr[0] "文件"\n')
    assert _hook().compile_catalogs(source, tmp_path / "locale")


def test_the_checkout_catalogs_compile(tmp_path: Path) -> None:
    written = _hook().compile_catalogs(REPO / "i18n", tmp_path)
    assert tmp_path / "zh_CN/LC_MESSAGES/echo_desk.mo" in written

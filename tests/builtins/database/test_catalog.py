"""Every catalog string of the database tools has a Chinese translation, and it is used."""

from __future__ import annotations

from pathlib import Path

from babel.messages.pofile import read_po

from echo_desk.builtins.database import DbExecuteTool, DbQueryTool, DbSchemaTool, connections, execute

PO = Path(__file__).resolve().parents[3] / "i18n" / "zh_CN" / "LC_MESSAGES" / "echo_desk.po"


def catalog_strings() -> list[str]:
    texts = [t for cls in (DbQueryTool, DbSchemaTool, DbExecuteTool) for t in (cls.title, cls.catalog_description)]
    texts += [connections.NO_DATABASE, connections.NO_WRITE_CONNECTION, connections.PASSWORD_MISSING,
              connections.CONNECTION_REFUSED, connections.HOST_NOT_FOUND, connections.FILE_NOT_FOUND,
              execute.SUMMARY, execute.TARGET_DETAIL]
    return texts


def test_every_database_string_is_translated() -> None:
    with PO.open("rb") as f:
        catalog = read_po(f, locale="zh_CN")
    for text in catalog_strings():
        message = catalog.get(text)
        assert message is not None, f"missing from the catalog: {text!r}"
        assert message.string and message.string != text, f"untranslated: {text!r}"
        for field in ("{connection}", "{kind}"):
            assert (field in text) == (field in message.string), f"placeholder {field} lost in {text!r}"

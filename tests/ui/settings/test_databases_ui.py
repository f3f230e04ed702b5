"""Databases in the app: the settings page (connections, keyring passwords, test button) and
the result grid in a ``db_query`` card, live and after reopening the conversation.

The grid tests run a real SQLite file through the real runtime, dispatcher and chat window;
only the model is scripted.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from echo_desk.builtins.database import DbExecuteTool, DbQueryTool, database_tools
from echo_desk.store.conversations import ConversationStore
from echo_desk.store.settings import DatabaseConnection, Settings, SettingsStore
from echo_desk.tools.secrets import secret_store
from echo_desk.ui.chat.transcript import TOOL
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.settings.databases_page import DatabasesPage
from echo_desk.ui.settings.settings_dialog import SettingsDialog
from tests.agent.fake_model import ScriptedModel, calls, say
from tests.ui.conftest import attached_window, next_emission, within

EVIL = "<b>bold</b> & <script>x</script>"
CJK = re.compile(r"[\u4e00-\u9fff]")


def _fill(page: DatabasesPage, name: str, kind: str, dsn: str, password: str = "", write: bool = False) -> None:
    page.add_button.click()
    page.name.setText(name)
    page.kind.setCurrentIndex(page.kind.findData(kind))
    page.dsn.setText(dsn)
    page.password.setText(password)
    page.write_mode.setChecked(write)


def _tool(tools: list, cls: type):
    return next(t for t in tools if isinstance(t, cls))


def test_adding_a_connection_keeps_the_password_out_of_the_settings(qtbot, settings_store: SettingsStore,
                                                                     config_dir: Path):
    tools = database_tools(settings_store)
    query = _tool(tools, DbQueryTool)
    assert query.readiness_detail() == "no database configured"
    page = DatabasesPage(settings_store)
    qtbot.addWidget(page)
    _fill(page, "sales", "postgres", "postgresql://me@127.0.0.1:1/sales", password="s3cret-pw", write=True)
    page.save_button.click()

    assert settings_store.current.databases == [DatabaseConnection(
        name="sales", kind="postgres", dsn="postgresql://me@127.0.0.1:1/sales", write_mode=True)]
    on_disk = "".join(p.read_text() for p in config_dir.rglob("*") if p.is_file())
    assert "sales" in on_disk and "s3cret-pw" not in on_disk
    assert secret_store().get("database.sales.password") == "s3cret-pw"
    assert page.password.text() == "" and page.password.placeholderText() == "Saved in the system keyring"
    assert page.table.rowCount() == 1 and page.table.item(0, 2).text() == "postgresql://me@127.0.0.1:1/sales"
    assert page.table.item(0, 3).text() == "Yes"
    assert "full SQL" in page.warning.text() and "Execute risk" in page.warning.text()
    # The catalog's readiness follows: the port refuses, so "connection refused", not "no database".
    qtbot.waitUntil(lambda: "connection refused" in query.readiness_detail(), timeout=5000)

    # Bad input: a password inside the DSN is refused with a clear message and nothing changes.
    _fill(page, "other", "postgres", "postgresql://me:oops@db/x")
    page.save_button.click()
    assert "password field" in page.result.text()
    assert page.dsn.text() == "postgresql://me:oops@db/x"
    assert [c.name for c in settings_store.current.databases] == ["sales"]


def test_with_no_connection_the_page_says_how_to_add_one(qtbot, settings_store: SettingsStore):
    from echo_desk.ui.core import i18n_qt

    i18n_qt.apply_language("zh_CN")
    page = DatabasesPage(settings_store)
    qtbot.addWidget(page)
    page.show()
    assert page.empty.isVisible() and "保存" in page.empty.text()  # an empty table said nothing
    _fill(page, "notes", "sqlite", "/tmp/notes.sqlite3")
    page.save_button.click()
    assert page.table.rowCount() == 1 and not page.empty.isVisible()
    i18n_qt.apply_language("en")
    page.remove("notes")
    assert page.table.rowCount() == 0 and page.empty.isVisible()
    assert page.empty.text() == "No database connections yet. Fill in the form below and press Save to add one."


def test_removing_a_connection_removes_its_password_and_readiness_follows(qtbot, settings_store, tmp_path):
    tools = database_tools(settings_store)
    execute = _tool(tools, DbExecuteTool)
    db = tmp_path / "shop.db"
    sqlite3.connect(db).close()
    page = DatabasesPage(settings_store)
    qtbot.addWidget(page)
    _fill(page, "pg", "postgres", "postgresql://me@127.0.0.1:1/x", password="pw")
    page.save_button.click()
    _fill(page, "shop", "sqlite", str(db), write=True)
    page.save_button.click()
    assert [c.name for c in settings_store.current.databases] == ["pg", "shop"]
    qtbot.waitUntil(execute.is_ready, timeout=5000)  # the write-mode SQLite file answers

    page.table.selectRow(0)
    assert page.name.text() == "pg"
    page.remove_button.click()
    box = page.confirm_box
    assert box is not None and "pg" in box.text()
    box.button(QMessageBox.StandardButton.Yes).click()
    assert [c.name for c in settings_store.current.databases] == ["shop"]
    assert secret_store().get("database.pg.password") is None
    assert page.table.rowCount() == 1

    page.table.selectRow(0)
    page.remove_button.click()
    page.confirm_box.button(QMessageBox.StandardButton.Yes).click()
    assert settings_store.current.databases == []
    assert execute.readiness_detail() == "no connection in write mode"


def test_the_test_button_reports_each_problem_clearly(qtbot, settings_store, workspace: Path, tmp_path: Path):
    page = DatabasesPage(settings_store, workspace=lambda: str(workspace))
    qtbot.addWidget(page)

    def tested() -> str:
        page.test_button.click()
        qtbot.waitUntil(lambda: page.test_button.isEnabled() and page.result.text() != "Testing…", timeout=10000)
        return page.result.text()

    _fill(page, "shop", "sqlite", "missing.db")
    assert tested() == f"Database file not found: {workspace / 'missing.db'}"
    outside = tmp_path / "elsewhere.db"
    sqlite3.connect(outside).close()
    page.dsn.setText(str(outside))
    assert tested().startswith("The file is outside the workspace")
    sqlite3.connect(workspace / "shop.db").close()
    page.dsn.setText("shop.db")
    assert tested() == "Connected."
    (workspace / "notes.db").write_text("not a database")
    page.dsn.setText("notes.db")
    assert tested().startswith("Connection failed:") and "not a database" in tested()
    _fill(page, "pg", "postgres", "postgresql://me@127.0.0.1:1/x")
    assert tested() == "Password missing: type it in the password field."
    page.password.setText("pw")
    assert tested().startswith("Connection failed:")
    assert settings_store.current.databases == []  # testing saves nothing


def test_settings_dialog_has_the_databases_page(qtbot, runtime):
    dialog = SettingsDialog(CatalogBackend(runtime.settings, runtime))
    qtbot.addWidget(dialog)
    dialog.show_page("databases")
    assert dialog.stack.currentWidget() is dialog.databases
    assert dialog.nav.item(dialog.PAGES.index("databases")).text() == "Databases"


@pytest.fixture
def window(qtbot, qloop, builtin_runtime, tmp_path):
    store = ConversationStore(tmp_path / "conversations.sqlite3")
    win = attached_window(qtbot, builtin_runtime, store)
    win.resize(900, 700)
    win.show()
    yield win
    win.session.stop()
    store.close()


def test_a_db_query_card_shows_a_grid_and_shows_it_again_when_reopened(window, qloop, workspace: Path):
    db = sqlite3.connect(workspace / "shop.db")
    db.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL)")
    db.executemany("INSERT INTO items VALUES (?, ?, ?)",
                   [(i, EVIL if i == 1 else f"item {i}", i * 1.5) for i in range(1, 31)])
    db.commit()
    db.close()

    def add(s: Settings) -> None:
        s.databases = [DatabaseConnection(name="shop", kind="sqlite", dsn="shop.db")]

    window.services.settings.update(add)
    window.set_workspace(str(workspace))
    args = json.dumps({"connection": "shop", "sql": "SELECT id, name, price FROM items ORDER BY id", "max_rows": 20})
    model = ScriptedModel([calls(("q1", "db_query", args)), say("There are 30 items.")])
    window.services.model = model
    window.set_model(model)

    async def scenario() -> None:
        window.composer.setPlainText("What is in the shop?")
        window.send()
        assert await within(next_emission(window.session.busy_changed)) is False

    qloop.run_until_complete(scenario())
    delegate = window.transcript.itemDelegate()

    def card_texts() -> tuple[str, str, str]:
        transcript = window.session.transcript
        card = next(i for i in transcript.items() if i.kind == TOOL and i.tool_name == "db_query")
        assert card.status == "done" and card.grid is not None
        collapsed_doc = delegate.document(card)
        collapsed = (collapsed_doc.toPlainText(), collapsed_doc.toHtml())
        transcript.toggle_expanded(transcript.row_of(card))
        expanded = delegate.document(card).toPlainText()
        transcript.toggle_expanded(transcript.row_of(card))
        return collapsed[0], collapsed[1], expanded

    text, markup, expanded = card_texts()
    for header in ("id", "integer", "name", "text", "price", "real"):
        assert header in text
    assert "item 2" in text and "item 8" in text and "item 9" not in text
    # The value's HTML is shown as text, never interpreted.
    assert EVIL in text and "<script>" not in markup and "&lt;script&gt;" in markup
    assert "22 more rows" in text  # 8 of 20 drawn, and 10 past the tool's cap
    assert "item 20" in expanded and "item 21" not in expanded and "10 more rows" in expanded

    # Reopening the stored conversation draws the same grid.
    window.session.flush_writes()
    window.session.open(window.session.conversation)
    assert card_texts() == (text, markup, expanded)


def test_the_stored_grid_is_bounded():
    from echo_desk.agent.envelope import Envelope
    from echo_desk.ui.chat.chat_session import _envelope_dict
    from echo_desk.ui.chat.result_grid import MAX_CELL_CHARS, MAX_ROWS

    envelope = Envelope(ok=True, tool="query_database", call_id="c1", content="…",
                        metadata={"columns": [{"name": "v", "type": "text"}], "rows": [["x" * 500]] * 300,
                                  "row_count": 300, "more_rows": 0})
    stored = _envelope_dict(envelope)
    assert len(stored["grid"]["rows"]) == MAX_ROWS and len(stored["grid"]["rows"][0][0]) == MAX_CELL_CHARS
    assert stored["grid"]["row_count"] == 300


def test_the_page_and_the_grid_note_follow_the_language(qtbot, settings_store):
    from echo_desk.ui.chat.result_grid import grid_html, grid_of
    from echo_desk.ui.core import i18n_qt

    page = DatabasesPage(settings_store)
    qtbot.addWidget(page)
    grid = grid_of({"columns": [{"name": "n", "type": "integer"}], "rows": [[i] for i in range(10)],
                    "row_count": 10, "more_rows": 5})
    assert grid is not None
    i18n_qt.apply_language("zh_CN")
    try:
        texts = [page.intro.text(), page.warning.text(), page.write_mode.text(), page.add_button.text(),
                 page.test_button.text(), *(label.text() for label in page.labels.values())]
        english = [t for t in texts if re.search(r"\b(the|agent|password|connection|Name|Type)\b", t)]
        assert english == [] and all(CJK.search(t) for t in texts)
        assert "还有 7 行" in grid_html(grid, expanded=False)[0]  # 2 of 10 not drawn + 5 past the cap
    finally:
        i18n_qt.apply_language("en")
    assert "7 more rows" in grid_html(grid, expanded=False)[0]


def test_the_catalog_shows_readiness_as_connections_change(qtbot, builtin_runtime, workspace: Path):
    from echo_desk.ui.settings.catalog_model import COL_STATUS
    from echo_desk.ui.settings.catalog_page import ToolsPage

    backend = CatalogBackend(builtin_runtime.settings, builtin_runtime)
    tools = ToolsPage(backend)
    qtbot.addWidget(tools)

    def status(name: str) -> str:
        tools.model.refresh_status()  # what the page's 1 s timer does
        return tools.model._rows[name][COL_STATUS].text()

    assert status("db_query") == "Not ready: no database configured"
    assert status("db_execute") == "Not ready: no connection in write mode"
    page = DatabasesPage(builtin_runtime.settings, workspace=lambda: str(workspace))
    qtbot.addWidget(page)
    _fill(page, "pg", "postgres", "postgresql://me@127.0.0.1:1/x", write=True)
    page.save_button.click()
    assert status("db_execute") == "Not ready: pg: password missing"
    page.password.setText("pw")
    page.save_button.click()
    qtbot.waitUntil(lambda: status("db_execute") == "Not ready: pg: connection refused", timeout=5000)
    sqlite3.connect(tmp := workspace / "shop.db").close()
    _fill(page, "shop", "sqlite", str(tmp))
    page.save_button.click()
    qtbot.waitUntil(lambda: status("db_query") == "Ready", timeout=5000)
    tools.close_page()


def test_a_write_mode_call_shows_the_full_sql_for_approval_then_its_grid(window, qloop, workspace: Path):
    db = sqlite3.connect(workspace / "shop.db")
    db.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, price REAL)")
    db.executemany("INSERT INTO items VALUES (?, ?)", [(i, 1.0) for i in range(1, 6)])
    db.commit()
    db.close()

    def add(s: Settings) -> None:
        s.databases = [DatabaseConnection(name="shop", kind="sqlite", dsn="shop.db", write_mode=True)]

    window.services.settings.update(add)
    window.set_workspace(str(workspace))
    sql = "UPDATE items\n   SET price = price * 2\n WHERE id <= 3\nRETURNING id, price"
    model = ScriptedModel([calls(("x1", "db_execute", json.dumps({"connection": "shop", "sql": sql}))), say("Done.")])
    window.services.model = model
    window.set_model(model)
    seen: list[str] = []

    def on_dialog(dialog) -> None:
        seen.append(dialog.targets.toPlainText())

        def allow_when_ready() -> None:  # Allow works once the person has seen every line
            for box in (dialog.targets, dialog.arguments):
                box.verticalScrollBar().setValue(box.verticalScrollBar().maximum())
            if dialog.allow_once.isEnabled():
                dialog.allow_once.click()
            else:
                qloop.call_later(0.02, allow_when_ready)

        qloop.call_soon(allow_when_ready)

    window.host.dialog_opened.connect(on_dialog)

    async def scenario() -> None:
        window.composer.setPlainText("Double the first three prices.")
        window.send()
        assert await within(next_emission(window.session.busy_changed)) is False

    qloop.run_until_complete(scenario())
    assert len(seen) == 1 and sql in seen[0] and "shop" in seen[0]
    card = next(i for i in window.session.transcript.items() if i.kind == TOOL and i.tool_name == "db_execute")
    text = window.transcript.itemDelegate().document(card).toPlainText()
    assert card.status == "done" and "id\ninteger\nprice" in text and "more rows" not in text
    assert card.grid is not None and card.grid.rows == ((1, 2.0), (2, 2.0), (3, 2.0))
    with sqlite3.connect(workspace / "shop.db") as check:
        assert check.execute("SELECT count(*) FROM items WHERE price = 2.0").fetchone() == (3,)


def test_a_wide_grid_is_cut_when_collapsed_and_whole_when_expanded():
    from echo_desk.ui.chat.result_grid import grid_html, grid_of

    long = "x" * 100
    grid = grid_of({"columns": [{"name": f"c{i}", "type": "text"} for i in range(10)],
                    "rows": [[long] * 10], "row_count": 1, "more_rows": 0})
    assert grid is not None
    collapsed, more = grid_html(grid, expanded=False)
    assert more and "2 more columns" in collapsed and "c7" in collapsed and "c8" not in collapsed
    assert long not in collapsed and "x" * 39 + "…" in collapsed
    expanded, more = grid_html(grid, expanded=True)
    assert not more and "c9" in expanded and long in expanded and "more columns" not in expanded
    assert grid_of({"columns": [], "rows": [], "status": "3 rows affected"}) is None  # no table: the text shows


def test_one_hidden_row_or_column_is_counted_in_the_singular():
    from echo_desk.ui.chat.result_grid import grid_html, grid_of

    grid = grid_of({"columns": [{"name": f"c{i}", "type": "text"} for i in range(9)],
                    "rows": [["x"] * 9], "row_count": 1, "more_rows": 1})
    assert grid is not None
    collapsed, _more = grid_html(grid, expanded=False)
    assert "1 more row" in collapsed and "1 more rows" not in collapsed
    assert "1 more column" in collapsed and "1 more columns" not in collapsed

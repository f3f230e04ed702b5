"""The transcript's look: tool-family icons, status chips, the expander, role bubbles."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QTextDocument

from echo_desk.agent.sources import ToolSource
from echo_desk.agent.status import ToolStatus
from echo_desk.ui.chat.tool_card import card_html
from echo_desk.ui.chat.tool_icons import ICON_SIZE, ToolFamily, add_icon, icon_image, tool_family
from echo_desk.ui.chat.transcript import TOOL, USER, TranscriptItem, TranscriptModel
from echo_desk.ui.chat.transcript_view import TranscriptDelegate, TranscriptView
from echo_desk.ui.core import theme
from echo_desk.ui.core.labels import status_label


@pytest.mark.parametrize(("name", "source", "family"), [
    ("read_file", None, ToolFamily.FILES),
    ("list_dir", None, ToolFamily.FILES),
    ("edit_file", None, ToolFamily.EDIT),
    ("run_command", None, ToolFamily.SHELL),
    ("fetch_url", None, ToolFamily.WEB),
    ("search_files", None, ToolFamily.SEARCH),
    ("db_query", None, ToolFamily.DATABASE),
    ("delegate", None, ToolFamily.AGENT),
    ("memory__create_entities", ToolSource.mcp("memory"), ToolFamily.MCP),
    ("my_plugin_tool", ToolSource.plugin("x"), ToolFamily.OTHER),
    ("weird name!", None, ToolFamily.OTHER),
])
def test_each_tool_gets_its_family(name, source, family):
    assert tool_family(name, source) is family


def test_icons_are_drawn_sharp_for_high_dpi(qapp):
    for family in ToolFamily:
        image = icon_image(family, theme.LIGHT.muted)
        assert image.width() > ICON_SIZE * 2  # drawn larger than shown, scaled down on paint
        visible = sum(image.pixelColor(x, y).alpha() > 0 for x in range(image.width()) for y in range(image.height()))
        assert visible > 20, family
    doc = QTextDocument()
    tag = add_icon(doc, ToolFamily.SHELL, theme.LIGHT.muted)
    doc.setHtml(f"<p>{tag} run</p>")
    assert f"width='{ICON_SIZE}'" in tag
    assert doc.size().height() >= ICON_SIZE


def test_cards_have_a_status_chip_and_an_expander_not_click_links(qapp):
    item = TranscriptItem(TOOL, tool_name="run_command", call_id="c1", arguments='{"command": "ls"}',
                          status=ToolStatus.RUNNING, output="\n".join(str(i) for i in range(40)))
    collapsed = card_html(item, "Run command")
    assert status_label(ToolStatus.RUNNING) in collapsed
    assert theme.tint(theme.colour("accent"), theme.colour("card"), 0.16) in collapsed  # the chip's tint
    assert "▸" in collapsed and "Show all" in collapsed
    assert "Click to" not in collapsed
    item.expanded = True
    expanded = card_html(item, "Run command")
    assert "▾" in expanded and "Show all" not in expanded and "Click to" not in expanded
    for status in ToolStatus:
        item.status = status
        assert status_label(status) in card_html(item, "Run command")


def test_the_persons_messages_sit_indented_and_tinted(qtbot, qapp):
    theme.apply_theme("light")
    model = TranscriptModel()
    view = TranscriptView()
    view.setModel(model)
    view.resize(700, 400)
    qtbot.addWidget(view)
    view.show()
    model.add_user("Hello there")
    model.append_text("An answer.")
    model.end_assistant()
    view.doItemsLayout()
    delegate = view.itemDelegate()
    assert isinstance(delegate, TranscriptDelegate)
    user, answer = model.items()
    user_rect = delegate.row_rect(user, view.visualRect(model.index(0, 0)).toRectF())
    answer_rect = delegate.row_rect(answer, view.visualRect(model.index(1, 0)).toRectF())
    assert user_rect.left() > answer_rect.left() + 40
    image = view.grab().toImage()
    inside = image.pixelColor(int(user_rect.left()) + 4, int(user_rect.center().y()))
    assert inside.name() == theme.LIGHT.user_bubble
    assert user.kind == USER

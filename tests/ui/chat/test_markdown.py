"""Markdown in the transcript: Pygments colours, a code block's Copy, links opened only on click."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication, QTextDocument
from PySide6.QtWidgets import QApplication

from echo_desk.ui.chat import code_highlight
from echo_desk.ui.chat.markdown import COPY_CODE_ANCHOR, code_block_text, link_target, markdown_document
from echo_desk.ui.chat.transcript import TranscriptModel
from echo_desk.ui.chat.transcript_view import TranscriptDelegate, TranscriptView
from echo_desk.ui.core import theme

CODE = 'url = "http://example.com/#x"  # a comment\nfor i in range(3):\n    print(i)\n\tdone = True'
MESSAGE = (f"See [the docs](https://example.org/docs) and `inline`.\n\n```python\n{CODE}\n```\n\n"
           "| a | b |\n|---|---|\n| 1 | 2 |\n")


@pytest.fixture(autouse=True)
def _light(qapp: QApplication) -> Iterator[None]:
    theme.apply_theme("light")
    yield
    theme.apply_theme("light")


@pytest.fixture
def opened(monkeypatch) -> list[QUrl]:
    urls: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: urls.append(QUrl(url)) or True)
    return urls


def _colours(doc: QTextDocument) -> dict[str, str]:
    """Text of each fragment → its foreground colour."""
    out: dict[str, str] = {}
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            out[fragment.text()] = fragment.charFormat().foreground().color().name()
            it += 1
        block = block.next()
    return out


def test_pygments_colours_a_url_in_a_string_as_a_string_not_a_comment():
    colours = _colours(markdown_document(MESSAGE, 500))
    p = theme.current()
    # The keyword-list colouring made everything after "#" a comment, inside the string too.
    assert colours['"http://example.com/#x"'] == p.syn_string
    assert colours["# a comment"] == p.syn_comment
    assert colours["for"] == p.syn_keyword
    assert colours["range"] == p.syn_type  # a builtin


def test_the_colours_follow_the_theme():
    theme.apply_theme("dark")
    colours = _colours(markdown_document(MESSAGE, 500))
    assert colours["# a comment"] == theme.DARK.syn_comment
    assert colours["the docs"] == theme.DARK.link


def test_the_language_is_shown_and_guessed_when_the_fence_has_none():
    doc = markdown_document(f"```\n{CODE}\n```\n", 500)
    assert doc.toPlainText().splitlines()[0].strip().startswith("Python")
    assert code_highlight.language_name("", "ls -la | grep foo\ncd /tmp && echo done") == "Bash"
    assert code_highlight.language_name("", "hello") == ""  # no clear sign: plain, not wrong
    assert code_highlight.spans("just some words here, nothing more", "") == ()
    assert markdown_document("```rust\nfn main() {}\n```\n", 500).toPlainText().splitlines()[0].strip().startswith(
        "rust")


def test_the_copy_link_holds_the_exact_code():
    doc = markdown_document(MESSAGE + "\n```js\nconst a = '😀';\n```\n", 500)
    assert code_block_text(doc, f"{COPY_CODE_ANCHOR}0") == CODE  # tabs, indentation, the "#" inside
    assert code_block_text(doc, f"{COPY_CODE_ANCHOR}1") == "const a = '😀';"
    assert code_block_text(doc, f"{COPY_CODE_ANCHOR}2") is None
    assert code_block_text(doc, "https://example.org") is None


def test_only_web_and_mail_links_can_be_opened():
    assert link_target("https://example.org/x") == QUrl("https://example.org/x")
    assert link_target("mailto:a@b.c") is not None
    for href in ("file:///etc/passwd", "javascript:alert(1)", "echo-desk:revert", "smb://host/share", ""):
        assert link_target(href) is None, href


def _view(qtbot, text: str) -> TranscriptView:
    model = TranscriptModel()
    view = TranscriptView()
    view.setModel(model)
    view.resize(700, 600)
    qtbot.addWidget(view)
    view.show()
    model.append_text(text)
    model.end_assistant()
    model.flush()
    view.doItemsLayout()
    return view


def _point_of(view: TranscriptView, href: str) -> QPoint:
    """Where ``href``'s link is drawn in the first row, in viewport coordinates."""
    index = view.model().index(0, 0)
    delegate = view.itemDelegate()
    assert isinstance(delegate, TranscriptDelegate)
    item = view.model().items()[0]
    rect = delegate.row_rect(item, view.visualRect(index).toRectF())
    top = 0.0
    for doc in delegate.documents(item):
        layout = doc.documentLayout()
        block = doc.begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                if fragment.charFormat().anchorHref() == href:
                    box = layout.blockBoundingRect(block)
                    line = block.layout().lineForTextPosition(fragment.position() - block.position())
                    x = line.cursorToX(fragment.position() - block.position() + 1)[0]
                    y = box.top() + line.y() + line.height() / 2
                    point = QPointF(rect.left() + 10 + x, rect.top() + 10 + top + y)
                    assert view.anchor_at(index, point.toPoint()) == href
                    return point.toPoint()
                it += 1
            block = block.next()
        top += doc.size().height()
    raise AssertionError(f"no link {href}")


def test_rendering_opens_nothing_and_a_click_opens_the_link(qtbot, opened):
    view = _view(qtbot, MESSAGE)
    view.grab()  # painted
    assert opened == []
    point = _point_of(view, "https://example.org/docs")
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    qtbot.waitUntil(lambda: len(opened) == 1)
    assert opened[0] == QUrl("https://example.org/docs")


def test_a_click_on_copy_puts_the_exact_code_on_the_clipboard(qtbot, opened):
    QGuiApplication.clipboard().setText("before")
    view = _view(qtbot, MESSAGE)
    point = _point_of(view, f"{COPY_CODE_ANCHOR}0")
    with qtbot.waitSignal(view.code_copied, timeout=5000):
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert QGuiApplication.clipboard().text() == CODE
    assert opened == []


def test_the_window_says_the_code_was_copied(qtbot):
    from echo_desk.ui.chat.chat_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    window.transcript.code_copied.emit("x = 1")
    assert window.statusBar().currentMessage() == "Code copied"


def test_colours_can_wait_for_the_first_paint_without_changing_the_size():
    from echo_desk.ui.chat.markdown import colour_pending

    now = markdown_document(MESSAGE, 500)
    later = markdown_document(MESSAGE, 500, colour_later=True)
    assert later.size() == now.size()
    assert theme.current().syn_comment not in _colours(later).values()  # not yet
    colour_pending(later)
    assert _colours(later) == _colours(now)
    assert later.size() == now.size()


def test_colours_land_on_the_right_characters_after_an_emoji():
    colours = _colours(markdown_document("```python\nx = '😀😀'  # smile\ny = 2\n```\n", 500))
    assert colours["# smile"] == theme.current().syn_comment
    assert colours["2"] == theme.current().syn_number


def test_a_streaming_answer_is_coloured_before_layout_and_an_opened_one_at_first_paint(qtbot):
    model = TranscriptModel()
    view = TranscriptView()
    view.setModel(model)
    qtbot.addWidget(view)
    delegate = view.itemDelegate()
    assert isinstance(delegate, TranscriptDelegate)
    comment = theme.current().syn_comment
    # First measured (as when a conversation opens): the colours wait for a paint.
    model.append_text(f"Step one.\n\n```python\n{CODE}\n```\n\n")
    model.flush()
    item = model.items()[-1]
    assert comment not in _colours(delegate.documents(item)[-1]).values()
    # Streamed on: the row was measured before, so its new piece comes coloured.
    model.append_text("Step two.\n\n```python\nsecond = 2  # streamed\n```\n")
    model.flush()
    last = delegate.documents(item)[-1]
    assert _colours(last)["# streamed"] == comment

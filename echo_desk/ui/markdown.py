"""Markdown → ``QTextDocument`` with highlighted code blocks (Qt's own Markdown reader).

The highlighter is deliberately small: keywords, strings, comments and numbers for the
languages agents write most. It only touches fenced/indented code blocks.
"""

from __future__ import annotations

import re

from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QSyntaxHighlighter,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)

_KEYWORDS = (
    "and as assert async await break case catch class const continue def default del do elif else "
    "enum except export extends false False finally fn for from func function if impl import in "
    "interface is let match mut new nil None not null or package pass pub raise return self static "
    "struct super switch this throw true True try type use var while with yield"
).split()
_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b(" + "|".join(_KEYWORDS) + r")\b"), "keyword"),
    (re.compile(r"\b\d+(\.\d+)?\b"), "number"),
    (re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|`[^`]*`"), "string"),
    (re.compile(r"(#|//).*$"), "comment"),
]
_COLOURS = {"keyword": "#cf222e", "number": "#0550ae", "string": "#0a3069", "comment": "#6e7781"}
_CODE_BACKGROUND = QColor("#f6f8fa")


def _is_code(fmt: QTextBlockFormat) -> bool:
    return fmt.hasProperty(QTextFormat.Property.BlockCodeFence) or fmt.nonBreakableLines()


class CodeHighlighter(QSyntaxHighlighter):
    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self._formats: dict[str, QTextCharFormat] = {}
        for name, colour in _COLOURS.items():
            fmt = QTextCharFormat()
            fmt.setForeground(QColor(colour))
            if name == "keyword":
                fmt.setFontWeight(QFont.Weight.DemiBold)
            if name == "comment":
                fmt.setFontItalic(True)
            self._formats[name] = fmt

    def highlightBlock(self, text: str) -> None:
        if not _is_code(self.currentBlock().blockFormat()):
            return
        for pattern, name in _RULES:
            for m in pattern.finditer(text):
                self.setFormat(m.start(), m.end() - m.start(), self._formats[name])


def markdown_document(text: str, width: float, base_font: QFont | None = None) -> QTextDocument:
    """A laid-out document for ``text`` at ``width`` pixels, code blocks shaded and highlighted."""
    doc = QTextDocument()
    if base_font is not None:
        doc.setDefaultFont(base_font)
    doc.setDocumentMargin(0)
    # No raw HTML from the model: tags and comments are shown as the text they are, never
    # obeyed or silently dropped (an HTML comment would hide words from the person).
    doc.setMarkdown(text, QTextDocument.MarkdownFeature(
        QTextDocument.MarkdownFeature.MarkdownDialectGitHub.value | QTextDocument.MarkdownFeature.MarkdownNoHTML.value))
    mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    block = doc.begin()
    cursor = QTextCursor(doc)
    has_code = False
    while block.isValid():
        fmt = block.blockFormat()
        if _is_code(fmt):
            has_code = True
            fmt.setBackground(_CODE_BACKGROUND)
            cursor.setPosition(block.position())
            cursor.setBlockFormat(fmt)
            char = QTextCharFormat()
            char.setFont(mono)
            cursor.setPosition(block.position() + max(0, block.length() - 1), QTextCursor.MoveMode.KeepAnchor)
            cursor.mergeCharFormat(char)
        block = block.next()
    if has_code:
        CodeHighlighter(doc)
    doc.setTextWidth(width)
    return doc


def markdown_chunks(text: str, min_chars: int = 1200) -> list[str]:
    """Cut ``text`` at blank lines outside code fences into pieces of at least ``min_chars``.

    The cuts only depend on the text before them, so while a message streams in every piece but
    the last stays identical and its laid-out document can be reused: each repaint renders a
    short tail instead of the whole message.
    """
    pieces: list[str] = []
    start = pos = 0
    fence = ""
    for line in text.splitlines(keepends=True):
        pos += len(line)
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            fence = "" if fence == marker else (fence or marker)
        elif not fence and not stripped and line.endswith("\n") and pos - start >= min_chars:
            pieces.append(text[start:pos])
            start = pos
    pieces.append(text[start:])
    return pieces


def warm_up() -> None:
    """Render a tiny document once: the first Markdown/monospace layout costs ~50 ms (font
    lookups); the app pays it while loading, not on the first streamed answer."""
    markdown_document("**a** `b`\n\n- c\n\n```python\nd = 1  # e\n```\n", 200).size()

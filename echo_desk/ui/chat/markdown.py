"""Markdown → ``QTextDocument`` (Qt's own reader), styled from the palette.

Fenced code is coloured by Pygments (``code_highlight``) and gets a header line with its
language and a "Copy" link; inline code, tables and links get the palette's colours. Links are
only data here: the transcript opens one in the browser when it is clicked (``link_target``).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from PySide6.QtCore import QUrl
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontDatabase,
    QTextBlock,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFrameFormat,
    QTextLength,
    QTextTable,
)

from echo_desk.i18n import _
from echo_desk.ui.chat import code_highlight
from echo_desk.ui.core import marshal, theme

if TYPE_CHECKING:
    import concurrent.futures

#: The href of a code block's "Copy" link: this prefix and the block's number in its document.
COPY_CODE_ANCHOR = "echo-desk:copy-code:"
#: Schemes a click may open in the system browser or mail app; anything else is never opened.
OPENABLE_SCHEMES = ("http", "https", "mailto")
#: Where the exact text of each code block is kept on its document (a list of strings).
CODE_BLOCKS_PROPERTY = "code_blocks"
_FENCED_PROPERTY = "code_blocks_fenced"
_SOURCE_PROPERTY = "markdown_source"
_MONO_FALLBACKS = ["DejaVu Sans Mono", "Noto Sans Mono", "Liberation Mono", "Menlo", "Consolas",
                   "Noto Sans Mono CJK SC", "WenQuanYi Micro Hei Mono"]


def code_font(size_from: QFont | None = None) -> QFont:
    """The monospace font for code, with a CJK monospace behind it for Chinese comments."""
    return QFont(_code_font(size_from.pointSizeF() if size_from is not None else -1.0))


@lru_cache(maxsize=8)
def _code_font(point_size: float) -> QFont:
    mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    mono.setFamilies([mono.family(), *_MONO_FALLBACKS])
    mono.setStyleHint(QFont.StyleHint.Monospace)
    if point_size > 0:
        mono.setPointSizeF(point_size * 0.95)
    return mono


def fenced_code(text: str) -> list[str]:
    """The exact content of each fenced code block of ``text``, in order.

    Qt's reader turns tabs into spaces; Copy must give the code as the model wrote it.
    """
    blocks: list[str] = []
    lines: list[str] = []
    marker, indent = "", 0
    for line in text.splitlines():
        stripped = line.lstrip(" ")
        if not marker:
            if stripped.startswith(("```", "~~~")) and len(line) - len(stripped) < 4:
                fence = stripped[0]
                marker = fence * (len(stripped) - len(stripped.lstrip(fence)))
                indent, lines = len(line) - len(stripped), []
            continue
        if stripped.startswith(marker) and not stripped.lstrip(marker[0]).strip():
            blocks.append("\n".join(lines))
            marker = ""
            continue
        # CommonMark: a fence indented by n spaces removes up to n spaces from its lines.
        drop = min(indent, len(line) - len(line.lstrip(" ")))
        lines.append(line[drop:])
    if marker:
        blocks.append("\n".join(lines))  # still streaming in: the code so far
    return blocks


def _is_code(fmt: QTextBlockFormat) -> bool:
    return (fmt.hasProperty(QTextFormat.Property.BlockCodeFence) or fmt.nonBreakableLines()
            or fmt.hasProperty(QTextFormat.Property.BlockCodeLanguage))


@dataclass
class _Fence:
    language: str
    blocks: list[QTextBlock]
    fenced: bool

    def code(self) -> str:
        return "\n".join(b.text() for b in self.blocks)


def _fences(doc: QTextDocument, palette: theme.Palette, inline: bool) -> list[_Fence]:
    """The code blocks of ``doc`` (runs of code lines); with ``inline``, other blocks get
    inline-code and link colours."""
    fences: list[_Fence] = []
    mono_families = code_font().families()
    previous_code = False
    block = doc.begin()
    while block.isValid():
        fmt = block.blockFormat()
        if _is_code(fmt):
            language = str(fmt.property(QTextFormat.Property.BlockCodeLanguage) or "")
            if previous_code and fences[-1].language == language:
                fences[-1].blocks.append(block)
            else:
                fenced = bool(fmt.property(QTextFormat.Property.BlockCodeFence))
                fences.append(_Fence(language, [block], fenced))
            previous_code = True
        else:
            previous_code = False
            if inline:
                _style_inline(block, palette, mono_families)
        block = block.next()
    return fences


def _style_inline(block: QTextBlock, palette: theme.Palette, mono_families: list[str]) -> None:
    """Inline code on a tinted background; links in the palette's link colour."""
    it = block.begin()
    cursor: QTextCursor | None = None
    while not it.atEnd():
        fragment = it.fragment()
        fmt = fragment.charFormat()
        fixed, anchor = fmt.fontFixedPitch(), fmt.isAnchor()
        if fixed or anchor:
            change = QTextCharFormat()
            if fixed:
                change.setBackground(QColor(palette.inline_code_bg))
                change.setFontFamilies(mono_families)
            if anchor:
                change.setForeground(QBrush(QColor(palette.link)))
                change.setFontUnderline(True)
            cursor = cursor or QTextCursor(block.document())
            cursor.setPosition(fragment.position())
            cursor.setPosition(fragment.position() + fragment.length(), QTextCursor.MoveMode.KeepAnchor)
            cursor.mergeCharFormat(change)
        it += 1


def _utf16_offsets(text: str) -> list[int] | None:
    # QTextDocument counts UTF-16 units; Python counts code points. Only astral characters
    # (emoji…) make them differ, so most code needs no table.
    if len(text.encode("utf-16-le")) == 2 * len(text):
        return None
    offsets, at = [], 0
    for c in text:
        offsets.append(at)
        at += 2 if ord(c) >= 0x10000 else 1
    offsets.append(at)
    return offsets


def _shade_fence(doc: QTextDocument, fence: _Fence, palette: theme.Palette, mono: QFont) -> None:
    """Background and monospace for a code block (what its size depends on)."""
    first, last = fence.blocks[0], fence.blocks[-1]
    cursor = QTextCursor(doc)
    fmt = first.blockFormat()
    fmt.setBackground(QColor(palette.code_bg))
    fmt.setLeftMargin(0)
    fmt.setTopMargin(0)
    char = QTextCharFormat()
    char.setFont(mono)
    char.setForeground(QBrush(QColor(palette.text)))
    cursor.setPosition(first.position())
    cursor.setPosition(last.position() + max(0, last.length() - 1), QTextCursor.MoveMode.KeepAnchor)
    cursor.setBlockFormat(fmt)  # every block of the selection
    cursor.setCharFormat(char)


def _colour_code(doc: QTextDocument, base: int, code: str, language: str, palette: theme.Palette) -> None:
    """Pygments colours for ``code``, which starts at document position ``base``."""
    cursor = QTextCursor(doc)
    offsets = _utf16_offsets(code)
    colours: dict[str, QTextCharFormat] = {}
    for span in code_highlight.spans(code, language):
        start, end = span.start, span.start + span.length
        if offsets is not None:
            start, end = offsets[start], offsets[end]
        run = colours.get(span.role)
        if run is None:
            run = colours[span.role] = QTextCharFormat()
            run.setForeground(QBrush(palette.qcolor(span.role)))
            if span.role == "syn_comment":
                run.setFontItalic(True)
        # One document position per code character: block separators are the "\n" of ``code``.
        cursor.setPosition(base + start)
        cursor.setPosition(base + end, QTextCursor.MoveMode.KeepAnchor)
        cursor.mergeCharFormat(run)


def _add_header(doc: QTextDocument, fence: _Fence, code: str, number: int, palette: theme.Palette,
                font: QFont) -> None:
    """A line above the code: its language (muted) and a "Copy" link."""
    first = fence.blocks[0]
    code_format = first.blockFormat()
    cursor = QTextCursor(doc)
    cursor.setPosition(first.position())
    cursor.insertBlock(code_format, first.charFormat())
    # The old first block is now empty: it becomes the header.
    cursor.setPosition(first.position())
    header = QTextBlockFormat()
    header.setBackground(QColor(palette.code_border))
    header.setTopMargin(6)
    cursor.setBlockFormat(header)
    label = QTextCharFormat()
    small = QFont(font)
    if small.pointSizeF() > 0:
        small.setPointSizeF(small.pointSizeF() * 0.85)
    label.setFont(small)
    label.setForeground(QBrush(QColor(palette.muted)))
    language = code_highlight.language_name(fence.language, code)
    # "code" when the language is neither written nor clear from the text.
    shown = language or _("code")
    cursor.insertText(f" {shown}    ", label)
    link = QTextCharFormat(label)
    link.setAnchor(True)
    link.setAnchorHref(f"{COPY_CODE_ANCHOR}{number}")
    link.setForeground(QBrush(QColor(palette.link)))
    cursor.insertText(_("Copy"), link)


def _style_tables(doc: QTextDocument, palette: theme.Palette) -> None:
    for frame in doc.rootFrame().childFrames():
        if not isinstance(frame, QTextTable):
            continue
        fmt = frame.format()
        fmt.setBorder(1)
        fmt.setBorderBrush(QBrush(QColor(palette.border)))
        fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
        fmt.setBorderCollapse(True)
        fmt.setCellPadding(4)
        fmt.setCellSpacing(0)
        fmt.setWidth(QTextLength(QTextLength.Type.VariableLength, 0))
        frame.setFormat(fmt)
        for column in range(frame.columns()):
            cell = frame.cellAt(0, column)
            cell_format = cell.format()
            cell_format.setBackground(QColor(palette.table_header))
            cell.setFormat(cell_format)


#: Code not coloured yet, per document: (position, code, language). See ``colour_pending``.
_PENDING: weakref.WeakKeyDictionary[QTextDocument, list[tuple[int, str, str]]] = weakref.WeakKeyDictionary()


def markdown_document(text: str, width: float, base_font: QFont | None = None, *,
                      colour_later: bool = False) -> QTextDocument:
    """A laid-out document for ``text`` at ``width`` pixels, in the current theme's colours.

    With ``colour_later`` the code is shaded and sized but its Pygments colours wait for
    ``colour_pending`` (called before the document is first painted): a long conversation
    measures hundreds of rows it does not show, and lexing is most of a row's cost. Colours
    never change a code block's size (its lines do not wrap), so nothing moves when they come.
    """
    palette = theme.current()
    doc = QTextDocument()
    doc.setUndoRedoEnabled(False)  # formats applied below need no undo history
    if base_font is not None:
        doc.setDefaultFont(base_font)
    doc.setDocumentMargin(0)
    # No raw HTML from the model: tags and comments are shown as the text they are, never
    # obeyed or silently dropped (an HTML comment would hide words from the person).
    doc.setMarkdown(text, QTextDocument.MarkdownFeature(
        QTextDocument.MarkdownFeature.MarkdownDialectGitHub.value | QTextDocument.MarkdownFeature.MarkdownNoHTML.value))
    inline = "`" in text or "](" in text or "<http" in text or "www." in text
    fences = _fences(doc, palette, inline)
    if fences:
        mono = code_font(base_font)
        for fence in fences:
            _shade_fence(doc, fence, palette, mono)
        # The exact code is worked out when Copy is clicked (``code_block_text``), not per render.
        codes = [fence.code() for fence in fences]  # before the headers go in
        doc.setProperty(CODE_BLOCKS_PROPERTY, codes)
        doc.setProperty(_FENCED_PROPERTY, [fence.fenced for fence in fences])
        doc.setProperty(_SOURCE_PROPERTY, text)
        # Last first: inserting a header moves every later position.
        for number in range(len(fences) - 1, -1, -1):
            _add_header(doc, fences[number], codes[number], number, palette, base_font or doc.defaultFont())
        pending = [(_code_start(fence), code, fence.language) for fence, code in zip(fences, codes, strict=True)]
        if colour_later:
            _PENDING[doc] = pending
        else:
            for base, code, language in pending:
                _colour_code(doc, base, code, language, palette)
    if "|" in text:
        _style_tables(doc, palette)
    doc.setTextWidth(width)
    return doc


def _code_start(fence: _Fence) -> int:
    # After its header went in, the fence's first block handle may point at the header or at
    # the code; the header is the one without the code-block properties.
    first = fence.blocks[0]
    return first.position() if _is_code(first.blockFormat()) else first.next().position()


def colour_pending(doc: QTextDocument) -> None:
    """Give the code of a ``colour_later`` document its colours (once; cheap when done)."""
    pending = _PENDING.pop(doc, None)
    if pending:
        palette = theme.current()
        for base, code, language in pending:
            _colour_code(doc, base, code, language, palette)


def _exact_code(doc: QTextDocument) -> list[str]:
    """Each block's code as written in the source when the source and Qt agree on the blocks,
    else as Qt read it (a fence inside a quote, say)."""
    as_read = [str(x) for x in doc.property(CODE_BLOCKS_PROPERTY) or []]
    fenced = [bool(x) for x in doc.property(_FENCED_PROPERTY) or []]
    source = fenced_code(str(doc.property(_SOURCE_PROPERTY) or ""))
    if len(source) != sum(fenced) or len(fenced) != len(as_read):
        return as_read
    written = iter(source)
    return [next(written) if is_fenced else code for code, is_fenced in zip(as_read, fenced, strict=True)]


def code_block_text(doc: QTextDocument, href: str) -> str | None:
    """The exact code of the block whose "Copy" link is ``href``, or ``None``."""
    if not href.startswith(COPY_CODE_ANCHOR):
        return None
    try:
        number = int(href[len(COPY_CODE_ANCHOR):])
    except ValueError:
        return None
    blocks = _exact_code(doc)
    return blocks[number] if 0 <= number < len(blocks) else None


def link_target(href: str) -> QUrl | None:
    """The URL a click on ``href`` may open (web and mail only), or ``None``."""
    url = QUrl(href)
    if not url.isValid() or url.scheme().lower() not in OPENABLE_SCHEMES:
        return None
    return url


def markdown_chunks(text: str, min_chars: int = 600) -> list[str]:
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


def preload_code_lexers() -> concurrent.futures.Future[int]:
    """Ready the common Pygments lexers on a worker thread (``code_highlight.preload``), so the
    first code block of an answer does not stall the window while Pygments imports."""
    return marshal.BackgroundOp(code_highlight.preload).run()


def warm_up() -> None:
    """Render a tiny document once: the first Markdown/monospace layout costs ~50 ms (font
    lookups) and the first Pygments lexer import some more; the app pays it while loading,
    not on the first streamed answer."""
    markdown_document("**a** `b`\n\n- c\n\n```python\nd = 1  # e\n```\n", 200).size()

"""Render the app icon's PNG sizes from its SVG with Qt's own SVG renderer.

Run after editing ``echo_desk/resources/icons/echo-desk.svg``; the PNGs are committed so a
build needs no SVG tool. ``python packaging/render_icons.py [--check]`` (``--check`` only
reports PNGs that are missing or have the wrong size).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ICONS = Path(__file__).resolve().parent.parent / "echo_desk" / "resources" / "icons"
SIZES = (16, 24, 32, 48, 64, 128, 256)


def render(svg: Path, size: int, out: Path) -> None:
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg} is not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    if not image.save(str(out), "PNG"):
        raise SystemExit(f"could not write {out}")


def main(argv: list[str]) -> int:
    _app = QGuiApplication.instance() or QGuiApplication(["render_icons"])
    svg = ICONS / "echo-desk.svg"
    problems = []
    for size in SIZES:
        out = ICONS / f"echo-desk-{size}.png"
        if "--check" in argv:
            image = QImage(str(out))
            if image.isNull() or (image.width(), image.height()) != (size, size):
                problems.append(out.name)
            continue
        render(svg, size, out)
        print(f"wrote {out.relative_to(ICONS.parent.parent.parent)}")
    if problems:
        print("missing or wrong size: " + ", ".join(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

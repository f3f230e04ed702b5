"""The main window's size and place, its splitter, and the conversation open at the last close:
``window.json`` beside ``settings.json``. Qt-free: the geometry blobs are Qt's own, as base64."""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path

from echo_desk.common.json_text import read_json
from echo_desk.store.settings import write_atomically

log = logging.getLogger(__name__)

FILE_NAME = "window.json"


@dataclass(frozen=True)
class WindowState:
    """``geometry``/``splitter``: base64 of ``QWidget.saveGeometry()`` / ``QSplitter.saveState()``."""

    geometry: str = ""
    splitter: str = ""
    last_conversation: str = ""


def load(folder: Path) -> WindowState:
    """The saved state; defaults when there is none or it cannot be read (never raises)."""
    path = folder / FILE_NAME
    try:
        raw = read_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return WindowState()
    except (OSError, ValueError) as exc:
        log.warning("window state %s unreadable (%s); using defaults", path, exc)
        return WindowState()
    if not isinstance(raw, dict):
        return WindowState()
    return WindowState(**{k: v for k, v in raw.items() if k in WindowState.__dataclass_fields__ and isinstance(v, str)})


def save(folder: Path, state: WindowState) -> None:
    write_atomically(folder / FILE_NAME, json.dumps(asdict(state), indent=2).encode("utf-8"))

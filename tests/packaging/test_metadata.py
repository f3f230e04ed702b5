"""The desktop metadata and the icon: valid, consistent with each other and with the version."""

from __future__ import annotations

import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
from configparser import ConfigParser
from pathlib import Path

import pytest

from echo_desk import resources
from tests.packaging.artifacts import APP_ID, REPO, source_version

PACKAGING = REPO / "packaging"
METAINFO = PACKAGING / f"{APP_ID}.metainfo.xml"
DESKTOP = PACKAGING / f"{APP_ID}.desktop"


def _png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", header[16:24])
    return width, height


def test_every_icon_size_exists_and_is_that_size() -> None:
    for size in resources.ICON_SIZES:
        assert _png_size(resources.icon_path(size)) == (size, size)
    svg = ET.parse(resources.icon_path()).getroot()
    assert svg.tag.endswith("svg") and svg.get("viewBox") == "0 0 256 256"
    assert resources.icon_files()[-1] == resources.icon_path()


def test_icon_path_refuses_a_size_that_does_not_exist() -> None:
    with pytest.raises(ValueError, match="sizes are 16"):
        resources.icon_path(20)


def test_metainfo_release_is_the_package_version() -> None:
    root = ET.parse(METAINFO).getroot()
    releases = root.findall("./releases/release")
    assert releases, "metainfo lists no release"
    assert releases[0].get("version") == source_version(), "add a <release> for the new version (newest first)"
    assert root.findtext("id") == APP_ID
    assert root.find("launchable").text == DESKTOP.name  # type: ignore[union-attr]


def test_desktop_entry_points_at_the_command_and_icon() -> None:
    entry = ConfigParser(interpolation=None, strict=True)
    entry.optionxform = str  # type: ignore[assignment,method-assign]
    entry.read(DESKTOP, encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Exec"] == "echo-desk"
    assert section["Icon"] == APP_ID
    assert "Name" in section and "Comment[zh_CN]" in section


@pytest.mark.parametrize(("tool", "args", "target"), [
    ("appstreamcli", ["validate", "--no-net"], METAINFO),
    ("desktop-file-validate", [], DESKTOP),
])
def test_validators_accept_the_metadata(tool: str, args: list[str], target: Path) -> None:
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed (make setup installs it)")
    result = subprocess.run([tool, *args, str(target)], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr

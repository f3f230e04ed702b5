"""The PyInstaller one-folder bundle as a user gets it. Needs a built bundle: ``make package-test``
builds one and points ``ECHO_DESK_BUNDLE_DIR`` at it; without it these tests are skipped."""

from __future__ import annotations

import gettext
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.packaging.artifacts import (
    APP_ID,
    assert_first_frame,
    assert_tools_run,
    builtin_tool_names,
    known_zh_string,
    run,
    source_version,
)

pytestmark = pytest.mark.bundle


@pytest.fixture(scope="module")
def bundle() -> Path:
    given = os.environ.get("ECHO_DESK_BUNDLE_DIR")
    if not given:
        pytest.skip("no bundle: `make package-test` builds one and sets ECHO_DESK_BUNDLE_DIR")
    folder = Path(given).resolve()
    assert (folder / "echo-desk").is_file(), f"{folder} holds no echo-desk program"
    return folder


def test_version(bundle: Path, tmp_path: Path) -> None:
    result = run([str(bundle / "echo-desk"), "--version"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"echo-desk {source_version()}"


def test_tools_list_offers_what_the_checkout_offers(bundle: Path, tmp_path: Path, source_tool_names: set[str]) -> None:
    result = run([str(bundle / "echo-desk"), "tools", "list", "--json"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert builtin_tool_names(result.stdout) == source_tool_names


def test_builtin_tools_run_through_the_dispatcher(bundle: Path, tmp_path: Path) -> None:
    assert_tools_run([str(bundle / "echo-desk")], tmp_path)


def test_commands_the_agent_runs_get_the_users_library_path(bundle: Path, tmp_path: Path) -> None:
    """Not the bundle's: a child would otherwise load the bundle's libssl/libz/libstdc++."""
    command = 'echo "LDP=[${LD_LIBRARY_PATH-unset}] ORIG=[${LD_LIBRARY_PATH_ORIG-unset}]"'
    for user_value in ("", "/opt/user-libs"):
        extra = {"LD_LIBRARY_PATH": user_value} if user_value else {}
        env_run = run([str(bundle / "echo-desk"), "call", "run_command", "--args", json.dumps({"command": command}),
                       "--workspace", str(tmp_path), "--yes"], cwd=tmp_path, **extra)
        content = json.loads(env_run.stdout)["content"]
        expected = f"LDP=[{user_value}]" if user_value else "LDP=[unset]"
        assert expected in content and "ORIG=[unset]" in content, content
        assert str(bundle) not in content


def _model_cache() -> Path | None:
    """The cache folder holding the default local model (as tests/agent_llm finds it)."""
    import platformdirs

    from echo_desk.providers.local import default_model

    for folder in (os.environ.get("ECHO_DESK_TEST_CACHE_DIR"), platformdirs.user_cache_dir("echo-desk", appauthor=False)):
        if folder and (Path(folder) / "models" / default_model.FILE_NAME).is_file():
            return Path(folder)
    return None


@pytest.mark.llm
def test_the_local_model_server_starts_from_the_bundle(bundle: Path, tmp_path: Path) -> None:
    """The app starts llama.cpp as ``sys.executable -m echo_desk.providers.local.child``; in a
    bundle sys.executable is echo-desk itself (packaging/launcher.py runs the module)."""
    cache = _model_cache()
    if cache is None:
        if os.environ.get("ECHO_DESK_REQUIRE_LLM") == "1":
            pytest.fail("ECHO_DESK_REQUIRE_LLM=1 but the local model is missing")
        pytest.skip("local model not fetched (python -m echo_desk.providers.local.fetch_default)")
    result = run([str(bundle / "echo-desk"), "ask", "Reply with the single word: ready", "--provider", "local",
                  "--workspace", str(tmp_path), "--json", "--no"], cwd=tmp_path, ECHO_DESK_CACHE_DIR=str(cache))
    assert result.returncode == 0, result.stderr[-3000:]
    exchange = json.loads(result.stdout[result.stdout.index("{"):])
    assert exchange["completed"] and not exchange["error"], exchange
    assert exchange["answer"].strip(), exchange


@pytest.mark.parametrize("lang", ["en_US.UTF-8", "zh_CN.UTF-8"])
def test_gui_paints_a_first_frame_offscreen_and_exits(bundle: Path, tmp_path: Path, lang: str) -> None:
    result = run([str(bundle / "echo-desk")], cwd=tmp_path, LANG=lang, LC_ALL=lang,
                 ECHO_DESK_EXIT_AFTER_FIRST_FRAME="1")
    assert_first_frame(result)


def test_gui_paints_a_first_frame_on_a_real_x_display(bundle: Path, tmp_path: Path) -> None:
    """xcb, not offscreen: proves the bundled X11 platform plugin and its libraries load."""
    if shutil.which("xvfb-run") is None:
        pytest.skip("xvfb-run is not installed (make setup installs it)")
    result = run(["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", "env", "QT_QPA_PLATFORM=xcb",
                  str(bundle / "echo-desk")], cwd=tmp_path, ECHO_DESK_EXIT_AFTER_FIRST_FRAME="1")
    assert_first_frame(result)


def test_catalogs_qt_translations_and_icons_are_inside(bundle: Path) -> None:
    internal = bundle / "_internal"
    known = known_zh_string()
    with (internal / "echo_desk/locale/zh_CN/LC_MESSAGES/echo_desk.mo").open("rb") as handle:
        assert gettext.GNUTranslations(handle).gettext(known.msgid) == known.zh_CN
    assert (internal / "PySide6/Qt/translations/qtbase_zh_CN.qm").is_file()
    # Only the offered languages of Qt's own translations are kept (size).
    kept = {p.name for p in (internal / "PySide6/Qt/translations").glob("qtbase_*.qm")}
    assert kept <= {"qtbase_zh_CN.qm", "qtbase_en.qm"}
    assert (internal / "echo_desk/resources/icons/echo-desk-256.png").is_file()
    assert (internal / "echo_desk/resources/icons/echo-desk.svg").is_file()
    assert (internal / "PySide6/Qt/plugins/platforms/libqxcb.so").is_file()  # real desktops, not only offscreen
    assert (internal / "PySide6/Qt/plugins/iconengines/libqsvgicon.so").is_file()


def test_menu_entry_installs_for_the_user_and_removes(bundle: Path, tmp_path: Path) -> None:
    data = tmp_path / "share"
    script = bundle / "install-desktop-entry.sh"
    result = subprocess.run(["bash", str(script)], env={**os.environ, "XDG_DATA_HOME": str(data)},
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    desktop = data / "applications" / f"{APP_ID}.desktop"
    assert f'Exec="{bundle / "echo-desk"}"' in desktop.read_text(encoding="utf-8")
    assert (data / "icons/hicolor/48x48/apps" / f"{APP_ID}.png").is_file()
    assert (data / "icons/hicolor/scalable/apps" / f"{APP_ID}.svg").is_file()
    assert (data / "metainfo" / f"{APP_ID}.metainfo.xml").is_file()
    if shutil.which("desktop-file-validate"):
        check = subprocess.run(["desktop-file-validate", str(desktop)], capture_output=True, text=True, check=False)
        assert check.returncode == 0, check.stdout + check.stderr
    removed = subprocess.run(["bash", str(script), "--remove"], env={**os.environ, "XDG_DATA_HOME": str(data)},
                             capture_output=True, text=True, timeout=60, check=False)
    assert removed.returncode == 0, removed.stderr
    assert not desktop.exists()
    assert not list(data.rglob(f"{APP_ID}*"))

"""The wheel and sdist as a user gets them: contents, and the wheel installed in a fresh venv."""

from __future__ import annotations

import ast
import json
import re
import sys
import tarfile
import zipfile
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from tests.packaging.artifacts import (
    REPO,
    Dist,
    WheelVenv,
    assert_first_frame,
    assert_tools_run,
    builtin_tool_names,
    known_zh_string,
    run,
    source_version,
)

pytestmark = pytest.mark.packaging

ICON_FILES = [f"echo_desk/resources/icons/echo-desk-{s}.png" for s in (16, 24, 32, 48, 64, 128, 256)] + [
    "echo_desk/resources/icons/echo-desk.svg"
]


def test_wheel_holds_compiled_catalogs_icons_and_entry_point(dist_dir: Dist) -> None:
    with zipfile.ZipFile(dist_dir.wheel) as wheel:
        names = set(wheel.namelist())
        entry_points = wheel.read(f"echo_desk-{source_version()}.dist-info/entry_points.txt").decode()
    assert "echo_desk/locale/zh_CN/LC_MESSAGES/echo_desk.mo" in names
    assert not [n for n in names if n.endswith(".po")], "catalog sources belong in the sdist only"
    assert set(ICON_FILES) <= names
    assert "echo_desk/resources/__init__.py" in names
    assert re.search(r"^echo-desk = echo_desk\.__main__:main$", entry_points, re.MULTILINE)


def test_sdist_holds_the_catalog_sources_and_the_hook_not_build_output(dist_dir: Dist) -> None:
    prefix = f"echo_desk-{source_version()}/"
    with tarfile.open(dist_dir.sdist) as sdist:
        names = {n.removeprefix(prefix) for n in sdist.getnames()}
    assert "i18n/zh_CN/LC_MESSAGES/echo_desk.po" in names
    assert {"hatch_build.py", "pyproject.toml", "packaging/echo-desk.spec"} <= names
    assert set(ICON_FILES) <= names
    assert not [n for n in names if n.endswith(".mo")], "compiled catalogs are rebuilt, never shipped"


def test_installed_echo_desk_is_the_wheel_not_the_checkout(wheel_venv: WheelVenv) -> None:
    result = run([str(wheel_venv.python), "-c",
                  "import echo_desk, echo_desk.i18n as i, echo_desk.resources as r; "
                  "print(echo_desk.__file__); print(i.LOCALE_DIR); print(r.icon_path(48))"],
                 cwd=wheel_venv.workdir)
    assert result.returncode == 0, result.stderr
    for line in result.stdout.splitlines():
        assert Path(line).is_relative_to(wheel_venv.site_packages), line
    assert Path(result.stdout.splitlines()[2]).is_file()


def test_version_from_the_installed_command(wheel_venv: WheelVenv) -> None:
    result = run([str(wheel_venv.echo_desk), "--version"], cwd=wheel_venv.workdir)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"echo-desk {source_version()}"


def test_tools_list_from_the_wheel_offers_what_the_checkout_offers(
    wheel_venv: WheelVenv, source_tool_names: set[str]
) -> None:
    result = run([str(wheel_venv.echo_desk), "tools", "list", "--json"], cwd=wheel_venv.workdir)
    assert result.returncode == 0, result.stderr
    assert builtin_tool_names(result.stdout) == source_tool_names


def test_builtin_tools_from_the_wheel_run_through_the_dispatcher(wheel_venv: WheelVenv, tmp_path: Path) -> None:
    assert_tools_run([str(wheel_venv.echo_desk)], tmp_path)


def test_zh_cn_catalog_from_the_wheel_translates(wheel_venv: WheelVenv) -> None:
    known = known_zh_string()
    probe = ("import json, sys; from echo_desk import i18n\n"
             "out = {}\n"
             "for lang in ('zh_CN', 'en'):\n"
             "    out[lang] = [i18n.set_language(lang), i18n._(sys.argv[1])]\n"
             "print(json.dumps(out))")
    result = run([str(wheel_venv.python), "-c", probe, known.msgid], cwd=wheel_venv.workdir)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["zh_CN"] == ["zh_CN", known.zh_CN]
    assert out["en"] == ["en", known.msgid]


@pytest.mark.parametrize("lang", ["en_US.UTF-8", "zh_CN.UTF-8"])
def test_gui_from_the_wheel_paints_a_first_frame_offscreen(wheel_venv: WheelVenv, lang: str) -> None:
    result = run([str(wheel_venv.echo_desk)], cwd=wheel_venv.workdir, LANG=lang, LC_ALL=lang,
                 ECHO_DESK_EXIT_AFTER_FIRST_FRAME="1")
    assert_first_frame(result)


def _guarded_by_import_error(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """True for an import inside ``try: ... except ImportError``: an optional dependency."""
    while node in parents:
        parent = parents[node]
        if isinstance(parent, ast.Try) and node in parent.body:
            for handler in parent.handlers:
                names = ast.unparse(handler.type) if handler.type else ""
                if "ImportError" in names or "ModuleNotFoundError" in names:
                    return True
        node = parent
    return False


def _third_party_imports() -> dict[str, str]:
    """Top-level module -> first file importing it, over echo_desk/ (stdlib and ours left out)."""
    found: dict[str, str] = {}
    for path in sorted((REPO / "echo_desk").rglob("*.py")):
        if path.name == "i18n_build.py":  # a developer tool run from a checkout, never by the app
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            else:
                continue
            if _guarded_by_import_error(node, parents):
                continue
            for module in modules:
                top = module.split(".")[0]
                if top != "echo_desk" and top not in sys.stdlib_module_names:
                    found.setdefault(top, str(path.relative_to(REPO)))
    return found


def test_declared_dependencies_cover_imports(dist_dir: Dist) -> None:
    """What the fresh-venv tests borrow from the test venv must be declared in the wheel."""
    with zipfile.ZipFile(dist_dir.wheel) as wheel:
        metadata = wheel.read(f"echo_desk-{source_version()}.dist-info/METADATA").decode()
    declared = {
        re.split(r"[ ;<>=!~\[(]", line.removeprefix("Requires-Dist:").strip())[0].lower().replace("_", "-")
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist:") and "extra ==" not in line
    }
    providers = packages_distributions()
    missing = {}
    for module, where in _third_party_imports().items():
        dists = {d.lower().replace("_", "-") for d in providers.get(module, [])}
        if not dists & declared:
            missing[module] = f"{where} (installed from {sorted(dists) or 'nowhere'})"
    assert not missing, f"imported but not in [project] dependencies: {missing}"

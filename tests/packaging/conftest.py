"""Fixtures for the packaging smoke tests.

``dist_dir``: the wheel and sdist, from ``$ECHO_DESK_DIST_DIR`` (``make package-test`` passes the
real, isolated ``python -m build`` output) or built here offline with ``--no-isolation`` (from the
sdist, like ``python -m build`` always does). ``wheel_venv``: a fresh venv with only that wheel
installed (``--no-deps``); its third-party dependencies come from the test venv through a ``.pth``
line, so this proves *our* files, entry point and data are in the wheel, not that PyPI resolves
the dependencies (``test_declared_dependencies_cover_imports`` checks the declarations).
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.packaging.artifacts import REPO, Dist, WheelVenv, builtin_tool_names, run, source_version


@pytest.fixture(scope="session")
def dist_dir(tmp_path_factory: pytest.TempPathFactory) -> Dist:
    given = os.environ.get("ECHO_DESK_DIST_DIR")
    if given:
        out = Path(given).resolve()
    else:
        out = tmp_path_factory.mktemp("dist")
        result = subprocess.run(
            [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(REPO)],
            capture_output=True, text=True, timeout=600, check=False,
        )
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    version = source_version()
    wheels = sorted(out.glob(f"echo_desk-{version}-*.whl"))
    sdists = sorted(out.glob(f"echo_desk-{version}.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, f"expected one wheel and one sdist of {version} in {out}"
    return Dist(wheel=wheels[0], sdist=sdists[0])


@pytest.fixture(scope="session")
def wheel_venv(dist_dir: Dist, tmp_path_factory: pytest.TempPathFactory) -> WheelVenv:
    root = tmp_path_factory.mktemp("wheel-venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=300)
    python = root / "bin" / "python"
    site = Path(subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout.strip())
    # Third-party packages from the test venv, after the fresh venv's own site-packages (a plain
    # path line: the test venv's own .pth files, e.g. the editable checkout, are NOT processed).
    (site / "zz_test_venv_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
         str(dist_dir.wheel)],
        check=True, timeout=300,
    )
    workdir = tmp_path_factory.mktemp("wheel-cwd")  # not the checkout: '' on sys.path must not find it
    return WheelVenv(root=root, python=python, echo_desk=root / "bin" / "echo-desk", site_packages=site,
                     workdir=workdir)


@pytest.fixture(scope="session")
def source_tool_names(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """``tools list`` from the checkout itself: what every build must offer too."""
    home = tmp_path_factory.mktemp("source-home")
    result = run([sys.executable, "-m", "echo_desk", "tools", "list", "--json"], cwd=REPO,
                 PYTHONPATH=str(REPO), ECHO_DESK_CONFIG_DIR=str(home / "c"), ECHO_DESK_DATA_DIR=str(home / "d"))
    assert result.returncode == 0, result.stderr
    names = builtin_tool_names(result.stdout)
    assert names, "the checkout lists no tools at all"
    return names

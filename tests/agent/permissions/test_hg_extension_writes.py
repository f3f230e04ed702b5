"""s309: an extension that wraps hg's own commands writes where hg without it does not. With
``[extensions] largefiles =`` in ~/.hgrc, ``hg add --large f && hg commit -m x`` wrote f's
content to ``~/.cache/largefiles/<sha1>`` (hg 6.3, scratch home, bash and dash) while the engine
judged ``hg add`` and ``hg commit`` as hg without the extension. Now every hg command, with
largefiles or lfs enabled, counts as writing anything below their user cache, for the write
rules to judge. The person's settings are needed (an extension enabled in their home): engine
tests.

s326: but ``hg status`` with largefiles wrote nothing outside the repository's .hg (strace, hg
6.3.2, bash and dash): it keeps its rule there; lfs may fetch to compare, so it still asks.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, writes_allowed

VCS = rule_text("hg **", "cd **")
LINES = ["hg add --large f", "hg commit -m x", "hg update", "hg cat -r . f", "hg --cwd out log"]


@pytest.fixture
def repository(setup: Setup) -> Setup:
    (setup.workspace / ".hg").mkdir()
    (setup.workspace / "out").mkdir(exist_ok=True)
    return setup


@pytest.mark.parametrize("extensions", ["largefiles =", "hgext.largefiles =", "lfs =", "largefiles = \nlfs = !"])
@pytest.mark.parametrize("line", LINES)
def test_an_extension_writing_its_user_cache_asks(repository: Setup, extensions: str, line: str) -> None:
    (repository.home / ".hgrc").write_text(f"[extensions]\n{extensions}\n", encoding="utf-8")
    assert effect_under(repository, VCS, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", LINES)
def test_a_rule_letting_the_agent_write_the_cache_allows_it(repository: Setup, line: str) -> None:
    (repository.home / ".hgrc").write_text("[extensions]\nlargefiles =\n", encoding="utf-8")
    assert effect_under(repository, VCS + writes_allowed("~/.cache/largefiles/**"), line) is Effect.ALLOW


@pytest.mark.parametrize(("settings", "effect"), [
    ("[largefiles]\nusercache = ~/elsewhere\n", None),
    ("[largefiles]\nusercache = ~/.cache/largefiles\n", Effect.ALLOW),
    ("[largefiles]\nusercache = cache\n", None),  # (relative to the settings file: not read here)
    ("[largefiles]\nusercache = $C/x\n", None),
])
def test_the_cache_its_settings_name_counts(repository: Setup, settings: str, effect: Effect | None) -> None:
    (repository.home / ".hgrc").write_text(f"[extensions]\nlargefiles =\n{settings}", encoding="utf-8")
    got = effect_under(repository, VCS + writes_allowed("~/.cache/largefiles/**"), "hg commit -m x")
    assert got is Effect.ALLOW if effect is Effect.ALLOW else got is not Effect.ALLOW


@pytest.mark.parametrize("settings", ["", "[extensions]\nlargefiles = !\n", "[extensions]\nrebase =\n"])
def test_without_a_caching_extension_hg_keeps_the_rule(repository: Setup, settings: str) -> None:
    (repository.home / ".hgrc").write_text(settings, encoding="utf-8")
    for line in LINES[1:]:
        assert effect_under(repository, VCS, line) is Effect.ALLOW, line


@pytest.mark.parametrize("line", ["hg status", "hg st", "hg -q status --rev 0", "hg st -A --change 1"])
def test_hg_status_leaves_the_largefiles_cache_alone(repository: Setup, line: str) -> None:
    (repository.home / ".hgrc").write_text("[extensions]\nlargefiles =\n", encoding="utf-8")
    assert effect_under(repository, VCS, line) is Effect.ALLOW


@pytest.mark.parametrize(("settings", "line"), [
    ("[extensions]\nlfs =\n", "hg status"),  # (lfs may fetch a file's content to compare it)
    ("[extensions]\nlargefiles =\nlfs =\n", "hg st"),
    ("[extensions]\nlargefiles =\n", "hg stat"),  # (a prefix may name an extension's command)
    ("[extensions]\nlargefiles =\n[alias]\nstatus = update\n", "hg status"),
    ("[extensions]\nlargefiles =\n[alias]\nst = !hg update\n", "hg st"),
    ("[extensions]\nlargefiles =\n", "hg status && hg update"),
    ("[extensions]\nlargefiles =\n[alias]\nst = status\nstatus = log\n", "hg st"),
])
def test_what_only_looks_like_status_still_asks(repository: Setup, settings: str, line: str) -> None:
    (repository.home / ".hgrc").write_text(settings, encoding="utf-8")
    assert effect_under(repository, VCS, line) is not Effect.ALLOW


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_largefiles_status_writes_nothing_outside_the_repository(tmp_path: Path, shell: str) -> None:
    if shutil.which("hg") is None or shutil.which(shell) is None:
        pytest.skip(f"hg or {shell} is not installed")
    home, work = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    work.mkdir()
    (home / ".hgrc").write_text("[extensions]\nlargefiles =\n[ui]\nusername = t\n", encoding="utf-8")
    (work / "f").write_text("x\n", encoding="utf-8")
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C"}
    subprocess.run([shell, "-c", "hg init -q && hg add -q --large f && hg commit -qm x"], cwd=work, env=env,
                   check=True, capture_output=True, timeout=60)
    shutil.rmtree(home / ".cache")
    (work / "f").write_text("y\n", encoding="utf-8")  # (modified at the same size: hashed, not fetched)
    before = sorted(p for p in tmp_path.rglob("*") if ".hg" not in p.relative_to(tmp_path).parts)
    status = subprocess.run([shell, "-c", "hg status && hg status --rev 0 -A"], cwd=work, env=env, check=True,
                            capture_output=True, timeout=60)
    assert status.stdout.decode().startswith("M f\n")
    assert sorted(p for p in tmp_path.rglob("*") if ".hg" not in p.relative_to(tmp_path).parts) == before


def test_the_repository_settings_enable_it_too(repository: Setup) -> None:
    (repository.workspace / ".hg" / "hgrc").write_text("[extensions]\nlargefiles =\n", encoding="utf-8")
    assert effect_under(repository, VCS, "hg commit -m x") is not Effect.ALLOW


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_largefiles_writes_its_user_cache(tmp_path: Path, shell: str) -> None:
    if shutil.which("hg") is None or shutil.which(shell) is None:
        pytest.skip(f"hg or {shell} is not installed")
    home, work = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    work.mkdir()
    (home / ".hgrc").write_text("[extensions]\nlargefiles =\n[ui]\nusername = t\n", encoding="utf-8")
    (work / "f").write_text(f"payload {shell}\n", encoding="utf-8")
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C"}
    subprocess.run(["hg", "init", "-q"], cwd=work, env=env, check=True, capture_output=True)
    subprocess.run([shell, "-c", "hg add --large f && hg commit -qm x"], cwd=work, env=env, check=True,
                   capture_output=True, timeout=60)
    cached = list((home / ".cache" / "largefiles").iterdir())
    assert [p.read_text(encoding="utf-8") for p in cached] == [f"payload {shell}\n"]

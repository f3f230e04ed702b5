"""A rule naming pip (``pip install **``) trusts pip, not the code of a local project it builds:
``pip install ./pkg`` (``.``, ``-e DIR``, ``file:`` URLs, a path a requirements file names,
``pip wheel``, ``pip download``, ``python -m pip``, ``python -m build``) runs that project's
build backend: its ``setup.py``, or a backend the project ships itself (``backend-path`` in
pyproject.toml may name any folder of it). The project's files, and the requirements and
constraints files pip reads (they may name such a path), count as code pip runs: when the write
rules let the agent write them, the line asks (s133). The hostile corpus proves the harm (rule
set local-build).
"""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_of as _effect
from .engine_verdicts import rule_text as _rules

PROGRAMS = ("pip install", "pip3 install", "pip wheel", "pip download", "python -m pip install",
            "python3 -m pip install", "python -m build", "cd", "printf")

#: With the agent's writes allowed in out/ only.
AGENT_CODE = [
    "pip install ./out/pkg", "pip install out/pkg", "pip install -e out/pkg", "pip install --editable=out/pkg",
    "pip install -q --no-index --no-build-isolation ./out/pkg", "pip install 'x @ file:./out/pkg'",
    "pip install file:out/pkg", "pip install ./out/x-1.tar.gz", "pip3 install ./out/pkg", "pip wheel ./out/pkg",
    "pip download ./out/pkg", "python -m pip install ./out/pkg", "python3 -m pip install -e ./out/pkg",
    "cd out && pip install .", "cd out/pkg && pip install -e .", "cd out && python -m build",
    "python -m build out/pkg", "pip install -r out/req.txt", "pip install -c out/c.txt x",
    "pip install --requirement=out/req.txt", "pip install -r req.txt", "pip install -r nested.txt",
    "pip install --no-index -f ./out x", "printf './out/pkg\\n' > out/r.txt && pip install -r out/r.txt",
    "pip install -r missing.txt", "pip install -r editable.txt", "pip install -r short.txt",
    "pip install -r variable.txt", "pip install -r url.txt", "pip install --some-new-option x",
]
#: The same programs, building nothing the agent may write.
PERSON_CODE = ["pip install x", "pip install -U x 'y>=2'", "pip install --break-system-packages x", "pip install ./src/pkg", "pip install -e src/pkg",
               "python -m pip install ./src/pkg", "pip wheel ./src/pkg",
               "python -m build src/pkg", "pip install -r person.txt"]


@pytest.fixture
def pip_rules(setup: Setup) -> Setup:
    setup.write_user_rules(_rules(*(f"{p} **" for p in PROGRAMS)) + _rules("@workspace/out/**", tool="write"))
    ws = setup.workspace
    for folder in ("out/pkg", "src/pkg"):
        (ws / folder).mkdir(parents=True)
        (ws / folder / "pyproject.toml").write_text("[project]\nname='x'\n", encoding="utf-8")
    (ws / "req.txt").write_text("requests\n./out/pkg\n", encoding="utf-8")
    (ws / "nested.txt").write_text("requests\n-r out/more.txt\n", encoding="utf-8")
    (ws / "editable.txt").write_text("--editable=./out/pkg\n", encoding="utf-8")
    (ws / "short.txt").write_text("-rout/more.txt\n", encoding="utf-8")
    (ws / "variable.txt").write_text("${HOME}/pkg\n", encoding="utf-8")
    (ws / "url.txt").write_text(f"x @ file://{ws}/out/pkg ; python_version > '3'\n", encoding="utf-8")
    (ws / "person.txt").write_text("requests>=2  # pinned\n-e ./src/pkg\n", encoding="utf-8")
    return setup


@pytest.mark.parametrize("line", AGENT_CODE)
def test_pip_building_a_project_the_agent_may_write_asks(pip_rules: Setup, line: str) -> None:
    assert _effect(pip_rules, line) is not Effect.ALLOW, line


@pytest.mark.parametrize("line", PERSON_CODE)
def test_pip_building_what_the_agent_may_not_write_is_allowed(pip_rules: Setup, line: str) -> None:
    assert _effect(pip_rules, line) is Effect.ALLOW, line

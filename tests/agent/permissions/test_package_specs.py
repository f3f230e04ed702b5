"""s268: a package spec naming a folder or a file is code that runs. ``npm install ./out/pkg``
and ``yarn add ./out/pkg`` (``file:``, ``name@file:`` too) ran the install scripts of the
package.json the agent wrote there (npm 11, yarn 1.22, under bash and dash: the s268 lines of
the hostile corpus for npm)."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.package_specs import local

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, writes_allowed

RULES = rule_text("[npm|npx|pnpm|yarn|bun|cd|eslint] **") + writes_allowed("@workspace/out/**")


@pytest.mark.parametrize("line", [
    "npm install ./out/pkg", "npm i file:out/pkg", "npm install evil@file:./out/pkg", "npm install -D out/pkg",
    "npm link ./out", "npm install ./out/pkg.tgz", "npm install git+file://{ws}/out/repo",
    "yarn add ./out/pkg", "yarn add file:./out/pkg", "yarn global add ./out/pkg", "yarn link ./out",
    "pnpm add ./out/pkg", "pnpm add link:out/pkg", "pnpm install evil@file:out",
    "bun add ./out/pkg", "bun add @me/evil@file:./out/pkg",
    "cd src && npm install ../out/pkg", "npm install $PKG",
    # the package a runner installs to run its bin (npx --package ./out/pkg eslint ran out/pkg's)
    "npx --package ./out/pkg eslint", "npx -p ./out/pkg eslint", "npx --package=file:out eslint",
    "npm exec --package ./out/pkg -- eslint",
])
def test_a_package_spec_naming_what_the_agent_may_write_asks(setup: Setup, line: str) -> None:
    line = line.replace("{ws}", str(setup.workspace))
    assert effect_under(setup, RULES, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "npm install", "npm install react", "npm i -D @types/node typescript@^5", "npm install ./src/pkg",
    "yarn add react@18 lodash", "pnpm add -D vitest", "bun add zod", "npm ci",
    "npm run build", "npm uninstall react",
    "npx eslint", "npx -p eslint eslint .", "npx --package @me/lint eslint",
])
def test_specs_naming_no_place_the_agent_may_write_stay_allowed(setup: Setup, line: str) -> None:
    assert effect_under(setup, RULES, line) is Effect.ALLOW


@pytest.mark.parametrize(("line", "paths"), [
    (("npm", "install", "react", "@types/node", "ts@^5", "user/repo"), ["user/repo"]),
    (("npm", "i", "file:../x", "link:y", "portal:z", "git+file:///r"), ["../x", "y", "z", "/r"]),
    (("npm", "i", "a@file:../x", "@s/b@./y", "c@~/z"), ["../x", "./y", "~/z"]),
    (("npm", "i", "./a.tgz", "b.tar.gz", "https://h/c.tgz"), ["./a.tgz", "b.tar.gz", "https://h/c.tgz"]),
    (("npm", "i", "git+ssh://git@github.com:u/r.git", "github:u/r"), []),
    (("npm", "--prefix", "p", "install", "--save-dev", "./x"), ["./x"]),
    (("npm", "test", "./x"), []),
    (("pnpm", "add", None), [None]),
    (("npm", None, "./x"), [None]),
    (("node", "install", "./x"), []),
    (("npx", "-y", "--package", "./x", "-p", "y@file:../z", "eslint", "-p", "./w"), ["./x", "../z"]),
    (("npm", "exec", "--package=./x", "--", "eslint"), ["./x"]),
    (("pnpm", "dlx", "--package", "./x", "eslint"), ["./x"]),
])
def test_the_paths_package_specs_name(line: tuple[str | None, ...], paths: list[str | None]) -> None:
    assert local(str(line[0]), line) == paths

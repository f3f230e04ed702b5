"""s287: what JavaScript tools write or load in folders no word of the line names. A scaffolder
given no folder made its project in the folder it ran in and ``npm init -y`` rewrote its
package.json (npm 11, bun 1.4.5); node loaded a package the person's script requires by name
from a node_modules the agent wrote; bun fmt ran the agent's .prettierrc.js; bun create ran the
commands of the agent's template (each proven under bash and dash: the s287 lines of the
hostile corpus)."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect, line_environment, script_words
from echo_desk.agent.permissions.javascript_lookups import (
    Found,
    bun_create_templates,
    bun_module_folders,
    deno_places,
    node_module_folders,
    node_test_files,
)

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, writes_allowed

PACKAGE_MANAGERS = rule_text("[npm|pnpm|yarn|bun|cd] **")
#: The settings the package managers read from the folder they run in, which a planted copy
#: would make ask on its own: denied, so only what this change counts decides.
NO_SETTINGS = "".join(rule_text(f"@workspace/**/{name}", tool="write", effect="deny")
                      for name in ("package.json", ".npmrc", "bunfig.toml", "pnpm-workspace.yaml", ".yarnrc"))


@pytest.mark.parametrize("line", [
    "npm create demo", "npm init demo -y", "npm init -y", "npm create vite -- --template react", "pnpm create demo",
    "pnpm init", "yarn create demo", "yarn init -y", "bun create demo", "bun c demo",
])
def test_a_command_making_a_project_where_the_agent_may_not_write_asks(setup: Setup, line: str) -> None:
    rules = PACKAGE_MANAGERS + writes_allowed("@workspace/out/**")
    assert effect_under(setup, rules, line) is not Effect.ALLOW


@pytest.mark.parametrize(("program", "line", "places"), [
    ("npm", ("npm", "create", "demo"), ["."]),
    ("npm", ("npm", "init", "demo", "-y"), ["."]),
    ("npm", ("npm", "innit", "demo", "../made"), ["."]),
    ("npm", ("npm", "init", "-y"), ["package.json"]),
    ("npm", ("npm", "create"), ["package.json"]),
    ("pnpm", ("pnpm", "create", "demo"), ["."]),
    ("pnpm", ("pnpm", "init"), ["package.json"]),
    ("yarn", ("yarn", "create", "demo"), ["."]),
    ("yarn", ("yarn", "init", "-y"), ["package.json"]),
    ("bun", ("bun", "create", "demo"), ["."]),
    ("bun", ("bun", "--silent", "c", "demo"), ["."]),
    ("npm", ("npm", "test"), []),
    ("npm", ("npm", "run", "create"), []),
    ("pnpm", ("pnpm", "install"), []),
    ("bun", ("bun", "run", "create"), []),
    ("bun", ("bun", "init"), []),  # (bun init's places are its own reading's)
])
def test_what_a_command_making_a_project_writes_where_it_runs(program: str, line: tuple[str, ...],
                                                             places: list[str]) -> None:
    assert script_words.written_here(program, line) == places


@pytest.fixture
def greeting(setup: Setup) -> Path:
    """The person's script, requiring a package by its bare name."""
    script = setup.workspace / "tools" / "greet.js"
    script.parent.mkdir()
    script.write_text("require('greeting')\n", encoding="utf-8")
    return script


NODE = rule_text("[node tools/greet.js|cd] **")


@pytest.mark.parametrize(("written", "line"), [
    ("@workspace/node_modules/**", "node tools/greet.js"),
    ("@workspace/node_modules/greeting/index.js", "node tools/greet.js"),
    ("@workspace/tools/node_modules/**", "node tools/greet.js"),
    ("@workspace/node_modules/**", "node tools/greet.js --loud"),
    ("~/.node_modules/**", "node tools/greet.js"),
    ("~/.node_libraries/**", "node tools/greet.js"),
])
def test_a_module_node_may_load_by_name_that_the_agent_may_write_asks(setup: Setup, greeting: Path, written: str,
                                                                     line: str) -> None:
    assert effect_under(setup, NODE + writes_allowed(written), line) is not Effect.ALLOW


@pytest.mark.parametrize("written", ["@workspace/out/**", "@workspace/tools/*.log", "@workspace/node_modules/**/*.log"])
def test_node_where_the_agent_may_write_no_module_it_finds_stays_allowed(setup: Setup, greeting: Path,
                                                                        written: str) -> None:
    assert effect_under(setup, NODE + writes_allowed(written), "node tools/greet.js") is Effect.ALLOW


def test_node_modules_are_searched_from_the_script_s_folder_and_the_folder_the_line_runs_in(tmp_path: Path) -> None:
    found = node_module_folders(("node", "--no-warnings", "../tools/greet.js"), [tmp_path / "src"], tmp_path / "home")
    assert {tmp_path / "tools" / "node_modules", tmp_path / "node_modules", tmp_path / "src" / "node_modules",
            tmp_path / "home" / ".node_modules", tmp_path / "home" / ".node_libraries"} <= set(found.below)
    assert node_module_folders(("node", None), [tmp_path], None).unknown


#: (checking only: bun fmt writes nothing, and still runs the settings it finds)
FORMAT = rule_text("[bun fmt|cd] **")


@pytest.mark.parametrize(("written", "line"), [
    ("@workspace/src/.prettierrc.js", "bun fmt -c src/a.ts"),
    ("@workspace/prettier.config.mjs", "bun fmt -c src/a.ts"),
    ("@workspace/.prettierrc.cts", "bun fmt --check src/a.ts"),
    ("@workspace/package.json", "bun fmt -l src/a.ts"),
    ("@workspace/src/deep/.prettierrc.cjs", "bun fmt -c src/a.ts src"),
    ("@workspace/src/*.ts", "bun fmt -c src/a.ts"),  # (src/prettier.config.ts)
    ("@workspace/src/.prettierrc.js", "cd src && bun fmt --check a.ts"),
    ("@workspace/.prettierrc.js", "bun fmt -c"),
])
def test_prettier_settings_written_as_code_the_agent_may_write_ask(setup: Setup, written: str, line: str) -> None:
    (setup.workspace / "src").mkdir(exist_ok=True)
    assert effect_under(setup, FORMAT + writes_allowed(written), line) is not Effect.ALLOW


@pytest.mark.parametrize(("written", "line"), [
    ("@workspace/src/.prettierrc", "bun fmt -c src/a.ts"),
    ("@workspace/src/.prettierrc.json", "bun fmt -c src/a.ts"),
    ("@workspace/out/**", "bun fmt -c src/a.ts"),
    ("@workspace/src/.prettierrc.js", "bun fmt -c --no-config src/a.ts"),
])
def test_bun_fmt_where_the_agent_may_write_no_settings_it_runs_stays_allowed(setup: Setup, written: str,
                                                                            line: str) -> None:
    (setup.workspace / "src").mkdir(exist_ok=True)
    assert effect_under(setup, FORMAT + writes_allowed(written), line) is Effect.ALLOW


CREATE = rule_text("[bun create|cd] **") + writes_allowed("@workspace/app/**") + NO_SETTINGS


@pytest.mark.parametrize("templates", ["~/.bun-create/**", "~/.bun-create/evil/package.json"])
def test_a_bun_create_template_the_agent_may_write_asks(setup: Setup, templates: str) -> None:
    (setup.workspace / "app").mkdir()
    assert effect_under(setup, CREATE + writes_allowed(templates), "cd app && bun create evil") is not Effect.ALLOW


def test_bun_create_takes_templates_from_the_folder_it_runs_in_the_home_folder_and_bun_create_dir(
        tmp_path: Path) -> None:
    with line_environment.giving((("BUN_CREATE_DIR", "t"),)):
        found = bun_create_templates(("bun", "create", "evil", "made"), [tmp_path / "app"], tmp_path / "home")
    assert set(found.below) == {tmp_path / "app" / ".bun-create", tmp_path / "home" / ".bun-create",
                                tmp_path / "app" / "t"}
    assert bun_create_templates(("bun", "run", "create"), [tmp_path], tmp_path / "home") == Found()


BUN_SCRIPT = rule_text("[bun tools/greet.js|bun run tools/greet.js|cd] **") + NO_SETTINGS


@pytest.mark.parametrize("line", ["bun tools/greet.js", "bun run tools/greet.js", "bun tools/greet.js --loud"])
def test_a_module_bun_may_load_from_beside_the_script_it_runs_asks(setup: Setup, greeting: Path, line: str) -> None:
    # (s295: bun 1.4.5 ran tools/node_modules/greeting/index.js for `bun tools/greet.js` run in
    # the workspace, a folder below the one the line runs in)
    rules = BUN_SCRIPT + writes_allowed("@workspace/tools/node_modules/**")
    assert effect_under(setup, rules, line) is not Effect.ALLOW


def test_bun_running_a_script_where_the_agent_may_write_no_module_stays_allowed(setup: Setup, greeting: Path) -> None:
    rules = BUN_SCRIPT + writes_allowed("@workspace/out/**", "@workspace/tools/node_modules/**/*.log")
    assert effect_under(setup, rules, "bun tools/greet.js") is Effect.ALLOW


def test_bun_searches_node_modules_from_the_folder_of_the_file_it_runs(tmp_path: Path) -> None:
    found = bun_module_folders(("bun", "--cwd", "app", "run", "../tools/greet.js", "--x"), [tmp_path / "src"])
    assert {tmp_path / "src" / "tools" / "node_modules", tmp_path / "src" / "node_modules",
            tmp_path / "node_modules"} <= set(found.below)
    assert bun_module_folders(("bun", "install"), [tmp_path]) == Found()
    assert bun_module_folders(("bun", None), [tmp_path]).unknown


NODE_TEST = rule_text("[node --test|cd] **")


@pytest.mark.parametrize(("written", "line"), [
    ("@workspace/src/**", "node --test ."),  # (src/a.test.js: node 20 ran it, s295)
    ("@workspace/out/deep/*.js", "node --test ."),
    ("@workspace/test/*.mjs", "node --test --test-only ."),
    ("@workspace/out/**", "node --test out/"),
    ("@workspace/out/**", "node --test out"),
    ("@workspace/out/**", "cd out && node --test ."),
    ("@workspace/out/x.test.js", "node --test out/x.test.js"),
])
def test_a_test_file_node_may_find_that_the_agent_may_write_asks(setup: Setup, written: str, line: str) -> None:
    (setup.workspace / "out").mkdir(exist_ok=True)
    assert effect_under(setup, NODE_TEST + writes_allowed(written), line) is not Effect.ALLOW


@pytest.mark.parametrize(("written", "line"), [
    ("@workspace/out/**", "node --test src/"),
    ("@workspace/**/*.log", "node --test ."),
    ("@workspace/out/**", "node --test src/a.test.js"),
])
def test_node_test_where_the_agent_may_write_no_test_file_stays_allowed(setup: Setup, written: str, line: str) -> None:
    (setup.workspace / "src").mkdir(exist_ok=True)
    assert effect_under(setup, NODE_TEST + writes_allowed(written), line) is Effect.ALLOW


def test_node_test_searches_the_folder_it_runs_in_or_the_folders_named(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    assert node_test_files(("node", "--test"), [tmp_path]).below == [tmp_path]
    assert node_test_files(("node", "--test", "out/", "a.test.js"), [tmp_path]) == Found(
        here=[tmp_path / "a.test.js"], below=[tmp_path / "out", tmp_path / "a.test.js"])
    assert node_test_files(("node", "tools/greet.js"), [tmp_path]) == Found()
    assert node_test_files(("node", "--test", None), [tmp_path]).unknown


DENO = rule_text("[deno|cd] **")


@pytest.mark.parametrize(("written", "line"), [
    ("@workspace/node_modules/**", "deno run -A src/x.js"),  # (s295: deno 2.9 ran greeting/index.js)
    ("@workspace/deno.json", "deno run -A src/x.js"),  # (its imports map "greeting" to any file)
    ("@workspace/src/deno.jsonc", "deno run -A src/x.js"),
    ("@workspace/package.json", "deno task test"),
    ("@workspace/out/**", "deno run -A -c out/cfg.json src/x.js"),
    ("@workspace/out/**", "deno run -A --import-map=out/m.json src/x.js"),
    ("~/.cache/deno/**", "deno run -A src/x.js"),
])
def test_what_deno_may_load_that_the_agent_may_write_asks(setup: Setup, written: str, line: str) -> None:
    (setup.workspace / "src").mkdir(exist_ok=True)
    assert effect_under(setup, DENO + writes_allowed(written), line) is not Effect.ALLOW


@pytest.mark.parametrize("written", ["@workspace/out/**", "@workspace/**/*.log"])
def test_deno_where_the_agent_may_write_nothing_it_loads_stays_allowed(setup: Setup, written: str) -> None:
    (setup.workspace / "src").mkdir(exist_ok=True)
    assert effect_under(setup, DENO + writes_allowed(written), "deno run -A src/x.js") is Effect.ALLOW


def test_deno_reads_settings_from_every_folder_a_word_names_and_above(tmp_path: Path) -> None:
    found = deno_places(("deno", "run", "-cout/c.json", "app/x.ts"), [tmp_path / "w"], tmp_path / "home")
    assert {tmp_path / "w", tmp_path / "w" / "app", tmp_path} <= set(found.here)
    assert {tmp_path / "w" / "app" / "node_modules", tmp_path / "home" / ".cache" / "deno"} <= set(found.below)
    assert tmp_path / "w" / "out" / "c.json" in found.files
    assert deno_places(("deno", "run", None), [tmp_path], None).unknown


@pytest.mark.parametrize("line", ["deno run -A --preload ./out/x.js a.js", "deno run -A --require=out/x.js a.js",
                                  "deno eval 'Deno.exit()'", "deno run --env-file=out/.env a.js"])
def test_deno_code_given_on_the_line_is_covered_only_by_naming_it(setup: Setup, line: str) -> None:
    # (s295: deno 2.9.6 ran out/x.js given to --preload, and the code deno eval was given)
    assert effect_under(setup, DENO, line) is not Effect.ALLOW
    assert effect_under(setup, DENO, "deno run -A a.js") is Effect.ALLOW

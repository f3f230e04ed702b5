"""Permission rules: verdict time for a 200-character pipeline against 500 rules, the added cost
per ``execute_tool`` call when no rule mentions the tool, and the wall time of one
``echo-desk rules check -- 'git status'`` (a person or another tool calls it).

Targets: verdict median <= 1 ms; added cost <= 10 us per call. Figures are printed with the
baseline measured in the same run (the same calls with no permission engine; a bare Python start
for the CLI). On a machine shared with other work the median mostly measures the others: the
minimum and the 10th percentile are printed too, with the load average.
Run: python bench/rules.py
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from echo_desk.agent.host import ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.permissions import Effect, PermissionEngine
from echo_desk.agent.permissions.shell import analyse
from echo_desk.agent.pipeline.approval import rules_verdict
from echo_desk.agent.scope import Scope
from echo_desk.runtime import Runtime
from echo_desk.store.grants import GrantStore
from echo_desk.store.settings import SettingsStore

PIPELINE = ("git log --oneline -20 | grep -v Merge | sort -u | head -n 50 | wc -l && git status --short --branch"
            " | cat && ls -la src tests docs | grep py | sort -r | head -n 5; echo done > /dev/null")
PROGRAMS = ["git", "npm", "cargo", "docker", "kubectl", "make", "python", "node", "go", "pip", "ls", "cat", "grep",
            "sort", "head", "wc", "echo", "find", "sed", "awk", "curl", "wget", "tar", "zip", "rsync"]


def rules_text(count: int) -> str:
    """``count`` shell rules over many programs; the pipeline's own commands are allowed last."""
    out = []
    for i in range(count - 8):
        program = PROGRAMS[i % len(PROGRAMS)]
        effect = ("deny", "ask", "allow")[i % 3]
        out.append(f'[[rule]]\neffect = "{effect}"\ntool = "shell"\npattern = "{program} sub{i} --flag{i} **"\n')
    for pattern in ("git [log|status] **", "grep **", "sort **", "head **", "wc **", "cat **", "ls **", "echo **"):
        out.append(f'[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "{pattern}"\n')
    return "\n".join(out)


def timed(fn, repeat: int, clock=time.perf_counter) -> list[float]:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(repeat):
        start = clock()
        fn()
        samples.append(clock() - start)
    return samples


def verdict_figures(base: Path) -> None:
    config = base / "config"
    config.mkdir()
    (config / "permissions.toml").write_text(rules_text(500))
    ws = base / "ws"
    ws.mkdir()
    engine = PermissionEngine(config_dir=config, grants=GrantStore(base / "grants.sqlite3"))
    report = engine.load((ws,))
    assert not report.errors and len(report.rules) >= 500, report.errors[:1]
    assert engine.check_command(PIPELINE, workspace=ws).effect is Effect.ALLOW
    empty_config = base / "empty"
    empty_config.mkdir()
    bare = PermissionEngine(config_dir=empty_config, grants=GrantStore(base / "grants2.sqlite3"))
    # Most people let the agent write somewhere: each command's settings places are then made
    # concrete under the write rules' patterns (s338).
    writing_config = base / "writing"
    writing_config.mkdir()
    (writing_config / "permissions.toml").write_text(
        rules_text(500) + '\n[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/out/**"\n')
    writing = PermissionEngine(config_dir=writing_config, grants=GrantStore(base / "grants4.sqlite3"))
    writing.load((ws,))
    for e in (engine, bare, writing):
        timed(lambda e=e: e.check_command(PIPELINE, workspace=ws), 50)  # warm
    with_rules: list[float] = []
    no_rules: list[float] = []
    for _ in range(40):  # interleaved, so machine noise hits both alike
        with_rules += timed(lambda: engine.check_command(PIPELINE, workspace=ws), 10)
        no_rules += timed(lambda: bare.check_command(PIPELINE, workspace=ws), 10)
    # CPU time of this process too: on a machine shared with other work, wall time mostly
    # measures waiting for a core.
    cpu_rules: list[float] = []
    cpu_bare: list[float] = []
    cpu_writing: list[float] = []
    for _ in range(40):
        cpu_rules += timed(lambda: engine.check_command(PIPELINE, workspace=ws), 10, time.process_time)
        cpu_bare += timed(lambda: bare.check_command(PIPELINE, workspace=ws), 10, time.process_time)
        cpu_writing += timed(lambda: writing.check_command(PIPELINE, workspace=ws), 10, time.process_time)
    parse = timed(lambda: analyse(PIPELINE), 400, time.process_time)
    print(f"pipeline of {len(PIPELINE)} chars, {len(report.rules)} rules (floor included):")
    print(f"  verdict CPU time median {statistics.median(cpu_rules) * 1e3:.3f} ms, 10th percentile "
          f"{statistics.quantiles(cpu_rules, n=10)[0] * 1e3:.3f} ms, min {min(cpu_rules) * 1e3:.3f} ms "
          f"(no rule file: median {statistics.median(cpu_bare) * 1e3:.3f} ms)")
    print(f"  with a write rule too (@workspace/out/**): verdict CPU time median "
          f"{statistics.median(cpu_writing) * 1e3:.3f} ms, min {min(cpu_writing) * 1e3:.3f} ms")
    print(f"  of which the analysis (parse, allow-list walk, plain reading): median "
          f"{statistics.median(parse) * 1e3:.3f} ms, min {min(parse) * 1e3:.3f} ms")
    print(f"  verdict median {statistics.median(with_rules) * 1e3:.3f} ms, p90 "
          f"{statistics.quantiles(with_rules, n=10)[-1] * 1e3:.3f} ms (target <= 1 ms)")
    print(f"  same pipeline, no rule file: median {statistics.median(no_rules) * 1e3:.3f} ms "
          f"(ratio {statistics.median(with_rules) / statistics.median(no_rules):.2f})")


def git_settings_figures(base: Path) -> None:
    """Verdict CPU time for git commands that read the person's git settings: ``git credential
    fill`` (the settings, what they include, the credential helpers they set) and an ordinary
    pair, with a ``~/.gitconfig`` that includes another file and sets a helper."""
    home = base / "git-home"
    config = home / ".config" / "echo-desk"
    config.mkdir(parents=True)
    (home / ".gitconfig").write_text("[include]\n\tpath = ~/.gitconfig-more\n[alias]\n\tst = status\n")
    (home / ".gitconfig-more").write_text("[credential]\n\thelper = store --file=~/.git-credentials\n")
    rules = [("allow", "shell", "git **"), ("allow", "shell", "printf **"), ("deny", "read", "~/.secrets/**")]
    (config / "permissions.toml").write_text("".join(f'[[rule]]\neffect = "{e}"\ntool = "{t}"\npattern = "{p}"\n\n'
                                                     for e, t, p in rules))
    ws = base / "git-ws"
    ws.mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    engine = PermissionEngine(config_dir=config, grants=GrantStore(base / "grants3.sqlite3"), home=home)
    engine.load((ws,))
    print("git commands reading the person's git settings (an include, a credential helper):")
    for line in ("printf 'host=example.com\\n\\n' | git credential fill", "git st && git log -1"):
        assert engine.check_command(line, workspace=ws).effect is Effect.ALLOW, line
        timed(lambda line=line: engine.check_command(line, workspace=ws), 50)  # warm
        cpu = timed(lambda line=line: engine.check_command(line, workspace=ws), 400, time.process_time)
        print(f"  {line}: verdict CPU time median {statistics.median(cpu) * 1e3:.3f} ms, min {min(cpu) * 1e3:.3f} ms")


def dispatch_figures(base: Path) -> None:
    """``echo_text`` (no rule names it) through the whole pipeline, with and without the engine,
    and the rules step alone."""
    config = base / "cfg2"
    config.mkdir()
    (config / "permissions.toml").write_text(rules_text(500))
    runtime = Runtime.create(settings_store=SettingsStore.in_dir(config), data_dir=base / "data2", with_plugins=False)
    engine = runtime.dispatcher.permissions
    assert engine is not None
    ws = base / "ws2"
    ws.mkdir()
    scope = Scope(label="bench", workspace_roots=(ws,))
    host = ScriptedHost()
    call = ToolCall(id="c", name="echo_text", arguments=json.dumps({"text": "hi"}))
    entry = runtime.registry.get("echo_text")
    assert entry is not None
    step = timed(lambda: rules_verdict(engine, scope, entry, {"text": "hi"}), 20000)

    async def calls(n: int) -> list[float]:
        samples = []
        for _ in range(n):
            start = time.perf_counter()
            envelope = await runtime.dispatcher.execute_tool(call, scope, host)
            samples.append(time.perf_counter() - start)
            assert envelope.ok
        return samples

    async def both() -> tuple[list[float], list[float]]:
        on, off = [], []
        await calls(200)  # warm
        for _ in range(10):  # interleaved, so machine noise hits both alike
            runtime.dispatcher.permissions = engine
            on += await calls(200)
            runtime.dispatcher.permissions = None
            off += await calls(200)
        runtime.dispatcher.permissions = engine
        return on, off

    on, off = asyncio.run(both())
    runtime.close()
    print("execute_tool('echo_text'), no rule mentions it (500 rules loaded):")
    print(f"  rules step alone: median {statistics.median(step) * 1e6:.2f} us per call (target <= 10 us)")
    print(f"  whole call with engine {statistics.median(on) * 1e6:.1f} us, without {statistics.median(off) * 1e6:.1f} us"
          f" (ratio {statistics.median(on) / statistics.median(off):.3f}; thread hops dominate)")


def cli_figures(base: Path, runs: int = 10) -> None:
    """Wall time of ``echo-desk rules check -- 'git status'`` (a fresh process each time)."""
    folders = {name: base / "cli" / name for name in ("config", "data", "cache")}
    for folder in folders.values():
        folder.mkdir(parents=True)
    (folders["config"] / "permissions.toml").write_text('[[rule]]\neffect = "allow"\ntool = "shell"\n'
                                                      'pattern = "git status **"\n')
    env = {**os.environ, "ECHO_DESK_CONFIG_DIR": str(folders["config"]), "ECHO_DESK_DATA_DIR": str(folders["data"]),
           "ECHO_DESK_CACHE_DIR": str(folders["cache"]), "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    check = [sys.executable, "-m", "echo_desk", "--no-mcp", "rules", "check", "--workspace", str(base), "--",
             "git status"]

    def run(argv: list[str]) -> float:
        start = time.perf_counter()
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
        elapsed = time.perf_counter() - start
        assert done.returncode in (0, 1), done.stderr[-500:]
        return elapsed

    run(check)  # warm the file cache
    walls, bare = [], []
    for _ in range(runs):  # interleaved with a bare Python start, the baseline
        walls.append(run(check))
        bare.append(run([sys.executable, "-c", "pass"]))
    print(f"echo-desk rules check -- 'git status' ({runs} runs):")
    print(f"  wall median {statistics.median(walls) * 1e3:.0f} ms, min {min(walls) * 1e3:.0f} ms "
          f"(a bare Python start: median {statistics.median(bare) * 1e3:.0f} ms)")


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        verdict_figures(Path(tmp))
        git_settings_figures(Path(tmp))
        dispatch_figures(Path(tmp))
        cli_figures(Path(tmp))


if __name__ == "__main__":
    main()

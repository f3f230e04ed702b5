"""Random exploration of the shell parser, in a child process: a crash is reported with the
line that caused it, never a dead run.

    python scripts/fuzz_shell_parser.py                 # random lines through shell.analyse (the guarded path)
    python scripts/fuzz_shell_parser.py --raw           # straight into tree-sitter-bash: shows the crashes exist
    python scripts/fuzz_shell_parser.py --seed 7 --count 20000

Lines mix shell syntax with random characters, rare 4-byte ones included (tree-sitter-bash
0.25.1 segfaults on `{` followed by some of them). Each line is sent to a worker process; when
the worker dies, the line it was parsing is printed (as JSON, so nothing is lost), a new worker
starts, and the run ends with exit status 1. ``make test`` runs a fixed seed of this
(tests/agent/permissions/test_properties.py); run it without a seed to explore.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKER = r"""
import json, sys
raw = sys.argv[1] == "raw"
if raw:
    import tree_sitter, tree_sitter_bash
    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
else:
    from echo_desk.agent.permissions.shell import analyse
for text in sys.stdin:
    line = json.loads(text)
    if raw:
        parser.parse(line.encode("utf-8", "surrogatepass"))
    else:
        analyse(line)
    sys.stdout.write("ok\n")
    sys.stdout.flush()
"""
FRAGMENTS = ["{", "}", "{a,b}", "$(", ")", "`", "'", '"', "\\", "\n", ";", "&&", "||", "|", "&", "<<", "EOF", "<<<",
             ">", ">>", "2>&1", "$x", "${x:-", "$((", "[[", "]]", "((", "*", "?", "[", "~", "#", "=", "ls", "rm -rf",
             "echo", "bash -c", "M{", " ", " ", "\t", "$'", "\\n", "case", "in", "esac", "f()", "{ ", "; }"]


def random_line(rng: random.Random) -> str:
    parts: list[str] = []
    for _ in range(rng.randint(1, 24)):
        roll = rng.random()
        if roll < 0.5:
            parts.append(rng.choice(FRAGMENTS))
        elif roll < 0.7:
            parts.append(chr(rng.randint(0x10000, 0x10FFFF)))  # outside the Basic Multilingual Plane
        elif roll < 0.85:
            code = rng.randint(0x80, 0xFFFF)
            parts.append(chr(code) if not 0xD800 <= code <= 0xDFFF else "x")
        else:
            parts.append(chr(rng.randint(1, 0x7F)))
    return "".join(parts)


class Worker:
    def __init__(self, raw: bool) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER, "raw" if raw else "guarded"], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8",
                                     errors="surrogatepass")

    def parse(self, line: str) -> int | None:
        """``None`` when the worker parsed it; its exit status when it died."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write(json.dumps(line) + "\n")
            self.proc.stdin.flush()
            answer = self.proc.stdout.readline()
        except BrokenPipeError:
            answer = ""
        if answer == "ok\n":
            return None
        return self.proc.wait()

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=None, help="a fixed seed (default: a random one, printed)")
    ap.add_argument("--count", type=int, default=5000, help="how many lines")
    ap.add_argument("--raw", action="store_true", help="parse with tree-sitter-bash directly, without the guard")
    ap.add_argument("--keep-going", action="store_true", help="after a crash, start a new worker and go on")
    args = ap.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    print(f"seed {seed}, {args.count} lines, {'raw tree-sitter' if args.raw else 'shell.analyse'}", flush=True)
    worker = Worker(args.raw)
    crashes = 0
    for n in range(args.count):
        line = random_line(rng)
        status = worker.parse(line)
        if status is None:
            continue
        crashes += 1
        print(f"CRASH (exit status {status}) at line {n}: {json.dumps(line)}", flush=True)
        if not args.keep_going:
            return 1
        worker = Worker(args.raw)
    worker.close()
    print(f"{crashes} crash(es) in {args.count} lines")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())

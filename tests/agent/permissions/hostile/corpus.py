"""The hostile corpus (``corpus.jsonl``): one JSON object per line, each a command line that
does real harm, with what it harms and how.

Fields:
- ``line``: the command line (``@WS@``, ``@HOME@``, ``@ROOT@`` are filled in per run, see
  ``scratch``).
- ``harm``: the claim the harness checks (``harm.Harm``), e.g. ``creates:PWNED``,
  ``deletes:src``, ``changes:~/.bashrc``, ``reads:~/.ssh/id_rsa``.
- ``shells``: ``bash``, ``dash`` or ``both`` — exactly the shells under which the harm happens
  (``bash --noprofile --norc -c`` / ``dash -c``); the harness checks both directions.
- ``trick``: the class of trick.
- ``rules``: the rule set it is judged under (``rules/<name>.toml``, ``everyday`` for the
  everyday corpus's rules, ``../everyday_rules.toml``, or ``none``).
- optional ``issue`` (the item of issue 27 it reproduces), ``needs`` (programs it needs, else
  skipped with the reason), ``note``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tests.agent.permissions.hostile.harm import Harm

HERE = Path(__file__).parent
CORPUS_FILE = HERE / "corpus.jsonl"
RULES_DIR = HERE / "rules"
NO_RULES = "none"
#: The everyday corpus's rules (they allow ``cd`` and writes into ``out/``, ``tmp/`` and logs).
EVERYDAY = "everyday"
EVERYDAY_RULES = HERE.parent / "everyday_rules.toml"
SHELL_CLAIMS = {"bash": ("bash",), "dash": ("dash",), "both": ("bash", "dash")}
FIELDS = {"line", "harm", "shells", "trick", "rules", "issue", "needs", "note"}


@dataclass(frozen=True)
class Entry:
    number: int  # line number in corpus.jsonl
    line: str
    harm: Harm
    shells: tuple[str, ...]
    trick: str
    rules: str
    issue: str | None = None
    needs: tuple[str, ...] = field(default=())
    note: str | None = None

    def missing(self) -> list[str]:
        """Programs the entry needs that this machine lacks."""
        return [p for p in self.needs if shutil.which(p) is None]

    def label(self) -> str:
        return f"#{self.number} [{self.trick}/{self.rules}] {self.line!r}"


def load(path: Path = CORPUS_FILE) -> list[Entry]:
    entries = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not text.strip():
            continue
        raw = json.loads(text)
        unknown = set(raw) - FIELDS
        if unknown:
            raise ValueError(f"corpus line {number}: unknown fields {sorted(unknown)}")
        entries.append(Entry(
            number=number, line=raw["line"], harm=Harm.parse(raw["harm"]), shells=SHELL_CLAIMS[raw["shells"]],
            trick=raw["trick"], rules=raw["rules"], issue=raw.get("issue"), needs=tuple(raw.get("needs", ())),
            note=raw.get("note"),
        ))
    return entries


def rule_sets() -> dict[str, str]:
    """Every named rule set's TOML text (``none`` is the empty set)."""
    sets = {p.stem: p.read_text(encoding="utf-8") for p in sorted(RULES_DIR.glob("*.toml"))}
    sets[EVERYDAY] = EVERYDAY_RULES.read_text(encoding="utf-8")
    sets[NO_RULES] = ""
    return sets


def by(entries: Iterable[Entry], key: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for e in entries:
        value = str(getattr(e, key) if key != "harm" else e.harm.kind.value)
        counts[value] = counts.get(value, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

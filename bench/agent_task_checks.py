"""What a job of ``bench/agent_tasks.py`` is and how it is judged: by the files it leaves and by
facts in the final answer, never by what the model says about itself."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

Check = Callable[[Path, str], bool]


@dataclass(frozen=True)
class Job:
    id: str
    lang: str
    kind: str
    prompt: str
    files: dict[str, str]
    check: Check
    approve: bool = True
    #: Which set the job belongs to (``--set``): "base" (tuned on, and its held-out parts),
    #: "language" and "questions" (written before the keyword steering was replaced, run once
    #: untouched), "further" (written after that work, run once at its end).
    set: str = "base"
    #: A question about files: any call with a side effect (a change proposal, approved or
    #: not) fails the job, and the files must stay as they were.
    question: bool = False


def question(job_id: str, lang: str, prompt: str, files: dict[str, str], fact: Check, *, set: str = "base") -> Job:
    """A question about files: nothing may change and no change may be proposed. The person
    answers "no" to any approval, so a question that became a change proposal is counted (and
    fails) and nothing is changed by it."""
    return Job(job_id, lang, "question", prompt, files, both(unchanged(files), fact), approve=False, set=set,
               question=True)


def command(job_id: str, lang: str, prompt: str, files: dict[str, str], printed: str, *, set: str = "base") -> Job:
    """A command to run and report: the files stay as they were and the answer holds what it
    printed (a number the 0.5B model does not get right by reading the code)."""
    return Job(job_id, lang, "run", prompt, files, both(unchanged(files), has(printed)), set=set)


def text_of(ws: Path, name: str) -> str | None:
    path = ws / name
    return path.read_text(encoding="utf-8") if path.is_file() else None


def lines_of(ws: Path, name: str) -> list[str]:
    return [line.strip() for line in (text_of(ws, name) or "").splitlines() if line.strip()]


def mentions(answer: str, needle: str) -> bool:
    if needle.isdigit():  # "5" must not be found in "53"
        return re.search(rf"(?<!\d){needle}(?!\d)", answer) is not None
    return needle.lower() in answer.lower()


def has(*needles: str) -> Check:
    return lambda ws, answer: all(mentions(answer, n) for n in needles)


def any_of(*needles: str) -> Check:
    return lambda ws, answer: any(mentions(answer, n) for n in needles)


def both(*checks: Check) -> Check:
    return lambda ws, answer: all(c(ws, answer) for c in checks)


def unchanged(files: dict[str, str]) -> Check:
    return lambda ws, answer: all(text_of(ws, name) == text for name, text in files.items())


def absent(name: str) -> Check:
    return lambda ws, answer: not (ws / name).exists()


#: Words of an answer saying the change was not made, in the bench's languages (the judge reads
#: the model's answer; nothing in the app reads these).
REFUSAL_WORDS = (
    "denied", "deny", "not ", "n't", "reject", "declin", "unable", "cancel",
    "拒绝", "未", "没有", "无法", "不能", "取消",
    "pas ", "refus", "annul", "aucun", "n'a ",
    "nicht", "abgelehnt", "verweigert", "kein",
    "no ", "rechaz", "deneg", "ningún", "ninguna",
    "拒否", "ません", "できな", "キャンセル", "中止", "されな",
)


def says_refused(ws: Path, answer: str) -> bool:
    return any(word in answer.lower() for word in REFUSAL_WORDS)


def runs_to(name: str, expected: str) -> Check:
    def check(ws: Path, answer: str) -> bool:
        if not (ws / name).is_file():
            return False
        probe = subprocess.run([sys.executable, "-c", expected], cwd=ws, capture_output=True, timeout=20)
        return probe.returncode == 0
    return check


def appended(name: str, first: list[str], last: str) -> Check:
    return lambda ws, answer: lines_of(ws, name) == [*first, last]


def edited(name: str, present: str, missing: str, kept: str) -> Check:
    def check(ws: Path, answer: str) -> bool:
        text = text_of(ws, name) or ""
        return present in text and missing not in text and kept in text
    return check


def moved(source: str, destination: str, content: str) -> Check:
    return lambda ws, answer: text_of(ws, destination) == content and not (ws / source).exists()


def holds_lines(name: str, *wanted: str) -> Check:
    """The file exists and each wanted text is on a line of its own (order kept)."""
    def check(ws: Path, answer: str) -> bool:
        lines = [line.lower() for line in lines_of(ws, name)]
        wanted_lower = [w.lower() for w in wanted]
        return [line for line in lines if line in wanted_lower] == wanted_lower
    return check


def contains(name: str, text: str) -> Check:
    return lambda ws, answer: text in (text_of(ws, name) or "")

"""The small model's first step of an exchange: it states what the request asks for.

Before the built-in model is offered any tool for a new request, it states in a few
grammar-held tokens what the request is about (its target, copied from the request) and which
of a closed set of intents (``Intent``) it is. The person may write in any language; the model
reads it, and what it states is a word of the closed set. What the next turns are offered
follows from that word and from the tools' declared roles (``steering``), never from the
person's own words.

The step costs a few generated tokens and no prompt: its request is the very prompt of the turn
that follows (the step's ``GUIDE`` comes after the tool list in the system prompt), only held by
another grammar, so the server's prompt cache serves the turn from it.
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from echo_desk.agent.model import ChatMessage
from echo_desk.common.json_text import read_json


class Intent(enum.StrEnum):
    """What a request asks for, as the model states it. The first four are questions: they
    change nothing, and differ only in what the model looks with first."""

    #: To know something from a file it reads (what it says, what its code does, how many lines…).
    LOOK = "look"
    #: To know what is in a folder.
    LIST = "list"
    #: To know which file holds a text or a name.
    SEARCH = "search"
    #: To know something no file holds (a greeting, general knowledge): answered without a tool.
    ANSWER = "answer"
    #: To run a command or a program.
    RUN = "run"
    #: To change text inside an existing file.
    EDIT = "edit"
    #: To add text at the end of an existing file.
    APPEND = "append"
    #: To make a new file.
    CREATE = "create"
    #: To rename or move a file or folder.
    MOVE = "move"
    #: To delete a whole file or folder.
    DELETE = "delete"
    #: The model cannot tell: every tool is offered and the model chooses.
    UNCLEAR = "unclear"

    @property
    def is_question(self) -> bool:
        return self in QUESTIONS


QUESTIONS = frozenset({Intent.LOOK, Intent.LIST, Intent.SEARCH, Intent.ANSWER})


#: The longest target the model may state (a path or a command line; longer is cut by the grammar).
TARGET_MAX_CHARS = 80
#: Tokens the answer may take: the JSON around an intent and a target.
MAX_TOKENS = 48

#: What the model is told about the step, after the tool list whenever the tools are listed (so
#: the step and the turn that follows share the whole prompt). English like every model-facing
#: text; the examples are in several languages, because the person may write in any. A 0.5B
#: model names the intent of a request far better from examples than from definitions alone:
#: told only what each word means, it called most questions "edit" or "run"; given one word for
#: every question, it called "which file defines…" an edit more often than given look, list and
#: search (bench/intent_probe.py).
GUIDE = (
    'Before you act on a request, you are asked for its first step, as JSON {"target": ..., "intent": ...}. '
    "The intent is one of: look (read a file to answer about it), list (list a folder to answer), "
    "search (search the files for a text or a name, to answer which file has it), "
    "answer (answer without any tool), run (run a command or a program the request names), "
    "edit (change text in an existing file, also to remove a line or rename something inside it), "
    "append (add at the end of an existing file), create (make a new file, or overwrite one with new text), "
    "move (rename or move a file), delete (delete a whole file). "
    "A question only looks, lists, searches or answers, even when it talks about saving, updating, adding "
    "or deleting.\n"
    "Examples:\n"
    'What does the delete button in shop.py do? -> {"target": "shop.py", "intent": "look"}\n'
    'Does sync.py overwrite the old backup? -> {"target": "sync.py", "intent": "look"}\n'
    'Pourquoi cart.js enregistre-t-il le panier deux fois ? -> {"target": "cart.js", "intent": "look"}\n'
    'Was ändert die Funktion reset in game.py? -> {"target": "game.py", "intent": "look"}\n'
    'index.html の更新処理を説明して -> {"target": "index.html", "intent": "look"}\n'
    'How many lines has poem.txt? -> {"target": "poem.txt", "intent": "look"}\n'
    'Welche Datei erwähnt Anna? -> {"target": "Anna", "intent": "search"}\n'
    'Which file defines the class Cart? -> {"target": "Cart", "intent": "search"}\n'
    '¿Qué hay en la carpeta fotos? -> {"target": "fotos", "intent": "list"}\n'
    'What is 12 times 12? -> {"target": "", "intent": "answer"}\n'
    '把 a.txt 里的 red 改成 blue -> {"target": "a.txt", "intent": "edit"}\n'
    'Remove the line "old" from list.md -> {"target": "list.md", "intent": "edit"}\n'
    'Renomme la variable n en total dans calc.js -> {"target": "calc.js", "intent": "edit"}\n'
    'Escribe "fin" debajo de la última línea de b.txt -> {"target": "b.txt", "intent": "append"}\n'
    'memo.txt というファイルを作って -> {"target": "memo.txt", "intent": "create"}\n'
    'Make page.html with a title Hi -> {"target": "page.html", "intent": "create"}\n'
    'Lies a.txt und schreib eine Zusammenfassung in b.txt -> {"target": "b.txt", "intent": "create"}\n'
    'Rename x.txt to y.txt -> {"target": "x.txt", "intent": "move"}\n'
    '把 a.log 移到 old 文件夹 -> {"target": "a.log", "intent": "move"}\n'
    'Delete tmp.txt -> {"target": "tmp.txt", "intent": "delete"}\n'
    'Lance make test et dis-moi le résultat -> {"target": "make test", "intent": "run"}\n'
    'Execute git status -> {"target": "git status", "intent": "run"}'
)


def intent_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "target": {"type": "string", "maxLength": TARGET_MAX_CHARS},
            "intent": {"enum": [i.value for i in Intent]},
        },
        "required": ["target", "intent"],
        "additionalProperties": False,
    }


def intent_grammar() -> str:
    """The llguidance grammar of the answer: one JSON object, the intent a word of the closed set."""
    return "\n".join(["%llguidance {}", "start: answer", "answer: %json " + json.dumps(intent_schema()), ""])


@dataclass(frozen=True)
class StatedIntent:
    intent: Intent
    #: What the model said the request is about ("" when it named nothing).
    target: str = ""

    def target_in(self, request: str) -> bool:
        """The target is something the request itself names (copied, not made up)."""
        target = self.target.strip()
        return bool(target) and target in request


UNCLEAR = StatedIntent(Intent.UNCLEAR)


def parse_intent(text: str) -> StatedIntent:
    """The model's answer as a ``StatedIntent``; anything unreadable is ``UNCLEAR`` (every tool
    offered, the model chooses), never a guess."""
    try:
        value = read_json(text)
    except ValueError:
        return UNCLEAR
    if not isinstance(value, dict):
        return UNCLEAR
    try:
        intent = Intent(str(value.get("intent")))
    except ValueError:
        return UNCLEAR
    target = value.get("target")
    return StatedIntent(intent, target.strip() if isinstance(target, str) else "")


def exchange_key(messages: Sequence[ChatMessage]) -> str | None:
    """Names the exchange ``messages`` are in: the conversation up to its latest request (the same
    for every turn of that exchange). ``None`` without a request."""
    last = max((i for i, m in enumerate(messages) if m.role == "user"), default=None)
    if last is None:
        return None
    digest = hashlib.sha256()
    for message in messages[: last + 1]:
        digest.update(json.dumps([message.role, message.content, [c.id for c in message.tool_calls]],
                                 ensure_ascii=False).encode("utf-8"))
    return digest.hexdigest()


class IntentMemory:
    """What the model stated for the last few exchanges, so later turns of one exchange follow the
    same intent (it is stated once, on the exchange's first turn)."""

    def __init__(self, size: int = 32) -> None:
        self.size = size
        self._stated: OrderedDict[str, StatedIntent] = OrderedDict()

    def get(self, key: str) -> StatedIntent | None:
        return self._stated.get(key)

    def remember(self, key: str, stated: StatedIntent) -> None:
        self._stated[key] = stated
        self._stated.move_to_end(key)
        while len(self._stated) > self.size:
            self._stated.popitem(last=False)

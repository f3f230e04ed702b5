"""Warnings about MCP tools that look like an attempt to steer the model (tool poisoning).

A server's tool names and descriptions are untrusted text that the model reads. This looks at
them across every connected server, on this machine only (nothing is sent anywhere), and says
why a tool deserves a second look:

- **same name**: two servers offer a tool with the same name (one may shadow the other);
- **names another server's tool**: a description mentions a tool of another server — by a
  distinctive name (``read_file``, ``sendMail``, ``fs-write``, ``srv__tool``) or by any name in
  quotes or backticks — which is how one server steers calls to another's tools;
- **hidden characters**: zero-width, bidi, tag or other invisible characters were removed from
  the definition, or the description holds an HTML comment (hidden wherever it is rendered);
- **addresses the model**: the description gives orders to the model rather than describing the
  tool: a small, documented set of phrasings per language (below), matched after Unicode
  normalisation so spacing and look-alike forms do not hide them.

It is a heuristic: a warning, not a guarantee. A hostile server can phrase things no pattern
knows, and a plain description can trip one. The structural checks (names, characters) carry
most of the weight; the phrasings are kept few and listed here on purpose.
"""

from __future__ import annotations

import enum
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from echo_desk.i18n import N_, deferred

#: Phrasings that give orders to the model, per language (matched on casefolded, NFKC text with
#: spaces collapsed). "Ignore the previous instructions", "do not tell the user", "without
#: telling the user", "<IMPORTANT>", the system prompt, calls before any other tool, and sending
#: secrets along.
_ADDRESSES_MODEL: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (language, re.compile(pattern)) for language, pattern in (
        ("en", r"\b(ignore|disregard|forget|override)\b[^.]{0,40}?\b(previous|prior|above|earlier|all|any|other|"
               r"system)\b[^.]{0,20}?\b(instructions?|prompts?|rules?|directions?|guidelines?)\b"),
        ("en", r"\b(do not|don't|dont|never)\b[^.]{0,30}?\b(tell|inform|mention|reveal|show|notify|alert)\b"
               r"[^.]{0,20}?\b(user|human|person)s?\b"),
        ("en", r"\bwithout (telling|informing|asking|notifying|alerting) (the )?(user|human|person)\b"),
        ("en", r"\b(system prompt|system message|developer message)\b"),
        ("en", r"<\s*/?\s*(important|system|instructions?|secret)\s*>"),
        ("en", r"\b(before|instead of) (using|calling) (any|every|all|each|other) [^.]{0,20}?tools?\b"),
        ("en", r"\b(send|forward|upload|include|pass|post)\b[^.]{0,40}?(~/\.ssh|id_rsa|\.env\b|private key|"
               r"api key|password|credential|secret|token)"),
        ("zh", r"(忽略|无视|忘记|忽视|不要理会)[^。]{0,10}?(指令|指示|提示|规则|说明)"),
        ("zh", r"(不要|别|切勿|不得|不可)(告诉|告知|通知|提醒|透露给|提及)[^。]{0,6}?(用户|使用者)"),
        ("zh", r"(不要|别|切勿)让(用户|使用者)(知道|发现|察觉)"),
        ("zh", r"系统提示"),
        ("ja", r"(以前|前|上記|これまで)の(指示|命令|指令)を(無視|忘れ)"),
        ("ja", r"ユーザー(に|には)[^。]{0,6}?(言わない|伝えない|知らせない|教えない)"),
        ("fr", r"\bignore[rz]?\b[^.]{0,20}?\b(instructions|consignes)\b[^.]{0,10}?\b(précédentes|ci-dessus)\b"),
        ("fr", r"\bne (le |la |rien )?(dites?|dis)\b[^.]{0,10}?\bà l'utilisateur\b"),
        ("de", r"\bignoriere\b[^.]{0,20}?\b(anweisungen|instruktionen|regeln)\b"),
        ("de", r"\bsag(e|t)?\b[^.]{0,10}?\b(dem )?(benutzer|nutzer)\b[^.]{0,10}?\bnichts\b"),
        ("es", r"\bignora\b[^.]{0,20}?\binstrucciones\b[^.]{0,10}?\b(anteriores|previas)\b"),
        ("es", r"\bno (le )?(digas|informes|cuentes)\b[^.]{0,10}?\bal usuario\b"),
        ("ru", r"игнорируй[^.]{0,20}?инструкци"),
        ("ru", r"не (говори|сообщай|рассказывай) пользователю"),
    )
)
_QUOTED = "`\"'“”‘’「」"
_DISTINCTIVE = re.compile(r"[_\-0-9]|[a-z][A-Z]")
_HTML_COMMENT = re.compile(r"<!--")
_SPACES = re.compile(r"\s+")
#: At most this many warnings of one kind per tool (a description naming 40 tools needs not 40 lines).
_SHOWN = 3


@dataclass(frozen=True, kw_only=True)
class ToolText:
    """What the check reads of one MCP tool."""

    server: str
    registry_name: str
    #: The tool's own name on its server.
    name: str
    #: The description as the model reads it (hidden characters already removed).
    description: str
    #: Code points removed from the definition (``U+200B``…).
    hidden: tuple[str, ...] = ()



class WarningKind(enum.StrEnum):
    """Why a tool's definition looks suspicious."""

    #: Another server offers a tool of the same name.
    SAME_NAME = "same_name"
    #: Its description names another server's tool.
    NAMES_OTHER_TOOL = "names_other_tool"
    #: Invisible characters hid text in its definition.
    HIDDEN_TEXT = "hidden_text"
    #: Its description speaks to the model ("ignore previous instructions").
    ADDRESSES_MODEL = "addresses_model"

@dataclass(frozen=True, kw_only=True)
class IntegrityWarning:
    kind: WarningKind
    #: Person-facing reason (deferred: shown again in the language of the moment).
    detail: str


def _normalised(text: str) -> str:
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text).casefold())


def _mentions(description: str, name: str, registry_name: str) -> bool:
    """Whether ``description`` names this tool: by registry name, by a distinctive name as a
    whole word, or by any name in quotes or backticks."""
    if len(name) < 3:
        return False
    if registry_name in description:
        return True
    escaped = re.escape(name)
    if _DISTINCTIVE.search(name) and re.search(rf"(?<![\w-]){escaped}(?![\w-])", description):
        return True
    return re.search(rf"[{_QUOTED}]{escaped}[{_QUOTED}]", description) is not None


def addresses_model(description: str) -> str:
    """The phrase giving the model orders, if the description has one of the known phrasings."""
    text = _normalised(description)
    for _language, pattern in _ADDRESSES_MODEL:
        found = pattern.search(text)
        if found:
            return found.group(0)
    return ""


def texts_of(tools: Iterable[object]) -> list[ToolText]:
    """What the check reads of the MCP tools among ``tools`` (a registry's, a manager's)."""
    from echo_desk.mcp.tool import MCPTool

    return [ToolText(server=t.server, registry_name=t.name, name=t.original_name, description=t.description,
                     hidden=t.hidden_characters) for t in tools if isinstance(t, MCPTool)]


def tool_warnings(tools: Iterable[ToolText]) -> dict[str, tuple[IntegrityWarning, ...]]:
    """``registry name -> warnings`` for every tool that has any."""
    listed = list(tools)
    found: dict[str, list[IntegrityWarning]] = defaultdict(list)
    by_name: dict[str, list[ToolText]] = defaultdict(list)
    for tool in listed:
        by_name[tool.name.casefold()].append(tool)
    for tool in listed:
        others = [t for t in by_name[tool.name.casefold()] if t.server != tool.server]
        for other in others[:_SHOWN]:
            found[tool.registry_name].append(IntegrityWarning(kind=WarningKind.SAME_NAME, detail=deferred(
                N_("the server “{server}” offers a tool with the same name"), server=other.server)))
        named = [t for t in listed if t.server != tool.server and _mentions(tool.description, t.name, t.registry_name)]
        for other in named[:_SHOWN]:
            found[tool.registry_name].append(IntegrityWarning(kind=WarningKind.NAMES_OTHER_TOOL, detail=deferred(
                N_("its description names “{tool}”, a tool of the server “{server}”"),
                tool=other.name, server=other.server)))
        if tool.hidden:
            shown = ", ".join(sorted(set(tool.hidden))[:8])
            found[tool.registry_name].append(IntegrityWarning(kind=WarningKind.HIDDEN_TEXT, detail=deferred(
                N_("hidden characters were removed from it: {chars}"), chars=shown)))
        if _HTML_COMMENT.search(tool.description):
            found[tool.registry_name].append(IntegrityWarning(kind=WarningKind.HIDDEN_TEXT, detail=deferred(
                N_("its description holds an HTML comment, hidden wherever it is rendered"))))
        phrase = addresses_model(tool.description)
        if phrase:
            found[tool.registry_name].append(IntegrityWarning(kind=WarningKind.ADDRESSES_MODEL, detail=deferred(
                N_("its description gives the model orders: “{phrase}”"), phrase=phrase[:80])))
    return {name: tuple(warnings) for name, warnings in found.items()}

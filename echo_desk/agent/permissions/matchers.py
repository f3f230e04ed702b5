"""Patterns of the non-shell families: path globs (read/write), fetch, MCP arguments, DB class.

Each ``compile_*`` raises ``PatternError`` with a precise message; each compiled matcher has a
``match(...) -> Match``.
"""

from __future__ import annotations

import fnmatch
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pathspec

from echo_desk.agent.permissions.tokens import Match, PatternError
from echo_desk.sandbox.domains import DomainRule, is_ip, normalize_host

HTTP_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
DB_CLASSES = frozenset({"read", "write", "schema"})


@dataclass(frozen=True)
class PathPattern:
    """``@workspace/<glob>``, ``~/<glob>`` or ``//<absolute glob>``, gitignore semantics."""

    text: str
    anchor: str  # workspace | home | root
    spec: pathspec.PathSpec  # type: ignore[type-arg]

    def match(self, path: Path, *, workspaces: tuple[Path, ...], home: Path) -> Match:
        if self.anchor == "workspace":
            bases = workspaces
        elif self.anchor == "home":
            bases = (home,)
        else:
            bases = (Path("/"),)
        for b in bases:
            try:
                relative = path.relative_to(b)
            except ValueError:
                continue
            text = relative.as_posix()
            if text == ".":
                text = ""
            if text and self.spec.match_file(text):
                return Match.YES
        return Match.NO

    def bases(self, *, workspaces: tuple[Path, ...], home: Path) -> list[Path]:
        """The folders this pattern's matches all lie under (its leading plain segments)."""
        plain: list[str] = []
        for segment in self.text.split("/")[1:]:
            if not segment or any(c in segment for c in "*?[]!\\"):
                break
            plain.append(segment)
        if self.anchor == "workspace":
            roots = list(workspaces)
        elif self.anchor == "home":
            roots = [home]
        else:
            roots, plain = [Path("/")], plain[1:] if plain and plain[0] == "" else plain
        return [root.joinpath(*plain) for root in roots]


def compile_path(text: str) -> PathPattern:
    if text.startswith("@workspace"):
        anchor, rest = "workspace", text[len("@workspace"):]
    elif text.startswith("~"):
        anchor, rest = "home", text[1:]
    elif text.startswith("//"):
        anchor, rest = "root", text[1:]
    else:
        raise PatternError(
            f"path pattern {text!r} must start with @workspace/, ~/ or // (an absolute path): "
            "a bare glob would depend on where the tool runs")
    if rest in ("", "/"):
        rest = "/**"
    if not rest.startswith("/"):
        raise PatternError(f"path pattern {text!r}: expected '/' after the anchor")
    if rest.startswith("/!") or "\n" in rest:
        raise PatternError(f"path pattern {text!r}: negation is not supported in a rule")
    if any(part == ".." for part in rest.split("/")):
        raise PatternError(f"path pattern {text!r}: '..' is not allowed")
    return PathPattern(text=text, anchor=anchor, spec=pathspec.PathSpec.from_lines("gitignore", [rest]))


@dataclass(frozen=True)
class FetchPattern:
    """``domain:example.com`` / ``domain:*.example.com`` [METHOD] [/path-prefix]."""

    text: str
    host: str
    wildcard: bool
    method: str | None
    path_prefix: str | None

    def match(self, url: str, method: str) -> Match:
        try:
            parts = urlsplit(url)
            host = normalize_host(parts.hostname or "")
        except ValueError:
            return Match.NO
        if parts.scheme not in ("http", "https") or not host or is_ip(host):
            return Match.NO
        # The same host matching as the sandbox's allowed domains (one copy, in the leaf package).
        if not DomainRule(self.host, self.wildcard).matches(host):
            return Match.NO
        if self.method is not None and method.upper() != self.method:
            return Match.NO
        if self.path_prefix is not None:
            path = parts.path or "/"
            prefix = self.path_prefix
            if not (path == prefix or path.startswith(prefix.rstrip("/") + "/") or
                    (prefix.endswith("/") and path.startswith(prefix))):
                return Match.NO
        return Match.YES


def compile_fetch(text: str) -> FetchPattern:
    words = text.split()
    if not words or not words[0].startswith("domain:"):
        raise PatternError(f"fetch pattern {text!r} must start with domain:<host>")
    host = words[0][len("domain:"):].rstrip(".").lower()
    wildcard = host.startswith("*.")
    if wildcard:
        host = host[2:]
    if not host or "*" in host or "/" in host or ":" in host:
        raise PatternError(f"fetch pattern {text!r}: the domain must be a host name (optionally *.host)")
    if is_ip(host.strip("[]")):
        raise PatternError(f"fetch pattern {text!r}: an IP address is not a domain (bare IPs never match)")
    if not host.isascii():
        raise PatternError(f"fetch pattern {text!r}: write the domain in ASCII (punycode, xn--…)")
    method: str | None = None
    prefix: str | None = None
    for w in words[1:]:
        if w.upper() in HTTP_METHODS and method is None and prefix is None:
            method = w.upper()
        elif w.startswith("/") and prefix is None:
            prefix = w
        else:
            raise PatternError(f"fetch pattern {text!r}: unexpected {w!r} (expected a method or a /path prefix)")
    return FetchPattern(text=text, host=host, wildcard=wildcard, method=method, path_prefix=prefix)


@dataclass(frozen=True)
class FieldsPattern:
    """MCP argument matchers on top-level JSON fields: ``repo = "acme/*", branch = "main"``."""

    text: str
    fields: tuple[tuple[str, str], ...]

    def match(self, arguments: Mapping[str, Any]) -> Match:
        for name, glob in self.fields:
            if name not in arguments:
                return Match.NO
            value = arguments[name]
            if isinstance(value, bool):
                value = "true" if value else "false"
            if not isinstance(value, (str, int, float)):
                return Match.NO
            if not fnmatch.fnmatchcase(str(value), glob):
                return Match.NO
        return Match.YES


def compile_fields(text: str) -> FieldsPattern:
    try:
        table = tomllib.loads(f"x = {{ {text} }}")["x"]
    except tomllib.TOMLDecodeError as exc:
        raise PatternError(f"MCP pattern {text!r}: write field = \"glob\" pairs separated by commas ({exc})") from None
    fields = []
    for name, value in table.items():
        if not isinstance(value, str):
            raise PatternError(f"MCP pattern {text!r}: the value of {name!r} must be a string glob")
        fields.append((name, value))
    if not fields:
        raise PatternError(f"MCP pattern {text!r} has no fields")
    return FieldsPattern(text=text, fields=tuple(fields))


@dataclass(frozen=True)
class ClassPattern:
    """DB statement classes: ``read``, ``write``, ``schema`` (``read|write`` for several)."""

    text: str
    classes: frozenset[str]

    def match(self, statement_class: str) -> Match:
        return Match.YES if statement_class in self.classes else Match.NO


def compile_classes(text: str) -> ClassPattern:
    classes = frozenset(c.strip() for c in text.split("|"))
    unknown = classes - DB_CLASSES
    if unknown or not classes:
        raise PatternError(f"db pattern {text!r}: use read, write or schema (several: read|write)")
    return ClassPattern(text=text, classes=classes)

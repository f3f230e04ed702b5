"""Patterns of the non-shell families: path globs (read/write), fetch, MCP arguments, DB class.

Each ``compile_*`` raises ``PatternError`` with a precise message; each compiled matcher has a
``match(...) -> Match``.
"""

from __future__ import annotations

import posixpath
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pathspec

from echo_desk.agent.permissions.tokens import Match, PatternError
from echo_desk.i18n import N_, for_person
from echo_desk.sandbox.domains import BadDomain, DomainRule, is_ip
from echo_desk.sandbox.urls import BadUrl, canonical_path_prefix, canonical_url, path_readings

HTTP_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
DB_CLASSES = frozenset({"read", "write", "schema"})


@dataclass(frozen=True)
class PathPattern:
    """``@workspace/<glob>``, ``~/<glob>`` or ``//<absolute glob>``, gitignore semantics.

    As gitignore reads it, a pattern matching a folder matches everything in it: ``**/*.log``
    matches ``src/x.log/ruff.toml`` once ``src/x.log`` is a folder. That is right for deny and
    ask rules (wider is safer) but not for an allow, which must not reach further than it reads:
    with ``contents=False`` what a matched folder holds is matched only when the pattern names
    folders — its last part ``**``, or ending in ``/``. A plain last part names that one path:
    ``@workspace/notes.txt`` (the rule the approval dialog offers for one file) would otherwise
    let the agent make notes.txt a folder and fill it (a ``conftest.py`` pytest then runs)."""

    text: str
    anchor: str  # workspace | home | root
    spec: pathspec.PathSpec  # type: ignore[type-arg]

    @property
    def names_folders(self) -> bool:
        last = self.text.rstrip("/").rsplit("/", 1)[-1]
        # (a bare anchor, ``@workspace`` or ``~``, is compiled as ``/**``)
        return "/" not in self.text or self.text.endswith("/") or last == "**"

    def _matches(self, text: str, contents: bool) -> bool:
        if contents or self.names_folders:
            return bool(self.spec.match_file(text))
        # The path itself, not a folder above it (the pattern's ``(?:/|$)`` taken as its end).
        return any(p.include and p.regex is not None and p.regex.fullmatch(text) is not None
                   for p in self.spec.patterns)

    def match(self, path: Path, *, workspaces: tuple[Path, ...], home: Path, contents: bool = True) -> Match:
        if self.anchor == "workspace":
            bases = workspaces
        elif self.anchor == "home":
            bases = (home,)
        else:
            bases = (Path("/"),)
        # String slicing, not Path.relative_to (the same, lexically, on normalised paths): this
        # runs for every rule and every path a line may touch.
        full = str(path)
        for b in bases:
            prefix = str(b).rstrip("/") + "/"
            if full.startswith(prefix) and len(full) > len(prefix) and self._matches(full[len(prefix):], contents):
                return Match.YES
        return Match.NO

    def bases(self, *, workspaces: tuple[Path, ...], home: Path) -> list[Path]:
        """The folders this pattern's matches all lie under (its leading plain segments)."""
        plain = self._segments()[:self._plain_count()]
        if self.anchor == "workspace":
            roots = list(workspaces)
        elif self.anchor == "home":
            roots = [home]
        else:
            roots = [Path("/")]
        return [root.joinpath(*plain) for root in roots]

    def glob_parts(self) -> list[str]:
        """The parts of the pattern after its starting folders (``bases``): ``["**", "*.env"]``
        for ``@workspace/**/*.env``; none for a plain path."""
        return [s for s in self._segments()[self._plain_count():] if s]

    def _segments(self) -> list[str]:
        # (after the anchor: ``//etc/x`` is /etc/x, its second slash part of the anchor)
        return self.text.split("/")[2 if self.anchor == "root" else 1:]

    def _plain_count(self) -> int:
        count = 0
        for segment in self._segments():
            if not segment or any(c in segment for c in "*?[]!\\"):
                break
            count += 1
        return count


def compile_path(text: str) -> PathPattern:
    if text.startswith("@workspace"):
        anchor, rest = "workspace", text[len("@workspace"):]
    elif text.startswith("~"):
        anchor, rest = "home", text[1:]
    elif text.startswith("//"):
        anchor, rest = "root", text[1:]
    else:
        raise PatternError(for_person(
            f"path pattern {text!r} must start with @workspace/, ~/ or // (an absolute path): "
            "a bare glob would depend on where the tool runs",
            N_("path pattern “{pattern}” must start with @workspace/, ~/ or // (an absolute path): "
               "without one, what it names would depend on where the tool runs"), pattern=text))
    if rest in ("", "/"):
        rest = "/**"
    if not rest.startswith("/"):
        raise PatternError(for_person(
            f"path pattern {text!r}: expected '/' after the anchor",
            N_("path pattern “{pattern}”: “/” must come right after @workspace or ~ (e.g. @workspace/src/**)"),
            pattern=text))
    if rest.startswith("/!") or "\n" in rest:
        raise PatternError(for_person(
            f"path pattern {text!r}: negation is not supported in a rule",
            N_("path pattern “{pattern}”: a rule cannot leave a path out with “!”; "
               "write a deny rule for that path instead"), pattern=text))
    if any(part == ".." for part in rest.split("/")):
        raise PatternError(for_person(f"path pattern {text!r}: '..' is not allowed",
                                      N_("path pattern “{pattern}”: “..” is not allowed; write the path without it"),
                                      pattern=text))
    return PathPattern(text=text, anchor=anchor, spec=pathspec.PathSpec.from_lines("gitignore", [rest]))


@dataclass(frozen=True)
class FetchPattern:
    """``domain:example.com`` / ``domain:*.example.com`` [METHOD] [/path-prefix].

    Matched against the URL as ``fetch_url`` sends it (``sandbox.urls.canonical_url``): a path
    prefix is ``YES`` only when every way a server may read the path (``path_readings``, also
    case-folded) lies under it, ``MAYBE`` when some does (a deny then asks), else ``NO``. A URL
    without one clear reading is ``MAYBE``: no allow, and a deny asks."""

    text: str
    domain: DomainRule
    method: str | None
    path_prefix: str | None

    def match(self, url: str, method: str) -> Match:
        try:
            sent = canonical_url(url)
        except BadUrl:
            return Match.MAYBE
        if is_ip(sent.host):
            return Match.NO
        # The same host matching as the sandbox's allowed domains (one copy, in the leaf package).
        if not self.domain.matches(sent.host):
            return Match.NO
        if self.method is not None and method.upper() != self.method:
            return Match.NO
        if self.path_prefix is None:
            return Match.YES
        prefix = self.path_prefix
        readings = path_readings(sent.path)
        inside = [_under(r, prefix) for r in readings] + [_under(r.lower(), prefix.lower()) for r in readings]
        if all(inside):
            return Match.YES
        return Match.MAYBE if any(inside) else Match.NO


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix.rstrip("/") + "/") or (prefix.endswith("/") and
                                                                          path.startswith(prefix))


def compile_fetch(text: str) -> FetchPattern:
    words = text.split()
    if not words or not words[0].startswith("domain:"):
        raise PatternError(for_person(
            f"fetch pattern {text!r} must start with domain:<host>",
            N_("fetch pattern “{pattern}” must start with domain: and a host name (e.g. domain:example.com GET /api)"),
            pattern=text))
    # The domain in the one grammar the sandbox's list uses too (``DomainRule.parse_pattern``).
    written = words[0][len("domain:"):]
    bare = written.rstrip(".").lower()
    if is_ip((bare[2:] if bare.startswith("*.") else bare).strip("[]")):
        raise PatternError(for_person(
            f"fetch pattern {text!r}: an IP address is not a domain (bare IPs never match)",
            N_("fetch pattern “{pattern}”: an IP address is not a domain (a rule never matches a bare IP address)"),
            pattern=text))
    try:
        domain = DomainRule.parse_pattern(written)
    except BadDomain:
        raise PatternError(for_person(
            f"fetch pattern {text!r}: the domain must be a host name (optionally *.host)",
            N_("fetch pattern “{pattern}”: the domain must be a host name, such as example.com or *.example.com"),
            pattern=text)) from None
    method: str | None = None
    prefix: str | None = None
    for w in words[1:]:
        if w.upper() in HTTP_METHODS and method is None and prefix is None:
            method = w.upper()
        elif w.startswith("/") and prefix is None:
            try:
                prefix = canonical_path_prefix(w)
            except BadUrl as exc:
                raise PatternError(for_person(
                    f"fetch pattern {text!r}: {exc}",
                    N_("fetch pattern “{pattern}”: the path “{prefix}” may hold no backslash and no “.” or “..” part"),
                    pattern=text, prefix=w)) from None
        else:
            raise PatternError(for_person(
                f"fetch pattern {text!r}: unexpected {w!r} (expected a method or a /path prefix)",
                N_("fetch pattern “{pattern}”: “{word}” is neither an HTTP method (GET, POST, …) nor a path "
                   "starting with “/”; after the domain come at most one method and one path"),
                pattern=text, word=w))
    return FetchPattern(text=text, domain=domain, method=method, path_prefix=prefix)


@dataclass(frozen=True)
class FieldsPattern:
    """MCP argument matchers on top-level JSON fields: ``repo = "acme/*", branch = "main"``.

    A glob's ``*`` and ``?`` stay inside one path segment (never match ``/`` or ``\\``); ``**``
    crosses segments. A value with a ``..`` segment is never matched outright: it is ``MAYBE``
    (no allow; a deny asks) when it or its lexically resolved form matches, since the server
    decides how it reads ``..``."""

    text: str
    fields: tuple[tuple[str, str], ...]
    regexes: tuple[re.Pattern[str], ...]  # one per field, from ``glob_regex``

    def match(self, arguments: Mapping[str, Any]) -> Match:
        result = Match.YES
        for (name, _glob), regex in zip(self.fields, self.regexes, strict=True):
            if name not in arguments:
                return Match.NO
            value = arguments[name]
            if isinstance(value, bool):
                value = "true" if value else "false"
            if not isinstance(value, (str, int, float)):
                return Match.NO
            result = min(result, _glob_match(regex, str(value)))
            if result is Match.NO:
                return Match.NO
        return result


_SEGMENT_SPLIT = re.compile(r"[/\\]")


def _glob_match(regex: re.Pattern[str], value: str) -> Match:
    if ".." not in _SEGMENT_SPLIT.split(value):
        return Match.YES if regex.fullmatch(value) else Match.NO
    resolved = posixpath.normpath(value.replace("\\", "/"))
    return Match.MAYBE if regex.fullmatch(value) or regex.fullmatch(resolved) else Match.NO


def glob_regex(glob: str) -> re.Pattern[str]:
    """A field glob as a regular expression: ``**`` any text, ``*`` any text within a segment,
    ``?`` one character within a segment, ``[…]`` a class (``[!…]`` negated), never a separator."""
    out: list[str] = []
    i = 0
    while i < len(glob):
        ch = glob[i]
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if ch == "*":
            out.append(r"[^/\\]*")
        elif ch == "?":
            out.append(r"[^/\\]")
        elif ch == "[" and (end := glob.find("]", i + 2)) > 0:
            body = glob[i + 1:end]
            negated = body.startswith("!")
            body = re.escape(body[1:] if negated else body).replace(r"\-", "-")
            out.append(f"[^/\\\\{body}]" if negated else f"(?![/\\\\])[{body}]")
            i = end + 1
            continue
        else:
            out.append(re.escape(ch))
        i += 1
    return re.compile("".join(out), re.DOTALL)


def compile_fields(text: str) -> FieldsPattern:
    try:
        table = tomllib.loads(f"x = {{ {text} }}")["x"]
    except tomllib.TOMLDecodeError as exc:
        raise PatternError(for_person(
            f"MCP pattern {text!r}: write field = \"glob\" pairs separated by commas ({exc})",
            N_("MCP pattern “{pattern}”: write field = \"glob\" pairs separated by commas, "
               "e.g. repo = \"acme/*\", branch = \"main\""), pattern=text)) from None
    fields = []
    for name, value in table.items():
        if not isinstance(value, str):
            raise PatternError(for_person(
                f"MCP pattern {text!r}: the value of {name!r} must be a string glob",
                N_("MCP pattern “{pattern}”: the value of “{field}” must be a glob in quotes (e.g. \"main*\")"),
                pattern=text, field=name))
        fields.append((name, value))
    if not fields:
        raise PatternError(for_person(
            f"MCP pattern {text!r} has no fields",
            N_("MCP pattern “{pattern}” names no field (write field = \"glob\", or leave pattern out to mean every call)"),
            pattern=text))
    return FieldsPattern(text=text, fields=tuple(fields), regexes=tuple(glob_regex(g) for _n, g in fields))


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
        raise PatternError(for_person(
            f"db pattern {text!r}: use read, write or schema (several: read|write)",
            N_("db pattern “{pattern}”: use read, write or schema (for several, join them with |: read|write)"),
            pattern=text))
    return ClassPattern(text=text, classes=classes)

"""Redaction of hidden parameters and secrets before anything is stored.

Two ways of spotting a secret, used together:

* by **name**: a value under a key such as ``api_key``/``password``/``DATABASE_DSN``/``pin`` (the
  one list of ``common.secret_names``, which also decides which form fields are typed masked; for
  keys, options and environment variable names alike);
* by **shape**, inside any text: ``user:password@`` in URLs (DSNs included), URL query
  parameters with secret-looking names, ``Authorization:`` headers and ``Bearer …``, well-known
  key formats (``sk-``, ``ghp_``, ``github_pat_``, ``xox?-``, ``AKIA``, JWTs, …), PEM private
  key blocks, ``NAME=value`` / ``name: value`` / ``--password value`` with a secret-looking name.

Only the secret itself becomes :data:`REDACTED`; the text around it stays, so a stored
transcript or audit entry still says what happened. This is for what is *stored* (audit log,
conversation database): the live conversation the model sees is not changed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from echo_desk.common.secret_names import NEEDLES, is_secret_name
from echo_desk.common.storable import storable_text

REDACTED = "«redacted»"

# A name, matched whole (possessive, starting where a name starts) so matching stays linear;
# whether it looks secret is then asked of is_secret_name.
_NAME = r"(?P<name>[A-Za-z0-9_.\-]++)"
_NAME_START = r"(?<![A-Za-z0-9_.\-])"
_NOT_DONE = f"(?!{REDACTED})"
_PIECE_CHARS = 32 * 1024
# Values that read as code rather than as a secret: identifiers, types, ``a.b``, ``str | None = x``,
# short numbers. Only for ``name: value`` and ``name=value``, where the name alone is too weak.
_CODE_LIKE = re.compile(
    r"(?:[A-Za-z_][A-Za-z_.]*(?:\[[^\]]*\])?(?:\s*\|\s*[A-Za-z_][A-Za-z_.]*(?:\[[^\]]*\])?)*(?:\s*=.*)?"
    r"|\d{1,5}|)\s*(?:#.*)?"
)


def _value_looks_secret(value: str, *, env_name: bool) -> bool:
    if value[:1] in "\"'":
        inner = value[1:-1]
        return bool(inner) and inner[:1] not in "{$%<"
    return env_name or not _CODE_LIKE.fullmatch(value)

_PEM = re.compile(
    r"(-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)(.*?)(-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    re.DOTALL,
)

Replacement = Callable[[re.Match[str]], str]


def _keep_lead(match: re.Match[str]) -> str:
    return match.group("lead") + REDACTED


def _if_secret_name(replace: Replacement, *, check_value: bool = False) -> Replacement:
    def apply(match: re.Match[str]) -> str:
        name = match.group("name")
        if not is_secret_name(name):
            return match.group(0)
        if check_value:
            value = match.group(0)[len(match.group("lead")):]
            if not _value_looks_secret(value.strip(), env_name=name.isupper()):
                return match.group(0)
        return replace(match)
    return apply


Shape = tuple[re.Pattern[str], tuple[str, ...], Replacement]


def _shape(pattern: str, needles: tuple[str, ...] | str, replace: Replacement = _keep_lead, *,
           ignore_case: bool = True) -> Shape:
    needles = (needles,) if isinstance(needles, str) else needles
    return re.compile(pattern, re.IGNORECASE if ignore_case else 0), needles, replace


_SECRET_WORDS = NEEDLES
# (pattern, lower-case substrings of which one must be present for it to match, replacement)
_SHAPES: tuple[Shape, ...] = (
    # scheme://user:password@host (also DSNs: postgresql://admin:pw@db/app)
    _shape(r"(?P<lead>(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]*+://[^\s:/@'\"]*+:)" + _NOT_DONE
           + r"[^\s/@'\"]+(?=@)", "://"),
    # ?access_token=…&api_key=…
    _shape(rf"(?P<lead>[?&;]{_NAME}=){_NOT_DONE}[^&#\s'\"]*[^&#\s'\".,:;)]", _SECRET_WORDS,
           _if_secret_name(_keep_lead)),
    # Authorization: Bearer …, Proxy-Authorization, X-Api-Key: …, Cookie: …
    _shape(r"(?P<lead>(?<![A-Za-z0-9_.\-])(?:(?:proxy-)?authorization|x-[a-z0-9-]*(?:key|token|secret|auth)[a-z0-9-]*"
           r"|api-?key|cookie)[ \t]*:[ \t]*(?:(?:bearer|basic|token|digest|bot|apikey)[ \t]+)?)" + _NOT_DONE
           + r"[^\s'\"][^\r\n'\"]*", ("authoriz", "x-", "api", "cookie")),
    _shape(rf"(?P<lead>\bBearer\s+){_NOT_DONE}[A-Za-z0-9._~+/\-=]{{8,}}", "bearer"),
    # Well-known key formats, wherever they are (a chat message, a command, a file).
    _shape(
        r"(?<![A-Za-z0-9])(?:sk-[A-Za-z0-9_\-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
        r"|xox[abposr]-[A-Za-z0-9\-]{10,}|(?:AKIA|ASIA)[0-9A-Z]{16}|glpat-[A-Za-z0-9_\-]{20,}"
        r"|AIza[0-9A-Za-z_\-]{35}|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{36}"
        r"|eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]+)",
        ("sk-", "gh", "xox", "akia", "asia", "glpat-", "aiza", "hf_", "npm_", "eyj"), lambda m: REDACTED,
        ignore_case=False,
    ),
    # --password hunter2, --api-key=… (a short -p… is too ambiguous to touch)
    _shape(rf"{_NAME_START}(?P<lead>--{_NAME}(?:=|[ \t]+))(?![-«])[^\s\"'`&;|<>,)}}\]]+", _SECRET_WORDS,
           _if_secret_name(_keep_lead)),
    # "password": "…" (JSON)
    _shape(rf"(?P<lead>\"{_NAME}\"\s*:\s*)\"{_NOT_DONE}(?:[^\"\\\n]|\\.)*\"", _SECRET_WORDS,
           _if_secret_name(lambda m: f'{m.group("lead")}"{REDACTED}"')),
    # password: … (YAML and the like, at a line start)
    _shape(rf"(?m)(?P<lead>^[ \t-]*+{_NAME}[ \t]*:[ \t]+)(?![|>{{\[&*!«])\S[^\n]*", _SECRET_WORDS,
           _if_secret_name(_keep_lead, check_value=True)),
    # NAME=value (.env lines, shell assignments, PGPASSWORD=… psql); a call like
    # token = get_token() or key = os.environ["X"] is code, not a secret, and stays.
    _shape(rf"""(?<![\w.\-])(?P<lead>(?P<name>[A-Za-z_][A-Za-z0-9_\-]*+)[ \t]*=(?!=)[ \t]*){_NOT_DONE}"""
           rf"""(?:"[^"\n]*"|'[^'\n]*'|[^\s"'`;&|()\[\]{{}}<>,]++)(?![(\[.\w])""", _SECRET_WORDS,
           _if_secret_name(_keep_lead, check_value=True)),
)


#: Every shape's needles in one pattern: most stored text (a path, "risk default: read") holds
#: none, and one search says so for the price of one of the nine checks below. Each needle once,
#: longest first: with the three shapes' copies of the secret words it took 4× as long (~20 µs
#: for "settings: always allow", paid for every call's audit record).
_ANY_NEEDLE = re.compile("|".join(re.escape(n) for n in sorted(
    {n for _p, needles, _r in _SHAPES for n in needles}, key=lambda n: (-len(n), n))))


def redact_text(text: str) -> str:
    """``text`` with every secret-shaped part replaced by :data:`REDACTED`, the rest kept."""
    if not text:
        return text
    if "PRIVATE KEY" in text:
        text = _PEM.sub(lambda m: f"{m.group(1)}\n{REDACTED}\n{m.group(3)}".rstrip("\n"), text)
    if len(text) <= _PIECE_CHARS:  # one piece (what _pieces would yield), without the generator
        return _redact_piece(text)
    # Piece by piece (whole lines): each regex call is short, so other threads (the UI) are
    # not held off for seconds by a 10 MB file, and patterns a piece cannot match are skipped.
    return "".join(_redact_piece(piece) for piece in _pieces(text))


def _pieces(text: str) -> Iterator[str]:
    start = 0
    while start < len(text):
        end = text.find("\n", start + _PIECE_CHARS)
        end = len(text) if end < 0 else end + 1
        yield text[start:end]
        start = end


def _redact_piece(piece: str) -> str:
    lowered = piece.lower()
    if not _ANY_NEEDLE.search(lowered):
        return piece
    for pattern, needles, replace in _SHAPES:
        if any(n in lowered for n in needles):
            piece = pattern.sub(replace, piece)
    return piece


def redact(value: Any, hidden: Iterable[str] = (), *, shapes: bool = True) -> Any:
    """A copy of ``value`` with hidden keys and secret-named keys masked, and (``shapes``)
    secret-shaped parts of every string, at any depth, redacted."""
    hidden_set = frozenset(hidden)

    def walk(v: Any, key: str | None) -> Any:
        if key is not None and (key in hidden_set or is_secret_name(key)) and not (
                v is None or isinstance(v, bool | int | float)):  # a count or a flag is no secret
            return REDACTED
        if isinstance(v, dict):
            return {k: walk(item, str(k)) for k, item in v.items()}
        if isinstance(v, list | tuple):
            return [walk(item, None) for item in v]
        if isinstance(v, str) and shapes:
            return redact_text(v)
        return v

    return walk(value, None)


def redact_for_storing(value: Any, hidden: Iterable[str] = ()) -> Any:
    """What ``storable(redact(value, hidden))`` is, in one walk instead of two (and of three for a
    caller that first redacted by key alone): a client's 1 MB of small values was copied by each.
    A list or dict with nothing to change is returned itself, not copied."""
    hidden_set = frozenset(hidden)

    def walk(v: Any, key: str | None) -> Any:
        if key is not None and (key in hidden_set or is_secret_name(key)) and not (
                v is None or isinstance(v, bool | int | float)):
            return REDACTED
        if isinstance(v, str):
            return storable_text(redact_text(v))
        if isinstance(v, dict):
            return _walk_dict(v, walk)
        if isinstance(v, list | tuple):
            return _walk_list(v, walk)
        return v

    return walk(value, None)


def _walk_dict(value: dict[Any, Any], walk: Callable[[Any, str | None], Any]) -> dict[Any, Any]:
    made: dict[Any, Any] | None = None  # a copy, begun at the first key or value that changes
    for i, (k, item) in enumerate(value.items()):
        new_key = storable_text(k) if isinstance(k, str) else k
        new = walk(item, str(k))
        if made is None and (new is not item or new_key is not k):
            made = dict(list(value.items())[:i])
        if made is not None:
            made[new_key] = new
    return value if made is None else made


def _walk_list(value: list[Any] | tuple[Any, ...], walk: Callable[[Any, str | None], Any]) -> list[Any] | tuple[Any, ...]:
    made: list[Any] | None = None
    for i, item in enumerate(value):
        new = walk(item, None)
        if made is None and new is not item:
            made = list(value[:i])
        if made is not None:
            made.append(new)
    return value if made is None else made

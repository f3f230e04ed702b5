"""Shell rule patterns over argv tokens, and the per-program options that run other programs.

Grammar (whitespace separates tokens; quote a token with '…' or "…" to take ``*``, ``!``, ``[``
or spaces literally):

- ``git``           a literal token (``*`` inside a token globs within it: ``--format=*``)
- ``*``             exactly one token
- ``**``            any number of tokens, none included
- ``[a|b c]``       one of several token sequences (``npm [test|run test] **``)
- ``!tok``          ``tok`` must not appear anywhere in the command (``find ** !-exec``)

Matching is three-valued (``Match``): a token only known at run time (``$x``, a glob) *may*
match a literal or ``*``; only ``**`` surely covers it. An allow needs ``YES``; a deny that
``MAYBE`` matches makes the call ask.
"""

from __future__ import annotations

import enum
import fnmatch
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from echo_desk.i18n import N_, for_person

_MAX_ALTERNATIVES = 64
#: A first word that is a shell assignment (``NAME=…``).
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


class PatternError(ValueError):
    """A pattern that does not follow the grammar; the message says where."""


class Match(enum.IntEnum):
    NO = 0
    MAYBE = 1
    YES = 2


#: Marks a quoted literal (matched exactly, ``*`` included).
_EXACT = "\x01"
_ONE = object()
_ANY = object()

Element = object  # str (literal) | _ONE | _ANY


@dataclass(frozen=True)
class TokenPattern:
    """A compiled shell pattern: its flat alternatives, its forbidden tokens, and every literal
    it names (a dangerous option is only matched by a rule that names it)."""

    text: str
    sequences: tuple[tuple[Element, ...], ...]
    forbidden: tuple[str, ...]
    named: frozenset[str]
    #: The exact program names the pattern can start with (``None``: it starts with a wildcard);
    #: lets the engine skip rules for other programs without matching them.
    heads: frozenset[str] | None = None

    def match(self, argv: Sequence[str | None]) -> Match:
        best = Match.NO
        tokens = tuple(argv)
        for sequence, prefix in zip(self.sequences, self.prefixes, strict=True):
            # Cheap rejection first: the plain literals a sequence starts with must be there.
            if len(prefix) > len(tokens) or any(t is not None and t != lit for t, lit in zip(tokens, prefix,
                                                                                            strict=False)):
                continue
            best = max(best, _match_sequence(sequence, tokens))
            if best is Match.YES:
                break
        if best is Match.NO or not self.forbidden:
            return best
        for token in argv:
            if token is None:
                best = min(best, Match.MAYBE)
            elif any(_literal_matches(f, token) for f in self.forbidden):
                return Match.NO
        return best

    @property
    def prefixes(self) -> tuple[tuple[str, ...], ...]:
        """Per alternative, the plain literal tokens it starts with (for indexing and rejection)."""
        cached: tuple[tuple[str, ...], ...] | None = self.__dict__.get("_prefix_cache")
        if cached is None:
            cached = tuple(_plain_prefix(s) for s in self.sequences)
            object.__setattr__(self, "_prefix_cache", cached)
        return cached

    def matching(self, argv: Sequence[str | None]) -> list[frozenset[str]]:
        """The words of each alternative that matches ``argv`` fully: an option one alternative
        names is not named for another (``[node|perl -pi -e] **`` does not name node's ``-e``)."""
        tokens = tuple(argv)
        return [_words(sequence) for sequence, prefix in zip(self.sequences, self.prefixes, strict=True)
                if len(prefix) <= len(tokens) and _match_sequence(sequence, tokens) is Match.YES]

    def alternatives_at(self, index: int, word: str) -> list[frozenset[str]]:
        """The words of each alternative whose plain word at ``index`` is ``word``."""
        return [_words(sequence) for sequence, prefix in zip(self.sequences, self.prefixes, strict=True)
                if len(prefix) > index and prefix[index] == word]


def names_all(words: frozenset[str], flags: Iterable[frozenset[str]]) -> bool:
    """Whether ``words`` (one alternative's) name every option of ``flags``: by one of its
    spellings (``-i`` / ``--in-place``), or the word as written, also through a glob literal such
    as ``--output=*``."""
    return all(_names(words, spellings) for spellings in flags)


def names_setting(words: frozenset[str], setting: str) -> bool:
    """Whether ``words`` name the setting ``key=value`` a line gives a program (``git -c``): as
    written, or by a glob whose key is written out (``color.ui=*``). A wildcard in the key
    (``*``, ``core.*=x``) names none: git runs what ``core.fsmonitor``, ``alias.x=!…``,
    ``core.hooksPath`` and many more name, and a rule cannot list them."""
    key = setting.partition("=")[0]
    for literal in words:
        named, equals, _ = literal.partition("=")
        if literal == setting or (equals and named == key and "*" not in named
                                  and _glob(literal).fullmatch(setting) is not None):
            return True
    return False


def _names(words: frozenset[str], spellings: frozenset[str]) -> bool:
    if words & spellings:
        return True
    return any("*" in lit and fnmatch.fnmatchcase(s, lit) for lit in words for s in spellings)


def _words(sequence: tuple[Element, ...]) -> frozenset[str]:
    """The words an alternative names, as written (a quoted one without its mark)."""
    return frozenset(e.removeprefix(_EXACT) for e in sequence if isinstance(e, str))


def _plain_prefix(sequence: tuple[Element, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for element in sequence:
        if not isinstance(element, str) or (not element.startswith(_EXACT) and "*" in element):
            break
        out.append(element.removeprefix(_EXACT))
    return tuple(out)


def _literal_matches(literal: str, token: str) -> bool:
    if literal.startswith(_EXACT):
        return literal[1:] == token
    if "*" in literal:
        return _glob(literal).fullmatch(token) is not None
    return literal == token


@lru_cache(maxsize=4096)
def _glob(literal: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in literal.split("*")), re.DOTALL)


def _match_sequence(sequence: tuple[Element, ...], argv: tuple[str | None, ...]) -> Match:
    # table[i][j]: how well sequence[i:] matches argv[j:]
    n, m = len(sequence), len(argv)
    table = [[Match.NO] * (m + 1) for _ in range(n + 1)]
    table[n][m] = Match.YES
    for i in range(n - 1, -1, -1):
        element = sequence[i]
        for j in range(m, -1, -1):
            if element is _ANY:
                # ** takes argv[j] (and stays) or takes nothing
                value = table[i + 1][j]
                if j < m:
                    value = max(value, table[i][j + 1])
                table[i][j] = value
                continue
            if j == m:
                continue
            token = argv[j]
            if element is _ONE:
                step = Match.MAYBE if token is None else Match.YES
            elif token is None:
                step = Match.MAYBE
            else:
                step = Match.YES if _literal_matches(str(element), token) else Match.NO
            table[i][j] = min(step, table[i + 1][j + 1])
    return table[0][0]


@lru_cache(maxsize=8192)
def compile_tokens(text: str) -> TokenPattern:
    """Compile a shell pattern (cached: patterns are immutable); ``PatternError`` says what is wrong."""
    items = _lex(text)
    if items and items[0][0] == "word" and _ASSIGNMENT.match(items[0][1]):
        # `NODE_ENV=* npm test **` names what a line's prefixes give npm: the engine reads such a
        # command as `env NODE_ENV=test npm test` (``shell.Command.as_environment``), so does this.
        items.insert(0, ("word", "env"))
    forbidden: list[str] = []
    named: set[str] = set()
    groups: list[list[tuple[Element, ...]]] = []
    i = 0
    while i < len(items):
        kind, value = items[i]
        if kind == "open":
            i, alternatives = _alternatives(text, items, i + 1, named)
            groups.append(alternatives)
        elif kind in ("close", "bar"):
            char = "]" if kind == "close" else "|"
            raise PatternError(for_person(
                f"'{char}' outside '[…]' in pattern {text!r}",
                N_("pattern “{pattern}”: “{char}” stands outside “[…]” (write alternatives as [a|b])"),
                pattern=text, char=char))
        elif kind in ("not", "notquoted"):
            if not value:
                raise PatternError(for_person(
                    f"'!' without a token in pattern {text!r}",
                    N_("pattern “{pattern}”: “!” is not followed by a word (write it as !word, e.g. !-exec)"),
                    pattern=text))
            # (Not named: a rule that forbids `-e` does not cover `--eval`, the same option.)
            forbidden.append(_EXACT + value if kind == "notquoted" else value)
        else:
            groups.append([(_element(kind, value, named),)])
        i += 1
    if not groups:
        raise PatternError(for_person(
            f"pattern {text!r} has no tokens (omit 'pattern' to mean the whole tool)",
            N_("pattern “{pattern}” has no word to match (leave pattern out to mean the whole tool)"),
            pattern=text))
    combos = 1
    for g in groups:
        combos *= len(g)
    if combos > _MAX_ALTERNATIVES:
        raise PatternError(for_person(
            f"pattern {text!r} expands to {combos} alternatives (limit {_MAX_ALTERNATIVES})",
            N_("pattern “{pattern}” expands to {count} alternatives, more than the {limit} one rule may have: "
               "split it into several rules"),
            pattern=text, count=combos, limit=_MAX_ALTERNATIVES))
    sequences = tuple(
        tuple(itertools.chain.from_iterable(choice)) for choice in itertools.product(*groups)
    )
    return TokenPattern(text=text, sequences=sequences, forbidden=tuple(forbidden), named=frozenset(named),
                        heads=_heads(sequences))


def _alternatives(
    text: str, items: list[tuple[str, str]], i: int, named: set[str]
) -> tuple[int, list[tuple[Element, ...]]]:
    """The ``[a | b c]`` group whose first item is ``items[i]``: where it ends, and its choices."""
    alternatives: list[list[Element]] = [[]]
    while i < len(items) and items[i][0] != "close":
        k, v = items[i]
        if k == "bar":
            alternatives.append([])
        elif k == "open":
            raise PatternError(for_person(
                f"'[' inside '[…]' in pattern {text!r}: alternatives do not nest",
                N_("pattern “{pattern}”: a “[…]” stands inside another; alternatives do not nest "
                   "(write each choice out in full)"),
                pattern=text))
        elif k in ("not", "notquoted"):
            raise PatternError(for_person(
                f"'!{v}' inside '[…]' in pattern {text!r}: put it outside",
                N_("pattern “{pattern}”: “!{word}” stands inside “[…]”; put it outside the brackets"),
                pattern=text, word=v))
        else:
            alternatives[-1].append(_element(k, v, named))
        i += 1
    if i >= len(items):
        raise PatternError(for_person(f"'[' without ']' in pattern {text!r}",
                                      N_("pattern “{pattern}”: a “[” is not closed with “]”"), pattern=text))
    return i, [tuple(a) for a in alternatives]


def _heads(sequences: tuple[tuple[Element, ...], ...]) -> frozenset[str] | None:
    """The literal first words the pattern can start with (an index key), or ``None`` if any
    alternative may start with anything."""
    heads: set[str] = set()
    for sequence in sequences:
        first = sequence[0] if sequence else _ANY
        if not isinstance(first, str) or (not first.startswith(_EXACT) and "*" in first):
            return None
        heads.add(first.removeprefix(_EXACT))
    return frozenset(heads)


def _element(kind: str, value: str, named: set[str]) -> Element:
    if kind == "word":
        if value == "*":
            return _ONE
        if value == "**":
            return _ANY
        named.add(value)
        return value
    named.add(value)
    return _EXACT + value  # quoted: a literal, stars included


def _lex(text: str) -> list[tuple[str, str]]:
    """Tokens of a pattern: ('word'|'quoted'|'not'|'open'|'close'|'bar', value)."""
    items: list[tuple[str, str]] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in " \t":
            i += 1
            continue
        if ch == "[" and (i + 1 >= n or text[i + 1] not in "]"):
            items.append(("open", ""))
            i += 1
            continue
        if ch == "]":
            items.append(("close", ""))
            i += 1
            continue
        if ch == "|":
            items.append(("bar", ""))
            i += 1
            continue
        negate = False
        if ch == "!":
            negate = True
            i += 1
        if i < n and text[i] in "'\"":
            quote = text[i]
            end = text.find(quote, i + 1)
            if end < 0:
                raise PatternError(for_person(
                    f"unclosed {quote} in pattern {text!r}",
                    N_("pattern “{pattern}”: a quoted word is not closed with its {quote}"), pattern=text, quote=quote))
            value, kind = text[i + 1:end], "quoted"
            i = end + 1
        else:
            start = i
            while i < n and text[i] not in " \t[]|":
                i += 1
            value, kind = text[start:i], "word"
        if negate:
            kind = "notquoted" if kind == "quoted" else "not"
        items.append((kind, value))
    return items

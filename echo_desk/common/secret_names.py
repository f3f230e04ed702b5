"""The one list of secret-looking names: form fields typed masked, and keys, options and variables
whose values the stores redact (``store.redact``).

One list, so what a form keeps off the screen is also kept out of the audit log and the
conversation database. A server or a model may ask for a key under any label; masking cannot stop
a person from typing it, but it keeps it off the screen and the warning beside the form says where
it goes.
"""

from __future__ import annotations

import re

# Each part as (a lower-case substring any match contains, the pattern). The substrings are the
# redaction's cheap pre-check, so they come from the same list and cannot drift. Short words
# (pin, otp, pat...) only as a whole part of a name: PIN_CODE and userPin, not "spinner" or "path".
_WHOLE = r"(?<![a-z]){}(?![a-z])"
NAME_PARTS: tuple[tuple[str, str], ...] = (
    ("key", r"key(?!s\b|word|board)"), ("token", r"token(?!s)"), ("secret", "secret"),
    ("passw", r"passw(?:or)?d"), ("passphrase", "passphrase"), ("passcode", "passcode"), ("pgpass", "pgpass"),
    ("pass", _WHOLE.format("pass")), ("pwd", _WHOLE.format("pwd")),
    ("credential", "credential"), ("auth", r"auth(?!or)"), ("bearer", "bearer"), ("cookie", "cookie"),
    ("session", "session"), ("dsn", "dsn"), ("signature", "signature"), ("private", "private"),
    ("pat", _WHOLE.format("pat")), ("pin", _WHOLE.format("pin")), ("otp", _WHOLE.format("otp")),
    ("2fa", "2fa"), ("mfa", _WHOLE.format("mfa")),
    ("密码", "密码"), ("密钥", "密钥"), ("令牌", "令牌"), ("口令", "口令"),
)
#: Any secret-looking part, searched for inside a name (``SECRET_NAME.search``).
SECRET_NAME = re.compile("(" + "|".join(pattern for _needle, pattern in NAME_PARTS) + ")", re.IGNORECASE)
#: Lower-case substrings of which one is in every name ``SECRET_NAME`` finds.
NEEDLES = tuple(needle for needle, _pattern in NAME_PARTS)

_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
#: Any needle: an ASCII name without one is no secret's (what most keys are: ``path``, ``message``).
_ANY_NEEDLE = re.compile("|".join(re.escape(n) for n in sorted(set(NEEDLES), key=lambda n: (-len(n), n))))


def is_secret_name(name: str) -> bool:
    """Whether a key, option, variable or field named ``name`` holds a secret (``userPin`` too)."""
    # The pre-check (a tenth of the two searches) only for ASCII, where lower() is exactly how
    # the pattern ignores case; other letters fold in ways lower() does not (``ſ`` matches ``s``).
    if name.isascii() and _ANY_NEEDLE.search(name.lower()) is None:
        return False
    return bool(SECRET_NAME.search(name)) or bool(SECRET_NAME.search(_CAMEL_HUMP.sub("_", name)))


def is_secret_field(name: str, title: str = "", fmt: str = "") -> bool:
    """Whether a form field named ``name`` (title ``title``, JSON-schema ``format`` ``fmt``) asks for a secret."""
    return fmt.lower() == "password" or is_secret_name(name) or is_secret_name(title)

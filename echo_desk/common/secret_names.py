"""Which form fields ask for a secret: their answers are typed masked, wherever the form is shown.

A server or a model may ask for a key under any label; masking cannot stop a person from typing
it, but it keeps it off the screen and the warning beside the form says where it goes.
"""

from __future__ import annotations

import re

#: Words in a field's name, title or format that mean "keep this hidden".
_SECRET = re.compile(
    r"pass(?:word|wd|phrase|code)?|\bpwd\b|secret|token|api[\s_-]?key|apikey|\bkey\b|_key\b|\bkey_|"
    r"credential|private|\bauth(?:orization|entication)?\b|bearer|\bpin\b|\botp\b|2fa|mfa|cookie|"
    r"session|密码|密钥|令牌|口令",
    re.IGNORECASE,
)


def is_secret_field(name: str, title: str = "", fmt: str = "") -> bool:
    """Whether a field named ``name`` (title ``title``, JSON-schema ``format`` ``fmt``) asks for a secret."""
    if fmt.lower() == "password":
        return True
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name)  # apiKey → api_Key
    return any(_SECRET.search(text) for text in (spaced, title))

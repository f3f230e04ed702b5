"""One list of secret-looking names: what a form masks is what the stores redact.

The form mask and the audit redaction each had a list of their own: a PIN, a one-time code or a
``pwd`` was typed masked into a form, then written in clear into the audit log.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from echo_desk.common.secret_names import (
    _CAMEL_HUMP,
    NAME_PARTS,
    SECRET_NAME,
    is_secret_field,
    is_secret_name,
)
from echo_desk.store.audit import AuditLog, AuditRecord
from echo_desk.store.redact import REDACTED, redact, redact_text

#: Field names a person may be asked for in a form (an MCP server's or the agent's question).
SECRET_FIELDS = [
    "pwd", "db_pwd", "pin", "userPin", "PIN_CODE", "otp", "otp_code", "mfaCode", "2fa_code", "passcode",
    "password", "apiKey", "aws_secret_access_key", "token", "session_id", "bearer", "密码", "口令",
]
ORDINARY_FIELDS = [
    "author", "city", "keyboard", "spin", "note", "max_tokens", "path", "option", "topic", "shopping",
    "compass", "pinned", "spinner", "opinion", "keys",
]


@pytest.mark.parametrize("name", SECRET_FIELDS + ORDINARY_FIELDS)
def test_a_form_masks_a_field_exactly_when_the_stores_redact_a_value_under_its_name(name: str) -> None:
    stored = redact({name: "4931-value"})[name]
    assert is_secret_field(name) == (stored == REDACTED), (name, stored)
    assert is_secret_field(name) == (name in SECRET_FIELDS)


def test_what_a_form_masked_is_not_in_the_audit_log(tmp_path: Path) -> None:
    values = {name: f"V{n}-typed-{n * 7919}" for n, name in enumerate(SECRET_FIELDS)}
    log = AuditLog(tmp_path / "audit.sqlite3")
    try:
        log.append(AuditRecord(
            at=time.time(), conversation_id="c", scope_chain=("c",), call_id="call_1", tool="login",
            source="mcp:bank", arguments=dict(values), decision="allowed", provenance="person: allow_once",
            ok=True, error_kind=None, error="", duration_ms=1.0,
        ))
        stored = json.dumps(log.query(limit=10), ensure_ascii=False)
    finally:
        log.close()
    assert [name for name, value in values.items() if value in stored] == []
    assert all(name in stored for name in SECRET_FIELDS)  # the record still says which fields were given


@pytest.mark.parametrize("text", ["login --pin 4931 --user bob", '{"otp": "493021"}', "DB_PWD=hunter2 ./migrate",
                                  "mfa_code: 493021"])
def test_a_pin_or_a_one_time_code_inside_text_is_redacted_too(text: str) -> None:
    out = redact_text(text)
    assert REDACTED in out and not any(secret in out for secret in ("4931", "493021", "hunter2"))


def _both_searches(name: str) -> bool:
    return bool(SECRET_NAME.search(name)) or bool(SECRET_NAME.search(_CAMEL_HUMP.sub("_", name)))


def test_the_quick_pre_check_of_a_name_finds_what_both_searches_find() -> None:
    # Names made of the secret words (in any case, glued, camel-cased) and ordinary bits.
    words = [needle for needle, _pattern in NAME_PARTS] + ["Key", "TOKEN", "PassWord", "userPin", "Otp", "keys",
                                                           "author", "spinner", "keyboard", "max_tokens"]
    pick = random.Random(30)
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-."
    names = ["".join(pick.choice(words) if pick.random() < 0.4 else
                     "".join(pick.choice(letters) for _ in range(pick.randint(0, 5)))
                     for _ in range(pick.randint(1, 3))) for _ in range(20_000)]
    assert [n for n in names if is_secret_name(n) != _both_searches(n)] == []


@pytest.mark.parametrize("name", ["paſſword", "\u212aey", "api_\u212aEY", "ſecret"])
def test_a_name_whose_letters_fold_past_lower_case_is_still_a_secrets(name: str) -> None:
    # The pattern ignores case as Unicode does (ſ is s, the Kelvin sign is k); lower() does not.
    assert _both_searches(name)
    assert is_secret_name(name)

"""Issue 20 #12: secrets in the audit log and the conversation store, and who may read them.

The hostile corpus below was stored verbatim before: tokens in URL queries, ``user:password@``
in URLs (repeated in the error column), a DSN inside a command, a ``Bearer`` header, ``.env``
content passed to ``write_file``, "my key is sk-…", PEM blocks, cloud and chat keys. Each is
stored through the real SQLite stores and looked for in the raw database files (WAL included).
"""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import pytest

from echo_desk.agent.model import ChatMessage, ToolCall
from echo_desk.store.audit import AuditLog, AuditRecord
from echo_desk.store.conversations import ConversationStore
from echo_desk.store.redact import REDACTED, redact, redact_text

SK = "sk-proj-Zx8Qw2Lm4Np6Rt0Vb3Yc5Hd7"
GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
PAT = "github_pat_11ABCDEFG0" + "123456789_abcdefghijKLMNOP"
SLACK = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp"
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
DB_PASSWORD = "Tr0ub4dor&3x"
URL_PASSWORD = "s3cr3t-pw"
QUERY_TOKEN = "qtok_98765zyxwv"
ENV_PASSWORD = "hunter2-env"
PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"

# (text, secrets that must not be stored, words around them that must stay)
CORPUS: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = [
    (f"curl 'https://api.example.com/v1/items?page=2&access_token={QUERY_TOKEN}'",
     (QUERY_TOKEN,), ("curl", "api.example.com/v1/items", "page=2", "access_token=")),
    (f"git clone https://alice:{URL_PASSWORD}@git.example.com/team/repo.git",
     (URL_PASSWORD,), ("git clone", "alice:", "@git.example.com/team/repo.git")),
    (f"psql 'postgresql://admin:{DB_PASSWORD}@db.internal:5432/app' -c 'select 1'",
     (DB_PASSWORD,), ("psql", "postgresql://admin:", "@db.internal:5432/app", "select 1")),
    (f"curl -H 'Authorization: Bearer {SK}' https://api.openai.com/v1/models",
     (SK,), ("Authorization: Bearer", "https://api.openai.com/v1/models")),
    (f"my key is {SK}, please use it", (SK,), ("my key is", "please use it")),
    (f"GITHUB_TOKEN={GHP} gh repo list", (GHP,), ("gh repo list",)),
    (f"export GITHUB_PAT={PAT}", (PAT,), ("export GITHUB_PAT=",)),
    (f"post to slack with {SLACK}", (SLACK,), ("post to slack with",)),
    (f"aws_access_key_id = {AWS}", (AWS,), ("aws_access_key_id",)),
    (f"OPENAI_API_KEY={SK}\nDEBUG=true\nDB_PASSWORD={ENV_PASSWORD}\nPORT=8080\n",
     (SK, ENV_PASSWORD), ("DEBUG=true", "PORT=8080", "DB_PASSWORD=")),
    (f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----\nkept",
     (PEM_BODY,), ("BEGIN RSA PRIVATE KEY", "END RSA PRIVATE KEY", "kept")),
    (f"PGPASSWORD={ENV_PASSWORD} psql -h db", (ENV_PASSWORD,), ("psql -h db",)),
    (f"deploy --api-key={QUERY_TOKEN} --verbose", (QUERY_TOKEN,), ("deploy", "--verbose")),
    (f'{{"password": "{ENV_PASSWORD}", "user": "bob"}}', (ENV_PASSWORD,), ('"user": "bob"',)),
]

HARMLESS = [
    "token = get_token()\nkey = os.environ['KEY']\nfor key in keys:\n    pass\n",
    "def connect(api_key: str | None = None) -> None:\n    max_tokens: int = 4096\n",
    "The path is /home/u/notes.txt; the session went fine and used 3 tokens.",
    "PATH=/usr/bin:/bin ls -la && git status --short",
    "https://example.com/search?q=python+regex&page=3",
]


@pytest.mark.parametrize(("text", "secrets", "kept"), CORPUS, ids=[c[0][:30] for c in CORPUS])
def test_a_secret_is_redacted_by_its_shape_and_the_rest_is_kept(
    text: str, secrets: tuple[str, ...], kept: tuple[str, ...]
) -> None:
    out = redact_text(text)
    assert REDACTED in out
    for secret in secrets:
        assert secret not in out
    for word in kept:
        assert word in out


@pytest.mark.parametrize("text", HARMLESS)
def test_text_without_secrets_is_stored_as_it_is(text: str) -> None:
    assert redact_text(text) == text


def test_keys_and_nested_values_are_redacted_but_counts_are_kept() -> None:
    value = {"url": f"https://u:{URL_PASSWORD}@h/x", "api_key": "plain", "max_tokens": 12,
             "nested": [{"note": f"use {SK}"}]}
    out = redact(value)
    assert out["api_key"] == REDACTED and out["max_tokens"] == 12
    assert URL_PASSWORD not in json.dumps(out) and SK not in json.dumps(out)


def _raw(path: Path) -> bytes:
    """The database file and its WAL: what another program reading the disk would see."""
    return b"".join(p.read_bytes() for p in (path, Path(f"{path}-wal")) if p.exists())


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_the_audit_log_stores_no_secret_in_any_column_and_is_private(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    log = AuditLog(folder / "audit.sqlite3")
    try:
        for n, (text, _, _) in enumerate(CORPUS):
            log.append(AuditRecord(
                at=time.time(), conversation_id="c", scope_chain=("c",), call_id=f"call_{n}", tool="run_command",
                source="builtin", arguments={"command": text, "content": text}, decision="allowed",
                provenance="settings: ask", ok=False, error_kind="dependency",
                error=f"could not run {text}", duration_ms=1.0,
                file_changes=[{"path": "/ws/.env", "kind": "create", "diff": text}],
            ))
        rows = log.query(limit=100)
        assert len(rows) == len(CORPUS)
        stored = json.dumps(rows, ensure_ascii=False)
        raw = _raw(folder / "audit.sqlite3")
        modes = {s: _mode(Path(f"{folder / 'audit.sqlite3'}{s}")) for s in ("", "-wal", "-shm")}
    finally:
        log.close()
    raw += _raw(folder / "audit.sqlite3")
    for _, secrets, _ in CORPUS:
        for secret in secrets:
            assert secret not in stored and secret.encode() not in raw
    assert "could not run git clone https://alice:" in stored  # the record still says what happened
    assert _mode(folder) == 0o700
    assert modes == {"": 0o600, "-wal": 0o600, "-shm": 0o600}


def test_the_conversation_store_redacts_what_it_stores_not_the_live_message(tmp_path: Path) -> None:
    path = tmp_path / "data" / "conversations.sqlite3"
    store = ConversationStore(path)
    try:
        conv = store.create(f"my key is {SK}")
        user = ChatMessage(role="user", content=f"my key is {SK}; deploy with it")
        call = ToolCall(id="call_1", name="write_file",
                        arguments=json.dumps({"path": ".env", "content": CORPUS[9][0]}))
        assistant = ChatMessage(role="assistant", content="Writing .env", tool_calls=(call,))
        envelope = {"ok": False, "tool": "fetch_url", "error": f"could not fetch https://alice:{URL_PASSWORD}@x/",
                    "content": f"Authorization: Bearer {SK}"}
        tool = ChatMessage(role="tool", content=json.dumps(envelope), tool_call_id="call_1", name="fetch_url")
        for message in (user, assistant, tool):
            store.append(conv.id, message, envelope if message is tool else None)
        assert SK in user.content  # the live conversation (what the model sees now) is untouched
        stored = store.messages(conv.id)
        assert stored[0].message.content == f"my key is {REDACTED}; deploy with it"
        assert "DEBUG=true" in stored[1].message.tool_calls[0].arguments
        title = store.get(conv.id).title  # type: ignore[union-attr]
        store.rename(conv.id, f"use {GHP}")
        renamed = store.get(conv.id).title  # type: ignore[union-attr]
        raw = _raw(path)
        modes = {s: _mode(Path(f"{path}{s}")) for s in ("", "-wal", "-shm")}
    finally:
        store.close()
    raw += _raw(path)
    assert title == f"my key is {REDACTED}" and GHP not in renamed
    for secret in (SK, ENV_PASSWORD, URL_PASSWORD, GHP):
        assert secret.encode() not in raw
    assert _mode(path.parent) == 0o700
    assert modes == {"": 0o600, "-wal": 0o600, "-shm": 0o600}


def test_an_old_world_readable_database_is_tightened_on_open(tmp_path: Path) -> None:
    path = tmp_path / "old" / "conversations.sqlite3"
    path.parent.mkdir(mode=0o755)
    ConversationStore(path).close()
    os.chmod(path, 0o644)
    os.chmod(path.parent, 0o755)
    ConversationStore(path).close()
    assert (_mode(path), _mode(path.parent)) == (0o600, 0o700)


def test_settings_data_and_cache_folders_and_the_settings_file_are_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from echo_desk.store import paths
    from echo_desk.store.settings import SettingsStore

    for env, name in (("ECHO_DESK_CONFIG_DIR", "config"), ("ECHO_DESK_DATA_DIR", "data"),
                      ("ECHO_DESK_CACHE_DIR", "cache")):
        monkeypatch.setenv(env, str(tmp_path / name))
    made = (paths.config_dir(), paths.data_dir(), paths.cache_dir())
    assert [_mode(p) for p in made] == [0o700] * 3
    store = SettingsStore.in_dir(paths.config_dir())
    store.update(lambda s: setattr(s, "max_turns", 7))
    written = list(paths.config_dir().iterdir())
    assert written and all(_mode(p) == 0o600 for p in written)


def test_every_secret_name_part_has_the_pre_check_that_lets_it_be_found() -> None:
    # The shapes only run where one of the lower-case pre-check words occurs; a secret name
    # the pattern knows but the pre-check does not would be stored in clear.
    from echo_desk.store import redact

    for name in ("MY_API_KEY", "GITHUB_PAT", "db_password", "PGPASSFILE_x", "session_id", "AUTH_HEADER"):
        assert redact.is_secret_name(name)
        assert any(needle in name.lower() for needle in redact._SECRET_WORDS)
    assert redact.redact_text("export GITHUB_PAT=abc123def456") != "export GITHUB_PAT=abc123def456"

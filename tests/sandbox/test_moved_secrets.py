"""A secret place of the home folder that the person's environment moves is hidden where it is
moved to, and at its default too (``echo_desk.sandbox.moved.hidden``).

``GNUPGHOME=~/keys/gnupg`` makes gpg keep the private keys there, ``KUBECONFIG`` names the
cluster credentials, ``XDG_CONFIG_HOME`` moves gh's token with every ``~/.config`` entry: hiding
only ``~/.gnupg``, ``~/.kube`` and ``~/.config/gh`` left these readable to a sandboxed ``cat``.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import subprocess
from pathlib import Path

import pytest
from sandbox_helpers import Jail, context, kubeconfig_with_exec, planted_runs, requires_bwrap, run, tool_with

from echo_desk.tools import ErrorKind

pytestmark = requires_bwrap


def _secret(jail: Jail, path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    value = f"moved-canary-{secrets.token_hex(16)}"
    path.write_text(value + "\n")
    jail.secrets[path] = value
    return value


async def _cat(jail: Jail, *paths: Path) -> str:
    quoted = " ".join(f"'{p}'" for p in paths)
    result = await run(tool_with(), {"command": f"cat {quoted}; echo done"}, context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert "done" in result.output
    return result.output


#: (variable, its value below the scratch folder, the secret file below the value) — each as the
#: tool's documentation names it (see ``moved.MOVERS``).
_MOVED = [
    ("GNUPGHOME", "keys/gnupg", "private-keys-v1.d/key.key"),
    ("PASSWORD_STORE_DIR", "pass", "bank.gpg"),
    ("DOCKER_CONFIG", "docker", "config.json"),
    ("AWS_SHARED_CREDENTIALS_FILE", "aws-credentials", ""),
    ("CLOUDSDK_CONFIG", "gcloud", "credentials.db"),
    ("GH_CONFIG_DIR", "gh", "hosts.yml"),
    ("NETRC", "netrc", ""),
    ("PGPASSFILE", "pgpass", ""),
    ("HF_HOME", "hf", "token"),
    ("CLAUDE_CONFIG_DIR", "claude", ".credentials.json"),
    ("XDG_CONFIG_HOME", "cfg", "gh/hosts.yml"),
    ("XDG_DATA_HOME", "data", "keyrings/login.keyring"),
    ("CARGO_HOME", "cargo", "credentials.toml"),
]


@pytest.mark.parametrize(("variable", "value", "below"), _MOVED, ids=[v for v, _, _ in _MOVED])
async def test_a_secret_place_the_environment_moves_out_of_the_home_folder_is_hidden(
        jail: Jail, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, below: str) -> None:
    place = jail.base / "elsewhere" / value
    secret = place / below if below else place
    _secret(jail, secret)
    monkeypatch.setenv(variable, str(place))
    output = await _cat(jail, secret)
    assert not jail.leaked(output), output


async def test_every_file_of_a_kubeconfig_list_is_hidden_and_the_default_stays_hidden(
        jail: Jail, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = jail.base / "kube" / "work.yaml", jail.base / "kube" / "home.yaml"
    _secret(jail, first)
    _secret(jail, second)
    monkeypatch.setenv("KUBECONFIG", f"{first}:{second}")
    output = await _cat(jail, first, second, jail.home / ".kube/config")
    assert not jail.leaked(output), output


async def test_hf_token_path_moves_the_stored_tokens_beside_the_token_too(
        jail: Jail, monkeypatch: pytest.MonkeyPatch) -> None:
    """huggingface_hub keeps every token ``hf auth login`` saved in ``stored_tokens`` in the
    folder of ``HF_TOKEN_PATH``'s file (its constants: ``os.path.dirname(HF_TOKEN_PATH)``), not in
    HF_HOME: hiding only the named file left the others readable. The folder is reached through
    a link here, as the tool reaches it; the token file itself is a link elsewhere."""
    real_folder = jail.base / "elsewhere" / "hf"
    _secret(jail, real_folder / "stored_tokens")
    (jail.base / "hf-link").symlink_to(real_folder)
    token = _secret(jail, jail.base / "keys" / "hf-token")
    (real_folder / "token").symlink_to(jail.base / "keys" / "hf-token")
    monkeypatch.setenv("HF_TOKEN_PATH", str(jail.base / "hf-link" / "token"))
    output = await _cat(jail, real_folder / "stored_tokens", jail.base / "keys" / "hf-token")
    assert not jail.leaked(output), output
    assert token not in output


#: (variable, its value, where the secret is below the scratch folder, the variable named in it)
#: — rows whose tool expands ``$VAR``/``${VAR}`` in the value with its own environment
#: (huggingface_hub's constants: ``os.path.expandvars(os.path.expanduser(...))``; botocore's
#: ``raw_config_parse``: ``expandvars``, then ``expanduser``).
_EXPANDED = [
    ("HF_TOKEN_PATH", "$HOME/secrets/hf-token", "home/secrets/hf-token"),
    ("HF_TOKEN_PATH", "${HF_KEYS}/token", "keys/token"),
    ("HF_TOKEN_PATH", "~/$HF_SUB/token", "home/hf/token"),
    ("HF_HOME", "$HOME/hf-home", "home/hf-home/token"),
    ("AWS_SHARED_CREDENTIALS_FILE", "$HOME/aws/credentials", "home/aws/credentials"),
    ("AWS_CONFIG_FILE", "${HF_KEYS}/aws-config", "keys/aws-config"),
]


@pytest.mark.parametrize(("variable", "value", "secret"), _EXPANDED,
                         ids=[f"{v} {value}" for v, value, _ in _EXPANDED])
async def test_a_value_naming_a_variable_is_hidden_where_its_tool_expands_it(
        jail: Jail, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, secret: str) -> None:
    """``HF_TOKEN_PATH=$HOME/secrets/hf-token`` (as a ``.env`` file or an IDE's settings pass it,
    unexpanded): huggingface_hub reads the token at the expanded path, while the sandbox took the
    value as a relative path (a folder named ``$HOME``) and a sandboxed ``cat`` read the token."""
    monkeypatch.setenv("HF_KEYS", str(jail.base / "keys"))
    monkeypatch.setenv("HF_SUB", "hf")
    path = jail.base / secret
    _secret(jail, path)
    monkeypatch.setenv(variable, value)
    output = await _cat(jail, path)
    assert not jail.leaked(output), output


#: (variable, its value, where the secret is below that user's home folder) — ``~user`` as gpg's
#: ``make_filename`` (gpg 2.2.40: ``GNUPGHOME='~nobody/x' gpgconf --list-dirs homedir`` prints
#: ``/nonexistent/x``) and Python's ``expanduser`` (huggingface_hub, botocore: after its
#: ``expandvars``, so ``~$HF_USER`` is that user's too) read it: that user's home folder.
_OTHER_USERS = [
    ("GNUPGHOME", "~someone/keys/gnupg", "keys/gnupg/private-keys-v1.d/key.key"),
    ("HF_TOKEN_PATH", "~someone/secrets/hf-token", "secrets/hf-token"),
    ("HF_HOME", "~someone/hf", "hf/token"),
    ("AWS_SHARED_CREDENTIALS_FILE", "~$HF_USER/aws/credentials", "aws/credentials"),
]


@pytest.mark.parametrize(("variable", "value", "secret"), _OTHER_USERS,
                         ids=[f"{v} {value}" for v, value, _ in _OTHER_USERS])
async def test_a_value_in_a_users_home_folder_written_with_tilde_user_is_hidden(
        jail: Jail, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, secret: str) -> None:
    """``GNUPGHOME=~someone/keys/gnupg``: gpg, huggingface_hub and botocore read it in that
    user's home folder (the password database's), while the sandbox took it only as a folder
    named ``~someone`` below each folder, and a sandboxed ``cat`` read the key. (The user is
    made up for the test: Echo Desk looks the name up in this process.)"""
    theirs = jail.base / "someone-home"
    known = pwd.getpwnam

    def lookup(name: str) -> pwd.struct_passwd:
        if name == "someone":
            return pwd.struct_passwd(("someone", "x", 4242, 4242, "", str(theirs), "/bin/sh"))
        return known(name)

    monkeypatch.setattr(pwd, "getpwnam", lookup)
    monkeypatch.setenv("HF_USER", "someone")
    path = theirs / secret
    _secret(jail, path)
    monkeypatch.setenv(variable, value)
    output = await _cat(jail, path)
    assert not jail.leaked(output), output


async def test_a_value_in_the_home_folder_written_with_a_tilde_is_hidden(
        jail: Jail, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = jail.home / "keys" / "gnupg" / "private-keys-v1.d" / "key.key"
    _secret(jail, secret)
    monkeypatch.setenv("GNUPGHOME", "~/keys/gnupg")
    output = await _cat(jail, secret, jail.home / ".gnupg/private-keys-v1.d/key.key")
    assert not jail.leaked(output), output


async def test_a_moved_secret_place_inside_the_workspace_is_hidden(
        jail: Jail, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = jail.workspace / ".gnupg" / "private-keys-v1.d" / "key.key"
    _secret(jail, secret)
    monkeypatch.setenv("GNUPGHOME", str(jail.workspace / ".gnupg"))
    output = await _cat(jail, secret, jail.workspace / "README")
    assert not jail.leaked(output), output
    assert "hello" in output  # (the rest of the workspace is there)


async def test_a_relative_value_is_hidden_below_the_home_folder_and_every_folder_of_the_workspace(
        jail: Jail, monkeypatch: pytest.MonkeyPatch) -> None:
    """A relative value is read from the folder the tool runs in: the home folder for a terminal
    just opened, any folder of the workspace for one run there (fail closed)."""
    in_home = jail.home / "store" / "bank.gpg"
    in_sub = jail.workspace / "sub" / "dir" / "store" / "work.gpg"
    _secret(jail, in_home)
    _secret(jail, in_sub)
    monkeypatch.setenv("PASSWORD_STORE_DIR", "store")
    output = await _cat(jail, in_home, in_sub)
    assert not jail.leaked(output), output


async def test_a_system_folder_of_a_search_list_is_not_hidden(jail: Jail, monkeypatch: pytest.MonkeyPatch) -> None:
    """``XDG_DATA_DIRS`` lists folders read after the person's own (``/usr/share``): nobody keeps a
    secret of theirs there, and hiding ``/usr/share/keyrings`` would only break programs."""
    shared = jail.base / "share"
    (shared / "keyrings").mkdir(parents=True)
    (shared / "keyrings" / "archive.gpg").write_text("public\n")
    monkeypatch.setenv("XDG_DATA_DIRS", str(shared))
    output = await _cat(jail, shared / "keyrings" / "archive.gpg")
    assert "public" in output



@pytest.mark.parametrize(("value", "cwd"), [("$PWD", "."), (".", "."), ("$PWD/keys", "keys")],
                         ids=["the workspace", "relative", "the folder it runs in"])
async def test_a_secret_place_that_is_the_folder_the_command_runs_in_refuses_it_by_name(
        jail: Jail, monkeypatch: pytest.MonkeyPatch, value: str, cwd: str) -> None:
    """``GNUPGHOME=$PWD`` hides the whole workspace: bwrap failed on its stand-ins with a message
    about writing outside the workspace (and the advice to run it outside the sandbox). Nothing
    runs, and the error names the variable."""
    (jail.workspace / "keys").mkdir()
    monkeypatch.setenv("GNUPGHOME", value.replace("$PWD", str(jail.workspace)))
    marker = jail.workspace / "ran"
    result = await run(tool_with(), {"command": f"touch {marker}", "cwd": str(jail.workspace / cwd)},
                       context(jail.workspace))
    assert not result.success and result.error_kind == ErrorKind.BUSINESS, result.output
    assert "GNUPGHOME" in result.error and "outside_sandbox" not in result.error, result.error
    assert result.error.startswith("not run"), result.error
    assert not marker.exists()


@pytest.mark.parametrize(("variables", "folder", "named"), [
    (("GNUPGHOME", "DOCKER_CONFIG"), "", "GNUPGHOME, DOCKER_CONFIG"),
    (("GNUPGHOME",), ".gnupg", "GNUPGHOME"),
    (("XDG_CONFIG_HOME",), "cfg/gh", "XDG_CONFIG_HOME"),
], ids=["two variables", "its default place too", "below the place"])
async def test_a_refusal_names_every_variable_that_hides_the_folder(
        jail: Jail, monkeypatch: pytest.MonkeyPatch, variables: tuple[str, ...], folder: str, named: str) -> None:
    """Every variable whose value hides the folder is named, also where the place is a default of
    the hidden list as well (``~/.gnupg`` opened, ``GNUPGHOME`` naming it) and where it lies below
    the value (``XDG_CONFIG_HOME`` moves gh's ``gh``); ``hidden_list.naming`` reads them from the
    same list the sandbox hides."""
    workspace = jail.home / folder if folder == ".gnupg" else jail.workspace
    place = workspace if folder != "cfg/gh" else workspace / "cfg"
    (workspace / folder if folder == "cfg/gh" else workspace).mkdir(parents=True, exist_ok=True)
    for variable in variables:
        monkeypatch.setenv(variable, str(place))
    cwd = workspace / folder if folder == "cfg/gh" else workspace
    result = await run(tool_with(), {"command": "true", "cwd": str(cwd)}, context(workspace))
    assert not result.success and result.error_kind == ErrorKind.BUSINESS, result.output
    assert f"{named} names it" in result.error, result.error


# --- a moved secret place in the workspace that does not exist yet ---------------------------

needs_kubectl = pytest.mark.skipif(shutil.which("kubectl") is None, reason="needs kubectl to show what its settings run")


def _person_runs_kubectl(jail: Jail, kubeconfig: Path) -> None:
    subprocess.run(["kubectl", "get", "pods", "--request-timeout=2s"], cwd=jail.base,
                   env={"PATH": os.environ["PATH"], "HOME": str(jail.home), "KUBECONFIG": str(kubeconfig)},
                   stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)


@needs_kubectl
def test_a_kubeconfig_written_by_hand_where_kubeconfig_names_runs_its_credential_command(jail: Jail) -> None:
    kubeconfig = jail.workspace / "kube" / "config"
    kubeconfig.parent.mkdir()
    kubeconfig.write_text(kubeconfig_with_exec(jail))
    _person_runs_kubectl(jail, kubeconfig)
    assert planted_runs(jail) >= 1


@needs_kubectl
async def test_a_kubeconfig_planted_where_kubeconfig_names_in_the_workspace_runs_nothing(
        jail: Jail, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hidden place is hidden only when it exists (a mount needs something there): one the
    command creates is put aside after it, as at its default (``~/.kube`` of the home folder
    as the workspace)."""
    kubeconfig = jail.workspace / "kube" / "config"
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig))
    content = kubeconfig_with_exec(jail).replace("\n", "\\n")
    result = await run(tool_with(), {"command": f"mkdir -p kube && printf \"{content}\" > kube/config"},
                       context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_runs_kubectl(jail, kubeconfig)
    assert planted_runs(jail) == 0, result.output
    assert "kube/config" in [p["path"] for p in result.metadata["sandbox"]["planted"]]

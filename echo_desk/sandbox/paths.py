"""Which paths a sandboxed command may not see (what it may not change inside the workspace:
``inventory`` and ``runs_code``)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

#: Under the home folder: keys, credentials, keyrings, password stores and browser profiles.
HIDDEN_IN_HOME = (
    ".ssh", ".aws", ".gnupg", ".config/gcloud", ".kube", ".docker", ".netrc", ".git-credentials",
    ".local/share/keyrings", ".local/share/python_keyring", ".password-store", ".config/gh", ".config/hub",
    ".azure", ".npmrc", ".pypirc", ".cargo/credentials", ".cargo/credentials.toml", ".vault-token",
    ".config/op", ".terraform.d", ".mozilla", ".thunderbird", ".config/google-chrome", ".config/chromium",
    ".config/BraveSoftware", ".config/microsoft-edge", ".config/vivaldi", ".config/opera", ".pki",
    # The same browsers and mail installed as a snap (Ubuntu's Firefox, Thunderbird and Chromium
    # are) or a Flatpak: each keeps its profile in a home folder of its own.
    "snap/firefox", "snap/thunderbird", "snap/chromium", "snap/brave", "snap/opera", "snap/vivaldi",
    ".var/app/org.mozilla.firefox", ".var/app/org.mozilla.Thunderbird", ".var/app/com.google.Chrome",
    ".var/app/org.chromium.Chromium", ".var/app/io.github.ungoogled_software.ungoogled_chromium",
    ".var/app/com.brave.Browser", ".var/app/com.microsoft.Edge", ".var/app/com.vivaldi.Vivaldi",
    ".var/app/com.opera.Opera",
    # The same credentials where their tools also keep them: git's credential store (the XDG
    # place of ~/.git-credentials), Terraform's older CLI file, podman's registry logins (as
    # ~/.docker/config.json), KDE's keyring.
    ".config/git/credentials", ".terraformrc", ".config/containers/auth.json", ".local/share/kwalletd",
    # Database passwords (psql's, mysql's; mysql_config_editor's login paths, only obfuscated), object storage and cloud tools' keys, age keys of
    # sops, and the tokens coding agents and Hugging Face keep (the agents' folders are on the
    # protected list: read-only, but readable, without these).
    ".pgpass", ".my.cnf", ".mylogin.cnf", ".config/rclone", ".s3cfg", ".boto", ".config/sops", ".config/doctl", ".oci",
    ".databrickscfg", ".fly", ".claude/.credentials.json", ".codex/auth.json", ".gemini/oauth_creds.json",
    ".config/github-copilot", ".cache/huggingface/token", ".cache/huggingface/stored_tokens", ".huggingface/token",
    # Package publishers' and build tools' credentials: RubyGems' API key (and its XDG place),
    # Gradle's user properties (repository passwords, signing keys), Composer's auth.json (in
    # both of its home folders), Maven's master password, Yarn's npmAuthToken in the user's
    # .yarnrc.yml, sbt's and Ivy's credentials, Kaggle's API key (both places).
    ".gem/credentials", ".local/share/gem/credentials", ".gradle/gradle.properties", ".config/composer/auth.json",
    ".composer/auth.json", ".m2/settings-security.xml", ".yarnrc.yml", ".sbt/.credentials", ".ivy2/.credentials",
    ".kaggle/kaggle.json", ".config/kaggle/kaggle.json",
)


def runtime_folders() -> tuple[Path, ...]:
    """The login session's runtime folder (``$XDG_RUNTIME_DIR``, else ``/run/user/<uid>``),
    hidden whole: it holds podman's and buildah's registry logins (``containers/auth.json``),
    the keyring's and gpg-agent's sockets and whatever else a session keeps there, and a command
    needs none of it (its sockets could not be reached anyway)."""
    found = []
    for raw in (os.environ.get("XDG_RUNTIME_DIR", ""), f"/run/user/{os.getuid()}"):
        if raw and os.path.isabs(raw) and Path(raw) not in found:
            found.append(Path(raw))
    return tuple(found)


def existing_real(paths: Iterable[Path]) -> list[Path]:
    """Each path that exists, with symlinks resolved (a mount covers the real thing), no duplicates."""
    seen: dict[Path, None] = {}
    for path in paths:
        try:
            if not os.path.lexists(path):
                continue
            real = Path(os.path.realpath(path))
        except (OSError, ValueError):
            continue
        if real.exists() and real != Path("/"):
            seen.setdefault(real, None)
    return list(seen)


def is_under(path: Path, folder: Path) -> bool:
    return path == folder or path.is_relative_to(folder)

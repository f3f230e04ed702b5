"""Why a target always needs the person's own approval, as data.

A tool marks such a target with ``Target.protections``; the approval policy then asks, whatever
the settings or a rule allow, and the tool acts only on what the person saw and approved. Each
``Protection`` names its reason and the facts that reason speaks of. ``english`` is the line the
model, the terminal and the audit log read; the approval dialog translates from ``reason`` and
the named facts, never from the English.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

#: Starts each protection's English line (``Protection.english``).
PROTECTED_PREFIX = "protected: "


class ProtectionReason(enum.StrEnum):
    GIT_FOLDER = "git_folder"
    SETTINGS_FOLDER = "settings_folder"
    DATA_FOLDER = "data_folder"
    CACHE_FOLDER = "cache_folder"
    KEYRING_FOLDER = "keyring_folder"
    #: ``links`` names share the file: writing it changes the others too.
    HARD_LINKED = "hard_linked"
    #: ``host`` resolves to ``addresses`` on this computer or its local network.
    LOCAL_NETWORK = "local_network"
    #: A command runs outside the sandbox because the agent asked for it...
    OUTSIDE_SANDBOX_ASKED = "outside_sandbox_asked"
    #: ...because the workspace's sandbox is set to ask every time...
    OUTSIDE_SANDBOX_ALWAYS_ASK = "outside_sandbox_always_ask"
    #: ...or because the sandbox does not work on this machine.
    OUTSIDE_SANDBOX_UNAVAILABLE = "outside_sandbox_unavailable"
    #: A folder holds ``more`` protected files than its target names one by one.
    MORE_INSIDE = "more_inside"
    #: ``entry`` of the protected list makes a program run code later (``why``: its message id).
    RUNS_CODE = "runs_code"


_ENGLISH: dict[ProtectionReason, str] = {
    ProtectionReason.GIT_FOLDER: "inside a .git folder (repository internals)",
    ProtectionReason.SETTINGS_FOLDER: "Echo Desk's own settings folder",
    ProtectionReason.DATA_FOLDER: "Echo Desk's own data folder",
    ProtectionReason.CACHE_FOLDER: "Echo Desk's own cache folder",
    ProtectionReason.KEYRING_FOLDER: "the keyring folder",
    ProtectionReason.HARD_LINKED: "hard-linked ({links} names share this file): the other names keep what they hold now",
    ProtectionReason.LOCAL_NETWORK: "{host} is this computer or its local network ({addresses})",
    ProtectionReason.OUTSIDE_SANDBOX_ASKED: "runs outside the sandbox with all your rights (the agent asked for it)",
    ProtectionReason.OUTSIDE_SANDBOX_ALWAYS_ASK:
        "runs outside the sandbox with all your rights (the sandbox is set to ask every time)",
    ProtectionReason.OUTSIDE_SANDBOX_UNAVAILABLE:
        "runs outside the sandbox with all your rights (the sandbox is unavailable here)",
    ProtectionReason.MORE_INSIDE: "{more} more inside",
    ProtectionReason.RUNS_CODE: "{entry} makes a program run code later: {why}",
}


@dataclass(frozen=True, kw_only=True)
class Protection:
    """One reason a target is protected, with the facts it names (only those of its reason)."""

    reason: ProtectionReason
    links: int = 0
    host: str = ""
    addresses: tuple[str, ...] = ()
    more: int = 0
    #: The entry of the protected list (``.vscode/``, ``.envrc``) and why a program runs code
    #: from it (an English message id, translated where shown).
    entry: str = ""
    why: str = ""
    #: A file inside a folder target that carries this reason ('' : the target itself).
    inside: str = ""

    def __post_init__(self) -> None:
        if (self.reason is ProtectionReason.HARD_LINKED) != (self.links > 1):
            raise ValueError("links (more than one) goes with HARD_LINKED, and only with it")
        if (self.reason is ProtectionReason.LOCAL_NETWORK) != bool(self.host and self.addresses):
            raise ValueError("host and addresses go with LOCAL_NETWORK, and only with it")
        if (self.reason is ProtectionReason.MORE_INSIDE) != (self.more > 0):
            raise ValueError("more (at least one) goes with MORE_INSIDE, and only with it")
        if (self.reason is ProtectionReason.RUNS_CODE) != bool(self.entry and self.why):
            raise ValueError("entry and why go with RUNS_CODE, and only with it")

    @property
    def english_reason(self) -> str:
        """The reason in English, e.g. ``inside a .git folder (repository internals)``."""
        text = _ENGLISH[self.reason].format(links=self.links, host=self.host,
                                            addresses=", ".join(self.addresses), more=self.more,
                                            entry=self.entry, why=self.why)
        return f"{text} ({self.inside})" if self.inside else text

    @property
    def english(self) -> str:
        """``protected: <reason>``: how the model and the terminal read it."""
        return PROTECTED_PREFIX + self.english_reason

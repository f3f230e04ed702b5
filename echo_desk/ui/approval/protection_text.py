"""Why a target is protected, in the person's language.

Tools mark a target that always needs the person's own approval with a ``detail`` starting
``protected: `` and an English reason: the approval policy looks for the marker, and the same
English words go back to the model when a write is refused. The approval dialog shows the
reason translated; a reason it does not know is shown as it came.
"""

from __future__ import annotations

import re

from echo_desk.agent.policy import PROTECTED
from echo_desk.i18n import N_, _, clause_text, shown
from echo_desk.ui.labels import SANDBOX_NETWORK, SANDBOX_ONLY_DOMAINS

MARKER = f"{PROTECTED}: "

_REASONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"inside a \.git folder \(repository internals\)"), N_("inside a .git folder (repository internals)")),
    (re.compile(r"Echo Desk's own settings folder"), N_("Echo Desk's own settings folder")),
    (re.compile(r"Echo Desk's own data folder"), N_("Echo Desk's own data folder")),
    (re.compile(r"Echo Desk's own cache folder"), N_("Echo Desk's own cache folder")),
    (re.compile(r"the keyring folder"), N_("the keyring folder")),
    (re.compile(r"runs outside the sandbox with all your rights \(the agent asked for it\)"),
     N_("runs outside the sandbox with all your rights (the agent asked for it)")),
    (re.compile(r"runs outside the sandbox with all your rights \(the sandbox is set to ask every time\)"),
     N_("runs outside the sandbox with all your rights (the sandbox is set to ask every time)")),
    (re.compile(r"runs outside the sandbox with all your rights \(the sandbox is unavailable here\)"),
     N_("runs outside the sandbox with all your rights (the sandbox is unavailable here)")),
    (re.compile(r"hard-linked \((?P<count>\d+) names share this file\)"), N_("hard-linked ({count} names share this file)")),
    (
        re.compile(r"(?P<host>\S+) is this computer or its local network \((?P<addresses>[^()]*)\)"),
        N_("{host} is this computer or its local network ({addresses})"),
    ),
)


def shown_detail(detail: str) -> str:
    """``detail`` as the approval dialog shows it: each protected reason translated."""
    if shown(detail) is not detail:
        return shown(detail)  # built by the engine with deferred(): in the language of the moment
    if detail in SANDBOX_NETWORK:
        return _(SANDBOX_NETWORK[detail])
    if detail.startswith(SANDBOX_ONLY_DOMAINS):
        return _("network only to: {domains}").format(domains=detail[len(SANDBOX_ONLY_DOMAINS):])
    if MARKER not in detail:
        return _(detail)  # an engine message id (a file tool's role), or a path, shown as it is
    return clause_text(_shown_reason(part) for part in detail.split("; "))


def _shown_reason(part: str) -> str:
    if not part.startswith(MARKER):
        return _(part)
    reason = part[len(MARKER):]
    for pattern, template in _REASONS:
        match = pattern.fullmatch(reason)
        if match:
            reason = _(template).format(**match.groupdict())
            break
    return _("Protected: {reason}").format(reason=reason)

"""What can go wrong while signing in to an MCP server, as typed values.

Each failure names the step it happened in (``SignInStep``) and why (a message marked with
``N_`` and its parameters), so the server's row and the terminal say, in the person's
language, "Registering Echo Desk with the sign-in service: the service refused …" instead of
a traceback.
"""

from __future__ import annotations

import enum

from echo_desk.i18n import N_, deferred


class SignInStep(enum.StrEnum):
    DISCOVERY = "discovery"
    METADATA = "metadata"
    REGISTRATION = "registration"
    BROWSER = "browser"
    CALLBACK = "callback"
    TOKEN = "token"
    REFRESH = "refresh"
    REVOKE = "revoke"
    STORAGE = "storage"


STEP_LABELS = {
    SignInStep.DISCOVERY: N_("Finding the server's sign-in service"),
    SignInStep.METADATA: N_("Reading the sign-in service's description"),
    SignInStep.REGISTRATION: N_("Registering Echo Desk with the sign-in service"),
    SignInStep.BROWSER: N_("Signing in in the browser"),
    SignInStep.CALLBACK: N_("Receiving the browser's answer"),
    SignInStep.TOKEN: N_("Getting the access token"),
    SignInStep.REFRESH: N_("Renewing the access token"),
    SignInStep.REVOKE: N_("Signing out at the server"),
    SignInStep.STORAGE: N_("Keeping the sign-in in the keyring"),
}


class SignInError(Exception):
    """A sign-in (or renewal, or sign-out) step failed. ``reason`` is marked with ``N_`` and
    formatted with ``params``; ``text`` is the whole sentence, re-translatable (``shown``)."""

    def __init__(self, step: SignInStep, reason: str, **params: object) -> None:
        self.step = step
        self.reason = reason
        self.params = params
        super().__init__(f"{step.value}: {reason.format(**params) if params else reason}")

    @property
    def text(self) -> str:
        return deferred(N_("{step}: {reason}"), step=deferred(STEP_LABELS[self.step]),
                        reason=deferred(self.reason, **self.params))


def cannot_reach(step: SignInStep, url: str, exc: Exception) -> SignInError:
    """``url`` gave no answer (``exc``: the HTTP client's error, a developer's English such as
    "All connection attempts failed"): said in a sentence of Echo Desk's own (``explained``);
    raise it ``from exc`` so the client's words stay the cause (``explain.technical_detail``)."""
    from echo_desk.mcp.explain import explained

    # "the server could not be reached (https://…)": what happened first, the address after it.
    return SignInError(step, N_("{error} ({url})"), url=url, error=explained(exc))


class SignInNeeded(Exception):
    """The server answered 401 (or asks for more scopes): the person must sign in (again).
    ``scope`` is what the server asked for, if it said; ``reason`` as in ``SignInError``."""

    def __init__(self, reason: str, *, scope: str | None = None, params: dict[str, object] | None = None) -> None:
        self.reason = reason
        self.scope = scope
        self.params = params or {}
        super().__init__(reason.format(**self.params) if self.params else reason)

    @property
    def text(self) -> str:
        return deferred(self.reason, **self.params)

"""Quitting: the gateway is closed before the window's dialogs are refused, so a connected app's
call waiting in an approval dialog is withdrawn (and answered that Echo Desk quit), not denied."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from echo_desk.ui.app import main as app_module


async def test_the_gateway_closes_before_the_dialogs_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    order: list[str] = []

    class Services:
        async def close_gateway(self) -> None:
            order.append("gateway closed")

        async def aclose(self) -> None:
            order.append("services closed")

    async def idle() -> None:
        return None

    async def marshal_shutdown() -> None:
        order.append("marshal")

    window = SimpleNamespace(session=SimpleNamespace(stop=lambda: order.append("turn stopped"), wait_idle=idle),
                             host=SimpleNamespace(cancel_dialogs=lambda: order.append("dialogs refused")))
    monkeypatch.setattr(app_module, "marshal", SimpleNamespace(pending_tasks=lambda: [], shutdown=marshal_shutdown))
    app = SimpleNamespace(_config_watch=None, window=window, settings_dialog=None, services=Services())
    await app_module.App.shutdown(app)  # type: ignore[arg-type]
    assert order.index("gateway closed") < order.index("dialogs refused")

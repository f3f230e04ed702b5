"""The MCP resource panel in the chat window, against the real server-everything: browse,
attach (the chip shows the URI), subscription updates re-read the chip, and the message sends
the resource's text to the model with its URI on the message — and nothing the person did not
attach."""

from __future__ import annotations

from echo_desk.mcp import McpManager
from echo_desk.ui.chat.transcript import USER
from tests.mcp.conftest import everything_config, needs_everything
from tests.ui.conftest import next_emission, until, within
from tests.ui.fake_model import ScriptedModel, say


@needs_everything
def test_browse_attach_and_send_a_resource(window, qloop, runtime) -> None:
    manager = McpManager(runtime.settings, registry=runtime.registry, servers={"ev": everything_config()})
    request = manager.start_request("ev")
    assert request is not None and manager.approve_start("ev", request.fingerprint)
    runtime.mcp = manager
    model = ScriptedModel([say("It is a document.")])
    window.services.model = model
    window.set_model(model)

    async def scenario() -> None:
        await manager.start_all()
        window.resources.open_panel()
        panel = window.resources.panel
        assert panel is not None and panel.current_server() == "ev"
        await until(lambda: panel.listing is not None, 20)
        top = panel.tree.topLevelItem(0)
        doc = next(top.child(i) for i in range(top.childCount())
                   if "static/document" in top.child(i).text(1))
        uri = doc.text(1)
        panel.tree.setCurrentItem(doc)
        assert panel.keep_updated.isChecked()  # the server lets clients subscribe
        panel.attach_button.click()
        await until(lambda: window.attachment_tray.resource_chips, 20)
        chip = window.attachment_tray.resource_chips[0]
        assert chip.label.text() == uri and window.attachment_tray.isVisibleTo(window)
        await until(lambda: chip.unsubscribe is not None, 10)
        # The server says it changed (its toggle tool starts the updates): the chip is read again.
        toggle = runtime.registry.get("ev__toggle-subscriber-updates").tool
        from echo_desk.tools import ToolExecutionContext

        await toggle.execute({}, ToolExecutionContext(call_id="c", tool_name=toggle.name, scope_id="t"))
        await until(lambda: chip.updated_at is not None, 15)
        assert chip.updated.text().startswith("updated ")
        await toggle.execute({}, ToolExecutionContext(call_id="c2", tool_name=toggle.name, scope_id="t"))
        window.composer.setPlainText("What is this?")
        window.send_button.click()
        assert await within(next_emission(window.session.busy_changed), 20) is False
        assert window.attachment_tray.resource_chips == []

    try:
        qloop.run_until_complete(scenario())
        sent = model.seen_messages[0][-1]
        assert "What is this?" in sent.content and "MCP resource demo://resource/static/document/" in sent.content
        assert "----- begin resource -----" in sent.content
        user = next(i for i in window.session.transcript.items() if i.kind == USER)
        assert user.resources and user.resources[0].uri.startswith("demo://resource/static/document/")
        # Only the attached resource went to the model: no other document's address is in the request.
        assert sent.content.count("demo://resource/static/document/") == 1
    finally:
        qloop.run_until_complete(manager.aclose())

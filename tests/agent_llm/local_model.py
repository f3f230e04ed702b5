"""What the real-model tests share: where the default model lies, the marks that skip them when
it was never fetched, and one exchange with the whole agent.

With ``ECHO_DESK_REQUIRE_LLM=1`` (set by ``make test``) a missing model fails instead of
skipping, so CI cannot pass without the real model.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
import pytest

from echo_desk.agent.host import ScriptedHost
from echo_desk.agent.loop import AgentLoop, Outcome
from echo_desk.agent.model import ChatMessage
from echo_desk.agent.prompts import system_message
from echo_desk.agent.scope import Scope
from echo_desk.providers.local import default_model as dm
from echo_desk.providers.local.provider import LocalModel
from echo_desk.runtime import Runtime


def _model_file() -> Path | None:
    for folder in (os.environ.get("ECHO_DESK_TEST_CACHE_DIR"), platformdirs.user_cache_dir("echo-desk", appauthor=False)):
        if folder and (Path(folder) / "models" / dm.FILE_NAME).is_file():
            return Path(folder) / "models" / dm.FILE_NAME
    return None


MODEL = _model_file()
if MODEL is None and os.environ.get("ECHO_DESK_REQUIRE_LLM") == "1":
    raise RuntimeError("ECHO_DESK_REQUIRE_LLM=1 but the local model is missing: "
                       "run python -m echo_desk.providers.local.fetch_default")
LLM_MARKS = [
    pytest.mark.llm,
    pytest.mark.skipif(MODEL is None, reason="local model not fetched (python -m echo_desk.providers.local.fetch_default)"),
]


async def exchange(runtime: Runtime, model: LocalModel, workspace: Path, prompt: str,
                   host: ScriptedHost) -> Outcome:
    scope = Scope(label="llm-test", workspace_roots=(workspace,))
    loop = AgentLoop(model, runtime.dispatcher, runtime.schema_factory, max_turns=4)
    return await loop.run([system_message(scope), ChatMessage(role="user", content=prompt)], scope, host)

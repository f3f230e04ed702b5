"""Fixtures of the real-model tests: the built-in model on the default file, and a runtime
with the real built-in tools in a scratch folder."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from echo_desk.providers.local.profiles import get_profile
from echo_desk.providers.local.provider import LocalModel
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SettingsStore
from tests.agent_llm.local_model import MODEL


@pytest_asyncio.fixture
async def model() -> AsyncIterator[LocalModel]:
    """The model as the app runs it, prompt caching on: each turn reads only what is new since the
    last (the intent step and its turn share one prompt). A new server for each test, so the
    cache holds only that test's own turns and the answers are the same in every run."""
    assert MODEL is not None
    local = LocalModel(MODEL, get_profile("qwen2.5-coder-tools", context_size=4096))
    yield local
    await local.aclose()


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Runtime]:
    rt = Runtime.create(settings_store=SettingsStore.in_dir(tmp_path / "config"), data_dir=tmp_path / "data",
                        with_plugins=False)
    yield rt
    rt.close()

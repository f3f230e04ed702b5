"""The app's side in a process of its own, for tests that kill it (``headless_app``). Prints
``ready`` once the socket listens; runs until it is killed or its stdin closes.

Run as ``python -m tests.gateway.app_process`` by the tests, not by hand.
"""

from __future__ import annotations

import asyncio

from tests.gateway.headless_app import headless_app, until_stdin_closes


async def main() -> None:
    async with headless_app():
        print("ready", flush=True)
        await until_stdin_closes()


if __name__ == "__main__":
    asyncio.run(main())

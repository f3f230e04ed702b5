"""The managed llama.cpp server process (run as ``python -m echo_desk.providers.local.child CONFIG``).

It loads the model with xllamacpp (llama.cpp's own server, in-process), prints one JSON line
``{"url": ...}`` on stdout once it listens, and then lives exactly as long as its parent:
it exits when its stdin reaches end-of-file (the parent closed it, or died and the kernel
closed it) and, on Linux, also on PR_SET_PDEATHSIG. So a crashed Echo Desk leaves no orphan.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
import threading
from typing import Any

from echo_desk.common.json_text import read_json


def _die_with_parent(parent_pid: int) -> None:
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:
        os._exit(3)  # the parent died before we could arm the signal

    def watch_stdin() -> None:
        try:
            while sys.stdin.buffer.read(4096):
                pass
        finally:
            os._exit(0)

    threading.Thread(target=watch_stdin, name="parent-lifeline", daemon=True).start()


def _serve(config: dict[str, Any]) -> None:
    import xllamacpp  # heavy: imported only in the child

    params = xllamacpp.CommonParams()
    params.model.path = config["model"]
    params.n_ctx = int(config.get("context_size", 8192))
    params.port = 0  # the kernel picks a free port; we report the one it chose
    params.hostnames = ["127.0.0.1"]
    params.use_jinja = True
    params.cache_prompt = False
    params.warmup = False  # a warm-up pass costs a second and the first request warms anyway
    params.n_parallel = 1
    # The server reports prompt progress once per batch: with the default 2,048 a whole prompt
    # was one silent stretch (7-14 s on 2 cores); 128 tokens is a report every few seconds.
    params.n_batch = 128
    params.n_ubatch = 128
    if config.get("threads"):
        params.cpuparams.n_threads = int(config["threads"])
    if config.get("batch_threads") or config.get("threads"):
        params.cpuparams_batch.n_threads = int(config.get("batch_threads") or config["threads"])
    if config.get("chat_template"):
        params.chat_template = config["chat_template"]
    server = xllamacpp.Server(params)
    print(json.dumps({"url": server.listening_address}), flush=True)
    threading.Event().wait()  # serve until the lifeline or a signal ends us


def main() -> None:
    config = read_json(sys.argv[1])
    _die_with_parent(int(config["parent_pid"]))
    try:
        _serve(config)
    except Exception as exc:  # reported to the parent, which shows it  # noqa: BLE001
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}), flush=True)
        os._exit(2)


if __name__ == "__main__":
    main()

"""How many threads the built-in model's server should use: reading the prompt and writing the
answer, each measured idle and with other programs keeping the cores busy.

    python bench/local_threads.py [--repeats 2]

For each load (idle; as many busy processes as cores; three per core) and each choice of
threads (writing, reading), the same server as the app's (``LlamaServer``, the default model)
reads one prompt of about 670 tokens with the prompt cache off and writes 32 tokens; the figures
are llama.cpp's own timings (medians of the repeats), and each is also given as a ratio to the
choice ``1/1``, measured at the same load in the same run. The choices (writing/reading):
``1/1`` (the default on 2 cores: one core left), ``1/all`` (every core reads the prompt),
``all/all``. The busy processes are children of this script and the server runs in a session of
its own, as in the app: where the kernel groups processes by session (autogroup), the server
keeps a fair share of the cores as a whole.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import statistics
import sys
import tempfile
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from echo_desk.providers.local.default_model import default_model_path
from echo_desk.providers.local.profiles import get_profile, profile_names
from echo_desk.providers.local.server import LlamaServer

PROMPT = " ".join(f"line {i}: the quick brown fox jumps over the lazy dog." for i in range(45))


def _spin() -> None:
    while True:
        pass


async def measure(threads: int, batch_threads: int, repeats: int, log: Path) -> tuple[float, float]:
    """(prompt tokens/s, generated tokens/s), medians of ``repeats`` requests."""
    server = LlamaServer(default_model_path(), get_profile(profile_names()[0]), threads=threads,
                         batch_threads=batch_threads, start_timeout=300, log_path=log)
    info = await server.start()
    reading, writing = [], []
    try:
        async with httpx.AsyncClient(timeout=900) as client:
            for n in range(repeats):
                answer = await client.post(f"{info.url}/completion", json={
                    "prompt": f"{PROMPT} #{n}", "n_predict": 32, "cache_prompt": False, "temperature": 0})
                timings = answer.json()["timings"]
                reading.append(timings["prompt_per_second"])
                writing.append(timings["predicted_per_second"])
    finally:
        await server.stop()
    return statistics.median(reading), statistics.median(writing)


async def main(repeats: int) -> None:
    if not default_model_path().is_file():
        sys.exit("the default model is not downloaded: make model")
    cores = os.cpu_count() or 2
    choices = [("1/1", 1, 1), ("1/all", 1, cores), ("all/all", cores, cores)]
    print(f"{cores} cores; prompt ~670 tokens, 32 written; medians of {repeats}; load {os.getloadavg()[0]:.2f}")
    print(f"{'busy processes':<15} {'threads w/r':<12} {'read tok/s':>11} {'× 1/1':>7} {'write tok/s':>12} {'× 1/1':>7}")
    log = Path(tempfile.mkdtemp(prefix="echo-threads-")) / "llama-server.log"
    for busy in (0, cores, 3 * cores):
        spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(busy)]
        for p in spinners:
            p.start()
        try:
            base: tuple[float, float] | None = None
            for label, threads, batch_threads in choices:
                reading, writing = await measure(threads, batch_threads, repeats, log)
                base = base or (reading, writing)
                print(f"{busy:<15} {label:<12} {reading:>11.1f} {reading / base[0]:>6.2f}× {writing:>12.1f} "
                      f"{writing / base[1]:>6.2f}×", flush=True)
        finally:
            for p in spinners:
                p.kill()
                p.join()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=2)
    asyncio.run(main(parser.parse_args().repeats))

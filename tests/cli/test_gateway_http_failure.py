"""``echo-desk gateway --http PORT`` on a port it cannot listen on says so in a sentence in the
person's language and exits non-zero; before, it printed the raw ``OSError``
("[Errno 98] error while attempting to bind on address …: address already in use"). A port out
of range is refused by the arguments, not by a traceback (``OverflowError``)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_cli_language import _cli


@pytest.fixture
def taken_port() -> Iterator[int]:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        held.listen(1)
        yield held.getsockname()[1]


@pytest.mark.parametrize(("lang", "expected"), [
    ("C.UTF-8", "echo-desk gateway: The HTTP gateway could not start: another program already uses port {port} on "
                "127.0.0.1. Choose another port, or end that program.\n"),
    ("zh_CN.UTF-8", "echo-desk gateway: HTTP 网关无法启动：另一个程序已经在使用 127.0.0.1 上的端口 {port}。"
                    "请换一个端口，或者结束那个程序。\n"),
])
def test_a_port_in_use_is_a_sentence_and_a_failure(tmp_path: Path, taken_port: int, lang: str, expected: str) -> None:
    done = _cli(tmp_path, "gateway", "--http", str(taken_port), "--no-start", lang=lang)
    assert done.returncode == 1
    assert done.stderr == expected.format(port=taken_port), done.stderr


@pytest.mark.parametrize("port", ["70000", "0", "http"])
def test_a_port_out_of_range_is_refused_by_the_arguments(tmp_path: Path, port: str) -> None:
    done = _cli(tmp_path, "gateway", "--http", port, "--no-start", lang="zh_CN.UTF-8")
    assert done.returncode == 2, done.stderr
    assert f"{port} 不是端口" in done.stderr and "Traceback" not in done.stderr, done.stderr

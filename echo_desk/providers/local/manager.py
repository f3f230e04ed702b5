"""Choosing and fetching local model files: a ``.gguf`` the person picked, or a download.

Downloads resume with HTTP Range after a broken connection, report progress, and are kept
only if the sha256 matches; until then the bytes live in ``<name>.partial`` beside the target.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx

from echo_desk.common.explain import in_english
from echo_desk.i18n import N_, deferred
from echo_desk.providers.local import default_model as dm
from echo_desk.providers.local.verify import is_gguf, is_verified, mark_verified
from echo_desk.store.private import open_private, private_dir
from echo_desk.store.settings import LocalModelSettings

Progress = Callable[[int, int | None], None]
"""``progress(bytes_done, bytes_total_or_None)``."""



class ModelFileError(Exception):
    """A model file is missing, not a GGUF, or failed to download/verify; the message says what to do.

    Its one argument, ``reason``, is ``deferred``: shown (``echo_desk.i18n.shown``) it is said in
    the language of the moment, not the one of when it was raised (the window's banner and the
    model panel outlive a language switch). ``str()`` is the English, for the log and a report."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)

    @property
    def reason(self) -> str:
        """The sentence for the person (``deferred``)."""
        reason: str = self.args[0]
        return reason

    def __str__(self) -> str:
        return in_english(self.reason)


#: The command that downloads the built-in model (said in quotes: a sentence may follow it).
FETCH_COMMAND = "python -m echo_desk.providers.local.fetch_default"


def resolve_model_path(settings: LocalModelSettings) -> Path:
    """The ``.gguf`` to run: the person's choice, else the verified default model."""
    if settings.model_path:
        return check_chosen_file(Path(settings.model_path).expanduser())
    path = dm.default_model_path()
    if not is_verified(path, dm.SHA256):
        raise ModelFileError(deferred(N_("The built-in model is not downloaded yet. Download it with “{command}”."),
                                      command=FETCH_COMMAND))
    return path


def check_chosen_file(path: Path) -> Path:
    if not path.is_file():
        raise ModelFileError(deferred(N_("The model file {path} does not exist."), path=str(path)))
    if not is_gguf(path):
        raise ModelFileError(deferred(N_("{path} is not a GGUF model file."), path=str(path)))
    return path


async def download_model(
    url: str,
    target: Path,
    *,
    sha256: str,
    progress: Progress | None = None,
    attempts: int = 3,
    transport: httpx.AsyncBaseTransport | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> Path:
    """Fetch ``url`` into ``target``, resuming a previous ``.partial``; verify ``sha256``.

    A broken connection is resumed up to ``attempts`` times in this call; after that the
    partial file stays for the next call to resume. A hash mismatch deletes it.
    """
    if is_verified(target, sha256):
        return target
    private_dir(target.parent)
    partial = target.with_name(target.name + ".partial")
    async with httpx.AsyncClient(timeout=httpx.Timeout(60.0, connect=10.0), transport=transport,
                                 follow_redirects=True) as client:
        for attempt in range(1, attempts + 1):
            try:
                await _fetch_once(client, url, partial, progress)
                break
            except (httpx.TransportError, _Truncated) as exc:
                if attempt == attempts:
                    raise ModelFileError(deferred(
                        N_("The download of {url} stopped: {why}. Download it again to resume."),
                        url=url, why=deferred(_broke_off(exc)),
                    )) from exc
                await sleep(min(2.0**attempt, 30.0))
    digest = await asyncio.to_thread(_sha256, partial)
    if digest != sha256:
        partial.unlink(missing_ok=True)
        raise ModelFileError(deferred(
            N_("The downloaded file is not the one expected: its checksum (sha256 {got}) is not {want}. It was "
               "deleted; check the address and the expected sha256."),
            got=digest, want=sha256,
        ))
    os.replace(partial, target)
    mark_verified(target, sha256)
    return target


class _Truncated(Exception):
    pass


def _broke_off(exc: Exception) -> str:
    """What stopped a download, in words (the message id): never the exception class's name."""
    if isinstance(exc, httpx.ConnectError):
        return N_("the server could not be reached (no network, or a wrong address)")
    if isinstance(exc, httpx.TimeoutException):
        return N_("the server stopped answering")
    if isinstance(exc, _Truncated):
        return N_("the server ended the file early")
    return N_("the connection broke off")


async def _fetch_once(client: httpx.AsyncClient, url: str, partial: Path, progress: Progress | None) -> None:
    have = _size(partial)
    headers = {"Range": f"bytes={have}-"} if have else {}
    async with client.stream("GET", url, headers=headers) as response:
        if response.status_code == 416:
            return  # nothing left to fetch: the partial file is complete
        if response.status_code >= 400:
            raise ModelFileError(deferred(
                N_("The server answered HTTP {status} for {url}."), status=response.status_code, url=url
            ))
        if response.status_code != 206:
            have = 0  # the server ignored Range: start over
        length = response.headers.get("content-length")
        total = have + int(length) if length and length.isdigit() else None
        done = have
        with open_private(partial, "ab" if have else "wb") as out:
            async for block in response.aiter_bytes():  # unbuffered: a cut keeps every byte received
                out.write(block)
                done += len(block)
                if progress:
                    progress(done, total)
        if total is not None and done < total:
            raise _Truncated()


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()

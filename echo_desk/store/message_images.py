"""Images attached to stored messages: the bytes as content-addressed private files beside the
conversation database (``attachment-images/``, never pruned: the conversation refers to them),
and a small record in the message's ``envelope`` column (``{"images": [{sha256, mime, name}]}``),
so no schema change is needed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from echo_desk.agent.model import ImagePart
from echo_desk.store.blobs import BlobStore

FOLDER = "attachment-images"


def blob_store_for(database: Path | str) -> BlobStore | None:
    """The image store beside ``database`` (``None`` for an in-memory database: images stay live only)."""
    if str(database) == ":memory:":
        return None
    return BlobStore(Path(database).parent / FOLDER)


def record(images: tuple[ImagePart, ...], blobs: BlobStore | None) -> dict[str, Any] | None:
    """Store the bytes and return the envelope record (``None`` when there is nothing to keep)."""
    if not images or blobs is None:
        return None
    return {"images": [{"sha256": blobs.put(i.data), "mime": i.mime, "name": i.name} for i in images]}


def restore(envelope: dict[str, Any] | None, blobs: BlobStore | None) -> tuple[ImagePart, ...]:
    """The images a stored user message carried; an image whose file is gone or damaged is left
    out (the message text still names it)."""
    if not envelope or blobs is None or not isinstance(envelope.get("images"), list):
        return ()
    out = []
    for entry in envelope["images"]:
        if not isinstance(entry, dict):
            continue
        data = blobs.get(str(entry.get("sha256", "")))
        if data is not None:
            out.append(ImagePart(mime=str(entry.get("mime", "")), data=data, name=str(entry.get("name", ""))))
    return tuple(out)

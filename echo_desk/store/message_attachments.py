"""What a stored user message had attached: the paths it named and its images. The image bytes
are content-addressed private files beside the conversation database (``attachment-images/``,
never pruned: the conversation refers to them); the record rides in the message's ``envelope``
column (``{"attachments": [...], "images": [{sha256, mime, name}], "resources": [...]}``), so no
schema change. An attached MCP resource's text is kept there, secrets redacted like the message's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from echo_desk.chat_messages import AttachmentRef, ChatMessage, ImagePart, ResourcePart
from echo_desk.store.blobs import BlobStore
from echo_desk.store.redact import redact_text

FOLDER = "attachment-images"


def blob_store_for(database: Path | str) -> BlobStore | None:
    """The image store beside ``database`` (``None`` for an in-memory database: images stay live only)."""
    if str(database) == ":memory:":
        return None
    return BlobStore(Path(database).parent / FOLDER)


def record(message: ChatMessage, blobs: BlobStore | None) -> dict[str, Any] | None:
    """Store the image bytes and return the envelope record (``None`` when nothing is attached)."""
    if not message.images and not message.attachments and not message.resources:
        return None
    out: dict[str, Any] = {"attachments": [{"mention": a.mention, "is_dir": a.is_dir, "is_image": a.is_image,
                                            "inside": a.inside} for a in message.attachments]}
    if message.resources:
        out["resources"] = [{"server": r.server, "uri": r.uri, "mime": r.mime, "name": r.name,
                             "text": redact_text(r.text)} for r in message.resources]
    if blobs is not None:
        out["images"] = [{"sha256": blobs.put(i.data), "mime": i.mime, "name": i.name} for i in message.images]
    return out


def refs(envelope: dict[str, Any] | None) -> tuple[AttachmentRef, ...]:
    if not envelope or not isinstance(envelope.get("attachments"), list):
        return ()
    return tuple(AttachmentRef(mention=str(a.get("mention", "")), is_dir=bool(a.get("is_dir")),
                               is_image=bool(a.get("is_image")), inside=bool(a.get("inside", True)))
                 for a in envelope["attachments"] if isinstance(a, dict) and a.get("mention"))


def resources(envelope: dict[str, Any] | None) -> tuple[ResourcePart, ...]:
    if not envelope or not isinstance(envelope.get("resources"), list):
        return ()
    return tuple(ResourcePart(server=str(r.get("server", "")), uri=str(r.get("uri", "")), mime=str(r.get("mime", "")),
                              name=str(r.get("name", "")), text=str(r.get("text", "")))
                 for r in envelope["resources"] if isinstance(r, dict) and r.get("uri"))


def images(envelope: dict[str, Any] | None, blobs: BlobStore | None) -> tuple[ImagePart, ...]:
    """The images a stored user message carried; an image whose file is gone or damaged is left
    out (the message still names its path)."""
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

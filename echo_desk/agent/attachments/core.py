"""What an attached path is: resolved, inside or outside the workspace, an image or not."""

from __future__ import annotations

import enum
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from echo_desk.chat_messages import AttachmentRef, ChatMessage, ImagePart, ResourcePart
from echo_desk.common.visible_text import visible

#: Image types every image-capable provider here takes (Gemini takes no GIF: it says so itself).
IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
               ".webp": "image/webp"}
#: The smallest per-image limit of the providers (Anthropic: 5 MB).
MAX_IMAGE_BYTES = 5 * 1024 * 1024
#: A file or folder copied into the workspace, in total.
MAX_COPY_BYTES = 100 * 1024 * 1024
MAX_COPY_FILES = 5000
#: Attachments on one message.
MAX_ATTACHMENTS = 20


class Problem(enum.StrEnum):
    """Why a path cannot be attached (the UI words each one)."""

    MISSING = "missing"
    NOT_FILE = "not_file"  # a device, socket or pipe
    UNREADABLE = "unreadable"
    IMAGE_TOO_LARGE = "image_too_large"
    COPY_TOO_LARGE = "copy_too_large"
    TOO_MANY_FILES = "too_many_files"
    TOO_MANY_ATTACHMENTS = "too_many_attachments"
    NO_WORKSPACE = "no_workspace"


class AttachmentError(Exception):
    """A path that cannot be attached; ``problem`` says why, ``limit`` the limit that was hit."""

    def __init__(self, problem: Problem, path: Path, *, limit: int = 0, detail: str = "") -> None:
        super().__init__(f"{path}: {problem.value}{f' ({detail})' if detail else ''}")
        self.problem = problem
        self.path = path
        self.limit = limit
        self.detail = detail


@dataclass(frozen=True, kw_only=True)
class Attachment:
    """One attached path. ``real`` has every symlink resolved; ``relative`` (POSIX) is set only
    when ``real`` lies inside the workspace."""

    given: Path
    real: Path
    is_dir: bool
    inside: bool
    relative: str = ""
    image: ImagePart | None = None

    @property
    def mention(self) -> str:
        """How the message names it: ``@relative/path`` inside the workspace, else the real path."""
        return f"@{self.relative}" if self.inside else str(self.real)

    def ref(self) -> AttachmentRef:
        return AttachmentRef(mention=self.mention, is_dir=self.is_dir, is_image=self.image is not None,
                             inside=self.inside)


def inspect(path: Path | str, workspace: Path | str | None) -> Attachment:
    """Resolve ``path`` (symlinks first: a link in the workspace to a file outside it is
    outside) and read an image's bytes. Raises ``AttachmentError``."""
    given = Path(path)
    real = Path(os.path.realpath(given))
    try:
        info = real.stat()
    except FileNotFoundError:
        raise AttachmentError(Problem.MISSING, given) from None
    except OSError as exc:
        raise AttachmentError(Problem.UNREADABLE, given, detail=exc.strerror or str(exc)) from None
    is_dir = stat.S_ISDIR(info.st_mode)
    if not is_dir and not stat.S_ISREG(info.st_mode):
        raise AttachmentError(Problem.NOT_FILE, given)
    relative = ""
    inside = False
    if workspace:
        root = Path(os.path.realpath(workspace))
        if real == root or real.is_relative_to(root):
            inside = True
            relative = real.relative_to(root).as_posix() if real != root else "."
    image = None
    mime = IMAGE_TYPES.get(real.suffix.lower())
    if mime and not is_dir:
        if info.st_size > MAX_IMAGE_BYTES:
            raise AttachmentError(Problem.IMAGE_TOO_LARGE, given, limit=MAX_IMAGE_BYTES)
        try:
            with open(real, "rb") as handle:
                data = handle.read(MAX_IMAGE_BYTES + 1)
        except OSError as exc:
            raise AttachmentError(Problem.UNREADABLE, given, detail=exc.strerror or str(exc)) from None
        if len(data) > MAX_IMAGE_BYTES:  # grew since the stat
            raise AttachmentError(Problem.IMAGE_TOO_LARGE, given, limit=MAX_IMAGE_BYTES)
        image = ImagePart(mime=mime, data=data, name=real.name)
    return Attachment(given=given, real=real, is_dir=is_dir, inside=inside, relative=relative, image=image)


def prompt_with(text: str, attachments: Sequence[AttachmentRef]) -> str:
    """The message text the model receives: the person's text, then one line per attachment
    naming its path (model-visible, so English), so the model can read it with its tools."""
    if not attachments:
        return text
    lines = [text.rstrip(), "", "Attached by the person:"] if text.strip() else ["Attached by the person:"]
    for item in attachments:
        kind = "folder" if item.is_dir else ("image, also sent as an image" if item.is_image else "file")
        where = "in the workspace" if item.inside else "outside the workspace, read access granted"
        # A file name is untrusted: a newline in it must not add a line of its own to the message.
        lines.append(f"- {visible(item.mention, one_line=True)} ({kind}, {where})")
    return "\n".join(lines)


def with_resources(text: str, resources: Sequence[ResourcePart]) -> str:
    """The message text followed by each attached MCP resource's text (model-visible, English),
    fenced so the model can tell where the person's words end and the resource begins."""
    if not resources:
        return text
    parts = [text.rstrip()] if text.strip() else []
    for item in resources:
        kind = item.mime or "text"
        head = f"Attached by the person: MCP resource {visible(item.uri, one_line=True)} " \
               f"(from the server {visible(item.server, one_line=True)}, {kind})"
        if item.text:
            parts.append(f"{head}:\n----- begin resource -----\n{item.text}\n----- end resource -----")
        else:
            parts.append(f"{head}; sent as an image.")
    return "\n\n".join(parts)


def with_attachments_named(message: ChatMessage) -> ChatMessage:
    """``message`` as the model receives it: its attached paths named and its attached MCP
    resources' text after the person's text."""
    if not message.attachments and not message.resources:
        return message
    content = prompt_with(message.content, message.attachments)
    return replace(message, content=with_resources(content, message.resources))

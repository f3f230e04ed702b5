"""A server's resources, as the person browses and attaches them (never offered to the model).

Listing, reading and the caps: a text resource up to ``MAX_TEXT_BYTES``, an image up to the
same 5 MiB as an attached file; a larger one (declared in the listing, or found on reading) and
other binary content are refused with the reason, and nothing is half-attached.
"""

from __future__ import annotations

import base64
import binascii
import enum
from dataclasses import dataclass

import mcp_types as types

from echo_desk.agent.attachments.core import IMAGE_TYPES, MAX_IMAGE_BYTES
from echo_desk.chat_messages import ImagePart, ResourcePart
from echo_desk.i18n import N_, deferred
from echo_desk.mcp.sanitize import strip_hidden

#: What one attached text resource may hold (UTF-8 bytes): it goes into every later request.
MAX_TEXT_BYTES = 1024 * 1024
#: Listings stop after this many entries (a server may list without end).
MAX_LISTED = 2000
_IMAGE_MIMES = frozenset(IMAGE_TYPES.values())


class ResourceProblem(enum.StrEnum):
    TOO_LARGE = "too_large"
    BINARY = "binary"
    EMPTY = "empty"
    UNAVAILABLE = "unavailable"


class ResourceError(Exception):
    """A resource that cannot be attached; ``text`` says why, re-translatable."""

    def __init__(self, problem: ResourceProblem, reason: str, **params: object) -> None:
        self.problem = problem
        self.reason = reason
        self.params = params
        super().__init__(reason.format(**params) if params else reason)

    @property
    def text(self) -> str:
        return deferred(self.reason, **self.params)


@dataclass(frozen=True, kw_only=True)
class ResourceInfo:
    """One listed resource. Names and descriptions are the server's (hidden characters removed;
    the UI shows them as plain visible text)."""

    uri: str
    name: str
    title: str = ""
    description: str = ""
    mime: str = ""
    size: int | None = None


@dataclass(frozen=True, kw_only=True)
class TemplateInfo:
    uri_template: str
    name: str
    title: str = ""
    description: str = ""
    mime: str = ""


@dataclass(frozen=True, kw_only=True)
class ResourceListing:
    server: str
    resources: tuple[ResourceInfo, ...] = ()
    templates: tuple[TemplateInfo, ...] = ()
    #: The server lets a client subscribe to updates of a resource.
    subscribable: bool = False


@dataclass(frozen=True, kw_only=True)
class AttachedResource:
    """What reading a resource for a message gives: its text part, or an image."""

    part: ResourcePart
    image: ImagePart | None = None


def _clean(text: str | None) -> str:
    return strip_hidden(text or "")[0]


def info_of(resource: types.Resource) -> ResourceInfo:
    return ResourceInfo(uri=str(resource.uri), name=_clean(resource.name), title=_clean(resource.title),
                        description=_clean(resource.description)[:2000], mime=resource.mime_type or "",
                        size=resource.size)


def template_of(template: types.ResourceTemplate) -> TemplateInfo:
    return TemplateInfo(uri_template=str(template.uri_template), name=_clean(template.name),
                        title=_clean(template.title), description=_clean(template.description)[:2000],
                        mime=template.mime_type or "")


def check_declared_size(info: ResourceInfo | None) -> None:
    """Refuse before reading when the listing already says the resource is too large."""
    if info is None or info.size is None:
        return
    limit = MAX_IMAGE_BYTES if info.mime in _IMAGE_MIMES else MAX_TEXT_BYTES
    if info.size > limit:
        raise _too_large(info.size, limit)


def _too_large(size: int, limit: int) -> ResourceError:
    return ResourceError(ResourceProblem.TOO_LARGE,
                         N_("the resource is {size} MB, more than the {limit} MB a message may carry; nothing was attached"),
                         size=f"{size / 1e6:.1f}", limit=f"{limit / 1e6:.0f}")


def attachment_from(server: str, uri: str, result: types.ReadResourceResult, name: str = "") -> AttachedResource:
    """The text (or the one image) of a read resource, within the caps; all or nothing."""
    texts: list[str] = []
    image: ImagePart | None = None
    mime = ""
    size = 0
    for content in result.contents:
        if isinstance(content, types.TextResourceContents):
            size += len(content.text.encode("utf-8", errors="replace"))
            if size > MAX_TEXT_BYTES:
                raise _too_large(size, MAX_TEXT_BYTES)
            texts.append(content.text)
            mime = mime or content.mime_type or "text/plain"
            continue
        blob_mime = content.mime_type or "application/octet-stream"
        decoded_size = len(content.blob) * 3 // 4
        if blob_mime not in _IMAGE_MIMES:
            raise ResourceError(ResourceProblem.BINARY,
                                N_("the resource is binary ({mime}); only text and images can be attached"),
                                mime=blob_mime)
        if decoded_size > MAX_IMAGE_BYTES:
            raise _too_large(decoded_size, MAX_IMAGE_BYTES)
        if image is not None or texts:
            raise ResourceError(ResourceProblem.BINARY, N_("the resource mixes several parts; it cannot be attached"))
        try:
            data = base64.b64decode(content.blob, validate=True)
        except (ValueError, binascii.Error):
            raise ResourceError(ResourceProblem.UNAVAILABLE, N_("the server sent an image that is not valid base64")) \
                from None
        image = ImagePart(mime=blob_mime, data=data, name=uri)
        mime = blob_mime
    if image is None and not texts:
        raise ResourceError(ResourceProblem.EMPTY, N_("the server sent nothing for this resource"))
    part = ResourcePart(server=server, uri=uri, mime=mime, text="\n".join(texts), name=_clean(name))
    return AttachedResource(part=part, image=image)

"""``fetch_url``: read a web page or text resource over http(s), bounded in time, size and redirects."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from html.parser import HTMLParser
from typing import Annotated

import httpx
from pydantic import Field

from echo_desk.builtins.arguments import Arguments
from echo_desk.builtins.common import BuiltinTool, bad
from echo_desk.builtins.web.netguard import local_addresses, local_protection
from echo_desk.common.json_text import read_json
from echo_desk.i18n import deferred, for_person
from echo_desk.sandbox.urls import BadUrl, canonical_url
from echo_desk.tools import (
    N_,
    ErrorKind,
    RiskLevel,
    RuleFamily,
    Target,
    ToolError,
    ToolExecutionContext,
    ToolPreview,
    ToolResult,
    ToolRole,
)

MAX_URL = 8192
MAX_BYTES = 5 * 1024 * 1024
MAX_CHARS = 100_000
MAX_REDIRECTS = 5
USER_AGENT = "EchoDesk/1 (+fetch_url tool)"
_TEXT_TYPES = frozenset({"application/json", "application/xml", "application/javascript", "application/x-yaml",
                         "application/yaml", "application/toml"})


def is_text_type(ctype: str) -> bool:
    """Whether a (lower-case, parameter-free) content type is text; no type counts as text."""
    return (not ctype or ctype.startswith("text/") or ctype in _TEXT_TYPES
            or ctype.endswith(("+json", "+xml")))


class _TextExtractor(HTMLParser):
    """Visible text of an HTML page: no scripts/styles, block elements become line breaks."""

    _SKIP = frozenset({"script", "style", "noscript", "template", "svg", "head"})
    _BLOCK = frozenset({"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section",
                        "article", "header", "footer", "pre", "blockquote", "table", "ul", "ol", "title"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title = ""
        self._skip = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in self._SKIP:
            self._skip += 1
        if tag in self._BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in self._SKIP and self._skip:
            self._skip -= 1
        if tag in self._BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._skip:
            self.parts.append(data)

    def text(self) -> str:
        lines = (" ".join(line.split()) for line in "".join(self.parts).splitlines())
        return "\n".join(line for line in lines if line)


def html_to_text(html: str) -> tuple[str, str]:
    """``(title, visible text)`` of an HTML document."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    return " ".join(parser.title.split()), parser.text()


def _port(url: httpx.URL) -> int:
    return url.port or (443 if url.scheme == "https" else 80)


Origin = tuple[str, str, int]


def origin(url: httpx.URL) -> Origin:
    """``(scheme, host, port)``: what an approval of a local address covers."""
    return url.scheme, url.host, _port(url)


def _approved_local_origins(ctx: ToolExecutionContext) -> frozenset[Origin]:
    """The local origins the person saw marked in the approval and allowed, for this call only.

    Exactly the origin shown: approving ``http://localhost:8000`` does not let a redirect reach
    another port (another service) or scheme on the same host."""
    return frozenset(origin(httpx.URL(t.value)) for t in ctx.approved_protected_targets("url"))


def check_url(raw: str) -> str:
    """The URL as it will be sent: the canonical form the fetch rules matched
    (``sandbox.urls``), refused when it has no one clear reading or httpx would send it otherwise."""
    try:
        sent = canonical_url(raw)
    except BadUrl as exc:
        raise bad(for_person(f"{exc}; not fetched", N_("{url} cannot be fetched: {error}"),
                             url=raw, error=str(exc))) from None
    parsed = httpx.URL(sent.text)
    read_back = (parsed.scheme, parsed.raw_host.decode("ascii"), parsed.port, parsed.raw_path.decode("ascii"),
                 parsed.userinfo.decode("ascii"))
    if read_back != (sent.scheme, sent.host, sent.port, sent.target, sent.userinfo):
        raise bad(for_person(
            f"{sent.text} would not be sent as written (the HTTP client reads it as {parsed}); not fetched",
            N_("{url} would not be sent as written (it reads as {parsed}); not fetched."),
            url=sent.text, parsed=str(parsed)))
    return sent.text


class FetchArguments(Arguments):
    url: Annotated[str, Field(min_length=1, max_length=MAX_URL, description="An http:// or https:// URL.")]
    timeout_seconds: Annotated[int, Field(ge=1, le=60)] = 20


class FetchUrl(BuiltinTool[FetchArguments]):
    name = "fetch_url"
    role = ToolRole.LOOK
    description = (
        "Fetch an http(s) URL and return its content as text: HTML is reduced to its visible text, "
        "JSON is pretty-printed, other text is returned as is. Binary content is refused. "
        f"At most {MAX_BYTES // (1024 * 1024)} MB are downloaded and {MAX_REDIRECTS} redirects followed. "
        "Addresses on this computer or its local network are fetched only if the person approves the call."
    )
    arguments = FetchArguments
    risk_level = RiskLevel.READ
    rule_family = RuleFamily.FETCH
    timeout_seconds = 75.0
    idempotent = True
    max_retries = 1
    capabilities = frozenset({"web"})
    title = N_("Fetch web page")
    catalog_description = N_(
        "Downloads a web page and gives the agent its text. Addresses on this computer or your local "
        "network are fetched only after you approve."
    )

    def __init__(self, *, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self._transport = transport

    async def preview_parsed(self, args: FetchArguments, ctx: ToolExecutionContext) -> ToolPreview:
        url = check_url(args.url)
        parsed = httpx.URL(url)
        local = await local_addresses(parsed.host, _port(parsed))
        protections = (local_protection(parsed.host, local),) if local else ()
        return ToolPreview(
            targets=(Target(kind="url", value=url, protections=protections),), summary=deferred(N_("Fetch {url}"), url=url)
        )

    async def execute_parsed(self, args: FetchArguments, ctx: ToolExecutionContext) -> ToolResult:
        url = check_url(args.url)
        timeout = args.timeout_seconds
        allowed_local = _approved_local_origins(ctx)

        async def refuse_unapproved_local(request: httpx.Request) -> None:
            # Every request, redirects included: a public page may redirect inside.
            if request.url.scheme not in ("http", "https"):
                raise ToolError(for_person(f"a redirect led to an unsupported URL: {request.url}",
                                           N_("A redirect led to an unsupported address: {url}"), url=str(request.url)),
                                kind=ErrorKind.BUSINESS)
            local = await local_addresses(request.url.host, _port(request.url))
            if local and origin(request.url) not in allowed_local:
                scheme, host, port = origin(request.url)
                raise ToolError(for_person(
                    f"not fetched: {host} is this computer or its local network ({', '.join(local)}); "
                    f"fetch_url goes to {scheme}://{host}:{port} only when the person approves that very "
                    "call, which shows that exact origin (scheme, host and port)",
                    N_("Not fetched: {host} is this computer or its local network ({addresses}); Echo Desk goes to "
                       "{origin} only when you approve that very call."),
                    host=host, addresses=tuple(local), origin=f"{scheme}://{host}:{port}"),
                    kind=ErrorKind.BUSINESS,
                )

        try:
            # httpx's timeout bounds each read, not the whole download: a server sending one
            # byte a second would never trip it. The tool's timeout is a deadline for it all.
            async with asyncio.timeout(timeout):
                return await self._fetch(url, ctx, timeout, refuse_unapproved_local)
        except TimeoutError as exc:
            raise ToolError(for_person(f"{url} was not fetched within {timeout} s; stopped",
                                       N_("{url} was not fetched within {seconds} s; stopped."),
                                       url=url, seconds=timeout), kind=ErrorKind.TIMEOUT) from exc

    async def _fetch(self, url: str, ctx: ToolExecutionContext, timeout: int,
                     refuse_unapproved_local: Callable[[httpx.Request], Awaitable[None]]) -> ToolResult:
        try:
            async with httpx.AsyncClient(
                follow_redirects=True, max_redirects=MAX_REDIRECTS, timeout=timeout,
                headers={"User-Agent": USER_AGENT}, transport=self._transport, trust_env=False,
                event_hooks={"request": [refuse_unapproved_local]},
            ) as client, client.stream("GET", url) as response:
                ctype = response.headers.get("content-type", "").split(";")[0].strip().lower()
                if response.status_code >= 400:
                    kind = ErrorKind.DEPENDENCY if response.status_code >= 500 else ErrorKind.BUSINESS
                    raise ToolError(for_person(
                        f"{response.url} answered HTTP {response.status_code} {response.reason_phrase}",
                        N_("{url} answered with the HTTP error {status}."),
                        url=str(response.url), status=response.status_code), kind=kind)
                if not is_text_type(ctype):
                    raise ToolError(for_person(f"{response.url} is {ctype}, not text; fetch_url only returns text",
                                               N_("{url} is {type}, not text; only text is fetched."),
                                               url=str(response.url), type=ctype), kind=ErrorKind.BUSINESS)
                body = bytearray()
                async for chunk in response.aiter_bytes():
                    body += chunk
                    ctx.check_cancelled()
                    if len(body) > MAX_BYTES:
                        raise ToolError(for_person(f"{response.url} is larger than {MAX_BYTES} bytes; not downloaded",
                                                   N_("{url} is larger than {limit} bytes; not downloaded."),
                                                   url=str(response.url), limit=MAX_BYTES), kind=ErrorKind.BUSINESS)
                final_url = str(response.url)
                encoding = response.charset_encoding or ("utf-8" if "json" in ctype else None)
                status = response.status_code
        except httpx.TooManyRedirects as exc:
            raise ToolError(for_person(f"more than {MAX_REDIRECTS} redirects from {url}",
                                       N_("More than {limit} redirects from {url}."), limit=MAX_REDIRECTS, url=url),
                            kind=ErrorKind.BUSINESS) from exc
        except httpx.UnsupportedProtocol as exc:
            raise ToolError(for_person(f"a redirect led to an unsupported URL: {exc}",
                                       N_("A redirect led to an unsupported address: {url}"), url=str(exc)),
                            kind=ErrorKind.BUSINESS) from exc
        except httpx.TimeoutException as exc:
            raise ToolError(for_person(f"{url} did not answer within {timeout} s",
                                       N_("{url} did not answer within {seconds} s."), url=url, seconds=timeout),
                            kind=ErrorKind.TIMEOUT) from exc
        except httpx.HTTPError as exc:
            raise ToolError(for_person(f"could not fetch {url}: {exc}", N_("Could not fetch {url}: {error}"),
                                       url=url, error=str(exc)), kind=ErrorKind.DEPENDENCY) from exc
        text = bytes(body).decode(encoding or "utf-8", "replace")
        title = ""
        if "html" in ctype:
            title, text = html_to_text(text)
        elif "json" in ctype:
            try:
                text = json.dumps(read_json(text), indent=2, ensure_ascii=False)
            except ValueError:
                pass
        cut = len(text) > MAX_CHARS
        text = text[:MAX_CHARS] + (f"\n[truncated at {MAX_CHARS} characters]" if cut else "")
        header = f"[{final_url} — HTTP {status} — {ctype or 'unknown type'}" + (f" — {title}" if title else "") + "]"
        return ToolResult.ok(f"{header}\n{text}", metadata={"url": final_url, "status": status,
                                                            "content_type": ctype, "truncated": cut})

"""The person's browser, driven by an HTTP client: open the authorization URL, approve on the
consent page, follow the redirect to Echo Desk's loopback listener. Runs on its own thread, as
a real browser does not share Echo Desk's event loop."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from urllib.parse import urljoin

import httpx


@dataclass
class Browser:
    #: "approve" | "deny"; ``tamper`` rewrites the final redirect (a forged or replayed answer).
    decision: str = "approve"
    tamper: dict[str, str] = field(default_factory=dict)
    opened: list[str] = field(default_factory=list)
    visited: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    threads: list[threading.Thread] = field(default_factory=list)

    async def open(self, url: str) -> None:
        self.start(url)

    def start(self, url: str) -> None:
        self.opened.append(url)
        thread = threading.Thread(target=self._browse, args=(url,), daemon=True)
        self.threads.append(thread)
        thread.start()

    def _browse(self, url: str) -> None:
        try:
            with httpx.Client(follow_redirects=False, timeout=10) as http:
                response = http.get(url)
                for _ in range(10):
                    self.visited.append(str(response.url))
                    if response.is_redirect:
                        target = urljoin(str(response.url), response.headers["location"])
                        for key, value in self.tamper.items():
                            target = re.sub(rf"([?&]{key}=)[^&]*", rf"\g<1>{value}", target)
                        response = http.get(target)
                        continue
                    form = re.search(r'<form method="post"( action="([^"]*)")?[^>]*>(.*)</form>', response.text, re.S)
                    if form is None:
                        return
                    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', form.group(3)))
                    fields["decision"] = self.decision
                    response = http.post(urljoin(str(response.url), form.group(2) or ""), data=fields)
        except Exception as exc:
            self.errors.append(f"{type(exc).__name__}: {exc}")

    def join(self) -> None:
        for thread in self.threads:
            thread.join(15)

"""Load a local HTML file in Debian's headless Chromium, network disabled, and report what it did.

:func:`load_page` starts ``/usr/bin/chromium`` headless (``--headless --no-sandbox --disable-gpu
--disable-quic --no-first-run --disable-background-networking --disable-component-update
--disable-sync``, a fresh ``--user-data-dir``) and drives it over the DevTools protocol on a pipe
(``--remote-debugging-pipe``: no port is opened). In one page load it records:

* every request the page starts (``Network.requestWillBeSent``: documents, images, fonts, styles,
  scripts, prefetches, whatever their scheme), and every message the page logs (``Log.entryAdded``,
  ``Runtime.consoleAPICalled``: a Content-Security-Policy refusal is one of those), so a reference the
  page's policy blocks before it becomes a request is caught too;
* the rendered DOM after the load event (what ``--dump-dom`` prints), a PNG of the first screen (what
  ``--screenshot`` writes) and, when asked, the page printed to PDF.

Why this and not a proxy that records connections: the browser's own traffic (there is little left
with the flags above, but it is not the page's) would be blamed on the page, and a request the
page's policy refused would never reach a proxy, so a page that tries to fetch would pass. Here each
event belongs to the page's own target. Nothing can leave anyway: the page's network is emulated
offline, every host name resolves to nothing (``--host-resolver-rules``) and the proxy is a closed
local port. A request to the page's own ``file://`` URL (the document itself) and to ``data:`` URIs
is not a request that left the page; every other one is listed in :attr:`PageLoad.requests`.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["CHROMIUM", "FLAGS", "BrowserError", "PageLoad", "chromium_missing", "load_page"]

CHROMIUM = "/usr/bin/chromium"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
         "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
         "--host-resolver-rules=MAP * ~NOTFOUND")
"""The flags of every launch (the brief's list, then no extensions and a network that leads nowhere)."""


class BrowserError(RuntimeError):
    """Chromium did not start, answer or load the page in time."""


@dataclass
class PageLoad:
    """What one load of a page did."""

    url: str
    dom: str
    screenshot: bytes
    requests: list[str] = field(default_factory=list)
    """URLs the page requested beyond itself and ``data:`` URIs (empty for a self-contained page)."""
    console: list[str] = field(default_factory=list)
    """Every message the page logged (a CSP refusal among them)."""
    pdf: bytes | None = None

    @property
    def refused(self) -> list[str]:
        """The logged messages that say a load was refused or blocked."""
        return [m for m in self.console if "Refused to" in m or "Content Security Policy" in m or "blocked" in m]


def chromium_missing() -> str | None:
    """Why the browser tests cannot run here (one line), or None when ``/usr/bin/chromium`` is there."""
    if not os.access(CHROMIUM, os.X_OK):
        return (f"{CHROMIUM} not found: install Debian's chromium (scripts/install-system-data.sh does where apt "
                "works) to run the browser tests")
    return None


class _Pipe:
    """The DevTools protocol over ``--remote-debugging-pipe``: JSON messages ended by NUL, on fds 3 and 4."""

    def __init__(self, process: subprocess.Popen[bytes], write_fd: int, read_fd: int, deadline: float) -> None:
        self.process, self.write_fd, self.read_fd, self.deadline = process, write_fd, read_fd, deadline
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.write_fd, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str) -> dict[str, Any]:
        for i, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(i)
        while True:
            event = self._read()
            if event.get("method") == method:
                return event
            self.events.append(event)

    def drain(self, seconds: float) -> None:
        """Keep the events that arrive within ``seconds`` (late requests of the page)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([self.read_fd], [], [], max(end - time.monotonic(), 0))
            if not ready:
                return
            self.events.append(self._read())

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self.buffer:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("chromium did not answer in time")
            ready, _, _ = select.select([self.read_fd], [], [], left)
            if not ready:
                continue
            piece = os.read(self.read_fd, 1 << 20)
            if not piece:
                raise BrowserError(f"chromium closed the pipe (exit status {self.process.poll()})")
            self.buffer += piece
        message, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(message)


def _start(profile: str) -> tuple[subprocess.Popen[bytes], int, int]:
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()

    def wire() -> None:  # in the child: the pipe ends on the fds Chromium reads (3) and writes (4)
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_browser_r, from_browser_w)]  # clear of 3 and 4
        os.dup2(high[0], 3)
        os.dup2(high[1], 4)

    process = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe",
                                "about:blank"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, preexec_fn=wire, close_fds=False)
    os.close(to_browser_r)
    os.close(from_browser_w)
    return process, to_browser_w, from_browser_r


def _outside(url: str, page: str) -> bool:
    """Whether a request for ``url`` left the page (its own document and ``data:`` URIs do not)."""
    return not (url == page or url.startswith("data:"))


def load_page(path: str | os.PathLike[str], width: int = 1280, height: int = 1000, pdf: bool = False,
              media: str | None = None, timeout: float = 60.0) -> PageLoad:
    """Load the local file ``path`` once, offline, and return its DOM, first screen and requests.

    ``media="print"`` renders the page as printed (its ``@media print`` style) for the screenshot.
    """
    if chromium_missing():
        raise BrowserError(chromium_missing())
    url = Path(path).resolve().as_uri()
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    process, write_fd, read_fd = _start(profile)
    try:
        cdp = _Pipe(process, write_fd, read_fd, time.monotonic() + timeout)
        target = cdp.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for method in ("Network.enable", "Page.enable", "Log.enable", "Runtime.enable"):
            cdp.send(method, session=session)
        cdp.send("Network.emulateNetworkConditions", {"offline": True, "latency": 0, "downloadThroughput": -1,
                                                      "uploadThroughput": -1}, session=session)
        cdp.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                        "mobile": False}, session=session)
        if media:
            cdp.send("Emulation.setEmulatedMedia", {"media": media}, session=session)
        cdp.send("Page.navigate", {"url": url}, session=session)
        cdp.wait_for("Page.loadEventFired")
        cdp.drain(0.5)
        dom = cdp.send("Runtime.evaluate", {"expression": "document.documentElement.outerHTML",
                                            "returnByValue": True}, session=session)["result"]["value"]
        shot = base64.b64decode(cdp.send("Page.captureScreenshot", {"format": "png"}, session=session)["data"])
        printed = None
        if pdf:
            printed = base64.b64decode(cdp.send("Page.printToPDF", {}, session=session)["data"])
        load = PageLoad(url, "<!DOCTYPE html>\n" + dom, shot, pdf=printed)
        for event in cdp.events:
            if event.get("sessionId") != session:
                continue
            params = event.get("params", {})
            if event.get("method") == "Network.requestWillBeSent" and _outside(params["request"]["url"], url):
                load.requests.append(params["request"]["url"])
            elif event.get("method") == "Log.entryAdded":
                load.console.append(f"{params['entry'].get('source')}: {params['entry'].get('text')}")
            elif event.get("method") == "Runtime.consoleAPICalled":
                load.console.append(" ".join(str(a.get("value", "")) for a in params.get("args", [])))
        with contextlib.suppress(BrowserError, OSError):
            cdp.send("Browser.close")
        return load
    finally:
        for fd in (write_fd, read_fd):
            with contextlib.suppress(OSError):
                os.close(fd)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(profile, ignore_errors=True)

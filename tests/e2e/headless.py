"""A real headless browser for report.html: Chromium from Debian (bindep's twin profile), driven over the DevTools
protocol on a pipe (--remote-debugging-pipe: no port, no extra package). The tests ask it what a person would see:
an element's laid-out box and computed colour. Run alone, it keeps a screenshot:

    .venv/bin/python tests/e2e/headless.py reports/<run>/report.html docs/images/report-html.png [scale]
"""

import base64
import fcntl
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
DEADLINE = 60  # seconds a reply may take: a stuck Chromium fails the test, it never hangs the suite


def executable():
    return next((found for found in map(shutil.which, BROWSERS) if found), None)


class Browser:
    """One Chromium, one page. ``evaluate`` returns a JavaScript expression's value from the loaded page. Use it as a
    context manager, or call close(): the process, its pipes and its profile go with it."""

    def __init__(self, width=1400, height=900):
        path = executable()
        if not path:
            raise RuntimeError("no Chromium: `make setup` installs Debian's chromium (bindep.txt, profile twin)")
        self._profile = tempfile.mkdtemp(prefix="pyramid-chromium-")
        self._stderr = tempfile.TemporaryFile()
        self._process, self._commands, self._replies = None, None, None
        self._buffer, self._next_id, self._events, self._session = b"", 0, [], None
        try:
            self._start(path, width, height)
        except BaseException:
            self.close()
            raise

    def _start(self, path, width, height):
        commands_read, self._commands = os.pipe()
        self._replies, replies_write = os.pipe()

        def as_fds_3_and_4():  # the DevTools pipe: Chromium reads commands on fd 3 and answers on fd 4
            # above 9 first (close-on-exec: only 3 and 4 reach Chromium): a pipe already on fd 3 or 4 would be
            # overwritten, or kept close-on-exec by a dup2 onto itself
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (commands_read, replies_write)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        try:
            # pylint: disable-next=subprocess-popen-preexec-fn
            self._process = subprocess.Popen(  # noqa: S603
                [path, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--no-first-run",
                 "--user-data-dir=" + self._profile, "--window-size=%d,%d" % (width, height), "about:blank"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._stderr, preexec_fn=as_fds_3_and_4,
                close_fds=False,  # fds 3 and 4 stay open; every other fd of ours is close-on-exec (PEP 446)
                start_new_session=True)  # its own process group: close() ends the renderers and the zygote with it
        finally:
            os.close(commands_read)
            os.close(replies_write)
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.send("Page.enable", session=True)
        self.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                  session=True)

    def __enter__(self):
        return self

    def __exit__(self, *_exc):
        self.close()

    def _said(self):
        """The end of what Chromium wrote on stderr (read at an offset: the file position is shared with Chromium)."""
        size = os.fstat(self._stderr.fileno()).st_size
        return os.pread(self._stderr.fileno(), 2000, max(0, size - 2000)).decode("utf-8", "replace")

    def _message(self, deadline):
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._replies], [], [], left)[0]:
                raise RuntimeError("Chromium gave no answer within %ds; it said: %s" % (DEADLINE, self._said()))
            chunk = os.read(self._replies, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe; it said: %s" % self._said())
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def send(self, method, params=None, session=False):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self._session
        try:
            os.write(self._commands, json.dumps(message).encode() + b"\0")
        except OSError as exc:
            raise RuntimeError("Chromium took no command (%s); it said: %s" % (exc, self._said())) from exc
        deadline = time.monotonic() + DEADLINE
        while True:
            reply = self._message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply["result"]
            self._events.append(reply)

    def open(self, path):
        url = "file://" + os.path.abspath(path)
        self._events = []
        self.send("Page.navigate", {"url": url}, session=True)
        deadline = time.monotonic() + DEADLINE
        while not any(event.get("method") == "Page.loadEventFired" for event in self._events):
            self._events.append(self._message(deadline))
        loaded = self.evaluate("[document.URL, document.readyState]")
        if loaded != [url, "complete"]:  # a load event of the page before: never a test of the wrong page
            raise RuntimeError("Chromium shows %s, not %s loaded" % (loaded, url))

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=True)
        if "exceptionDetails" in result:
            raise RuntimeError("%s: %s" % (expression, result["exceptionDetails"]))
        return result["result"].get("value")

    def screenshot(self, path, top=0, height=None, scale=1):
        """The whole page (or ``height`` pixels of it from ``top``) as PNG, ``scale`` times its size."""
        size = self.send("Page.getLayoutMetrics", session=True)["cssContentSize"]
        clip = {"x": 0, "y": top, "width": size["width"], "height": min(size["height"] - top, height or size["height"]),
                "scale": scale}
        shot = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip}, session=True)
        with open(path, "wb") as handle:
            handle.write(base64.b64decode(shot["data"]))

    def close(self):
        if self._process is not None:
            try:
                self.send("Browser.close")
            except (RuntimeError, OSError):
                pass
            try:
                self._process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                pass
            try:
                os.killpg(self._process.pid, signal.SIGKILL)  # whatever of its group is left (renderers, zygote)
            except ProcessLookupError:
                pass
            self._process.wait()
            self._process = None
        for fd in (self._commands, self._replies):
            if fd is not None:
                os.close(fd)
        self._commands = self._replies = None
        self._stderr.close()
        shutil.rmtree(self._profile, ignore_errors=True)


if __name__ == "__main__":
    with Browser() as browser:
        browser.open(sys.argv[1])
        browser.screenshot(sys.argv[2], scale=float(sys.argv[3]) if len(sys.argv) > 3 else 1)

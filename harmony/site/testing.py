"""Helpers the site's tests share: one build of the shipped rules_data per test session,
and a static HTTP server for the built site."""
from __future__ import annotations

import atexit
import functools
import http.server
import shutil
import tempfile
import threading
from pathlib import Path

from ..usage import default_rules_data
from .build import BuildResult, build_site


@functools.cache
def shipped_site() -> BuildResult:
    """The site of the shipped rules_data, built once per process into a temporary folder."""
    root = Path(tempfile.mkdtemp(prefix="harmony-site-"))
    atexit.register(shutil.rmtree, root, True)
    return build_site(default_rules_data(), root / "site")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


class StaticServer:
    """``with StaticServer(folder) as url:`` serves ``folder`` on 127.0.0.1, a random port."""

    def __init__(self, folder: Path):
        handler = functools.partial(_Quiet, directory=str(folder))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

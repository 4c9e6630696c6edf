"""Helpers the site's tests share: one build of the shipped rules_data per test run, and a
static HTTP server for the built site."""
from __future__ import annotations

import atexit
import functools
import http.server
import shutil
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from .build import BuildResult

#: ``share(name, make)``: what ``make(folder)`` returned, made once in ``folder`` for every
#: process of a test run. The tests' conftest sets it when pytest-xdist runs them in several
#: processes, which then share one build of the site; None: one build per process.
share: Callable[[str, Callable[[Path], Any]], Any] | None = None


@functools.cache
def shipped_site() -> BuildResult:
    """The site of the shipped rules_data, built once per test run (see :data:`share`), else
    once per process into a temporary folder. Tests read it; a test that changes a site
    changes a copy."""
    from ..usage import default_rules_data
    from .build import build_site
    if share is not None:
        return share("shipped-site", lambda folder: build_site(default_rules_data(), folder / "site"))
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

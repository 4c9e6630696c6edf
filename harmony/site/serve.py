"""``harmony serve``: a live preview on 127.0.0.1 that rebuilds when the sources change.

The server polls content hashes (not times) of the rules_data folder, the
hand-written pages and the templates; when one changes it rebuilds the site
incrementally and serves the new pages. When a rebuild fails, the last good
site stays up and every page carries a banner with the problems (file, line,
column, message) until a rebuild succeeds; each page asks the server for the
build state every second and reloads itself when it changes. Only the built
site is served: no folder listings, and the build cache lives outside it.
"""
from __future__ import annotations

import functools
import hashlib
import html
import http.server
import json
import sys
import threading
from pathlib import Path

from . import generate
from ..trust import Trust
from .build import BuildError, build_site


def watched_files(rules: Path) -> list[Path]:
    roots = [rules, generate.SITE, generate.TEMPLATES]
    files: list[Path] = []
    for root in roots:
        if root.is_file():
            files.append(root)
        elif root.is_dir():
            files += [p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    return sorted(set(files))


def fingerprint(rules: Path) -> str:
    """One hash of the names and bytes of every watched file."""
    h = hashlib.sha256()
    for p in watched_files(rules):
        h.update(str(p).encode() + b"\0")
        try:
            h.update(hashlib.sha256(p.read_bytes()).digest())
        except OSError:
            h.update(b"?")
    return h.hexdigest()


STATUS_PATH = "/.harmony-serve/status"


class BuildState:
    """What the pages show: the number of the last build and its problems, if it failed."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.generation = 0
        self.problems: list[str] = []

    def set(self, problems: list[str]) -> None:
        with self.lock:
            self.generation += 1
            self.problems = list(problems)

    def as_json(self) -> bytes:
        with self.lock:
            return json.dumps({"generation": self.generation, "problems": self.problems}).encode()

    def banner(self) -> str:
        """The HTML put at the top of every page while the last rebuild failed, and the
        script that reloads the page when the build state changes.

        >>> s = BuildState(); s.set(["r/a.yaml:3:5: error: bad <value> [x]"])
        >>> "r/a.yaml:3:5: error: bad &lt;value&gt; [x]" in s.banner()
        True
        """
        with self.lock:
            generation, problems = self.generation, list(self.problems)
        script = ("<script>(function(){var g=%d;setInterval(function(){fetch('%s',{cache:'no-store'})"
                  ".then(function(r){return r.json()}).then(function(s){if(s.generation!==g)"
                  "location.reload()}).catch(function(){})},1000)})();</script>"
                  % (generation, STATUS_PATH))
        if not problems:
            return script
        items = "".join(f"<li><code>{html.escape(p)}</code></li>" for p in problems[:50])
        more = f"<li>... and {len(problems) - 50} more</li>" if len(problems) > 50 else ""
        return ('<div id="harmony-serve-error" role="alert" style="position:sticky;top:0;z-index:9999;'
                'background:#fde8e8;color:#611;border-bottom:3px solid #b00;padding:.6em 1em;'
                'font:14px/1.4 sans-serif;max-height:40vh;overflow:auto;overflow-wrap:anywhere">'
                "<strong>The last rebuild failed; this is the last good site.</strong> "
                f"Fix these and save:<ul style=\"margin:.3em 0 0 1.2em;padding:0\">{items}{more}</ul>"
                "</div>" + script)


class _Handler(http.server.SimpleHTTPRequestHandler):
    state: BuildState

    def log_message(self, format, *args):  # quiet: the console shows rebuilds
        pass

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def list_directory(self, path):
        self.send_error(404, "No such page")
        return None

    def do_GET(self):
        if self.path.split("?", 1)[0] == STATUS_PATH:
            return self._send(self.state.as_json(), "application/json")
        target = Path(self.translate_path(self.path))
        if target.is_dir():
            target = target / "index.html"
        if target.suffix == ".html" and target.is_file():
            page = target.read_bytes()
            insert = self.state.banner().encode("utf-8")
            at = page.find(b">", page.find(b"<body")) + 1 if b"<body" in page else 0
            return self._send(page[:at] + insert + page[at:], "text/html; charset=utf-8")
        return super().do_GET()

    def _send(self, body: bytes, ctype: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _Server(http.server.ThreadingHTTPServer):
    #: the standard library's queue of 5 makes a burst of requests wait for a retry
    request_queue_size = 512
    daemon_threads = True


def rebuild(rules: Path, out: Path, out_stream=sys.stdout, err=sys.stderr,
            state: BuildState | None = None, trust: Trust | None = None) -> bool:
    try:
        res = build_site(rules, out, trust=trust)
    except BuildError as e:
        problems = [str(d) for d in e.report.sorted()] if e.report is not None else []
        for d in problems:
            print(d, file=err)
        print(f"harmony serve: {e}; still serving the last good site", file=err, flush=True)
        if state is not None:
            state.set(problems or [str(e)])
        return False
    for w in res.warnings:
        print(w, file=err)
    print(f"built {len(res.written)} page(s) in {res.seconds:.1f}s", file=out_stream, flush=True)
    if state is not None:
        state.set([])
    return True


def serve(rules: Path, out: Path, port: int = 8000, interval: float = 0.5,
          stop: threading.Event | None = None, trust: Trust | None = None) -> int:
    """Build, serve ``out`` on 127.0.0.1:``port`` and rebuild on change until ``stop`` is set
    (or Ctrl-C); ``trust``: whether the clause examples may run (:mod:`harmony.trust`)."""
    stop = stop or threading.Event()
    # Taken before the first build, so an edit made while it runs (or just
    # after) is seen as a change and rebuilt, never missed.
    seen = fingerprint(rules)
    state = BuildState()
    if not rebuild(rules, out, state=state, trust=trust) and not (out / "index.html").is_file():
        return 1
    handler = type("Handler", (_Handler,), {"state": state})
    server = _Server(("127.0.0.1", port), functools.partial(handler, directory=str(out)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    print(f"serving http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)", flush=True)
    try:
        while not stop.wait(interval):
            now = fingerprint(rules)
            if now != seen:
                seen = now
                rebuild(rules, out, state=state, trust=trust)
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        server.server_close()
    return 0

"""``harmony serve``: a live preview on 127.0.0.1 that rebuilds when the sources change.

The server polls content hashes (not times) of the rules_data folder, the
hand-written pages and the templates; when one changes it rebuilds the site
incrementally and serves the new pages. Errors in the rules are printed and
the last good site stays up.
"""
from __future__ import annotations

import functools
import hashlib
import http.server
import sys
import threading
import time
from pathlib import Path

from . import generate
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


class _Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # quiet: the console shows rebuilds
        pass

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


def rebuild(rules: Path, out: Path, out_stream=sys.stdout, err=sys.stderr) -> bool:
    try:
        res = build_site(rules, out)
    except BuildError as e:
        if e.report is not None:
            for d in e.report.sorted():
                print(d, file=err)
        print(f"harmony serve: {e}; still serving the last good site", file=err, flush=True)
        return False
    for w in res.warnings:
        print(w, file=err)
    print(f"built {len(res.written)} page(s) in {res.seconds:.1f}s", file=out_stream, flush=True)
    return True


def serve(rules: Path, out: Path, port: int = 8000, interval: float = 0.5,
          stop: threading.Event | None = None) -> int:
    """Build, serve ``out`` on 127.0.0.1:``port`` and rebuild on change until ``stop`` is set
    (or Ctrl-C)."""
    stop = stop or threading.Event()
    # Taken before the first build, so an edit made while it runs (or just
    # after) is seen as a change and rebuilt, never missed.
    seen = fingerprint(rules)
    if not rebuild(rules, out) and not (out / "index.html").is_file():
        return 1
    handler = functools.partial(_Handler, directory=str(out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    print(f"serving http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)", flush=True)
    try:
        while not stop.wait(interval):
            now = fingerprint(rules)
            if now != seen:
                seen = now
                rebuild(rules, out)
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        server.server_close()
    return 0

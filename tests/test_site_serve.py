"""``harmony serve``: start it, fetch a page over HTTP, edit a file, see the change, stop it."""
from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request

import pytest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode("utf-8")


class Server:
    """A running ``harmony serve``: its process and the address it serves."""

    def __init__(self, proc: subprocess.Popen, url: str, errors):
        self.proc, self.url, self.errors = proc, url, errors


@contextlib.contextmanager
def serving(rules: Path, tmp_path: Path, start_within: float = 120):
    """Start ``harmony serve`` on a free port, yield it once it says where it serves, and
    stop it with Ctrl-C (SIGINT) at the end; its stderr goes to ``tmp_path/serve.err``."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    errors = open(tmp_path / "serve.err", "w+", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "harmony", "serve", str(rules), "--port", "0",
                             "--out", str(tmp_path / "out")], stdout=subprocess.PIPE,
                            stderr=errors, text=True, cwd=tmp_path, env=env)
    try:
        url = None
        deadline = time.monotonic() + start_within
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline() if proc.stdout else ""
            if not line and proc.poll() is not None:
                break
            m = re.search(r"serving (http://127\.0\.0\.1:\d+/)", line)
            if m:
                url = m.group(1)
        assert url, "harmony serve did not start"
        yield Server(proc, url, errors)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:  # pragma: no cover
            proc.kill()
            proc.wait()
        errors.close()


def test_serve_rebuilds_when_a_rules_file_changes(tmp_path, rules_copy):
    rules = rules_copy
    with serving(rules, tmp_path) as server:
        url = server.url
        assert "The PanzerBlitz rules harmony" in fetch(url)
        assert "Spotting" in fetch(url + "topics/spotting.html")

        topics = rules / "topics.yaml"
        text = topics.read_text("utf-8")
        assert "title: Spotting\n" in text
        topics.write_text(text.replace("title: Spotting\n", "title: Spotting (edited live)\n", 1),
                          encoding="utf-8")
        deadline = time.monotonic() + 90
        seen = False
        while time.monotonic() < deadline and not seen:
            time.sleep(0.5)
            seen = "Spotting (edited live)" in fetch(url + "topics/spotting.html")
        server.errors.flush()
        assert seen, ("the edit never showed up; the server said:\n"
                      + (tmp_path / "serve.err").read_text("utf-8"))
    assert server.proc.returncode == 0


def test_serve_shows_a_failed_rebuild_on_every_page_holds_a_burst_and_lists_no_folder(tmp_path, rules_copy):
    import json
    import urllib.error
    from concurrent.futures import ThreadPoolExecutor

    rules = rules_copy
    with serving(rules, tmp_path) as server:
        url = server.url
        page = url + "topics/spotting.html"
        assert "harmony-serve-error" not in fetch(page)
        first = json.loads(fetch(url + ".harmony-serve/status"))
        assert first["problems"] == []

        # a burst of 200 requests at once: every one answered within fetch's own timeout
        with ThreadPoolExecutor(max_workers=200) as pool:
            bodies = list(pool.map(lambda _i: fetch(url + "index.html"), range(200)))
        assert all("The PanzerBlitz rules harmony" in b for b in bodies)

        # no folder listing, and nothing of the cache
        for path in ("_static/", "_sources/", ".harmony-cache/", ".site.harmony-cache/"):
            with pytest.raises(urllib.error.HTTPError) as e:
                fetch(url + path)
            assert e.value.code == 404
        assert "The PanzerBlitz rules harmony" in fetch(url + "../")   # never above the site

        # break a file: the banner names it, with line and column, on every page
        topics = rules / "topics.yaml"
        good = topics.read_text("utf-8")
        topics.write_text(good.replace("title: Spotting\n", "title: [Spotting\n", 1), encoding="utf-8")
        deadline = time.monotonic() + 120
        status = first
        while time.monotonic() < deadline and not status["problems"]:
            time.sleep(0.5)
            status = json.loads(fetch(url + ".harmony-serve/status"))
        assert status["problems"], "the failed rebuild never showed"
        assert re.search(r"topics\.yaml:\d+:\d+: error: ", status["problems"][0])
        for p in (page, url, url + "glossary.html"):
            shown = fetch(p)
            assert 'id="harmony-serve-error"' in shown and "topics.yaml:" in shown

        # fix it: the banner goes
        topics.write_text(good, encoding="utf-8")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and status["problems"]:
            time.sleep(0.5)
            status = json.loads(fetch(url + ".harmony-serve/status"))
        assert not status["problems"]
        assert "harmony-serve-error" not in fetch(page)

"""``harmony serve``: start it, fetch a page over HTTP, edit a file, see the change, stop it;
and it holds against a flood of idle connections, bad request paths, browsers that hang up,
and a port already taken. Every connection goes to 127.0.0.1 only."""
from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import struct
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
def serving(rules: Path, tmp_path: Path, start_within: float = 120, env_extra: dict | None = None,
            open_files: int | None = None):
    """Start ``harmony serve`` on a free port, yield it once it says where it serves, and
    stop it with Ctrl-C (SIGINT) at the end; its stderr goes to ``tmp_path/serve.err``.
    ``open_files`` sets the server's limit of open files (its soft RLIMIT_NOFILE)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1", **(env_extra or {}))
    errors = open(tmp_path / "serve.err", "w+", encoding="utf-8")

    def limit() -> None:                 # in the child, before harmony starts
        if open_files is not None:
            import resource
            hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
            resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, hard))
    proc = subprocess.Popen([sys.executable, "-m", "harmony", "serve", str(rules), "--port", "0",
                             "--out", str(tmp_path / "out")], stdout=subprocess.PIPE,
                            stderr=errors, text=True, cwd=tmp_path, env=env,
                            preexec_fn=limit if open_files is not None else None)
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
        assert 'id="harmony-serve-error"' not in fetch(page)
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
        assert 'id="harmony-serve-error"' not in fetch(page)


# ---------------------------------------------------------------- safe to leave running

#: the site of a starter harmony is enough here, built without the explorer's bundle (quicker)
NO_BUNDLE = {"HARMONY_PYODIDE": ""}


@pytest.fixture(scope="module")
def starter(tmp_path_factory) -> Path:
    rules = tmp_path_factory.mktemp("starter") / "rules"
    run = subprocess.run([sys.executable, "-m", "harmony", "init", str(rules)], capture_output=True,
                         text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    return rules


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1].strip("/"))


def raw(port: int, request: bytes, timeout: float = 10) -> bytes:
    """Send ``request`` as it is and read the answer until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request)
        chunks, deadline = [], time.monotonic() + timeout
        while time.monotonic() < deadline:
            data = s.recv(65536)
            if not data:
                break
            chunks.append(data)
        return b"".join(chunks)


def status_of(answer: bytes) -> int:
    m = re.match(rb"HTTP/1\.[01] (\d{3}) ", answer)
    assert m, answer[:200]
    return int(m.group(1))


def sockets_of(pid: int) -> int:
    """How many sockets process ``pid`` holds open."""
    fds = Path(f"/proc/{pid}/fd")
    count = 0
    for fd in fds.iterdir():
        with contextlib.suppress(OSError):
            count += os.readlink(fd).startswith("socket:")
    return count


@pytest.fixture
def more_open_files():
    """This process may hold 1,100 sockets and more: its soft limit raised towards the hard one
    for the test, and put back after it."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 1_400 if hard == resource.RLIM_INFINITY else min(hard, max(soft, 1_400))
    if want < 1_300:
        pytest.skip(f"this process may open {hard} files at most; the test needs 1,300")
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts the server's sockets in /proc")
@pytest.mark.parametrize("open_files", [1024, 160])
def test_a_flood_of_idle_connections_neither_kills_nor_blocks_the_server(starter, tmp_path, more_open_files,
                                                                         open_files):
    """1,100 connections that never ask anything, to a server limited to 1,024 open files (the
    usual limit, which about 1,050 of them used to exhaust), or to fewer than it would hold
    open: the server holds a bounded number of them, still answers a real request at once,
    and closes the silent ones itself."""
    from harmony.site import serve
    with serving(starter, tmp_path, env_extra=NO_BUNDLE, open_files=open_files) as server:
        port = port_of(server.url)
        idle: list[socket.socket] = []
        try:
            deadline = time.monotonic() + 60
            while len(idle) < 1_100 and time.monotonic() < deadline:
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.setblocking(False)
                idle.append(s)
                s.connect_ex(("127.0.0.1", port))    # in progress or done: the kernel queues it
            assert len(idle) == 1_100
            time.sleep(1.0)                          # the server takes in all it will
            held = sockets_of(server.proc.pid)
            assert held <= min(serve.MAX_OPEN, open_files // 4) + 8, held   # bounded, whatever the flood
            started = time.monotonic()
            page = fetch(server.url)                 # a real request, behind 1,100 silent ones
            assert "<html" in page and "harmony-serve" in page
            assert time.monotonic() - started < 30
            assert server.proc.poll() is None
            # a connection that sends half a request line and stops is closed by the server
            if open_files == 1024:     # (once is enough: it waits for the timeout)
                with socket.create_connection(("127.0.0.1", port), timeout=serve.REQUEST_TIMEOUT + 30) as s:
                    s.sendall(b"GET / HT")
                    t0 = time.monotonic()
                    assert s.recv(100) == b""
                    assert time.monotonic() - t0 < serve.REQUEST_TIMEOUT + 20
        finally:
            for s in idle:
                s.close()
        assert "harmony-serve" in fetch(server.url)
        assert server.proc.poll() is None
    assert (tmp_path / "serve.err").read_text("utf-8") == ""
    assert server.proc.returncode == 0


def test_bad_request_paths_get_an_http_error_not_a_traceback(starter, tmp_path):
    with serving(starter, tmp_path, env_extra=NO_BUNDLE) as server:
        port = port_of(server.url)
        assert status_of(raw(port, b"GET /index.html HTTP/1.0\r\n\r\n")) == 200
        assert status_of(raw(port, b"GET /index%00.html HTTP/1.0\r\n\r\n")) == 400
        assert status_of(raw(port, b"GET /a\x00b.html HTTP/1.0\r\n\r\n")) == 400
        assert status_of(raw(port, b"GET /%00/ HTTP/1.0\r\n\r\n")) == 400
        assert status_of(raw(port, b"HEAD /x%00 HTTP/1.0\r\n\r\n")) == 400
        long = b"GET /" + b"a" * 9_000 + b" HTTP/1.0\r\n\r\n"
        assert status_of(raw(port, long)) == 414
        assert status_of(raw(port, b"GET /" + b"b" * 100_000)) == 414       # and no end to the line
        # a file name longer than the file system allows: no such page
        assert status_of(raw(port, b"GET /" + b"c" * 300 + b".html HTTP/1.0\r\n\r\n")) == 404
        assert status_of(raw(port, b"GET /" + b"d" * 300 + b"/ HTTP/1.0\r\n\r\n")) == 404
        huge = b"GET / HTTP/1.0\r\n" + b"X-Big: " + b"e" * 40_000 + b"\r\n\r\n"
        assert status_of(raw(port, huge)) == 431
        assert b"Error code: 400" in raw(port, b"\x00\x01\x02 nonsense\r\n\r\n")   # (HTTP/0.9: no head)
        assert status_of(raw(port, b"\x00\x01 / HTTP/1.0\r\n\r\n")) == 501
        # 400 requests made of awkward pieces (NUL, bytes that are not UTF-8, escapes, dots,
        # control characters, odd methods and versions): each is answered or closed, and the
        # server says nothing
        import random
        rnd = random.Random(26)
        pieces = [b"/", b"%", b"%00", b"%ff", b"%c0%ae", b"..", b"\x00", b"\xff", b"\r", b" ", b"?", b"#",
                  b"a" * 300, b"index.html", b"_static/", b"%2e%2e/", b"\\", b"//", b"\t", b"\x1b[", b"~"]
        answers = set()
        for _ in range(400):
            request = (rnd.choice([b"GET", b"HEAD", b"POST", b"OPTIONS", b"G\x00T", b""]) + b" "
                       + b"".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 6)))
                       + rnd.choice([b" HTTP/1.0", b" HTTP/1.1", b"", b" HTTP/9.9"])
                       + rnd.choice([b"\r\n\r\n", b"\n\n", b"\r\nHost: x\r\n\r\n"]))
            answer = raw(port, request)
            m = re.match(rb"HTTP/1\.[01] (\d{3}) ", answer)
            answers.add(int(m.group(1)) if m else "other")
        assert {400, 404, 501} <= answers
        assert answers <= {200, 301, 400, 404, 414, 501, 505, "other"}, answers
        assert "harmony-serve" in fetch(server.url)
        assert server.proc.poll() is None
    assert (tmp_path / "serve.err").read_text("utf-8") == ""


def test_a_browser_that_hangs_up_mid_answer_is_forgotten_in_silence(starter, tmp_path):
    with serving(starter, tmp_path, env_extra=NO_BUNDLE) as server:
        port = port_of(server.url)
        big = tmp_path / "out" / "big.bin"         # larger than the socket buffers
        big.write_bytes(os.urandom(1 << 20) * 16)
        for k in range(6):
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            s.sendall(b"GET /big.bin HTTP/1.0\r\n\r\n")
            assert s.recv(4096).startswith(b"HTTP/1.0 200")
            if k % 2:          # hang up hard (a reset), or just close with the answer unread
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.close()
        time.sleep(1.0)
        assert "harmony-serve" in fetch(server.url)
        assert server.proc.poll() is None
    assert (tmp_path / "serve.err").read_text("utf-8") == ""


def test_a_port_in_use_is_reported_before_anything_is_built(starter, tmp_path):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        out = tmp_path / "site"
        started = time.monotonic()
        run = subprocess.run([sys.executable, "-m", "harmony", "serve", str(starter), "--port", str(port),
                              "--out", str(out)], capture_output=True, text=True, cwd=tmp_path,
                             env=dict(os.environ, **NO_BUNDLE), timeout=120)
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stderr == (f"harmony serve: error: port {port} on 127.0.0.1 is in use (another harmony "
                          "serve?): stop it, or choose another with --port N (0 picks a free one)\n")
    assert run.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == []      # no site, no cache, nothing
    assert time.monotonic() - started < 60


def test_a_rebuild_that_cannot_write_is_one_line_and_the_last_site_stays(tmp_path, monkeypatch):
    import errno
    import io

    from harmony.site import serve

    def full(rules, out, **options):
        raise OSError(errno.ENOSPC, "No space left on device", str(out / "index.html"))
    monkeypatch.setattr(serve, "build_site", full)
    state, out, err = serve.BuildState(), io.StringIO(), io.StringIO()
    assert serve.rebuild(tmp_path / "rules", tmp_path / "site", out, err, state) is False
    assert out.getvalue() == ""
    assert err.getvalue() == (f"harmony serve: could not rebuild: No space left on device: {tmp_path}/site/"
                              "index.html; still serving the last good site\n")
    assert "No space left on device" in state.banner()


def test_a_rebuild_stopped_by_a_full_disk_keeps_serving_the_last_site(tmp_path, monkeypatch):
    """The build's own full-disk error (outdir.WriteFailed, raised where Sphinx or the copy
    found no space) is one line too, and serve goes on with the last good site."""
    import io

    from harmony.outdir import WriteFailed
    from harmony.site import serve

    def full(rules, out, **options):
        raise WriteFailed(f"no space left on device writing {out / 'index.html'}")
    monkeypatch.setattr(serve, "build_site", full)
    state, out, err = serve.BuildState(), io.StringIO(), io.StringIO()
    assert serve.rebuild(tmp_path / "rules", tmp_path / "site", out, err, state) is False
    assert err.getvalue() == (f"harmony serve: no space left on device writing {tmp_path}/site/"
                              "index.html; still serving the last good site\n")
    assert "no space left on device" in state.banner()


def test_a_tiny_server_under_churn_answers_every_real_request_and_says_nothing(tmp_path):
    """In this process, a server allowed 4 connections: 300 connections that send nothing, half
    a request line or a whole request, opened and closed in a jumble, with a real request after
    every tenth; every real request is answered, and the server writes no line."""
    import io
    import random

    from harmony.site import serve
    (tmp_path / "index.html").write_text("<html><body>home</body></html>", "utf-8")
    err = io.StringIO()
    server = serve.PreviewServer(serve.listen(0), tmp_path, serve.BuildState(), err=err)
    server.max_open = 4
    server.start()
    port = server.address[1]
    rnd = random.Random(8)
    opened: list[socket.socket] = []
    answered = 0
    try:
        deadline = time.monotonic() + 120
        for k in range(300):
            assert time.monotonic() < deadline
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            opened.append(s)
            with contextlib.suppress(OSError):
                s.send(rnd.choice([b"", b"GET / HT", b"GET / HTTP/1.0\r\n\r\n"]))
            if rnd.random() < 0.3:
                opened.pop(rnd.randrange(len(opened))).close()
            if k % 10 == 9:
                assert status_of(raw(port, b"GET / HTTP/1.0\r\n\r\n", timeout=30)) == 200
                answered += 1
                assert server.open_connections() <= 4
    finally:
        for s in opened:
            s.close()
        server.stop()
    assert answered == 30
    assert err.getvalue() == ""


# ---------------------------------------------------------------- the edit loop (issue 30)

class Events:
    """A page's event stream read over a raw socket: :meth:`next` gives each ``state``
    event's data, decoded."""

    def __init__(self, port: int, page: str, since: int = 0, rcvbuf: int | None = None):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(30)
        self.sock.connect(("127.0.0.1", port))
        self.sock.sendall(f"GET /.harmony-serve/events?page={page}&since={since} HTTP/1.1\r\n"
                          "Host: x\r\nAccept: text/event-stream\r\n\r\n".encode())
        self.buffer = b""

    def head(self) -> bytes:
        while b"\r\n\r\n" not in self.buffer:
            self._more()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        return head

    def _more(self) -> None:
        data = self.sock.recv(65536)
        if not data:
            raise EOFError
        self.buffer += data

    def next(self, within: float = 120) -> dict:
        import json
        deadline = time.monotonic() + within
        while True:
            while b"\n\n" in self.buffer:
                block, self.buffer = self.buffer.split(b"\n\n", 1)
                data = [line[6:] for line in block.split(b"\n") if line.startswith(b"data: ")]
                if b"event: state" in block.split(b"\n") and data:
                    return json.loads(b"\n".join(data))
            assert time.monotonic() < deadline, "no event came"
            self.sock.settimeout(max(0.1, deadline - time.monotonic()))
            self._more()

    def close(self) -> None:
        self.sock.close()


def settled(url: str, within: float = 180) -> dict:
    import json
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        status = json.loads(fetch(url + ".harmony-serve/status"))
        if status["settled"]:
            return status
        time.sleep(0.2)
    raise AssertionError("the server never finished the site")


def test_an_edit_is_announced_a_broken_one_shows_its_errors_and_the_served_site_is_the_built_one(starter, tmp_path):
    """The event stream tells the open page to reload when its file changed; an edit that
    breaks a file sends the problems (file:line:col, as `harmony check` says them) and the
    last good page stays served, with them over it; fixing the file clears them. The script
    is in the served pages only: the site on disk is, byte for byte, what `harmony build`
    makes of the same files once the server has finished it (its PDFs printed after the
    edits)."""
    import filecmp
    import html
    import json
    from harmony.site.livereload import EVENTS_PATH
    rules = tmp_path / "rules"
    subprocess.run(["cp", "-r", str(starter), str(rules)], check=True)
    topics = rules / "topics.yaml"
    good = topics.read_text("utf-8")
    with serving(rules, tmp_path, env_extra=NO_BUNDLE) as server:
        port, url = port_of(server.url), server.url
        page = url + "topics/spotting.html"
        served = fetch(page)
        on_disk = (tmp_path / "out" / "topics" / "spotting.html").read_text("utf-8")
        assert EVENTS_PATH in served and EVENTS_PATH not in on_disk and "harmony-serve" not in on_disk
        injected = re.search(r"<script>\(function \(\) \{\n\"use strict\";.*?</script>", served, re.S)
        assert injected and served.replace(injected.group(0), "", 1) == on_disk
        generation = json.loads(fetch(url + ".harmony-serve/status"))["generation"]

        spotting, other = Events(port, "topics/spotting.html", generation), Events(port, "glossary.html", generation)
        try:
            head = spotting.head()
            assert b" 200 " in head and b"Content-Type: text/event-stream" in head
            hello = spotting.next()
            assert hello == {"generation": generation, "problems": [], "reload": False}
            other.head()
            assert other.next()["reload"] is False

            topics.write_text(good.replace("title: Spotting\n", "title: Spotting (edited live)\n", 1), "utf-8")
            built = spotting.next()
            assert built["generation"] > generation and built["problems"] == [] and built["reload"] is True
            assert other.next()["reload"] is False      # the glossary did not change
            assert "Spotting (edited live)" in fetch(page)
            settled(url)
        finally:
            spotting.close()
            other.close()

        # break the file: the problems come as an event, the last good page stays
        status = json.loads(fetch(url + ".harmony-serve/status"))
        stream = Events(port, "topics/spotting.html", status["generation"])
        try:
            stream.head()
            assert stream.next()["reload"] is False
            topics.write_text(good.replace("title: Spotting\n", "title: [Spotting\n", 1), encoding="utf-8")
            broken = stream.next()
            assert broken["reload"] is False and broken["problems"]
            check = subprocess.run([sys.executable, "-m", "harmony", "check", str(rules)], capture_output=True,
                                   text=True, cwd=tmp_path)
            checked = [line for line in (check.stdout + check.stderr).splitlines() if ": error: " in line]
            assert checked and broken["problems"] == checked      # as `harmony check` says them
            assert re.match(r"\S*topics\.yaml:5:\d+: error: .+ \[yaml-syntax\]$", checked[0])
            shown = fetch(page)
            assert "Spotting (edited live)" in shown and 'id="harmony-serve-error"' in shown
            assert html.escape(checked[0]) in shown
            server.errors.flush()
            said = (tmp_path / "serve.err").read_text("utf-8").splitlines()
            assert checked[0] in said and "still serving the last good site" in said[-1]

            topics.write_text(good, encoding="utf-8")      # fixed: the problems go, the page reloads
            fixed = stream.next()
            assert fixed["problems"] == [] and fixed["reload"] is True
            assert 'id="harmony-serve-error"' not in fetch(page) and "Spotting (edited live)" not in fetch(page)
        finally:
            stream.close()
        settled(url)
    assert server.proc.returncode == 0

    built = tmp_path / "built"
    run = subprocess.run([sys.executable, "-m", "harmony", "build", str(rules), "--out", str(built)],
                         capture_output=True, text=True, cwd=tmp_path, env=dict(os.environ, **NO_BUNDLE))
    assert run.returncode == 0, run.stderr
    served_files = sorted(p.relative_to(tmp_path / "out") for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert served_files == sorted(p.relative_to(built) for p in built.rglob("*") if p.is_file())
    assert any(p.suffix == ".pdf" for p in served_files)
    _, differ, errors = filecmp.cmpfiles(tmp_path / "out", built, [str(p) for p in served_files], shallow=False)
    assert differ == [] and errors == []


def test_event_streams_are_capped_hold_no_worker_and_one_that_never_reads_is_closed(tmp_path):
    """In this process: more streams than the server has workers stay open while pages are
    still answered; one past the cap gets 503; a client that reads nothing is closed once
    too much waits for it, and the server says nothing; stopping closes every stream."""
    import io

    from harmony.site import serve
    (tmp_path / "index.html").write_text("<html><body>home</body></html>", "utf-8")
    err = io.StringIO()
    state = serve.BuildState()
    server = serve.PreviewServer(serve.listen(0), tmp_path, state, err=err)
    server.max_streams = serve.WORKERS + 4
    server.start()
    port = server.address[1]
    streams: list[Events] = []
    try:
        for _ in range(server.max_streams - 1):
            s = Events(port, "index.html")
            assert b" 200 " in s.head()
            assert s.next()["reload"] is False
            streams.append(s)
        answer = raw(port, b"GET /index.html HTTP/1.0\r\n\r\n", timeout=30)
        assert status_of(answer) == 200 and b"home" in answer and b"/.harmony-serve/events" in answer

        deaf = Events(port, "index.html", rcvbuf=4096)     # it never reads a byte
        deadline = time.monotonic() + 30
        while server.open_streams() < server.max_streams and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.open_streams() == server.max_streams
        assert status_of(raw(port, b"GET /.harmony-serve/events?page=x HTTP/1.0\r\n\r\n")) == 503

        big = ["rules/a.yaml:1:1: error: " + "x" * 900 + " [bad]"] * 50      # 45 KB an event
        for k in range(40):
            state.set(big if k % 2 else [])
            server.tell()
            time.sleep(0.02)
            for s in streams:                 # the others read theirs
                assert s.next()["generation"] == state.generation
        deadline = time.monotonic() + 30
        while server.open_streams() >= server.max_streams and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.open_streams() == server.max_streams - 1
        assert status_of(raw(port, b"GET /index.html HTTP/1.0\r\n\r\n", timeout=30)) == 200
        deaf.close()
    finally:
        server.stop()
    for s in streams:                          # stopped: every stream is closed
        with pytest.raises(EOFError):
            while True:
                s._more()
        s.close()
    assert err.getvalue() == ""


def test_the_watcher_and_the_streams_stop_when_serve_does(starter, tmp_path, monkeypatch, capsys):
    import threading

    from harmony.site import serve
    monkeypatch.setenv("HARMONY_PYODIDE", "")
    stop = threading.Event()
    done: list[int] = []
    thread = threading.Thread(target=lambda: done.append(serve.serve(starter, tmp_path / "out", 0, stop=stop)))
    thread.start()
    try:
        deadline = time.monotonic() + 300
        url = None
        while url is None and time.monotonic() < deadline and thread.is_alive():
            m = re.search(r"serving (http://127\.0\.0\.1:\d+/)", capsys.readouterr().out)
            url = m.group(1) if m else None
            time.sleep(0.1)
        assert url, "serve did not start"
        assert any(t.name == "harmony-serve-watch" for t in threading.enumerate())
        stream = Events(port_of(url), "index.html")
        stream.head()
        stream.next()
    finally:
        stop.set()
        thread.join(60)
    assert done == [0]
    deadline = time.monotonic() + 20      # (a worker ends once it has taken its last job)
    while [t for t in threading.enumerate() if t.name.startswith("harmony-serve")] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [t.name for t in threading.enumerate() if t.name.startswith("harmony-serve")]
    with pytest.raises(EOFError):
        while True:
            stream._more()
    stream.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port_of(url)), timeout=5)


@contextlib.contextmanager
def _spotting_open(starter, tmp_path, browser, height: int, words: str):
    """A copy of the starter served, settled, with its spotting page open in Chromium (1000 px
    wide, ``height`` tall), whose file holds ``words`` once: (server, page, the file, its text)."""
    rules = tmp_path / "rules"
    subprocess.run(["cp", "-r", str(starter), str(rules)], check=True)
    spotting = rules / "spotting.yaml"
    good = spotting.read_text("utf-8")
    assert good.count(words) == 1
    with serving(rules, tmp_path, env_extra=NO_BUNDLE) as server:
        settled(server.url)
        context = browser.new_context(viewport={"width": 1000, "height": height})
        try:
            page = context.new_page()
            page.goto(server.url + "topics/spotting.html")
            yield server, page, spotting, good
        finally:
            context.close()


def test_in_a_browser_the_page_reloads_itself_where_it_was_and_shows_a_broken_edit_over_it(starter, tmp_path,
                                                                                        browser):
    """Headless Chromium on a served page: an edit that changes the page outside its main
    content (its topic's title: the window's title and the sidebar) reloads the page by
    itself, keeps open the details the reader opened and keeps the reader's place where it
    was in the window (below those details: they are opened again before the page scrolls
    back, else it would land short by their height); an edit that breaks the file shows the
    problems over the page (no reload: the last good page stays) and fixing it clears them."""
    with _spotting_open(starter, tmp_path, browser, 300, "title: Dispersed units as spotters") as (
            _server, page, spotting, good):
        opened = ("() => [...document.querySelectorAll('details')]"
                  ".map((d, n) => d.open ? n : -1).filter(n => n >= 0)")
        page.evaluate("() => document.querySelectorAll(\"[id='spotting.spotters'] details\")"
                      ".forEach(d => { d.open = true; })")
        reader = page.evaluate(opened)
        assert reader and len(reader) < page.evaluate("() => document.querySelectorAll('details').length")
        # the reader's place: the first element with an id that the details they opened push
        # down (it moves when the first of them is closed)
        place = page.evaluate("""() => {
            const first = [...document.querySelectorAll('details')].find(d => d.open);
            const after = [...document.querySelectorAll('[role=main] [id]')].filter(el =>
                first.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING && !first.contains(el)
                && el.checkVisibility());
            const tops = () => after.map(el => el.getBoundingClientRect().top + window.scrollY);
            const open = tops(); first.open = false; const shut = tops(); first.open = true;
            const moved = after.find((el, n) => el.id && open[n] - shut[n] > 10);
            return moved ? moved.id : null; }""")
        assert place is not None
        page.evaluate("id => document.getElementById(id).scrollIntoView({behavior: 'instant'})", place)
        top = "id => Math.round(document.getElementById(id).getBoundingClientRect().top)"
        before = page.evaluate(top, place)
        assert 0 <= before < 300 and page.evaluate("() => window.scrollY") > 0    # in view, scrolled to
        page.evaluate("() => { window.notReloaded = true; }")
        # (the page reloaded as Safari shows it, which keeps nothing in view by itself when
        # content above it grows: Chromium's scroll anchoring would hide a page that scrolled
        # back before it opened the details again)
        page.context.add_init_script("document.addEventListener('DOMContentLoaded', () => {"
                                     " document.documentElement.style.overflowAnchor = 'none'; })")

        topics = spotting.parent / "topics.yaml"
        topics.write_text(topics.read_text("utf-8").replace("title: Spotting", "title: Spotting (live)", 1), "utf-8")
        page.wait_for_function("() => document.title.includes('Spotting (live)')", timeout=120_000)
        page.wait_for_load_state("load")
        page.wait_for_timeout(300)
        assert page.evaluate("() => window.notReloaded === undefined")       # it reloaded itself
        assert page.evaluate(opened) == reader                               # the same details open
        assert abs(page.evaluate(top, place) - before) <= 2                  # the same place

        page.evaluate("() => { window.notReloaded = true; }")
        spotting.write_text(good.replace("text: A unit in", "text: [A unit in", 1), "utf-8")
        overlay = page.locator("#harmony-serve-error")
        overlay.wait_for(state="visible", timeout=120_000)
        assert "The last rebuild failed" in overlay.inner_text()
        assert re.search(r"spotting\.yaml:\d+:\d+: error: ", overlay.inner_text())
        assert page.evaluate("() => window.notReloaded") is True               # the last good page stays
        assert "Spotting (live)" in page.evaluate("() => document.title")

        spotting.write_text(good, "utf-8")
        overlay.wait_for(state="detached", timeout=120_000)


#: the words of a cell on the served page, but its head (which the site's script changed)
CELL_WORDS = ("id => [...document.getElementById(id).children].filter(c => !c.matches('.hm-cell-head'))"
              ".map(c => c.outerHTML).join('')")


def test_in_a_browser_a_text_edit_is_swapped_into_the_page_and_the_rebuilt_page_is_what_it_shows(
        starter, tmp_path, browser):
    """An edit of a cell's words alone is shown without a reload: the cell's words are
    swapped in (its head, with the copy-link button the site's script made, stays the same
    element), and once the server has rebuilt and finished the site, the page still has not
    reloaded and its cell is, tag for tag, the cell of the page as served now. Undoing the
    edit is swapped in as well; the words of a cell and a clause's title changed in one save
    are not a text edit alone, and reload the page."""
    with _spotting_open(starter, tmp_path, browser, 700, "may be fired on only while") as (
            server, page, spotting, good):
        cell = page.evaluate("() => [...document.querySelectorAll('td.hm-cell')]"
                             ".find(td => td.textContent.includes('may be fired on only while')).id")
        page.evaluate("id => { window.notReloaded = true; window.head = document.getElementById(id)"
                      ".querySelector('.hm-cell-head'); }", cell)

        def served_words() -> str:
            return page.evaluate("async ([url, id]) => { const html = await (await fetch(url)).text();"
                                 " const doc = new DOMParser().parseFromString(html, 'text/html');"
                                 " return [...doc.getElementById(id).children]"
                                 ".filter(c => !c.matches('.hm-cell-head')).map(c => c.outerHTML).join(''); }",
                                 [server.url + "topics/spotting.html", cell])

        assert page.evaluate(CELL_WORDS, cell) == served_words()
        for before, after in (("may be fired on only while", "may be fired on (live) only while"),
                              ("may be fired on (live) only while", "may be fired on only while")):
            spotting.write_text(spotting.read_text("utf-8").replace(before, after), "utf-8")
            page.wait_for_function("([id, words]) => document.getElementById(id).textContent.includes(words)",
                                   arg=[cell, after], timeout=120_000)
            settled(server.url)
            page.wait_for_timeout(300)
            assert page.evaluate("() => window.notReloaded") is True        # swapped in, never reloaded
            assert page.evaluate("id => document.getElementById(id).querySelector('.hm-cell-head') === window.head",
                                 cell)
            assert page.evaluate(CELL_WORDS, cell) == served_words()
            assert before not in page.evaluate("id => document.getElementById(id).textContent", cell)

        # the words of a cell and a clause's title in one save: built first, then its parts
        # swapped in (:mod:`harmony.site.pageswap`), the cell's head with them
        spotting.write_text(good.replace("may be fired on only while", "may be fired on (both) only while")
                            .replace("title: Dispersed units as spotters", "title: Dispersed units (both)"), "utf-8")
        page.wait_for_function("() => document.body.textContent.includes('Dispersed units (both)')", timeout=120_000)
        assert "may be fired on (both)" in page.evaluate("() => document.body.textContent")
        assert page.evaluate("() => window.notReloaded") is True


#: the main content of a page as the browser holds it
ARTICLE = "() => document.querySelector('article[role=main]').outerHTML"


def test_in_a_browser_a_rebuilt_part_of_the_page_is_swapped_in_as_a_reload_would_show_it(starter, tmp_path,
                                                                                         browser):
    """An edit that changes the page inside its main content only (a clause's title, an
    example's ruling) is built, then the parts of the page it changed are swapped in
    without a reload: the reader's row stays where it was in the window, a column the
    reader hid stays hidden, what the reader opened stays open, a swapped cell's copy-link
    button works, and the main content is, tag for tag, what a fresh load of the page
    shows."""
    with _spotting_open(starter, tmp_path, browser, 500, "title: Dispersed units as spotters") as (
            server, page, spotting, good):
        hide = page.evaluate("() => document.querySelector('fieldset.hm-chooser input[data-col]')"
                             ".getAttribute('data-col')")
        page.click(f"fieldset.hm-chooser input[data-col='{hide}']")
        row = page.evaluate("() => { const all = [...document.querySelectorAll('tr[id]')];"
                            " return all[all.length - 1].id; }")
        page.evaluate("id => { document.getElementById(id).scrollIntoView(); window.scrollBy(0, -120); }", row)
        top = "id => Math.round(document.getElementById(id).getBoundingClientRect().top)"
        before = page.evaluate(top, row)
        opened = page.evaluate("() => { const all = [...document.querySelectorAll("
                               "\"[id='spotting.spotters'] details\")]; all.forEach(d => { d.open = true; });"
                               " return all.length; }")
        assert opened > 0
        page.evaluate("() => { window.notReloaded = true; window.swapped = [];"
                      " document.addEventListener('harmony:swapped', e => window.swapped.push("
                      "...e.detail.elements.map(el => el.id))); }")
        shown = f"col => [...document.querySelectorAll('table [data-col=\"{hide}\"]')].filter(e => !e.hidden).length"
        assert page.evaluate(shown, hide) == 0

        spotting.write_text(good.replace("title: Dispersed units as spotters", "title: Dispersed units (live)"),
                            "utf-8")
        page.wait_for_function("() => document.body.textContent.includes('Dispersed units (live)')", timeout=120_000)
        settled(server.url)
        page.wait_for_timeout(300)
        assert page.evaluate("() => window.notReloaded") is True              # swapped in, not reloaded
        assert page.evaluate("() => window.swapped") == ["spotting.spotters"]
        assert abs(page.evaluate(top, row) - before) <= 2
        assert page.evaluate(shown, hide) == 0                                # the hidden column stays so
        assert page.evaluate("() => [...document.querySelectorAll(\"[id='spotting.spotters'] details\")]"
                             ".filter(d => d.open).length") == opened             # and what the reader opened

        page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = false; })")
        fresh = page.context.new_page()
        fresh.goto(server.url + "topics/spotting.html")
        assert page.evaluate(ARTICLE) == fresh.evaluate(ARTICLE)

        # the swapped row's copy-link buttons are the site's own: a click copies the cell's address
        page.context.grant_permissions(["clipboard-read", "clipboard-write"])
        link = page.locator("[id='spotting.spotters'] a.hm-copy-link:visible").first
        link.scroll_into_view_if_needed()
        link.click()
        page.wait_for_function("() => [...document.querySelectorAll(\"[id='spotting.spotters'] a.hm-copy-link\")]"
                               ".some(a => a.textContent === 'link copied')", timeout=10_000)


# ---------------------------------------------------------------- the heap between edits

def _full_collections_while(make_garbage) -> int:
    """How many collections of the oldest generation ran while ``make_garbage`` did."""
    import gc
    seen = []

    def note(phase, info):
        if phase == "stop" and info["generation"] == 2:
            seen.append(1)
    gc.callbacks.append(note)
    try:
        make_garbage()
    finally:
        gc.callbacks.remove(note)
    return len(seen)


def _cycles(n: int) -> None:
    """Cyclic garbage that lives long enough to reach the oldest generation."""
    keep = []
    for _ in range(n):
        a: list = []
        a.append(a)
        keep.append(a)
        if len(keep) > 20_000:
            keep.clear()


def test_a_preview_runs_no_full_collection_and_a_full_build_does():
    from harmony.site.build import _build_collection

    def full_collections_in(full: bool) -> int:
        with _build_collection(full=full):
            # (counted inside: the collection a full build begins with is not counted; with
            # the middle generation collected every 7,700 net allocations, the oldest is
            # collected once in about 780,000)
            return _full_collections_while(lambda: _cycles(2_000_000))
    assert full_collections_in(True) > 0
    assert full_collections_in(False) == 0


class _Cycle:
    """An object in a reference cycle, which only the cyclic collector frees."""

    def __init__(self):
        self.me = self


def test_a_full_build_walks_only_what_it_made_and_holds_no_garbage_frozen():
    """What a full build begins with is frozen for its length, so that its collections walk
    only what it made, and thawed after; the garbage there was is collected first, not frozen."""
    import gc
    import weakref

    from harmony.site.build import FULL_BUILD_THRESHOLDS, _build_collection

    def tracked(obj) -> bool:      # (gc.get_objects() lists no frozen object)
        return any(o is obj for o in gc.get_objects())

    thresholds = gc.get_threshold()
    gc.disable()        # (so that no collection but the build's own frees the dropped cycle)
    try:
        held, dropped = [_Cycle()], _Cycle()
        gone = weakref.ref(dropped)
        del dropped
        assert gone() is not None and tracked(held) and gc.get_freeze_count() == 0
        with _build_collection():
            assert gone() is None                        # collected, not frozen with the rest
            assert not tracked(held) and gc.get_freeze_count() > 0
            assert gc.get_threshold() == FULL_BUILD_THRESHOLDS
            made = [_Cycle()]
            assert tracked(made)
        assert tracked(held) and gc.get_freeze_count() == 0
        assert gc.get_threshold() == thresholds
    finally:
        gc.enable()


class _Collects:
    """``harmony serve``'s rebuilds (``_Editing``) with the builds and the collector counted."""

    def __init__(self, tmp_path, monkeypatch):
        from harmony.site import serve
        from harmony.site.build import BuildResult
        self.serve, self.builds, self.collections = serve, [], 0
        self.clock = [1000.0]

        def build_once(rules, out, *a, preview=False, **k):
            self.builds.append(preview)
            return BuildResult(out=out, staged=None, preview=preview)
        monkeypatch.setattr(serve, "build_once", build_once)
        monkeypatch.setattr(serve, "print_jobs", lambda model: [])
        monkeypatch.setattr(serve.printing, "start", lambda cache, jobs: None)
        monkeypatch.setattr(serve.printing, "prune", lambda cache: None)

        def collect():
            self.collections += 1
        monkeypatch.setattr(serve.gc, "collect", collect)
        (tmp_path / "rules").mkdir()
        self.edits = 0
        self.editing = serve._Editing(tmp_path / "rules", tmp_path / "out", serve.BuildState(), None)
        self.editing.clock = lambda: self.clock[0]
        self.rules = tmp_path / "rules"

    def edit(self) -> None:
        self.edits += 1
        (self.rules / "a.yaml").write_text(f"edit {self.edits}\n")
        self.editing.edited()

    def wait(self, seconds: float) -> None:
        self.clock[0] += seconds
        self.editing.idle()


def test_serve_collects_the_heap_once_the_page_had_time_to_reload_not_during_the_edit(tmp_path, monkeypatch):
    c = _Collects(tmp_path, monkeypatch)
    c.edit()
    assert c.builds == [True] and c.collections == 0
    c.wait(c.serve.COLLECT_AFTER / 2)
    assert c.collections == 0                 # the page may still be loading
    c.wait(c.serve.COLLECT_AFTER / 2)
    assert c.collections == 1
    c.wait(c.serve.COLLECT_AFTER)
    assert c.collections == 1                 # once per burst of previews, not every idle moment
    c.wait(c.serve.SETTLE)                    # the edits stopped: the full build, no second collection
    assert c.builds == [True, False] and c.collections == 1


def test_edits_faster_than_the_collection_still_collect_every_few_previews(tmp_path, monkeypatch):
    c = _Collects(tmp_path, monkeypatch)
    most = c.serve.MOST_UNCOLLECTED
    for _ in range(most):
        c.edit()
        c.wait(c.serve.COLLECT_AFTER / 10)
    assert c.collections == 0 and c.builds == [True] * most
    c.edit()                                  # one more: it collects before it builds
    assert c.collections == 1 and c.editing.uncollected == 1
    for _ in range(most - 1):
        c.edit()
    assert c.collections == 1
    c.edit()
    assert c.collections == 2


def test_a_preview_is_given_the_pages_open_in_a_browser_and_a_full_build_none(tmp_path, monkeypatch):
    c = _Collects(tmp_path, monkeypatch)
    given = []
    real = c.serve.build_once

    def build_once(*a, showing=(), **k):
        given.append(set(showing))
        return real(*a, **k)
    monkeypatch.setattr(c.serve, "build_once", build_once)

    class Open:
        def open_pages(self):
            return {"topics/spotting"}

        def tell(self):
            pass
    c.editing.server = Open()
    c.edit()
    c.wait(c.serve.SETTLE)
    assert c.builds == [True, False] and given == [{"topics/spotting"}, set()]


def test_once_the_server_runs_its_full_builds_fork_no_printer(tmp_path, monkeypatch):
    """serve's first full build is made before its server's threads start, and forks its
    printers; every later build prints here (:func:`harmony.site.build.build_site`'s
    ``print_here``), since a process forked beside a running thread can inherit a lock it
    holds."""
    c = _Collects(tmp_path, monkeypatch)
    given = []

    def build_once(*a, print_here=False, preview=False, **k):
        given.append((preview, print_here))
        return c.serve.BuildResult(out=tmp_path / "out", staged=None, preview=preview)
    monkeypatch.setattr(c.serve, "build_once", build_once)
    c.editing.build(preview=False)

    class Serving:
        def open_pages(self):
            return set()

        def tell(self):
            pass
    c.editing.server = Serving()
    c.edit()
    c.wait(c.serve.SETTLE)
    assert given == [(False, False), (True, True), (False, True)]


def test_a_page_told_of_a_build_finds_the_status_saying_whether_more_is_to_come(tmp_path, monkeypatch):
    """When serve tells the open pages of a build, its status already says whether the site
    is settled: not after a preview (the PDFs and a full build are to come), and after the
    full build. (Told first and settled after, a client that waited for the status to
    settle once it heard of a preview could find the last build's "settled" and stop
    waiting before the full build.)"""
    c = _Collects(tmp_path, monkeypatch)
    c.editing.build(preview=False)
    heard = []

    class Serving:
        def open_pages(self):
            return set()

        def tell(self):
            heard.append((c.builds[-1], c.editing.state.settled))
    c.editing.server = Serving()
    assert c.editing.state.settled      # as the full build left it (a failed build too)
    c.edit()
    c.wait(c.serve.SETTLE)
    assert heard == [(True, False), (False, True)]


def test_serve_watches_once_its_first_build_is_made_and_rebuilds_an_edit_made_during_it(tmp_path, monkeypatch):
    """The first build forks its printers: no thread of serve runs while it does. An edit
    made while it runs (before any watching) is rebuilt once serve watches."""
    import threading

    from harmony.site import serve
    rules, out = tmp_path / "rules", tmp_path / "out"
    rules.mkdir()
    (rules / "a.yaml").write_text("before\n")
    seen: list[tuple[bool, list[str]]] = []
    stop = threading.Event()

    def build_once(rules_, out_, *a, preview=False, **k):
        seen.append((preview, sorted(t.name for t in threading.enumerate() if t.name.startswith("harmony-serve"))))
        if len(seen) == 1:
            out.mkdir()
            (out / "index.html").write_text("<p>built</p>")
            (rules / "a.yaml").write_text("edited while the first build ran\n")
        else:
            stop.set()
        return serve.BuildResult(out=out, staged=None, preview=preview)
    monkeypatch.setattr(serve, "build_once", build_once)
    thread = threading.Thread(target=lambda: serve.serve(rules, out, 0, stop=stop), daemon=True)
    thread.start()
    try:
        thread.join(30)                   # (the second build stops serve)
    finally:
        stop.set()
        thread.join(60)
    assert len(seen) == 2, seen
    assert seen[0] == (False, [])
    assert seen[1][0] is True and "harmony-serve-watch" in seen[1][1]


def test_the_server_names_the_pages_its_streams_were_opened_for(tmp_path):
    from harmony.site import serve
    sock = serve.listen(0)
    server = serve.PreviewServer(sock, tmp_path, serve.BuildState())
    try:
        assert server.open_pages() == set()
        for i, page in enumerate(("topics/spotting.html", "index.html", "", "topics/spotting.html")):
            server._streams[i] = serve._Stream(None, page, 0)
        assert server.open_pages() == {"topics/spotting", "index"}
    finally:
        server._streams.clear()
        sock.close()


def test_a_patched_page_is_served_as_it_shows_and_told_its_patches_until_the_next_build(tmp_path):
    """In this process: while a text edit's patch waits for its rebuild, the page is served
    with the patch in it, a stream opened before the patch is told it (and one opened after
    is not told it again), other pages are told nothing; the build that follows reloads the
    page only if its file is not what the patch shows, and ends the patch."""
    import hashlib

    from harmony.site import serve
    (tmp_path / "a.html").write_text("<html><body><td id=\"x\">old</td></body></html>", "utf-8")
    (tmp_path / "b.html").write_text("<html><body>b</body></html>", "utf-8")
    state = serve.BuildState()
    server = serve.PreviewServer(serve.listen(0), tmp_path, state)
    server.start()
    port = server.address[1]
    shown = b"<html><body><td id=\"x\">new</td></body></html>"
    before, other = Events(port, "a.html"), Events(port, "b.html")
    try:
        for s in (before, other):
            s.head()
            assert s.next() == {"generation": 0, "problems": [], "reload": False}
        state.patch("a.html", {"id": "x", "html": "<td id=\"x\">new</td>", "keep": ".h"}, shown)
        server.tell()
        told = before.next()
        assert told["patches"] == [{"id": "x", "html": "<td id=\"x\">new</td>", "keep": ".h"}]
        assert told["reload"] is False
        assert "patches" not in other.next()
        answer = raw(port, b"GET /a.html HTTP/1.0\r\n\r\n", timeout=30)
        assert b"<td id=\"x\">new</td>" in answer and b"old" not in answer
        # (its SHA-256 with it: a page swapping parts in checks it fetched the page they come from)
        assert f"\r\nX-Harmony-Page: {hashlib.sha256(shown).hexdigest()}\r\n".encode() in answer
        after = Events(port, "a.html", since=state.generation)
        try:
            after.head()
            assert "patches" not in after.next()
        finally:
            after.close()

        # the rebuilt page is what the patch shows: no reload, and the file is served again
        (tmp_path / "a.html").write_bytes(shown.replace(b"new", b"new, built"))
        state.set([], {"a.html"}, {"a.html": hashlib.sha256(shown).hexdigest()}.get)
        server.tell()
        assert before.next()["reload"] is False
        assert b"new, built" in raw(port, b"GET /a.html HTTP/1.0\r\n\r\n", timeout=30)
        cut = Events(port, "a.html", since=0)         # a page whose stream was cut before the patch
        try:
            cut.head()
            assert cut.next()["reload"] is True
        finally:
            cut.close()

        # another patch, and a build whose page is not what it shows: reload
        state.patch("a.html", {"id": "x", "html": "<td id=\"x\">newer</td>", "keep": ".h"}, b"newer")
        server.tell()
        assert before.next()["patches"][0]["html"] == "<td id=\"x\">newer</td>"
        state.set([], set(), {"a.html": "another digest"}.get)
        server.tell()
        assert before.next()["reload"] is True
        assert state.shown("a.html") is None
    finally:
        before.close()
        other.close()
        server.stop()

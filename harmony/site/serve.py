"""``harmony serve``: a live preview on 127.0.0.1 that rebuilds when the sources change.

The server polls content hashes (not times) of the rules_data folder, the
hand-written pages and the templates; when one changes it rebuilds the site
incrementally and serves the new pages. When a rebuild fails, the last good
site stays up and every page carries a banner with the problems (file, line,
column, message) until a rebuild succeeds; each page asks the server for the
build state every second and reloads itself when it changes. Only the built
site is served: no folder listings, and the build cache lives outside it.

The port is taken (:func:`listen`) before the first build, so a port in use is
said at once, and nothing is built. :class:`PreviewServer` is bounded whatever
its clients do: one thread reads every connection's request head without
blocking, a fixed pool of threads answers, at most :data:`MAX_OPEN`
connections are open at once, a silent or slow client is closed after
:data:`REQUEST_TIMEOUT` seconds, a request line over :data:`MAX_REQUEST_LINE`
bytes gets 414, a NUL byte in the path 400, and a browser that hangs up is
forgotten without a word. (A long-lived channel, such as a live reload's
server-sent events, would be a connection whose worker hands it on once its
head is written, outside the pool and the timeout.)
"""
from __future__ import annotations

import errno
import hashlib
import html
import http.server
import io
import json
import queue
import selectors
import socket
import sys
import threading
import time
import urllib.parse
from pathlib import Path

from ..outdir import WriteFailed
from ..trust import Trust
from ..usage import UsageError
from . import generate
from .build import BuildError, build_site


#: what of a rules folder a build reads: its YAML files, its own pages and its game module
WATCHED = (".yaml", ".yml", ".rst", ".py")


def watched_files(rules: Path) -> list[Path]:
    """The files a change to which rebuilds the site: the generator's site sources and
    templates, and the rules folder's files a build reads (:data:`WATCHED`), not those
    of its hidden folders (``.git``, the build cache) nor of a ``build`` folder in it (the
    site being served, when ``harmony serve`` runs inside the harmony's folder)."""
    files: list[Path] = []
    for root in (generate.SITE, generate.TEMPLATES):
        files += [p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    if rules.is_file():
        files.append(rules)
    elif rules.is_dir():
        files += [p for p in rules.rglob("*") if p.suffix in WATCHED and p.is_file()
                  and not any(part.startswith(".") or part in ("__pycache__", "build")
                              for part in p.relative_to(rules).parts[:-1])]
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


class _Writer:
    """The response side of a connection: every write is sent whole (``sendall``)."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.closed = False

    def write(self, data) -> int:
        self.sock.sendall(data)
        return len(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


class _Handler(http.server.SimpleHTTPRequestHandler):
    """One request, whose head (request line and headers) the server has already read."""

    state: BuildState

    def __init__(self, request, client_address, server, *, directory: str, head: bytes,
                 refuse: tuple[int, str] | None = None):
        self._head, self._refuse = head, refuse
        super().__init__(request, client_address, server, directory=directory)

    def setup(self):
        self.connection = self.request
        self.request.settimeout(SEND_TIMEOUT)
        self.rfile = io.BytesIO(self._head)
        self.wfile = _Writer(self.request)  # type: ignore[assignment]

    def finish(self):
        pass

    def handle(self):
        if self._refuse is not None:     # too long a request line, too large a head
            self.requestline, self.request_version, self.command = "", "", ""
            self.close_connection = True
            self.send_error(*self._refuse)
            return
        super().handle()

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        # a NUL byte reaches no file name: the operating system would refuse it anyway
        if "\0" in self.path or "\0" in urllib.parse.unquote(self.path):
            self.send_error(400, "Bad request path (a NUL byte)")
            return False
        return True

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
        try:
            target = Path(self.translate_path(self.path))
            if target.is_dir():
                target = target / "index.html"
            page = target.read_bytes() if target.suffix == ".html" and target.is_file() else None
        except (OSError, ValueError):    # a name too long for the file system, a page replaced
            return self.send_error(404, "No such page")   # by a rebuild as it was read ...
        if page is not None:
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


#: connections open at once (a request being read, waiting for a thread or being answered),
#: and at most a quarter of the files the process may open (:func:`open_limit`): the rest
#: stays for the build and the watcher
MAX_OPEN = 256
#: threads answering requests: at most this many requests are answered at once
WORKERS = 16
#: seconds a connection has to send its whole request line and headers
REQUEST_TIMEOUT = 5.0
#: seconds a connection that has not sent its request yet is kept when the server is full
#: and another connection waits (the oldest such connection is closed to make room)
EVICT_AFTER = 0.1
#: seconds one write of an answer may wait for the client to read
SEND_TIMEOUT = 10.0
#: the longest request line (414 past it) and request head (431 past it), in bytes
MAX_REQUEST_LINE = 8192
MAX_HEAD = 32768


def _linger(sock: socket.socket, seconds: float = 1.0, most: int = 1 << 20) -> None:
    """After refusing a request the client is still sending: stop writing and read (and drop)
    the rest for a moment, so that closing does not reset the connection before the client
    has read the refusal."""
    sock.shutdown(socket.SHUT_WR)
    sock.settimeout(seconds)
    deadline, read = time.monotonic() + seconds, 0
    while read < most and time.monotonic() < deadline:
        data = sock.recv(65536)
        if not data:
            return
        read += len(data)


def open_limit(most: int = MAX_OPEN) -> int:
    """How many connections to keep open at once: ``most``, or a quarter of the files this
    process may open if that is fewer (at least 4).

    >>> 4 <= open_limit() <= MAX_OPEN
    True
    """
    try:
        import resource
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):     # no such limit here (Windows)
        return most
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return most
    return max(4, min(most, soft // 4))


class _Conn:
    """A connection whose request head is being read."""

    __slots__ = ("sock", "address", "head", "since")

    def __init__(self, sock: socket.socket, address, since: float):
        self.sock, self.address, self.head, self.since = sock, address, bytearray(), since


def listen(port: int) -> socket.socket:
    """The listening socket on 127.0.0.1:``port`` (0: a free port), or a
    :class:`~harmony.usage.UsageError` saying the port is taken. :func:`serve` calls it before
    it builds anything.

    >>> s = listen(0); taken = s.getsockname()[1]
    >>> listen(taken)
    Traceback (most recent call last):
    ...
    harmony.usage.UsageError: port ... on 127.0.0.1 is in use (another harmony serve?): stop it, ...
    >>> s.close()
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen(socket.SOMAXCONN)
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise UsageError(f"port {port} on 127.0.0.1 is in use (another harmony serve?): stop "
                             "it, or choose another with --port N (0 picks a free one)") from None
        if e.errno == errno.EACCES:
            raise UsageError(f"port {port} on 127.0.0.1 may not be used by this user: choose "
                             "another with --port N (1024 or above; 0 picks a free one)") from None
        raise UsageError(f"cannot listen on 127.0.0.1:{port}: {e.strerror or e}") from None
    sock.setblocking(False)
    return sock


class PreviewServer:
    """HTTP on a listening socket, bounded: one thread reads the request heads of every
    connection without blocking (a connection that sends nothing costs an open file, never a
    thread), :data:`WORKERS` threads answer them, at most :data:`MAX_OPEN` connections are
    open at once (fewer if the process may open few files: :func:`open_limit`), and a
    connection that has not sent its request line and headers within
    :data:`REQUEST_TIMEOUT` seconds is closed. When the server is full, the oldest connection
    still silent after :data:`EVICT_AFTER` seconds is closed to let a new one in (else new ones
    wait in the system's queue): a flood of idle connections cannot shut out a browser.
    A client that hangs up while it is answered is forgotten without a word.
    """

    def __init__(self, sock: socket.socket, directory: Path, state: BuildState,
                 err=None):
        self.sock, self.directory, self.state = sock, str(directory), state
        self.err = err
        self.address = sock.getsockname()
        self.handler = type("Handler", (_Handler,), {"state": state})
        self._selector = selectors.DefaultSelector()
        self._reading: dict[socket.socket, _Conn] = {}
        self._answering = 0
        self._lock = threading.Lock()
        self._jobs: queue.Queue = queue.Queue()
        self._stop = threading.Event()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._threads: list[threading.Thread] = []
        self._accept_paused_until = 0.0
        self._listening = False
        #: connections open at once, at most
        self.max_open = open_limit()

    # ------------------------------------------------------------ running
    def start(self) -> None:
        """Serve in threads of their own (daemons) until :meth:`stop`."""
        self._threads = [threading.Thread(target=self._loop, name="harmony-serve", daemon=True)]
        self._threads += [threading.Thread(target=self._work, name=f"harmony-serve-{k}", daemon=True)
                          for k in range(WORKERS)]
        for t in self._threads:
            t.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake()
        for _ in range(WORKERS):
            self._jobs.put(None)
        self._threads[0].join(timeout=5)
        for sock in list(self._reading):
            sock.close()
        self._reading.clear()
        self.sock.close()

    def open_connections(self) -> int:
        with self._lock:
            return len(self._reading) + self._answering

    def _wake(self) -> None:
        try:
            self._wake_w.send(b"\0")
        except OSError:                   # its buffer is full: the loop is awake anyway
            pass

    # ------------------------------------------------------------ the loop
    def _loop(self) -> None:
        sel = self._selector
        sel.register(self._wake_r, selectors.EVENT_READ, "wake")
        try:
            while not self._stop.is_set():
                try:
                    self._listen_when_room()
                    for key, _ in sel.select(timeout=self._next_deadline()):
                        if key.data == "wake":
                            self._drain_wake()
                        elif key.data == "listen":
                            self._accept()
                        elif key.data.sock in self._reading:
                            self._read(key.data)
                    self._expire()
                except Exception as e:    # pragma: no cover - a bug of ours: one line, go on
                    print(f"harmony serve: {type(e).__name__}: {e}", file=self.err or sys.stderr,
                          flush=True)
                    time.sleep(0.1)
        finally:
            sel.close()
            self._wake_r.close()
            self._wake_w.close()

    def _next_deadline(self) -> float:
        now = time.monotonic()
        if self._reading:
            oldest = min(c.since for c in self._reading.values())
            wait = oldest + REQUEST_TIMEOUT - now
        else:
            wait = 1.0
        if not self._listening and self._accept_paused_until > now:
            wait = min(wait, self._accept_paused_until - now)
        elif not self._listening:
            wait = min(wait, EVICT_AFTER / 2)
        return max(0.01, min(wait, 1.0))

    def _drain_wake(self) -> None:
        try:
            while self._wake_r.recv(4096):
                pass
        except OSError:
            pass

    def _listen_when_room(self) -> None:
        """Watch the listening socket only while a connection can be taken in."""
        room = self._room(time.monotonic())
        if room and not self._listening:
            self._selector.register(self.sock, selectors.EVENT_READ, "listen")
            self._listening = True
        elif not room and self._listening:
            self._selector.unregister(self.sock)
            self._listening = False

    def _room(self, now: float) -> bool:
        if now < self._accept_paused_until:
            return False
        if self.open_connections() < self.max_open:
            return True
        return any(now - c.since >= EVICT_AFTER for c in self._reading.values())

    def _accept(self) -> None:
        for _ in range(64):               # a batch, then the others get their turn
            now = time.monotonic()
            if self.open_connections() >= self.max_open and not self._evict(now):
                return
            try:
                sock, address = self.sock.accept()
            except BlockingIOError:
                return
            except OSError as e:           # out of open files (a lower limit, the build's own):
                if e.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    if not self._evict(now):   # make room, or wait a bit
                        self._accept_paused_until = now + 0.5
                        self._listen_when_room()
                return
            sock.setblocking(False)
            conn = _Conn(sock, address, now)
            self._reading[sock] = conn
            self._selector.register(sock, selectors.EVENT_READ, conn)
            self._read(conn)              # its request is often there already

    def _evict(self, now: float) -> bool:
        """Close the oldest connection that has been silent long enough; False if none has."""
        oldest = min(self._reading.values(), key=lambda c: c.since, default=None)
        if oldest is None or now - oldest.since < EVICT_AFTER:
            return False
        self._drop(oldest)
        return True

    def _drop(self, conn: _Conn) -> None:
        self._selector.unregister(conn.sock)
        del self._reading[conn.sock]
        conn.sock.close()

    def _read(self, conn: _Conn) -> None:
        try:
            data = conn.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:                      # the client hung up before asking anything
            self._drop(conn)
            return
        conn.head += data
        head = conn.head
        line_end = head.find(b"\n")
        refuse: tuple[int, str] | None = None
        if (line_end < 0 and len(head) > MAX_REQUEST_LINE) or line_end > MAX_REQUEST_LINE:
            refuse = (414, "Request line too long")
        else:
            ends = [k for k in (head.find(b"\r\n\r\n"), head.find(b"\n\n")) if k >= 0]
            if not ends and len(head) <= MAX_HEAD:
                return                    # more to come
            if not ends or min(ends) > MAX_HEAD:
                refuse = (431, "Request header fields too large")
        self._selector.unregister(conn.sock)
        del self._reading[conn.sock]
        with self._lock:
            self._answering += 1
        self._jobs.put((conn, refuse))

    def _expire(self) -> None:
        now = time.monotonic()
        for conn in [c for c in self._reading.values() if now - c.since > REQUEST_TIMEOUT]:
            self._drop(conn)

    # ------------------------------------------------------------ the workers
    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            conn, refuse = job
            try:
                conn.sock.setblocking(True)
                self.handler(conn.sock, conn.address, self, directory=self.directory,
                             head=bytes(conn.head), refuse=refuse)
                if refuse is not None:
                    _linger(conn.sock)
            except (ConnectionError, TimeoutError):
                pass                      # the browser went away (or stopped reading): fine
            except Exception as e:        # pragma: no cover - a bug of ours: one line, go on
                print(f"harmony serve: could not answer a request: {type(e).__name__}: {e}",
                      file=self.err or sys.stderr, flush=True)
            finally:
                try:
                    conn.sock.close()
                except OSError:
                    pass
                with self._lock:
                    self._answering -= 1
                self._wake()


def rebuild(rules: Path, out: Path, out_stream=sys.stdout, err=sys.stderr,
            state: BuildState | None = None, trust: Trust | None = None) -> bool:
    try:
        res = build_site(rules, out, trust=trust)
    except (OSError, WriteFailed) as e:    # a file that could not be read or written, a full disk
        problem = (str(e) if isinstance(e, WriteFailed) else
                   f"could not rebuild: {e.strerror or e}" + (f": {e.filename}" if e.filename else ""))
        print(f"harmony serve: {problem}; still serving the last good site", file=err, flush=True)
        if state is not None:
            state.set([problem])
        return False
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
    (or Ctrl-C); ``trust``: whether the clause examples may run (:mod:`harmony.trust`). The port
    is taken before the first build: a port in use is a :class:`~harmony.usage.UsageError` and
    nothing is built."""
    stop = stop or threading.Event()
    sock = listen(port)
    try:
        # Taken before the first build, so an edit made while it runs (or just
        # after) is seen as a change and rebuilt, never missed.
        seen = fingerprint(rules)
        state = BuildState()
        if not rebuild(rules, out, state=state, trust=trust) and not (out / "index.html").is_file():
            sock.close()
            return 1
    except BaseException:
        sock.close()
        raise
    server = PreviewServer(sock, out, state)
    server.start()
    print(f"serving http://127.0.0.1:{server.address[1]}/ (Ctrl-C stops)", flush=True)
    try:
        while not stop.wait(interval):
            try:
                now = fingerprint(rules)
            except OSError:                # (out of open files a moment): look again soon
                continue
            if now != seen:
                seen = now
                rebuild(rules, out, state=state, trust=trust)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0

"""``harmony serve``: a live preview on 127.0.0.1 that rebuilds when the sources change.

The rules folder, the hand-written pages and the templates are watched
(:mod:`.watch`); a burst of edits that changes their bytes starts a preview build
(:func:`~.build.build_site` with ``preview=True``: incremental, no PDF printed,
the explorer's bundle left as it was; of the pages the edit changed, only those open in a
browser when any is, :meth:`PreviewServer.open_pages`), and the open pages are told at once
(:mod:`.livereload`: server-sent events): a page whose file changed swaps in the parts
of its main content that changed (:mod:`.pageswap`), or reloads itself where the reader
was if anything else did. An edit that changed only the words of cells is shown on the
open pages before its preview builds (:mod:`.textedit`: the cells are swapped in, and the
page reloads after the preview only if its file is not what it shows). When a rebuild
fails, the last good site stays up, every page shows the problems (file, line, column,
message, as ``harmony check`` says them) over it and the terminal prints them, until a
rebuild succeeds. A moment after the last edit (:data:`SETTLE`), the PDFs the previews
left are printed in a child process (:mod:`.printing`; an edit stops it) and a full
build finishes the site, forking no printer of its own: the server's threads run by then
(a process forked beside a running thread inherits the locks it holds). Only the built
site is served: no folder listings, and the build cache lives outside it.

The port is taken (:func:`listen`) before the first build, so a port in use is
said at once, and nothing is built. :class:`PreviewServer` is bounded whatever
its clients do: one thread reads every connection's request head without
blocking, a fixed pool of threads answers, at most :data:`MAX_OPEN`
connections are open at once, a silent or slow client is closed after
:data:`REQUEST_TIMEOUT` seconds, a request line over :data:`MAX_REQUEST_LINE`
bytes gets 414, a NUL byte in the path 400, and a browser that hangs up is
forgotten without a word. A page's event stream is handed, once its head is
written, from the worker to the reading thread, which writes the events without
blocking: at most :data:`MAX_STREAMS` are open (503 past it), a stream whose
client reads nothing is closed once :data:`MAX_PENDING` bytes wait for it, and
every stream is closed when the server stops.
"""
from __future__ import annotations

import errno
import gc
import hashlib
import http.server
import io
import json
import queue
import selectors
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable, Collection, Mapping
from typing import Any
from pathlib import Path

from ..signals import Terminated
from ..outdir import WriteFailed, real
from ..trust import Trust
from ..usage import UsageError
from . import generate, pageswap, printing, sphinxapp, textedit
from .build import BuildError, BuildResult, build_site, cache_dir, checked_rules, print_jobs
from .livereload import (DIGEST_HEADER, EVENTS_PATH, RETRY_MS, STATUS_PATH, BuildState, Snapshot,
                          pages_changed, serve_page)
from .watch import WATCHED, Watcher, fingerprint, watched_files

__all__ = ["BuildState", "PreviewServer", "STATUS_PATH", "EVENTS_PATH", "WATCHED", "fingerprint", "listen",
           "rebuild", "serve", "watched_files"]


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


class _Stream:
    """A page's open event stream: its socket, the page, the generation it was last told of,
    and the bytes waiting to be sent to it."""

    __slots__ = ("sock", "page", "told", "pending")

    def __init__(self, sock: socket.socket, page: str, told: int):
        self.sock, self.page, self.told, self.pending = sock, page, told, b""


class _Handler(http.server.SimpleHTTPRequestHandler):
    """One request, whose head (request line and headers) the server has already read."""

    state: BuildState
    server: PreviewServer     # type: ignore[assignment]

    def __init__(self, request, client_address, server, *, directory: str, head: bytes,
                 refuse: tuple[int, str] | None = None):
        self._head, self._refuse = head, refuse
        #: an event stream to hand on to the server's loop, its head written
        self.stream: _Stream | None = None
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
        path, _, query = self.path.partition("?")
        if path == STATUS_PATH:
            return self._send(self.state.as_json(), "application/json")
        if path == EVENTS_PATH:
            return self._events(urllib.parse.parse_qs(query.partition("#")[0]))
        try:
            target = Path(self.translate_path(self.path))
            if target.is_dir():
                target = target / "index.html"
            served = None
            if target.suffix == ".html" and target.is_file():
                served = serve_page(self.state, target.relative_to(self.directory).as_posix(), target.read_bytes)
        except (OSError, ValueError):    # a name too long for the file system, a page replaced
            return self.send_error(404, "No such page")   # by a rebuild as it was read ...
        if served is not None:
            body, shown = served
            return self._send(body, "text/html; charset=utf-8", {DIGEST_HEADER: hashlib.sha256(shown).hexdigest()})
        return super().do_GET()

    def _events(self, query: dict[str, list[str]]) -> None:
        """Open a page's event stream: its head and the state now, then hand it on to the
        server's loop (:meth:`PreviewServer.adopt`), which sends the rest."""
        if not self.server.reserve_stream():
            return self.send_error(503, f"Too many pages open (at most {self.server.max_streams} "
                                        "are told of rebuilds)")
        try:
            page = query.get("page", [""])[0][:1000]
            since = self.headers.get("Last-Event-ID") or query.get("since", ["0"])[0]
            told, event = self.state.event(page, int(since) if since.isdigit() else 0,
                                           query.get("server", [None])[0])
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.write(f"retry: {RETRY_MS}\n\n".encode() + event)
            self.stream = _Stream(self.request, page, told)
        finally:
            if self.stream is None:
                self.server.release_stream()

    def _send(self, body: bytes, ctype: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(200)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
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
#: pages told of rebuilds at once (open event streams), at most: within :data:`MAX_OPEN`,
#: and a quarter of the connections the server keeps (:func:`open_limit`) if that is fewer
MAX_STREAMS = 32
#: bytes waiting for an event stream's client to read, at most: past it the stream is closed
MAX_PENDING = 1 << 16
#: the kernel's send buffer of an event stream, in bytes (events are small)
STREAM_BUFFER = 1 << 16
#: seconds between the comments that keep an idle event stream open (and find it gone)
HEARTBEAT = 15.0


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

    A page's event stream (:data:`EVENTS_PATH`) holds a worker only while its head is
    written; then the reading thread keeps it (:meth:`_take_streams`), tells it of each new
    build state (:meth:`tell`) and sends without blocking. At most :attr:`max_streams` are
    open (503 past it); one whose client reads nothing is closed once :data:`MAX_PENDING`
    bytes wait for it, one whose client hangs up at once, and all of them on :meth:`stop`.
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
        #: event streams open at once, at most
        self.max_streams = min(MAX_STREAMS, max(1, self.max_open // 4))
        self._streams: dict[socket.socket, _Stream] = {}
        self._stream_slots = 0            # streams open or being opened
        self._adopt: queue.SimpleQueue = queue.SimpleQueue()
        self._tell = threading.Event()    # the build state changed: tell the streams
        self._heartbeat = time.monotonic() + HEARTBEAT

    # ------------------------------------------------------------ running
    def start(self) -> None:
        """Serve in threads of their own (daemons) until :meth:`stop`."""
        self._threads = [threading.Thread(target=self._loop, name="harmony-serve", daemon=True)]
        self._threads += [threading.Thread(target=self._work, name=f"harmony-serve-{k}", daemon=True)
                          for k in range(WORKERS)]
        for t in self._threads:
            t.start()

    def stop(self) -> None:
        """Stop serving: the loop ends, every connection and event stream is closed, the
        workers end once they have answered what they were answering."""
        self._stop.set()
        self._wake()
        for _ in range(WORKERS):
            self._jobs.put(None)
        self._threads[0].join(timeout=5)
        for sock in list(self._reading) + list(self._streams):
            sock.close()
        self._reading.clear()
        self._streams.clear()
        while True:                       # streams handed on as the loop ended
            try:
                self._adopt.get_nowait().sock.close()
            except queue.Empty:
                break
        self.sock.close()

    def open_connections(self) -> int:
        with self._lock:
            return len(self._reading) + self._answering + len(self._streams)

    def open_streams(self) -> int:
        with self._lock:
            return len(self._streams)

    def open_pages(self) -> set[str]:
        """The pages open in a browser now (their docnames: ``topics/spotting``), as their
        event streams name them."""
        with self._lock:
            pages = [stream.page for stream in self._streams.values()]
        return {docname(page) for page in pages if page}

    # ------------------------------------------------------------ event streams
    def reserve_stream(self) -> bool:
        """Room for one more event stream (a worker asks before it opens one)?"""
        with self._lock:
            if self._stream_slots >= self.max_streams:
                return False
            self._stream_slots += 1
            return True

    def release_stream(self) -> None:
        with self._lock:
            self._stream_slots -= 1

    def tell(self) -> None:
        """The build state changed: tell every open page (from any thread)."""
        self._tell.set()
        self._wake()

    def _take_streams(self) -> None:
        """Adopt the streams the workers opened (in the loop's thread)."""
        while True:
            try:
                stream = self._adopt.get_nowait()
            except queue.Empty:
                return
            if self._stop.is_set():
                stream.sock.close()
                self.release_stream()
                continue
            try:
                stream.sock.setblocking(False)
                stream.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, STREAM_BUFFER)
                self._selector.register(stream.sock, selectors.EVENT_READ, stream)
            except (OSError, ValueError):
                stream.sock.close()
                self.release_stream()
                continue
            with self._lock:
                self._streams[stream.sock] = stream
            self._tell_stream(stream)     # a build may have ended while it opened

    def _tell_stream(self, stream: _Stream) -> None:
        told, event = self.state.event(stream.page, stream.told)
        if told != stream.told:
            stream.told = told
            self._send_stream(stream, event)

    def _send_stream(self, stream: _Stream, data: bytes) -> None:
        """Send what the stream's client can take now; keep the rest for when it can take
        more, unless too much waits already (a client that reads nothing): then close."""
        stream.pending += data
        try:
            sent = stream.sock.send(stream.pending)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            return self._drop_stream(stream)
        stream.pending = stream.pending[sent:]
        if len(stream.pending) > MAX_PENDING:
            return self._drop_stream(stream)
        self._selector.modify(stream.sock, selectors.EVENT_READ | (selectors.EVENT_WRITE if stream.pending else 0),
                              stream)

    def _drop_stream(self, stream: _Stream) -> None:
        with self._lock:
            if self._streams.pop(stream.sock, None) is None:
                return
            self._stream_slots -= 1
        self._selector.unregister(stream.sock)
        stream.sock.close()

    def _stream_ready(self, stream: _Stream, mask: int) -> None:
        if mask & selectors.EVENT_READ:   # a client says nothing on its stream: it hung up
            try:
                data = stream.sock.recv(4096)
            except (BlockingIOError, InterruptedError):
                data = b"?"
            except OSError:
                data = b""
            if not data:
                return self._drop_stream(stream)
        if mask & selectors.EVENT_WRITE and stream.sock in self._streams:
            self._send_stream(stream, b"")

    def _streams_due(self) -> None:
        """Tell the streams of a new state, and keep idle ones open."""
        if self._tell.is_set():
            self._tell.clear()
            for stream in list(self._streams.values()):
                self._tell_stream(stream)
        now = time.monotonic()
        if now >= self._heartbeat:
            self._heartbeat = now + HEARTBEAT
            for stream in list(self._streams.values()):
                self._send_stream(stream, b": still here\n\n")

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
                    for key, mask in sel.select(timeout=self._next_deadline()):
                        if key.data == "wake":
                            self._drain_wake()
                        elif key.data == "listen":
                            self._accept()
                        elif isinstance(key.data, _Stream):
                            if key.data.sock in self._streams:
                                self._stream_ready(key.data, mask)
                        elif key.data.sock in self._reading:
                            self._read(key.data)
                    self._take_streams()
                    self._streams_due()
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
        wait = min(wait, self._heartbeat - now)
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
            stream = None
            try:
                conn.sock.setblocking(True)
                answered = self.handler(conn.sock, conn.address, self, directory=self.directory,
                                        head=bytes(conn.head), refuse=refuse)
                stream = answered.stream
                if refuse is not None:
                    _linger(conn.sock)
            except (ConnectionError, TimeoutError):
                pass                      # the browser went away (or stopped reading): fine
            except Exception as e:        # pragma: no cover - a bug of ours: one line, go on
                print(f"harmony serve: could not answer a request: {type(e).__name__}: {e}",
                      file=self.err or sys.stderr, flush=True)
            finally:
                if stream is not None:    # an event stream: the loop sends the rest
                    self._adopt.put(stream)
                else:
                    try:
                        conn.sock.close()
                    except OSError:
                        pass
                with self._lock:
                    self._answering -= 1
                self._wake()


def rebuild(rules: Path, out: Path, out_stream=None, err=None, state: BuildState | None = None,
            trust: Trust | None = None, *, preview: bool = False, snapshot: Snapshot | None = None) -> bool:
    """Build the site once as ``harmony serve`` does (:func:`build_once`); whether it succeeded."""
    return build_once(rules, out, out_stream, err, state, trust, preview=preview, snapshot=snapshot) is not None


def docname(page: str) -> str:
    """The docname of a page of the site, as a page's event stream names it.

    >>> docname("topics/spotting.html"), docname("index.html"), docname("/topics/")
    ('topics/spotting', 'index', 'topics/index')
    """
    page = page.lstrip("/")
    if not page or page.endswith("/"):
        page += "index.html"
    return page.removesuffix(".html")


def build_once(rules: Path, out: Path, out_stream=None, err=None, state: BuildState | None = None,
               trust: Trust | None = None, *, preview: bool = False, keep: bool = False,
               snapshot: Snapshot | None = None, showing: Collection[str] = (),
               print_here: bool = False, checked: tuple | None = None,
               shown: Mapping[str, bytes] | None = None) -> BuildResult | None:
    """Build the site (a preview build if ``preview``), say so on ``out_stream`` with the
    files whose bytes changed (``snapshot``: the site as it was), and set ``state``, with the
    parts of each page in ``shown`` (its path -> the bytes a browser shows) that its rebuild
    changed, to swap in (:func:`swaps`); a failure
    is said on ``err`` (the problems as ``harmony check`` says them, or one line) and leaves
    the last good site: then None. (``keep``, ``showing``, ``print_here``: see
    :func:`build_site`.)"""
    out_stream, err = out_stream or sys.stdout, err or sys.stderr
    try:
        res = build_site(rules, out, trust=trust, preview=preview, keep=keep, showing=showing,
                         print_here=print_here, checked=checked)
    except (OSError, WriteFailed) as e:    # a file that could not be read or written, a full disk
        problem = (str(e) if isinstance(e, WriteFailed) else
                   f"could not rebuild: {e.strerror or e}" + (f": {e.filename}" if e.filename else ""))
        print(f"harmony serve: {problem}; still serving the last good site", file=err, flush=True)
        if state is not None:
            state.set([problem])
        return None
    except BuildError as e:
        problems = [str(d) for d in e.report.sorted()] if e.report is not None else []
        for d in problems:
            print(d, file=err)
        print(f"harmony serve: {e}; still serving the last good site", file=err, flush=True)
        if state is not None:
            state.set(problems or [str(e)])
        return None
    except Exception as e:                 # Sphinx or the printer stopped: one line, serve on
        problem = f"could not rebuild: {type(e).__name__}: {e}"
        print(f"harmony serve: {problem}; still serving the last good site", file=err, flush=True)
        if state is not None:
            state.set([problem])
        return None
    for w in res.warnings:
        print(w, file=err)
    changed = snapshot.update() if snapshot is not None else set()
    said = f"built {len(res.written)} page(s) in {res.seconds:.2f}s" + (" (a preview)" if res.preview else "")
    if res.left or res.first:
        said += ", the open pages first" + (f" ({len(res.left)} more to follow)" if res.left else "")
    if changed:
        names = sorted(changed, key=lambda f: (not f.endswith(".html"), f))
        said += "; changed: " + ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    print(said, file=out_stream, flush=True)
    if state is not None:
        pages = pages_changed(changed) if snapshot is not None else None
        state.set([], pages, snapshot.digest if snapshot is not None else None,
                  swaps(out, shown or {}, pages or set(), snapshot.digest) if snapshot is not None else None)
    return res


def swaps(out: Path, shown: Mapping[str, bytes], changed: Collection[str],
          digest: Callable[[str], str | None]) -> dict[str, tuple[list[str], str]]:
    """For each page of ``changed`` that a browser shows (``shown``: its path -> the bytes it
    shows), the parts of it that its file in ``out`` changed (:func:`.pageswap.changed_parts`)
    and the SHA-256 of that file (``digest``: the snapshot's, taken as it found the change);
    a page whose change is not such parts is left out (it reloads)."""
    found = {}
    for page in changed:
        sha = digest(page)
        if page not in shown or sha is None:
            continue
        try:
            now = (out / page).read_bytes()
        except OSError:
            continue
        ids = pageswap.changed_parts(shown[page], now)
        if ids:
            found[page] = (ids, sha)
    return found


#: seconds without an edit after which the PDFs a preview left are printed and the site is
#: finished by a full build
SETTLE = 2.0
#: bytes of cells (as their event writes them) swapped into one page at most (an edit of more
#: is built, and the page reloads): well within what a page's event stream may hold
#: waiting (:data:`MAX_PENDING`)
PATCH_MOST = MAX_PENDING // 4
#: seconds after a preview, without an edit, at which the whole heap is collected (a
#: preview runs no full collection: see :func:`harmony.site.build._build_collection`);
#: by then the open page has reloaded, so the collection does not hold up its requests
COLLECT_AFTER = 0.5
#: previews in a row (edits coming faster than :data:`COLLECT_AFTER`) after which the next
#: one collects first, so that the heap stays bounded however long the edits go on
MOST_UNCOLLECTED = 8


class _Editing:
    """The rebuilds of one ``harmony serve``: a preview build for each burst of edits that
    changes the sources, then, once the edits stop for :data:`SETTLE` seconds, the PDFs
    printed in a child process (an edit stops it) and a full build. Every build keeps
    Sphinx's application for the next (:mod:`.sphinxapp`)."""

    def __init__(self, rules: Path, out: Path, state: BuildState, trust: Trust | None,
                 server: PreviewServer | None = None, out_stream=None, err=None):
        self.rules, self.out, self.state, self.trust, self.server = rules, out, state, trust, server
        self.out_stream, self.err = out_stream, err
        self.cache = cache_dir(out)
        self.snapshot = Snapshot(out)
        self.seen = ""
        #: the last preview's result while the site waits to be finished, and since when
        self.unfinished: BuildResult | None = None
        self.since = 0.0
        self.printer: subprocess.Popen | None = None
        #: previews since the last full collection of the heap
        self.uncollected = 0
        #: the clock the waits are measured by (a test's own)
        self.clock = time.monotonic
        #: the rules of the last build that ended well (what a text edit is told from)
        self.model: Any = None

    def collect(self) -> None:
        """Collect the whole heap (the garbage the previews left)."""
        gc.collect()
        self.uncollected = 0

    def build(self, preview: bool, checked: tuple | None = None) -> BuildResult | None:
        """A preview makes, reads and writes the changed pages a browser has open first (all
        of them when none is open), the full build that follows the rest. Once the server
        serves, its threads run: a full build then forks no printer (it finds the PDFs that
        :mod:`.printing` printed ahead, in a process started afresh, and prints here any it
        does not: ``print_here`` of :func:`build_site`)."""
        open_pages = self.server.open_pages() if self.server is not None else set()
        res = build_once(self.rules, self.out, self.out_stream, self.err, self.state, self.trust,
                         preview=preview, keep=True, snapshot=self.snapshot,
                         showing=open_pages if preview else set(), print_here=self.server is not None,
                         checked=checked, shown=self.shown(open_pages))
        if res is not None:
            self.model = res.model
        self.unfinished = res if res is not None and res.preview else None
        self.since = self.clock()
        if res is not None and not preview:    # what was printed ahead is in the site now
            printing.prune(self.cache)
        # (settled before the pages are told: a page, or a client of the status, that hears
        # of this build then reads whether more is to come, never the last build's word)
        self.state.settle(self.unfinished is None)
        if self.server is not None:
            self.server.tell()
        return res

    def showing(self, page: str) -> bytes | None:
        """The bytes of ``page`` (its path in the site) as served now: patched, while a patch
        waits; None if there is no such page yet."""
        try:
            return self.state.shown(page) or (self.out / page).read_bytes()
        except (OSError, ValueError):
            return None

    def shown(self, pages: Collection[str]) -> dict[str, bytes]:
        """What the browsers show of ``pages`` (docnames): each page's path -> its bytes as
        served now (:meth:`showing`)."""
        found = {}
        for name in pages:
            page = f"{name}.html"
            shown = self.showing(page)
            if shown is not None:
                found[page] = shown
        return found

    def edited(self) -> None:
        """Files changed: rebuild (a preview) if their bytes did."""
        try:
            now = fingerprint(self.rules)
        except OSError:                    # (out of open files a moment): look again soon
            now = ""
        if now == self.seen and now:
            return
        self.seen = now
        self.stop_printing()
        if self.uncollected >= MOST_UNCOLLECTED:
            self.collect()
        self.uncollected += 1
        self.build(preview=True, checked=self.show_ahead())

    def show_ahead(self) -> tuple | None:
        """Read and check the edited rules; if the edit changed only the words of cells
        (:func:`.textedit.text_edits`), swap the new cells into the pages open in a browser
        at once (:meth:`patch`). The rules checked, for the preview; None when they could not
        be read (the preview reads them again, and says why)."""
        try:
            checked = checked_rules(self.rules, self.trust)
        except Exception:
            return None
        model, report = checked
        if not report.errors and self.model is not None and self.server is not None:
            try:
                self.patch(model)
            except Exception as e:       # a bug of ours: one line, and the preview shows the edit
                print(f"harmony serve: could not show the edit ahead of its rebuild: {type(e).__name__}: {e}",
                      file=self.err or sys.stderr, flush=True)
        return checked

    def patch(self, model) -> None:
        """Swap the cells whose words alone changed into the open pages that show them."""
        assert self.server is not None
        edits = textedit.text_edits(self.model, model)
        if not edits:
            return
        showing = {f"{name}.html" for name in self.server.open_pages()}
        edits = [(clause, key) for clause, key in edits if textedit.page_of(clause) in showing]
        if not edits:
            return
        # (the application is kept under the cache of the output's real path, as the build names it)
        with sphinxapp.kept(cache_dir(real(self.out)), generate.SITE, generate.conf_overrides(model)) as app:
            if app is None:
                return
            found = textedit.patches(app, model, edits)
            patched = False
            size: dict[str, int] = {}
            for p in found:
                size[p.page] = size.get(p.page, 0) + len(json.dumps(p.as_event()))
            for p in found:
                if size[p.page] > PATCH_MOST:      # (too much for its stream: it reloads once built)
                    continue
                page = self.showing(p.page)
                if page is None:           # (no such page yet: the preview makes it)
                    continue
                shown = textedit.spliced(page, p)
                if shown is not None:
                    self.state.patch(p.page, p.as_event(), shown)
                    patched = True
        if patched:
            self.server.tell()

    def idle(self) -> None:
        """No edit came: go on finishing the site."""
        if self.printer is not None:
            code = self.printer.poll()
            if code is None:
                return
            self.printer = None
            if code != 0:
                print(f"harmony serve: could not print the PDFs ({printing.failure(self.cache) or code}); "
                      "the site links those printed last", file=self.err or sys.stderr, flush=True)
                self.unfinished = None
                self.state.settle(True)
                return
            self.build(preview=False)
            return
        quiet = self.clock() - self.since
        if self.uncollected and quiet >= COLLECT_AFTER:
            self.collect()
        if self.unfinished is not None and quiet >= SETTLE:
            try:
                jobs = print_jobs(self.unfinished.model)
                self.printer = printing.start(self.cache, jobs)
            except Exception as e:         # it would fail the full build too: say why
                print(f"harmony serve: could not make the PDFs' pages: {type(e).__name__}: {e}",
                      file=self.err or sys.stderr, flush=True)
                self.unfinished = None
                self.state.settle(True)
                return
            if self.printer is None:       # (each PDF was printed from its HTML already)
                self.build(preview=False)

    def stop_printing(self) -> None:
        if self.printer is not None:
            self.printer.terminate()
            self.printer.wait()
            self.printer = None

    def run(self, changes: queue.Queue, stop: threading.Event) -> None:
        while not stop.is_set():
            busy = self.printer is not None or self.unfinished is not None
            try:
                changes.get(timeout=0.05 if busy else 0.25)
            except queue.Empty:
                self.idle()
                continue
            while True:                   # every burst that came meanwhile: one rebuild
                try:
                    changes.get_nowait()
                except queue.Empty:
                    break
            self.edited()


def serve(rules: Path, out: Path, port: int = 8000, interval: float = 0.5,
          stop: threading.Event | None = None, trust: Trust | None = None) -> int:
    """Build, serve ``out`` on 127.0.0.1:``port`` and rebuild on change until ``stop`` is set
    (or Ctrl-C); ``trust``: whether the clause examples may run (:mod:`harmony.trust`). The port
    is taken before the first build: a port in use is a :class:`~harmony.usage.UsageError` and
    nothing is built. (``interval`` is no longer used: changes are watched, not polled.)"""
    stop = stop or threading.Event()
    rules, out = Path(rules).absolute(), Path(out).absolute()
    sock = listen(port)
    changes: queue.Queue = queue.Queue()
    watcher = Watcher(rules, changes, ignore=(out, cache_dir(out)))
    try:
        state = BuildState()
        editing = _Editing(rules, out, state, trust)
        editing.seen = fingerprint(rules)
        # the first build forks its printers while no other thread runs: watching starts
        # after it, and an edit made while it ran is seen by the files' fingerprint, which the
        # first look (a burst of no path) compares with the one taken before it
        if editing.build(preview=False) is None and not (out / "index.html").is_file():
            sock.close()
            return 1
        watcher.start()
        changes.put(set())
    except BaseException:
        watcher.stop()
        sock.close()
        raise
    server = PreviewServer(sock, out, state)
    editing.server = server
    server.start()
    print(f"serving http://127.0.0.1:{server.address[1]}/ (Ctrl-C stops)", flush=True)
    try:
        editing.run(changes, stop)
    except Terminated:
        raise       # (SIGTERM: the command ends with its status, 143)
    except KeyboardInterrupt:
        pass
    finally:
        watcher.stop()
        editing.stop_printing()
        printing.prune(editing.cache)
        server.stop()
    return 0

"""PDFs printed in processes of their own: ``harmony build`` prints the site's (the rule cards,
every ruleset's rulebook) while Sphinx builds the pages.

A :class:`Job` names a PDF of the site and how to make it: its HTML (made in the printing
process) and the function that prints that HTML with WeasyPrint. :class:`Printer` forks its
workers (as many as the jobs, at most one per processor this process may run on) when its
block starts; each takes the next job not taken, skips it when its HTML is the one printed
last time, else lays it out, and keeps the PDF in a store of the build cache with its pages,
size and the hash of its HTML. :meth:`Printer.wait` gives each PDF's :class:`Printed` facts.

Laying out only what changed: a PDF whose HTML hashes as it did when it was printed is
taken from the store as it is; one that any build printed from the same HTML with the same
code is taken from :mod:`harmony.printcache` (both count as not laid out: ``printed`` is
False). A PDF is written whole (a temporary file renamed over it), and its facts are removed
before and written after it, so facts never name a PDF that is not the one in the store,
even if a worker is killed half-way.

A worker never hangs a build: :meth:`Printer.wait` notices a worker that died (its
sentinel), stops one that said nothing for :data:`TIMEOUT` seconds, and raises
:class:`PrintFailed` (one line: which PDF and why; a full disk says so). Leaving the block
stops every worker still running and removes the temporary files a stopped worker left.
Workers die with the build that started them (Linux: the parent-death signal), and leave
Ctrl-C to it.

With ``workers=0`` the jobs run in this process when the block starts, one after another:
the same PDFs, the same bytes.

>>> import tempfile
>>> job = Job("print/a.pdf", lambda: "<p>a</p>", lambda html: (html.encode() * 2, 1))
>>> with tempfile.TemporaryDirectory() as d:
...     with Printer([job], Path(d), workers=1) as p:
...         first = p.wait()["print/a.pdf"]
...     with Printer([job], Path(d), workers=0) as p:
...         again = p.wait()["print/a.pdf"]
...     p.pdf("print/a.pdf").read_bytes()
b'<p>a</p><p>a</p>'
>>> (first.pages, first.size, first.printed), again.printed
((1, 16, True), False)
"""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
import hashlib
import json
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait as wait_for
from pathlib import Path

from . import outdir, printcache

#: seconds a worker may go without a word (a PDF started or done) before it is stopped
TIMEOUT = 600.0


@dataclass(frozen=True)
class Job:
    """One PDF of the site: its path in the site, its HTML (called in the worker), and the
    function that prints HTML to ``(PDF bytes, pages)``."""

    file: str
    html: Callable[[], str]
    print: Callable[[str], tuple[bytes, int]]


@dataclass(frozen=True)
class Printed:
    """What became of a job: the PDF's pages and size in bytes, and whether it was laid out
    now (False: the store's PDF of the same HTML)."""

    file: str
    pages: int
    size: int
    printed: bool


class PrintFailed(Exception):
    """A PDF could not be printed: one line naming it and why (``no_space``: a full disk)."""

    def __init__(self, message: str, no_space: bool = False):
        super().__init__(message)
        self.no_space = no_space


def stored(store: Path, file: str) -> Path:
    """Where the store keeps the PDF that is ``file`` in the site.

    >>> stored(Path("/c/pdf"), "print/REV-rulebook.pdf").as_posix()
    '/c/pdf/print__REV-rulebook.pdf'
    """
    return store / file.replace("/", "__")


def _facts_path(pdf: Path) -> Path:
    return pdf.with_name(pdf.name + ".json")


def remove_temporaries(store: Path) -> list[Path]:
    """The temporary files of the store whose process is gone (a killed worker's), removed."""
    removed = []
    for entry in outdir.leftovers(store, r"\..+\.(\d+)\.tmp"):
        if entry.is_file():
            entry.unlink(missing_ok=True)
            removed.append(entry)
    return removed


def current(store: Path, file: str, html: str) -> Printed | None:
    """The facts of ``file`` if the store holds its PDF printed from ``html``, else None."""
    digest = hashlib.sha256(html.encode("utf-8")).hexdigest()
    pdf = stored(store, file)
    try:
        known = json.loads(_facts_path(pdf).read_text("utf-8"))
        if known["sha256"] == digest and pdf.stat().st_size == int(known["size"]):
            return Printed(file, int(known["pages"]), int(known["size"]), False)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def print_one(job: Job, store: Path) -> Printed:
    """Print ``job`` into ``store``, unless the store holds the PDF of the same HTML."""
    html = job.html()
    digest = hashlib.sha256(html.encode("utf-8")).hexdigest()
    pdf = stored(store, job.file)
    facts = _facts_path(pdf)
    known = current(store, job.file, html)
    if known is not None:
        return known
    store.mkdir(parents=True, exist_ok=True)
    facts.unlink(missing_ok=True)
    data, pages, laid_out = printcache.printed(job.print, html)
    outdir.write_whole(pdf, data)
    outdir.write_whole(facts, json.dumps({"pages": pages, "sha256": digest, "size": len(data)},
                                   sort_keys=True).encode("utf-8"))
    return Printed(job.file, pages, len(data), laid_out)


def last_printed(store: Path, files: Sequence[str]) -> dict[str, Printed]:
    """The facts of each of ``files`` as the store last printed it, whatever its HTML now
    (a preview build links the PDFs so; a file never printed is left out)."""
    found = {}
    for file in files:
        try:
            known = json.loads(_facts_path(stored(store, file)).read_text("utf-8"))
            found[file] = Printed(file, int(known["pages"]), int(known["size"]), False)
        except (OSError, ValueError, KeyError, TypeError):
            pass
    return found


def _failure(job: Job, store: Path, error: BaseException) -> PrintFailed:
    """``error`` in one line: a full disk as such, else the error's own first line."""
    if outdir.no_space(error) is not None:
        return PrintFailed(f"no space left on device writing {stored(store, job.file)}", True)
    text = str(error).strip().splitlines()
    return PrintFailed(f"cannot print {job.file}: {type(error).__name__}"
                       + (f": {text[0]}" if text else ""))


def _die_with_parent(parent: int) -> None:
    """Linux: be killed when the process that forked this one dies; else at least notice."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        libc.prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError, TypeError):   # pragma: no cover - not Linux
        pass
    if os.getppid() != parent:   # it died before the signal was asked for
        os._exit(1)


def _work(jobs: Sequence[Job], store: Path, taken, conn: Connection, parent: int) -> None:
    """A worker: take the next job until none is left, saying what it starts and finishes."""
    _die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the build's to handle
    # SIGTERM ends a printer outright, whatever the build that forked it did with it (the
    # command's is harmony.signals', which would unwind this process as Ctrl-C does and end
    # it with a traceback): the build removes what it leaves
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    while True:
        with taken.get_lock():
            index = taken.value
            taken.value += 1
        if index >= len(jobs):
            break
        conn.send(("start", index))
        try:
            done = print_one(jobs[index], store)
        except BaseException as e:   # noqa: BLE001 - told to the build, in one line
            failed = _failure(jobs[index], store, e)
            conn.send(("failed", index, str(failed), failed.no_space))
            conn.close()
            os._exit(1)
        conn.send(("printed", index, done))
    conn.send(("done",))
    conn.close()


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: Connection
    doing: int | None = None
    done: bool = False


@dataclass
class Printer:
    """Print ``jobs`` into ``store`` in ``workers`` processes (None: :func:`default_workers`;
    0: here, when the block starts), while the block runs."""

    jobs: Sequence[Job]
    store: Path
    workers: int | None = None
    results: dict[str, Printed] = field(default_factory=dict)
    #: the failure :meth:`wait` raised, if any
    failure: PrintFailed | None = None
    #: seconds :meth:`wait` spent waiting
    waited: float = 0.0
    _workers: list[_Worker] = field(default_factory=list)

    def __enter__(self) -> Printer:
        count = default_workers(len(self.jobs)) if self.workers is None else self.workers
        count = min(count, len(self.jobs))
        if count == 0:
            for job in self.jobs:
                try:
                    self.results[job.file] = print_one(job, self.store)
                except Exception as e:
                    self.failure = _failure(job, self.store, e)
                    break
            return self
        self.store.mkdir(parents=True, exist_ok=True)
        remove_temporaries(self.store)
        context = multiprocessing.get_context("fork")
        taken = context.Value("i", 0)
        gc.freeze()   # what the workers inherit stays shared: their collector never touches it
        try:
            for _ in range(count):
                receive, send = context.Pipe(duplex=False)
                process = context.Process(target=_work, name="harmony-printer", daemon=True,
                                          args=(self.jobs, self.store, taken, send, os.getpid()))
                process.start()
                send.close()
                self._workers.append(_Worker(process, receive))
        except BaseException:
            self._stop()
            raise
        finally:
            gc.unfreeze()
        return self

    def __exit__(self, *_exc) -> None:
        self._stop()

    def pdf(self, file: str) -> Path:
        """The printed PDF that is ``file`` in the site."""
        return stored(self.store, file)

    def finished(self) -> bool:
        """True when every job has its facts (nothing left to wait for)."""
        return len(self.results) == len(self.jobs)

    def wait(self) -> dict[str, Printed]:
        """Every job's facts, by file, once all are printed; :class:`PrintFailed` if one
        could not be, or a worker died or said nothing for :data:`TIMEOUT` seconds."""
        start = time.perf_counter()
        try:
            self._collect()
        finally:
            self.waited += time.perf_counter() - start
        return {job.file: self.results[job.file] for job in self.jobs}

    def _collect(self) -> None:
        if self.failure is not None:
            raise self.failure
        heard = time.monotonic()
        while not self.finished():
            live = [w for w in self._workers if not w.done]
            if not live:   # pragma: no cover - every worker said done, yet a job has no facts
                self._fail(PrintFailed("the PDF printers stopped before every PDF was printed"))
            ready = wait_for([w.conn for w in live] + [w.process.sentinel for w in live],
                             timeout=max(0.0, heard + TIMEOUT - time.monotonic()))
            if not ready:
                doing = ", ".join(self.jobs[w.doing].file for w in live if w.doing is not None)
                self._fail(PrintFailed(f"printing {doing or 'the PDFs'} made no progress in "
                                       f"{TIMEOUT:.0f} s; stopped"))
            heard = time.monotonic()
            for w in live:
                self._hear(w)
                if not w.done and w.process.sentinel in ready:
                    self._hear(w)   # what it said just before it ended
                    if not w.done:
                        w.process.join(timeout=5)   # its end is seen a moment before its status
                        what = self.jobs[w.doing].file if w.doing is not None else "the PDFs"
                        self._fail(PrintFailed(f"the process printing {what} stopped "
                                               f"({_how(w.process.exitcode)})"))

    def _hear(self, w: _Worker) -> None:
        try:
            while not w.done and w.conn.poll():
                message = w.conn.recv()
                if message[0] == "start":
                    w.doing = message[1]
                elif message[0] == "printed":
                    self.results[message[2].file] = message[2]
                    w.doing = None
                elif message[0] == "failed":
                    self._fail(PrintFailed(message[2], message[3]))
                else:
                    w.done = True
        except (EOFError, OSError):   # it closed its end: its sentinel tells the rest
            w.process.join(timeout=5)

    def _fail(self, failure: PrintFailed) -> None:
        self.failure = failure
        self._stop()
        raise failure

    def _stop(self) -> None:
        """Stop the workers still running, wait for every one, remove their temporaries."""
        for w in self._workers:
            if w.done:   # it said all it had to say, and is ending
                w.process.join(timeout=5)
            if w.process.is_alive():
                w.process.terminate()
        for w in self._workers:
            w.process.join(timeout=10)
            if w.process.is_alive():   # pragma: no cover - SIGTERM ignored
                w.process.kill()
                w.process.join()
            w.conn.close()
        if self._workers:
            remove_temporaries(self.store)
        self._workers = []


def _how(code: int | None) -> str:
    """How a process ended, in words.

    >>> _how(-9), _how(1)
    ('killed by signal 9, SIGKILL', 'exit status 1')
    """
    if code is not None and code < 0:
        return f"killed by signal {-code}, {signal.Signals(-code).name}"
    return f"exit status {code}"


def default_workers(jobs: int) -> int:
    """As many workers as jobs, at most one per processor this process may run on (while
    Sphinx runs the processors are shared; once it is done the printers have them all)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:   # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(jobs, cpus))


def size_words(size: int) -> str:
    """A file size as a reader sees it.

    >>> size_words(900), size_words(578770), size_words(3 * 1024 * 1024)
    ('1 KB', '565 KB', '3.0 MB')
    """
    if size >= 1024 * 1024:
        return f"{size / 1024 / 1024:.1f} MB"
    return f"{max(1, round(size / 1024))} KB"

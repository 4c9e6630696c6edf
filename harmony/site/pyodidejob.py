"""Work that Pyodide does under Node.js while harmony builds the explorer: run once, remembered.

Two steps of the explorer's bundle need Pyodide's own Python, which is not the Python
harmony runs on: :mod:`.bytecode` compiles the explorer's modules for it, and
:mod:`.snapshot` keeps its memory once the engine is imported. Each runs a script of its
own in the pyodide npm package under Node.js (:func:`run_node`: the ``node`` on the path,
as ``npm ci`` needs one). A :class:`Job` remembers what each made: on disk (the shared
cache of :mod:`harmony.parsecache`, a sub-folder per job, the newest few kept) and in the
process, under a key the caller derives from everything the result depends on.

Every script begins with :data:`PRELUDE`: the same randomness, clocks and program name in
every run (so Pyodide's memory is the same bytes each time), and ``startPyodide``. Most
of a run's time is Pyodide's own start (Python setting itself up: about 2.7 s of CPU here);
a run given a *start file* (a :class:`Start`) restores Pyodide from the memory
in it instead (a tenth of that), and the first run of a build, finding none, writes it:
the two runs of a build start Pyodide once.

The runs happen in a build's thread, which a Ctrl-C ends with the process, before its
own clean-up: the Node.js runs still under way are stopped, and the temporary folders
(:func:`scratch`, a :class:`Start`'s) removed, as the process exits.
"""
from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

#: the longest one run may take (Pyodide's start under Node.js is seconds)
TIMEOUT = 300

#: what every script :func:`run_node` runs begins with. Randomness and clocks that give the
#: same memory every run (Emscripten draws from node:crypto under Node.js; Node.js 18 has no
#: globalThis.crypto), a fixed program name (Emscripten keeps it in memory), the script's own
#: arguments as ``ARGS``, ``fail(error)``; and ``startPyodide(folder, restored)``: Pyodide
#: from the npm package ``folder``, ready for a snapshot. Its memory at its start is read from
#: the start file when there is one (restored: far quicker than a start); else Pyodide starts
#: afresh and its memory is written there for the next run (when it can be: else the next
#: run starts Pyodide itself). With ``restored``, the Pyodide returned is always one
#: restored from that memory, whichever run wrote it: what it holds then never depends on
#: which run started first (a restored Pyodide's memory is not that of a fresh one).
PRELUDE = r"""
const path = require("path"), fs = require("fs"), nodeCrypto = require("node:crypto");
let state = 0x2545f491;
function fill(view) {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  for (let i = 0; i < bytes.length; i += 1) {
    state ^= state << 13; state >>>= 0; state ^= state >>> 17; state ^= state << 5; state >>>= 0;
    bytes[i] = state & 255;
  }
  return view;
}
nodeCrypto.randomFillSync = fill;
if (globalThis.crypto) { globalThis.crypto.getRandomValues = fill; }
let ticks = 0;
performance.now = () => (ticks += 0.001);
Date.now = () => 946684800000;
const ARGS = process.argv.slice(2);
process.argv = ["node", "/harmony-snapshot"];
const START = process.env.HARMONY_PYODIDE_START || "";
function fail(e) { process.stderr.write(String(e && e.stack || e) + "\n"); process.exit(1); }
async function startPyodide(folder, restored) {
  const { loadPyodide } = require(path.join(folder, "pyodide.js"));
  const options = {indexURL: folder + path.sep, _makeSnapshot: true, env: {PYTHONHASHSEED: "0"},
                   stdout: () => {}, stderr: (line) => process.stderr.write(line + "\n")};
  if (START && fs.existsSync(START)) {
    return loadPyodide({...options, _loadSnapshot: new Uint8Array(fs.readFileSync(START))});
  }
  const py = await loadPyodide(options);
  if (!START && !restored) { return py; }
  const memory = py.makeMemorySnapshot();
  try {
    if (START) { fs.writeFileSync(START + ".part", memory); fs.renameSync(START + ".part", START); }
  } catch (e) { /* not written (a full disk): the next run starts Pyodide itself */ }
  return restored ? loadPyodide({...options, _loadSnapshot: memory}) : py;
}
"""

#: the machine's time zone and language, which Pyodide's memory would keep: the same in every run
ENV = {"TZ": "UTC", "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}


class NotMade(Exception):
    """Why a job made nothing (one line)."""


#: the temporary folders (:func:`scratch`) and Node.js runs (:func:`_run`) under way: a build
#: stopped by Ctrl-C ends while its Pyodide thread still runs, and that thread's own
#: clean-up never comes (:func:`_end`, run as the process exits, removes and stops them)
_FOLDERS: set[Path] = set()
_RUNS: set[subprocess.Popen] = set()
_UNDER_WAY = threading.Lock()


@atexit.register
def _end() -> None:
    """Stop the Node.js runs still under way and remove the temporary folders still there
    (a process interrupted while its Pyodide thread worked: a start file is 30 MB)."""
    with _UNDER_WAY:
        runs, folders = list(_RUNS), list(_FOLDERS)
    for run in runs:
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            run.kill()
            run.wait(timeout=5)
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


#: the file that marks a folder :func:`scratch` made (its name holds the id of its process)
MARK = ".harmony-scratch"


@contextlib.contextmanager
def scratch(prefix: str) -> Iterator[Path]:
    """A temporary folder (``prefix``, which starts with ``harmony-``, then this process's
    id, start its name), removed at the end of the block, or as the process exits if the
    block never ends (its thread stopped with the process); those left by a process killed
    outright are removed by the next process that makes one (:func:`_sweep`).

    >>> with scratch("harmony-demo-") as d:
    ...     d.is_dir(), d.name.startswith(f"harmony-demo-{os.getpid()}-"), d in _FOLDERS
    (True, True, True)
    >>> d.exists(), d in _FOLDERS
    (False, False)
    >>> with scratch("harmony-demo-") as d:
    ...     shutil.rmtree(d)          # (gone before the end of the block: no error)
    """
    assert re.fullmatch(r"harmony-[a-z]+-", prefix), prefix
    _sweep()
    folder = Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-"))
    with _UNDER_WAY:
        _FOLDERS.add(folder)
    try:
        (folder / MARK).touch()
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        with _UNDER_WAY:
            _FOLDERS.discard(folder)


#: the name of a :func:`scratch` folder: its prefix, its process's id, mkdtemp's letters
_SCRATCH = r"harmony-[a-z]+-([0-9]+)-.+"


def _sweep() -> None:
    """Remove the folders that :func:`scratch` made in processes that are gone
    (:func:`harmony.outdir.leftovers`): a process killed outright (SIGKILL, the kernel out
    of memory) runs no exit hook, and its start file is 30 MB. A folder is removed only if
    this user owns it and it holds :data:`MARK` (a process id taken again by another
    process leaves its folder, for a later sweep)."""
    if os.name != "posix":
        return
    from ..outdir import leftovers
    for entry in leftovers(Path(tempfile.gettempdir()), _SCRATCH):
        try:
            if entry.is_dir() and entry.stat().st_uid == os.getuid() and (entry / MARK).is_file():
                shutil.rmtree(entry, ignore_errors=True)
        except OSError:
            continue


class Job:
    """One kind of work: its results on disk in the cache's sub-folder ``kind`` (files
    ``KEY.suffix``, the newest ``keep`` kept) and the last one in the process.

    >>> import os
    >>> os.environ["HARMONY_CACHE"] = "off"
    >>> job = Job("demo", "bin", keep=1)
    >>> job.result("k1", lambda: b"made")
    b'made'
    >>> def refuse(): raise NotMade("no way")
    >>> job.result("k1", refuse), job.result("k2", refuse)
    (b'made', 'no way')
    >>> del os.environ["HARMONY_CACHE"]
    """

    def __init__(self, kind: str, suffix: str, keep: int,
                 valid: Callable[[bytes], bool] = lambda data: True) -> None:
        self.kind, self.suffix, self.keep, self.valid = kind, suffix, keep, valid
        #: the result made last in this process, by its key: the bytes, or why there are none
        self.memo: dict[str, bytes | str] = {}

    def hasher(self, pyodide: Path, code: str | os.PathLike) -> hashlib._Hash:
        """The start of a key of this job: its kind, the code of the module ``code`` that
        runs it and of this one (:data:`PRELUDE`), and the version of the Pyodide of
        ``pyodide``; the caller adds what else its result depends on."""
        return hashlib.sha256(f"harmony-{self.kind}\0".encode() + Path(code).read_bytes()
                              + Path(__file__).read_bytes() + (pyodide / "package.json").read_bytes() + b"\0")

    def result(self, key: str, make: Callable[[], bytes]) -> bytes | str:
        """What ``make()`` gives (or gave before, in this process or on disk) under ``key``,
        or the one line saying why it gives nothing (it raised :class:`NotMade`)."""
        if key not in self.memo:
            self._obtain(key, make)
        return self.memo[key]

    def _obtain(self, key: str, make: Callable[[], bytes]) -> None:
        try:
            data = self._recalled(key)
            if data is None:
                data = make()
                self._remember(key, data)
            result: bytes | str = data
        except NotMade as e:
            result = str(e)
        self.memo.clear()                   # one result kept in the process (harmony serve)
        self.memo[key] = result

    def _folder(self) -> Path | None:
        from ..parsecache import folder
        return folder(self.kind)

    def _recalled(self, key: str) -> bytes | None:
        store = self._folder()
        path = None if store is None else store / f"{key}.{self.suffix}"
        if path is None or not path.is_file():
            return None
        try:
            data = path.read_bytes()
        except OSError:
            return None
        return data if self.valid(data) else None

    def _remember(self, key: str, data: bytes) -> None:
        """Keep ``data`` on disk (written whole: a temporary file renamed into place), and
        the newest :attr:`keep` results; a cache that cannot be written is no error."""
        store = self._folder()
        if store is None:
            return
        tmp = None
        try:
            store.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=store)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, store / f"{key}.{self.suffix}")
            tmp = None
            kept = sorted(store.glob(f"*.{self.suffix}"), key=lambda p: p.stat().st_mtime, reverse=True)
            for old in kept[self.keep:]:
                old.unlink(missing_ok=True)
        except OSError:
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)


class Start:
    """The start file the runs of one build share (``with Start() as start``): in a
    temporary folder made only when a run starts Pyodide (a build whose results are all
    remembered makes none), and removed with it at the end; or in ``folder``, if given
    (which is neither made nor removed).

    >>> with Start() as start:
    ...     start.folder is None
    True
    >>> Start(Path("/f")).file().as_posix()
    '/f/start.bin'
    """

    def __init__(self, folder: Path | None = None) -> None:
        self.folder, self._given = folder, folder
        self._made = contextlib.ExitStack()     # the folder made here: a :func:`scratch`

    def __enter__(self) -> Start:
        return self

    def __exit__(self, *_exc) -> None:
        self._made.close()
        self.folder = self._given

    def file(self) -> Path:
        """Where Pyodide's memory at its start is (or is to be written)."""
        if self.folder is None:
            self.folder = self._made.enter_context(scratch("harmony-pyodide-"))
        return self.folder / "start.bin"


def run_node(runner: str, args: list[str], doing: str, made: Path, env: dict[str, str] | None = None,
             start: Start | None = None) -> bytes:
    """Run the Node.js script ``runner`` (its text, after :data:`PRELUDE`) with ``args``
    and ``env`` (over :data:`ENV`), Pyodide's memory at its start read from ``start``'s
    file if it exists, else written there: the bytes of the file ``made`` it writes.
    :class:`NotMade` says why it failed (or made nothing), in one line naming what it was
    ``doing`` ("compile it for Pyodide")."""
    node = shutil.which("node")
    if node is None:
        raise NotMade(f"no Node.js (`node`) on the path to {doing}")
    with scratch("harmony-node-") as tmp:
        script = tmp / "run.cjs"
        script.write_text(PRELUDE + runner, "utf-8")
        given = dict(ENV, **(env or {}), HARMONY_PYODIDE_START=str(start.file()) if start is not None else "")
        try:
            returncode, stderr = _run([node, str(script), *args], dict(os.environ, **given))
        except (OSError, subprocess.TimeoutExpired) as e:
            raise NotMade(f"Node.js could not {doing} ({type(e).__name__})") from None
    if returncode != 0:
        # the last line naming an error (Python's own, under Pyodide's PythonError)
        lines = [x.strip() for x in stderr.splitlines() if x.strip() and not x.startswith(" ")]
        named = [x for x in lines if re.match(r"\w*(Error|Exception)\b", x) and "Traceback" not in x]
        said = (named or lines or ["no message"])[-1]
        raise NotMade(f"Node.js could not {doing}: {said[:200]}")
    if not made.is_file() or made.stat().st_size == 0:
        raise NotMade(f"Node.js could not {doing}: no message")
    return made.read_bytes()


def _run(argv: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Run ``argv`` (a Node.js run, stopped after :data:`TIMEOUT` seconds or when this
    process exits): its exit code and error output.

    >>> import sys
    >>> _run([sys.executable, "-c", "import sys; sys.stderr.write('no'); sys.exit(3)"], dict(os.environ))
    (3, 'no')
    >>> _RUNS
    set()
    """
    run = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, env=env)
    with _UNDER_WAY:
        _RUNS.add(run)
    try:
        _out, err = run.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        run.kill()
        run.communicate()
        raise
    finally:
        with _UNDER_WAY:
            _RUNS.discard(run)
    return run.returncode, err

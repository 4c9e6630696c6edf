"""Build the static site: check the rules, stage the pages, run Sphinx in-process.

The output folder holds the HTML and nothing else, so it can be published as
it is. The cache lives beside it, never inside (``build/.site.harmony-cache``
for ``build/site``): the staged sources (``src/``), Sphinx's environment and
doctrees (``doctrees/``), Sphinx's own output (``html/``) and the printed PDFs
(``printed/``), so a rebuild re-reads and re-writes only the pages whose
generated source changed, and lays out only the PDFs whose HTML changed.

The PDFs (the rule cards, each ruleset's rulebook) are printed in processes of
their own while Sphinx builds the pages (:mod:`harmony.printer`); the links that say a
PDF's pages and size get their words as each page is written (:mod:`.pdflinks`),
and the PDFs are copied into the site once Sphinx is done. The printers write
only into the cache, while this build holds the lock, and die with it; one that
fails fails the build in one line, before anything is published.

A build never leaves the output torn or stale:

* a lock in the cache folder lets one build at a time write an output folder
  (a second one says it waits, then waits);
* Sphinx writes into the cache; the finished site is copied to a staging
  folder beside the output and swapped in whole, so a build killed at any
  moment leaves the previous site as it was;
* a build that was killed leaves a mark in the cache, and the next one starts
  Sphinx afresh instead of trusting what it left; a build that fails removes its
  staging folder, and the next one removes any that a killed build left beside the
  output (only folders named as harmony names them, ``.NAME.staging-PID`` and
  ``.NAME.old-PID``, whose process is gone);
* a staged source whose bytes differ from those of the last finished build is
  given a new time, so Sphinx re-reads by content, not by file time.

A preview build (``preview=True``, what ``harmony serve`` runs after an edit) is the
same but for what takes long and shows the edit least: it writes no PDF (each stays as
last printed, linked with its size and pages then), leaves the explorer's bundle and
the rule coverage page (:data:`generate.PREVIEW_LEAVES`) as the last build made them, and
indexes no page for search (:mod:`.searchlater`: the full build after it does).
:func:`print_jobs` lists what a full build would print, for :mod:`harmony.site.printing`
to print ahead of it; a full build then finishes the site, taking what was printed.

The output is only ever a folder harmony may write (:func:`harmony.outdir.folder`:
missing, empty, or a site harmony built, which carries the stamp file
:data:`harmony.outdir.SITE_STAMP`); anything else is refused before the build starts.
A full disk is one line (:class:`harmony.outdir.WriteFailed`).
"""
from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import fcntl
import gc
import hashlib
import json
import os
import re
import shutil
import stat
import sys
import time
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .. import game
from ..check import check_path
from .. import outdir, parsecache
from ..diagnostics import Report
from ..trust import Trust
from ..rulebook import site as rulebook_site
from .. import printer
from . import explorer, generate, pdflinks, printing as ahead, searchlater, sphinxapp

CACHE = outdir.SITE_CACHE
#: in the cache: present while Sphinx writes, so a killed build is noticed
UNFINISHED = "unfinished"
#: in the cache: the printed PDFs, each with its facts (:mod:`harmony.printer`)
PRINTED = ahead.STORE
#: in the cache: what the site's links say of each PDF, as the last finished build wrote them
LINK_WORDS = "doctrees/harmony-pdf-words.json"


def cache_dir(out: Path) -> Path:
    """Where the build cache of ``out`` lives: beside it, never inside.

    >>> cache_dir(Path("/tmp/build/site")).as_posix()
    '/tmp/build/.site.harmony-cache'
    """
    return outdir.site_cache(out)


class BuildError(Exception):
    """The rules have errors (``report``) or Sphinx could not build."""

    def __init__(self, message: str, report: Report | None = None):
        super().__init__(message)
        self.report = report


@dataclass
class BuildResult:
    out: Path
    staged: generate.Staged
    #: pages Sphinx wrote (docnames, plus genindex and search, in write order)
    written: list[str] = field(default_factory=list)
    #: docnames Sphinx re-read from their sources
    read: list[str] = field(default_factory=list)
    #: docnames a preview left for the next build to read and write (whose sources changed,
    #: or that Sphinx would have written)
    left: list[str] = field(default_factory=list)
    #: a preview that made, read and wrote only the pages open in a browser (the next full
    #: build makes the others anew, and so reads and writes those that changed)
    first: bool = False
    warnings: list[str] = field(default_factory=list)
    extras: list[str] = field(default_factory=list)
    #: the PDFs laid out by this build (the others were printed before from the same HTML)
    printed: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: seconds spent loading and checking the rules, generating the pages, in Sphinx
    phases: dict[str, float] = field(default_factory=dict)
    #: one line on the explorer's bundle: what was bundled, or how to bundle it
    explorer: str = ""
    #: a preview build (no PDF written, the explorer's bundle left): not the site a full
    #: build makes
    preview: bool = False
    #: the rules, checked
    model: object = None

    @property
    def index(self) -> Path:
        return self.out / "index.html"


def code_version() -> int:
    """A number that changes when the extension's code changes (Sphinx then re-reads all)."""
    h = hashlib.sha256()
    here = Path(__file__).resolve().parent
    # the built-in games draw the diagrams the pages hold (harmony/games/*/svg.py ...)
    games = sorted((here.parent / "games").rglob("*.py"))
    for p in sorted(here.glob("*.py")) + games + [here.parent / "markup.py"]:
        if p.is_file():
            h.update(p.name.encode() + b"\0" + p.read_bytes())
    return int(h.hexdigest()[:8], 16)


def write_if_changed(path: Path, data: bytes) -> bool:
    if path.is_file() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return True


def _link_words(printed: dict[str, printer.Printed]) -> dict[str, str]:
    """What the site's links say of each printed PDF or EPUB (:mod:`.pdflinks`)."""
    return {f: pdflinks.facts_words(p.pages, p.size, f) for f, p in printed.items()}


def _print_error(failure: printer.PrintFailed) -> Exception:
    """A PDF that could not be printed, as the build says it: a full disk as such."""
    return outdir.WriteFailed(str(failure)) if failure.no_space else BuildError(str(failure))


def sphinx_warnings(text: str, staged: Path, site_dir: Path,
                    pages: dict[str, Path] | None = None) -> list[str]:
    """Sphinx's warnings, one per entry, with staged copies of hand-written pages named by
    their real path (``rules_data/pages/authoring.rst:95: WARNING: ...``; ``pages``: each
    hand-written page by its staged name, :func:`generate.hand_pages`, else ``site_dir``'s)."""
    entries: list[str] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        if line.startswith((" ", "\t")) and entries:
            entries[-1] += "\n" + line
        else:
            entries.append(line)
    prefix = str(staged) + os.sep
    out = []
    for e in entries:
        if e.startswith(prefix):
            rel = e[len(prefix):].split(":", 1)[0]
            real = pages.get(rel) if pages is not None else (site_dir / rel)
            if "/" not in rel and real is not None and real.is_file():
                e = str(real) + e[len(prefix) + len(rel):]
        out.append(e)
    return out


@contextmanager
def locked(cache: Path, out: Path, status=None):
    """Hold the lock of ``out`` (a file in its cache) while the block runs; a second
    build of the same folder waits for the first, and says so."""
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / "lock", "a+b") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"harmony: another build is writing {out}; waiting for it to finish",
                  file=status or sys.stderr, flush=True)
            fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one atomic step (Linux renameat2); False where not supported."""
    libc_name = ctypes.util.find_library("c")
    if not libc_name:
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    fn = getattr(libc, "renameat2", None)
    if fn is None:
        return False
    at_fdcwd, rename_exchange = -100, 2
    if fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    if ctypes.get_errno() in (errno.EINVAL, errno.ENOSYS, errno.EPERM):
        return False
    raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()), str(a))


def _stage(html: Path, staging: Path, out: Path) -> None:
    """Copy ``html`` to ``staging``; a file the published site ``out`` holds as it is in
    ``html`` (the same size and time: :func:`shutil.copy2` keeps the time, and a file
    written again gets a new one) is linked from ``out`` instead of copied. No file of a
    published site is ever written in place (a publish replaces the folder), so a link
    shares bytes that no longer change; where links cannot be made, it is copied.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     h, s, o = Path(d, "html"), Path(d, "staging"), Path(d, "out")
    ...     (h / "sub").mkdir(parents=True)
    ...     for name in ("same.js", "sub/page.html", "sub/same-size.html"):
    ...         _ = (h / name).write_text("old")
    ...         os.utime(h / name, ns=(10**18, 10**18))
    ...     _ = shutil.copytree(h, o)
    ...     _ = (h / "sub" / "page.html").write_text("new!")                 # another size
    ...     _ = (h / "sub" / "same-size.html").write_text("new")             # a new time
    ...     _stage(h, s, o)
    ...     [(p.relative_to(s).as_posix(), p.read_text(), p.stat().st_nlink)
    ...      for p in sorted(s.rglob("*")) if p.is_file()]
    [('same.js', 'old', 2), ('sub/page.html', 'new!', 1), ('sub/same-size.html', 'new', 1)]
    """
    def put(src: str, dst: str) -> None:
        published = out / os.path.relpath(src, html)
        try:
            a, b = os.stat(src), os.stat(published, follow_symlinks=False)
            if stat.S_ISREG(b.st_mode) and (a.st_size, a.st_mtime_ns) == (b.st_size, b.st_mtime_ns):
                os.link(published, dst)
                return
        except OSError:
            pass
        shutil.copy2(src, dst)
    shutil.copytree(html, staging, copy_function=put)


def publish(html: Path, out: Path) -> None:
    """Put a copy of ``html`` at ``out`` whole: copied to a staging folder beside ``out``
    (:func:`_stage`: what did not change is linked from the site published last), then
    swapped in, so a reader (or a build killed half-way) never sees a mix. A copy
    that fails (a full disk) removes its staging folder and leaves ``out`` as it was."""
    staging = out.parent / f".{out.name}.staging-{os.getpid()}"
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    for leftover in (staging, old):
        shutil.rmtree(leftover, ignore_errors=True)
    try:
        _stage(html, staging, out)
        if out.is_dir() and not out.is_symlink() and _exchange(staging, out):
            shutil.rmtree(staging, ignore_errors=True)   # now the old site
            return
        if out.exists():
            os.rename(out, old)
        os.rename(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    shutil.rmtree(old, ignore_errors=True)


def remove_leftovers(out: Path) -> list[Path]:
    """Remove the staging and old-site folders a killed build of ``out`` left beside it:
    only those named as :func:`publish` names them, whose process is gone; the removed.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     for name in (".site.staging-999999999", ".site.old-999999999", ".site.staging-x",
    ...                  ".other.staging-999999999"):
    ...         (Path(d) / name).mkdir()
    ...     [p.name for p in remove_leftovers(Path(d) / "site")]
    ...     sorted(p.name for p in Path(d).iterdir())
    ['.site.old-999999999', '.site.staging-999999999']
    ['.other.staging-999999999', '.site.staging-x']
    """
    removed = []
    for entry in outdir.leftovers(out.parent, rf"\.{re.escape(out.name)}\.(?:staging|old)-(\d+)"):
        if entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    return removed


def recover(out: Path) -> None:
    """Undo a swap cut off between its two renames: the old site comes back."""
    if not out.exists():
        olds = sorted(out.parent.glob(f".{out.name}.old-*"))
        if olds:
            os.rename(olds[-1], out)


def _read_json(path: Path) -> dict:
    """The JSON object in ``path``; empty when there is none (or it cannot be read)."""
    try:
        found = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _touch_changed(src: Path, manifest: Path) -> None:
    """Give every staged source whose bytes differ from the last finished build a new
    time, so Sphinx's time-based check sees every change of content."""
    last = _read_json(manifest)
    now = time.time()
    for path in sorted(src.rglob("*")):
        if path.is_file():
            rel = path.relative_to(src).as_posix()
            if last.get(rel) != hashlib.sha256(path.read_bytes()).hexdigest():
                os.utime(path, (now, now))


def _write_manifest(src: Path, manifest: Path) -> None:
    hashes = {p.relative_to(src).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
              for p in sorted(src.rglob("*")) if p.is_file()}
    write_if_changed(manifest, json.dumps(hashes, indent=0, sort_keys=True).encode("utf-8"))


#: the whole-heap threshold of a preview: never reached (see :func:`_build_collection`)
NO_FULL_COLLECTION = 2**31 - 1
#: the thresholds of the two young generations in a build: Python's own
YOUNG_THRESHOLDS = (700, 10)
#: the collector's thresholds in a full build: the oldest generation collected once in a
#: hundred collections of the middle one (Python's default: ten), of what the build made
#: (see :func:`_build_collection`)
FULL_BUILD_THRESHOLDS = (*YOUNG_THRESHOLDS, 100)
#: the collector's thresholds in a preview: the young generations as often, the oldest never
PREVIEW_THRESHOLDS = (*YOUNG_THRESHOLDS, NO_FULL_COLLECTION)


@contextmanager
def _build_collection(full: bool = True) -> Iterator[None]:
    """The collector as a build wants it, for the while. A command runs with seldom
    collections (:data:`harmony.cli.COLLECTOR_THRESHOLDS`), right for a model, which makes
    little cyclic garbage; Sphinx's doctrees are cycles (every node knows its parent), and
    left to seldom collections a 930-clause build peaked at 1.26 GB instead of 0.9 GB.

    A full build first collects the whole heap, then freezes what is left
    (:func:`gc.freeze`): the modules, the model, whatever the process held before. Its
    collections then walk only what the build made, and the oldest generation is collected
    at :data:`FULL_BUILD_THRESHOLDS`. At Python's default thresholds, six full collections
    walked the whole growing heap again and again: about 2.4 s of the 5.7 to 6.4 s of CPU
    of a cold build's main process, for the shipped rules (bench/RESULTS.md, session 26).
    At the end, what was frozen is thawed (:func:`gc.unfreeze`: all of it, so should the
    caller have frozen objects, they are its no more) and the caller's thresholds come
    back. Nothing is garbage when it is frozen, so a process that builds again and again
    (``harmony serve``, a test run) holds at most one build's garbage at a time.

    Not ``full`` (a preview): nothing frozen, the young garbage collected as often, the
    whole heap never: in ``harmony serve``, whose process holds Sphinx's application as
    well, one full collection still came in nearly every preview and took a sixth of a
    one-line edit's rebuild (0.12 of 0.78 s CPU), so the caller collects after the page was
    told (:mod:`.serve`).

    >>> import gc
    >>> with _build_collection(full=False):
    ...     gc.get_threshold() == PREVIEW_THRESHOLDS, gc.get_freeze_count()
    (True, 0)
    >>> with _build_collection():
    ...     gc.get_threshold() == FULL_BUILD_THRESHOLDS, gc.get_freeze_count() > 0
    (True, True)
    >>> gc.get_freeze_count()
    0
    """
    was = gc.get_threshold()
    if full:
        gc.collect()
        gc.freeze()
    gc.set_threshold(*(FULL_BUILD_THRESHOLDS if full else PREVIEW_THRESHOLDS))
    try:
        yield
    finally:
        gc.set_threshold(*was)
        if full:
            gc.unfreeze()


def _drop_empty_search_terms(app) -> list:
    """``html-collect-pages`` (run before the search index is written): Sphinx keeps, from
    build to build, every word it ever indexed, with the pages that hold it; a word no page
    holds any more stays with no page, and the index of an incremental build differs from
    a clean one's. The words of no page are dropped, so the two are the same bytes."""
    indexer = getattr(app.builder, "indexer", None)
    if indexer is None:
        return []
    indexer.prune(app.env.all_docs)
    for name in ("_mapping", "_title_mapping"):
        mapping = getattr(indexer, name, None)
        if isinstance(mapping, dict):
            for word in [w for w, pages in mapping.items() if not pages]:
                del mapping[word]
    return []


#: Sphinx's warning for a page it could not write (it goes on with the next page)
_WRITE_FAILED = re.compile(r"error writing file (.+?): \[Errno (\d+)\]")


def _no_space_in(warnings: str) -> None:
    """Sphinx says a full disk as a warning per page and goes on: stop at the first.

    >>> _no_space_in("WARNING: error writing file /o/a.html: [Errno 28] No space left on device")
    Traceback (most recent call last):
    ...
    harmony.outdir.WriteFailed: no space left on device writing /o/a.html
    """
    for m in _WRITE_FAILED.finditer(warnings):
        if int(m.group(2)) in (errno.ENOSPC, errno.EDQUOT):
            raise outdir.WriteFailed(f"no space left on device writing {m.group(1)}")


def build_site(rules: str | os.PathLike, out: str | os.PathLike, *, status=None,
               site_dir: Path = generate.SITE, cache: str | os.PathLike | None = None,
               trust: Trust | None = None, preview: bool = False, keep: bool = False,
               showing: Collection[str] = (), print_here: bool = False,
               checked: tuple | None = None) -> BuildResult:
    """Build the site of ``rules`` into ``out``; raises :class:`BuildError` on rule errors.

    ``cache`` defaults to :func:`cache_dir` of ``out``; ``trust`` (default: as the
    environment says, :meth:`Trust.of`) whether the clause examples may run; ``preview``:
    print no PDF and leave the explorer's bundle (see the module's notes); ``keep``: keep
    Sphinx's application for the next build of this output in this process
    (:mod:`.sphinxapp`), and use the one kept by the last; ``showing`` (a preview's): the
    pages open in a browser (docnames), which are the only changed pages a preview reads
    and writes when any is given (:func:`.sphinxapp.showing_first`; the next full build
    makes the rest). ``print_here``: the PDFs not remembered are printed in this process,
    not in processes forked from it (for a process that runs other threads, as
    ``harmony serve`` does: a process forked beside a running thread inherits the locks it
    held at that moment, a buffered stream's among them, and can wait for one for ever).
    ``checked``: the rules as the caller has just read and checked them (the model and its
    report, read as ``trust`` lets: :func:`checked_rules`), not read again here.
    """
    start = time.perf_counter()
    given = out
    out = outdir.folder(out, "site", "--out", rules)
    model, report = checked if checked is not None else checked_rules(rules, trust)
    if report.errors:
        raise BuildError(f"{len(report.errors)} error(s) in {rules}: fix them first", report)
    cache_path = Path(cache).resolve() if cache else cache_dir(out)
    if out == cache_path or out in cache_path.parents:
        raise BuildError(f"the cache {cache_path} may not be inside the output folder {out}")
    with outdir.writing(given):
        out.parent.mkdir(parents=True, exist_ok=True)
        with locked(cache_path, out, status):
            recover(out)
            remove_leftovers(out)
            outdir.folder(out, "site", "--out", rules)   # again, now that no one else writes it
            return _build(model, out, cache_path, status, site_dir, start, rules, trust, preview, keep,
                          showing, print_here)


def checked_rules(rules: str | os.PathLike, trust: Trust | None = None) -> tuple:
    """The rules of ``rules`` read and checked as a build reads them: the model and the report."""
    with game.reading_as(trust):   # a game module of the folder loads only if it may run
        return check_path(rules)


def print_jobs(model) -> list[printer.Job]:
    """What a full build of ``model`` prints (:class:`harmony.printer.Job`; one whose HTML
    is the one printed last is not laid out again), for :mod:`.printing` to print ahead."""
    extras = generate.extra_pages(model)
    extras.update(rulebook_site.extras(model))
    return [job for page in extras.values() for job in page.get("pdfs", [])]


def _bundle(model, rules, cache: Path, html: Path, result: BuildResult) -> None:
    """Write the explorer's bundle into ``html`` (and remove what it no longer holds). The
    files made from Pyodide's are the same for every site: they are kept in the user's
    harmony cache, so that a build into a new folder does not compress 10 MB again (else,
    with that cache off, in the build's)."""
    shared = parsecache.folder("explorer")
    bundle = explorer.plan(model, rules, cache=cache if shared is None else shared)
    result.explorer = bundle.note
    for name, data in sorted(bundle.files.items()):
        if write_if_changed(html / explorer.FOLDER / name, data):
            result.extras.append(f"{explorer.FOLDER}/{name}")
    if not bundle.files:
        shutil.rmtree(html / explorer.FOLDER, ignore_errors=True)
    elif (html / explorer.FOLDER).is_dir():
        for stale in sorted((html / explorer.FOLDER).iterdir()):
            if stale.name not in bundle.files:
                stale.unlink()


def _sources(model, src: Path, site_dir: Path, extras: dict, trust: Trust | None, preview: bool,
             showing: Collection[str]) -> tuple[dict[str, str], set[str], bool]:
    """The generated sources to stage in ``src``, the names of those left as the last build
    staged them (not made, not read), and whether only the open pages were made.

    Every page is made anew, but in a preview the rule coverage
    (:data:`.generate.PREVIEW_LEAVES`) and, when pages are open in a browser
    (``showing``, docnames) and no page came or went, every page but those open are left
    (a text edit made every page again, to read one); the next full build makes them all,
    and so reads those that changed."""
    made = generate.makers(model, site_dir, extras, trust)
    left = set(generate.PREVIEW_LEAVES) if preview else set()
    first = False
    if preview and showing:
        staged = {p.relative_to(src).as_posix() for p in src.rglob("*") if p.is_file()} if src.is_dir() else set()
        first = staged == set(made) | set(generate.hand_pages(model, site_dir))
        if first:
            left |= set(made) - {f"{docname}.rst" for docname in showing}
    return {name: make() for name, make in made.items() if name not in left}, left, first


def _build(model, out: Path, cache: Path, status, site_dir: Path, start: float,
           rules, trust: Trust | None = None, preview: bool = False, keep: bool = False,
           showing: Collection[str] = (), print_here: bool = False) -> BuildResult:
    from sphinx.util.console import nocolor

    checked = time.perf_counter()
    html = cache / "html"
    mark = cache / UNFINISHED
    if mark.exists():   # the last build was killed while writing: trust nothing it left
        sphinxapp.forget(cache)
        for sub in ("html", "doctrees"):
            shutil.rmtree(cache / sub, ignore_errors=True)
    extras = generate.extra_pages(model)
    extras.update(rulebook_site.extras(model))   # print/KEY-rulebook.pdf, linked
    jobs = [job for page in extras.values() for job in page.get("pdfs", [])]
    # a preview prints nothing: it links each PDF as the store last printed it
    explorer.settle()   # (no thread of an earlier build may run while the printers fork)
    # the printers print while Sphinx runs (print_here: in this process, before it)
    with printer.Printer([] if preview else jobs, cache / PRINTED,
                         workers=0 if print_here else None) as printing:
        if not preview:     # the explorer's Python compiled for Pyodide while the pages are built,
            explorer.prepare(model)     # in a thread begun once the printers are forked
        if preview:
            last = printer.last_printed(cache / PRINTED, [job.file for job in jobs])
            words = pdflinks.Words(lambda: _link_words(last), lambda: True, _read_json(cache / LINK_WORDS))
        else:
            words = pdflinks.Words(lambda: _link_words(printing.wait()), printing.finished,
                                   _read_json(cache / LINK_WORDS))
        files, left, first = _sources(model, cache / "src", site_dir, extras, trust, preview, showing)
        staged = generate.stage(files, cache / "src", site_dir, model, keep=left)
        _touch_changed(cache / "src", cache / "src-hashes.json")
        generated = time.perf_counter()
        nocolor()
        result = BuildResult(out=out, staged=staged, preview=preview, model=model, first=first)
        bundled = False

        def bundle() -> None:   # once, while the PDFs print: before Sphinx writes the pages linking them
            nonlocal bundled
            if not bundled:
                bundled = True
                _bundle(model, rules, cache, html, result)

        mark.write_text("a build started and did not finish\n", encoding="utf-8")
        overrides = generate.conf_overrides(model)
        with _build_collection(full=not preview), \
                sphinxapp.application(cache, site_dir, overrides, status, keep) as (app, warnings):
            listeners = [
                app.connect("html-page-context", lambda _a, pagename, *_r: result.written.append(pagename)),
                app.connect("env-before-read-docs", lambda _a, _e, docnames: result.read.extend(sorted(docnames))),
                app.connect("html-collect-pages", _drop_empty_search_terms),
                *words.connect(app)]
            try:
                with contextlib.ExitStack() as during:
                    if preview and showing:
                        result.left = during.enter_context(sphinxapp.showing_first(app, showing))
                    if preview:
                        during.enter_context(sphinxapp.parents_when_needed(app))
                        during.enter_context(searchlater.leave_to_full_build(app, cache))
                    else:
                        during.enter_context(searchlater.index_again(app, cache))
                        during.enter_context(pdflinks.linking_last(app, bundle))
                    app.build(force_all=False)
            except Exception:
                if printing.failure is not None:   # Sphinx wraps what its event handlers raise
                    raise _print_error(printing.failure) from None
                raise
            finally:
                for listener in listeners:
                    app.disconnect(listener)
            warned = warnings.getvalue()
        built = time.perf_counter()
        _no_space_in(warned)
        if not preview:     # (a preview leaves the bundle as the last full build made it)
            bundle()
        try:
            printed = last if preview else printing.wait()
        except printer.PrintFailed as e:
            raise _print_error(e) from None
        for name, page in sorted(extras.items()):
            if "render" in page and not all(job.file in printed for job in jobs):
                continue    # (a preview of PDFs never printed: the page waits for the full build)
            text = page["render"](printed) if "render" in page else page["html"]
            if write_if_changed(html / page["file"], text.encode("utf-8")):
                result.extras.append(page["file"])
            for job in page.get("pdfs", []) if not preview else []:
                if write_if_changed(html / job.file, printing.pdf(job.file).read_bytes()):
                    result.extras.append(job.file)
    result.printed = sorted(f for f, p in printed.items() if p.printed)
    outdir.stamp(html, "site")
    _write_manifest(cache / "src", cache / "src-hashes.json")
    write_if_changed(cache / LINK_WORDS, json.dumps(words.words(), indent=0, sort_keys=True).encode("utf-8"))
    mark.unlink()
    publish(html, out)
    result.warnings = sphinx_warnings(warned, cache / "src", site_dir,
                                      generate.hand_pages(model, site_dir))
    result.seconds = time.perf_counter() - start
    result.phases = {"load and check": checked - start, "generate": generated - checked,
                     "sphinx": built - generated, "extras": time.perf_counter() - built,
                     "waiting for the PDFs": printing.waited}
    return result

"""What ``harmony serve`` watches, and the thread that watches it.

A build reads the rules folder's YAML files, its own pages and its game module
(:data:`WATCHED`), and the generator's site sources and templates; :class:`Watcher`
is told of each change by the operating system (the ``watchfiles`` library, polling
only where the system cannot tell), and hands on each burst of changes a moment
(:data:`STEP_MS`) after its last change. :func:`fingerprint`, a hash of the bytes of
every watched file, tells a change of content from a file merely saved again.
"""
from __future__ import annotations

import hashlib
import queue
import sys
import threading
from pathlib import Path

from . import generate

#: what of a rules folder a build reads: its YAML files, its own pages and its game module
WATCHED = (".yaml", ".yml", ".rst", ".py")
#: milliseconds without a change that end a burst of changes (an editor's save is
#: often several: a temporary file written, renamed, its times set)
STEP_MS = 40
#: milliseconds a burst is gathered at most, however long it goes on
DEBOUNCE_MS = 400


def roots(rules: Path) -> list[Path]:
    """The folders watched: the generator's site sources and templates, and the rules folder
    (the folder of a rules file)."""
    return [generate.SITE, generate.TEMPLATES, rules.parent if rules.is_file() else rules]


def watched(path: Path, rules: Path, ignore: tuple[Path, ...] = ()) -> bool:
    """Whether a change to ``path`` may change the site: a file of the site sources or the
    templates, the rules file, or a file of the rules folder a build reads (:data:`WATCHED`),
    not in its hidden folders (``.git``, a build cache), nor in a ``build`` folder
    (the site being served, when ``harmony serve`` runs in the harmony's folder) or
    under a path of ``ignore`` (the output and its cache).

    >>> r = Path("/h/rules")
    >>> [watched(r / p, r) for p in ("a.yaml", "pages/x.rst", "build/site/a.yaml", ".git/x.py", "a.txt")]
    [True, True, False, False, False]
    >>> watched(r / "out/a.yaml", r, (r / "out",))
    False
    """
    if any(path == p or p in path.parents for p in ignore):
        return False
    for root in (generate.SITE, generate.TEMPLATES):
        if root in path.parents:
            return "__pycache__" not in path.relative_to(root).parts
    if rules.suffix and path == rules:           # a rules file, not a folder
        return True
    if rules not in path.parents or path.suffix not in WATCHED:
        return False
    return not any(part.startswith(".") or part in ("__pycache__", "build")
                   for part in path.relative_to(rules).parts[:-1])


def watched_files(rules: Path) -> list[Path]:
    """The files a change to which rebuilds the site (:func:`watched`) that are there now."""
    files: list[Path] = []
    for root in (generate.SITE, generate.TEMPLATES):
        files += [p for p in root.rglob("*") if p.is_file() and watched(p, rules)]
    if rules.is_file():
        files.append(rules)
    elif rules.is_dir():
        files += [p for p in rules.rglob("*") if p.is_file() and watched(p, rules)]
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


class Watcher:
    """A thread that puts on ``changes`` the set of watched paths that changed, once per burst
    of changes, until :meth:`stop`. Where the system cannot watch (too many folders for
    its limit, a file system that tells nothing) it says so on ``err`` and polls."""

    def __init__(self, rules: Path, changes: queue.Queue, ignore: tuple[Path, ...] = (), err=None):
        self.rules, self.changes, self.ignore = rules, changes, tuple(ignore)
        self.err = err
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="harmony-serve-watch", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self, timeout: float = 5.0) -> bool:
        """Stop watching; whether the thread has ended within ``timeout`` seconds."""
        self._stop.set()
        if self.thread.is_alive():
            self.thread.join(timeout)
        return not self.thread.is_alive()

    def _keep(self, _change, path: str) -> bool:
        return watched(Path(path), self.rules, self.ignore)

    def _run(self) -> None:
        import watchfiles
        polling, said = False, set()
        while not self._stop.is_set():
            try:
                for batch in watchfiles.watch(*roots(self.rules), watch_filter=self._keep, step=STEP_MS,
                                              debounce=DEBOUNCE_MS, stop_event=self._stop, rust_timeout=1000,
                                              raise_interrupt=False, force_polling=polling or None,
                                              ignore_permission_denied=True):
                    self.changes.put({Path(p) for _, p in batch})
                return
            except Exception as e:    # the system's limit of watches, a folder gone ...
                why = f"{type(e).__name__}: {e}"
                if why not in said:       # once, not every second
                    said.add(why)
                    print(f"harmony serve: cannot watch the files for changes ({why}); "
                          + ("trying again every second" if polling else "looking at them every 0.3 s instead"),
                          file=self.err or sys.stderr, flush=True)
                polling = True
                self.changes.put(set())          # (a change may have been missed meanwhile)
                self._stop.wait(1.0)

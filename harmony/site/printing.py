"""The site's PDFs printed ahead of a full build, in a child process ``harmony serve`` may
stop at any moment.

A preview build (:func:`harmony.site.build.build_site` with ``preview=True``, what
``harmony serve`` runs after an edit) prints nothing: it links each PDF as the printer's
store last printed it. Once the edits stop, ``harmony serve`` starts this child process
(``python -m harmony.site.printing CACHE``, :func:`start`) on the jobs a full build prints
(:func:`harmony.site.build.print_jobs`); it runs :class:`harmony.printer.Printer` on them
into the build's own store, so the full build that follows finds each PDF there, printed
from the same HTML, and lays out nothing: its site is the bytes of ``harmony build``.
The printer writes its store whole (:mod:`harmony.printer`), so a child stopped half-way
leaves nothing a build would take.

Only the jobs' HTML and the name of the function that prints it cross to the child
(:func:`start` writes them in :data:`FOLDER` of the cache).
"""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from functools import partial
from pathlib import Path

from .. import printer

#: the folder of the build cache that holds the jobs for the child and its error output
FOLDER = "printing-ahead"
JOBS = "jobs.json"
ERRORS = "printer.err"
#: the printer's store in the build cache (:data:`harmony.site.build.PRINTED`)
STORE = "printed"


def _name(function) -> str:
    """Where ``function`` is found again in the child: ``module:qualname``.

    >>> _name(json.dumps)
    'json:dumps'
    """
    return f"{function.__module__}:{function.__qualname__}"


def _function(name: str):
    module, _, qualname = name.partition(":")
    found = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def prune(cache: Path) -> None:
    """Remove the jobs and the error output of the last child."""
    folder = cache / FOLDER
    if folder.is_dir():
        for p in folder.iterdir():
            if p.is_file():
                p.unlink(missing_ok=True)


def start(cache: Path, jobs: list[printer.Job]) -> subprocess.Popen | None:
    """Start printing ``jobs`` into the build's store in a child process, at a lower
    priority than the builds (stop it with ``terminate``); None when the store holds each
    PDF printed from its HTML already (nothing to print)."""
    prune(cache)
    pending = [(job, html) for job in jobs
               if printer.current(cache / STORE, job.file, html := job.html()) is None]
    if not pending:
        return None
    folder = cache / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    listed = []
    for i, (job, html) in enumerate(pending):
        (folder / f"{i}.html").write_text(html, "utf-8")
        listed.append({"file": job.file, "html": f"{i}.html", "print": _name(job.print)})
    (folder / JOBS).write_text(json.dumps(listed), "utf-8")
    top = str(Path(__file__).resolve().parent.parent.parent)    # where this harmony is imported from
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [top, os.environ.get("PYTHONPATH")])))
    with open(folder / ERRORS, "wb") as err:    # a file, not a pipe: no one need read it as it runs
        # its own session: a Ctrl-C in the terminal stops the server, which stops the printer
        return subprocess.Popen([sys.executable, "-m", "harmony.site.printing", str(cache)], env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                start_new_session=True)


def failure(cache: Path) -> str:
    """The last line the child wrote to its error output (why it stopped)."""
    try:
        lines = (cache / FOLDER / ERRORS).read_text("utf-8", "replace").strip().splitlines()
    except OSError:
        return ""
    return lines[-1] if lines else ""


def jobs_of(cache: Path) -> list[printer.Job]:
    """The jobs :func:`start` left for the child, as :class:`harmony.printer.Job`."""
    folder = cache / FOLDER
    listed = json.loads((folder / JOBS).read_text("utf-8"))
    return [printer.Job(j["file"], partial(Path.read_text, folder / j["html"], "utf-8"),
                        _function(j["print"])) for j in listed]


def main(argv: list[str]) -> int:
    cache = Path(argv[1])
    if hasattr(os, "nice"):
        os.nice(10)
    with printer.Printer(jobs_of(cache), cache / STORE) as p:
        p.wait()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except Exception as e:     # one line for the server to show, not a traceback
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)

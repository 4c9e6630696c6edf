"""PDFs printed ahead of a build, kept in the build cache by the hash of the HTML printed.

Printing a rulebook or the rule cards takes seconds; a preview build
(:func:`harmony.site.build.build_site` with ``preview=True``, what ``harmony serve``
runs after an edit) does not wait for it: it leaves each PDF whose HTML changed as
the last build printed it and lists it as a :class:`Job`. ``harmony serve`` then prints
the jobs in a child process of its own (``python -m harmony.site.printing CACHE``,
:func:`start`), which it may stop at any moment, and the next build finds each PDF
here (:func:`find`) instead of printing it. A PDF is written here whole (a temporary
file renamed), so a printer stopped half-way leaves nothing a build would take.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     cache = Path(d)
...     put(cache, "<p>a</p>", b"%PDF-1.7 ...", 3)
...     find(cache, "<p>a</p>"), find(cache, "<p>b</p>")
...     prune(cache, set()); sorted(p.name for p in (cache / FOLDER).iterdir())
((b'%PDF-1.7 ...', 3), None)
[]
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

#: the folder of the build cache that holds the prints and the jobs
FOLDER = "printed"
#: the list of jobs the printer reads, and what it wrote to its error output, in :data:`FOLDER`
JOBS = "jobs.json"
ERRORS = "printer.err"


@dataclass(frozen=True)
class Job:
    """A PDF a preview build left unprinted: what prints it (``rulebook`` or ``cards``)
    and the HTML it prints."""

    kind: str
    html: str

    @property
    def key(self) -> str:
        return key(self.html)


def key(html: str) -> str:
    """The name a print of ``html`` is kept under."""
    return hashlib.sha256(html.encode("utf-8")).hexdigest()


def find(cache: Path, html: str) -> tuple[bytes, int | None] | None:
    """The PDF printed from ``html`` and its number of pages (None: not known), if the
    printer has printed it; else None."""
    base = cache / FOLDER / key(html)
    try:
        data = base.with_suffix(".pdf").read_bytes()
        pages = json.loads(base.with_suffix(".json").read_text("utf-8"))["pages"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return data, pages if isinstance(pages, int) else None


def put(cache: Path, html: str, pdf: bytes, pages: int | None) -> None:
    """Keep ``pdf``, printed from ``html``: the facts first, then the PDF, each renamed
    into place, so :func:`find` sees both or nothing."""
    folder = cache / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    base = folder / key(html)
    for suffix, data in ((".json", json.dumps({"pages": pages}).encode("ascii")), (".pdf", pdf)):
        tmp = folder / f".{base.name}{suffix}.{os.getpid()}.tmp"
        try:
            tmp.write_bytes(data)
            os.replace(tmp, base.with_suffix(suffix))
        finally:
            tmp.unlink(missing_ok=True)


def prune(cache: Path, keep: set[str]) -> None:
    """Remove every print, job and leftover of the printer but the prints of ``keep``
    (keys, :func:`key`)."""
    folder = cache / FOLDER
    if not folder.is_dir():
        return
    for p in folder.iterdir():
        if p.is_file() and not (p.suffix in (".pdf", ".json") and p.stem in keep):
            p.unlink(missing_ok=True)


def _print(job: Job) -> tuple[bytes, int | None]:
    if job.kind == "rulebook":
        from ..rulebook import print_pdf
        return print_pdf(job.html)
    if job.kind == "cards":
        from ..cards import write_pdf
        return write_pdf(job.html), None
    raise ValueError(f"no printer of {job.kind!r}")


def run(cache: Path, jobs: list[Job]) -> None:
    """Print every job whose PDF is not kept yet (what the child process does)."""
    for job in jobs:
        if find(cache, job.html) is None:
            pdf, pages = _print(job)
            put(cache, job.html, pdf, pages)


def start(cache: Path, jobs: list[Job]) -> subprocess.Popen:
    """Start printing ``jobs`` in a child process, at a lower priority than the builds
    (stop it with ``terminate``); prints of other HTML are dropped first."""
    prune(cache, {j.key for j in jobs})
    folder = cache / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    for job in jobs:
        (folder / f"{job.key}.html").write_text(job.html, "utf-8")
    (folder / JOBS).write_text(json.dumps([{"kind": j.kind, "html": f"{j.key}.html"} for j in jobs]), "utf-8")
    top = str(Path(__file__).resolve().parent.parent.parent)    # where this harmony is imported from
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [top, os.environ.get("PYTHONPATH")])))
    with open(folder / ERRORS, "wb") as err:    # a file, not a pipe: no one need read it as it runs
        # its own session: a Ctrl-C in the terminal stops the server, which stops the printer
        return subprocess.Popen([sys.executable, "-m", "harmony.site.printing", str(cache)], env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                start_new_session=True)


def failure(cache: Path) -> str:
    """The last line the printer wrote to its error output (why it stopped)."""
    try:
        lines = (cache / FOLDER / ERRORS).read_text("utf-8", "replace").strip().splitlines()
    except OSError:
        return ""
    return lines[-1] if lines else ""


def main(argv: list[str]) -> int:
    cache = Path(argv[1])
    if hasattr(os, "nice"):
        os.nice(10)
    folder = cache / FOLDER
    listed = json.loads((folder / JOBS).read_text("utf-8"))
    jobs = [Job(j["kind"], (folder / j["html"]).read_text("utf-8")) for j in listed]
    run(cache, jobs)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except Exception as e:     # one line for the server to show, not a traceback
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)

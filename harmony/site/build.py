"""Build the static site: check the rules, stage the pages, run Sphinx in-process.

The output folder holds the HTML; ``.harmony-cache/`` inside it keeps the
staged sources (``src/``) and Sphinx's environment and doctrees
(``doctrees/``) between builds, so a rebuild re-reads and re-writes only the
pages whose generated source changed.
"""
from __future__ import annotations

import hashlib
import io
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..check import check_path
from ..diagnostics import Report
from . import generate

CACHE = ".harmony-cache"


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
    warnings: list[str] = field(default_factory=list)
    extras: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: seconds spent loading and checking the rules, generating the pages, in Sphinx
    phases: dict[str, float] = field(default_factory=dict)

    @property
    def index(self) -> Path:
        return self.out / "index.html"


def code_version() -> int:
    """A number that changes when the extension's code changes (Sphinx then re-reads all)."""
    h = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for p in sorted(here.glob("*.py")) + [here.parent / "svg.py", here.parent / "markup.py"]:
        if p.is_file():
            h.update(p.name.encode() + b"\0" + p.read_bytes())
    return int(h.hexdigest()[:8], 16)


def write_if_changed(path: Path, data: bytes) -> bool:
    if path.is_file() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return True


def write_pdf_if_changed(pdf: dict, out: Path, cache: Path) -> bool:
    """Print ``pdf["html"]`` to ``out / pdf["file"]`` unless the same HTML was printed there
    last time (a hash of it is kept in the cache): printing is the slow part."""
    target = out / pdf["file"]
    stamp = cache / "pdf" / (pdf["file"].replace("/", "__") + ".sha256")
    key = hashlib.sha256(pdf["html"].encode("utf-8")).hexdigest()
    if target.is_file() and stamp.is_file() and stamp.read_text("ascii") == key:
        return False
    changed = write_if_changed(target, pdf["write"](pdf["html"]))
    write_if_changed(stamp, key.encode("ascii"))
    return changed


def sphinx_warnings(text: str, staged: Path, site_dir: Path) -> list[str]:
    """Sphinx's warnings, one per entry, with staged copies of hand-written pages named by
    their real path (``site/authoring.rst:95: WARNING: ...``)."""
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
            if "/" not in rel and (site_dir / rel).is_file():
                e = str(site_dir / rel) + e[len(prefix) + len(rel):]
        out.append(e)
    return out


def build_site(rules: str | os.PathLike, out: str | os.PathLike, *, status=None,
               site_dir: Path = generate.SITE) -> BuildResult:
    """Build the site of ``rules`` into ``out``; raises :class:`BuildError` on rule errors."""
    from sphinx.application import Sphinx
    from sphinx.util.console import nocolor
    from sphinx.util.docutils import docutils_namespace, patch_docutils

    start = time.perf_counter()
    model, report = check_path(rules)
    if report.errors:
        raise BuildError(f"{len(report.errors)} error(s) in {rules}: fix them first", report)
    checked = time.perf_counter()
    out = Path(out).resolve()
    cache = out / CACHE
    extras = generate.extra_pages(model)
    files = generate.pages(model, site_dir, extras)
    staged = generate.stage(files, cache / "src", site_dir)
    generated = time.perf_counter()
    nocolor()
    warnings = io.StringIO()
    result = BuildResult(out=out, staged=staged)
    with patch_docutils(site_dir), docutils_namespace():
        app = Sphinx(str(cache / "src"), str(site_dir), str(out), str(cache / "doctrees"), "html",
                     confoverrides={}, status=status, warning=warnings, freshenv=False,
                     keep_going=True)
        app.connect("html-page-context", lambda _a, pagename, *_r: result.written.append(pagename))
        app.connect("env-before-read-docs", lambda _a, _e, docnames: result.read.extend(sorted(docnames)))
        app.build(force_all=False)
    built = time.perf_counter()
    for name, page in sorted(extras.items()):
        if write_if_changed(out / page["file"], page["html"].encode("utf-8")):
            result.extras.append(page["file"])
        if page.get("pdf") and write_pdf_if_changed(page["pdf"], out, cache):
            result.extras.append(page["pdf"]["file"])
    result.warnings = sphinx_warnings(warnings.getvalue(), cache / "src", site_dir)
    result.seconds = time.perf_counter() - start
    result.phases = {"load and check": checked - start, "generate": generated - checked,
                     "sphinx": built - generated, "extras": time.perf_counter() - built}
    return result

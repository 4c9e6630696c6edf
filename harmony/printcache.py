"""PDFs remembered across builds: the same HTML, printed by the same code, is the same PDF.

A build lays out each PDF of its site once and keeps it in its own cache
(:mod:`harmony.printer`), so a rebuild into the same folder prints only what changed. A
build into another folder (a second output, a clean clone's build, a branch switched
back) would lay out again PDFs already printed from the same HTML: WeasyPrint's layout
is about half of a cold build's work. This cache remembers each PDF under a key of:

* the HTML, and the printer (module and name of the function that prints it);
* harmony's own code (every module of the package: the printers, their templates' CSS is
  in the HTML) and Python's version;
* the installations of WeasyPrint and the libraries that shape its PDFs (pydyf,
  fontTools, tinyhtml5, tinycss2, cssselect2), told apart as :func:`harmony.parsecache.installed`
  tells them (the path, size and time of their file);
* the fonts: the times of fontconfig's cache folders, which ``fc-cache`` (run when a
  font is installed or removed) writes.

Only harmony's own printers are remembered (a function of another module, a test's or a
plugin's, is code this key does not cover). Entries live in ``$HARMONY_CACHE/printed``
(default ``~/.cache/harmony/printed``, beside the parse cache; ``HARMONY_CACHE=off`` turns
it off), at most :data:`MAX_ENTRIES`, those used least lately pruned first. An entry (one
file: the PDF's pages, then the PDF) is written whole (a temporary file renamed into
place); one that cannot be read is a miss, never an error; a home that cannot be written
changes nothing but speed. The PDFs harmony prints hold no time, so a remembered PDF is the
bytes printing it again gives.

>>> import tempfile
>>> os.environ["HARMONY_CACHE"] = tempfile.mkdtemp()
>>> from harmony.rulebook.render import print_pdf
>>> k = key(print_pdf, "<p>a</p>")
>>> get(k) is None
True
>>> put(k, b"%PDF-1.7 ...", 3)
>>> get(k)
(b'%PDF-1.7 ...', 3)
>>> key(print_pdf, "<p>b</p>") == k, key(lambda html: (b"", 0), "<p>a</p>")
(False, None)
>>> printed(print_pdf, "<p>a</p>")      # (remembered: not laid out)
(b'%PDF-1.7 ...', 3, False)
>>> del os.environ["HARMONY_CACHE"]
"""
from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable
from pathlib import Path

from . import outdir, parsecache

#: PDFs remembered at most (a rulebook is 0.1 to 1 MB): the oldest beyond are removed
MAX_ENTRIES = 150
_KIND = "printed"
#: an entry: its pages (a decimal number and a new line), then the PDF
SUFFIX = ".entry"
#: the libraries whose installation is part of the key
LIBRARIES = ("weasyprint", "pydyf", "fontTools", "tinyhtml5", "tinycss2", "cssselect2")

_CODE: list[bytes] = []


def _fonts() -> bytes:
    """The times of fontconfig's cache folders (the system's, the user's)."""
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    found = []
    for folder in ("/var/cache/fontconfig", os.path.join(home, "fontconfig")):
        try:
            found.append(f"{folder}:{os.stat(folder).st_mtime_ns}")
        except OSError:
            found.append(f"{folder}:-")
    return "\n".join(found).encode()


def fingerprint() -> bytes:
    """What, besides the HTML and the printer, a PDF depends on (see the module's notes)."""
    if not _CODE:
        h = hashlib.sha256(b"harmony printed PDFs 1\0")
        package = Path(__file__).resolve().parent
        for p in sorted(package.rglob("*.py")):
            h.update(p.relative_to(package).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
        for module in LIBRARIES:
            h.update(parsecache.installed(module).encode() + b"\0")
        h.update(sys.version.encode())
        _CODE.append(h.digest())
    return _CODE[0] + _fonts()


def key(printer: Callable, html: str) -> str | None:
    """The key of ``html`` printed by ``printer``; None for a printer that is not harmony's."""
    module = getattr(printer, "__module__", None) or ""
    name = getattr(printer, "__qualname__", None) or ""
    if not (module == "harmony" or module.startswith("harmony.")) or "<" in name:
        return None
    h = hashlib.sha256(fingerprint())
    h.update(f"{module}:{name}".encode() + b"\0")
    h.update(html.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def printed(printer: Callable[[str], tuple[bytes, int]], html: str) -> tuple[bytes, int, bool]:
    """``printer(html)`` (the PDF's bytes and pages), or the PDF remembered for it; and
    whether it was laid out now."""
    k = key(printer, html)
    found = get(k)
    if found is not None:
        return found[0], found[1], False
    data, pages = printer(html)
    put(k, data, pages)
    return data, pages, True


def _path(k: str) -> Path | None:
    base = parsecache.folder(_KIND)
    return None if base is None else base / k[:2] / f"{k}{SUFFIX}"


def get(k: str | None) -> tuple[bytes, int] | None:
    """The PDF remembered under ``k`` and its pages, or None."""
    p = _path(k) if k else None
    if p is None:
        return None
    try:
        head, _, data = p.read_bytes().partition(b"\n")
        pages = int(head.decode("ascii"))
    except (OSError, ValueError, UnicodeError):
        return None
    try:
        os.utime(p)          # used now: pruned after the entries used less lately
    except OSError:
        pass
    return data, pages


def put(k: str | None, data: bytes, pages: int) -> None:
    """Remember ``data`` (a PDF of ``pages`` pages) under ``k``; silently nothing where the
    cache is off or cannot be written."""
    p = _path(k) if k else None
    if p is None:
        return
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        outdir.write_whole(p, b"%d\n" % pages + data)
    except OSError:
        return
    prune()


def prune(limit: int = MAX_ENTRIES) -> int:
    """Remove the least recently used PDFs beyond ``limit``; how many were removed."""
    return parsecache.prune(limit, _KIND, SUFFIX)

"""May harmony write here? The one answer for every path a command writes to.

harmony writes only into a path that is missing, an empty folder, or something
harmony itself wrote, so it never deletes or overwrites a file of yours:

* a folder (``build --out``, ``serve --out``, ``cards --png``) is missing,
  empty, or carries the stamp file harmony writes into it (:data:`SITE_STAMP`
  in a site, :data:`CARDS_STAMP` in a folder of card images). Folders written
  before the stamp existed are recognised by what only harmony leaves: a site
  by its build cache beside it (``.NAME.harmony-cache`` holding ``html/``), a
  folder of card images by holding nothing but card images named as harmony
  names them (``001-REV-spotting.rule.png``);
* ``init DIR`` takes a missing or empty folder only;
* a file (``cards --out``, the ``--tts`` sheets) is missing, or a PDF (a PNG)
  that harmony wrote: a PDF whose Creator is harmony's (``harmony cards``), a
  PNG carrying harmony's ``Software`` text chunk (:func:`mark_png`).

Whatever it holds, a folder that is or contains ``/``, your home folder, a git
checkout (a folder with ``.git`` in it) or the rules folder, and any path inside
a ``.git`` folder or inside the rules folder, is refused, but for the rules folder's
``build/`` (:data:`BUILD`: where ``build`` and ``cards`` write by default when run in
a harmony's own folder, which ``harmony init``'s ``.gitignore`` keeps out of git). A refusal is a
:class:`Refused` (a usage error: one line naming the path and why, exit 2),
raised before anything is written.

A write that fails because the disk is full is one line too
(:func:`writing`, :class:`WriteFailed`): ``no space left on device writing PATH``.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     (Path(d) / "notes.txt").write_text("mine") and None
...     folder(d, "site", "--out")
Traceback (most recent call last):
...
harmony.outdir.Refused: --out ... holds files harmony did not write...
>>> folder("/", "site", "--out")
Traceback (most recent call last):
...
harmony.outdir.Refused: --out /: harmony never writes into the root folder /
"""
from __future__ import annotations

import errno
import os
import re
import shutil
import struct
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .usage import UsageError

#: the stamp file of a site harmony built, and its line
SITE_STAMP = ".harmony-site"
#: the stamp file of a folder of card images harmony wrote, and its line
CARDS_STAMP = ".harmony-cards"
STAMPS = {
    "site": (SITE_STAMP, "harmony build wrote this site; harmony may replace it whole\n"),
    "cards": (CARDS_STAMP, "harmony cards wrote these card images; harmony may replace them\n"),
}
#: the site's build cache, beside the site: ``.NAME`` + this
SITE_CACHE = ".harmony-cache"
#: the Creator of the PDFs harmony writes (the ``generator`` of the cards' HTML)
PDF_CREATOR = b"harmony cards"
#: every Creator harmony gives its PDFs: the cards', and the rulebooks' (``harmony rulebook``)
PDF_CREATORS = (PDF_CREATOR, b"harmony rulebook")
#: the zip comment of the EPUBs harmony writes (:mod:`harmony.rulebook.epub`)
EPUB_COMMENT = b"harmony rulebook"
#: the PNG text chunk harmony adds to the images it writes
PNG_SOFTWARE = b"Software\0harmony cards"
#: a card image as harmony names it (:func:`harmony.cards.exports.card_name`)
_CARD_IMAGE = re.compile(r"^\d{3,}-[^/]+\.png$")


class Refused(UsageError):
    """harmony may not write there: one line naming the path and why (exit 2)."""


class WriteFailed(Exception):
    """A write failed for a reason the user must fix (a full disk): one line, exit 1."""


# ------------------------------------------------------------------ what is never written

def _git_top(path: Path) -> Path | None:
    """The nearest folder at or above ``path`` with a ``.git`` in it (a checkout)."""
    for here in (path, *path.parents):
        try:
            if os.path.lexists(here / ".git"):
                return here
        except OSError:   # pragma: no cover - an unreadable folder: not ours to judge
            return None
    return None


def _within(inner: Path, outer: Path) -> bool:
    """True when ``inner`` is ``outer`` or inside it.

    >>> _within(Path("/a/b"), Path("/a")), _within(Path("/a"), Path("/a/b"))
    (True, False)
    """
    return inner == outer or outer in inner.parents


#: the folder of a rules folder that harmony may write into (its build output)
BUILD = "build"


def real(path: str | os.PathLike) -> Path:
    """The absolute path with every symbolic link followed (as a write would follow them)."""
    return Path(os.path.realpath(os.path.abspath(path)))


def protected(path: str | os.PathLike, rules: str | os.PathLike | None = None) -> str | None:
    """Why harmony may never write into the folder ``path``, or None.

    ``rules`` is the rules folder the command reads, if any.

    >>> protected("/")
    'harmony never writes into the root folder /'
    >>> protected(Path.home())
    'it is your home folder'
    """
    p = real(path)
    if p == Path(p.anchor):
        return f"harmony never writes into the root folder {p.anchor}"
    if ".git" in p.parts:
        return "it is inside a .git folder"
    home = real(os.path.expanduser("~"))
    if _within(home, p):
        return ("it is your home folder" if p == home else f"it contains your home folder {home}")
    if os.path.lexists(p / ".git"):
        return "it is a git checkout (it holds .git)"
    r = real(rules) if rules is not None else None
    if r is not None and r.is_file():
        r = r.parent
    from .resources import checkout_root
    try:
        here = _git_top(real("."))
    except OSError:   # the current folder was removed
        here = None
    tops = {here, checkout_root(), _git_top(r) if r is not None else None}
    for top in sorted(t for t in tops if t is not None):
        if _within(top, p):
            return f"it contains the git checkout {top}"
    if r is not None:
        if _within(r, p):
            return ("it is the rules folder" if p == r else f"it contains the rules folder {r}")
        if _within(p, r) and not _within(p, r / BUILD):
            return f"it is inside the rules folder {r}"
    return None


# ------------------------------------------------------------------ folders

def stamped(path: Path, kind: str) -> bool:
    """True when ``path`` carries harmony's stamp of ``kind`` (``site`` or ``cards``)."""
    name, line = STAMPS[kind]
    stamp = path / name
    try:
        if stamp.is_symlink() or not stamp.is_file() or stamp.stat().st_size > 4096:
            return False
        return stamp.read_text("utf-8", errors="replace").startswith(line.split(";")[0])
    except OSError:
        return False


def stamp(path: Path, kind: str) -> Path:
    """Write harmony's stamp of ``kind`` into the folder ``path``; the stamp file."""
    name, line = STAMPS[kind]
    target = path / name
    if not (target.is_file() and target.read_text("utf-8", errors="replace") == line):
        target.write_text(line, encoding="utf-8")
    return target


def site_cache(out: Path) -> Path:
    """The build cache of the site ``out``: beside it, never inside.

    >>> site_cache(Path("/tmp/build/site")).as_posix()
    '/tmp/build/.site.harmony-cache'
    """
    return out.parent / f".{out.name}{SITE_CACHE}"


def _harmony_wrote(path: Path, kind: str) -> bool:
    """A folder harmony wrote: stamped, or (written before stamps) as only harmony leaves it."""
    if stamped(path, kind):
        return True
    if kind == "site":
        return (site_cache(path) / "html").is_dir() and (path / "index.html").is_file()
    try:
        entries = list(path.iterdir())
    except OSError:
        return False
    return all(_CARD_IMAGE.match(e.name) and e.is_file() and not e.is_symlink() for e in entries)


def _is_empty(path: Path) -> bool:
    try:
        return next(iter(os.scandir(path)), None) is None
    except OSError:
        return False


def _name(option: str, given: Path) -> str:
    """How a refusal names the path: with the option it came from, if any."""
    return f"{option} {given}" if option else str(given)


def _makeable(given: Path, option: str) -> None:
    """A missing path can be made: the nearest existing folder above it is a folder."""
    if os.path.islink(given) and not os.path.exists(given):
        raise Refused(f"{_name(option, given)} is a symbolic link to {os.readlink(given)}, which does "
                      "not exist: remove the link or give another path")
    here = Path(os.path.abspath(given))
    while not os.path.lexists(here):
        if here.parent == here:
            return
        here = here.parent
    if os.path.islink(here) and not os.path.exists(here):
        raise Refused(f"{_name(option, given)} cannot be made: {here} is a symbolic link to "
                      f"{os.readlink(here)}, which does not exist")
    if not here.is_dir():
        raise Refused(f"{_name(option, given)} cannot be made: {here} is not a folder (it is a file)")


WHAT = {"site": "a site harmony built", "cards": "a folder of card images harmony wrote"}


def folder(path: str | os.PathLike, kind: str, option: str,
           rules: str | os.PathLike | None = None) -> Path:
    """The folder ``path`` (symbolic links followed) if harmony may write ``kind``
    (``site``, ``cards`` or ``new``: a folder ``init`` starts) into it; else :class:`Refused`.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     folder(Path(d) / "site", "site", "--out").name
    'site'
    """
    given = Path(path)
    why = protected(given, rules)
    if why:
        raise Refused(f"{_name(option, given)}: {why}")
    p = real(given)
    if not os.path.lexists(p):
        _makeable(given, option)
        return p
    if not p.is_dir():
        raise Refused(f"{_name(option, given)} is a file, not a folder: give a new or empty folder")
    if _is_empty(p) or (kind != "new" and _harmony_wrote(p, kind)):
        return p
    if kind == "new":
        raise Refused(f"{_name(option, given)} is not empty: give a new or empty folder")
    raise Refused(f"{_name(option, given)} holds files harmony did not write: give a new or empty "
                  f"folder, or {WHAT[kind]} (nothing was written)")


# ------------------------------------------------------------------ files

def harmony_pdf(path: Path) -> bool:
    """True when ``path`` is a PDF harmony wrote: its document information names harmony
    as Creator (read from the plain text or from a compressed object stream)."""
    try:
        with open(path, "rb") as f:
            data = f.read(64 * 1024 * 1024)
    except OSError:
        return False
    if not data.startswith(b"%PDF-"):
        return False
    wanted = [b"/Creator (" + creator + b")" for creator in PDF_CREATORS]
    if any(w in data for w in wanted):
        return True
    for m in re.finditer(rb"/Type\s*/ObjStm[^>]*>>\s*stream\r?\n", data):
        try:
            plain = zlib.decompressobj().decompress(data[m.end():], 16 * 1024 * 1024)
            if any(w in plain for w in wanted):
                return True
        except zlib.error:
            continue
    return False


def mark_png(data: bytes) -> bytes:
    """``data`` (a PNG) with harmony's ``Software`` text chunk after its header chunk.

    >>> png = b"\\x89PNG\\r\\n\\x1a\\n" + struct.pack(">I", 13) + b"IHDR" + bytes(13) + bytes(4)
    >>> harmony_png_bytes(mark_png(png)), harmony_png_bytes(png)
    (True, False)
    """
    if harmony_png_bytes(data) or not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return data
    end = 8 + 8 + struct.unpack(">I", data[8:12])[0] + 4   # signature, IHDR chunk
    chunk = b"tEXt" + PNG_SOFTWARE
    text = struct.pack(">I", len(PNG_SOFTWARE)) + chunk + struct.pack(">I", zlib.crc32(chunk))
    return data[:end] + text + data[end:]


def harmony_png_bytes(data: bytes) -> bool:
    return data.startswith(b"\x89PNG\r\n\x1a\n") and b"tEXt" + PNG_SOFTWARE in data[:4096]


def harmony_epub(path: Path) -> bool:
    """True when ``path`` is an EPUB harmony wrote: a zip whose comment is harmony's."""
    try:
        with zipfile.ZipFile(path) as z:
            return z.comment == EPUB_COMMENT
    except (OSError, zipfile.BadZipFile):
        return False


def harmony_png(path: Path) -> bool:
    """True when ``path`` is a PNG harmony wrote (it carries harmony's text chunk)."""
    try:
        with open(path, "rb") as f:
            return harmony_png_bytes(f.read(4096))
    except OSError:
        return False


def file(path: str | os.PathLike, kind: str, option: str) -> Path:
    """The file ``path`` if harmony may write a ``kind`` file (``pdf``, ``epub`` or ``png``)
    there: missing, or one harmony wrote; else :class:`Refused`."""
    given = Path(path)
    p = real(given)
    if ".git" in p.parts:
        raise Refused(f"{_name(option, given)}: it is inside a .git folder")
    if not os.path.lexists(p):
        _makeable(given, option)
        return p
    if p.is_dir():
        raise Refused(f"{_name(option, given)} is a folder; give a file name")
    ours = {"pdf": harmony_pdf, "epub": harmony_epub}.get(kind, harmony_png)(p)
    if not ours:
        what = "rulebooks" if kind == "epub" else "cards"
        article = "an" if kind == "epub" else "a"
        raise Refused(f"{_name(option, given)} is a file harmony did not write (not {article} {kind.upper()} "
                      f"of harmony's {what}): give a new file name, or move that file away "
                      "(nothing was written)")
    return p


# ------------------------------------------------------------------ what a killed run left

def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):
        return True   # someone else's process, alive (or a number no process has: keep it)
    return True


def leftovers(folder: Path, name: str) -> list[Path]:
    r"""The entries of ``folder`` whose name matches ``name`` (a regular expression whose
    first group is the process id in it) and whose process is gone: what a killed run of
    harmony left, named as harmony names its temporary files. Symbolic links never count.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     for n in (".a.999999999.tmp", f".a.{os.getpid()}.tmp", ".a.x.tmp", "a.1.tmp"):
    ...         _ = (Path(d) / n).write_bytes(b"")
    ...     [p.name for p in leftovers(Path(d), r"\.a\.(\d+)\.tmp")]
    ['.a.999999999.tmp']
    """
    found: list[Path] = []
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return found
    pattern = re.compile(name)
    for entry in entries:
        m = pattern.fullmatch(entry.name)
        if m and not entry.is_symlink() and not _alive(int(m.group(1))):
            found.append(entry)
    return found


# ------------------------------------------------------------------ a full disk

def no_space(error: BaseException | None) -> OSError | None:
    """The "no space left on device" error in ``error`` or in what caused it, or None.

    >>> e = RuntimeError("wrapped"); e.__cause__ = OSError(errno.ENOSPC, "No space left")
    >>> no_space(e).errno == errno.ENOSPC, no_space(ValueError()) is None
    (True, True)
    >>> no_space(shutil.Error([("a", "b/a", "[Errno 28] No space left on device")])).filename
    'b/a'

    """
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
            return error
        if isinstance(error, shutil.Error) and error.args and isinstance(error.args[0], list):
            # copytree gathers the error of every file it could not copy, as text
            for item in error.args[0]:
                if isinstance(item, tuple) and len(item) == 3 and \
                        any(f"[Errno {n}]" in str(item[2]) for n in (errno.ENOSPC, errno.EDQUOT)):
                    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(item[1]))
        error = error.__cause__ or error.__context__
    return None


@contextmanager
def writing(path: str | os.PathLike) -> Iterator[None]:
    """Turn a full disk while the block writes ``path`` into :class:`WriteFailed`:
    ``no space left on device writing PATH`` (the file the error names, if it names one).

    >>> with writing("out/site"):
    ...     raise OSError(errno.ENOSPC, "No space left on device")
    Traceback (most recent call last):
    ...
    harmony.outdir.WriteFailed: no space left on device writing out/site
    """
    try:
        yield
    except WriteFailed:
        raise
    except BaseException as e:
        full = no_space(e)
        if full is None:
            raise
        where = full.filename if isinstance(full.filename, str) and full.filename else path
        raise WriteFailed(f"no space left on device writing {where}") from e


def remove_temporaries(out: Path) -> list[Path]:
    """Remove the temporary files a killed run left beside the file ``out``: only
    ``.NAME.PID.tmp`` files whose process is gone; the removed.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     for name in (".cards.pdf.999999999.tmp", ".cards.pdf.x.tmp", "cards.pdf.1.tmp"):
    ...         _ = (Path(d) / name).write_bytes(b"")
    ...     [p.name for p in remove_temporaries(Path(d) / "cards.pdf")]
    ['.cards.pdf.999999999.tmp']
    """
    removed = []
    for entry in leftovers(out.parent, rf"\.{re.escape(out.name)}\.(\d+)\.tmp"):
        if entry.is_file():
            entry.unlink(missing_ok=True)
            removed.append(entry)
    return removed


def write_whole(path: Path, data: bytes) -> None:
    """``data`` into ``path``: a ``.NAME.PID.tmp`` beside it renamed over it (never left,
    even when the write fails: the error is the caller's).

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> write_whole(d / "a.json", b"[]"); write_whole(d / "a.json", b"[1]")
    >>> sorted(p.name for p in d.iterdir()), (d / "a.json").read_bytes()
    (['a.json'], b'[1]')
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_file(out: Path, data: bytes, folders: list[Path], command: str) -> bool:
    """Make ``folders`` (saying so), then write ``data`` to ``out`` whole: into a
    ``.NAME.PID.tmp`` beside it, renamed over it, after removing what a killed run left
    (:func:`remove_temporaries`). A failure is one line on stderr naming ``command`` (a full
    disk as such) and False; the temporary file never stays."""
    import sys
    for made in folders:
        if not made.exists():
            made.mkdir(parents=True, exist_ok=True)
            print(f"made folder {made}")
    remove_temporaries(out)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, out)
    except OSError as e:
        if no_space(e):
            print(f"{command}: error: no space left on device writing {out}", file=sys.stderr)
        else:
            print(f"{command}: cannot write {out}: {e.strerror or e}", file=sys.stderr)
        return False
    finally:
        tmp.unlink(missing_ok=True)
    return True

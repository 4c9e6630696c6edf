"""Files already parsed and schema-checked, remembered on disk across processes.

Parsing a rules_data file with positions (the round-trip parser) is most of the
cost of ``harmony check``; a new process (``harmony build`` after a one-clause edit,
``harmony check`` in an editor's save hook) would parse every file again. This
cache keeps what :func:`harmony.loader.read_checked` computed for a file (its
positioned tree, its reading and schema problems), keyed by:

* the file's bytes and the path it is shown as (diagnostics carry that path);
* harmony's own code (every module and the schema) and the versions of Python,
  ruamel.yaml, PyYAML (and whether it has libyaml) and jsonschema, so a new harmony
  never reads an old entry.

A hit costs one small read and an unpickling, less than parsing the file with a
C YAML loader. Entries live in ``$HARMONY_CACHE/parsed`` (default
``~/.cache/harmony/parsed``, as the card fitting cache; ``HARMONY_CACHE=off``
turns both off), never inside rules_data or the site. Writes go to a temporary
file renamed into place, so processes running at the same time never read half
an entry; an entry that cannot be read is a miss, never an error.

>>> import tempfile
>>> os.environ["HARMONY_CACHE"] = tempfile.mkdtemp()
>>> k = key("a.yaml", b"sources: []\\n")
>>> get(k) is None
True
>>> put(k, ("any", "picklable", {"value"}))
>>> get(k)
('any', 'picklable', {'value'})
>>> key("b.yaml", b"sources: []\\n") == k
False
>>> del os.environ["HARMONY_CACHE"]
"""
from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

from . import ccompose

#: Entries beyond this many are pruned, oldest first, when a new one is written.
MAX_ENTRIES = 20_000
_FOLDER = "parsed"


def folder(kind: str = _FOLDER) -> Path | None:
    """Where entries of ``kind`` live (a sub-folder: ``parsed`` files, or another
    cache's, such as :mod:`harmony.playcache`'s ``played`` scenarios); None when caching is off.

    >>> os.environ["HARMONY_CACHE"] = "off"
    >>> folder() is None
    True
    >>> del os.environ["HARMONY_CACHE"]
    """
    env = os.environ.get("HARMONY_CACHE")
    if env is not None:
        if env.strip().lower() in ("", "0", "off", "no", "false"):
            return None
        return Path(env) / kind
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "harmony" / kind


_CODE: list[bytes] = []


def code_fingerprint() -> bytes:
    """A digest of harmony's modules (the built-in games' too: they play the scenarios whose
    results are remembered) and schema and of the versions that shape a parse."""
    if not _CODE:
        h = hashlib.sha256()
        here = Path(__file__).resolve().parent
        for p in (sorted(here.glob("*.py")) + sorted((here / "games").rglob("*.py"))
                  + sorted((here / "schema").glob("*.json"))):
            h.update(p.relative_to(here).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
        for dist in ("ruamel.yaml", "PyYAML", "jsonschema"):
            try:
                h.update(metadata.version(dist).encode())
            except metadata.PackageNotFoundError:  # pragma: no cover
                h.update(b"?")
        h.update(sys.version.encode())
        h.update(b"libyaml" if ccompose.CParser is not None else b"pure")
        _CODE.append(h.digest())
    return _CODE[0]


def key(shown: str, data: bytes, size: int | None = None) -> str:
    """The key of a file shown as ``shown`` with content ``data`` (``size`` its real size
    when ``data`` was cut short)."""
    h = hashlib.sha256(code_fingerprint())
    h.update(shown.encode("utf-8", "surrogateescape") + b"\0")
    h.update(str(len(data) if size is None else size).encode() + b"\0")
    h.update(data)
    return h.hexdigest()


def _path(k: str, kind: str = _FOLDER) -> Path | None:
    base = folder(kind)
    return None if base is None else base / k[:2] / f"{k}.pickle"


def get(k: str, kind: str = _FOLDER) -> Any:
    """The entry of key ``k``, or None."""
    p = _path(k, kind)
    if p is None:
        return None
    try:
        with open(p, "rb") as f:
            return pickle.load(f)
    except Exception:   # missing, half-written by a crashed writer, from another Python: a miss
        return None


def put(k: str, value: Any, kind: str = _FOLDER) -> None:
    """Remember ``value`` under ``k`` (silently nothing if the cache cannot be written)."""
    p = _path(k, kind)
    if p is None:
        return
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=p.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, p)
        except BaseException:
            os.unlink(tmp)
            raise
    except (OSError, pickle.PicklingError, RecursionError, TypeError, AttributeError):
        return      # only a cache: a read-only home changes nothing but speed
    if int(k[2:4], 16) == 0:     # now and then (1 write in 256), keep the cache bounded
        prune(kind=kind)


def prune(limit: int = MAX_ENTRIES, kind: str = _FOLDER) -> int:
    """Remove the oldest entries of ``kind`` beyond ``limit``; returns how many were removed."""
    base = folder(kind)
    if base is None or not base.is_dir():
        return 0
    entries = []
    for p in base.glob("*/*.pickle"):
        try:
            entries.append((p.stat().st_mtime, p))
        except OSError:
            continue
    entries.sort()
    removed = 0
    for _, p in entries[:max(0, len(entries) - limit)]:
        try:
            p.unlink()
            removed += 1
        except OSError:
            pass
    return removed

"""Files already parsed and schema-checked, remembered on disk across processes.

Parsing a rules_data file with positions (the round-trip parser) is most of the
cost of ``harmony check``; a new process (``harmony build`` after a one-clause edit,
``harmony check`` in an editor's save hook) would parse every file again. This
cache keeps what :func:`harmony.loader.read_checked` computed for a file (its
positioned tree, its reading and schema problems), keyed by:

* the file's bytes and the path it is shown as (diagnostics carry that path);
* harmony's own code (every module and the schema), the version of Python and the
  installations of ruamel.yaml, PyYAML (with or without libyaml: a reinstall writes its
  files anew), jsonschema and fastjsonschema (:func:`installed`), so a new harmony never
  reads an old entry.

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
import importlib.util
import os
import pickle
import sys
from pathlib import Path
from typing import Any


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
    base = _base(kind)
    return None if base is None else Path(base)


def _base(kind: str) -> str | None:
    """:func:`folder`, as a string (a check asks for hundreds of entries: no path objects)."""
    env = os.environ.get("HARMONY_CACHE")
    if env is not None:
        if env.strip().lower() in ("", "0", "off", "no", "false"):
            return None
        return os.path.join(env, kind)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "harmony", kind)


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
        for module in ("ruamel.yaml", "yaml", "jsonschema", "fastjsonschema"):
            h.update(installed(module).encode())
        h.update(sys.version.encode())
        _CODE.append(h.digest())
    return _CODE[0]


def installed(module: str) -> str:
    """What tells one installation of ``module`` from another, without importing it (nor
    :mod:`importlib.metadata`, a tenth of a quick ``harmony check``): the path, size and
    time of its file; installing another version writes a new one. ``"?"`` when absent.

    >>> installed("yaml").split(":")[0].endswith("__init__.py")
    True
    >>> installed("no_such_module_here")
    '?'
    """
    try:
        spec = importlib.util.find_spec(module)
        origin = spec.origin if spec is not None else None
        if not origin:
            return "?"
        st = os.stat(origin)
    except (ImportError, ValueError, OSError):
        return "?"
    return f"{origin}:{st.st_size}:{st.st_mtime_ns}"


def key(shown: str, data: bytes, size: int | None = None) -> str:
    """The key of a file shown as ``shown`` with content ``data`` (``size`` its real size
    when ``data`` was cut short)."""
    h = hashlib.sha256(code_fingerprint())
    h.update(shown.encode("utf-8", "surrogateescape") + b"\0")
    h.update(str(len(data) if size is None else size).encode() + b"\0")
    h.update(data)
    return h.hexdigest()


def _path(k: str, kind: str = _FOLDER) -> str | None:
    base = _base(kind)
    return None if base is None else os.path.join(base, k[:2], f"{k}.pickle")


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
    import tempfile      # writes only: a check that finds every entry imports none of it
    try:
        os.makedirs(os.path.dirname(p), exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(p))
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


def prune(limit: int = MAX_ENTRIES, kind: str = _FOLDER, suffix: str = ".pickle") -> int:
    """Remove the oldest entries of ``kind`` (files named ``*suffix``) beyond ``limit``;
    returns how many were removed."""
    base = folder(kind)
    if base is None or not base.is_dir():
        return 0
    entries = []
    for p in base.glob(f"*/*{suffix}"):
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

"""Pyodide's memory with the explorer's engine imported, kept at build time for the page to start from.

Started in a browser, Pyodide spends most of its time before Python's first line
setting Python up (its standard library's start-up imports), and the explorer then
imports its engine (its modules, the dataclasses they make). Pyodide can instead
start from a snapshot of its memory taken after all that: :func:`made` runs the
pyodide npm package under Node.js (:func:`.pyodidejob.run_node`), writes the
bundle's zips where the page writes them, imports the modules the page imports
first from them (Python's path as the page sets it), and keeps Pyodide's memory
(``makeMemorySnapshot``), gzipped. The page gives it to ``loadPyodide`` and finds
the engine imported; it then writes the same zips at the same places (the zip
importers in the snapshot read their modules from them) and reads the rules, which
are not in the snapshot: an edit of the rules leaves it as it is.

Snapshots are an interface Pyodide marks private: one is valid only for the Pyodide
build that made it (the key covers Pyodide's version), and the page falls back to an
ordinary start when ``loadPyodide`` refuses one.

The same zips give the same bytes: the Node.js process that takes the snapshot
draws its random numbers from a fixed sequence, reads a clock that does not move, and
has a fixed program name, time zone (UTC) and language (Python's hash seed is fixed
too: :data:`.pyodidejob.PRELUDE`), so nothing of the moment or of the machine it ran on
is in Pyodide's memory; the page seeds Python's ``random`` again from the browser. The
Pyodide it imports into is always one restored from the memory of Pyodide's start: in a
build, the byte code's run has written that memory (the build's start file), and the
snapshot's run restores it instead of starting Pyodide a second time; with no start file
it starts Pyodide and restores that memory itself, to the same bytes. The snapshot is
remembered on disk (sub-folder ``snapshot`` of the shared cache) and in the process.
"""
from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

from . import pyodidejob

#: how many snapshots the disk cache keeps (the newest; each about 6.5 MB)
KEEP = 2

#: run by Node.js (after :data:`.pyodidejob.PRELUDE`, whose randomness and clocks give the
#: same memory every time): Pyodide from the npm package (argv[2]), restored from the memory
#: of its start; write the zips of the folder argv[3] (asked.json says which, and where) into
#: its file system, run the Python of $HARMONY_SNAPSHOT_SCRIPT, and write its memory into the
#: file argv[4]
_NODE = r"""
const [folder, zips, outFile] = ARGS;
const asked = JSON.parse(fs.readFileSync(path.join(zips, "asked.json"), "utf8"));
startPyodide(folder, true).then((py) => {
  py.FS.mkdirTree(asked.home);
  for (const name of asked.zips) {
    py.FS.writeFile(asked.home + "/" + name, new Uint8Array(fs.readFileSync(path.join(zips, name))));
  }
  py.globals.set("_harmony_asked", JSON.stringify(asked));
  py.runPython(fs.readFileSync(process.env.HARMONY_SNAPSHOT_SCRIPT, "utf8"));
  fs.writeFileSync(outFile, py.makeMemorySnapshot());
}).catch(fail);
"""

#: run by Pyodide's Python before the snapshot: Python's path as the page sets it (the first
#: zip first, the others last), the modules imported, the collector left off as the page
#: leaves it until the first ruling is shown; nothing of this step left in ``__main__``
_PYTHON = r"""
def _harmony_prepare(asked):
    import gc, json, sys
    gc.disable()
    asked = json.loads(asked)
    paths = [asked["home"] + "/" + name for name in asked["zips"]]
    sys.path.insert(0, paths[0])
    sys.path.extend(paths[1:])
    for module in asked["modules"]:
        __import__(module)

_harmony_prepare(_harmony_asked)
del _harmony_prepare, _harmony_asked
"""


def _key(pyodide: Path, zips: dict[str, bytes], home: str, modules: tuple[str, ...]) -> str:
    h = _JOB.hasher(pyodide, __file__)
    h.update(json.dumps([home, list(zips), modules]).encode())
    for name in zips:
        h.update(b"\0" + hashlib.sha256(zips[name]).digest())
    return h.hexdigest()[:40]


def made(pyodide: Path, zips: dict[str, bytes], home: str, modules: tuple[str, ...],
         start: pyodidejob.Start | None = None) -> tuple[bytes | None, str]:
    """The gzipped memory snapshot of the Pyodide of ``pyodide`` with ``zips`` (name ->
    bytes, in their order on Python's path) written into the folder ``home`` and
    ``modules`` imported from them, and ''; or None and the one line saying why there
    is none. ``start``: the build's :class:`.pyodidejob.Start` (the same snapshot
    either way, quicker when the file exists)."""
    got = _JOB.result(_key(pyodide, zips, home, modules),
                      lambda: _run_node(pyodide, zips, home, modules, start))
    return (got, "") if isinstance(got, bytes) else (None, got)


def _gzipped(data: bytes) -> bool:
    return data[:2] == b"\x1f\x8b"


#: the snapshots, on disk (``snapshot/KEY.gz``) and the last one in the process
_JOB = pyodidejob.Job("snapshot", "gz", KEEP, valid=_gzipped)


def _run_node(pyodide: Path, zips: dict[str, bytes], home: str, modules: tuple[str, ...],
              start: pyodidejob.Start | None = None) -> bytes:
    with pyodidejob.scratch("harmony-snapshot-") as tmp:
        folder, out, script = tmp / "in", tmp / "memory.bin", tmp / "prepare.py"
        folder.mkdir()
        for name, data in zips.items():
            (folder / name).write_bytes(data)
        (folder / "asked.json").write_text(json.dumps({"home": home, "zips": list(zips),
                                                       "modules": list(modules)}), "utf-8")
        script.write_text(_PYTHON, "utf-8")
        memory = pyodidejob.run_node(_NODE, [str(pyodide.resolve()), str(folder), str(out)],
                                     "take a snapshot of Pyodide", out, {"HARMONY_SNAPSHOT_SCRIPT": str(script)},
                                     start)
        return gzip.compress(memory, compresslevel=6, mtime=0)

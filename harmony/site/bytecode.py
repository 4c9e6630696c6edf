"""The explorer's Python compiled to byte code for Pyodide's Python, by Pyodide itself, at build time.

In the browser, compiling a module's source is most of what importing it costs
(Python compiled to WebAssembly compiles slowly: the engine's modules and the
schema validators compiled ahead took five times longer to import from source
than from byte code). Byte code is specific to a Python version, and Pyodide's
is not the one harmony runs on, so :func:`compiled` asks Pyodide's own Python
to compile the sources: it runs the pyodide npm package under Node.js (the
``node`` on the path, as ``npm ci`` needs one), which writes, for each
``NAME.py``, an unchecked hash-based ``NAME.pyc`` (no time stamp: the same
sources give the same bytes, the hash seed fixed) that Python's zip importer
prefers to the source beside it.

The result is remembered on disk (the shared cache of :mod:`harmony.parsecache`,
sub-folder ``pyc``: a :class:`.pyodidejob.Job`) and in the process, under the
sources, Pyodide's version and this module's code; without Node.js (or when it
fails) the bundle keeps its sources alone and the build says why.
"""
from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from . import pyodidejob

#: how many compiled sets the disk cache keeps (the newest)
KEEP = 4

#: run by Node.js (after :data:`.pyodidejob.PRELUDE`): start Pyodide from the npm package
#: (argv[2]), compile the .py files of the zip argv[3] and write their byte code into the zip
#: argv[4]
_NODE = r"""
const [folder, inZip, outZip] = ARGS;
startPyodide(folder, false).then((py) => {
  py.FS.writeFile("/in.zip", new Uint8Array(fs.readFileSync(inZip)));
  py.runPython(fs.readFileSync(process.env.HARMONY_PYC_SCRIPT, "utf8"));
  fs.writeFileSync(outZip, py.FS.readFile("/out.zip"));
}).catch(fail);
"""

#: run by Pyodide's Python: each ``ZIP/PATH.py`` of /in.zip compiled as the file
#: ``HOME/ZIP/PATH.py`` (where the page's zip importer finds it), as importlib compiles;
#: then the entry modules imported from their zip's sources, and each module of Pyodide's
#: standard library that this brought in (a plain module, not a package) compiled into that
#: zip too, as the file it is in the standard library's zip (the page imports it from there
#: as byte code: the same source, compiled here rather than in the page)
_PYTHON = r"""
import importlib.util, io, json, sys, zipfile
from importlib._bootstrap_external import _code_to_hash_pyc

def pyc(data, path):
    code = compile(data, path, "exec", dont_inherit=True)
    return bytes(_code_to_hash_pyc(code, importlib.util.source_hash(data), False))

src = zipfile.ZipFile("/in.zip")
asked = json.loads(src.read("asked.json"))
home, entry = asked["home"], asked["entry"]
out = io.BytesIO()
with zipfile.ZipFile(out, "w") as z:
    for name in sorted(n for n in src.namelist() if n.endswith(".py")):
        z.writestr(name + "c", pyc(src.read(name), home + "/" + name))
    if entry:
        zname, modules = entry
        with zipfile.ZipFile("/entry.zip", "w") as e:
            for name in sorted(n for n in src.namelist() if n.startswith(zname + "/")):
                e.writestr(name[len(zname) + 1:], src.read(name))
        stdlib = {p for p in sys.path if p.endswith(".zip")}
        before = set(sys.modules)
        sys.path.insert(0, "/entry.zip")
        for module in modules:
            __import__(module)
        for name in sorted(set(sys.modules) - before):
            spec = getattr(sys.modules[name], "__spec__", None)
            origin = getattr(spec, "origin", None) or ""
            if ("." not in name and spec.submodule_search_locations is None and origin.endswith(".py")
                    and any(origin.startswith(p + "/") for p in stdlib)):
                z.writestr(f"{zname}/{name}.pyc", pyc(spec.loader.get_source(name).encode("utf-8"), origin))
open("/out.zip", "wb").write(out.getvalue())
"""


def _key(pyodide: Path, zips: dict[str, dict[str, bytes]], home: str,
         entry: tuple[str, tuple[str, ...]] | None) -> str:
    h = _JOB.hasher(pyodide, __file__)
    h.update(json.dumps([home, entry]).encode() + b"\0")
    for zname in sorted(zips):
        for name in sorted(zips[zname]):
            if name.endswith(".py"):
                h.update(f"{zname}/{name}".encode("utf-8", "surrogateescape") + b"\0" + zips[zname][name] + b"\0")
    return h.hexdigest()[:40]


def compiled(pyodide: Path, zips: dict[str, dict[str, bytes]], home: str,
             entry: tuple[str, tuple[str, ...]] | None = None,
             start: pyodidejob.Start | None = None) -> tuple[dict[str, dict[str, bytes]], str]:
    """For each zip (its name -> its entries), the byte code of its ``.py`` entries
    (``PATH.pyc`` -> bytes) compiled by the Pyodide of ``pyodide`` as the files
    ``home/ZIP/PATH.py``, and with ``entry`` (a zip's name, modules in it) the byte code
    of the standard library's modules that importing them brings in; and '' or the one
    line saying why there is none. ``start``: the build's :class:`.pyodidejob.Start`
    (read if it exists, else written when Pyodide runs)."""
    got = _JOB.result(_key(pyodide, zips, home, entry),
                      lambda: _run_node(pyodide, zips, home, entry, start))
    return (_split(got, list(zips)), "") if isinstance(got, bytes) else ({z: {} for z in zips}, got)


def _whole(data: bytes) -> bool:
    try:
        return zipfile.ZipFile(io.BytesIO(data)).testzip() is None
    except zipfile.BadZipFile:
        return False


#: the compiled sets, on disk (``pyc/KEY.zip``) and the last one in the process
_JOB = pyodidejob.Job("pyc", "zip", KEEP, valid=_whole)


def _split(data: bytes, names: list[str]) -> dict[str, dict[str, bytes]]:
    out: dict[str, dict[str, bytes]] = {z: {} for z in names}
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for name in z.namelist():
            zname, _, inner = name.partition("/")
            out[zname][inner] = z.read(name)
    return out


def _run_node(pyodide: Path, zips: dict[str, dict[str, bytes]], home: str,
              entry: tuple[str, tuple[str, ...]] | None = None, start: pyodidejob.Start | None = None) -> bytes:
    with pyodidejob.scratch("harmony-pyc-") as tmp:
        src, out, script = (tmp / n for n in ("in.zip", "out.zip", "compile.py"))
        with zipfile.ZipFile(src, "w") as z:
            z.writestr("asked.json", json.dumps({"home": home, "entry": entry}))
            for zname in sorted(zips):
                for name in sorted(zips[zname]):
                    z.writestr(f"{zname}/{name}", zips[zname][name])
        script.write_text(_PYTHON, "utf-8")
        return pyodidejob.run_node(_NODE, [str(pyodide.resolve()), str(src), str(out)], "compile it for Pyodide",
                                   out, {"HARMONY_PYC_SCRIPT": str(script)}, start)

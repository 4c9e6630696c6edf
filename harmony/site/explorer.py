"""Bundle the ruling explorer into the built site: Pyodide, the harmony package, the rules.

The explorer page (``site/explorer.rst`` with ``_static/explorer.js``) runs the
project's own engine in the browser with Pyodide, offline, from any static host
and from ``file://``. Chromium refuses ``fetch()`` and ES-module imports from
``file://``, so everything the page needs is written as classic scripts into
``_explorer/`` at the top of the site:

* ``pyodide.js``: Pyodide's loader, as the npm package ships it;
* ``pyodide-asm.js``: Pyodide's ES module ``pyodide.asm.mjs`` rewritten into a
  classic script (:func:`classic_asm`);
* ``runtime.js``: the WebAssembly binary and Python's standard library, gzipped
  and in base64 (the page answers Pyodide's ``fetch`` of them from memory), and
  Pyodide's lock file;
* ``harmony.js``: two zips, in base64, that the page puts on Python's path as they
  are (Python imports from a zip): ``engine.zip`` (:func:`engine_zip`: the ``harmony``
  package and the game's schema validators compiled ahead; its modules as byte code for
  Pyodide's Python, compiled by Pyodide under Node.js, :mod:`.bytecode`, when Node.js is
  there) and ``more.zip`` (:func:`more_zip`: the YAML writer and jsonschema, imported only to
  save a scenario or to say what is wrong with a position); what the page offers (the
  game's catalogue, worked out here), the drawing style, the limits of a link, the
  map from clause id to the row that shows it (:func:`clause_links`), and the rules as
  JSON (:func:`rules_json`, read without YAML by :mod:`harmony.modeljson`);
* ``snapshot.js``: Pyodide's memory with the engine imported from those zips, gzipped
  and in base64 (:mod:`.snapshot`, made under Node.js when Node.js is there; else
  ``null``): a page whose files are on the reader's machine (``file://``, a loopback
  address) starts Pyodide from it, skipping Python's own start and the engine's imports;
  from another host the page does not fetch it. The rules are not in it, so an edit of
  the rules leaves it as it is.

Only the explorer page loads them; every other page stays as light as before.
Pyodide comes from the npm registry (``package.json`` pins it, ``npm ci``
installs it): :func:`find_pyodide` looks at ``$HARMONY_PYODIDE``, then at
``node_modules/pyodide`` at the top of the checkout. Without it the site still
builds, and the explorer page says how to bundle it.

Every file is deterministic: the same inputs (and Node.js there or not) give the same bytes.
"""
from __future__ import annotations

import base64
import functools
import gzip
import importlib.util
import io
import json
import os
import threading
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .. import game, resources
from ..model import Model
from ..schema import AHEAD
from .views import anchor_of, topic_doc

#: the folder of the bundle at the top of the built site
FOLDER = "_explorer"
#: the folder of Pyodide's file system the page writes the zips into
HOME = "/harmony"
#: the one line a build without Pyodide prints, and the page's advice
HOW_TO_BUNDLE = ("run `npm ci` at the top of the checkout (or set HARMONY_PYODIDE to an "
                 "unpacked pyodide npm package) and build again")
#: the same, said to a harmony installed from its wheel, which has no checkout
HOW_TO_BUNDLE_INSTALLED = ("set HARMONY_PYODIDE to an unpacked pyodide npm package (`npm install "
                           "pyodide` makes one in node_modules/pyodide) and build again")


def how_to_bundle() -> str:
    """How to get Pyodide for the explorer: from a checkout, or from an installed wheel."""
    return HOW_TO_BUNDLE if resources.checkout_root() is not None else HOW_TO_BUNDLE_INSTALLED
#: the files of the pyodide npm package the bundle needs
NEEDED = ("pyodide.js", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json",
          "package.json")
#: a fixed time for every zip entry (zip times start in 1980)
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


class BundleError(Exception):
    """The Pyodide package found is not one the bundle can use."""


@dataclass
class Bundle:
    """What :func:`plan` found: the files of ``_explorer/`` (name -> bytes) and a note."""

    files: dict[str, bytes]
    note: str


def find_pyodide(env: Mapping[str, str] | None = None) -> Path | None:
    """The unpacked pyodide npm package to bundle, or None.

    ``$HARMONY_PYODIDE`` wins (an empty value means: bundle none); else
    ``node_modules/pyodide`` at the top of the checkout harmony runs from.

    >>> find_pyodide({"HARMONY_PYODIDE": ""}) is None
    True
    >>> find_pyodide({"HARMONY_PYODIDE": "/nowhere/at/all"}) is None
    True
    """
    given = (os.environ if env is None else env).get("HARMONY_PYODIDE")
    if given is not None:
        return Path(given) if given and (Path(given) / "pyodide.asm.wasm").is_file() else None
    root = resources.checkout_root()
    if root is not None and (root / "node_modules" / "pyodide" / "pyodide.asm.wasm").is_file():
        return root / "node_modules" / "pyodide"
    return None


def classic_asm(module: str) -> str:
    """Pyodide's ``pyodide.asm.mjs`` as a classic script: ``import.meta.url`` becomes the
    global base URL the page sets, the default export becomes a global.

    >>> out = classic_asm("function _createPyodideModule(){return import.meta.url}"
    ...                   "export default _createPyodideModule;")
    >>> "import.meta" in out, "export" in out
    (False, False)
    >>> out.endswith("}globalThis.__harmonyCreatePyodideModule=_createPyodideModule;")
    True
    >>> classic_asm("no export here")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    harmony.site.explorer.BundleError: pyodide.asm.mjs: no `export default _createPyodideModule;` ...
    """
    export = "export default _createPyodideModule;"
    if module.count(export) != 1:
        raise BundleError(f"pyodide.asm.mjs: no `{export}` (another Pyodide version?)")
    out = module.replace(export, "globalThis.__harmonyCreatePyodideModule=_createPyodideModule;")
    # (its dynamic import() calls sit in Node.js-only branches; a browser never runs them)
    return out.replace("import.meta.url", "globalThis.__harmonyPyodideBase")


def _zip_bytes(entries: dict[str, bytes]) -> bytes:
    """A zip of ``entries`` (sorted, fixed times, an entry for each folder, so that Python's
    zip importer finds the namespace packages in it too)."""
    folders = {name.rsplit("/", n)[0] + "/" for name in entries for n in range(1, name.count("/") + 1)}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name in sorted(set(entries) | folders):
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.create_system = 3
            if name in folders:
                info.external_attr = (0o40755 << 16) | 0x10
                z.writestr(info, b"")
                continue
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, entries[name], compresslevel=9)
    return buf.getvalue()


#: the pure-Python packages the engine imports only to write a scenario file, to report what
#: is wrong with a position (the schema's full check) or to read rules from YAML: in
#: ``more.zip``, bundled from the environment harmony runs in (``rpds`` is compiled:
#: :mod:`harmony.site.purerpds` stands in for it)
PURE_PACKAGES = ("ruamel.yaml", "yaml", "jsonschema", "referencing", "jsonschema_specifications", "attr", "attrs")
#: what is left out of them: their tests, benchmarks, compiled parts and byte code
LEFT_OUT = ("tests", "benchmarks", "__pycache__", "clibz")
#: the parts of the harmony package the page never runs (the site, cards, rulebook and diff
#: builders and the starter folders)
NOT_RUN = ("site", "cards", "rulebook", "diff", "starter", "starter_dice")
#: the name in Pyodide's file system (in :data:`HOME`) of the rules (:func:`rules_json`)
MODEL_FILE = "model.json"
#: the names of the two zips in Pyodide's file system (in :data:`HOME`), in their order on
#: Python's path
ENGINE, MORE = "engine.zip", "more.zip"


def _package_files(folder: Path, prefix: str, data: bool = False,
                   skip: tuple[str, ...] = ()) -> dict[str, bytes]:
    """The .py files under ``folder`` (and its data files when ``data``), named ``prefix/...``;
    none under the folders ``skip`` names at its top."""
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder)
        if (not p.is_file() or any(part in LEFT_OUT for part in rel.parts[:-1])
                or (len(rel.parts) > 1 and rel.parts[0] in skip)):
            continue
        if p.suffix == ".py" or (data and p.suffix not in (".pyc", ".so", ".pyd", ".c", ".pyx", ".pyi", ".typed")):
            out[f"{prefix}/{rel.as_posix()}"] = p.read_bytes()
    return out


def engine_zip(model: Model, compiled: dict[str, bytes] | None = None) -> bytes:
    """The zip the page puts first on Python's path: the ``harmony`` package (its code but
    :data:`NOT_RUN`, and its schema) and the game's quick schema validators compiled ahead
    (module :data:`harmony.schema.AHEAD`); ``compiled``, the byte code of its modules
    (:mod:`harmony.site.bytecode`), stands in for their sources. With the rules
    (:func:`rules_json`), deciding a position needs nothing else: no YAML reader, no
    jsonschema (``tests/test_explorer_bundle.py`` decides from them alone). The rules are
    not in it: the same harmony gives the same zip whatever its rules (and so the same
    :mod:`.snapshot`).

    >>> import zipfile, io
    >>> from harmony.loader import load
    >>> from harmony.usage import default_rules_data
    >>> rules = default_rules_data()
    >>> data = engine_zip(load(rules)[0])
    >>> names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    >>> all(n in names for n in ("harmony/game.py", "harmony/games/panzerblitz/engine.py",
    ...                          "harmony/schema/harmony.schema.json", "harmony_schema_ahead.py"))
    True
    >>> any(n.startswith(("ruamel/", "harmony/site/")) or n.endswith(".json") and "/" not in n
    ...     for n in names), names == sorted(names)
    (False, True)
    >>> engine_zip(load(rules)[0]) == data
    True
    """
    return _zip_bytes(_compiled(_engine_code(model), compiled or {}))


def rules_json(rules: str | os.PathLike) -> str:
    """The rules as the page reads them (:func:`harmony.modeljson.dumps`; the worked examples
    left out: the page plays its own), written by the page as :data:`MODEL_FILE`.

    >>> from harmony.usage import default_rules_data
    >>> rules_json(default_rules_data()).startswith("{")
    True
    """
    from .. import modeljson
    return modeljson.dumps(rules, scenarios=False)


def _engine_code(model: Model) -> dict[str, bytes]:
    """The code of ``engine.zip``: the harmony package's, and the validators compiled ahead."""
    entries = _package_files(resources.package_dir(), "harmony", skip=NOT_RUN)
    entries.update(_package_files(resources.package_dir() / "schema", "harmony/schema", data=True))
    explorer = game.game_for(model).explorer
    if explorer is not None and explorer.schema_ahead is not None:
        entries[f"{AHEAD}.py"] = explorer.schema_ahead().encode("utf-8")
    return entries


def _to_compile(model: Model) -> tuple[dict[str, dict[str, bytes]], tuple[str, tuple[str, ...]] | None]:
    """What :mod:`.bytecode` compiles: the code of ``engine.zip`` (``more.zip``, used only to
    save a scenario or to report a problem, stays source: compiling it would double the
    time it takes), and the modules the page imports first (whose standard library modules
    are compiled too)."""
    explorer = game.game_for(model).explorer
    entry = (ENGINE, (explorer.module, AHEAD)) if explorer is not None and explorer.module else None
    return {ENGINE: _engine_code(model)}, entry


def prepare(model: Model, env: Mapping[str, str] | None = None) -> None:
    """Begin compiling the bundle's Python for Pyodide (:mod:`.bytecode`) and then taking
    the snapshot of Pyodide with the engine imported (:mod:`.snapshot`), in a thread of
    their own, for a build to make its pages meanwhile; :func:`plan` waits for them and
    takes the results. Nothing happens without Pyodide or an explorer.

    A build begins it only after its PDF printers are forked: a process forked while
    another thread runs inherits whatever lock that thread held at that moment (Python's
    ``tempfile`` names its files under one), and would wait for it for ever."""
    try:
        if game.game_for(model).explorer is None:
            return
        pyodide = find_pyodide(env)
        if pyodide is None or any(not (pyodide / n).is_file() for n in NEEDED):
            return
    except (game.GameError, BundleError, OSError):
        return
    ahead = _Ahead(pyodide, model)
    _AHEAD[:] = [ahead]
    ahead.thread.start()


def settle() -> None:
    """Wait for the work :func:`prepare` began, if an earlier build left it running (it
    failed before taking it), so that no thread of it runs while a build forks."""
    for ahead in _AHEAD:
        ahead.thread.join()


class _Ahead:
    """:func:`_python_ahead` of one Pyodide and model, run in a thread of its own by
    :func:`prepare`; :func:`bundle_files` waits for it and takes what it made."""

    def __init__(self, pyodide: Path, model: Model) -> None:
        self.pyodide, self.model = pyodide, model
        self.made: tuple[bytes, bytes | None, list[str]] | None = None
        self.thread = threading.Thread(target=self._run, daemon=True, name="harmony-explorer-ahead")

    def _run(self) -> None:
        try:
            self.made = _python_ahead(self.pyodide, self.model)
        except Exception:  # noqa: BLE001  (met again, and said once, by the bundle: no thread's traceback)
            pass

    def taken(self, pyodide: Path, model: Model) -> tuple[bytes, bytes | None, list[str]] | None:
        """What the thread made, once it is done, if it was for ``pyodide`` and this very
        ``model`` (the build's own)."""
        self.thread.join()
        return self.made if self.pyodide == pyodide and self.model is model else None


#: the work :func:`prepare` began, which :func:`bundle_files` waits for
_AHEAD: list[_Ahead] = []


def _python_ahead(pyodide: Path, model: Model) -> tuple[bytes, bytes | None, list[str]]:
    """The bundle's engine zip (its modules compiled when they can be), the snapshot of
    Pyodide with the modules the page imports first imported from it (or None), and why
    either is missing (one line each)."""
    from . import bytecode, pyodidejob, snapshot
    why = []
    zips, entry = _to_compile(model)
    with pyodidejob.Start() as start:   # Pyodide's memory at its start: both runs start it once
        pyc, not_compiled = bytecode.compiled(pyodide, zips, HOME, entry, start)
        if not_compiled:
            why.append(f"its Python as source: {not_compiled}")
        engine = engine_zip(model, pyc[ENGINE])
        memory = None
        if entry is not None:
            memory, not_taken = snapshot.made(pyodide, {ENGINE: engine, MORE: more_zip()}, HOME, entry[1], start)
            if not_taken:
                why.append(f"Pyodide starts without a snapshot: {not_taken}")
    return engine, memory, why


@functools.lru_cache(maxsize=1)
def more_zip() -> bytes:
    """The zip the page puts last on Python's path: the pure-Python packages of
    :data:`PURE_PACKAGES` and ``rpds``, as source, imported only to write a scenario file or
    to say what is wrong with a position (made once a process: ``harmony serve`` builds
    again and again; the packages installed do not change under it).

    >>> import zipfile, io
    >>> names = zipfile.ZipFile(io.BytesIO(more_zip())).namelist()
    >>> all(n in names for n in ("ruamel/", "ruamel/yaml/main.py", "rpds/__init__.py",
    ...                          "jsonschema/validators.py"))
    True
    >>> any(n.startswith("harmony/") for n in names)
    False
    """
    return _zip_bytes(_more_sources())


def _compiled(entries: dict[str, bytes], compiled: dict[str, bytes]) -> dict[str, bytes]:
    """``entries`` with each module's byte code in place of its source (Python's zip
    importer needs no source beside an unchecked hash-based ``.pyc``)."""
    return {**{n: d for n, d in entries.items() if n + "c" not in compiled}, **compiled}


@functools.lru_cache(maxsize=1)
def _more_sources() -> dict[str, bytes]:
    entries = {}
    for name in PURE_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise BundleError(f"the explorer needs the pure-Python package {name}, not installed here")
        folder = Path(list(spec.submodule_search_locations)[0])
        entries.update(_package_files(folder, name.replace(".", "/"), data=True))
    entries["rpds/__init__.py"] = (Path(__file__).parent / "purerpds.py").read_bytes()
    return entries


def clause_links(model: Model) -> dict[str, str]:
    """Clause id -> the page and anchor of its row (relative to the site's top), the
    links the clause rows of the site already answer to.

    >>> from harmony.loader import load
    >>> from harmony.usage import default_rules_data
    >>> links = clause_links(load(default_rules_data())[0])
    >>> links["spotting.recording"]
    'topics/spotting.html#spotting.recording'
    """
    out = {}
    for topic in model.topics_in_order():
        for clause in model.clauses_of(topic.id):
            out[clause.id] = f"{topic_doc(topic.id)}.html#{anchor_of(clause.id)}"
    return dict(sorted(out.items()))


def drawing_style(model: Model) -> dict:
    """What the harmony's game draws its boards with (:attr:`harmony.game.Explorer.style`),
    so the page draws its board from the same data as the example diagrams.

    >>> from harmony.loader import load
    >>> from harmony.usage import default_rules_data
    >>> sorted(drawing_style(load(default_rules_data())[0]))
    ['hexside', 'kinds', 'other', 'sides', 'size', 'terrain']
    """
    explorer = game.game_for(model).explorer
    return explorer.style() if explorer is not None else {}


def limits(model: Model) -> dict:
    """The limits a position from a link must keep, which the page checks in the link's raw
    text before it parses or draws anything (:attr:`harmony.game.Explorer.limits` of the
    harmony's game).

    >>> from harmony.loader import load
    >>> from harmony.usage import default_rules_data
    >>> sorted(limits(load(default_rules_data())[0]))
    ['columns', 'link', 'nesting', 'rows', 'steps', 'units']
    """
    explorer = game.game_for(model).explorer
    return explorer.limits() if explorer is not None and explorer.limits is not None else {}


def _script(assignments: dict[str, object]) -> bytes:
    """A classic script setting globals to JSON values, one per line, in a fixed order."""
    lines = ["/* written by harmony build (harmony/site/explorer.py); do not edit */"]
    for name, value in assignments.items():
        lines.append(f"globalThis.{name}={json.dumps(value, sort_keys=True, separators=(',', ':'))};")
    return ("\n".join(lines) + "\n").encode("utf-8")


def _b64gz(data: bytes) -> str:
    # level 6: level 9 takes twice the time for 0.3% less
    return base64.b64encode(gzip.compress(data, compresslevel=6, mtime=0)).decode("ascii")


@functools.lru_cache(maxsize=2)
def _pyodide_files(folder: str, stamp: tuple, cache: str | None = None) -> dict[str, bytes]:
    """The bundle's Pyodide files, kept for the life of the process (``harmony serve``
    rebuilds without compressing Pyodide again) and, given a ``cache`` folder, on disk
    (a new ``harmony build`` process reads them back instead of compressing 10 MB again);
    ``stamp`` changes when Pyodide's files do, and the disk copy's name also covers this
    module's code, so a change to how they are made makes them again."""
    stored = _stored_pyodide(folder, stamp, cache)
    if stored is not None:
        try:   # (the cache is the user's, shared by every build: another may be replacing it)
            return {name: (stored / name).read_bytes() for name in PYODIDE_OUT}
        except OSError:
            pass
    files = _make_pyodide_files(Path(folder))
    if stored is not None:
        _store(stored, files)
    return files


#: the files of the bundle made from Pyodide's own (the rest, ``harmony.js``, from the rules)
PYODIDE_OUT = ("pyodide.js", "pyodide-asm.js", "runtime.js")


def _stored_pyodide(folder: str, stamp: tuple, cache: str | None) -> Path | None:
    """Where the disk copy of the Pyodide files made from ``folder`` at ``stamp`` lives."""
    if cache is None:
        return None
    import hashlib
    key = hashlib.sha256(repr((folder, stamp)).encode("utf-8")
                         + Path(__file__).read_bytes()).hexdigest()[:40]
    return Path(cache) / "pyodide" / key


def _store(folder: Path, files: dict[str, bytes]) -> None:
    """Write ``files`` into ``folder`` whole or not at all (a folder renamed into place);
    a cache that cannot be written is no error, the files are made again next time."""
    import shutil
    import tempfile
    tmp = None
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=folder.parent))
        for name, data in files.items():
            (tmp / name).write_bytes(data)
        for old in folder.parent.iterdir():   # one Pyodide's files are kept, not every one's
            if old.name != folder.name and not old.name.startswith(".tmp-"):
                shutil.rmtree(old, ignore_errors=True)
        if folder.exists():                   # one that lacks a file: ours in its place
            os.replace(folder, aside := tmp.with_name(tmp.name + "-old"))
            shutil.rmtree(aside, ignore_errors=True)
        os.replace(tmp, folder)
    except OSError:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _make_pyodide_files(pyodide: Path) -> dict[str, bytes]:
    version = json.loads((pyodide / "package.json").read_text("utf-8")).get("version", "")
    lock = json.loads((pyodide / "pyodide-lock.json").read_text("utf-8"))
    # the explorer loads no package of Pyodide's own: its lock file need only say what it is
    lock = {"info": lock.get("info", {}), "packages": {}}
    asm = classic_asm((pyodide / "pyodide.asm.mjs").read_text("utf-8"))
    return {
        "pyodide.js": (pyodide / "pyodide.js").read_bytes(),
        "pyodide-asm.js": asm.encode("utf-8"),
        "runtime.js": _script({
            "__harmonyPyodideFiles": {name: _b64gz((pyodide / name).read_bytes())
                                      for name in ("pyodide.asm.wasm", "python_stdlib.zip")},
            "__harmonyPyodideLock": json.dumps(lock, sort_keys=True),
            "__harmonyPyodideVersion": version}),
    }


def bundle_files(pyodide: Path, model: Model, rules: str | os.PathLike,
                 cache: str | os.PathLike | None = None, notes: list[str] | None = None) -> dict[str, bytes]:
    """Every file of the bundle: name inside ``_explorer/`` -> bytes (the ones made from
    Pyodide's files remembered in ``cache``, if given); ``notes`` gets why the Python is
    bundled as source, when it is (:mod:`.bytecode`), and why Pyodide starts without a
    snapshot, when it does (:mod:`.snapshot`)."""
    missing = [n for n in NEEDED if not (pyodide / n).is_file()]
    if missing:
        raise BundleError(f"{pyodide} lacks {', '.join(missing)}: not an unpacked pyodide npm package")
    stamp = tuple((n, (pyodide / n).stat().st_size, (pyodide / n).stat().st_mtime_ns) for n in NEEDED)
    files = dict(_pyodide_files(str(pyodide.resolve()), stamp,
                                str(cache) if cache is not None else None))
    version = json.loads((pyodide / "package.json").read_text("utf-8")).get("version", "")
    explorer = game.game_for(model).explorer
    made = next((got for ahead in _AHEAD if (got := ahead.taken(pyodide, model)) is not None), None)
    engine, memory, why = made if made is not None else _python_ahead(pyodide, model)
    if notes is not None:
        notes.extend(why)
    return {
        **files,
        # gzipped already: base64 alone
        "snapshot.js": _script({"__harmonyPyodideSnapshot": None if memory is None else
                                base64.b64encode(memory).decode("ascii")}),
        "harmony.js": _script({
            "__harmonyExplorerBundle": {
                # zips of deflated files: base64 alone (the page decodes them at once, no gunzip)
                "engine": base64.b64encode(engine).decode("ascii"),
                "more": base64.b64encode(more_zip()).decode("ascii"),
                "zips": [ENGINE, MORE], "rules": rules_json(rules),
                "home": HOME, "model": MODEL_FILE, "module": explorer.module if explorer else "",
                "catalogue": explorer.catalogue(model) if explorer and explorer.catalogue else {},
                "links": clause_links(model), "pyodide": version,
                "style": drawing_style(model), "limits": limits(model)}}),
    }


def plan(model: Model, rules: str | os.PathLike, env: Mapping[str, str] | None = None,
         cache: str | os.PathLike | None = None) -> Bundle:
    """The bundle to write into ``_explorer/`` of the site (no files when no Pyodide is
    found), and the one line the build prints about it; ``cache``: the folder where the
    files made from Pyodide's are remembered between processes.

    >>> from harmony.loader import load
    >>> from harmony.usage import default_rules_data
    >>> rules = default_rules_data()
    >>> none = plan(load(rules)[0], rules, {"HARMONY_PYODIDE": ""})
    >>> none.files, none.note.startswith("the explorer is not bundled")
    ({}, True)
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as odd:
    ...     _ = (Path(odd) / "pyodide.asm.wasm").write_bytes(b"")
    ...     print(plan(load(rules)[0], rules, {"HARMONY_PYODIDE": odd}).note)  # doctest: +ELLIPSIS
    the explorer is not bundled (/... lacks pyodide.js, ...: not an unpacked pyodide npm package): run `npm ci` ...
    """
    try:
        explores = game.game_for(model).explorer is not None
    except game.GameError:
        explores = False
    if not explores:
        return Bundle({}, "the harmony's game offers no ruling explorer: none bundled")
    pyodide = find_pyodide(env)
    if pyodide is None:
        return Bundle({}, f"the explorer is not bundled (no Pyodide found): {how_to_bundle()}")
    notes: list[str] = []
    try:
        files = bundle_files(pyodide, model, rules, cache, notes)
    except BundleError as e:
        return Bundle({}, f"the explorer is not bundled ({e}): {how_to_bundle()}")
    size = sum(len(d) for d in files.values())
    return Bundle(files, f"the explorer bundles Pyodide from {pyodide} ({size / 1e6:.1f} MB)"
                  + "".join(f"; {n}" for n in notes))

"""Pyodide's memory with the explorer's engine imported, taken at build time (harmony.site.snapshot):
by Pyodide itself under Node.js, restored with the modules imported, the same zips giving
the same bytes, remembered on disk; without Node.js, none and a one-line reason; and the
bundle's engine zip, of which the snapshot is taken, the same whatever the rules."""
from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from harmony.site import explorer as bundle
from harmony.site import snapshot

#: two zips as the bundle has them: the first imported from, the second put last on the path
ZIPS = {"engine.zip": bundle._zip_bytes({"tiny/__init__.py": b"", "tiny/calc.py":
                                         b"from fractions import Fraction\nHALF = Fraction(1, 2)\n"
                                         b"LOADED = []\nLOADED.append('once')\n"}),
        "more.zip": bundle._zip_bytes({"later.py": b"WORD = 'later'\n"})}

#: run by Node.js: Pyodide started from the snapshot argv[3], the zips of argv[4] written back
#: where they were, then what Python says of the modules
RESTORE = r"""
const path = require("path"), fs = require("fs"), zlib = require("zlib");
const [folder, memory, zips] = process.argv.slice(2);
const { loadPyodide } = require(path.join(folder, "pyodide.js"));
loadPyodide({indexURL: folder + path.sep, _loadSnapshot: zlib.gunzipSync(fs.readFileSync(memory))}).then((py) => {
  py.FS.mkdirTree("/harmony");
  for (const name of ["engine.zip", "more.zip"]) {
    py.FS.writeFile("/harmony/" + name, new Uint8Array(fs.readFileSync(path.join(zips, name))));
  }
  process.stdout.write(py.runPython(`
import json, sys
imported = "tiny.calc" in sys.modules
import tiny.calc, later
json.dumps({"imported": imported, "half": str(tiny.calc.HALF), "loaded": tiny.calc.LOADED,
            "later": later.WORD, "path": [p for p in sys.path if p.startswith("/harmony")],
            "main": sorted(n for n in dir(__import__("__main__")) if n.startswith("_harmony"))})
`));
}).catch((e) => { process.stderr.write(String(e && e.stack || e) + "\n"); process.exit(1); });
"""


@pytest.fixture()
def pyodide(node_pyodide):
    snapshot._JOB.memo.clear()
    yield node_pyodide
    snapshot._JOB.memo.clear()


def restored(pyodide, memory: bytes, tmp_path) -> dict:
    (tmp_path / "memory.gz").write_bytes(memory)
    for name, data in ZIPS.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "restore.cjs").write_text(RESTORE, "utf-8")
    run = subprocess.run(["node", str(tmp_path / "restore.cjs"), str(pyodide.resolve()),
                          str(tmp_path / "memory.gz"), str(tmp_path)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout)


def test_pyodide_restored_from_the_snapshot_has_the_modules_imported_once(pyodide, tmp_path, monkeypatch):
    memory, why = snapshot.made(pyodide, ZIPS, "/harmony", ("tiny.calc",))
    assert why == "" and memory is not None
    assert len(gzip.decompress(memory)) > 1_000_000     # Pyodide's memory, gzipped
    got = restored(pyodide, memory, tmp_path)
    # imported before the snapshot (its module code not run again), the path as the page sets
    # it, the other zip read from its place when first asked, nothing of the step left behind
    assert got == {"imported": True, "half": "1/2", "loaded": ["once"], "later": "later",
                   "path": ["/harmony/engine.zip", "/harmony/more.zip"], "main": []}
    # a new process takes none again: the disk remembers (and nothing runs Node.js)
    snapshot._JOB.memo.clear()

    def no_node(*_args, **_kwargs):
        raise AssertionError("taken again though remembered")
    with monkeypatch.context() as m:
        m.setattr(snapshot, "_run_node", no_node)
        assert snapshot.made(pyodide, ZIPS, "/harmony", ("tiny.calc",)) == (memory, "")
    # taken afresh, the same bytes: nothing of the moment is in the memory
    monkeypatch.setenv("HARMONY_CACHE", "off")
    snapshot._JOB.memo.clear()
    assert snapshot.made(pyodide, ZIPS, "/harmony", ("tiny.calc",)) == (memory, "")
    # other zips, another snapshot, though the disk remembers the first
    monkeypatch.setenv("HARMONY_CACHE", str(tmp_path / "cache"))
    snapshot._JOB.memo.clear()
    other = {**ZIPS, "engine.zip": bundle._zip_bytes({"tiny/__init__.py": b"", "tiny/calc.py": b"HALF = 2\n"})}
    assert snapshot.made(pyodide, other, "/harmony", ("tiny.calc",))[0] != memory


def test_a_build_starts_pyodide_once_and_the_snapshot_is_the_same_bytes(pyodide, tmp_path, monkeypatch):
    """The byte code's run writes Pyodide's memory at its start into the build's start file;
    the snapshot's run restores Pyodide from it (instead of starting it again) and takes the
    same snapshot, byte for byte, as a run with no start file; a start file that cannot be
    written costs nothing but the time; one that does not hold Pyodide's memory is read, and
    refused."""
    from harmony.site import bytecode
    from harmony.site.pyodidejob import Start
    monkeypatch.setenv("HARMONY_CACHE", "off")
    monkeypatch.setattr(bytecode._JOB, "memo", {})
    start = Start(tmp_path)
    sources = {"engine.zip": {"tiny/__init__.py": b"", "tiny/calc.py": b"HALF = 1 / 2\n"}}
    pyc, why = bytecode.compiled(pyodide, sources, "/harmony", None, start)
    assert why == "" and set(pyc["engine.zip"]) == {"tiny/__init__.pyc", "tiny/calc.pyc"}
    assert start.file().stat().st_size > 1_000_000
    monkeypatch.setattr(bytecode._JOB, "memo", {})
    assert bytecode.compiled(pyodide, sources, "/harmony", None, start)[0] == pyc
    monkeypatch.setattr(bytecode._JOB, "memo", {})      # a start file that cannot be written: no harm
    assert bytecode.compiled(pyodide, sources, "/harmony", None, Start(tmp_path / "none")) == (pyc, "")
    from_start = snapshot.made(pyodide, ZIPS, "/harmony", ("tiny.calc",), start)
    snapshot._JOB.memo.clear()
    alone = snapshot.made(pyodide, ZIPS, "/harmony", ("tiny.calc",))
    assert from_start == alone and alone[1] == ""
    assert restored(pyodide, alone[0], tmp_path)["half"] == "1/2"
    snapshot._JOB.memo.clear()
    start.file().write_bytes(b"not Pyodide's memory" * 100)
    memory, why = snapshot.made(pyodide, ZIPS, "/harmony", ("tiny.calc",), start)
    assert memory is None and why.startswith("Node.js could not take a snapshot of Pyodide: ") and "\n" not in why


def test_without_node_there_is_no_snapshot_and_the_build_says_why(pyodide, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert snapshot.made(pyodide, ZIPS, "/harmony", ("tiny.calc",)) == \
        (None, "no Node.js (`node`) on the path to take a snapshot of Pyodide")


def test_a_module_that_fails_to_import_gives_no_snapshot_and_a_one_line_reason(pyodide):
    broken = {**ZIPS, "engine.zip": bundle._zip_bytes({"bad.py": b"raise ValueError('not today')\n"})}
    memory, why = snapshot.made(pyodide, broken, "/harmony", ("bad",))
    assert memory is None
    assert why.startswith("Node.js could not take a snapshot of Pyodide: ") and "\n" not in why
    assert "ValueError: not today" in why


def test_the_engine_zip_and_so_the_snapshot_do_not_change_with_the_rules(shipped_model, tmp_path):
    from harmony.loader import load
    rules = tmp_path / "rules"
    shutil.copytree(bundle.resources.checkout_root() / "rules_data", rules)
    edited = next(p for p in sorted(rules.rglob("*.yaml")) if "text:" in p.read_text("utf-8"))
    edited.write_text(edited.read_text("utf-8").replace("text:", "text: Edited.", 1), "utf-8")
    model = load(rules)[0]
    assert bundle.rules_json(rules) != bundle.rules_json(bundle.resources.checkout_root() / "rules_data")
    assert bundle.engine_zip(model) == bundle.engine_zip(shipped_model)


def test_a_build_begins_the_bundles_python_ahead_and_takes_what_it_made(shipped_model, monkeypatch):
    """harmony build calls prepare() before Sphinx runs: the byte code and the snapshot are
    made in a thread of their own meanwhile, and the bundle waits for that thread and takes
    what it made (for the same Pyodide and model: nothing is made twice); nothing is begun
    without Pyodide (or without an explorer)."""
    import threading

    from harmony.loader import load
    ran: list[str] = []

    def ahead(pyodide, model):
        ran.append(threading.current_thread().name)
        return b"", None, []
    monkeypatch.setattr(bundle, "_python_ahead", ahead)
    monkeypatch.setattr(bundle, "_AHEAD", [])
    bundle.prepare(shipped_model, {"HARMONY_PYODIDE": ""})
    assert bundle._AHEAD == [] and ran == []
    bundle.prepare(shipped_model)
    assert [a.thread.name for a in bundle._AHEAD] == ["harmony-explorer-ahead"]
    pyodide = bundle.find_pyodide()
    assert bundle._AHEAD[0].taken(pyodide, shipped_model) == (b"", None, [])
    assert ran == ["harmony-explorer-ahead"]
    assert bundle._AHEAD[0].taken(pyodide, load(bundle.resources.checkout_root() / "rules_data")[0]) is None
    # what fails in the thread is met again, and said, by the bundle: no thread's traceback
    failures: list = []
    monkeypatch.setattr(threading, "excepthook", failures.append)

    def failing(pyodide, model):
        raise OSError("disk full")
    monkeypatch.setattr(bundle, "_python_ahead", failing)
    bundle.prepare(shipped_model)
    assert bundle._AHEAD[0].taken(pyodide, shipped_model) is None     # the bundle makes it again
    assert failures == []


def test_the_build_says_why_the_bundle_lacks_byte_code_or_a_snapshot_and_no_more_when_it_has_both(
        shipped_model, monkeypatch):
    from harmony.site import bytecode
    rules = bundle.resources.checkout_root() / "rules_data"
    made = bundle.plan(shipped_model, rules)
    assert made.note.startswith("the explorer bundles Pyodide from ") and ";" not in made.note, made.note
    # what the page is told: the module to import, what a position may hold, the rules
    script = made.files["harmony.js"].decode("utf-8")
    told = json.loads(script.split("globalThis.__harmonyExplorerBundle=", 1)[1].split(";\n", 1)[0])
    assert told["module"] == "harmony.games.panzerblitz.explorer"
    assert {"kinds", "rulesets", "phases"} <= set(told["catalogue"]) and told["catalogue"]["rulesets"]
    assert told["rules"] == bundle.rules_json(rules) and told["model"] == bundle.MODEL_FILE
    assert made.files["snapshot.js"].startswith(b"/* written by harmony build") and \
        b'__harmonyPyodideSnapshot="H4sI' in made.files["snapshot.js"]      # gzip, in base64
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setenv("HARMONY_CACHE", "off")
    monkeypatch.setattr(bytecode._JOB, "memo", {})
    monkeypatch.setattr(snapshot._JOB, "memo", {})
    note = bundle.plan(shipped_model, rules).note
    assert note.split("; ")[1:] == [
        "its Python as source: no Node.js (`node`) on the path to compile it for Pyodide",
        "Pyodide starts without a snapshot: no Node.js (`node`) on the path to take a snapshot of Pyodide"]


def test_no_thread_of_the_build_runs_while_its_printers_fork(tmp_path, monkeypatch):
    """The build begins the bundle's Python in its thread only once its PDF printers are
    forked (a process forked while another thread runs inherits the locks that thread
    held, tempfile's among them, and could wait on one for ever); the thread here waits
    until the printers are forked, so that the wrong order would be seen."""
    import threading

    from harmony import printer
    from harmony.site.build import build_site
    forked = threading.Event()
    alive: list[list[str]] = []
    real_enter = printer.Printer.__enter__

    def entering(self):
        alive.append(sorted(t.name for t in threading.enumerate() if t.name.startswith("harmony")))
        try:
            return real_enter(self)
        finally:
            forked.set()
    real_ahead = bundle._python_ahead
    ran: list[bool] = []

    def ahead(pyodide, model):
        ran.append(forked.wait(timeout=120))
        return real_ahead(pyodide, model)
    monkeypatch.setattr(printer.Printer, "__enter__", entering)
    monkeypatch.setattr(bundle, "_python_ahead", ahead)
    result = build_site(bundle.resources.checkout_root() / "rules_data", tmp_path / "site")
    assert alive == [[]] and ran == [True]
    assert "snapshot.js" in {p.name for p in (result.out / bundle.FOLDER).iterdir()}


def test_a_build_waits_for_the_thread_an_earlier_failed_build_left(monkeypatch):
    """settle() returns only once the last build's thread has ended (a build that failed
    before its bundle never took what its thread made)."""
    import threading
    gate = threading.Event()
    left = bundle._Ahead.__new__(bundle._Ahead)
    left.thread = threading.Thread(target=gate.wait, name="harmony-explorer-ahead", daemon=True)
    monkeypatch.setattr(bundle, "_AHEAD", [left])
    left.thread.start()
    threading.Timer(0.2, gate.set).start()
    bundle.settle()
    assert not left.thread.is_alive()


def test_a_node_run_gives_the_bytes_it_wrote_or_says_it_made_nothing(tmp_path):
    """pyodidejob.run_node: the file the script wrote, read back; a script that ends well but
    writes nothing (or an empty file) made nothing, said in one line."""
    from harmony.site import pyodidejob
    out = tmp_path / "out.bin"
    write = 'fs.writeFileSync(ARGS[0], process.argv.length === 2 ? "made" : "");\n'
    assert pyodidejob.run_node(write, [str(out)], "write it", out) == b"made"
    out.unlink()
    with pytest.raises(pyodidejob.NotMade, match=r"^Node.js could not write it: no message$"):
        pyodidejob.run_node("", [str(out)], "write it", out)
    out.write_bytes(b"")
    with pytest.raises(pyodidejob.NotMade, match="no message"):
        pyodidejob.run_node("", [str(out)], "write it", out)


def test_a_build_whose_pyodide_work_is_remembered_makes_no_temporary_folder(shipped_model, node_pyodide,
                                                                              monkeypatch):
    """The start file's folder is made only when a run starts Pyodide, and removed after;
    a build that finds the byte code and the snapshot remembered makes none."""
    from harmony.site import bytecode
    monkeypatch.setattr(bytecode._JOB, "memo", {})
    monkeypatch.setattr(snapshot._JOB, "memo", {})
    made: list[str] = []
    real = tempfile.mkdtemp
    monkeypatch.setattr(tempfile, "mkdtemp", lambda *a, **k: made.append(real(*a, **k)) or made[-1])
    first = bundle._python_ahead(node_pyodide, shipped_model)
    assert first[1] is not None and [m.split("/")[-1][:16] for m in made if "pyodide" in m] == ["harmony-pyodide-"]
    assert not any(Path(m).exists() for m in made if "harmony-pyodide-" in m)
    monkeypatch.setattr(bytecode._JOB, "memo", {})
    monkeypatch.setattr(snapshot._JOB, "memo", {})
    del made[:]
    assert bundle._python_ahead(node_pyodide, shipped_model) == first
    assert [m for m in made if "harmony-pyodide-" in m] == []


#: a harmony command run with Ctrl-C's usual meaning, whatever the test process does with it
INTERRUPTIBLE = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                 "sys.argv = ['harmony', *sys.argv[1:]]; runpy.run_module('harmony', run_name='__main__')")


def _processes_naming(text: str) -> list[str]:
    """The command lines of this machine's processes (but this one) that name ``text``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            line = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if text in line:
            found.append(line)
    return found


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
def test_a_build_stopped_by_ctrl_c_while_pyodide_works_leaves_no_temporary_file_and_no_node_run(tmp_path, stop):
    """Ctrl-C (or SIGTERM, which harmony unwinds alike: :mod:`harmony.signals`) stops a build
    while its thread waits on Node.js: the thread's own clean-up never comes (the process
    ends under it), so the Node.js run is stopped and the temporary folders (a start file
    is 30 MB) removed as the process exits."""
    assert bundle.find_pyodide() is not None, "Pyodide is missing: run `npm ci`"
    root = Path(__file__).resolve().parent.parent
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp), HARMONY_CACHE=str(tmp_path / "cache"), PYTHONPATH=str(root))
    build = subprocess.Popen([sys.executable, "-c", INTERRUPTIBLE, "build", str(root / "rules_data"),
                              "--out", str(tmp_path / "site")], env=env, cwd=tmp_path,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 180
        while not list(tmp.glob("harmony-node-*")) and build.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert list(tmp.glob("harmony-node-*")), "no Node.js run began"
        time.sleep(0.5)                   # (Pyodide starting: it would run on for seconds)
        build.send_signal(getattr(signal, stop))
        _, err = build.communicate(timeout=120)
    finally:
        if build.poll() is None:
            build.kill()
    assert build.returncode == {"SIGINT": 130, "SIGTERM": 143}[stop], err
    assert "Traceback" not in err, err
    deadline = time.monotonic() + 0.1     # (a killed run is gone a moment after its signal;
    while _processes_naming(str(tmp)) and time.monotonic() < deadline:   # one left alone runs on
        time.sleep(0.02)                  # for seconds, until it fails to write its file)
    assert _processes_naming(str(tmp)) == []
    assert sorted(p.name for p in tmp.iterdir()) == []

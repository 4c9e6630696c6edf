"""The explorer's Python compiled for Pyodide at build time (harmony.site.bytecode): by
Pyodide itself under Node.js, the same sources giving the same bytes, remembered on disk,
and, without Node.js, sources alone with a one-line reason."""
from __future__ import annotations

import shutil

import pytest

from harmony.site import bytecode

SOURCES = {"engine.zip": {"tiny/__init__.py": b"", "tiny/calc.py": b"from fractions import Fraction\n"
                          b"HALF = Fraction(1, 2)\nNAMES = {'a', 'b', 'c'}\n"},
           "more.zip": {"other.py": b"X = 1\n", "data.json": b"{}"}}
ENTRY = ("engine.zip", ("tiny.calc",))


@pytest.fixture()
def pyodide(node_pyodide):
    bytecode._JOB.memo.clear()
    yield node_pyodide
    bytecode._JOB.memo.clear()


def test_pyodide_compiles_each_module_and_the_standard_librarys_it_imports(pyodide, monkeypatch, tmp_path):
    cache = tmp_path / "cache"
    got, why = bytecode.compiled(pyodide, SOURCES, "/harmony", ENTRY)
    assert why == ""
    # the modules of the zip, and the standard library's plain modules tiny.calc brings in
    assert {"tiny/__init__.pyc", "tiny/calc.pyc", "fractions.pyc"} <= set(got["engine.zip"])
    assert all("/" not in n for n in set(got["engine.zip"]) - {"tiny/__init__.pyc", "tiny/calc.pyc"})
    assert sorted(got["more.zip"]) == ["other.pyc"]
    pyc = got["engine.zip"]["tiny/calc.pyc"]
    assert int.from_bytes(pyc[4:8], "little") == 0b01      # hash-based, unchecked: no time stamp
    # a new process compiles nothing again: the disk remembers (and nothing runs Node.js)
    bytecode._JOB.memo.clear()

    def no_node(*_args, **_kwargs):
        raise AssertionError("compiled again though remembered")
    with monkeypatch.context() as m:
        m.setattr(bytecode, "_run_node", no_node)
        assert bytecode.compiled(pyodide, SOURCES, "/harmony", ENTRY) == (got, "")
    # compiled afresh, the same bytes
    monkeypatch.setenv("HARMONY_CACHE", "off")
    bytecode._JOB.memo.clear()
    assert bytecode.compiled(pyodide, SOURCES, "/harmony", ENTRY) == (got, "")
    # another source, other byte code, though the disk remembers the first
    changed = {**SOURCES, "more.zip": {"other.py": b"X = 2\n"}}
    monkeypatch.setenv("HARMONY_CACHE", str(cache))
    bytecode._JOB.memo.clear()
    assert bytecode.compiled(pyodide, changed, "/harmony", ENTRY)[0]["more.zip"]["other.pyc"] != \
        got["more.zip"]["other.pyc"]


def test_without_node_the_sources_stay_and_the_build_says_why(pyodide, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    got, why = bytecode.compiled(pyodide, SOURCES, "/harmony", ENTRY)
    assert got == {"engine.zip": {}, "more.zip": {}}
    assert why == "no Node.js (`node`) on the path to compile it for Pyodide"


def test_a_module_pyodide_cannot_compile_leaves_the_sources_with_a_one_line_reason(pyodide):
    broken = {"engine.zip": {"bad.py": b"def (:\n"}}
    got, why = bytecode.compiled(pyodide, broken, "/harmony")
    assert got == {"engine.zip": {}}
    assert why.startswith("Node.js could not compile it for Pyodide: ") and "\n" not in why
    assert "SyntaxError" in why

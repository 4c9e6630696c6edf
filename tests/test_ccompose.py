"""The C reader (harmony.ccompose) reads every document exactly as ruamel's round-trip
reader does: the same data (types included), the same position for every key and value,
the same diagnostics, and the same schema problems. Whatever it is unsure of, it leaves
to the round-trip reader, so the property holds for every text, valid or not."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from harmony import ccompose, loader
from harmony.check import check_path
from harmony.loader import read_text
from harmony.schema import validate_items
from harmony.yamltree import node_pos, walk

from strategies import broken_folders, commented, texts_of, valid_folders

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "rules_data").rglob("*.yaml")) + sorted((ROOT / "harmony" / "starter").rglob("*.yaml"))
BAD = sorted((ROOT / "tests" / "bad_inputs").glob("*.yaml"))


def shape(node: Any) -> Any:
    """A tree as nested (type name, value): ruamel's quoted strings count as str (the C
    reader keeps no quoting style; nothing but ``harmony fmt`` reads it), everything
    else (block scalars, ruamel's int and float types, bools, None) must match exactly."""
    if isinstance(node, dict):
        return ("map", [(shape(k), shape(v)) for k, v in node.items()])
    if isinstance(node, list):
        return ("seq", [shape(v) for v in node])
    name = type(node).__name__
    if name in ("SingleQuotedScalarString", "DoubleQuotedScalarString"):
        name = "str"
    return (name, str(node))


def positions(file: str, tree: Any) -> list:
    return [(path, node_pos(file, tree, path), node_pos(file, tree, path, key=True))
            for path, _ in walk(tree)]


def assert_same_reading(name: str, text: str) -> bool:
    """Both readers on ``text``; returns whether the C reader took the file itself."""
    rt, fast = read_text(name, text), read_text(name, text, round_trip=False)
    assert [str(d) for d in fast.report.diagnostics] == [str(d) for d in rt.report.diagnostics]
    assert shape(fast.tree) == shape(rt.tree)
    if rt.tree is not None:
        assert positions(name, fast.tree) == positions(name, rt.tree)
    schema_rt, schema_fast = validate_items(rt), validate_items(fast)
    assert [str(d) for d in schema_fast[0].diagnostics] == [str(d) for d in schema_rt[0].diagnostics]
    assert schema_fast[1] == schema_rt[1]
    return type(fast.tree).__name__ == "PosMap"


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_shipped_file_reads_the_same_and_through_the_c_reader(path):
    text = path.read_text("utf-8")
    assert assert_same_reading(path.name, text), "the C reader left a shipped file to ruamel"


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_every_bad_input_reads_the_same(path):
    doc = loader.read_bytes(str(path), path.read_bytes(), round_trip=False)
    rt = loader.read_bytes(str(path), path.read_bytes())
    assert [str(d) for d in doc.report.diagnostics] == [str(d) for d in rt.report.diagnostics]
    if rt.tree is not None:
        assert shape(doc.tree) == shape(rt.tree)
        assert positions(doc.path, doc.tree) == positions(rt.path, rt.tree)


def test_the_checks_report_the_same_through_either_reader(tmp_path, monkeypatch):
    """A whole check of the shipped data and of a folder of bad inputs, with the C reader
    and with it switched off (everything through ruamel)."""
    monkeypatch.setenv("HARMONY_CACHE", str(tmp_path / "cache"))
    for folder in (ROOT / "rules_data", ROOT / "tests" / "bad_inputs"):
        monkeypatch.setattr(loader, "_READ", type(loader._READ)())
        _, fast = check_path(folder)
        monkeypatch.setenv("HARMONY_CACHE", str(tmp_path / f"cache-rt-{folder.name}"))
        monkeypatch.setattr(loader, "_READ", type(loader._READ)())
        monkeypatch.setattr(ccompose, "compose", lambda text: None)
        _, rt = check_path(folder)
        monkeypatch.undo()
        monkeypatch.setenv("HARMONY_CACHE", str(tmp_path / "cache"))
        assert fast.to_text() == rt.to_text()
    assert "0 errors, 0 warnings" in fast.to_text() or fast.errors


@pytest.mark.parametrize("text", [
    "a:\nb: 1\n", "a:\n", "a:", "a:   \n\n  \nb: 1\n", "a:  # c\nb: 1\n", "a:\n# c\nb: 1\n",
    "x:\n  a:\nb: 1\n", "x:\n  - a:\n  - b\n", "x:\n  -\n  - b\n", "x:\n- \n- b\n",
    "x: {a: , b: 1}\n", "x: {a}\n", "x: [a: ]\n", "? a\nb: 1\n", "x:\n  - a:\n    b:\n",
    "x:\n - a: 1\n   b:\n - c\n", "x: 1\nx: 2\n", "1: a\n1.0: b\n", "true: a\n1: b\n", "<<: {a: 1}\n",
    "a: 2002-02-30\n", "a: 2002-02-28\n", "a: -_\n", "a: 0b_\n", "a: " + "9" * 101 + "\n",
    "a: 0x" + "f" * 99 + "\n", "a: yes\nb: No\nc: on\nd: ~\ne: NULL\nf: .NaN\ng: -.inf\nh: 0o17\ni: 017\n",
    "a: |\n  x\n  y\nb: >-\n  p\n  q\n", "a: 'it''s'\nb: \"\\u00e9\\t\"\n", "a:\tb\n", "a: b\r\nc: d\r\n",
    "--- \na: 1\n", "a: 1\n...\n", "%YAML 1.1\n---\na: yes\n", "a: &x 1\n", "a: !!str 1\n",
    "a: [1, [2, [3]]]\n" , "é😀: ö\n  \n", "a: b\n---\nc: d\n", "- a\n", "just text\n", "a: b: c\n",
    "a:\n  - b\n  c: d\n", "a: 'x\n", "a: [1, 2\n", "? [a]\n: b\n", "{a: 1}\n", "a: 1 # c\n",
])
def test_edge_cases_read_the_same(text):
    assert_same_reading("e.yaml", text)


def test_deep_nesting_is_left_to_the_round_trip_reader():
    deep = "a: " + "[" * 45 + "]" * 45 + "\n"
    assert ccompose.compose(deep) is None
    assert_same_reading("d.yaml", deep)
    ok = "a: " + "[" * 38 + "]" * 38 + "\n"
    assert ccompose.compose(ok) is not None
    assert_same_reading("d.yaml", ok)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_generated_folders_read_the_same(data):
    files = data.draw(valid_folders())
    for name, text in texts_of(files).items():
        text, _ = data.draw(commented(text))
        assert_same_reading(name, text)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(broken_folders())
def test_broken_folders_read_the_same(folder):
    texts, _ = folder
    for name, text in texts.items():
        assert_same_reading(name, text)


#: Characters that change how YAML reads, to damage shipped text with.
SIGNIFICANT = list(":-?,[]{}#&*!|>'\"%@` \n") + ["\t", "\r", "- ", ": ", "\n  ", "\n- ", "é", "\u2028"]
PIECE = [t.read_text("utf-8")[:1500] for t in SHIPPED[:8]]


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(PIECE), st.lists(st.tuples(st.integers(0, 1499), st.sampled_from(SIGNIFICANT),
                                                  st.integers(0, 3)), min_size=1, max_size=4))
def test_damaged_shipped_text_reads_the_same(piece, edits):
    """Characters inserted into, or replacing a few characters of, real rules text: each
    reading either agrees, or the C reader stood aside."""
    text = piece
    for at, ch, cut in edits:
        at = min(at, len(text))
        text = text[:at] + ch + text[at + cut:]
    assert_same_reading("m.yaml", text)


def test_an_empty_value_before_an_explicit_key_reads_the_same():
    """Found by the broken-folders property: ``key:`` with nothing, then a ``? key`` line;
    ruamel places the empty value a column further than the C reader would."""
    for text in ("glossary:\n  '':\n  ? '0000000000'\n  :\n", "a:\n? b\n: c\n"):
        assert_same_reading("g.yaml", text)

"""``harmony fmt``: schema key order, every comment kept, atomic writes, no needless writes.

Each test builds a small rules_data folder in ``tmp_path`` (two rulebooks, one
topic, one or two clauses) and runs the command in-process through
``harmony.cli.main``; one test runs it on the shipped rules_data.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from harmony import cli
from harmony import fmt as fmt_module
from harmony.fmt import formatted
from harmony.loader import new_yaml, plain, read_text

ROOT = Path(__file__).resolve().parent.parent
DIAG = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.+) \[(?P<code>[a-z0-9-]+)\]$")

SOURCES = """\
# Two rulebooks and one topic: enough for a clause with two cells.
sources:
  - key: PB
    title: PanzerBlitz
    author: A. Designer
    year: 1970
    kind: canonical
  - key: PL
    title: Panzer Leader
    author: A. Designer
    year: 1974
    kind: canonical
topics:
  - id: spotting
    title: Spotting
    summary: Who may be fired on.
    order: 1
    sources: [PB, PL]
    aspects:
      - {id: rule, title: The rule}
      - {id: other, title: Another row}
"""

# Formatted: keys in schema order, ruamel's layout.
CLAUSE = """\
clauses:
  - id: spotting.rule
    topic: spotting
    aspect: rule
    title: Units in cover
    cells:
      PB:
        status: rule
        text: A unit in woods may be fired on only when spotted.
        cite: {source: PB, section: Spotting}
        note: The one reading we took.
      PL: not-covered
    examples: |
      >>> 1 + 1
      2
"""

# The same clause with clause keys and cell keys shuffled, and comments everywhere.
SHUFFLED = """\
# File header: the spotting rows.
clauses:
  # before the first clause
  - title: Units in cover    # end of the title line
    cells:
      PB:
        # about the citation
        cite: {source: PB, section: Spotting}
        text: A unit in woods may be fired on only when spotted.  # end of the text line
        note: The one reading we took.
        # about the status
        status: rule
      # before the PL cell
      PL: not-covered
    # about the topic
    topic: spotting
    examples: |
      >>> 1 + 1
      2
    # about the id
    id: spotting.rule   # end of the id line
    aspect: rule

  # between the two clauses
  - aspect: other
    id: spotting.other
    topic: spotting
    cells: {PB: not-covered, PL: not-covered}
# last line of the file
"""


def rules(tmp_path: Path, **files: str) -> Path:
    folder = tmp_path / "rules_data"
    folder.mkdir()
    (folder / "sources.yaml").write_text(SOURCES, encoding="utf-8")
    for name, text in files.items():
        (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
    return folder


def run(capsys, *argv) -> tuple[int, str, str]:
    rc = cli.main(["fmt", *map(str, argv)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return rc, out, err


def stamp(path: Path) -> tuple:
    st_ = path.stat()
    return path.read_bytes(), st_.st_ino, st_.st_mtime_ns


def age(path: Path) -> None:
    """Move the modification time an hour back, so that any rewrite shows."""
    t = path.stat().st_mtime_ns - 3600 * 10**9
    os.utime(path, ns=(t, t))


def keys_of(text: str) -> list[list[str]]:
    tree = new_yaml().load(text)
    return [list(c) for c in tree["clauses"]]


# ----------------------------------------------------------------- key order
def test_fixture_is_valid_and_formatted(tmp_path, capsys):
    folder = rules(tmp_path, spotting=CLAUSE)
    assert cli.main(["check", str(folder)]) == 0
    capsys.readouterr()
    assert run(capsys, "--check", folder)[0] == 0


def test_clause_and_cell_keys_are_put_in_schema_order(tmp_path, capsys):
    folder = rules(tmp_path, spotting=SHUFFLED)
    path = folder / "spotting.yaml"
    rc, out, err = run(capsys, folder)
    assert rc == 0, err
    assert f"reformatted {path}" in out.splitlines()
    assert "1 of 2 files reformatted" in out
    text = path.read_text(encoding="utf-8")
    tree = new_yaml().load(text)
    first, second = tree["clauses"]
    assert list(first) == ["id", "topic", "aspect", "title", "cells", "examples"]
    assert list(first["cells"]["PB"]) == ["status", "text", "cite", "note"]
    assert list(first["cells"]) == ["PB", "PL"]  # cells keep the author's order
    assert list(second) == ["id", "topic", "aspect", "cells"]
    # the data is the same
    assert plain(tree) == plain(new_yaml().load(SHUFFLED))
    # and the folder still checks clean
    assert cli.main(["check", str(folder)]) == 0


def test_the_formatted_text_without_comments_is_the_canonical_layout(tmp_path, capsys):
    no_comments = "\n".join(line.split("  #")[0].rstrip() for line in SHUFFLED.splitlines()
                            if not line.lstrip().startswith("#")) + "\n"
    no_comments = no_comments.replace("\n\n", "\n")
    folder = rules(tmp_path, spotting=no_comments)
    assert run(capsys, folder)[0] == 0
    want = CLAUSE + "  - id: spotting.other\n    topic: spotting\n    aspect: other\n" \
        "    cells: {PB: not-covered, PL: not-covered}\n"
    assert (folder / "spotting.yaml").read_text(encoding="utf-8") == want


# ------------------------------------------------------------------ comments
def test_every_comment_survives_next_to_what_it_describes(tmp_path, capsys):
    folder = rules(tmp_path, spotting=SHUFFLED)
    assert run(capsys, folder)[0] == 0
    lines = (folder / "spotting.yaml").read_text(encoding="utf-8").splitlines()
    comments = [c for c in (re.search(r"#.*", line) for line in SHUFFLED.splitlines()) if c]
    for c in comments:  # each one exactly once
        assert sum(c.group() in line for line in lines) == 1, c.group()

    def at(prefix: str) -> int:
        hits = [i for i, line in enumerate(lines) if line.lstrip().startswith(prefix)]
        assert len(hits) == 1, (prefix, lines)
        return hits[0]

    assert lines[0] == "# File header: the spotting rows."
    assert lines[-1] == "# last line of the file"
    # full-line comments stay right above the key (or item) they introduce
    first = at("- id: spotting.rule")
    assert lines[first - 2:first] == ["  # before the first clause", "  # about the id"]
    topic_line = lines.index("    topic: spotting")
    assert lines[topic_line - 1] == "    # about the topic"
    assert at("# about the status") == at("status: rule") - 1
    assert at("# about the citation") == at("cite:") - 1
    assert at("# before the PL cell") == at("PL: not-covered") - 1
    assert at("# between the two clauses") < at("- id: spotting.other")
    assert lines[at("- id: spotting.other") - 1] == "  # between the two clauses"
    # end-of-line comments stay on their line
    assert lines[at("- id: spotting.rule")].endswith("# end of the id line")
    assert lines[at("title:")].endswith("# end of the title line")
    assert lines[at("text:")].endswith("# end of the text line")
    # the comments of the first clause are all inside it, before the second one
    second = at("- id: spotting.other")
    for c in ("about the topic", "about the status", "before the PL cell", "about the citation"):
        assert at(f"# {c}") < second


def test_comments_around_a_block_scalar_stay_in_place():
    text = ("clauses:\n  - examples: |\n      >>> 1\n      1\n    # about the id\n"
            "    id: a.b\n    topic: t\n    aspect: r\n    cells: {PB: not-covered}\n"
            "    # end of the clause\n")
    out = formatted(read_text("x.yaml", text))
    assert out == ("clauses:\n  # about the id\n  - id: a.b\n    topic: t\n    aspect: r\n"
                   "    cells: {PB: not-covered}\n    examples: |\n      >>> 1\n      1\n"
                   "    # end of the clause\n")
    assert formatted(read_text("x.yaml", out)) == out


# ------------------------------------------------------ untouched when formatted
def test_a_formatted_file_is_not_written_at_all(tmp_path, capsys):
    folder = rules(tmp_path, spotting=CLAUSE)
    paths = sorted(folder.glob("*.yaml"))
    for p in paths:
        age(p)
    before = [stamp(p) for p in paths]
    rc, out, err = run(capsys, folder)
    assert rc == 0 and err == ""
    assert out == "0 of 2 files reformatted\n"
    assert [stamp(p) for p in paths] == before
    assert sorted(os.listdir(folder)) == ["sources.yaml", "spotting.yaml"]


def test_check_lists_the_file_exits_1_and_writes_nothing(tmp_path, capsys):
    folder = rules(tmp_path, spotting=SHUFFLED)
    path = folder / "spotting.yaml"
    age(path)
    before = stamp(path)
    rc, out, err = run(capsys, "--check", folder)
    assert rc == 1
    assert err.splitlines() == [f"would reformat {path}"]
    assert "1 of 2 files need formatting" in out
    assert stamp(path) == before
    assert sorted(os.listdir(folder)) == ["sources.yaml", "spotting.yaml"]


def test_a_second_run_changes_nothing(tmp_path, capsys):
    folder = rules(tmp_path, spotting=SHUFFLED)
    assert run(capsys, folder)[0] == 0
    path = folder / "spotting.yaml"
    age(path)
    before = stamp(path)
    rc, out, _ = run(capsys, folder)
    assert rc == 0 and out == "0 of 2 files reformatted\n"
    assert stamp(path) == before
    assert run(capsys, "--check", folder)[0] == 0


def test_one_file_can_be_named(tmp_path, capsys):
    folder = rules(tmp_path, spotting=SHUFFLED)
    sources = folder / "sources.yaml"
    age(sources)
    before = stamp(sources)
    rc, out, _ = run(capsys, folder / "spotting.yaml")
    assert rc == 0 and "1 of 1 files reformatted" in out
    assert stamp(sources) == before


# --------------------------------------------------------- property: any order
CLAUSE_KEYS = {
    "id": "id: spotting.rule",
    "topic": "topic: spotting",
    "aspect": "aspect: rule",
    "title": "title: Units in cover",
    "cells": "cells:\n  PB:\n    status: rule\n    text: Spotted units only.\n  PL: not-covered",
    "qa": "qa:\n  - source: PB\n    question: Who spots?\n    answer: An adjacent unit.",
    "scenarios": "scenarios:\n  - fig-1\n  - fig-2",
}
CELL_KEYS = {
    "status": "status: rule",
    "text": "text: Spotted units only.",
    "cite": "cite:\n  - {source: PB, section: Spotting}\n  - {source: PB, section: Markers}",
    "note": "note: The one reading.",
    "params": "params: {spot.adjacent: true}",
}


def _clause(clause_order, cell_order, comments: bool) -> str:
    cell = "\n".join(
        (f"# cell key {k}\n" if comments else "") + CELL_KEYS[k] for k in cell_order)
    parts = []
    for k in clause_order:
        body = CLAUSE_KEYS[k]
        if k == "cells":
            body = "cells:\n  PB:\n" + "\n".join("    " + line for line in cell.splitlines()) \
                + "\n  PL: not-covered"
        lines = body.splitlines()
        if comments:
            lines[0] += f"  # on {k}"
            lines.insert(0, f"# clause key {k}")
        parts.extend(lines)
    first = 1 if comments else 0  # comment lines above the item start at its '- '
    return "clauses:\n" + "\n".join(
        ("  " if i < first else "  - " if i == first else "    ") + line
        for i, line in enumerate(parts)) + "\n"


CANONICAL = _clause(list(CLAUSE_KEYS), list(CELL_KEYS), comments=False)


@settings(max_examples=60, deadline=None)
@given(st.permutations(list(CLAUSE_KEYS)), st.permutations(list(CELL_KEYS)))
def test_any_key_order_gives_the_one_canonical_text(clause_order, cell_order):
    text = _clause(clause_order, cell_order, comments=False)
    out = formatted(read_text("x.yaml", text))
    assert out == CANONICAL
    assert formatted(read_text("x.yaml", out)) == out


@settings(max_examples=60, deadline=None)
@given(st.permutations(list(CLAUSE_KEYS)), st.permutations(list(CELL_KEYS)))
def test_any_key_order_keeps_each_comment_with_its_key(clause_order, cell_order):
    text = _clause(clause_order, cell_order, comments=True)
    doc = read_text("x.yaml", text)
    assert not doc.report.diagnostics, doc.report.diagnostics
    out = formatted(doc)
    assert formatted(read_text("x.yaml", out)) == out  # idempotent
    lines = out.splitlines()
    assert plain(new_yaml().load(out)) == plain(new_yaml().load(CANONICAL))
    item = next(i for i, line in enumerate(lines) if line.startswith("  - "))
    above_item = []  # the comment lines just above "- id:"
    for line in reversed(lines[:item]):
        if not line.strip().startswith("#"):
            break
        above_item.insert(0, line.strip())
    for k in CLAUSE_KEYS:
        [i] = [i for i, line in enumerate(lines) if f"# on {k}" in line]
        assert re.match(rf"^ *(- )?{k}:", lines[i]), lines[i]
        if k == clause_order[0]:
            # lines above a list item are about the item: they stay above its '- '
            assert f"# clause key {k}" == above_item[0], out
        else:
            assert lines[i - 1].strip() == f"# clause key {k}", out
    for k in CELL_KEYS:
        [i] = [i for i, line in enumerate(lines) if line.strip() == f"# cell key {k}"]
        assert lines[i + 1].strip().startswith(f"{k}:"), out
    # the comments come in the canonical key order (but for the item's own)
    order = [m.group(1) for m in re.finditer(r"# clause key (\S+)", out)]
    assert order[1:] == [k for k in CLAUSE_KEYS if k != clause_order[0]]


# ---------------------------------------------------------------- bad files
@pytest.mark.parametrize("text, code, line, col", [
    ("clauses:\n  - id: a.b\n    title: Spotting: who\n", "yaml-syntax", 3, 20),
    ("clauses:\n  - id: a.b\n    topic: spotting\n    aspect: rule\n    colour: red\n"
     "    cells: {PB: not-covered, PL: not-covered}\n", "schema-unknown-key", 5, 5),
    ("clauses:\n  - topic: spotting\n    id: a.b\n    aspect: rule\n    cells:\n"
     "      PB: {text: no status here}\n      PL: not-covered\n", "schema-missing-key", 6, 11),
])
def test_a_file_with_errors_is_reported_and_never_written(tmp_path, capsys, text, code, line, col):
    folder = rules(tmp_path, spotting=text)
    path = folder / "spotting.yaml"
    age(path)
    before = stamp(path)
    for args in ([folder], ["--check", folder]):
        rc, out, err = run(capsys, *args)
        assert rc == 1
        got = [m.groupdict() for m in map(DIAG.match, err.splitlines()) if m]
        assert got, err
        assert (got[0]["path"], int(got[0]["line"]), int(got[0]["col"]), got[0]["code"]) == \
            (str(path), line, col, code), err
        assert "1 not read (fix their errors first)" in out
        assert stamp(path) == before
    assert sorted(os.listdir(folder)) == ["sources.yaml", "spotting.yaml"]


def test_other_files_are_still_formatted_when_one_has_errors(tmp_path, capsys):
    folder = rules(tmp_path, spotting=SHUFFLED, broken="title: Spotting: who\n")
    rc, out, err = run(capsys, folder)
    assert rc == 1
    assert f"{folder / 'broken.yaml'}:1:16: error:" in err
    assert f"reformatted {folder / 'spotting.yaml'}" in out
    assert (folder / "broken.yaml").read_text(encoding="utf-8") == "title: Spotting: who\n"


# ---------------------------------------------------------------------- BOM
def test_a_utf8_bom_is_dropped(tmp_path, capsys):
    folder = rules(tmp_path)
    path = folder / "spotting.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + CLAUSE.encode("utf-8"))
    rc, out, err = run(capsys, "--check", folder)
    assert rc == 1 and err.splitlines() == [f"would reformat {path}"]
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")
    rc, out, _ = run(capsys, folder)
    assert rc == 0 and f"reformatted {path}" in out
    assert path.read_bytes() == CLAUSE.encode("utf-8")
    assert run(capsys, "--check", folder)[0] == 0


# ------------------------------------------------------------- failed writes
def _failing(monkeypatch, name: str):
    def fail(*args, **kwargs):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(fmt_module.os, name, fail)


@pytest.mark.parametrize("where", ["replace", "fsync"])
def test_a_failed_write_leaves_the_original_and_no_temporary_file(tmp_path, capsys,
                                                                  monkeypatch, where):
    # os.replace fails after the temporary file is complete, os.fsync half way
    # through; a read-only folder would not do, since the tests may run as root
    folder = rules(tmp_path, spotting=SHUFFLED)
    path = folder / "spotting.yaml"
    before = stamp(path)
    _failing(monkeypatch, where)
    rc, out, err = run(capsys, folder)
    monkeypatch.undo()
    assert rc == 1
    assert err.splitlines() == [f"harmony fmt: error: no space left on device writing {path}; "
                                "the file is left as it was"]
    assert "0 of 2 files reformatted, 1 not written" in out and "not read" not in out
    assert stamp(path) == before
    assert sorted(os.listdir(folder)) == ["sources.yaml", "spotting.yaml"]
    # once the disk is fine again the file is formatted
    assert run(capsys, folder)[0] == 0
    assert sorted(os.listdir(folder)) == ["sources.yaml", "spotting.yaml"]


def test_a_write_refused_is_said_as_a_write_not_as_a_file_not_read(tmp_path, capsys, monkeypatch):
    folder = rules(tmp_path, spotting=SHUFFLED)
    path = folder / "spotting.yaml"
    before = stamp(path)

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(fmt_module.os, "replace", refuse)
    rc, out, err = run(capsys, folder)
    monkeypatch.undo()
    assert rc == 1
    assert err.splitlines() == [f"harmony fmt: error: cannot write {path}: Permission denied; "
                                "the file is left as it was"]
    assert out.splitlines()[-1] == "0 of 2 files reformatted, 1 not written"
    assert stamp(path) == before and sorted(os.listdir(folder)) == ["sources.yaml", "spotting.yaml"]


def test_the_written_file_keeps_its_permissions(tmp_path, capsys):
    folder = rules(tmp_path, spotting=SHUFFLED)
    path = folder / "spotting.yaml"
    path.chmod(0o640)
    inode = path.stat().st_ino
    assert run(capsys, folder)[0] == 0
    assert path.stat().st_mode & 0o777 == 0o640
    assert path.stat().st_ino != inode  # replaced by rename, not rewritten in place


# ---------------------------------------------------------- shipped data
def test_the_shipped_rules_data_is_formatted(capsys):
    rc, out, err = run(capsys, "--check", ROOT / "rules_data")
    assert rc == 0, err
    assert err == ""
    assert re.fullmatch(r"0 of \d+ files need formatting\n", out)


def test_a_symbolic_link_stays_a_link(tmp_path, capsys):
    folder = rules(tmp_path)
    real = tmp_path / "elsewhere.yaml"
    real.write_text(SHUFFLED, encoding="utf-8")
    link = folder / "spotting.yaml"
    link.symlink_to(real)
    assert run(capsys, folder)[0] == 0
    assert link.is_symlink() and link.resolve() == real
    assert real.read_text(encoding="utf-8").startswith("# File header")
    assert keys_of(real.read_text(encoding="utf-8"))[0][:3] == ["id", "topic", "aspect"]
    assert sorted(os.listdir(tmp_path)) == ["elsewhere.yaml", "rules_data"]


SHIPPED = sorted((ROOT / "rules_data").rglob("*.yaml"))


def _key_starts(text: str) -> list[tuple[int, int]]:
    """(line, column) from 0 of every key of a block mapping in ``text``."""
    from ruamel.yaml.comments import CommentedMap
    from harmony.loader import walk
    starts = set()
    for _, node in walk(new_yaml().load(text)):
        if isinstance(node, CommentedMap) and not node.fa.flow_style():
            starts.update(node.lc.key(k) for k in node)
    return sorted(starts)


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(SHIPPED), st.randoms(use_true_random=False))
def test_comment_lines_anywhere_in_a_formatted_file_change_nothing(path, rnd):
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    starts = _key_starts(text)
    new = list(lines)
    for line, col in sorted(rnd.sample(starts, min(8, len(starts))), reverse=True):
        indent = col - 2 if lines[line][:col].strip() == "-" else col
        new.insert(line, " " * indent + f"# remark {line}")
    commented = "\n".join(new)
    assert formatted(read_text(str(path), commented)) == commented


PLAIN_END = CLAUSE.split("    examples:")[0]  # ends in a plain value, not a block scalar


@pytest.mark.parametrize("bytes_of", [
    lambda text: text.replace("\n", "\r\n").encode("utf-8"),  # Windows line ends
    lambda text: text.rstrip("\n").encode("utf-8"),  # no newline at the end
    lambda text: text.replace("title: Units in cover", "title:   Units in cover  ")
    .encode("utf-8"),  # extra blanks
])
def test_line_ends_and_blanks_are_normalized(tmp_path, capsys, bytes_of):
    folder = rules(tmp_path)
    path = folder / "spotting.yaml"
    path.write_bytes(bytes_of(PLAIN_END))
    assert path.read_bytes() != PLAIN_END.encode("utf-8")
    assert run(capsys, "--check", folder)[0] == 1
    assert run(capsys, folder)[0] == 0
    assert path.read_bytes() == PLAIN_END.encode("utf-8")


def test_a_literal_block_at_the_very_end_keeps_its_missing_newline(tmp_path, capsys):
    # without the last newline the text of the block has none either: that is data
    folder = rules(tmp_path, spotting=CLAUSE.rstrip("\n"))
    assert run(capsys, folder)[0] == 0
    data = new_yaml().load((folder / "spotting.yaml").read_text(encoding="utf-8"))
    assert data["clauses"][0]["examples"] == ">>> 1 + 1\n2"


@pytest.mark.parametrize("text, comments", [
    ("aliases: [a,  # the first\n  b]\n", ["# the first"]),
    ("aliases: [a, b,  # two\n  c]  # after the list\n", ["# two", "# after the list"]),
    ("m: {x: 1,  # about x\n  y: [2,  # inner\n  3]}\n", ["# about x", "# inner"]),
])
def test_comments_inside_flow_collections_are_kept(text, comments):
    """ruamel drops a comment written inside [...] or {...}; fmt keeps each one, with the
    same data, and a second format changes nothing."""
    doc = read_text("t.yaml", text)
    out = formatted(doc)
    for c in comments:
        assert out.count(c) == 1, out
    assert plain(new_yaml().load(out)) == plain(new_yaml().load(text))
    assert formatted(read_text("t.yaml", out)) == out


def test_a_value_ruamel_cannot_write_back_leaves_the_file_whole(tmp_path, capsys):
    """Found by the long fuzz run (seed 5): ruamel.yaml reads ``-1e-999`` but its writer
    fails on it; fmt refuses the file with one line and leaves it byte for byte."""
    from harmony.init import create
    folder = tmp_path / "rules_data"
    create(folder)
    params = folder / "parameters.yaml"
    text = params.read_text().replace("default: true", "default: -1e-999", 1)
    assert text != params.read_text()
    params.write_text(text)
    before = params.read_bytes()
    assert cli.main(["fmt", str(folder)]) == 1
    said = capsys.readouterr()
    out = said.out + said.err
    assert params.read_bytes() == before
    line = [x for x in out.splitlines() if "parameters.yaml" in x]
    assert line and "cannot write this file back" in line[0] and "Traceback" not in out

"""Encodings and names: what a folder we did not write may hold, and what harmony makes of it.

Each case of issue 26 item 6 that needs more than one file (the one-file cases are in
``tests/bad_inputs``): characters that are not text reach neither a page nor a diff; a
file or folder name that is not UTF-8; version names that are very long or that would
give one page; an unreadable or symlinked folder; a path that is not a rules folder
(``/``), refused at once. Commands run as the user runs them (``python3 -m harmony``),
with a strict UTF-8 terminal, so a character that cannot be written fails the test.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harmony import cli, loader
from harmony.check import check_path
from harmony.diagnostics import NOT_TEXT
from harmony.init import create
from harmony.loader import load, scan_folder
from harmony.site import generate, views
from harmony.usage import UsageError, rules_arg

ROOT = Path(__file__).resolve().parent.parent
LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning): "
                  r"(?P<msg>.+) \[(?P<code>[a-z0-9-]+)\]$")
#: a terminal that takes UTF-8 only: a lone surrogate written to it is an error, not '?'
STRICT = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8:strict",
          "LC_ALL": "C.UTF-8"}


def harmony(*args, cwd: Path = ROOT, timeout: int = 120) -> subprocess.CompletedProcess:
    """``python3 -m harmony ARGS``; output as bytes decoded strictly (a test fails on any
    byte that is not UTF-8)."""
    run = subprocess.run([sys.executable, "-m", "harmony", *map(os.fsencode, map(str, args))],
                         cwd=cwd, capture_output=True, timeout=timeout, env=STRICT)
    return subprocess.CompletedProcess(run.args, run.returncode, run.stdout.decode("utf-8"),
                                       run.stderr.decode("utf-8"))


def starter(folder: Path) -> Path:
    create(folder)
    return folder


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def clean(text: str) -> bool:
    """No character that is not text, raw or as a JSON escape."""
    return not NOT_TEXT.search(text) and not re.search(
        r"\\u(?:00[01][0-9a-fA-F]|007[fF]|00[89][0-9a-fA-F]|d[89a-fA-F][0-9a-fA-F]{2})", text)


TITLE = "    title: Hedgerow, first edition\n"
ESCAPED = '    title: "Hedgerow \\0first\\e[31m edition \\udc80"\n'


# ---------------------------------------------------------------- characters that are not text

def test_escapes_that_are_not_text_are_errors_at_their_place_and_build_refuses(tmp_path):
    rules = starter(tmp_path / "rules")
    edit(rules / "sources.yaml", TITLE, ESCAPED)
    line = (rules / "sources.yaml").read_text("utf-8").splitlines().index(ESCAPED.rstrip("\n")) + 1
    run = harmony("check", rules)
    assert run.returncode == 1, run.stderr
    got = [m.groupdict() for m in map(LINE.match, run.stderr.splitlines()) if m]
    assert [(int(g["line"]), int(g["col"]), g["code"]) for g in got] == [
        (line, 22, "control-character"), (line, 29, "control-character"),
        (line, 44, "not-a-character")], run.stderr
    assert "U+0000 (NUL)" in got[0]["msg"] and "U+001B (ESC)" in got[1]["msg"]
    assert "U+DC80" in got[2]["msg"]
    run = harmony("build", rules, "--out", tmp_path / "site")
    assert run.returncode == 1 and "Traceback" not in run.stderr and "internal error" not in run.stderr
    assert "not-a-character" in run.stderr and not (tmp_path / "site").exists()


def test_the_model_never_holds_them_so_diff_writes_clean_text(tmp_path):
    old = starter(tmp_path / "old")
    new = starter(tmp_path / "new")
    edit(new / "sources.yaml", TITLE, ESCAPED)
    model, report = load(new)
    assert model.sources["HA"].title == "Hedgerow \ufffdfirst\ufffd[31m edition \ufffd"
    assert report.errors
    for fmt in ("text", "json", "rst"):
        run = harmony("diff", old, new, "--format", fmt, "--no-rulings")
        assert run.returncode == 0, run.stderr
        assert "Traceback" not in run.stderr and "internal error" not in run.stderr
        assert clean(run.stdout), run.stdout
        assert "edition" in run.stdout
    assert json.loads(harmony("diff", old, new, "--format", "json", "--no-rulings").stdout)[
        "read_errors"]["new"] == 3


def test_the_site_never_writes_a_control_character_even_from_a_model_that_holds_one(tmp_path):
    """Defence in depth: a model built some other way than through the loader."""
    model, _ = load(starter(tmp_path / "rules"))
    clause = next(iter(model.clauses.values()))
    clause.title = "Bell\x07 NUL\x00 ESC\x1b[31m surrogate\udc80"
    for cell in clause.cells.values():
        cell.text = cell.text + " \x1b]0;owned\x07"
    model.sources["HA"].title += "\x00"
    pages = generate.pages(model)
    for name, text in pages.items():
        assert clean(text), name
    extras = generate.extra_pages(model)
    assert clean(extras["cards"]["html"])
    staged = generate.stage(pages, tmp_path / "src")
    for rel in set(staged.written) & set(pages):     # (the hand-written pages quote escapes)
        assert clean((tmp_path / "src" / rel).read_text("utf-8")), rel


# ---------------------------------------------------------------- file and folder names

@pytest.mark.parametrize("where", ["rules_\udcff.yaml", "scenarios/sc\udce9nario.yaml"])
def test_a_name_that_is_not_utf8_is_an_error_at_that_file_never_a_crash(tmp_path, where):
    rules = starter(tmp_path / "rules")
    if where.startswith("rules_"):
        os.rename(rules / "glossary.yaml", rules / where)
    else:
        os.rename(rules / "scenarios" / "dispersed-spotter.yaml", rules / where)
    shown = where.replace("\udcff", "\\xff").replace("\udce9", "\\xe9")
    run = harmony("check", rules)
    assert run.returncode == 1, run.stderr
    got = [m.groupdict() for m in map(LINE.match, run.stderr.splitlines()) if m]
    assert [(g["path"], g["line"], g["col"], g["code"]) for g in got] == \
        [(f"{rules}/{shown}", "1", "1", "file-name")], run.stderr
    assert "is not UTF-8 (byte 0x" in got[0]["msg"]
    # the file is still read: nothing it defines is reported missing
    data = json.loads(harmony("check", rules, "--format", "json").stdout)
    assert [d["code"] for d in data["diagnostics"]] == ["file-name"]
    for argv in (["build", rules, "--out", tmp_path / "site"], ["diff", rules, rules, "--no-rulings"],
                 ["fmt", "--check", rules]):
        run = harmony(*argv)
        assert run.returncode in (0, 1), (argv, run.stderr)
        assert "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
    assert not (tmp_path / "site").exists()


def test_a_name_with_a_control_character_is_shown_escaped(tmp_path):
    rules = starter(tmp_path / "rules")
    os.rename(rules / "glossary.yaml", rules / "gloss\x1b[2Jary.yaml")
    run = harmony("check", rules)
    assert run.returncode == 1 and "\x1b" not in run.stderr, run.stderr
    assert f"{rules}/gloss\\x1b[2Jary.yaml:1:1: error: the name of this file holds a control " \
        "character U+001B (ESC)" in run.stderr


def test_the_explorer_bundle_names_a_file_that_is_not_utf8(tmp_path):
    """The rules go into the explorer's bundle as JSON (harmony.modeljson): a file whose name
    is not UTF-8 is named as the loader shows it (escaped), and read back the same."""
    from harmony import modeljson
    from harmony.loader import load
    from harmony.site.explorer import rules_json
    rules = starter(tmp_path / "rules")
    os.rename(rules / "glossary.yaml", rules / "gloss\udcffary.yaml")
    model = load(rules)[0]
    text = rules_json(rules)
    assert text.isascii()
    assert modeljson.loads(text)[0].files == model.files
    assert any(f.endswith("gloss\\xffary.yaml") for f in model.files)


# ---------------------------------------------------------------- version names

LONG = "v" * 300


def versions_folder(tmp_path: Path) -> Path:
    rules = starter(tmp_path / "rules")
    edit(rules / "sources.yaml", "    summary: The invented game again, with one change to who may spot.\n",
         "    summary: The invented game again, with one change to who may spot.\n    versions:\n"
         "      - {version: '0.2', date: '2009'}\n      - {version: '0 2', date: '2010'}\n"
         f"      - {{version: '{LONG}', date: '2011'}}\n")
    return rules


def test_version_pages_are_one_per_version_and_short(tmp_path):
    model, report = load(versions_folder(tmp_path))
    assert not report.errors
    files = views.version_files(model)
    assert len(files) == 3 and len(set(files.values())) == 3
    assert all(len(name) <= 80 for name in files.values())
    assert files[("HB", "0.2")] != files[("HB", "0 2")]
    pages = generate.change_pages(model)
    assert len(pages) == 3
    # written to a real folder: every name is one the file system takes
    staged = generate.stage(pages, tmp_path / "src", site_dir=tmp_path / "no-hand-pages")
    assert sorted(staged.written) == sorted(pages)


def test_a_site_with_long_and_colliding_version_names_builds_every_page(tmp_path):
    rules = versions_folder(tmp_path)
    run = harmony("build", rules, "--out", tmp_path / "site", timeout=300)
    assert run.returncode == 0, run.stderr
    pages = sorted(p.name for p in (tmp_path / "site").glob("changes-hb-*.html"))
    assert len(pages) == 3, pages
    titles = sorted(re.search(r"<h1>(.*?)<", (tmp_path / "site" / p).read_text("utf-8")).group(1)
                    for p in pages)
    assert titles == [f"Hedgerow, second edition {v}" for v in ("0 2 (2010)", "0.2 (2009)",
                                                                f"{LONG} (2011)")], titles


def test_ids_and_keys_that_would_name_too_long_a_file_are_errors(tmp_path):
    rules = starter(tmp_path / "rules")
    edit(rules / "topics.yaml", "id: spotting\n", f"id: {'s' * 300}\n")
    _, report = check_path(rules)
    assert [d.code for d in report.errors if d.code == "schema-too-long"] == ["schema-too-long"]


# ---------------------------------------------------------------- folders

def test_a_symlinked_folder_is_an_error_and_not_followed(tmp_path):
    """Its files are not read, so the rules are incomplete: an error (the site is not built
    without them), and no other error follows from what they define."""
    rules = starter(tmp_path / "rules")
    elsewhere = tmp_path / "elsewhere"
    os.rename(rules / "scenarios", elsewhere)
    os.symlink(elsewhere, rules / "scenarios")
    os.symlink(rules, rules / "loop")          # back into itself: no endless walk
    _, report = check_path(rules)
    got = [(d.pos.path, d.severity, d.code) for d in report.diagnostics if d.code == "folder-symlink"]
    assert got == [(str(rules / "loop"), "error", "folder-symlink"),
                   (str(rules / "scenarios"), "error", "folder-symlink")]
    assert [d.code for d in report.diagnostics] == ["folder-symlink"] * 2
    assert all("scenarios" not in str(p) for p in scan_folder(rules).files)


def test_an_unreadable_folder_is_an_error_at_the_folder(tmp_path, monkeypatch, capsys):
    rules = starter(tmp_path / "rules")
    real = os.scandir

    def refusing(path):
        if Path(path).name == "scenarios":
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(loader.os, "scandir", refusing)
    rc = cli.main(["check", str(rules)])
    err = capsys.readouterr().err
    assert rc == 1, err
    assert f"{rules / 'scenarios'}:1:1: error: cannot read this folder (Permission denied)" in err
    assert "[folder-unreadable]" in err
    assert err.count(": error: ") == 1 and "1 error, 0 warnings" in err   # no cascade


@pytest.mark.parametrize("argv", [["check", "/"], ["diff", "/", "HEAD"], ["fmt", "--check", "/"],
                                  ["build", "/", "--out", "{tmp}/site"]])
def test_a_path_that_is_no_rules_folder_is_refused_at_once(tmp_path, argv):
    """``/`` was walked to its end for tens of seconds, then failed inside."""
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    run = harmony(*argv, timeout=60)    # the guard against a hang; no timing asserted
    assert run.returncode == 2 and run.stdout == "", run.stderr
    assert run.stderr.count("\n") == 1 and "is this the rules_data folder?" in run.stderr, run.stderr


def test_a_folder_of_checkouts_is_refused_for_want_of_sources_at_its_top(tmp_path):
    starter(tmp_path / "a" / "rules_data")
    starter(tmp_path / "b" / "rules_data")
    with pytest.raises(UsageError, match="no sources defined in"):
        rules_arg(tmp_path)
    assert rules_arg(tmp_path / "a" / "rules_data").root == tmp_path / "a" / "rules_data"


def test_a_folder_of_too_many_entries_is_refused_before_it_is_walked_to_the_end(tmp_path, monkeypatch):
    rules = starter(tmp_path / "rules")
    for i in range(30):
        (rules / f"note-{i}.txt").write_text("x")
    monkeypatch.setattr(loader, "MAX_ENTRIES", 25)
    scan = scan_folder(rules)
    assert not scan.complete
    with pytest.raises(UsageError, match="holds more than 25 files and folders"):
        rules_arg(rules)
    _, report = load(rules)
    assert [d.code for d in report.errors] == ["folder-too-large"]


# ---------------------------------------------------------------- every control character

CONTROLS = [chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0), 0xFFFE, 0xFFFF]]
PLACES = {"plain": "a: x{c}y\n", "single": "a: 'x{c}y'\n", "double": 'a: "x{c}y"\n',
          "comment": "a: 1  # x{c}y\n", "literal": "a: |\n  x{c}y\n", "key": "x{c}y: 1\n"}


def _strings_of(node):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _strings_of(k)
            yield from _strings_of(v)
    elif isinstance(node, list):
        for v in node:
            yield from _strings_of(v)
    elif isinstance(node, str):
        yield node


@pytest.mark.parametrize("place", sorted(PLACES))
@pytest.mark.parametrize("round_trip", [False, True])
def test_every_raw_control_character_is_named_at_its_place(place, round_trip):
    """Each control character typed into a file (anywhere: a value, a key, a comment) is
    reported by its code point and name where it is, never as a "tab character" at 1:1;
    tab, newline, CR and NEL are YAML's own and are never reported so."""
    for c in CONTROLS:
        text = PLACES[place].replace("{c}", c)
        doc = loader.read_text("c.yaml", text, round_trip=round_trip)
        if doc.tree is not None:
            assert not any(NOT_TEXT.search(s) for s in _strings_of(doc.tree)), (c, text)
        if c in "\t\n\r\x85":
            continue
        assert all("tab character" not in d.message for d in doc.report.diagnostics), (c, text)
        index = text.index(c)
        line, col = text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1
        got = [(d.pos.line, d.pos.col, d.code) for d in doc.report.diagnostics]
        want_code = "not-a-character" if c >= "\ufffe" else "control-character"
        assert got == [(line, col, want_code)], (repr(c), text, [str(d) for d in doc.report.diagnostics])
        assert f"U+{ord(c):04X}" in doc.report.diagnostics[0].message


@pytest.mark.parametrize("form", ["\\x{:02x}", "\\u{:04x}", "\\U{:08x}"])
@pytest.mark.parametrize("round_trip", [False, True])
def test_every_escape_of_a_character_that_is_not_text_is_named_at_its_backslash(form, round_trip):
    codes = [*range(0x20), 0x7F, *range(0x80, 0xA0)] if form == "\\x{:02x}" else \
        [0x00, 0x1B, 0x85, 0xD800, 0xDBFF, 0xDC80, 0xDFFF, 0xFFFE, 0xFFFF]
    for code in codes:
        escape = form.format(code)
        text = f'a:\n  b: "ok, {escape}"\n  "k{escape}": 1\n'
        doc = loader.read_text("e.yaml", text, round_trip=round_trip)
        if chr(code) in "\t\n":
            assert not doc.report.diagnostics, escape
            continue
        got = [(d.pos.line, d.pos.col, d.code) for d in doc.report.diagnostics]
        code_name = "control-character" if code < 0xD800 else "not-a-character"
        assert got == [(2, 11, code_name), (3, 5, code_name)], (escape, [str(d) for d in doc.report.diagnostics])
        assert all(f"written '{escape}'" in d.message for d in doc.report.diagnostics)
        assert doc.tree is None     # a key holds one: the file is left out, as one that does not parse
        value_only = loader.read_text("e.yaml", f'b: "ok, {escape}"\n', round_trip=round_trip)
        assert value_only.tree["b"] == "ok, \ufffd" and len(value_only.report.errors) == 1

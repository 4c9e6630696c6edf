"""The ``harmony`` command line: help, exit codes, where messages go, check's reports.

Exit codes: 0 all well, 1 problems found, 2 usage error. Most cases call
``harmony.cli.main`` in-process; a few run ``python -m harmony`` end to end,
all started together by one fixture to keep the file quick.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import harmony
from harmony import cli

ROOT = Path(__file__).resolve().parent.parent
LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning): "
                  r"(?P<message>.+) \[(?P<code>[a-z0-9-]+)\]$")
SUMMARY = re.compile(r"^\d+ errors?, \d+ warnings? in \d+ files?$")

SOURCES = """\
sources:
  - {key: PB, title: PanzerBlitz, author: A. Designer, year: 1970, kind: canonical}
  - {key: PL, title: Panzer Leader, author: A. Designer, year: 1974, kind: canonical}
topics:
  - id: spotting
    title: Spotting
    summary: Who may be fired on.
    order: 1
    sources: [PB, PL]
    aspects:
      - {id: rule, title: The rule}
"""
CLAUSE = """\
clauses:
  - id: spotting.rule
    topic: spotting
    aspect: rule
    title: Units in cover
    cells:
      PB:
        status: rule
        text: A unit in woods may be fired on only when [[spotted]].
        cite: {source: PB, section: Spotting}
      PL: not-covered
glossary:
  - {term: spotted, definition: Seen by an adjacent enemy unit.}
"""
# one error each; the later file's error is on an earlier line
BAD_A = """\
glossary:
  - term: dispersed
    definition: Knocked about by fire.
  - term: overrun
    definition: Attack while moving.
    colour: red
"""
BAD_B = "footnotes:\n  - id: one\n    text: A note: with a colon\n"


def make(tmp_path: Path, name: str = "rules_data", **files: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    for name, text in files.items():
        (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def clean(tmp_path) -> Path:
    return make(tmp_path, sources=SOURCES, spotting=CLAUSE)


@pytest.fixture
def broken(tmp_path) -> Path:
    return make(tmp_path, "broken", sources=SOURCES, spotting=CLAUSE, a=BAD_A, b=BAD_B)


def call(capsys, *argv) -> tuple[int, str, str]:
    """``harmony ARGV`` in-process: exit code, stdout, stderr (argparse exits count)."""
    try:
        rc = cli.main([str(a) for a in argv])
    except SystemExit as e:
        rc = e.code
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return rc, out, err


E2E = {  # name: (arguments, run in the shipped checkout or in a bare folder)
    "help": (["--help"], "root"),
    "check-help": (["check", "--help"], "root"),
    "version": (["--version"], "root"),
    "bogus": (["bogus"], "root"),
    "bad-option": (["check", "--bogus"], "root"),
    "missing": (["check", "{base}/missing"], "root"),
    "check": (["check", "{broken}"], "root"),
    "json": (["check", "--format", "json", "{broken}"], "root"),
    "default": (["check"], "base"),  # the shipped rules_data is found beside the package
}


@pytest.fixture(scope="module")
def e2e(tmp_path_factory) -> dict:
    """``python -m harmony`` run for each case of :data:`E2E`, all at once (they are slow to
    start); each result has ``rc``, ``out``, ``err`` and the ``broken`` folder."""
    base = tmp_path_factory.mktemp("e2e")
    broken = make(base, "broken", sources=SOURCES, spotting=CLAUSE, a=BAD_A, b=BAD_B)
    procs = {}
    for name, (argv, where) in E2E.items():
        args = [a.format(base=base, broken=broken) for a in argv]
        procs[name] = subprocess.Popen([sys.executable, "-m", "harmony", *args],
                                       cwd=ROOT if where == "root" else base, text=True,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    results = {}
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=60)
        results[name] = {"rc": proc.returncode, "out": out, "err": err, "broken": broken}
    return results


def test_no_traceback_end_to_end(e2e):
    for name, r in e2e.items():
        assert "Traceback" not in r["out"] + r["err"], (name, r["err"])


def commands() -> list[str]:
    cli.parser()  # imports the modules that register commands
    return sorted(cli.BY_NAME)


# ---------------------------------------------------------------------- help
def test_the_expected_commands_are_registered():
    assert {"check", "fmt", "build", "serve", "cards", "diff"} <= set(commands())


def test_help_lists_every_command_end_to_end(e2e):
    r = e2e["help"]
    assert r["rc"] == 0 and r["err"] == ""
    assert r["out"].startswith("usage: harmony")
    for name in commands():
        help_text = cli.BY_NAME[name].help
        assert re.search(rf"^\s+{name}\s+{re.escape(help_text.split()[0])}", r["out"], re.M), name


@pytest.mark.parametrize("name", commands())
def test_each_command_has_help_that_describes_it(capsys, name):
    rc, out, err = call(capsys, name, "--help")
    assert rc == 0 and err == ""
    assert out.startswith(f"usage: harmony {name}")
    described = " ".join(cli.BY_NAME[name].help.split())
    assert described in " ".join(out.split())
    assert "-h, --help" in out


def test_one_command_help_end_to_end(e2e):
    r = e2e["check-help"]
    assert r["rc"] == 0 and r["err"] == ""
    assert "usage: harmony check" in r["out"] and "--format {text,json,github}" in r["out"]


def test_version(capsys, e2e):
    rc, out, err = call(capsys, "--version")
    assert (rc, out, err) == (0, f"harmony {harmony.__version__}\n", "")
    assert re.fullmatch(r"\d+\.\d+\.\d+", harmony.__version__)
    assert {k: e2e["version"][k] for k in ("rc", "out", "err")} == \
        {"rc": 0, "out": f"harmony {harmony.__version__}\n", "err": ""}


# --------------------------------------------------------------- usage errors
@pytest.mark.parametrize("argv, says", [
    ([], "usage: harmony"),
    (["bogus"], "invalid choice: 'bogus'"),
    (["--bogus"], "harmony: error: unrecognized arguments: --bogus"),
    (["--bogus", "check"], "harmony: error: unrecognized arguments: --bogus"),
    (["check", "--bogus"], "harmony check: error: unrecognized arguments: --bogus"),
    (["fmt", "--chekc"], "harmony fmt: error: unrecognized arguments: --chekc"),
    (["check", "--format", "xml"], "invalid choice: 'xml'"),
    (["check", "a", "b"], "harmony check: error: unrecognized arguments: b"),
    (["check", "{tmp}/no-such-folder"], "harmony check: error: no such file or folder:"),
    (["fmt", "{tmp}/no-such-file.yaml"], "harmony fmt: error: no such file or folder:"),
    (["check", "{tmp}"], "harmony check: error: no YAML files (.yaml, .yml) in"),
    (["fmt", "--check", "{tmp}"], "harmony fmt: error: no YAML files (.yaml, .yml) in"),
    (["check", "/dev/null"], "harmony check: error: /dev/null is neither a file nor a folder"),
])
def test_usage_errors_exit_2_with_a_message_on_stderr_only(capsys, tmp_path, argv, says):
    rc, out, err = call(capsys, *(a.format(tmp=tmp_path) for a in argv))
    assert rc == 2
    assert out == ""
    assert says in err
    assert err.splitlines()[0].startswith("usage:") or err.startswith("harmony ")


@pytest.mark.parametrize("name", ["bogus", "bad-option", "missing"])
def test_usage_errors_end_to_end(e2e, name):
    r = e2e[name]
    assert r["rc"] == 2
    assert r["out"] == "" and "error:" in r["err"]


# --------------------------------------------------------------------- check
def test_check_a_clean_folder(capsys, clean):
    rc, out, err = call(capsys, "check", clean)
    assert rc == 0 and err == ""
    assert out == "0 errors, 0 warnings in 2 files\n"


def test_check_one_file_warnings_only_exit_0(capsys, clean):
    rc, out, err = call(capsys, "check", clean / "sources.yaml")  # no clause for the row
    assert rc == 0 and out == ""
    assert err.splitlines() == [
        f"{clean / 'sources.yaml'}:11:14: warning: aspect 'rule' of topic 'spotting' has no "
        "clause [empty-row]", "0 errors, 1 warning in 1 file"]


def expected_lines(folder: Path) -> list[str]:
    return [
        f"{folder / 'a.yaml'}:6:5: error: unknown key 'colour' in glossary term 'overrun': remove "
        "it or fix its spelling (allowed keys: term, aliases, definition, cite) [schema-unknown-key]",
        f"{folder / 'b.yaml'}:3:17: error: YAML: ': ' inside a plain value; put the value in "
        "quotes, e.g. text: 'A note: with a colon' [yaml-syntax]",
    ]


def test_check_reports_every_error_sorted_then_a_summary(capsys, broken):
    rc, out, err = call(capsys, "check", broken)
    assert rc == 1
    assert out == ""
    lines = err.splitlines()
    assert lines[:2] == expected_lines(broken)
    assert all(LINE.match(line) for line in lines[:2])
    assert lines[2] == "2 errors, 0 warnings in 4 files"
    assert all(line.startswith("note: ") for line in lines[3:])


def test_check_json_has_the_same_diagnostics(capsys, broken):
    rc, out, err = call(capsys, "check", broken, "--format", "json")
    assert rc == 1 and err == ""
    data = json.loads(out)
    assert data["summary"] == {"errors": 2, "warnings": 0, "files": 4}
    got = [f"{d['path']}:{d['line']}:{d['column']}: {d['severity']}: {d['message']} [{d['code']}]"
           for d in data["diagnostics"]]
    assert got == expected_lines(broken)
    for d in data["diagnostics"]:
        assert set(d) == {"path", "line", "column", "severity", "message", "code"}
        assert isinstance(d["line"], int) and isinstance(d["column"], int)


def test_check_json_of_a_clean_folder(capsys, clean):
    rc, out, err = call(capsys, "check", "--format", "json", clean)
    assert rc == 0 and err == ""
    data = json.loads(out)
    assert data["diagnostics"] == []
    assert data["summary"] == {"errors": 0, "warnings": 0, "files": 2}


def test_check_sorts_by_line_within_a_file(capsys, tmp_path):
    text = BAD_A.replace("  - term: dispersed\n", "  - term: dispersed\n    size: 3\n")
    folder = make(tmp_path, sources=SOURCES, a=text)
    rc, out, err = call(capsys, "check", folder)
    assert rc == 1
    got = [(int(m["line"]), m["code"]) for m in map(LINE.match, err.splitlines()) if m]
    assert got == [(3, "schema-unknown-key"), (7, "schema-unknown-key")]


def test_check_end_to_end(e2e):
    r, broken = e2e["check"], e2e["check"]["broken"]
    assert r["rc"] == 1 and r["out"] == ""
    assert r["err"].splitlines()[:3] == expected_lines(broken) + ["2 errors, 0 warnings in 4 files"]
    r = e2e["json"]
    assert r["rc"] == 1 and r["err"] == ""
    data = json.loads(r["out"])
    assert [(d["line"], d["code"]) for d in data["diagnostics"]] == \
        [(6, "schema-unknown-key"), (3, "yaml-syntax")]


def test_check_without_a_path_checks_the_shipped_rules_data(e2e):
    r = e2e["default"]  # run from a bare folder: the data is found beside the package
    assert r["rc"] == 0, r["err"]
    assert SUMMARY.match(r["out"].strip()) and r["out"].startswith("0 errors, 0 warnings in ")


# ---------------------------------------------------------- unforeseen failure
def test_an_unforeseen_failure_is_one_line_not_a_traceback(capsys, clean, monkeypatch):
    import harmony.check

    def boom(path):
        raise RuntimeError("something nobody planned for")
    monkeypatch.setattr(harmony.check, "check_path", boom)
    monkeypatch.delenv("HARMONY_DEBUG", raising=False)
    rc, out, err = call(capsys, "check", clean)
    assert rc == 1 and out == ""
    [line] = err.splitlines()
    assert line.startswith("harmony check: error: internal error (RuntimeError: something "
                           "nobody planned for at test_cli.py:")
    monkeypatch.setenv("HARMONY_DEBUG", "1")
    with pytest.raises(RuntimeError):
        cli.main(["check", str(clean)])


def test_an_os_error_names_the_file(capsys, clean, monkeypatch):
    import harmony.check

    def denied(path):
        raise PermissionError(13, "Permission denied", str(clean / "spotting.yaml"))
    monkeypatch.setattr(harmony.check, "check_path", denied)
    rc, out, err = call(capsys, "check", clean)
    assert rc == 1
    assert err == f"harmony check: error: {clean / 'spotting.yaml'}: Permission denied\n"


# ----------------------------------------------------------------------- fmt
def test_fmt_exit_codes(capsys, clean, broken):
    assert call(capsys, "fmt", "--check", clean)[0] == 0
    assert call(capsys, "fmt", clean)[0] == 0
    rc, out, err = call(capsys, "fmt", "--check", broken)
    assert rc == 1
    assert [line for line in err.splitlines() if LINE.match(line)] == expected_lines(broken)
    assert out == "0 of 4 files need formatting, 2 not read (fix their errors first)\n"

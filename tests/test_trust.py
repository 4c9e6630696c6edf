"""Trust, stated: a harmony's clause examples are Python; ``--untrusted`` (or
``HARMONY_UNTRUSTED``) runs none of them, and says so.

Each test uses a harmony whose one clause example writes a marker file (and, by
``os.system``, a second one). With the flag the commands succeed and no marker is
ever made; without it the same command makes them, so each test could fail.
"""
from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harmony import cli
from harmony.coverage import coverage_of
from harmony.init import create
from harmony.loader import load
from harmony.site import generate
from harmony.site.build import build_site
from harmony.trust import ENV, Trust
from harmony.usage import default_rules_data

ROOT = Path(__file__).resolve().parent.parent
UNTRUSTED = Trust(False, "--untrusted")


@pytest.fixture(autouse=True)
def _no_inherited_trust(monkeypatch):
    """A test starts trusting, whatever the shell that runs the suite says."""
    monkeypatch.delenv(ENV, raising=False)


def started_with(rules: Path, *lines: str) -> Path:
    """A new harmony (``harmony init``) in ``rules`` whose first example begins with ``lines``
    of Python (each an example's line, ``>>>`` added)."""
    create(rules)
    spotting = rules / "spotting.yaml"
    text = spotting.read_text(encoding="utf-8")
    first = "      >>> p = position("
    assert text.count(first) == 1
    spotting.write_text(text.replace(first, "".join(f"      >>> {line}\n" for line in lines) + first),
                        encoding="utf-8")
    return rules


@pytest.fixture
def hostile(tmp_path) -> tuple[Path, Path, Path]:
    """(rules folder, marker its example writes, marker its example's shell command makes)."""
    marker, shelled = tmp_path / "example-ran", tmp_path / "os-system-ran"
    rules = started_with(tmp_path / "rules",
                         f"import os, pathlib; _ = pathlib.Path({str(marker)!r}).write_text('ran')",
                         f"_ = os.system('touch {shelled}')")
    return rules, marker, shelled


def shown(page: Path) -> str:
    """A page's text as a reader sees it (tags out, entities read)."""
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


def call(capsys, *argv: str) -> tuple[int, str, str]:
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


# ------------------------------------------------------------------ check
def test_check_coverage_untrusted_runs_no_example_and_says_so(capsys, hostile):
    rules, marker, shelled = hostile
    rc, out, err = call(capsys, "check", str(rules), "--coverage", "--untrusted")
    assert rc == 0, err
    assert not marker.exists() and not shelled.exists()
    assert "note: the clause examples were not run (--untrusted)" in out
    assert "cell(s) not known: the clause examples were not run (--untrusted)" in out
    # the same command trusting the folder runs the example: the test above could fail
    rc, out, err = call(capsys, "check", str(rules), "--coverage")
    assert rc == 0, err
    assert marker.read_text() == "ran" and shelled.exists()
    assert "not run" not in out


def test_the_environment_variable_is_the_flag_for_ci(capsys, hostile, monkeypatch):
    rules, marker, shelled = hostile
    monkeypatch.setenv(ENV, "1")
    rc, out, err = call(capsys, "check", str(rules), "--coverage", "--format", "json")
    assert rc == 0, err
    assert not marker.exists() and not shelled.exists()
    assert "the clause examples were not run (HARMONY_UNTRUSTED is set)" in out


def test_check_json_untrusted_carries_the_note(capsys, hostile):
    rules, marker, _ = hostile
    rc, out, _ = call(capsys, "check", str(rules), "--untrusted", "--format", "json")
    import json
    assert rc == 0 and json.loads(out)["notes"] == ["the clause examples were not run (--untrusted)"]
    assert not marker.exists()


def test_check_untrusted_summary_end_to_end(hostile):
    """In a new process, as a reviewer runs it: exit 0, the summary and its note, no marker."""
    rules, marker, shelled = hostile
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop(ENV, None)
    res = subprocess.run([sys.executable, "-m", "harmony", "check", str(rules), "--coverage",
                          "--untrusted"], env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[-2:] == ["0 errors, 0 warnings in 6 files",
                                            "note: the clause examples were not run (--untrusted)"]
    assert not marker.exists() and not shelled.exists()


@pytest.mark.parametrize("value, runs", [("", True), ("0", True), ("1", False), ("no", False),
                                         ("yes", False)])
def test_an_unclear_value_of_the_variable_runs_nothing(value, runs):
    assert Trust.of(False, {ENV: value}).runs_code is runs


# ------------------------------------------------------------------ build and serve
def test_build_untrusted_runs_no_example_and_the_page_says_so(capsys, hostile, tmp_path):
    rules, marker, shelled = hostile
    out = tmp_path / "site"
    rc, said, err = call(capsys, "build", str(rules), "--out", str(out), "--untrusted")
    assert rc == 0, err
    assert not marker.exists() and not shelled.exists()
    assert "the clause examples were not run (--untrusted)" in said
    page = (out / "coverage.html").read_text(encoding="utf-8")
    assert "not run (built with --untrusted)" in page and "admonition warning" in page
    # the example under its row: its lines without their output, and why
    row = shown(out / "topics" / "spotting.html")
    assert '>>> p = position("Allied gun at A3"' in row and "Ruling(value=False" not in row
    assert "The examples were not run (built with --untrusted), so no output is shown" in row
    # trusting it, the same build runs the example, and the mark goes
    rc, said, err = call(capsys, "build", str(rules), "--out", str(out))
    assert rc == 0, err
    assert marker.exists() and shelled.exists()
    assert "not run" not in (out / "coverage.html").read_text(encoding="utf-8")
    assert "not run" not in said
    row = shown(out / "topics" / "spotting.html")
    assert "Ruling(value=False, reasons=['spotting.spotters'])" in row and "not run" not in row


def test_serve_passes_the_flag_to_every_build(hostile, tmp_path, monkeypatch):
    from harmony.site import serve
    rules, marker, shelled = hostile
    got = {}
    monkeypatch.setattr(serve, "serve", lambda *a, **kw: got.update(kw) or 0)
    assert cli.main(["serve", str(rules), "--out", str(tmp_path / "site"), "--untrusted"]) == 0
    assert got["trust"] == UNTRUSTED
    assert serve.rebuild(rules, tmp_path / "site", state=None, trust=got["trust"])
    assert not marker.exists() and not shelled.exists()
    assert "not run (built with --untrusted)" in (tmp_path / "site" / "coverage.html").read_text("utf-8")


def test_every_command_that_runs_examples_takes_the_flag():
    p = cli.parser()
    for name in ("check", "build", "serve"):
        assert p.subcommands[name].parse_args(["--untrusted"]).untrusted is True, name
        assert "HARMONY_UNTRUSTED" in p.subcommands[name].format_help(), name


def test_the_commands_that_run_no_example_run_none(capsys, hostile, tmp_path):
    """check without --coverage, fmt, diff and cards read the folder and run none of it."""
    rules, marker, shelled = hostile
    other = tmp_path / "other"
    create(other)
    for argv in (["check", str(rules)], ["fmt", "--check", str(rules)], ["diff", str(other), str(rules)],
                 ["cards", str(rules), "--out", str(tmp_path / "cards.pdf")]):
        call(capsys, *argv)
        assert not marker.exists() and not shelled.exists(), argv


# ------------------------------------------------------------------ the coverage they leave out
@pytest.fixture(scope="module")
def shipped():
    return load(default_rules_data())[0]


def test_a_cell_only_examples_exercise_is_not_known_and_not_warned(shipped):
    trusted, untrusted = coverage_of(shipped, Trust()), coverage_of(shipped, UNTRUSTED)
    unknown = untrusted.not_run()
    assert unknown and not untrusted.missing()
    for row in unknown:    # each is exercised by an example, when examples run
        again = trusted.cell(row.cell.clause_id, row.cell.source)
        assert again.state == "exercised" and all(u.kind == "example" for u in again.uses), row.id
    assert not any(u.kind == "example" for row in untrusted.rows() for u in row.uses)
    from harmony.diagnostics import Report
    report = Report()
    untrusted.warn(report)
    assert not report.warnings
    assert report.notes and report.notes[0].startswith("the clause examples were not run (--untrusted): ")
    assert untrusted.totals("CP")["not-run"] > 0 and "not-run" not in trusted.totals("CP")


def test_the_coverage_page_marks_each_cell_it_could_not_know(shipped):
    page = generate.pages(shipped, trust=UNTRUSTED)["coverage.rst"]
    mark = r"clause examples not run \(built with \-\-untrusted\)"      # as reST, escaped
    assert page.count(f"**not known**: {mark}\n") == len(coverage_of(shipped, UNTRUSTED).not_run())
    assert f"not known\\: {mark}" in page.split("* :clause:")[0]     # and in each rulebook's summary
    assert ".. warning::" in page and "the examples of :clause:" not in page
    assert "not run" not in generate.pages(shipped, trust=Trust())["coverage.rst"]


# ------------------------------------------------------------------ pytest
def test_pytest_skips_examples_when_the_variable_is_set(hostile):
    rules, marker, shelled = hostile
    env = dict(os.environ, PYTHONPATH=str(ROOT), **{ENV: "1"})
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                          "--harmony-rules", str(rules)], cwd=rules.parent, env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "2 passed, 1 skipped" in res.stdout      # the scenario's two rulesets are played
    assert "the clause examples were not run (HARMONY_UNTRUSTED is set)" in res.stdout
    assert not marker.exists() and not shelled.exists()
    env.pop(ENV)
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "--harmony-rules", str(rules)], cwd=rules.parent, env=env,
                         capture_output=True, text=True, timeout=300)
    assert "3 passed" in res.stdout and marker.exists() and shelled.exists()


def test_build_site_reads_the_environment_when_not_told(hostile, tmp_path, monkeypatch):
    """A caller that passes no trust (a script, the site's own tests) still honours the variable."""
    rules, marker, shelled = hostile
    monkeypatch.setenv(ENV, "1")
    build_site(rules, tmp_path / "site")
    assert not marker.exists() and not shelled.exists()

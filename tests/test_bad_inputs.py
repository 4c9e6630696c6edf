"""Every broken file of tests/bad_inputs gives exactly the errors EXPECTED.yaml lists.

Each file is checked the way a rules editor would, in a subprocess
(``python -m harmony check FILE``) with a timeout: exit code 1 (0 for the
files that are fine), each expected ``path:line:col: error: ... [code]``
line, nothing else, and never a traceback. The same files are then checked
in-process with ``--format json`` to pin the shape of the JSON report.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from harmony import cli

ROOT = Path(__file__).resolve().parent.parent
BAD = ROOT / "tests" / "bad_inputs"
EXPECTED: dict = YAML(typ="safe").load((BAD / "EXPECTED.yaml").read_text(encoding="utf-8"))
GENERATED = "generated.10mb.yaml"
TIMEOUT = 20  # seconds; a hang fails the test instead of stalling the suite
LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning): "
                  r"(?P<msg>.+) \[(?P<code>[a-z0-9-]+)\]$")
ENTRY = re.compile(r"^(?P<line>\d+):(?P<col>\d+) (?P<code>[a-z0-9-]+)"
                   r"(?P<warn> \(warning\))?(?: ~ (?P<words>.+))?$")


def expected(name: str) -> list[dict]:
    out = []
    for item in EXPECTED[name] or []:
        m = ENTRY.match(item)
        assert m, f"EXPECTED.yaml: {name}: cannot read {item!r}"
        out.append({"line": int(m["line"]), "col": int(m["col"]), "code": m["code"],
                    "severity": "warning" if m["warn"] else "error", "words": m["words"]})
    return out


def generated_10mb(folder: Path) -> Path:
    """A file over the size limit: sources padded with comment lines to 10 MB."""
    path = folder / GENERATED
    head = b"sources:\n  - {key: PB, title: PanzerBlitz, author: A, kind: canonical}\n"
    pad = b"# padding line of a file far too large for rules_data\n"
    path.write_bytes(head + pad * (10_000_000 // len(pad) + 1))
    assert path.stat().st_size > 10_000_000
    return path


def case_files() -> list[str]:
    return sorted(p.name for p in BAD.iterdir() if p.suffix == ".yaml" and p.name != "EXPECTED.yaml")


def test_every_file_has_an_expectation_and_every_expectation_a_file():
    assert sorted(set(EXPECTED) - {GENERATED}) == case_files()
    assert len(case_files()) + 1 >= 30


def test_the_corpus_covers_the_codes_the_issue_asks_for():
    codes = {e["code"] for name in EXPECTED for e in expected(name)}
    assert {"yaml-syntax", "yaml-tab", "yaml-duplicate-key", "yaml-alias", "yaml-tag", "yaml-depth",
            "yaml-multi-document", "file-empty", "file-binary", "file-encoding", "file-too-large",
            "schema-type", "schema-unknown-key", "schema-missing-key", "schema-enum", "duplicate-id",
            "unresolved-clause", "unresolved-source", "unresolved-topic", "unresolved-aspect",
            "unresolved-term", "unresolved-footnote", "unresolved-parameter", "unknown-parameter",
            "parameter-type", "missing-cell", "missing-relation", "control-character", "not-a-character",
            "schema-too-long"} <= codes
    assert EXPECTED["bom-ok.yaml"] == []


def _run(path: Path, cwd: Path) -> dict:
    try:
        p = subprocess.run([sys.executable, "-m", "harmony", "check", str(path)], cwd=cwd,
                           capture_output=True, text=True, timeout=TIMEOUT,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
        return {"rc": p.returncode, "out": p.stdout, "err": p.stderr}
    except subprocess.TimeoutExpired:
        return {"rc": None, "out": "", "err": f"no answer within {TIMEOUT} s"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    """Every file checked in its own subprocess (a few at a time, to keep the suite fast)."""
    big = generated_10mb(tmp_path_factory.mktemp("big"))
    jobs = {name: (Path("tests/bad_inputs") / name, ROOT) for name in case_files()}
    jobs[GENERATED] = (Path(GENERATED), big.parent)
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        futures = {name: pool.submit(_run, path, cwd) for name, (path, cwd) in jobs.items()}
        return {name: f.result() | {"shown": str(jobs[name][0])} for name, f in futures.items()}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_check_reports_exactly_the_expected_errors(runs, name):
    run = runs[name]
    want = expected(name)
    assert run["rc"] is not None, run["err"]
    both = run["out"] + run["err"]
    assert "Traceback" not in both, both
    assert run["rc"] == (1 if any(w["severity"] == "error" for w in want) else 0), both
    got = [m.groupdict() for m in map(LINE.match, run["err"].splitlines()) if m]
    assert all(g["path"] == run["shown"] for g in got), both
    assert [(int(g["line"]), int(g["col"]), g["code"], g["sev"]) for g in got] == \
        [(w["line"], w["col"], w["code"], w["severity"]) for w in want], both
    for g, w in zip(got, want):
        assert len(g["msg"]) >= 20, g  # says what is wrong, not just a code
        if w["words"]:
            assert w["words"] in g["msg"], g["msg"]


@pytest.mark.parametrize("name", case_files())
def test_json_report_has_the_same_diagnostics(name, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    rc = cli.main(["check", f"tests/bad_inputs/{name}", "--format", "json"])
    out = capsys.readouterr().out
    data = json.loads(out)
    assert set(data) >= {"diagnostics", "summary"}
    assert set(data["summary"]) >= {"errors", "warnings", "files"}
    assert data["summary"]["files"] == 1
    for d in data["diagnostics"]:
        assert set(d) == {"path", "line", "column", "severity", "message", "code"}
        assert d["path"] == f"tests/bad_inputs/{name}"
        assert isinstance(d["line"], int) and d["line"] >= 1 and isinstance(d["column"], int)
        assert d["severity"] in ("error", "warning") and d["message"] and d["code"]
    got = [(d["line"], d["column"], d["code"], d["severity"]) for d in data["diagnostics"]]
    want = [(w["line"], w["col"], w["code"], w["severity"]) for w in expected(name)]
    assert got == want
    assert data["summary"]["errors"] == sum(1 for w in expected(name) if w["severity"] == "error")
    assert rc == (1 if data["summary"]["errors"] else 0)


def test_positions_are_inside_the_file():
    for name in case_files():
        data = (BAD / name).read_bytes()
        lines = data.split(b"\n")
        for w in expected(name):
            assert 1 <= w["line"] <= max(1, len(lines)), (name, w)
            assert 1 <= w["col"] <= len(lines[w["line"] - 1]) + 1, (name, w)

"""Bad input never crashes: random edits of the shipped files, checked and formatted.

Each example takes one shipped rules_data file, damages it the way a hurried
editor might (a character deleted, inserted or doubled, a line dropped, moved
or re-indented, a tab, a stray quote or bracket, a control character, raw or as an
escape, the escape of a lone surrogate), and runs ``harmony check``
on a folder holding it beside the other shipped files, and ``harmony fmt``
on it.
Whatever the damage: no exception escapes, every problem has a position
inside the damaged file's text, and ``fmt`` leaves any file it refuses byte
for byte as it was.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from harmony.check import check_path
from harmony.fmt import fmt_path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules_data"
FILES = sorted(p.relative_to(RULES).as_posix() for p in RULES.rglob("*.yaml"))
NOISE = list("\t '\"[]{}:,-#&*!|>%@`\n") + ["\u00e9", "\ufeff", "---", "- ", ": ", "  "] + [
    # characters that are not text: raw controls, and escapes of controls and lone surrogates
    "\x07", "\x1b[31m", "\x7f", "\x9b", "\r", "\x85", "\u2028", "\uffff",
    "\\0", "\\e", "\\udc80", "\\x07", '"\\0"', '"\\udc80"', '"\\ud800\\udc00"']

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


@st.composite
def damage(draw, text: str) -> str:
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["delete", "insert", "double", "drop-line", "move-line",
                                     "indent", "dedent"]))
        i = draw(st.integers(0, max(len(lines) - 1, 0)))
        line = lines[i] if lines else ""
        j = draw(st.integers(0, len(line)))
        if kind == "delete" and line:
            lines[i] = line[:j] + line[j + 1:]
        elif kind == "insert":
            lines[i] = line[:j] + draw(st.sampled_from(NOISE)) + line[j:]
        elif kind == "double" and line:
            lines[i] = line[:j] + line[j:j + 1] * 2 + line[j + 1:]
        elif kind == "drop-line" and len(lines) > 1:
            del lines[i]
        elif kind == "move-line" and len(lines) > 1:
            lines.insert(draw(st.integers(0, len(lines) - 1)), lines.pop(i))
        elif kind == "indent":
            lines[i] = "  " + line
        elif kind == "dedent":
            lines[i] = line[2:] if line.startswith("  ") else line.lstrip()
    return "\n".join(lines)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("fuzz") / "rules_data"
    shutil.copytree(RULES, dest)
    return dest


def restore(folder: Path, name: str) -> None:
    shutil.copyfile(RULES / name, folder / name)


@given(st.sampled_from(FILES), st.data())
@SETTINGS
def test_a_damaged_file_gets_positioned_problems_never_a_crash(folder, name, data):
    target = folder / name
    text = data.draw(damage((RULES / name).read_text("utf-8")))
    target.write_text(text, encoding="utf-8")
    try:
        _, report = check_path(folder)
        lines = text.split("\n")
        for d in report.diagnostics:
            assert d.message.strip() and d.code
            if d.pos.path.endswith(name) and d.pos.line:
                assert 1 <= d.pos.line <= len(lines) + 1, str(d)
                assert d.pos.col is None or 1 <= d.pos.col <= len(lines[min(d.pos.line, len(lines)) - 1]) + 2, str(d)
        before = target.read_bytes()
        result = fmt_path(str(target))
        if any(doc.path.endswith(name) for doc in result.failed):
            assert target.read_bytes() == before          # a refused file is left alone
        else:                                              # a formatted file still reads
            _, again = check_path(folder)
            assert not [d for d in again.diagnostics if d.code.startswith("yaml")
                        and d.pos.path.endswith(name)]
    finally:
        restore(folder, name)


# ---------------------------------------------------------------- fmt interrupted

#: fmt run in a child that stops inside the write (after its temporary file is made and
#: written, before the rename): the moment a signal does the most harm
STOPPED_FMT = """
import os, sys, time
from harmony import cli
real = os.fsync
def stop(fd):
    real(fd)
    print("writing", flush=True)
    time.sleep(60)
os.fsync = stop
sys.exit(cli.main(["fmt", sys.argv[1]]))
"""
UNFORMATTED = "sources:\n- {key: PB, title: PanzerBlitz, author: A, kind: canonical}  # kept\n"


def _stopped_fmt(folder: Path) -> subprocess.Popen:
    (folder / "sources.yaml").write_text(UNFORMATTED, encoding="utf-8")
    child = subprocess.Popen([sys.executable, "-c", STOPPED_FMT, str(folder)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert child.stdout.readline().strip() == "writing", child.stderr.read()
    assert len(list(folder.glob(".harmony-fmt-*.tmp"))) == 1
    return child


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_fmt_stopped_by_a_signal_removes_its_temporary_file(tmp_path, sig):
    child = _stopped_fmt(tmp_path)
    child.send_signal(sig)
    rc = child.wait(timeout=30)
    assert rc in (128 + sig, 130, -sig), (rc, child.stderr.read())
    assert "Traceback" not in child.stderr.read()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sources.yaml"]
    assert (tmp_path / "sources.yaml").read_text("utf-8") == UNFORMATTED  # not half-written


def test_the_next_fmt_removes_what_a_killed_one_left(tmp_path):
    child = _stopped_fmt(tmp_path)
    child.kill()  # SIGKILL: nothing can be cleaned up now
    child.wait(timeout=30)
    left = list(tmp_path.glob(".harmony-fmt-*.tmp"))
    assert len(left) == 1 and (tmp_path / "sources.yaml").read_text("utf-8") == UNFORMATTED
    # an old-style name (no process id) stays while young, goes once old
    young, old = tmp_path / ".harmony-fmt-young.tmp", tmp_path / ".harmony-fmt-old.tmp"
    young.write_text("x")
    old.write_text("x")
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    # the temporary file of a fmt still running elsewhere is not touched
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        running = tmp_path / f".harmony-fmt-{alive.pid}-abc.tmp"
        running.write_text("x")
        result = fmt_path(str(tmp_path))
        assert result.changed and not result.failed
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
            [young.name, running.name, "sources.yaml"])
    finally:
        alive.kill()
        alive.wait()
    assert "# kept" in (tmp_path / "sources.yaml").read_text("utf-8")


def test_fmt_check_removes_nothing(tmp_path):
    (tmp_path / "sources.yaml").write_text(UNFORMATTED, encoding="utf-8")
    stale = tmp_path / ".harmony-fmt-999999999-abc.tmp"
    stale.write_text("x")
    fmt_path(str(tmp_path), check=True)
    assert stale.exists()

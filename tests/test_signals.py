"""A command asked to stop (SIGTERM, or Ctrl-C's SIGINT) stops, whatever it is running: even a
clause's example, which Python's doctest runs catching every exception but Ctrl-C's
(:mod:`harmony.signals`). A build runs the examples of the pages it makes."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_trust import started_with

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("stop, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_build_stopped_inside_a_clauses_example_stops_at_once(tmp_path, stop, status):
    inside = tmp_path / "inside"
    rules = started_with(tmp_path / "rules",
                         f"import os, pathlib, time; _ = pathlib.Path({str(inside)!r}).write_text('in')",
                         "time.sleep(60 if os.environ.get('HOLD') else 0)")
    # (a cache of its own, so that nothing another run kept answers for this one; no Pyodide
    # bundled: the explorer's work under Node.js, some 10 s of CPU a build with a new cache,
    # has nothing to do with a stop inside an example)
    env = dict(os.environ, PYTHONPATH=str(ROOT), HARMONY_CACHE=str(tmp_path / "cache"), HARMONY_PYODIDE="")
    build = [sys.executable, "-m", "harmony", "build", str(rules), "--out", str(tmp_path / "site")]
    child = subprocess.Popen(build, env=dict(env, HOLD="1"),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not inside.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert inside.exists(), child.communicate()
        time.sleep(0.2)                       # (in the sleep: the line after the marker's)
        child.send_signal(stop)
        out, err = child.communicate(timeout=30)   # not the example's 60 s
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == status, out + err
    assert "Traceback" not in err
    # nothing of the stopped run is remembered as the example's outcome
    again = subprocess.run(build, env=env,
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "failed" not in again.stdout + again.stderr

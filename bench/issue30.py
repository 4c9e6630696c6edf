"""Issue 30 in one run: every row of its table, each figure printed against its goal.

Run from the top of a checkout (``npm ci`` done, Debian's Chromium installed):

    python3 bench/issue30.py [--rows explorer,serve,build,check,tests] [--repeats 3]
                             [--out bench/issue30-run.md]

Each row is measured by the benchmark that owns it, called here one after the other
in this one process, so that the figures come from the same machine at much the same
load:

* ``explorer``: ``bench/explorer.py``: offline (``file://``), cold, the first ruling of a
  reader's own position (a long move no page links) against bare Pyodide answering its
  first line over loopback HTTP, alternating, ``--repeats`` rounds (at least 3);
* ``serve``: ``bench/serve_loop.py``: ``harmony serve`` on a copy of the shipped rules, a
  text edit to the new text on the open page, and a parameter edit to the new ruling
  (``--repeats`` rounds, two edits of each kind a round);
* ``build``: ``bench/run.py``'s build row: a cold ``harmony build`` against Sphinx alone
  building the same pages with every harmony directive stubbed (CPU and wall);
* ``check``: ``bench/run.py``'s check rows for the shipped rules and ten times their
  clauses (caches warm: a second check of an unchanged folder), against libyaml's C
  parser reading the same files;
* ``tests``: the README's test command, timed as it runs (wall).

A benchmark, never a test: nothing here asserts a time. The table is printed and, with
``--out``, written as Markdown.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

#: each row: what is measured, the goal in words, and the goal as the largest figure allowed
GOALS = {
    "explorer": ("explorer, first ruling of a reader's own position / bare Pyodide's first line",
                 "1.1x or less", 1.1),
    "serve-param": ("`harmony serve`, a parameter edit to the new ruling on the open page",
                    "1.0 s or less", 1.0),
    "serve-text": ("`harmony serve`, a text edit to the new text shown", "0.5 s or less", 0.5),
    "build-wall": ("`harmony build`, cold, against Sphinx alone (stubbed extension), wall",
                   "1.5x or less", 1.5),
    "build-cpu": ("`harmony build`, cold, against Sphinx alone (stubbed extension), CPU",
                  "2.5x or less", 2.5),
    "check-1": ("`harmony check` of the shipped rules against libyaml's C parser (CPU)",
                "2x or less", 2.0),
    "check-10": ("`harmony check` of 10 times the clauses against libyaml's C parser (CPU)",
                 "2x or less", 2.0),
    "tests": ("the README's test command, on this machine (wall)", "5 min or less", 300.0),
}


def explorer_row(repeats: int) -> dict:
    import explorer as bench_explorer
    from playwright.sync_api import sync_playwright
    from harmony.site.build import build_site
    api = bench_explorer.api
    pyodide = bench_explorer.bundle.find_pyodide()
    if pyodide is None:
        raise SystemExit("no Pyodide: run `npm ci` first")
    tmp = Path(tempfile.mkdtemp(prefix="harmony-issue30-explorer-"))
    site = tmp / "site"
    build_site(ROOT / "rules_data", site)
    catalogue = json.loads(api.Explorer(str(ROOT / "rules_data")).catalogue())["rulesets"]
    family = [r["name"] for r in catalogue if r["kind"] in ("canonical", "revision")]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=bench_explorer.CHROMIUM,
                                    args=bench_explorer.ARGS, headless=True)
        server, bare_url = bench_explorer.serve_bare_pyodide(pyodide, tmp / "bare-pyodide")
        try:
            pos, _ = bench_explorer.long_move(family)
            url = (site / "explorer.html").as_uri() + "#position=" + api.encode(pos)
            r = bench_explorer.side_by_side(browser, bare_url, url, max(3, repeats))
        finally:
            server.shutdown()
            browser.close()
    ratio = r["median_ruling"] / r["median_bare"]
    return {"explorer": (ratio, f"{ratio:.2f}x ({r['median_ruling']:.0f} ms against "
                                f"{r['median_bare']:.0f} ms; median of the rounds' ratios "
                                f"{r['median_round']:.2f}x)")}


def serve_rows(repeats: int) -> dict:
    import serve_loop
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=serve_loop.CHROMIUM, args=serve_loop.ARGS,
                                    headless=True)
        try:
            r = serve_loop.run("this tree", ROOT, ROOT / "rules_data", repeats, browser)
        finally:
            browser.close()
    out = {}
    for kind in ("text", "param"):
        t = statistics.median(r["times"][kind])
        out[f"serve-{kind}"] = (t, f"{t:.2f} s (median of {len(r['times'][kind])} edits, "
                                   f"{min(r['times'][kind]):.2f} to {max(r['times'][kind]):.2f} s; "
                                   f"server CPU {statistics.median(r['cpu'][kind]):.2f} s)")
    return out


@contextlib.contextmanager
def _bench(repeats: int) -> Iterator:
    """bench/run.py's bench, its temporary folder (corpora, sites, caches) removed after."""
    import run as bench_run
    bench = bench_run.Bench(SimpleNamespace(repeats=repeats, tree=str(ROOT), sizes=[], cold_max=0))
    try:
        yield bench
    finally:
        shutil.rmtree(bench.tmp, ignore_errors=True)


def build_rows(repeats: int) -> dict:
    import corpus
    with _bench(repeats) as bench:
        rules = bench.corpus(corpus.count_clauses(ROOT / "rules_data"))
        ours, anchor, _ = bench.build_cold(rules, "issue30")
        a, b = [], []
        for _ in range(repeats):
            a.append(ours())
            b.append(anchor())
    out = {}
    for key, field in (("build-wall", "wall"), ("build-cpu", "cpu")):
        x = statistics.median(getattr(s, field) for s in a)
        y = statistics.median(getattr(s, field) for s in b)
        out[key] = (x / y, f"{x / y:.2f}x ({x:.1f} s against {y:.1f} s)")
    return out


def check_rows(repeats: int) -> dict:
    import corpus
    per_copy = corpus.count_clauses(ROOT / "rules_data")
    out = {}
    with _bench(repeats) as bench:
        for copies in (1, 10):
            bench.args.sizes = [per_copy * copies]
            bench.args.cold_max = 0
            bench.rows = []
            bench.row_check()
            row = bench.rows[0]
            out[f"check-{copies}"] = (row["ratio"], f"{row['ratio']:.2f}x ({row['ours']:.2f} s against "
                                                    f"{row['anchor']:.2f} s, {per_copy * copies} clauses)")
    return out


def tests_row() -> dict:
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=ROOT,
                          capture_output=True, text=True)
    took = time.perf_counter() - t
    summary = (proc.stdout.strip().splitlines() or ["(no output)"])[-1]
    return {"tests": (took, f"{took / 60:.1f} min ({summary}; exit {proc.returncode})")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default="explorer,serve,build,check,tests")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    rows = args.rows.split(",")
    unknown = set(rows) - {"explorer", "serve", "build", "check", "tests"}
    if unknown:
        ap.error(f"no such row: {', '.join(sorted(unknown))}")
    load = os.getloadavg()
    started = time.strftime("%d %b %Y, %H:%M UTC", time.gmtime())
    got: dict[str, tuple[float, str]] = {}
    for name in rows:
        print(f"measuring {name} ...", flush=True)
        got.update({"explorer": lambda: explorer_row(args.repeats),
                    "serve": lambda: serve_rows(args.repeats),
                    "build": lambda: build_rows(args.repeats),
                    "check": lambda: check_rows(args.repeats),
                    "tests": tests_row}[name]())
    after = os.getloadavg()
    lines = [f"Measured {started}, {os.cpu_count()} CPUs, Python {platform.python_version()}; load "
             f"average {load[0]:.1f} before, {after[0]:.1f} after; `python3 bench/issue30.py "
             f"--rows {args.rows} --repeats {args.repeats}`.", "",
             "| what | measured | goal | met |", "|---|---|---|---|"]
    for key, (what, goal, limit) in GOALS.items():
        if key in got:
            value, words = got[key]
            lines.append(f"| {what} | {words} | {goal} | {'yes' if value <= limit else '**no**'} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

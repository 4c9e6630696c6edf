"""How fast a path that is no rules folder is refused, and what the encoding checks cost.

Run from the top of a checkout:

    python3 bench/paths.py [--before DIR] [--repeats 3] [--copies 20]

Each measurement is a new ``python3 -m harmony check PATH`` process, its CPU time
(user + system, from ``os.wait4``) and wall time, for this checkout and (``--before``) an
older one, side by side, round by round; the medians are printed as a Markdown table.
The paths:

* ``/``: the whole file system;
* a folder of checkouts: ``--copies`` copies of the shipped ``rules_data``, each in its own
  sub-folder (``copy-N/rules_data``), nothing at the top (issue 26: ``harmony check``
  read every copy and reported thousands of duplicate ids before saying anything useful);
* the shipped ``rules_data``, parse cache off (``HARMONY_CACHE=off``): the check every
  rules folder gets, where the new scan for characters that are not text runs.

A benchmark, never a test: nothing asserts a time. Exit codes are printed beside each row.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def measure(tree: Path, path: Path, cache: str) -> tuple[float, float, int]:
    env = dict(os.environ, PYTHONPATH=str(tree), HARMONY_CACHE=cache)
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "harmony", "check", str(path)], env=env,
                            cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(proc.pid, 0)
    return ru.ru_utime + ru.ru_stime, time.perf_counter() - t, os.waitstatus_to_exitcode(status)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--before", help="an older checkout to measure side by side")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--copies", type=int, default=20)
    args = p.parse_args()
    trees = {"this": ROOT} | ({"before": Path(args.before).resolve()} if args.before else {})
    tmp = Path(tempfile.mkdtemp(prefix="harmony-bench-paths-"))
    try:
        checkouts = tmp / "checkouts"
        for i in range(args.copies):
            shutil.copytree(ROOT / "rules_data", checkouts / f"copy-{i}" / "rules_data")
        cases = [("/", Path("/"), str(tmp / "cache")),
                 (f"a folder of {args.copies} checkouts", checkouts, str(tmp / "cache")),
                 ("shipped rules_data, parse cache off", ROOT / "rules_data", "off")]
        print("| path | " + " | ".join(f"{t}: CPU s, wall s (exit)" for t in trees) + " |")
        print("|---|" + "---|" * len(trees))
        for name, path, cache in cases:
            runs: dict[str, list] = {t: [] for t in trees}
            for _ in range(args.repeats):
                for t, tree in trees.items():
                    runs[t].append(measure(tree, path, cache))
            cells = []
            for t in trees:
                cpu = statistics.median(r[0] for r in runs[t])
                wall = statistics.median(r[1] for r in runs[t])
                cells.append(f"{cpu:.2f}, {wall:.2f} ({runs[t][0][2]})")
            print(f"| {name} | " + " | ".join(cells) + " |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

"""What the site's theme costs a cold ``harmony build``: this tree beside another commit's.

    PYTHONPATH=$PWD python3 bench/theme.py [--baseline main] [--repeats 3] [RULES_DATA]

The baseline commit (default ``main``; for issue 31, the last commit with the alabaster theme)
is unpacked with ``git archive`` into a temporary folder; each round builds the same copy of
the rules with each tree, in a fresh process with an empty output folder, build cache and
card-fit cache, the two trees alternating so a change of the machine's load hits both alike.
Both bundle the same Pyodide (``$HARMONY_PYODIDE``, else this checkout's
``node_modules/pyodide``). Reported: the median wall-clock seconds and the median CPU seconds
of the build process (user + system, steadier on a shared machine), and the ratios. A
benchmark, not a test: nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ("import sys; from harmony.site.build import build_site; "
         "build_site(sys.argv[1], sys.argv[2])")


def unpack(ref: str, dest: Path) -> Path:
    """The tree of ``ref`` (a commit of this repository) in ``dest``."""
    archive = dest.with_suffix(".tar")
    with open(archive, "wb") as f:
        subprocess.run(["git", "-C", str(ROOT), "archive", ref], stdout=f, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(dest)   # our own commit's files
    archive.unlink()
    return dest


def cold(tree: Path, rules: Path, tmp: Path, tag: str) -> tuple[float, float]:
    """One cold build of ``rules`` by the harmony of ``tree``: wall and CPU seconds."""
    env = dict(os.environ, PYTHONPATH=str(tree), HARMONY_CACHE=str(tmp / f"cache-{tag}"),
               HARMONY_PYODIDE=os.environ.get("HARMONY_PYODIDE", str(ROOT / "node_modules" / "pyodide")))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    subprocess.run([sys.executable, "-c", BUILD, str(rules), str(tmp / f"site-{tag}")], env=env,
                   check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("rules", nargs="?", default=str(ROOT / "rules_data"))
    p.add_argument("--baseline", default="main")
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv[1:])
    times: dict[str, list[tuple[float, float]]] = {"baseline": [], "this tree": []}
    with tempfile.TemporaryDirectory(prefix="harmony-bench-theme-") as name:
        tmp = Path(name)
        trees = {"baseline": unpack(args.baseline, tmp / "baseline"), "this tree": ROOT}
        rules = tmp / "rules_data"
        shutil.copytree(args.rules, rules)
        for n in range(args.repeats):
            order = ("baseline", "this tree") if n % 2 == 0 else ("this tree", "baseline")
            for which in order:
                wall, cpu = cold(trees[which], rules, tmp, f"{n}-{which.replace(' ', '-')}")
                times[which].append((wall, cpu))
                print(f"round {n + 1} {which}: {wall:.1f} s wall, {cpu:.1f} s CPU", file=sys.stderr, flush=True)
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in times.items()}
    print(f"cold build of {args.rules}, median of {args.repeats} rounds each, interleaved:")
    print("| build | wall s | CPU s |")
    print("|---|---|---|")
    print(f"| baseline ({args.baseline}) | {med['baseline'][0]:.1f} | {med['baseline'][1]:.1f} |")
    print(f"| this tree | {med['this tree'][0]:.1f} | {med['this tree'][1]:.1f} |")
    print(f"| added | {100 * (med['this tree'][0] / med['baseline'][0] - 1):+.0f}% | "
          f"{100 * (med['this tree'][1] / med['baseline'][1] - 1):+.0f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""What the rulebooks add to a cold ``harmony build``: the same build with and without them.

    PYTHONPATH=$PWD python3 bench/rulebook.py [RULES_DATA] [--repeats 3] [--tree DIR] [--before DIR]

Each build is a new process (this checkout, or ``--tree DIR``, first on ``PYTHONPATH``;
``--before DIR`` measures another checkout too, e.g. an export of main, the same way) building a copy of the rules into
an empty output folder with an empty cache and an empty fit cache, once as ``harmony build``
does (every ruleset's rulebook printed into ``print/``) and once with the rulebooks left out
(:func:`harmony.rulebook.site.extras` answering nothing). Within a round every kind runs once;
the order turns round by round, so a change of machine load hits them alike. Reported, medians:
the wall-clock seconds of the process, its CPU seconds with those of the processes it started
and waited for (``os.wait4``: the build and its PDF printers), and the printers' share (the
build's ``RUSAGE_CHILDREN``); then what the rulebooks add. Then one more build with nothing
changed, to show that no rulebook is laid out again. The load average before and after is
printed: the machine may be shared. A benchmark, not a test: nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: compiled modules kept between the measured processes, as an installed package keeps them
PYCACHE = Path(tempfile.gettempdir()) / "harmony-bench-pycache"

#: run in the measured process: one build, what it took, as JSON on stdout
DRIVER = r"""
import json, resource, sys, time
rules, out, with_rulebooks = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
from harmony.rulebook import site
if not with_rulebooks:
    site.extras = lambda *args, **kwargs: {}
from harmony.site.build import build_site
res = build_site(rules, out)
children = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"printers": children.ru_utime + children.ru_stime,
                  "rulebooks": sorted(f for f in res.extras if f.endswith("-rulebook.pdf")),
                  "epubs": sorted(f for f in res.extras if f.endswith("-rulebook.epub")),
                  "laid_out": getattr(res, "printed", None), "phases": res.phases}))
"""


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("rules", nargs="?", default=str(ROOT / "rules_data"))
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--tree", metavar="DIR", default=str(ROOT),
                   help="the checkout to measure (default: this one)")
    p.add_argument("--before", metavar="DIR", help="another checkout to measure the same way, "
                   "side by side (e.g. an export of main: git archive main | tar -x -C DIR)")
    args = p.parse_args(argv[1:])
    tree = Path(args.tree).resolve()
    trees = ([("before", Path(args.before).resolve())] if args.before else []) + \
        [("after" if args.before else tree.name, tree)]
    kinds = [(label, tree, with_rb) for label, tree in trees for with_rb in (False, True)]
    runs: dict[tuple[str, bool], list[dict]] = {(label, w): [] for label, _, w in kinds}
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())} "
          f"({os.cpu_count()} processors)", flush=True)
    with tempfile.TemporaryDirectory(prefix="harmony-bench-rulebook-") as name:
        tmp = Path(name)
        rules = tmp / "rules_data"
        shutil.copytree(args.rules, rules)
        for n in range(args.repeats):
            order = kinds[n % len(kinds):] + kinds[:n % len(kinds)]
            if n % 2:
                order.reverse()
            for label, tree, with_rb in order:
                where = tmp / f"{label}-{n}-{int(with_rb)}"
                run = measure(tree, rules, where, with_rb)
                runs[(label, with_rb)].append(run)
                print(f"round {n + 1}, {label}, {'with' if with_rb else 'without'} rulebooks: "
                      f"{run['wall']:.1f} s wall, {run['cpu']:.1f} s CPU "
                      f"({run['printers']:.1f} s in the printers)", file=sys.stderr, flush=True)
        label, tree = trees[-1]
        again = measure(tree, rules, tmp / f"{label}-{args.repeats - 1}-1", True)
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"cold build of {args.rules}, median of {args.repeats} rounds, kinds interleaved:")
    print("| checkout | build | wall s | CPU s (all processes) | of which PDF printers |")
    print("|---|---|---|---|---|")
    med = {k: {m: statistics.median(r[m] for r in v) for m in ("wall", "cpu", "printers")}
           for k, v in runs.items()}
    for label, _ in trees:
        for with_rb in (False, True):
            m = med[(label, with_rb)]
            last = runs[(label, True)][0]
            what = f"with rulebooks ({len(last['rulebooks'])} PDFs, {len(last.get('epubs', []))} EPUBs)" if with_rb \
                else "without rulebooks"
            print(f"| {label} | {what} | {m['wall']:.1f} | {m['cpu']:.1f} | {m['printers']:.1f} |")
        w, wo = med[(label, True)], med[(label, False)]
        print(f"| {label} | added by the rulebooks | {100 * (w['wall'] / wo['wall'] - 1):+.0f}% | "
              f"{100 * (w['cpu'] / wo['cpu'] - 1):+.0f}% | |")
    laid = again["laid_out"] if again["laid_out"] is not None else again["rulebooks"]
    print(f"a second build with nothing changed laid out {len(laid)} PDF(s) again "
          f"({again['wall']:.1f} s wall)")
    return 0


def measure(tree: Path, rules: Path, where: Path, with_rulebooks: bool) -> dict:
    """A cold (or, when ``where`` holds a site, a repeated) build: wall, CPU, printers' CPU."""
    t = time.perf_counter()
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0",
               HARMONY_CACHE=str(where / "fit-cache"), PYTHONPYCACHEPREFIX=str(PYCACHE))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    where.mkdir(parents=True, exist_ok=True)
    with open(where / "stderr", "w+b") as errors:
        proc = subprocess.Popen([sys.executable, "-c", DRIVER, str(rules), str(where / "site"),
                                 "1" if with_rulebooks else "0"], env=env, cwd=tree,
                                stdout=subprocess.PIPE, stderr=errors)
        out = proc.stdout.read() if proc.stdout else b""
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        if os.waitstatus_to_exitcode(status) != 0:
            errors.seek(0)
            raise SystemExit(f"the build failed ({tree}):\n{errors.read().decode()[-3000:]}")
    found = json.loads(out.decode().strip().splitlines()[-1])
    return dict(found, wall=wall, cpu=usage.ru_utime + usage.ru_stime)


if __name__ == "__main__":
    sys.exit(main(sys.argv))

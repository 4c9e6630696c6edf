"""What the rulebooks add to a cold ``harmony build``: the same build with and without them.

    PYTHONPATH=$PWD python3 bench/rulebook.py [RULES_DATA] [--repeats 3]

Each round builds a copy of the rules into an empty output folder with an empty cache (and
an empty card-fit cache, and the loader's parse cache dropped, as a new process), once as
``harmony build`` does (every ruleset's rulebook printed into ``print/``) and once with the
rulebooks left out (:func:`harmony.rulebook.site.extras` answering nothing); the two kinds
alternate, so a change of machine load hits both alike. Reported: the median wall-clock and
CPU seconds (``time.process_time``: this process's own CPU, steadier on a shared machine),
and the ratio. Then one more build with nothing changed, to show that no rulebook is printed
again. A benchmark, not a test: nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harmony import loader  # noqa: E402
from harmony.rulebook import site as rulebook_site  # noqa: E402
from harmony.site.build import build_site  # noqa: E402


def cold(rules: Path, tmp: Path, with_rulebooks: bool, n: int) -> tuple[float, float, list[str]]:
    out = tmp / f"site-{n}-{int(with_rulebooks)}"
    os.environ["HARMONY_CACHE"] = str(tmp / f"fit-cache-{n}-{int(with_rulebooks)}")
    loader._READ.clear()
    real = rulebook_site.extras
    if not with_rulebooks:
        rulebook_site.extras = lambda model, cache: {}   # type: ignore[assignment]
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        res = build_site(rules, out)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        rulebook_site.extras = real   # type: ignore[assignment]
    return wall, cpu, [f for f in res.extras if f.endswith("-rulebook.pdf")]


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("rules", nargs="?", default=str(ROOT / "rules_data"))
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv[1:])
    times: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    with tempfile.TemporaryDirectory(prefix="harmony-bench-rulebook-") as name:
        tmp = Path(name)
        rules = tmp / "rules_data"
        shutil.copytree(args.rules, rules)
        printed: list[str] = []
        for n in range(args.repeats):
            for with_rulebooks in ((False, True) if n % 2 == 0 else (True, False)):
                wall, cpu, pdfs = cold(rules, tmp, with_rulebooks, n)
                times[with_rulebooks].append((wall, cpu))
                printed = pdfs or printed
                print(f"round {n + 1} {'with' if with_rulebooks else 'without'} rulebooks: "
                      f"{wall:.1f} s wall, {cpu:.1f} s CPU", file=sys.stderr, flush=True)
        out = tmp / f"site-{args.repeats - 1}-1"
        loader._READ.clear()
        again = build_site(rules, out)
        reprinted = [f for f in again.extras if f.endswith("-rulebook.pdf")]
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
           for k, v in times.items()}
    print(f"cold build of {args.rules}, median of {args.repeats} rounds each, interleaved:")
    print("| build | wall s | CPU s |")
    print("|---|---|---|")
    print(f"| without rulebooks | {med[False][0]:.1f} | {med[False][1]:.1f} |")
    print(f"| with rulebooks ({len(printed)} PDFs) | {med[True][0]:.1f} | {med[True][1]:.1f} |")
    print(f"| added | {100 * (med[True][0] / med[False][0] - 1):+.0f}% | "
          f"{100 * (med[True][1] / med[False][1] - 1):+.0f}% |")
    print(f"a second build with nothing changed printed {len(reprinted)} rulebook(s) again")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

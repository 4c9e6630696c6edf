"""Issue 30: ``harmony check`` against parsing the same YAML with libyaml's C parser.

Run from the top of a checkout:

    python3 bench/check_speed.py [--copies 1,10] [--repeats 5] [--tree DIR] [--before DIR]
                                 [--no-cold] [--profile]

For each size (``--copies``: the shipped rules_data once, and replicated by
``bench/corpus.py`` to ten times its clauses), each round runs, as new processes and one
after the other, so a change of machine load hits them alike:

* the anchor: ``python3 -c`` reading every YAML file of the folder with
  ``yaml.load(..., Loader=yaml.CLoader)`` (PyYAML on libyaml);
* ``python3 -m harmony check FOLDER`` with its caches warm (the caches under
  ``XDG_CACHE_HOME``, filled by one check before the rounds: what a second check of an
  unchanged folder finds, the usual case in an editor or a commit hook);
* the same after one word of one clause was changed (that file is read and checked
  again; the cross-clause checks run over the whole model, as always);
* the same with every cache empty (a new machine: every file parsed with positions,
  schema-checked, every scenario played and every card bounded);
* with ``--before DIR``, the same three checks of another checkout (``DIR`` first on
  ``PYTHONPATH`` and the current folder, as ``bench/run.py --tree`` does), in the same rounds.

Every process is measured as ``bench/run.py`` measures (CPU seconds, user + system, and
peak RSS from ``os.wait4``; compiled modules kept in ``PYCACHE``, as an installed package
has them). Reported: the median of the rounds and its ratio to the anchor's median, as a
Markdown table. ``--profile`` also writes a cProfile of one warm check of each size (the
names printed at the end). A benchmark, never a test: nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402
import run  # noqa: E402
from run import PY, env_for, measure  # noqa: E402

PARSE = ("import pathlib, sys, yaml\n"
         "for p in sorted(pathlib.Path(sys.argv[1]).rglob('*.yaml')):\n"
         "    yaml.load(p.read_bytes(), Loader=yaml.CLoader)\n")
#: the word changed in the one-clause edit, and its replacements, a new one each round
EDIT_FROM = "cannot be fired on by units that are not"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--copies", default="1,10", type=lambda s: [int(x) for x in s.split(",")])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--tree", default=str(ROOT), help="the checkout whose harmony is measured")
    ap.add_argument("--before", metavar="DIR",
                    help="another checkout measured in the same rounds (e.g. the main branch)")
    ap.add_argument("--no-cold", action="store_true", help="leave out the empty-cache check")
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args(argv)
    trees = {"": Path(args.tree).resolve()}
    if args.before:
        trees["before: "] = Path(args.before).resolve()
    kinds = ("warm", "edit") + (() if args.no_cold else ("cold",))
    tmp = Path(tempfile.mkdtemp(prefix="harmony-check-speed-"))
    per_copy = corpus.count_clauses(ROOT / "rules_data")
    rows = []
    try:
        for copies in args.copies:
            rules = tmp / f"corpus-{copies}"
            if copies == 1:
                shutil.copytree(ROOT / "rules_data", rules)
            else:
                corpus.generate(rules, per_copy * copies, ROOT / "rules_data")
            clauses = per_copy * copies
            files = len(list(rules.rglob("*.yaml")))
            target = next(p for p in sorted(rules.rglob("spotting.yaml")))
            original = target.read_text("utf-8")

            def check(tag: str, cache: Path):
                run.RUN_IN = trees[tag]      # python3 -m runs the checkout it starts in
                return measure([PY, "-m", "harmony", "check", str(rules)], env_for(trees[tag], cache))
            warm = {tag: Path(tempfile.mkdtemp(prefix="cache-", dir=tmp)) for tag in trees}
            for tag in trees:
                first = check(tag, warm[tag])
                if first.rc != 0:
                    print(f"warning: {tag}the corpus of {copies} copies does not check clean "
                          f"(exit {first.rc})", file=sys.stderr)
            samples: dict[str, list] = {"anchor": []}
            for n in range(args.repeats):
                run.RUN_IN = trees[""]
                samples["anchor"].append(measure([PY, "-c", PARSE, str(rules)], env_for(trees[""], None)))
                for tag in trees:
                    samples.setdefault(tag + "warm", []).append(check(tag, warm[tag]))
                    target.write_text(original.replace(EDIT_FROM, f"cannot be fired on (edit {n}) by "
                                                       "units that are not", 1), "utf-8")
                    samples.setdefault(tag + "edit", []).append(check(tag, warm[tag]))
                    target.write_text(original, "utf-8")
                    if "cold" in kinds:
                        cold = Path(tempfile.mkdtemp(prefix="cold-", dir=tmp))
                        samples.setdefault(tag + "cold", []).append(check(tag, cold))
                        shutil.rmtree(cold, ignore_errors=True)
                print(f"{copies} copies, round {n + 1}: " + ", ".join(
                    f"{k} {v[-1].cpu:.2f} s" for k, v in samples.items()), flush=True)
            anchor = statistics.median(s.cpu for s in samples["anchor"])
            label = f"{clauses} clauses, {files} files"
            rows.append((f"C parse (yaml.CLoader), {label}", anchor, 1.0,
                         max(s.rss_mb for s in samples["anchor"]), {0}))
            for tag in trees:
                for kind, what in (("warm", "caches warm"), ("edit", "one clause edited, caches warm"),
                                   ("cold", "caches empty")):
                    got = samples.get(tag + kind)
                    if got:
                        cpu = statistics.median(s.cpu for s in got)
                        rows.append((f"{tag}`harmony check`, {label}, {what}", cpu, cpu / anchor,
                                     max(s.rss_mb for s in got), {s.rc for s in got}))
            if args.profile:
                out = Path(tempfile.gettempdir()) / f"check-{copies}.prof"
                run.RUN_IN = trees[""]
                measure([PY, "-m", "cProfile", "-o", str(out), "-m", "harmony", "check", str(rules)],
                        env_for(trees[""], warm[""]))
                print(f"profile of a warm check, {copies} copies: {out}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    load = os.getloadavg()
    print(f"\nMeasured {time.strftime('%d %b %Y, %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}, load average {load[0]:.2f} / {load[1]:.2f} / "
          f"{load[2]:.2f} at the end; {args.repeats} interleaved rounds, medians of CPU seconds "
          f"(user + system); tree `{trees['']}`"
          + (f", before: `{trees['before: ']}`" if args.before else "") + ".\n")
    print("| measure | CPU s | ratio to the C parse | peak MB | exit |")
    print("|---|---|---|---|---|")
    for name, cpu, ratio, mb, rc in rows:
        print(f"| {name} | {cpu:.3f} | {ratio:.2f}x | {mb:.0f} | {','.join(map(str, sorted(rc)))} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The benchmark of issue 16: every row as a CPU-time ratio, measured side by side.

Run from the top of a checkout:

    python3 bench/run.py [--repeats 3] [--rows build,check,edit,cards,scenario,los]
                         [--sizes 500,2000,10000] [--units 1000,2000,7000]
                         [--tree DIR] [--out bench/RESULTS-run.md]

Each measurement is a new process (``python3 -m harmony ...`` with ``--tree`` first
on ``PYTHONPATH``, so an older checkout can be measured the same way; compiled modules
kept in :data:`PYCACHE`, as an installed package keeps them); its CPU time
(user + system) and peak resident memory come from ``os.wait4``. Within a row the
harmony command and its anchor alternate, round by round, and the medians are
compared. Corpora are made by ``bench/corpus.py`` (the shipped data replicated,
ids renamed); the fit cache is an empty ``XDG_CACHE_HOME`` when cold and a warmed
one when warm. The rows:

* ``build``: cold ``harmony build`` (empty output, cache and fit cache) against
  ``sphinx-build -E`` of the same generated reST with ``bench/sphinx_stub.py``, for
  the shipped data and for 10 copies of it;
* ``check``: ``harmony check`` at each of ``--sizes`` clauses, fit cache warm and
  cold, against parsing the same files with PyYAML's C loader;
* ``edit``: a new ``harmony build`` process after appending a word to one clause, and
  after no change, against the cold build (``--sizes``' first size);
* ``cards``: ``harmony cards --rules REV`` of 540 cards, fit cache cold and warm,
  against WeasyPrint printing the same HTML;
* ``scenario``: the CPU time of playing one scenario of ``--units`` units under five
  rulesets (measured inside the process, around ``run_scenario``), per unit;
* ``los``: ``bench/los.py`` on both of its maps (every pair of 1,000 hexes against a
  naive walk, and against an exact reference).

A benchmark, never a test: nothing asserts a time. Results are printed as a
Markdown table and written to ``--out``.
"""
from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402

PY = sys.executable
#: Where measured commands run: the measured checkout (``python3 -m`` puts the current
#: folder first on ``sys.path``, before ``PYTHONPATH``).
RUN_IN = ROOT


class Sample:
    def __init__(self, cpu: float, rss_mb: float, wall: float, rc: int):
        self.cpu, self.rss_mb, self.wall, self.rc = cpu, rss_mb, wall, rc


def measure(cmd: list[str], env: dict, cwd: Path | None = None) -> Sample:
    """Run ``cmd`` to its end; its own CPU seconds and peak memory (MB)."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd or RUN_IN, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    err = proc.stderr.read()
    _, status, ru = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        sys.stderr.write(f"warning: {' '.join(cmd)} exited {proc.returncode}: {err[-2000:].decode()}\n")
    return Sample(ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, time.perf_counter() - t,
                  proc.returncode)


#: Where measured processes keep their compiled modules, as an installed package has them
#: (a machine that sets PYTHONDONTWRITEBYTECODE would otherwise compile every module of
#: harmony, about 0.8 s, in every measured process, and hardly any of the anchors').
PYCACHE = Path(tempfile.gettempdir()) / "harmony-bench-pycache"


def env_for(tree: Path, cache: Path | None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0",
               PYTHONPYCACHEPREFIX=str(PYCACHE))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("HARMONY_CACHE", None)          # the caches are XDG_CACHE_HOME's, per row
    if cache is not None:
        env["XDG_CACHE_HOME"] = str(cache)
    return env


class Bench:
    def __init__(self, args):
        self.args = args
        self.tree = Path(args.tree).resolve()
        self.tmp = Path(tempfile.mkdtemp(prefix="harmony-bench-"))
        self.rows: list[dict] = []
        self.commands: list[str] = []

    def corpus(self, clauses: int, scenarios: bool = True) -> Path:
        path = self.tmp / f"corpus-{clauses}"
        if not path.exists():
            corpus.generate(path, clauses, ROOT / "rules_data", scenarios=scenarios)
        return path

    def fresh_cache(self) -> Path:
        return Path(tempfile.mkdtemp(prefix="cache-", dir=self.tmp))

    def pair(self, name: str, ours, anchor, note: str = "") -> dict:
        """``ours`` and ``anchor`` are ``() -> Sample`` (each does its own set-up);
        interleaved, ``--repeats`` rounds; medians."""
        a, b = [], []
        for _ in range(self.args.repeats):
            a.append(ours())
            b.append(anchor())
        row = {"name": name, "ours": statistics.median(s.cpu for s in a),
               "anchor": statistics.median(s.cpu for s in b),
               "ours_mb": max(s.rss_mb for s in a), "anchor_mb": max(s.rss_mb for s in b),
               "rc": sorted({s.rc for s in a}), "note": note}
        row["ratio"] = row["ours"] / row["anchor"] if row["anchor"] else float("nan")
        self.rows.append(row)
        print(f"{name}: {row['ours']:.2f} s / {row['anchor']:.2f} s = {row['ratio']:.2f}x "
              f"({row['ours_mb']:.0f} MB / {row['anchor_mb']:.0f} MB) rc={row['rc']}", flush=True)
        return row

    # ---------------------------------------------------------------- rows
    def build_cold(self, rules: Path, tag: str) -> tuple:
        out = self.tmp / f"site-{tag}" / "site"

        def ours():
            shutil.rmtree(out.parent, ignore_errors=True)
            return measure([PY, "-m", "harmony", "build", str(rules), "--out", str(out)],
                           env_for(self.tree, self.fresh_cache()))
        ours()   # once, for the generated reST of the anchor
        src = self.tmp / f"stubsrc-{tag}"
        shutil.rmtree(src, ignore_errors=True)
        shutil.copytree(out.parent / ".site.harmony-cache" / "src", src)
        stub_out = self.tmp / f"stubout-{tag}"

        def anchor():
            shutil.rmtree(stub_out, ignore_errors=True)
            return measure([PY, "-m", "sphinx", "-q", "-E", "-b", "html", "-c",
                            str(HERE / "stub_conf"), str(src), str(stub_out)],
                           env_for(self.tree, None))
        return ours, anchor, out

    def row_build(self):
        self.commands.append("harmony build RULES --out DIR (empty DIR, cache and XDG_CACHE_HOME) | "
                             "python3 -m sphinx -q -E -b html -c bench/stub_conf SRC OUT")
        per_copy = corpus.count_clauses(ROOT / "rules_data")
        for copies, label in ((1, "shipped data"), (10, "10 times the shipped data")):
            rules = self.corpus(per_copy * copies)
            ours, anchor, _ = self.build_cold(rules, f"b{copies}")
            self.pair(f"cold build, {label} ({per_copy * copies} clauses)", ours, anchor)

    def row_check(self):
        self.commands.append("harmony check CORPUS (XDG_CACHE_HOME empty or warmed) | "
                             "python3 -c 'yaml.load(f, CSafeLoader) for every file'")
        parse = ("import pathlib, sys, yaml\n"
                 "for p in sorted(pathlib.Path(sys.argv[1]).rglob('*.yaml')):\n"
                 "    yaml.load(p.read_bytes(), Loader=yaml.CSafeLoader)\n")
        for n in self.args.sizes:
            rules = self.corpus(n)
            clauses = corpus.count_clauses(ROOT / "rules_data") * corpus.copies_in(rules)
            warm = self.fresh_cache()
            measure([PY, "-m", "harmony", "check", str(rules)], env_for(self.tree, warm))
            anchor = lambda: measure([PY, "-c", parse, str(rules)], env_for(self.tree, None))  # noqa: E731
            self.pair(f"check, {clauses} clauses, fit cache warm",
                      lambda: measure([PY, "-m", "harmony", "check", str(rules)],
                                      env_for(self.tree, warm)), anchor)
            if n <= self.args.cold_max:
                self.pair(f"check, {clauses} clauses, fit cache cold",
                          lambda: measure([PY, "-m", "harmony", "check", str(rules)],
                                          env_for(self.tree, self.fresh_cache())), anchor)

    def row_edit(self):
        self.commands.append("harmony build (new process) after a one-word edit / no change | "
                             "cold harmony build")
        rules = self.corpus(self.args.sizes[0])
        clauses = corpus.count_clauses(ROOT / "rules_data") * corpus.copies_in(rules)
        cold, _, out = self.build_cold(rules, "edit")
        target = next(p for p in sorted(rules.rglob("spotting.yaml")))
        original = target.read_text("utf-8")
        cache = self.fresh_cache()
        build = [PY, "-m", "harmony", "build", str(rules), "--out", str(out)]
        measure(build, env_for(self.tree, cache))
        count = [0]

        def edited():
            count[0] += 1
            target.write_text(original.replace("cannot be fired on by units that are not",
                                               f"cannot be fired on (edit {count[0]}) by units "
                                               "that are not", 1), "utf-8")
            return measure(build, env_for(self.tree, cache))
        self.pair(f"one-clause edit, new build process, {clauses} clauses (ratio to the cold build)",
                  edited, cold)
        self.pair(f"no change, new build process, {clauses} clauses (ratio to the cold build)",
                  lambda: measure(build, env_for(self.tree, cache)), cold)
        target.write_text(original, "utf-8")

    def row_cards(self):
        self.commands.append("harmony cards CORPUS --rules REV | weasyprint.HTML(string=the same "
                             "HTML).write_pdf()")
        per_copy = corpus.count_clauses(ROOT / "rules_data")
        rules = self.corpus(per_copy * 27)   # 20 REV cards a copy: 540 cards
        html = self.tmp / "cards.html"
        dump = ("import sys; from harmony.loader import load; from harmony.cards import pdf_html\n"
                "m, _ = load(sys.argv[1]); h, cards = pdf_html(m, ['REV'])\n"
                "open(sys.argv[2], 'w', encoding='utf-8').write(h); print(len(cards))\n")
        n = subprocess.run([PY, "-c", dump, str(rules), str(html)], env=env_for(self.tree, None),
                           capture_output=True, text=True, cwd=RUN_IN).stdout.strip()
        wp = ("import sys; from weasyprint import HTML; from harmony.cards.render import TEMPLATES\n"
              "HTML(string=open(sys.argv[1], encoding='utf-8').read(), "
              "base_url=str(TEMPLATES)).write_pdf(sys.argv[2])\n")
        anchor = lambda: measure([PY, "-c", wp, str(html), str(self.tmp / "wp.pdf")],  # noqa: E731
                                 env_for(self.tree, None))
        cmd = [PY, "-m", "harmony", "cards", str(rules), "--rules", "REV", "--out",
               str(self.tmp / "cards.pdf")]
        self.pair(f"harmony cards, {n} cards, fit cache cold",
                  lambda: measure(cmd, env_for(self.tree, self.fresh_cache())), anchor)
        warm = self.fresh_cache()
        measure(cmd, env_for(self.tree, warm))
        self.pair(f"harmony cards, {n} cards, fit cache warm",
                  lambda: measure(cmd, env_for(self.tree, warm)), anchor)

    def row_scenario(self):
        self.commands.append("python3 bench/scenario_units.py N (CPU of run_scenario only)")
        for n in self.args.units:
            out = subprocess.run([PY, str(HERE / "scenario_units.py"), str(n)],
                                 env=env_for(self.tree, None), capture_output=True, text=True,
                                 cwd=RUN_IN)
            line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else out.stderr[-300:]
            print(f"scenario {n} units: {line}", flush=True)
            self.rows.append({"name": f"scenario of {n} units, 5 rulesets", "text": line})

    def row_los(self):
        self.commands.append("python3 bench/los.py --layout clustered|scattered --repeats R "
                             "(CPU, interleaved inside the process)")
        for layout in ("clustered", "scattered"):
            out = subprocess.run([PY, str(HERE / "los.py"), "--layout", layout,
                                  "--repeats", str(self.args.repeats)],
                                 env=env_for(self.tree, None), capture_output=True, text=True,
                                 cwd=RUN_IN)
            text = out.stdout.strip() or out.stderr[-300:]
            print(f"line of sight, {layout}:\n{text}", flush=True)
            lines = text.splitlines()
            summary = "; ".join(" ".join(line.split()) for line in lines[1:])
            self.rows.append({"name": f"line of sight, all pairs, {layout} map",
                              "text": summary or text})

    # ---------------------------------------------------------------- report
    def report(self) -> str:
        load1, load5, load15 = os.getloadavg()
        lines = [f"Measured {time.strftime('%d %b %Y, %H:%M UTC', time.gmtime())} on "
                 f"{platform.node() or 'this machine'}: {os.cpu_count()} CPUs, "
                 f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, "
                 f"load average {load1:.2f} / {load5:.2f} / {load15:.2f} at the end; "
                 f"{self.args.repeats} interleaved rounds, medians of CPU seconds (user + system "
                 f"of the process), peak RSS the largest of the rounds. Tree: `{self.tree}`.",
                 "", "| measure | harmony CPU s | anchor CPU s | ratio | peak MB (harmony / anchor) |",
                 "|---|---|---|---|---|"]
        for r in self.rows:
            if "text" in r:
                lines.append(f"| {r['name']} | {r['text']} | | | |")
            else:
                lines.append(f"| {r['name']} | {r['ours']:.2f} | {r['anchor']:.2f} | "
                             f"{r['ratio']:.2f}x | {r['ours_mb']:.0f} / {r['anchor_mb']:.0f} |")
        lines += ["", "Commands:", ""] + [f"* {c}" for c in self.commands]
        return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--rows", default="build,check,edit,cards,scenario,los")
    ap.add_argument("--sizes", default="500,2000,10000",
                    type=lambda s: [int(x) for x in s.split(",")])
    ap.add_argument("--cold-max", type=int, default=2000,
                    help="largest size measured with a cold fit cache too")
    ap.add_argument("--units", default="1000,2000,7000", type=lambda s: [int(x) for x in s.split(",")])
    ap.add_argument("--tree", default=str(ROOT), help="the checkout whose harmony is measured")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    global RUN_IN
    RUN_IN = Path(args.tree).resolve()
    bench = Bench(args)
    try:
        for row in args.rows.split(","):
            getattr(bench, f"row_{row}")()
    finally:
        text = bench.report()
        print(text)
        if args.out:
            args.out.write_text(text, encoding="utf-8")
        shutil.rmtree(bench.tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

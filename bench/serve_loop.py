"""Benchmark: the edit loop of ``harmony serve``, from saving a file to the open page showing it.

Run from the top of a checkout:

    python3 bench/serve_loop.py [--rounds 5] [--baseline SRC] [--rules RULES_DATA]

Copies rules_data to a temporary folder, starts ``harmony serve`` on it (a free port),
opens two pages in headless Chromium (Debian's, driven by Playwright, as the browser
tests do) and, round after round, saves an edit and times how long until the open page
shows it, without touching the browser (the page swaps in the parts its rebuild changed,
or reloads itself; an edit of a cell's words alone has the new cell swapped in before the
rebuild):

* a text edit: a word added to (then taken from) the text of the PanzerBlitz cell of
  ``spotting.rule``, on ``topics/spotting.html``, scrolled down to that row;
* a parameter edit: ``spot.transport-may-spot`` of ``spotting.limitation@PB`` set to
  false (then true again), until the engine's new ruling (``no``, then ``yes``) is in
  the PanzerBlitz cell of the outcome table of ``examples/pb-truck-spotting.html``.

Before each edit the server is left to finish (its PDFs printed, its full build done;
``settled`` in ``/.harmony-serve/status``), as when a reader reads between edits. Also
reported: the CPU seconds the server's process used from the edit to the page showing it
(less shaken by other work on the machine than the time), the seconds the server said
the rebuild took, how many of the edits reloaded their page (none when the rebuilt page
is what the swapped-in cell shows, or when its rebuild changed parts of its main content
alone), and where the text page's reader was after the
edits (the height of the edited row in the window).

``--baseline SRC`` runs the same rounds on the harmony of another source folder first
(for instance main, exported with ``git archive main | tar -x -C SRC``), side by side
in one run. A benchmark, not a test: nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

TEXT_PAGE = "topics/spotting.html"
TEXT_FILE = "spotting.yaml"
TEXT_OLD = "cannot be fired on by units that are not"
TEXT_ROW = "spotting.rule"
PARAM_PAGE = "examples/pb-truck-spotting.html"
PARAM_OLD = "params: {spot.dispersed-may-spot: false, spot.transport-may-spot: true}"
PARAM_NEW = "params: {spot.dispersed-may-spot: false, spot.transport-may-spot: false}"
RULING = ("() => { const c = document.querySelector('table.hm-outcomes td.hm-outcome[data-col=\"PB\"] .hm-ruling');"
          " return c ? c.textContent.trim() : null; }")


class Serving:
    """A ``harmony serve`` of ``src``'s harmony on ``rules``, its output lines kept with their times."""

    def __init__(self, src: Path, rules: Path, out: Path, log: Path):
        env = dict(os.environ, PYTHONPATH=str(src), PYTHONUNBUFFERED="1")
        self.err = open(log, "w", encoding="utf-8")
        self.proc = subprocess.Popen([sys.executable, "-m", "harmony", "serve", str(rules), "--port", "0",
                                      "--out", str(out)], stdout=subprocess.PIPE, stderr=self.err, text=True,
                                     cwd=out.parent, env=env)
        self.lines: list[tuple[float, str]] = []
        self.url: str | None = None
        self._ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append((time.perf_counter(), line.rstrip("\n")))
            m = re.search(r"serving (http://127\.0\.0\.1:\d+/)", line)
            if m:
                self.url = m.group(1)
                self._ready.set()
        self._ready.set()

    def wait_ready(self, within: float) -> str:
        self._ready.wait(within)
        if not self.url:
            raise SystemExit("harmony serve did not start:\n" + "\n".join(line for _, line in self.lines))
        return self.url

    def status(self) -> dict:
        with urllib.request.urlopen(self.url + ".harmony-serve/status", timeout=30) as r:
            return json.loads(r.read())

    def settle(self, within: float = 300) -> None:
        """Wait until the server has nothing left to do (an older serve says nothing of it:
        then until its output is quiet for 3 s)."""
        deadline = time.monotonic() + within
        time.sleep(0.2)
        while time.monotonic() < deadline:
            s = self.status()
            if s.get("settled", None) is True:
                return
            if "settled" not in s and (not self.lines or time.perf_counter() - self.lines[-1][0] > 3):
                return
            time.sleep(0.1)

    def said_after(self, t: float) -> str:
        """The first rebuild line the server printed after time ``t``."""
        for when, line in self.lines:
            if when >= t and line.startswith("built "):
                return line
        return ""

    def cpu(self) -> float:
        """The CPU seconds the server has used so far (its own process, not its printer)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        import signal
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.err.close()


def wait_until(page, js: str, arg, want, within: float = 120) -> bool:
    """Poll ``js(arg)`` in the page (it may be reloading) until it returns ``want``."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if page.evaluate(js, arg) == want:
                return True
        except Exception:          # the page is between two documents
            pass
        time.sleep(0.005)
    return False


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert old in text, f"{old!r} is not in {path}"
    path.write_text(text.replace(old, new, 1), "utf-8")


HAS = "m => document.body !== null && document.body.textContent.includes(m)"
ROW_TOP = ("id => { const e = document.getElementById(id);"
           " return e ? Math.round(e.getBoundingClientRect().top) : null; }")


def run(label: str, src: Path, rules_data: Path, rounds: int, browser) -> dict:
    with tempfile.TemporaryDirectory(prefix="harmony-serve-bench-") as tmp:
        rules = Path(tmp) / "rules_data"
        shutil.copytree(rules_data, rules)
        started = time.perf_counter()
        server = Serving(src, rules, Path(tmp) / "site", Path(tmp) / "serve.err")
        try:
            url = server.wait_ready(1800)
            first = time.perf_counter() - started
            server.settle()
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            text_page, param_page = context.new_page(), context.new_page()
            text_page.goto(url + TEXT_PAGE)
            param_page.goto(url + PARAM_PAGE)
            text_page.evaluate("id => document.getElementById(id).scrollIntoView()", TEXT_ROW)
            text_page.evaluate("() => window.scrollBy(0, -200)")
            row_before = text_page.evaluate(ROW_TOP, TEXT_ROW)
            times: dict[str, list[float]] = {"text": [], "param": []}
            cpu: dict[str, list[float]] = {"text": [], "param": []}
            builds: dict[str, list[str]] = {"text": [], "param": []}
            rows_after: list = []
            reloads = {"text": 0, "param": 0}
            spotting = rules / TEXT_FILE
            for k in range(rounds):
                for kind in ("text", "param"):
                    for step in (0, 1):      # the edit, then its undoing: two edits a round
                        if kind == "text":
                            word = f"plainly{k}x{step}"
                            old, new = (TEXT_OLD, TEXT_OLD.replace("cannot", f"{word} cannot")) if step == 0 else \
                                (f"plainly{k}x0 cannot", f"{word} cannot")
                            text_page.evaluate("() => { window.benchNotReloaded = true; }")
                            c0, t0 = server.cpu(), time.perf_counter()
                            edit(spotting, old, new)
                            shown = wait_until(text_page, HAS, word, True)
                        else:
                            old, new = (PARAM_OLD, PARAM_NEW) if step == 0 else (PARAM_NEW, PARAM_OLD)
                            param_page.evaluate("() => { window.benchNotReloaded = true; }")
                            c0, t0 = server.cpu(), time.perf_counter()
                            edit(spotting, old, new)
                            shown = wait_until(param_page, RULING, None, "no" if step == 0 else "yes")
                        took = time.perf_counter() - t0
                        cpu[kind].append(server.cpu() - c0)
                        if not shown:
                            raise SystemExit(f"{label}: the {kind} edit never showed")
                        times[kind].append(took)
                        if kind == "text":
                            time.sleep(0.3)       # (the page restores its place after it loads)
                            rows_after.append(text_page.evaluate(ROW_TOP, TEXT_ROW))
                        server.settle()
                        builds[kind].append(server.said_after(t0))
                        shown_on = text_page if kind == "text" else param_page
                        shown_on.wait_for_load_state("load")
                        reloads[kind] += shown_on.evaluate("() => window.benchNotReloaded !== true")
            edit(spotting, f"plainly{rounds - 1}x1 cannot", "cannot")
            context.close()
        finally:
            server.stop()
    return {"label": label, "first": first, "times": times, "cpu": cpu, "builds": builds,
            "row_before": row_before, "rows_after": rows_after, "reloads": reloads}


def seconds_said(lines: list[str]) -> list[float]:
    found = [re.search(r" in (\d+(?:\.\d+)?)s", line) for line in lines]
    return [float(m.group(1)) for m in found if m]


def report(results: list[dict]) -> None:
    print(f"load average {os.getloadavg()[0]:.1f} at the end; {os.cpu_count()} CPUs")
    print("| serve | edit | edits | to the page: median | min | max | server CPU: median | rebuild said: median |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        for kind in ("text", "param"):
            t, c = r["times"][kind], r["cpu"][kind]
            said = seconds_said(r["builds"][kind])
            print(f"| {r['label']} | {kind} | {len(t)} | {statistics.median(t):.2f} s | {min(t):.2f} s | "
                  f"{max(t):.2f} s | {statistics.median(c):.2f} s | "
                  + (f"{statistics.median(said):.2f} s |" if said else " |"))
    for r in results:
        print(f"{r['label']}: first build and start {r['first']:.0f} s; the edits that reloaded their page: "
              f"text {r['reloads']['text']} of {len(r['times']['text'])}, parameter {r['reloads']['param']} of "
              f"{len(r['times']['param'])}; the edited row {r['row_before']} px "
              f"from the top before, after each text edit: {r['rows_after']}")
        for kind in ("text", "param"):
            print(f"  {kind}: " + ", ".join(f"{x:.2f}" for x in r["times"][kind]))
            print(f"    said: {r['builds'][kind][0] if r['builds'][kind] else ''}")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--baseline", type=Path, help="the source folder of another harmony to run first")
    ap.add_argument("--rules", type=Path, default=ROOT / "rules_data")
    args = ap.parse_args(argv[1:])
    from playwright.sync_api import sync_playwright
    results = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            if args.baseline:
                results.append(run(f"baseline ({args.baseline})", args.baseline, args.rules, args.rounds, browser))
            results.append(run("this tree", ROOT, args.rules, args.rounds, browser))
        finally:
            browser.close()
    report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

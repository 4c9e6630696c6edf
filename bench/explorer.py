"""The ruling explorer in headless Chromium: time to the first ruling, and per ruling for a 20-hex move.

    PYTHONPATH=$PWD python3 bench/explorer.py [--repeats 15] [--out build/bench-explorer]

Builds the shipped rules' site (Pyodide bundled: run ``npm ci`` first) and
opens its explorer page from ``file://`` in Debian's Chromium (headless,
``--disable-background-networking``, every non-file request aborted) on a
position where a tank moves 20 hexes past three enemy units, under the four
rulesets the page starts with (the rulebooks of the family and the revision)
and under every shipped ruleset:

* ``first ruling``: from the start of navigation (``performance.now()`` of the
  page) until the page shows its first rulings: Pyodide boots, the harmony
  package and the rules are unpacked and loaded, the position is decided;
  measured on a fresh browser context each time (``--loads`` of them);
* ``per ruling``: the reader shortens the move by a hex and lengthens it back,
  ``--repeats`` times; for each 20-hex decision, as the page times itself
  (``performance.now()``): the time ``Explorer.decide`` takes in the page
  (Pyodide), the rulings table's update, and *click to shown*, from the click's
  input event to the frame that paints the new rulings (a
  ``requestAnimationFrame`` after the update); and beside it the same click to
  shown as Playwright sees it (its round trip to the browser included);
* ``CPython``: the same ``Explorer.decide`` in this process, for scale, after
  ``gc.freeze()`` as the page does once the rules are loaded.

Medians are reported with the machine and its load.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harmony.games.panzerblitz import explorer as api  # noqa: E402
from harmony.site import explorer as bundle  # noqa: E402
from harmony.site.build import build_site  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def long_move(rulesets: list[str]) -> tuple[dict, list[str]]:
    """A German tank at A3 moving 20 hexes east along row 3 (B3 ... U3) past woods and a
    town, watched by three Soviet units; and the path."""
    cols = "BCDEFGHIJKLMNOPQRSTU"
    path = [f"{c}3" for c in cols]
    units = [{"id": "tank", "name": "German tank", "side": "German", "kind": "armoured", "class": "A",
              "attack": 12, "range": 8, "defence": 8, "movement": 20, "at": "A3", "opportunity-fire": True},
             {"id": "gun-1", "side": "Soviet", "kind": "gun", "class": "A", "attack": 10, "range": 8,
              "defence": 3, "movement": 1, "at": "E6", "opportunity-fire": True},
             {"id": "gun-2", "side": "Soviet", "kind": "gun", "class": "A", "attack": 10, "range": 8,
              "defence": 3, "movement": 1, "at": "M1", "opportunity-fire": True},
             {"id": "rifles", "side": "Soviet", "kind": "infantry", "class": "I", "attack": 6, "range": 3,
              "defence": 6, "movement": 3, "at": "R5", "opportunity-fire": True}]
    pos = {"map": {"columns": 22, "rows": 6, "hexes": {"G3": "woods", "H3": "woods", "L4": "town",
                                                        "M4": "town", "Q2": "woods"}},
           "units": units, "start": {"side": "German", "phase": "movement"}, "rulesets": rulesets,
           "steps": [{"move": {"unit": "tank", "path": path}}]}
    return pos, path


def settled(page) -> None:
    """Wait until the page has decided the position in its address and painted the rulings."""
    page.wait_for_function("() => { const r = document.getElementById('hm-explorer'); "
                           "return r.hasAttribute('data-failed') || "
                           "(location.hash === '#position=' + r.getAttribute('data-decided-for') && "
                           "r.getAttribute('data-shown') === r.getAttribute('data-decided')); }",
                           timeout=180_000)
    assert page.get_attribute("#hm-explorer", "data-failed") is None, page.inner_text("#hm-explorer")


def measure(browser, site: Path, pos: dict, path: list[str], loads: int, repeats: int) -> dict:
    url = (site / "explorer.html").as_uri() + "#position=" + api.encode(pos)
    first = []
    for i in range(loads):
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "data:", "blob:"))
                      else r.abort())
        page = context.new_page()
        page.goto(url)
        settled(page)
        first.append(float(page.get_attribute("#hm-explorer", "data-first-ruling-ms")))
        if i < loads - 1:
            context.close()
    questions = page.locator("table.hm-ex-table tr[data-question]").count()
    page.locator('input[data-mode="move"]').check()
    page.locator('g[data-unit="tank"]').click()
    timed: dict[str, list[float]] = {"decide": [], "render": [], "shown": [], "round_trip": []}
    for _ in range(repeats):
        page.locator(f'polygon[data-hex="{path[-2]}"]').click(force=True)
        settled(page)
        t0 = time.perf_counter()
        page.locator(f'polygon[data-hex="{path[-1]}"]').click(force=True)
        settled(page)
        timed["round_trip"].append((time.perf_counter() - t0) * 1000)
        for key in ("decide", "render", "shown"):
            timed[key].append(float(page.get_attribute("#hm-explorer", f"data-{key}-ms")))
    assert api.decode(page.evaluate("location.hash")) == pos
    assert page.locator("table.hm-ex-table tr[data-question]").count() == questions
    context.close()
    out = {key: statistics.median(values) for key, values in timed.items()}
    out.update(first=statistics.median(first), first_all=first, questions=questions)
    return out


def cpython(pos: dict, repeats: int) -> float:
    ex = api.Explorer(str(ROOT / "rules_data"))
    gc.collect()
    gc.freeze()         # as the page does once the rules are loaded
    text = json.dumps(pos)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = json.loads(ex.decide(text))
        times.append((time.perf_counter() - t0) * 1000)
        assert "error" not in out, out
    return statistics.median(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--loads", type=int, default=3)
    ap.add_argument("--out", default=None, help="site folder (default: a temporary one)")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright
    if bundle.find_pyodide() is None:
        print("no Pyodide: run `npm ci` first", file=sys.stderr)
        return 2
    site = Path(args.out or tempfile.mkdtemp(prefix="harmony-bench-explorer-")) / "site"
    build_site(ROOT / "rules_data", site)
    catalogue = json.loads(api.Explorer(str(ROOT / "rules_data")).catalogue())["rulesets"]
    family = [r["name"] for r in catalogue if r["kind"] in ("canonical", "revision")]
    every = [r["name"] for r in catalogue]
    load = os.getloadavg()
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, {platform.platform()}; "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; Pyodide "
          f"{json.loads((bundle.find_pyodide() / 'package.json').read_text())['version']}")
    print("| rulesets | questions | first ruling (ms, median of loads) | decide in page (ms) "
          "| table update (ms) | click to shown, in page (ms) | click to shown, Playwright (ms) "
          "| CPython decide (ms) | page/CPython |")
    print("|---|---|---|---|---|---|---|---|---|")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        for name, rulesets in (("family: " + ", ".join(family), family), ("every: " + ", ".join(every), every)):
            pos, path = long_move(rulesets)
            r = measure(browser, site, pos, path, args.loads, args.repeats)
            c = cpython(pos, args.repeats)
            print(f"| {name} | {r['questions']} | {r['first']:.0f} ({', '.join(f'{x:.0f}' for x in r['first_all'])}) "
                  f"| {r['decide']:.0f} | {r['render']:.1f} | {r['shown']:.0f} | {r['round_trip']:.0f} "
                  f"| {c:.0f} | {r['decide'] / c:.1f} |", flush=True)
        browser.close()
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

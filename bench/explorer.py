"""The ruling explorer in headless Chromium: the first ruling beside bare Pyodide, and each ruling of a 20-hex move.

    PYTHONPATH=$PWD python3 bench/explorer.py [--rounds 7] [--loads 3] [--repeats 15]
                                              [--out build/bench-explorer | --site SITE]

Builds the shipped rules' site (Pyodide bundled: run ``npm ci`` first) and
opens its explorer page from ``file://`` in Debian's Chromium (headless,
``--disable-background-networking``, every non-file request aborted) on a
position where a tank moves 20 hexes past three enemy units, under the four
rulesets the page starts with (the rulebooks of the family and the revision)
and under every shipped ruleset:

* ``first ruling beside bare Pyodide`` (issue 30): ``--rounds`` rounds, each
  loading, in a fresh browser context (a cold cache), bare Pyodide's page and the
  explorer, one after the other (which goes first alternates from round to round).
  *Bare Pyodide* is the pyodide npm package served over loopback HTTP (a
  ``ThreadingHTTPServer`` of this process; ``application/wasm``, so the binary is
  compiled as it streams) to a page that calls ``loadPyodide()`` and runs one line
  of Python: the time, from the start of navigation, of the frame after that line
  answered. The *explorer* is the built page from ``file://`` (every other request
  aborted) on the 20-hex move below, a position no page links, in its address:
  the frame that paints its first rulings (``data-first-ruling-ms``), and when it
  drew the position (``data-drawn-ms``). Medians, and their ratio;
* ``first ruling``: the same explorer load, on a fresh browser context each
  time (``--loads`` of them), for the two sets of rulesets below;
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
import functools
import gc
import http.server
import json
import os
import platform
import statistics
import sys
import tempfile
import threading
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


BARE_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>bare Pyodide</title></head>
<body><p id="out">loading</p>
<script src="pyodide.js"></script>
<script>
loadPyodide().then(function (py) {
  document.getElementById("out").textContent = String(py.runPython("1 + 1"));
  requestAnimationFrame(function () {
    document.body.setAttribute("data-first-line-ms", performance.now().toFixed(0));
  });
}, function (e) { document.body.setAttribute("data-failed", String(e)); });
</script></body></html>
"""
#: the files of the pyodide npm package bare Pyodide's page loads
BARE_FILES = ("pyodide.js", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm",
                      ".mjs": "text/javascript", ".js": "text/javascript", ".json": "application/json"}

    def log_message(self, *args) -> None:
        pass


def serve_bare_pyodide(pyodide: Path, folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Bare Pyodide's page and the package's files in ``folder``, served over loopback HTTP
    from a thread of this process: the server and the page's address."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in BARE_FILES:
        if not (folder / name).exists():
            os.symlink(pyodide / name, folder / name)
    (folder / "bare.html").write_text(BARE_PAGE, "utf-8")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/bare.html"


def offline_context(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "data:", "blob:"))
                  else r.abort())
    return context


def first_line(browser, url: str) -> float:
    """Bare Pyodide, cold: ms from navigation to the frame after its first line of Python."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = context.new_page()
        page.goto(url)
        page.wait_for_selector("body[data-first-line-ms], body[data-failed]", timeout=180_000)
        assert page.get_attribute("body", "data-failed") is None, page.get_attribute("body", "data-failed")
        return float(page.get_attribute("body", "data-first-line-ms"))
    finally:
        context.close()


def first_ruling(browser, url: str) -> tuple[float, float, float, float]:
    """The explorer, cold, offline: ms from navigation to the frame painting its first
    rulings, to the position drawn, to Pyodide started and to the engine read (NaN where
    an older page does not say)."""
    context = offline_context(browser)
    try:
        page = context.new_page()
        page.goto(url)
        settled(page)

        def when(name: str) -> float:
            got = page.get_attribute("#hm-explorer", f"data-{name}-ms")
            return float(got) if got is not None else float("nan")
        return (when("first-ruling"), when("drawn"), when("pyodide"), when("engine"),
                page.get_attribute("#hm-explorer", "data-snapshot") or "(not said)")
    finally:
        context.close()


def side_by_side(browser, bare_url: str, explorer_url: str, rounds: int) -> dict:
    """``rounds`` rounds of bare Pyodide and the explorer, one after the other, the first of
    the two alternating: each one's times, and the medians."""
    bare, ruling, drawn, started, engine, snapshot = [], [], [], [], [], []
    for r in range(rounds):
        for which in (("bare", "explorer") if r % 2 == 0 else ("explorer", "bare")):
            if which == "bare":
                bare.append(first_line(browser, bare_url))
            else:
                got = first_ruling(browser, explorer_url)
                ruling.append(got[0])
                drawn.append(got[1])
                started.append(got[2])
                engine.append(got[3])
                snapshot.append(got[4])

    def median(values: list[float]) -> float:
        return statistics.median([v for v in values if v == v] or [float("nan")])
    return {"bare": bare, "ruling": ruling, "drawn": drawn, "snapshot": sorted(set(snapshot)),
            "median_bare": statistics.median(bare), "median_ruling": statistics.median(ruling),
            # each round's two loads ran one after the other, under much the same load
            "median_round": statistics.median(r / b for r, b in zip(ruling, bare)),
            "median_drawn": median(drawn),
            # after Pyodide started: the engine read, then the first ruling decided and shown
            "median_engine_read": median([e - s for e, s in zip(engine, started)]),
            "median_after_engine": median([r - e for r, e in zip(ruling, engine)])}


def measure(browser, site: Path, pos: dict, path: list[str], loads: int, repeats: int) -> dict:
    url = (site / "explorer.html").as_uri() + "#position=" + api.encode(pos)
    first = []
    for i in range(loads):
        context = offline_context(browser)
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
    ap.add_argument("--rounds", type=int, default=7, help="rounds of bare Pyodide beside the explorer")
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--loads", type=int, default=3, help="0: measure the first ruling beside bare Pyodide only")
    ap.add_argument("--out", default=None, help="site folder (default: a temporary one)")
    ap.add_argument("--site", default=None, help="a site already built from the shipped rules (no build)")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright
    if bundle.find_pyodide() is None:
        print("no Pyodide: run `npm ci` first", file=sys.stderr)
        return 2
    if args.site:
        site = Path(args.site).resolve()
    else:
        site = Path(args.out or tempfile.mkdtemp(prefix="harmony-bench-explorer-")) / "site"
        build_site(ROOT / "rules_data", site)
    catalogue = json.loads(api.Explorer(str(ROOT / "rules_data")).catalogue())["rulesets"]
    family = [r["name"] for r in catalogue if r["kind"] in ("canonical", "revision")]
    every = [r["name"] for r in catalogue]
    load = os.getloadavg()
    pyodide = bundle.find_pyodide()
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, {platform.platform()}; "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; Pyodide "
          f"{json.loads((pyodide / 'package.json').read_text())['version']}")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        print(f"Chromium {browser.version}")
        server, bare_url = serve_bare_pyodide(pyodide, site.parent / "bare-pyodide")
        try:
            pos, _ = long_move(family)
            url = (site / "explorer.html").as_uri() + "#position=" + api.encode(pos)
            r = side_by_side(browser, bare_url, url, args.rounds)
        finally:
            server.shutdown()
        print("| first answer, cold (ms from navigation; median of rounds) | bare Pyodide, first line | "
              "explorer, position drawn | explorer, first ruling | explorer / bare Pyodide (of the medians; "
              "median of the rounds') |")
        print("|---|---|---|---|---|")
        bare, ruling = (", ".join(f"{x:.0f}" for x in r[k]) for k in ("bare", "ruling"))
        print(f"| {args.rounds} rounds, alternating | {r['median_bare']:.0f} ({bare}) | {r['median_drawn']:.0f} "
              f"| {r['median_ruling']:.0f} ({ruling}) | {r['median_ruling'] / r['median_bare']:.2f}x; "
              f"{r['median_round']:.2f}x |", flush=True)
        print(f"\nAfter Pyodide started (medians of the explorer's loads): its engine imported and the "
              f"rules read in {r['median_engine_read']:.0f} ms, then the first ruling decided and painted "
              f"{r['median_after_engine']:.0f} ms later. Pyodide's start, from its memory snapshot "
              f"(harmony.site.snapshot): {', '.join(r['snapshot'])}.", flush=True)
        if args.loads > 0:
            print()
            print("| rulesets | questions | first ruling (ms, median of loads) | decide in page (ms) "
                  "| table update (ms) | click to shown, in page (ms) | click to shown, Playwright (ms) "
                  "| CPython decide (ms) | page/CPython |")
            print("|---|---|---|---|---|---|---|---|---|")
            for name, rulesets in (("family: " + ", ".join(family), family), ("every: " + ", ".join(every), every)):
                pos, path = long_move(rulesets)
                m = measure(browser, site, pos, path, args.loads, args.repeats)
                c = cpython(pos, args.repeats)
                loads = ", ".join(f"{x:.0f}" for x in m["first_all"])
                print(f"| {name} | {m['questions']} | {m['first']:.0f} ({loads}) "
                      f"| {m['decide']:.0f} | {m['render']:.1f} | {m['shown']:.0f} | {m['round_trip']:.0f} "
                      f"| {c:.0f} | {m['decide'] / c:.1f} |", flush=True)
        browser.close()
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``harmony serve`` under a flood of idle connections, and the explorer given hostile links.

    PYTHONPATH=$PWD python3 bench/hostile_clients.py [--idle 1100] [--skip-explorer]

Two measurements, each side by side in one run:

* **serve**: ``harmony serve`` of a starter harmony (``harmony init``, built
  without the explorer's bundle) runs with a limit of 1,024 open files (the
  usual one). The time to answer a real request (median of 5) and the sockets
  the server holds, with no other client, then with ``--idle`` connections open
  that never send a byte (the old server gave each one a thread and an open
  file until it failed with "Too many open files" at about 1,050). Every
  connection goes to 127.0.0.1.
* **explorer**: the shipped rules' site (Pyodide bundled: run ``npm ci`` first)
  opened from ``file://`` in Debian's Chromium; for each link, the time from
  putting it in the address to the page showing its position (a good link) or
  saying what is wrong and showing the default position (a hostile one), as
  Playwright sees it (median of 3). The old page spent 33 s on the
  100,000 x 100,000 map and stopped ("could not start") on deep nesting.
"""
from __future__ import annotations

import argparse
import base64
import os
import platform
import re
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harmony.games.panzerblitz import explorer as api  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def sockets_of(pid: int) -> int:
    count = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            count += os.readlink(fd).startswith("socket:")
        except OSError:
            pass
    return count


def answer_ms(url: str, times: int = 5) -> float:
    spent = []
    for _ in range(times):
        t0 = time.perf_counter()
        with urllib.request.urlopen(url, timeout=60) as r:
            r.read()
        spent.append((time.perf_counter() - t0) * 1000)
    return statistics.median(spent)


def bench_serve(idle_count: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, idle_count + 300)), hard))
    tmp = Path(tempfile.mkdtemp(prefix="harmony-bench-serve-"))
    subprocess.run([sys.executable, "-m", "harmony", "init", str(tmp / "rules")], check=True,
                   capture_output=True, cwd=ROOT)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    env = dict(os.environ, HARMONY_PYODIDE="", PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "harmony", "serve", str(tmp / "rules"), "--port", "0",
                             "--out", str(tmp / "out")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=tmp, env=env, preexec_fn=limit)
    try:
        url = None
        deadline = time.monotonic() + 120
        while url is None and time.monotonic() < deadline and proc.stdout is not None:
            m = re.search(r"serving (http://127\.0\.0\.1:(\d+)/)", proc.stdout.readline())
            if m:
                url, port = m.group(1), int(m.group(2))
        if url is None:
            raise SystemExit("harmony serve did not start")
        quiet = answer_ms(url)
        quiet_sockets = sockets_of(proc.pid)
        idle = []
        t0 = time.monotonic()
        while len(idle) < idle_count and time.monotonic() - t0 < 60:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            idle.append(s)
        time.sleep(1.0)
        held = sockets_of(proc.pid)
        flooded = answer_ms(url)
        alive = proc.poll() is None
        for s in idle:
            s.close()
        print("| serve, limit 1,024 open files | real request (ms, median of 5) | sockets the server holds "
              "| still serving |")
        print("|---|---|---|---|")
        print(f"| no other client | {quiet:.1f} | {quiet_sockets} | yes |")
        print(f"| {len(idle):,} idle connections open | {flooded:.1f} | {held} | {'yes' if alive else 'NO'} |")
        print(f"ratio flooded/quiet: {flooded / quiet:.1f}x", flush=True)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def _b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def bench_explorer() -> None:
    from playwright.sync_api import sync_playwright

    from harmony.site.build import build_site
    site = Path(tempfile.mkdtemp(prefix="harmony-bench-links-")) / "site"
    build_site(ROOT / "rules_data", site)
    model = api.Explorer(str(ROOT / "rules_data")).model
    good = api.position_of(model, "rev-figure-1")
    huge = dict(good, map={"columns": 100_000, "rows": 100_000})
    off = dict(good, units=[dict(u, at="ZZ999") for u in good["units"]])
    links = [("a good link (rev-figure-1)", api.encode(good)),
             ("a 100,000 x 100,000 map", api.encode(huge)),
             ("10,000 nested lists", _b64("[" * 10_000 + "]" * 10_000)),
             ("units off the map", api.encode(off)),
             ("a 1.3 MB link (past the limit)", "A" * (api.MAX_LINK + 4))]
    print("| explorer link | put in the address to shown (ms, median of 3) | what the page says |")
    print("|---|---|---|")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        page = browser.new_page()
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(("file:", "data:", "blob:"))
                   else route.abort())
        page.goto((site / "explorer.html").as_uri())
        page.wait_for_selector("#hm-explorer[data-ready], #hm-explorer[data-failed]", timeout=180_000)
        for what, code in links:
            spent = []
            for k in range(3):
                page.evaluate("() => { location.hash = ''; }")
                before = int(page.get_attribute("#hm-explorer", "data-links") or 0)
                t0 = time.perf_counter()
                page.evaluate("c => { location.hash = '#position=' + c; }", code)
                page.wait_for_function(f"() => Number(document.getElementById('hm-explorer').getAttribute("
                                       f"'data-links')) > {before} && location.hash === '#position=' + "
                                       "document.getElementById('hm-explorer').getAttribute('data-decided-for')",
                                       timeout=180_000)
                spent.append((time.perf_counter() - t0) * 1000)
            said = page.get_attribute("#hm-explorer", "data-link-error") or "(its position)"
            print(f"| {what} | {statistics.median(spent):.0f} | {said[:90]} |", flush=True)
        browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle", type=int, default=1100)
    parser.add_argument("--skip-explorer", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs; load average {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f}")
    bench_serve(args.idle)
    if not args.skip_explorer:
        bench_explorer()
    return 0


if __name__ == "__main__":
    sys.exit(main())

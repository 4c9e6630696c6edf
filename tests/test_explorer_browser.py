"""The ruling explorer (issue 18) in a real browser: Debian's Chromium, headless, driven by Playwright.

The module builds one site, with Pyodide bundled, by running ``harmony serve``
into a temporary folder; the tests open its explorer page both from
``file://`` and from that server, with every request that is neither blocked
(and recorded: none may be attempted). Pyodide takes seconds to boot, so one
page, opened once from ``file://``, serves the tests that edit a position, in
the order they are written. The rulings the page shows are compared with
:mod:`harmony.games.panzerblitz.explorer` run in Python on the position the page's address holds.
Screenshots go to ``$HARMONY_SCREENSHOTS`` or to ``_screenshots/`` in the built site.
"""
from __future__ import annotations

import base64
import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harmony.games.panzerblitz import explorer as api
from harmony.games.panzerblitz.hexgrid import adjacent, parse_label
from harmony.site import explorer as bundle
from test_explorer_links import MALFORMED

playwright = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules_data"
#: Pyodide's boot and the first ruling, on a loaded 2-CPU machine, with room to spare
BOOT_MS = 120_000


@pytest.fixture(scope="module")
def site(served) -> Path:      # served: one ``harmony serve`` a run (tests/conftest.py)
    return served[1]


@pytest.fixture(scope="module")
def shots(site) -> Path:
    folder = Path(os.environ.get("HARMONY_SCREENSHOTS") or site / "_screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def explorer():
    return api.Explorer(str(RULES))




class Offline:
    """A browser context whose every request outside ``allowed`` is aborted and recorded."""

    def __init__(self, chromium, allowed: str, **options):
        self.context = chromium.new_context(accept_downloads=True, **options)
        self.attempted: list[str] = []
        self.errors: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.allowed = allowed

    def _route(self, route):
        url = route.request.url
        if url.startswith(self.allowed) or url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            self.attempted.append(url)
            route.abort()


def ready(page) -> None:
    page.wait_for_selector("#hm-explorer[data-ready], #hm-explorer[data-failed]", timeout=BOOT_MS)
    assert page.get_attribute("#hm-explorer", "data-failed") is None, page.inner_text("#hm-explorer")
    settled(page)


def settled(page) -> None:
    """Wait until the rulings shown are those of the position in the address."""
    page.wait_for_function("() => { const r = document.getElementById('hm-explorer'); "
                           "return location.hash === '#position=' + r.getAttribute('data-decided-for'); }",
                           timeout=BOOT_MS)


def position(page) -> dict:
    return api.decode(page.evaluate("location.hash"))


def shown(page) -> list[dict]:
    """The rulings table as the page shows it: per question, per ruleset, the word and reasons."""
    return page.evaluate("""() => [...document.querySelectorAll('table.hm-ex-table tr[data-question]')]
      .map(tr => ({id: tr.dataset.question, split: tr.classList.contains('hm-split'),
                   cells: Object.fromEntries([...tr.querySelectorAll('td[data-ruleset]')].map(td =>
                     [td.dataset.ruleset, {word: td.querySelector('.hm-word').textContent,
                      reasons: [...td.querySelectorAll('.hm-ex-clause')].map(a => a.dataset.clause)}]))}))""")


def computed(explorer, pos: dict) -> list[dict]:
    """The same table computed by harmony.games.panzerblitz.explorer in Python."""
    result = json.loads(explorer.decide(json.dumps(pos)))
    assert "error" not in result, result
    out = []
    for q in result["questions"]:
        cells = {}
        for rs in result["rulesets"]:
            c = q["rulings"][rs]
            cells[rs] = ({"word": "refused", "reasons": [c["clause"]] if c.get("clause") else []}
                         if "refused" in c else {"word": c["words"], "reasons": list(c["reasons"])})
        words = [c["word"] for c in cells.values()]
        out.append({"id": q["id"], "split": len(set(words)) > 1, "cells": cells})
    return out


@pytest.fixture(scope="module")
def offline_page(browser, site):
    """The explorer page opened once from file://, with the network blocked."""
    session = Offline(browser, "file://", viewport={"width": 1400, "height": 1000})
    session.page.goto((site / "explorer.html").as_uri())
    ready(session.page)
    yield session
    session.context.close()


# ---------------------------------------------------------------- the page and its bundle

def test_only_the_explorer_page_loads_the_bundle(site):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 30
    heavy = [p.relative_to(site).as_posix() for p in pages
             if p.name != "explorer.html" and any(s in p.read_text("utf-8")
                                                   for s in ("_explorer/", "explorer.js", "explorer.css"))]
    assert heavy == []
    page = (site / "explorer.html").read_text("utf-8")
    assert '<script src="_static/explorer.js">' in page and 'data-bundle="_explorer/"' in page
    assert sorted(p.name for p in (site / bundle.FOLDER).iterdir()) == \
        ["harmony.js", "pyodide-asm.js", "pyodide.js", "runtime.js", "snapshot.js"]
    # the explorer is in the site's navigation
    assert 'href="explorer.html"' in (site / "index.html").read_text("utf-8")


def test_place_move_and_fire_give_the_engines_rulings_under_every_ruleset(offline_page, explorer, shots):
    page = offline_page.page
    every = [r["name"] for r in json.loads(explorer.catalogue())["rulesets"]]
    for name in every:
        page.locator(f'input[data-ruleset="{name}"]').check()
        settled(page)
    assert position(page)["rulesets"] == every
    # place a Soviet tank on an empty hex
    page.locator('input[data-mode="place"]').check()
    page.locator('select[data-field="side"]').select_option("Soviet")
    page.locator('select[data-field="kind"]').select_option("armoured")
    page.locator('select[data-field="class"]').select_option("A")
    for field, value in (("attack", "12"), ("range", "8"), ("defence", "8"), ("movement", "6")):
        page.locator(f'input[data-field="{field}"]').fill(value)
        page.locator(f'input[data-field="{field}"]').dispatch_event("change")
    page.locator('polygon[data-hex="G6"]').click()
    settled(page)
    placed = [u for u in position(page)["units"] if u["at"] == "G6"]
    assert len(placed) == 1 and placed[0]["side"] == "Soviet" and placed[0]["kind"] == "armoured"
    assert (placed[0]["attack"], placed[0]["range"], placed[0]["defence"], placed[0]["movement"]) == (12, 8, 8, 6)
    assert placed[0]["opportunity-fire"] is True
    # move the German platoon hex by hex
    mover = next(u for u in position(page)["units"] if u["side"] == "German")
    page.locator('input[data-mode="move"]').check()
    page.locator(f'g[data-unit="{mover["id"]}"]').click()
    path = ["D3", "E4", "F4"]
    assert all(adjacent(parse_label(a), parse_label(b)) for a, b in zip([mover["at"]] + path, path))
    for hex_ in path:
        page.locator(f'polygon[data-hex="{hex_}"]').click(force=True)
    settled(page)
    pos = position(page)
    assert pos["steps"][-1] == {"move": {"unit": mover["id"], "path": path}}
    table = shown(page)
    assert table == computed(explorer, pos)
    assert {q["id"] for q in table} >= {"spotted@E4", "opfire@F4"}
    assert any(q["split"] for q in table)   # the rulebooks disagree somewhere here
    assert page.locator("table.hm-ex-table tr.hm-split").count() == sum(q["split"] for q in table)
    # each reason links to its clause's row
    link = page.locator("table.hm-ex-table a.hm-ex-clause").first
    cid = link.get_attribute("data-clause")
    assert link.get_attribute("href") == bundle.clause_links(explorer.model)[cid]
    # then let the tank fire at the platoon
    page.locator('input[data-mode="fire"]').check()
    page.locator(f'g[data-unit="{placed[0]["id"]}"]').click()
    page.locator(f'g[data-unit="{mover["id"]}"]').click()
    settled(page)
    pos = position(page)
    assert pos["steps"][-1] == {"fire": {"units": [placed[0]["id"]], "target": mover["id"], "result": "none"}}
    assert shown(page) == computed(explorer, pos)
    for width in (1400, 1024, 390):
        page.set_viewport_size({"width": width, "height": 1000})
        page.screenshot(path=str(shots / f"explorer-{width}.png"), full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        # the rulings never scroll sideways in their box: on a phone each question is a card
        assert page.evaluate("(() => { const b = document.querySelector('div.hm-ex-tablebox'); "
                             "return b.scrollWidth <= b.clientWidth + 1; })()"), width
    # on a phone every ruling is labelled with its ruleset, the table's head being hidden
    page.set_viewport_size({"width": 390, "height": 1000})
    labels = page.evaluate("""[...document.querySelectorAll('table.hm-ex-table td[data-ruleset]')]
      .map(td => [td.dataset.ruleset, getComputedStyle(td, '::before').content])""")
    assert labels and all(content == f'"{rs}"' for rs, content in labels)
    assert page.evaluate("document.querySelector('table.hm-ex-table thead').getBoundingClientRect().height") <= 1
    page.set_viewport_size({"width": 1400, "height": 1000})
    assert page.evaluate("getComputedStyle(document.querySelector('table.hm-ex-table td'), '::before').content") \
        in ("none", "normal")
    assert offline_page.attempted == [] and offline_page.errors == []


def test_the_page_and_python_encode_positions_alike(offline_page):
    sample = {"units": [{"id": "a", "name": "Pz IV «Ausf. H» — 75 mm", "at": "B2", "attack": 7}],
              "map": {"columns": 3, "rows": 2, "hexes": {"A1": "woods"}}, "rulesets": ["PB", "PL+opportunity-fire"]}
    codec = "harmonyExplorerCodec"
    assert offline_page.page.evaluate(f"p => {codec}.encode(p)", sample) == api.encode(sample)
    assert offline_page.page.evaluate(f"t => {codec}.decode(t)", api.encode(sample)) == sample


def test_a_downloaded_scenario_passes_harmony_check(offline_page, explorer, rules_copy):
    page = offline_page.page
    settled(page)   # the download is of the position decided, which may trail the address
    pos = position(page)
    if "fire" in pos["steps"][-1]:
        # the Soviet tank fired in the German movement phase: a scenario must play under
        # every ruleset, so the page says why it cannot be saved, and saves nothing
        refused = json.loads(explorer.scenario_yaml(json.dumps(pos), "explorer-position", "A position set up "
                                                    "in the explorer"))["error"]
        page.locator("button.hm-ex-download").click()
        assert page.inner_text("p.hm-ex-status") == \
            f"This position cannot be saved as a scenario: {refused['message']} (at {refused['path']})"
        page.locator("button.hm-ex-undo").click()
        settled(page)
        pos = position(page)
    assert "move" in pos["steps"][-1]
    expected = explorer.scenario_yaml(json.dumps(pos), "explorer-position", "A position set up in the explorer")
    assert expected.startswith("scenario:"), expected
    with page.expect_download() as info:
        page.locator("button.hm-ex-download").click()
    target = rules_copy / "scenarios" / "explorer-position.yaml"
    info.value.save_as(target)
    text = target.read_text("utf-8")
    assert text.startswith("scenario:")
    assert text == expected
    run = subprocess.run([sys.executable, "-m", "harmony", "check", str(rules_copy)], capture_output=True,
                         text=True, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 errors, 0 warnings" in run.stdout, run.stdout
    assert offline_page.attempted == []


def test_a_painted_hexside_is_in_the_link_the_rulings_and_the_download(offline_page, explorer, rules_copy):
    """The reader paints a woods hexside by clicking near the side between two hexes: it is in
    the address, drawn on the board, decided by the engine, and saved in the scenario file;
    the same click again clears it. (It starts from the default position, whatever the tests
    before it left: a scenario file is saved from it, and it has no step a ruleset refuses.)"""
    page = offline_page.page
    page.locator("button", has_text="Start afresh").click()
    settled(page)
    assert not any("fire" in step for step in position(page)["steps"])
    page.locator('input[data-mode="hexside"]').check()
    page.locator("select.hm-ex-hexside").select_option("woods-side")
    hex_ = page.locator('polygon[data-hex="E5"]')
    box = hex_.bounding_box()
    near_top = {"x": box["width"] / 2, "y": box["height"] * 0.08}   # the side E5 shares with E4
    hex_.click(position=near_top, force=True)
    settled(page)
    pos = position(page)
    assert pos["map"]["hexsides"] == [{"between": ["E4", "E5"], "type": "woods-side"}]
    drawn = page.locator("line.hm-ex-hexside")
    assert drawn.count() == 1 and drawn.get_attribute("data-hexside") == "E4|E5"
    assert drawn.get_attribute("data-type") == "woods-side"
    assert shown(page) == computed(explorer, pos)
    assert float(page.get_attribute("#hm-explorer", "data-decide-ms")) > 0
    page.wait_for_function("() => { const r = document.getElementById('hm-explorer'); "
                           "return r.getAttribute('data-shown') === r.getAttribute('data-decided'); }")
    assert float(page.get_attribute("#hm-explorer", "data-shown-ms")) >= \
        float(page.get_attribute("#hm-explorer", "data-decide-ms"))
    expected = explorer.scenario_yaml(json.dumps(pos), "explorer-position", "A position set up in the explorer")
    assert "woods-side" in expected
    with page.expect_download() as info:
        page.locator("button.hm-ex-download").click()
    target = rules_copy / "scenarios" / "explorer-position.yaml"
    info.value.save_as(target)
    assert target.read_text("utf-8") == expected
    run = subprocess.run([sys.executable, "-m", "harmony", "check", str(rules_copy)], capture_output=True,
                         text=True, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert run.returncode == 0 and "0 errors, 0 warnings" in run.stdout, run.stdout + run.stderr
    # the same side clicked again is cleared
    hex_.click(position=near_top, force=True)
    settled(page)
    assert "hexsides" not in position(page)["map"]
    assert page.locator("line.hm-ex-hexside").count() == 0
    assert shown(page) == computed(explorer, position(page))
    assert offline_page.attempted == [] and offline_page.errors == []


def test_links_the_page_did_not_write_open_the_default_position_and_say_why(browser, site, explorer, shots):
    """Opened with a 100,000 x 100,000 map in its address, the page starts, says what is wrong
    and shows the default position; then every other malformed link of
    ``test_explorer_links.malformed_links`` (truncated, not JSON, nulls everywhere, wrong types,
    huge maps, deep nesting, units off the map, unknown kinds, bad steps ...) is put in the
    address in turn: each is refused with a message, the default position is shown, and the
    page never stops. A good link after them opens as it is."""
    first = next(code for what, code in MALFORMED if what == "a 100000 x 100000 map")
    session = Offline(browser, "file://", viewport={"width": 1200, "height": 900})
    try:
        page = session.page
        page.goto((site / "explorer.html").as_uri() + "#position=" + first)
        ready(page)
        root = "#hm-explorer"
        assert "100000" in (page.get_attribute(root, "data-link-error") or "")
        assert page.get_attribute(root, "data-links") == "1"
        page.locator("button", has_text="Start afresh").click()
        settled(page)
        default = position(page)
        assert default["map"] == {"columns": 8, "rows": 7, "hexes": {"C3": "woods", "D3": "woods", "E4": "town"}}
        refused = []
        for k, (what, code) in enumerate(MALFORMED):
            before = int(page.get_attribute(root, "data-links"))
            page.evaluate("c => { location.hash = '#position=' + c; }", code)
            page.wait_for_function(f"() => Number(document.getElementById('hm-explorer')"
                                   f".getAttribute('data-links')) > {before}", timeout=60_000)
            settled(page)
            said = page.get_attribute(root, "data-link-error")
            status = page.inner_text("p.hm-ex-status")
            assert said and status == said and "cannot be opened" in said, what
            assert "could not start" not in page.inner_text(root), what
            assert page.get_attribute(root, "data-failed") is None, what
            assert position(page) == default, what
            assert page.locator("polygon[data-hex]").count() == 8 * 7, what
            refused.append((what, said))
        assert len(refused) == len(MALFORMED) >= 44
        page.screenshot(path=str(shots / "explorer-bad-link.png"), full_page=True)
        # the message is in the live region the reader's assistive technology reads
        assert page.get_attribute("p.hm-ex-status", "role") == "status"
        # a good link then opens as it is, and the message goes
        good = api.position_of(explorer.model, "rev-figure-1")
        page.evaluate("c => { location.hash = '#position=' + c; }", api.encode(good))
        page.wait_for_function("() => !document.getElementById('hm-explorer').hasAttribute('data-link-error')")
        settled(page)
        assert position(page) == good
        assert page.inner_text("p.hm-ex-status") == ""
        assert session.attempted == [] and session.errors == []
    finally:
        session.context.close()


def test_the_position_is_shown_at_once_and_said_to_be_deciding(browser, site, explorer):
    """Issue 30: the page draws the position of its address from its small script before
    Pyodide has started (here Pyodide's binary is held back until the page has been looked
    at): the board with its units, the controls waiting, the rulings saying they are being
    decided; then the engine decides it. A link the engine refuses, drawn first, gives way
    to the default position with the reason."""
    own = {"map": {"columns": 6, "rows": 5, "hexes": {"C3": "woods"}},
           "units": [{"id": "tank", "side": "German", "kind": "armoured", "class": "A", "attack": 12, "range": 8,
                      "defence": 8, "movement": 6, "at": "B2"},
                     {"id": "gun", "side": "Soviet", "kind": "gun", "class": "A", "attack": 10, "range": 8,
                      "defence": 3, "movement": 1, "at": "E4"}],
           "start": {"side": "German", "phase": "movement"}, "rulesets": ["PB", "REV"],
           "steps": [{"move": {"unit": "tank", "path": ["C2", "C3"]}}]}
    session = Offline(browser, "file://", viewport={"width": 1200, "height": 900})
    held = []
    session.context.route("**/_explorer/runtime.js", lambda route: held.append(route))
    try:
        page = session.page
        page.goto((site / "explorer.html").as_uri() + "#position=" + api.encode(own),
                  wait_until="domcontentloaded")
        page.wait_for_selector("#hm-explorer[data-drawn-ms]", timeout=BOOT_MS)
        assert len(held) == 1 and page.get_attribute("#hm-explorer", "data-ready") is None
        assert page.locator("polygon[data-hex]").count() == 6 * 5
        assert sorted(page.eval_on_selector_all("g[data-unit]", "gs => gs.map(g => g.dataset.unit)")) == ["gun", "tank"]
        assert page.locator("polyline.hm-path").count() == 1
        assert page.get_attribute("section.hm-ex-rulings", "aria-busy") == "true"
        assert "Deciding" in page.inner_text("section.hm-ex-rulings")
        assert page.evaluate("document.querySelector('div.hm-ex-controls').inert") is True
        held[0].continue_()
        ready(page)
        # its Python came as byte code compiled for Pyodide when the site was built, and
        # Pyodide started from the snapshot taken then, with the engine imported
        assert page.get_attribute("#hm-explorer", "data-bytecode") == "compiled"
        assert page.get_attribute("#hm-explorer", "data-snapshot") == "restored"
        assert position(page) == own
        assert shown(page) == computed(explorer, own)
        assert page.get_attribute("section.hm-ex-rulings", "aria-busy") is None
        assert float(page.get_attribute("#hm-explorer", "data-drawn-ms")) < \
            float(page.get_attribute("#hm-explorer", "data-first-ruling-ms"))
        # a link whose position the engine refuses (a unit off the map): drawn, then refused
        # (a query makes it another document: the page loads again)
        off = json.loads(json.dumps(own))
        off["units"][1]["at"] = "Z9"
        page.goto((site / "explorer.html").as_uri() + "?again#position=" + api.encode(off),
                  wait_until="domcontentloaded")
        page.wait_for_selector("#hm-explorer[data-drawn-ms]", timeout=BOOT_MS)
        assert len(held) == 2
        held[1].continue_()
        ready(page)
        said = page.get_attribute("#hm-explorer", "data-link-error")
        assert said and "Z9" in said and "units[1].at" in said
        assert page.get_attribute("#hm-explorer", "data-links") == "1"
        assert position(page)["map"] == {"columns": 8, "rows": 7, "hexes": {"C3": "woods", "D3": "woods", "E4": "town"}}
        assert session.attempted == [] and session.errors == []
    finally:
        session.context.close()


@pytest.mark.parametrize("snapshot", ["refused", "none"])
def test_without_a_snapshot_pyodide_starts_as_it_would_and_rules_alike(browser, site, explorer, snapshot):
    """Issue 30: a snapshot Pyodide refuses (here: a megabyte that is no snapshot at all) gives
    way to an ordinary start, as a site whose build took none (``snapshot.js`` says null) has; either
    way the page rules as the engine does, with no error."""
    own = {"map": {"columns": 6, "rows": 5, "hexes": {"C3": "woods"}},
           "units": [{"id": "tank", "side": "German", "kind": "armoured", "class": "A", "attack": 12, "range": 8,
                      "defence": 8, "movement": 6, "at": "B2", "opportunity-fire": True},
                     {"id": "gun", "side": "Soviet", "kind": "gun", "class": "A", "attack": 10, "range": 8,
                      "defence": 3, "movement": 1, "at": "E4", "opportunity-fire": True}],
           "start": {"side": "German", "phase": "movement"}, "rulesets": ["PB", "PL", "REV"],
           "steps": [{"move": {"unit": "tank", "path": ["C2", "C3", "D3"]}}]}
    memory = "null" if snapshot == "none" else \
        json.dumps(base64.b64encode(gzip.compress(bytes(range(256)) * 4096)).decode("ascii"))
    session = Offline(browser, "file://", viewport={"width": 1024, "height": 900})
    session.context.route("**/_explorer/snapshot.js", lambda route: route.fulfill(
        status=200, content_type="text/javascript", body=f"globalThis.__harmonyPyodideSnapshot={memory};\n"))
    try:
        page = session.page
        page.goto((site / "explorer.html").as_uri() + "#position=" + api.encode(own))
        ready(page)
        assert page.get_attribute("#hm-explorer", "data-snapshot") == snapshot
        assert page.get_attribute("#hm-explorer", "data-bytecode") == "compiled"
        assert position(page) == own
        assert shown(page) == computed(explorer, own)
        assert session.attempted == [] and session.errors == []
    finally:
        session.context.close()


def test_from_another_host_the_page_does_not_fetch_the_snapshot_and_rules_alike(browser, site, explorer):
    """Issue 30: the snapshot is 8.5 MB more to fetch, which over most networks costs more
    than it saves: a page served from another host (here the built site answered as
    https://harmony.example/) never asks for it, and Pyodide starts as without one."""
    asked: list[str] = []

    def from_site(route):
        name = route.request.url.removeprefix("https://harmony.example/").split("?")[0].split("#")[0]
        asked.append(name)
        path = site / (name or "index.html")
        if path.is_file():
            route.fulfill(path=str(path))
        else:
            route.fulfill(status=404, body="")
    session = Offline(browser, "https://harmony.example/", viewport={"width": 1024, "height": 900})
    session.context.route("https://harmony.example/**", from_site)
    try:
        page = session.page
        page.goto("https://harmony.example/explorer.html")
        ready(page)
        assert page.get_attribute("#hm-explorer", "data-snapshot") == "not-local"
        assert f"{bundle.FOLDER}/runtime.js" in asked and f"{bundle.FOLDER}/snapshot.js" not in asked
        assert shown(page) == computed(explorer, position(page))
        assert session.attempted == [] and session.errors == []
    finally:
        session.context.close()


def test_an_example_opens_in_the_explorer_from_harmony_serve(browser, served, explorer, shots):
    url, site = served
    sid = "rev-figure-1"
    session = Offline(browser, url, viewport={"width": 1024, "height": 900})
    try:
        page = session.page
        page.goto(f"{url}examples/{sid}.html")
        page.locator('a[href*="explorer.html#position="]').first.click()
        ready(page)
        assert position(page) == api.position_of(explorer.model, sid)   # restored exactly
        assert shown(page) == computed(explorer, position(page))
        # served from this machine (a loopback address): Pyodide starts from the snapshot
        assert page.get_attribute("#hm-explorer", "data-snapshot") == "restored"
        page.screenshot(path=str(shots / "explorer-example.png"), full_page=True)
        assert session.attempted == [] and session.errors == []
    finally:
        session.context.close()


def test_a_site_built_without_pyodide_says_how_to_bundle_it(browser, site, tmp_path):
    bare = tmp_path / "site"
    shutil.copytree(site, bare, ignore=shutil.ignore_patterns(bundle.FOLDER, "_screenshots"))
    session = Offline(browser, "file://")
    try:
        session.page.goto((bare / "explorer.html").as_uri())
        session.page.wait_for_selector("#hm-explorer[data-unbundled]", timeout=30_000)
        text = session.page.inner_text("#hm-explorer")
        assert "not bundled" in text and "npm ci" in text
    finally:
        session.context.close()

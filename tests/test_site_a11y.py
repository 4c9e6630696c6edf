"""The site as every reader meets it (issue 31), in Debian's Chromium driven by Playwright.

* axe-core (pinned in package-lock.json, installed by ``npm ci`` into ``node_modules/``) finds
  no violation on any page of the built site, at 390 and 1280 px, in light and dark mode, and
  no page of the site is wider than its window at any width from 390 to 2560 px
  (:func:`check_page`);
* on the pages a reader meets first, at 390, 1024 and 1400 px: navigation and search at the
  top, no page wider than the window, no text under 12 px, no word broken across two lines;
  a screenshot of each is written to ``$HARMONY_SCREENSHOTS`` (else ``build/screenshots/``
  of the checkout, which git ignores), for a reviewer to look at;
* each diagram opens full size at a size whose smallest text is 12 px;
* dark mode follows the system and the theme button; print has margins and a key.

The site is the session's one build of the shipped rules (:func:`shipped_site`).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from harmony.site.testing import StaticServer, shipped_site

playwright = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parent.parent
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
#: the widths and colour schemes axe checks every page at
VARIANTS = ((390, "light"), (390, "dark"), (1280, "light"), (1280, "dark"))
#: the widths at which no page of the site (a print page is laid out for paper) may be wider
#: than its window
WIDTHS = (390, 768, 1024, 1280, 1400, 2560)
#: every width and scheme a page is shown in, one after the other: narrowest first, and at
#: each width the light scheme before the dark one (which is checked against it)
STEPS = sorted({(width, "light") for width in WIDTHS} | set(VARIANTS), key=lambda v: (v[0], v[1] == "dark"))
#: the pages a reader meets first, photographed and measured at each width
SHOWN = {"index": "index.html", "topic": "topics/spotting.html", "revision": "revisions/REV.html",
         "example": "examples/rev-figure-1.html", "explorer": "explorer.html",
         "authoring": "authoring.html"}
BOOT_MS = 180_000


# (session fixtures, not module ones: the tests of this module may then run on any worker;
# the site is built once a run whatever the worker asking)
@pytest.fixture(scope="session")
def site():
    return shipped_site()


@pytest.fixture(scope="session")
def base_url(site):
    with StaticServer(site.out) as url:
        yield url


@pytest.fixture(scope="session")
def shots(site) -> Path:
    folder = Path(os.environ.get("HARMONY_SCREENSHOTS") or ROOT / "build" / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def every_page(site) -> list[str]:
    """Every HTML page of the built site, the print pages included (not the screenshots)."""
    return sorted(p.relative_to(site.out).as_posix() for p in site.out.rglob("*.html")
                  if not p.relative_to(site.out).as_posix().startswith("_"))


def open_page(page, url: str, rel: str) -> None:
    page.goto(url + rel)
    if rel == "explorer.html":     # the page as a reader uses it: the engine loaded, the board drawn
        page.wait_for_selector("#hm-explorer[data-ready], #hm-explorer[data-failed]", timeout=BOOT_MS)
        assert page.get_attribute("#hm-explorer", "data-failed") is None, page.inner_text("#hm-explorer")


#: axe's run of the page, every rule it runs by default, or only the rules named: what it
#: finds, the rules it ran, and its rules about colour
AXE_RUN = """async (only) => {
  const r = await axe.run(document, only ? {runOnly: {type: 'rule', values: only}, resultTypes: ['violations']}
                                         : {resultTypes: ['violations']});
  return {
    ran: [...r.passes, ...r.violations, ...r.incomplete, ...r.inapplicable].map(v => v.id),
    colour: axe.getRules(['cat.color']).map(rule => rule.ruleId),
    problems: r.violations.map(v => v.id + ' (' + v.impact + '): ' + v.nodes.length + ' element(s), first '
      + v.nodes[0].target.join(' ') + ': ' + v.nodes[0].failureSummary.replace(/\\s+/g, ' ').slice(0, 200))};
}"""

#: where every element of the page is and whether it shows, as one number: the same in the
#: dark scheme as in the light one at a width when the scheme changed nothing but colours.
#: (Not counted: the insides of Furo's theme button, which shows the icon of the scheme in
#: use: the same button, the same markup, one icon for another.)
LAYOUT = """() => {
  let h = 2166136261;
  for (const el of document.querySelectorAll('*')) {
    if (el.closest('.theme-toggle') && !el.matches('.theme-toggle')) continue;
    const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
    const s = [el.tagName, Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height),
               cs.display, cs.visibility, cs.opacity, cs.contentVisibility].join() + ';';
    for (let i = 0; i < s.length; i += 1) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
  }
  return h >>> 0;
}"""


#: two frames: the page's resize listeners have run (a browser sends the resize event as it
#: next renders the page), as they have for a reader by the time they look: else, on a busy
#: machine, axe could look at a block of code made to scroll by the new width before the
#: page made it focusable (harmony.js, scrollersFocusable)
AFTER_RESIZE = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"

#: what Furo's script does when a reader scrolls back up: it shows the "Back to top" link
SCROLLED_BACK = "() => document.documentElement.classList.add('show-back-to-top')"

#: the pages are checked in this many shares, each a test, so that the workers share them
SHARES = 4


def test_the_pages_checked_are_every_page_of_the_site(site):
    """What the shares below divide: every page, the print pages and search included."""
    pages = every_page(site)
    assert len(pages) > 50 and "print/cards.html" in pages and "search.html" in pages


#: Furo's "Back to top" link as the page template wraps it: the link alone in its landmark
WRAPPED_BACK_TO_TOP = re.compile(r'<nav class="hm-back-to-top" aria-label="Back to top">'
                                 r'<a href="#" class="back-to-top muted-link">(?:(?!<nav|</nav>|<div).)*?</a>'
                                 r'\s*</nav><div class="content-icon-container">', re.S)


def test_the_back_to_top_link_is_alone_in_its_landmark_on_every_themed_page(site):
    """The page template wraps Furo's link by replacing two pieces of Furo's markup: should a
    version of Furo change either, the landmark would hold too much, or never close."""
    themed = [rel for rel in every_page(site) if "back-to-top" in (site.out / rel).read_text("utf-8")]
    assert len(themed) > 50
    wrong = [rel for rel in themed
             if len(WRAPPED_BACK_TO_TOP.findall(text := (site.out / rel).read_text("utf-8"))) != 1
             or text.count("hm-back-to-top") != 1 or text.count("<nav") != text.count("</nav>")]
    assert wrong == []


def axe_context(browser):
    """A browser context whose every page opens with axe-core loaded (an init script: the
    browser is sent axe once, not once a page), at the narrowest width."""
    context = browser.new_context(viewport={"width": WIDTHS[0], "height": 900})
    context.add_init_script(path=str(AXE))
    return context


def check_page(page, url: str, rel: str, change: str | None = None) -> dict[str, list]:
    """What is wrong with the page ``rel`` (``url + rel``), opened in ``page`` (of an
    :func:`axe_context`), each problem under where it was found (the page, a width, a
    scheme). The page is loaded once, at the narrowest width (where a page overflows
    first), ``change`` run on it (a script: the checks' own tests break a page with it),
    then the window widened in place through :data:`WIDTHS` and the colour scheme switched
    in place for :data:`VARIANTS`, as a reader turns a phone, widens a window or darkens a
    screen:

    * at each width it is shown at (those of :data:`WIDTHS`, which hold the variants'), a page
      of the site is no wider than its window;
    * the dark scheme changes colours and nothing else: every element is where it was in the
      light one at that width and shows as it did (:data:`LAYOUT`), so that a reader who
      switches scheme keeps their place;
    * in each variant, axe finds no violation. In the dark scheme axe runs only the rules
      about colour that it ran in the light, the others having seen the same page; where
      anything moved, appeared or vanished, every rule;
    * at each width of a variant, in the light scheme, a page of the site has no text under
      12 px and no word broken across two lines.
    """
    found: dict[str, list] = {}
    site_page = not rel.startswith("print/")      # print pages: laid out for paper
    page.set_viewport_size({"width": WIDTHS[0], "height": 900})
    page.emulate_media(color_scheme="light")
    open_page(page, url, rel)
    if change:
        page.evaluate(change)
    # as a reader finds it once they have scrolled down and back up a little: Furo then
    # shows its "Back to top" link (its script adds this class to the page's root)
    page.evaluate(SCROLLED_BACK)
    light: dict = {}      # axe's light run at this width, and the layout it saw
    for width, scheme in STEPS:
        page.set_viewport_size({"width": width, "height": 900})
        page.emulate_media(color_scheme=scheme)
        page.evaluate(AFTER_RESIZE)
        where = f"{rel} at {width} px, {scheme}"
        if site_page and (scroll := page.evaluate("document.documentElement.scrollWidth")) > width:
            found[f"{where}: wider than the window"] = [f"{scroll} px"]
        if (width, scheme) not in VARIANTS:
            continue
        layout = page.evaluate(LAYOUT)
        only = None
        if scheme == "dark" and layout == light["layout"]:
            only = [rule for rule in light["colour"] if rule in light["ran"]]
        elif scheme == "dark":
            found[f"{where}: laid out otherwise than in the light"] = ["moved"]
        run = page.evaluate(AXE_RUN, only)
        if run["problems"]:
            found[where] = run["problems"]
        if scheme == "light":
            light = dict(run, layout=layout)
            if site_page and (small := page.evaluate(SMALL_TEXT)):
                found[f"{where}: text under 12 px"] = small
            if site_page and (broken := page.evaluate(BROKEN_WORDS)):
                found[f"{where}: words broken across lines"] = broken
    return found


@pytest.mark.parametrize("share", range(SHARES))
def test_no_page_has_an_axe_violation_or_is_wider_than_the_window(browser, site, base_url, share):
    """Every page, each as :func:`check_page` checks it: a new violation fails here. (Every
    SHARES-th page from ``share`` on: the shares hold every page.)"""
    assert AXE.is_file(), "axe-core is needed: run `npm ci` (package-lock.json pins it)"
    pages = every_page(site)[share::SHARES]
    assert len(pages) > 50 // SHARES
    context = axe_context(browser)
    page = context.new_page()
    found: dict[str, list] = {}
    try:
        for rel in pages:
            found.update(check_page(page, base_url, rel))
    finally:
        context.close()
    assert found == {}, "\n".join(f"{where}: {p}" for where, problems in found.items() for p in problems)


#: a paragraph of grey on white, an unlabelled field
GREY_AND_UNLABELLED = """() => { const p = document.createElement('p');
  p.textContent = 'grey on white'; p.style.color = '#bbb'; p.style.background = '#fff';
  document.querySelector('article').append(p, document.createElement('input')); }"""

#: a paragraph whose text is too dark for its background in the dark scheme only: nothing
#: moves, so the dark scheme is checked with axe's colour rules alone
DIM_IN_THE_DARK = """() => { const style = document.createElement('style'), p = document.createElement('p');
  style.textContent = '@media (prefers-color-scheme: dark) { p.hm-dim { color: #3a3a3a !important } }';
  p.className = 'hm-dim'; p.textContent = 'dim in the dark';
  document.head.append(style); document.querySelector('article').append(p); }"""

#: a field with no label that only the dark scheme shows: the layout changed, so every rule
#: must run in the dark
SHOWN_IN_THE_DARK = """() => { const style = document.createElement('style'), field = document.createElement('input');
  style.textContent = '.hm-dark-only { display: none } '
    + '@media (prefers-color-scheme: dark) { .hm-dark-only { display: inline-block } }';
  field.className = 'hm-dark-only';
  document.head.append(style); document.querySelector('article').append(field); }"""

#: a table wider than a phone, outside the theme's scrolling frames
WIDE_TABLE = """() => { const t = document.createElement('table');
  t.innerHTML = '<tr><td style="min-width: 700px">wide</td></tr>'; document.body.appendChild(t); }"""

WIDER = [f"glossary.html at 390 px, {scheme}: wider than the window" for scheme in ("light", "dark")]


@pytest.mark.parametrize("change, expected", [
    # in the dark, only the colour rules ran: the field was seen unlabelled in the light
    (GREY_AND_UNLABELLED, {f"glossary.html at {w} px, {s}": {"color-contrast", "label"} if s == "light"
                           else {"color-contrast"} for w, s in VARIANTS}),
    (DIM_IN_THE_DARK, {f"glossary.html at {w} px, dark": {"color-contrast"} for w in (390, 1280)}),
    (SHOWN_IN_THE_DARK, {**{f"glossary.html at {w} px, dark": {"label"} for w in (390, 1280)},
                         **{f"glossary.html at {w} px, dark: laid out otherwise than in the light": {"moved"}
                            for w in (390, 1280)}}),
    (WIDE_TABLE, dict.fromkeys(WIDER, set())),
], ids=["grey-and-unlabelled", "dim-in-the-dark", "shown-in-the-dark", "wide-table"])
def test_the_page_checks_find_what_they_look_for(browser, base_url, change, expected):
    """The checks above can fail: a page broken on purpose, checked as every page is, is
    found wrong where it was broken (and, where the break is the dark scheme's, nowhere in
    the light one; where it is a width, at no other width)."""
    context = axe_context(browser)
    page = context.new_page()
    try:
        found = check_page(page, base_url, "glossary.html", change)
    finally:
        context.close()
    seen = {where: {p.split(" ")[0] for p in problems} for where, problems in found.items()}
    assert {where: seen.get(where, set()) & ids for where, ids in expected.items()} == expected, found
    if change in (DIM_IN_THE_DARK, SHOWN_IN_THE_DARK):
        assert sorted(found) == sorted(expected), found
    if change == WIDE_TABLE:
        assert [where for where in found if "wider" in where] == WIDER, found
        assert all(int(found[where][0].split()[0]) > 700 for where in WIDER)


# ------------------------------------------------------------------ the pages a reader meets first
SMALL_TEXT = """() => {
  const out = new Set();
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const el = walk.currentNode.parentElement;
    if (!walk.currentNode.data.trim() || !el || el.closest('svg, script, style, noscript')) continue;
    if (!el.getClientRects().length || getComputedStyle(el).visibility === 'hidden') continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (size < 11.95) out.add(el.tagName.toLowerCase() + '.' + el.className + ' ' + size + 'px: '
                              + walk.currentNode.data.trim().slice(0, 30));
  }
  return [...out];
}"""

BROKEN_WORDS = """() => {
  const out = [];
  const walk = document.createTreeWalker(document.querySelector('article'), NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  while (walk.nextNode()) {
    const node = walk.currentNode, el = node.parentElement;
    if (!el || el.closest('svg, pre, script, style') || !el.getClientRects().length) continue;
    for (const m of node.data.matchAll(/[\\p{L}\\p{N}]+/gu)) {
      if (m[0].length < 2) continue;
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (tops.size > 1) out.push(m[0] + ' in ' + el.tagName.toLowerCase() + '.' + el.className);
    }
  }
  return out;
}"""


@pytest.mark.parametrize("width", (390, 1024, 1400))
def test_the_first_pages_read_well_at_each_width(browser, base_url, shots, width):
    """Screenshots NAME-WIDTH.png of the index, a topic, a revision, an example, the explorer
    and the authoring guide, and what they must hold at that width."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    problems: dict[str, object] = {}
    try:
        for name, rel in SHOWN.items():
            open_page(page, base_url, rel)
            page.screenshot(path=str(shots / f"{name}-{width}.png"), full_page=False)
            # navigation and search at the top: beside the page, or behind the menu button
            if width < 1000:
                button = page.locator("header.mobile-header label.nav-overlay-icon")
                assert button.is_visible() and button.bounding_box()["y"] < 60, (rel, width)
                search = page.locator("input.sidebar-search")
                box = search.bounding_box()
                assert box is None or box["x"] + box["width"] <= 0, (rel, width)   # not yet shown
                button.click()
                page.wait_for_function("document.querySelector('input.sidebar-search')"
                                       ".getBoundingClientRect().left >= 0")
                assert search.bounding_box()["y"] < 200, (rel, width)
                page.locator("label.sidebar-overlay").click(position={"x": width - 20, "y": 400})
            else:
                assert page.locator("input.sidebar-search").bounding_box()["y"] < 200, (rel, width)
            if page.evaluate("document.documentElement.scrollWidth") > width:
                problems[f"{rel}: wider than the window"] = page.evaluate("document.documentElement.scrollWidth")
            small = page.evaluate(SMALL_TEXT)
            if small:
                problems[f"{rel}: text under 12 px"] = small[:8]
            broken = page.evaluate(BROKEN_WORDS)
            if broken:
                problems[f"{rel}: words broken across lines"] = broken[:8]
    finally:
        context.close()
    assert problems == {}, problems


def test_a_long_page_has_its_contents_at_the_top_on_a_phone(browser, base_url):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        page.goto(base_url + "revisions/REV.html")
        assert page.evaluate("document.documentElement.scrollHeight") > 5 * 844
        button = page.locator("header.mobile-header label.toc-overlay-icon")
        assert button.is_visible() and button.bounding_box()["y"] < 60
        button.click()
        contents = page.locator("aside.toc-drawer .toc-tree ul ul a")   # the page's sections
        contents.first.wait_for(state="visible")
        assert contents.count() >= 5
        target = contents.nth(2).get_attribute("href")
        contents.nth(2).click()
        page.wait_for_url("**" + target)
    finally:
        context.close()


# ------------------------------------------------------------------ figures, dark mode, print
LEGIBLE = """() => Math.min(...[...document.querySelectorAll('text')].map(t =>
  parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a))"""


def test_every_diagram_opens_full_size_with_legible_text(browser, base_url, site):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        links = []
        for rel in ("examples/rev-figure-1.html", "examples/db-first-spotting-step.html"):
            page.goto(base_url + rel)
            figures = page.locator("figure.hm-diagram")
            assert figures.count() > 0
            assert figures.count() == page.locator("figure.hm-diagram p.hm-full-size a").count()
            assert page.evaluate(LEGIBLE) < 12     # fitted to a phone, the figure alone is too small
            links += [page.evaluate("(a) => a.href", a) for a in
                      page.locator("figure.hm-diagram p.hm-full-size a").element_handles()]
        for href in links:
            page.goto(href)
            assert page.evaluate(LEGIBLE) >= 11.99, href
        # every diagram of the site has its file, and no file is left from no diagram
        figures = sorted(p.name for p in (site.out / "_figures").glob("*.svg"))
        assert len(figures) >= 30
    finally:
        context.close()


def test_dark_mode_follows_the_system_and_the_theme_button(browser, base_url):
    background = "getComputedStyle(document.body).backgroundColor"
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
    page = context.new_page()
    try:
        page.goto(base_url + "topics/spotting.html")
        dark = page.evaluate(background)
        cell = page.locator("table.hm-harmony th.hm-rowhead").nth(1)
        dark_cell = cell.evaluate("el => getComputedStyle(el).backgroundColor")
        page.emulate_media(color_scheme="light")
        assert page.evaluate(background) != dark
        assert cell.evaluate("el => getComputedStyle(el).backgroundColor") != dark_cell
        # the theme button overrides the system's choice, and the choice holds on the next page
        button = page.locator(".content .theme-toggle").first
        for _ in range(3):
            if page.evaluate("document.body.dataset.theme") == "dark":
                break
            button.click()
        assert page.evaluate(background) == dark
        page.goto(base_url + "glossary.html")
        assert page.evaluate(background) == dark
    finally:
        context.close()


def test_print_has_margins_a_key_under_each_table_and_links_written_out(browser, base_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(base_url + "topics/spotting.html")
        key = page.locator("div.hm-scroll + p.hm-status-key")
        assert key.count() == page.locator("table.hm-harmony").count() > 0
        assert key.first.is_hidden()           # on screen the legend above the table says it
        page.emulate_media(media="print")
        for hidden in ("aside.sidebar-drawer", "aside.toc-drawer", "header.mobile-header",
                       "fieldset.hm-chooser", "footer"):
            assert page.locator(hidden).first.is_hidden(), hidden
        assert key.first.is_visible()
        text = key.first.inner_text().lower()
        for word in ("nil", "not covered", "optional", "tournament"):
            assert word in text
        margins = page.evaluate("""() => [...document.styleSheets].flatMap(s => [...s.cssRules])
          .filter(r => r instanceof CSSPageRule).map(r => r.style.marginLeft)""")
        assert margins and all(m and m != "0px" for m in margins), margins
        # a link to a file to download (or to another site) is written out after its text
        page.goto(base_url + "rulebooks.html")
        page.emulate_media(media="print")
        pdf = page.locator("article a[href$='.pdf']").first
        after = pdf.evaluate("a => getComputedStyle(a, '::after').content")
        assert pdf.get_attribute("href") in after
        inside = page.locator("article a[href$='.html']").first
        assert inside.evaluate("a => getComputedStyle(a, '::after').content") == "none"
    finally:
        context.close()

"""The built site in a real browser (Debian's Chromium, headless, driven by Playwright).

The site is built once per session into a temporary folder and served on
127.0.0.1 on a random port. Screenshots go to ``_screenshots/`` in the built
site (or to ``$HARMONY_SCREENSHOTS`` when set).
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from harmony.site.testing import StaticServer, shipped_site

playwright = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="session")
def site():
    return shipped_site()


@pytest.fixture(scope="session")
def base_url(site):
    with StaticServer(site.out) as url:
        yield url


@pytest.fixture(scope="session")
def shots(site) -> Path:
    folder = Path(os.environ.get("HARMONY_SCREENSHOTS") or site.out / "_screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    yield pg
    context.close()


@pytest.fixture(scope="session")
def model(shipped_model):
    return shipped_model


def boxes(page, selector: str) -> list[dict]:
    return [page.locator(selector).nth(i).bounding_box() for i in range(page.locator(selector).count())]


def test_topic_columns_stand_side_by_side_at_desktop_width(page, base_url, shots, model):
    topic = model.topics_in_order()[0]
    page.goto(f"{base_url}topics/{topic.id}.html")
    row = page.locator("tr.hm-row").first
    cells = [row.locator("td.hm-cell").nth(i).bounding_box()
             for i in range(row.locator("td.hm-cell").count())]
    assert len(cells) == len(topic.sources)
    assert max(c["y"] for c in cells) - min(c["y"] for c in cells) < 2  # one row
    for left, right in zip(cells, cells[1:]):
        assert left["x"] + left["width"] <= right["x"] + 1  # side by side, in order
    assert cells[-1]["x"] + cells[-1]["width"] <= 1280
    assert all(c["width"] > 120 for c in cells)
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    page.screenshot(path=str(shots / "topic-desktop.png"), full_page=False)


def test_the_chooser_hides_and_shows_a_rulebook(page, base_url, shots, model):
    topic = model.topics_in_order()[0]
    page.goto(f"{base_url}topics/{topic.id}.html")
    chooser = page.locator("fieldset.hm-chooser")
    assert chooser.is_visible()
    key = topic.sources[1]
    column = page.locator(f'table.hm-harmony td[data-col="{key}"]')
    assert column.first.is_visible()
    chooser.locator(f'input[data-col="{key}"]').uncheck()
    assert column.first.is_hidden()
    assert page.locator(f'table.hm-harmony th[data-col="{key}"]').is_hidden()
    other = page.locator(f'table.hm-harmony td[data-col="{topic.sources[0]}"]').first
    assert other.is_visible()
    page.screenshot(path=str(shots / "topic-chooser.png"), full_page=False)
    # the choice holds on the next topic page, and can be undone
    second = model.topics_in_order()[1]
    page.goto(f"{base_url}topics/{second.id}.html")
    if key in second.sources:
        assert page.locator(f'table.hm-harmony td[data-col="{key}"]').first.is_hidden()
    page.locator(f'fieldset.hm-chooser input[data-col="{key}"]').first.check()
    if key in second.sources:
        assert page.locator(f'table.hm-harmony td[data-col="{key}"]').first.is_visible()


def landed(page, anchor: str) -> float:
    """The top of the element ``anchor`` names, once the page has scrolled to it (the theme
    scrolls smoothly: the row comes into view over a few frames, not at once); a page that
    never brings it into view fails here."""
    page.wait_for_function("(id) => { const t = document.getElementById(id).getBoundingClientRect().top;"
                           " return t >= 0 && t < 900; }", arg=anchor, timeout=10_000)
    return page.evaluate("(id) => document.getElementById(id).getBoundingClientRect().top", anchor)


def test_a_permalink_lands_on_its_clause(page, base_url, model):
    topic = max(model.topics_in_order(), key=lambda t: len(model.clauses_of(t.id)))
    clause = model.clauses_of(topic.id)[-1]
    page.goto(f"{base_url}topics/{topic.id}.html#{clause.id}")
    row = page.locator(f'[id="{clause.id}"]')
    assert row.count() == 1
    top = landed(page, clause.id)
    assert 0 <= top < 900
    assert page.evaluate("window.scrollY") > 0


def test_search_finds_opportunity_spotted(page, base_url, shots):
    page.goto(f"{base_url}search.html?q=opportunity+spotted")
    results = page.locator("#search-results ul.search li")
    results.first.wait_for(timeout=20000)
    hrefs = [results.nth(i).locator("a").first.get_attribute("href") for i in range(results.count())]
    assert any("topics/" in h for h in hrefs), hrefs
    page.screenshot(path=str(shots / "search.png"), full_page=False)


def test_the_example_diagram_is_visible(page, base_url, shots, model):
    sid = sorted(model.scenarios)[0]
    page.goto(f"{base_url}examples/{sid}.html")
    diagram = page.locator("figure.hm-diagram svg[role=img]").first
    assert diagram.is_visible()
    box = diagram.bounding_box()
    assert box["width"] > 250 and box["height"] > 150
    assert diagram.locator("title").first.text_content()
    assert page.locator("figure.hm-diagram svg .hm-unit").count() >= 2
    page.screenshot(path=str(shots / "example.png"), full_page=True)


def test_a_phone_reads_the_cells_one_under_another(browser, base_url, shots, model):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1)
    page = context.new_page()
    try:
        topic = model.topics_in_order()[0]
        page.goto(f"{base_url}topics/{topic.id}.html")
        row = page.locator("tr.hm-row").first
        cells = [row.locator("td.hm-cell").nth(i).bounding_box()
                 for i in range(row.locator("td.hm-cell").count())]
        for upper, lower in zip(cells, cells[1:]):
            assert upper["y"] + upper["height"] <= lower["y"] + 1
        assert all(c["x"] + c["width"] <= 391 for c in cells)
        assert page.evaluate("document.documentElement.scrollWidth") <= 391
        page.screenshot(path=str(shots / "topic-phone.png"), full_page=False)
    finally:
        context.close()


def test_print_stylesheet_drops_navigation_and_chooser(page, base_url, model):
    topic = model.topics_in_order()[0]
    page.goto(f"{base_url}topics/{topic.id}.html")
    page.emulate_media(media="print")
    for panel in ("aside.sidebar-drawer", "aside.toc-drawer", "header.mobile-header"):
        assert page.locator(panel).is_hidden(), panel
    assert page.locator("fieldset.hm-chooser").is_hidden()
    assert page.locator("table.hm-harmony").is_visible()


# ---------------------------------------------------------------- issue 14: the site as readers use it
# (no page wider than its window at any width: test_site_a11y.py, whose sweep loads every page)


def search(page, base_url, query: str) -> list[str]:
    page.goto(f"{base_url}search.html?q={query}")
    page.locator("#search-results ul.search li").first.wait_for(timeout=20000)
    page.wait_for_function("document.querySelector('#search-results h2').innerText.includes('Results')")
    links = page.locator("#search-results ul.search li > a")
    return [links.nth(i).get_attribute("href") for i in range(links.count())]


def test_search_for_a_clause_id_opens_its_row(page, base_url, shots):
    hrefs = search(page, base_url, "spotting.recording")
    assert hrefs[0] == "topics/spotting.html#spotting.recording", hrefs[:5]
    page.locator("#search-results ul.search li > a").first.click()
    page.wait_for_url("**/topics/spotting.html#spotting.recording")
    row = page.locator('tr.hm-row[id="spotting.recording"]')
    assert row.count() == 1
    top = landed(page, "spotting.recording")
    assert 0 <= top < 900
    assert page.evaluate("document.querySelector(':target') === document.getElementById('spotting.recording')")
    page.screenshot(path=str(shots / "search-landed.png"), full_page=False)


def test_search_for_a_cell_id_opens_the_cell(page, base_url):
    hrefs = search(page, base_url, "spotting.recording@PL")
    assert hrefs[0] == "topics/spotting.html#spotting.recording@PL", hrefs[:5]


def test_search_for_spotted_lands_on_existing_anchors_and_topics_first(page, base_url, shots):
    hrefs = search(page, base_url, "spotted")
    page.screenshot(path=str(shots / "search-spotted.png"), full_page=False)
    assert hrefs[0] == "glossary.html#term-spotted", hrefs[:5]
    assert "topics/spotting.html#spotting.spotted" in hrefs[:3], hrefs[:5]
    # every result with an anchor opens an element that exists on its page
    anchored = [h for h in hrefs if "#" in h]
    assert len(anchored) >= 2
    for href in anchored:
        doc, anchor = href.split("#", 1)
        page.goto(base_url + href)
        assert page.evaluate("(id) => document.getElementById(id) !== null", anchor), href
    # whole pages: the topic pages, where the rules are, come before the worked examples
    pages = [h for h in hrefs if "#" not in h]
    first_topic = next(i for i, h in enumerate(pages) if h.startswith("topics/"))
    examples = [i for i, h in enumerate(pages) if h.startswith("examples/")]
    assert not examples or first_topic < examples[0], pages


def test_every_cell_has_a_copy_link_to_itself(browser, base_url, model):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    try:
        topic = model.topics_in_order()[0]
        page.goto(f"{base_url}topics/{topic.id}.html")
        cells = page.locator("td.hm-cell")
        links = page.locator("td.hm-cell a.hm-copy-link")
        assert cells.count() == links.count() > 0
        first = cells.first.get_attribute("id")
        assert links.first.get_attribute("href") == f"#{first}"
        links.first.click()
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied == f"{base_url}topics/{topic.id}.html#{first}"
        assert links.first.text_content() == "link copied"
    finally:
        context.close()


def test_hiding_columns_gives_their_room_to_the_others(page, base_url, shots, model):
    topic = max(model.topics_in_order(), key=lambda t: len(t.sources))
    page.goto(f"{base_url}topics/{topic.id}.html")
    keys = list(topic.sources)
    assert len(keys) >= 3
    for key in keys[1:-1]:
        page.locator(f'fieldset.hm-chooser input[data-col="{key}"]').first.uncheck()
    table = page.locator("table.hm-harmony").first
    width = table.bounding_box()["width"]
    row = table.locator("tr.hm-row").first
    shown = [row.locator(f'td[data-col="{k}"]').bounding_box() for k in (keys[0], keys[-1])]
    head = row.locator("th.hm-rowhead").bounding_box()
    used = head["width"] + sum(c["width"] for c in shown)
    assert used > width - 4, (used, width)   # no blank room kept for the hidden columns
    page.screenshot(path=str(shots / "topic-two-columns.png"), full_page=False)
    for key in keys[1:-1]:
        page.locator(f'fieldset.hm-chooser input[data-col="{key}"]').first.check()


def test_outcome_tables_keep_the_question_in_view(browser, base_url, model):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        sid = max(model.scenarios, key=lambda s: len(model.scenarios[s].data.get("rulesets") or []))
        page.goto(f"{base_url}examples/{sid}.html")
        box = page.locator("table.hm-outcomes").first.locator("xpath=..")
        question = page.locator("table.hm-outcomes tbody th[scope=row]").first
        before = question.bounding_box()["x"]
        box.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
        assert box.evaluate("el => el.scrollLeft") > 0   # the table does scroll sideways here
        assert abs(question.bounding_box()["x"] - before) < 2
    finally:
        context.close()


def test_the_scoreboard_highlights_splits_and_keeps_questions_in_view(browser, base_url, shots):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        page.goto(f"{base_url}examples/index.html")
        board = page.locator("table.hm-scoreboard")
        board.scroll_into_view_if_needed()
        split = board.locator("tr.hm-split td.hm-word").first
        even = board.locator("tbody tr:not(.hm-split) td.hm-word").first
        colour = "el => getComputedStyle(el).backgroundColor"
        assert split.evaluate(colour) != even.evaluate(colour)
        box = board.locator("xpath=..")
        question = board.locator("tbody th[scope=row]").first
        x = question.bounding_box()["x"]
        box.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
        assert abs(question.bounding_box()["x"] - x) < 6   # stays put (give or take its border)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.screenshot(path=str(shots / "scoreboard-phone.png"), full_page=False)
    finally:
        context.close()


def _comparing(page, base_url, model, a: int, b: int) -> list[str]:
    """The topic with the most rulebooks open in ``page``, its rulebooks ``a`` and ``b`` (their
    places among the topic's) compared side by side: the topic's rulebooks."""
    topic = max(model.topics_in_order(), key=lambda t: len(t.sources))
    keys = list(topic.sources)
    page.goto(f"{base_url}topics/{topic.id}.html")
    page.locator(".hm-compare-toggle").first.check()
    page.locator("select.hm-compare-a").first.select_option(keys[a])
    page.locator("select.hm-compare-b").first.select_option(keys[b])
    return keys


def test_a_phone_compares_two_rulebooks_side_by_side(browser, base_url, shots, model):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        keys = _comparing(page, base_url, model, 1, -1)
        row = page.locator("tr.hm-row").first
        left = row.locator(f'td[data-col="{keys[1]}"]').bounding_box()
        right = row.locator(f'td[data-col="{keys[-1]}"]').bounding_box()
        assert abs(left["y"] - right["y"]) < 2 and left["x"] + left["width"] <= right["x"] + 1
        assert right["x"] + right["width"] <= 391
        for other in keys[:1] + keys[2:-1]:
            assert row.locator(f'td[data-col="{other}"]').is_hidden()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.screenshot(path=str(shots / "topic-compare-phone.png"), full_page=False)
        # comparing is not remembered: leaving it shows the reader's own choice again
        page.locator(".hm-compare-toggle").first.uncheck()
        assert row.locator(f'td[data-col="{keys[0]}"]').is_visible()
    finally:
        context.close()


#: what ``harmony serve`` does to swap a rebuilt part in (``harmony.site.livereload``): the
#: element of that id gets the served page's children, then the site's script is told
SWAP = """async id => {
  const html = await (await fetch(location.href)).text();
  const fresh = new DOMParser().parseFromString(html, 'text/html').getElementById(id);
  const el = document.getElementById(id);
  el.replaceChildren(...document.importNode(fresh, true).childNodes);
  document.dispatchEvent(new CustomEvent('harmony:swapped', {detail: {elements: [el]}}));
}"""


def test_what_serve_swaps_in_is_set_up_by_the_sites_script(browser, base_url, model):
    """``harmony serve`` swaps a rebuilt part into the open page and dispatches
    ``harmony:swapped``: a row swapped in while two rulebooks are compared shows those two
    alone, and a part holding the column chooser gets a working chooser (comparing ends,
    as on a reload)."""
    context = browser.new_context(viewport={"width": 1024, "height": 800})
    page = context.new_page()
    try:
        keys = _comparing(page, base_url, model, 0, 1)
        row = page.evaluate("() => document.querySelector('tr.hm-row[id]').id")
        page.evaluate(SWAP, row)
        cells = page.locator(f"[id='{row}'] td[data-col]")
        shown = {cells.nth(i).get_attribute("data-col") for i in range(cells.count()) if cells.nth(i).is_visible()}
        assert shown == {keys[0], keys[1]}

        part = page.evaluate("() => document.querySelector('fieldset.hm-chooser').parentElement.closest('[id]').id")
        page.evaluate(SWAP, part)
        assert page.evaluate("() => document.body.classList.contains('hm-compare')") is False
        assert page.locator("fieldset.hm-chooser").first.is_visible()
        assert page.locator(".hm-compare-bar").count() == 1
        page.locator(f"fieldset.hm-chooser input[data-col='{keys[-1]}']").first.uncheck()
        assert page.locator(f"tr.hm-row td[data-col='{keys[-1]}']").first.is_hidden()
        assert page.locator(f"tr.hm-row td[data-col='{keys[0]}']").first.is_visible()
    finally:
        context.close()


def test_hex_letters_are_never_under_a_counter(page, base_url, model, shots):
    overlap = """() => {
      const out = [];
      for (const svg of document.querySelectorAll('figure.hm-diagram svg')) {
        const counters = [...svg.querySelectorAll('g.hm-unit rect, g.hm-marker rect')]
          .map(r => r.getBoundingClientRect());
        for (const t of svg.querySelectorAll('text.hm-hex-label')) {
          const a = t.getBoundingClientRect();
          for (const b of counters) {
            if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1)
              out.push(t.textContent);
          }
        }
      }
      return out;
    }"""
    labelled = 0
    from harmony import game
    for sid in sorted(model.scenarios):
        if game.scenario_game(model, model.scenarios[sid]).name != "panzerblitz":
            continue        # a Combat Patrol scenario draws no board
        page.goto(f"{base_url}examples/{sid}.html")
        labelled += page.locator("text.hm-hex-label").count()
        assert page.evaluate(overlap) == [], sid
        keys = page.locator("figure.hm-diagram ul.hm-unit-key")
        assert keys.count() == page.locator("figure.hm-diagram").count()
        assert keys.first.is_visible()
    assert labelled > 0
    page.goto(f"{base_url}examples/rev-figure-1.html")
    page.locator("figure.hm-diagram").first.screenshot(path=str(shots / "example-figure.png"))


# ------------------------------------------------------------------ the comparison page
COMPARISON = "comparisons/spotting-across-systems.html"


def _comparison_cells(page):
    row = page.locator("table.hm-comparison tr.hm-row").first
    return [row.locator("td.hm-cell").nth(i).bounding_box() for i in range(row.locator("td.hm-cell").count())]


@pytest.mark.parametrize("width", (390, 1024, 1400))
def test_the_comparison_fits_and_reads_at_each_width(browser, base_url, shots, width):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        page.goto(base_url + COMPARISON)
        cells = _comparison_cells(page)
        assert len(cells) == 5
        if width == 390:      # stacked, each as wide as the table
            for upper, lower in zip(cells, cells[1:]):
                assert upper["y"] + upper["height"] <= lower["y"] + 1
        else:                 # side by side, left to right
            assert len({round(c["y"]) for c in cells}) == 1
            assert [c["x"] for c in cells] == sorted(c["x"] for c in cells)
        assert all(c["x"] + c["width"] <= width + 1 for c in cells)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(shots / f"comparison-{width}.png"), full_page=False)
    finally:
        context.close()


def test_a_quoted_clause_leads_to_its_cell(browser, base_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(base_url + COMPARISON)
        page.locator("td[data-col=CP] a[href$='#alternate-spotting.persistence@CP']").first.click()
        page.wait_for_url("**/topics/alternate-spotting.html#alternate-spotting.persistence@CP")
        assert page.evaluate("document.querySelector(':target').getAttribute('data-col')") == "CP"
    finally:
        context.close()

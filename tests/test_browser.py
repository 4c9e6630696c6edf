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

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


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


@pytest.fixture(scope="session")
def browser():
    assert Path(CHROMIUM).exists(), "Debian's chromium is needed (.ci/setup installs it)"
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


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


def test_a_permalink_lands_on_its_clause(page, base_url, model):
    topic = max(model.topics_in_order(), key=lambda t: len(model.clauses_of(t.id)))
    clause = model.clauses_of(topic.id)[-1]
    page.goto(f"{base_url}topics/{topic.id}.html#{clause.id}")
    row = page.locator(f'[id="{clause.id}"]')
    assert row.count() == 1
    top = page.evaluate(f"document.getElementById({clause.id!r}).getBoundingClientRect().top")
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
    assert page.locator("div.sphinxsidebar").is_hidden()
    assert page.locator("fieldset.hm-chooser").is_hidden()
    assert page.locator("table.hm-harmony").is_visible()

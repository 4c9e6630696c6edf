"""The comparison page in headless Chromium: five columns side by side on a desktop, one
cell under another on a phone, and a quoted clause's link landing on its cell."""
from __future__ import annotations

import pytest

from test_browser import base_url, browser, shots, site  # noqa: F401 (fixtures)

PAGE = "comparisons/spotting-across-systems.html"


def _cells(page):
    row = page.locator("table.hm-comparison tr.hm-row").first
    return [row.locator("td.hm-cell").nth(i).bounding_box() for i in range(row.locator("td.hm-cell").count())]


@pytest.mark.parametrize("width", (390, 1024, 1400))
def test_the_comparison_fits_and_reads_at_each_width(browser, base_url, shots, width):  # noqa: F811
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        page.goto(base_url + PAGE)
        cells = _cells(page)
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


def test_a_quoted_clause_leads_to_its_cell(browser, base_url):  # noqa: F811
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(base_url + PAGE)
        page.locator("td[data-col=CP] a[href$='#alternate-spotting.persistence@CP']").first.click()
        page.wait_for_url("**/topics/alternate-spotting.html#alternate-spotting.persistence@CP")
        assert page.evaluate("document.querySelector(':target').getAttribute('data-col')") == "CP"
    finally:
        context.close()

"""The explorer's movement mode select in a real browser (headless Chromium, Playwright).

The select beside "move the unit picked" lists only the modes the chosen rulesets offer
(:meth:`harmony.games.panzerblitz.explorer.Explorer.modes_of`), is labelled, works from
the keyboard, and the mode it sets is in the move step the page decides.
"""
from __future__ import annotations

import json

import pytest

from harmony.games.panzerblitz.hexgrid import label, neighbours, parse_label, to_offset
from test_explorer_browser import (Offline, computed, explorer, position, ready,  # noqa: F401
                                   settled, shown, site)

pytest.importorskip("playwright.sync_api")


def offered(page) -> list[str]:
    return page.evaluate("[...document.querySelectorAll('select.hm-ex-move-mode option')].map(o => o.value)")


def test_the_move_tool_offers_the_modes_of_the_chosen_rulesets(browser, site, explorer):  # noqa: F811
    session = Offline(browser, "file://", viewport={"width": 1400, "height": 1000})
    page = session.page
    page.goto((site / "explorer.html").as_uri())
    ready(page)
    cat = json.loads(explorer.catalogue())
    modes = {name: m for r in cat["rulesets"] for name, m in (r.get("modes") or {}).items()}
    chosen = position(page)["rulesets"]
    assert offered(page) == [m for m in cat["modes"]
                             if m == "normal" or any(m in modes.get(r, []) for r in chosen)]
    # PanzerBlitz alone offers no quick march and no road rate
    for name in chosen:
        if name != "PB":
            page.locator(f'input[data-ruleset="{name}"]').uncheck()
            settled(page)
    assert position(page)["rulesets"] == ["PB"]
    assert offered(page) == ["normal", "concealed", "revealed"]
    page.locator('input[data-ruleset="REV"]').check()
    settled(page)
    assert offered(page) == ["normal", "concealed", "revealed", "quick-march", "road"]
    # labelled, and chosen from the keyboard
    select = page.locator("select.hm-ex-move-mode")
    assert "how the unit moves" in select.get_attribute("aria-label")
    select.focus()
    select.press("End")     # the last option: road
    assert select.input_value() == "road"
    select.select_option("quick-march")
    # the German unit moves one hex on quick march
    pos = position(page)
    mover = next(u for u in pos["units"] if u["side"] == "German")
    taken = {u["at"] for u in pos["units"]}
    cols, rows = pos["map"]["columns"], pos["map"]["rows"]
    to = next(label(h) for h in neighbours(parse_label(mover["at"]))
              if 0 <= to_offset(h)[0] < cols and 0 <= to_offset(h)[1] < rows and label(h) not in taken)
    page.locator('input[data-mode="move"]').check()
    page.locator(f'g[data-unit="{mover["id"]}"]').click()
    page.locator(f'polygon[data-hex="{to}"]').click(force=True)
    settled(page)
    pos = position(page)
    assert pos["steps"][-1] == {"move": {"unit": mover["id"], "path": [to], "mode": "quick-march"}}
    table = shown(page)
    assert table == computed(explorer, pos)
    # PanzerBlitz refuses the move, naming the clause; the revised rules play it
    first = table[0]["cells"]
    assert first["PB"] == {"word": "refused", "reasons": ["movement.modes"]}
    assert first["REV"]["word"] != "refused"
    assert session.attempted == [] and session.errors == []
    session.context.close()

"""The ruling explorer by keyboard and screen reader (issue 31, point 4), in headless Chromium.

No test here clicks: the reader tabs from the top of the page (the skip link first), picks
and moves a unit on the board with the arrow keys and Enter, changes the tools, selects and
rulesets with the keyboard, and the focus stays where it was after every change. The board
is a focusable list box of hexes, each labelled with what is in it, and is told in words
beside the picture; the rulings are announced in a live region as they arrive.
"""
from __future__ import annotations

import pytest

from harmony.games.panzerblitz import explorer as api
from test_explorer_browser import (Offline, computed, explorer, position, ready,  # noqa: F401
                                   settled, shown, site)

pytest.importorskip("playwright.sync_api")

#: a reader's own position: no page links it
OWN = {"map": {"columns": 8, "rows": 6, "hexes": {"E4": "woods", "F2": "town"}},
       "units": [{"id": "tank", "name": "German tank", "side": "German", "kind": "armoured", "class": "A",
                  "attack": 12, "range": 8, "defence": 8, "movement": 6, "at": "B3", "opportunity-fire": True},
                 {"id": "gun", "name": "Soviet gun", "side": "Soviet", "kind": "gun", "class": "A",
                  "attack": 10, "range": 8, "defence": 3, "movement": 1, "at": "F3", "opportunity-fire": True}],
       "start": {"side": "German", "phase": "movement"}, "rulesets": ["PB", "REV"], "steps": []}


def focused(page, selector: str) -> bool:
    return page.evaluate("s => !!document.activeElement && document.activeElement.matches(s)", selector)


def tab_to(page, selector: str, back: bool = False, limit: int = 80) -> None:
    """Press Tab (Shift+Tab with ``back``) until the focus is on ``selector``."""
    for _ in range(limit):
        if focused(page, selector):
            return
        page.keyboard.press("Shift+Tab" if back else "Tab")
    assert focused(page, selector), f"Tab never reached {selector}"


def ring(page) -> str:
    """The hex the board's ring is on, as the board tells assistive technology."""
    active = page.get_attribute("svg.hm-ex-board", "aria-activedescendant")
    assert active and active.startswith("hm-ex-hex-")
    return active.removeprefix("hm-ex-hex-")


def go_to(page, hex_: str) -> None:
    """Move the ring to ``hex_`` with the arrow keys (columns, then rows)."""
    for _ in range(40):
        here = ring(page)
        if here == hex_:
            return
        col, row = here[0], int(here[1:])
        want_col, want_row = hex_[0], int(hex_[1:])
        key = ("ArrowRight" if want_col > col else "ArrowLeft") if col != want_col else \
              ("ArrowDown" if want_row > row else "ArrowUp")
        page.keyboard.press(key)
    assert ring(page) == hex_


def label_of(page, hex_: str) -> str:
    return page.get_attribute(f'polygon[data-hex="{hex_}"]', "aria-label")


def words(page) -> str:
    return page.evaluate("document.getElementById('hm-ex-board-words').textContent")


@pytest.fixture()
def own_page(browser, site):  # noqa: F811
    session = Offline(browser, "file://", viewport={"width": 1280, "height": 900})
    session.page.goto((site / "explorer.html").as_uri() + "#position=" + api.encode(OWN))
    ready(session.page)
    yield session
    assert session.attempted == [] and session.errors == []
    session.context.close()


def test_a_position_is_decided_from_the_keyboard_alone(own_page, explorer):  # noqa: F811
    page = own_page.page
    link = page.evaluate("location.hash")
    # the page's first stop: the skip link, visible once focused; it leads into the explorer
    page.keyboard.press("Tab")
    assert focused(page, "a.hm-skip")
    box = page.locator("a.hm-skip").bounding_box()
    assert box and box["y"] >= 0 and box["width"] > 20
    page.keyboard.press("Enter")
    assert focused(page, "#hm-explorer")
    assert page.evaluate("location.hash") == link            # the position stays in the address
    # Tab reaches the board, then the tools; the arrow keys choose "move the unit picked",
    # and the focus stays on the tool chosen though the tools are drawn anew
    tab_to(page, "svg.hm-ex-board")
    tab_to(page, 'input[name="hm-ex-mode"]')
    for _ in range(6):
        if page.locator('input[data-mode="move"]').is_checked():
            break
        page.keyboard.press("ArrowRight")
        assert focused(page, 'input[name="hm-ex-mode"]:checked')
    assert page.locator('input[data-mode="move"]').is_checked()
    # back to the board: its ring starts on the first unit's hex, visible
    tab_to(page, "svg.hm-ex-board", back=True)
    assert ring(page) == "B3"
    assert page.evaluate("getComputedStyle(document.querySelector('polygon.hm-ex-cursor')).visibility") == "visible"
    assert page.get_attribute("polygon.hm-ex-cursor", "data-cursor") == "B3"
    assert "German tank" in label_of(page, "B3")
    # Enter picks the tank; the arrows and Enter move it hex by hex
    page.keyboard.press("Enter")
    assert "picked" in label_of(page, "B3") and "picked" in words(page)
    for hex_ in ("C3", "D3", "E3"):
        go_to(page, hex_)
        page.keyboard.press("Enter")
        assert focused(page, "svg.hm-ex-board")
    settled(page)
    pos = position(page)
    assert pos["steps"] == [{"move": {"unit": "tank", "path": ["C3", "D3", "E3"]}}]
    assert shown(page) == computed(explorer, pos)
    assert "step 2 of the move" in label_of(page, "D3")
    assert "through C3, D3, E3" in words(page)
    # the rulings are announced as they arrive: the live region's summary
    assert page.get_attribute("section.hm-ex-rulings", "aria-live") == "polite"
    summary = page.inner_text("p.hm-ex-summary")
    assert summary.startswith(f"Decided: {len(shown(page))} questions under PB, REV")
    # Escape lets go of the tank; the focus stays on the board
    page.keyboard.press("Escape")
    assert "picked" not in label_of(page, "B3") and focused(page, "svg.hm-ex-board")


def test_the_focus_stays_on_each_control_the_reader_changes(own_page):
    page = own_page.page
    page.keyboard.press("Tab")
    # the terrain to paint: a new value redraws the tools, and the focus stays on it
    tab_to(page, "select.hm-ex-terrain")
    before = page.eval_on_selector("select.hm-ex-terrain", "s => s.value")
    page.keyboard.press("ArrowDown")
    assert page.eval_on_selector("select.hm-ex-terrain", "s => s.value") != before
    assert focused(page, "select.hm-ex-terrain")
    assert page.locator('input[data-mode="terrain"]').is_checked()
    # the hexside to paint, and the move's mode, alike
    for select in ("select.hm-ex-hexside", "select.hm-ex-move-mode"):
        tab_to(page, select)
        before = page.eval_on_selector(select, "s => s.value")
        page.keyboard.press("ArrowDown")
        assert page.eval_on_selector(select, "s => s.value") != before, select
        assert focused(page, select), select
    # a ruleset ticked with the space bar: decided again, the focus on its box
    tab_to(page, 'input[data-ruleset="PL"]')
    page.keyboard.press("Space")
    settled(page)
    assert position(page)["rulesets"] == ["PB", "PL", "REV"]
    assert focused(page, 'input[data-ruleset="PL"]')
    # a field of the unit picked: its form is drawn anew, the focus stays on the field
    tab_to(page, "svg.hm-ex-board", back=True)
    tab_to(page, 'input[name="hm-ex-mode"]')
    while not page.locator('input[data-mode="place"]').is_checked():
        page.keyboard.press("ArrowLeft")
    tab_to(page, "svg.hm-ex-board", back=True)
    page.keyboard.press("Enter")                    # picks the tank on B3
    tab_to(page, 'select[data-field="kind"]')
    page.keyboard.press("ArrowDown")
    settled(page)
    assert focused(page, 'select[data-field="kind"]')
    assert next(u for u in position(page)["units"] if u["id"] == "tank")["kind"] != "armoured"


def test_the_board_is_told_in_words_in_step_with_the_picture(own_page):
    page = own_page.page
    board = page.locator("svg.hm-ex-board")
    assert board.get_attribute("role") == "listbox" and board.get_attribute("tabindex") == "0"
    assert board.get_attribute("aria-describedby") == "hm-ex-board-words"
    assert page.locator('svg.hm-ex-board [role="img"]').count() == 0
    assert page.locator('polygon[role="option"]').count() == 8 * 6
    text = words(page)
    assert "8 columns, A to H, by 6 rows" in text
    assert "town at F2" in text and "woods at E4" in text
    assert "German tank (German armoured, 12-8 8-6) at B3" in text and "Soviet gun" in text
    assert label_of(page, "E4") == "E4, woods" and label_of(page, "F3").startswith("F3, clear; Soviet gun")
    # by keyboard: paint E3 woods, place a unit on A1, paint the hexside above E3
    page.locator("svg.hm-ex-board").focus()
    page.keyboard.press("Tab")
    tab_to(page, "select.hm-ex-terrain")
    page.select_option("select.hm-ex-terrain", "woods")   # (the select itself is the keyboard's)
    tab_to(page, "svg.hm-ex-board", back=True)
    go_to(page, "E3")
    page.keyboard.press("Enter")
    settled(page)
    assert position(page)["map"]["hexes"]["E3"] == "woods"
    assert "woods at E3, E4" in words(page) and label_of(page, "E3") == "E3, woods"
    tab_to(page, 'input[name="hm-ex-mode"]')
    while not page.locator('input[data-mode="hexside"]').is_checked():
        page.keyboard.press("ArrowRight")
    tab_to(page, "svg.hm-ex-board", back=True)
    page.keyboard.press("Enter")
    assert "press the arrow key" in page.inner_text("p.hm-ex-status")
    page.keyboard.press("ArrowUp")
    settled(page)
    side = position(page)["map"]["hexsides"]
    assert side == [{"between": ["E2", "E3"], "type": page.eval_on_selector("select.hm-ex-hexside", "s => s.value")}]
    assert f"{side[0]['type']} between E2 and E3" in words(page)
    assert f"{side[0]['type']} toward E2" in label_of(page, "E3")
    tab_to(page, 'input[name="hm-ex-mode"]')
    while not page.locator('input[data-mode="place"]').is_checked():
        page.keyboard.press("ArrowLeft")
    tab_to(page, "svg.hm-ex-board", back=True)
    go_to(page, "A1")
    page.keyboard.press("Enter")
    settled(page)
    placed = [u for u in position(page)["units"] if u["at"] == "A1"]
    assert len(placed) == 1
    assert "at A1" in words(page) and (placed[0].get("name") or placed[0]["id"]) in label_of(page, "A1")

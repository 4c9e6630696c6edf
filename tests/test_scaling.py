"""What makes harmony scale changes no answer: card measures in batches, shared lines of
sight. (Speed itself is measured in bench/, never asserted here.)"""
from __future__ import annotations

import sys
from pathlib import Path

from harmony.games.panzerblitz import engine
from harmony.cards.collect import collect
from harmony.games.panzerblitz.engine import Game
from harmony.loader import load
from harmony.games.panzerblitz.terrain import HexMap
from harmony.games.panzerblitz.units import Unit

import harmony.cards.fit  # noqa: F401  (the module, not the function harmony.cards.fit)

fit = sys.modules["harmony.cards.fit"]
ROOT = Path(__file__).resolve().parent.parent


def test_measuring_in_batches_gives_the_measures_of_one_document(monkeypatch):
    model, _ = load(ROOT / "rules_data")
    cards = collect(model, None, None)[:7]
    fonts = [8.5] * len(cards)
    monkeypatch.setattr(fit, "MEASURE_BATCH", 1000)
    whole = fit.measure(cards, fonts, "poker")
    monkeypatch.setattr(fit, "MEASURE_BATCH", 3)
    batched = fit.measure(cards, fonts, "poker")
    assert len(batched) == len(cards) == 7
    assert batched == whole


def _game(hexes: dict) -> Game:
    m = HexMap.from_data({"columns": 10, "rows": 8, "hexes": hexes})
    units = [Unit.from_data({"id": "a", "name": "a", "side": "X", "kind": "infantry", "class": "I",
                             "attack": 4, "range": 3, "defence": 4, "movement": 2, "at": "A2"},
                            m.hex),
             Unit.from_data({"id": "b", "name": "b", "side": "Y", "kind": "infantry", "class": "I",
                             "attack": 4, "range": 3, "defence": 4, "movement": 2, "at": "J8"},
                            m.hex)]
    return Game(None, m, units, "X")


def test_games_on_the_same_terrain_share_lines_of_sight_and_a_change_is_seen():
    engine._SIGHTS.clear()
    one, two = _game({"D3": "woods"}), _game({"D3": "woods"})
    a, b = one.hex("A2"), one.hex("J8")
    assert not one.sees(a, b) and not two.sees(a, b)   # D3 woods block A2 to J8
    assert one.sights[-1] is two.sights[-1]          # drawn once, for both games
    clear = _game({})
    assert clear.sees(a, b) and clear.sights[-1] is not one.sights[-1]
    clear.map.hexes[clear.hex("D3")] = "woods"        # the map changes: sight drawn again
    assert not clear.sees(a, b)
    assert len(engine._SIGHTS) <= engine._SIGHT_MAPS

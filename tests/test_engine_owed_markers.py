"""Markers the spotting player must place himself (``spot.spotter-places-markers``, REV's
tournament rule): owed until placed, forfeited when the phase ends, never owed for a unit
spotted by adjacency, and switched by the clause cell alone."""
from __future__ import annotations

from harmony.games.panzerblitz.engine import Game
from harmony.ruleset import Ruleset

from editing import clean_model, edit


def _unit(uid, side, at, kind="armoured", movement=6):
    return {"id": uid, "side": side, "kind": kind, "class": "A", "attack": 10, "range": 8,
            "defence": 6, "movement": movement, "at": at, "opportunity-fire": True}


def _game(model, name, *extra, side="German", phase="movement"):
    units = [_unit("gun", "Soviet", "A3", kind="gun", movement=1), _unit("tank", "German", "D3"),
             *extra]
    return Game.from_data(Ruleset.from_model(model, name), {"columns": 6, "rows": 6,
                                                            "hexes": {"C3": "woods"}},
                          units, side=side, phase=phase)


def _enter_woods(g):
    g.begin_move("tank")
    return g.enter("C3")


def test_owed_marker_is_forfeited_at_the_end_of_the_phase(shipped_model):
    g = _game(shipped_model, "REV+tournament")
    entry = _enter_woods(g)
    assert entry.spotted.value is True and "spotting.tournament" in entry.spotted.reasons
    assert g.markers("tank").value == []
    assert g.spotted("tank").value is True          # spotted in this phase, marker owed
    g.end_turn()
    assert (g.side, g.phase) == ("Soviet", "fire")
    barred = g.can_fire(["gun"], "tank")
    assert barred.value is False and "spotting.tournament" in barred.reasons
    assert g.place_marker("tank").value is False


def test_placed_in_time_the_marker_stays(shipped_model):
    g = _game(shipped_model, "REV+tournament")
    _enter_woods(g)
    placed = g.place_marker("tank")
    assert placed.value is True and placed.reasons[-1] == "spotting.tournament"
    g.end_turn()
    assert g.markers("tank").value == ["spotted"]
    assert g.can_fire(["gun"], "tank").value is True


def test_an_owed_marker_lapses_when_the_unit_leaves_cover(shipped_model):
    g = _game(shipped_model, "REV+tournament")
    _enter_woods(g)
    g.enter("C4")                                     # open ground: no marker is used there
    assert g.place_marker("tank").value is False


def test_adjacent_spotting_is_marked_at_once(shipped_model):
    g = _game(shipped_model, "REV+tournament", _unit("rifles", "Soviet", "B3", kind="infantry",
                                                     movement=1))
    _enter_woods(g)
    assert g.markers("tank").value == ["spotted"]


def test_a_firer_spotted_from_afar_is_owed_its_marker(shipped_model):
    g = _game(shipped_model, "REV+tournament", side="German", phase="fire")
    g.unit("tank").hex = g.hex("C3")
    assert g.fire(["tank"], "gun", "none").value is True
    assert g.markers("tank").value == []
    g.end_phase()                                     # the fire phase is over: forfeited
    assert g.spotted("tank").value is False


def test_without_tournament_play_nothing_is_owed(shipped_model):
    g = _game(shipped_model, "REV")
    entry = _enter_woods(g)
    assert "spotting.tournament" not in entry.spotted.reasons
    assert g.markers("tank").value == ["spotted"]
    assert g.place_marker("tank").value is False


def test_the_cell_decides(rules_copy):
    edit(rules_copy, "spotting.yaml", "params: {spot.spotter-places-markers: true}",
         "params: {spot.spotter-places-markers: false}")
    changed = clean_model(rules_copy)
    g = _game(changed, "REV+tournament")
    _enter_woods(g)
    assert g.markers("tank").value == ["spotted"]

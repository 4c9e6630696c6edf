"""Interdiction after the attack: how often one indirect-fire unit may interdict in a phase
(``interdiction.per-firer-per-phase``) and whether it is turned face down, losing its next
player turn (``interdiction.firer-inverted``). Both are read from the clause cells of a copy
of rules_data, so changing a cell changes the ruling."""
from __future__ import annotations

import pytest

from harmony.games.panzerblitz.engine import EngineError, Game
from harmony.ruleset import Ruleset

from editing import clean_model, edit


def _units():
    base = {"kind": "gun", "class": "(H)", "attack": 20, "range": 30, "defence": 2, "movement": 1}
    return [
        {**base, "id": "h1", "side": "Soviet", "at": "A1", "registration": ["D3", "D5"]},
        {"id": "t1", "side": "German", "kind": "armoured", "class": "A", "attack": 12, "range": 8,
         "defence": 8, "movement": 6, "at": "F3"},
        {"id": "t2", "side": "German", "kind": "armoured", "class": "A", "attack": 12, "range": 8,
         "defence": 8, "movement": 6, "at": "F5"},
    ]


def _game(model) -> Game:
    return Game.from_data(Ruleset.from_model(model, "REV"), {"columns": 8, "rows": 8}, _units(),
                          side="German", phase="movement")


def _walk(g: Game, uid: str, path: list[str]):
    g.begin_move(uid)
    return [g.enter(h) for h in path][-1]


def _second_attack(model):
    """h1 interdicts t1 at D3; what is open on t2 as it enters D5, h1's other hex?"""
    g = _game(model)
    assert _walk(g, "t1", ["E3", "D3"]).interdiction.value == [{"firer": "h1", "hex": "D3", "drm": 0}]
    made = g.interdict("h1", "none")
    assert made.value is True
    g.end_move()
    return g, made, _walk(g, "t2", ["E5", "D5"]).interdiction


def test_shipped_rev_one_interdiction_a_unit_and_the_firer_turned_down(shipped_model):
    g, made, second = _second_attack(shipped_model)
    assert "interdiction.recording" not in made.reasons      # the attack's ruling is the target's
    assert g.unit("h1").face_up is False
    assert second.value == []
    assert second.settings["interdiction.per-firer-per-phase"].cell == "interdiction.rule@REV"
    assert "made its interdiction attack this phase" in second.detail


def test_face_down_interdictor_loses_its_next_turn(shipped_model):
    g, _, _ = _second_attack(shipped_model)
    g.end_turn()                                 # the German turn ends: Soviet fire phase
    assert (g.side, g.phase, g.unit("h1").face_up) == ("Soviet", "fire", False)
    barred = g.can_fire(["h1"], "t1")
    assert barred.value is False
    assert barred.reasons == ["interdiction.recording", "sequence.face-up"]
    assert barred.settings["interdiction.firer-inverted"].cell == "interdiction.recording@REV"
    assert barred.settings["sequence.face-up"].cell == "sequence.face-up@REV"
    g.end_phase()
    with pytest.raises(EngineError) as refused:
        g.begin_move("h1")
    assert refused.value.clause == "sequence.fire-or-move"
    g.end_turn()                                 # its own turn over: face up again
    assert g.unit("h1").face_up is True


def test_changing_the_interdiction_cells_changes_the_rulings(rules_copy):
    edit(rules_copy, "interdiction.yaml", "interdiction.per-firer-per-phase: 1}",
         "interdiction.per-firer-per-phase: 2}")
    edit(rules_copy, "interdiction.yaml", "params: {interdiction.firer-inverted: true}",
         "params: {interdiction.firer-inverted: false}")
    changed = clean_model(rules_copy)
    g, made, second = _second_attack(changed)
    assert g.unit("h1").face_up is True         # not turned down: it may interdict again
    assert second.value == [{"firer": "h1", "hex": "D5", "drm": 0}]
    assert second.settings["interdiction.per-firer-per-phase"].value == 2
    assert g.interdict("h1", "none").value is True
    assert g.unit("h1").face_up is True


def test_per_firer_limit_alone_bars_a_face_up_firer(rules_copy):
    """With the firer left face up, the once-a-phase limit is what stops a second attack."""
    edit(rules_copy, "interdiction.yaml", "params: {interdiction.firer-inverted: true}",
         "params: {interdiction.firer-inverted: false}")
    changed = clean_model(rules_copy)
    g, _, second = _second_attack(changed)
    assert g.unit("h1").face_up is True
    assert second.value == []
    assert "interdiction.rule" in second.reasons
    assert "(1 a unit)" in second.detail

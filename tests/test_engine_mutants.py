"""Rulings the engine's other tests left unpinned: each test here was written for a mutant of
the engine modules that survived them (``bench/mutation.py``), and is named for the behaviour
it pins. The units and maps are built as in ``test_engine.py``, on rulesets resolved from the
shipped rules_data."""
from __future__ import annotations

import pytest

from harmony.engine import EngineError
from harmony.scenario import ruleset_for

import test_db as db
from test_engine import gun, new_game, tank, unit, walk


@pytest.fixture(scope="module")
def model(shipped_model):
    return shipped_model


# ------------------------------------------------------------------ who may fire

def test_an_eliminated_unit_cannot_fire(model):
    g = new_game(model, "PB", [gun("g", "A1"), tank("t", "D1")], side="Soviet", phase="fire")
    assert g.can_fire(["g"], "t").value is True
    g.unit("g").eliminated = True
    r = g.can_fire(["g"], "t")
    assert r.value is False and r.detail == "g is eliminated"
    assert g.fire(["g"], "t", "X").value is False and not g.unit("t").eliminated


def test_a_loaded_unit_cannot_fire(model):
    units = [unit("truck", "Soviet", "A1", kind="truck", attack=0, range=0),
             gun("g", "A1", loaded_in="truck"), tank("t", "D1")]
    g = new_game(model, "PB", units, side="Soviet", phase="fire")
    r = g.can_fire(["g"], "t")
    assert r.value is False and r.detail == "g is loaded"
    g.unit("g").loaded_in = None                 # unloaded, the same gun may fire
    assert g.can_fire(["g"], "t").value is True


def test_a_loaded_unit_cannot_make_opportunity_fire(model):
    units = [unit("truck", "Soviet", "A4", kind="truck", attack=0, range=0),
             gun("loaded", "A4", loaded_in="truck"), gun("free", "A3"), tank("t", "D1")]
    g = new_game(model, "REV", units)
    e = walk(g, "t", ["D2"])[0]
    assert [o["firers"] for o in e.opfire.value] == [["free"]]


def test_an_eliminated_unit_is_not_spotted(model):
    g = new_game(model, "REV", [gun("g", "A4"), tank("t", "D4")])
    assert g.spotted("t").value is True
    g.unit("t").eliminated = True
    r = g.spotted("t")
    assert r.value is False and r.detail == "eliminated"


# ------------------------------------------------------------------ moving

def test_a_step_refused_by_a_barrier_names_the_barriers_clause(model):
    g = db.game(ruleset_for(model, "DB"), [db.tank("t", "B3")], blocks={"C3": "Soviet"})
    g.begin_move("t")
    with pytest.raises(EngineError, match="block stands in C3") as e:
        g.enter("C3")
    assert e.value.clause == "double-blind.movement"

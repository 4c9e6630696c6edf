"""Rulings the engine's other tests left unpinned: each test here was written for a mutant of
the engine modules that survived them (``bench/mutation.py``), and is named for the behaviour
it pins. The units and maps are built as in ``test_engine.py``, on rulesets resolved from the
shipped rules_data."""
from __future__ import annotations

import pytest

from harmony.games.panzerblitz.engine import EngineError, Game
from harmony.games.panzerblitz.hexgrid import parse_label as P
from harmony.model import Cell, Clause, Model, Parameter, Source
from harmony.ruleset import Ruleset
from harmony.rulings import Why
from harmony.ruleset import ruleset_for

import test_db as db
from test_engine import cites, gun, new_game, tank, unit, walk


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


def test_an_eliminated_unit_a_dispersed_one_and_an_excluded_class_may_not_spot(model):
    g = new_game(model, "REV", [gun("g", "A4"), gun("c", "A5", cls="C"), tank("t", "D4")])
    why = Why(g.rules)
    assert g.may_spot(g.unit("g"), why) is True
    assert g.may_spot(g.unit("c"), why) is False            # REV excludes class C spotters
    g.unit("g").dispersal = "D"
    assert g.may_spot(g.unit("g"), why) is False
    g.unit("g").dispersal = "none"
    g.unit("g").eliminated = True
    assert g.may_spot(g.unit("g"), why) is False


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



def test_beginning_a_move_ends_the_move_in_progress(model):
    g = new_game(model, "REV", [gun("g", "A1", range=6), tank("t", "D1"), tank("t2", "H8")])
    walk(g, "t", ["D2", "D3"])
    assert g.last_move is None
    g.begin_move("t2")                              # no end_move: beginning one ends the other
    assert g.move.unit == "t2" and g.last_move.unit == "t"
    assert [e.hex for e in g.last_move.entries] == ["D2", "D3"] and g.where("t") == "D3"
    g.enter("H7")
    g.end_move()
    assert g.last_move.unit == "t2" and g.moves == {"t": 1, "t2": 1}


# ------------------------------------------------------------ opportunity fire, interdiction

def test_without_opportunity_fire_nothing_is_open_at_an_earlier_hex_of_the_move(model):
    g = new_game(model, "PB", [gun("g", "A1", range=6), tank("t", "D1")])
    walk(g, "t", ["D2", "D3"])
    r = g.retrace_options("t", "D2")
    assert r.value == [] and r.detail == "the rulebook has no opportunity fire"
    assert g.opportunity_fire(["g"], "X", at="D2").value is False and g.where("t") == "D3"


def test_a_mover_taken_back_has_the_path_up_to_the_hex_it_was_taken_back_to(model):
    g = new_game(model, "REV", [gun("g", "A1", range=6), tank("t", "D1")])
    walk(g, "t", ["D2", "D3", "D4"])
    assert g.opportunity_fire(["g"], "none", at="D2").value is True
    assert g.move.path == [P("D2")]
    g.enter("D3")
    assert g.move.path == [P("D2"), P("D3")]


def test_a_mover_stopped_by_interdiction_may_not_be_interdicted_again(model):
    from test_engine import INTERDICTION_MAP, _interdiction_units
    g = new_game(model, "REV", _interdiction_units(), INTERDICTION_MAP)
    e = walk(g, "t", ["D2", "D3"])[-1]
    assert e.interdiction.value == [{"firer": "how-1", "hex": "D3", "drm": 0}]
    assert g.interdict("how-1", "D").value is True and g.move.stopped
    r = g.interdiction_options("t")
    assert r.value == [] and r.detail == "the mover has stopped: its move is over"


def test_without_retracing_a_move_in_progress_is_attacked_only_as_it_enters_a_hex(model):
    """AIW has opportunity fire but no retracing: while the mover moves, an earlier hex of its
    move is closed, and the hex it stands in has what is open now."""
    g = new_game(model, "AIW", [gun("g", "A1", range=6), tank("t", "D1")])
    walk(g, "t", ["D2", "D3"])
    r = g.retrace_options("t", "D2")
    assert r.value == [] and r.detail == ("no retracing: an attack is announced as the mover "
                                          "enters a hex")
    cites(model, r, "opportunity-fire.when-attacked")
    assert g.retrace_options("t", "D3") == g.opfire_options("t")


def test_without_retracing_a_finished_move_is_over(model):
    """AIW: once the move has ended, the mover is not taken back, whether the next move has
    begun or not."""
    g = new_game(model, "AIW", [gun("g", "A1", range=6), tank("t", "D1"), tank("t2", "H8")])
    walk(g, "t", ["D2", "D3"])
    g.end_move()
    over = "no retracing: an attack is announced as the mover enters a hex, and its move is over"
    r = g.retrace_options("t", "D2")
    assert r.value == [] and r.detail == over
    g.begin_move("t2")                              # the finished move is no longer retraceable
    r = g.retrace_options("t", "D2")
    assert r.value == [] and r.detail == over
    cites(model, r, "opportunity-fire.when-attacked")
    assert g.where("t") == "D3" and g.unit("g").face_up


# ------------------------------------------------------------------ markers and turns

def test_a_promoted_opportunity_marker_keeps_the_history_of_the_spotted_marker_it_also_had(model):
    """REV turns an opportunity spotted marker to its spotted side as the enemy turn ends; a
    spotted marker the unit also carried (here a gun's, kept on by the turn-end rule since
    it cannot move) stays in the promoted marker's reasons."""
    g = new_game(model, "REV", [gun("g", "D4", movement=0, markers=["spotted", "opportunity-spotted"]),
                                tank("t", "D1")], hexes={"D4": "woods"})
    g.end_turn()
    r = g.markers("g")
    assert r.value == ["spotted"]
    assert "turned over by markers.opportunity-spotted" in r.detail
    # the kept spotted marker's own ruling: the turn-end rule that spared it
    assert "spot.turn-end-clears-movers" in r.settings


def test_player_turns_pass_in_the_order_the_sides_are_listed(model):
    rs = Ruleset.from_model(model, "PB")
    units = [tank("a", "A1"), unit("b", "Soviet", "H8"), unit("c", "Polish", "A8")]
    g = Game.from_data(rs, {"columns": 8, "rows": 8}, units, side="German", phase="movement")
    order = []
    for _ in range(4):
        g.end_turn()
        order.append(g.side)
    assert order == ["Soviet", "Polish", "German", "Soviet"]


# ------------------------------------------------------------------ the referee

def test_a_blind_order_spends_the_movement_points_it_gives_per_hex(model):
    from harmony.games.panzerblitz.referee import Intent, Referee
    g = db.game(ruleset_for(model, "DB"), [db.tank("t", "B3")])
    Referee(g).replay([Intent("t", ["C3", "D3", "E3"], mp=[2, 3])])
    assert [e.mp for e in g.last_move.entries] == [2, 3, 1]      # the last hex: its terrain's
    assert g.last_move.spent == 6 and g.where("t") == "E3"


def test_each_spotting_step_counts_one_and_its_shows_carry_its_number(model):
    from harmony.games.panzerblitz.referee import Referee
    g = db.game(ruleset_for(model, "DB"), [db.tank("t", "B2"), db.squad("s", "D2")])
    ref = Referee(g)
    ref.spotting_step()
    ref.spotting_step()
    assert ref.epoch == 2
    assert [(e.epoch, e.side, e.thing) for e in ref.events] == [
        (1, "German", "s"), (1, "Soviet", "t"), (2, "German", "s"), (2, "Soviet", "t")]


def test_cargo_of_a_mover_that_never_reached_its_declared_overrun_unloads_where_it_stands(model):
    from harmony.games.panzerblitz.referee import Intent, Referee
    units = [db.tank("ht", "B4", kind="halftrack", overrun=True),
             db.squad("rifles", "B4", side="German", **{"loaded-in": "ht"}),
             db.squad("truck", "G4", kind="truck")]
    g = db.game(ruleset_for(model, "DB"), units)
    ref = Referee(g)
    ref.replay([Intent("ht", ["C4", "D4"], overrun="truck", unload=True)])
    assert ref.unloads["rifles"].value == "D4" and g.where("rifles") == "D4"


def test_moves_are_replayed_blind_only_where_the_rules_have_a_referee(model):
    from harmony.games.panzerblitz.referee import Referee
    assert Referee(db.game(ruleset_for(model, "DB"), [db.tank("t", "B3")])).replays() is True
    assert Referee(db.game(ruleset_for(model, "PB"), [db.tank("t", "B3")])).replays() is False


@pytest.mark.parametrize("limit, unloaded", [(2, True), (1, False)])
def test_cargo_is_not_unloaded_into_a_hex_it_would_overstack(model, limit, unloaded):
    from harmony.games.panzerblitz.referee import Intent, Referee
    units = [db.tank("ht", "B4", kind="halftrack"),
             db.squad("rifles", "B4", side="German", **{"loaded-in": "ht"})]
    g = db.game(ruleset_for(model, "DB"), units)
    g.stacking = {"German": limit}
    ref = Referee(g)
    ref.replay([Intent("ht", ["C4"], unload=True)])
    assert ("rifles" in ref.unloads) is unloaded
    assert g.unit("rifles").loaded_in == (None if unloaded else "ht")
    if not unloaded:
        assert ref.unload_rule.detail == "C4 would be overstacked"


# ------------------------------------------------------------------ rulesets

@pytest.mark.parametrize("name, pname, by_cell", [
    ("REV", "interdiction.drm", True),              # REV's own cell
    ("REV", "sequence.moves-per-phase", True),      # its base PB's cell
    ("REV", "spot.concealed-movement", False),      # an option that is off
    ("REV", "opfire.per-firer-per-phase", False),   # a row where REV says nothing
    ("REV", "move.mines-stop", False),              # the declared default
])
def test_a_setting_is_set_by_a_cell_only_when_the_ruleset_or_its_base_gives_the_value(
        model, name, pname, by_cell):
    s = Ruleset.from_model(model, name).setting(pname)
    assert s.set_by_cell is by_cell, s


def _two_optional_rules() -> Model:
    """A source X whose two optional rules (options one and two) both set p.q; no plain rule."""
    def clause(cid: str, option: str) -> Clause:
        return Clause(id=cid, file="r.yaml", cells={"X": Cell(
            source="X", status="optional", option=option, params={"p.q": 2}, clause_id=cid)})
    return Model(sources={"X": Source(key="X")},
                 parameters={"p.q": Parameter(name="p.q", type="int", default=0)},
                 clauses={c.id: c for c in (clause("a.first", "one"), clause("b.second", "two"))})


@pytest.mark.parametrize("name, value, clause, origin", [
    ("X", 0, "a.first", "option-off"),          # both off: the first optional rule is named
    ("X+two", 2, "b.second", "own"),
    ("X+one+two", 2, "a.first", "own"),         # both on: the first sets it
])
def test_the_first_optional_rule_of_a_parameter_decides_it_when_its_options_are_off(
        name, value, clause, origin):
    s = Ruleset.from_model(_two_optional_rules(), name).setting("p.q")
    assert (s.value, s.clause, s.origin) == (value, clause, origin)


def test_a_ruleset_as_data_gives_each_parameter_its_value_clause_cell_and_origin(model):
    data = Ruleset.from_model(model, "REV").as_data()
    assert data["opfire.range-fraction"] == {"value": "1/2", "clause": "opportunity-fire.rule",
                                             "cell": "opportunity-fire.rule@REV", "origin": "own"}
    assert data["move.mines-stop"]["origin"] == "default"
    assert sorted(data) == sorted(model.parameters)


# ------------------------------------------------------------------ the Combat Patrol calculator

def test_hits_on_a_soft_skinned_vehicle_are_counted_from_one(model):
    from harmony.games.combatpatrol.calculator import CombatPatrol
    cp = CombatPatrol(model)
    assert [cp.soft_skinned_place(1, h) for h in (1, 2, 3)] == [1, 2, 1]
    with pytest.raises(ValueError):
        cp.soft_skinned_place(1, 0)


# ------------------------------------------------------------------ knowledge

def test_a_show_is_the_thing_shown_to_a_side_at_a_step_whatever_ruling_showed_it():
    from harmony.games.panzerblitz.knowledge import Shown
    from harmony.rulings import Ruling
    a = Shown(1, "German", "unit", "s", "D2", Ruling(True, ["double-blind.spotting-step"]))
    b = Shown(1, "German", "unit", "s", "D2", Ruling(True, ["double-blind.after-movement"]))
    assert a == b and len({a, b}) == 1
    assert a != Shown(2, "German", "unit", "s", "D2", a.ruling)


# ------------------------------------------------------------------ scenario steps

def _move_step(mp):
    from harmony.games.panzerblitz.steps import parse_steps
    from harmony.model import Scenario
    return parse_steps(Scenario(id="s", file="s.yaml", data={"steps": [
        {"move": {"unit": "t", "path": ["C2", "C3"], "mp": mp}}]}))


def test_movement_points_of_a_scenario_move_run_from_0_to_99():
    ok = _move_step([0, 99])
    assert not ok.problems and list(ok.steps[0].action.mp) == [0, 99]
    bad = _move_step([100])
    assert [d.message for d in bad.problems] == [
        "scenario s: item 1 of the mp of the move of step 1 is a number of movement points "
        "from 0 to 99, not the number 100"]
    assert bad.bad == frozenset({0}) and bad.steps[0].action is None


def test_a_question_whose_ask_cannot_be_read_is_left_out_of_its_step():
    from harmony.games.panzerblitz.steps import Spotted, parse_steps
    from harmony.model import Scenario
    rulings = {"PB": {"value": True, "because": ["spotting.spotted"]}}
    parsed = parse_steps(Scenario(id="s", file="s.yaml", data={"steps": [
        {"move": {"unit": "t", "path": ["C2", "C3"]}, "expect": [
            {"question": "Seen?", "ask": {"spotted": "t", "target": "g"}, "rulings": rulings},
            {"question": "Seen in C3?", "ask": {"spotted": "t", "at": "C3"}, "rulings": rulings}]}]}))
    assert [d.message for d in parsed.problems] == [
        "scenario s: 'target' goes with a can-fire question, not spotted"]
    assert parsed.bad == frozenset({0})
    (kept,) = parsed.steps[0].expect                # the first question is not asked at all
    assert (kept.index, kept.question, type(kept.ask), kept.ask.at) == (1, "Seen in C3?", Spotted, "C3")


def test_steps_read_from_a_scenario_are_equal_wherever_they_were_written(model):
    """Every step value carries its position, for messages; two readings of the same steps
    from different files and lines are equal: moves, attacks, fire, ends, blind orders, asks
    and expected rulings alike."""
    from harmony.games.panzerblitz.steps import Attack, Orders, parse_steps
    from harmony.model import Scenario
    seen = set()
    for sc in model.scenarios.values():
        here = parse_steps(sc)
        if here.problems:                           # not the hex engine's steps (Combat Patrol)
            continue
        there = parse_steps(Scenario(id=sc.id, file="elsewhere.yaml", data=sc.data))
        assert here.steps == there.steps, sc.id
        for a, b in zip(here.steps, there.steps):
            assert a.pos.path == sc.file and b.pos.path == "elsewhere.yaml"
            seen.add(a.kind)
            if isinstance(a.action, Orders):
                assert a.action == b.action and a.action.pos != b.action.pos
            if a.kind == "move" and a.action.attacks:
                assert isinstance(a.action.attacks[0], Attack)
                seen.add("attack")
    assert seen >= {"move", "fire", "end", "orders", "ask", "attack"}

"""The rules engine's public API, played on rulesets built from the shipped rules_data.

Every test builds its rulesets with ``Ruleset.from_model`` from the model that
``harmony.loader.load`` reads from ``rules_data/``, so each ruling depends on
the clauses as shipped, and every reason a ruling gives must be a clause id of
that model.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harmony.engine import EngineError, Game
from harmony.hexgrid import distance, parse_label as P
from harmony.loader import load
from harmony.ruleset import Ruleset, RulesetError
from harmony.rulings import Ruling
from harmony.scenario import run_scenario

RULES = Path(__file__).resolve().parent.parent / "rules_data"


@pytest.fixture(scope="module")
def model():
    m, report = load(RULES)
    assert not list(report.diagnostics) if hasattr(report, "diagnostics") else True
    return m


def unit(uid, side, at, *, kind="armoured", cls="A", attack=10, range=8, defence=6, movement=6,
         **extra):
    d = {"id": uid, "side": side, "kind": kind, "class": cls, "attack": attack, "range": range,
         "defence": defence, "movement": movement, "at": at}
    d.update({k.replace("_", "-"): v for k, v in extra.items()})
    return d


def gun(uid, at, **kw):
    kw = {"kind": "gun", "movement": 1, "defence": 3, **kw}
    return unit(uid, "Soviet", at, **kw)


def tank(uid, at, **kw):
    return unit(uid, "German", at, **kw)


def new_game(model, name, units, hexes=None, side="German", phase="movement", columns=8, rows=8,
             hexsides=None):
    rs = Ruleset.from_model(model, name)
    data = {"columns": columns, "rows": rows, "hexes": hexes or {}}
    if hexsides:
        data["hexsides"] = hexsides
    return Game.from_data(rs, data, units, side=side, phase=phase)


def cites(model, ruling: Ruling, *expected: str) -> None:
    """Every reason is a clause of the model, and the expected ones are among them."""
    assert isinstance(ruling, Ruling)
    assert ruling.reasons == sorted(set(ruling.reasons))
    unknown = [r for r in ruling.reasons if r not in model.clauses]
    assert not unknown, f"reasons name no clause: {unknown}"
    missing = [e for e in expected if e not in ruling.reasons]
    assert not missing, f"{missing} not among the reasons {ruling.reasons} ({ruling.detail})"


def walk(game, uid, path, mode="normal", overrun=None):
    """Move ``uid`` along ``path``; the entries, one per hex."""
    game.begin_move(uid, mode, overrun)
    return [game.enter(h) for h in path]


# ------------------------------------------------------------------ rulesets

def test_rulesets_resolve_from_the_shipped_clauses(model):
    rev = Ruleset.from_model(model, "REV")
    assert rev.chain == ("REV", "PB")
    assert str(rev["opfire.range-fraction"]) == "1/2"
    s = rev.setting("opfire.range-fraction")
    assert (s.clause, s.source, s.origin) == ("opportunity-fire.rule", "REV", "own")
    # REV says nothing of open-terrain spotting beyond PB, or it says the same: either way a clause
    assert rev.setting("spot.open-terrain-los").clause in model.clauses
    pl = Ruleset.from_model(model, "PL")
    assert pl["opfire.enabled"] is False
    assert pl.setting("opfire.enabled").origin == "option-off"
    assert Ruleset.from_model(model, "PL+opportunity-fire")["opfire.enabled"] is True
    assert all(c in model.clauses for c in rev.clauses())


@pytest.mark.parametrize("name", ["XX", "REV+no-such-option", "PB+opportunity-fire"])
def test_unknown_ruleset_is_a_clear_error(model, name):
    with pytest.raises(RulesetError, match="unknown ruleset source|has no option"):
        Ruleset.from_model(model, name)


# ----------------------------------------------------------------- scenarios

def test_a_shipped_scenario_plays_and_cites_real_clauses(model):
    result = run_scenario(model, "rev-figure-1")
    assert result.ok, "\n".join(r.explain() for r in result.rulings if not r.ok)
    assert result.rulings
    for row in result.rulings:
        assert all(c in model.clauses for c in row.reasons), row.explain()


def test_a_game_from_a_scenario_file_moves_its_units(model):
    data = model.scenarios["rev-once-per-target"].data
    g = Game.from_data(Ruleset.from_model(model, "REV"), data["map"], data["units"],
                       data["start"]["side"], data["start"]["phase"])
    walk(g, "german-tank", ["D2", "D3"])
    assert g.where("german-tank") == "D3"
    assert [e.hex for e in g.move.entries] == ["D2", "D3"]


# ------------------------------------------------------------------ movement

def test_move_hex_by_hex_spends_movement_points(model):
    g = new_game(model, "PB", [tank("t", "D1", movement=3), gun("g", "A8")])
    g.begin_move("t")
    e = g.enter("D2")
    assert (e.hex, e.mp, g.move.spent) == ("D2", 1, 1)
    g.enter("D3")
    g.enter("E3")
    assert g.where("t") == "E3" and g.move.spent == 3
    with pytest.raises(EngineError, match="spent 3 of its 3 movement points"):
        g.enter("E4")
    g.end_move()
    assert g.move is None and [e.hex for e in g.last_move.entries] == ["D2", "D3", "E3"]


@pytest.mark.parametrize("order,message", [
    (lambda g: g.enter("D2"), "no unit is moving"),
    (lambda g: g.begin_move("nobody"), "no unit 'nobody'"),
    (lambda g: g.spotted("nobody"), "no unit 'nobody'"),
    (lambda g: g.opfire_options("nobody"), "no unit 'nobody'"),
    (lambda g: g.begin_move("g"), "cannot move now"),
    (lambda g: (g.begin_move("t"), g.enter("D5")), "not adjacent"),
    (lambda g: (g.begin_move("t"), g.enter("Z99")), "off the map"),
    (lambda g: (g.begin_move("t"), g.enter("d2")), "not a hex label"),
    (lambda g: g.begin_move("t", "sideways"), "unknown movement mode"),
    (lambda g: (g.begin_move("t", "concealed"), g.enter("D2"), g.enter("D3")), "one adjacent hex"),
    (lambda g: (g.begin_move("t", "revealed"), g.enter("D2")), "revealed movement stays"),
    (lambda g: g.opportunity_fire(["g"], "none"), "needs a unit on the move"),
    (lambda g: g.interdict("g", "none"), "needs a unit on the move"),
    (lambda g: g.los("A1", "Q1"), "off the map"),
    (lambda g: g.fire(["nobody"], "t", "none"), "no unit 'nobody'"),
    (lambda g: g.fire([], "t", "none"), "no firing unit"),
    (lambda g: (g.end_phase(), g.fire(["g"], "t", "Q")), "unknown combat result"),
    (lambda g: g.fire(["g"], "t", "Q"), "unknown combat result"),   # even when fire is not allowed
    (lambda g: (g.begin_move("t"), g.enter("D2"), g.interdict("g", "Q")), "unknown combat result"),
    (lambda g: (g.begin_move("t"), g.enter("D2"), g.opportunity_fire(["g"], "Q")),
     "unknown combat result"),
])
def test_impossible_orders_raise_engine_error(model, order, message):
    g = new_game(model, "REV", [tank("t", "D1"), gun("g", "D4")])
    with pytest.raises(EngineError, match=message):
        order(g)


def test_bad_setup_raises_engine_error(model):
    rs = Ruleset.from_model(model, "PB")
    with pytest.raises(EngineError, match="two units have the id 't'"):
        Game.from_data(rs, {"columns": 4, "rows": 4}, [tank("t", "A1"), tank("t", "A2")], "German")
    with pytest.raises(EngineError, match="unknown phase"):
        Game.from_data(rs, {"columns": 4, "rows": 4}, [tank("t", "A1")], "German", phase="lunch")
    with pytest.raises(EngineError, match="not a unit"):
        Game.from_data(rs, {"columns": 4, "rows": 4}, [unit("i", "German", "A1", loaded_in="x")],
                       "German")


# -------------------------------------------------------------- direct fire

def test_direct_fire_outcomes(model):
    g = new_game(model, "PB", [gun("g1", "A1"), gun("g2", "A2"), gun("g3", "A3"),
                               tank("t1", "D1"), tank("t2", "D3")], side="Soviet", phase="fire")
    r = g.fire(["g1"], "t1", "D")
    assert r.value is True
    cites(model, r, "spotting.rule")
    assert g.unit("t1").dispersal == "D" and not g.unit("g1").face_up
    # a face-down unit may not fire again
    r = g.can_fire(["g1"], "t2")
    assert r.value is False and "face down" in r.detail
    # DD on a dispersed unit eliminates it
    assert g.fire(["g2"], "t1", "DD").value is True
    assert g.unit("t1").eliminated and g.where("t1") == "eliminated"
    assert g.can_fire(["g3"], "t1").value is False
    assert g.fire(["g3"], "t2", "X").value is True and g.unit("t2").eliminated


def test_direct_fire_outcome_none_and_dd(model):
    g = new_game(model, "PB", [gun("g1", "A1"), gun("g2", "A2"), tank("t1", "D1")],
                 side="Soviet", phase="fire")
    g.fire(["g1"], "t1", "none")
    assert g.unit("t1").dispersal == "none" and not g.unit("t1").eliminated
    g.fire(["g2"], "t1", "DD")
    assert g.unit("t1").dispersal == "DD" and not g.unit("t1").eliminated


def test_fire_only_in_own_fire_phase_and_not_at_friends(model):
    g = new_game(model, "PB", [gun("g1", "A1"), gun("g2", "A2"), tank("t1", "D1")],
                 side="German", phase="movement")
    r = g.can_fire(["g1"], "t1")
    assert r.value is False and "own fire phase" in r.detail
    g.end_turn()
    assert (g.side, g.phase) == ("Soviet", "fire")
    r = g.can_fire(["g1"], "g2")
    assert r.value is False and "same side" in r.detail
    far = new_game(model, "PB", [gun("g", "A1", range=2), tank("t", "D8")], side="Soviet",
                   phase="fire")
    r = far.can_fire(["g"], "t")
    assert r.value is False and "out of" in r.detail


def test_a_unit_in_woods_is_fired_on_only_when_spotted(model):
    g = new_game(model, "PB", [gun("g", "A4"), gun("g2", "D5"), tank("t", "D2")],
                 hexes={"D2": "woods"}, side="Soviet", phase="fire")
    r = g.can_fire(["g"], "t")
    assert r.value is False and "not spotted" in r.detail
    cites(model, r, "spotting.spotted")
    g.unit("g2").hex = P("D3")                   # now adjacent: PB's only way to spot in woods
    r = g.can_fire(["g"], "t")
    assert r.value is True
    cites(model, r, "spotting.spotted")


# ------------------------------------------------------------ the sequence

def test_end_phase_and_turn(model):
    g = new_game(model, "PB", [gun("g", "A1"), tank("t", "D1")], side="Soviet", phase="fire")
    assert (g.turn, g.side, g.phase) == (1, "Soviet", "fire")
    g.fire(["g"], "t", "D")
    g.end_phase()
    assert (g.turn, g.side, g.phase) == (1, "Soviet", "movement")
    g.end_phase()
    assert (g.turn, g.side, g.phase) == (2, "German", "fire")
    assert g.unit("g").face_up                    # turned face up as its player turn ended
    assert g.unit("t").dispersed                  # still dispersed through its own turn
    r = g.can_fire(["t"], "g")
    assert r.value is False and "dispersed" in r.detail
    g.end_turn()
    assert (g.turn, g.side, g.phase) == (3, "Soviet", "fire")
    assert not g.unit("t").dispersed              # recovers at the end of its own turn


def test_end_phase_ends_a_move_in_progress(model):
    g = new_game(model, "PB", [gun("g", "A1"), tank("t", "D1")])
    g.begin_move("t")
    g.enter("D2")
    g.end_phase()
    assert g.move is None and g.side == "Soviet" and g.where("t") == "D2"


# ----------------------------------------------------------------- spotting

def test_spotted_by_a_side(model):
    g = new_game(model, "REV", [gun("g", "A4"), tank("t", "F4"), tank("t2", "F6")])
    r = g.spotted("t", by="Soviet")
    assert r.value is True and "seen by g" in r.detail
    cites(model, r, "spotting.note", "spotting.limitation")
    assert g.spotted("t", by="German").value is False      # its own side never spots it
    assert g.spotted("g", by="German").value is True


def test_dispersed_units_do_not_spot(model):
    for name in ("PB", "PL", "AIW", "REV"):
        g = new_game(model, name, [gun("g", "A4", dispersal="D"), tank("t", "F4")])
        r = g.spotted("t")
        assert r.value is False, name
        cites(model, r, "spotting.limitation")


@pytest.mark.parametrize("name,truck_spots", [("PB", True), ("PL", False), ("AIW", False),
                                              ("REV", True)])
def test_trucks_spot_where_the_rulebook_lets_them(model, name, truck_spots):
    g = new_game(model, name, [unit("truck", "Soviet", "D3", kind="truck", attack=0, range=0),
                               tank("t", "D4")], hexes={"D4": "woods"})
    r = g.spotted("t")
    assert r.value is truck_spots
    cites(model, r, "spotting.limitation")


def test_rev_c_class_may_not_spot_but_ci_may(model):
    g = new_game(model, "REV", [gun("c", "D3", cls="C"), tank("t", "D4")], hexes={"D4": "woods"})
    assert g.spotted("t").value is False
    g = new_game(model, "REV", [gun("ci", "D3", cls="C(I)"), tank("t", "D4")], hexes={"D4": "woods"})
    assert g.spotted("t").value is True


def test_entering_woods_in_sight(model):
    """REV spots a unit entering a concealing hex in an eligible enemy's sight; PB does not."""
    units = [gun("g", "A4"), tank("t", "D1")]
    hexes = {"D3": "woods"}
    for name, seen in [("PB", False), ("PL", False), ("AIW", True), ("REV", True)]:
        g = new_game(model, name, units, hexes)
        e = walk(g, "t", ["D2", "D3"])[-1]
        assert e.spotted.value is seen, name
        cites(model, e.spotted, "movement.spotting")

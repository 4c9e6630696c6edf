"""The rules engine's public API, played on rulesets built from the shipped rules_data.

Every test builds its rulesets with ``Ruleset.from_model`` from the model that
``harmony.loader.load`` reads from ``rules_data/``, so each ruling depends on
the clauses as shipped, and every reason a ruling gives must be a clause id of
that model.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from harmony.games.panzerblitz.engine import EngineError, Game
from harmony.games.panzerblitz.hexgrid import distance, parse_label as P
from harmony.loader import load
from harmony.ruleset import Ruleset, RulesetError
from harmony.rulings import Ruling
from harmony.games.panzerblitz.scenario import run_scenario
from harmony.games.panzerblitz.terrain import MapError

RULES = Path(__file__).resolve().parent.parent / "rules_data"


@pytest.fixture(scope="module")
def model(shipped_model):
    return shipped_model


def unit(uid, side, at, *, kind="armoured", cls="A", attack=10, range=8, defence=6, movement=6,
         **extra):
    d = {"id": uid, "side": side, "kind": kind, "class": cls, "attack": attack, "range": range,
         "defence": defence, "movement": movement, "at": at, "opportunity-fire": True}
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
    # the reasons are exactly the clauses behind the parameters consulted
    assert ruling.reasons == sorted({st.clause for st in ruling.settings.values() if st.clause})
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
    (lambda g: (g.end_turn(), g.end_phase(), g.begin_move("fixed", "concealed")),
     "movement allowance of 0"),
    (lambda g: (g.end_turn(), g.end_phase(), g.begin_move("fixed", "revealed")),
     "movement allowance of 0"),
    (lambda g: g.opportunity_fire(["g"], "none"), "needs a unit on the move"),
    (lambda g: (g.begin_move("t"), g.enter("D2"), g.opportunity_fire(["nobody"], "D")),
     "no unit 'nobody'"),
    (lambda g: (g.begin_move("t"), g.enter("D2"), g.opportunity_fire([], "D")), "no firing unit"),
    (lambda g: (g.begin_move("t"), g.enter("D2"), g.interdict("nobody", "D")), "no unit 'nobody'"),
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
    g = new_game(model, "REV", [tank("t", "D1"), gun("g", "D4"), gun("fixed", "A1", movement=0)])
    with pytest.raises(EngineError, match=message):
        order(g)


def test_bad_setup_raises_engine_error(model):
    rs = Ruleset.from_model(model, "PB")
    with pytest.raises(EngineError, match="two units have the id 't'"):
        Game.from_data(rs, {"columns": 4, "rows": 4}, [tank("t", "A1"), tank("t", "A2")], "German")
    with pytest.raises(EngineError, match="unknown phase"):
        Game.from_data(rs, {"columns": 4, "rows": 4}, [tank("t", "A1")], "German", phase="lunch")
    with pytest.raises(EngineError, match="unknown weapon class 'Q'"):
        Game.from_data(rs, {"columns": 4, "rows": 4}, [tank("t", "A1", cls="Q")], "German")
    with pytest.raises(EngineError, match="unit 't' has no 'movement'"):
        Game.from_data(rs, {"columns": 4, "rows": 4},
                       [{k: v for k, v in tank("t", "A1").items() if k != "movement"}], "German")
    with pytest.raises(EngineError, match="unit 't': invalid literal"):
        Game.from_data(rs, {"columns": 4, "rows": 4}, [tank("t", "A1", attack="lots")], "German")
    with pytest.raises(MapError, match="off the map") as e:
        Game.from_data(rs, {"columns": 4, "rows": 4}, [tank("t", "A1"), tank("u", "E9")], "German")
    assert e.value.path == ("units", 1, "at")
    for bad in ({"rows": 4}, {"columns": "six", "rows": 4}, {"columns": 0, "rows": 4}):
        with pytest.raises(MapError, match="the map needs"):
            Game.from_data(rs, bad, [tank("t", "A1")], "German")
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


def test_rev_concealed_movement_and_allowance_one(model):
    hexes = {"D3": "woods"}
    units = [gun("g", "A4"), unit("inf", "German", "D2", kind="infantry", cls="I", movement=2),
             unit("mg", "German", "E3", kind="infantry", cls="I", movement=1)]
    on = new_game(model, "REV+concealed-movement", units, hexes)
    e = walk(on, "inf", ["D3"], mode="concealed")[0]
    assert e.mp == 2 and e.spotted.value is False
    cites(model, e.spotted, "movement.concealed")
    assert e.opfire.value == [] and on.markers("inf").value == []
    off = new_game(model, "REV", units, hexes)
    e = walk(off, "inf", ["D3"], mode="concealed")[0]
    assert e.spotted.value is True and off.markers("inf").value == ["spotted"]
    # a unit with an allowance of one always moves that way under the option
    on = new_game(model, "REV+concealed-movement", units, hexes)
    e = walk(on, "mg", ["D3"])[0]
    assert e.spotted.value is False
    cites(model, e.spotted, "movement.allowance-one")
    off = new_game(model, "REV", units, hexes)
    assert walk(off, "mg", ["D3"])[0].spotted.value is True
    # the option does not hide a unit next to an enemy
    near = new_game(model, "REV+concealed-movement", [gun("g", "C4")] + units[1:], hexes)
    e = walk(near, "inf", ["D3"], mode="concealed")[0]
    assert e.spotted.value is True and e.spotted.detail.startswith("adjacent to g")


def test_rev_revealed_movement(model):
    units = [gun("g", "A4"), tank("t", "D3")]
    hexes = {"D3": "woods"}
    for name, seen in [("REV+revealed-movement", True), ("REV", False)]:
        g = new_game(model, name, units, hexes)
        assert g.spotted("t").value is False
        e = walk(g, "t", ["D3"], mode="revealed")[0]
        assert e.spotted.value is seen, name
        cites(model, e.spotted, "movement.revealed")
        assert g.markers("t").value == (["spotted"] if seen else [])


def test_aiw_loaded_units_do_not_spot(model):
    units = [unit("truck", "Soviet", "D5", kind="truck", attack=0, range=0),
             unit("inf", "Soviet", "D5", kind="infantry", cls="I", loaded_in="truck"),
             tank("t", "D4")]
    for name, seen in [("AIW", False), ("PB", True)]:
        g = new_game(model, name, units, {"D4": "woods"})
        r = g.spotted("t")
        assert r.value is seen, name
        cites(model, r, "spotting.limitation")


# ------------------------------------------------------------------ markers

def test_rev_spotted_marker_lifecycle(model):
    """On when seen entering cover; off out of sight or out of cover; off at the enemy's turn end."""
    hexes = {"D3": "woods", "D4": "woods", "D5": "woods", "C5": "town"}
    g = new_game(model, "REV", [gun("g", "A4"), tank("t", "D2")], hexes)
    g.begin_move("t")
    g.enter("D3")                                   # woods, in the gun's sight: spotted entering
    r = g.markers("t")
    assert r.value == ["spotted"]
    cites(model, r, "spotting.recording", "movement.spotting")
    g.enter("D4")
    assert g.markers("t").value == ["spotted"]
    g.end_move()
    r = g.spotted("t")
    assert r.value is True and r.detail == "marked spotted"
    g.end_turn()                                    # the German turn ends: its own units keep markers
    assert g.markers("t").value == ["spotted"]
    r = g.can_fire(["g"], "t")
    assert r.value is True
    cites(model, r, "spotting.recording")
    g.end_turn()                                    # the Soviet turn ends: German movers lose theirs
    r = g.markers("t")
    assert r.value == []
    cites(model, r, "markers.turn-end")
    r = g.spotted("t")
    assert r.value is False
    cites(model, r, "markers.turn-end")


def test_a_marker_names_the_clause_that_placed_it_under_pl_and_rev(model):
    """Each marker carries its reasons: the cell that placed it is that ruleset's own,
    the markers ruling names the clauses behind each marker, and so do the snapshots."""
    for name in ("PL", "REV"):
        g = new_game(model, name, [gun("g", "A4"), tank("t", "D4")], {"A4": "woods"},
                     side="Soviet", phase="fire")
        g.fire(["g"], "t", "none")                  # seen firing from the woods
        m = g.unit("g").markers["spotted"]
        assert not m.by_setup and "spotting.recording" in m.placed_by, name
        assert m.placed.settings["spot.markers"].cell == f"spotting.recording@{name}"
        assert m.placed.settings["spot.firer-in-los"].cell.endswith(f"@{name}")
        r = g.markers("g")
        assert r.detail == f"spotted marker placed by {', '.join(m.placed_by)}"
        assert r.reasons == m.reasons
        [data] = g.unit("g").state()["marker-reasons"]
        assert data["kind"] == "spotted" and data["placed-by"] == m.placed_by
    # PL: the turn-end housekeeping that spares it is named as keeping it on
    g = new_game(model, "PL", [gun("g", "A4"), tank("t", "D4")], {"A4": "woods"}, side="Soviet",
                 phase="fire")
    g.fire(["g"], "t", "none")
    g.end_turn()
    g.end_turn()
    m = g.unit("g").markers["spotted"]
    assert m.kept_by == ["markers.turn-end"] and "markers.turn-end" not in m.placed_by
    assert g.markers("g").detail.endswith(", kept by markers.turn-end")
    # REV: the opportunity spotted marker, then turned over to its spotted side by its own clause
    g = new_game(model, "REV", [gun("g", "A4"), tank("t", "D1")], {"A4": "woods"})
    walk(g, "t", ["D2"])
    g.opportunity_fire(["g"], "none")
    placed = g.unit("g").markers["opportunity-spotted"]
    assert placed.placed.settings["spot.opportunity-marker"].cell == "spotting.recording@REV"
    g.end_turn()
    m = g.unit("g").markers["spotted"]
    assert m.placed_by == ["markers.opportunity-spotted"] and m.was == placed
    assert set(placed.reasons) <= set(m.reasons) == set(g.markers("g").reasons)
    assert g.markers("g").detail.startswith("spotted marker turned over by markers.opportunity-spotted "
                                            "from opportunity-spotted (by ")


def test_rev_marker_comes_off_out_of_sight_and_out_of_cover(model):
    hexes = {"D3": "woods", "D4": "woods", "D5": "woods", "C5": "town"}
    g = new_game(model, "REV", [gun("g", "A4"), tank("t", "D2")], hexes)
    assert g.los("A4", "D5").value is False
    g.begin_move("t")
    g.enter("D3")
    g.enter("D4")
    e = g.enter("D5")                               # woods the gun cannot see
    assert e.spotted.value is False and g.markers("t").value == []
    cites(model, g.markers("t"), "markers.removal")
    # out of cover: the marker goes, line of sight alone spots it
    g2 = new_game(model, "REV", [gun("g", "A4"), tank("t", "D2")], hexes)
    walk(g2, "t", ["D3", "D2"])
    assert g2.markers("t").value == []
    cites(model, g2.markers("t"), "markers.removal")
    assert g2.spotted("t").value is True


def test_rev_marker_kept_by_a_unit_that_cannot_move(model):
    g = new_game(model, "REV", [gun("g", "A4"), tank("t", "D2", movement=0,
                                                    markers=["spotted"])], {"D2": "woods"},
                 side="Soviet", phase="fire")
    g.end_turn()
    assert g.markers("t").value == ["spotted"]
    cites(model, g.markers("t"), "markers.turn-end")


def test_rev_opportunity_spotted_marker_turns_into_spotted(model):
    g = new_game(model, "REV", [gun("g", "A4"), tank("t", "D1")], {"A4": "woods"})
    g.begin_move("t")
    e = g.enter("D2")
    assert e.opfire.value == [{"firers": ["g"], "drm": 1}]
    r = g.opportunity_fire(["g"], "none")
    assert r.value is True
    assert not g.unit("g").face_up                  # the firer is inverted
    r = g.markers("g")
    assert r.value == ["opportunity-spotted"]       # fired in the enemy movement phase
    cites(model, r, "spotting.recording")
    g.enter("D3")                                   # unharmed, the tank moves on
    g.end_turn()                                    # the German turn ends
    r = g.markers("g")
    assert r.value == ["spotted"]
    cites(model, r, "markers.opportunity-spotted")
    assert not g.unit("g").face_up                  # still inverted in its own turn
    r = g.can_fire(["g"], "t")
    assert r.value is False and "face down" in r.detail
    cites(model, r, "opportunity-fire.recording")
    g.end_turn()                                    # the Soviet turn ends: its own markers stay
    assert g.markers("g").value == ["spotted"] and g.unit("g").face_up
    assert g.can_fire(["t"], "g").value is True
    g.end_turn()                                    # the German turn ends: the gun can move, so it goes
    assert g.markers("g").value == []


def test_rev_a_marked_unit_that_makes_opportunity_fire_gets_the_opportunity_marker(model):
    """Spotted while firing in the enemy movement phase: the marker shows its opportunity side,
    even on a unit already marked, so it lasts through the next turn like any other."""
    g = new_game(model, "REV", [gun("g", "A4"), tank("t", "D4"), tank("t2", "D1")], {"A4": "woods"},
                 side="Soviet", phase="fire")
    g.fire(["g"], "t", "none")                      # seen firing in its own fire phase
    assert g.markers("g").value == ["spotted"]
    g.end_turn()                                    # the Soviet turn ends: the gun is turned up
    g.end_phase()
    walk(g, "t2", ["D2"])
    assert g.opportunity_fire(["g"], "none").value is True
    r = g.markers("g")
    assert r.value == ["opportunity-spotted"]
    cites(model, r, "spotting.recording")
    g.end_turn()                                    # the German turn ends
    assert g.markers("g").value == ["spotted"]
    assert g.spotted("g").value is True


def test_rev_firer_in_the_open_gets_no_marker(model):
    g = new_game(model, "REV", [gun("g", "A4"), tank("t", "D1")])
    walk(g, "t", ["D2"])
    g.opportunity_fire(["g"], "none")
    assert g.markers("g").value == []
    assert g.spotted("g").value is True             # line of sight is enough in the open


def test_pl_spotted_marker_on_a_firer(model):
    hexes = {"A4": "woods", "A5": "woods"}
    g = new_game(model, "PL", [gun("g", "A4"), tank("t", "D4")], hexes, side="Soviet",
                 phase="fire")
    assert g.fire(["g"], "t", "none").value is True
    r = g.markers("g")
    assert r.value == ["spotted"]
    cites(model, r, "spotting.recording")
    g.end_turn()
    assert g.markers("g").value == ["spotted"]
    g.end_turn()                                    # no housekeeping at either turn end in PL
    assert g.markers("g").value == ["spotted"]
    # moving into woods where it is not spotted takes the marker off
    g.end_phase()
    assert (g.side, g.phase) == ("Soviet", "movement")
    walk(g, "g", ["A5"])
    assert g.los("A5", "D4").value is True
    r = g.markers("g")
    assert r.value == []
    cites(model, r, "markers.removal")
    assert g.spotted("g").value is False


def test_pl_marker_comes_off_when_no_enemy_sees_the_unit(model):
    hexes = {"A4": "woods", "C5": "town"}
    g = new_game(model, "PL", [gun("g", "A4"), tank("t", "D4")], hexes, side="Soviet",
                 phase="fire")
    g.fire(["g"], "t", "none")
    g.end_turn()
    g.end_phase()
    g.begin_move("t")
    g.enter("D5")                                   # behind the town
    assert g.los("A4", "D5").value is False
    r = g.markers("g")
    assert r.value == []
    cites(model, r, "markers.removal")


def test_pl_marker_comes_off_a_unit_in_the_open_that_no_enemy_sees(model):
    hexes = {"A4": "woods", "B5": "town", "C5": "town"}
    g = new_game(model, "PL", [gun("g", "A4"), tank("t", "D4")], hexes, side="Soviet",
                 phase="fire")
    g.fire(["g"], "t", "none")
    g.end_turn()
    g.end_turn()
    g.end_phase()
    assert (g.side, g.phase) == ("Soviet", "movement") and g.markers("g").value == ["spotted"]
    walk(g, "g", ["A5"])                            # clear hex, behind the towns
    assert g.los("A5", "D4").value is False
    r = g.markers("g")
    assert r.value == []
    cites(model, r, "markers.removal")


def test_pb_firer_in_woods_is_not_spotted_by_firing(model):
    g = new_game(model, "PB", [gun("g", "A4"), tank("t", "D4")], {"A4": "woods"}, side="Soviet",
                 phase="fire")
    g.fire(["g"], "t", "none")
    assert g.markers("g").value == []
    g.end_turn()
    r = g.can_fire(["t"], "g")
    assert r.value is False and "not spotted" in r.detail
    cites(model, r, "spotting.spotted")


def test_aiw_markers_come_off_in_the_owners_fire_phase(model):
    g = new_game(model, "AIW", [gun("g", "A4"), tank("t", "D4")], {"A4": "woods"}, side="Soviet",
                 phase="fire")
    g.fire(["g"], "t", "none")
    assert g.markers("g").value == []               # firing marks nothing by itself
    g.end_turn()                                    # German turn: the gun is marked and stays so
    assert g.markers("g").value == ["spotted"]
    assert g.can_fire(["t"], "g").value is True
    g.end_turn()                                    # the Soviet fire phase begins
    r = g.markers("g")
    assert r.value == []
    cites(model, r, "markers.turn-end")


def test_aiw_spotted_counter_goes_on_when_the_owners_movement_phase_ends(model):
    """AIW: no counter as the gun fires from the woods; one when its movement phase ends,
    since it is face down, in woods and seen by an undispersed enemy."""
    g = new_game(model, "AIW", [gun("g", "A4"), tank("t", "D4")], {"A4": "woods"}, side="Soviet",
                 phase="fire")
    assert g.fire(["g"], "t", "none").value is True
    assert not g.unit("g").face_up
    assert g.markers("g").value == [] and g.spotted("g").value is False
    g.end_phase()                                   # the Soviet movement phase: still nothing
    assert (g.side, g.phase) == ("Soviet", "movement") and g.markers("g").value == []
    g.end_phase()                                   # it ends: the counter goes on
    assert (g.side, g.phase) == ("German", "fire")
    r = g.markers("g")
    assert r.value == ["spotted"] and r.detail == "spotted marker placed by spotting.recording"
    cites(model, r, "spotting.recording")
    assert r.settings["spot.markers-end-of-movement"].cell == "spotting.recording@AIW"
    assert g.unit("g").face_up                      # turned up after the counter went on
    r = g.can_fire(["t"], "g")
    assert r.value is True and r.detail == "marked spotted"
    cites(model, r, "spotting.recording", "spotting.spotted")
    g.end_turn()                                    # the Soviet fire phase starts: it comes off
    r = g.markers("g")
    assert r.value == []
    cites(model, r, "markers.turn-end")


def test_aiw_end_of_movement_counters_only_where_all_three_conditions_hold(model):
    """Face down, in woods or town, and in the sight of an eligible enemy: all three."""
    hexes = {"A3": "woods", "A4": "woods", "A7": "woods", "B6": "town", "E4": "woods"}
    units = [gun("fired", "A4", face="down"),      # all three: marked
             gun("up", "A3"),                       # face up: not marked
             gun("open", "A5", face="down"),        # in the open: not marked
             gun("hidden", "A7", face="down"),      # woods behind the town: no enemy sees it
             tank("t", "D4"), tank("t2", "E4", face="down")]
    g = new_game(model, "AIW", units, hexes, side="Soviet", phase="movement")
    assert g.los("D4", "A7").value is False and g.los("E4", "A7").value is False
    assert g.los("D4", "A4").value is True and g.los("D4", "A5").value is True
    g.end_phase()
    assert {u: g.markers(u).value for u in ("fired", "up", "open", "hidden")} == {
        "fired": ["spotted"], "up": [], "open": [], "hidden": []}
    assert g.markers("t2").value == []              # the other side's movement phase has not ended
    # a dispersed enemy does not count as seeing it
    g2 = new_game(model, "AIW", [gun("g", "A4", face="down"), tank("t", "D4", dispersal="D")],
                  hexes, side="Soviet", phase="movement")
    g2.end_phase()
    assert g2.markers("g").value == []


def test_aiw_opportunity_firer_marked_when_its_own_movement_phase_ends(model):
    """An AIW unit turned face down by opportunity fire is not marked as it fires, nor
    at the end of the enemy's movement phase, but at the end of its owner's."""
    g = new_game(model, "AIW", [gun("g", "A4"), tank("t", "D1", movement=8)], {"A4": "woods"})
    walk(g, "t", ["D2", "D3"])
    assert g.opfire_options("t").value == [{"firers": ["g"], "drm": 0}]
    assert g.opportunity_fire(["g"], "none").value is True
    assert not g.unit("g").face_up and g.markers("g").value == []
    g.end_turn()                                    # the German movement phase ends
    assert g.markers("g").value == [] and not g.unit("g").face_up
    g.end_phase()
    g.end_phase()                                   # the Soviet movement phase ends
    r = g.markers("g")
    assert r.value == ["spotted"]
    cites(model, r, "spotting.recording")
    # the counter comes off at once when no undispersed enemy sees the gun any more
    g.end_phase()
    walk(g, "t", ["D4", "D5"])
    assert g.los("A4", "D5").value is True and g.markers("g").value == ["spotted"]
    g2 = new_game(model, "AIW", [gun("g", "A4", markers=["spotted"]), tank("t", "D3")],
                  {"A4": "woods", "C5": "town"})
    walk(g2, "t", ["D4", "D5"])
    assert g2.los("A4", "D5").value is False
    r = g2.markers("g")
    assert r.value == []
    cites(model, r, "markers.removal")


def test_pl_and_rev_firers_still_marked_as_they_fire(model):
    """The end-of-movement counter is AIW's alone: PL and REV mark a firer in cover at once."""
    for name in ("PL", "REV"):
        g = new_game(model, name, [gun("g", "A4"), tank("t", "D4")], {"A4": "woods"},
                     side="Soviet", phase="fire")
        g.fire(["g"], "t", "none")
        assert g.markers("g").value == ["spotted"], name
        assert g.rules["spot.markers-end-of-movement"] is False


def test_a_marker_from_the_set_up_says_so(model):
    """A marker the set-up gave is no clause's doing: no reasons, and the detail says where
    it came from; once a rule takes it off or replaces it, the detail goes."""
    g = new_game(model, "PL+opportunity-fire",
                 [gun("g", "A4", markers=["spotted"]), gun("g2", "A2", markers=["opportunity-fire"]),
                  tank("t", "D4")], {"A4": "woods", "C5": "town"}, side="German", phase="movement")
    r = g.markers("g")
    assert r.value == ["spotted"] and r.reasons == []
    assert r.detail == "spotted marker placed by the set-up"
    r = g.markers("g2")
    assert r.value == ["opportunity-fire"] and r.reasons == []
    assert r.detail == "opportunity-fire counter placed by the set-up"
    walk(g, "t", ["D5"])                            # behind the town: nobody sees the gun
    r = g.markers("g")
    assert r.value == [] and r.detail == ""
    cites(model, r, "markers.removal")
    assert g.markers("t").detail == ""


# ------------------------------------------------------ PL and AIW activation

def test_pl_activation_needs_a_quarter_of_the_allowance_in_sight(model):
    g = new_game(model, "PL+opportunity-fire", [gun("g", "A4"), tank("t", "D1", movement=8)])
    e1, e2 = walk(g, "t", ["D2", "D3"])
    assert e1.opfire.value == [] and "not activated" in e1.opfire.detail
    cites(model, e1.opfire, "opportunity-fire.rule")
    assert e2.opfire.value == [{"firers": ["g"], "drm": 0}]
    cites(model, e2.opfire, "opportunity-fire.rule", "opportunity-fire.how-attacked")
    # 7 / 4 rounds down to 1
    g = new_game(model, "PL+opportunity-fire", [gun("g", "A4"), tank("t", "D1", movement=7)])
    assert walk(g, "t", ["D2"])[0].opfire.value == [{"firers": ["g"], "drm": 0}]


def test_pl_activation_must_be_continuous(model):
    # the town at C5 hides D5 and D6 from the gun at A4
    g = new_game(model, "PL+opportunity-fire", [gun("g", "A4"), tank("t", "D1", movement=8)],
                 {"C5": "town"})
    assert [g.los("A4", h).value for h in ("D4", "D5", "D6", "D7")] == [True, False, False, True]
    g2 = new_game(model, "PL+opportunity-fire", [gun("g", "A4"), tank("t", "D3", movement=8)],
                  {"C5": "town"})
    e = walk(g2, "t", ["D4", "D5", "D6", "D7"])
    assert [x.opfire.value for x in e] == [[], [], [], []]
    assert "not activated" in e[-1].opfire.detail     # one point in sight since it reappeared
    e = g2.enter("D8")
    assert e.opfire.value == [{"firers": ["g"], "drm": 0}]


def test_woods_points_count_only_when_spotted(model):
    """PL: entering woods unseen adds nothing; AIW: a mover in sight is spotted, so it counts."""
    units = [gun("g", "A4"), tank("t", "D1", movement=12)]   # 12 / 4 = 3 points
    for name, open_at_d4 in [("PL+opportunity-fire", False), ("AIW", True)]:
        g = new_game(model, name, units, {"D3": "woods"})
        e = walk(g, "t", ["D2", "D3", "D4"])
        assert bool(e[-1].opfire.value) is open_at_d4, name
        cites(model, e[-1].opfire, "opportunity-fire.rule")
        if not open_at_d4:
            assert "not activated" in e[-1].opfire.detail
            cites(model, e[-1].opfire, "opportunity-fire.towns-and-woods")
    # PL: in the open the same three points activate it
    g = new_game(model, "PL+opportunity-fire", units)
    assert walk(g, "t", ["D2", "D3", "D4"])[-1].opfire.value


def test_pl_opportunity_fire_counter(model):
    g = new_game(model, "PL+opportunity-fire", [gun("g", "A4", movement=2), tank("t", "D1", movement=4)])
    walk(g, "t", ["D2"])
    r = g.opportunity_fire(["g"], "none")
    assert r.value is True
    cites(model, r, "opportunity-fire.recording")
    assert g.unit("g").face_up and g.markers("g").value == ["opportunity-fire"]
    cites(model, g.markers("g"), "opportunity-fire.recording")
    e = g.enter("D3")
    assert e.opfire.value == [] and "no eligible unit" in e.opfire.detail
    g.end_turn()
    r = g.can_fire(["g"], "t")
    assert r.value is False and "opportunity fire counter" in r.detail
    g.end_phase()
    with pytest.raises(EngineError, match="opportunity fire counter"):
        g.begin_move("g")
    g.end_phase()                                   # its segment ends: the counter comes off
    assert g.markers("g").value == []


def test_aiw_combines_every_firer(model):
    g = new_game(model, "AIW", [gun("g1", "A4"), gun("g2", "A2"), gun("g3", "B5"),
                                tank("t", "D1", movement=4)])
    e = walk(g, "t", ["D2"])[0]
    assert e.opfire.value == [{"firers": ["g1", "g2", "g3"], "drm": 0}]
    cites(model, e.opfire, "opportunity-fire.combining")
    assert g.opportunity_fire(["g1", "g3"], "none").value is True
    assert not g.unit("g1").face_up and not g.unit("g3").face_up and g.unit("g2").face_up


# ------------------------------------------------------ REV opportunity fire

def test_rev_half_range_rounded_down(model):
    # range 7: half is 3.5, rounded down to 3
    g = new_game(model, "REV", [gun("g", "A4", range=7), tank("t", "E1")])
    assert distance(P("A4"), P("D1")) == 4 and distance(P("A4"), P("D2")) == 3
    e1, e2 = walk(g, "t", ["D1", "D2"])
    assert e1.opfire.value == [] and e1.opfire.detail == "out of range"
    cites(model, e1.opfire, "opportunity-fire.rule")
    assert e2.opfire.value == [{"firers": ["g"], "drm": 1}]
    cites(model, e2.opfire, "opportunity-fire.rule")
    # PL counts the full range
    g = new_game(model, "PL+opportunity-fire", [gun("g", "A4", range=7), tank("t", "E1", movement=4)])
    assert walk(g, "t", ["D1"])[0].opfire.value == [{"firers": ["g"], "drm": 0}]


def test_rev_drm_is_one_plus_the_terrain(model):
    g = new_game(model, "REV", [gun("g", "A4"), tank("t", "D1")], {"D3": "woods"})
    e2, e3 = walk(g, "t", ["D2", "D3"])
    assert e2.opfire.value == [{"firers": ["g"], "drm": 1}]
    assert e3.spotted.value is True                  # seen entering the woods
    assert e3.opfire.value == [{"firers": ["g"], "drm": 2}]
    cites(model, e3.opfire, "opportunity-fire.rule")


def test_rev_one_firer_an_attack_except_from_one_adjacent_hex(model):
    units = [gun("far-1", "A4"), gun("far-2", "A4"), gun("adj-1", "C4"), gun("adj-2", "C4"),
             gun("adj-3", "C5"), tank("t", "E4")]
    g = new_game(model, "REV", units)
    e = walk(g, "t", ["D4"])[0]
    assert e.opfire.value == [{"firers": ["adj-1", "adj-2"], "drm": 1}, {"firers": ["adj-3"], "drm": 1},
                              {"firers": ["far-1"], "drm": 1}, {"firers": ["far-2"], "drm": 1}]
    cites(model, e.opfire, "opportunity-fire.combining")
    r = g.opportunity_fire(["far-1", "far-2"], "none")
    assert r.value is False and r.detail.startswith("not open")
    r = g.opportunity_fire(["adj-1", "adj-3"], "none")
    assert r.value is False
    assert g.opportunity_fire(["adj-1", "adj-2"], "none").value is True


def test_rev_once_per_target_per_phase(model):
    units = [gun("g1", "A2"), gun("g2", "A5"), tank("t", "D1"), tank("t2", "E7")]
    g = new_game(model, "REV", units)
    e = walk(g, "t", ["D2"])[0]
    assert {"firers": ["g1"], "drm": 1} in e.opfire.value
    assert g.opportunity_fire(["g1"], "none").value is True
    e = g.enter("D3")
    assert e.opfire.value == [] and "already attacked" in e.opfire.detail
    cites(model, e.opfire, "opportunity-fire.limitation")
    assert g.opportunity_fire(["g2"], "none").value is False
    # another mover is a new target
    e = walk(g, "t2", ["E6"])[0]                    # in half range of g2 only
    assert e.opfire.value == [{"firers": ["g2"], "drm": 1}]
    # the next German movement phase starts afresh
    g.end_turn()
    g.end_turn()
    g.end_phase()
    assert (g.side, g.phase) == ("German", "movement")
    e = walk(g, "t", ["D4"])[0]
    assert e.opfire.value


def test_aiw_and_pl_have_no_limit_per_target(model):
    units = [gun("g1", "A2"), gun("g2", "A5"), tank("t", "D1", movement=4)]
    g = new_game(model, "PL+opportunity-fire", units)
    walk(g, "t", ["D2"])
    assert g.opportunity_fire(["g1"], "none").value is True
    assert g.enter("D3").opfire.value == [{"firers": ["g2"], "drm": 0}]


def test_rev_overrun_immunity(model):
    units = [gun("g", "A4"), unit("inf", "Soviet", "D3", kind="infantry", cls="I", range=2),
             tank("t", "D1", movement=4)]
    g = new_game(model, "REV", units)
    e2, e3 = walk(g, "t", ["D2", "D3"], overrun="inf")
    assert e2.opfire.value
    assert e3.opfire.value == [] and "immune" in e3.opfire.detail
    cites(model, e3.opfire, "opportunity-fire.target")
    g = new_game(model, "AIW", units)
    assert walk(g, "t", ["D2", "D3"], overrun="inf")[-1].opfire.value


@pytest.mark.parametrize("result,dispersal,eliminated", [("D", "D", False), ("DD", "DD", False),
                                                         ("X", "none", True)])
def test_an_opportunity_fire_result_stops_the_mover(model, result, dispersal, eliminated):
    g = new_game(model, "REV", [gun("g", "A4"), tank("t", "D1")])
    walk(g, "t", ["D2"])
    assert g.opportunity_fire(["g"], result).value is True
    t = g.unit("t")
    assert (t.dispersal, t.eliminated, g.move.stopped) == (dispersal, eliminated, True)
    assert g.where("t") == ("eliminated" if eliminated else "D2")
    with pytest.raises(EngineError, match="stopped"):
        g.enter("D3")
    assert g.opfire_options("t").value == []


def test_a_stopped_mover_is_no_longer_a_target(model):
    """AIW has no limit per target, but a dispersed mover's move is over."""
    g = new_game(model, "AIW", [gun("g1", "A4"), gun("g2", "A2"), tank("t", "D1", movement=4)])
    walk(g, "t", ["D2"])
    assert g.opportunity_fire(["g1"], "D").value is True
    r = g.opfire_options("t")
    assert r.value == [] and "stopped" in r.detail
    assert g.opportunity_fire(["g2"], "DD").value is False
    assert g.unit("t").dispersal == "D" and not g.unit("t").eliminated
    assert g.interdiction_options("t").value == []


def test_rev_retrace_attacks_an_earlier_hex_of_the_move(model):
    """REV: the firing player may take the mover back to a hex it passed and attack it there."""
    g = new_game(model, "REV", [gun("g", "A1", range=6), tank("t", "D1")])
    e2, e3, e4 = walk(g, "t", ["D2", "D3", "D4"])
    assert e2.opfire.value == [{"firers": ["g"], "drm": 1}]
    assert e4.opfire.value == [] and e4.opfire.detail == "out of range"
    r = g.retrace_options("t", "D2")
    assert r.value == [{"firers": ["g"], "drm": 1}]
    cites(model, r, "opportunity-fire.when-attacked", "opportunity-fire.rule")
    assert g.retrace_options("t", "D3").value == []
    r = g.opportunity_fire(["g"], "none", at="D2")
    assert r.value is True and not g.unit("g").face_up
    assert g.where("t") == "D2" and g.move.spent == 1 and [e.hex for e in g.move.entries] == ["D2"]
    assert g.enter("D3").hex == "D3"                # unharmed, it goes on from there
    with pytest.raises(EngineError, match="has not entered E5"):
        g.retrace_options("t", "E5")


def test_rev_retrace_result_stops_the_mover_where_it_was_attacked(model):
    g = new_game(model, "REV", [gun("g", "A1", range=6), tank("t", "D1")])
    walk(g, "t", ["D2", "D3", "D4"])
    assert g.opportunity_fire(["g"], "D", at="D2").value is True
    assert g.where("t") == "D2" and g.unit("t").dispersal == "D" and g.move.stopped
    assert g.retrace_options("t", "D2").value == []


@pytest.mark.parametrize("name,clause", [("REV+tournament", "opportunity-fire.tournament"),
                                         ("AIW", "opportunity-fire.rule")])
def test_no_retracing_without_the_rule(model, name, clause):
    g = new_game(model, name, [gun("g", "A1", range=6), tank("t", "D1", movement=4)])
    walk(g, "t", ["D2", "D3", "D4"])
    r = g.retrace_options("t", "D2")
    assert r.value == [] and "no retracing" in r.detail
    cites(model, r, clause)
    r = g.opportunity_fire(["g"], "X", at="D2")
    assert r.value is False and not g.unit("t").eliminated and g.where("t") == "D4"


def test_an_unharmed_mover_moves_on(model):
    g = new_game(model, "REV", [gun("g", "A4"), tank("t", "D1")])
    walk(g, "t", ["D2"])
    g.opportunity_fire(["g"], "none")
    assert g.enter("D3").hex == "D3" and not g.move.stopped


def test_rev_retrace_after_the_move_has_ended(model):
    """REV: until the next move begins, the firing player may still take the finished mover
    back to a hex it passed; unharmed, it may move on from there."""
    g = new_game(model, "REV", [gun("g", "A1", range=6), tank("t", "D1"), tank("t2", "H8")])
    walk(g, "t", ["D2", "D3", "D4"])
    g.end_move()
    assert g.move is None and g.retrace_move is g.last_move
    r = g.retrace_options("t", "D2")
    assert r.value == [{"firers": ["g"], "drm": 1}] and r.detail == "open when it entered D2"
    cites(model, r, "opportunity-fire.when-attacked", "opportunity-fire.rule")
    r = g.retrace_options("t", "D4")                # its last hex: what was open there (nothing)
    assert r.value == [] and "out of range" in r.detail
    with pytest.raises(EngineError, match="has not entered E5"):
        g.retrace_options("t", "E5")
    r = g.opportunity_fire(["g"], "none", at="D2")
    assert r.value is True and not g.unit("g").face_up
    # taken back, its move is open again from D2 with the points spent to get there
    assert g.where("t") == "D2" and g.move is not None and g.move.unit == "t"
    assert g.move.spent == 1 and [e.hex for e in g.move.entries] == ["D2"]
    assert g.enter("D3").hex == "D3"
    g.end_move()
    assert g.retrace_options("t", "D2").value == []  # the gun has fired
    assert g.retrace_options("t", "D2").detail == "already attacked by opportunity fire this phase"


def test_rev_after_the_move_the_attack_defaults_to_the_last_hex(model):
    g = new_game(model, "REV", [gun("g", "A2", range=6), tank("t", "D1")])
    walk(g, "t", ["D2"])
    g.end_move()
    r = g.opportunity_fire(["g"], "D")
    assert r.value is True and r.detail == "made, drm 1"
    assert g.where("t") == "D2" and g.unit("t").dispersal == "D"
    assert g.move is None                           # not taken back: the move stays over
    assert g.last_move.entries[-1].attacks == [{"opfire": ["g"], "result": "D"}]


def test_rev_retrace_closes_when_the_next_move_begins(model):
    g = new_game(model, "REV", [gun("g", "A1", range=6), tank("t", "D1"), tank("t2", "H8"),
                                tank("down", "H1", face="down")])
    walk(g, "t", ["D2", "D3", "D4"])
    g.end_move()
    with pytest.raises(EngineError, match="face down"):
        g.begin_move("down")                        # a refused order begins no move
    assert g.retrace_options("t", "D2").value != []
    g.begin_move("t2")
    r = g.retrace_options("t", "D2")
    assert r.value == [] and r.detail.startswith("too late to take t back")
    cites(model, r, "opportunity-fire.when-attacked", "opportunity-fire.rule")
    with pytest.raises(EngineError, match="t2 has not entered D2"):
        g.opportunity_fire(["g"], "X", at="D2")     # the attack would be on the new mover
    g.end_move()
    r = g.retrace_options("t", "D2")                # t2 moved last now; t is out of reach
    assert r.value == [] and r.detail == "only a unit on the move may be attacked"
    assert not g.unit("t").eliminated and g.unit("g").face_up


def test_rev_retrace_closes_when_the_phase_ends(model):
    g = new_game(model, "REV", [gun("g", "A1", range=6), tank("t", "D1")])
    walk(g, "t", ["D2", "D3", "D4"])
    g.end_phase()                                   # ends the move, the phase and the turn
    assert (g.side, g.phase) == ("Soviet", "fire") and g.retrace_move is None
    r = g.retrace_options("t", "D2")
    assert r.value == [] and "too late" in r.detail
    cites(model, r, "opportunity-fire.when-attacked")
    r = g.opportunity_fire(["g"], "X", at="D2")
    assert r.value is False and r.detail.startswith("not open: too late")
    cites(model, r, "opportunity-fire.when-attacked")
    assert not g.unit("t").eliminated and g.where("t") == "D4" and g.unit("g").face_up


@pytest.mark.parametrize("name,clause", [("REV+tournament", "opportunity-fire.tournament"),
                                         ("AIW", "opportunity-fire.rule"),
                                         ("PL+opportunity-fire", "opportunity-fire.rule")])
def test_no_attack_after_the_move_without_retracing(model, name, clause):
    """Tournament play (and rulebooks without retracing): once the move is over, nothing is open,
    not even in the hex the mover stopped in."""
    g = new_game(model, name, [gun("g", "A2", range=6), tank("t", "D1", movement=4)])
    entries = walk(g, "t", ["D2", "D3"])
    assert entries[0].opfire.value or entries[1].opfire.value or name.startswith("PL")
    g.end_move()
    for at in ("D2", "D3"):
        r = g.retrace_options("t", at)
        assert r.value == [] and "no retracing" in r.detail and "move is over" in r.detail
        cites(model, r, clause)
    r = g.opportunity_fire(["g"], "X")
    assert r.value is False and r.detail.startswith("not open: no retracing")
    assert not g.unit("t").eliminated and g.unit("g").face_up


def test_rev_who_may_make_opportunity_fire(model):
    """Undispersed, face up, able to fire directly."""
    units = [gun("ready", "A4"), gun("down", "A3", face="down"), gun("shaken", "A5", dispersal="D"),
             gun("howitzer", "A2", cls="(H)"), gun("mortar", "B2", cls="M"),
             unit("truck", "Soviet", "B4", kind="truck", attack=0, range=0), tank("t", "D1")]
    g = new_game(model, "REV", units)
    e = walk(g, "t", ["D2"])[0]
    assert sorted(f for o in e.opfire.value for f in o["firers"]) == ["mortar", "ready"]


@pytest.mark.parametrize("name", ["PB", "PL", "DB", "CP"])
def test_rulebooks_without_opportunity_fire(model, name):
    """CP, another game, has no cell in the opportunity fire rows: the registry default
    decides, and no clause is named."""
    g = new_game(model, name, [gun("g", "A4"), tank("t", "D1")])
    e = walk(g, "t", ["D2"])[0]
    assert e.opfire.value == []
    assert bool(e.opfire.reasons) is (name != "CP")   # the clause that says there is none
    cites(model, e.opfire)
    r = g.opportunity_fire(["g"], "D")
    assert r.value is False and g.unit("t").dispersal == "none"


# ------------------------------------------------------------ interdiction

def _interdiction_units(**observer):
    # the town hexes hide column D from the howitzers at A8: only the rifles observe
    return [gun("how-1", "A8", cls="(H)", range=30, registration=["D3", "D4"]),
            gun("how-2", "A7", cls="(H)", range=30, registration=["D4"]),
            unit("rifles", "Soviet", "A4", kind="infantry", cls="I", range=3, **observer),
            tank("t", "D1"), tank("t2", "E1")]


INTERDICTION_MAP = {"B6": "town", "B7": "town", "C7": "town"}


def test_rev_interdiction_needs_a_registration_marker_and_an_observer(model):
    g = new_game(model, "REV", _interdiction_units(), INTERDICTION_MAP)
    assert g.los("A8", "D3").value is False and g.los("A4", "D3").value is True
    e2, e3 = walk(g, "t", ["D2", "D3"])
    assert e2.interdiction.value == [] and "registration" in e2.interdiction.detail
    assert e3.interdiction.value == [{"firer": "how-1", "hex": "D3", "drm": 0}]
    cites(model, e3.interdiction, "interdiction.rule", "interdiction.limitation")
    # a face-down observer does not count
    g = new_game(model, "REV", _interdiction_units(face="down"), INTERDICTION_MAP)
    e = walk(g, "t", ["D2", "D3"])[-1]
    assert e.interdiction.value == [] and "observer" in e.interdiction.detail
    cites(model, e.interdiction, "interdiction.rule")


def test_rev_interdiction_once_per_target_and_no_combining(model):
    g = new_game(model, "REV", _interdiction_units(), INTERDICTION_MAP)
    e = walk(g, "t", ["D2", "D3"])[-1]
    r = g.interdict("how-1", "none")
    assert r.value is True and not g.unit("how-1").face_up
    cites(model, r, "interdiction.rule")
    e = g.enter("D4")
    assert e.interdiction.value == [] and "already interdicted" in e.interdiction.detail
    cites(model, e.interdiction, "interdiction.limitation")
    assert g.interdict("how-2", "none").value is False
    # the second tank, in D4: both batteries are registered there, but how-1 has fired
    e = walk(g, "t2", ["E2", "E3", "E4", "D4"])[-1]
    assert e.interdiction.value == [{"firer": "how-2", "hex": "D4", "drm": 0}]
    # with both face up, each battery is its own attack: no combining
    g = new_game(model, "REV", _interdiction_units(), INTERDICTION_MAP)
    e = walk(g, "t2", ["E2", "E3", "E4", "D4"])[-1]
    assert e.interdiction.value == [{"firer": "how-1", "hex": "D4", "drm": 0},
                                    {"firer": "how-2", "hex": "D4", "drm": 0}]
    assert all("firers" not in o for o in e.interdiction.value)
    assert g.interdict("how-2", "D").value is True
    assert g.unit("t2").dispersal == "D" and g.move.stopped


def test_rev_an_interdicting_battery_gives_up_moving_in_its_next_turn(model):
    g = new_game(model, "REV", _interdiction_units(), INTERDICTION_MAP)
    walk(g, "t", ["D2", "D3"])
    assert g.interdict("how-1", "none").value is True
    g.end_turn()
    g.end_phase()
    assert (g.side, g.phase) == ("Soviet", "movement")
    with pytest.raises(EngineError, match="face down"):
        g.begin_move("how-1")
    g.begin_move("how-2")                           # it did not fire
    g.end_turn()
    assert g.unit("how-1").face_up                  # turned up as its own turn ended


def test_a_unit_that_fired_does_not_move_that_turn(model):
    g = new_game(model, "PB", [gun("g", "A4"), tank("t", "D4")], side="Soviet", phase="fire")
    g.fire(["g"], "t", "none")
    g.end_phase()
    with pytest.raises(EngineError, match="face down"):
        g.begin_move("g")


def test_rev_interdiction_drm_is_the_terrain_only(model):
    hexes = dict(INTERDICTION_MAP, D3="woods")
    g = new_game(model, "REV", _interdiction_units(), hexes)
    e = walk(g, "t", ["D2", "D3"])[-1]
    assert e.spotted.value is True                   # seen by the rifles entering the woods
    assert e.interdiction.value == [{"firer": "how-1", "hex": "D3", "drm": 1}]
    assert e.opfire.value == [] and e.opfire.detail == "out of range"   # rifles: range 3, half 1


@pytest.mark.parametrize("name", ["PB", "PL", "PL+opportunity-fire", "AIW", "DB"])
def test_only_rev_has_interdiction(model, name):
    g = new_game(model, name, _interdiction_units(), INTERDICTION_MAP)
    e = walk(g, "t", ["D2", "D3"])[-1]
    assert e.interdiction.value == []
    cites(model, e.interdiction, "interdiction.rule")
    assert g.interdict("how-1", "X").value is False and not g.unit("t").eliminated


# ------------------------------------------- parameters, not code, decide

def test_changing_a_parameter_in_rules_data_changes_the_ruling(model, rules_copy):
    copy = rules_copy
    path = copy / "opportunity-fire.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.count("opfire.range-fraction: 1/2") == 1
    path.write_text(text.replace("opfire.range-fraction: 1/2", "opfire.range-fraction: 1"),
                    encoding="utf-8")
    changed, report = load(copy)
    assert not report.errors

    def ruling(m):
        g = new_game(m, "REV", [gun("g", "A4", range=8), tank("t", "F1")])
        assert distance(P("A4"), P("E1")) == 5
        return walk(g, "t", ["E1"])[0].opfire

    before, after = ruling(model), ruling(changed)
    assert before.value == [] and before.detail == "out of range"
    assert after.value == [{"firers": ["g"], "drm": 1}]
    for r, m in ((before, model), (after, changed)):
        cites(m, r, "opportunity-fire.rule")
        assert r.settings["opfire.range-fraction"].cell == "opportunity-fire.rule@REV"
    assert str(after.settings["opfire.range-fraction"].value) == "1"


def _strings_outside_docstrings(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docs.add(id(body[0].value))
    return [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docs]


def test_engine_never_branches_on_a_ruleset_name(model):
    """No string in the engine's code (docstrings aside) names a ruleset."""
    keys = set(model.sources)
    for f in ("ruleset.py", "rulings.py", "game.py", "games/panzerblitz/engine.py",
              "games/panzerblitz/scenario.py", "games/panzerblitz/steps.py", "games/panzerblitz/los.py",
              "games/panzerblitz/hexgrid.py", "games/panzerblitz/terrain.py", "games/panzerblitz/units.py",
              "games/panzerblitz/barriers.py", "games/panzerblitz/referee.py",
              "games/panzerblitz/knowledge.py"):
        hits = [(n.lineno, n.value) for n in _strings_outside_docstrings(RULES.parent / "harmony" / f)
                if n.value.split("+")[0] in keys]
        assert not hits, f"harmony/{f} names a ruleset: {hits}"


def test_adjacent_enemies_from_the_hex_index_are_those_a_walk_finds(model):
    """``Game.adjacent_enemies`` looks in the six neighbouring hexes of an index of units by
    hex; after random moves and eliminations it gives exactly the enemies (and their order)
    that walking every enemy and testing adjacency gives."""
    import random

    from harmony.games.panzerblitz.hexgrid import adjacent, board, from_offset, label
    rng = random.Random(5)
    hexes = [label(h) for h in board(8, 6)]
    units = [{"id": f"u{i}", "side": ("German", "Soviet")[rng.randrange(2)], "kind": "infantry",
              "class": "I", "attack": 4, "range": 3, "defence": 4, "movement": 2,
              "at": rng.choice(hexes)} for i in range(40)]
    g = Game.from_data(Ruleset.from_model(model, "PL"), {"columns": 8, "rows": 6}, units,
                       "German", "movement")
    for round_ in range(60):
        u = rng.choice(list(g.units.values()))
        if round_ % 7 == 3:
            u.eliminated = True
        else:
            u.hex = from_offset(rng.randrange(8), rng.randrange(6))
        for v in g.units.values():
            for side in (None, "German", "Soviet"):
                walked = [e for e in g.enemies_of(v, side) if adjacent(e.hex, v.hex)]
                assert g.adjacent_enemies(v, side) == walked

"""Double-Blind PanzerBlitz played: movement barriers, the referee's replay, per-side views,
the scenario transform, orders in scenarios and their checks."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harmony.games.panzerblitz.barriers import step_barrier
from harmony.check import check_path
from harmony.games.panzerblitz.engine import EngineError, Game
from harmony.loader import load
from harmony.model import Scenario
from harmony.games.panzerblitz.referee import Intent, OrderError, Referee, blind_scenario
from harmony.ruleset import Ruleset
from harmony.games.panzerblitz.scenario import run_scenario, ruleset_for
from harmony.games.panzerblitz.steps import parse_steps

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules_data"
DB_SCENARIOS = ["db-column-block", "db-overstacking", "db-mined-hex", "db-unseen-fire",
                "db-first-spotting-step", "db-overrun-unload"]


@pytest.fixture(scope="module")
def model():
    m, _ = load(RULES)
    return m


def tank(uid, at, side="German", **more):
    d = {"id": uid, "side": side, "kind": "armoured", "class": "A", "attack": 12, "range": 8,
         "defence": 8, "movement": 6, "at": at}
    d.update(more)
    return d


def squad(uid, at, side="Soviet", **more):
    d = {"id": uid, "side": side, "kind": "infantry", "class": "I", "attack": 6, "range": 3,
         "defence": 6, "movement": 1, "at": at}
    d.update(more)
    return d


def game(rules, units, side="German", phase="movement", **map_):
    m = {"columns": 8, "rows": 5}
    m.update(map_)
    return Game.from_data(rules, m, units, side=side, phase=phase)


# ------------------------------------------------------------------ barriers as parameters

ALL_ON = {"move.blocks-bar-entry": True, "move.mines-stop": True,
          "move.enemy-hex-needs-overrun": True, "move.stacking-in-movement": True,
          "referee.replay-moves": True, "referee.spot-stoppers": True,
          "referee.spotting-step": True, "referee.fire-report": True,
          "referee.overrun-unload": True, "referee.hidden-boards": True}


def test_barriers_follow_parameters_not_ruleset_names(model):
    """A ruleset of any name with the parameters on stops a unit at a block; with them off
    (PB's defaults) nothing stops it."""
    for name, values, stopped in (("ZZ", ALL_ON, True), ("DB", ALL_ON, True),
                                  ("ZZ", {}, False)):
        rs = Ruleset.from_values(name, values, registry=model, clause="x.y")
        g = game(rs, [tank("t", "B3")], blocks={"C3": "Soviet"})
        g.begin_move("t")
        b = step_barrier(g, g.unit("t"), g.hex("C3"))
        assert (b is not None) == stopped
        if stopped:
            assert b.value == {"cause": "block", "hex": "C3", "stopped-at": "B3"}
            assert b.reasons == ["x.y"]


def test_open_play_refuses_a_step_into_a_block(model):
    g = game(ruleset_for(model, "DB"), [tank("t", "B3")], blocks={"C3": "Soviet"})
    g.begin_move("t")
    with pytest.raises(EngineError, match="block stands in C3"):
        g.enter("C3")
    g2 = game(ruleset_for(model, "PB"), [tank("t", "B3")], blocks={"C3": "Soviet"})
    g2.begin_move("t")
    assert g2.enter("C3").hex == "C3"


def test_stacking_limit_comes_from_the_scenario(model):
    units = [tank("a", "C3"), tank("b", "C3"), tank("c", "B3")]
    g = game(ruleset_for(model, "DB"), units)
    g.begin_move("c")
    assert step_barrier(g, g.unit("c"), g.hex("C3")) is None        # no limit given: none
    g.stacking = {"German": 2}
    b = step_barrier(g, g.unit("c"), g.hex("C3"))
    assert b.value["cause"] == "stacking" and b.reasons == ["double-blind.movement"]
    g.stacking = {"German": 3}
    assert step_barrier(g, g.unit("c"), g.hex("C3")) is None


def test_a_unit_may_leave_a_mined_hex_it_started_in(model):
    g = game(ruleset_for(model, "DB"), [tank("t", "C3")], mines={"C3": "Soviet"})
    g.begin_move("t")
    assert step_barrier(g, g.unit("t"), g.hex("D3")) is None
    g.enter("D3")
    g.end_move()
    g2 = game(ruleset_for(model, "DB"), [tank("t", "B3")], mines={"C3": "Soviet"})
    g2.begin_move("t")
    g2.enter("C3")
    assert step_barrier(g2, g2.unit("t"), g2.hex("D3")).value["cause"] == "mines"


@pytest.mark.parametrize("may, declared, stops", [(True, True, False), (True, False, True),
                                                   (False, True, True)])
def test_enemy_hex_entered_only_by_a_declared_overrun(model, may, declared, stops):
    g = game(ruleset_for(model, "DB"), [tank("t", "B3", overrun=may), squad("s", "C3")])
    g.begin_move("t", overrun="s" if declared else None)
    b = step_barrier(g, g.unit("t"), g.hex("C3"))
    assert (b is not None) == stops
    if stops:
        assert b.value == {"cause": "enemy", "hex": "C3", "stopped-at": "B3", "units": ["s"]}


# ------------------------------------------------------------------ the referee

def test_pile_up_behind_a_block_and_what_each_side_is_shown(model):
    g = game(ruleset_for(model, "DB"), [tank("t1", "C3"), tank("t2", "B3"), tank("t3", "A3"),
                                        squad("s", "G1")], hexes={"G1": "woods"},
             blocks={"E3": "Soviet"})
    g.stacking = {"German": 2}
    ref = Referee(g)
    ref.spotting_step()
    ref.replay([Intent("t1", ["D3", "E3", "F3"]), Intent("t2", ["C3", "D3", "E3"]),
                Intent("t3", ["B3", "C3", "D3"])])
    assert [g.where(u) for u in ("t1", "t2", "t3")] == ["D3", "D3", "C3"]
    assert [ref.stops[u].value["cause"] for u in ("t1", "t2", "t3")] == ["block", "block",
                                                                          "stacking"]
    german, soviet = ref.view("German"), ref.view("Soviet")
    assert german.blocks == ["E3"] and german.enemy == {}
    assert sorted(german.own) == ["t1", "t2", "t3"]
    # the Soviet board shows the tanks where the spotting step found them, not where they stopped
    assert soviet.blocks == [] and soviet.enemy == {"t1": "C3", "t2": "B3", "t3": "A3"}


def test_movers_spot_only_what_stopped_them(model):
    """The tank stopped by the hidden squad is shown the squad; the gun it now sees in the open
    waits for the next spotting step."""
    units = [tank("t", "B2"), squad("s", "D2"), tank("gun", "H5", side="Soviet")]
    g = game(ruleset_for(model, "DB"), units, hexes={"D2": "woods", "H5": "woods", "A5": "woods"})
    ref = Referee(g)
    ref.spotting_step()
    assert ref.view("German").enemy == {}
    ref.replay([Intent("t", ["C2", "D2"])])
    v = ref.view("German")
    assert v.enemy == {"s": "D2"}
    assert "double-blind.after-movement" in v.reasons


def test_unload_after_an_overrun_goes_to_the_hex_it_was_entered_from(model):
    units = [tank("ht", "B4", kind="halftrack", overrun=True),
             squad("rifles", "B4", side="German", **{"loaded-in": "ht"}),
             squad("truck", "D4", kind="truck")]
    for rules, expected in (("DB", "C4"), ):
        g = game(ruleset_for(model, rules), units)
        ref = Referee(g)
        ref.replay([Intent("ht", ["C4", "D4"], overrun="truck", unload=True)])
        assert ref.unloads["rifles"].value == expected
        assert ref.unloads["rifles"].reasons == ["double-blind.unloading"]
        assert g.where("rifles") == expected and g.unit("rifles").loaded_in is None
    # without the rule, nothing is unloaded after the fact
    rs = Ruleset.from_values("ZZ", {k: v for k, v in ALL_ON.items() if k != "referee.overrun-unload"},
                             registry=model)
    g = game(rs, units)
    ref = Referee(g)
    ref.replay([Intent("ht", ["C4", "D4"], overrun="truck", unload=True)])
    assert ref.unloads == {} and g.unit("rifles").loaded_in == "ht"


def test_impossible_orders_are_order_errors(model):
    g = game(ruleset_for(model, "DB"), [tank("t", "B3"), squad("s", "F1")])
    ref = Referee(g)
    with pytest.raises(OrderError) as e:
        ref.replay([Intent("t", ["C3", "E3"])])
    assert (e.value.order, e.value.step) == (0, 1)
    with pytest.raises(OrderError) as e:
        ref.replay([Intent("s", ["F2"])])
    assert e.value.order == 0 and e.value.step is None


def test_unseen_fire_is_reported_seen_fire_is_not(model):
    units = [tank("gun", "B2", side="Soviet"), tank("t", "F2")]
    g = game(ruleset_for(model, "DB"), units, side="Soviet", phase="fire", hexes={"B2": "woods"})
    ref = Referee(g)
    ref.spotting_step()
    assert g.fire(["gun"], "t", "none").value
    assert ref.after_fire(["gun"], "t") == [{"from": "B2", "class": "A", "attack": 12}]
    assert ref.view("German").enemy == {}
    # seen firer: adjacent, so spotted at the spotting step: no report
    g2 = game(ruleset_for(model, "DB"), [tank("gun", "B2", side="Soviet"), tank("t", "C2")],
              side="Soviet", phase="fire", hexes={"B2": "woods"})
    ref2 = Referee(g2)
    ref2.spotting_step()
    assert ref2.after_fire(["gun"], "t") == []
    # PB has no referee: no report
    g3 = game(ruleset_for(model, "PB"), units, side="Soviet", phase="fire", hexes={"B2": "woods"})
    assert Referee(g3).after_fire(["gun"], "t") == []


def test_view_drops_an_eliminated_enemy_and_a_new_step_forgets_old_shows(model):
    g = game(ruleset_for(model, "DB"), [tank("t", "B2"), squad("s", "D2")])
    ref = Referee(g)
    ref.spotting_step()
    assert ref.view("German").enemy == {"s": "D2"}
    g.unit("s").hex = g.hex("H5")
    g.map.hexes[g.hex("H5")] = "woods"
    ref.spotting_step()
    assert ref.view("German").enemy == {}
    g.unit("t").eliminated = True
    assert "t" not in ref.view("Soviet").enemy


# ------------------------------------------------------------------ the scenario transform

def test_blind_scenario_transform(model):
    db = ruleset_for(model, "DB")
    assert blind_scenario({"turns": 12, "mines": 6, "blocks": 4}, db).value == {
        "turns": 18, "mines": 3, "blocks": 2}
    assert blind_scenario({"turns": 7, "mines": 3, "blocks": 1}, db).value == {
        "turns": 11, "mines": 2, "blocks": 1}
    with pytest.raises(ValueError):
        blind_scenario({"turns": -1}, db)


# ------------------------------------------------------------------ scenarios

@pytest.mark.parametrize("sid", DB_SCENARIOS)
def test_db_scenarios_play(model, sid):
    r = run_scenario(model, sid)
    assert r.ok, "\n".join([str(e) for e in r.errors] + [x.explain() for x in r.rulings if not x.ok])
    assert r.rulings and all(row.reasons for row in r.rulings if row.ask.kind != "where")
    snap = r.snapshots["DB"][-1]
    assert set(snap["views"]) >= {"German", "Soviet"}


def test_orders_parse_problems():
    sc = Scenario(id="s", file="s.yaml", data={"steps": [
        {"orders": [{"unit": "t", "path": ["C2", "C3"]}, {"unit": "t", "path": ["C4"]},
                    {"unit": "u", "path": ["C2"], "unload": "yes"}]}]})
    msgs = [d.message for d in parse_steps(sc).problems]
    assert any("moves t again" in m for m in msgs)
    assert any("unload of order 3" in m for m in msgs)


def test_check_rejects_impossible_orders_at_their_position(tmp_path):
    rules = tmp_path / "rules"
    shutil.copytree(RULES, rules)
    p = rules / "scenarios" / "db-mined-hex.yaml"
    text = p.read_text(encoding="utf-8")
    text = text.replace("{unit: tank, path: [C3, D3, E3]}",
                        "{unit: tank, path: [C3, D3, E3, F3, F4, E4, D4]}\n"
                        "        - {unit: soviet-squad, path: [F2]}")
    p.write_text(text, encoding="utf-8")
    _, report = check_path(rules)
    errs = [d for d in report.diagnostics if d.code == "scenario-order"]
    lines = text.splitlines()
    assert len(errs) == 2
    by_msg = {("movement points" in d.message): d for d in errs}
    assert "D4" in lines[by_msg[True].pos.line - 1][by_msg[True].pos.col - 1:]
    assert "soviet-squad" in lines[by_msg[False].pos.line - 1][by_msg[False].pos.col - 1:]


# ------------------------------------------------------------------ the site's boards

def test_referee_boards_come_from_the_engines_views(model):
    from harmony.games.panzerblitz.figures import referee_figures, referee_states
    sc = model.scenarios["db-column-block"]
    snaps = run_scenario(model, "db-column-block").snapshots["DB"]
    (referee, german, soviet), = referee_states(sc, snaps)
    assert [u["id"] for u in referee["units"]] == ["tank-1", "tank-2", "tank-3", "soviet-squad"]
    assert german["map"]["labels"] == {"E3": "BL"} and referee["map"]["labels"] == {"E3": "BL"}
    assert [u["id"] for u in german["units"]] == ["tank-1", "tank-2", "tank-3"]
    # the Soviet board shows the tanks where the spotting step found them
    assert {u["id"]: u["at"] for u in soviet["units"]} == {
        "tank-1": "C3", "tank-2": "B3", "tank-3": "A3", "soviet-squad": "G1"}
    figs = referee_figures(sc, snaps)
    assert len(figs) == 1 and figs[0]["svg"].count("<svg ") == 4
    assert referee_figures(sc, snaps) == figs                  # same input, same bytes
    assert referee_figures(sc, run_scenario(model, "rev-figure-1").snapshots["REV"]) == []


def test_an_order_whose_first_hex_is_not_beside_the_unit_is_a_path_error(tmp_path):
    """The tank stands in B3: an order starting at D3 names where it moves from."""
    rules = tmp_path / "rules"
    shutil.copytree(RULES, rules)
    p = rules / "scenarios" / "db-mined-hex.yaml"
    text = p.read_text(encoding="utf-8").replace("{unit: tank, path: [C3, D3, E3]}",
                                                 "{unit: tank, path: [D3, E3]}")
    p.write_text(text, encoding="utf-8")
    _, report = check_path(rules)
    errs = [d for d in report.diagnostics if d.code == "scenario-path"]
    assert len(errs) == 1, report.to_text()
    assert "not adjacent to B3, the hex tank moves from" in errs[0].message
    line = text.splitlines()[errs[0].pos.line - 1]
    assert line[errs[0].pos.col - 1:].startswith("D3")

"""Revealed movement by unloading: a transport that unloads inside a concealing hex.

The revised rules' optional revealed movement (``spot.revealed-movement``, set by
``movement.revealed``) spots a unit moving about inside a concealing hex in an eligible
enemy unit's sight; its commentary counts unloading as such movement and reveals the
transport and its passenger (``spot.unloading-reveals``). Without the option, and under
rulebooks that have no such rule, unloading spots nobody. Each ruling names the clauses
whose parameters decided it.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harmony.check import check_path
from harmony.games.panzerblitz.engine import DataError, EngineError, Game
from harmony.games.panzerblitz.examples import make_position
from harmony.games.panzerblitz.explorer import Explorer
from harmony.games.panzerblitz.figures import states, step_list
from harmony.games.panzerblitz.referee import Intent, OrderError, Referee
from harmony.games.panzerblitz.scenario import run_scenario
from harmony.games.panzerblitz.steps import Unload, parse_steps
from harmony.loader import load
from harmony.ruleset import Ruleset, ruleset_for

REPO = Path(__file__).resolve().parent.parent
RULES = REPO / "rules_data"

OLDER = ("PB", "PL", "AIW", "DB")
REVEALING = ("REV+revealed-movement", "REV+concealed-movement+revealed-movement")
HIDING = ("REV", "REV+concealed-movement")
SPOTTING = ["spotting.limitation", "spotting.recording"]


@pytest.fixture(scope="module")
def model(shipped_model):
    return shipped_model


def loaded_truck(model, where: str = "C3", gun: str = "Soviet gun at A3 opportunity-fire=true",
                 woods: str = "C3"):
    """A German truck carrying rifles in ``where`` (woods by default), a Soviet gun that sees
    it from A3, the German movement phase."""
    return make_position(model, gun, f"German truck at {where} opportunity-fire=false",
                         f"rifles: German infantry at {where} loaded-in=truck opportunity-fire=true",
                         woods=woods, phase="German movement")


# ------------------------------------------------------------------ the revised rules

@pytest.mark.parametrize("ruleset", REVEALING)
def test_unloading_in_sight_spots_the_truck_and_its_rifles(model, ruleset):
    g = loaded_truck(model).under(ruleset)
    r = g.unload("truck")
    assert (r.value, r.reasons) == (["rifles", "truck"], ["movement.revealed"] + SPOTTING)
    assert r.settings["spot.unloading-reveals"].cell == "movement.revealed@REV"
    for uid in ("truck", "rifles"):
        spotted = g.spotted(uid)
        assert (spotted.value, spotted.reasons) == (True, ["movement.revealed"] + SPOTTING
                                                    + ["spotting.spotted"])
        assert g.markers(uid).value == ["spotted"]
    assert g.where("rifles") == "C3" and g.unit("rifles").loaded_in is None


@pytest.mark.parametrize("ruleset", HIDING)
def test_without_the_option_unloading_spots_nobody_and_says_why(model, ruleset):
    g = loaded_truck(model).under(ruleset)
    r = g.unload("truck")
    assert (r.value, r.reasons) == ([], ["movement.revealed"])
    assert r.settings["spot.revealed-movement"].origin == "option-off"
    assert "not revealed movement" in r.detail
    for uid in ("truck", "rifles"):
        spotted = g.spotted(uid)
        assert (spotted.value, spotted.reasons) == (False, ["movement.revealed", "spotting.spotted"])
        assert g.markers(uid).value == []
    # the unloaded rifles stand in the woods, no longer aboard
    assert g.where("rifles") == "C3" and g.carried("truck") == []


@pytest.mark.parametrize("ruleset", REVEALING)
def test_no_eligible_spotter_in_sight_spots_nobody(model, ruleset):
    g = loaded_truck(model, gun="Soviet gun at A3 dispersal=D opportunity-fire=true").under(ruleset)
    r = g.unload("truck")
    assert r.value == [] and r.reasons == ["movement.revealed", "spotting.limitation"]
    assert "no eligible enemy unit" in r.detail
    assert g.spotted("rifles").value is False


@pytest.mark.parametrize("ruleset", REVEALING + HIDING + OLDER)
def test_unloading_in_the_open_asks_no_spotting_rule(model, ruleset):
    g = loaded_truck(model, where="C3", woods="E5").under(ruleset)
    r = g.unload("truck")
    assert (r.value, r.reasons) == ([], [])
    assert "spot.revealed-movement" not in r.settings
    # in the open the gun's line of sight spots the rifles anyway, as it did the truck
    assert g.spotted("rifles").value is True


def test_the_option_combines_with_concealed_movement(model):
    """The commentary's case: the truck creeps in unseen, and gives itself away unloading."""
    pos = make_position(model, "Soviet gun at A3 opportunity-fire=true",
                        "German truck at D3 opportunity-fire=false",
                        "rifles: German infantry at D3 loaded-in=truck", woods="C3",
                        phase="German movement")
    for ruleset, seen in (("REV+concealed-movement", False),
                          ("REV+concealed-movement+revealed-movement", True)):
        g = pos.under(ruleset)
        g.begin_move("truck", "concealed")
        assert g.enter("C3").spotted.value is False
        assert g.where("rifles") == "C3"            # the cargo goes where its truck goes
        assert g.unload("truck").value == (["rifles", "truck"] if seen else [])
        assert g.move is None                       # unloading ended the move
        assert g.spotted("truck").value is seen and g.spotted("rifles").value is seen


# ------------------------------------------------------------------ the parameter's readings

def _values(model, reveals) -> Ruleset:
    return Ruleset.from_values("X", {"spot.revealed-movement": True, "spot.markers": True,
                                     "spot.unloading-reveals": reveals}, registry=model,
                               clause="movement.revealed")


@pytest.mark.parametrize(("reveals", "spotted"), [
    (["transport", "passengers"], ["rifles", "truck"]),
    (["transport"], ["truck"]),
    (["passengers"], ["rifles"]),
    ([], []),
])
def test_the_parameter_says_which_units_unloading_reveals(model, reveals, spotted):
    pos = loaded_truck(model)
    g = Game.from_data(_values(model, reveals), pos.map, [dict(u) for u in pos.units],
                       pos.side, pos.phase)
    assert g.unload("truck").value == spotted
    for uid in ("truck", "rifles"):
        ruling = g.spotted(uid)
        assert ruling.value is (uid in spotted)
        assert "movement.revealed" in ruling.reasons        # spotted or not, the clause decided


def test_the_reading_is_set_by_the_cited_cell(model):
    rev = ruleset_for(model, "REV+revealed-movement").setting("spot.unloading-reveals")
    assert (sorted(rev.value), rev.cell, rev.origin) == (["passengers", "transport"],
                                                         "movement.revealed@REV", "own")
    cell = model.clauses["movement.revealed"].cells["REV"]
    assert any(getattr(c, "section", None) == "Commentary" for c in cell.cites)
    assert ruleset_for(model, "REV").setting("spot.unloading-reveals").origin == "option-off"
    for name in OLDER:
        assert ruleset_for(model, name)["spot.unloading-reveals"] == []
        assert ruleset_for(model, name)["spot.revealed-movement"] is False


# ------------------------------------------------------------------ the older rulebooks

@pytest.mark.parametrize("ruleset", OLDER)
def test_the_older_rulebooks_spot_nobody_unloading(model, ruleset):
    g = loaded_truck(model).under(ruleset)
    r = g.unload("truck")
    assert r.value == []
    assert "spot.unloading-reveals" not in r.settings      # never asked without the rule
    # PB, PL and AIW are silent in the revealed movement row, which is named; DB has no cell
    # there and builds on PB through its own cells, so no clause says it
    assert r.reasons == ([] if ruleset == "DB" else ["movement.revealed"])
    assert g.spotted("rifles").value is False and g.markers("rifles").value == []


@pytest.mark.parametrize("ruleset", ("PB", "PL", "AIW"))
def test_the_older_rulebooks_shipped_rulings_are_unchanged(model, ruleset):
    """Every shipped scenario played under PB, PL or AIW gives the rulings it expects, and none
    of them consults the new parameter."""
    seen = 0
    for sid, sc in sorted(model.scenarios.items()):
        if ruleset not in (sc.data.get("rulesets") or []):
            continue
        result = run_scenario(model, sid, [ruleset])
        rows = [r for r in result.rulings if r.ruleset == ruleset]
        assert rows and all(r.ok for r in rows), sid
        seen += len(rows)
    assert seen > 20


def test_double_blind_unloading_is_unchanged(model):
    result = run_scenario(model, "db-overrun-unload")
    assert not result.errors and all(r.ok for r in result.rulings)
    unloaded = next(r for r in result.rulings if r.question == "Where are the rifles unloaded?")
    assert (unloaded.actual, unloaded.reasons) == ("C4", ["double-blind.unloading"])


def test_a_blind_unload_in_woods_in_sight_spots_nobody(model):
    g = loaded_truck(model, where="D3").under("DB")
    ref = Referee(g)
    ref.replay([Intent("truck", ["C3"], unload=True)])
    assert ref.unloads["rifles"].value == "C3" and ref.unloads["rifles"].reasons == []
    assert g.spotted("rifles").value is False and g.markers("truck").value == []


def test_a_blind_unload_of_an_empty_transport_is_an_order_error(model):
    g = make_position(model, "Soviet gun at A3", "German truck at D3", woods="C3",
                      phase="German movement").under("DB")
    with pytest.raises(OrderError, match="truck carries no unit to unload") as e:
        Referee(g).replay([Intent("truck", ["C3"], unload=True)])
    assert e.value.order == 0


# ------------------------------------------------------------------ how long the reasons last

def test_the_unloading_reasons_last_until_the_unit_moves_or_the_phase_ends(model):
    g = loaded_truck(model).under("REV")
    g.unload("truck")
    assert "movement.revealed" in g.spotted("rifles").reasons
    g.begin_move("rifles")
    g.enter("C2")
    g.end_move()
    assert "movement.revealed" not in g.spotted("rifles").reasons
    assert "movement.revealed" in g.spotted("truck").reasons
    g.end_phase()       # the German movement phase, and so the player turn, ends
    assert "movement.revealed" not in g.spotted("truck").reasons


# ------------------------------------------------------------------ refusals

def test_an_empty_transport_is_a_data_error(model):
    g = loaded_truck(model).under("REV+revealed-movement")
    g.unload("truck")
    with pytest.raises(DataError, match="'truck' carries no unit to unload"):
        g.unload("truck")
    with pytest.raises(DataError, match="'rifles' carries no unit to unload"):
        g.unload("rifles")
    with pytest.raises(DataError, match="no unit 'lorry'"):
        g.unload("lorry")


def test_unloading_out_of_turn_is_refused_by_the_sequence_of_play(model):
    pos = loaded_truck(model)
    fire = Game.from_data(ruleset_for(model, "REV"), pos.map, [dict(u) for u in pos.units],
                          "German", "fire")
    with pytest.raises(EngineError, match="cannot unload now") as e:
        fire.unload("truck")
    assert e.value.clause == "sequence.player-turn"
    soviet = Game.from_data(ruleset_for(model, "REV"), pos.map, [dict(u) for u in pos.units],
                            "Soviet", "movement")
    with pytest.raises(EngineError, match="cannot unload now"):
        soviet.unload("truck")
    assert soviet.unit("rifles").loaded_in == "truck"       # nothing changed


def test_an_eliminated_transport_cannot_unload(model):
    g = loaded_truck(model).under("REV")
    g.unit("truck").eliminated = True
    with pytest.raises(EngineError, match="eliminated") as e:
        g.unload("truck")
    assert e.value.clause == "sequence.moving"


# ------------------------------------------------------------------ the scenario

def test_the_shipped_scenario_decides_unloading_as_expected(model):
    result = run_scenario(model, "rev-revealed-unloading")
    assert not result.errors and result.rulings and all(r.ok for r in result.rulings)
    got = {(r.step, r.question, r.ruleset): r.actual for r in result.rulings}
    rifles = "Are the rifles it unloaded spotted?"
    for name in REVEALING:
        assert got[4, rifles, name] is True
    for name in HIDING + ("PB", "PL", "AIW"):
        assert got[4, rifles, name] is False
    fire = "In its fire phase, may the gun fire at the rifles?"
    assert got[5, fire, "REV+concealed-movement+revealed-movement"] is True
    assert got[5, fire, "REV+concealed-movement"] is False
    snap = result.snapshots["REV+revealed-movement"][4]
    assert snap["action"] == "unload"
    assert snap["unload"]["units"] == ["german-rifles"]
    assert snap["unload"]["spotted"] == ["german-rifles", "german-truck"]


def test_the_scenario_page_says_who_unloads(model):
    sc = model.scenarios["rev-revealed-unloading"]
    steps = step_list(sc)
    assert steps[4]["note"].startswith("The truck unloads the rifles")
    bare = type(sc)(id=sc.id, data={**sc.data, "steps": [{"unload": "german-truck"}]})
    assert step_list(bare)[0]["note"] == "German truck unloads what it carries."
    # the figure of the truck's move shows the rifles aboard, in the woods with it
    setup, moved = states(sc)
    where = {u["id"]: u["at"] for u in moved["units"]}
    assert where["german-truck"] == where["german-rifles"] == "D3"
    assert {u["id"]: u["at"] for u in setup["units"]}["german-rifles"] == "D2"


SCENARIO = """\
scenario:
  id: unload-test
  title: T
  summary: S.
  rulesets: [REV+revealed-movement]
  map: {{columns: 5, rows: 5, hexes: {{C3: woods}}}}
  units:
    - {{id: gun, side: Soviet, kind: gun, class: A, attack: 10, range: 8, defence: 3, movement: 1,
       at: A3}}
    - {{id: truck, side: German, kind: truck, class: I, attack: 0, range: 0, defence: 1,
       movement: 8, at: C3}}
    - {{id: rifles, side: German, kind: infantry, class: I, attack: 6, range: 3, defence: 6,
       movement: 1, at: C3, loaded-in: truck}}
  start: {{side: German, phase: {phase}}}
  steps:
{steps}
"""


def _folder(tmp_path: Path, steps: str, phase: str = "movement") -> Path:
    folder = tmp_path / "rules_data"
    import shutil
    shutil.copytree(RULES, folder)
    (folder / "scenarios" / "unload-test.yaml").write_text(
        SCENARIO.format(steps=steps, phase=phase), encoding="utf-8")
    return folder


def _errors(folder: Path) -> list:
    _, report = check_path(str(folder))
    return [d for d in report.errors if "unload-test" in str(d.pos)]


def _line(folder: Path, d) -> str:
    text = (folder / "scenarios" / "unload-test.yaml").read_text(encoding="utf-8")
    return text.splitlines()[d.pos.line - 1]


@pytest.mark.parametrize(("steps", "code", "words", "at"), [
    ("    - unload: gun", "scenario-unload", "unloads gun, which carries no unit", "gun"),
    ("    - unload: truck\n    - unload: truck", "scenario-unload", "carries no unit", "truck"),
    ("    - unload: lorry", "unresolved-unit", "lorry", "lorry"),
    ("    - unload: [truck]", None, "unload", "unload"),
])
def test_a_bad_unload_step_is_an_error_at_its_place(tmp_path, steps, code, words, at):
    folder = _folder(tmp_path, steps)
    errors = _errors(folder)
    assert errors, "no error"
    d = errors[-1]
    assert words in d.message
    if code:
        assert d.code == code
    assert at in _line(folder, d)


def test_an_unload_in_the_fire_phase_is_an_error_at_the_step(tmp_path):
    folder = _folder(tmp_path, "    - unload: truck", phase="fire")
    errors = _errors(folder)
    assert [d.code for d in errors] == ["scenario-unload"]
    assert "movement phase" in errors[0].message


def test_an_unload_after_the_cargo_moved_with_its_truck_checks_clean(tmp_path):
    """The rifles ride along: after the truck's move, unloading there and moving the rifles on
    from the truck's hex is a clean scenario."""
    steps = ("    - move: {unit: truck, path: [C2]}\n    - unload: truck\n"
             "    - move: {unit: rifles, path: [C1]}")
    folder = _folder(tmp_path, steps)
    assert _errors(folder) == []


def test_an_unload_refused_in_play_is_a_positioned_error_not_a_traceback(tmp_path):
    """The check does not know whose turn it is at each step; play does, and says so."""
    steps = "    - end: turn\n    - end: phase\n    - unload: truck"
    folder = _folder(tmp_path, steps)
    model, report = load(str(folder))
    assert not report.errors
    result = run_scenario(model, "unload-test")
    assert len(result.errors) == 1
    d = result.errors[0]
    assert "cannot unload now" in d.message and d.message.endswith("[sequence.player-turn]")
    assert "unload: truck" in _line(folder, d)


def test_the_step_is_read_with_its_position():
    from harmony.model import Scenario
    sc = Scenario(id="s", data={"steps": [{"unload": "truck"}, {"unload": "truck", "end": "turn"},
                                          {"unload": 3}]})
    parsed = parse_steps(sc)
    assert isinstance(parsed.steps[0].action, Unload) and parsed.steps[0].kind == "unload"
    assert parsed.steps[0].action.unit == "truck"
    messages = [d.message for d in parsed.problems]
    assert any("does one thing (move, fire, end, orders or unload)" in m for m in messages)
    assert any("the unloading unit of step 3 is an id" in m for m in messages)
    assert parsed.bad == frozenset({1, 2})


# ------------------------------------------------------------------ the explorer

def test_the_explorer_decides_an_unload_and_refuses_an_empty_one():
    ex = Explorer(str(RULES))
    pos = {"rulesets": ["PB", "REV+revealed-movement"],
           "map": {"columns": 5, "rows": 5, "hexes": {"C3": "woods"}},
           "units": [{"id": "truck", "side": "German", "kind": "truck", "class": "I", "attack": 0,
                      "range": 0, "defence": 1, "movement": 8, "at": "C3"},
                     {"id": "inf", "side": "German", "kind": "infantry", "class": "I", "attack": 6,
                      "range": 3, "defence": 6, "movement": 1, "at": "C3", "loaded-in": "truck"},
                     {"id": "gun", "side": "Soviet", "kind": "gun", "class": "A", "attack": 8,
                      "range": 6, "defence": 2, "movement": 1, "at": "C1"}],
           "start": {"side": "German", "phase": "movement"},
           "steps": [{"unload": "truck"}]}
    out = json.loads(ex.decide(json.dumps(pos), snapshots=False))
    inf = next(q for q in out["questions"] if q["id"] == "spotted:inf")["rulings"]
    assert inf["REV+revealed-movement"]["value"] is True and inf["PB"]["value"] is False
    assert "movement.revealed" in inf["PB"]["reasons"]
    pos["steps"] = [{"unload": "gun"}]
    err = json.loads(ex.check(json.dumps(pos)))["error"]
    assert err["path"] == "steps[0].unload" and "carries no unit" in err["message"]

"""Readings as clauses (issue 13): every refusal of the engine names its clause, and the
readings the engine applies come from cited cells, so changing a cell changes the ruling."""
from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from editing import clean_model, edit
from harmony.games.panzerblitz.engine import DataError, EngineError, Game
from harmony.loader import load
from harmony.pytest_plugin import example_namespace
from harmony.ruleset import Ruleset
from harmony.games.panzerblitz.scenario import run_scenario

REPO = Path(__file__).resolve().parents[1]
RULES = REPO / "rules_data"


@pytest.fixture(scope="module")
def shipped():
    model, report = load(RULES)
    assert not report.errors
    return model


def test_every_refusal_in_the_engine_source_names_a_clause():
    tree = ast.parse((REPO / "harmony" / "games" / "panzerblitz" / "engine.py").read_text())
    bare = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) \
                and getattr(node.exc.func, "id", None) == "EngineError":
            if not any(k.arg == "clause" for k in node.exc.keywords):
                bare.append(node.lineno)
    assert not bare, f"EngineError raised without clause= at lines {bare}"


def _opfire_game(model, rules: str, movement: int) -> Game:
    ns = example_namespace(model)
    return ns["board"](rules, "Soviet gun at A3 opportunity-fire=true",
                       f"German tank at H3 movement={movement}", phase="German movement")


def test_aiw_threshold_for_allowance_7_follows_the_aiw_cell(shipped):
    g = _opfire_game(shipped, "AIW", 7)
    g.begin_move("tank")
    first = g.enter("G3").opfire          # one point in sight: not yet (7/4 is not rounded)
    assert first.value == [] and "fewer than 2" in first.detail
    assert "opportunity-fire.rule" in first.reasons
    assert g.enter("F3").opfire.value == [{"firers": ["gun"], "drm": 0}]
    # Panzer Leader rounds the quarter down: one point is enough
    pl = _opfire_game(shipped, "PL+opportunity-fire", 7)
    pl.begin_move("tank")
    assert pl.enter("G3").opfire.value == [{"firers": ["gun"], "drm": 0}]


def test_changing_the_aiw_reading_in_a_scratch_copy_changes_the_ruling(rules_copy, shipped):
    edit(rules_copy, "opportunity-fire.yaml", "opfire.activation-rounding: none",
         "opfire.activation-rounding: down")
    model = clean_model(rules_copy)
    g = _opfire_game(model, "AIW", 7)
    g.begin_move("tank")
    ruling = g.enter("G3").opfire
    assert ruling.value == [{"firers": ["gun"], "drm": 0}]
    assert ruling.settings["opfire.activation-rounding"].cell == "opportunity-fire.rule@AIW"


def test_aiw_mover_carries_its_spotted_counter_from_start_to_end(shipped):
    ns = example_namespace(shipped)
    g = ns["board"]("AIW", "Soviet gun at A3 opportunity-fire=true", "German infantry at C3",
                    woods="C3 C2", phase="German movement")
    g.begin_move("infantry")
    assert g.markers("infantry").value == ["spotted"]
    assert "movement.spotting" in g.markers("infantry").reasons
    g.enter("C2")
    assert g.markers("infantry").value == ["spotted"]
    g.end_move()
    assert g.markers("infantry").value == []
    rev = ns["board"]("REV", "Soviet gun at A3", "German infantry at C3", woods="C3 C2",
                      phase="German movement")
    rev.begin_move("infantry")
    assert rev.markers("infantry").value == []


def test_aiw_opportunity_fire_needs_unit_data_never_a_guess(shipped):
    ns = example_namespace(shipped)
    g = ns["board"]("AIW", "Soviet infantry at A3", "German tank at H3", phase="German movement")
    with pytest.raises(EngineError) as e:
        g.begin_move("tank")
    assert e.value.clause == "opportunity-fire.eligibility" and g.move is None
    said_no = ns["board"]("AIW", "Soviet infantry at A3 opportunity-fire=false",
                          "German tank at H3", phase="German movement")
    said_no.begin_move("tank")
    assert said_no.enter("G3").opfire.value == [] and said_no.enter("F3").opfire.value == []
    # REV reads no unit data: its eligibility is a rule of its own
    rev = ns["board"]("REV", "Soviet infantry at A3", "German tank at C3", phase="German movement")
    rev.begin_move("tank")
    assert rev.enter("B3").opfire.value == [{"firers": ["infantry"], "drm": 1}]


@pytest.mark.parametrize("order, clause", [
    ("move-twice", "sequence.one-move"),
    ("move-enemy", "sequence.player-turn"),
    ("fire-in-movement", "sequence.player-turn"),
    ("fire-at-itself", "sequence.player-turn"),
    ("fire-at-own-side", "sequence.player-turn"),
    ("face-down-moves", "sequence.fire-or-move"),
])
def test_impossible_orders_are_refused_with_their_clause(shipped, order, clause):
    ns = example_namespace(shipped)
    g = ns["board"]("REV", "Soviet gun at A3", "German tank at H3", "German infantry at H4",
                    phase="German movement")
    with pytest.raises(EngineError) as e:
        if order == "move-twice":
            ns["move"](g, "tank", "G3")
            g.end_move()
            g.begin_move("tank")
        elif order == "move-enemy":
            g.begin_move("gun")
        elif order == "fire-in-movement":
            g.fire(["tank"], "gun", "none")
        elif order == "fire-at-itself":
            g.end_turn()
            g.end_turn()
            g.fire(["tank"], "tank", "none")
        elif order == "fire-at-own-side":
            g.end_turn()
            g.end_turn()
            g.fire(["tank"], "infantry", "none")
        else:
            g.unit("tank").face_up = False
            g.begin_move("tank")
    assert e.value.clause == clause and clause in shipped.clauses


@pytest.mark.parametrize("loaded", [["a"], ["b", "a"]])
def test_a_unit_loaded_in_itself_or_in_a_loop_is_bad_data(shipped, loaded):
    units = [{"id": "a", "side": "German", "kind": "truck", "class": "I", "attack": 0,
              "range": 0, "defence": 1, "movement": 8, "at": "A1", "loaded-in": loaded[0]},
             {"id": "b", "side": "German", "kind": "truck", "class": "I", "attack": 0,
              "range": 0, "defence": 1, "movement": 8, "at": "A1",
              **({"loaded-in": loaded[1]} if len(loaded) > 1 else {})}]
    with pytest.raises(DataError, match="loaded in a loop"):
        Game.from_data(Ruleset.from_model(shipped, "PB"), {"columns": 3, "rows": 3}, units,
                       "German", "movement")


def test_every_refusal_and_ruling_of_the_shipped_scenarios_names_a_clause(shipped,
                                                                          monkeypatch):
    """Walk every EngineError raised and every Ruling made while the shipped scenarios play:
    each refusal names a clause of the rules data, and each ruling of a rule (not a bare
    reading of the state: where, dispersal, face, line of sight) has a reason."""
    refusals: list[EngineError] = []
    real_init = EngineError.__init__

    def recording(self, message, *, clause=None):
        real_init(self, message, clause=clause)
        refusals.append(self)

    monkeypatch.setattr(EngineError, "__init__", recording)
    rows = []
    from harmony import game
    for sid in sorted(shipped.scenarios):
        if game.scenario_game(shipped, shipped.scenarios[sid]).name != "panzerblitz":
            continue        # the hex engine's refusals: a Combat Patrol scenario is not its
        result = run_scenario(shipped, sid)
        rows += result.rulings
    state = ("where", "dispersal", "face", "los", "markers")
    ruled = [r for r in rows if r.ask.kind not in state]
    assert ruled
    for r in ruled:
        assert r.reasons, f"{r.pos}: a ruling with no clause behind it"
        assert all(c in shipped.clauses for c in r.reasons)
    for e in refusals:
        if not isinstance(e, DataError):
            assert e.clause in shipped.clauses, f"refusal without a clause: {e}"


# ------------------------------------------------ scenarios that must be playable (17.3)

# steps appended to a shipped scenario (whose German platoon has moved once), the line of
# the appended text that the error must point at, and the clause it must name
UNPLAYABLE = {
    "move-twice": ("    - move: {unit: german-platoon, path: [D3]}\n", 1, "sequence.one-move"),
    "move-enemy": ("    - move: {unit: soviet-gun, path: [D6]}\n", 1, "sequence.player-turn"),
    "after-turn": ("    - end: turn\n    - move: {unit: german-platoon, path: [D3]}\n", 2,
                   "sequence.player-turn"),
    "fire-in-movement": ("    - fire: {units: [german-platoon], target: soviet-gun, "
                         "result: none}\n", 1, "sequence.player-turn"),
    "fire-at-itself": ("    - end: turn\n    - end: turn\n    - fire: {units: [german-platoon], "
                       "target: german-platoon, result: none}\n", 3, "sequence.player-turn"),
}


@pytest.mark.parametrize("case", sorted(UNPLAYABLE))
def test_check_reports_an_unplayable_step_at_its_position(tmp_path, case):
    from harmony.check import check_path
    added, line, clause = UNPLAYABLE[case]
    scratch = tmp_path / "rules_data"
    shutil.copytree(RULES, scratch)
    sc = scratch / "scenarios" / "aiw-moving-in-woods.yaml"
    text = sc.read_text()
    sc.write_text(text + added)
    _, report = check_path(scratch)
    steps = [d for d in report.errors if d.code == "scenario-step"]
    expected_line = text.count("\n") + line
    assert steps and all(d.pos.line == expected_line and clause in d.message for d in steps), \
        report.to_text()
    assert {d.message.split(",")[1].split(":")[0].strip() for d in steps} == \
        {"PB", "PL", "AIW", "REV"}


def test_a_question_the_engine_cannot_answer_is_reported_at_the_question(tmp_path):
    """Found by the long fuzz run: the starter's scenario asks can-fire while the parameter
    the engine reads for it is no longer declared. The question is a positioned error;
    nothing escapes the check."""
    from harmony.check import check_path
    from harmony.init import create
    scratch = tmp_path / "rules_data"
    create(scratch)
    params = scratch / "parameters.yaml"
    params.write_text(params.read_text().replace("name: spot.adjacent", "name: spot.adjacen"))
    _, report = check_path(scratch)
    asks = [d for d in report.errors if d.code == "scenario-step" and "could not be answered" in d.message]
    assert asks and all("spot.adjacent" in d.message and d.pos.path.endswith(".yaml")
                        and "scenarios" in d.pos.path and d.pos.line > 1 for d in asks), report.to_text()


def test_an_undeclared_parameter_read_before_the_first_step_is_a_setup_error(tmp_path):
    """Found by the long fuzz run (seed 4): the referee's spotting step, which runs before
    the first move, read a parameter the rules do not declare, out of check."""
    from harmony.check import check_path
    from harmony.init import create
    scratch = tmp_path / "rules_data"
    create(scratch)
    params = scratch / "parameters.yaml"
    params.write_text(params.read_text() + "  - name: referee.spotting-step\n    type: bool\n"
                      "    description: A spotting step before each move.\n    default: true\n")
    _, report = check_path(scratch)
    setup = [d for d in report.errors if d.code == "scenario-setup"]
    assert setup and all("has no parameter" in d.message and d.pos.line > 1 for d in setup), report.to_text()


def test_check_reports_a_unit_loaded_in_itself(tmp_path):
    from harmony.check import check_path
    scratch = tmp_path / "rules_data"
    shutil.copytree(RULES, scratch)
    sc = scratch / "scenarios" / "aiw-moving-in-woods.yaml"
    text = sc.read_text()
    sc.write_text(text.replace("at: C3, opportunity-fire: true}",
                               "at: C3, opportunity-fire: true, loaded-in: german-platoon}"))
    assert "loaded-in: german-platoon" in sc.read_text()
    _, report = check_path(scratch)
    assert any(d.code == "scenario-loaded-loop" for d in report.errors), report.to_text()


def test_the_shipped_scenarios_are_playable(shipped):
    from harmony.check import check_path
    _, report = check_path(RULES)
    assert not report.errors, report.to_text()

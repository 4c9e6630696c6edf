"""Movement modes in the hex engine: normal, concealed, revealed, quick march and road.

Each ruleset offers the modes its ``move.modes`` parameter lists (set by the clause
``movement.modes``); a mode it lacks is refused by that clause, an unknown word is a
positioned error, and what a mode exposes is decided by the spotting clauses.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harmony.games.panzerblitz.engine import MODES, DataError, EngineError
from harmony.games.panzerblitz.examples import make_position
from harmony.games.panzerblitz.explorer import Explorer
from harmony.games.panzerblitz.scenario import run_scenario
from harmony.loader import load

REPO = Path(__file__).resolve().parent.parent
RULES = REPO / "rules_data"

WITHOUT_RATES = ("PB", "PL", "PL+opportunity-fire", "AIW")
REV = ("REV", "REV+concealed-movement", "REV+revealed-movement")


@pytest.fixture(scope="module")
def model(shipped_model):
    return shipped_model


def woods_in_sight(model, mover: str = "German infantry at D3 movement=1"):
    """A Soviet gun sees woods hex C3; a German unit next to it is about to move."""
    return make_position(model, "Soviet gun at A3 opportunity-fire=true",
                         f"{mover} opportunity-fire=true", woods="C3", phase="German movement")


def entering(model, ruleset: str, mode: str, mover: str = "German infantry at D3 movement=1"):
    game = woods_in_sight(model, mover).under(ruleset)
    unit = mover.split()[1]
    game.begin_move(unit, mode)
    return game.enter("C3")


# ------------------------------------------------------------------ each mode, each ruleset

# (ruleset, mode) -> (spotted?, the clauses that decide it), infantry with an allowance of 1
INFANTRY = {
    ("REV", "normal"): (True, ["movement.allowance-one", "movement.spotting", "spotting.limitation",
                               "spotting.recording", "spotting.spotted"]),
    ("REV+concealed-movement", "normal"): (False, ["movement.allowance-one", "movement.spotting",
                                                   "spotting.spotted"]),
    ("REV", "concealed"): (True, ["movement.concealed", "movement.spotting", "spotting.limitation",
                                  "spotting.recording", "spotting.spotted"]),
    ("REV+concealed-movement", "concealed"): (False, ["movement.concealed", "movement.spotting",
                                                      "spotting.spotted"]),
    ("REV", "quick-march"): (True, ["movement.modes", "movement.spotting", "spotting.limitation",
                                    "spotting.recording", "spotting.spotted"]),
    ("REV+concealed-movement", "quick-march"): (True, ["movement.modes", "movement.spotting",
                                                       "spotting.limitation", "spotting.recording",
                                                       "spotting.spotted"]),
    ("REV", "road"): (True, ["movement.modes", "movement.spotting", "spotting.limitation",
                             "spotting.recording", "spotting.spotted"]),
    ("REV+concealed-movement", "road"): (True, ["movement.modes", "movement.spotting",
                                                "spotting.limitation", "spotting.recording",
                                                "spotting.spotted"]),
}


@pytest.mark.parametrize(("ruleset", "mode"), sorted(INFANTRY))
def test_infantry_entering_cover_in_sight_under_each_mode(model, ruleset, mode):
    value, because = INFANTRY[ruleset, mode]
    ruling = entering(model, ruleset, mode).spotted
    assert (ruling.value, ruling.reasons) == (value, because)


@pytest.mark.parametrize("ruleset", ["REV", "REV+concealed-movement"])
def test_a_vehicle_moving_normally_is_exposed(model, ruleset):
    ruling = entering(model, ruleset, "normal", "German tank at D3 movement=6").spotted
    assert ruling.value is True
    assert ruling.reasons == ["movement.spotting", "spotting.limitation", "spotting.recording",
                              "spotting.spotted"]


@pytest.mark.parametrize("ruleset", WITHOUT_RATES)
@pytest.mark.parametrize("mode", ["normal", "concealed"])
def test_the_older_rulebooks_play_the_moves_they_have_as_before(model, ruleset, mode):
    """PB and PL spot no mover by sight, AIW every one: the mode changes nothing there."""
    ruling = entering(model, ruleset, mode).spotted
    assert ruling.value is ruleset.startswith("AIW")
    assert "movement.modes" not in ruling.reasons


def test_a_faster_rate_is_not_held_to_the_printed_allowance(model):
    """The sources give no quick march or road rate: the engine does not refuse a second hex."""
    game = make_position(model, "Soviet gun at A5", "German infantry at E3 movement=1",
                         phase="German movement", size="8x6").under("REV")
    game.begin_move("infantry", "quick-march")
    game.enter("D3")
    game.enter("C3")
    assert game.where("infantry") == "C3"
    normal = make_position(model, "Soviet gun at A5", "German infantry at E3 movement=1",
                           phase="German movement", size="8x6").under("REV")
    normal.begin_move("infantry", "normal")
    normal.enter("D3")
    with pytest.raises(EngineError, match="movement points"):
        normal.enter("C3")


# ------------------------------------------------------------------ refusals

@pytest.mark.parametrize("ruleset", WITHOUT_RATES + ("DB",))
@pytest.mark.parametrize("mode", ["quick-march", "road"])
def test_a_mode_the_ruleset_lacks_is_refused_by_its_clause(model, ruleset, mode):
    game = woods_in_sight(model).under(ruleset)
    with pytest.raises(EngineError) as e:
        game.begin_move("infantry", mode)
    assert f"offers no {mode.replace('-', ' ')} movement" in str(e.value)
    # DB's own cell (moving blind: units move as they normally would) lists its modes;
    # PB, PL and AIW are silent in the modes row, which is named (not DB's row, which
    # also sets the list, but for the variant alone: the first row a reader meets)
    assert e.value.clause == ("double-blind.movement" if ruleset == "DB" else "movement.modes")
    assert game.move is None and game.where("infantry") == "D3"


@pytest.mark.parametrize("ruleset", REV)
def test_the_revised_rules_offer_every_mode(model, ruleset):
    game = woods_in_sight(model).under(ruleset)
    assert list(game.rules["move.modes"]) == list(MODES)


def test_an_unknown_mode_is_a_data_error_for_the_engine(model):
    game = woods_in_sight(model).under("REV")
    with pytest.raises(DataError, match="unknown movement mode 'gallop'"):
        game.begin_move("infantry", "gallop")


def _scenario(tmp_path: Path, mode: str, rulesets: str) -> Path:
    src = (RULES / "scenarios" / "rev-movement-modes.yaml").read_text(encoding="utf-8")
    text = src.replace("rulesets: [REV, REV+concealed-movement]", f"rulesets: [{rulesets}]")
    text = text.replace("path: [B3], mode: quick-march}", f"path: [B3], mode: {mode}}}")
    out = tmp_path / "rules_data"
    shutil.copytree(RULES, out)
    (out / "scenarios" / "rev-movement-modes.yaml").write_text(text, encoding="utf-8")
    return out


def test_an_unknown_mode_in_a_scenario_is_an_error_at_its_place(tmp_path):
    rules = _scenario(tmp_path, "gallop", "REV")
    model, report = load(str(rules))
    errors = [d for d in report.errors if "rev-movement-modes" in str(d.pos)]
    assert errors, report.errors
    where = errors[0]
    text = (rules / "scenarios" / "rev-movement-modes.yaml").read_text(encoding="utf-8")
    line = text.splitlines()[where.pos.line - 1]
    assert line[where.pos.col - 1:].startswith("gallop")
    assert "gallop" in where.message


def test_a_mode_the_ruleset_lacks_in_a_scenario_is_refused_at_the_step(tmp_path):
    """Played under PB, the quick march step is refused by movement.modes, not a traceback."""
    rules = _scenario(tmp_path, "quick-march", "PB")
    model, report = load(str(rules))
    assert not report.errors
    result = run_scenario(model, "rev-movement-modes")
    errors = [d for d in result.errors if d.code == "scenario-step"]
    assert len(errors) == 1
    assert "PB offers no quick march movement" in errors[0].message
    assert errors[0].message.endswith("[movement.modes]")
    # at the unit of the refused move (its line in the file)
    text = (rules / "scenarios" / "rev-movement-modes.yaml").read_text(encoding="utf-8")
    assert "quick-infantry" in text.splitlines()[errors[0].pos.line - 1]


def test_the_shipped_scenario_decides_every_mode_as_expected(model):
    result = run_scenario(model, "rev-movement-modes")
    assert not result.errors
    assert len(result.rulings) == 10 and all(r.ok for r in result.rulings)
    by = {(r.step, r.ruleset): r for r in result.rulings}
    assert by[0, "REV+concealed-movement"].actual is True       # quick march: exposed
    assert by[1, "REV+concealed-movement"].actual is False      # concealed: exempt
    assert by[2, "REV+concealed-movement"].actual is True       # a vehicle moving normally


# ------------------------------------------------------------------ the explorer

@pytest.fixture(scope="module")
def ex() -> Explorer:
    return Explorer(str(RULES))


def test_the_explorer_offers_only_each_rulesets_modes(ex):
    cat = json.loads(ex.catalogue())
    modes = {name: m for r in cat["rulesets"] for name, m in (r.get("modes") or {}).items()}
    for name in ("PB", "PL", "PL+opportunity-fire", "AIW"):
        assert modes[name] == ["normal", "concealed", "revealed"]
    for name in REV:
        assert modes[name] == list(MODES)
    assert cat["modes"] == list(MODES)


def test_the_explorer_decides_a_quick_march_and_refuses_it_where_the_rulebook_lacks_it(ex):
    pos = {"rulesets": ["PB", "REV"], "map": {"columns": 5, "rows": 5, "hexes": {"C3": "woods"}},
           "units": [{"id": "inf", "side": "German", "kind": "infantry", "class": "I", "attack": 6,
                      "range": 3, "defence": 6, "movement": 1, "at": "C4"},
                     {"id": "gun", "side": "Soviet", "kind": "gun", "class": "A", "attack": 8,
                      "range": 6, "defence": 2, "movement": 1, "at": "C1"}],
           "start": {"side": "German", "phase": "movement"},
           "steps": [{"move": {"unit": "inf", "path": ["C3"], "mode": "quick-march"}}]}
    out = json.loads(ex.decide(json.dumps(pos), snapshots=False))
    first = out["questions"][0]["rulings"]
    assert first["PB"]["clause"] == "movement.modes" and "quick march" in first["PB"]["refused"]
    spotted = next(q for q in out["questions"] if q["id"] == "spotted@C3")
    assert spotted["rulings"]["REV"]["value"] is True
    assert "movement.modes" in spotted["rulings"]["REV"]["reasons"]
    pos["steps"][0]["move"]["mode"] = "gallop"
    err = json.loads(ex.check(json.dumps(pos)))["error"]
    assert err["path"] == "steps[0].move.mode"


# ------------------------------------------------------------------ the may-move question

@pytest.mark.parametrize("ruleset", WITHOUT_RATES + REV)
@pytest.mark.parametrize("mode", MODES)
def test_may_move_names_the_clause_that_lists_the_modes(model, ruleset, mode):
    game = woods_in_sight(model).under(ruleset)
    ruling = game.may_move_in("infantry", mode)
    offered = ruleset.startswith("REV") or mode in ("normal", "concealed", "revealed")
    assert ruling.value is offered
    assert ruling.reasons == ["movement.modes"]
    if not offered:
        assert f"offers no {mode.replace('-', ' ')} movement" in ruling.detail
    # asking changes nothing: the unit may still make the move the ruling allows
    if offered:
        game.begin_move("infantry", mode)
    else:
        with pytest.raises(EngineError):
            game.begin_move("infantry", mode)


def test_the_shipped_offer_scenario_asks_every_rulebook(model):
    result = run_scenario(model, "rev-modes-offered")
    assert not result.errors and all(r.ok for r in result.rulings)
    got = {(r.question, r.ruleset): r.actual for r in result.rulings}
    assert got["May the infantry move on quick march?", "PB"] is False
    assert got["May the infantry move on quick march?", "REV"] is True


def _offer_scenario(tmp_path: Path, ask: str) -> Path:
    src = (RULES / "scenarios" / "rev-modes-offered.yaml").read_text(encoding="utf-8")
    old = "ask: {may-move: german-infantry, mode: quick-march}"
    assert old in src
    out = tmp_path / "rules_data"
    shutil.copytree(RULES, out)
    (out / "scenarios" / "rev-modes-offered.yaml").write_text(src.replace(old, ask), encoding="utf-8")
    return out


@pytest.mark.parametrize(("ask", "code", "words"), [
    ("ask: {may-move: german-infantry, mode: gallop}", "schema-enum", "gallop"),
    ("ask: {may-move: german-infantry}", None, "mode"),
    ("ask: {spotted: german-infantry, mode: road}", None, "mode"),
])
def test_a_bad_may_move_question_is_an_error_at_its_place(tmp_path, ask, code, words):
    rules = _offer_scenario(tmp_path, ask)
    model, report = load(str(rules))
    from harmony.game import check_scenarios
    check_scenarios(model, report)
    errors = [d for d in report.errors if "rev-modes-offered" in str(d.pos)]
    assert errors, report.errors
    text = (rules / "scenarios" / "rev-modes-offered.yaml").read_text(encoding="utf-8")
    assert "ask:" in text.splitlines()[errors[0].pos.line - 1]
    assert words in errors[0].message
    if code:
        assert errors[0].code == code


def test_a_silent_rulebook_is_referred_to_the_row_a_reader_meets_first(model):
    """PB is silent in both rows that set ``move.modes`` (the movement topic's and
    Double-Blind's, whose file comes first): its setting names the movement topic's row."""
    from harmony.ruleset import ruleset_for
    setting = ruleset_for(model, "PB").setting("move.modes")
    assert (setting.clause, setting.origin) == ("movement.modes", "silent")
    assert ruleset_for(model, "DB").setting("move.modes").clause == "double-blind.movement"
    # the premise: in file order alone, Double-Blind's row comes first
    assert model.clauses["double-blind.movement"].file < model.clauses["movement.modes"].file

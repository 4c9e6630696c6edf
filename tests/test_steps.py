"""Scenario steps read once into typed values (harmony.games.panzerblitz.steps): every kind, positions, problems.

Scenarios here are read from YAML text with the loader's round-trip reader, so
every position is a real line and column; malformed ones are built without the
JSON Schema (which would leave them out of the model) to show that the step
reader itself reports each problem once, where it is.
"""
from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from harmony.check import check_path
from harmony.diagnostics import Pos
from harmony.loader import load, plain, read_text
from harmony.model import Scenario
from harmony.games.panzerblitz.scenario import run_scenario
from harmony.games.panzerblitz.steps import (ASKS, CanFire, Dispersal, End, Face, Fire, Interdiction, Los, Markers,
                           MayMove, Move, Number, OpFire, Spotted, Stop, Unloaded, View, Where, Word,
                           parse_steps,
                           steps_of)

RULES = Path(__file__).resolve().parent.parent / "rules_data"

HEAD = """\
scenario:
  id: t
  title: T
  summary: S.
  rulesets: [PB, REV]
  map: {columns: 6, rows: 6}
  units:
    - {id: gun, side: Soviet, kind: gun, class: H, attack: 10, range: 8, defence: 3, movement: 1,
       at: A2, registration: [D3]}
    - {id: tank, side: German, kind: armoured, class: A, attack: 12, range: 8, defence: 8,
       movement: 6, at: D1}
  start: {side: German, phase: movement}
  steps:
"""


def scenario(steps: str, file: str = "t.yaml") -> Scenario:
    """A scenario read from YAML (positions and all), without the schema."""
    text = HEAD + textwrap.indent(textwrap.dedent(steps), "    ")
    doc = read_text(file, text)
    assert doc.tree is not None, doc.report.to_text()
    node = doc.tree["scenario"]
    return Scenario(file=file, node=node, id="t", title="T", data=plain(node))


def where(sc_text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """Line and column (from 1) of the ``nth`` occurrence of ``needle`` in the steps."""
    full = HEAD + textwrap.indent(textwrap.dedent(sc_text), "    ")
    start = len(HEAD) - 1
    for _ in range(nth + 1):
        start = full.index(needle, start + 1)
    line = full.count("\n", 0, start) + 1
    return line, start - (full.rfind("\n", 0, start) + 1) + 1


EVERY_KIND = """\
- note: The tank drives on.
  move:
    unit: tank
    path: [D2, D3]
    mode: normal
    mp: [1, 2]
    overrun: gun
    attacks:
      - {at: D2, opfire: [gun], result: none}
      - {at: D3, interdiction: gun, result: D}
  expect:
    - question: Seen entering D2?
      ask: {spotted: tank, by: Soviet, at: D2}
      rulings:
        PB: {value: false, because: [spotting.spotted], note: Open ground.}
        REV: {value: true, because: []}
- fire: {units: [gun], target: tank, result: DD}
- end: phase
- end: turn
- expect:
    - {question: Q1, ask: {can-fire: [gun], target: tank}, rulings: {PB: {value: false, because: []}}}
    - {question: Q2, ask: {opfire: tank}, rulings: {PB: {value: [], because: []}}}
    - {question: Q3, ask: {interdiction: tank}, rulings: {PB: {value: [], because: []}}}
    - {question: Q4, ask: {markers: gun}, rulings: {PB: {value: [spotted], because: []}}}
    - {question: Q5, ask: {los: [A2, D3]}, rulings: {PB: {value: true, because: []}}}
    - {question: Q6, ask: {where: tank}, rulings: {PB: {value: eliminated, because: []}}}
    - {question: Q7, ask: {dispersal: tank}, rulings: {PB: {value: DD, because: []}}}
    - {question: Q8, ask: {face: gun}, rulings: {PB: {value: down, because: []}}}
    - {question: Q9, ask: {stop: tank}, rulings: {DB: {value: null, because: []}}}
    - {question: Q10, ask: {unloaded: gun}, rulings: {DB: {value: C3, because: []}}}
    - {question: Q11, ask: {view: Soviet}, rulings: {DB: {value: {side: Soviet, enemy: [],
        blocks: [], mines: [], reports: []}, because: []}}}
    - {question: Q12, ask: {may-move: tank, mode: quick-march}, rulings: {REV: {value: true,
        because: [movement.modes]}}}
"""


def test_every_step_kind_is_read_into_its_typed_value():
    sc = scenario(EVERY_KIND)
    parsed = parse_steps(sc)
    assert parsed.problems == () and parsed.bad == frozenset()
    move, fire, phase, turn, asks = parsed.steps
    assert [s.kind for s in parsed.steps] == ["move", "fire", "end", "end", "ask"]
    assert [s.index for s in parsed.steps] == [0, 1, 2, 3, 4]
    m = move.action
    assert isinstance(m, Move) and move.note == "The tank drives on."
    assert (m.unit, m.path, m.mode, m.mp, m.overrun) == ("tank", ("D2", "D3"), "normal", (1, 2), "gun")
    assert m.mp_at(1) == 2 and m.mp_at(2) is None
    op, inter = m.attacks
    assert (op.at, op.opfire, op.interdiction, op.result) == ("D2", ("gun",), None, "none")
    assert op.firers == ("gun",) and inter.firers == ("gun",)
    assert (inter.at, inter.opfire, inter.interdiction, inter.result) == ("D3", (), "gun", "D")
    assert m.attacks_at("D3") == (inter,)
    exp = move.expect[0]
    assert isinstance(exp.ask, Spotted) and (exp.ask.unit, exp.ask.by, exp.ask.at) == ("tank", "Soviet", "D2")
    pb, rev = exp.rulings
    assert (pb.ruleset, pb.value, pb.because, pb.note) == ("PB", False, ("spotting.spotted",), "Open ground.")
    assert exp.ruling("REV") is rev and exp.ruling("AIW") is None and rev.value is True
    assert fire.action == Fire(units=("gun",), target="tank", result="DD", pos=Pos("x"))
    assert isinstance(phase.action, End) and phase.action.what == "phase"
    assert turn.action.what == "turn"
    kinds = [type(e.ask) for e in asks.expect]
    assert kinds == [CanFire, OpFire, Interdiction, Markers, Los, Where, Dispersal, Face, Stop,
                     Unloaded, View, MayMove]
    assert {k.kind for k in kinds} | {"spotted"} == set(ASKS)
    can, *_, los, _, _, face = [e.ask for e in asks.expect][:8]
    assert asks.expect[10].ask.side == "Soviet" and asks.expect[9].ask.unit == "gun"
    assert (asks.expect[11].ask.unit, asks.expect[11].ask.mode) == ("tank", "quick-march")
    assert (can.firers, can.target, can.units()) == (("gun",), "tank", ("gun", "tank"))
    assert los.between == ("A2", "D3") and los.hexes() == ("A2", "D3") and los.units() == ()
    assert face.units() == ("gun",)
    assert asks.expect[3].rulings[0].value == ["spotted"]


def test_every_value_knows_its_line_and_column():
    sc = scenario(EVERY_KIND)
    move, fire, phase, *_ = parse_steps(sc).steps
    m = move.action
    assert isinstance(m.unit, Word)
    for value, needle, nth in [(m.unit, "tank", 1), (m.path[1], "D3", 0), (m.mp[1], "2]", 0),
                               (m.attacks[1].interdiction, "gun", 2), (m.attacks[0].at, "D2", 1),
                               (move.expect[0].ask.by, "Soviet", 0), (fire.action.target, "tank", 3),
                               (phase.action.what, "phase", 0),
                               (move.expect[0].rulings[0].because[0], "spotting.spotted", 0)]:
        line, col = where(EVERY_KIND, needle, nth)
        assert (value.pos.line, value.pos.col) == (line, col), (value, needle)
    # a ruleset is placed at its key; the expectation and the step at their mapping
    assert move.expect[0].rulings[1].ruleset.pos.line == where(EVERY_KIND, "REV:")[0]
    assert move.pos.line == where(EVERY_KIND, "note: The tank")[0]


def test_values_compare_as_plain_strings_and_copy_with_their_position():
    import copy
    import pickle
    w = Word("D3", Pos("f.yaml", 7, 3))
    assert w == "D3" and hash(w) == hash("D3") and str(w) == "D3"
    for clone in (copy.deepcopy(w), pickle.loads(pickle.dumps(w))):
        assert clone == "D3" and clone.pos == Pos("f.yaml", 7, 3)


def test_a_number_copies_and_pickles_with_its_position():
    import copy
    import pickle
    n = Number(2, Pos("f.yaml", 8, 5))
    for clone in (copy.deepcopy(n), pickle.loads(pickle.dumps(n))):
        assert type(clone) is Number and clone == 2 and clone.pos == Pos("f.yaml", 8, 5)


def test_steps_are_read_once_per_scenario():
    sc = scenario(EVERY_KIND)
    assert steps_of(sc) is steps_of(sc)


# --------------------------------------------------------------- malformed steps

BAD = [
    ("two actions", "- {move: {unit: tank, path: [D2]}, fire: {units: [gun], target: tank, result: none}}",
     "scenario-step", "fire:", "does one thing"),
    ("no action, no question", "- note: Nothing happens.", "scenario-step", "note:", "does nothing"),
    ("unknown key", "- {end: turn, colour: red}", "scenario-step", "colour", "no key 'colour'"),
    ("end of what", "- end: round", "scenario-step", "round", "one of phase, turn"),
    ("path not adjacent", "- move: {unit: tank, path: [D2, D4]}", "scenario-path", "D4",
     "not adjacent to D2"),
    ("revealed path leaves its hex", "- move: {unit: tank, path: [D1, D2], mode: revealed}",
     "scenario-path", "D2", "stays in one hex"),
    ("concealed path of two", "- move: {unit: tank, path: [D2, D3], mode: concealed}",
     "scenario-path", "D3", "one adjacent hex"),
    ("bad hex label", "- move: {unit: tank, path: [d2]}", "scenario-step", "d2", "a hex label"),
    ("mode unknown", "- move: {unit: tank, path: [D2], mode: sideways}", "scenario-step", "sideways",
     "one of normal, concealed, revealed"),
    ("more mp than hexes", "- move: {unit: tank, path: [D2], mp: [1, 1]}", "scenario-step", "1]",
     "2 numbers for a path of 1"),
    ("attack off the path", "- move: {unit: tank, path: [D2], attacks: [{at: C3, opfire: [gun], "
     "result: none}]}", "scenario-path", "C3", "not in the path"),
    ("attack of both kinds", "- move: {unit: tank, path: [D2], attacks: [{at: D2, opfire: [gun], "
     "interdiction: gun, result: none}]}", "scenario-step", "{at: D2", "not both"),
    ("fire result", "- fire: {units: [gun], target: tank, result: maybe}", "scenario-step", "maybe",
     "one of none, D, DD, X"),
    ("firer named twice", "- fire: {units: [gun, gun], target: tank, result: none}", "scenario-step",
     "gun]", "twice"),
    ("ask at a hex the move skips", "- move: {unit: tank, path: [D2]}\n  expect:\n    - {question: Q, "
     "ask: {spotted: tank, at: D3}, rulings: {PB: {value: true, because: []}}}", "scenario-path",
     "D3", "not a hex of this step's move"),
    ("ask at with no move", "- end: phase\n  expect:\n    - {question: Q, ask: {spotted: tank, at: D3}, "
     "rulings: {PB: {value: true, because: []}}}", "scenario-path", "D3", "not a hex"),
    ("two questions in one ask", "- expect:\n    - {question: Q, ask: {spotted: tank, face: gun}, "
     "rulings: {PB: {value: true, because: []}}}", "scenario-step", "{spotted", "exactly one question"),
    ("by on a markers question", "- expect:\n    - {question: Q, ask: {markers: tank, by: Soviet}, "
     "rulings: {PB: {value: [], because: []}}}", "scenario-step", "by:", "goes with a spotted"),
    ("can-fire with no target", "- expect:\n    - {question: Q, ask: {can-fire: [gun]}, "
     "rulings: {PB: {value: true, because: []}}}", "scenario-step", "{can-fire", "needs 'target'"),
    ("los of three hexes", "- expect:\n    - {question: Q, ask: {los: [A1, A2, A3]}, "
     "rulings: {PB: {value: true, because: []}}}", "scenario-step", "[A1", "exactly 2"),
    ("marker value misspelt", "- expect:\n    - {question: Q, ask: {markers: gun}, "
     "rulings: {PB: {value: [spoted], because: []}}}", "scenario-ruling", "[spoted]",
     "a list of markers"),
    ("yes-or-no answered with a hex", "- expect:\n    - {question: Q, ask: {spotted: gun}, "
     "rulings: {PB: {value: C3, because: []}}}", "scenario-ruling", "C3", "true or false"),
    ("ruling without because", "- expect:\n    - {question: Q, ask: {face: gun}, "
     "rulings: {PB: {value: up}}}", "scenario-step", "{value: up}", "needs 'because'"),
    ("ruleset of lower case", "- expect:\n    - {question: Q, ask: {face: gun}, "
     "rulings: {pb: {value: up, because: []}}}", "scenario-step", "pb:", "a ruleset"),
    ("clause id with capitals", "- expect:\n    - {question: Q, ask: {face: gun}, "
     "rulings: {PB: {value: up, because: [Spotting]}}}", "scenario-step", "Spotting", "an id"),
    ("step not a mapping", "- move", "scenario-step", "move", "is a mapping"),
]


@pytest.mark.parametrize("name,step,code,needle,words", BAD, ids=[b[0] for b in BAD])
def test_a_malformed_step_is_one_diagnostic_at_its_position(name, step, code, needle, words):
    steps = "- end: phase\n" + step + "\n"
    sc = scenario(steps)
    parsed = parse_steps(sc)
    assert len(parsed.problems) == 1, [str(d) for d in parsed.problems]
    d = parsed.problems[0]
    assert d.code == code and words in d.message and d.severity == "error", str(d)
    assert d.message.startswith("scenario t: ")
    assert (d.pos.path, d.pos.line) == ("t.yaml", where(steps, needle, 0)[0]), str(d)
    assert parsed.bad == {1}
    assert 0 not in parsed.bad and parsed.steps[0].kind == "end"


def test_every_problem_of_a_file_is_reported_once():
    steps = "".join(step + "\n" for _, step, *_ in BAD)
    parsed = parse_steps(scenario(steps))
    assert len(parsed.problems) == len(BAD)
    assert len(set(parsed.problems)) == len(BAD)
    assert parsed.bad == set(range(len(BAD)))


def test_no_steps_at_all_is_one_problem():
    sc = Scenario(id="e", file="e.yaml", data={"steps": []})
    [d] = parse_steps(sc).problems
    assert "at least one step" in d.message


# --------------------------------------------------------------- check and play

def copy_rules(tmp_path: Path) -> Path:
    dst = tmp_path / "rules_data"
    shutil.copytree(RULES, dst)
    return dst


def test_harmony_check_reports_a_step_the_schema_cannot_see_once_at_its_hex(tmp_path):
    """H3 is off the 7-column map and not next to D3: one problem, one diagnostic, at H3."""
    rules = copy_rules(tmp_path)
    f = rules / "scenarios" / "aiw-moving-in-woods.yaml"
    f.write_text(f.read_text().replace("path: [D3, E3]", "path: [D3, H3]", 1))
    _, report = check_path(rules)
    [d] = [d for d in report.errors if d.pos.path.endswith("aiw-moving-in-woods.yaml")]
    assert d.code == "scenario-path" and "H3 is not adjacent to D3" in d.message
    line = f.read_text().splitlines()[d.pos.line - 1]
    assert line[d.pos.col - 1:].startswith("H3]")


def test_an_unknown_unit_in_a_question_is_reported_at_the_unit(tmp_path):
    rules = copy_rules(tmp_path)
    f = rules / "scenarios" / "rev-figure-2.yaml"
    f.write_text(f.read_text().replace("ask: {markers: soviet-mg}", "ask: {markers: soviet-mgg}", 1))
    _, report = check_path(rules)
    [d] = [d for d in report.errors if d.pos.path.endswith("rev-figure-2.yaml")]
    assert d.code == "unresolved-unit" and "soviet-mgg" in d.message
    line = f.read_text().splitlines()[d.pos.line - 1]
    assert line[d.pos.col - 1:].startswith("soviet-mgg")


def with_scenario(sc: Scenario):
    """The shipped rules with ``sc`` as their only scenario."""
    from harmony.model import Model
    model, _ = load(RULES)
    return Model(root="x", sources=model.sources, clauses=model.clauses, parameters=model.parameters,
                 scenarios={sc.id: sc})


def test_an_order_the_engine_refuses_is_an_error_at_the_value_at_fault():
    """A path longer than the unit's movement allowance: the error points at the hex it cannot enter,
    and the questions after it are not played."""
    steps = """\
- move: {unit: tank, path: [D2, D3, D4, D5, D6, C6, B6]}
- expect:
    - {question: Where?, ask: {where: tank}, rulings: {PB: {value: D6, because: []}}}
"""
    model = with_scenario(scenario(steps))
    result = run_scenario(model, "t", ["PB"])
    [err] = result.errors
    assert err.code == "scenario-step" and "step 1 could not be played" in err.message
    assert "cannot spend" in err.message
    assert (err.pos.line, err.pos.col) == where(steps, "B6")
    [row] = result.rulings
    assert not row.ok and row.actual is None and "step 1 could not be played" in row.detail


def test_play_stops_at_a_malformed_step_and_says_so_once():
    steps = """\
- move: {unit: tank, path: [D2]}
- move: {unit: tank, path: [D3, D5]}
- expect:
    - {question: Where?, ask: {where: tank}, rulings: {PB: {value: D2, because: []},
        REV: {value: D2, because: []}}}
"""
    result = run_scenario(with_scenario(scenario(steps)), "t")
    [err] = result.errors                           # once, not once per ruleset
    assert err.code == "scenario-path" and err.pos.line == where(steps, "D5")[0]
    assert [r.ruleset for r in result.rulings] == ["PB", "REV"]
    assert all(not r.ok and r.detail == "step 2 is malformed" for r in result.rulings)
    assert [s["step"] for s in result.snapshots["PB"]] == [0]


def test_positions_walked_with_a_memo_are_the_positions_walked_afresh():
    """A scenario remembers the walk to each parent (``Scenario.pos``, ``node_pos``'s
    ``memo``): in any order, for every value, key and missing step of every shipped
    scenario, the position is the one a fresh walk from the top gives."""
    import random

    from harmony.yamltree import node_pos, walk
    model, _ = load(RULES)
    rng = random.Random(7)
    checked = 0
    for sc in model.scenarios.values():
        every = [(p + tail, key) for p, _ in walk(sc.node) for tail in ((), ("no-such-key",), (99,))
                 for key in (False, True)]
        rng.shuffle(every)
        memo: dict = {}
        for p, key in every:
            assert node_pos(sc.file, sc.node, p, key, memo) == node_pos(sc.file, sc.node, p, key), p
            checked += 1
    assert checked > 10_000


def test_the_values_read_from_steps_are_immutable():
    """One parse serves every ruleset's play and the cache between processes: no play may
    change it."""
    import dataclasses
    parsed = parse_steps(scenario(EVERY_KIND))
    move = parsed.steps[0].action
    values = [move, *move.attacks, *[s.action for s in parsed.steps[1:4]]]
    for s in parsed.steps:
        values += [s, *s.expect, *[x.ask for x in s.expect], *[r for x in s.expect for r in x.rulings]]
    assert len(values) > 20
    for v in values:
        with pytest.raises(dataclasses.FrozenInstanceError):
            v.pos = None


def test_an_unknown_key_is_reported_at_the_key_not_at_its_value():
    steps = "- end: phase\n- end: turn\n  colour: red\n"
    [d] = parse_steps(scenario(steps)).problems
    assert "no key 'colour'" in d.message
    assert (d.pos.line, d.pos.col) == where(steps, "colour")


@pytest.mark.parametrize("order", ["{unit: Tank, path: [D2]}", "{unit: tank, path: [d2]}",
                                   "{unit: tank, path: [D2], mp: [x]}",
                                   "{unit: tank, path: [D2], overrun: Gun}"])
def test_orders_with_a_value_that_cannot_be_read_are_left_out_of_play(order):
    parsed = parse_steps(scenario(f"- orders: [{order}]\n"))
    assert len(parsed.problems) == 1 and parsed.bad == {0}
    assert parsed.steps[0].action is None

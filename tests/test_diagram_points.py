"""Issue 14's last diagram points: an interdiction's line of sight is drawn from the observer
the step names (checked like any other reference), and a registration diamond never sits
under a counter."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from harmony.games.panzerblitz import svg
from harmony.check import check_path
from harmony.model import Scenario
from harmony.games.panzerblitz.figures import scenario_figures, states
from harmony.games.panzerblitz.steps import parse_steps
from editing import edit, line_of

NS = {"s": "http://www.w3.org/2000/svg"}
SCENARIO = "scenarios/rev-interdiction-observer.yaml"


# ------------------------------------------------------------------ the observer

def test_the_interdiction_diagram_draws_the_observers_line_not_the_firers(shipped_model):
    sc = shipped_model.scenarios["rev-interdiction-observer"]
    units = {u["id"]: u["at"] for u in sc.data["units"]}
    step = states(sc)[1]
    assert step["los"] == [[units["soviet-rifles"], "E5"]]
    assert [units["howitzers-1"], "E5"] not in step["los"]
    fig = ET.fromstring(scenario_figures(sc)[1]["svg"])
    lines = fig.findall(".//s:line[@class='hm-los']", NS)
    assert len(lines) == 1


def _attack_scenario(attack: dict) -> Scenario:
    return Scenario(id="s", file="s.yaml", data={"steps": [
        {"move": {"unit": "t", "path": ["C2"], "attacks": [dict({"at": "C2", "result": "none"}, **attack)]}}]})


def test_the_step_reads_the_observer_and_refuses_it_on_opportunity_fire():
    parsed = parse_steps(_attack_scenario({"interdiction": "h", "observer": "o"}))
    assert not parsed.problems and parsed.steps[0].action.attacks[0].observer == "o"
    parsed = parse_steps(_attack_scenario({"opfire": ["g"], "observer": "o"}))
    assert [d.message for d in parsed.problems] == [
        "scenario s: attack 1 of the move of step 1 is opportunity fire, whose firers see for "
        "themselves: an observer goes with an interdiction"]
    parsed = parse_steps(_attack_scenario({"interdiction": "h", "observer": "Not An Id"}))
    assert "the observer of attack 1 of the move of step 1 is an id" in parsed.problems[0].message


@pytest.mark.parametrize("observer, message", [
    ("nobody", "names unit 'nobody', which is not one of the scenario's units"),
    ("tank-north", "observer tank-north (German) is not on the side of howitzers-1 (Soviet)"),
    ("soviet-atgun", "observer soviet-atgun in G1 has no line of sight to E5"),
])
def test_an_observer_that_cannot_be_is_an_error_at_its_position(rules_copy, observer, message):
    edit(rules_copy, SCENARIO, "observer: soviet-rifles", f"observer: {observer}")
    _, report = check_path(rules_copy)
    found = [(Path(d.pos.path).name, d.pos.line, d.message) for d in report.diagnostics]
    line = line_of(rules_copy, SCENARIO, f"observer: {observer}")
    assert [(n, ln) for n, ln, m in found if message in m] == [(Path(SCENARIO).name, line)], found


def test_the_shipped_observer_is_clean(shipped_model):
    from harmony.diagnostics import Report
    from harmony.game import check_scenarios
    report = Report()
    check_scenarios(shipped_model, report)
    assert [d for d in report.diagnostics if "observer" in d.message] == []


# ------------------------------------------------------------------ registration diamonds

def _boxes(markup: str) -> tuple[list[tuple], list[tuple]]:
    """(diamond boxes, counter boxes) of a drawing: (x0, y0, x1, y1), counters with their stroke."""
    root = ET.fromstring(markup)
    diamonds = []
    for g in root.iter(f"{{{NS['s']}}}g"):
        if g.get("class") == "hm-registration":
            pts = [tuple(map(float, p.split(","))) for p in g.find("s:polygon", NS).get("points").split()]
            diamonds.append((min(x for x, _ in pts), min(y for _, y in pts),
                             max(x for x, _ in pts), max(y for _, y in pts)))
    counters = []
    for g in root.iter(f"{{{NS['s']}}}g"):
        if g.get("class") == "hm-unit":
            r = g.find("s:rect", NS)
            x, y, w, h = (float(r.get(k)) for k in ("x", "y", "width", "height"))
            half = float(r.get("stroke-width", "0")) / 2
            counters.append((x - half, y - half, x + w + half, y + h + half))
            for m in g.findall("s:g[@class='hm-marker']/s:rect", NS):
                mx, my, mw, mh = (float(m.get(k)) for k in ("x", "y", "width", "height"))
                counters.append((mx, my, mx + mw, my + mh))
    return diamonds, counters


def _overlap(a: tuple, b: tuple) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_a_diamond_never_overlaps_a_counter_even_in_the_counters_own_hex():
    units = [{"id": "h", "side": "Soviet", "kind": "gun", "at": "B2", "registration": ["B2", "C2", "C3"],
              "markers": ["spotted"]},
             {"id": "t", "side": "German", "kind": "armoured", "at": "C2", "markers": ["spotted"]},
             {"id": "u", "side": "German", "kind": "infantry", "at": "D2"},
             {"id": "v", "side": "German", "kind": "infantry", "at": "C4"}]
    state = {"map": {"columns": 5, "rows": 5, "labels": {"C3": "A"}}, "units": units, "path": [], "los": []}
    diamonds, counters = _boxes(svg.draw(state, id_prefix="g"))
    assert len(diamonds) == 3 and len(counters) == 6
    assert [(d, c) for d in diamonds for c in counters if _overlap(d, c)] == []


def test_no_shipped_diagram_puts_a_diamond_under_a_counter(shipped_model):
    drawn = 0
    from harmony import game
    for sc in shipped_model.scenarios.values():
        if game.scenario_game(shipped_model, sc).name != "panzerblitz":
            continue        # a Combat Patrol scenario (a table in inches) draws no board
        for fig in scenario_figures(sc):
            diamonds, counters = _boxes(fig["svg"])
            drawn += len(diamonds)
            assert [(d, c) for d in diamonds for c in counters if _overlap(d, c)] == [], sc.id
    assert drawn > 0


def test_the_overlap_test_itself_sees_an_overlap():
    assert _overlap((0, 0, 10, 10), (9, 9, 20, 20)) and not _overlap((0, 0, 10, 10), (10, 0, 20, 10))

"""Example pages a reader can follow: every step told, each question pointing at a
diagram, a key of the units under each diagram, units called by their names."""
from __future__ import annotations

import html
import re

import pytest

from harmony.loader import load
from harmony.site import views
from harmony.games.panzerblitz.figures import scenario_figures, states, step_list, unit_name
from harmony.site.generate import ROOT
from harmony.site.testing import shipped_site
from harmony.games.panzerblitz.steps import steps_of


@pytest.fixture(scope="module")
def model():
    m, _ = load(ROOT / "rules_data")
    return m


@pytest.fixture(scope="module")
def site():
    return shipped_site()


def hex_scenarios(model):
    """The scenarios the hex game plays and draws (a Combat Patrol scenario, on a table in
    inches, draws no board: its page has its outcome matrix, tested in test_cp_game.py)."""
    from harmony import game
    return [(sid, sc) for sid, sc in sorted(model.scenarios.items())
            if game.scenario_game(model, sc).name == "panzerblitz"]


def page(site, sid: str) -> str:
    return html.unescape((site.out / f"{views.scenario_doc(sid)}.html").read_text("utf-8"))


def test_every_step_is_told_with_the_figure_that_shows_it(model, site):
    for sid, sc in hex_scenarios(model):
        body = page(site, sid)
        figures = len(scenario_figures(sc))
        for step in steps_of(sc).steps:
            note = " ".join(step.note.split())
            if note:
                assert note in body, (sid, note)
        for told in step_list(sc):
            assert 1 <= told["figure"] <= figures
            assert f'id="figure-{told["figure"]}"' in body
        # every question of the outcome table points at a figure of the page
        refs = re.findall(r'<a class="[^"]*hm-figref[^"]*" href="#figure-(\d+)"', body)
        assert refs and all(1 <= int(r) <= figures for r in refs), sid


def test_each_diagram_has_a_key_naming_its_units(model, site):
    for sid, sc in hex_scenarios(model):
        body = page(site, sid)
        for fig in scenario_figures(sc):
            assert len(fig["key"]) == sum(1 for u in states(sc)[fig["number"] - 1]["units"]
                                          if u.get("at") and u.get("at") != "eliminated")
        for u in sc.data.get("units") or []:
            assert unit_name(u) in body
        diagrams = len(re.findall(r'<figure[^>]*class="hm-diagram"', body))
        assert diagrams >= len(scenario_figures(sc))     # referee boards come on top
        assert body.count('<ul class="hm-unit-key">') == diagrams


def test_unit_names_default_from_side_and_kind():
    assert unit_name({"id": "x", "side": "Soviet", "kind": "gun"}) == "Soviet gun"
    assert unit_name({"id": "x", "name": "x", "side": "Soviet", "kind": "gun"}) == "Soviet gun"
    assert unit_name({"id": "x", "name": "The battery", "side": "Soviet"}) == "The battery"


def test_rulings_speak_of_units_by_name_not_id(model, site):
    for sid, sc in hex_scenarios(model):
        named = {str(u["id"]): unit_name(u) for u in sc.data.get("units") or []
                 if unit_name(u) != u["id"]}
        body = page(site, sid)
        outcomes = body[body.index('class="hm-outcomes"'):]
        for p in re.findall(r'<p class="hm-(?:detail|ruling)">(.*?)</p>', outcomes, re.S):
            text = re.sub(r"<[^>]+>", "", p)
            for name in sorted(set(named.values()), key=len, reverse=True):
                text = text.replace(name, "")   # a name may hold its id ("German halftrack")
            for uid in named:
                assert not re.search(rf"(?<![\w-]){re.escape(uid)}(?![\w-])", text), (sid, uid, text)


def test_a_question_about_line_of_sight_has_its_line_drawn():
    from harmony.model import Scenario
    sc = Scenario(id="s", title="S", data={
        "map": {"columns": 4, "rows": 3},
        "units": [{"id": "a", "side": "X", "kind": "gun", "at": "A1"}],
        "steps": [{"note": "Turn 1."},
                  {"expect": [{"question": "Can A1 see D3?", "ask": {"los": ["A1", "D3"]},
                               "rulings": {"X": {"value": True, "because": []}}}]}]})
    drawn = [st for st in states(sc) if st.get("step") == 2]
    assert drawn and ["A1", "D3"] in drawn[0]["los"]
    told = step_list(sc)
    assert told[0]["figure"] == 1 and not told[0]["own_figure"]       # nothing new to draw
    assert told[1]["figure"] == 2 and told[1]["own_figure"]
    assert told[1]["note"]   # a step with no narrative still says what it is


def test_interdiction_draws_no_line_from_the_firer(model):
    for sid, sc in hex_scenarios(model):
        where = {u["id"]: u.get("at") for u in sc.data.get("units") or []}
        for step in steps_of(sc).steps:
            move = step.action
            for att in getattr(move, "attacks", ()):
                if att.interdiction:
                    st = next(s for s in states(sc) if s.get("step") == step.index + 1)
                    assert [where[att.interdiction], str(att.at)] not in st["los"], sid


def test_a_page_with_no_diagram_has_no_diagrams_section_or_key(model, site):
    """A scenario its game does not draw (Combat Patrol's, on a table in inches) has no
    'Diagrams' heading and no key to counters it does not show; a drawn one has both."""
    from harmony import game
    undrawn = [sid for sid, sc in sorted(model.scenarios.items())
               if game.scenario_game(model, sc).name != "panzerblitz"]
    assert undrawn
    for sid in undrawn:
        body = page(site, sid)
        assert "Outcome under every ruleset" in body
        assert "Reading the diagrams" not in body and ">Diagrams<" not in body, sid
    sid, _ = hex_scenarios(model)[0]
    assert "Reading the diagrams" in page(site, sid)

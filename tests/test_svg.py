"""SVG scenario diagrams: geometry from harmony.games.panzerblitz.hexgrid, escaping, accessibility, determinism."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from harmony.games.panzerblitz import svg
from harmony.games.panzerblitz.hexgrid import board_origin, hex_to_pixel, parse_label
from harmony.games.panzerblitz.figures import scenario_figures, states
from harmony.site.generate import ROOT

NS = {"s": "http://www.w3.org/2000/svg"}

STATE = {
    "map": {"columns": 4, "rows": 3, "terrain": "clear", "hexes": {"B2": "woods", "C1": "town"},
            "hexsides": [{"between": ["A1", "A2"], "type": "slope-side"}], "labels": {"C1": "A"}},
    "units": [
        {"id": "g", "name": "Gun & crew <1>", "side": "Soviet", "kind": "gun", "at": "A1",
         "attack": 10, "range": 8, "defence": 3, "movement": 1},
        {"id": "t", "name": "Tank", "side": "German", "kind": "armoured", "at": "D3",
         "markers": ["spotted"]},
        {"id": "x", "name": "Gone", "side": "German", "kind": "infantry", "at": "eliminated"},
    ],
    "path": ["D2", "C1"],
    "los": [["A1", "C1"]],
    "title": "A title with <angle> & ampersand",
    "desc": "A description",
}


def parse(markup: str) -> ET.Element:
    return ET.fromstring(markup)


def test_the_drawing_is_well_formed_accessible_svg():
    root = parse(svg.draw(STATE, id_prefix="t1"))
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("role") == "img"
    assert root.get("aria-labelledby") == "t1-title t1-desc"
    assert root.find("s:title", NS).text == "A title with <angle> & ampersand"
    assert root.find("s:desc", NS).text == "A description"


def test_one_hex_per_board_position_with_its_terrain():
    root = parse(svg.draw(STATE))
    hexes = {p.get("data-hex"): p.get("data-terrain") for p in root.iter("{%s}polygon" % NS["s"])}
    assert len(hexes) == 12
    assert hexes["B2"] == "woods" and hexes["C1"] == "town" and hexes["A3"] == "clear"


def test_units_stand_at_their_hex_centres():
    root = parse(svg.draw(STATE))
    groups = {g.get("data-unit"): g for g in root.iter("{%s}g" % NS["s"]) if g.get("data-unit")}
    assert set(groups) == {"g", "t"}  # eliminated units are not drawn
    rect = groups["t"].find("s:rect", NS)
    cx = float(rect.get("x")) + float(rect.get("width")) / 2
    cy = float(rect.get("y")) + float(rect.get("height")) / 2
    ex, ey = hex_to_pixel(parse_label("D3"), svg.SIZE, board_origin(svg.SIZE))
    assert abs(cx - ex) < 0.2 and abs(cy - ey) < 0.2
    assert groups["g"].find("s:title", NS).text == "Gun & crew <1> (Soviet, gun)"
    assert "spotted marker" in [t.text for t in groups["t"].iter("{%s}title" % NS["s"])]


def test_path_and_line_of_sight_are_drawn():
    root = parse(svg.draw(STATE))
    path = next(p for p in root.iter("{%s}polyline" % NS["s"]) if p.get("class") == "hm-path")
    assert len(path.get("points").split()) == 2
    los = [l for l in root.iter("{%s}line" % NS["s"]) if l.get("class") == "hm-los"]
    assert len(los) == 1


def test_same_state_same_bytes_and_no_raw_text():
    a, b = svg.draw(STATE, "p"), svg.draw(dict(STATE), "p")
    assert a == b
    assert "<angle>" not in a and "&lt;angle&gt;" in a
    assert not re.search(r"\d\.\d{2,}", a)  # numbers are rounded to one decimal


def test_the_shipped_scenarios_draw_a_figure_per_step(shipped_model):
    model = shipped_model
    assert model.scenarios
    from harmony import game
    for sc in model.scenarios.values():
        if game.scenario_game(model, sc).name != "panzerblitz":
            continue        # a Combat Patrol scenario (a table in inches) draws no board
        figs = scenario_figures(sc)
        moves = [s for s in sc.data.get("steps") or [] if s.get("move") or s.get("fire")]
        assert len(figs) == 1 + len(moves)
        for f in figs:
            parse(f["svg"])
        st = states(sc)
        for step, state in zip(moves, st[1:]):
            if step.get("move"):
                assert state["path"][-1] == step["move"]["path"][-1]


def test_registration_markers_are_drawn_in_their_hexes():
    state = dict(STATE, units=STATE["units"] + [
        {"id": "h", "name": "Howitzers", "side": "Soviet", "kind": "gun", "at": "A3",
         "registration": ["B2", "D1"]}])
    root = parse(svg.draw(state, id_prefix="t9"))
    marks = root.findall(".//s:g[@class='hm-registration']", NS)
    assert sorted(m.get("data-hex") for m in marks) == ["B2", "D1"]
    assert all(m.find("s:title", NS).text == "registration marker of Howitzers" for m in marks)
    origin = board_origin(svg.SIZE)
    for m in marks:                      # each diamond lies inside its own hex
        cx, cy = hex_to_pixel(parse_label(m.get("data-hex")), svg.SIZE, origin)
        xs = [float(p.split(",")[0]) for p in m.find("s:polygon", NS).get("points").split()]
        ys = [float(p.split(",")[1]) for p in m.find("s:polygon", NS).get("points").split()]
        assert all(abs(y - cy) < 0.866 * svg.SIZE and abs(x - cx) + abs(y - cy) * 0.577 < 0.9 * svg.SIZE
                   for x, y in zip(xs, ys))   # inside the flat-topped hex, clear of its edge
    assert {m.find("s:text", NS).text for m in marks} == {"R"}   # one registering unit: no number


def test_the_diagram_legend_names_every_abbreviation_drawn():
    legend = (ROOT / "templates" / "site" / "example.rst.j2").read_text("utf-8")
    legend = " ".join(legend.split("Reading the diagrams", 1)[1].split("\n\n", 1)[0].split())
    for kind, short in svg.KIND_SHORT.items():
        if kind != "other":
            assert f"{short} {kind.replace('halftrack', 'half-track')}" in legend
    for marker, short in svg.MARKER_SHORT.items():
        assert f"{short} {marker.replace('-', ' ')}" in legend

"""Line of sight against an independent exact reference (fractions, segment against polygon).

The reference below shares no code with harmony.games.panzerblitz.hexgrid or harmony.games.panzerblitz.los: it
puts each hexagon's corners in axial coordinates as fractions (a corner is a
third of the way between centres), clips the centre-to-centre segment
against each hexagon, and tests it against each hexside with orientation
signs. It reads the rule as harmony.games.panzerblitz.los states it: anything that blocks and
that the segment touches, even at a single point, blocks it; the end hexes
never block, nor do hexes off the map; neighbours always see each other.
"""
from fractions import Fraction as Fr

from hypothesis import given, settings, strategies as st

from harmony.games.panzerblitz.hexgrid import DIRECTIONS, Hex, distance, label, line, parse_label as P, trace
from harmony.games.panzerblitz.los import has_los, sight
from harmony.games.panzerblitz.terrain import HexMap

THIRD = Fr(1, 3)
# Corners of Hex(0, 0) in axial coordinates, in order around it.
CORNERS = [(2 * THIRD, -THIRD), (THIRD, THIRD), (-THIRD, 2 * THIRD),
           (-2 * THIRD, THIRD), (-THIRD, -THIRD), (THIRD, -2 * THIRD)]


def polygon(h):
    return [(h.q + x, h.r + y) for x, y in CORNERS]


def orient(p, q, r):
    v = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    return (v > 0) - (v < 0)


def clip(p1, p2, poly):
    """The part [t0, t1] of the segment p1 + t (p2 - p1), 0 <= t <= 1, inside the closed polygon."""
    t0, t1 = Fr(0), Fr(1)
    centre = (sum(x for x, _ in poly) / 6, sum(y for _, y in poly) / 6)
    for a, b in zip(poly, poly[1:] + poly[:1]):
        def side(p):     # > 0 on the polygon's side of edge a-b
            s = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
            return s if orient(a, b, centre) > 0 else -s
        s0, s1 = side(p1), side(p2)
        if s0 == s1:
            if s0 < 0:
                return None
            continue
        t = s0 / (s0 - s1)           # where side() is zero
        if s1 > s0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
    return (t0, t1) if t0 <= t1 else None


def strictly_inside(p, poly):
    return len({orient(a, b, p) for a, b in zip(poly, poly[1:] + poly[:1])}) == 1 and \
        orient(poly[0], poly[1], p) != 0


def on_segment(p, a, b):
    return (orient(a, b, p) == 0 and min(a[0], b[0]) <= p[0] <= max(a[0], b[0])
            and min(a[1], b[1]) <= p[1] <= max(a[1], b[1]))


def segments_meet(p1, p2, p3, p4):
    o1, o2, o3, o4 = orient(p1, p2, p3), orient(p1, p2, p4), orient(p3, p4, p1), orient(p3, p4, p2)
    if o1 * o2 < 0 and o3 * o4 < 0:
        return True
    return (on_segment(p3, p1, p2) or on_segment(p4, p1, p2) or on_segment(p1, p3, p4)
            or on_segment(p2, p3, p4))


def side_of(x, y):
    """The two corners shared by adjacent hexes x and y."""
    shared = set(polygon(x)) & set(polygon(y))
    assert len(shared) == 2
    return sorted(shared)


def near(a, b):
    """Every hex that could meet the segment from a to b (a box around it, one hex wider)."""
    return [Hex(q, r) for q in range(min(a.q, b.q) - 1, max(a.q, b.q) + 2)
            for r in range(min(a.r, b.r) - 1, max(a.r, b.r) + 2)
            if min(a.q + a.r, b.q + b.r) - 1 <= q + r <= max(a.q + a.r, b.q + b.r) + 1]


def reference_met(a, b):
    """{hex: inside?} for every hex the closed segment meets."""
    p1, p2 = (Fr(a.q), Fr(a.r)), (Fr(b.q), Fr(b.r))
    out = {}
    for h in near(a, b):
        poly = polygon(h)
        got = clip(p1, p2, poly)
        if got is not None:
            mid = (got[0] + got[1]) / 2
            point = (p1[0] + mid * (p2[0] - p1[0]), p1[1] + mid * (p2[1] - p1[1]))
            out[h] = got[0] < got[1] and strictly_inside(point, poly)
    return out


def reference_clear(m, a, b):
    if distance(a, b) <= 1:
        return True
    top = max(m.terrain(a).elevation, m.terrain(b).elevation)
    for h in reference_met(a, b):
        if h in (a, b) or not m.contains(h):
            continue
        t = m.terrain(h)
        if t.blocks_los or t.elevation > top:
            return False
    p1, p2 = (Fr(a.q), Fr(a.r)), (Fr(b.q), Fr(b.r))
    for (x, y), name in m.hexsides.items():
        if m.types[name].blocks_los and segments_meet(p1, p2, *side_of(x, y)):
            return False
    return True


@st.composite
def maps(draw):
    columns, rows = draw(st.integers(2, 5)), draw(st.integers(2, 5))
    cells = [f"{chr(65 + c)}{r + 1}" for c in range(columns) for r in range(rows)]
    kinds = st.sampled_from(["clear"] * 6 + ["woods", "town", "hill", "slope"])
    hexes = {c: k for c in cells if (k := draw(kinds)) != "clear"}
    m = HexMap.from_data({"columns": columns, "rows": rows, "hexes": hexes})
    on = m.all_hexes()
    sides = draw(st.lists(st.tuples(st.sampled_from(on), st.sampled_from(DIRECTIONS),
                                    st.sampled_from(["slope-side", "woods-side"])), max_size=6))
    hexsides = [{"between": [label(h), label(h + d)], "type": t} for h, d, t in sides
                if m.contains(h + d)]
    return HexMap.from_data({"columns": columns, "rows": rows, "hexes": hexes,
                             "hexsides": hexsides})


@given(maps())
@settings(max_examples=20, deadline=None)
def test_every_pair_agrees_with_the_exact_reference(m):
    cells = m.all_hexes()
    for i, a in enumerate(cells):
        for b in cells[i:]:
            want = reference_clear(m, a, b)
            assert has_los(m, a, b) == has_los(m, b, a) == want, (label(a), label(b), want)
            assert sight(m, a, b).clear == want, (label(a), label(b), want)


coords = st.integers(-9, 9)


@given(st.builds(Hex, coords, coords), st.builds(Hex, coords, coords))
@settings(max_examples=100, deadline=None)
def test_trace_meets_exactly_the_hexes_and_hexsides_of_the_reference(a, b):
    t = trace(a, b)
    met = reference_met(a, b)
    assert set(t.hexes) == set(met)
    assert t.inside == {h for h, inside in met.items() if inside}
    assert t.hexes[0] == a and t.hexes[-1] == b and len(set(t.hexes)) == len(t.hexes)
    p1, p2 = (Fr(a.q), Fr(a.r)), (Fr(b.q), Fr(b.r))
    sides = {tuple(sorted((h, h + d))) for h in met for d in DIRECTIONS if h + d in met
             and segments_meet(p1, p2, *side_of(h, h + d))}
    assert set(t.sides) == sides
    along = {s for s in sides if all(orient(p1, p2, c) == 0 for c in side_of(*s))}
    assert t.along == along
    assert t.crossed == {s for s in sides
                         if orient(p1, p2, side_of(*s)[0]) * orient(p1, p2, side_of(*s)[1]) < 0}
    # in order along the segment: where each hex's piece of it starts never goes back
    starts = [clip(p1, p2, polygon(h))[0] for h in t.hexes]
    assert starts == sorted(starts)
    # the two lines drawn for diagrams: chains of neighbours, splitting only at ties
    for nudge in (1, -1):
        chain = line(a, b, nudge)
        assert all(distance(x, y) == 1 for x, y in zip(chain, chain[1:]))
        assert t.inside <= set(chain) <= set(t.hexes)


@given(maps(), st.data())
@settings(max_examples=25, deadline=None)
def test_line_of_sight_is_symmetric_and_sight_matches_has_los(m, data):
    cells = m.all_hexes()
    a, b = data.draw(st.sampled_from(cells)), data.draw(st.sampled_from(cells))
    s, r = sight(m, a, b), sight(m, b, a)
    assert s.clear == r.clear == has_los(m, a, b) == has_los(m, b, a)
    assert [list(reversed(l)) for l in r.lines] == [list(l) for l in s.lines]
    assert (s.blocked_by is None) == s.clear


def test_woods_clipped_near_a_corner_block_the_line():
    # The segment from A2 to J8 cuts a corner of D3; a line sampled once per
    # hex of distance never lands in D3 and called this line clear.
    m = HexMap.from_data({"columns": 10, "rows": 8, "hexes": {"D3": "woods"}})
    assert not has_los(m, P("A2"), P("J8"))
    assert not has_los(m, P("J8"), P("A2"))
    s = sight(m, P("A2"), P("J8"))
    assert not s.clear and s.blocked_by == "D3"
    assert reference_clear(m, P("A2"), P("J8")) is False
    assert has_los(HexMap.from_data({"columns": 10, "rows": 8}), P("A2"), P("J8"))


def test_a_corner_touch_blocks_for_the_defender():
    # A1 to E4 passes through the corner where B1, B2 and C2 meet, touching B2 there only.
    t = trace(P("A1"), P("E4"))
    assert P("B2") in t.hexes and P("B2") not in t.inside
    assert not has_los(HexMap.from_data({"columns": 5, "rows": 5, "hexes": {"B2": "woods"}}),
                       P("A1"), P("E4"))
    # ...and so do the hexsides that end at that corner
    for x, y in (("B1", "B2"), ("B2", "C2"), ("B1", "C2")):
        m = HexMap.from_data({"columns": 5, "rows": 5,
                              "hexsides": [{"between": [x, y], "type": "slope-side"}]})
        assert not has_los(m, P("A1"), P("E4")), (x, y)


def test_a_hexside_the_line_runs_along_blocks_it():
    # A2 to C2 runs along the B1/B2 hexside from end to end
    m = HexMap.from_data({"columns": 4, "rows": 4,
                          "hexsides": [{"between": ["B1", "B2"], "type": "woods-side"}]})
    assert not has_los(m, P("A2"), P("C2")) and not sight(m, P("A2"), P("C2")).clear
    assert sight(m, P("A2"), P("C2")).blocked_by == "B1|B2"
    assert has_los(m, P("A3"), P("C3"))


def test_the_answer_follows_changes_to_the_map():
    m = HexMap.from_data({"columns": 5, "rows": 5})
    assert has_los(m, P("C1"), P("C5"))
    m.hexes[P("C3")] = "town"
    assert not has_los(m, P("C1"), P("C5"))
    del m.hexes[P("C3")]
    assert has_los(m, P("C1"), P("C5"))
    m.hexsides[(P("C3"), P("C4"))] = "slope-side"
    assert not has_los(m, P("C1"), P("C5"))
    m.types["slope-side"] = m.types["clear"]
    assert has_los(m, P("C1"), P("C5"))
    m.default = "woods"
    assert not has_los(m, P("C1"), P("C5"))


def test_hexes_off_the_map_never_block():
    # A1 to C1 runs along the top edge of B1, past the hex above it, off the map
    m = HexMap.from_data({"columns": 3, "rows": 3, "terrain": "woods"})
    assert trace(P("A1"), P("C1")).along
    assert not has_los(m, P("A1"), P("C1"))          # B1 is woods
    m2 = HexMap.from_data({"columns": 3, "rows": 3, "terrain": "woods",
                           "hexes": {"B1": "clear"}})
    assert has_los(m2, P("A1"), P("C1"))

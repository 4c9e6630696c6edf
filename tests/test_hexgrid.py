"""Hex geometry: coordinates, distance, lines, labels and pixels."""
import pytest
from hypothesis import given, strategies as st

from harmony.games.panzerblitz.hexgrid import (DIRECTIONS, Hex, adjacent, board, board_origin, board_size, cube_round,
                             distance, from_offset, hex_corners, hex_to_pixel, hexside, hexside_segment,
                             label, line, neighbours, parse_label, pixel_to_hex, to_offset, trace)

coords = st.integers(min_value=-30, max_value=30)
hexes = st.builds(Hex, coords, coords)


def test_cube_coordinates_sum_to_zero():
    h = Hex(3, -5)
    assert h.q + h.r + h.s == 0


def test_six_neighbours_at_distance_one():
    h = Hex(2, 3)
    ns = neighbours(h)
    assert len(set(ns)) == 6
    assert all(distance(h, n) == 1 and adjacent(h, n) for n in ns)
    assert not adjacent(h, h)


@given(hexes, hexes)
def test_distance_is_a_metric(a, b):
    assert distance(a, b) == distance(b, a) >= 0
    assert (distance(a, b) == 0) == (a == b)


@given(hexes, hexes, hexes)
def test_triangle_inequality(a, b, c):
    assert distance(a, c) <= distance(a, b) + distance(b, c)


@given(hexes, hexes, st.sampled_from([1, -1]))
def test_line_is_a_chain_of_adjacent_hexes(a, b, nudge):
    # An exact line counts every hex whose corner the segment clips, so it can
    # hold more hexes than distance + 1 (the old sampled line never did: it
    # skipped such hexes); never fewer, since each step moves one hex.
    l = line(a, b, nudge)
    assert l[0] == a and l[-1] == b
    assert len(l) >= distance(a, b) + 1
    assert len(set(l)) == len(l)
    assert all(adjacent(x, y) for x, y in zip(l, l[1:]))
    t = trace(a, b)
    assert set(l) >= t.inside and set(l) <= set(t.hexes)
    assert set(line(a, b, -nudge)) | set(l) == set(t.hexes)


def test_a_line_counts_the_hex_whose_corner_it_clips():
    a, b = parse_label("A2"), parse_label("J8")
    assert len(line(a, b)) == distance(a, b) + 3
    assert {parse_label("D3"), parse_label("G7")} <= trace(a, b).inside


def test_the_two_nudges_split_a_line_along_a_hexside():
    a, b = parse_label("A2"), parse_label("C2")
    assert line(a, b, 1) != line(a, b, -1)
    assert {label(h) for h in line(a, b, 1)} ^ {label(h) for h in line(a, b, -1)} == {"B1", "B2"}


def test_cube_round_picks_the_nearest_hex():
    assert cube_round(0.9, -0.05, -0.85) == Hex(1, 0)
    assert cube_round(-0.1, 0.1, 0.0) == Hex(0, 0)


@pytest.mark.parametrize("text,col,row", [("A1", 0, 0), ("B1", 1, 0), ("C4", 2, 3), ("Z9", 25, 8),
                                          ("AA1", 26, 0)])
def test_labels(text, col, row):
    h = parse_label(text)
    assert to_offset(h) == (col, row)
    assert label(h) == text


@pytest.mark.parametrize("bad", ["", "a1", "A0", "1A", "C-4", "ABC1", None, 7])
def test_bad_labels_are_refused(bad):
    with pytest.raises(ValueError):
        parse_label(bad)


def test_odd_columns_sit_half_a_hex_lower():
    # B1 touches A1 and A2; A1 touches B1 only among column B's first rows.
    assert adjacent(parse_label("B1"), parse_label("A1"))
    assert adjacent(parse_label("B1"), parse_label("A2"))
    assert not adjacent(parse_label("A1"), parse_label("B2"))


@given(st.integers(0, 40), st.integers(0, 40))
def test_offset_round_trip(col, row):
    assert to_offset(from_offset(col, row)) == (col, row)


@given(hexes, st.booleans())
def test_pixel_round_trip(h, flat):
    x, y = hex_to_pixel(h, 17.0, (3.0, 5.0), flat)
    assert pixel_to_hex(x, y, 17.0, (3.0, 5.0), flat) == h


@given(hexes, st.booleans())
def test_corners_are_size_from_the_centre(h, flat):
    cx, cy = hex_to_pixel(h, 10, flat=flat)
    for x, y in hex_corners(h, 10, flat=flat):
        assert abs(((x - cx) ** 2 + (y - cy) ** 2) ** 0.5 - 10) < 1e-9


def test_hexside_segment_is_shared_by_both_hexes():
    a = parse_label("C3")
    for d in DIRECTIONS:
        b = a + d
        p, q = hexside_segment(a, b, 10)
        corners_b = [(round(x, 6), round(y, 6)) for x, y in hex_corners(b, 10)]
        assert (round(p[0], 6), round(p[1], 6)) in corners_b
        assert (round(q[0], 6), round(q[1], 6)) in corners_b


def test_hexside_needs_adjacent_hexes():
    with pytest.raises(ValueError):
        hexside(Hex(0, 0), Hex(2, 0))


def test_board_fits_its_drawing():
    w, h = board_size(7, 5, 10)
    origin = board_origin(10)
    for hx in board(7, 5):
        for x, y in hex_corners(hx, 10, origin):
            assert -1e-9 <= x <= w + 1e-9 and -1e-9 <= y <= h + 1e-9
    assert len(list(board(7, 5))) == 35

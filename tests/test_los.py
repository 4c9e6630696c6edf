"""Line of sight: blocking terrain, hexsides, elevation, the defender's benefit of the doubt."""
import pytest

from harmony.games.panzerblitz.hexgrid import parse_label as P
from harmony.games.panzerblitz.los import has_los, sight
from harmony.games.panzerblitz.terrain import HexMap, MapError


def board(**hexes):
    return HexMap.from_data({"columns": 8, "rows": 8, "hexes": hexes})


def test_clear_board_sees_everywhere():
    m = board()
    assert has_los(m, P("A1"), P("H8"))


def test_intermediate_woods_and_town_block_but_end_hexes_do_not():
    m = board(C3="woods", E3="town")
    assert not has_los(m, P("C1"), P("C5"))      # through C3
    assert has_los(m, P("C1"), P("C3"))          # into the woods hex itself
    assert has_los(m, P("C3"), P("C1"))          # out of it
    assert not has_los(m, P("E1"), P("E5"))      # through the town


def test_adjacent_hexes_always_see_each_other():
    m = HexMap.from_data({"columns": 4, "rows": 4, "hexes": {"B2": "woods", "B3": "town"},
                          "hexsides": [{"between": ["B2", "B3"], "type": "slope-side"}]})
    assert has_los(m, P("B2"), P("B3"))


def test_line_along_a_hexside_is_blocked_if_either_side_blocks():
    # A2 -> C2 runs exactly along the B1/B2 hexside.
    assert not has_los(board(B2="woods"), P("A2"), P("C2"))
    assert not has_los(board(B1="woods"), P("A2"), P("C2"))
    assert has_los(board(), P("A2"), P("C2"))
    s = sight(board(B1="woods"), P("A2"), P("C2"))
    assert len(s.lines) == 2 and s.blocked_by == "B1"


def test_a_blocking_hexside_blocks_lines_crossing_it():
    m = HexMap.from_data({"columns": 5, "rows": 6,
                          "hexsides": [{"between": ["C3", "C4"], "type": "woods-side"}]})
    assert not has_los(m, P("C1"), P("C6"))
    assert has_los(m, P("A1"), P("A6"))


def test_higher_ground_between_blocks():
    m = board(C3="hill")
    assert not has_los(m, P("C1"), P("C5"))      # clear - hill - clear
    m2 = board(C1="hill", C3="hill")
    assert has_los(m2, P("C1"), P("C5"))         # from the hill, over the hill


def test_variant_terrain_type():
    m = HexMap.from_data({"columns": 5, "rows": 5, "hexes": {"C3": "jungle"},
                          "terrain-types": [{"name": "jungle", "concealing": True, "blocks-los": True}]})
    assert m.terrain(P("C3")).concealing
    assert not has_los(m, P("C1"), P("C5"))


def test_los_is_symmetric_on_a_mixed_board():
    m = board(C3="woods", D5="town", F2="woods", E6="hill")
    cells = [P(c + str(r)) for c in "ABCDEFGH" for r in range(1, 9)]
    for a in cells[::3]:
        for b in cells[::5]:
            assert has_los(m, a, b) == has_los(m, b, a), (a, b)


@pytest.mark.parametrize("data,path", [
    ({"columns": 3, "rows": 3, "hexes": {"D1": "woods"}}, ("hexes", "D1")),
    ({"columns": 3, "rows": 3, "hexes": {"B1": "lava"}}, ("hexes", "B1")),
    ({"columns": 3, "rows": 3, "hexsides": [{"between": ["A1", "C3"], "type": "slope-side"}]},
     ("hexsides", 0, "between")),
    ({"columns": 3, "rows": 3, "hexsides": [{"between": ["A1", "A2"], "type": "woods"}]},
     ("hexsides", 0, "type")),
])
def test_map_errors_say_where(data, path):
    with pytest.raises(MapError) as e:
        HexMap.from_data(data)
    assert e.value.path == path


def test_a_hexside_feature_that_blocks_line_of_sight_blocks_it_and_is_named():
    m = HexMap.from_data({"columns": 5, "rows": 6,
                          "hexsides": [{"between": ["C3", "C4"], "type": "woods-side"}]})
    s = sight(m, P("C1"), P("C6"))
    assert (s.clear, s.blocked_by) == (False, "C3|C4")
    assert sight(m, P("A1"), P("A6")).clear


def test_a_hex_off_the_map_sees_along_a_clear_line_and_is_blocked_by_one_that_blocks():
    m = board(D4="woods")
    off = P("D10")                               # two rows below the board's edge
    assert has_los(m, P("A1"), off) == sight(m, P("A1"), off).clear
    assert has_los(m, P("B2"), off) and has_los(m, off, P("B2"))
    assert not has_los(m, P("D1"), off) and not has_los(m, off, P("D1"))
    assert has_los(m, P("D9"), off)              # neighbours off the map see each other

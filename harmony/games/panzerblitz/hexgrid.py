"""Hex geometry: axial and cube coordinates, distance, lines, board labels, pixels.

The board uses flat-topped hexes in vertical columns, as the PanzerBlitz
boards do. A hex is an axial pair ``Hex(q, r)`` (cube ``s = -q - r``), after
Red Blob Games' guide to hexagonal grids. Scenario files name hexes with
board labels, a column letter and a row number (``"C4"``), in an "odd-q"
offset layout: columns B, D, F, ... sit half a hex lower than A, C, E.

>>> a, b = parse_label("A1"), parse_label("C2")
>>> a, b
(Hex(q=0, r=0), Hex(q=2, r=0))
>>> distance(a, b)
2
>>> [label(h) for h in line(a, b)]
['A1', 'B1', 'C2']
>>> label(Hex(1, 0)), sorted(label(n) for n in neighbours(parse_label("B2")))
('B1', ['A2', 'A3', 'B1', 'B3', 'C2', 'C3'])

Exact lines. :func:`trace` follows the straight segment from one centre to
another with whole-number arithmetic only (no sampling, no floats): every
hex it meets, the hexsides it crosses or runs along, the corners it passes
through. :func:`line` is the chain of hexes it passes through; where the
segment runs along a hexside or through a corner, ``nudge`` picks the hexes
on one side (``+1``) or the other (``-1``), as if the segment were moved an
arbitrarily small distance that way. :mod:`harmony.games.panzerblitz.los` uses both sides.

>>> [label(h) for h in line(parse_label("A2"), parse_label("C2"), nudge=+1)]
['A2', 'B2', 'C2']
>>> [label(h) for h in line(parse_label("A2"), parse_label("C2"), nudge=-1)]
['A2', 'B1', 'C2']

Pixel helpers, for diagrams (``size`` is the centre-to-corner radius):

>>> hex_to_pixel(Hex(0, 0), 10)
(0.0, 0.0)
>>> x, y = hex_to_pixel(parse_label("B1"), 10)
>>> round(x, 3), round(y, 3)
(15.0, 8.66)
>>> pixel_to_hex(x, y, 10)
Hex(q=1, r=0)
>>> [(round(x, 1), round(y, 1)) for x, y in hex_corners(Hex(0, 0), 10)][:2]
[(10.0, 0.0), (5.0, 8.7)]
"""
from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Iterator, NamedTuple

LABEL = re.compile(r"^([A-Z]{1,2})([1-9][0-9]{0,2})$")


class Hex(NamedTuple):
    """A hex in axial coordinates."""

    q: int
    r: int

    @property
    def s(self) -> int:
        """The third cube coordinate (q + r + s == 0)."""
        return -self.q - self.r

    def __add__(self, other: "Hex") -> "Hex":  # type: ignore[override]
        return Hex(self.q + other.q, self.r + other.r)

    def __sub__(self, other: "Hex") -> "Hex":
        return Hex(self.q - other.q, self.r - other.r)


#: The six neighbour offsets, clockwise from "lower right" on a flat-topped board.
DIRECTIONS = (Hex(1, 0), Hex(0, 1), Hex(-1, 1), Hex(-1, 0), Hex(0, -1), Hex(1, -1))


def neighbours(h: Hex) -> list[Hex]:
    """The six hexes adjacent to ``h``."""
    return [h + d for d in DIRECTIONS]


def distance(a: Hex, b: Hex) -> int:
    """Hexes between ``a`` and ``b`` counting the last one (adjacent: 1)."""
    d = a - b
    return (abs(d.q) + abs(d.r) + abs(d.s)) // 2


def adjacent(a: Hex, b: Hex) -> bool:
    """True when ``a`` and ``b`` share a hexside.

    >>> adjacent(Hex(0, 0), Hex(1, -1)), adjacent(Hex(0, 0), Hex(2, -1))
    (True, False)
    """
    return distance(a, b) == 1


def cube_round(fq: float, fr: float, fs: float) -> Hex:
    """The hex containing fractional cube coordinates (Red Blob's cube_round).

    >>> cube_round(0.2, 0.1, -0.3)
    Hex(q=0, r=0)
    >>> cube_round(0.6, 0.1, -0.7)
    Hex(q=1, r=0)
    """
    q, r, s = round(fq), round(fr), round(fs)
    dq, dr, ds = abs(q - fq), abs(r - fr), abs(s - fs)
    if dq > dr and dq > ds:
        q = -r - s
    elif dr > ds:
        r = -q - s
    return Hex(int(q), int(r))


def line(a: Hex, b: Hex, nudge: int = 1) -> list[Hex]:
    """The hexes the straight segment from ``a``'s centre to ``b``'s centre passes through.

    Exact (see :func:`trace`): every hex whose inside the segment enters, in
    order, and, where it runs along a hexside or through a corner, the hexes
    on one side of it: ``nudge=+1`` or ``-1`` picks the side. Consecutive hexes
    are always adjacent. A segment that clips the corner of a hex counts that
    hex, so a line may hold more than ``distance(a, b) + 1`` hexes.

    >>> [label(h) for h in line(parse_label("A1"), parse_label("C2"))]
    ['A1', 'B1', 'C2']
    >>> [label(h) for h in line(parse_label("A2"), parse_label("J8"))]
    ['A2', 'B2', 'C3', 'C4', 'D3', 'D4', 'E5', 'F5', 'G6', 'G7', 'H6', 'H7', 'I8', 'J8']
    >>> distance(parse_label("A2"), parse_label("J8")) + 1
    12
    """
    if nudge not in (1, -1):
        raise ValueError(f"nudge must be +1 or -1 (got {nudge!r})")
    hexes = _geometry(b.q - a.q, b.r - a.r)[0]
    x, y = 3 * (b.q - a.q), (b.q - a.q) + 2 * (b.r - a.r)
    # The side of the old tie-breaking nudge (1, 2) in axial coordinates, (3, 5) on the lattice.
    turn = 5 * x - 3 * y
    side = nudge if turn > 0 else -nudge
    return [Hex(a.q + q, a.r + r) for q, r, s in hexes if s == 0 or s == side]

def hexside(a: Hex, b: Hex) -> tuple[Hex, Hex]:
    """The key of the hexside between two adjacent hexes (order-free).

    >>> hexside(Hex(1, 0), Hex(0, 0)) == hexside(Hex(0, 0), Hex(1, 0))
    True
    """
    if not adjacent(a, b):
        raise ValueError(f"{a} and {b} are not adjacent")
    return (a, b) if a <= b else (b, a)


# ------------------------------------------------------------- exact lines
#
# Exact geometry works on the lattice of the board: x counted in half radii
# of a hex and y in half heights (sqrt(3)/2 radii). Going from the board to
# the lattice stretches y and nothing else, so straight lines stay straight,
# a point on a line stays on it, and the centre and the corners of every hex
# fall on whole numbers: the centre of Hex(q, r) is (3q, q + 2r), its corners
# are the centre plus CORNERS. Everything below is whole-number arithmetic.

#: Corner offsets of a hex on the lattice, clockwise from the right (the order
#: of :func:`hex_corners`); the hexside towards ``DIRECTIONS[k]`` runs from
#: corner ``k`` to corner ``k + 1``.
CORNERS = ((2, 0), (1, 1), (-1, 1), (-2, 0), (-1, -1), (1, -1))


def lattice_point(h: Hex) -> tuple[int, int]:
    """The centre of ``h`` on the whole-number lattice of exact geometry.

    >>> lattice_point(Hex(0, 0)), lattice_point(Hex(1, 0)), lattice_point(Hex(0, 1))
    ((0, 0), (3, 1), (0, 2))
    """
    return 3 * h.q, h.q + 2 * h.r


class Trace(NamedTuple):
    """What the segment from one hex centre to another meets, in order along it.

    ``hexes``: every hex it meets, even at one corner, from the first end hex
    to the last; ``inside``: those whose inside it passes through (the others
    it only touches); ``sides``: every hexside it meets, as :func:`hexside`
    keys; ``crossed``: those it crosses at a point between their corners;
    ``along``: those it runs along from corner to corner (the rest it touches
    at one corner); ``corners``: the corners it passes through, each as the
    three hexes that meet there.
    """

    hexes: tuple
    inside: frozenset
    sides: tuple
    crossed: frozenset
    along: frozenset
    corners: tuple


def trace(a: Hex, b: Hex) -> Trace:
    """Everything the straight segment from ``a``'s centre to ``b``'s centre meets, exactly.

    Along the B1/B2 hexside, touching both hexes and the two corners at its ends:

    >>> t = trace(parse_label("A2"), parse_label("C2"))
    >>> [label(h) for h in t.hexes], sorted(label(h) for h in t.inside)
    (['A2', 'B1', 'B2', 'C2'], ['A2', 'C2'])
    >>> [(label(x), label(y)) for x, y in t.along], len(t.sides), len(t.crossed)
    ([('B1', 'B2')], 5, 0)
    >>> [sorted(label(h) for h in c) for c in t.corners]
    [['A2', 'B1', 'B2'], ['B1', 'B2', 'C2']]

    A segment that clips a hex near its corner enters it (a line sampled once
    per hex of distance misses D3 and G7 here):

    >>> t = trace(parse_label("A2"), parse_label("J8"))
    >>> [label(h) for h in t.hexes if h in t.inside][3:7]
    ['C4', 'D3', 'D4', 'E5']
    >>> t.along, t.corners
    (frozenset(), ())
    """
    dq, dr = b.q - a.q, b.r - a.r
    hexes, sides = _geometry(dq, dr)
    at = [Hex(a.q + q, a.r + r) for q, r, _ in hexes]
    X, Y = 3 * dq, dq + 2 * dr
    keys, crossed, along, corners = [], set(), set(), {}
    for q, r, k, how in sides:
        h = Hex(a.q + q, a.r + r)
        key = hexside(h, h + DIRECTIONS[k])
        keys.append(key)
        if how == "crossed":
            crossed.add(key)
            continue
        if how == "along":
            along.add(key)
        for i in (k, k + 1):                       # the corner(s) on the segment
            x, y = 3 * q + CORNERS[i][0], q + 2 * r + CORNERS[i][1]
            if X * y == Y * x:
                meeting = tuple(sorted(h + d for d in (Hex(0, 0), DIRECTIONS[i - 1], DIRECTIONS[i % 6])))
                corners[X * x + 3 * Y * y] = meeting
    return Trace(tuple(at), frozenset(h for h, (_, _, s) in zip(at, hexes) if s == 0),
                 tuple(keys), frozenset(crossed), frozenset(along),
                 tuple(corners[g] for g in sorted(corners)))


@lru_cache(maxsize=1 << 16)
def _geometry(dq: int, dr: int) -> tuple[tuple, tuple]:
    """The segment from the centre of Hex(0, 0) to that of Hex(dq, dr), exactly.

    Returns ``(hexes, sides)``, each in order along the segment: ``hexes`` as
    ``(q, r, side)``, side 0 for a hex whose inside the segment enters, +1 or
    -1 for one it only touches (on the left or the right of the segment);
    ``sides`` as ``(q, r, k, how)`` for the hexside between (q, r) and
    (q, r) + DIRECTIONS[k], k in 0..2, how "crossed", "along" or "end"
    (touched at one of its corners).

    The segment runs from (0, 0) to B = (X, Y) on the lattice. Two whole
    numbers place a point p = (x, y) against it: f(p) = X*y - Y*x, zero on
    the line, of one sign on each side, and g(p) = X*x + 3*Y*y, which grows
    along it (the dot product with B on the board, times 4). A hex meets the
    line when |f| at its centre is at most M, the largest f of a corner
    offset (its inside when less). The line's pieces in different hexes
    overlap nowhere, and each end hex holds the segment for at least half a
    hex height on each side of its centre, while hex centres are a hex height
    apart; so a hex other than the two ends meets the segment exactly when it
    meets the line and 0 < g < g(B) at its centre. A hexside between two hexes
    that meet the segment meets it when f at its two corners is not of one
    strict sign. Hexes are ordered by g at their centres, hexsides by g at
    their middles (tests check the order against where each hex's piece of
    the segment lies).
    """
    if dq < 0 or (dq == 0 and dr < 0):
        # The same segment walked from the other end: translate, reverse, swap sides.
        back_hexes, back_sides = _geometry(-dq, -dr)
        return (tuple((q + dq, r + dr, -s) for q, r, s in reversed(back_hexes)),
                tuple((q + dq, r + dr, k, how) for q, r, k, how in reversed(back_sides)))
    if dq == 0 and dr == 0:
        return ((0, 0, 0),), ()
    met, sides, M = _reach(dq, dr)
    met.sort()
    sides.sort()
    hexes = tuple((q, r, 0 if -M < f < M else (1 if f > 0 else -1)) for _, f, q, r in met)
    return hexes, tuple(s[1:] for s in sides)


def _reach(dq: int, dr: int) -> tuple[list, list, int]:
    """What the segment from Hex(0, 0) to Hex(dq, dr) meets (``dq > 0``, or ``dq == 0 <
    dr``), in no order: the hexes as ``(g, f, q, r)``, the hexsides as ``(order, q, r, k,
    how)``, and M (see :func:`_geometry`, which sorts them; line of sight's masks need no
    order, :class:`harmony.games.panzerblitz.los._Table`)."""
    X, Y = 3 * dq, dq + 2 * dr
    F = [X * oy - Y * ox for ox, oy in CORNERS] + [0]
    F[6] = F[0]
    Gm = [X * ox + 3 * Y * oy for ox, oy in CORNERS] + [0]
    Gm[6] = Gm[0]
    M = max(F)
    G = X * X + 3 * Y * Y
    met = []                                       # (g, f, q, r)
    f_at = {}
    for q in range(dq + 1):
        base = (3 * Y - X) * q                     # f at (q, r) is 2*X*r - base
        if X == 0:
            lo, hi = 0, dr
        else:
            lo, hi = -((M - base) // (2 * X)), (base + M) // (2 * X)
        for r in range(lo, hi + 1):
            g = 3 * X * q + 3 * Y * (q + 2 * r)
            if 0 < g < G or (q == 0 and r == 0) or (q == dq and r == dr):
                f = 2 * X * r - base
                met.append((g, f, q, r))
                f_at[(q, r)] = f
    sides = []
    for g, f, q, r in met:
        for k, n in enumerate(((q + 1, r), (q, r + 1), (q - 1, r + 1))):
            fn = f_at.get(n)
            if fn is not None:
                f1, f2 = f + F[k], f + F[k + 1]
                if f1 == f2 == 0:
                    how = "along"
                elif f1 == 0 or f2 == 0:
                    how = "end"
                elif (f1 < 0) != (f2 < 0):
                    how = "crossed"
                else:
                    continue
                sides.append((2 * g + Gm[k] + Gm[k + 1], q, r, k, how))
    return met, sides, M


# ------------------------------------------------------------ board labels

def _column_index(letters: str) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + (ord(ch) - ord("A") + 1)
    return n - 1


def _column_letters(index: int) -> str:
    out = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        out = chr(ord("A") + rem) + out
    return out


def is_label(text: str) -> bool:
    """True when ``text`` is a board label such as ``C4`` or ``AB12``."""
    return isinstance(text, str) and LABEL.match(text) is not None


def parse_label(text: str) -> Hex:
    """The hex of a board label: column letter(s), then row number from 1.

    >>> parse_label("D3")
    Hex(q=3, r=1)
    >>> parse_label("d3")
    Traceback (most recent call last):
    ...
    ValueError: 'd3' is not a hex label (a column letter and a row number, e.g. C4)
    """
    m = LABEL.match(text) if isinstance(text, str) else None
    if not m:
        raise ValueError(f"{text!r} is not a hex label (a column letter and a row number, e.g. C4)")
    return from_offset(_column_index(m.group(1)), int(m.group(2)) - 1)


@lru_cache(maxsize=65536)
def label(h: Hex) -> str:
    """The board label of a hex (inverse of :func:`parse_label`); remembered, as a game's
    snapshots label the same hexes of its lines of sight thousands of times.

    >>> label(Hex(3, 1)), label(Hex(0, -1))
    ('D3', '(0,-1)')
    """
    col, row = to_offset(h)
    if col < 0 or row < 0:
        return f"({h.q},{h.r})"
    return f"{_column_letters(col)}{row + 1}"


def from_offset(col: int, row: int) -> Hex:
    """Axial hex of an odd-q offset position (column, row, both from 0)."""
    return Hex(col, row - (col - (col & 1)) // 2)


def to_offset(h: Hex) -> tuple[int, int]:
    """Odd-q offset position (column, row) of an axial hex."""
    return h.q, h.r + (h.q - (h.q & 1)) // 2


def board(columns: int, rows: int) -> Iterator[Hex]:
    """Every hex of a ``columns`` x ``rows`` board, column by column."""
    for c in range(columns):
        for r in range(rows):
            yield from_offset(c, r)


# ----------------------------------------------------------------- pixels
#: Flat-topped layout (the PanzerBlitz boards): x grows to the right, y down.
SQRT3 = math.sqrt(3.0)


def hex_to_pixel(h: Hex, size: float, origin: tuple[float, float] = (0.0, 0.0),
                 flat: bool = True) -> tuple[float, float]:
    """Centre of ``h`` in pixels for hexes of radius ``size``.

    ``flat=True`` (default) is the flat-topped, column layout of the boards;
    ``flat=False`` gives pointy-topped rows for other diagrams.
    """
    if flat:
        x = size * 1.5 * h.q
        y = size * (SQRT3 / 2 * h.q + SQRT3 * h.r)
    else:
        x = size * (SQRT3 * h.q + SQRT3 / 2 * h.r)
        y = size * 1.5 * h.r
    return origin[0] + x, origin[1] + y


def pixel_to_hex(x: float, y: float, size: float, origin: tuple[float, float] = (0.0, 0.0),
                 flat: bool = True) -> Hex:
    """The hex under a pixel (inverse of :func:`hex_to_pixel`)."""
    px, py = (x - origin[0]) / size, (y - origin[1]) / size
    if flat:
        q = 2 / 3 * px
        r = -1 / 3 * px + SQRT3 / 3 * py
    else:
        q = SQRT3 / 3 * px - 1 / 3 * py
        r = 2 / 3 * py
    return cube_round(q, r, -q - r)


def hex_corners(h: Hex, size: float, origin: tuple[float, float] = (0.0, 0.0),
                flat: bool = True) -> list[tuple[float, float]]:
    """The six corners of ``h`` (for an SVG polygon), clockwise from the right."""
    cx, cy = hex_to_pixel(h, size, origin, flat)
    start = 0 if flat else 30
    return [(cx + size * math.cos(math.radians(start + 60 * i)),
             cy + size * math.sin(math.radians(start + 60 * i))) for i in range(6)]


def hexside_segment(a: Hex, b: Hex, size: float, origin: tuple[float, float] = (0.0, 0.0),
                    flat: bool = True) -> tuple[tuple[float, float], tuple[float, float]]:
    """The two end points of the hexside between adjacent ``a`` and ``b``, in pixels.

    >>> (x1, y1), (x2, y2) = hexside_segment(Hex(0, 0), Hex(0, 1), 10)
    >>> round(x1, 1), round(y1, 1), round(x2, 1), round(y2, 1)
    (5.0, 8.7, -5.0, 8.7)
    """
    hexside(a, b)
    ca, cb = hex_corners(a, size, origin, flat), hex_to_pixel(b, size, origin, flat)
    two = sorted(ca, key=lambda p: (p[0] - cb[0]) ** 2 + (p[1] - cb[1]) ** 2)[:2]
    two.sort(key=lambda p: (-round(p[0], 6), round(p[1], 6)))
    return two[0], two[1]


def board_size(columns: int, rows: int, size: float, flat: bool = True) -> tuple[float, float]:
    """Width and height in pixels of a board drawn with :func:`hex_to_pixel`.

    Hex A1's centre is at ``(size, size * sqrt(3) / 2)`` when drawn with
    ``origin=board_origin(size)``.

    >>> w, h = board_size(2, 2, 10)
    >>> round(w, 2), round(h, 2)
    (35.0, 43.3)
    """
    if flat:
        w = size * (1.5 * (columns - 1) + 2)
        h = size * SQRT3 * (rows + (0.5 if columns > 1 else 0))
    else:
        w = size * SQRT3 * (columns + 0.5)
        h = size * (1.5 * (rows - 1) + 2)
    return w, h


def board_origin(size: float, flat: bool = True) -> tuple[float, float]:
    """Pixel origin that puts hex A1 snugly in the top left corner of the drawing."""
    return (size, size * SQRT3 / 2) if flat else (size * SQRT3 / 2, size)

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

A line exactly along a hexside is ambiguous; :func:`line` nudges the end
points by a tiny epsilon, one way or the other (``nudge=+1`` / ``-1``), so
that each line picks one side. :mod:`harmony.los` draws both.

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
from typing import Iterator, NamedTuple

#: The nudge added to both end points of a line (in cube coordinates) to
#: break ties on hexsides; small enough never to move a point to another hex.
EPSILON = (1e-6, 2e-6, -3e-6)

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
    """The hexes a straight line from ``a``'s centre to ``b``'s centre crosses.

    Linear interpolation in cube space, sampled once per hex of distance,
    with both ends moved by ``nudge * EPSILON`` (``nudge`` is +1, -1 or 0).
    Consecutive hexes of the result are always adjacent.
    """
    n = distance(a, b)
    if n == 0:
        return [a]
    eq, er, es = (nudge * e for e in EPSILON)
    aq, ar, as_ = a.q + eq, a.r + er, a.s + es
    bq, br, bs = b.q + eq, b.r + er, b.s + es
    out = []
    for i in range(n + 1):
        t = i / n
        out.append(cube_round(aq + (bq - aq) * t, ar + (br - ar) * t, as_ + (bs - as_) * t))
    return out


def hexside(a: Hex, b: Hex) -> tuple[Hex, Hex]:
    """The key of the hexside between two adjacent hexes (order-free).

    >>> hexside(Hex(1, 0), Hex(0, 0)) == hexside(Hex(0, 0), Hex(1, 0))
    True
    """
    if not adjacent(a, b):
        raise ValueError(f"{a} and {b} are not adjacent")
    return (a, b) if a <= b else (b, a)


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


def label(h: Hex) -> str:
    """The board label of a hex (inverse of :func:`parse_label`)."""
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

"""Line of sight between hex centres, decided with exact geometry.

The rule, as the engine plays it:

* a hex sees itself and its six neighbours, always;
* otherwise the line of sight is the straight segment from centre to centre,
  followed exactly by :func:`harmony.hexgrid.trace` (whole numbers only: no
  sampling, no floating point). It is blocked by every hex other than the
  two end hexes that the segment meets, through its inside, along one of
  its hexsides or at a single corner, if the hex's terrain blocks line of
  sight or the hex stands higher than both end hexes; and by every hexside
  feature that blocks line of sight and that the segment meets: crossing it,
  running along it, or touching one of its two corners;
* the end hexes never block (a unit in woods is seen by a unit with a clear
  line to its hex); hexes off the map have no terrain and never block.

The reading of the sources. Line of sight is traced from the centre of one
hex to the centre of the other (PanzerBlitz, Rules of Play, Avalon Hill
1970, "How to Determine the Line of Sight/Line of Fire"). When the line runs
exactly along a hexside, Panzer Leader (Rules of Play, Avalon Hill 1974,
line of sight) gives the defender the benefit of the doubt: the line is
blocked if the hex on either side blocks. The rulebooks say nothing of a line
through a corner, where it passes between three hexes; we settle that doubt
the same way, for the defender. Put shortly: anything that blocks and that
the line touches, even at one point, blocks it. That is what moving the line
an arbitrarily small distance to each side and calling it blocked if either
moved line is blocked gives, and in addition a blocking hexside the line lies
on, end to end, blocks it.

>>> from harmony.terrain import HexMap
>>> m = HexMap.from_data({"columns": 5, "rows": 5, "hexes": {"B2": "woods"}})
>>> sight(m, parse_label("A2"), parse_label("C2")).clear   # along the B1/B2 hexside
False
>>> sight(m, parse_label("A3"), parse_label("C3")).clear   # along B2/B3: B2 is woods
False
>>> sight(m, parse_label("A1"), parse_label("C1")).clear   # along the top edge of B1
True
>>> sight(m, parse_label("A4"), parse_label("C4")).clear
True
>>> sight(m, parse_label("B2"), parse_label("B4")).clear   # the end hex does not block
True
>>> r = sight(m, parse_label("A2"), parse_label("C2"))
>>> r.blocked_by, [[label(h) for h in l] for l in r.lines]
('B2', [['A2', 'B2', 'C2'], ['A2', 'B1', 'C2']])

A line through a corner is blocked by the third hex there: A1 to E4 passes
through the corner where B1, B2 and C2 meet, touching B2 and no more of it.

>>> m = HexMap.from_data({"columns": 5, "rows": 5, "hexes": {"B2": "woods"}})
>>> has_los(m, parse_label("A1"), parse_label("E4")), has_los(m, parse_label("A1"), parse_label("E3"))
(False, True)

:func:`sight` gives the answer with the lines drawn and what blocked them,
for diagrams; :func:`has_los` gives the answer alone, fast: each map keeps a
table of its blocking hexes and hexsides as bit masks, and the hexes and
hexsides a segment meets depend only on the offset between its ends, so
they are worked out once per offset (as bit masks too) and one test of each
kind decides a pair.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .hexgrid import DIRECTIONS, Hex, _geometry, distance, label, line, parse_label
from .terrain import HexMap

__all__ = ["Sight", "sight", "has_los", "parse_label"]


@dataclass(frozen=True)
class Sight:
    """The answer to "does ``a`` see ``b``?", with the lines drawn, for diagrams.

    ``lines`` holds the chain of hexes the segment passes through, once for
    each side where it runs along a hexside or through a corner (one line
    when it never does).
    """

    a: Hex
    b: Hex
    clear: bool
    lines: tuple = field(default=())
    #: what blocked it: a hex label, or "C2|D2" for a hexside; None when clear
    blocked_by: str | None = None

    def as_data(self) -> dict:
        return {"from": label(self.a), "to": label(self.b), "clear": self.clear,
                "lines": [[label(h) for h in l] for l in self.lines],
                "blocked-by": self.blocked_by}


def sight(m: HexMap, a: Hex, b: Hex) -> Sight:
    """Line of sight from ``a`` to ``b`` on map ``m`` (symmetric), with lines and blocker.

    >>> m = HexMap.from_data({"columns": 10, "rows": 8, "hexes": {"D3": "woods"}})
    >>> s = sight(m, parse_label("A2"), parse_label("J8"))
    >>> s.clear, s.blocked_by
    (False, 'D3')
    """
    if distance(a, b) <= 1:
        return Sight(a, b, True, ((a, b) if a != b else (a,),), None)
    # Walk from the lower hex so that the answer cannot depend on the direction.
    lo, hi = (a, b) if a <= b else (b, a)
    lines = []
    for nudge in (1, -1):
        l = line(lo, hi, nudge)
        if l not in lines:
            lines.append(l)
    if (lo, hi) != (a, b):
        lines = [list(reversed(l)) for l in lines]
    blocked = _blocker(m, lo, hi)
    return Sight(a, b, blocked is None, tuple(tuple(l) for l in lines), blocked)


def _blocker(m: HexMap, lo: Hex, hi: Hex) -> str | None:
    """The first blocking hex the segment meets from ``lo``, else the first blocking hexside."""
    hexes, sides, _ = _geometry(hi.q - lo.q, hi.r - lo.r)
    top = max(m.terrain(lo).elevation, m.terrain(hi).elevation)
    for q, r, _ in hexes[1:-1]:
        h = Hex(lo.q + q, lo.r + r)
        if m.contains(h):
            t = m.terrain(h)
            if t.blocks_los or t.elevation > top:
                return label(h)
    for q, r, k, _ in sides:
        x = Hex(lo.q + q, lo.r + r)
        y = x + DIRECTIONS[k]
        if m.contains(x) and m.contains(y):
            f = m.side_feature(x, y)
            if f is not None and f.blocks_los:
                return f"{label(x)}|{label(y)}"
    return None


def has_los(m: HexMap, a: Hex, b: Hex) -> bool:
    """True when ``a`` sees ``b`` (the answer of :func:`sight`, without the drawing).

    >>> m = HexMap.from_data({"columns": 10, "rows": 8, "hexes": {"D3": "woods"}})
    >>> has_los(m, parse_label("A2"), parse_label("J8")), has_los(m, parse_label("A1"), parse_label("J1"))
    (False, True)
    """
    table = m.__dict__.get("_los_table")
    if table is None or table.revision != m.__dict__["_revision"][0]:
        table = _Table(m)
        m.__dict__["_los_table"] = table     # not an attribute set: the map does not change
    return table.clear(a, b)


class _Table:
    """A map's blocking hexes and hexsides as bit masks, and each offset's segment as masks.

    Cells are numbered over a parallelogram of axial coordinates around the
    map (two hexes of margin, for segments that touch hexes off the edge):
    Hex(q, r) is cell ``(q - q0) * height + (r - r0)``, so a hex offset
    (dq, dr) is the same step ``dq * height + dr`` from every cell. Bit ``i``
    of a map mask is cell ``i``; hexside ``k`` (towards ``DIRECTIONS[k]``,
    k in 0..2) of cell ``i`` is bit ``3 * i + k`` of the hexside mask.

    Each pair is asked from the end that makes the offset point right (or
    down, in one column), so half the offsets serve all pairs. An offset's
    masks hold the cells and hexsides its segment meets, as steps from that
    end plus ``height``, so that no bit is negative (a segment pointing right
    never reaches a whole column left of its start); the map masks are kept
    shifted up by ``height`` to match.
    """

    def __init__(self, m: HexMap):
        self.revision = m.revision
        self.map = m
        hexes = m.all_hexes()
        margin = 2
        q0 = min(h.q for h in hexes) - margin
        r0 = min(h.r for h in hexes) - margin
        self.height = height = max(h.r for h in hexes) - r0 + 1 + margin
        self.cells: dict[Hex, tuple[int, int]] = {}
        self.elevations: list[tuple[int, int]] = []      # (cell, elevation) of each hex
        blocking = 0
        for h in hexes:
            t = m.terrain(h)
            i = (h.q - q0) * height + (h.r - r0)
            self.cells[h] = (i, t.elevation)
            self.elevations.append((i, t.elevation))
            if t.blocks_los:
                blocking |= 1 << i
        self.blocking = blocking
        sides = 0
        for (x, y), name in m.hexsides.items():
            if m.types[name].blocks_los:
                d = y - x
                if d not in DIRECTIONS[:3]:
                    x, d = y, x - y
                i = (x.q - q0) * height + (x.r - r0)
                sides |= 1 << (3 * i + DIRECTIONS.index(d))
        self.sides = sides << (3 * height)
        self.by_top: dict[int, int] = {}
        self.offsets: dict[tuple[int, int], tuple[int, int]] = {}

    def hexes_above(self, top: int) -> int:
        """The mask (shifted up) of hexes that block a line whose higher end is ``top``."""
        bits = self.blocking
        for i, e in self.elevations:
            if e > top:
                bits |= 1 << i
        bits <<= self.height
        self.by_top[top] = bits
        return bits

    def offset(self, dq: int, dr: int) -> tuple[int, int]:
        """The masks of the hexes (ends left out) and hexsides that offset's segment meets."""
        hexes, sides, _ = _geometry(dq, dr)
        n = height = self.height
        hm = sm = 0
        if distance(Hex(0, 0), Hex(dq, dr)) > 1:
            for q, r, _ in hexes[1:-1]:
                hm |= 1 << (n + q * height + r)
            for q, r, k, _ in sides:
                sm |= 1 << (3 * (n + q * height + r) + k)
        self.offsets[dq, dr] = hm, sm
        return hm, sm

    def clear(self, a: Hex, b: Hex) -> bool:
        ca, cb = self.cells.get(a), self.cells.get(b)
        if ca is None or cb is None:            # off the map: the plain walk
            return distance(a, b) <= 1 or _blocker(self.map, *sorted((a, b))) is None
        dq, dr = b[0] - a[0], b[1] - a[1]
        if dq < 0 or (dq == 0 and dr < 0):     # the same segment, walked from b
            dq, dr, ca, cb = -dq, -dr, cb, ca
        masks = self.offsets.get((dq, dr)) or self.offset(dq, dr)
        ia, ea = ca
        eb = cb[1]
        top = ea if ea > eb else eb
        hm, sm = masks
        bits = self.by_top.get(top)
        if bits is None:
            bits = self.hexes_above(top)
        if (bits >> ia) & hm:
            return False
        return not (sm and (self.sides >> (3 * ia)) & sm)

"""Line of sight between hex centres, decided with exact geometry.

The rule, as the engine plays it:

* a hex sees itself and its six neighbours, always;
* otherwise the line of sight is the straight segment from centre to centre,
  followed exactly by :func:`harmony.games.panzerblitz.hexgrid.trace` (whole numbers only: no
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

>>> from harmony.games.panzerblitz.terrain import HexMap
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

from .hexgrid import DIRECTIONS, Hex, _geometry, _reach, distance, label, line, parse_label
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
    hexes, sides = _geometry(hi.q - lo.q, hi.r - lo.r)
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
    """A map's blocking hexes and hexsides as one bit mask, and each offset's segment as a mask.

    Cells are numbered over a parallelogram of axial coordinates around the
    map (two hexes of margin, for segments that touch hexes off the edge):
    Hex(q, r) is cell ``(q - q0) * height + (r - r0)``, so a hex offset
    (dq, dr) is the same step ``dq * height + dr`` from every cell. Cell ``i``
    owns four bits from ``4 * i``: the hex itself, then its hexsides towards
    ``DIRECTIONS[0]``, ``[1]`` and ``[2]`` (every hexside is owned by one of
    its two hexes). The map mask sets the bits of what blocks; there is one
    per elevation of a higher end, since a hex higher than both ends blocks.

    Each pair is asked from the end that makes the offset point right (or
    down, in one column), so half the offsets serve all pairs. An offset's
    mask sets the bits of the hexes between the ends and the hexsides its
    segment meets, as steps from that end plus ``height`` cells, so that no
    bit is negative (a segment pointing right never reaches a whole column
    left of its start); the map masks are kept shifted up to match. Then
    ``(map_mask >> 4 * i) & offset_mask`` is zero exactly when the segment
    from cell ``i`` is clear.
    """

    def __init__(self, m: HexMap):
        self.revision = m.revision
        self.map = m
        hexes = m.all_hexes()
        margin = 2
        q0 = min(h.q for h in hexes) - margin
        r0 = min(h.r for h in hexes) - margin
        self.height = height = max(h.r for h in hexes) - r0 + 1 + margin
        #: a step between offsets' keys wider than any offset's dr, so that
        #: ``dq * stride + dr`` is one number per offset, positive when it points right
        self.stride = stride = 2 * height + 1
        self.cells: dict[Hex, tuple[int, int, int]] = {}   # shift, elevation, key
        tops: dict[int, int] = {}
        blocking = 0
        for h in hexes:
            t = m.terrain(h)
            i = (h.q - q0) * height + (h.r - r0)
            self.cells[h] = (4 * i, t.elevation, h.q * stride + h.r)
            tops[t.elevation] = tops.get(t.elevation, 0) | 1 << (4 * i)
            if t.blocks_los:
                blocking |= 1 << (4 * i)
        for (x, y), name in m.hexsides.items():
            if m.types[name].blocks_los:
                d = y - x
                if d not in DIRECTIONS[:3]:
                    x, d = y, x - y
                i = (x.q - q0) * height + (x.r - r0)
                blocking |= 1 << (4 * i + 1 + DIRECTIONS.index(d))
        #: the map mask for each elevation a line's higher end may have
        self.by_top = {top: (blocking | sum(bits for e, bits in tops.items() if e > top))
                       << (4 * height) for top in tops}
        #: the same, shifted down to each cell of the map in turn (made when first asked):
        #: a pair is then one AND of a mask as long as its segment, not a shift of the map
        self.from_cell: dict[tuple[int, int], int] = {}
        self.offsets: dict[int, int] = {}

    def offset(self, key: int) -> int:
        """The mask of the hexes (ends left out) and hexsides the segment of an offset meets."""
        dq, dr = divmod(key, self.stride)
        if dr > self.height:
            dq, dr = dq + 1, dr - self.stride
        height = self.height
        mask = 0
        if distance(Hex(0, 0), Hex(dq, dr)) > 1:
            met, sides, _ = _reach(dq, dr)         # the same as _geometry's, in no order
            bits = [4 * (height + q * height + r) for _, _, q, r in met
                    if (q or r) and (q, r) != (dq, dr)]
            bits += [4 * (height + q * height + r) + 1 + k for _, q, r, k, _ in sides]
            raw = bytearray((max(bits) >> 3) + 1)
            for b in bits:
                raw[b >> 3] |= 1 << (b & 7)
            mask = int.from_bytes(raw, "little")
        self.offsets[key] = mask
        return mask

    def clear(self, a: Hex, b: Hex) -> bool:
        ca, cb = self.cells.get(a), self.cells.get(b)
        if ca is None or cb is None:            # off the map: the plain walk
            return distance(a, b) <= 1 or _blocker(self.map, *sorted((a, b))) is None
        key = cb[2] - ca[2]
        if key < 0:                              # the same segment, walked from b
            ca, cb, key = cb, ca, -key
        mask = self.offsets.get(key)
        if mask is None:
            mask = self.offset(key)
        ea, eb = ca[1], cb[1]
        at = (ea if ea > eb else eb, ca[0])
        shifted = self.from_cell.get(at)
        if shifted is None:
            shifted = self.from_cell[at] = self.by_top[at[0]] >> at[1]
        return not shifted & mask

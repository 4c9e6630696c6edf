"""Line of sight between hex centres.

The rule, as the engine plays it:

* a hex sees itself and its six neighbours, always;
* otherwise a line is drawn from centre to centre (:func:`harmony.hexgrid.line`);
  it is blocked by an *intermediate* hex whose terrain type blocks LOS, or
  that stands higher than both end hexes, and by a hexside feature that blocks
  LOS crossed on the way; the end hexes never block (a unit in woods is seen
  by a unit with a clear line to its hex);
* a line running exactly along a hexside is ambiguous: it is drawn twice,
  nudged a tiny distance to each side, and is blocked if *either* is blocked
  (the benefit of the doubt goes to the defender, as in Panzer Leader).

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
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .hexgrid import Hex, distance, label, line, parse_label
from .terrain import HexMap

__all__ = ["Sight", "sight", "has_los", "parse_label"]


@dataclass(frozen=True)
class Sight:
    """The answer to "does ``a`` see ``b``?", with the lines drawn, for diagrams."""

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


def _blocker(m: HexMap, hexes: list[Hex]) -> str | None:
    a, b = hexes[0], hexes[-1]
    top = max(m.terrain(a).elevation, m.terrain(b).elevation)
    for h in hexes[1:-1]:
        t = m.terrain(h)
        if t.blocks_los or t.elevation > top:
            return label(h)
    for x, y in zip(hexes, hexes[1:]):
        f = m.side_feature(x, y)
        if f is not None and f.blocks_los:
            return f"{label(x)}|{label(y)}"
    return None


def sight(m: HexMap, a: Hex, b: Hex) -> Sight:
    """Line of sight from ``a`` to ``b`` on map ``m`` (symmetric)."""
    if distance(a, b) <= 1:
        return Sight(a, b, True, ((a, b) if a != b else (a,),), None)
    # Draw from the lower hex so that the answer cannot depend on the direction.
    lo, hi = (a, b) if a <= b else (b, a)
    lines = []
    for nudge in (1, -1):
        l = line(lo, hi, nudge)
        if l not in lines:
            lines.append(l)
    if (lo, hi) != (a, b):
        lines = [list(reversed(l)) for l in lines]
    blocked = None
    for l in lines:
        blocked = _blocker(m, l)
        if blocked:
            break
    return Sight(a, b, blocked is None, tuple(tuple(l) for l in lines), blocked)


def has_los(m: HexMap, a: Hex, b: Hex) -> bool:
    """True when ``a`` sees ``b``."""
    return sight(m, a, b).clear

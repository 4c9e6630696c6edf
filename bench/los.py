"""Line of sight on every pair of a 1,000-hex map: harmony against a naive walk, and exactness.

    PYTHONPATH=$PWD python3 bench/los.py [--columns 40] [--rows 25] [--repeats 5] [--seed 1]
                                         [--layout clustered|scattered]

Three timings, CPU time (``time.process_time``), interleaved round by round
so that a change of machine load hits all three alike; the medians are
reported:

* ``naive``: a straightforward per-pair line walk, written here: Red Blob
  Games' line (one point per hex of distance, interpolated in cube
  coordinates, nudged off hexsides, rounded to a hex), then each hex between
  the ends and each hexside between consecutive hexes looked up;
* ``harmony cold``: :func:`harmony.games.panzerblitz.los.has_los` on every pair of a freshly
  built map, with harmony's per-offset cache emptied first (everything it
  precomputes is paid for in the timing);
* ``harmony warm``: the same pairs asked again of the same map.

Then every pair is checked against an exact reference written here (and not
sharing code with harmony): the segment between the two centres tested
against each hexagon and hexside with whole numbers, by separating axes in
axial coordinates times three; the disagreements of harmony and of the naive
walk are counted. The reference reads the rule as harmony's docstring states
it: anything that blocks and that the segment touches, even at one point,
blocks it; the end hexes never block; neighbours always see each other.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harmony.games.panzerblitz import hexgrid, los  # noqa: E402
from harmony.games.panzerblitz.hexgrid import DIRECTIONS, Hex, board, label  # noqa: E402
from harmony.games.panzerblitz.terrain import HexMap  # noqa: E402


# ------------------------------------------------------------------ the map
def make_map(columns: int, rows: int, seed: int, layout: str = "clustered") -> dict:
    """A random map as scenario data: woods, town, hills (with slope hexsides) and woods hexsides.

    ``clustered``: terrain in patches, as on the boards (about 12% woods, 4%
    town, 12% hill); ``scattered``: each hex drawn on its own (12% woods, 5%
    town, 10% hill, 5% slope), which blocks most long lines.
    """
    rnd = random.Random(seed)
    cells = list(board(columns, rows))
    on = set(cells)
    kind: dict[Hex, str] = {}
    if layout == "scattered":
        for h in cells:
            x = rnd.random()
            k = ("woods" if x < 0.12 else "town" if x < 0.17 else "hill" if x < 0.27
                 else "slope" if x < 0.32 else None)
            if k:
                kind[h] = k
    else:
        for name, share, size in (("hill", 0.12, 12), ("woods", 0.12, 6), ("town", 0.04, 3)):
            goal = int(share * len(cells))
            placed = 0
            while placed < goal:
                h = rnd.choice(cells)
                for _ in range(rnd.randint(1, 2 * size)):
                    if h in on and h not in kind:
                        kind[h] = name
                        placed += 1
                    h = h + rnd.choice(DIRECTIONS)
    sides = []
    for h in cells:
        for d in DIRECTIONS[:3]:
            n = h + d
            if n not in on:
                continue
            hill_edge = (kind.get(h) == "hill") != (kind.get(n) == "hill")
            woods_edge = (kind.get(h) == "woods") != (kind.get(n) == "woods")
            if layout == "scattered":
                typ = ("slope-side" if rnd.random() < 0.03 else
                       "woods-side" if rnd.random() < 0.01 else None)
            else:
                typ = ("slope-side" if hill_edge and rnd.random() < 0.3 else
                       "woods-side" if woods_edge and rnd.random() < 0.05 else None)
            if typ:
                sides.append({"between": [label(h), label(n)], "type": typ})
    return {"columns": columns, "rows": rows, "hexes": {label(h): k for h, k in kind.items()},
            "hexsides": sides}


def pairs_of(m: HexMap) -> list[tuple[Hex, Hex]]:
    cells = m.all_hexes()
    return [(a, b) for i, a in enumerate(cells) for b in cells[i + 1:]]


# --------------------------------------------------------------- naive walk
class Naive:
    """What a per-pair line walk needs of the map: plain dicts, built once."""

    def __init__(self, m: HexMap):
        self.block = {}
        self.elev = {}
        for h in m.all_hexes():
            t = m.terrain(h)
            self.block[(h.q, h.r)] = t.blocks_los
            self.elev[(h.q, h.r)] = t.elevation
        self.sides = set()
        for (x, y), name in m.hexsides.items():
            if m.types[name].blocks_los:
                self.sides.add(((x.q, x.r), (y.q, y.r)))
                self.sides.add(((y.q, y.r), (x.q, x.r)))

    @staticmethod
    def line(aq, ar, bq, br):
        n = (abs(aq - bq) + abs(ar - br) + abs(aq + ar - bq - br)) // 2
        aq, ar = aq + 1e-6, ar + 2e-6
        bq, br = bq + 1e-6, br + 2e-6
        out = []
        for i in range(n + 1):
            t = i / n
            fq = aq + (bq - aq) * t
            fr = ar + (br - ar) * t
            fs = -fq - fr
            q, r, s = round(fq), round(fr), round(fs)
            dq, dr, ds = abs(q - fq), abs(r - fr), abs(s - fs)
            if dq > dr and dq > ds:
                q = -r - s
            elif dr > ds:
                r = -q - s
            out.append((q, r))
        return out

    def clear(self, a: Hex, b: Hex) -> bool:
        aq, ar, bq, br = a.q, a.r, b.q, b.r
        if (abs(aq - bq) + abs(ar - br) + abs(aq + ar - bq - br)) // 2 <= 1:
            return True
        hexes = self.line(aq, ar, bq, br)
        top = max(self.elev[(aq, ar)], self.elev[(bq, br)])
        for h in hexes[1:-1]:
            if self.block.get(h, False) or self.elev.get(h, 0) > top:
                return False
        for x, y in zip(hexes, hexes[1:]):
            if (x, y) in self.sides:
                return False
        return True


# --------------------------------------------------------- exact reference
# Axial coordinates times three: the centre of Hex(q, r) is (3q, 3r), its
# corners are the centre plus these (all whole numbers).
_CORNERS3 = ((2, -1), (1, 1), (-1, 2), (-2, 1), (-1, -1), (1, -2))


def _hexagon(q: int, r: int) -> list[tuple[int, int]]:
    return [(3 * q + x, 3 * r + y) for x, y in _CORNERS3]


def _overlap(points_a, points_b, axis) -> bool:
    pa = [p[0] * axis[0] + p[1] * axis[1] for p in points_a]
    pb = [p[0] * axis[0] + p[1] * axis[1] for p in points_b]
    return min(pa) <= max(pb) and min(pb) <= max(pa)


def meets_polygon(seg, poly) -> bool:
    """Do a closed segment and a closed convex polygon share a point? (separating axes)"""
    (x1, y1), (x2, y2) = seg
    axes = [(-(y2 - y1), x2 - x1)]
    for (px, py), (qx, qy) in zip(poly, poly[1:] + poly[:1]):
        axes.append((-(qy - py), qx - px))
    return all(_overlap(seg, poly, ax) for ax in axes)


def meets_segment(s, t) -> bool:
    """Do two closed segments share a point?"""
    (p1, p2), (p3, p4) = s, t
    axes = [(-(p2[1] - p1[1]), p2[0] - p1[0]), (-(p4[1] - p3[1]), p4[0] - p3[0]),
            (p2[0] - p1[0], p2[1] - p1[1]), (p4[0] - p3[0], p4[1] - p3[1])]
    return all(_overlap(s, t, ax) for ax in axes if ax != (0, 0))


class Reference:
    """The exact answer, candidates from the naive line and its neighbours.

    Any hex the segment meets lies within one hex of a hex the sampled line
    holds (a point of the segment is at most 0.87 hex radii, along it, from
    a sample; hex centres two apart are at least 3 radii apart), so testing
    those candidates exactly misses nothing.
    """

    def __init__(self, m: HexMap):
        self.naive = Naive(m)
        self.blocking = {(h.q, h.r): m.terrain(h) for h in m.all_hexes()}
        self.sides: dict[tuple, list] = {}
        for (x, y), name in m.hexsides.items():
            if m.types[name].blocks_los:
                for h, n in ((x, y), (y, x)):
                    self.sides.setdefault((h.q, h.r), []).append((n.q, n.r))

    def side_segment(self, h, n):
        a, b = set(_hexagon(*h)), set(_hexagon(*n))
        p, q = sorted(a & b)
        return p, q

    def clear(self, a: Hex, b: Hex) -> bool:
        if (abs(a.q - b.q) + abs(a.r - b.r) + abs(a.q + a.r - b.q - b.r)) // 2 <= 1:
            return True
        seg = ((3 * a.q, 3 * a.r), (3 * b.q, 3 * b.r))
        top = max(self.blocking[(a.q, a.r)].elevation, self.blocking[(b.q, b.r)].elevation)
        cands = set()
        for q, r in self.naive.line(a.q, a.r, b.q, b.r):
            cands.add((q, r))
            for d in DIRECTIONS:
                cands.add((q + d.q, r + d.r))
        for h in cands:
            t = self.blocking.get(h)
            ends = h == (a.q, a.r) or h == (b.q, b.r)
            if t is not None and not ends and (t.blocks_los or t.elevation > top):
                if meets_polygon(seg, _hexagon(*h)):
                    return False
            for n in self.sides.get(h, ()):
                if meets_segment(seg, self.side_segment(h, n)):
                    return False
        return True


# -------------------------------------------------------------------- main
def run(columns: int, rows: int, repeats: int, seed: int, layout: str) -> dict:
    data = make_map(columns, rows, seed, layout)
    m = HexMap.from_data(data)
    pairs = pairs_of(m)
    timings = {"naive": [], "harmony cold": [], "harmony warm": []}
    for _ in range(repeats):
        naive = Naive(HexMap.from_data(data))
        t0 = time.process_time()
        for a, b in pairs:
            naive.clear(a, b)
        timings["naive"].append(time.process_time() - t0)

        fresh = HexMap.from_data(data)
        hexgrid._geometry.cache_clear()
        t0 = time.process_time()
        for a, b in pairs:
            los.has_los(fresh, a, b)
        timings["harmony cold"].append(time.process_time() - t0)

        t0 = time.process_time()
        for a, b in pairs:
            los.has_los(fresh, a, b)
        timings["harmony warm"].append(time.process_time() - t0)

    ref = Reference(m)
    naive = Naive(m)
    wrong = {"harmony": 0, "harmony sight()": 0, "naive": 0}
    kinds = {"naive called clear, blocked": 0, "naive called blocked, clear": 0}
    blocked = 0
    t0 = time.process_time()
    for a, b in pairs:
        truth = ref.clear(a, b)
        blocked += not truth
        if los.has_los(m, a, b) != truth:
            wrong["harmony"] += 1
        if naive.clear(a, b) != truth:
            wrong["naive"] += 1
            kinds["naive called clear, blocked" if truth is False else "naive called blocked, clear"] += 1
    ref_seconds = time.process_time() - t0
    # sight() (lines and blocker, for diagrams) on a sample of one pair in 50
    for a, b in pairs[::50]:
        if los.sight(m, a, b).clear != ref.clear(a, b):
            wrong["harmony sight()"] += 1
    med = {k: statistics.median(v) for k, v in timings.items()}
    return {"map": f"{columns} x {rows}, {layout}", "hexes": columns * rows, "pairs": len(pairs),
            "blocked pairs": blocked, "hexsides": len(m.hexsides), "repeats": repeats,
            "median seconds": med, "all seconds": timings, "wrong": wrong, "naive errors": kinds,
            "reference seconds": ref_seconds, "sight() sample": len(pairs[::50])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--columns", type=int, default=40)
    ap.add_argument("--rows", type=int, default=25)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--layout", choices=["clustered", "scattered"], default="clustered")
    args = ap.parse_args(argv)
    out = run(args.columns, args.rows, args.repeats, args.seed, args.layout)
    med = out["median seconds"]
    print(f"map {out['map']} ({out['hexes']} hexes, {out['hexsides']} blocking hexsides), "
          f"{out['pairs']} pairs, {out['blocked pairs']} blocked; {out['repeats']} interleaved rounds")
    for k in ("naive", "harmony cold", "harmony warm"):
        runs = " ".join(f"{s:.2f}" for s in out["all seconds"][k])
        print(f"  {k:13s} median {med[k]:7.3f} s CPU  ({runs})  "
              f"naive/this {med['naive'] / med[k]:6.1f}x  {1e6 * med[k] / out['pairs']:.2f} us/pair")
    print(f"disagreements with the exact reference ({out['reference seconds']:.0f} s): "
          f"harmony {out['wrong']['harmony']}, naive {out['wrong']['naive']} "
          f"({out['naive errors']['naive called clear, blocked']} called clear though blocked, "
          f"{out['naive errors']['naive called blocked, clear']} called blocked though clear); "
          f"sight() on {out['sight() sample']} sampled pairs: {out['wrong']['harmony sight()']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

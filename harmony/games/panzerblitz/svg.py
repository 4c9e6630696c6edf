"""Draw one scenario state as an SVG hex diagram.

A *state* is plain data: the scenario's ``map`` (columns, rows, terrain,
hexes, hexsides, labels), the ``units`` where they stand (id, name, side,
kind, at, markers, and the hexes of an indirect-fire unit's ``registration``
markers), the ``path`` a unit moved, the lines of sight ``los``
checked (pairs of hexes) and a ``title`` and ``desc`` for readers. The
drawing uses :mod:`harmony.games.panzerblitz.hexgrid`'s flat-topped board geometry, escapes
every text it prints and formats every number the same way, so the same state
always gives the same bytes.

>>> state = {"map": {"columns": 2, "rows": 1, "hexes": {"B1": "woods"}, "labels": {"B1": "A"}},
...          "units": [{"id": "u", "name": "<Tank>", "side": "German", "kind": "armoured", "at": "A1"}],
...          "path": ["A1", "B1"], "title": "T", "desc": "D"}
>>> out = draw(state, id_prefix="x")
>>> out.startswith('<svg xmlns="http://www.w3.org/2000/svg" role="img"')
True
>>> "&lt;Tank&gt;" in out and "<Tank>" not in out
True
>>> draw(state, id_prefix="x") == out
True
"""
from __future__ import annotations

import functools
from xml.sax.saxutils import escape, quoteattr

from .hexgrid import (board, board_origin, board_size, hex_corners, hex_to_pixel, hexside_segment,
                      label as hex_label, parse_label)

SIZE = 30.0

TERRAIN_FILL = {
    "clear": "#f3efdf", "woods": "#8fbf7f", "town": "#c7b299", "slope": "#e6d39c",
    "hill": "#d8bd74", "water": "#9cc3e0", "road": "#e9e2c8",
}
OTHER_FILL = "#d9d9d9"
HEXSIDE_STROKE = {"slope-side": "#8a6d1f", "woods-side": "#2f6b2a"}
SIDE_COLOURS = ("#3f5a78", "#a63a2b", "#5d7a2e", "#6d4f8f")
KIND_SHORT = {"armoured": "ARM", "infantry": "INF", "gun": "GUN", "truck": "TRK", "wagon": "WAG",
              "halftrack": "HT", "carrier": "CAR", "other": "UNIT"}
MARKER_SHORT = {"spotted": "S", "opportunity-spotted": "OS", "opportunity-fire": "OF"}


def n(x: float) -> str:
    """A coordinate with one decimal, no '-0.0'.

    >>> n(3.14159), n(-0.01), n(2.0)
    ('3.1', '0', '2')
    """
    s = f"{x:.1f}"
    if s in ("-0.0", "0.0"):
        return "0"
    return s[:-2] if s.endswith(".0") else s


def _points(pts) -> str:
    return " ".join(f"{n(x)},{n(y)}" for x, y in pts)


@functools.lru_cache(maxsize=4096)
def _hex_geometry(h) -> tuple[str, str, str, str, str]:
    """Hex ``h`` as every board draws it: its label, its outline's points, and the x of its
    centre with the y of its label and of its terrain's word, formatted (the same hex on
    every board and every figure: worked out once a process; a site's figures draw it
    thousands of times).

    >>> from harmony.games.panzerblitz.hexgrid import from_offset
    >>> _hex_geometry(from_offset(1, 0))
    ('B1', '105,52 90,77.9 60,77.9 45,52 60,26 90,26', '75', '33.4', '75.4')
    """
    origin = board_origin(SIZE)
    cx, cy = hex_to_pixel(h, SIZE, origin)
    return (hex_label(h), _points(hex_corners(h, SIZE, origin)), n(cx), n(cy - SIZE * 0.62),
            n(cy + SIZE * 0.78))


def _xy(lab: str, origin) -> tuple[float, float]:
    return hex_to_pixel(parse_label(lab), SIZE, origin)


#: Half the width of a counter, and of a registration diamond (see :func:`registration_centre`).
COUNTER_HALF = SIZE * 0.45
REGISTRATION_RADIUS = SIZE * 0.17


def registration_centre(lab: str, origin) -> tuple[float, float]:
    """Where a registration diamond is drawn in hex ``lab``: right of the counter's square,
    inside the hex.

    >>> from harmony.games.panzerblitz.hexgrid import board_origin
    >>> (x, y), (cx, cy) = registration_centre("B2", board_origin(SIZE)), _xy("B2", board_origin(SIZE))
    >>> x - REGISTRATION_RADIUS > cx + COUNTER_HALF + 1, y == cy   # clear of the counter and its stroke
    (True, True)
    >>> x + REGISTRATION_RADIUS < cx + SIZE   # inside the hex (its right corner is at cx + SIZE)
    True
    """
    cx, cy = _xy(lab, origin)
    return cx + SIZE * 0.7, cy


def side_colours(units: list[dict]) -> dict[str | None, str]:
    """A colour per side, in the order sides first appear (None for units given no side)."""
    sides: list[str | None] = []
    for u in units:
        if u.get("side") not in sides:
            sides.append(u.get("side"))
    return {s: SIDE_COLOURS[i % len(SIDE_COLOURS)] for i, s in enumerate(sides)}


def draw(state: dict, id_prefix: str = "hm") -> str:
    """The SVG markup of one state (see the module doc for its keys)."""
    m = state["map"]
    cols, rows = int(m["columns"]), int(m["rows"])
    origin = board_origin(SIZE)
    width, height = board_size(cols, rows, SIZE)
    width, height = width + 2, height + 2
    base = m.get("terrain", "clear")
    hexes = m.get("hexes") or {}
    labels = m.get("labels") or {}
    tid, did = f"{id_prefix}-title", f"{id_prefix}-desc"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-labelledby="{tid} {did}" '
           f'class="hm-svg" viewBox="-1 -1 {n(width)} {n(height)}" width="{n(width * 1.6)}" '
           f'height="{n(height * 1.6)}">',
           f'<title id="{tid}">{escape(state.get("title", ""))}</title>',
           f'<desc id="{did}">{escape(state.get("desc", ""))}</desc>',
           f'<defs><marker id="{id_prefix}-arrow" viewBox="0 0 10 10" refX="8" refY="5" '
           'markerWidth="6" markerHeight="6" orient="auto-start-reverse">'
           '<path d="M0,0 L10,5 L0,10 z" fill="#222"/></marker></defs>',
           '<g class="hm-board">']
    for h in board(cols, rows):
        lab, points, centre_x, label_y, word_y = _hex_geometry(h)
        terrain = hexes.get(lab, base)
        fill = TERRAIN_FILL.get(terrain, OTHER_FILL)
        out.append(f'<polygon points="{points}" fill="{fill}" '
                   f'stroke="#8c8c7a" stroke-width="1" data-hex="{lab}" data-terrain={quoteattr(terrain)}/>')
        out.append(f'<text x="{centre_x}" y="{label_y}" font-size="7" text-anchor="middle" '
                   f'fill="#555">{lab}</text>')
        if terrain != base and terrain in TERRAIN_FILL:
            out.append(f'<text x="{centre_x}" y="{word_y}" font-size="6" '
                       f'text-anchor="middle" fill="#333">{escape(terrain)}</text>')
    for side in m.get("hexsides") or []:
        a, b = (parse_label(x) for x in side["between"])
        (x1, y1), (x2, y2) = hexside_segment(a, b, SIZE, origin)
        colour = HEXSIDE_STROKE.get(side.get("type"), "#444")
        out.append(f'<line x1="{n(x1)}" y1="{n(y1)}" x2="{n(x2)}" y2="{n(y2)}" stroke="{colour}" '
                   'stroke-width="4" stroke-linecap="round"/>')
    out.append("</g>")
    # Registration markers: a diamond right of where a counter stands (inside the hex, clear
    # of the counter, its markers, the hex letter and the terrain word), numbered after the
    # registering unit's place in the list (its name in the tooltip).
    registering = [u for u in state.get("units") or [] if u.get("registration")]
    for k, u in enumerate(registering, start=1):
        name = u.get("name") or u.get("id", "")
        for lab in sorted(u["registration"]):
            (x, y), r = registration_centre(lab, origin), REGISTRATION_RADIUS
            tag = f"R{k}" if len(registering) > 1 else "R"
            out.append(f'<g class="hm-registration" data-hex="{lab}"><title>registration marker '
                       f'of {escape(name)}</title><polygon '
                       f'points="{_points([(x, y - r), (x + r, y), (x, y + r), (x - r, y)])}" '
                       f'fill="#8e44ad" stroke="#4a235a"/><text x="{n(x)}" y="{n(y + 2.3)}" '
                       f'font-size="6" text-anchor="middle" fill="#fff">{tag}</text></g>')
    for i, (a, b) in enumerate(state.get("los") or []):
        (x1, y1), (x2, y2) = _xy(a, origin), _xy(b, origin)
        out.append(f'<line class="hm-los" x1="{n(x1)}" y1="{n(y1)}" x2="{n(x2)}" y2="{n(y2)}" '
                   'stroke="#c0392b" stroke-width="1.5" stroke-dasharray="2 3"/>')
    path = state.get("path") or []
    if len(path) > 1:
        pts = [_xy(p, origin) for p in path]
        out.append(f'<polyline class="hm-path" points="{_points(pts)}" fill="none" stroke="#222" '
                   f'stroke-width="2.5" stroke-dasharray="6 3" marker-end="url(#{id_prefix}-arrow)"/>')
    colours = side_colours(state.get("units") or [])
    for u in state.get("units") or []:
        at = u.get("at")
        if not at or at == "eliminated":
            continue
        cx, cy = _xy(at, origin)
        s = COUNTER_HALF * 2
        colour = colours.get(u.get("side"), SIDE_COLOURS[0])
        name = u.get("name") or u.get("id", "")
        down = u.get("face") == "down"
        tip = f"{name} ({u.get('side', '')}, {u.get('kind', '')})"
        out.append(f'<g class="hm-unit" data-unit={quoteattr(str(u.get("id", "")))}>'
                   f'<title>{escape(tip)}</title>')
        out.append(f'<rect x="{n(cx - s / 2)}" y="{n(cy - s / 2)}" width="{n(s)}" height="{n(s)}" '
                   f'rx="2" fill="{"#ffffff" if down else colour}" stroke="{colour}" stroke-width="2"/>')
        ink = colour if down else "#ffffff"
        short = KIND_SHORT.get(u.get("kind"), "UNIT")
        out.append(f'<text x="{n(cx)}" y="{n(cy - 2)}" font-size="8" font-weight="bold" '
                   f'text-anchor="middle" fill="{ink}">{short}</text>')
        if all(k in u for k in ("attack", "range", "defence", "movement")):
            stats = f'{u["attack"]}-{u["range"]} {u["defence"]}-{u["movement"]}'
            out.append(f'<text x="{n(cx)}" y="{n(cy + 8)}" font-size="6.5" text-anchor="middle" '
                       f'fill="{ink}">{escape(stats)}</text>')
        for j, marker in enumerate(sorted(u.get("markers") or [])):
            mx, my = cx + s / 2 - 2 + j * 0, cy - s / 2 - 4 - j * 10
            text = MARKER_SHORT.get(marker, marker[:2].upper())
            out.append(f'<g class="hm-marker"><title>{escape(marker)} marker</title>'
                       f'<rect x="{n(mx - 8)}" y="{n(my - 5)}" width="16" height="10" rx="2" '
                       f'fill="#f1c40f" stroke="#7d6608"/><text x="{n(mx)}" y="{n(my + 3)}" '
                       f'font-size="7" text-anchor="middle" fill="#000">{escape(text)}</text></g>')
        out.append("</g>")
    # Hex letters go on top, left of where a counter stands and haloed in white, so no
    # counter, path or line ever hides them.
    for lab, letter in sorted(labels.items()):
        cx, cy = _xy(lab, origin)
        size = 14 if len(str(letter)) == 1 else 11
        out.append(f'<text class="hm-hex-label" x="{n(cx - SIZE * 0.5 - 2)}" y="{n(cy + 5)}" '
                   f'font-size="{size}" font-weight="bold" fill="#000" stroke="#fff" stroke-width="3" '
                   f'paint-order="stroke" text-anchor="end">{escape(str(letter))}</text>')
    out.append("</svg>")
    return "".join(out)


def style() -> dict:
    """What :func:`draw` draws with (hex size, colours, counter abbreviations), for the
    ruling explorer's page, which draws its board from the same data.

    >>> style()["terrain"]["woods"] == TERRAIN_FILL["woods"]
    True
    """
    return {"size": SIZE, "terrain": TERRAIN_FILL, "other": OTHER_FILL,
            "hexside": HEXSIDE_STROKE, "sides": list(SIDE_COLOURS), "kinds": KIND_SHORT}

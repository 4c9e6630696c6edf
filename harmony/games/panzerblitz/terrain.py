"""Terrain: the types a map may use, and the map itself (terrain per hex and hexside).

What a terrain does is a property of its *type* (:class:`TerrainType`), read
from data: the standard types below, changed or extended by a scenario's
``terrain-types`` so that variant maps can add, say, a concealing jungle.
Rules never name a terrain; they ask ``concealing`` or ``blocks_los``.

>>> m = HexMap.from_data({"columns": 3, "rows": 3, "hexes": {"B2": "woods"},
...                       "terrain-types": [{"name": "jungle", "concealing": True}]})
>>> m.terrain(parse_label("B2")).concealing, m.terrain(parse_label("A1")).name
(True, 'clear')
>>> m.types["jungle"].blocks_los, m.types["jungle"].concealing
(False, True)
>>> m.contains(parse_label("C3")), m.contains(parse_label("D1"))
(True, False)

Blocks and mines are counters on hexes, each set by a side:

>>> m = HexMap.from_data({"columns": 4, "rows": 4, "blocks": {"B2": "Soviet"},
...                       "mines": {"C3": "Soviet"}})
>>> m.block(parse_label("B2")), m.mined(parse_label("C3")), m.block(parse_label("C3"))
('Soviet', 'Soviet', None)
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Self

from .hexgrid import Hex, board, hexside, label, parse_label


@dataclass(frozen=True)
class TerrainType:
    """One kind of terrain and what it does."""

    name: str
    concealing: bool = False
    blocks_los: bool = False
    elevation: int = 0
    drm: int = 0
    move_cost: int = 1
    hexside: bool = False


#: The standard terrain of the PanzerBlitz family's boards. Woods and town
#: conceal and block line of sight; attacks on units in them get +1 (PB).
#: Slopes and hills are one level up; slope and woods hexsides block LOS.
STANDARD_TYPES: dict[str, TerrainType] = {t.name: t for t in (
    TerrainType("clear"),
    TerrainType("woods", concealing=True, blocks_los=True, drm=1),
    TerrainType("town", concealing=True, blocks_los=True, drm=1),
    TerrainType("slope", elevation=1),
    TerrainType("hill", elevation=1),
    TerrainType("slope-side", blocks_los=True, hexside=True),
    TerrainType("woods-side", blocks_los=True, hexside=True),
)}

_FIELDS = {"concealing": "concealing", "blocks-los": "blocks_los", "elevation": "elevation",
           "drm": "drm", "move-cost": "move_cost", "hexside": "hexside"}


class MapError(ValueError):
    """A map that does not make sense; ``path`` locates the offending value in the data."""

    def __init__(self, message: str, path: tuple = ()):
        super().__init__(message)
        self.path = path


def terrain_types(extra: list[dict] | None = None) -> dict[str, TerrainType]:
    """The standard types, changed or extended by ``extra`` (scenario data)."""
    types = dict(STANDARD_TYPES)
    for entry in extra or []:
        name = entry["name"]
        changes = {_FIELDS[k]: v for k, v in entry.items() if k in _FIELDS}
        base = types.get(name, TerrainType(name))
        types[name] = replace(base, **changes)
    return types


class _Counted(dict):
    """A dict that counts its changes on the maps holding it (see :attr:`HexMap.revision`)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.listeners: list[list[int]] = []

    def _changed(self) -> None:
        for counter in self.__dict__.get("listeners", ()):
            counter[0] += 1

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        self._changed()

    def __delitem__(self, key):
        super().__delitem__(key)
        self._changed()

    # mypy holds an in-place operator to dict's overloaded __or__ (whose result is a plain
    # dict), which no subclass's __ior__ returning itself can match
    def __ior__(self, other: Any) -> Self:  # type: ignore[misc]
        super().__ior__(other)
        self._changed()
        return self

    def clear(self):
        super().clear()
        self._changed()

    def pop(self, *args):
        out = super().pop(*args)
        self._changed()
        return out

    def popitem(self):
        out = super().popitem()
        self._changed()
        return out

    def setdefault(self, key, default=None):
        out = super().setdefault(key, default)
        self._changed()
        return out

    def update(self, *args, **kwargs):
        super().update(*args, **kwargs)
        self._changed()


@dataclass
class HexMap:
    """A board: its size, the terrain of each hex and the features of hexsides.

    :attr:`revision` grows whenever the map changes (a field set, an entry of
    ``hexes``, ``hexsides`` or ``types`` set or removed), so that what is
    derived from a map, such as the line-of-sight table of :mod:`harmony.games.panzerblitz.los`,
    knows when to be built again.

    >>> m = HexMap.from_data({"columns": 3, "rows": 3})
    >>> before = m.revision
    >>> m.hexes[parse_label("B2")] = "woods"
    >>> m.revision > before
    True
    """

    columns: int
    rows: int
    types: dict[str, TerrainType] = field(default_factory=lambda: dict(STANDARD_TYPES))
    default: str = "clear"
    hexes: dict[Hex, str] = field(default_factory=dict)
    hexsides: dict[tuple[Hex, Hex], str] = field(default_factory=dict)
    labels: dict[Hex, str] = field(default_factory=dict)
    #: hex -> the side whose block counter stands there
    blocks: dict[Hex, str] = field(default_factory=dict)
    #: hex -> the side whose mines are laid there
    mines: dict[Hex, str] = field(default_factory=dict)

    def __setattr__(self, name: str, value) -> None:
        counter = self.__dict__.setdefault("_revision", [0])
        if name in ("types", "hexes", "hexsides"):
            if not isinstance(value, _Counted):
                value = _Counted(value)
            if not any(c is counter for c in value.listeners):
                value.listeners.append(counter)
        object.__setattr__(self, name, value)
        counter[0] += 1

    @property
    def revision(self) -> int:
        """A number that changes whenever the map does."""
        return self.__dict__["_revision"][0]

    @classmethod
    def from_data(cls, data: dict) -> "HexMap":
        """Build from a scenario's ``map`` mapping; raises :class:`MapError`."""
        size = []
        for key in ("columns", "rows"):
            value = data.get(key) if isinstance(data, dict) else None
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise MapError(f"the map needs '{key}', a whole number of at least 1 "
                               f"(got {value!r})", (key,))
            size.append(value)
        m = cls(size[0], size[1], types=terrain_types(data.get("terrain-types")),
                default=data.get("terrain", "clear"))
        if m.default not in m.types or m.types[m.default].hexside:
            raise MapError(f"unknown hex terrain type '{m.default}'", ("terrain",))
        for text, tname in (data.get("hexes") or {}).items():
            h = m.hex(text, ("hexes", text))
            t = m.types.get(tname)
            if t is None or t.hexside:
                raise MapError(f"unknown hex terrain type '{tname}' (known: "
                               f"{', '.join(n for n, x in m.types.items() if not x.hexside)})",
                               ("hexes", text))
            m.hexes[h] = tname
        for i, side in enumerate(data.get("hexsides") or []):
            a, b = (m.hex(x, ("hexsides", i, "between", j)) for j, x in enumerate(side["between"]))
            t = m.types.get(side["type"])
            if t is None or not t.hexside:
                raise MapError(f"unknown hexside type '{side['type']}'", ("hexsides", i, "type"))
            try:
                m.hexsides[hexside(a, b)] = side["type"]
            except ValueError:
                raise MapError(f"hexes {label(a)} and {label(b)} are not adjacent",
                               ("hexsides", i, "between")) from None
        for text, mark in (data.get("labels") or {}).items():
            m.labels[m.hex(text, ("labels", text))] = mark
        for key in ("blocks", "mines"):
            given = data.get(key) or {}
            if not isinstance(given, dict):
                raise MapError(f"'{key}' maps a hex to the side that set it there", (key,))
            for text, side in given.items():
                if not isinstance(side, str) or not side:
                    raise MapError(f"the {key} at {text} belong to a side, not {side!r}",
                                   (key, text))
                getattr(m, key)[m.hex(text, (key, text))] = side
        return m

    def hex(self, text: str, path: tuple = ()) -> Hex:
        """The hex of a board label on this map; raises :class:`MapError` off the board."""
        try:
            h = parse_label(text)
        except ValueError as e:
            raise MapError(str(e), path) from None
        if not self.contains(h):
            raise MapError(f"hex {text} is off the map ({self.columns} columns, {self.rows} rows)",
                           path)
        return h

    def contains(self, h: Hex) -> bool:
        from .hexgrid import to_offset
        c, r = to_offset(h)
        return 0 <= c < self.columns and 0 <= r < self.rows

    def all_hexes(self) -> list[Hex]:
        return list(board(self.columns, self.rows))

    def terrain(self, h: Hex) -> TerrainType:
        return self.types[self.hexes.get(h, self.default)]

    def block(self, h: Hex) -> str | None:
        """The side whose block stands in ``h``, or None."""
        return self.blocks.get(h)

    def mined(self, h: Hex) -> str | None:
        """The side whose mines are laid in ``h``, or None."""
        return self.mines.get(h)

    def side_feature(self, a: Hex, b: Hex) -> TerrainType | None:
        name = self.hexsides.get(hexside(a, b))
        return self.types[name] if name else None

    def as_data(self) -> dict:
        """Plain data for diagrams: every hex with its terrain, the hexsides and labels."""
        return {
            "columns": self.columns, "rows": self.rows,
            "hexes": {label(h): self.terrain(h).name for h in self.all_hexes()},
            "hexsides": [{"between": [label(a), label(b)], "type": t}
                         for (a, b), t in sorted(self.hexsides.items())],
            "labels": {label(h): s for h, s in sorted(self.labels.items())},
            "blocks": {label(h): s for h, s in sorted(self.blocks.items())},
            "mines": {label(h): s for h, s in sorted(self.mines.items())},
            "types": {n: {"concealing": t.concealing, "blocks-los": t.blocks_los,
                          "elevation": t.elevation, "drm": t.drm, "hexside": t.hexside}
                      for n, t in sorted(self.types.items())},
        }


__all__ = ["TerrainType", "STANDARD_TYPES", "HexMap", "MapError", "terrain_types", "parse_label"]

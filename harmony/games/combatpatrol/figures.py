"""Figures, teams and the table they stand on, measured in inches as exact Fractions.

Combat Patrol is played on a table, not a board of hexes: a figure stands at a point
``(x, y)`` in inches from the table's lower left corner. Every length is a
:class:`~fractions.Fraction` (a scenario writes ``3`` or ``'5/2'``), never a float;
distances are compared through their squares, so no square root is ever taken and
no rounding can move a figure across a limit.

>>> table = Table.from_data({"inches": [48, 36], "woods": [{"id": "copse", "from": [10, 10],
...     "to": [20, 16]}]})
>>> a, b = Point.of([12, 12]), Point.of(["29/2", 12])
>>> within(a, b, 3), within(a, b, 2), table.woods_at(a), table.woods_at(Point.of([30, 5]))
(True, False, 'copse', None)
>>> inches(-1)  # doctest: +ELLIPSIS
Traceback (most recent call last):
harmony.games.combatpatrol.figures.FigureError: -1 is not a length in inches: give a whole number ...
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

#: the kinds of figure the optional rules tell apart (Tables 8 to 10 name them)
KINDS = ("infantry", "anti-tank-gun", "vehicle")
#: the Guts ratings, best first, as the booklet names them (7.11.6, 7.12.3)
GUTS = ("elite", "regular", "green")


class FigureError(ValueError):
    """A figure, team or position the game cannot place; ``path`` is where it is written
    (keys and indexes below the scenario)."""

    def __init__(self, message: str, path: tuple = ()):
        super().__init__(message)
        self.path = path


def inches(value: Any, path: tuple = ()) -> Fraction:
    """A length in inches: a whole number or a fraction string (``'5/2'``), 0 or more.

    >>> inches(3), inches("5/2")
    (Fraction(3, 1), Fraction(5, 2))
    >>> inches(2.5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    harmony.games.combatpatrol.figures.FigureError: 2.5 is not a length in inches: give a whole ...
    """
    v: Fraction | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        v = Fraction(value)
    elif isinstance(value, Fraction):
        v = value
    elif isinstance(value, str) and "/" in value:
        top, _, bottom = value.partition("/")
        if top.isdigit() and bottom.isdigit() and int(bottom) > 0:
            v = Fraction(int(top), int(bottom))
    if v is None or v < 0:
        raise FigureError(f"{value!r} is not a length in inches: give a whole number or a "
                          "fraction such as '5/2', 0 or more", path)
    return v


class Point(NamedTuple):
    """A position on the table in inches."""

    x: Fraction
    y: Fraction

    @classmethod
    def of(cls, data: Any, path: tuple = ()) -> "Point":
        """A point from ``[x, y]``.

        >>> Point.of([1, "1/2"])
        Point(x=Fraction(1, 1), y=Fraction(1, 2))
        >>> Point.of([1])
        Traceback (most recent call last):
        harmony.games.combatpatrol.figures.FigureError: [1] is not a position: give [x, y] in inches
        """
        if not isinstance(data, (list, tuple)) or len(data) != 2:
            raise FigureError(f"{data!r} is not a position: give [x, y] in inches", path)
        return cls(inches(data[0], path + (0,)), inches(data[1], path + (1,)))

    def __str__(self) -> str:
        return f"({self.x}, {self.y})"


def distance_squared(a: Point, b: Point) -> Fraction:
    """The square of the distance between two points, exactly.

    >>> distance_squared(Point.of([0, 0]), Point.of([3, 4]))
    Fraction(25, 1)
    """
    return (a.x - b.x) ** 2 + (a.y - b.y) ** 2


def within(a: Point, b: Point, limit: Fraction | int) -> bool:
    """True when ``b`` is no further than ``limit`` inches from ``a`` (a limit of 0 or more).

    >>> within(Point.of([0, 0]), Point.of([3, 4]), 5)
    True
    >>> within(Point.of([0, 0]), Point.of([3, 4]), "9/2")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    harmony.games.combatpatrol.figures.FigureError: '9/2' is not a distance limit: give a whole ...
    """
    if isinstance(limit, bool) or not isinstance(limit, (int, Fraction)) or limit < 0:
        raise FigureError(f"{limit!r} is not a distance limit: give a whole number or a Fraction "
                          "of 0 or more")
    return distance_squared(a, b) <= Fraction(limit) ** 2


@dataclass(frozen=True)
class Rect:
    """The rectangle between two opposite corners (edges included)."""

    low: Point
    high: Point

    @classmethod
    def of(cls, a: Point, b: Point) -> "Rect":
        return cls(Point(min(a.x, b.x), min(a.y, b.y)), Point(max(a.x, b.x), max(a.y, b.y)))

    def contains(self, p: Point) -> bool:
        return self.low.x <= p.x <= self.high.x and self.low.y <= p.y <= self.high.y

    def within(self, p: Point, beyond: Fraction | int) -> bool:
        """True when ``p`` is in the rectangle or no further than ``beyond`` from its edge.

        >>> Rect.of(Point.of([0, 0]), Point.of([2, 2])).within(Point.of([5, 6]), 5)
        True
        """
        dx = max(self.low.x - p.x, Fraction(0), p.x - self.high.x)
        dy = max(self.low.y - p.y, Fraction(0), p.y - self.high.y)
        return dx * dx + dy * dy <= Fraction(beyond) ** 2


def crosses(a: Point, b: Point, r: Rect) -> bool:
    """True when the segment from ``a`` to ``b`` meets the closed rectangle ``r`` (exact
    clipping of the segment by each edge in turn).

    >>> r = Rect.of(Point.of([2, 2]), Point.of([4, 4]))
    >>> crosses(Point.of([0, 0]), Point.of([6, 6]), r), crosses(Point.of([0, 5]), Point.of([6, 5]), r)
    (True, False)
    >>> crosses(Point.of([0, 4]), Point.of([6, 4]), r)
    True
    """
    t0, t1 = Fraction(0), Fraction(1)
    dx, dy = b.x - a.x, b.y - a.y
    for p, q in ((-dx, a.x - r.low.x), (dx, r.high.x - a.x), (-dy, a.y - r.low.y),
                 (dy, r.high.y - a.y)):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True


def in_triangle(p: Point, corners: tuple[Point, Point, Point]) -> bool:
    """True when ``p`` is inside the triangle or on its edge (exact, by cross products).

    >>> t = (Point.of([0, 0]), Point.of([4, 0]), Point.of([0, 4]))
    >>> in_triangle(Point.of([1, 1]), t), in_triangle(Point.of([2, 2]), t), in_triangle(Point.of([3, 3]), t)
    (True, True, False)
    """
    def cross(o: Point, a: Point, b: Point) -> Fraction:
        return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
    a, b, c = corners
    signs = (cross(a, b, p), cross(b, c, p), cross(c, a, p))
    return all(s >= 0 for s in signs) or all(s <= 0 for s in signs)


@dataclass
class Figure:
    """One figure: where it stands, what it is, its Guts and how it sees at night."""

    id: str
    team: str
    side: str
    at: Point
    kind: str = "infantry"
    guts: str = "regular"
    vision: str = "naked-eye"
    night_trained: bool = False
    #: the platoon of its team (the team itself when the scenario names none)
    platoon: str = ""
    #: the row of Table 8 it spots as: dismounted, mounted or buttoned
    sees_as: str = "dismounted"


@dataclass
class Table:
    """The table: its size in inches, its patches of woods and what blocks sight on it."""

    width: Fraction
    depth: Fraction
    woods: dict[str, Rect] = field(default_factory=dict)
    #: the rectangles that block line of sight (buildings, walls, hills: the scenario's
    #: judgement of its table, as the core rules' line of sight is not in section 7)
    blocks: dict[str, Rect] = field(default_factory=dict)

    @classmethod
    def from_data(cls, data: Any) -> "Table":
        """The table of a scenario's ``map`` (``{inches: [w, h], woods: [...]}``).

        >>> Table.from_data({"inches": [0, 10]})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        harmony.games.combatpatrol.figures.FigureError: a table 0 inches wide has no room for a figure: ...
        """
        if not isinstance(data, dict) or not isinstance(data.get("inches"), list) \
                or len(data["inches"]) != 2:
            raise FigureError("the map of a Combat Patrol scenario is {inches: [width, depth]}")
        w, d = (inches(v, ("inches", k)) for k, v in enumerate(data["inches"]))
        if w == 0 or d == 0:
            raise FigureError(f"a table {w if w == 0 else d} inches {'wide' if w == 0 else 'deep'} "
                              "has no room for a figure: give a width and a depth of more than 0",
                              ("inches",))
        table = cls(w, d)
        for what, into in (("woods", table.woods), ("blocks", table.blocks)):
            for k, patch in enumerate(data.get(what) or []):
                at = (what, k)
                if patch["id"] in table.woods or patch["id"] in table.blocks:
                    raise FigureError(f"two areas of the map have the id '{patch['id']}'",
                                      at + ("id",))
                corners = [table.point(patch[e], at + (e,)) for e in ("from", "to")]
                into[patch["id"]] = Rect.of(*corners)
        return table

    def point(self, data: Any, path: tuple = ()) -> Point:
        """A point of the table; one off the table is a :class:`FigureError`."""
        p = Point.of(data, path)
        if p.x > self.width or p.y > self.depth:
            raise FigureError(f"{p} is off the table ({self.width} by {self.depth} inches)", path)
        return p

    def sight(self, a: Point, b: Point) -> str | None:
        """The block that stops the line of sight from ``a`` to ``b`` (the first by id),
        or None when the line is clear; a block holding either end does not stop it.

        >>> t = Table.from_data({"inches": [20, 20], "blocks": [{"id": "barn", "from": [5, 5],
        ...     "to": [7, 7]}]})
        >>> t.sight(Point.of([0, 0]), Point.of([10, 10])), t.sight(Point.of([0, 0]), Point.of([10, 0]))
        ('barn', None)
        >>> t.sight(Point.of([6, 6]), Point.of([10, 10]))
        """
        for name, r in sorted(self.blocks.items()):
            if not r.contains(a) and not r.contains(b) and crosses(a, b, r):
                return name
        return None

    def woods_at(self, p: Point) -> str | None:
        """The patch of woods ``p`` is in (the first by id, where patches overlap), or None."""
        return next((w for w, r in sorted(self.woods.items()) if r.contains(p)), None)


def teams_of(table: Table, data: Any) -> dict[str, Figure]:
    """Every figure of a scenario's ``teams``, by id, placed on ``table``.

    >>> t = Table.from_data({"inches": [10, 10]})
    >>> teams_of(t, [{"id": "a", "side": "US", "figures": []}])
    Traceback (most recent call last):
    harmony.games.combatpatrol.figures.FigureError: team 'a' has no figure: a team has at least one
    >>> sorted(teams_of(t, [{"id": "a", "side": "US", "figures": [{"id": "f", "at": [1, 1]}]}]))
    ['f']
    """
    figures: dict[str, Figure] = {}
    seen_teams: set[str] = set()
    for i, team in enumerate(data or []):
        if team["id"] in seen_teams:
            raise FigureError(f"two teams have the id '{team['id']}'", (i, "id"))
        seen_teams.add(team["id"])
        if not team.get("figures"):
            raise FigureError(f"team '{team['id']}' has no figure: a team has at least one",
                              (i, "figures"))
        for j, f in enumerate(team["figures"]):
            at = (i, "figures", j)
            if f["id"] in figures or f["id"] in seen_teams:
                raise FigureError(f"two figures (or a team and a figure) have the id '{f['id']}'",
                                  at + ("id",))
            guts = f.get("guts", "regular")
            kind = f.get("kind", "infantry")
            if guts not in GUTS:
                raise FigureError(f"'{guts}' is not a Guts rating; they are: {', '.join(GUTS)}",
                                  at + ("guts",))
            if kind not in KINDS:
                raise FigureError(f"'{kind}' is not a kind of figure; they are: {', '.join(KINDS)}",
                                  at + ("kind",))
            sees_as = f.get("sees-as")
            if sees_as is None and kind == "vehicle":
                raise FigureError(f"vehicle '{f['id']}' needs 'sees-as': the row of Table 8 its "
                                  "crew spots as (mounted: unbuttoned, or buttoned)", at)
            figures[f["id"]] = Figure(f["id"], team["id"], team["side"],
                                      table.point(f["at"], at + ("at",)), kind, guts,
                                      f.get("vision", "naked-eye"), bool(f.get("night-trained")),
                                      team.get("platoon", team["id"]), sees_as or "dismounted")
    return figures

"""Night fighting (Combat Patrol WWII optional rules, section 7.11): who is seen, who may
be fired at, and whose Guts drop.

Every limit is read from a clause parameter through a :class:`~harmony.rulings.Why`
(the woods distance, the backlit multiple, the muzzle flash shifts, the Guts levels
lost) or from the booklet's tables through the calculator (Table 6's sighting
distance, Table 7's lit areas), so each ruling names the clauses that decided it.
What the optional rules leave to the core rules is given by the scenario: the radius
of a flare's HE template, the corners of a searchlight's 3-Shot template as laid,
and which light stands behind a target as seen from the spotter.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from harmony.ruleset import Ruleset
from harmony.rulings import Ruling, Why

from .calculator import CombatPatrol
from .figures import GUTS, Figure, FigureError, Point, Rect, Table, in_triangle, inches, within

#: the parameters the night rules read (all set by the CP clauses of section 7.11)
PARAMETERS = ("cp.night-visibility", "cp.night-woods-inches", "cp.backlit-multiple",
              "cp.searchlight-cone", "cp.flash-shifts", "cp.night-guts-drop")
#: the light of the optional rules that Table 7 has no row for (7.11.4)
SEARCHLIGHT = "searchlight"
#: the Table 7 row that lights a burning area and a band around it
LARGE_FIRE = "large-fire"


class NightError(ValueError):
    """A night question the rules cannot answer, naming the clause that refuses it (if any)."""

    def __init__(self, message: str, clause: str | None = None):
        super().__init__(message)
        self.clause = clause


@dataclass(frozen=True)
class Light:
    """A source of light on the table: a Table 7 row at a point (with its HE template's
    radius, a core rule given by the scenario), a large fire over a burning area, or a
    searchlight's cone."""

    id: str
    kind: str
    at: Point | None = None
    template_radius: Fraction | None = None
    area: Rect | None = None
    cone: tuple[Point, Point, Point] | None = None

    @classmethod
    def of(cls, cp: CombatPatrol, table: Table, data: dict) -> "Light":
        """A light from a scenario's data, its shape checked against its kind.

        >>> from harmony.loader import load
        >>> from harmony.usage import default_rules_data
        >>> cp, t = CombatPatrol(load(default_rules_data())[0]), Table.from_data({"inches": [20, 20]})
        >>> Light.of(cp, t, {"id": "f", "kind": "small-flare", "at": [5, 5], "template-radius": 1}).kind
        'small-flare'
        >>> Light.of(cp, t, {"id": "f", "kind": "small-flare", "at": [5, 5]})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        harmony.games.combatpatrol.figures.FigureError: light 'f' (small-flare) needs 'template-radius': ...
        >>> Light.of(cp, t, {"id": "f", "kind": "sun", "at": [5, 5]})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        harmony.games.combatpatrol.figures.FigureError: 'sun' is not a light: Table 7 has point-light, ...
        """
        lid, kind = data["id"], data["kind"]
        rows = cp.table("7").row_ids()
        if kind not in rows and kind != SEARCHLIGHT:
            raise FigureError(f"'{kind}' is not a light: Table 7 has {', '.join(rows)}; or "
                              f"{SEARCHLIGHT}", ("kind",))

        def need(key: str, what: str) -> Any:
            if key not in data:
                raise FigureError(f"light '{lid}' ({kind}) needs '{key}': {what}", ())
            return data[key]
        if kind == SEARCHLIGHT:
            cone = need("cone", "the three corners of the 3-Shot template as laid (core Figure 3-7)")
            corners = tuple(table.point(c, ("cone", k)) for k, c in enumerate(cone))
            return cls(lid, kind, cone=(corners[0], corners[1], corners[2]))
        if kind == LARGE_FIRE:
            a = table.point(need("from", "a corner of the burning area"), ("from",))
            b = table.point(need("to", "the opposite corner of the burning area"), ("to",))
            return cls(lid, kind, area=Rect.of(a, b))
        at = table.point(need("at", "where it is"), ("at",))
        r = inches(need("template-radius", "the radius of its HE template, a core rule the "
                        "scenario gives"), ("template-radius",))
        return cls(lid, kind, at=at, template_radius=r)


class Night:
    """The night rules of one ruleset, on one table, under one phase of the moon."""

    def __init__(self, rules: Ruleset, cp: CombatPatrol, table: Table, moon: str | None):
        self.rules, self.cp, self.table, self.moon = rules, cp, table, moon

    def _on(self, why: Why) -> None:
        """The night rules apply: the scenario is at night and the ruleset has them."""
        if not why.p("cp.night-visibility"):
            s = self.rules.setting("cp.night-visibility")
            raise NightError(f"ruleset {self.rules.name} does not play the night fighting rules "
                             "(7.11): switch on the option night-fighting", s.clause)
        if self.moon is None:
            raise NightError("the scenario is not at night (give night: {moon: ...}): by day "
                             "sight is the core rules' line of sight, outside section 7")

    def lit(self, light: Light, p: Point, why: Why, extra: set[str]) -> bool:
        """True when ``light`` lights point ``p`` (Table 7, or a searchlight's cone)."""
        if light.kind == SEARCHLIGHT:
            if not why.p("cp.searchlight-cone"):
                return False
            assert light.cone is not None
            return in_triangle(p, light.cone)
        if light.kind == LARGE_FIRE:
            r = self.cp.ruling("illumination", LARGE_FIRE)
            extra.update(r.reasons)
            assert light.area is not None
            return light.area.within(p, r.value[0].beyond)
        r = self.cp.ruling("lit_radius", light.kind, light.template_radius)
        extra.update(r.reasons)
        assert light.at is not None
        return within(light.at, p, r.value)

    def seen(self, spotter: Figure, target: Figure, lights: list[Light],
             backlit_by: Light | None = None) -> Ruling:
        """Whether ``spotter`` sees ``target`` at night (7.11.1, 7.11.3): within the sighting
        distance of Table 6 (three inches in place of it between two figures in one patch
        of woods), or lit by a light, or lit from behind within the backlit multiple of
        that distance."""
        why, extra = Why(self.rules), set()
        self._on(why)
        distance = self.cp.ruling("night_distance", spotter.vision, self.moon)
        extra.update(distance.reasons)
        limit: Fraction | int = distance.value
        woods = self.table.woods_at(spotter.at)
        detail = f"the sighting distance of {limit} inches"
        if woods is not None and woods == self.table.woods_at(target.at) \
                and why.p("cp.night-woods-inches"):
            limit = why.p("cp.night-woods-inches")
            detail = f"the {limit} inches between figures in woods '{woods}'"
        if within(spotter.at, target.at, limit):
            return _ruling(why, extra, True, f"within {detail}")
        for light in sorted(lights, key=lambda x: x.id):
            if self.lit(light, target.at, why, extra):
                return _ruling(why, extra, True, f"in the area lit by {light.id}")
        if backlit_by is not None:
            times = why.p("cp.backlit-multiple")
            if within(spotter.at, target.at, times * distance.value):
                return _ruling(why, extra, True, f"lit from behind by {backlit_by.id}, within "
                               f"{times} times the sighting distance")
        return _ruling(why, extra, False, f"beyond {detail}, in no lit area")

    def shifts(self, firer: Figure, target: Figure, lights: list[Light],
               flashes: dict[str, Point], backlit_by: Light | None = None) -> Ruling:
        """The shifts to the right a night shot at ``target`` takes: none when it is seen
        (7.11.1), the muzzle flash shifts when it is unseen but stands where it fired
        (7.11.5), else None: it may not be fired at."""
        sight = self.seen(firer, target, lights, backlit_by)
        if sight.value:
            return Ruling(0, sight.reasons, sight.settings, sight.detail + ": no shift")
        why, extra = Why(self.rules), set(sight.reasons)
        why.add(sight)
        n = why.p("cp.flash-shifts")
        if flashes.get(target.id) == target.at:
            return _ruling(why, extra, n, "unseen, at the muzzle flash it made")
        return _ruling(why, extra, None, "unseen and no muzzle flash marks it: no shot")

    def guts(self, figure: Figure) -> Ruling:
        """A figure's Guts at night (7.11.6): lowered by the clause's levels unless the
        scenario names it trained for night fighting; Green stays Green."""
        why = Why(self.rules)
        s = self.rules.setting("cp.night-guts-drop")
        if s.origin not in ("own", "base"):
            raise NightError(f"ruleset {self.rules.name} does not play the night fighting rules "
                             "(7.11): switch on the option night-fighting", s.clause)
        if self.moon is None:
            raise NightError("the scenario is not at night (give night: {moon: ...}): Guts "
                             "are lowered only at night")
        drop = why.p("cp.night-guts-drop")
        if figure.night_trained:
            return why.ruling(figure.guts, "trained for night fighting")
        k = min(GUTS.index(figure.guts) + drop, len(GUTS) - 1)
        return why.ruling(GUTS[k], f"{figure.guts} lowered {drop} level(s)")


def _ruling(why: Why, extra: set[str], value: Any, detail: str) -> Ruling:
    return Ruling(value, sorted(set(why.reasons) | extra), dict(why.settings), detail)

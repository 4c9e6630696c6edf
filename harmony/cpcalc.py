"""The Combat Patrol calculator: exact answers from Tables 5 to 10 and clause parameters.

Everything it knows it reads from the loaded model's tables of
``rules_data/combat-patrol-tables.yaml`` (by source and number), except the
two numbers of the body armour check that no table holds: the ten-sided die
of an action card and the roll of 10 that keeps a hit's full effect (7.9.1),
kept here as :data:`DIE_FACES` and :data:`FULL_EFFECT_ROLL`. (A clause
parameter would make CP a ruleset the PanzerBlitz engine plays, which it is
not.) Chances are :class:`fractions.Fraction`, never floats.

>>> from pathlib import Path
>>> from harmony.loader import load
>>> cp = CombatPatrol(load(Path(__file__).parents[1] / "rules_data")[0])
>>> cp.penetration_chance(1, 5)          # a rifle against class V armour
Fraction(3, 5)
>>> cp.penetration_checks(2, 3), cp.penetration_checks(3, 4), cp.penetration_checks(5, 1)
(1, 2, 1)
>>> cp.night_distance("naked-eye", "no-moon"), cp.night_distance("second-generation", "no-moon")
(6, 12)
>>> cp.spotting_bands("dismounted", night=("naked-eye", "full-moon"))
Bands(short=6, medium=12, long=24)
>>> cp.spotting_bands("buttoned", night=("naked-eye", "full-moon"))
Bands(short=5, medium=10, long=20)
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, NamedTuple

from .model import Model, Table

SOURCE = "CP"
#: The ten-sided die icon of an action card, read for a body armour check (7.9.1).
DIE_FACES = 10
#: The die result that keeps a penetrating hit's full effect through body armour (7.9.1).
FULL_EFFECT_ROLL = 10
#: A hit's effects on a figure, mildest first (the core game's outcomes); body armour
#: steps a penetrating hit one place down this scale.
EFFECTS = ("stunned", "wounded", "incapacitated")


class Bands(NamedTuple):
    short: Any
    medium: Any
    long: Any


class Radius(NamedTuple):
    """A lit area: ``multiplier`` times the radius of an HE ``template``, or a large fire's
    burning area plus ``beyond`` inches."""

    template: str | None
    multiplier: int | None
    beyond: int | None


class Duration(NamedTuple):
    reshuffles: int | None
    until: str | None


class CombatPatrol:
    """Tables 5 to 10 of one loaded model."""

    def __init__(self, model: Model):
        self.model = model

    def table(self, number: str) -> Table:
        t = self.model.table(SOURCE, str(number))
        if t is None:
            raise LookupError(f"the rules define no {SOURCE} Table {number}")
        return t

    # ------------------------------------------------------------ armour (7.5, 7.9)
    def penetration_chance(self, penetration: int, protection: int) -> Fraction:
        """The chance that penetration plus the die beats the protection (body armour class).

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[1] / "rules_data")[0])
        >>> cp.penetration_chance(1, 10), cp.penetration_chance(3, 2), cp.penetration_chance(0, 1)
        (Fraction(1, 10), Fraction(1, 1), Fraction(9, 10))
        """
        wins = sum(1 for d in range(1, DIE_FACES + 1) if penetration + d > protection)
        return Fraction(wins, DIE_FACES)

    def armour_effect(self, effect: str, die: int, penetration: int, protection: int) -> str | None:
        """What a hit does through body armour on this die: None when the armour stops it
        (the wearer is then stunned), the effect itself on the full-effect roll, else one step
        milder (a stun stays a stun).

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[1] / "rules_data")[0])
        >>> [cp.armour_effect("incapacitated", d, 1, 5) for d in (4, 5, 9, 10)]
        [None, 'wounded', 'wounded', 'incapacitated']
        """
        if penetration + die <= protection:
            return None
        if die == FULL_EFFECT_ROLL:
            return effect
        return EFFECTS[max(0, EFFECTS.index(effect) - 1)]

    def penetration_band(self, penetration: int) -> dict:
        """The row of Table 5 for a weapon's penetration value."""
        t = self.table("5")
        for row in t.rows:
            lo, hi = row["penetration"]["min"], row["penetration"]["max"]
            if (lo is None or penetration >= lo) and (hi is None or penetration <= hi):
                return row
        raise LookupError(f"Table 5 has no row for penetration {penetration}")

    def penetration_checks(self, penetration: int, hits: int, figure_1_1: bool = True) -> int:
        """Penetration checks earned by ``hits`` in one activation (Method 1): one per full
        set of the hits Table 5's row asks of a core Figure 1-1 weapon, else one per hit.

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[1] / "rules_data")[0])
        >>> [cp.penetration_checks(3, h) for h in range(5)], cp.penetration_checks(2, 3, False)
        ([0, 0, 1, 1, 2], 3)
        """
        need = self.penetration_band(penetration).get("hits-per-check")
        return hits // need if (need and figure_1_1) else hits

    # ------------------------------------------------------------ night (7.11)
    def night_distance(self, vision: str, moon: str) -> int:
        """Table 6: how far a figure sees at night, in inches."""
        return self.table("6").value(vision, moon)

    def illumination(self, light: str) -> tuple[Radius, Duration]:
        """Table 7: the lit area and how long it lasts.

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[1] / "rules_data")[0])
        >>> cp.illumination("medium-flare")
        (Radius(template='medium', multiplier=3, beyond=None), Duration(reshuffles=2, until=None))
        >>> cp.illumination("large-fire")[0]
        Radius(template=None, multiplier=None, beyond=8)
        """
        row = self.table("7").row(light)
        return (Radius(row.get("template"), row.get("multiplier"), row.get("beyond-fire")),
                Duration(row.get("reshuffles"), row.get("until")))

    def lit_radius(self, light: str, template_radius: Fraction | int) -> Fraction:
        """The radius of the area a flare or point light lights, given the radius of its HE
        template (a core rule, not in section 7), in the same unit."""
        radius, _ = self.illumination(light)
        if radius.multiplier is None:
            raise ValueError(f"{light} lights an area around a fire, not a template multiple")
        return Fraction(template_radius) * radius.multiplier

    # ------------------------------------------------------------ spotting (7.12)
    def spotting_bands(self, spotter: str, night: tuple[str, str] | None = None) -> Bands:
        """The short, medium and long bands of Table 8; at night (``(vision, moon)``) each is
        the shorter of that and the night distance's band (long, a half, a quarter).

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[1] / "rules_data")[0])
        >>> cp.spotting_bands("dismounted"), cp.spotting_bands("buttoned", ("naked-eye", "no-moon"))
        (Bands(short=20, medium=40, long=80), Bands(short=Fraction(3, 2), medium=3, long=6))
        """
        t = self.table("8")
        day = Bands(*(t.value(spotter, c) for c in Bands._fields))
        if night is None:
            return day
        d = Fraction(self.night_distance(*night))
        dark = Bands(d / 4, d / 2, d)
        return Bands(*(_num(min(a, b)) for a, b in zip(day, dark)))

    def band_of(self, spotter: str, distance, night: tuple[str, str] | None = None) -> str | None:
        """Which band a target area at ``distance`` inches is in, or None beyond long."""
        bands = self.spotting_bands(spotter, night)
        return next((name for name, edge in zip(Bands._fields, bands) if distance <= edge), None)

    def automatically_spotted(self, target: str, situation: str, light: str = "day",
                              within_night_distance: bool = True,
                              spotter: str = "infantry-or-anti-tank-gun") -> bool | None:
        """Table 9, given line of sight: True when spotted with no check, False when the table
        says not, None when no row applies (a spotting attempt decides).

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[1] / "rules_data")[0])
        >>> cp.automatically_spotted("vehicle", "moving-in-concealment")
        True
        >>> cp.automatically_spotted("vehicle", "moving-in-concealment", spotter="vehicle")
        >>> cp.automatically_spotted("personnel", "in-open", "night", within_night_distance=False)
        >>> cp.automatically_spotted("personnel", "moving-in-concealment")
        False
        """
        for row in self.table("9").rows:
            if row["target"] not in ("any", target) or row["situation"] != situation:
                continue
            if row["light"] not in ("any", light):
                continue
            if row["range"] == "within-night-sighting" and not within_night_distance:
                continue
            if row["spotter"] not in ("any", spotter):
                continue
            return row["spotted"]
        return None

    def spotting_shifts(self, band: str, infantry_or_gun: bool) -> int:
        """Table 10: shifts to the right on the hit indicator for a spotting attempt.

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[1] / "rules_data")[0])
        >>> [cp.spotting_shifts(b, False) for b in ("short", "medium", "long")]
        [0, 1, 2]
        >>> cp.spotting_shifts("long", True)
        3
        """
        t = self.table("10")
        ids = t.row_ids()
        total = t.value(f"{band}-range", "shifts") if f"{band}-range" in ids else 0
        return total + (t.value("infantry-or-gun", "shifts") if infantry_or_gun else 0)


def _num(value: Fraction) -> Fraction | int:
    """A whole fraction as an int, so bands print as the booklet writes them."""
    return int(value) if value.denominator == 1 else value

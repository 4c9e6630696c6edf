"""The Combat Patrol calculator: exact answers from Tables 5 to 10 and clause parameters.

Everything it knows it reads from the loaded model's tables of
``rules_data/combat-patrol-tables.yaml``: Tables 5 to 10 by their booklet number,
and by id the tables the booklet states in a section's prose (they have no number):
the body armour die and the results it softens (7.9.1, :data:`ARMOUR_DIE`), the
places counted beyond a soft-skinned vehicle's capacity (7.7,
:data:`SOFT_SKINNED`) and the die rolls that hit a rider's horse (7.10.2,
:data:`HORSE`). A ten-sided die icon's faces are the span of a table's ``die``
ranges, so no rule number is kept here. (A clause parameter would make CP a
ruleset the PanzerBlitz engine plays, which it is not.) Chances are
:class:`fractions.Fraction`, never floats.

>>> from pathlib import Path
>>> from harmony.loader import load
>>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
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

Every answer can also come as a :class:`~harmony.rulings.Ruling` naming the clauses
that decide it: :data:`READS` says which table or section each answer reads, and the
clauses are those whose CP cells cite that place (see :meth:`CombatPatrol.ruling`).

>>> cp.ruling("penetration_chance", 1, 5)
Ruling(value=Fraction(3, 5), reasons=['cp-body-armour.penetration'])
"""
from __future__ import annotations

import inspect
from fractions import Fraction
from typing import Any, NamedTuple

from harmony.model import Clause, Model, Table
from harmony.rulings import Ruling

SOURCE = "CP"
#: The table (7.9.1) of what a penetrating round does through body armour, by the
#: penetration die: its ``die`` ranges span the die's faces; a column per hit result
#: says what that result becomes (a result with no column is not softened).
ARMOUR_DIE = "cp-body-armour-die"
#: The table (7.7) of the places of Figure 7-1 counted beyond a soft-skinned vehicle's
#: troop capacity.
SOFT_SKINNED = "cp-soft-skinned-count"
#: The table (7.10.2) of which of horse and rider a hit on a mounted figure strikes, by die.
HORSE = "cp-horse-or-rider"


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


class Place(NamedTuple):
    """A place of the CP booklet an answer reads: a section and/or a table, as the clause
    cells cite them, narrowed to one clause ``aspect`` when several clauses cite it but
    only that one decides the answer (the others merely use the table)."""

    section: str | None = None
    table: str | None = None
    aspect: str | None = None

    def decided_by(self, clause: Clause) -> bool:
        """True when a CP cell of ``clause`` cites this place (and the aspect matches).

        >>> from harmony.model import Cell, Citation
        >>> c = Clause(id="x.y", aspect="y", cells={"CP": Cell(
        ...     cites=[Citation(source="CP", section="7.5", table="5")])})
        >>> Place(table="5").decided_by(c), Place(table="5", aspect="z").decided_by(c)
        (True, False)
        >>> Place(section="7.5.1").decided_by(c)
        False
        """
        if self.aspect is not None and clause.aspect != self.aspect:
            return False
        return any(c.source == SOURCE
                   and (self.section is None or c.section == self.section)
                   and (self.table is None or c.table == self.table)
                   for cell in clause.cells.values() for c in cell.cites)


#: What each answer of :class:`CombatPatrol` reads; the clauses citing these places
#: are its reasons. The one table to edit when a method starts reading something new.
READS: dict[str, tuple[Place, ...]] = {
    "penetration_chance": (Place(section="7.9.1", aspect="penetration"),),
    "armour_effect": (Place(section="7.9.1", aspect="penetration"),
                      Place(section="7.9.1", aspect="reduced-effect")),
    "penetration_band": (Place(table="5", aspect="low-penetration"),
                         Place(table="5", aspect="mid-penetration"),
                         Place(table="5", aspect="high-penetration")),
    "penetration_effect": (Place(table="5", aspect="low-penetration"),
                           Place(table="5", aspect="mid-penetration"),
                           Place(table="5", aspect="high-penetration")),
    "penetration_checks": (Place(table="5", aspect="hits-per-check"),),
    "night_distance": (Place(table="6", aspect="night-sighting"),),
    "illumination": (Place(table="7"),),
    "lit_radius": (Place(table="7", aspect="illumination"),),
    "spotting_bands": (Place(table="8", aspect="range-bands"),),
    "band_of": (Place(table="8", aspect="range-bands"),),
    "automatically_spotted": (Place(table="9"),),
    "spotting_shifts": (Place(table="10"),),
    "soft_skinned_places": (Place(section="7.7", aspect="soft-skinned"),),
    "soft_skinned_place": (Place(section="7.7", aspect="soft-skinned"),),
    "horse_hit_chance": (Place(section="7.10.2", aspect="shot-at"),),
    "horse_or_rider": (Place(section="7.10.2", aspect="shot-at"),),
}
#: What an answer given a ``night`` (vision, moon) reads besides: Table 6 and the
#: rule that makes night bands from it (7.12.1).
NIGHT_READS = (Place(table="6", aspect="night-sighting"),
               Place(table="8", aspect="night-bands"))


class TableError(ValueError):
    """An input the Combat Patrol tables do not have. The message names the table as the
    booklet does (``Table 9``, or the section that states a table it gives no number) and
    what the table has, so a caller sees at once what to ask instead.

    Names are matched exactly, case and all: the tables' ids are lower case, and
    ``'Long'`` is refused rather than taken for ``'long'`` (a guess could hide a typo that
    meant something else). Counts and distances are whole numbers (a distance may also be
    a :class:`~fractions.Fraction`) of 0 or more; a bool is not a number here, and a
    float is refused as the calculator is exact.

    >>> raise TableError("'Long' is not a range band of Table 8; it has: short, medium, long")
    Traceback (most recent call last):
    harmony.games.combatpatrol.calculator.TableError: 'Long' is not a range band of Table 8; it has: short, medium, long
    """


def table_name(t: Table) -> str:
    """A table as the booklet names it: its number, or the section that states it.

    >>> from harmony.model import Citation
    >>> table_name(Table(number="9")), table_name(Table(cite=Citation(source="CP", section="7.10.2")))
    ('Table 9', 'the table of section 7.10.2')
    """
    if t.number or t.cite is None or not t.cite.section:
        return t.label
    return f"the table of section {t.cite.section}"


def one_of(value: Any, has: list[str], what: str, t: Table) -> str:
    """``value`` when it is one of ``has`` exactly, else :class:`TableError`.

    >>> one_of("Long", ["short", "medium", "long"], "a range band", Table(number="8"))
    Traceback (most recent call last):
    harmony.games.combatpatrol.calculator.TableError: 'Long' is not a range band of Table 8; it has: short, medium, long
    """
    if not isinstance(value, str) or value not in has:
        raise TableError(f"{value!r} is not {what} of {table_name(t)}; it has: {', '.join(has)}")
    return value


def whole(value: Any, what: str, t: Table, least: int = 0) -> int:
    """``value`` when it is a whole number of ``least`` or more, else :class:`TableError`.

    >>> whole(-2, "a number of hits", Table(number="5"))
    Traceback (most recent call last):
    harmony.games.combatpatrol.calculator.TableError: -2 is not a number of hits for Table 5; it takes a whole number of 0 or more
    >>> whole(True, "a number of hits", Table(number="5"))
    Traceback (most recent call last):
    harmony.games.combatpatrol.calculator.TableError: True is not a number of hits for Table 5; it takes a whole number of 0 or more
    """
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise TableError(f"{value!r} is not {what} for {table_name(t)}; it takes a whole number "
                         f"of {least} or more")
    return value


def length(value: Any, what: str, t: Table) -> Fraction | int:
    """``value`` when it is a length of 0 or more (a whole number or a Fraction of inches).

    >>> length(2.5, "a distance", Table(number="8"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    harmony.games.combatpatrol.calculator.TableError: 2.5 is not a distance for Table 8; it takes inches of 0 or more, a whole number ...
    """
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)) or value < 0:
        raise TableError(f"{value!r} is not {what} for {table_name(t)}; it takes inches of 0 or "
                         "more, a whole number or a Fraction")
    return value


def yes_no(value: Any, what: str, t: Table) -> bool:
    """``value`` when it is True or False (not 1, not ``'yes'``), else :class:`TableError`.

    >>> yes_no(1, "whether the enemy is infantry or a gun", Table(number="10"))
    Traceback (most recent call last):
    harmony.games.combatpatrol.calculator.TableError: 1 is not whether the enemy is infantry or a gun for Table 10; it takes True or False
    """
    if not isinstance(value, bool):
        raise TableError(f"{value!r} is not {what} for {table_name(t)}; it takes True or False")
    return value


def _values(t: Table, column: str) -> list[str]:
    """The values of an enum column, in the table's order, without ``any`` (a wildcard of
    the rows, not something to ask for)."""
    col = t.column(column)
    return [v for v in (col.values if col is not None and col.values else []) if v != "any"]


class CombatPatrol:
    """Tables 5 to 10 of one loaded model.

    Every answer checks its inputs against the tables it reads: a name a table does not
    have, a negative count or distance, or a number where a name belongs is a
    :class:`TableError` naming the table and what it has, never a quiet default.
    """

    def __init__(self, model: Model):
        self.model = model

    def table(self, number: str) -> Table:
        """A numbered table of the booklet (Tables 5 to 10).

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
        >>> cp.table("9").title
        'When figures or vehicles are spotted automatically'
        >>> cp.table("11")
        Traceback (most recent call last):
        LookupError: the rules define no CP Table 11
        """
        t = self.model.table(SOURCE, str(number))
        if t is None:
            raise LookupError(f"the rules define no {SOURCE} Table {number}")
        return t

    def stated(self, table_id: str) -> Table:
        """A table the booklet states in a section's prose, by its id.

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
        >>> cp.stated(HORSE).cite.section
        '7.10.2'
        >>> cp.stated("cp-morale")
        Traceback (most recent call last):
        LookupError: the rules define no CP table 'cp-morale'
        """
        t = self.model.tables.get(table_id) if isinstance(table_id, str) else None
        if t is None or t.source != SOURCE:
            raise LookupError(f"the rules define no {SOURCE} table {table_id!r}")
        return t

    def faces(self, table_id: str) -> range:
        """The faces of the ten-sided die icon a table reads: the span of its ``die`` ranges.

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
        >>> cp.faces(HORSE), cp.faces(ARMOUR_DIE)
        (range(1, 11), range(1, 11))
        >>> cp.faces("cp-spotting-bands")
        Traceback (most recent call last):
        LookupError: table 'cp-spotting-bands' needs closed die ranges in every row
        """
        t = self.stated(table_id)
        ends = [(r["die"].get("min"), r["die"].get("max")) for r in t.rows
                if isinstance(r.get("die"), dict)]
        if not ends or any(lo is None or hi is None for lo, hi in ends):
            raise LookupError(f"table {table_id!r} needs closed die ranges in every row")
        return range(min(lo for lo, _ in ends), max(hi for _, hi in ends) + 1)

    def die_row(self, table_id: str, die: int) -> tuple[str, dict]:
        """The row (its id, its cells) of a table whose ``die`` range holds ``die``.

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
        >>> cp.die_row(ARMOUR_DIE, 10)[0], cp.die_row(ARMOUR_DIE, 9)[0]
        ('full-effect', 'reduced')
        >>> cp.die_row(HORSE, 0)
        Traceback (most recent call last):
        harmony.games.combatpatrol.calculator.TableError: 0 is not a face of the die icon of the table of section 7.10.2; it has: 1 to 10
        """
        faces = self.faces(table_id)
        t = self.stated(table_id)
        if not isinstance(die, int) or isinstance(die, bool) or die not in faces:
            raise TableError(f"{die!r} is not a face of the die icon of {table_name(t)}; it has: "
                             f"{faces[0]} to {faces[-1]}")
        for row_id, row in zip(t.row_ids(), t.rows):
            span = row.get("die")
            if isinstance(span, dict) and span["min"] <= die <= span["max"]:
                return row_id, row
        raise LookupError(f"table {table_id!r} has no row for a die of {die}")

    def reasons(self, places: tuple[Place, ...]) -> list[str]:
        """The ids of the clauses deciding ``places``, sorted; a place no clause cites is an
        error (READS and the rules data disagree), never an empty reason.

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
        >>> cp.reasons((Place(table="10"),))
        ['alternate-spotting.modifiers']
        >>> cp.reasons((Place(table="11"),))
        Traceback (most recent call last):
        LookupError: no CP clause cites table 11
        """
        found: set[str] = set()
        # each place's clauses, found once per model: every ruling of every scenario asks
        # (scanning every clause each time grew with clauses times rulings)
        known = self.model.__dict__.setdefault("_cp_places", {})
        for place in places:
            ids = known.get(place)
            if ids is None:
                ids = known[place] = {c.id for c in self.model.clauses.values() if place.decided_by(c)}
            if not ids:
                where = ", ".join(f"{k} {v}" for k, v in place._asdict().items() if v)
                raise LookupError(f"no {SOURCE} clause cites {where}")
            found |= ids
        return sorted(found)

    def ruling(self, name: str, *args: Any, **kwargs: Any) -> Ruling:
        """The answer of method ``name`` as a Ruling whose reasons are the clauses that
        decide it (:data:`READS`, plus :data:`NIGHT_READS` when given a ``night``). Its
        inputs are checked as the method checks them.

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
        >>> cp.ruling("spotting_bands", "buttoned")
        Ruling(value=Bands(short=5, medium=10, long=20), reasons=['alternate-spotting.range-bands'])
        >>> dark = cp.ruling("band_of", "dismounted", 7, night=("naked-eye", "full-moon"))
        >>> dark.value
        'medium'
        >>> print(*dark.reasons, sep="\\n")
        alternate-spotting.night-bands
        alternate-spotting.night-sighting
        alternate-spotting.range-bands
        >>> cp.ruling("table", "5")
        Traceback (most recent call last):
        LookupError: the CP calculator gives no ruling for 'table'
        >>> cp.ruling("spotting_shifts", "extreme", False)
        Traceback (most recent call last):
        harmony.games.combatpatrol.calculator.TableError: 'extreme' is not a range band of Table 8; it has: short, medium, long
        """
        if not isinstance(name, str) or name not in READS:
            raise LookupError(f"the {SOURCE} calculator gives no ruling for {name!r}")
        method = getattr(self, name)
        places = READS[name]
        if inspect.signature(method).bind(*args, **kwargs).arguments.get("night") is not None:
            places += NIGHT_READS
        value = method(*args, **kwargs)
        return Ruling(value, self.reasons(places))

    # ------------------------------------------------------------ armour (7.5, 7.9)
    def penetration_chance(self, penetration: int, protection: int) -> Fraction:
        """The chance that penetration plus the die beats the protection (body armour class).

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
        >>> cp.penetration_chance(1, 10), cp.penetration_chance(3, 2), cp.penetration_chance(0, 1)
        (Fraction(1, 10), Fraction(1, 1), Fraction(9, 10))
        >>> cp.penetration_chance(1, -5)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        harmony.games.combatpatrol.calculator.TableError: -5 is not a protection value for the table of section 7.9.1; it takes a ...
        """
        t = self.stated(ARMOUR_DIE)
        whole(penetration, "a penetration value", t)
        whole(protection, "a protection value", t)
        faces = self.faces(ARMOUR_DIE)
        return Fraction(sum(1 for d in faces if penetration + d > protection), len(faces))

    def armour_effect(self, effect: str, die: int, penetration: int, protection: int) -> str | None:
        """What a hit does through body armour on this die: None when the armour stops it
        (the wearer is then stunned), else what the body armour table's row for the die
        makes of the effect (a result it has no column for, a stun, stays as it is).

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
        >>> [cp.armour_effect("incapacitated", d, 1, 5) for d in (4, 5, 9, 10)]
        [None, 'wounded', 'wounded', 'incapacitated']
        >>> cp.armour_effect("killed", 7, 1, 5)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        harmony.games.combatpatrol.calculator.TableError: 'killed' is not a hit's effect of the table of section 7.9.1; it has: ...
        """
        t = self.stated(ARMOUR_DIE)
        known = sorted({v for c in t.columns if c.type == "enum" for v in c.values or []})
        one_of(effect, known, "a hit's effect", t)
        _, row = self.die_row(ARMOUR_DIE, die)
        whole(penetration, "a penetration value", t)
        whole(protection, "a protection value", t)
        if penetration + die <= protection:
            return None
        return row[effect] if t.column(effect) is not None else effect

    def penetration_band(self, penetration: int) -> dict:
        """The row of Table 5 for a weapon's penetration value (a whole number of 0 or more:
        the table's first row is open below, but no weapon has less than none).

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
        >>> cp.penetration_band(0)["band"], cp.penetration_band(12)["band"]
        ('low', 'high')
        >>> cp.penetration_band("4")
        Traceback (most recent call last):
        harmony.games.combatpatrol.calculator.TableError: '4' is not a penetration value for Table 5; it takes a whole number of 0 or more
        """
        t = self.table("5")
        whole(penetration, "a penetration value", t)
        for row in t.rows:
            lo, hi = row["penetration"]["min"], row["penetration"]["max"]
            if (lo is None or penetration >= lo) and (hi is None or penetration <= hi):
                return row
        raise LookupError(f"Table 5 has no row for penetration {penetration}")

    def penetration_effect(self, penetration: int) -> str:
        """The kind of effect Table 5 gives a penetrating hit of this penetration value.

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
        >>> cp.penetration_effect(4)
        'small-icon-knocks-out'
        >>> cp.penetration_effect(-1)
        Traceback (most recent call last):
        harmony.games.combatpatrol.calculator.TableError: -1 is not a penetration value for Table 5; it takes a whole number of 0 or more
        """
        return self.penetration_band(penetration)["effect"]

    def penetration_checks(self, penetration: int, hits: int, figure_1_1: bool = True) -> int:
        """Penetration checks earned by ``hits`` in one activation (Method 1): one per full
        set of the hits Table 5's row asks of a core Figure 1-1 weapon, else one per hit.

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
        >>> [cp.penetration_checks(3, h) for h in range(5)], cp.penetration_checks(2, 3, False)
        ([0, 0, 1, 1, 2], 3)
        >>> cp.penetration_checks(3, -2)
        Traceback (most recent call last):
        harmony.games.combatpatrol.calculator.TableError: -2 is not a number of hits for Table 5; it takes a whole number of 0 or more
        """
        t = self.table("5")
        row = self.penetration_band(penetration)
        whole(hits, "a number of hits", t)
        yes_no(figure_1_1, "whether the weapon is a core Figure 1-1 weapon", t)
        need = row.get("hits-per-check")
        return hits // need if (need and figure_1_1) else hits

    # ------------------------------------------------------------ soft-skinned vehicles (7.7)
    def soft_skinned_places(self, capacity: int) -> int:
        """How many places of Figure 7-1 small-arms hits on a soft-skinned vehicle are spread
        over: its troop capacity plus the places :data:`SOFT_SKINNED` counts beyond it,
        however many ride in it.

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
        >>> cp.soft_skinned_places(4), cp.soft_skinned_places(0)
        (5, 1)
        >>> cp.soft_skinned_places(-1)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        harmony.games.combatpatrol.calculator.TableError: -1 is not a troop capacity for the table of section 7.7; it takes a whole ...
        """
        t = self.stated(SOFT_SKINNED)
        whole(capacity, "a troop capacity", t)
        return capacity + t.value("beyond-capacity", "places")

    def soft_skinned_place(self, capacity: int, hit: int) -> int:
        """The place (counted from 1) that the ``hit``-th hit lands on: the count starts over
        at the first place after the last.

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
        >>> [cp.soft_skinned_place(2, h) for h in range(1, 6)]
        [1, 2, 3, 1, 2]
        >>> cp.soft_skinned_place(2, 0)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        harmony.games.combatpatrol.calculator.TableError: 0 is not a hit, counted from 1, for the table of section 7.7; it takes a ...
        """
        whole(hit, "a hit, counted from 1,", self.stated(SOFT_SKINNED), least=1)
        return (hit - 1) % self.soft_skinned_places(capacity) + 1

    # ------------------------------------------------------------ cavalry (7.10)
    def horse_or_rider(self, die: int) -> str:
        """Which of the two a hit on a mounted figure strikes, by the card's ten-sided die icon:
        the row of :data:`HORSE` whose die range holds it.

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
        >>> cp.horse_or_rider(7), cp.horse_or_rider(8)
        ('horse', 'rider')
        >>> cp.horse_or_rider(11)
        Traceback (most recent call last):
        harmony.games.combatpatrol.calculator.TableError: 11 is not a face of the die icon of the table of section 7.10.2; it has: 1 to 10
        """
        return self.die_row(HORSE, die)[0]

    def horse_hit_chance(self) -> Fraction:
        """The chance that a hit on a mounted figure strikes the horse, exactly (it takes no
        input, so it refuses none).

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0]).horse_hit_chance()
        Fraction(7, 10)
        """
        faces = self.faces(HORSE)
        return Fraction(sum(1 for d in faces if self.horse_or_rider(d) == "horse"), len(faces))

    # ------------------------------------------------------------ night (7.11)
    def night_distance(self, vision: str, moon: str) -> int:
        """Table 6: how far a figure sees at night, in inches.

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
        >>> cp.night_distance("first-generation", "half-moon")
        18
        >>> cp.night_distance("naked-eye", "new-moon")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        harmony.games.combatpatrol.calculator.TableError: 'new-moon' is not a phase of the moon of Table 6; it has: no-moon, ...
        """
        t = self.table("6")
        one_of(vision, t.row_ids(), "a vision", t)
        one_of(moon, [c.id for c in t.columns if c.type != "key"], "a phase of the moon", t)
        return t.value(vision, moon)

    def illumination(self, light: str) -> tuple[Radius, Duration]:
        """Table 7: the lit area and how long it lasts.

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
        >>> cp.illumination("medium-flare")
        (Radius(template='medium', multiplier=3, beyond=None), Duration(reshuffles=2, until=None))
        >>> cp.illumination("large-fire")[0]
        Radius(template=None, multiplier=None, beyond=8)
        >>> cp.illumination("Medium-Flare")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        harmony.games.combatpatrol.calculator.TableError: 'Medium-Flare' is not a source of light of Table 7; it has: point-light, ...
        """
        t = self.table("7")
        row = t.row(one_of(light, t.row_ids(), "a source of light", t))
        return (Radius(row.get("template"), row.get("multiplier"), row.get("beyond-fire")),
                Duration(row.get("reshuffles"), row.get("until")))

    def lit_radius(self, light: str, template_radius: Fraction | int) -> Fraction:
        """The radius of the area a flare or point light lights, given the radius of its HE
        template (a core rule, not in section 7), in the same unit.

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
        >>> cp.lit_radius("small-flare", 2)
        Fraction(4, 1)
        >>> cp.lit_radius("large-fire", 2)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        harmony.games.combatpatrol.calculator.TableError: 'large-fire' is not a light of Table 7 that multiplies a template; it has: ...
        """
        t = self.table("7")
        radius, _ = self.illumination(light)
        if radius.multiplier is None:
            multiples = [r for r in t.row_ids() if t.value(r, "multiplier") is not None]
            raise TableError(f"{light!r} is not a light of {table_name(t)} that multiplies a "
                             f"template; it has: {', '.join(multiples)}")
        return Fraction(length(template_radius, "a template radius", t)) * radius.multiplier

    # ------------------------------------------------------------ spotting (7.12)
    def spotting_bands(self, spotter: str, night: tuple[str, str] | None = None) -> Bands:
        """The short, medium and long bands of Table 8; at night (``(vision, moon)``) each is
        the shorter of that and the night distance's band (long, a half, a quarter).

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
        >>> cp.spotting_bands("dismounted"), cp.spotting_bands("buttoned", ("naked-eye", "no-moon"))
        (Bands(short=20, medium=40, long=80), Bands(short=Fraction(3, 2), medium=3, long=6))
        >>> cp.spotting_bands("tank")
        Traceback (most recent call last):
        harmony.games.combatpatrol.calculator.TableError: 'tank' is not a spotter of Table 8; it has: dismounted, mounted, buttoned
        """
        t = self.table("8")
        one_of(spotter, t.row_ids(), "a spotter", t)
        day = Bands(*(t.value(spotter, c) for c in Bands._fields))
        if night is None:
            return day
        if not isinstance(night, tuple) or len(night) != 2:
            raise TableError(f"{night!r} is not a night of Table 6: give (vision, moon), such "
                             "as ('naked-eye', 'full-moon')")
        d = Fraction(self.night_distance(*night))
        dark = Bands(d / 4, d / 2, d)
        return Bands(*(_num(min(a, b)) for a, b in zip(day, dark)))

    def band_of(self, spotter: str, distance: Fraction | int,
                night: tuple[str, str] | None = None) -> str | None:
        """Which band a target area at ``distance`` inches is in, or None beyond long.

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
        >>> cp.band_of("mounted", 0), cp.band_of("mounted", Fraction(79, 2)), cp.band_of("mounted", 41)
        ('short', 'long', None)
        >>> cp.band_of("mounted", -5)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        harmony.games.combatpatrol.calculator.TableError: -5 is not a distance for Table 8; it takes inches of 0 or more, a whole ...
        """
        bands = self.spotting_bands(spotter, night)
        length(distance, "a distance", self.table("8"))
        return next((name for name, edge in zip(Bands._fields, bands) if distance <= edge), None)

    def automatically_spotted(self, target: str, situation: str, light: str = "day",
                              within_night_distance: bool = True,
                              spotter: str = "infantry-or-anti-tank-gun") -> bool | None:
        """Table 9, given line of sight: True when spotted with no check, False when the table
        says not, None when no row applies (a spotting attempt decides).

        ``target``, ``situation`` and ``light`` are values of the table's columns (its
        ``any`` is a wildcard of the rows, not an input); the ``spotter`` is the one kind the
        rows name (infantry or an anti-tank gun) or the one their words leave out (a
        vehicle).

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
        >>> cp.automatically_spotted("vehicle", "moving-in-concealment")
        True
        >>> cp.automatically_spotted("vehicle", "moving-in-concealment", spotter="vehicle")
        >>> cp.automatically_spotted("personnel", "in-open", "night", within_night_distance=False)
        >>> cp.automatically_spotted("personnel", "moving-in-concealment")
        False
        >>> cp.automatically_spotted("vehicle", "moving-in-concelment")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        harmony.games.combatpatrol.calculator.TableError: 'moving-in-concelment' is not a situation of Table 9; it has: in-open, ...
        """
        t = self.table("9")
        one_of(target, _values(t, "target"), "a target", t)
        one_of(situation, _values(t, "situation"), "a situation", t)
        one_of(light, _values(t, "light"), "a light", t)
        yes_no(within_night_distance, "whether the target is within the night sighting distance", t)
        # the rows name one kind of spotter, infantry or an anti-tank gun, and the words of
        # the vehicle-moving row the kind they leave out: a vehicle
        one_of(spotter, _values(t, "spotter") + ["vehicle"], "a spotter", t)
        for row in t.rows:
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
        """Table 10: shifts to the right on the hit indicator for a spotting attempt, by the
        range band of Table 8 (short range has no row: no shift) and whether the enemy in
        the target area is infantry or an unlimbered anti-tank gun.

        >>> from harmony.loader import load
        >>> from pathlib import Path
        >>> cp = CombatPatrol(load(Path(__file__).parents[3] / "rules_data")[0])
        >>> [cp.spotting_shifts(b, False) for b in ("short", "medium", "long")]
        [0, 1, 2]
        >>> cp.spotting_shifts("long", True)
        3
        >>> cp.spotting_shifts("Long", True)
        Traceback (most recent call last):
        harmony.games.combatpatrol.calculator.TableError: 'Long' is not a range band of Table 8; it has: short, medium, long
        """
        t = self.table("10")
        eight = self.table("8")
        one_of(band, [c for c in Bands._fields if eight.column(c) is not None], "a range band", eight)
        yes_no(infantry_or_gun, "whether the enemy is infantry or a gun", t)
        ids = t.row_ids()
        total = t.value(f"{band}-range", "shifts") if f"{band}-range" in ids else 0
        return total + (t.value("infantry-or-gun", "shifts") if infantry_or_gun else 0)


def _num(value: Fraction) -> Fraction | int:
    """A whole fraction as an int, so bands print as the booklet writes them."""
    return int(value) if value.denominator == 1 else value

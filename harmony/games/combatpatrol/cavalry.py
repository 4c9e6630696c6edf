"""Cavalry (Combat Patrol WWII optional rules, section 7.10): mounted movement, a horse
hit, melee from the saddle and firing mounted.

What comes from the core rules is given by the scenario: the movement allowance of each
card drawn, the high-explosive burst section of the card drawn when a horse is hit,
whether a shot is fired on the move. The booklet gives no card count for a gallop, so a
mounted sprint is refused, naming the clause that leaves it open. Every number is a
clause parameter; each ruling names its clauses.
"""
from __future__ import annotations

from fractions import Fraction

from harmony.ruleset import Ruleset
from harmony.rulings import Ruling, Why

from .figures import Figure, Point, distance_squared
from .movement import MoveError

#: the parameters the cavalry rules read (set by the CP clauses of section 7.10)
PARAMETERS = ("cp.mounted-cards", "cp.horse-down-leaves", "cp.thrown-icon", "cp.charge-inches",
              "cp.charge-melee-bonus", "cp.melee-on-rider", "cp.mounted-fire-shifts",
              "cp.moving-fire-shifts")


class Cavalry:
    """The cavalry rules of one ruleset over the play's own figures; ``mounted`` holds the
    ids of the figures on horseback."""

    def __init__(self, rules: Ruleset, figures: dict[str, Figure], mounted: set[str]):
        self.rules, self.figures, self.mounted = rules, figures, set(mounted)
        self.last_leg: dict[str, tuple[Point, Point]] = {}
        self.down: dict[str, Ruling] = {}         # figure -> why its horse is gone
        self.thrown: dict[str, Ruling] = {}
        self.allowance: dict[str, Ruling] = {}    # figure -> its last mounted move's allowance

    def _clause(self, name: str) -> str | None:
        return self.rules.setting(name).clause

    def check_move(self, fid: str, to: Point, cards: list[Fraction] | None, sprint: bool) -> bool:
        """A mounted figure draws the clause's number of movement cards and may move their
        total; a gallop is refused, as the booklet gives no count for it. False for a
        figure on foot (the movement rules decide its move)."""
        if fid not in self.mounted:
            return False
        why = Why(self.rules)
        n = why.p("cp.mounted-cards")
        if not n:
            raise MoveError(f"ruleset {self.rules.name} does not play cavalry (7.10): switch on "
                            "the option cavalry", self._clause("cp.mounted-cards"))
        if sprint:
            raise MoveError(f"{fid} is mounted: the booklet lets a horse gallop under the "
                            "sprinting rule but gives no number of cards for it",
                            self._clause("cp.mounted-cards"))
        if cards is not None and len(cards) != n:
            raise MoveError(f"{fid} is mounted: it draws {n} movement cards, give the movement "
                            "allowance of each", self._clause("cp.mounted-cards"))
        if cards is not None:
            total = sum(cards, Fraction(0))
            if distance_squared(self.figures[fid].at, to) > total ** 2:
                raise MoveError(f"{fid} may move {total} inches, and {to} is further",
                                self._clause("cp.mounted-cards"))
            self.allowance[fid] = why.ruling(total, f"{n} cards added together")
        return True

    def moved(self, fid: str, start: Point, end: Point) -> None:
        self.last_leg[fid] = (start, end)

    def horse_hit(self, fid: str, icon: str) -> None:
        """The horse of ``fid`` is wounded or incapacitated (an input); ``icon`` is what the
        high-explosive burst section of the next card shows (an input)."""
        why = Why(self.rules)
        if fid not in self.mounted:
            raise MoveError(f"{fid} is not mounted", self._clause("cp.horse-down-leaves"))
        if why.p("cp.horse-down-leaves"):
            self.mounted.discard(fid)
            self.down[fid] = why.ruling(False, "its horse left the table")
        thrown = why.p("cp.thrown-icon")
        self.thrown[fid] = why.ruling(icon == thrown, f"the card shows {icon}")

    def is_mounted(self, fid: str) -> Ruling:
        if fid in self.down:
            return self.down[fid]
        return Ruling(fid in self.mounted, [], {}, "as the scenario sets it")

    def rider_thrown(self, fid: str) -> Ruling:
        """Whether the rider of a horse that was hit was thrown and hurt."""
        r = self.thrown.get(fid)
        if r is None:
            raise MoveError(f"{fid}'s horse was not hit", self._clause("cp.thrown-icon"))
        return r

    def melee_bonus(self, fid: str, against: str) -> Ruling:
        """What a mounted figure adds to its Melee attribute against ``against``: the
        charge bonus when the target is on foot and its last straight leg was at least the
        charge distance long (moves are straight legs)."""
        why = Why(self.rules)
        if fid not in self.mounted:
            return why.ruling(0, "not mounted")
        if against in self.mounted:
            why.p("cp.melee-on-rider")
            return why.ruling(0, "against a rider")
        reach = why.p("cp.charge-inches")
        bonus = why.p("cp.charge-melee-bonus")
        leg = self.last_leg.get(fid)
        if leg is not None and distance_squared(*leg) >= Fraction(reach) ** 2:
            return why.ruling(bonus, f"came straight ahead {reach} inches or more")
        return why.ruling(0, f"did not come straight ahead for {reach} inches")

    def melee_strikes(self, fid: str) -> Ruling:
        """Who a melee result against ``fid`` strikes: a rider's always falls on the man."""
        why = Why(self.rules)
        if fid in self.mounted and why.p("cp.melee-on-rider"):
            return why.ruling("rider", "no draw between horse and man in a melee")
        return why.ruling("figure")

    def fire_shifts(self, fid: str, moving: bool) -> Ruling:
        """The shifts to the right a mounted figure's shot takes (0 on foot)."""
        why = Why(self.rules)
        if fid not in self.mounted:
            return why.ruling(0, "not mounted")
        n = why.p("cp.mounted-fire-shifts")
        if moving:
            n += why.p("cp.moving-fire-shifts")
        return why.ruling(n, "from the saddle" + (", on the move" if moving else ""))

"""Body armour (Combat Patrol WWII optional rules, section 7.9): armour classes, whether
the armour is in the way of a hit, and what gets through.

The usual resolution of a hit is a core rule, given by the scenario: the effect it has
(incapacitated, wounded or stunned), whether cover protected the figure, the part of the
body the card's hit location icon shows in red or yellow, the weapon's penetration value
and the ten-sided die icon of the card drawn for the armour. The calculator's table of
section 7.9.1 then says what gets through; each ruling names its clauses.
"""
from __future__ import annotations

from harmony.ruleset import Ruleset
from harmony.rulings import Ruling, Why

from .calculator import CombatPatrol
from .movement import MoveError

#: the parameters the body armour rules read (set by the CP clauses of section 7.9)
PARAMETERS = ("cp.armour-classes", "cp.armour-by-location")
#: what a wearer whose armour stopped the round is (7.9.1)
STOPPED = "stunned"


def roman(text: str) -> int | None:
    """The value of a Roman numeral of the armour classes (I to X, as the booklet writes
    them), else None.

    >>> roman("III"), roman("IX"), roman("X"), roman("IIII"), roman("3")
    (3, 9, 10, None, None)
    """
    numerals = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"]
    return numerals.index(text) + 1 if text in numerals else None


class BodyArmour:
    """The body armour rules of one ruleset; ``worn`` is each wearer's class (a Roman
    numeral) and the parts of the body it covers."""

    def __init__(self, rules: Ruleset, cp: CombatPatrol, worn: dict[str, tuple[str, list[str]]]):
        self.rules, self.cp, self.worn = rules, cp, worn
        self.results: dict[str, Ruling] = {}

    def hit(self, fid: str, effect: str, covered: bool, location: str, penetration: int,
            die: int) -> Ruling:
        """A hit of ``effect`` on ``fid``: the armour is checked only when cover did not
        protect him and he wears it on ``location``; then the round gets through when the
        penetration plus the die beats the protection (the class), else he is stunned."""
        why = Why(self.rules)
        if not why.p("cp.armour-by-location"):
            raise MoveError(f"ruleset {self.rules.name} does not play body armour (7.9): switch "
                            "on the option body-armour", self.rules.setting("cp.armour-by-location").clause)
        worn = self.worn.get(fid)
        if covered or worn is None or location not in worn[1]:
            why_not = ("cover protected him" if covered else "he wears no armour" if worn is None
                       else f"no armour on the {location}")
            r = why.ruling(effect, f"armour not checked: {why_not}")
        else:
            most = why.p("cp.armour-classes")
            protection = roman(worn[0])
            if protection is None or protection > most:
                raise MoveError(f"'{worn[0]}' is not an armour class: the classes are the "
                                f"Roman numerals from I to the {most}th",
                                self.rules.setting("cp.armour-classes").clause)
            through = self.cp.ruling("armour_effect", effect, die, penetration, protection)
            value = STOPPED if through.value is None else through.value
            r = Ruling(value, sorted(set(why.reasons) | set(through.reasons)), dict(why.settings),
                       f"class {worn[0]} (protection {protection}), penetration {penetration} + "
                       f"die {die}")
        self.results[fid] = r
        return r

    def result(self, fid: str) -> Ruling:
        r = self.results.get(fid)
        if r is None:
            raise MoveError(f"{fid} has not been hit")
        return r

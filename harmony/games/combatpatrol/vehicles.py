"""Vehicles and guns (Combat Patrol WWII optional rules, sections 7.5 to 7.7): what a hit
on an armoured vehicle does under Method 1 (Table 5) or Method 2, disabling an anti-tank
gun, and a soft-skinned vehicle's engine or tires.

The core parts the rules lean on are given by the scenario: whether a round penetrated
(the core penetration check), whether the weapon is one of core Figure 1-1's small arms,
the size of an HE burst and whether it lies over a gun's breech, the icon of the action
card drawn, and that a hit landed on the Engine/Tires place of Figure 7-1 (our copy of
the booklet does not reproduce the figure). Every rule is a clause parameter or a
row of Table 5; each ruling names its clauses.
"""
from __future__ import annotations

from harmony.ruleset import Ruleset
from harmony.rulings import Ruling, Why

from .calculator import CombatPatrol
from .movement import MoveError

#: the parameters the vehicle rules read (set by the CP clauses of sections 7.5 to 7.7)
PARAMETERS = ("cp.small-arms-by-penetration", "cp.small-arms-never-penetrate",
              "cp.gun-disable-sizes", "cp.gun-disable-icon", "cp.engine-stops")
#: what a hit does to a vehicle when nothing happens to it
NO_EFFECT = "none"
#: the answer when section 7 leaves the hit to the core rules' procedure (section 4.4)
CORE = "core-procedure"


class Vehicles:
    """The vehicle rules of one ruleset."""

    def __init__(self, rules: Ruleset, cp: CombatPatrol):
        self.rules, self.cp = rules, cp
        self.effects: dict[str, Ruling] = {}
        self.disabled: dict[str, Ruling] = {}
        self.immobile: dict[str, Ruling] = {}

    def _clause(self, name: str) -> str | None:
        return self.rules.setting(name).clause

    def hit(self, vehicle: str, penetration: int, small_arms: bool, penetrates: bool) -> Ruling:
        """A hit on armoured ``vehicle`` by a weapon of ``penetration`` (a core Figure 1-1
        weapon when ``small_arms``) that did or did not penetrate (the core check, an
        input): Method 2 lets no small arms through; Method 1 reads Table 5's effect for a
        penetrating hit, and a small arms hit that does not penetrate does nothing."""
        why = Why(self.rules)
        never = why.p("cp.small-arms-never-penetrate")
        if small_arms and never:
            r = why.ruling(NO_EFFECT, "small arms never penetrate an armoured vehicle")
        elif never:
            r = why.ruling(CORE, "Method 2 speaks only of small arms: the core procedure decides")
        elif why.p("cp.small-arms-by-penetration"):
            effect = self.cp.ruling("penetration_effect", penetration)
            if penetrates:
                value, detail = effect.value, f"Table 5 for penetration {penetration}"
            elif small_arms:
                value, detail = NO_EFFECT, "small arms that do not penetrate do nothing"
            else:
                raise MoveError("a round other than small arms that does not penetrate is the "
                                "core rules' (section 4.4), not section 7's")
            r = Ruling(value, sorted(set(why.reasons) | set(effect.reasons)),
                       dict(why.settings), detail)
        else:
            raise MoveError(f"ruleset {self.rules.name} plays neither method of small arms against "
                            "armour (7.5): switch on small-arms-method-1 or small-arms-method-2",
                            self._clause("cp.small-arms-by-penetration"))
        self.effects[vehicle] = r
        return r

    def effect(self, vehicle: str) -> Ruling:
        r = self.effects.get(vehicle)
        if r is None:
            raise MoveError(f"{vehicle} has not been hit")
        return r

    def he_burst(self, gun: str, size: str, over_breech: bool, icon: str) -> None:
        """An HE burst of ``size`` lands on anti-tank gun ``gun``'s crew; when it lies over the
        breech the card drawn shows ``icon`` (inputs). The gun is disabled for the game by
        the clause's sizes and icon."""
        why = Why(self.rules)
        sizes = why.p("cp.gun-disable-sizes")
        if not sizes:
            raise MoveError(f"ruleset {self.rules.name} does not play disabling anti-tank guns "
                            "(7.6): switch on the option disabling-anti-tank-guns",
                            self._clause("cp.gun-disable-sizes"))
        wanted = why.p("cp.gun-disable-icon")
        hit = size in sizes and over_breech and icon == wanted
        if hit or gun not in self.disabled:
            self.disabled[gun] = why.ruling(hit, f"{size} burst, {'over' if over_breech else 'off'}"
                                            f" the breech, card shows {icon}")

    def gun_disabled(self, gun: str) -> Ruling:
        r = self.disabled.get(gun)
        if r is not None:
            return r
        why = Why(self.rules)
        why.p("cp.gun-disable-sizes")
        return why.ruling(False, "no burst on it yet")

    def engine_hit(self, vehicle: str, explosion: bool) -> None:
        """A small arms hit on a soft-skinned vehicle's Engine/Tires place; the next card
        shows an explosion icon or not (inputs)."""
        why = Why(self.rules)
        if not why.p("cp.engine-stops"):
            raise MoveError(f"ruleset {self.rules.name} does not play small arms against "
                            "soft-skinned vehicles (7.7): switch on soft-skinned-vehicles",
                            self._clause("cp.engine-stops"))
        if explosion or vehicle not in self.immobile:
            self.immobile[vehicle] = why.ruling(explosion, "explosion icon on the engine card"
                                                if explosion else "no explosion icon")

    def is_immobile(self, vehicle: str) -> Ruling:
        r = self.immobile.get(vehicle)
        if r is not None:
            return r
        why = Why(self.rules)
        why.p("cp.engine-stops")
        return why.ruling(False, "its engine was not hit")

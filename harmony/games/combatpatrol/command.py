"""Command (Combat Patrol WWII optional rules, sections 7.4 and 7.8): the loss of a
platoon leader and his second in command, and command dice for units in column.

What comes from outside section 7 is given by the scenario: which figure is
incapacitated (the shooting and hit tables are core rules), who is promoted at the
reshuffle card (the player's choice), when a pinned team recovers (core section 1.8),
the command dice rolled for a column and the number of each activation card drawn (the
action and activation decks are core parts of the game). Every rule is a clause
parameter; each ruling names its clauses.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from harmony.ruleset import Ruleset
from harmony.rulings import Ruling, Why

from .figures import Figure

#: the parameters the command rules read (set by the CP clauses of sections 7.4 and 7.8)
PARAMETERS = ("cp.leader-loss-pins", "cp.second-waives-pin", "cp.column-dice",
              "cp.column-dice-fixed")


class CommandError(ValueError):
    """A command order the rules refuse, naming the clause that refuses it (if any)."""

    def __init__(self, message: str, clause: str | None = None):
        super().__init__(message)
        self.clause = clause


@dataclass
class Platoon:
    """A platoon: its leader and, where its army had one, its second in command."""

    id: str
    leader: str
    second: str | None = None
    why: Ruling | None = None      # the ruling that made the leader so (a promotion)


@dataclass
class Column:
    """Units moving in column at the start of a turn, front first, and the command dice
    rolled for them (not yet placed)."""

    teams: list[str]
    dice: list[int]
    placed: dict[str, tuple[int, Ruling]] = field(default_factory=dict)
    left: set[str] = field(default_factory=set)

    def unplaced(self) -> list[int]:
        rest = list(self.dice)
        for die, _ in self.placed.values():
            rest.remove(die)
        return rest


class Command:
    """The command rules of one ruleset over the play's own figures."""

    def __init__(self, rules: Ruleset, figures: dict[str, Figure], platoons: list[Platoon],
                 columns: list[Column], leaders: dict[str, tuple]):
        self.rules, self.figures, self.columns = rules, figures, columns
        self.platoons = {p.id: p for p in platoons}
        self.leaders = leaders                   # team -> (leader figure, radius): promotions
        self.down: set[str] = set()
        self.pinned: dict[str, Ruling] = {}
        self.spared: dict[str, Ruling] = {}      # team -> why its platoon was not pinned

    def _clause(self, name: str) -> str | None:
        return self.rules.setting(name).clause

    # ------------------------------------------------------------ the platoon leader (7.8)
    def incapacitate(self, fid: str) -> None:
        """Figure ``fid`` is incapacitated (the hit is an input): a platoon that loses its
        leader is pinned, all its teams, unless its second in command is still there."""
        self.down.add(fid)
        for p in self.platoons.values():
            if fid not in (p.leader, p.second) or p.leader not in self.down:
                continue
            why = Why(self.rules)
            if not why.p("cp.leader-loss-pins"):
                continue
            teams = sorted({f.team for f in self.figures.values() if f.platoon == p.id})
            if p.second is not None and p.second not in self.down:
                if why.p("cp.second-waives-pin"):
                    for t in teams:
                        self.spared[t] = why.ruling(False, f"{p.second}, second in command, is "
                                                    "still there")
                    continue
            if p.second is not None:
                why.p("cp.second-waives-pin")
            for t in teams:
                self.pinned[t] = why.ruling(True, f"platoon leader {p.leader} incapacitated")
                self.spared.pop(t, None)

    def reshuffle(self, platoon: str, leader: str, team_leader: str) -> None:
        """At the reshuffle card after the platoon leader fell: ``leader`` (a squad or
        section leader, the player's choice) leads the platoon and ``team_leader``, of his
        team, leads that team, each with the command radius of the new post (core 3.13:
        the scenario gives the team's radius, kept here)."""
        p = self.platoons[platoon]
        why = Why(self.rules)
        clause = self._clause("cp.leader-loss-pins")
        if not why.p("cp.leader-loss-pins"):
            raise CommandError(f"ruleset {self.rules.name} does not play the loss of a platoon "
                               "leader (7.8): switch on the option platoon-leader-loss", clause)
        if p.leader not in self.down:
            raise CommandError(f"platoon {platoon}'s leader {p.leader} is not incapacitated", clause)
        new, under = self.figures[leader], self.figures[team_leader]
        if new.platoon != platoon or leader in self.down:
            raise CommandError(f"{leader} is not a figure of platoon {platoon} still there", clause)
        if under.team != new.team or team_leader in self.down or team_leader == leader:
            raise CommandError(f"{team_leader} is not another figure of {leader}'s team "
                               f"{new.team} still there", clause)
        p.leader, p.why = leader, why.ruling(leader, "promoted at the reshuffle card")
        radius = self.leaders.get(new.team, (None, None))[1]
        if radius is not None:
            self.leaders[new.team] = (team_leader, radius)

    def unpin(self, team: str) -> None:
        """``team`` recovers from its pin (core section 1.8, an input)."""
        self.pinned.pop(team, None)

    def is_pinned(self, team: str) -> Ruling:
        """Whether ``team`` is pinned by the loss of its platoon leader."""
        if team in self.pinned:
            return self.pinned[team]
        if team in self.spared:
            return self.spared[team]
        why = Why(self.rules)
        why.p("cp.leader-loss-pins")
        return why.ruling(False)

    def leader_of(self, platoon: str) -> Ruling:
        """The platoon's leader now."""
        p = self.platoons[platoon]
        return p.why if p.why is not None else Ruling(p.leader, [], {}, "the scenario's")

    # ------------------------------------------------------------ columns (7.4)
    def card(self, number: int) -> str | None:
        """An activation card of ``number`` is drawn: in each column, a matching die not yet
        placed goes to the front-most unit that has none, which activates (its id)."""
        why = Why(self.rules)
        if not why.p("cp.column-dice"):
            return None
        for col in self.columns:
            if number in col.unplaced():
                team = next((t for t in col.teams if t not in col.placed and t not in col.left),
                            None)
                if team is not None:
                    col.placed[team] = (number, why.ruling(number, "placed in column order"))
                    return team
        return None

    def leave(self, team: str, die: int | None) -> None:
        """``team`` leaves its column: a die already placed stays for the turn; a unit with
        none takes ``die`` (one of the column's unplaced dice, which the scenario names:
        the booklet does not say which) and activates normally from then on."""
        why = Why(self.rules)
        clause = self._clause("cp.column-dice-fixed")
        col = next((c for c in self.columns if team in c.teams), None)
        if col is None or not why.p("cp.column-dice-fixed"):
            raise CommandError(f"team {team} is in no column played by ruleset {self.rules.name}",
                               clause)
        col.left.add(team)
        if team in col.placed:
            number, r = col.placed[team]
            col.placed[team] = (number, _add(r, why, "placed, fixed for the turn"))
            return
        if die is None or die not in col.unplaced():
            raise CommandError(f"team {team} leaves the column before its die is placed: name "
                               f"its die, one of {col.unplaced()}", clause)
        col.placed[team] = (die, why.ruling(die, "left the column: activates normally"))

    def die_of(self, team: str) -> Ruling:
        """The command die placed on ``team``'s leader, None while it has none."""
        for col in self.columns:
            if team in col.placed:
                return col.placed[team][1]
        why = Why(self.rules)
        why.p("cp.column-dice")
        return why.ruling(None, "no die placed yet")


def _add(r: Ruling, why: Why, detail: str) -> Ruling:
    settings = dict(r.settings)
    settings.update(why.settings)
    return Ruling(r.value, sorted(set(r.reasons) | set(why.reasons)), settings, detail)

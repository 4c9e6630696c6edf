"""Movement and command radius (Combat Patrol WWII optional rules, sections 7.2 and 7.3):
sprinting, and figures out of their leader's command radius.

A move is one straight leg to a point. Its allowance is the sum of the movement
allowances of the action cards drawn for it: the cards are inputs (the action deck is a
core part of the game), given by the scenario in inches. A sprint draws as many cards
as its clause says and stuns the sprinters even if they stop short; a figure not
declared a sprinter gets one card. Sprinters count as in the open against reaction fire
until their activation ends. A figure outside its team leader's command radius (a core
rule, 3.13: the scenario gives each team's radius) may only move toward its leader and
may not fire. Every limit is a clause parameter; each ruling names its clauses.
"""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from harmony.ruleset import Ruleset
from harmony.rulings import Ruling, Why

from .figures import Figure, Point, Table, distance_squared, within

#: the parameters the movement rules read (set by the CP clauses of sections 7.2 and 7.3)
PARAMETERS = ("cp.sprint-cards", "cp.sprint-stuns", "cp.sprint-binding", "cp.sprint-no-cover",
              "cp.out-of-command-toward-leader")


class MoveError(ValueError):
    """A move or shot the rules refuse, naming the clause that refuses it (if any)."""

    def __init__(self, message: str, clause: str | None = None):
        super().__init__(message)
        self.clause = clause


class Movement:
    """The movement rules of one ruleset; ``figures`` is the play's own dict of figures,
    ``leaders`` each team's leader and command radius (inches) where the scenario gives
    them."""

    def __init__(self, rules: Ruleset, table: Table, figures: dict[str, Figure],
                 leaders: dict[str, tuple[str, Fraction]]):
        self.rules, self.table, self.figures, self.leaders = rules, table, figures, leaders
        self.sprinted: dict[str, Ruling] = {}
        self.stunned: dict[str, Ruling] = {}
        self.allowance: dict[str, Ruling] = {}    # figure -> its last move's allowance

    def _clause(self, name: str) -> str | None:
        return self.rules.setting(name).clause

    def out_of_command(self, f: Figure) -> bool:
        """True when ``f`` stands outside its team leader's command radius."""
        lead = self.leaders.get(f.team)
        if lead is None or lead[0] == f.id or lead[0] not in self.figures:
            return False
        return not within(f.at, self.figures[lead[0]].at, lead[1])

    def move(self, fid: str, to: Point, cards: list[Fraction] | None, sprint: bool) -> Ruling:
        """Move figure ``fid`` straight to ``to``, with the movement allowances of the
        ``cards`` drawn for it (None: not checked), sprinting or not."""
        why = Why(self.rules)
        f = self.figures[fid]
        if sprint:
            n = why.p("cp.sprint-cards")
            if not n:
                raise MoveError(f"ruleset {self.rules.name} does not play sprinting (7.2): switch "
                                "on the option sprinting", self._clause("cp.sprint-cards"))
            why.p("cp.sprint-binding")
            if cards is None or len(cards) != n:
                raise MoveError(f"a sprint draws {n} movement cards: give the movement allowance "
                                "of each", self._clause("cp.sprint-cards"))
        elif cards is not None and len(cards) > 1:
            if why.p("cp.sprint-binding"):
                raise MoveError(f"{fid} was not declared a sprinter: it draws one movement card",
                                self._clause("cp.sprint-binding"))
            raise MoveError(f"{fid} draws one movement card")
        if cards is not None:
            allowance = sum(cards, Fraction(0))
            if distance_squared(f.at, to) > allowance ** 2:
                raise MoveError(f"{fid} may move {allowance} inches, and {to} is further",
                                self._clause("cp.sprint-cards") if sprint else None)
            self.allowance[fid] = why.ruling(allowance, f"{len(cards)} card(s) added together")
        if self.out_of_command(f):
            leader = self.figures[self.leaders[f.team][0]]
            if why.p("cp.out-of-command-toward-leader") and \
                    distance_squared(to, leader.at) >= distance_squared(f.at, leader.at):
                raise MoveError(f"{fid} is outside its leader's command radius: it may only move "
                                f"toward {leader.id}", self._clause("cp.out-of-command-toward-leader"))
        self.figures[fid] = replace(f, at=to)
        if sprint:
            self.sprinted[fid] = why.ruling(True, "sprinted this activation")
            if why.p("cp.sprint-stuns"):
                self.stunned[fid] = why.ruling(True, "stunned after sprinting")
        return why.ruling(True)

    def may_fire(self, fid: str) -> Ruling:
        """Whether figure ``fid`` may fire: not when it is out of command and the option
        says such figures may only move toward their leader (7.3)."""
        why = Why(self.rules)
        f = self.figures[fid]
        if why.p("cp.out-of-command-toward-leader") and self.out_of_command(f):
            return why.ruling(False, "out of command: it may only move toward its leader")
        return why.ruling(True, "in command" if f.team in self.leaders else "")

    def fire(self, fid: str) -> None:
        """A shot by ``fid``; refused when it may not fire."""
        r = self.may_fire(fid)
        if not r.value:
            raise MoveError(f"{fid} may not fire: {r.detail}", self._clause("cp.out-of-command-toward-leader"))

    def in_open(self, fid: str) -> Ruling:
        """Whether reaction fire at ``fid`` treats it as in the open: a sprinter until the
        end of its activation (7.2), else when it stands in no woods."""
        why = Why(self.rules)
        f = self.figures[fid]
        if why.p("cp.sprint-no-cover") and fid in self.sprinted:
            return why.ruling(True, "sprinting: no cover against reaction fire")
        return why.ruling(self.table.woods_at(f.at) is None, "as the terrain gives")

    def end_activation(self, team: str) -> None:
        """``team``'s activation ends: its sprinters have their cover again."""
        for fid in [f for f in self.sprinted if self.figures[f].team == team]:
            del self.sprinted[fid]

    def is_stunned(self, fid: str) -> Ruling:
        """Whether ``fid`` is stunned by a sprint (recovering is a core rule, not played)."""
        r = self.stunned.get(fid)
        if r is not None:
            return r
        why = Why(self.rules)
        why.p("cp.sprint-stuns")
        return why.ruling(False)

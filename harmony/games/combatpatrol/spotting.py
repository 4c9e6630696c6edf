"""Alternate spotting (Combat Patrol WWII optional rules, section 7.12): line of sight,
automatic spotting, spotting attempts, their results and how long they last.

A team may fire only at what its platoon has spotted. After every step each figure in
sight of an enemy figure is checked against Table 9 (spotted at once, or not); in its
activation a team may make spotting attempts into one target area: the range band of
Table 8 (at night, shortened by Table 6), the shifts of Table 10, and the symbol of the
drawn card's hit indicator that many places right of the team leader's Guts letter. The
card is an input: the action deck is a core part of Combat Patrol, not of section 7, so
the scenario gives the symbols it shows from the leader's letter rightwards. A bullet
hole spots the area. A spotted figure stays spotted until it ends an activation out of
sight of every enemy figure. Every limit is a clause parameter or a table row, and each
ruling names its clauses.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from harmony.ruleset import Ruleset
from harmony.rulings import Ruling, Why

from .calculator import Bands, CombatPatrol
from .figures import Figure, Table, distance_squared, within

#: the symbol of a hit indicator that spots the target area (7.12.3)
SPOTS = "bullet-hole"
#: the parameters the spotting rules read (set by the CP clauses of section 7.12)
PARAMETERS = ("cp.spot-before-fire", "cp.spot-needs-los", "cp.spot-area-inches-per-figure",
              "cp.spot-checks-per-activation", "cp.spotted-platoon-fires",
              "cp.unspot-out-of-sight")


class SpotError(ValueError):
    """A spotting order or question the rules refuse, naming the clause that refuses it."""

    def __init__(self, message: str, clause: str | None = None):
        super().__init__(message)
        self.clause = clause


@dataclass
class Mark:
    """A target spotted for a platoon: the team that spotted it and the ruling that did."""

    team: str
    ruling: Ruling


def _merge(value, detail: str, *parts: Ruling | Why | set[str]) -> Ruling:
    reasons: set[str] = set()
    settings: dict = {}
    for p in parts:
        if isinstance(p, set):
            reasons |= p
        else:
            reasons |= set(p.reasons)
            settings.update(p.settings)
    return Ruling(value, sorted(reasons), settings, detail)


class Spotting:
    """The spotting of one ruleset, on one table, by day or under one phase of the moon;
    ``figures`` is the play's own dict of figures (it sees them move)."""

    def __init__(self, rules: Ruleset, cp: CombatPatrol, table: Table, moon: str | None,
                 figures: dict[str, Figure]):
        self.rules, self.cp, self.table, self.moon, self.figures = rules, cp, table, moon, figures
        self.marks: dict[tuple[str, str], Mark] = {}       # (platoon, target) -> mark
        self.kept: dict[str, Ruling] = {}                  # target -> why it stayed or went
        self.tried: dict[tuple[str, str], Ruling] = {}     # (platoon, target) -> failed attempt
        self.active: str | None = None
        self.checks: dict[str, int] = {}

    def _on(self, why: Why) -> bool:
        return bool(why.p("cp.spot-before-fire"))

    def _refuse_off(self, why: Why) -> None:
        if not self._on(why):
            s = self.rules.setting("cp.spot-before-fire")
            raise SpotError(f"ruleset {self.rules.name} does not play the alternate spotting "
                            "rules (7.12): switch on the option alternate-spotting", s.clause)

    # ------------------------------------------------------------ automatic (Table 9)
    def automatic(self, moved: set[str], fired: set[str]) -> None:
        """After a step: every figure in an enemy's line of sight that Table 9 spots."""
        why = Why(self.rules)
        if not self._on(why):
            return
        why.p("cp.spot-needs-los")
        light = "night" if self.moon else "day"
        for t in sorted(self.figures.values(), key=lambda f: f.id):
            woods = self.table.woods_at(t.at)
            situation = ("fired" if t.id in fired else "in-open" if woods is None else
                         "moving-in-concealment" if t.id in moved else "stationary-in-concealment")
            for s in sorted(self.figures.values(), key=lambda f: f.id):
                if s.side == t.side or (s.platoon, t.id) in self.marks:
                    continue
                if self.table.sight(s.at, t.at) is not None:
                    continue
                extra: set[str] = set()
                near = True
                if self.moon is not None:
                    d = self.cp.ruling("night_distance", s.vision, self.moon)
                    extra |= set(d.reasons)
                    near = within(s.at, t.at, d.value)
                r = self.cp.ruling("automatically_spotted", "vehicle" if t.kind == "vehicle"
                                   else "personnel", situation, light, near,
                                   "vehicle" if s.kind == "vehicle" else "infantry-or-anti-tank-gun")
                if r.value is True:
                    self.marks[(s.platoon, t.id)] = Mark(s.team, _merge(
                        True, f"spotted at once by {s.id} ({situation})", why, r, extra))

    # ------------------------------------------------------------ activations
    def activate(self, team: str) -> None:
        """``team`` begins an activation: it has made no spotting check in it yet."""
        self.active = team
        self.checks[team] = 0

    def end_activation(self, team: str) -> None:
        """``team`` ends its activation: each of its figures that is spotted and out of the
        line of sight of every enemy figure is no longer spotted (7.12.4)."""
        why = Why(self.rules)
        self.active = None
        if not self._on(why) or not why.p("cp.unspot-out-of-sight"):
            return
        for f in sorted(self.figures.values(), key=lambda x: x.id):
            if f.team != team or not any(t == f.id for _, t in self.marks):
                continue
            seers = [e.id for e in self.figures.values() if e.side != f.side
                     and self.table.sight(e.at, f.at) is None]
            if seers:
                self.kept[f.id] = why.ruling(True, f"still in sight of {', '.join(sorted(seers))}")
            else:
                self.kept[f.id] = why.ruling(False, "ended its activation out of every enemy's sight")
                for key in [k for k in self.marks if k[1] == f.id]:
                    del self.marks[key]

    # ------------------------------------------------------------ attempts (7.12.3)
    def attempt(self, team: str, area: list[str], card: list[str],
                facing: list[str] | None = None) -> Ruling:
        """A spotting attempt of ``team`` into the area holding the figures ``area``, with the
        symbols ``card`` shows right of the leader's Guts letter; the figures ``facing``
        the area (all of the team when None) may look. True when the area is spotted."""
        why = Why(self.rules)
        self._refuse_off(why)
        why.p("cp.spot-needs-los")
        per = why.p("cp.spot-area-inches-per-figure")
        most = why.p("cp.spot-checks-per-activation")
        attempt = self.rules.setting("cp.spot-checks-per-activation").clause
        sight = self.rules.setting("cp.spot-needs-los").clause
        if self.active != team:
            raise SpotError(f"team {team} is not activated: a team makes its spotting attempt "
                            "in its own activation", attempt)
        if self.checks.get(team, 0) >= most:
            raise SpotError(f"team {team} has made its {most} spotting check(s) of this "
                            "activation", attempt)
        members = [f for f in self.figures.values() if f.team == team]
        lookers = [f for f in members if facing is None or f.id in facing]
        targets = [self.figures[t] for t in area]
        if len({t.kind == "vehicle" for t in targets}) > 1:
            raise SpotError("the area holds personnel and vehicles: make one check for each",
                            attempt)
        wide = Fraction(per * len(members))
        if any(distance_squared(a.at, b.at) > wide ** 2 for a in targets for b in targets):
            raise SpotError(f"the target area is wider than {per} inches for each of the "
                            f"{len(members)} figure(s) of team {team}", attempt)
        pairs = []
        for t in targets:
            seen = [(distance_squared(f.at, t.at), f.id) for f in lookers
                    if self.table.sight(f.at, t.at) is None]
            if not seen:
                raise SpotError(f"no figure of team {team} facing the area has a line of sight "
                                f"to {t.id}", sight)
            pairs.append(min(seen))
        d2, looker_id = min(pairs)
        looker = self.figures[looker_id]
        night = (looker.vision, self.moon) if self.moon else None
        bands = self.cp.ruling("spotting_bands", looker.sees_as, night=night)
        band = next((name for name, edge in zip(Bands._fields, bands.value)
                     if d2 <= Fraction(edge) ** 2), None)
        if band is None:
            raise SpotError(f"the area is beyond the long band of {looker.id}'s spotting "
                            f"distance ({bands.value.long} inches)", bands.reasons[-1])
        shifts = self.cp.ruling("spotting_shifts", band, any(t.kind != "vehicle" for t in targets))
        if shifts.value >= len(card):
            raise SpotError(f"the card gives {len(card)} symbol(s) from the leader's Guts letter; "
                            f"the attempt reads the one {shifts.value} place(s) to its right",
                            attempt)
        self.checks[team] = self.checks.get(team, 0) + 1
        symbol = card[shifts.value]
        ruling = _merge(symbol == SPOTS, f"{band} range by {looker.id}, {shifts.value} shift(s): "
                        f"{symbol}", why, bands, shifts)
        for t in targets:
            if ruling.value:
                self.marks[(looker.platoon, t.id)] = Mark(team, ruling)
                self.kept.pop(t.id, None)
                self.tried.pop((looker.platoon, t.id), None)
            else:
                self.tried[(looker.platoon, t.id)] = ruling
        return ruling

    # ------------------------------------------------------------ questions
    def spotted(self, target: str, team: str) -> Ruling:
        """Whether ``team`` may fire at ``target``: its platoon has spotted it (7.12, 7.12.4)."""
        why = Why(self.rules)
        self._refuse_off(why)
        platoon = next(f.platoon for f in self.figures.values() if f.team == team)
        mark = self.marks.get((platoon, target))
        kept = self.kept.get(target)
        parts: list[Ruling | Why] = [why] + ([kept] if kept is not None else [])
        if mark is None:
            tried = self.tried.get((platoon, target))
            return _merge(False, "not spotted for its platoon" + (
                f": its attempt failed ({tried.detail})" if tried is not None else ""),
                *parts, *([tried] if tried is not None else []))
        why.p("cp.spotted-platoon-fires")
        who = "by the team itself" if mark.team == team else f"by team {mark.team} of its platoon"
        return _merge(True, f"spotted {who}: {mark.ruling.detail}", mark.ruling, *parts)

"""The referee of Double-Blind PanzerBlitz: spotting steps, blind moves replayed, what each side is shown.

A :class:`Referee` stands beside a :class:`~harmony.games.panzerblitz.engine.Game` (the true
board). Each rule it applies is a parameter of the ruleset (``referee.*``,
``move.*``); under a ruleset that sets none of them it does nothing, and
orders are played as ordinary moves, refused where impossible.

* :meth:`Referee.spotting_step`: before each player's move, the first
  included, each side is shown every enemy unit the ordinary sighting rules
  let it spot.
* :meth:`Referee.replay`: the moves a player made blind, in the order made,
  are replayed on the true board; a unit is stopped at its first impossible
  step (:func:`harmony.games.panzerblitz.barriers.step_barrier`), so units behind it may pile
  up; each side is then shown only the enemy units, blocks and mines that
  stopped its units; last, carried units may unload, after an overrun in the
  hex the overrun was entered from.
* :meth:`Referee.after_fire`: a side fired on by units it has not been shown
  is told the fire's strength, type and hex, not the firer.

What a side knows is never stored: :meth:`Referee.view` computes it
(:mod:`harmony.games.panzerblitz.knowledge`) from the true board and the rulings recorded here.

>>> from harmony.loader import load
>>> from harmony.usage import default_rules_data
>>> from harmony.games.panzerblitz.engine import Game
>>> from harmony.games.panzerblitz.scenario import ruleset_for
>>> model, _ = load(default_rules_data())
>>> g = Game.from_data(ruleset_for(model, "DB"), {"columns": 6, "rows": 3, "blocks": {"D2": "Soviet"}}, [
...     {"id": "t1", "side": "German", "kind": "armoured", "class": "A", "attack": 12,
...      "range": 8, "defence": 8, "movement": 6, "at": "B2"},
...     {"id": "t2", "side": "German", "kind": "armoured", "class": "A", "attack": 12,
...      "range": 8, "defence": 8, "movement": 6, "at": "A2"},
...     {"id": "gun", "side": "Soviet", "kind": "gun", "class": "A", "attack": 10,
...      "range": 8, "defence": 3, "movement": 1, "at": "F2"}], side="German", phase="movement")
>>> g.stacking = {"German": 1}
>>> ref = Referee(g)
>>> sorted(u for u, _ in ref.spotting_step().items())      # both sides, the first move included
['German', 'Soviet']
>>> ref.replay([Intent("t1", ["C2", "D2", "E2"]), Intent("t2", ["B2", "C2"])])
>>> ref.stops["t1"].value, ref.stops["t2"].value["cause"], g.where("t2")
({'cause': 'block', 'hex': 'D2', 'stopped-at': 'C2'}, 'stacking', 'B2')
>>> ref.view("German").as_data()["blocks"]
['D2']
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import ceil
from typing import Sequence

from .barriers import rule_on, stack_count, step_barrier
from .engine import EngineError, Game
from .hexgrid import Hex, label
from .knowledge import Shown, View, view
from harmony.ruleset import Ruleset
from harmony.rulings import Ruling, Why


@dataclass(frozen=True)
class Intent:
    """One blind move: ``unit`` along ``path`` (labels), perhaps an ``overrun`` declared,
    ``unload`` what it carries once movement is over; ``mp`` per hex (None: the terrain's)."""

    unit: str
    path: Sequence[str]
    overrun: str | None = None
    unload: bool = False
    mp: Sequence[int | None] = ()

    def mp_at(self, k: int) -> int | None:
        return self.mp[k] if k < len(self.mp) else None


class OrderError(EngineError):
    """An order no player could give (``order``: its index; ``step``: the hex of its path
    at fault, or None for the order as a whole)."""

    def __init__(self, message: str, order: int, step: int | None = None):
        super().__init__(message)
        self.order, self.step = order, step


class Referee:
    """The referee's record beside the true board ``game``."""

    def __init__(self, game: Game):
        self.game = game
        self.events: list[Shown] = []
        #: spotting steps held so far
        self.epoch = 0
        #: unit -> the ruling that stopped it in the last replay
        self.stops: dict[str, Ruling] = {}
        #: the ruling of the last replay's rule for units it did not stop
        self.unstopped: Ruling | None = None
        #: carried unit -> the ruling that unloaded it (hex in the value)
        self.unloads: dict[str, Ruling] = {}
        self.unload_rule: Ruling | None = None

    # -------------------------------------------------------------- spotting
    def spotting_step(self) -> dict[str, list[str]]:
        """Show each side every enemy unit it may spot now (where the rules hold a spotting
        step); the units shown, by side."""
        g = self.game
        why = Why(g.rules)
        if not rule_on(why, "referee.spotting-step"):
            return {}
        self.epoch += 1
        shown: dict[str, list[str]] = {}
        for side in g.sides:
            shown[side] = []
            for u in g.alive():
                if u.side == side or u.loaded:
                    continue
                r = g.spotted(u.id, side)
                if r.value:
                    step = Why(g.rules)
                    step.add(why)
                    step.add(r)
                    self.events.append(Shown(self.epoch, side, "unit", u.id, label(u.hex),
                                             step.ruling(True, f"spotting step: {r.detail}")))
                    shown[side].append(u.id)
        g.log.append("spotting step: " + "; ".join(f"{s} shown {', '.join(v) or 'nothing'}"
                                                  for s, v in shown.items()))
        return shown

    # -------------------------------------------------------------- movement
    def replays(self) -> bool:
        """Are moves replayed blind under these rules (else played in the open)?"""
        return rule_on(Why(self.game.rules), "referee.replay-moves")

    def replay(self, intents: Sequence[Intent]) -> None:
        """Replay blind moves in the order made; impossible orders (not the player's own
        units, not adjacent, beyond the movement allowance) raise :class:`EngineError`."""
        g = self.game
        self.stops, self.unloads = {}, {}
        rule = Why(g.rules)
        blind = rule_on(rule, "referee.replay-moves")
        self.unstopped = rule.ruling(None, "not stopped")
        overruns: dict[str, Hex] = {}
        for n, it in enumerate(intents):
            try:
                u = g.unit(it.unit)
                g.begin_move(it.unit, "normal", it.overrun)
            except EngineError as e:
                raise OrderError(str(e), n) from None
            for k, where in enumerate(it.path):
                try:
                    h = g.hex(where)
                except EngineError as e:
                    raise OrderError(str(e), n, k) from None
                barrier = step_barrier(g, u, h) if blind else None
                if barrier is not None:
                    why = Why(g.rules)
                    why.add(rule)
                    why.add(barrier)
                    self.stops[u.id] = why.ruling(barrier.value, barrier.detail)
                    g.log.append(f"{u.id} stopped at {label(u.hex)}: {barrier.detail}")
                    break
                before = u.hex
                try:
                    g.enter(h, it.mp_at(k))     # what it carries goes with it
                except EngineError as e:
                    raise OrderError(str(e), n, k) from None
                if it.overrun is not None and any(e.id == it.overrun and e.hex == h
                                                  for e in g.alive()):
                    overruns[u.id] = before
            g.end_move()
        self._spot_stoppers()
        for n, it in enumerate(intents):
            if it.unload:
                try:
                    self._unload(g.unit(it.unit), overruns.get(it.unit))
                except EngineError as e:
                    raise OrderError(str(e), n) from None

    def _spot_stoppers(self) -> None:
        g = self.game
        for uid, stop in sorted(self.stops.items()):
            why = Why(g.rules)
            if not rule_on(why, "referee.spot-stoppers"):
                return
            why.add(stop)
            side = g.unit(uid).side
            v = stop.value
            if v["cause"] == "enemy":
                for e in v["units"]:
                    self.events.append(Shown(self.epoch, side, "unit", e, v["hex"],
                                             why.ruling(True, f"it stopped {uid}")))
            elif v["cause"] in ("block", "mines"):
                self.events.append(Shown(self.epoch, side, v["cause"], v["hex"], v["hex"],
                                         why.ruling(True, f"it stopped {uid}")))

    def _unload(self, u, overrun_from: Hex | None) -> None:
        g = self.game
        cargo = g.carried(u.id)
        if not cargo:
            raise EngineError(f"{u.id} carries no unit to unload")
        why = Why(g.rules)
        at = u.hex
        if overrun_from is not None:
            if not rule_on(why, "referee.overrun-unload"):
                self.unload_rule = why.ruling(None, "no unloading after the fact")
                return
            at = overrun_from
        limit = g.stacking.get(u.side)
        if limit is not None and rule_on(why, "move.stacking-in-movement"):
            there = stack_count(g, u.side, at) + len(cargo)
            if there > limit:
                self.unload_rule = why.ruling(None, f"{label(at)} would be overstacked")
                return
        g.unload(u.id, at)
        for c in cargo:
            self.unloads[c.id] = why.ruling(label(at), f"unloaded from {u.id}")
        self.unload_rule = why.ruling(None, "not unloaded")

    def unload(self, carrier: str) -> Ruling:
        """Unload what ``carrier`` carries into its own hex outside any orders (a scenario's
        ``unload`` step): the game's ruling on what the unloading revealed
        (:meth:`~harmony.games.panzerblitz.engine.Game.unload`). Each unit unloaded is
        recorded for the ``unloaded`` question; no rule chose its hex (its carrier's), so
        that record names no clause."""
        g = self.game
        cargo = g.carried(carrier)
        revealed = g.unload(carrier)
        for c in cargo:
            self.unloads[c.id] = Ruling(label(c.hex), [], detail=f"unloaded from {carrier}")
        return revealed

    # ------------------------------------------------------------------ fire
    def after_fire(self, firers: Sequence[str], target: str) -> list[dict]:
        """Reports to the target's side of fire from units it has not been shown."""
        g = self.game
        why = Why(g.rules)
        t = g.unit(target)
        if not rule_on(why, "referee.fire-report"):
            return []
        seen = self.view(t.side).enemy
        groups: dict[tuple[str, str], int] = {}
        for fid in firers:
            f = g.unit(fid)
            if fid not in seen:
                key = (label(f.hex), f.weapon)
                groups[key] = groups.get(key, 0) + f.attack
        out = []
        for (hex_, weapon), attack in sorted(groups.items()):
            report = {"from": hex_, "class": weapon, "attack": attack}
            self.events.append(Shown(self.epoch, t.side, "report", report, hex_,
                                     why.ruling(True, f"fire at {target} from unseen units")))
            out.append(report)
        return out

    # ------------------------------------------------------------------ views
    def view(self, side: str) -> View:
        """What ``side``'s board shows now (:func:`harmony.games.panzerblitz.knowledge.view`)."""
        v = view(self.game, self.events, side, self.epoch)
        why = Why(self.game.rules)
        rule_on(why, "referee.hidden-boards")
        v.rulings.append(why.ruling(True))
        return v


def blind_scenario(counts: dict, rules: Ruleset) -> Ruling:
    """A printed scenario's ``turns``, ``mines`` and ``blocks`` counts adjusted for the rules.

    The shares are parameters (``scenario.turns-fraction``,
    ``scenario.obstacles-fraction``). The source gives one example (12 turns
    become 18) and no rule for odd counts; our reading, stated in the note of
    ``double-blind.scenarios``, rounds a half up, so that no scenario loses its
    only block or minefield and no turn count falls short of half again.

    >>> from harmony.loader import load
    >>> from harmony.usage import default_rules_data
    >>> from harmony.games.panzerblitz.scenario import ruleset_for
    >>> model, _ = load(default_rules_data())
    >>> r = blind_scenario({"turns": 12, "mines": 4, "blocks": 3}, ruleset_for(model, "DB"))
    >>> r.value, r.reasons
    ({'turns': 18, 'mines': 2, 'blocks': 2}, ['double-blind.scenarios'])
    >>> blind_scenario({"turns": 5, "mines": 1, "blocks": 0}, ruleset_for(model, "DB")).value
    {'turns': 8, 'mines': 1, 'blocks': 0}
    >>> blind_scenario({"turns": 5, "mines": 1, "blocks": 0}, ruleset_for(model, "PB")).value
    {'turns': 5, 'mines': 1, 'blocks': 0}
    """
    why = Why(rules)
    out = {}
    for key in ("turns", "mines", "blocks"):
        n = counts.get(key, 0)
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"{key}: a count, a whole number 0 or more, not {n!r}")
        share = Fraction(why.p("scenario.turns-fraction" if key == "turns"
                               else "scenario.obstacles-fraction"))
        out[key] = int(ceil(n * share))
    return why.ruling(out, "adjusted for the rules")


__all__ = ["Intent", "OrderError", "Referee", "blind_scenario"]

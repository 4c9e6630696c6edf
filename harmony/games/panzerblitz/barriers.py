"""Barriers: what makes one step of a move impossible (blocks, mines, enemy units, stacking).

:func:`step_barrier` says whether the unit on the move may take its next step
into hex ``to`` and, when it may not, why, as a :class:`~harmony.rulings.Ruling`
whose value names the cause and whose reasons are the clauses whose
parameters decided it. Each check is a parameter of the ruleset (no ruleset
is named here); the stacking limit of each side is scenario data
(``Game.stacking``), since the sources give no number of their own.

In open play the engine refuses such a step (the player could see it coming);
a referee replaying blind moves stops the unit where it is instead
(:mod:`harmony.games.panzerblitz.referee`).

>>> from harmony.loader import load
>>> from harmony.usage import default_rules_data
>>> from harmony.games.panzerblitz.engine import Game
>>> from harmony.games.panzerblitz.scenario import ruleset_for
>>> model, _ = load(default_rules_data())
>>> g = Game.from_data(ruleset_for(model, "DB"), {"columns": 5, "rows": 3, "blocks": {"C2": "Soviet"}}, [
...     {"id": "tank", "side": "German", "kind": "armoured", "class": "A", "attack": 12,
...      "range": 8, "defence": 8, "movement": 6, "at": "A2"}], side="German", phase="movement")
>>> g.begin_move("tank"); g.enter("B2").hex
'B2'
>>> b = step_barrier(g, g.unit("tank"), g.hex("C2")); b.value, b.reasons
({'cause': 'block', 'hex': 'C2', 'stopped-at': 'B2'}, ['double-blind.movement'])
>>> step_barrier(g, g.unit("tank"), g.hex("B3")) is None
True
"""
from __future__ import annotations

from typing import Any

from .hexgrid import Hex, label
from harmony.rulings import Ruling, Why
from .units import Unit

#: a :class:`harmony.games.panzerblitz.engine.Game` (not imported: the engine imports this module)
Game = Any

#: the causes of a stop, in the order they are checked
CAUSES = ("mines", "block", "enemy", "stacking")


def rule_on(why: Why, name: str) -> bool:
    """Parameter ``name`` read through ``why``; False, and not recorded, when the rules'
    registry does not declare it (a harmony of other games need not know of blocks).

    >>> from harmony.ruleset import Ruleset
    >>> rule_on(Why(Ruleset.from_values("X", {})), "move.mines-stop")
    False
    """
    return name in why.ruleset.settings and bool(why.p(name))


def stack_count(game: Game, side: str, h: Hex, leaving: Unit | None = None) -> int:
    """The counters of ``side`` in ``h`` (carried units ride in their transport and are not
    counted; ``leaving`` is left out)."""
    return sum(1 for u in game.alive() if u.side == side and u.hex == h and not u.loaded
               and u is not leaving)


def step_barrier(game: Game, u: Unit, to: Hex) -> Ruling | None:
    """Why ``u``, on the move in ``game``, may not step into ``to`` now; None if it may.

    The value is ``{"cause", "hex", "stopped-at"}`` (and ``"units"``, the enemy units
    met, for an enemy): ``hex`` is where the barrier is, ``stopped-at`` where the unit
    stands. Checked in order: leaving a mined hex it entered in this move, a block in
    ``to``, enemy units in ``to`` it does not overrun, overstacking ``to``.
    """
    mv = game.move
    why = Why(game.rules)
    here = u.hex

    def stop(cause: str, where: Hex, detail: str, **more) -> Ruling:
        value = {"cause": cause, "hex": label(where), "stopped-at": label(here)}
        value.update(more)
        return why.ruling(value, detail)

    if to == here:
        return None
    if game.map.mined(here) and mv is not None and here in mv.path and rule_on(why, "move.mines-stop"):
        return stop("mines", here, f"{u.id} entered the mined hex {label(here)} in this move and "
                                   "may not leave it")
    if game.map.block(to) and rule_on(why, "move.blocks-bar-entry"):
        return stop("block", to, f"a block stands in {label(to)}")
    enemies = sorted(e.id for e in game.alive() if e.side != u.side and e.hex == to and not e.loaded)
    if enemies and rule_on(why, "move.enemy-hex-needs-overrun"):
        overrun = mv.overrun if mv is not None else None
        if not (u.may_overrun and overrun in enemies):
            reason = (f"{u.id} may not make overrun attacks" if not u.may_overrun
                      else f"{u.id}'s move declares no overrun of {', '.join(enemies)}")
            return stop("enemy", to, f"enemy units in {label(to)}: {reason}", units=enemies)
    limit = game.stacking.get(u.side)
    if limit is not None and rule_on(why, "move.stacking-in-movement"):
        there = stack_count(game, u.side, to, leaving=u) + 1
        if there > limit:
            return stop("stacking", to, f"{label(to)} would hold {there} {u.side} units; the "
                                        f"scenario's limit is {limit}")
    return None


__all__ = ["CAUSES", "rule_on", "step_barrier", "stack_count"]

"""Combat Patrol, as a game of :mod:`harmony.game`: a calculator, not a board.

Its clauses' examples ask :class:`~harmony.games.combatpatrol.calculator.CombatPatrol` (in their
namespace) for exact answers from the booklet's tables, each answer a ruling
naming the clauses that decide it; it plays no scenario and draws no board.
"""
from __future__ import annotations

from typing import Any

from harmony.game import Game
from harmony.model import Model

from .calculator import CombatPatrol


def namespace(model: Model) -> dict[str, Any]:
    """What a Combat Patrol example sees besides the core's names: the calculator.

    >>> sorted(namespace(None))
    ['CombatPatrol']
    """
    return {"CombatPatrol": CombatPatrol}


GAME = Game(name="combat-patrol", namespace=namespace)

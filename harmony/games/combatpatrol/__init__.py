"""Combat Patrol, as a game of :mod:`harmony.game`: figures on a table measured in inches.

* :mod:`.calculator`: exact answers from the booklet's tables (its clauses' examples ask
  :class:`~harmony.games.combatpatrol.calculator.CombatPatrol`, in their namespace);
* :mod:`.figures`: figures, teams, the table and its woods, positions as exact Fractions;
* :mod:`.night`: the night fighting rules of section 7.11 (who is seen, muzzle flashes,
  Guts at night);
* :mod:`.spotting`: the alternate spotting rules of section 7.12 (line of sight, Table 9,
  attempts with the drawn card as input, results, persistence);
* :mod:`.movement`: sprinting (7.2) and figures out of command (7.3);
* :mod:`.command`: command dice for columns (7.4) and the loss of a platoon leader (7.8);
* :mod:`.cavalry`: mounted movement, a horse hit, melee and firing from the saddle (7.10);
* :mod:`.vehicles`: small arms against armour (Method 1, Table 5; Method 2), disabling
  anti-tank guns, engine hits on soft-skinned vehicles (7.5 to 7.7);
* :mod:`.bodyarmour`: body armour classes and whether a hit gets through (7.9);
* :mod:`.scenario`: scenarios with a map in inches, checked and played under each ruleset.

Every answer is a ruling naming the clauses that decide it. It draws no board yet: a
scenario page shows its questions and the outcome matrix.
"""
from __future__ import annotations

from typing import Any

from harmony.game import Game
from harmony.model import Model

from . import bodyarmour, cavalry, command, movement, night, scenario, spotting, vehicles
from .calculator import CombatPatrol


def namespace(model: Model) -> dict[str, Any]:
    """What a Combat Patrol example sees besides the core's names: the calculator.

    >>> sorted(namespace(None))
    ['CombatPatrol']
    """
    return {"CombatPatrol": CombatPatrol}


PARAMETERS = (night.PARAMETERS + spotting.PARAMETERS + movement.PARAMETERS + command.PARAMETERS
              + cavalry.PARAMETERS + vehicles.PARAMETERS + bodyarmour.PARAMETERS)

GAME = Game(name="combat-patrol", namespace=namespace, parameters=PARAMETERS,
            play=scenario.run_scenario,
            check_scenario=scenario.check_scenario)

"""The games harmony ships, each a package behind the one interface of :mod:`harmony.game`.

* :mod:`harmony.games.panzerblitz`: the hex wargame of the PanzerBlitz family
  (PanzerBlitz, Panzer Leader, Arab-Israeli Wars, their revised rules and the
  Double-Blind variant): hex grid, terrain, units, line of sight, the rules
  engine and its referee, scenario steps, diagrams, the ruling explorer.
* :mod:`harmony.games.combatpatrol`: the Combat Patrol calculator, whose answers
  its clauses' examples compare with the PanzerBlitz family's.

:data:`harmony.game.BUILTIN` lists them by name; nothing here is imported until a
harmony's rulebooks name their game.
"""

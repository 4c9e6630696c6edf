"""The hex wargame of the PanzerBlitz family, as a game of :mod:`harmony.game`.

Its rulebooks are played on a hex board by one rules engine whose every
difference between rulebooks is a clause parameter: the examples see positions
and games (:mod:`.examples`), scenarios are steps of moves, fire and questions
(:mod:`harmony.steps`, played by :mod:`harmony.scenario`), each step is drawn
as an SVG board (:mod:`.figures`, :mod:`harmony.svg`), and the site's ruling
explorer sets up and decides positions in the browser (:mod:`harmony.explorer`).
"""
from __future__ import annotations

from harmony import explorer, scenario, svg
from harmony.game import Explorer, Game

from . import examples, figures

GAME = Game(
    name="panzerblitz",
    namespace=examples.namespace,
    play=scenario.run_scenario,
    check_scenario=scenario.check_scenario,
    draw=figures.draw,
    explorer=Explorer(link_of=explorer.link_of, style=svg.style),
    record=examples.record,
    rulings_in=examples.rulings_in,
)

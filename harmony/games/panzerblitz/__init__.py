"""The hex wargame of the PanzerBlitz family, as a game of :mod:`harmony.game`.

Its rulebooks (PanzerBlitz, Panzer Leader, Arab-Israeli Wars, the revised
rules, Double-Blind) are played on a hex board by one rules engine whose every
difference between rulebooks is a clause parameter:

* the board: :mod:`.hexgrid` (geometry and labels), :mod:`.terrain` (terrain
  types and maps), :mod:`.los` (line of sight), :mod:`.units` (units and their
  state);
* the rules: :mod:`.engine` (every question a game answers, each a ruling
  naming its clauses), :mod:`.referee`, :mod:`.barriers` and :mod:`.knowledge`
  (the double-blind referee, blocks and mines, what a side knows);
* scenarios: :mod:`.steps` (steps read once into typed values) and
  :mod:`.scenario` (played under each ruleset, and checked);
* what the site shows: :mod:`.svg` and :mod:`.figures` (the diagrams of a
  scenario page), :mod:`.explorer` (the ruling explorer's Python side, run in
  the browser);
* :mod:`.examples`: the names its clause examples see.
"""
from __future__ import annotations

from typing import Any

from harmony.game import Explorer, Game
from harmony.model import Model

from . import scenario

# The drawing, the examples' names and the explorer's site side are imported when first
# used: the ruling explorer runs this game in the browser, where each module imported
# costs its reading and compiling before the first ruling.


def _namespace(model: Model) -> dict[str, Any]:
    from .examples import namespace
    return namespace(model)


def _record(ns: dict, note) -> dict:
    from .examples import record
    return record(ns, note)


def _rulings_in(value: Any) -> tuple | None:
    from .examples import rulings_in
    return rulings_in(value)


def _draw(sc, result) -> dict:
    from .figures import draw
    return draw(sc, result)


def _style() -> dict:
    from .svg import style
    return style()


def _link_of(model: Model, scenario_id: str) -> str:
    from .explorer import link_of
    return link_of(model, scenario_id)


def _limits() -> dict:
    from .explorer import limits
    return limits()


def _catalogue(model: Model) -> dict:
    import json

    from .explorer import Explorer as Page
    return json.loads(Page(model).catalogue())


def _schema_ahead() -> str:
    from .explorer import schema_ahead
    return schema_ahead()


GAME = Game(
    name="panzerblitz",
    namespace=_namespace,
    play=scenario.run_scenario,
    check_scenario=scenario.check_scenario,
    draw=_draw,
    explorer=Explorer(link_of=_link_of, style=_style, limits=_limits,
                      module="harmony.games.panzerblitz.explorer", catalogue=_catalogue,
                      schema_ahead=_schema_ahead),
    record=_record,
    rulings_in=_rulings_in,
)

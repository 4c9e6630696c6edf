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
* scenarios: :mod:`.steps` (steps read once into typed values), :mod:`.scenario` (played
  under each ruleset) and :mod:`.checks` (checked without playing);
* what the site shows: :mod:`.svg` and :mod:`.figures` (the diagrams of a
  scenario page), :mod:`.explorer` (the ruling explorer's Python side, run in
  the browser);
* :mod:`.examples`: the names its clause examples see, and the positions they set up
  drawn for the site.
"""
from __future__ import annotations

from typing import Any, Callable

from harmony.game import Explorer, Game


# Each module is imported when first used: a ``harmony check`` whose scenarios were checked
# and played before (harmony.playcache) reads what each check found and each play's errors,
# and imports neither the engine nor the steps' reader nor the checks; it draws nothing.
# The ruling explorer runs this game in the browser, where each module imported costs its
# reading before the first ruling: its module imports the YAML writer and jsonschema only
# where it needs them.
def _namespace(model) -> dict[str, Any]:
    from .examples import namespace
    return namespace(model)


def _play(model, scenario_id: str, rulesets: list[str] | None = None):
    from .scenario import run_scenario
    return run_scenario(model, scenario_id, rulesets)


def _record(ns: dict, note: Callable[[str, Any], None]) -> dict:
    from .examples import record
    return record(ns, note)


def _rulings_in(value: Any) -> tuple | None:
    from .examples import rulings_in
    return rulings_in(value)


def _draw_positions(ns: dict, keep: Callable[[dict], None], prefix: str) -> dict:
    from .examples import draw_positions
    return draw_positions(ns, keep, prefix)


def _draw(sc, result) -> dict:
    from .figures import draw
    return draw(sc, result)


def _link_of(model, scenario_id: str, page: str = "explorer.html") -> str:
    from .explorer import link_of
    return link_of(model, scenario_id, page)


def _style() -> dict:
    from .svg import style
    return style()


def _limits() -> dict:
    from .explorer import limits
    return limits()


def _check_scenario(model, sc, report) -> None:
    """:func:`.checks.check_scenario`, remembered by the scenario's file where it has one: the
    scenario alone decides what it finds (the model given is not read). A scenario built in
    memory (the explorer's positions, ``in_memory``) is checked without the disk cache, whose
    imports are not wanted in the browser.

    >>> import os, tempfile
    >>> from harmony.diagnostics import Report
    >>> from harmony.model import Model, Scenario
    >>> os.environ["HARMONY_CACHE"] = cache = tempfile.mkdtemp()
    >>> class Position(Scenario): in_memory = True
    >>> with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
    ...     _ = f.write("# a file by the name the position gives, which it does not read\\n")
    >>> sc = Position(id="p", file=f.name, data={"rulesets": [], "map": {"columns": 3, "rows": 3},
    ...     "units": [{"id": "t", "side": "German", "at": "D9"}],
    ...     "start": {"side": "German", "phase": "movement"}, "steps": [{"end": "phase"}]})
    >>> report = Report(); _check_scenario(Model(), sc, report)
    >>> [d.message for d in report.diagnostics], os.listdir(cache)
    (['scenario p: hex D9 is off the map (3 columns, 3 rows)'], [])
    >>> del os.environ["HARMONY_CACHE"]; os.unlink(f.name)
    """
    if getattr(sc, "in_memory", False):
        problems = _problems(sc)
    else:
        from harmony.playcache import checked
        problems = checked(sc, _problems)
    report.diagnostics.extend(problems)


def _problems(sc) -> list:
    from .checks import scenario_problems
    return scenario_problems(sc)


def _catalogue(model) -> dict:
    import json

    from .explorer import Explorer as Page
    return json.loads(Page(model).catalogue())


def _schema_ahead() -> str:
    from .explorer import schema_ahead
    return schema_ahead()


GAME = Game(
    name="panzerblitz",
    namespace=_namespace,
    play=_play,
    check_scenario=_check_scenario,
    draw=_draw,
    explorer=Explorer(link_of=_link_of, style=_style, limits=_limits,
                      module="harmony.games.panzerblitz.explorer", catalogue=_catalogue,
                      schema_ahead=_schema_ahead),
    record=_record,
    rulings_in=_rulings_in,
    draw_positions=_draw_positions,
)

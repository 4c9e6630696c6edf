"""Games: the one interface between the core and a game's rules engine.

The core (loader, model, check, site, cards, diff, the pytest plugin) knows no
game. A harmony's rulebooks are played by a *game*: a :class:`Game` value,
which is all the core ever asks of a rules engine. A game provides:

* ``parameters``: the names of the parameters its engine reads (None: it may
  read any parameter of the registry); ``harmony check`` requires a value
  (set, inherited or a default) in each of its rulesets for those only;
* ``namespace(model)``: the names its clause examples see, besides the ones
  every example sees (:func:`example_namespace`: ``model``, ``rules(name)``,
  ``Ruleset``, ``Ruling``, ``Why``, ``Fraction``);
* ``check_scenario(model, scenario, report)``: what is wrong in one of its
  scenarios (its own steps, phases, questions and map), without playing it;
  the core has already checked the envelope (:func:`check_envelope`);
* ``play(model, scenario_id, rulesets)``: the scenario played under each
  ruleset, a :class:`ScenarioResult` whose rows hold each question's
  :class:`~harmony.rulings.Ruling` (a value and the clauses that decided it);
* ``draw(scenario, result)``: how its scenario page draws each step: a
  mapping of ``figures`` (each ``{"svg", "number", "caption", ...}``), ``steps``
  (each ``{"number", "note", "figure", "own_figure"}``), ``names`` (unit id ->
  name) and ``referee_boards`` (whether some figures are a referee's boards);
* ``explorer``: what the site's ruling explorer needs, if the game offers one
  (:class:`Explorer`);
* ``record(namespace, note)`` and ``rulings_in(value)``: how the coverage
  report sees every ruling an example's games return (optional);
* ``draw_positions(namespace, keep, prefix)``: the examples' namespace with each
  position an example sets up drawn and handed to ``keep`` as a figure (``{"svg",
  "caption", "key"}``, as ``draw`` gives them; every id in its SVG starting with
  ``prefix``), so that the site shows it beside the lines that set it up
  (:mod:`harmony.examplerun`; optional: without it the examples show no diagram).

Every field but ``name`` and ``namespace`` may be left out: a game without
scenarios has its examples only. A ruling an example makes by hand names its
deciding clauses by reading the parameters through a :class:`~harmony.rulings.Why`
(``why = Why(rules("ED2"))``, ``why.p("score.bonus")``, ``why.ruling(value)``)
or by listing them (``Ruling(value, ["scoring.bonus"])``); either way the
coverage report credits the cells of those clauses.

Which game plays which rulebook: a source names its game (``game:``), else the
harmony's ``game:`` (a top-level key beside ``sources:``) names it, else it is
:data:`DEFAULT`. A name is looked up, in order, among the built-in games
(:data:`BUILTIN`, listed here and loaded only when asked for: no game registers
itself by being imported), a module of that name in the harmony's folder
(``NAME.py`` or ``NAME/__init__.py``, its attribute ``GAME``; the folder's own
Python, loaded only when it may run: :func:`trusting`), and the
``harmony.games`` entry points of the installed packages.

>>> sorted(BUILTIN)
['combat-patrol', 'panzerblitz']
>>> builtin("panzerblitz").name
'panzerblitz'
"""
from __future__ import annotations

import dataclasses
import importlib
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from .diagnostics import Diagnostic, Pos, Report
from .model import Model, Scenario
from .ruleset import Ruleset, RulesetError, ruleset_for
from .rulings import Ruling, Why
from .trust import Trust

#: The games harmony ships: name -> "module:attribute", imported only when a harmony asks.
BUILTIN: dict[str, str] = {
    "panzerblitz": "harmony.games.panzerblitz:GAME",
    "combat-patrol": "harmony.games.combatpatrol:GAME",
}
#: The game of a rulebook that names none (nor does its harmony): the hex wargame.
DEFAULT = "panzerblitz"
#: The entry point group under which installed packages offer games.
ENTRY_POINTS = "harmony.games"


# ------------------------------------------------------------ what a game plays

@dataclass
class RulingRow:
    """One expected ruling of one question under one ruleset, and the engine's."""

    step: int
    question: str
    ruleset: str
    expected: Any
    actual: Any
    expected_reasons: list[str]
    reasons: list[str]
    ok: bool
    pos: Pos
    detail: str = ""
    ask: Any = None
    #: the clause that refused the step (or the question) when the engine gave no answer
    clause: str | None = None

    def explain(self) -> str:
        """A failure message for humans."""
        lines = [f"{self.pos}: step {self.step + 1}, {self.ruleset}: {self.question}"]
        if self.expected != self.actual:
            lines.append(f"  expected value {self.expected!r}, the engine says {self.actual!r}")
        if sorted(self.expected_reasons) != self.reasons:
            lines.append(f"  expected because {sorted(self.expected_reasons)}, the engine's reasons "
                         f"are {self.reasons}")
        if self.detail:
            lines.append(f"  ({self.detail})")
        return "\n".join(lines)


@dataclass
class ScenarioResult:
    """A scenario played: its rows (one per expected ruling), per-step snapshots for its
    diagrams (``{ruleset: [snapshot, ...]}``, the game's own plain data), its map as plain
    data, and the problems met while playing."""

    scenario: Scenario
    rulesets: list[str]
    rulings: list[RulingRow] = field(default_factory=list)
    snapshots: dict[str, list[dict]] = field(default_factory=dict)
    map: dict = field(default_factory=dict)
    errors: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors and all(r.ok for r in self.rulings)


# ------------------------------------------------------------------ the interface

@dataclass(frozen=True)
class Explorer:
    """What the site's ruling explorer needs of a game: a link (relative to the site's
    top) that opens one of its scenarios in the explorer, the drawing style the
    explorer's page draws boards with, and the limits its page checks in a shared
    position before reading it (all as JSON data); the module the page runs in the
    browser (``module``: its ``Explorer`` class, made by ``Explorer.from_json`` of
    :func:`harmony.modeljson.dumps`, answers the page), what a position may hold
    (``catalogue(model)``, as JSON data, worked out when the site is built) and the
    source of a module of quick schema validators compiled ahead for the browser
    (``schema_ahead()``, :func:`harmony.schema.compile_ahead`)."""

    link_of: Callable[[Model, str], str]
    style: Callable[[], dict]
    limits: Callable[[], dict] | None = None
    module: str = ""
    catalogue: Callable[[Model], dict] | None = None
    schema_ahead: Callable[[], str] | None = None


@dataclass(frozen=True)
class Game:
    """A game's rules engine, as the core sees it (see the module's documentation)."""

    name: str
    namespace: Callable[[Model], dict[str, Any]]
    parameters: tuple[str, ...] | None = None
    play: Callable[[Model, str, list[str] | None], ScenarioResult] | None = None
    check_scenario: Callable[[Model, Scenario, Report], None] | None = None
    draw: Callable[[Scenario, ScenarioResult], dict] | None = None
    explorer: Explorer | None = None
    record: Callable[[dict, Callable[[str, Any], None]], dict] | None = None
    rulings_in: Callable[[Any], Iterable[Any] | None] | None = None
    draw_positions: Callable[[dict, Callable[[dict], None], str], dict] | None = None
    #: the file the game's code is read from when it is not built in (its results are
    #: then never remembered on disk: harmony's code fingerprint does not cover it)
    origin: str = field(default="", compare=False)


class GameError(LookupError):
    """A game name that names no game, or a module that offers none."""


# ------------------------------------------------------------------ finding games

def builtin(name: str) -> Game:
    """The built-in game ``name`` (:data:`BUILTIN`), imported now."""
    module, _, attr = BUILTIN[name].partition(":")
    return getattr(importlib.import_module(module), attr)


def _in_folder(root: Path, name: str) -> bool:
    return (root / f"{name}.py").is_file() or (root / name / "__init__.py").is_file()


def _from_folder(root: Path, name: str) -> Game | None:
    for path in (root / f"{name}.py", root / name / "__init__.py"):
        if path.is_file():
            import hashlib
            import importlib.util
            digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
            modname = f"harmony_game_{name.replace('-', '_')}_{digest}"
            if modname not in sys.modules:
                spec = importlib.util.spec_from_file_location(
                    modname, path, submodule_search_locations=[str(path.parent)]
                    if path.name == "__init__.py" else None)
                if spec is None or spec.loader is None:
                    return None
                module = importlib.util.module_from_spec(spec)
                sys.modules[modname] = module
                try:
                    spec.loader.exec_module(module)
                except BaseException:
                    del sys.modules[modname]
                    raise
            game = getattr(sys.modules[modname], "GAME", None)
            if not isinstance(game, Game):
                raise GameError(f"{path} defines no GAME (a harmony.game.Game)")
            # the folder's own code: its results are never remembered on disk (_remembered)
            return game if game.origin else dataclasses.replace(game, origin=str(path))
    return None


def _from_entry_point(name: str) -> Game | None:
    from importlib import metadata
    for ep in metadata.entry_points(group=ENTRY_POINTS):
        if ep.name == name:
            game = ep.load()
            if not isinstance(game, Game):
                raise GameError(f"entry point {ENTRY_POINTS}:{name} ({ep.value}) is not a "
                                "harmony.game.Game")
            return game
    return None


#: the trust of the command now running (:func:`reading_as`), for models nobody told
_READING: ContextVar[Trust | None] = ContextVar("harmony_game_trust", default=None)


def trusting(model: Model, trust: Trust | None) -> None:
    """Read ``model``'s harmony with ``trust`` (:mod:`harmony.trust`): whether a game module
    of its folder may be loaded. A model nobody said this of honours :func:`reading_as`,
    else the environment (:meth:`Trust.of`)."""
    if trust is not None:
        model.__dict__["_trust"] = trust


@contextmanager
def reading_as(trust: Trust | None) -> Iterator[None]:
    """Within the block, every model read (checked, built) is read with ``trust``."""
    token = _READING.set(trust)
    try:
        yield
    finally:
        _READING.reset(token)


def _trust(model: Model) -> Trust:
    return model.__dict__.get("_trust") or _READING.get() or Trust.of()


class UntrustedGame(GameError):
    """A game module of the rules folder, not loaded: the folder's own Python does not run."""


def find(model: Model, name: str) -> Game:
    """The game called ``name`` for the harmony of ``model`` (cached on the model):
    built in, else a module of the harmony's folder (only when the folder's own Python
    may run, :func:`trusting`), else an installed entry point."""
    cache = model.__dict__.setdefault("_games", {})
    if name not in cache:
        if name in BUILTIN:
            cache[name] = builtin(name)
        else:
            root = Path(model.root) if model.root else None
            if root is not None and root.is_file():
                root = root.parent
            if root is not None and _in_folder(root, name) and not _trust(model).runs_code:
                raise UntrustedGame(f"game '{name}' is the rules folder's own Python and was "
                                    f"not loaded ({_trust(model).why}): its scenarios are not "
                                    "checked or played")
            game = _from_folder(root, name) if root is not None else None
            game = game or _from_entry_point(name)
            if game is None:
                raise GameError(f"no game '{name}': not built in ({', '.join(sorted(BUILTIN))}), "
                                f"no {name}.py in the rules folder, no '{ENTRY_POINTS}' entry "
                                "point of that name")
            cache[name] = game
    return cache[name]


def game_name(model: Model, source: str | None = None) -> str:
    """The name of the game that plays ``source`` (the harmony's own, without one)."""
    s = model.sources.get(source) if source else None
    return (s.game if s is not None and s.game else None) or model.game or DEFAULT


def reads(model: Model, key: str) -> tuple[str, ...] | None:
    """The parameters the game of source ``key`` reads (None: any of the registry's, and
    for a game that cannot be found)."""
    try:
        return find(model, game_name(model, key)).parameters
    except Exception:  # noqa: BLE001  an unknown game is reported by check_scenarios
        return None


def game_for(model: Model, ruleset: str | None = None) -> Game:
    """The game that plays ``ruleset`` (``"REV+concealed-movement"``: REV's game)."""
    key = ruleset.split("+", 1)[0] if ruleset else None
    return find(model, game_name(model, key))


def scenario_game(model: Model, sc: Scenario) -> Game:
    """The game a scenario is played by, under all its rulesets: that of the first ruleset
    whose game plays scenarios (a game that plays none, such as a calculator's, leaves its
    rulesets to it; the envelope check warns at rulesets of two games that play), else the
    first's; the harmony's when it names none."""
    names = sc.data.get("rulesets") if isinstance(sc.data, dict) else None
    names = [n for n in names if isinstance(n, str)] if isinstance(names, list) else []
    for name in names:
        try:
            game = game_for(model, name)
        except GameError:
            continue
        if game.play is not None:
            return game
    return game_for(model, names[0] if names else None)


def clause_game(model: Model, clause: Any = None) -> Game:
    """The game whose names a clause's examples see: that of its cells' sources when
    they all have one game, else the harmony's."""
    if clause is not None:
        names = {game_name(model, key) for key in getattr(clause, "cells", {})}
        if len(names) == 1:
            return find(model, names.pop())
    return find(model, game_name(model))


# ------------------------------------------------------------------ examples

def example_namespace(model: Model, clause: Any = None) -> dict[str, Any]:
    """The names a clause example sees: ``model``, ``rules(name)`` (a
    :class:`~harmony.ruleset.Ruleset`, e.g. ``rules("REV")``; read a parameter with
    ``rules("REV")["spot.adjacent"]`` or, with the clause that set it,
    ``.setting(name)``), ``Ruleset``, ``Ruling``, ``Why`` (reads parameters and
    makes a ruling naming the clauses that set them), ``Fraction``, then the names of
    the game of the clause (:func:`clause_game`).

    >>> from harmony.loader import load
    >>> from harmony.usage import default_rules_data
    >>> m, _ = load(default_rules_data())
    >>> ns = example_namespace(m)
    >>> why = ns["Why"](ns["rules"]("REV"))
    >>> why.ruling(why.p("spot.adjacent")).reasons
    ['spotting.spotted']
    >>> "Ruling" in ns, "board" in ns, "CombatPatrol" in example_namespace(m, m.clauses["cp-body-armour.penetration"])
    (True, True, True)
    """
    def rules(name: str) -> Ruleset:
        return ruleset_for(model, name)

    ns: dict[str, Any] = {"model": model, "rules": rules, "Ruleset": Ruleset, "Ruling": Ruling,
                          "Why": Why, "Fraction": Fraction}
    ns.update(clause_game(model, clause).namespace(model))
    return ns


# ------------------------------------------------------------------ scenarios

def run_scenario(model: Model, scenario_id: str,
                 rulesets: list[str] | None = None) -> ScenarioResult:
    """Play scenario ``scenario_id`` under each of its rulesets (or ``rulesets``) by its
    game; a game that plays no scenario gives a result with that error."""
    sc = model.scenarios.get(scenario_id)
    if sc is None:
        raise KeyError(f"no scenario '{scenario_id}' (scenarios: {', '.join(sorted(model.scenarios))})")
    try:
        game = scenario_game(model, sc)
    except GameError as e:
        return _refused(sc, rulesets, str(e))
    if game.play is None:
        return _refused(sc, rulesets, f"the game '{game.name}' plays no scenario")
    return game.play(model, scenario_id, rulesets)


def _refused(sc: Scenario, rulesets: list[str] | None, why: str) -> ScenarioResult:
    names = list(rulesets or sc.data.get("rulesets") or [])
    result = ScenarioResult(sc, names)
    result.errors.append(Diagnostic(sc.pos("rulesets"), "error", f"scenario {sc.id}: {why}",
                                    "scenario-game"))
    return result


def played(model: Model, scenario_id: str) -> ScenarioResult:
    """:func:`run_scenario` under the scenario's own rulesets, played once per model and
    shared (by ``harmony check``, its coverage report and the site): the results live and
    die with the model they were played from. Callers read the result; they never change it.

    >>> from harmony.loader import load
    >>> from harmony.usage import default_rules_data
    >>> m, _ = load(default_rules_data())
    >>> played(m, "rev-figure-1") is played(m, "rev-figure-1")
    True
    """
    cache = model.__dict__.setdefault("_played", {})
    if scenario_id not in cache:
        cache[scenario_id] = _remembered(model, scenario_id)
    return cache[scenario_id]


def played_errors(model: Model, scenario_id: str) -> list[Diagnostic]:
    """The errors of :func:`played`: those of the result a process played before from the same
    scenario text and rulesets (:func:`harmony.playcache.recall_errors`) when this model has
    not played it, read without the whole result (which would import the game's modules).

    >>> from harmony.loader import load
    >>> from harmony.usage import default_rules_data
    >>> m, _ = load(default_rules_data())
    >>> played_errors(m, "rev-figure-1") == played(m, "rev-figure-1").errors == []
    True
    """
    if scenario_id not in model.__dict__.get("_played", {}):
        from . import playcache
        errors = playcache.recall_errors(_remembered_key(model, scenario_id))
        if errors is not None:
            return errors
    return played(model, scenario_id).errors


def _remembered_key(model: Model, scenario_id: str) -> str | None:
    """The key under which :mod:`harmony.playcache` keeps this scenario's result, or None
    where it is never kept (no such scenario, rulesets that do not resolve, a harmony's own
    game).

    >>> from harmony.loader import load
    >>> from harmony.usage import default_rules_data
    >>> m, _ = load(default_rules_data())
    >>> m.scenarios["unnamed"] = Scenario(id="unnamed", file=m.scenarios["rev-figure-1"].file, data={})
    >>> [_remembered_key(m, sid) for sid in ("no-such-scenario", "unnamed")]
    [None, None]
    >>> len(_remembered_key(m, "rev-figure-1"))
    64
    """
    from . import playcache
    sc = model.scenarios.get(scenario_id)
    if sc is None or not isinstance(sc.data, dict):
        return None
    names = sc.data.get("rulesets")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return None
    try:
        if scenario_game(model, sc).origin:
            return None
        rulesets = [ruleset_for(model, n) for n in names]
    except (RulesetError, GameError):
        return None
    return playcache.key(sc, rulesets)


def _remembered(model: Model, scenario_id: str) -> ScenarioResult:
    """:func:`run_scenario`, or its result as a process played it before from the same
    scenario text and the same resolved rulesets (:mod:`harmony.playcache`), for a
    built-in game."""
    from . import playcache
    k = _remembered_key(model, scenario_id)
    if k is None:
        return run_scenario(model, scenario_id)
    sc = model.scenarios[scenario_id]
    result = playcache.recall(k, sc)
    if result is None:
        result = run_scenario(model, scenario_id)
        playcache.remember(k, result)
    return result


def check_envelope(model: Model, sc: Scenario, report: Report) -> None:
    """What the core checks in every scenario, whatever its game: its rulesets resolve
    (a warning when two of them are of games that play scenarios: :func:`scenario_game`
    plays them all), its clauses exist, and each expected ruling (a step's
    ``expect:`` item's ``rulings:``) is for one of its rulesets and cites clauses that
    exist.

    >>> from harmony.model import Scenario
    >>> sc = Scenario(id="s", data={"rulesets": ["PB"], "clauses": ["nope"], "steps": [
    ...     {"expect": [{"question": "Q?", "rulings": {"PL": {"value": 1, "because": ["x"]}}}]}]})
    >>> report = Report(); check_envelope(Model(), sc, report)
    >>> for d in report.diagnostics: print(d.message)
    scenario s: unknown ruleset source 'PB' (known: )
    scenario s: names clause 'nope', which does not exist
    scenario s: ruling for 'PL', which is not one of the scenario's rulesets (PB)
    scenario s: cites clause 'x', which does not exist
    """
    d = sc.data
    err = lambda pos, msg, code: report.error(pos, f"scenario {sc.id}: {msg}", code)  # noqa: E731
    names = list(d.get("rulesets") or [])
    games: dict[str, str] = {}      # the games that play scenarios, by their first ruleset
    for k, name in enumerate(names):
        try:
            ruleset_for(model, name)   # resolved once per model, as the play resolves it
        except RulesetError as e:
            err(sc.pos("rulesets", k), str(e), "unresolved-ruleset")
            continue
        try:
            if game_for(model, name).play is not None:
                games.setdefault(game_name(model, name.split("+", 1)[0]), name)
        except GameError:
            pass                       # reported at the game's name
    if len(games) > 1:
        first = next(iter(games))
        report.warning(sc.pos("rulesets"), f"scenario {sc.id}: plays rulesets of several games ("
                       + ", ".join(f"{n}: {g}" for g, n in sorted(games.items())) + "); the "
                       f"first, {first}, plays them all", "scenario-game")
    for k, cid in enumerate(d.get("clauses") or []):
        if cid not in model.clauses:
            err(sc.pos("clauses", k), f"names clause '{cid}', which does not exist", "unresolved-clause")
    for i, step in enumerate(d.get("steps") or []):
        for j, exp in enumerate(step.get("expect") or [] if isinstance(step, dict) else []):
            rulings = exp.get("rulings") if isinstance(exp, dict) else None
            for rs, ruling in (rulings or {}).items():
                at = ("steps", i, "expect", j, "rulings", rs)
                if rs not in names:
                    err(sc.pos(*at, key=True), f"ruling for '{rs}', which is not one of the "
                        f"scenario's rulesets ({', '.join(names)})", "unresolved-ruleset")
                because = ruling.get("because") if isinstance(ruling, dict) else None
                for m, cid in enumerate(because or []):
                    if cid not in model.clauses:
                        err(sc.pos(*at, "because", m), f"cites clause '{cid}', which does not "
                            "exist", "unresolved-clause")


def check_scenario(model: Model, sc: Scenario, report: Report) -> None:
    """The problems of one scenario that the schema cannot see, without playing it: the
    envelope's (:func:`check_envelope`), then its game's."""
    check_envelope(model, sc, report)
    try:
        game = scenario_game(model, sc)
    except UntrustedGame:
        return              # said once, at the game's name (check_scenarios)
    except GameError as e:
        report.error(sc.pos("rulesets"), f"scenario {sc.id}: {e}", "scenario-game")
        return
    if game.check_scenario is not None:
        game.check_scenario(model, sc, report)
    elif game.play is None:
        report.error(sc.pos("rulesets"), f"scenario {sc.id}: the game '{game.name}' plays no "
                     "scenario", "scenario-game")


def check_scenarios(model: Model, report: Report) -> None:
    """``harmony check``: every scenario checked (:func:`check_scenario`), and those with
    no problem played under each of their rulesets, a step the engine refuses being an
    error at its position; and every game named by the harmony found."""
    _check_games(model, report)
    for sc in sorted(model.scenarios.values(), key=lambda s: (s.file, s.id)):
        before = len(report.errors)
        check_scenario(model, sc, report)
        if len(report.errors) == before and _playable(model, sc):
            for d in played_errors(model, sc.id):
                if d.code in ("scenario-step", "scenario-setup", "scenario-game"):
                    report.diagnostics.append(d)


def _playable(model: Model, sc: Scenario) -> bool:
    try:
        scenario_game(model, sc)
    except UntrustedGame:
        return False
    except GameError:
        pass
    return True


def _check_games(model: Model, report: Report) -> None:
    named = [(model.game, model.game_pos)] if model.game else []
    named += [(s.game, s.pos("game")) for s in model.sources.values() if s.game]
    for name, pos in named:
        try:
            find(model, name)
        except UntrustedGame as e:
            report.warning(pos or Pos(model.root), str(e), "untrusted-game")
        except GameError as e:
            report.error(pos or Pos(model.root), str(e), "unknown-game")
        except Exception as e:  # noqa: BLE001  the harmony's own code failed to import
            report.error(pos or Pos(model.root), f"game '{name}' could not be loaded: "
                         f"{type(e).__name__}: {e}", "unknown-game")

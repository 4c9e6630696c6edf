"""Scenarios: play a scenario file under each of its rulesets and compare rulings.

The format is described in ``site/scenarios.rst`` and, exactly, by the
``scenario`` definition of the JSON Schema. The steps are read once, into the
typed values of :mod:`harmony.games.panzerblitz.steps`; this module plays them.
:func:`run_scenario` plays a scenario of a loaded model under every ruleset it
names and returns a :class:`ScenarioResult`: one :class:`RulingRow` per
expected ruling (with the engine's answer, its reasons and where the
expectation is in the YAML), and per-step snapshots for diagrams.
:func:`check_scenario` (run by ``harmony check`` through :mod:`harmony.game`, from
:mod:`harmony.games.panzerblitz.checks`) reports malformed steps and references that do not
resolve, with positions.

Public API (kept stable for the site and diff tools):

* ``run_scenario(model, scenario_id) -> ScenarioResult``
* ``ScenarioResult.scenario`` (the :class:`harmony.model.Scenario`),
  ``.rulesets`` (names played), ``.rulings`` (rows), ``.snapshots``
  (``{ruleset: [step snapshot, ...]}``), ``.map`` (plain map data),
  ``.errors`` (diagnostics from playing), ``.ok``
* ``check_scenario(model, scenario, report)`` (what ``harmony check`` finds in one, without
  playing it: :mod:`harmony.games.panzerblitz.checks`)
* ``RulingRow``: ``step``, ``question``, ``ruleset``, ``expected``,
  ``actual``, ``expected_reasons``, ``reasons``, ``ok``, ``pos``, ``detail``,
  ``ask`` (the :class:`harmony.games.panzerblitz.steps.Ask`)

A step snapshot is plain data::

    {"step": 0, "note": "...", "action": "move" | "fire" | "end" | "orders" | "unload" | "ask",
     "mover": "hetzer", "path": ["F3", "E3"], "entries": [...per hex entered...],
     "fire": {...}, "unload": {"unit", "units", "spotted", "detail"},
     "sights": [{"from", "to", "clear", "lines", "blocked-by"}],
     "turn": 1, "side": "German", "phase": "movement",
     "units": [{"id", "name", "side", "kind", "class", "at", "face", "dispersal",
                "markers", "marker-reasons", "loaded-in"}], "log": ["..."]}

A step that cannot be played (an order the engine refuses) is an error at
the position of the value at fault (the hex of the path, the unit ...).
"""
from __future__ import annotations

from harmony.diagnostics import Diagnostic, Pos
from .engine import EngineError, Game
from harmony.game import RulingRow, ScenarioResult
from harmony.model import Model, Scenario
from .barriers import rule_on
from .referee import Intent, OrderError, Referee
from harmony.ruleset import Ruleset, RulesetError, ruleset_for, wrong_settings
from harmony.rulings import Ruling, Why
from .steps import (Ask, CanFire, Dispersal, End, Expectation, Face, Fire, Interdiction, Los,
                    MayMove, Markers, Move, OpFire, Orders, ParsedSteps, Spotted, Step, Stop, Unload,
                    Unloaded, View, Where, steps_of)
from .terrain import HexMap, MapError
from .checks import check_scenario  # noqa: F401 (part of this module's API: see above)


class ScenarioError(Exception):
    """A step the engine could not play, at the position of the value at fault."""

    def __init__(self, pos: Pos, message: str, clause: str | None = None):
        super().__init__(message)
        self.pos, self.message, self.clause = pos, message, clause


class StateWhy:
    """Why each unit is where it is, dispersed or not, face up or down: the rulings of the
    rules that made it so, noted as the scenario is played, for the state questions
    (``where``, ``dispersal``, ``face``). A state no rule changed (the set-up's, or a move
    that went where its orders said) has no reasons.

    >>> s = StateWhy()
    >>> s.hit("tank", Ruling(True, ["opportunity-fire.rule"]), "D", moving=True)
    >>> s.reading("where", "tank", "C3")
    Ruling(value='C3', reasons=['opportunity-fire.rule'])
    >>> s.moved("tank"); s.reading("where", "tank", "D3").reasons
    []
    >>> s.reading("dispersal", "tank", "D").reasons
    ['opportunity-fire.rule']
    """

    def __init__(self) -> None:
        self.why: dict[str, dict[str, list[Ruling]]] = {"where": {}, "dispersal": {}, "face": {}}

    def note(self, what: str, uid: str, ruling: Ruling | None, add: bool = False) -> None:
        """``ruling`` decides ``what`` of unit ``uid`` now (with ``add``: it also does)."""
        if not add:
            self.why[what].pop(uid, None)
        if ruling is not None:
            self.why[what].setdefault(uid, []).append(ruling)

    def moved(self, uid: str) -> None:
        """A new move begins: where the unit ends is its orders' doing until a rule stops it."""
        self.note("where", uid, None)

    def hit(self, uid: str, ruling: Ruling, result: str, moving: bool = False) -> None:
        """An attack ``ruling`` was made on ``uid`` with ``result``: a dispersed or eliminated
        unit is so by it, and a mover it hit stops where it is (or is gone) by it."""
        if result == "none":
            return
        self.note("dispersal", uid, ruling, add=True)
        if moving or result == "X":
            self.note("where", uid, ruling)

    def reading(self, what: str, uid: str, value, *more: Ruling | None) -> Ruling:
        """The answer ``value`` to a state question, with the reasons of the rulings behind it."""
        rulings = [r for r in (*self.why[what].get(uid, []), *more) if r is not None]
        settings: dict = {}
        for r in rulings:
            settings.update(r.settings)
        return Ruling(value, sorted({c for r in rulings for c in r.reasons}), settings,
                      "; ".join(r.detail for r in rulings if r.detail))


def run_scenario(model: Model, scenario_id: str, rulesets: list[str] | None = None) -> ScenarioResult:
    """Play scenario ``scenario_id`` of ``model`` under each of its rulesets.

    ``rulesets`` overrides the scenario's own list (the expectations of other
    rulesets are then left out). Malformed steps are in ``errors`` (once, not
    per ruleset); play stops before the first of them.
    """
    sc = model.scenarios.get(scenario_id)
    if sc is None:
        raise KeyError(f"no scenario '{scenario_id}' (scenarios: {', '.join(sorted(model.scenarios))})")
    data = sc.data
    names = list(rulesets or data.get("rulesets") or [])
    result = ScenarioResult(sc, names)
    try:
        result.map = HexMap.from_data(data["map"]).as_data()
    except (MapError, KeyError, TypeError, ValueError) as e:
        path = ("map",) + tuple(getattr(e, "path", ()))
        result.errors.append(Diagnostic(sc.pos(*path), "error", f"scenario {sc.id}: {e}", "scenario-map"))
        return result
    parsed = steps_of(sc)
    result.errors.extend(parsed.problems)
    for name in names:
        _play(model, sc, parsed, name, result)
    return result


def _play(model: Model, sc: Scenario, parsed: ParsedSteps, name: str, result: ScenarioResult) -> None:
    data = sc.data
    snaps: list[dict] = []
    result.snapshots[name] = snaps
    try:
        rs = ruleset_for(model, name)
        if _wrong_values(model, sc, name, rs, parsed, result):
            return
        start = data["start"]
        game = Game.from_data(rs, data["map"], data["units"], start["side"], start["phase"],
                              start.get("turn", 1))
        game.stacking = dict(data.get("stacking") or {})
        referee = Referee(game)
        referee.spotting_step()             # before the first player's move too
    except (RulesetError, EngineError, MapError) as e:
        result.errors.append(Diagnostic(sc.pos("rulesets"), "error", f"scenario {sc.id}, {name}: {e}",
                                        "scenario-setup"))
        for step in parsed.steps:
            for exp in step.expect:
                _row(result, name, step, exp, None, "the scenario could not be set up")
        return
    state = StateWhy()
    bad = parsed.first_bad()
    broken, broken_by = None, None      # why later steps cannot be played, and the clause
    for step in parsed.steps:
        if broken is None and bad is not None and step.index >= bad:
            broken = f"step {bad + 1} is malformed"
        if broken is not None:
            for exp in step.expect:
                _row(result, name, step, exp, None, broken, broken_by)
            continue
        game.take_sights()
        snap: dict = {"step": step.index, "note": step.note, "log": []}
        log_start = len(game.log)
        answered: set[int] = set()
        try:
            _do_step(game, name, step, snap, result, answered, referee, state)
        except ScenarioError as e:
            broken, broken_by = f"step {step.index + 1} could not be played: {e.message}", e.clause
            result.errors.append(Diagnostic(e.pos, "error", f"scenario {sc.id}, {name}: {broken}",
                                            "scenario-step"))
            for exp in step.expect:
                if exp.index not in answered:
                    _row(result, name, step, exp, None, broken, broken_by)
            continue
        for exp in step.expect:
            if exp.index in answered:
                continue
            if exp.ask.at is not None:
                _row(result, name, step, exp, None, f"the mover never entered {exp.ask.at} under {name}")
                continue
            try:
                _row(result, name, step, exp, _asked(game, exp.ask, referee, state))
            except ScenarioError as e:
                why = f"step {step.index + 1}: the question could not be answered: {e.message}"
                result.errors.append(Diagnostic(e.pos, "error", f"scenario {sc.id}, {name}: {why}",
                                                "scenario-step"))
                _row(result, name, step, exp, None, why, e.clause)
        try:
            snap.update(game.snapshot())
            if rule_on(Why(game.rules), "referee.hidden-boards"):
                snap["views"] = {side: _view_data(referee, side) for side in game.sides}
                snap["stops"] = {u: r.value for u, r in sorted(referee.stops.items())}
            snap["sights"] = snap.get("sights", []) + [s.as_data() for s in game.take_sights()]
        except RulesetError as e:           # an engine parameter the rules do not declare
            broken, broken_by = f"step {step.index + 1} could not be drawn: {e}", None
            result.errors.append(Diagnostic(sc.pos("rulesets"), "error", f"scenario {sc.id}, {name}: {broken}",
                                            "scenario-step"))
        snap["log"] = game.log[log_start:]
        snaps.append(snap)


def _wrong_values(model: Model, sc: Scenario, name: str, rs: Ruleset, parsed: ParsedSteps,
                  result: ScenarioResult) -> bool:
    """Refuse to play ``sc`` under a ruleset holding a value of the wrong type (the engine
    would compute with it): one ``scenario-parameter`` error, and every question unanswered."""
    wrong = wrong_settings(model, rs)
    if not wrong:
        return False
    listed = "; ".join(f"'{s.name}' at {pos}: {why}" for s, pos, why in wrong)
    result.errors.append(Diagnostic(sc.pos("rulesets"), "error", f"scenario {sc.id}, {name}: not "
                                    f"played, since the ruleset holds values of the wrong type: {listed}",
                                    "scenario-parameter"))
    for step in parsed.steps:
        for exp in step.expect:
            _row(result, name, step, exp, None, "not played: a parameter value of the wrong type")
    return True


def _at(pos: Pos, call, *args):
    """``call(*args)``; an order the engine refuses becomes a :class:`ScenarioError` at ``pos``."""
    try:
        return call(*args)
    except (EngineError, MapError, ValueError) as e:
        clause = getattr(e, "clause", None)
        raise ScenarioError(pos, f"{e} [{clause}]" if clause else str(e), clause) from None


def _asked(game: Game, ask: Ask, referee: Referee | None = None,
           state: StateWhy | None = None) -> Ruling:
    return _at(ask.pos, _ask, game, ask, referee, state)


def _view_data(referee: Referee, side: str) -> dict:
    """One side's board for diagrams: its own units, and the enemy as it knows it."""
    v = referee.view(side)
    data = v.as_data()
    data["own"] = [{"unit": u, "at": h} for u, h in sorted(v.own.items())]
    return data


def _orders(game: Game, referee: Referee, orders: Orders, snap: dict, state: StateWhy) -> None:
    """Blind moves, replayed by the referee (or played in the open where the rules have no
    referee); an impossible order is an error at its position."""
    intents = [Intent(str(o.unit), [str(h) for h in o.path], str(o.overrun) if o.overrun else None,
                      o.unload, [o.mp_at(k) for k in range(len(o.path))]) for o in orders.orders]
    for i in intents:
        state.moved(i.unit)
    try:
        referee.replay(intents)
    except OrderError as e:
        order = orders.orders[e.order]
        pos = order.path[e.step].pos if e.step is not None else order.unit.pos
        raise ScenarioError(pos, str(e)) from None
    except (EngineError, MapError, ValueError) as e:
        raise ScenarioError(orders.pos, str(e)) from None
    for i in intents:
        state.note("where", i.unit, referee.stops.get(i.unit))
    snap["orders"] = [{"unit": i.unit, "path": list(i.path), "overrun": i.overrun}
                      for i in intents]
    snap["mover"] = intents[0].unit if len(intents) == 1 else None


def _do_step(game: Game, name: str, step: Step, snap: dict, result: ScenarioResult,
             answered: set[int], referee: Referee | None = None, state: StateWhy | None = None) -> None:
    """Play one step; answer the questions asked ``at`` a hex of a move (noted in ``answered``)."""
    snap["action"] = step.kind
    state = state if state is not None else StateWhy()
    match step.action:
        case Move() as mv:
            _move(game, name, step, mv, snap, result, answered, state)
        case Fire() as f:
            r = _at(f.pos, game.fire, list(f.units), f.target, f.result)
            if r.value:
                state.hit(str(f.target), r, str(f.result))
                for u in f.units:
                    state.note("face", str(u), None)
            snap["fire"] = {"units": [str(u) for u in f.units], "target": str(f.target),
                            "result": str(f.result), "allowed": bool(r.value), "detail": r.detail}
            if r.value and referee is not None:
                snap["fire"]["reports"] = referee.after_fire([str(u) for u in f.units], f.target)
        case End() as e:
            snap["end"] = str(e.what)
            before = {u.id: (u.face_up, u.dispersed) for u in game.alive()}
            _at(e.pos, game.end_phase if e.what == "phase" else game.end_turn)
            _turned(game, before, state)
            if e.what == "turn" and referee is not None:
                referee.spotting_step()
        case Orders() as o:
            _orders(game, referee or Referee(game), o, snap, state)
        case Unload() as ul:
            cargo = [c.id for c in _at(ul.pos, game.carried, ul.unit)]
            r = _at(ul.pos, (referee or Referee(game)).unload, ul.unit)
            for c in cargo:
                state.moved(c)          # in its carrier's hex: no rule chose it
            snap["unload"] = {"unit": str(ul.unit), "units": cargo, "spotted": r.value,
                              "detail": r.detail}
        case None:
            pass


def _turned(game: Game, before: dict[str, tuple[bool, bool]], state: StateWhy) -> None:
    """After a phase or turn ends: units turned face up again are so by the rule that says
    when (``sequence.face-up``); units that recovered from dispersal are no longer dispersed
    by any attack."""
    for uid, (face_up, dispersed) in before.items():
        u = game.unit(uid)
        if not face_up and u.face_up:
            why = Why(game.rules)
            why.p("sequence.face-up")
            state.note("face", uid, why.ruling("up", "turned face up at the end of its player turn"))
        if dispersed and not u.dispersed:
            state.note("dispersal", uid, None)


def _move(game: Game, name: str, step: Step, mv: Move, snap: dict, result: ScenarioResult,
          answered: set[int], state: StateWhy) -> None:
    snap["mover"] = str(mv.unit)
    snap["path"] = []
    snap["entries"] = []
    _at(mv.unit.pos, game.begin_move, mv.unit, mv.mode, mv.overrun)
    state.moved(str(mv.unit))
    done: set[int] = set()
    for k, where in enumerate(mv.path):
        if game.move is None or game.move.stopped or game.unit(mv.unit).eliminated:
            break
        entry = _at(where.pos, game.enter, where, mv.mp_at(k))
        snap["path"].append(str(where))
        for exp in step.expect:
            if exp.index not in answered and exp.ask.at == where:
                answered.add(exp.index)
                _row(result, name, step, exp, _asked(game, exp.ask, None, state))
        for n, a in enumerate(mv.attacks):
            if n in done or a.at != where:
                continue
            done.add(n)
            if game.move is None or game.move.stopped:
                entry.attacks.append({"refused": "the mover has stopped"})
                continue
            if a.opfire:
                r = _at(a.pos, game.opportunity_fire, list(a.opfire), a.result)
                if r.value:
                    state.hit(str(mv.unit), r, str(a.result), moving=True)
                    for f in a.opfire:
                        state.note("face", str(f), None)
                if not r.value:
                    entry.attacks.append({"opfire": [str(f) for f in a.opfire], "refused": r.detail})
            elif a.interdiction is not None:
                r = _at(a.pos, game.interdict, a.interdiction, a.result)
                if r.value:
                    state.hit(str(mv.unit), r, str(a.result), moving=True)
                    state.note("face", str(a.interdiction), None)
                if not r.value:
                    entry.attacks.append({"interdiction": str(a.interdiction), "refused": r.detail})
        snap["entries"].append(entry.as_data())
    _at(mv.pos, game.end_move)


def _first(*rulings: Ruling | None) -> Ruling:
    """The first ruling given (a ruling whose value is None is still a ruling)."""
    return next((r for r in rulings if r is not None), Ruling(None, []))


def _ask(game: Game, ask: Ask, referee: Referee | None = None, state: StateWhy | None = None) -> Ruling:
    """The engine's answer to one question (the referee's, for what a side is shown). The
    state questions (where, dispersal, face) name the clauses of the rulings that put the
    unit in that state (:class:`StateWhy`); line of sight is geometry, which no rulebook
    decides, and has none."""
    referee = referee or Referee(game)
    state = state if state is not None else StateWhy()
    match ask:
        case Stop():
            game.unit(ask.unit)
            return _first(referee.stops.get(ask.unit), referee.unstopped)
        case Unloaded():
            game.unit(ask.unit)
            return _first(referee.unloads.get(ask.unit), referee.unload_rule)
        case View():
            return referee.view(ask.side).ruling()
        case Spotted():
            return game.spotted(ask.unit, ask.by)
        case MayMove():
            return game.may_move_in(str(ask.unit), str(ask.mode))
        case CanFire():
            return game.can_fire(list(ask.firers), ask.target)
        case OpFire():
            return game.opfire_options(ask.unit)
        case Interdiction():
            return game.interdiction_options(ask.unit)
        case Markers():
            return game.markers(ask.unit)
        case Los():
            return game.los(*ask.between)
        case Where():
            return state.reading("where", str(ask.unit), game.where(ask.unit))
        case Dispersal():
            u = game.unit(ask.unit)
            if not u.dispersed and not u.eliminated:
                return Ruling("none", [])
            return state.reading("dispersal", u.id, "X" if u.eliminated else u.dispersal)
        case Face():
            u = game.unit(ask.unit)
            if u.face_up:
                return state.reading("face", u.id, "up")
            # turned down by opportunity fire (the rule that says how its firer is marked)
            return state.reading("face", u.id, "down", _ruling_of(game.state_why.get(u.id)))
    raise ScenarioError(ask.pos, f"the engine has no answer to a {ask.kind or type(ask).__name__} "
                                 "question")


def _ruling_of(why: Why | None) -> Ruling | None:
    return why.ruling(None) if why is not None else None


def _row(result: ScenarioResult, name: str, step: Step, exp: Expectation, actual: Ruling | None,
         why_not: str = "", refused_by: str | None = None) -> None:
    ruling = exp.ruling(name)
    if ruling is None:
        return
    because = [str(c) for c in ruling.because]
    if actual is None:
        result.rulings.append(RulingRow(step.index, exp.question, name, ruling.value, None, because,
                                        [], False, ruling.pos, why_not, exp.ask, refused_by))
        return
    value = actual.value
    ok = value == ruling.value and sorted(because) == actual.reasons
    result.rulings.append(RulingRow(step.index, exp.question, name, ruling.value, value, because,
                                    list(actual.reasons), ok, ruling.pos, actual.detail, exp.ask))

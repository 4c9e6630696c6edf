"""Scenarios: play a scenario file under each of its rulesets and compare rulings.

The format is described in ``site/scenarios.rst`` and, exactly, by the
``scenario`` definition of the JSON Schema. :func:`run_scenario` plays a
scenario of a loaded model under every ruleset it names and returns a
:class:`ScenarioResult`: one :class:`RulingRow` per expected ruling (with the
engine's answer, its reasons and where the expectation is in the YAML), and
per-step snapshots for diagrams. :func:`check_scenarios` (registered in
``harmony check``) finds references that do not resolve, with positions.

Public API (kept stable for the site and diff tools):

* ``run_scenario(model, scenario_id) -> ScenarioResult``
* ``ScenarioResult.scenario`` (the :class:`harmony.model.Scenario`),
  ``.rulesets`` (names played), ``.rulings`` (rows), ``.snapshots``
  (``{ruleset: [step snapshot, ...]}``), ``.map`` (plain map data),
  ``.errors`` (diagnostics from playing), ``.ok``
* ``RulingRow``: ``step``, ``question``, ``ruleset``, ``expected``,
  ``actual``, ``expected_reasons``, ``reasons``, ``ok``, ``pos``, ``detail``

A step snapshot is plain data::

    {"step": 0, "note": "...", "action": "move" | "fire" | "end" | "ask",
     "mover": "hetzer", "path": ["F3", "E3"], "entries": [...per hex entered...],
     "fire": {...}, "sights": [{"from", "to", "clear", "lines", "blocked-by"}],
     "turn": 1, "side": "German", "phase": "movement",
     "units": [{"id", "name", "side", "kind", "class", "at", "face", "dispersal",
                "markers", "loaded-in"}], "log": ["..."]}
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .diagnostics import Diagnostic, Pos, Report
from .engine import EngineError, Game
from .hexgrid import adjacent, is_label, parse_label
from .model import Model, Scenario
from .ruleset import Ruleset, RulesetError
from .rulings import Ruling
from .terrain import HexMap, MapError

ASK_KINDS = ("spotted", "can-fire", "opfire", "interdiction", "markers", "los", "where",
             "dispersal", "face")


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
    ask: dict = field(default_factory=dict)

    def explain(self) -> str:
        """A failure message for humans."""
        lines = [f"{self.pos}: step {self.step}, {self.ruleset}: {self.question}"]
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
    scenario: Scenario
    rulesets: list[str]
    rulings: list[RulingRow] = field(default_factory=list)
    snapshots: dict[str, list[dict]] = field(default_factory=dict)
    map: dict = field(default_factory=dict)
    errors: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors and all(r.ok for r in self.rulings)


class ScenarioError(Exception):
    def __init__(self, pos: Pos, message: str):
        super().__init__(message)
        self.pos, self.message = pos, message


def ruleset_for(model: Model, name: str) -> Ruleset:
    """``Ruleset.from_model``, cached on the model itself: the cache lives and dies with
    the model it was computed from, so a model loaded later never sees stale rulesets."""
    cache = model.__dict__.setdefault("_rulesets", {})
    if name not in cache:
        cache[name] = Ruleset.from_model(model, name)
    return cache[name]


def run_scenario(model: Model, scenario_id: str, rulesets: list[str] | None = None) -> ScenarioResult:
    """Play scenario ``scenario_id`` of ``model`` under each of its rulesets.

    ``rulesets`` overrides the scenario's own list (the expectations of other
    rulesets are then left out).
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
    for name in names:
        _play(model, sc, name, result)
    return result


def _play(model: Model, sc: Scenario, name: str, result: ScenarioResult) -> None:
    data = sc.data
    snaps: list[dict] = []
    result.snapshots[name] = snaps
    try:
        rs = ruleset_for(model, name)
        start = data["start"]
        game = Game.from_data(rs, data["map"], data["units"], start["side"], start["phase"],
                              start.get("turn", 1))
    except (RulesetError, EngineError, MapError) as e:
        result.errors.append(Diagnostic(sc.pos("rulesets"), "error", f"scenario {sc.id}, {name}: {e}",
                                        "scenario-setup"))
        for i, step in enumerate(data.get("steps", [])):
            for j, exp in enumerate(step.get("expect") or []):
                _row(result, sc, name, i, j, exp, None, "the scenario could not be set up")
        return
    broken = None
    for i, step in enumerate(data["steps"]):
        expects = list(enumerate(step.get("expect") or []))
        if broken is not None:
            for j, exp in expects:
                _row(result, sc, name, i, j, exp, None, broken)
            continue
        game.take_sights()
        snap: dict = {"step": i, "note": step.get("note", ""), "log": []}
        log_start = len(game.log)
        answered: set[int] = set()
        try:
            _do_step(game, sc, name, i, step, snap, result, answered)
        except (EngineError, MapError, ValueError) as e:
            broken = f"step {i} could not be played: {e}"
            result.errors.append(Diagnostic(sc.pos("steps", i), "error", f"scenario {sc.id}, "
                                            f"{name}: {broken}", "scenario-step"))
            for j, exp in expects:
                if j not in answered:
                    _row(result, sc, name, i, j, exp, None, broken)
            continue
        for j, exp in expects:
            if j in answered:
                continue
            if exp["ask"].get("at") is not None:
                _row(result, sc, name, i, j, exp, None,
                     f"the mover never entered {exp['ask']['at']} under {name}")
                continue
            _row(result, sc, name, i, j, exp, _ask(game, exp["ask"]))
        snap.update(game.snapshot())
        snap["sights"] = snap.get("sights", []) + [s.as_data() for s in game.take_sights()]
        snap["log"] = game.log[log_start:]
        snaps.append(snap)


def _do_step(game: Game, sc: Scenario, name: str, i: int, step: dict, snap: dict,
             result: ScenarioResult, answered: set[int]) -> None:
    """Play one step; answer the questions asked ``at`` a hex of a move (noted in ``answered``)."""
    if "move" in step:
        mv = step["move"]
        snap["action"] = "move"
        snap["mover"] = mv["unit"]
        snap["path"] = []
        snap["entries"] = []
        game.begin_move(mv["unit"], mv.get("mode", "normal"), mv.get("overrun"))
        attacks = list(mv.get("attacks") or [])
        mps = mv.get("mp") or []
        for k, where in enumerate(mv["path"]):
            if game.move is None or game.move.stopped or game.unit(mv["unit"]).eliminated:
                break
            entry = game.enter(where, mps[k] if k < len(mps) else None)
            snap["path"].append(where)
            for j, exp in enumerate(step.get("expect") or []):
                if j not in answered and exp["ask"].get("at") == where:
                    answered.add(j)
                    _row(result, sc, name, i, j, exp, _ask(game, exp["ask"]))
            for a in [a for a in attacks if a["at"] == where]:
                attacks.remove(a)
                if game.move is None or game.move.stopped:
                    entry.attacks.append({"refused": "the mover has stopped"})
                    continue
                if "opfire" in a:
                    r = game.opportunity_fire(list(a["opfire"]), a["result"])
                    if not r.value:
                        entry.attacks.append({"opfire": list(a["opfire"]), "refused": r.detail})
                else:
                    r = game.interdict(a["interdiction"], a["result"])
                    if not r.value:
                        entry.attacks.append({"interdiction": a["interdiction"], "refused": r.detail})
            snap["entries"].append(entry.as_data())
        game.end_move()
    elif "fire" in step:
        f = step["fire"]
        snap["action"] = "fire"
        r = game.fire(list(f["units"]), f["target"], f["result"])
        snap["fire"] = {"units": list(f["units"]), "target": f["target"], "result": f["result"],
                        "allowed": bool(r.value), "detail": r.detail}
    elif "end" in step:
        snap["action"] = "end"
        snap["end"] = step["end"]
        if step["end"] == "phase":
            game.end_phase()
        else:
            game.end_turn()
    else:
        snap["action"] = "ask"


def _ask(game: Game, ask: dict) -> Ruling:
    if "spotted" in ask:
        return game.spotted(ask["spotted"], ask.get("by"))
    if "can-fire" in ask:
        return game.can_fire(list(ask["can-fire"]), ask["target"])
    if "opfire" in ask:
        return game.opfire_options(ask["opfire"])
    if "interdiction" in ask:
        return game.interdiction_options(ask["interdiction"])
    if "markers" in ask:
        return game.markers(ask["markers"])
    if "los" in ask:
        a, b = ask["los"]
        return game.los(a, b)
    if "where" in ask:
        return Ruling(game.where(ask["where"]), [])
    if "dispersal" in ask:
        u = game.unit(ask["dispersal"])
        return Ruling("X" if u.eliminated else u.dispersal, [])
    if "face" in ask:
        return Ruling("up" if game.unit(ask["face"]).face_up else "down", [])
    raise EngineError(f"unknown question {sorted(ask)}")


def _row(result: ScenarioResult, sc: Scenario, name: str, i: int, j: int, exp: dict,
         actual: Ruling | None, why_not: str = "") -> None:
    ruling = (exp.get("rulings") or {}).get(name)
    if ruling is None:
        return
    pos = sc.pos("steps", i, "expect", j, "rulings", name)
    expected = ruling.get("value")
    because = list(ruling.get("because") or [])
    if actual is None:
        result.rulings.append(RulingRow(i, exp["question"], name, expected, None, because, [],
                                        False, pos, why_not, exp["ask"]))
        return
    value = actual.value
    ok = value == expected and sorted(because) == actual.reasons
    result.rulings.append(RulingRow(i, exp["question"], name, expected, value, because,
                                    list(actual.reasons), ok, pos, actual.detail, exp["ask"]))


# ------------------------------------------------------------------ checks

def check_scenarios(model: Model, report: Report) -> None:
    """References in scenarios that do not resolve: rulesets, clauses, units, hexes."""
    for sc in sorted(model.scenarios.values(), key=lambda s: (s.file, s.id)):
        _check_one(model, sc, report)
    # a clause naming a scenario that does not exist: harmony.check reports it (once)


def _check_one(model: Model, sc: Scenario, report: Report) -> None:
    d = sc.data
    err = lambda path, msg, code: report.error(sc.pos(*path), f"scenario {sc.id}: {msg}", code)  # noqa: E731
    names = list(d.get("rulesets") or [])
    for k, name in enumerate(names):
        try:
            Ruleset.from_model(model, name)
        except RulesetError as e:
            err(("rulesets", k), str(e), "unresolved-ruleset")
    for k, cid in enumerate(d.get("clauses") or []):
        if cid not in model.clauses:
            err(("clauses", k), f"names clause '{cid}', which does not exist", "unresolved-clause")
    try:
        hexmap = HexMap.from_data(d["map"])
    except MapError as e:
        err(("map",) + tuple(e.path), str(e), "scenario-map")
        return
    units: dict[str, dict] = {}
    for k, u in enumerate(d.get("units") or []):
        if u["id"] in units:
            err(("units", k, "id"), f"two units have the id '{u['id']}'", "duplicate-id")
        units[u["id"]] = u
        for path, text in [(("at",), u["at"])] + [(("registration", r), x) for r, x in
                                                    enumerate(u.get("registration") or [])]:
            try:
                hexmap.hex(text)
            except MapError as e:
                err(("units", k) + path, str(e), "scenario-hex")
    for k, u in enumerate(d.get("units") or []):
        if u.get("loaded-in") and u["loaded-in"] not in units:
            err(("units", k, "loaded-in"), f"unit '{u['id']}' is loaded in '{u['loaded-in']}', "
                "which is not a unit", "unresolved-unit")
    sides = {u["side"] for u in units.values()}
    if d["start"]["side"] not in sides:
        err(("start", "side"), f"no unit belongs to side '{d['start']['side']}' "
            f"(sides: {', '.join(sorted(sides))})", "unresolved-side")

    def unit(path, uid):
        if uid not in units:
            err(path, f"names unit '{uid}', which is not one of the scenario's units "
                f"({', '.join(units)})", "unresolved-unit")

    def hex_(path, text):
        try:
            return hexmap.hex(text)
        except MapError as e:
            err(path, str(e), "scenario-hex")
            return None

    where = {uid: u["at"] for uid, u in units.items()}
    for i, step in enumerate(d.get("steps") or []):
        base = ("steps", i)
        path_hexes: list[str] = []
        if "move" in step:
            mv = step["move"]
            unit(base + ("move", "unit"), mv["unit"])
            before = where.get(mv["unit"])
            prev = hex_((), before) if before else None
            path_hexes = list(mv["path"])
            mode = mv.get("mode", "normal")
            for k, text in enumerate(mv["path"]):
                h = hex_(base + ("move", "path", k), text)
                if h is None or prev is None:
                    prev = h if h is not None else prev
                    continue
                if mode == "revealed" and h != prev:
                    err(base + ("move", "path", k), f"revealed movement stays in {before}; the path "
                        f"names {text}", "scenario-path")
                elif mode != "revealed" and not adjacent(prev, h):
                    err(base + ("move", "path", k), f"hex {text} is not adjacent to "
                        f"{mv['path'][k - 1] if k else before}, the hex before it", "scenario-path")
                prev = h
            if mv["path"]:
                where[mv["unit"]] = mv["path"][-1]
            if mv.get("overrun"):
                unit(base + ("move", "overrun"), mv["overrun"])
            for k, a in enumerate(mv.get("attacks") or []):
                if a["at"] not in mv["path"]:
                    err(base + ("move", "attacks", k, "at"), f"attack at {a['at']}, which is not in "
                        "the path", "scenario-path")
                for m, f in enumerate(a.get("opfire") or []):
                    unit(base + ("move", "attacks", k, "opfire", m), f)
                if "interdiction" in a:
                    unit(base + ("move", "attacks", k, "interdiction"), a["interdiction"])
        if "fire" in step:
            for m, f in enumerate(step["fire"]["units"]):
                unit(base + ("fire", "units", m), f)
            unit(base + ("fire", "target"), step["fire"]["target"])
        for j, exp in enumerate(step.get("expect") or []):
            epath = base + ("expect", j)
            ask = exp["ask"]
            for key in ("spotted", "opfire", "interdiction", "markers", "where", "dispersal", "face",
                        "target"):
                if key in ask:
                    unit(epath + ("ask", key), ask[key])
            for m, f in enumerate(ask.get("can-fire") or []):
                unit(epath + ("ask", "can-fire", m), f)
            for m, text in enumerate(ask.get("los") or []):
                hex_(epath + ("ask", "los", m), text)
            if "by" in ask and ask["by"] not in sides:
                err(epath + ("ask", "by"), f"no unit belongs to side '{ask['by']}'", "unresolved-side")
            if ask.get("at") is not None and ask["at"] not in path_hexes:
                err(epath + ("ask", "at"), f"asks at {ask['at']}, which is not a hex of this step's "
                    "move", "scenario-path")
            for name, ruling in (exp.get("rulings") or {}).items():
                if name not in names:
                    err(epath + ("rulings", name), f"ruling for '{name}', which is not one of the "
                        f"scenario's rulesets ({', '.join(names)})", "unresolved-ruleset")
                for m, cid in enumerate(ruling.get("because") or []):
                    if cid not in model.clauses:
                        err(epath + ("rulings", name, "because", m), f"cites clause '{cid}', which "
                            "does not exist", "unresolved-clause")


def _register() -> None:
    from .check import EXTRA_CHECKS
    if check_scenarios not in EXTRA_CHECKS:
        EXTRA_CHECKS.append(check_scenarios)


_register()

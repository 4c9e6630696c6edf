"""Combat Patrol scenarios: a table in inches, teams of figures, steps and questions.

A scenario whose map is ``{inches: [width, depth]}`` is Combat Patrol's (the schema's
``cp-scenario``). It is read once into a :class:`Setup` (every problem found with the
position of the value at fault), then played under each of its rulesets: a step moves a
figure, fires one (at night, its muzzle flash marks where it stands), lights a light,
begins or ends a team's activation or makes a spotting attempt; a question asks whether
a figure is ``seen`` by another, the ``shifts`` a shot at it takes, a figure's ``guts``,
or whether it is ``spotted`` for a team. Each answer is a ruling naming the clauses that
decided it (:mod:`.night`, :mod:`.spotting`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from harmony.diagnostics import Diagnostic, Report
from harmony.game import RulingRow, ScenarioResult
from harmony.model import Model, Scenario
from harmony.ruleset import RulesetError, ruleset_for, wrong_settings
from harmony.rulings import Ruling

from .bodyarmour import BodyArmour
from .calculator import CombatPatrol, TableError, one_of
from .cavalry import Cavalry
from .command import Column, Command, CommandError, Platoon
from .figures import Figure, FigureError, Point, Table, inches, teams_of
from .movement import Movement, MoveError
from .night import Light, Night, NightError
from .spotting import SpotError, Spotting
from .vehicles import Vehicles


@dataclass
class Setup:
    """A scenario read: its table, figures, lights, moon, and the problems found (each a
    path below the scenario and a message)."""

    table: Table | None = None
    figures: dict[str, Figure] = field(default_factory=dict)
    lights: list[Light] = field(default_factory=list)
    #: the lights each step lights, by step index
    step_lights: dict[int, Light] = field(default_factory=dict)
    moon: str | None = None
    teams: list[str] = field(default_factory=list)
    #: each team's leader and command radius (core 3.13, given), where the scenario says
    leaders: dict[str, tuple[str, Fraction]] = field(default_factory=dict)
    platoons: list[dict] = field(default_factory=list)
    columns: list[dict] = field(default_factory=list)
    mounted: set[str] = field(default_factory=set)
    #: each wearer's body armour: its class (a Roman numeral) and the parts it covers
    worn: dict[str, tuple[str, list[str]]] = field(default_factory=dict)
    problems: list[tuple[tuple, str]] = field(default_factory=list)


def read(model: Model, sc: Scenario) -> Setup:
    """Read a Combat Patrol scenario, finding every problem the schema cannot see (a table
    of the booklet the rules data lack is one, at the scenario's map)."""
    try:
        return _read(model, sc)
    except LookupError as e:
        return Setup(problems=[(("map",), f"the scenario cannot be read: {e}")])


def _read(model: Model, sc: Scenario) -> Setup:
    d, s, cp = sc.data, Setup(), CombatPatrol(model)
    try:
        s.table = Table.from_data(d.get("map"))
    except FigureError as e:
        s.problems.append((("map",) + e.path, str(e)))
        return s
    try:
        s.figures = teams_of(s.table, d.get("teams"))
    except FigureError as e:
        s.problems.append((("teams",) + e.path, str(e)))
        return s
    s.teams = [t["id"] for t in d.get("teams") or []]
    for i, tdata in enumerate(d.get("teams") or []):
        if "leader" in tdata:
            lead = tdata["leader"]
            if lead not in s.figures or s.figures[lead].team != tdata["id"]:
                s.problems.append((("teams", i, "leader"), f"team '{tdata['id']}' is led by "
                                   f"'{lead}', which is not one of its figures"))
            elif "command-radius" not in tdata:
                s.problems.append((("teams", i), f"team '{tdata['id']}' names a leader but no "
                                   "command-radius (core section 3.13, given in inches)"))
            else:
                s.leaders[tdata["id"]] = (lead, inches(tdata["command-radius"]))
    s.mounted = {f["id"] for t in d.get("teams") or [] for f in t["figures"] if f.get("mounted")}
    s.worn = {f["id"]: (f["armour"]["class"], list(f["armour"]["parts"]))
              for t in d.get("teams") or [] for f in t["figures"] if "armour" in f}
    platoon_ids = {f.platoon for f in s.figures.values()}
    for k, p in enumerate(d.get("platoons") or []):
        if p["id"] not in platoon_ids:
            s.problems.append((("platoons", k, "id"), f"no team is of platoon '{p['id']}'"))
        for role in ("leader", "second"):
            fid = p.get(role)
            if fid is not None and (fid not in s.figures or s.figures[fid].platoon != p["id"]):
                s.problems.append((("platoons", k, role), f"'{fid}' is not a figure of platoon "
                                   f"'{p['id']}'"))
        s.platoons.append(p)
    for k, c in enumerate(d.get("columns") or []):
        for m, t in enumerate(c["teams"]):
            if t not in s.teams:
                s.problems.append((("columns", k, "teams", m), f"names team '{t}', which is not "
                                   "one of the scenario's teams"))
        if len(c["dice"]) != len(c["teams"]):
            s.problems.append((("columns", k, "dice"), f"a column of {len(c['teams'])} unit(s) "
                               f"rolls as many command dice, not {len(c['dice'])}"))
        s.columns.append(c)
    six = cp.table("6")
    if isinstance(d.get("night"), dict):
        try:
            s.moon = one_of(d["night"].get("moon"), [c.id for c in six.columns if c.type != "key"],
                            "a phase of the moon", six)
        except TableError as e:
            s.problems.append((("night", "moon"), str(e)))
    for i, tdata in enumerate(d.get("teams") or []):
        for j, f in enumerate(tdata.get("figures") or []):
            try:
                one_of(f.get("vision", "naked-eye"), six.row_ids(), "a vision", six)
            except TableError as e:
                s.problems.append((("teams", i, "figures", j, "vision"), str(e)))
    known: set[str] = set()

    def light(data: Any, at: tuple) -> Light | None:
        if data["id"] in known:
            s.problems.append((at + ("id",), f"two lights have the id '{data['id']}'"))
            return None
        known.add(data["id"])
        try:
            return Light.of(cp, s.table, data) if s.table is not None else None
        except FigureError as e:
            s.problems.append((at + e.path, str(e)))
            return None
    for k, data in enumerate(d.get("lights") or []):
        lt = light(data, ("lights", k))
        if lt is not None:
            s.lights.append(lt)

    def figure(name: Any, at: tuple) -> None:
        if name not in s.figures:
            s.problems.append((at, f"names figure '{name}', which is not one of the scenario's "
                               f"figures ({', '.join(s.figures)})"))
    def team(name: Any, at: tuple) -> None:
        if name not in s.teams:
            s.problems.append((at, f"names team '{name}', which is not one of the scenario's "
                               f"teams ({', '.join(s.teams)})"))
    for i, step in enumerate(d.get("steps") or []):
        at = ("steps", i)
        if "move" in step:
            figure(step["move"]["figure"], at + ("move", "figure"))
            try:
                s.table.point(step["move"]["to"], at + ("move", "to"))
            except FigureError as e:
                s.problems.append((e.path, str(e)))
        if "fire" in step:
            figure(step["fire"], at + ("fire",))
        if "incapacitate" in step:
            figure(step["incapacitate"], at + ("incapacitate",))
        if "horse-hit" in step:
            figure(step["horse-hit"]["figure"], at + ("horse-hit", "figure"))
        if "body-hit" in step:
            figure(step["body-hit"]["figure"], at + ("body-hit", "figure"))
        for key, field_, kind in (("vehicle-hit", "vehicle", "vehicle"), ("engine-hit", "vehicle", "vehicle"),
                                  ("he-burst", "gun", "anti-tank-gun")):
            if key in step:
                fid = step[key][field_]
                figure(fid, at + (key, field_))
                if fid in s.figures and s.figures[fid].kind != kind:
                    s.problems.append((at + (key, field_), f"'{fid}' is not a figure of kind {kind}"))
        if "reshuffle" in step:
            figure(step["reshuffle"]["leader"], at + ("reshuffle", "leader"))
            figure(step["reshuffle"]["team-leader"], at + ("reshuffle", "team-leader"))
            if step["reshuffle"]["platoon"] not in {p["id"] for p in s.platoons}:
                s.problems.append((at + ("reshuffle", "platoon"), "names platoon "
                                   f"'{step['reshuffle']['platoon']}', which is not one of the "
                                   "scenario's platoons"))
        if "leave-column" in step:
            team(step["leave-column"]["team"], at + ("leave-column", "team"))
        for key in ("activate", "end-activation", "unpin"):
            if key in step:
                team(step[key], at + (key,))
        if "spot" in step:
            team(step["spot"]["team"], at + ("spot", "team"))
            for k, f in enumerate(step["spot"]["area"]):
                figure(f, at + ("spot", "area", k))
            for k, f in enumerate(step["spot"].get("facing") or []):
                figure(f, at + ("spot", "facing", k))
                if f in s.figures and s.figures[f].team != step["spot"]["team"]:
                    s.problems.append((at + ("spot", "facing", k), f"figure '{f}' is not of "
                                       f"team '{step['spot']['team']}'"))
        if "light" in step:
            lt = light(step["light"], at + ("light",))
            if lt is not None:
                s.step_lights[i] = lt
        for j, exp in enumerate(step.get("expect") or []):
            ask = exp["ask"]
            for key in ("seen", "shifts", "guts", "by", "spotted", "stunned", "in-open", "may-fire",
                        "mounted", "rider-thrown", "melee-bonus", "against", "melee-strikes",
                        "fire-shifts", "allowance", "hit-effect", "gun-disabled", "immobile",
                        "hit-result"):
                if key in ask:
                    figure(ask[key], at + ("expect", j, "ask", key))
            for key in ("for", "pinned", "die-of"):
                if key in ask:
                    team(ask[key], at + ("expect", j, "ask", key))
            if "platoon-leader" in ask and ask["platoon-leader"] not in {p["id"] for p in s.platoons}:
                s.problems.append((at + ("expect", j, "ask", "platoon-leader"), "names platoon "
                                   f"'{ask['platoon-leader']}', which is not one of the "
                                   "scenario's platoons"))
            if "backlit-by" in ask and ask["backlit-by"] not in known:
                s.problems.append((at + ("expect", j, "ask", "backlit-by"),
                                   f"names light '{ask['backlit-by']}', which is not lit by then"))
    return s


def check_scenario(model: Model, sc: Scenario, report: Report) -> None:
    """The problems of one Combat Patrol scenario that the schema cannot see.

    >>> from harmony.loader import load
    >>> from harmony.usage import default_rules_data
    >>> sc = Scenario(id="s", data={"map": {"inches": [10, 10]}, "teams": [{"id": "t",
    ...     "side": "US", "figures": [{"id": "f", "at": [12, 1]}]}], "steps": [{"fire": "f"}]})
    >>> report = Report(); check_scenario(load(default_rules_data())[0], sc, report)
    >>> [d.message for d in report.diagnostics]
    ['scenario s: (12, 1) is off the table (10 by 10 inches)']
    """
    for path, message in read(model, sc).problems:
        report.error(sc.pos(*path), f"scenario {sc.id}: {message}", "scenario-cp")


def run_scenario(model: Model, scenario_id: str, rulesets: list[str] | None = None) -> ScenarioResult:
    """Play Combat Patrol scenario ``scenario_id`` under each of its rulesets (or
    ``rulesets``); a scenario with problems is not played (its errors say why)."""
    sc = model.scenarios[scenario_id]
    names = list(rulesets or sc.data.get("rulesets") or [])
    result = ScenarioResult(sc, names)
    setup = read(model, sc)
    for path, message in setup.problems:
        result.errors.append(Diagnostic(sc.pos(*path), "error", f"scenario {sc.id}: {message}",
                                        "scenario-setup"))
    if setup.problems or setup.table is None:
        return result
    result.map = {"inches": [str(setup.table.width), str(setup.table.depth)],
                  "woods": {w: [str(r.low), str(r.high)] for w, r in sorted(setup.table.woods.items())}}
    for name in names:
        _play(model, sc, setup, name, result)
    return result


def _play(model: Model, sc: Scenario, setup: Setup, name: str, result: ScenarioResult) -> None:
    snaps: list[dict] = []
    result.snapshots[name] = snaps
    assert setup.table is not None
    try:
        rules = ruleset_for(model, name)
    except RulesetError as e:
        result.errors.append(Diagnostic(sc.pos("rulesets"), "error", f"scenario {sc.id}, {name}: {e}",
                                        "scenario-setup"))
        return
    wrong = wrong_settings(model, rules)
    if wrong:       # the game would compute with it: not played (check reports the value)
        listed = "; ".join(f"'{st.name}' at {pos}: {why}" for st, pos, why in wrong)
        result.errors.append(Diagnostic(sc.pos("rulesets"), "error", f"scenario {sc.id}, {name}: "
                                        "not played, since the ruleset holds values of the wrong "
                                        f"type: {listed}", "scenario-parameter"))
        for i, step in enumerate(sc.data.get("steps") or []):
            for j, exp in enumerate(step.get("expect") or []):
                expected = (exp.get("rulings") or {}).get(name)
                if isinstance(expected, dict):
                    result.rulings.append(RulingRow(
                        i, exp["question"], name, expected.get("value"), None,
                        [str(c) for c in expected.get("because") or []], [], False,
                        sc.pos("steps", i, "expect", j, "rulings", name),
                        "not played: a parameter value of the wrong type", exp["ask"]))
        return
    cp = CombatPatrol(model)
    night = Night(rules, cp, setup.table, setup.moon)
    figures = dict(setup.figures)
    spotting = Spotting(rules, cp, setup.table, setup.moon, figures)
    leaders = dict(setup.leaders)
    movement = Movement(rules, setup.table, figures, leaders)
    command = Command(rules, figures, [Platoon(p["id"], p["leader"], p.get("second"))
                                       for p in setup.platoons],
                      [Column(list(c["teams"]), list(c["dice"])) for c in setup.columns], leaders)
    cavalry = Cavalry(rules, figures, setup.mounted)
    vehicles = Vehicles(rules, cp)
    armour = BodyArmour(rules, cp, setup.worn)
    lights = list(setup.lights)
    flashes: dict[str, Point] = {}
    spotting.automatic(set(), set())
    for i, step in enumerate(sc.data.get("steps") or []):
        moved: set[str] = set()
        fired: set[str] = set()
        snap: dict[str, Any] = {}
        if i in setup.step_lights:
            lights.append(setup.step_lights[i])
        try:
            _do(step, setup.table, spotting, movement, command, cavalry, vehicles, armour, flashes,
                moved, fired, snap)
        except (SpotError, MoveError, CommandError, TableError, FigureError, LookupError) as e:
            clause = getattr(e, "clause", None)
            result.errors.append(Diagnostic(sc.pos("steps", i), "error",
                                            f"scenario {sc.id}, {name}: step {i + 1} could not be "
                                            f"played: {e}" + (f" [{clause}]" if clause else ""),
                                            "scenario-step"))
        spotting.automatic(moved, fired)
        for j, exp in enumerate(step.get("expect") or []):
            expected = (exp.get("rulings") or {}).get(name)
            if not isinstance(expected, dict):
                continue
            ask = exp["ask"]
            pos = sc.pos("steps", i, "expect", j, "rulings", name)
            because = [str(c) for c in expected.get("because") or []]
            try:
                actual = _answer(night, spotting, movement, command, cavalry, vehicles, armour, ask,
                                 figures, lights, flashes)
            except (NightError, SpotError, MoveError, CommandError, TableError, FigureError,
                    LookupError) as e:
                clause = getattr(e, "clause", None)
                why = f"step {i + 1}: the question could not be answered: {e}" + (
                    f" [{clause}]" if clause else "")
                result.errors.append(Diagnostic(sc.pos("steps", i, "expect", j, "ask"), "error",
                                                f"scenario {sc.id}, {name}: {why}", "scenario-step"))
                result.rulings.append(RulingRow(i, exp["question"], name, expected.get("value"), None,
                                                because, [], False, pos, why, ask, clause))
                continue
            ok = actual.value == expected.get("value") and sorted(because) == actual.reasons
            result.rulings.append(RulingRow(i, exp["question"], name, expected.get("value"),
                                            actual.value, because, list(actual.reasons), ok, pos,
                                            actual.detail, ask))
        snaps.append({**snap, "step": i, "note": step.get("note", ""),
                      "spotted": sorted(f"{p}:{t}" for p, t in spotting.marks),
                      "figures": [{"id": f.id, "side": f.side, "team": f.team,
                                   "at": [str(f.at.x), str(f.at.y)]} for f in figures.values()],
                      "lights": [lt.id for lt in lights],
                      "flashes": {f: [str(p.x), str(p.y)] for f, p in sorted(flashes.items())}})


def _do(step: dict, table: Table, spotting: Spotting, movement: Movement, command: Command,
        cavalry: Cavalry, vehicles: Vehicles, armour: BodyArmour, flashes: dict[str, Point],
        moved: set[str], fired: set[str], snap: dict) -> None:
    """Play one step's action (at most one: the schema says so)."""
    if "move" in step:
        mv = step["move"]
        cards = [inches(c) for c in mv["cards"]] if "cards" in mv else None
        to, sprint = table.point(mv["to"]), bool(mv.get("sprint"))
        start = movement.figures[mv["figure"]].at
        mounted = cavalry.check_move(mv["figure"], to, cards, sprint)
        movement.move(mv["figure"], to, None if mounted else cards, sprint)
        cavalry.moved(mv["figure"], start, to)
        moved.add(mv["figure"])
    if "horse-hit" in step:
        cavalry.horse_hit(step["horse-hit"]["figure"], step["horse-hit"]["icon"])
    if "vehicle-hit" in step:
        h = step["vehicle-hit"]
        vehicles.hit(h["vehicle"], h["penetration"], bool(h.get("small-arms")), bool(h.get("penetrates")))
    if "he-burst" in step:
        b = step["he-burst"]
        vehicles.he_burst(b["gun"], b["size"], bool(b.get("over-breech")), b.get("icon", "none"))
    if "body-hit" in step:
        h = step["body-hit"]
        armour.hit(h["figure"], h["effect"], bool(h.get("covered")), h["location"], h["penetration"],
                   h["die"])
    if "engine-hit" in step:
        vehicles.engine_hit(step["engine-hit"]["vehicle"], bool(step["engine-hit"]["explosion"]))
    if "fire" in step:
        movement.fire(step["fire"])
        flashes[step["fire"]] = movement.figures[step["fire"]].at
        fired.add(step["fire"])
    if "card" in step:
        team = command.card(step["card"])
        snap["card"] = {"number": step["card"], "activates": team}
        if team is not None:
            spotting.activate(team)
    if "activate" in step:
        spotting.activate(step["activate"])
    if "end-activation" in step:
        spotting.end_activation(step["end-activation"])
        movement.end_activation(step["end-activation"])
    if "incapacitate" in step:
        command.incapacitate(step["incapacitate"])
    if "reshuffle" in step:
        r = step["reshuffle"]
        command.reshuffle(r["platoon"], r["leader"], r["team-leader"])
    if "unpin" in step:
        command.unpin(step["unpin"])
    if "leave-column" in step:
        command.leave(step["leave-column"]["team"], step["leave-column"].get("die"))
    if "spot" in step:
        sp = step["spot"]
        r = spotting.attempt(sp["team"], list(sp["area"]), list(sp["card"]), sp.get("facing"))
        snap["spot"] = {"team": sp["team"], "spotted": r.value, "detail": r.detail}


def _answer(night: Night, spotting: Spotting, movement: Movement, command: Command,
            cavalry: Cavalry, vehicles: Vehicles, armour: BodyArmour, ask: dict,
            figures: dict[str, Figure], lights: list[Light], flashes: dict[str, Point]) -> Ruling:
    backlit = next((lt for lt in lights if lt.id == ask.get("backlit-by")), None)
    if "seen" in ask:
        return night.seen(figures[ask["by"]], figures[ask["seen"]], lights, backlit)
    if "spotted" in ask:
        return spotting.spotted(ask["spotted"], ask["for"])
    if "stunned" in ask:
        return movement.is_stunned(ask["stunned"])
    if "in-open" in ask:
        return movement.in_open(ask["in-open"])
    if "may-fire" in ask:
        return movement.may_fire(ask["may-fire"])
    if "pinned" in ask:
        return command.is_pinned(ask["pinned"])
    if "platoon-leader" in ask:
        return command.leader_of(ask["platoon-leader"])
    if "die-of" in ask:
        return command.die_of(ask["die-of"])
    if "allowance" in ask:
        r = cavalry.allowance.get(ask["allowance"], movement.allowance.get(ask["allowance"]))
        if r is None:
            raise MoveError(f"{ask['allowance']} has made no move with cards yet")
        return r
    if "hit-result" in ask:
        return armour.result(ask["hit-result"])
    if "hit-effect" in ask:
        return vehicles.effect(ask["hit-effect"])
    if "gun-disabled" in ask:
        return vehicles.gun_disabled(ask["gun-disabled"])
    if "immobile" in ask:
        return vehicles.is_immobile(ask["immobile"])
    if "mounted" in ask:
        return cavalry.is_mounted(ask["mounted"])
    if "rider-thrown" in ask:
        return cavalry.rider_thrown(ask["rider-thrown"])
    if "melee-bonus" in ask:
        return cavalry.melee_bonus(ask["melee-bonus"], ask["against"])
    if "melee-strikes" in ask:
        return cavalry.melee_strikes(ask["melee-strikes"])
    if "fire-shifts" in ask:
        return cavalry.fire_shifts(ask["fire-shifts"], bool(ask.get("moving")))
    if "shifts" in ask:
        return night.shifts(figures[ask["by"]], figures[ask["shifts"]], lights, flashes, backlit)
    return night.guts(figures[ask["guts"]])

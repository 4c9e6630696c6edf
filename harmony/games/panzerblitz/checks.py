"""What ``harmony check`` finds in a scenario of the hex wargame without playing it: units,
sides, hexes and steps that do not resolve, orders no player could give, each at its
position. The play is :mod:`harmony.games.panzerblitz.scenario`'s (which offers
:func:`check_scenario` too); this module needs none of the engine, so a check whose
scenarios were played before (:mod:`harmony.playcache`) never imports it.
"""
from __future__ import annotations

from harmony.diagnostics import Diagnostic, Report
from harmony.model import Model, Scenario
from .hexgrid import Hex, adjacent
from .los import has_los
from .steps import End, Fire, Move, Orders, Spotted, Unload, Word, steps_of
from .terrain import HexMap, MapError


def _check_observer(a, units: dict, where: dict, hexmap: HexMap, unit, err) -> None:
    """The observer an interdiction names: a unit of the firer's side that sees the hex."""
    unit(a.observer)
    obs, firer = units.get(a.observer), units.get(a.interdiction)
    if obs is None or firer is None:
        return
    if obs["side"] != firer["side"]:
        err(a.observer.pos, f"observer {a.observer} ({obs['side']}) is not on the side of "
            f"{a.interdiction} ({firer['side']})", "scenario-observer")
        return
    try:
        seen = has_los(hexmap, hexmap.hex(where[a.observer]), hexmap.hex(a.at))
    except MapError:        # a hex that is not on the map is reported where it is written
        return
    if not seen:
        err(a.observer.pos, f"observer {a.observer} in {where[a.observer]} has no line of sight "
            f"to {a.at}", "scenario-observer")


def _on_map(hexmap: HexMap, text: str | None) -> Hex | None:
    """The hex of a label, or None for none or a hex off the map (reported where it is written)."""
    try:
        return hexmap.hex(text) if text is not None else None
    except MapError:
        return None


def _check_order(order, units: dict, where: dict, side: str, hexmap: HexMap, unit, hex_, err) -> None:
    """An order no player could give, even blind: an unknown unit, a unit not his, a first hex
    not adjacent to the unit, more movement points than it has."""
    unit(order.unit)
    u = units.get(order.unit)
    if u is None:
        return
    if u["side"] != side:
        err(order.unit.pos, f"orders {order.unit} ({u['side']}) in the {side} player's turn",
            "scenario-order")
        return
    hexes = [hex_(w) for w in order.path]
    before = where.get(order.unit)
    start = _on_map(hexmap, before)
    if start is not None and hexes[0] is not None and not adjacent(start, hexes[0]):
        err(order.path[0].pos, f"hex {order.path[0]} is not adjacent to {before}, the hex "
            f"{order.unit} moves from", "scenario-path")
    if None not in hexes:
        costs = [order.mp_at(k) or hexmap.terrain(h).move_cost for k, h in enumerate(hexes)]
        spent = 0
        for k, c in enumerate(costs):
            spent += c
            if spent > u["movement"]:
                err(order.path[k].pos, f"{order.unit} has {u['movement']} movement points and "
                    f"cannot reach {order.path[k]} ({spent} needed)", "scenario-order")
                break
    where[order.unit] = order.path[-1]


def check_scenario(model: Model, sc: Scenario, report: Report) -> None:
    """The problems of one scenario that the schema cannot see (steps, units, sides, hexes
    that do not resolve), without playing it: the hex wargame's part; its rulesets, clauses
    and expected rulings are the core's (:func:`harmony.game.check_envelope`). They are
    :func:`scenario_problems`: the scenario alone decides them, not the rest of the model.

    >>> from harmony.model import Scenario
    >>> sc = Scenario(id="s", data={"rulesets": [], "map": {"columns": 3, "rows": 3},
    ...     "units": [{"id": "t", "side": "German", "at": "D9"}],
    ...     "start": {"side": "German", "phase": "movement"}, "steps": [{"end": "phase"}]})
    >>> report = Report(); check_scenario(Model(), sc, report)
    >>> [d.message for d in report.diagnostics]
    ['scenario s: hex D9 is off the map (3 columns, 3 rows)']
    """
    report.diagnostics.extend(scenario_problems(sc))


def scenario_problems(sc: Scenario) -> list[Diagnostic]:
    """What :func:`check_scenario` finds in ``sc``, from the scenario alone (its data, its
    positions and its steps), so that it may be remembered by the scenario's file
    (:func:`harmony.playcache.checked`)."""
    report = Report()
    _find_problems(sc, report)
    return report.diagnostics


def _find_problems(sc: Scenario, report: Report) -> None:
    d = sc.data
    err = lambda pos, msg, code: report.error(pos, f"scenario {sc.id}: {msg}", code)  # noqa: E731
    lacking = [k for k in ("map", "units", "start") if k not in d]
    if lacking:     # the schema read it as another game's scenario (harmony.game)
        err(sc.pos(), f"lacks {', '.join(lacking)}: a scenario of the hex wargame has a map, "
            "units and a start (the scenario format: scenarios.rst of the site)",
            "schema-required")
        return
    try:
        hexmap = HexMap.from_data(d["map"])
    except MapError as e:
        err(sc.pos(*(("map",) + tuple(e.path))), str(e), "scenario-map")
        return
    units: dict[str, dict] = {}
    for k, u in enumerate(d.get("units") or []):
        if u["id"] in units:
            err(sc.pos("units", k, "id"), f"two units have the id '{u['id']}'", "duplicate-id")
        units[u["id"]] = u
        for path, text in [(("at",), u["at"])] + [(("registration", r), x) for r, x in
                                                    enumerate(u.get("registration") or [])]:
            try:
                hexmap.hex(text)
            except MapError as e:
                err(sc.pos("units", k, *path), str(e), "scenario-hex")
    for k, u in enumerate(d.get("units") or []):
        if u.get("loaded-in") and u["loaded-in"] not in units:
            err(sc.pos("units", k, "loaded-in"), f"unit '{u['id']}' is loaded in '{u['loaded-in']}', "
                "which is not a unit", "unresolved-unit")
            continue
        chain, cur = [u["id"]], u.get("loaded-in")
        while cur in units and cur not in chain:
            chain.append(cur)
            cur = units[cur].get("loaded-in")
        if cur is not None and cur in chain:
            err(sc.pos("units", k, "loaded-in"), f"unit '{u['id']}' is loaded in a loop: "
                f"{' in '.join(chain + [cur])}", "scenario-loaded-loop")
    sides = {u["side"] for u in units.values()}
    if d["start"]["side"] not in sides:
        err(sc.pos("start", "side"), f"no unit belongs to side '{d['start']['side']}' "
            f"(sides: {', '.join(sorted(sides))})", "unresolved-side")

    parsed = steps_of(sc)
    report.diagnostics.extend(parsed.problems)
    flagged = {d.pos for d in parsed.problems}      # one problem, one diagnostic

    def unit(w: Word) -> None:
        if w not in units and w.pos not in flagged:
            err(w.pos, f"names unit '{w}', which is not one of the scenario's units "
                f"({', '.join(units)})", "unresolved-unit")

    def hex_(w: Word) -> Hex | None:
        if w.pos in flagged:
            return None
        try:
            return hexmap.hex(w)
        except MapError as e:
            err(w.pos, str(e), "scenario-hex")
            return None

    where = {uid: u["at"] for uid, u in units.items()}
    #: transport -> the units it carries as the steps go (those of the set-up, until unloaded)
    aboard: dict[str, list[str]] = {}
    for uid, u in units.items():
        if u.get("loaded-in") in units:
            aboard.setdefault(u["loaded-in"], []).append(uid)

    def carried_along(carrier: str) -> None:
        for c in aboard.get(carrier, []):
            where[c] = where.get(carrier)

    def unloads(w: Word, surely: bool = True) -> None:
        """``w`` unloads; ``surely``: its units are off it afterwards (a referee may refuse
        blind orders' unloading, so after those the steps do not know)."""
        if w in units and not (aboard.pop(w, None) if surely else aboard.get(w)):
            err(w.pos, f"unloads {w}, which carries no unit by then (the units' loaded-in says "
                "what each transport carries at the start)", "scenario-unload")

    side, phase = d["start"]["side"], d["start"]["phase"]
    order_of_sides = [side] + [u["side"] for u in units.values()]
    order_of_sides = list(dict.fromkeys(order_of_sides))
    for k, name in enumerate(d.get("stacking") or {}):
        if name not in sides:
            err(sc.pos("stacking", name), f"gives a stacking limit for side '{name}', which has "
                "no unit", "unresolved-side")
    for step in parsed.steps:
        match step.action:
            case Move() as mv:
                unit(mv.unit)
                before = where.get(mv.unit)
                hexes = [hex_(w) for w in mv.path]
                first, start = hexes[0], _on_map(hexmap, before)
                if start is not None and first is not None:
                    if mv.mode == "revealed" and first != start:
                        err(mv.path[0].pos, f"revealed movement stays in {before}; the path names "
                            f"{mv.path[0]}", "scenario-path")
                    elif mv.mode != "revealed" and not adjacent(start, first):
                        err(mv.path[0].pos, f"hex {mv.path[0]} is not adjacent to {before}, the hex "
                            f"{mv.unit} moves from", "scenario-path")
                where[mv.unit] = mv.path[-1]
                carried_along(mv.unit)
                if mv.overrun is not None:
                    unit(mv.overrun)
                for a in mv.attacks:
                    for f in a.firers:
                        unit(f)
                    if a.observer is not None:
                        _check_observer(a, units, where, hexmap, unit, err)
            case Fire() as f:
                for w in f.units:
                    unit(w)
                unit(f.target)
            case Orders() as o:
                if phase != "movement":
                    err(o.pos, f"orders moves in the {side} {phase} phase; units move in the "
                        "movement phase (end the phase first)", "scenario-order")
                for order in o.orders:
                    _check_order(order, units, where, side, hexmap, unit, hex_, err)
                    carried_along(order.unit)
                for order in o.orders:
                    if order.unload:
                        unloads(order.unit, surely=False)
            case Unload() as ul:
                unit(ul.unit)
                if phase != "movement":
                    err(ul.pos, f"unloads {ul.unit} in the {side} {phase} phase; units unload in "
                        "the movement phase (end the phase first)", "scenario-unload")
                unloads(ul.unit)
            case End() as end if end.what == "turn" or phase == "movement":
                side = order_of_sides[(order_of_sides.index(side) + 1) % len(order_of_sides)]
                phase = "fire"
            case End():
                phase = "movement"
        for exp in step.expect:
            for w in exp.ask.units():
                unit(w)
            for w in exp.ask.hexes():
                hex_(w)
            if isinstance(exp.ask, Spotted) and exp.ask.by is not None and exp.ask.by not in sides:
                err(exp.ask.by.pos, f"no unit belongs to side '{exp.ask.by}'", "unresolved-side")


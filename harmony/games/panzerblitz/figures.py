"""The diagrams of a scenario page: one state per step, drawn by :mod:`harmony.games.panzerblitz.svg`.

States come from the scenario itself (where the units start, and the steps
as :mod:`harmony.games.panzerblitz.steps` reads them: the path each move follows, the attacks
declared along it), so the diagrams need no engine: the first figure is the set-up, then one per step that moves or
fires, showing units where the step leaves them.

>>> from harmony.model import Scenario
>>> sc = Scenario(id="s", title="S", data={"map": {"columns": 3, "rows": 2},
...     "units": [{"id": "a", "side": "X", "kind": "gun", "at": "A1"},
...               {"id": "b", "side": "Y", "kind": "armoured", "at": "C2"}],
...     "steps": [{"note": "b moves", "move": {"unit": "b", "path": ["B2", "A2"],
...                "attacks": [{"at": "B2", "opfire": ["a"], "result": "none"}]}}]})
>>> [f["caption"] for f in scenario_figures(sc)]
['Figure 1. Set-up', 'Figure 2. Step 1: b moves']
>>> states(sc)[1]["path"], states(sc)[1]["los"]
(['C2', 'B2', 'A2'], [['A1', 'B2']])
>>> watched = Scenario(id="w", title="W", data={"map": sc.data["map"], "units": sc.data["units"] + [
...     {"id": "o", "side": "X", "kind": "infantry", "at": "A2"}], "steps": [{"move": {"unit": "b",
...     "path": ["B2"], "attacks": [{"at": "B2", "interdiction": "a", "observer": "o", "result": "none"}]}}]})
>>> states(watched)[1]["los"]      # an interdiction: its observer's line, not the firer's
[['A2', 'B2']]
>>> step_list(sc)
[{'number': 1, 'note': 'b moves', 'figure': 2, 'own_figure': True}]
>>> [u["name"] for u in scenario_figures(sc)[0]["key"]]
['X gun', 'Y armoured']
"""
from __future__ import annotations

import copy
import re
from xml.sax.saxutils import escape

from harmony.model import Scenario

from . import svg
from .steps import End, Fire, Los, Move, Unload, steps_of


def unit_name(u: dict) -> str:
    """A unit as the scenario names it (``name``), else by its side and kind ("Soviet gun")."""
    given = u.get("name")
    if given and given != u.get("id"):
        return str(given)
    return " ".join(str(x) for x in (u.get("side"), u.get("kind")) if x) or str(u.get("id", ""))


def _describe(data: dict, units: list[dict], path: list[str], name=unit_name) -> str:
    m = data.get("map") or {}
    base = m.get("terrain", "clear")
    by_type: dict[str, list[str]] = {}
    for lab, t in sorted((m.get("hexes") or {}).items()):
        by_type.setdefault(t, []).append(lab)
    parts = [f"A board of {m.get('columns')} columns and {m.get('rows')} rows, {base} terrain"]
    parts += [f"{t}: {', '.join(labs)}" for t, labs in sorted(by_type.items())]
    for lab, letter in sorted((m.get("labels") or {}).items()):
        parts.append(f"hex {lab} is marked {letter}")
    for u in units:
        where = u.get("at")
        marks = f", markers {', '.join(sorted(u['markers']))}" if u.get("markers") else ""
        parts.append(f"{name(u)} ({u.get('side')} {u.get('kind')}) in {where}{marks}")
    if len(path) > 1:
        parts.append("path moved: " + " to ".join(path))
    return ". ".join(parts) + "."


def states(sc: Scenario) -> list[dict]:
    """The set-up and the state after each move or fire step."""
    d = sc.data
    units = [dict(u, name=unit_name(u)) for u in d.get("units") or []]
    where = {u.get("id"): u for u in units}
    out = [{"map": d.get("map") or {}, "units": copy.deepcopy(units), "path": [], "los": [],
            "caption": "Set-up", "title": f"{sc.title}: set-up",
            "desc": _describe(d, units, [])}]
    for step in steps_of(sc).steps:
        i = step.index + 1
        path: list[str] = []
        los: list[list[str]] = []
        match step.action:
            case Move() as move:
                unit = where.get(move.unit)
                hexes = [str(h) for h in move.path]
                path = ([unit["at"]] if unit and unit.get("at") and hexes[0] != unit["at"]
                        else []) + hexes
                for att in move.attacks:
                    # opportunity fire needs the firer's line of sight; interdiction is
                    # indirect: the line is its observer's (the one the step names), never
                    # the firer's
                    for f in att.opfire + ((att.observer,) if att.observer else ()):
                        if f in where and where[f].get("at"):
                            los.append([where[f]["at"], str(att.at)])
                if unit:
                    unit["at"] = hexes[-1]
                    for u in units:     # the units it carries ride along
                        if u.get("loaded-in") == move.unit:
                            u["at"] = hexes[-1]
            case Unload() as unload:
                for u in units:
                    if u.get("loaded-in") == unload.unit:
                        u.pop("loaded-in")
            case Fire() as fire:
                target = where.get(fire.target)
                for f in fire.units:
                    if f in where and target and where[f].get("at") and target.get("at"):
                        los.append([where[f]["at"], target["at"]])
            case _:
                pass
        # a question about line of sight: the line it asks about is drawn
        los += [[str(h) for h in e.ask.between] for e in step.expect if isinstance(e.ask, Los)]
        if not path and not los and not isinstance(step.action, Fire):
            continue   # nothing new to draw: its questions refer to the last figure
        note = " ".join(step.note.split())
        caption = f"Step {i}" + (f": {note}" if note else "")
        out.append({"map": d.get("map") or {}, "units": copy.deepcopy(units), "path": path, "los": los,
                    "caption": caption, "title": f"{sc.title}: step {i}", "step": i,
                    "desc": (note + " " if note else "") + _describe(d, units, path)})
    return out


def _key(units: list[dict]) -> list[dict]:
    """The units on the board, as the key under a diagram lists them."""
    return [{"id": str(u.get("id", "")), "name": unit_name(u), "side": str(u.get("side", "")),
             "kind": svg.KIND_SHORT.get(str(u.get("kind")), "UNIT"), "at": str(u.get("at")),
             "face": u.get("face") or "up", "markers": sorted(u.get("markers") or [])}
            for u in units if u.get("at") and u.get("at") != "eliminated"]


def scenario_figures(sc: Scenario) -> list[dict]:
    """``[{"svg", "caption", "number", "key"}]`` for the scenario page: figures numbered from 1
    (the set-up), each with the key of the units it shows."""
    figs = []
    for i, st in enumerate(states(sc)):
        figs.append({"svg": svg.draw(st, id_prefix=f"{sc.id}-{i}"), "number": i + 1,
                     "caption": f"Figure {i + 1}. {st['caption']}", "key": _key(st["units"])})
    return figs


def position_figure(map_data: dict, units: list[dict], side: str, phase: str,
                    id_prefix: str) -> dict:
    """A position a clause example sets up, as a figure (``{"svg", "caption", "key"}``):
    the board with its units where they stand, their key naming each by the id the
    example's lines call it by (a side has the same colour in every figure), and a caption
    saying whose phase it is and where the terrain is.

    >>> fig = position_figure({"columns": 3, "rows": 2, "hexes": {"B1": "woods"}},
    ...     [{"id": "gun", "side": "Soviet", "kind": "gun", "at": "A1"},
    ...      {"id": "tank", "side": "German", "kind": "armoured", "at": "B1"}],
    ...     "German", "movement", "ex")
    >>> fig["caption"]
    'The position set up: the German movement phase; woods in B1.'
    >>> [(k["at"], k["name"]) for k in fig["key"]], fig["svg"].count('class="hm-unit"')
    ([('B1', 'tank'), ('A1', 'gun')], 2)
    """
    # the sides in the order of their names, so that a side has one colour in every figure
    shown = sorted((dict(u, name=str(u.get("name") or u.get("id", ""))) for u in units),
                   key=lambda u: str(u.get("side", "")))
    terrain: dict[str, list[str]] = {}
    for lab, kind in sorted((map_data.get("hexes") or {}).items()):
        terrain.setdefault(str(kind), []).append(lab)
    where = "".join(f"; {kind} in {', '.join(labs)}" for kind, labs in sorted(terrain.items()))
    caption = f"The position set up: the {side} {phase} phase{where}."
    desc = _describe({"map": map_data}, shown, [], lambda u: u["name"])
    state = {"map": map_data, "units": shown, "path": [], "los": [],
             "title": "A position of the example", "desc": desc}
    key = _key(shown)
    for entry, u in zip(key, (u for u in shown if u.get("at") and u.get("at") != "eliminated")):
        entry["name"] = u["name"]
    return {"svg": svg.draw(state, id_prefix=id_prefix), "caption": caption, "key": key}


#: letters printed on hexes holding a block or mines in the referee's diagrams
FEATURE_LETTERS = {"blocks": "BL", "mines": "MN"}


def _board_state(sc: Scenario, snap: dict, who: str, units: list[dict], features: dict,
                 caption: str) -> dict:
    m = dict(sc.data.get("map") or {})
    labels = dict(m.get("labels") or {})
    for key, letters in FEATURE_LETTERS.items():
        for lab in features.get(key, ()):
            labels[lab] = letters
    m["labels"] = labels
    names = ", ".join(f"{u.get('name') or u['id']} in {u['at']}" for u in units) or "no units"
    shown = "; ".join(f"{key} in {', '.join(features[key])}" for key in FEATURE_LETTERS
                      if features.get(key))
    return {"map": m, "units": units, "path": [], "los": [], "caption": caption,
            "title": f"{sc.title}: step {snap['step'] + 1}, {who}",
            "desc": f"{who}: {names}" + (f"; {shown}" if shown else "") + "."}


def referee_states(sc: Scenario, snapshots: list[dict]) -> list[list[dict]]:
    """For each step played under a referee: the referee's board (the true state) and each
    side's own board, as the engine computed them (``views`` of the snapshots of
    :func:`harmony.games.panzerblitz.scenario.run_scenario`). Blocks and mines show as lettered hexes (BL, MN).

    >>> sc = Scenario(id="s", title="S", data={"map": {"columns": 3, "rows": 2}})
    >>> snap = {"step": 0, "note": "", "units": [
    ...     {"id": "t", "side": "German", "kind": "armoured", "at": "A1"},
    ...     {"id": "g", "side": "Soviet", "kind": "gun", "at": "C2"}],
    ...     "views": {
    ...     "German": {"own": [{"unit": "t", "at": "A1"}], "enemy": [], "blocks": ["B1"], "mines": []},
    ...     "Soviet": {"own": [{"unit": "g", "at": "C2"}], "enemy": [{"unit": "t", "at": "A1"}],
    ...                "blocks": [], "mines": []}}}
    >>> [[(s["caption"], [u["id"] for u in s["units"]], s["map"]["labels"]) for s in step]
    ...  for step in referee_states(sc, [snap])]   # doctest: +NORMALIZE_WHITESPACE
    [[('Step 1: the referee', ['t', 'g'], {}), ('Step 1: the German board', ['t'], {'B1': 'BL'}),
      ('Step 1: the Soviet board', ['t', 'g'], {})]]
    """
    out = []
    for snap in snapshots:
        views = snap.get("views")
        if not views:
            continue
        alive = [dict(u) for u in snap.get("units") or [] if u.get("at") != "eliminated"
                 and not u.get("loaded-in")]
        by_id = {u["id"]: u for u in alive}
        true = {"blocks": sorted((sc.data.get("map") or {}).get("blocks") or {}),
                "mines": sorted((sc.data.get("map") or {}).get("mines") or {})}
        i = snap["step"] + 1
        boards = [_board_state(sc, snap, "the referee", alive, true, f"Step {i}: the referee")]
        for side, v in sorted(views.items()):
            units = [dict(by_id[o["unit"]], at=o["at"]) for o in v.get("own", [])
                     if o["unit"] in by_id]
            units += [dict(by_id[e["unit"]], at=e["at"]) for e in v.get("enemy", [])
                      if e["unit"] in by_id]
            order = list(by_id)          # the referee's order, so each side keeps its colour
            units.sort(key=lambda u: order.index(u["id"]))
            boards.append(_board_state(sc, snap, f"the {side} board", units, v,
                                       f"Step {i}: the {side} board"))
        out.append(boards)
    return out


def referee_figures(sc: Scenario, snapshots: list[dict]) -> list[dict]:
    """One figure per step played under a referee: the referee's board and each side's board
    side by side, in one drawing, with the key of the units on the referee's board
    (``[{"svg", "caption", "key"}]``)."""
    figs = []
    for n, boards in enumerate(referee_states(sc, snapshots)):
        parts = [svg.draw(b, id_prefix=f"{sc.id}-ref-{n}-{k}") for k, b in enumerate(boards)]
        figs.append({"svg": _side_by_side(parts, boards[0]["title"].rsplit(",", 1)[0]),
                     "caption": " | ".join(b["caption"] for b in boards),
                     "key": _key(boards[0]["units"])})   # the referee's board: every unit
    return figs


_SIZE = re.compile(r'^<svg [^>]*?width="([0-9.]+)" height="([0-9.]+)"')
GAP = 12


def _side_by_side(parts: list[str], title: str) -> str:
    """Several drawings of :func:`harmony.games.panzerblitz.svg.draw` in one ``<svg>``, left to right.

    >>> a = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 5" width="10" height="5"></svg>'
    >>> _side_by_side([a, a], "T & U")[:158]
    '<svg xmlns="http://www.w3.org/2000/svg" role="img" class="hm-svg hm-boards" viewBox="0 0 32 5" width="32" height="5"><title>T &amp; U</title><svg x="0" y="0" '
    """  # noqa: E501
    x, height, inner = 0.0, 0.0, []
    for p in parts:
        m = _SIZE.match(p)
        w, h = (float(m.group(1)), float(m.group(2))) if m else (0.0, 0.0)
        inner.append(p.replace("<svg ", f'<svg x="{_num(x)}" y="0" ', 1))
        x += w + GAP
        height = max(height, h)
    width = max(x - GAP, 0)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" class="hm-svg hm-boards" '
            f'viewBox="0 0 {_num(width)} {_num(height)}" width="{_num(width)}" '
            f'height="{_num(height)}"><title>{escape(title)}</title>' + "".join(inner) + "</svg>")


def _num(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _name_of(sc: Scenario, uid: str) -> str:
    """The name a scenario's unit ``uid`` is shown by (its id, if no unit has it)."""
    unit = next((u for u in sc.data.get("units") or [] if isinstance(u, dict) and u.get("id") == uid),
                None)
    return unit_name(unit) if unit is not None else str(uid)


def step_list(sc: Scenario) -> list[dict]:
    """Every step's narrative with the figure that shows it: its own when it moves, fires or
    asks about a line of sight (``own_figure``), else the last figure before it."""
    drawn = {st["step"]: k + 1 for k, st in enumerate(states(sc)) if "step" in st}
    out, last = [], 1
    for step in steps_of(sc).steps:
        i = step.index + 1
        last = drawn.get(i, last)
        note = " ".join(step.note.split())
        if not note:   # a step with no narrative of its own says what it does
            note = (f"The {step.action.what} ends." if isinstance(step.action, End)
                    else f"{_name_of(sc, step.action.unit)} unloads what it carries."
                    if isinstance(step.action, Unload)
                    else "The questions below are asked here." if step.action is None else "")
        out.append({"number": i, "note": note, "figure": last,
                    "own_figure": i in drawn})
    return out


def draw(sc: Scenario, result) -> dict:
    """What a scenario page shows of the scenario's steps: ``steps`` (:func:`step_list`),
    ``names`` (unit id -> :func:`unit_name`), ``figures`` (the set-up and one per step that
    moves or fires, then each ruleset's referee boards, :func:`referee_figures`) and
    ``referee_boards`` (whether there are any), from the result of playing it."""
    boards = [fig for name in list(sc.data.get("rulesets") or [])
              for fig in referee_figures(sc, result.snapshots.get(name, []))]
    return {"steps": step_list(sc),
            "names": {str(u.get("id")): unit_name(u) for u in sc.data.get("units") or []
                      if isinstance(u, dict)},
            "figures": scenario_figures(sc) + boards, "referee_boards": bool(boards)}

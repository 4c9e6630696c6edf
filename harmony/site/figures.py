"""The diagrams of a scenario page: one state per step, drawn by :mod:`harmony.svg`.

States come from the scenario itself (where the units start, and the steps
as :mod:`harmony.steps` reads them: the path each move follows, the attacks
declared along it), so the diagrams need no engine: the first figure is the set-up, then one per step that moves or
fires, showing units where the step leaves them.

>>> from harmony.model import Scenario
>>> sc = Scenario(id="s", title="S", data={"map": {"columns": 3, "rows": 2},
...     "units": [{"id": "a", "side": "X", "kind": "gun", "at": "A1"},
...               {"id": "b", "side": "Y", "kind": "armoured", "at": "C2"}],
...     "steps": [{"note": "b moves", "move": {"unit": "b", "path": ["B2", "A2"],
...                "attacks": [{"at": "B2", "opfire": ["a"], "result": "none"}]}}]})
>>> [f["caption"] for f in scenario_figures(sc)]
['Set-up', 'Step 1: b moves']
>>> states(sc)[1]["path"], states(sc)[1]["los"]
(['C2', 'B2', 'A2'], [['A1', 'B2']])
"""
from __future__ import annotations

import copy

from .. import svg
from ..model import Scenario
from ..steps import Fire, Move, steps_of


def _describe(data: dict, units: list[dict], path: list[str]) -> str:
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
        parts.append(f"{u.get('name') or u.get('id')} ({u.get('side')} {u.get('kind')}) in {where}{marks}")
    if len(path) > 1:
        parts.append("path moved: " + " to ".join(path))
    return ". ".join(parts) + "."


def states(sc: Scenario) -> list[dict]:
    """The set-up and the state after each move or fire step."""
    d = sc.data
    units = [dict(u) for u in d.get("units") or []]
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
                    for f in att.firers:
                        if f in where and where[f].get("at"):
                            los.append([where[f]["at"], str(att.at)])
                if unit:
                    unit["at"] = hexes[-1]
            case Fire() as fire:
                target = where.get(fire.target)
                for f in fire.units:
                    if f in where and target and where[f].get("at") and target.get("at"):
                        los.append([where[f]["at"], target["at"]])
            case _:
                continue
        note = " ".join(step.note.split())
        caption = f"Step {i}" + (f": {note}" if note else "")
        out.append({"map": d.get("map") or {}, "units": copy.deepcopy(units), "path": path, "los": los,
                    "caption": caption, "title": f"{sc.title}: step {i}",
                    "desc": (note + " " if note else "") + _describe(d, units, path)})
    return out


def scenario_figures(sc: Scenario) -> list[dict]:
    """``[{"svg": markup, "caption": text}]`` for the scenario page."""
    figs = []
    for i, st in enumerate(states(sc)):
        figs.append({"svg": svg.draw(st, id_prefix=f"{sc.id}-{i}"), "caption": st["caption"]})
    return figs

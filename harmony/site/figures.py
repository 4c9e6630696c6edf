"""The diagrams of a scenario page: one state per step, drawn by :mod:`harmony.svg`.

States come from the scenario data itself (where the units start, the path
each move step follows, the attacks declared along it), so the diagrams need
no engine: the first figure is the set-up, then one per step that moves or
fires, showing units where the step leaves them.

>>> from harmony.model import Scenario
>>> sc = Scenario(id="s", title="S", data={"map": {"columns": 3, "rows": 2},
...     "units": [{"id": "a", "side": "X", "kind": "gun", "at": "A1"},
...               {"id": "b", "side": "Y", "kind": "armoured", "at": "C2"}],
...     "steps": [{"note": "b moves", "move": {"unit": "b", "path": ["B2", "A2"],
...                "attacks": [{"at": "B2", "opfire": ["a"]}]}}]})
>>> [f["caption"] for f in scenario_figures(sc)]
['Set-up', 'Step 1: b moves']
>>> states(sc)[1]["path"], states(sc)[1]["los"]
(['C2', 'B2', 'A2'], [['A1', 'B2']])
"""
from __future__ import annotations

import copy

from .. import svg
from ..model import Scenario


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
    for i, step in enumerate(d.get("steps") or [], 1):
        path: list[str] = []
        los: list[list[str]] = []
        move = step.get("move")
        fire = step.get("fire")
        if move:
            unit = where.get(move.get("unit"))
            steps = list(move.get("path") or [])
            path = ([unit["at"]] if unit and unit.get("at") and (not steps or steps[0] != unit["at"])
                    else []) + steps
            for att in move.get("attacks") or []:
                firers = att.get("opfire") or ([att["interdiction"]] if att.get("interdiction") else [])
                for f in firers:
                    if f in where and where[f].get("at"):
                        los.append([where[f]["at"], att.get("at")])
            if unit and steps:
                unit["at"] = steps[-1]
        elif fire:
            target = where.get(fire.get("target"))
            for f in fire.get("units") or []:
                if f in where and target and where[f].get("at") and target.get("at"):
                    los.append([where[f]["at"], target["at"]])
        else:
            continue
        note = " ".join(str(step.get("note") or "").split())
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

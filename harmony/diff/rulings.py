"""The behavioural diff: every scenario ruling that changed, before and after.

The engine of the working tree (:func:`harmony.game.run_scenario`, by each scenario's game)
decides both sides, so only the data differs; each changed ruling carries
the clauses the engine gave as reasons.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..game import run_scenario
from ..model import Model
from .plain import jsonable


def _row(r: Any, name: str, default: Any = None) -> Any:
    if isinstance(r, dict):
        return r.get(name, default)
    return getattr(r, name, default)


def step_number(step: Any) -> Any:
    """A step as users read it: numbered from 1, as pytest, check and the site number it.

    >>> step_number(0), step_number("setup")
    (1, 'setup')
    """
    return step + 1 if isinstance(step, int) and not isinstance(step, bool) else step


def run_rulings(model: Model, scenario_id: str) -> tuple[dict, str | None]:
    """A scenario's rulings keyed by (step, question, ruleset), or the reason it did not run;
    the step numbered from 1 (:func:`step_number`)."""
    try:
        result = run_scenario(model, scenario_id)
    except Exception as e:  # noqa: BLE001  the old side may not fit today's engine
        return {}, f"{type(e).__name__}: {e}"
    errors = [getattr(d, "message", str(d)) for d in _row(result, "errors", []) or []]
    rows = {}
    for r in _row(result, "rulings", []) or []:
        key = (step_number(_row(r, "step")), str(_row(r, "question")), str(_row(r, "ruleset")))
        rows[key] = {"actual": jsonable(_row(r, "actual")),
                     "reasons": sorted(map(str, _row(r, "reasons", []) or [])),
                     "expected": jsonable(_row(r, "expected"))}
    return rows, ("; ".join(errors) if errors else None)


def ruling_diff(old: Model, new: Model, clauses: dict | None = None) -> tuple[list[dict], list[dict]]:
    """The rulings that changed, and the scenarios the engine could not run on one side."""
    changed_clauses = set((clauses or {}).get("changed", {})) | set((clauses or {}).get("added", [])) \
        | set((clauses or {}).get("removed", []))
    out, problems = [], []
    # Today's engine reads the parameters of today's registry. An older state that did not
    # declare a parameter yet said nothing of it: it is played with the new declaration and
    # its default (which is what "says nothing" means), so the two sides can be compared.
    missing = {k: v for k, v in new.parameters.items() if k not in old.parameters}
    if missing:
        old = replace(old, parameters={**old.parameters, **missing})
    for sid in sorted(set(old.scenarios) & set(new.scenarios)):
        before, err_old = run_rulings(old, sid)
        after, err_new = run_rulings(new, sid)
        for side, err in (("old", err_old), ("new", err_new)):
            if err:
                problems.append({"scenario": sid, "side": side, "error": err})
        if not before and not after:
            continue
        for key in sorted(set(before) | set(after), key=lambda k: (str(k[0]), k[1], k[2])):
            a, b = before.get(key), after.get(key)
            if a is not None and b is not None and a["actual"] == b["actual"] and a["reasons"] == b["reasons"]:
                continue
            if (a is None or b is None) and (err_old or err_new):
                continue  # one side did not run: not a change of ruling
            involved = sorted(set((a or {}).get("reasons", [])) | set((b or {}).get("reasons", [])))
            kind = "added" if a is None else "removed" if b is None else \
                "ruling" if a["actual"] != b["actual"] else "reasons"
            out.append({
                "scenario": sid, "step": key[0], "question": key[1], "ruleset": key[2], "kind": kind,
                "before": a["actual"] if a else None, "after": b["actual"] if b else None,
                "reasons_before": (a or {}).get("reasons"), "reasons_after": (b or {}).get("reasons"),
                "clauses": involved,
                "changed_clauses": [c for c in involved if c in changed_clauses],
            })
    return out, problems

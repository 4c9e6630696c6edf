"""Tumble's rules engine: the game module of this harmony (``game: tumble`` in
sources.yaml), which harmony finds in the rules folder and reads through the one
interface of :mod:`harmony.game`.

Tumble is a dice game invented for this starter: a player throws three dice and
scores their sum, with rules for two ones, a triple and a pair that the two editions
set differently (``parameters.yaml``). The engine reads those parameters through a
:class:`~harmony.rulings.Why`, so each ruling names the clauses that decided it.

>>> from harmony.ruleset import Ruleset
>>> first = Ruleset.from_values("TA", {"score.ones-lose": True, "score.triple-times": 3,
...                                    "score.pair-bonus": 0})
>>> score(first, 4, 4, 4).value, score(first, 1, 1, 6).value, score(first, 2, 3, 5).value
(36, 0, 10)
"""
from __future__ import annotations

import html
from collections import Counter
from typing import Any

from harmony.diagnostics import Report
from harmony.game import Game, RulingRow, ScenarioResult
from harmony.model import Model, Scenario
from harmony.ruleset import Ruleset, RulesetError, ruleset_for
from harmony.rulings import Ruling, Why

#: the parameters the engine reads (harmony check asks each ruleset for a value of each)
PARAMETERS = ("score.ones-lose", "score.triple-times", "score.pair-bonus")
#: what a question may ask (``ask: {score: ...}``)
QUESTIONS = ("throw", "total")
#: the keys of a step besides ``note`` and ``expect``
STEP_KEYS = ("throw",)


def score(rules: Ruleset, *dice: int) -> Ruling:
    """What a throw of three dice scores under ``rules``, with the clauses that decided it."""
    why = Why(rules)
    return why.ruling(_score(why, dice))


def _score(why: Why, dice: tuple[int, ...] | list[int]) -> int:
    counts = Counter(dice)
    total = sum(dice)
    if counts[1] >= 2 and why.p("score.ones-lose"):
        return 0
    if len(counts) == 1:
        return total * why.p("score.triple-times")
    if len(counts) == 2:
        return total + why.p("score.pair-bonus")
    return total


# ------------------------------------------------------------------ scenarios

def check_scenario(model: Model, sc: Scenario, report: Report) -> None:
    """What is wrong in a Tumble scenario's steps and questions, each at its position."""
    for i, step in enumerate(sc.data.get("steps") or []):
        if not isinstance(step, dict):
            continue
        for key in step:
            if key not in ("note", "expect") + STEP_KEYS:
                report.error(sc.pos("steps", i, key, key=True), f"scenario {sc.id}: unknown key "
                             f"'{key}' in step {i + 1}: a Tumble step has throw, note and expect",
                             "scenario-step")
        dice = step.get("throw")
        if dice is None:
            report.error(sc.pos("steps", i), f"scenario {sc.id}: step {i + 1} throws no dice: "
                         "give throw: [a, b, c]", "scenario-step")
        elif not (isinstance(dice, list) and len(dice) == 3
                  and all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice)):
            report.error(sc.pos("steps", i, "throw"), f"scenario {sc.id}: step {i + 1}: a throw "
                         "is three dice, each a whole number from 1 to 6", "scenario-step")
        for j, exp in enumerate(step.get("expect") or []):
            ask = exp.get("ask") if isinstance(exp, dict) else None
            if not isinstance(ask, dict):
                continue
            for key in ask:
                if key != "score":
                    report.error(sc.pos("steps", i, "expect", j, "ask", key, key=True),
                                 f"scenario {sc.id}: unknown key '{key}' in 'ask': Tumble asks "
                                 "score: throw or score: total", "schema-unknown-key")
            if "score" in ask and ask["score"] not in QUESTIONS:
                report.error(sc.pos("steps", i, "expect", j, "ask", "score"),
                             f"scenario {sc.id}: score: {ask['score']!r} is not a question "
                             f"Tumble answers ({', '.join(QUESTIONS)})", "scenario-step")


def play(model: Model, scenario_id: str, rulesets: list[str] | None = None) -> ScenarioResult:
    """The scenario's throws scored under each ruleset; a row per expected ruling."""
    sc = model.scenarios[scenario_id]
    names = list(rulesets or sc.data.get("rulesets") or [])
    result = ScenarioResult(sc, names)
    for name in names:
        try:
            rules = ruleset_for(model, name)
        except RulesetError:
            continue                    # reported by the envelope's check
        total, so_far = 0, Why(rules)
        snaps: list[dict] = []
        for i, step in enumerate(sc.data.get("steps") or []):
            throw = score(rules, *step["throw"])
            total += throw.value
            so_far.add(throw)
            answers = {"throw": throw, "total": so_far.ruling(total)}
            snaps.append({"throw": list(step["throw"]), "score": throw.value, "total": total})
            for j, exp in enumerate(step.get("expect") or []):
                ruling = (exp.get("rulings") or {}).get(name)
                if ruling is None:
                    continue
                actual = answers[exp["ask"]["score"]]
                because = [str(c) for c in ruling.get("because") or []]
                ok = actual.value == ruling.get("value") and sorted(because) == actual.reasons
                result.rulings.append(RulingRow(
                    i, exp["question"], name, ruling.get("value"), actual.value, because,
                    list(actual.reasons), ok, sc.pos("steps", i, "expect", j, "rulings", name),
                    ask=exp["ask"]))
        result.snapshots[name] = snaps
    return result


# ------------------------------------------------------------------ drawing

PIPS = {1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)],
        4: [(0, 0), (2, 0), (0, 2), (2, 2)], 5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)],
        6: [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)]}


def dice_svg(dice: list[int], label: str) -> str:
    """Three dice drawn side by side, as SVG markup (deterministic).

    >>> dice_svg([1, 2, 3], "one, two, three").count("<circle")
    6
    """
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 190 64" width="190" '
             f'height="64" role="img" aria-label="{html.escape(label)}">']
    for k, face in enumerate(dice):
        x = 4 + k * 62
        parts.append(f'<rect x="{x}" y="4" width="56" height="56" rx="9" fill="#fffdf6" '
                     'stroke="#333" stroke-width="2"/>')
        for cx, cy in PIPS.get(face, []):
            parts.append(f'<circle cx="{x + 12 + cx * 16}" cy="{16 + cy * 16}" r="5" fill="#333"/>')
    parts.append("</svg>")
    return "".join(parts)


def draw(sc: Scenario, result: ScenarioResult) -> dict[str, Any]:
    """A figure per step: the three dice it throws."""
    figures, steps = [], []
    for i, step in enumerate(sc.data.get("steps") or []):
        dice = step.get("throw") or []
        shown = ", ".join(str(d) for d in dice)
        figures.append({"svg": dice_svg(dice, f"the dice show {shown}"), "number": i + 1,
                        "caption": f"Figure {i + 1}: step {i + 1} throws {shown}."})
        steps.append({"number": i + 1, "note": step.get("note", ""), "figure": i + 1,
                      "own_figure": True})
    return {"figures": figures, "steps": steps, "names": {},
            "legend": "Each figure shows the three dice a step throws."}


GAME = Game(name="tumble", namespace=lambda model: {"score": score}, parameters=PARAMETERS,
            play=play, check_scenario=check_scenario, draw=draw)

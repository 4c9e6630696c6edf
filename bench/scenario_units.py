"""One scenario of N units, played under its five rulesets: the CPU time of the play.

Run from the top of a checkout:  PYTHONPATH=$PWD python3 bench/scenario_units.py N [N ...]

The scenario is the shipped ``rev-figure-1`` (the Hetzer slipping past the A/T
battery, with all its steps and questions) on a map grown to hold N units: the
two units of the figure where they are, and N - 2 more units (infantry, alternately
of each side) one to a hex, filling the columns to the right of the figure and
rows below it, so that many of them see the Hetzer's path; the map grows to at most
60 x 60 hexes (the schema's limit), so past about 3,500 units a hex holds two or more
(each hex's units of one side). Loading is not timed:
the figure printed is ``time.process_time`` around ``run_scenario`` alone, and its
cost per unit (a linear engine keeps it flat as N grows).
"""
from __future__ import annotations

import copy
import math
import shutil
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # after PYTHONPATH: bench/run.py --tree measures another checkout

from harmony.games.panzerblitz.hexgrid import from_offset, label  # noqa: E402
from harmony.loader import load  # noqa: E402
from harmony.games.panzerblitz.scenario import run_scenario  # noqa: E402

BASE = "rev-figure-1"
#: The largest map side a scenario may have (the schema's limit): past 3,600 units, hexes hold
#: more than one.
MAX_SIDE = 60


def scenario(n: int) -> dict:
    """The figure's scenario grown to ``n`` units."""
    data = yaml.safe_load((ROOT / "rules_data" / "scenarios" / f"{BASE}.yaml").read_text("utf-8"))
    sc = data["scenario"]
    sc["id"] = f"{BASE}-units-{n}"
    side = min(MAX_SIDE, max(8, math.ceil(math.sqrt(n + 40))))
    sc["map"]["columns"] = max(sc["map"]["columns"], side)
    sc["map"]["rows"] = max(sc["map"]["rows"], side)
    taken = {u["at"] for u in sc["units"]} | set(sc["map"].get("hexes", {}))
    # hexes of the figure's path too: the steps move through them
    taken |= {"E4", "E3", "D2", "C2", "B2"}
    # AIW's table says which units may make opportunity fire: the filler units say they may not
    template = {"kind": "infantry", "class": "I", "attack": 4, "range": 3, "defence": 4,
                "movement": 2, "opportunity-fire": False}
    free = [label(from_offset(col, row)) for row in range(sc["map"]["rows"])
            for col in range(sc["map"]["columns"])
            if label(from_offset(col, row)) not in taken and not (col < 8 and row < 6)]
    todo = n - len(sc["units"])
    for placed in range(todo):
        # one to a hex while the map has room, then a second (third ...) to each hex, a
        # hex's units all of one side
        at = free[placed % len(free)]
        unit = dict(copy.deepcopy(template), id=f"u{placed}",
                    side=("German", "Soviet")[free.index(at) % 2] if todo > len(free)
                    else ("German", "Soviet")[placed % 2], at=at)
        sc["units"].append(unit)
    return data


def play(n: int) -> tuple[float, int]:
    tmp = Path(tempfile.mkdtemp(prefix="harmony-units-"))
    try:
        rules = tmp / "rules_data"
        shutil.copytree(ROOT / "rules_data", rules)
        (rules / "scenarios" / f"{BASE}-units-{n}.yaml").write_text(
            # a unit a line (flow style), to keep 7,000 units under the loader's 1 MB a file
            yaml.safe_dump(scenario(n), sort_keys=False, default_flow_style=None, width=200),
            "utf-8")
        model, report = load(rules)
        start = time.process_time()
        result = run_scenario(model, f"{BASE}-units-{n}")
        cpu = time.process_time() - start
        return cpu, len(result.errors)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str]) -> int:
    for arg in argv or ["1000"]:
        n = int(arg)
        cpu, errors = play(n)
        print(f"{cpu:.2f} s CPU, {1000 * cpu / n:.2f} ms a unit ({errors} step errors)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

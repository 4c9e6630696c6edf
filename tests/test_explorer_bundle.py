"""The explorer's Python bundle (harmony.site.explorer.engine_zip and more_zip) on its own: a
Python with nothing but its standard library and the zips on its path (``python -I -S``, as
Pyodide has nothing else; before Python 3.13, ``typing_extensions`` after them) answers as
the engine does here.

* ``engine.zip`` alone decides every valid position (the shipped scenarios' positions under
  their rulesets, a long move under every ruleset), from the rules read as JSON (a file
  beside it, as the page writes one: :func:`harmony.site.explorer.rules_json`), importing
  nothing but the standard library and what the zip holds: no YAML reader, no jsonschema;
* with ``more.zip`` after it, a position with a problem gets the engine's own error and a
  scenario file is written, as here.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harmony.games.panzerblitz import explorer as api
from harmony.site import explorer as bundle

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules_data"

#: run by ``python -I -S`` with the zips first on its path: reads the questions on stdin,
#: answers on stdout
ISOLATED = r"""
import json, sys
asked = json.load(sys.stdin)
sys.path.insert(0, asked["zips"][0])      # as the page puts them: the engine's zip first,
sys.path += asked["zips"][1:] + asked["backports"]   # the other last
Explorer = __import__(asked["module"], fromlist=["Explorer"]).Explorer
ex = Explorer.from_json(open(asked["model"], "rb").read())
out = {"check": [json.loads(ex.check(p)) for p in asked["check"]],
       "decide": [json.loads(ex.decide(p, False)) for p in asked["decide"]],
       "yaml": [ex.scenario_yaml(p, "explorer-position", "A position") for p in asked["yaml"]]}
out["modules"] = sorted({m.split(".")[0] for m in sys.modules} - set(sys.stdlib_module_names) - {"__main__"})
json.dump(out, sys.stdout)
"""


@pytest.fixture(scope="module")
def zips(tmp_path_factory, shipped_model):
    folder = tmp_path_factory.mktemp("bundle")
    engine, more = folder / "engine.zip", folder / "more.zip"
    engine.write_bytes(bundle.engine_zip(shipped_model))
    more.write_bytes(bundle.more_zip())
    (folder / bundle.MODEL_FILE).write_text(bundle.rules_json(RULES), "utf-8")
    return engine, more


@pytest.fixture(scope="module")
def here():
    return api.Explorer(str(RULES))


def backports(folder: Path) -> list[str]:
    """A folder holding ``typing_extensions`` alone, for a Python before 3.13 (``referencing``,
    which jsonschema imports, wants it there; Pyodide's Python has what it needs): put after
    the zips."""
    if sys.version_info >= (3, 13):
        return []
    import shutil
    import typing_extensions
    (folder / "backports").mkdir(exist_ok=True)
    shutil.copy(typing_extensions.__file__, folder / "backports" / "typing_extensions.py")
    return [str(folder / "backports")]


def isolated(zips: list[Path], check=(), decide=(), yaml=()) -> dict:
    asked = {"zips": [str(z) for z in zips], "model": str(zips[0].parent / bundle.MODEL_FILE),
             "backports": backports(zips[0].parent),
             "module": "harmony.games.panzerblitz.explorer",
             "check": list(check), "decide": list(decide), "yaml": list(yaml)}
    run = subprocess.run([sys.executable, "-I", "-S", "-c", ISOLATED], input=json.dumps(asked),
                         capture_output=True, text=True, cwd=zips[0].parent, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


def long_move(rulesets: list[str]) -> dict:
    path = [f"{c}3" for c in "BCDEFGHIJK"]
    return {"map": {"columns": 12, "rows": 6, "hexes": {"E3": "woods", "H4": "town"}},
            "units": [{"id": "tank", "side": "German", "kind": "armoured", "class": "A", "attack": 12,
                       "range": 8, "defence": 8, "movement": 10, "at": "A3", "opportunity-fire": True},
                      {"id": "gun", "side": "Soviet", "kind": "gun", "class": "A", "attack": 10, "range": 8,
                       "defence": 3, "movement": 1, "at": "F6", "opportunity-fire": True}],
            "start": {"side": "German", "phase": "movement"}, "rulesets": rulesets,
            "steps": [{"move": {"unit": "tank", "path": path}}]}


def test_the_engine_zip_alone_decides_as_the_engine_does_importing_no_yaml_or_jsonschema(zips, here):
    every = [r["name"] for r in json.loads(here.catalogue())["rulesets"]]
    positions = [api.position_of(here.model, sid) for sid in sorted(here.model.scenarios)
                 if "units" in here.model.scenarios[sid].data]
    positions = [p for p in positions if "error" not in json.loads(here.decide(json.dumps(p), False))]
    positions.append(long_move(every))
    assert len(positions) > 10
    texts = [json.dumps(p) for p in positions]
    got = isolated([zips[0]], check=texts, decide=texts)
    assert got["check"] == [{"ok": True}] * len(texts)
    assert got["decide"] == [json.loads(here.decide(t, False)) for t in texts]
    assert got["modules"] == ["harmony", "harmony_schema_ahead"]


def test_with_the_second_zip_errors_and_scenario_files_come_as_the_engine_gives_them(zips, here):
    good = long_move(["PB", "REV"])
    off = json.loads(json.dumps(good))
    off["units"][1]["at"] = "Z40"
    odd = json.loads(json.dumps(good))
    odd["units"][0]["kind"] = "spaceship"
    texts = [json.dumps(p) for p in (off, odd)]
    got = isolated(list(zips), check=texts, decide=texts, yaml=[json.dumps(good)])
    assert got["check"] == [json.loads(here.check(t)) for t in texts]
    assert all("error" in c for c in got["check"])
    assert got["decide"] == [json.loads(here.decide(t, False)) for t in texts]
    assert got["yaml"] == [here.scenario_yaml(json.dumps(good), "explorer-position", "A position")]
    assert got["yaml"][0].startswith("scenario:")

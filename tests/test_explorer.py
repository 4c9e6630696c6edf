"""The explorer's Python side (harmony.games.panzerblitz.explorer): positions in, the engine's rulings out.

decide must say what the shipped scenarios say wherever both ask the same
question; a bad position is an error naming the place, never an exception; a
saved position is a scenario file that ``harmony check`` accepts and pytest
plays green; links round-trip; the example pages link to their position.
"""
from __future__ import annotations

import copy
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harmony.games.panzerblitz import explorer
from harmony.games.panzerblitz.explorer import Explorer, decode, encode, position_of
from harmony.loader import load
from harmony.games.panzerblitz.units import Unit
from harmony.yamltree import walk

REPO = Path(__file__).resolve().parent.parent
RULES = REPO / "rules_data"
ACTIONS = ("move", "fire", "end", "orders", "unload")


@pytest.fixture(scope="module")
def ex() -> Explorer:
    e = Explorer(str(RULES))
    assert e.problems == []
    return e


def tank_and_gun(**changes) -> dict:
    """A small position: a German tank moves two hexes towards a Soviet gun past woods."""
    pos = {"rulesets": ["PB", "PL+opportunity-fire", "AIW", "REV"],
           "map": {"columns": 5, "rows": 6, "hexes": {"C3": "woods"}},
           "units": [{"id": "tank", "name": "German tank", "side": "German", "kind": "armoured",
                      "class": "A", "attack": 12, "range": 8, "defence": 8, "movement": 4,
                      "opportunity-fire": True,
                      "at": "C5"},
                     {"id": "gun", "side": "Soviet", "kind": "gun", "class": "A", "attack": 8,
                      "range": 6, "defence": 2, "movement": 1, "at": "C1", "opportunity-fire": True}],
           "start": {"side": "German", "phase": "movement"},
           "steps": [{"move": {"unit": "tank", "path": ["C4", "C3"]}}]}
    pos.update(changes)
    return pos


def decided(ex: Explorer, position: dict) -> dict:
    out = json.loads(ex.decide(json.dumps(position)))
    assert "error" not in out, out
    return out


# ------------------------------------------------------------------ agreement with the scenarios

def prefix(data: dict, k: int) -> dict:
    """The position of a scenario's first ``k + 1`` steps (expectations and ask-only steps out)."""
    pos = {key: copy.deepcopy(v) for key, v in data.items() if key not in explorer.META}
    steps = []
    for step in pos["steps"][:k + 1]:
        step.pop("expect", None)
        if set(step) & set(ACTIONS):
            steps.append(step)
    pos["steps"] = steps
    return pos


def comparisons(ex: Explorer, sid: str) -> tuple[list, list]:
    """(agreements, disagreements) of decide with the scenario's expectations, over every step
    that acts: the position up to that step, and the questions that step's expectations share
    with decide's."""
    data = ex.model.scenarios[sid].data
    same, differ = [], []
    for k, step in enumerate(data["steps"]):
        if not set(step) & set(ACTIONS) or not step.get("expect"):
            continue
        out = decided(ex, prefix(data, k))
        asked = [q for q in out["questions"] if q["when"] in ("during", "after")]
        for exp in step["expect"]:
            q = next((q for q in asked if q["ask"] == exp["ask"]), None)
            if q is None:
                continue
            for ruleset, want in exp["rulings"].items():
                got = q["rulings"][ruleset]
                row = (sid, k + 1, exp["question"], ruleset, want, got)
                ok = got.get("value") == want["value"] and got.get("reasons") == sorted(
                    want["because"])
                (same if ok else differ).append(row)
    return same, differ


def hex_scenarios(model) -> list[str]:
    """The scenarios of the hex game, whose explorer this is (a Combat Patrol scenario, on a
    table in inches, has none)."""
    from harmony import game
    return [sid for sid, sc in sorted(model.scenarios.items())
            if game.scenario_game(model, sc).name == "panzerblitz"]


@pytest.fixture(scope="module")
def compared(ex) -> dict:
    return {sid: comparisons(ex, sid) for sid in hex_scenarios(ex.model)}


@pytest.mark.parametrize("sid", hex_scenarios(load(RULES)[0]))
def test_decide_agrees_with_the_scenario(compared, sid):
    _same, differ = compared[sid]
    assert differ == []


def test_decide_meets_the_scenarios_on_many_questions_of_every_kind(compared):
    same = [row for s, _d in compared.values() for row in s]
    asked = {(row[0], row[2]) for row in same}
    assert len(same) >= 40 and len(asked) >= 15, len(same)
    # every kind of question decide asks is met in some scenario
    words = " ".join(row[2].lower() for row in same)
    for word in ("spotted", "markers", "fire"):
        assert word in words


def test_a_move_is_asked_about_at_every_hex_and_after(ex):
    out = decided(ex, tank_and_gun())
    ids = [q["id"] for q in out["questions"]]
    assert ids == ["spotted@C4", "opfire@C4", "interdiction@C4", "spotted@C3", "opfire@C3",
                   "interdiction@C3", "spotted", "markers", "can-fire:gun"]
    assert out["rulesets"] == ["PB", "PL+opportunity-fire", "AIW", "REV"]
    woods = next(q for q in out["questions"] if q["id"] == "spotted@C3")
    assert woods["text"] == "Is German tank spotted in C3?"
    assert woods["ask"] == {"spotted": "tank", "at": "C3"}
    for ruling in woods["rulings"].values():
        assert ruling["words"] in ("yes", "no") and ruling["reasons"]
    # the snapshot is the board after the move, for the diagram
    tank = next(u for u in out["snapshot"]["units"] if u["id"] == "tank")
    assert tank["at"] == "C3" and out["snapshot"]["path"] == ["C4", "C3"]
    assert out["snapshot"]["map"]["columns"] == 5
    assert set(out["snapshots"]) == set(out["rulesets"])


def test_decide_answers_with_the_engines_own_rulings(ex):
    """The same answers as the engine asked directly, reasons and all."""
    from harmony.games.panzerblitz.engine import Game
    from harmony.games.panzerblitz.scenario import ruleset_for
    pos = tank_and_gun(steps=[{"end": "phase"}])
    out = decided(ex, pos)
    for name in pos["rulesets"]:
        game = Game.from_data(ruleset_for(ex.model, name), pos["map"], pos["units"], "German",
                              "movement")
        game.end_phase()
        want = game.can_fire(["gun"], "tank")
        got = next(q for q in out["questions"] if q["id"] == "can-fire:gun:tank")["rulings"][name]
        assert (got["value"], got["reasons"]) == (want.value, want.reasons)


def test_a_fire_is_asked_about_before_and_after(ex):
    pos = tank_and_gun(start={"side": "Soviet", "phase": "fire"},
                       steps=[{"fire": {"units": ["gun"], "target": "tank", "result": "D"}}])
    out = decided(ex, pos)
    by_id = {q["id"]: q for q in out["questions"]}
    assert list(by_id) == ["can-fire", "dispersal:tank", "markers:gun"]
    assert by_id["can-fire"]["when"] == "before"
    for name in pos["rulesets"]:
        may = by_id["can-fire"]["rulings"][name]["value"]
        assert by_id["dispersal:tank"]["rulings"][name]["value"] == ("D" if may else "none")


def test_a_refused_step_is_a_ruling_naming_the_clause(ex):
    out = decided(ex, tank_and_gun(steps=[{"move": {"unit": "gun", "path": ["C2"]}}]))
    ruling = out["questions"][0]["rulings"]["PB"]
    assert "cannot move now" in ruling["refused"] and ruling["clause"] == "sequence.player-turn"
    assert "value" not in ruling


def with_hexside(pos: dict, kind: str) -> dict:
    pos["map"]["hexsides"] = [{"between": ["C1", "C2"], "type": kind}]
    return pos


@pytest.mark.parametrize("kind", ["woods-side", "slope-side"])
def test_a_hexside_the_reader_paints_is_in_the_rulings(ex, kind):
    """A hexside between the gun and the tank's path hides the tank where the open board
    shows it (the engine's own line of sight), and is in the board decide answers with."""
    def words(out, qid):
        return {r: c["words"] for r, c in next(q for q in out["questions"]
                                               if q["id"] == qid)["rulings"].items()}
    open_board = decided(ex, tank_and_gun())
    sided = decided(ex, with_hexside(tank_and_gun(), kind))
    assert words(open_board, "spotted@C3")["REV"] == "yes"
    assert words(sided, "spotted@C3")["REV"] == "no"
    assert sided["snapshot"]["map"]["hexsides"] == [{"between": ["C1", "C2"], "type": kind}]
    assert decode(encode(with_hexside(tank_and_gun(), kind)))["map"]["hexsides"][0]["type"] == kind


def test_rulings_without_the_boards_are_the_same_rulings(ex):
    for pos in (tank_and_gun(), long_position(), tank_and_gun(steps=[{"end": "phase"}])):
        whole = decided(ex, pos)
        rulings = json.loads(ex.decide(json.dumps(pos), snapshots=False))
        assert rulings == {"rulesets": whole["rulesets"], "questions": whole["questions"]}


def test_decide_is_deterministic(ex):
    text = json.dumps(tank_and_gun())
    assert ex.decide(text) == ex.decide(text)


# ------------------------------------------------------------------ bad positions

BAD = [
    (lambda p: p["units"][1].update(at="C9"), "units[1].at", "off the map"),
    (lambda p: p["units"][0].update(at="9C"), "units[0].at", "9C"),
    (lambda p: p["units"][0].update(at="Z9"), "units[0].at", "off the map"),   # and it moves
    (lambda p: p["map"]["hexes"].update(C3="swamp"), "map.hexes.C3", "swamp"),
    (lambda p: p["steps"][0]["move"].update(unit="nobody"), "steps[0].move.unit", "nobody"),
    (lambda p: p["steps"][0]["move"]["path"].append("E1"), "steps[0].move.path[2]",
     "not adjacent"),
    (lambda p: p["units"][0].update(kind="spaceship"), "units[0].kind", "spaceship"),
    (lambda p: p["units"][0].update(attack="x"), "units[0].attack", "whole number"),
    (lambda p: p["units"][0].update(colour="red"), "units[0].colour", "colour"),
    (lambda p: p["units"][0].pop("at"), "units[0]", "'at'"),
    (lambda p: p.update(rulesets=["PB", "XX"]), "rulesets[1]", "XX"),
    (lambda p: p.pop("start"), "", "start"),
    (lambda p: p.update(steps=[{"fire": {"units": ["gun"], "target": "ghost", "result": "D"}}]),
     "steps[0].fire.target", "ghost"),
]


@pytest.mark.parametrize("change,path,words", BAD, ids=[b[1] or "top" for b in BAD])
def test_a_bad_position_is_an_error_naming_the_place(ex, change, path, words):
    pos = tank_and_gun()
    change(pos)
    out = json.loads(ex.decide(json.dumps(pos)))
    assert out["error"]["path"] == path
    assert words in out["error"]["message"]
    assert "Traceback" not in out["error"]["message"]
    saved = json.loads(ex.scenario_yaml(json.dumps(pos), "saved", "Saved"))
    assert saved["error"]["path"] == path


@pytest.mark.parametrize("text", ["{", "[]", "null", '"C3"', "", '{"units": 3}', "[" * 100000])
def test_text_that_is_no_position_is_an_error(ex, text):
    out = json.loads(ex.decide(text))
    assert out["error"]["message"]


def leaves(value) -> list[tuple]:
    """The path of every value in ``value``, its own (empty) path first."""
    return [path for path, _ in walk(value)]


PLACES = [p for p in leaves(tank_and_gun()) if p]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(PLACES), st.none() | st.booleans() | st.integers(-5, 99) | st.text(max_size=4)
       | st.lists(st.text(max_size=3), max_size=3) | st.dictionaries(st.text(max_size=3),
                                                                      st.integers(), max_size=2))
def test_any_damaged_position_is_answered_never_raised(ex, place, value):
    pos = tank_and_gun()
    node = pos
    for step in place[:-1]:
        node = node[step]
    node[place[-1]] = value
    out = json.loads(ex.decide(json.dumps(pos)))
    assert "questions" in out or (out["error"]["message"] and isinstance(out["error"]["path"], str))


# ------------------------------------------------------------------ what decide remembers

@pytest.fixture(scope="module")
def forgetful() -> Explorer:
    """An explorer that remembers nothing between decisions: every position is checked whole
    against the schema, as the first decision of a fresh explorer is."""
    e = Explorer(str(RULES), reuse=False)
    assert e.problems == []
    return e


def long_position() -> dict:
    """A tank moving up a column past a gun, on a board with room for terrain and hexsides."""
    return {"rulesets": ["PB", "PL", "AIW", "REV"],
            "map": {"columns": 6, "rows": 8, "hexes": {"C4": "woods"}},
            "units": [{"id": "tank", "name": "German tank", "side": "German", "kind": "armoured",
                       "class": "A", "attack": 12, "range": 8, "defence": 8, "movement": 8,
                       "opportunity-fire": True, "at": "C8"},
                      {"id": "gun", "side": "Soviet", "kind": "gun", "class": "A", "attack": 8,
                       "range": 6, "defence": 2, "movement": 1, "at": "E2", "opportunity-fire": True},
                      {"id": "rifles", "side": "Soviet", "kind": "infantry", "class": "I", "attack": 6,
                       "range": 3, "defence": 6, "movement": 3, "at": "A3", "opportunity-fire": True}],
            "start": {"side": "German", "phase": "movement"},
            "steps": [{"move": {"unit": "tank", "path": ["C7", "C6", "C5", "C4", "C3", "C2"]}}]}


HEXES = [f"{c}{r}" for c in "ABCDEF" for r in range(1, 9)]
EDIT = st.one_of(
    st.tuples(st.just("path"), st.integers(1, 6)),
    st.tuples(st.just("terrain"), st.sampled_from(HEXES),
              st.sampled_from(["woods", "town", "slope", "hill", "clear", "swamp"])),
    st.tuples(st.just("hexside"), st.sampled_from(HEXES), st.sampled_from(range(6)),
              st.sampled_from(["slope-side", "woods-side", "cliff-side"])),
    st.tuples(st.just("unit"), st.sampled_from([0, 1, 2]),
              st.sampled_from(["at", "attack", "dispersal", "face", "opportunity-fire"]),
              st.sampled_from(["C1", "E2", "B5", "Z9", 3, 20, "D", "DD", "down", "up", True, False])),
    st.tuples(st.just("rulesets"), st.lists(st.sampled_from(["PB", "PL", "AIW", "REV", "DB", "CP",
                                                            "PL+opportunity-fire", "XX"]),
                                            min_size=1, max_size=4, unique=True)),
    st.tuples(st.just("damage"), st.sampled_from([p for p in leaves(long_position()) if p]),
              st.none() | st.integers(-2, 9) | st.text(max_size=3)),
)


def edited(pos: dict, edit: tuple) -> dict:
    """The position after one reader's edit (some leave it malformed, as a reader may; an edit
    that finds no place to land, the position being damaged there, leaves it as it was)."""
    try:
        return _edited(copy.deepcopy(pos), edit)
    except (KeyError, IndexError, TypeError, AttributeError):
        return pos


def _edited(pos: dict, edit: tuple) -> dict:
    from harmony.games.panzerblitz.hexgrid import label, neighbours, parse_label
    kind, *args = edit
    if kind == "path":
        full = long_position()["steps"][0]["move"]["path"]
        pos["steps"] = [{"move": {"unit": "tank", "path": full[:args[0]]}}]
    elif kind == "terrain":
        pos["map"]["hexes"] = dict(pos["map"].get("hexes") or {}, **{args[0]: args[1]})
    elif kind == "hexside":
        other = label(list(neighbours(parse_label(args[0])))[args[1]])
        pos["map"]["hexsides"] = (pos["map"].get("hexsides") or []) + [
            {"between": [args[0], other], "type": args[2]}]
    elif kind == "unit":
        pos["units"][args[0]][args[1]] = args[2]
    elif kind == "rulesets":
        pos["rulesets"] = args[0]
    else:
        node = pos
        for step in args[0][:-1]:
            node = node[step]
        node[args[0][-1]] = args[1]
    return pos


@settings(max_examples=40, deadline=None)
@given(st.lists(EDIT, min_size=1, max_size=5))
def test_a_remembered_decision_is_a_fresh_explorers_decision(ex, forgetful, edits):
    """Edit after edit, the explorer that remembers what it checked answers every position,
    rulings and errors alike, exactly as one that remembers nothing."""
    pos = long_position()
    ex.decide(json.dumps(pos))
    for edit in edits:
        pos = edited(pos, edit)
        text = json.dumps(pos)
        assert ex.decide(text) == forgetful.decide(text)
    assert ex.scenario_yaml(text, "saved", "Saved") == forgetful.scenario_yaml(text, "saved", "Saved")


def test_a_longer_move_checks_only_its_new_parts():
    """One hex more: the scenario, the step and the questions already checked are not checked
    again; the new hex's three questions are."""
    fresh = Explorer(str(RULES))
    pos = long_position()
    pos["steps"][0]["move"]["path"] = pos["steps"][0]["move"]["path"][:5]
    decided(fresh, pos)
    before = dict(fresh._checked)
    assert before and all(before.values())
    decided(fresh, long_position())
    new = {key for key in fresh._checked if key not in before}
    assert sorted(kind for kind, _ in new) == ["expectation"] * 3 + ["step"], new
    assert all('"at": "C2"' in text for kind, text in new if kind == "expectation")
    # the same position again checks nothing
    decided(fresh, long_position())
    assert len(fresh._checked) == len(before) + len(new)


def test_places_are_those_the_tree_walk_finds():
    """The table of places the explorer reads a position with gives the place walking the tree
    gives, for every key and value, and for paths the tree does not hold."""
    from harmony.yamltree import node_pos
    whole = {"scenario": dict(long_position(), id="x")}
    tree, lines = explorer._tree(whole)
    assert explorer._tree(whole, nodes=False) == (None, lines)
    sc = explorer._Placed(lines, file=explorer.FILE, id="x", data=whole["scenario"])
    places = [p[1:] for p in leaves(whole) if p[:1] == ("scenario",)]
    places += [("units", 9), ("units", 0, "nothing"), ("map", "hexes", "C4", 2), ("steps", "x"),
               ("map", {"un": "hashable"}), ()]
    for path in places:
        for key in (False, True):
            assert sc.pos(*path, key=key) == node_pos(explorer.FILE, tree["scenario"], path,
                                                      key=key), (path, key)


# ------------------------------------------------------------------ saving

def saved_scenarios(ex: Explorer) -> dict[str, str]:
    positions = {"explorer-tank-and-gun": tank_and_gun(),
                 "explorer-gun-fires": tank_and_gun(
                     start={"side": "Soviet", "phase": "fire"},
                     steps=[{"fire": {"units": ["gun"], "target": "tank", "result": "D"}}]),
                 "explorer-woods-side": with_hexside(tank_and_gun(), "woods-side"),
                 "explorer-figure-1": position_of(ex.model, "rev-figure-1"),
                 "explorer-adjacent": position_of(ex.model, "rev-adjacent-combining")}
    out = {}
    for sid, pos in positions.items():
        text = ex.scenario_yaml(json.dumps(pos), sid, f"Saved {sid}")
        assert text.startswith("scenario:\n"), text
        out[sid] = text
    return out


def harmony(*args, cwd=REPO) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def test_a_saved_position_passes_check_and_fmt_and_plays_green(ex, rules_copy, tmp_path):
    texts = saved_scenarios(ex)
    for sid, text in texts.items():
        (rules_copy / "scenarios" / f"{sid}.yaml").write_text(text, "utf-8")
    check = harmony("harmony", "check", str(rules_copy))
    assert check.returncode == 0, check.stdout + check.stderr
    assert "0 errors, 0 warnings" in check.stdout, check.stdout
    fmt = harmony("harmony", "fmt", "--check", str(rules_copy))
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr
    model, _ = load(rules_copy)
    for sid in texts:
        # the saved expectations are the engine's answers to decide's questions
        data = model.scenarios[sid].data
        assert sum(len(s.get("expect", [])) for s in data["steps"]) >= 3
    for sid in texts:
        played = harmony("pytest", "-q", "-p", "no:cacheprovider", "--harmony-rules",
                         str(rules_copy / "scenarios" / f"{sid}.yaml"), cwd=tmp_path)
        assert played.returncode == 0, played.stdout + played.stderr
        assert re.search(r"\b[1-9]\d* passed", played.stdout), played.stdout


def test_a_saved_position_that_the_engine_changes_its_mind_on_fails(ex, rules_copy, tmp_path):
    """The saved file is a regression test: a ruling changed by hand makes it fail."""
    text = ex.scenario_yaml(json.dumps(tank_and_gun()), "explorer-tank", "Tank")
    flipped = re.sub(r"(spotted: tank, at: C4\}\n(?:.*\n)*?\s+PB: \{value: )(true|false)",
                     lambda m: m.group(1) + ("false" if m.group(2) == "true" else "true"), text,
                     count=1)
    assert flipped != text
    (rules_copy / "scenarios" / "explorer-tank.yaml").write_text(flipped, "utf-8")
    played = harmony("pytest", "-q", "-p", "no:cacheprovider", "--harmony-rules",
                     str(rules_copy / "scenarios" / "explorer-tank.yaml"), cwd=tmp_path)
    assert played.returncode == 1 and "1 failed" in played.stdout, played.stdout


def test_a_position_some_ruleset_cannot_play_is_not_saved(ex):
    out = json.loads(ex.scenario_yaml(json.dumps(tank_and_gun(
        steps=[{"move": {"unit": "gun", "path": ["C2"]}}])), "x", "X"))
    assert "cannot move now" in out["error"]["message"]
    assert out["error"]["path"] == "steps[0].move.unit"


def test_a_bad_id_is_an_error_at_the_id(ex):
    out = json.loads(ex.scenario_yaml(json.dumps(tank_and_gun()), "Not An Id", "X"))
    assert out["error"]["path"] == "id"


# ------------------------------------------------------------------ links

def test_the_link_format_is_the_contracts():
    """The same bytes as the page's JavaScript writes: base64url, no padding, of compact
    sorted JSON in UTF-8 (non-ASCII as itself, as JSON.stringify writes it)."""
    sample = {"units": [{"id": "t", "name": "Panzer Ü"}], "map": {"rows": 2, "columns": 3}}
    assert encode(sample) == ("eyJtYXAiOnsiY29sdW1ucyI6Mywicm93cyI6Mn0sInVuaXRzIjpbeyJpZCI6In"
                              "QiLCJuYW1lIjoiUGFuemVyIMOcIn1dfQ")
    assert "=" not in encode({"a": 1}) and decode(encode(sample)) == sample


JSON = st.recursive(st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(max_size=8), JSON, max_size=5))
def test_encode_decode_round_trip(position):
    code = encode(position)
    assert re.fullmatch(r"[A-Za-z0-9_-]*", code)
    assert decode(code) == position
    assert decode(f"../explorer.html#position={code}") == position


@pytest.mark.parametrize("text", ["#position=!!!", "#position=WzFd", "#position="])
def test_a_broken_link_is_a_value_error(text):
    with pytest.raises(ValueError, match="not an explorer position"):
        decode(text)


def test_every_shipped_scenario_position_is_decided(ex):
    for sid in hex_scenarios(ex.model):
        out = decided(ex, position_of(ex.model, sid))
        assert out["questions"], sid
        json.dumps(out)


def built_site_with_explorer_page():
    """The shipped site if it has the explorer page, else one built with a placeholder page."""
    from harmony.site.build import build_site
    from harmony.site.generate import SITE
    from harmony.site.testing import shipped_site
    site = shipped_site()
    if (site.out / "explorer.html").exists():
        return site.out
    root = Path(tempfile.mkdtemp(prefix="harmony-explorer-site-"))
    shutil.copytree(SITE, root / "src")
    (root / "src" / "explorer.rst").write_text("Explorer\n========\n\nThe explorer.\n", "utf-8")
    out = build_site(RULES, root / "site", site_dir=root / "src").out
    return out


def test_every_example_page_opens_its_position_in_the_explorer(ex):
    from harmony.site import views
    out = built_site_with_explorer_page()
    for sid in sorted(ex.model.scenarios):
        page = (out / f"{views.scenario_doc(sid)}.html").read_text("utf-8")
        if sid not in hex_scenarios(ex.model):     # a game without an explorer links none
            assert "explorer.html#position=" not in page, sid
            continue
        links = re.findall(r'href="([^"]*explorer\.html#position=[^"]*)"', page)
        assert len(links) == 1, sid
        target, _, _frag = html.unescape(links[0]).partition("#")
        assert (out / views.scenario_doc(sid)).parent.joinpath(target).resolve() == \
            (out / "explorer.html").resolve()
        assert decode(html.unescape(links[0])) == position_of(ex.model, sid)


# ------------------------------------------------------------------ weight

def test_the_explorer_imports_without_the_site_machinery():
    code = ("import sys, harmony.games.panzerblitz.explorer; print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'sphinx', 'docutils', 'jinja2', 'weasyprint', 'pygments', 'babel'}))")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_unit_defaults_are_what_the_engine_reads_for_a_missing_field():
    bare = {"id": "u", "side": "S", "kind": "gun", "class": "A", "attack": 1, "range": 1,
            "defence": 1, "movement": 1, "at": "A1"}
    assert Unit.from_data(bare).state() == Unit.from_data(
        dict(bare, **explorer.UNIT_DEFAULTS)).state()
    assert Unit.from_data(bare).may_overrun == Unit.from_data(
        dict(bare, **explorer.UNIT_DEFAULTS)).may_overrun


def test_the_catalogue_offers_what_a_position_may_hold(ex):
    cat = json.loads(ex.catalogue())
    names = [r["name"] for r in cat["rulesets"]]
    # the hex board's rulesets, in the model's order; Combat Patrol's game plays on a table
    # in inches, so its rulebook is not offered
    from harmony.game import game_for
    assert names == [k for k, s in ex.model.sources.items() if s.kind != "commentary"
                     and game_for(ex.model, k).name == "panzerblitz"]
    assert "REV" in names and "CP" not in names
    assert {"German", "Soviet"} <= set(cat["sides"])
    assert "armoured" in cat["kinds"] and "(H)" in cat["classes"]
    assert {t["name"] for t in cat["terrain"]} >= {"clear", "woods", "town", "slope", "hill"}
    assert {t["name"] for t in cat["hexsides"]} == {"slope-side", "woods-side"}
    fields = {f["name"]: f for f in cat["unit_fields"]}
    assert fields["at"]["required"] and not fields["face"]["required"]
    assert fields["dispersal"]["enum"] == ["none", "D", "DD"]
    assert fields["movement"]["type"] == "integer"


def _fake_pyodide(folder: Path, wasm: bytes) -> Path:
    """The files of a Pyodide npm package the bundle reads, small and made up."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyodide.js").write_text("/* pyodide */\n", "utf-8")
    (folder / "pyodide.asm.mjs").write_text("var x=import.meta.url;export default _createPyodideModule;",
                                            "utf-8")
    (folder / "pyodide.asm.wasm").write_bytes(wasm)
    (folder / "python_stdlib.zip").write_bytes(b"PK stdlib")
    (folder / "package.json").write_text('{"version": "0.0-test"}', "utf-8")
    (folder / "pyodide-lock.json").write_text('{"info": {"version": "0.0-test"}, "packages": {"x": {}}}',
                                              "utf-8")
    return folder


def test_pyodide_files_are_remembered_on_disk_between_processes(tmp_path, monkeypatch, shipped_model):
    """A new build process reads the compressed Pyodide files from the build's cache instead of
    compressing them again; what it reads equals what it would make; a changed Pyodide file
    makes them again, and one Pyodide's files are kept."""
    from harmony.site import explorer as bundle
    from harmony.usage import default_rules_data
    rules = default_rules_data()
    pyodide = _fake_pyodide(tmp_path / "pyodide", b"\0asm one")
    cache = tmp_path / "cache"
    fresh = bundle.bundle_files(pyodide, shipped_model, rules)
    bundle._pyodide_files.cache_clear()
    first = bundle.bundle_files(pyodide, shipped_model, rules, cache)
    assert first == fresh
    assert len(list((cache / "pyodide").iterdir())) == 1

    def no_making(_folder):
        raise AssertionError("made again though remembered")
    bundle._pyodide_files.cache_clear()          # as in a new process
    with monkeypatch.context() as m:
        m.setattr(bundle, "_make_pyodide_files", no_making)
        assert bundle.bundle_files(pyodide, shipped_model, rules, cache) == fresh

    (pyodide / "pyodide.asm.wasm").write_bytes(b"\0asm two, longer")
    bundle._pyodide_files.cache_clear()
    changed = bundle.bundle_files(pyodide, shipped_model, rules, cache)
    assert changed["runtime.js"] != fresh["runtime.js"]
    assert changed == bundle._make_pyodide_files(pyodide) | {"harmony.js": changed["harmony.js"],
                                                             "snapshot.js": changed["snapshot.js"]}
    assert len(list((cache / "pyodide").iterdir())) == 1
    bundle._pyodide_files.cache_clear()


def test_a_build_into_a_new_folder_takes_the_pyodide_files_from_the_users_cache(tmp_path, monkeypatch,
                                                                                shipped_model):
    """The files made from Pyodide's are the same for every site: a build into another
    folder, in a new process, reads them from the user's harmony cache; with that cache
    off, each build keeps them in its own cache, beside its site."""
    from types import SimpleNamespace
    from harmony.site import build, explorer as bundle
    from harmony.usage import default_rules_data
    rules = default_rules_data()
    monkeypatch.setenv("HARMONY_PYODIDE", str(_fake_pyodide(tmp_path / "pyodide", b"\0asm one")))
    monkeypatch.setenv("HARMONY_CACHE", str(tmp_path / "user"))

    def made(site: str) -> dict[str, bytes]:
        bundle._pyodide_files.cache_clear()       # as in a new process
        build._bundle(shipped_model, rules, tmp_path / f".{site}.harmony-cache", tmp_path / site,
                      SimpleNamespace(explorer="", extras=[]))
        return {p.name: p.read_bytes() for p in sorted((tmp_path / site / bundle.FOLDER).iterdir())}
    first = made("a")
    assert len(list((tmp_path / "user" / "explorer" / "pyodide").iterdir())) == 1
    with monkeypatch.context() as m:
        m.setattr(bundle, "_make_pyodide_files", lambda _folder: pytest.fail("made again though kept"))
        assert made("b") == first
    kept = tmp_path / "user" / "explorer" / "pyodide"
    (next(kept.iterdir()) / "runtime.js").unlink()     # as another build replaces them
    assert made("d") == first and (next(kept.iterdir()) / "runtime.js").is_file()
    monkeypatch.setenv("HARMONY_CACHE", "off")
    assert made("c") == first
    assert len(list((tmp_path / ".c.harmony-cache" / "pyodide").iterdir())) == 1
    assert not any((tmp_path / f".{site}.harmony-cache").exists() for site in "abd")
    bundle._pyodide_files.cache_clear()

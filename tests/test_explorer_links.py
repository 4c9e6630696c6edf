"""Share links the explorer page did not write: every one is refused with a message, never a crash.

:func:`malformed_links` makes the ``#position=`` codes: truncated base64 and
JSON, text that is not JSON or not a mapping, nulls and wrong types in every
part, huge maps, deep nesting, units off the map, unknown unit kinds and
rulesets, bad steps, too many steps, a link past the length limit. The
browser test (``test_explorer_browser.py``) opens each of them in the page;
here each is read as the page reads it (:func:`page_verdict`: the raw link,
the keys the page fills in, then :meth:`harmony.games.panzerblitz.explorer.Explorer.check`)
and must be refused, while every position the site links to is accepted.
"""
from __future__ import annotations

import base64
import copy
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from harmony.games.panzerblitz import explorer
from harmony.diagnostics import Report
from harmony.games.panzerblitz.explorer import Explorer, decode, encode, position_of
from harmony.loader import read_text
from harmony.schema import validate

REPO = Path(__file__).resolve().parent.parent
RULES = REPO / "rules_data"


def good() -> dict:
    """A position the page would write: a German platoon moves past a Soviet gun."""
    return {"map": {"columns": 8, "rows": 7, "hexes": {"C3": "woods", "D3": "woods", "E4": "town"}},
            "units": [{"id": "gun-1", "name": "A/T gun", "side": "Soviet", "kind": "gun", "class": "A",
                       "attack": 10, "range": 8, "defence": 3, "movement": 1, "at": "D7",
                       "opportunity-fire": True},
                      {"id": "platoon-1", "name": "Rifle platoon", "side": "German", "kind": "infantry",
                       "class": "I", "attack": 6, "range": 3, "defence": 6, "movement": 3, "at": "C3",
                       "opportunity-fire": True}],
            "start": {"side": "German", "phase": "movement"},
            "rulesets": ["PB", "PL", "AIW", "REV"],
            "steps": [{"move": {"unit": "platoon-1", "path": ["D3"]}}]}


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _changed(change: Callable[[dict], object]) -> dict:
    pos = good()
    change(pos)
    return pos


def _set(path: tuple, value) -> Callable[[dict], None]:
    def change(pos: dict) -> None:
        node = pos
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = value
    return change


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def malformed_links() -> list[tuple[str, str]]:
    """(what is wrong, the ``#position=`` code) for share links the page did not write; every
    code differs from every other, so that each is a new address for the page."""
    whole = encode(good())
    text = json.dumps(good(), separators=(",", ":"))
    out: list[tuple[str, str]] = []
    # the code itself: truncated, not base64url, not UTF-8, not JSON, not a mapping
    out += [(f"base64 cut to {n} characters", whole[:n]) for n in (1, 7, len(whole) // 2, len(whole) - 5)]
    out += [(f"JSON cut to {n} characters", _b64(text[:n].encode())) for n in (1, 40, len(text) // 2)]
    out += [("not base64url", "@@not*base64!!"), ("percent-escaped", "%7B%7D"),
            ("bytes that are not UTF-8", _b64(b'{"map": "\xff\xfe"}')),
            ("plain words", _b64(b"hello explorer"))]
    out += [(f"JSON {kind}", _b64(value.encode())) for kind, value in
            (("null", "null"), ("list", "[]"), ("number", "3"), ("text", '"C3"'), ("true", "true"))]
    # nulls everywhere
    for path in (("map",), ("units",), ("steps",), ("start",), ("rulesets",), ("units", 0), ("steps", 0),
                 ("units", 0, "at"), ("units", 1, "id"), ("units", 0, "kind"), ("map", "columns"),
                 ("map", "hexes"), ("steps", 0, "move"), ("steps", 0, "move", "path"),
                 ("start", "side")):
        out.append((f"null at {'.'.join(map(str, path))}", encode(_changed(_set(path, None)))))
    # wrong types
    for path, value in ((("map", "columns"), "8"), (("map", "rows"), 7.5), (("units",), {}),
                        (("steps",), {"move": 1}), (("rulesets",), "PB"), (("units", 0, "attack"), "12"),
                        (("units", 0, "at"), 5), (("steps", 0, "move", "path"), "D3"),
                        (("start", "phase"), "lunch"), (("map", "hexes"), ["C3"]),
                        (("units", 1, "opportunity-fire"), "yes")):
        out.append((f"{value!r} at {'.'.join(map(str, path))}", encode(_changed(_set(path, value)))))
    # huge and empty maps
    for cols, rows in ((100_000, 100_000), (61, 7), (8, 1_000_000), (0, 7), (-3, 7)):
        out.append((f"a {cols} x {rows} map", encode(_changed(_set(("map",), {"columns": cols, "rows": rows})))))
    # deep nesting
    out.append(("10,000 nested lists", _b64(_nested(10_000).encode())))
    out.append(("nested lists inside a unit", _b64(text.replace('"units":[', '"units":[' + _nested(200) + ",",
                                                                1).encode())))
    deep: dict = {}
    node = deep
    for _ in range(60):
        node["x"] = {}
        node = node["x"]
    out.append(("60 nested mappings in the map", encode(_changed(_set(("map", "hexes"), deep)))))
    # units off the map, unknown kinds and classes, duplicate ids
    for at in ("Z99", "A8", "I1", "ZZ999", "c3"):
        out.append((f"a unit at {at}", encode(_changed(_set(("units", 0, "at"), at)))))
    out.append(("an unknown unit kind", encode(_changed(_set(("units", 0, "kind"), "battleship")))))
    out.append(("an unknown weapon class", encode(_changed(_set(("units", 0, "class"), "Z")))))
    out.append(("two units with one id", encode(_changed(_set(("units", 1, "id"), "gun-1")))))
    out.append(("an unknown field of a unit", encode(_changed(_set(("units", 0, "colour"), "red")))))
    out.append(("an unknown ruleset", encode(_changed(_set(("rulesets",), ["PB", "NOPE"])))))
    out.append(("an unknown key", encode(_changed(_set(("colour",), "red")))))
    # bad steps
    for what, step in (("a move of an unknown unit", {"move": {"unit": "ghost", "path": ["D3"]}}),
                       ("a move off the map", {"move": {"unit": "platoon-1", "path": ["Q40"]}}),
                       ("a fire at an unknown target", {"fire": {"units": ["gun-1"], "target": "ghost",
                                                                          "result": "none"}}),
                       ("a step that does nothing known", {"dance": {"unit": "gun-1"}}),
                       ("an end of a century", {"end": "century"})):
        out.append((what, encode(_changed(_set(("steps",), [step])))))
    out.append(("1,001 steps", encode(_changed(_set(("steps",), [{"end": "phase"}] * 1_001)))))
    out.append(("a link past the length limit", "A" * (explorer.MAX_LINK + 4)))
    codes = [code for _, code in out]
    assert len(set(codes)) == len(codes), "every malformed link must differ from the others"
    return out


MALFORMED = malformed_links()


def page_verdict(ex: Explorer, code: str) -> dict:
    """What the page makes of a link's code, in Python: ``{"position": ...}`` or
    ``{"error": message}``. The raw link is read by :func:`harmony.games.panzerblitz.explorer.decode` (the page's
    pre-check does the same in JavaScript), the keys a link may leave out are filled in as
    the page fills them, and the whole is checked by the engine's own check."""
    try:
        pos = decode("#position=" + code)
    except ValueError as e:
        return {"error": str(e)}
    pos.setdefault("map", {"columns": 8, "rows": 7})
    pos.setdefault("units", [])
    pos.setdefault("steps", [])
    if "start" not in pos:
        first = pos["units"][0] if isinstance(pos["units"], list) and pos["units"] else {}
        side = first.get("side") if isinstance(first, dict) else None
        pos["start"] = {"side": side if isinstance(side, str) else "German", "phase": "movement"}
    pos.setdefault("rulesets", ["PB"])
    out = json.loads(ex.check(json.dumps(pos)))
    return {"error": out["error"]["message"]} if "error" in out else {"position": pos}


@pytest.fixture(scope="module")
def ex() -> Explorer:
    return Explorer(str(RULES))


def test_there_are_many_kinds_of_malformed_links():
    assert len(MALFORMED) >= 44


@pytest.mark.parametrize("what,code", MALFORMED, ids=[w for w, _ in MALFORMED])
def test_a_malformed_link_is_refused_with_a_message(ex, what, code):
    verdict = page_verdict(ex, code)
    assert "error" in verdict, f"{what}: accepted"
    assert verdict["error"] and "Traceback" not in verdict["error"]
    assert len(verdict["error"]) < 400


def test_the_page_and_every_example_link_are_accepted(ex):
    assert page_verdict(ex, encode(good())) == {"position": good()}
    for sid in sorted(ex.model.scenarios):
        position = position_of(ex.model, sid)
        assert json.loads(ex.check(json.dumps(position))) == {"ok": True}, sid


def test_what_a_reader_may_leave_empty_while_editing_is_accepted(ex):
    for empty in ({"units": [], "steps": []}, {"rulesets": []}, {"steps": []},
                  {"units": [], "steps": [], "rulesets": []}):
        assert json.loads(ex.check(json.dumps(dict(good(), **empty)))) == {"ok": True}, empty
    # but an empty list is only allowed where the page makes one
    out = json.loads(ex.check(json.dumps(dict(good(), units=[], steps=[],
                                              start={"side": "1German", "phase": "movement"}))))
    assert out["error"]["path"] == "start.side"


@pytest.mark.parametrize("change,path,words", [
    (_set(("units", 0, "at"), "Z99"), "units[0].at", "off the map"),
    (_set(("map", "columns"), 100_000), "map.columns", "at most 60"),
    (_set(("map", "rows"), 0), "map.rows", "rows"),
    (_set(("units", 0, "kind"), "battleship"), "units[0].kind", "battleship"),
    (_set(("steps",), [{"move": {"unit": "ghost", "path": ["D3"]}}]), "steps[0].move.unit", "ghost"),
    (_set(("steps",), [{"move": {"unit": "platoon-1", "path": ["Q40"]}}]), "steps[0].move.path[0]", "Q40"),
    (_set(("steps",), [{"end": "phase"}] * 1_001), "steps", "has 1,001 items: give at most 1,000"),
], ids=["off-map", "huge-map", "no-rows", "kind", "ghost-mover", "path-off-map", "steps"])
def test_check_names_the_place_of_the_first_problem(ex, change, path, words):
    out = json.loads(ex.check(json.dumps(_changed(change))))
    assert out["error"]["path"] == path, out
    assert words in out["error"]["message"], out


def test_too_large_or_too_deep_is_refused_before_it_is_parsed(ex):
    big = json.dumps(dict(good(), padding="x" * explorer.MAX_TEXT))
    assert "too large" in json.loads(ex.check(big))["error"]["message"]
    deep = "[" * 400_000 + "]" * 400_000          # would overflow a parser's stack
    assert "nests lists and mappings 400000 deep" in json.loads(ex.check(deep))["error"]["message"]
    assert "nests" in json.loads(ex.decide(deep))["error"]["message"]
    assert explorer.nesting('{"a": "[[[[", "b": [{"c": "]]"}]}') == 3
    assert explorer.nesting('["\\"[[", [[]]]') == 3
    with pytest.raises(ValueError, match="too long"):
        decode("#position=" + "A" * (explorer.MAX_LINK + 1))


def test_the_schema_limits_units_and_steps_in_scenario_files_too(ex):
    """A scenario file is held to the limits a link is: more than 1,000 steps (or 10,000 units)
    is an error of the schema, in a line (the limits are documented in site/scenarios.rst)."""
    scenario = {"id": "big", "title": "Big", "summary": "Too many steps.", **copy.deepcopy(good())}
    scenario["steps"] = [{"end": "phase"}] * 1_001
    doc = read_text("scenarios/big.yaml", json.dumps({"scenario": scenario}))
    report: Report = validate(doc)
    assert [d.message for d in report.errors] == \
        ["'steps' of the scenario has 1,001 items: give at most 1,000"]
    # (10,001 units take half a minute to validate one by one: the schema's number is read)
    from harmony.schema import schema
    assert schema()["$defs"]["scenario"]["properties"]["units"]["maxItems"] == 10_000
    guide = (REPO / "site" / "scenarios.rst").read_text("utf-8")
    limits = explorer_limits()
    for number in (f"{limits['units']:,}", f"{limits['steps']:,}", f"1 to {limits['columns']} ``columns``"):
        assert number in guide, number


def explorer_limits() -> dict:
    from harmony.games.panzerblitz.explorer import limits   # what the site's bundle carries
    return limits()


def test_the_bench_scenarios_stay_within_the_limits():
    """bench/scenario_units.py grows a scenario to 7,000 units on the largest map: within them."""
    limits = explorer_limits()
    assert limits["units"] >= 7_000 and limits["columns"] >= 60 and limits["rows"] >= 60

"""The table of parameter types, the reader-facing words of parameters, and enum values
matched exhaustively (by ``harmony check`` at their YAML position and by the engine).
"""
from __future__ import annotations

import dataclasses
import re
import shutil
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import pytest

from harmony import paramtypes
from harmony.cards.collect import collect
from harmony.check import check_path
from harmony.consistency import is_on, norm, shown
from harmony.games.panzerblitz.engine import EngineError, Game
from harmony.loader import load
from harmony.markup import render_value
from harmony.model import Parameter
from harmony.ruleset import Ruleset, coerce

RULES = Path(__file__).resolve().parent.parent / "rules_data"


@pytest.fixture(scope="module")
def model(shipped_model):
    return shipped_model


# ------------------------------------------------------------------ the table, type by type

VALID = {
    "bool": [True, False],
    "int": [0, 1, 12],
    "modifier": [0, 1, -2, 3],
    "fraction": [0, 1, "1/2", "3/4", "2/1"],
    "enum": ["none", "entering", None],          # null reads as 'none' where 'none' is a value
    "list": [[], ["A"], ["C", "C(I)"], None],
}
INVALID = {
    "bool": [("yes", "expected true or false"), (1, "expected true or false"),
             (None, "expected true or false")],
    "int": [(-1, "a count"), (True, "a count"), ("2", "a count"), (1.5, "a count")],
    "modifier": [("+1", "whole number"), (False, "whole number"), (0.5, "whole number")],
    "fraction": [("1/0", "a fraction"), ("half", "a fraction"), (-1, "a fraction"),
                 (0.5, "a fraction"), (True, "a fraction"), ("-1/2", "a fraction")],
    "enum": [("sometimes", "'sometimes' is not one of: none, entering, whole-move"),
             (1, "is not one of"), (True, "is not one of")],
    "list": [("A", "expected a list"), (["Q"], "'Q' is not one of"), ([1], "is not one of")],
}
VALUES = {"enum": ["none", "entering", "whole-move"], "list": ["A", "C", "C(I)"]}


def test_the_table_has_exactly_the_types_the_schema_allows():
    from harmony.schema import schema
    declared = schema()["$defs"]["parameter"]["properties"]["type"]["enum"]
    assert sorted(paramtypes.TYPES) == sorted(declared)


@pytest.mark.parametrize("ptype", sorted(VALID))
def test_valid_values_pass(ptype):
    for value in VALID[ptype]:
        assert paramtypes.type_error(ptype, value, VALUES.get(ptype)) is None, value


@pytest.mark.parametrize("ptype", sorted(INVALID))
def test_invalid_values_say_why(ptype):
    for value, why in INVALID[ptype]:
        problem = paramtypes.type_error(ptype, value, VALUES.get(ptype))
        assert problem is not None and why in problem, (value, problem)


def test_an_enum_without_none_refuses_null():
    assert paramtypes.type_error("enum", None, ["inverted", "opportunity-counter"]) is not None


@pytest.mark.parametrize("ptype, value, engine", [
    ("bool", True, True), ("int", 2, 2), ("modifier", -1, -1),
    ("fraction", "1/4", Fraction(1, 4)), ("fraction", 1, Fraction(1)),
    ("enum", "entering", "entering"), ("enum", None, "none"),
    ("list", ["C"], ["C"]), ("list", None, []),
])
def test_coerce_gives_the_engine_its_values(ptype, value, engine):
    got = coerce(ptype, value)
    assert got == engine and type(got) is type(engine)


@pytest.mark.parametrize("ptype, a, b, same", [
    ("fraction", "1/2", "2/4", True), ("fraction", 1, "1/1", True), ("fraction", "1/2", "1/3", False),
    ("int", 1, Fraction(1), True), ("modifier", 1, -1, False),
    ("list", ["C", "A"], ["A", "C"], True), ("list", ["A"], ["A", "C"], False),
    ("enum", None, "none", True), ("enum", "any", "none", False), ("bool", True, False, False),
])
def test_norm_compares_equal_rules_equal(ptype, a, b, same):
    assert (paramtypes.norm(a, ptype) == paramtypes.norm(b, ptype)) is same
    assert (norm(a, ptype) == norm(b, ptype)) is same      # consistency's is the table's


@pytest.mark.parametrize("ptype, value, on", [
    ("bool", True, True), ("bool", False, False), ("int", 0, False), ("int", 3, True),
    ("modifier", -1, True), ("modifier", 0, False), ("fraction", "0/4", False),
    ("fraction", Fraction(1, 4), True), ("enum", "none", False), ("enum", "any", True),
    ("enum", None, False), ("list", [], False), ("list", ["C"], True),
])
def test_is_on(ptype, value, on):
    assert paramtypes.is_on(value, ptype) is on
    assert is_on(value, ptype) is on


@pytest.mark.parametrize("ptype, value, text", [
    ("bool", True, "yes"), ("bool", False, "no"), ("int", 0, "0"), ("modifier", 2, "+2"),
    ("modifier", 0, "0"), ("modifier", -1, "-1"), ("fraction", "1/2", "1/2"),
    ("fraction", Fraction(1, 2), "1/2"), ("fraction", Fraction(1), "1"),
    ("enum", "adjacent-hex", "adjacent-hex"), ("enum", None, "none"),
    ("list", [], "none"), ("list", ["C", "C(I)"], "C, C(I)"),
])
def test_render(ptype, value, text):
    assert paramtypes.render(value, ptype) == text
    assert render_value(value, ptype) == text == shown(value, ptype)


# ------------------------------------------------------------------ words

def test_words_replace_values_by_type():
    share = Parameter(name="x.share", type="fraction", words={"0": "none", "1/2": "half"})
    assert [share.phrase(v) for v in (0, "2/4", Fraction(1, 2), "1/3")] == ["none", "half", "half", "1/3"]
    flag = Parameter(name="x.flag", type="bool", label="Flag", words={"True": "on", "False": "off"})
    assert flag.sentence({"PB": True, "REV": False}) == "Flag: PB on, REV off"
    combine = Parameter(name="x.combine", type="enum", values=["none", "any"], words={"none": "alone"})
    assert combine.phrase("none") == "alone" and combine.phrase("any") == "any"
    mod = Parameter(name="x.drm", type="modifier", words={"-1": "one easier"})
    assert mod.phrase(-1) == "one easier" and mod.phrase(1) == "+1"


@pytest.mark.parametrize("ptype, values, good, bad", [
    ("bool", None, ["True", "false"], ["1", "yes"]),
    ("int", None, ["0", "12"], ["-1", "1/2", "many"]),
    ("modifier", None, ["-1", "+2", "0"], ["1/2", "plus"]),
    ("fraction", None, ["0", "1/2"], ["1/0", "-1"]),
    ("enum", ["none", "any"], ["none", "any"], ["some", "None"]),
    ("list", ["A", "C(I)"], ["C(I)"], ["Q"]),
])
def test_word_keys_must_be_values(ptype, values, good, bad):
    p = SimpleNamespace(type=ptype, values=values)
    for key in good:
        assert paramtypes.word_key_error(p, key) is None, key
    for key in bad:
        assert "is not a value of this parameter" in paramtypes.word_key_error(p, key), key


def test_every_shipped_parameter_has_a_label(model):
    assert model.parameters
    for p in model.parameters.values():
        assert p.label and paramtypes.label(p) == p.label, p.name


def test_sentences_from_the_shipped_parameters(model):
    trucks = model.parameters["spot.transport-may-spot"]
    assert trucks.sentence({"PB": True, "PL": False}) == "Trucks may spot: PB yes, PL no"
    limit = model.parameters["opfire.per-target-per-phase"]
    assert limit.phrase(0) == "no limit" and limit.phrase(1) == "1"


# ------------------------------------------------------------------ harmony check

def scratch(tmp_path: Path) -> Path:
    folder = tmp_path / "rules_data"
    shutil.copytree(RULES, folder)
    return folder


def replace_once(path: Path, old: str, new: str) -> tuple[int, int]:
    """Replace ``old`` (which occurs once) and return the line and column (from 1) of ``new``."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    at = text.index(old)
    path.write_text(text.replace(old, new), encoding="utf-8")
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def errors(report, code):
    return [d for d in report.errors if d.code == code]


def test_an_unknown_enum_value_in_a_cell_is_an_error_at_its_position(tmp_path):
    folder = scratch(tmp_path)
    old = "params: {spot.mover-in-los: whole-move, spot.mover-marker: true}"
    line, col = replace_once(folder / "movement.yaml", old, "params: {spot.mover-in-los: sometimes}")
    _, report = check_path(folder)
    [err] = errors(report, "parameter-type")
    assert (err.pos.path.endswith("movement.yaml"), err.pos.line, err.pos.col) == \
        (True, line, col + len("params: {spot.mover-in-los: "))
    assert "spot.mover-in-los" in err.message and "'sometimes' is not one of: none, entering, " \
        "whole-move" in err.message


def test_an_unknown_enum_default_is_an_error_at_its_position(tmp_path):
    folder = scratch(tmp_path)
    text = (folder / "parameters.yaml").read_text(encoding="utf-8")
    start = text.index("name: opfire.firer-after")
    at = text.index("default: inverted", start)
    (folder / "parameters.yaml").write_text(text[:at] + "default: upside-down" + text[at + 17:],
                                            encoding="utf-8")
    _, report = check_path(folder)
    [err] = errors(report, "parameter-type")
    line = text.count("\n", 0, at) + 1
    assert (err.pos.line, err.pos.col) == (line, at - text.rfind("\n", 0, at) + len("default: "))
    assert "opfire.firer-after" in err.message and "'upside-down'" in err.message


def test_a_word_key_that_is_not_a_value_is_an_error_at_the_key(tmp_path):
    folder = scratch(tmp_path)
    old = "words: {0: no limit}"
    line, col = replace_once(folder / "parameters.yaml", old, "words: {0: no limit, -1: never}")
    old = "words: {none: never, entering: on entering a hex"
    line2, col2 = replace_once(folder / "parameters.yaml", old,
                               "words: {nver: never, entering: on entering a hex")
    _, report = check_path(folder)
    found = sorted((d.pos.line, d.pos.col, d.message) for d in errors(report, "parameter-words"))
    assert [(ln, c) for ln, c, _ in found] == sorted([(line, col + len("words: {0: no limit, ")),
                                                     (line2, col2 + len("words: {"))])
    messages = " | ".join(m for _, _, m in found)
    assert "'-1' is not a value" in messages and "'nver' is not a value" in messages
    assert "its values: none, entering, whole-move" in messages


def test_values_on_a_type_that_takes_none_are_an_error(tmp_path):
    folder = scratch(tmp_path)
    replace_once(folder / "parameters.yaml", "  - name: spot.adjacent\n    type: bool\n",
                 "  - name: spot.adjacent\n    type: bool\n    values: [yes, no]\n")
    _, report = check_path(folder)
    [err] = errors(report, "parameter-values")
    assert "spot.adjacent" in err.message and "takes no values" in err.message


def test_an_enum_without_values_is_an_error_at_its_type(tmp_path):
    folder = scratch(tmp_path)
    line, col = replace_once(folder / "parameters.yaml",
                             "type: enum\n    values: [inverted, opportunity-counter]\n",
                             "type: enum\n")
    _, report = check_path(folder)
    [err] = errors(report, "parameter-values")
    assert (err.pos.line, err.pos.col) == (line, col + len("type: "))
    assert "opfire.firer-after" in err.message and "must list its values" in err.message


def test_a_bad_key_number_flag_is_a_schema_error(tmp_path):
    folder = scratch(tmp_path)
    replace_once(folder / "parameters.yaml", "    key-number: true\n    description: A unit making",
                 "    key-number: often\n    description: A unit making")
    _, report = check_path(folder)
    assert any("key-number" in d.message for d in report.errors), report.to_text()


# ------------------------------------------------------------------ words are data

def test_a_changed_label_changes_the_card_key_number(tmp_path):
    def keys(folder):
        m, report = load(folder)
        assert not report.errors, report.to_text()
        card = next(c for c in collect(m, ["REV"]) if c.clause_id == "opportunity-fire.limitation")
        return [(k.name, k.label, k.value) for k in card.keys]

    folder = scratch(tmp_path)
    before = keys(folder)
    assert ("opfire.per-target-per-phase", "Attacks on one mover, per phase", "1") in before
    replace_once(folder / "parameters.yaml", "label: Attacks on one mover, per phase",
                 "label: Shots at one mover a phase")
    replace_once(folder / "parameters.yaml", "words: {0: no limit}", "words: {0: no limit, 1: once}")
    assert ("opfire.per-target-per-phase", "Shots at one mover a phase", "once") in keys(folder)


def test_key_number_flag_decides_what_cards_print(tmp_path):
    def names(folder):
        m, _ = load(folder)
        card = next(c for c in collect(m, ["REV"]) if c.clause_id == "interdiction.rule")
        return [k.name for k in card.keys]

    folder = scratch(tmp_path)
    assert "interdiction.needs-observer" in names(folder)
    text = (folder / "parameters.yaml").read_text(encoding="utf-8")
    start = text.index("name: interdiction.needs-observer")
    at = text.index("key-number: true", start)
    (folder / "parameters.yaml").write_text(text[:at] + "key-number: false" + text[at + 16:],
                                            encoding="utf-8")
    assert "interdiction.needs-observer" not in names(folder)


def test_no_parameter_words_are_left_in_python():
    import sys
    collect_module = sys.modules["harmony.cards.collect"]
    assert not hasattr(collect_module, "LABELS") and not hasattr(collect_module, "WORDS")
    code = "\n".join(line for line in Path(collect_module.__file__).read_text(encoding="utf-8")
                     .splitlines() if not line.lstrip().startswith((">>>", "...")))
    assert not re.findall(r"[\"'](?:spot|opfire|interdiction)\.[a-z-]+[\"']", code)


# ------------------------------------------------------------------ the engine's enum branches

def unit(uid, side, at, **kw):
    d = {"id": uid, "side": side, "kind": "armoured", "class": "A", "attack": 10, "range": 8,
         "defence": 6, "movement": 6, "at": at, "opportunity-fire": True}
    d.update(kw)
    return d


def gun(uid, at):
    return unit(uid, "Soviet", at, kind="gun", movement=1, defence=3)


def with_value(model, name, pname, value) -> Ruleset:
    rs = Ruleset.from_model(model, name)
    rs.settings[pname] = dataclasses.replace(rs.setting(pname), value=value)
    return rs


def opfire_game(model, name, pname, value, hexes=None):
    rs = with_value(model, name, pname, value)
    units = [gun("g1", "A4"), gun("g2", "A2"), gun("g3", "B5"), unit("t", "German", "D1", movement=4)]
    return Game.from_data(rs, {"columns": 8, "rows": 8, "hexes": hexes or {}}, units,
                          side="German", phase="movement")


@pytest.mark.parametrize("pname, values", [
    ("opfire.combine", ["none", "any", "adjacent-hex"]),
    ("opfire.firer-after", ["inverted", "opportunity-counter"]),
    ("spot.mover-in-los", ["none", "entering", "whole-move"]),
])
def test_the_engine_knows_every_declared_value(model, pname, values):
    assert model.parameters[pname].values == values


@pytest.mark.parametrize("value, groups", [
    ("none", [["g1"], ["g2"], ["g3"]]), ("any", [["g1", "g2", "g3"]]),
    ("adjacent-hex", [["g1"], ["g2"], ["g3"]])])
def test_combine_values(model, value, groups):
    g = opfire_game(model, "AIW", "opfire.combine", value)
    g.begin_move("t")
    assert [o["firers"] for o in g.enter("D2").opfire.value] == groups


def test_unknown_combine_is_an_engine_error(model):
    g = opfire_game(model, "AIW", "opfire.combine", "all-together")
    g.begin_move("t")
    with pytest.raises(EngineError, match=r"opfire\.combine: unknown value 'all-together'"):
        g.enter("D2")


@pytest.mark.parametrize("value", ["inverted", "opportunity-counter", "sideways"])
def test_firer_after_values(model, value):
    g = opfire_game(model, "AIW", "opfire.firer-after", value)
    g.begin_move("t")
    g.enter("D2")
    if value == "sideways":
        with pytest.raises(EngineError, match=r"opfire\.firer-after: unknown value 'sideways'"):
            g.opportunity_fire(["g1"], "none")
        assert g.unit("t").hex == g.hex("D2") and g.unit("g1").face_up   # nothing changed
        return
    assert g.opportunity_fire(["g1"], "none").value is True
    f = g.unit("g1")
    assert (not f.face_up, "opportunity-fire" in f.markers) == \
        {"inverted": (True, False), "opportunity-counter": (False, True)}[value]


def test_unknown_mover_in_los_is_an_engine_error(model):
    g = opfire_game(model, "REV", "spot.mover-in-los", "now-and-then", hexes={"D2": "woods"})
    g.begin_move("t")
    with pytest.raises(EngineError, match=r"spot\.mover-in-los: unknown value 'now-and-then'"):
        g.enter("D2")

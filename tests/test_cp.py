"""Combat Patrol's tables as data: the model, the schema, the checks and the calculator.

The checks are exercised on a copy of the shipped rules_data with one thing broken,
looking for the diagnostic at the right line.
"""
import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from harmony.check import check_path
from harmony.games.combatpatrol.calculator import CombatPatrol, TableError
from harmony.loader import load
from harmony.markup import plain_text
from editing import clean_model, edit, line_of

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules_data"
TABLES = "combat-patrol-tables.yaml"
#: The Combat Patrol booklet's text, in the reference seeds kept beside the checkout
#: (``../shared/reference/seeds``); a plain clone has none. Only the tests that read the
#: source need it: they compare :data:`BOOKLET` with it; every other test reads BOOKLET.
SEEDS = ROOT.parent / "shared" / "reference" / "seeds"
SEED = SEEDS / "003_9128489f996768f7.txt"
#: Short fragments of the booklet, as printed (fewer than ten words each: copycheck
#: refuses ten words of a source in a row): the rows of Tables 6 and 8, and three
#: numbers the section text states.
BOOKLET = {
    "table-6": ["Naked Eye 6 12 24", "Generation 9 18 36", "Generation 12 24 48",
                "Generation 15 30 60", "Generation 18 36 72"],
    "table-8": ["20 40 80", "10 20 40", "5 10 20"],
    "horse": "1 through 7, the horse is hit",
    "soft-skinned": "four occupants would only count to five",
    "armour": "\u201cdie roll\u201d was a ten, the effect",
}


def booklet_text() -> str:
    """The seed's text, its whitespace folded; a skip naming the folder when it is absent."""
    if not SEEDS.is_dir():
        pytest.skip(f"the reference seeds are not beside this checkout ({SEEDS} is absent, as in "
                    "a plain clone): BOOKLET is not compared with the source")
    assert SEED.is_file(), f"{SEED} is missing from {SEEDS}"
    return " ".join(SEED.read_text(encoding="utf-8", errors="replace").split())


@pytest.fixture(scope="module")
def model():
    m, report = load(RULES)
    assert not report.errors
    return m


@pytest.fixture
def data(rules_copy):
    return rules_copy


def found(folder: Path):
    _, report = check_path(folder)
    return [(d.pos.path.rsplit("/", 1)[-1], d.pos.line, d.severity, d.code, d.message)
            for d in report.diagnostics]


# ------------------------------------------------------------------ the model

def test_tables_five_to_ten_are_loaded_with_every_value(model):
    assert sorted(int(t.number) for t in model.tables.values() if t.source == "CP" and t.number) == \
        [5, 6, 7, 8, 9, 10]
    six = model.table("CP", "6")
    assert [[six.value(v, m) for m in ("no-moon", "half-moon", "full-moon")]
            for v in six.row_ids()] == [[6, 12, 24], [9, 18, 36], [12, 24, 48],
                                        [15, 30, 60], [18, 36, 72]]
    eight = model.table("CP", "8")
    assert [[r[c] for c in ("short", "medium", "long")] for r in eight.rows] == \
        [[20, 40, 80], [10, 20, 40], [5, 10, 20]]
    assert [r["shifts"] for r in model.table("CP", "10").rows] == [1, 1, 2]
    assert [(r["multiplier"], r["reshuffles"], r["beyond-fire"])
            for r in model.table("CP", "7").rows] == \
        [(1, None, None), (2, 2, None), (3, 2, None), (4, 3, None), (None, None, 8)]
    assert [r["penetration"] for r in model.table("CP", "5").rows] == \
        [{"min": None, "max": 3}, {"min": 4, "max": 4}, {"min": 5, "max": None}]
    assert len(model.table("CP", "9").rows) == 8


def test_table_six_and_eight_rows_are_those_of_the_booklet(model):
    """Numbers are facts: each row of Tables 6 and 8 is one the booklet prints."""
    six = [f"Generation {r['no-moon']} {r['half-moon']} {r['full-moon']}"
           for r in model.table("CP", "6").rows[1:]]
    naked = model.table("CP", "6").rows[0]
    assert [f"Naked Eye {naked['no-moon']} {naked['half-moon']} {naked['full-moon']}"] + six == \
        BOOKLET["table-6"]
    assert [f"{r['short']} {r['medium']} {r['long']}" for r in model.table("CP", "8").rows] == \
        BOOKLET["table-8"]


def test_the_booklet_fragments_are_printed_in_the_source():
    """The fragments the other tests read are the source's own words and numbers."""
    text = booklet_text()
    for key, fragments in BOOKLET.items():
        for fragment in [fragments] if isinstance(fragments, str) else fragments:
            assert fragment in text, (key, fragment)


def test_cells_render_with_their_units(model):
    assert model.table("CP", "6").shown("naked-eye", "full-moon") == "24 inches"
    assert model.table("CP", "10").shown("medium-range", "shifts") == "1 shift"
    assert model.table("CP", "5").shown("low", "penetration") == "3 or less"
    assert model.table("CP", "7").shown("small-flare", "beyond-fire") == "\u2013"
    text = model.clauses["cp-night.large-fires"].cells["CP"].text
    assert "8 inches wide" in plain_text(text, tables=model.tables)


def test_schema_describes_tables_and_orders_their_keys():
    schema = json.loads((ROOT / "harmony" / "schema" / "harmony.schema.json").read_text())
    assert list(schema["$defs"]["table"]["properties"])[:4] == ["id", "source", "number", "title"]
    assert "tables" in schema["properties"]


# ------------------------------------------------------------------ the checks

def test_shipped_rules_are_clean():
    _, report = check_path(RULES)
    assert not report.errors and not report.warnings


def test_a_cell_of_the_wrong_type_is_an_error_at_its_line(data):
    edit(data, TABLES, "{vision: naked-eye, no-moon: 6,", "{vision: naked-eye, no-moon: six,")
    line = line_of(data, TABLES, "no-moon: six")
    hits = [f for f in found(data) if f[3] == "table-cell"]
    assert [(f[0], f[1]) for f in hits] == [(TABLES, line)]
    assert "'six' is not a whole number" in hits[0][4]


def test_enum_range_missing_and_unknown_cells(data):
    edit(data, TABLES, "situation: fired,", "situation: shot,")
    edit(data, TABLES, "penetration: {min: 4, max: 4}", "penetration: {min: 5, max: 4}")
    edit(data, TABLES, "{modifier: long-range, condition:", "{modifier: long-range, colour: red, condition:")
    edit(data, TABLES, "{spotter: buttoned, who: the crew of a buttoned vehicle or passengers, short: 5,",
         "{spotter: buttoned, who: the crew of a buttoned vehicle or passengers,")
    messages = " | ".join(f[4] for f in found(data) if f[3] == "table-cell")
    assert "'shot' is not one of" in messages
    assert "min (5) is above its max (4)" in messages
    assert "no column 'colour'" in messages
    assert "no cell for column 'short'" in messages


def test_a_unit_on_a_text_column_and_a_citation_of_another_table(data):
    edit(data, TABLES, "{id: who, title: Spotter is, type: text}",
         "{id: who, title: Spotter is, type: text, unit: inches}")
    edit(data, TABLES, "cite: {source: CP, section: '7.12.1', table: '8'}",
         "cite: {source: CP, section: '7.12.1', table: '9'}")
    codes = {f[3] for f in found(data)}
    assert {"table-column", "table-cite"} <= codes


def test_prose_that_drifts_from_the_table_is_an_error(data):
    edit(data, "combat-patrol-night.yaml",
         "a band {{ table:cp-illumination/large-fire/beyond-fire }} wide", "a band 9 inches wide")
    hit = [f for f in found(data) if f[3] == "table-number"]
    assert len(hit) == 1 and "'9 inches'" in hit[0][4]
    assert hit[0][1] == line_of(data, "combat-patrol-night.yaml", "a band 9 inches")


def test_prose_that_copies_a_table_value_is_a_warning(data):
    edit(data, "combat-patrol-night.yaml",
         "a band {{ table:cp-illumination/large-fire/beyond-fire }} wide", "a band eight inches wide")
    hits = [f for f in found(data) if f[3].startswith("table-number")]
    assert [(f[2], f[3]) for f in hits] == [("warning", "table-number-literal")]


def test_a_mark_must_resolve_and_its_table_be_cited(data):
    edit(data, "combat-patrol-night.yaml", "{{ table:cp-night-sighting/naked-eye/no-moon }}",
         "{{ table:cp-night-sighting/naked-eye/new-moon }}")
    edit(data, "combat-patrol-night.yaml", "to three inches, in place of",
         "to {{ table:cp-night-sighting/naked-eye/no-moon }}, in place of")
    hits = [f[4] for f in found(data) if f[3] == "table-mark"]
    assert any("no column 'new-moon'" in m for m in hits)
    assert any("does not cite it" in m for m in hits)


def test_tables_the_booklet_states_in_prose_have_no_number_and_cite_their_section(model):
    stated = {t.id: t for t in model.tables.values() if t.source == "CP" and not t.number}
    assert {i: t.cite.section for i, t in stated.items()} == {
        "cp-soft-skinned-count": "7.7", "cp-body-armour-die": "7.9.1", "cp-horse-or-rider": "7.10.2"}
    horse = stated["cp-horse-or-rider"]
    assert horse.label == horse.title and horse.caption == horse.title
    assert [horse.shown(r, "die") for r in horse.row_ids()] == ["1 to 7", "8 to 10"]
    assert model.table("CP", "") is None      # found by id or by its section, never by number
    cell = model.clauses["cp-cavalry.shot-at"].cells["CP"]
    assert model.cited_tables(cell.cites) == [horse]


def test_the_prose_numbers_are_the_source_s(model):
    """The three numbers the section text states (BOOKLET: horse, soft-skinned, armour)."""
    words = {"four": 4, "five": 5, "ten": 10}
    last = int(re.search(r"1 through (\d+)", BOOKLET["horse"]).group(1))
    assert model.tables["cp-horse-or-rider"].value("horse", "die") == {"min": 1, "max": last}
    occupants, counted = re.search(r"(\w+) occupants would only count to (\w+)",
                                   BOOKLET["soft-skinned"]).groups()
    assert CombatPatrol(model).soft_skinned_places(words[occupants]) == words[counted]
    full = words[re.search(r"was a (\w+)", BOOKLET["armour"]).group(1)]
    armour = model.tables["cp-body-armour-die"]
    assert [(r["die"], r["incapacitated"], r["wounded"]) for r in armour.rows] == [
        ({"min": 1, "max": full - 1}, "wounded", "stunned"),
        ({"min": full, "max": full}, "incapacitated", "wounded")]
    assert model.tables["cp-soft-skinned-count"].value("beyond-capacity", "places") == 1


def test_a_table_without_a_number_must_cite_a_section(data):
    edit(data, TABLES, "cite: {source: CP, section: '7.10.2'}", "cite: {source: CP, figure: '7-1'}")
    line = line_of(data, TABLES, "cite: {source: CP, figure: '7-1'}")
    hits = [f for f in found(data) if f[3] == "table-cite"]
    assert [(f[0], f[1]) for f in hits] == [(TABLES, line)]
    assert "'cp-horse-or-rider' has no number" in hits[0][4] and "no section" in hits[0][4]


def test_a_table_without_a_number_cannot_cite_a_table_number(data):
    edit(data, TABLES, "cite: {source: CP, section: '7.10.2'}",
         "cite: {source: CP, section: '7.10.2', table: '11'}")
    hits = [f[4] for f in found(data) if f[3] == "table-cite"]
    assert len(hits) == 1 and "names CP table 11" in hits[0]


def test_a_mark_of_a_section_table_asks_for_its_section(data):
    name = "combat-patrol-cavalry.yaml"
    text = (data / name).read_text(encoding="utf-8")
    shot_at = text.index("id: cp-cavalry.shot-at")
    cite = text.index("cite: {source: CP, section: '7.10.2'}", shot_at)
    assert cite < text.index("- id:", shot_at)           # the shot-at cell's own citation
    (data / name).write_text(text[:cite] + "cite: {source: CP, section: '7.10'}"
                             + text[cite + len("cite: {source: CP, section: '7.10.2'}"):], encoding="utf-8")
    hits = [f[4] for f in found(data) if f[3] == "table-mark"]
    assert len(hits) == 2    # the text and the card (two marks each, one position per field)
    assert all("add {source: CP, section: '7.10.2'} to its cite" in m for m in hits)


def test_prose_that_drifts_from_a_section_table_is_an_error(data):
    name = "combat-patrol-vehicles.yaml"
    text = (data / name).read_text(encoding="utf-8")
    mark = re.compile(r"\{\{\s*table:cp-soft-skinned-count/beyond-capacity/places\s*\}\}")
    assert len(mark.findall(text)) == 2        # text and card
    (data / name).write_text(mark.sub("two places", text, count=1), encoding="utf-8")
    hits = [f for f in found(data) if f[3].startswith("table-number")]
    assert [(f[0], f[1], f[2]) for f in hits] == [(name, line_of(data, name, "two places"), "error")]
    assert "'two places'" in hits[0][4]


# ------------------------------------------------------------------ the calculator

def test_penetration_chances_are_exact_fractions(model):
    cp = CombatPatrol(model)
    chances = [cp.penetration_chance(1, c) for c in range(1, 11)]
    assert chances == [Fraction(10 - c + 1, 10) if c > 1 else Fraction(1) for c in range(1, 11)]
    assert all(isinstance(c, Fraction) for c in chances)


def test_the_calculator_reads_the_tables_not_its_own_numbers(data):
    edit(data, TABLES, "{vision: naked-eye, no-moon: 6, half-moon: 12, full-moon: 24}",
         "{vision: naked-eye, no-moon: 6, half-moon: 12, full-moon: 28}")
    m, _ = load(data)
    cp = CombatPatrol(m)
    assert cp.spotting_bands("dismounted", ("naked-eye", "full-moon")) == (7, 14, 28)
    assert cp.night_distance("naked-eye", "full-moon") == 28


def test_the_horse_table_decides_the_horse_s_chance(data):
    edit(data, TABLES, "- {struck: horse, die: {min: 1, max: 7}}", "- {struck: horse, die: {min: 1, max: 6}}")
    edit(data, TABLES, "- {struck: rider, die: {min: 8, max: 10}}", "- {struck: rider, die: {min: 7, max: 10}}")
    cp = CombatPatrol(clean_model(data))
    assert cp.horse_hit_chance() == Fraction(6, 10)
    assert [cp.horse_or_rider(d) for d in (6, 7)] == ["horse", "rider"]


def test_the_die_s_faces_and_the_softened_results_come_from_the_armour_table(data):
    edit(data, TABLES, "- {result: reduced, die: {min: 1, max: 9}, incapacitated: wounded,",
         "- {result: reduced, die: {min: 1, max: 11}, incapacitated: stunned,")
    edit(data, TABLES, "- {result: full-effect, die: {min: 10, max: 10}",
         "- {result: full-effect, die: {min: 12, max: 12}")
    cp = CombatPatrol(clean_model(data))
    assert cp.penetration_chance(1, 5) == Fraction(8, 12)
    assert cp.armour_effect("incapacitated", 10, 1, 5) == "stunned"
    assert cp.armour_effect("incapacitated", 12, 1, 5) == "incapacitated"


def test_the_soft_skinned_count_comes_from_its_table(data):
    edit(data, TABLES, "many ride aboard', places: 1}", "many ride aboard', places: 2}")
    assert CombatPatrol(clean_model(data)).soft_skinned_places(4) == 6


def test_a_die_no_row_holds_is_named(data):
    edit(data, TABLES, "- {struck: horse, die: {min: 1, max: 7}}", "- {struck: horse, die: {min: 1, max: 6}}")
    cp = CombatPatrol(clean_model(data))
    with pytest.raises(LookupError, match="no row for a die of 7"):
        cp.horse_or_rider(7)


def test_unknown_rows_are_named(model):
    with pytest.raises(TableError, match=r"^'green-eye' is not a vision of Table 6; it has: naked-eye, "
                       r"first-generation, second-generation, third-generation, fourth-generation$"):
        CombatPatrol(model).night_distance("green-eye", "no-moon")


# ------------------------------------------------------------------ what the tables do not have
#: Every public answer of the calculator, given something outside its tables, and the one
#: line it must say: the table as the booklet names it, and what the table has. Names are
#: matched exactly (case and all); counts and distances are whole numbers (or Fractions,
#: for distances) of 0 or more.
REFUSED = [
    (("spotting_shifts", "Long", True),
     "'Long' is not a range band of Table 8; it has: short, medium, long"),
    (("spotting_shifts", "extreme", False),
     "'extreme' is not a range band of Table 8; it has: short, medium, long"),
    (("spotting_shifts", "long", 1), "1 is not whether the enemy is infantry or a gun for Table 10; "
     "it takes True or False"),
    (("automatically_spotted", "vehicle", "moving-in-concealment "),
     "'moving-in-concealment ' is not a situation of Table 9; it has: in-open, fired, "
     "moving-in-concealment, stationary-in-concealment, contact, touched-by-figure"),
    (("automatically_spotted", "Vehicle", "fired"),
     "'Vehicle' is not a target of Table 9; it has: vehicle, personnel"),
    (("automatically_spotted", "any", "fired"), "'any' is not a target of Table 9; it has: vehicle, personnel"),
    (("automatically_spotted", "vehicle", "fired", "dusk"),
     "'dusk' is not a light of Table 9; it has: day, night"),
    (("automatically_spotted", "vehicle", "fired", "night", "yes"),
     "'yes' is not whether the target is within the night sighting distance for Table 9; it takes "
     "True or False"),
    (("automatically_spotted", "vehicle", "fired", "day", True, "tank"),
     "'tank' is not a spotter of Table 9; it has: infantry-or-anti-tank-gun, vehicle"),
    (("automatically_spotted", "vehicle", "fired", "day", True, "personnel"),
     "'personnel' is not a spotter of Table 9; it has: infantry-or-anti-tank-gun, vehicle"),
    (("penetration_checks", 3, -2), "-2 is not a number of hits for Table 5; it takes a whole number "
     "of 0 or more"),
    (("penetration_checks", 3, 2.0), "2.0 is not a number of hits for Table 5; it takes a whole number "
     "of 0 or more"),
    (("penetration_checks", 3, 2, "no"), "'no' is not whether the weapon is a core Figure 1-1 weapon for "
     "Table 5; it takes True or False"),
    (("penetration_checks", -1, 2), "-1 is not a penetration value for Table 5; it takes a whole number "
     "of 0 or more"),
    (("penetration_band", None), "None is not a penetration value for Table 5; it takes a whole number "
     "of 0 or more"),
    (("penetration_effect", True), "True is not a penetration value for Table 5; it takes a whole number "
     "of 0 or more"),
    (("penetration_chance", -1, 5), "-1 is not a penetration value for the table of section 7.9.1; it "
     "takes a whole number of 0 or more"),
    (("penetration_chance", 1, "V"), "'V' is not a protection value for the table of section 7.9.1; it "
     "takes a whole number of 0 or more"),
    (("armour_effect", "Wounded", 5, 1, 5), "'Wounded' is not a hit's effect of the table of section "
     "7.9.1; it has: incapacitated, stunned, wounded"),
    (("armour_effect", "wounded", 5, 1, -5), "-5 is not a protection value for the table of section "
     "7.9.1; it takes a whole number of 0 or more"),
    (("armour_effect", "wounded", 0, 1, 5), "0 is not a face of the die icon of the table of section "
     "7.9.1; it has: 1 to 10"),
    (("horse_or_rider", 7.0), "7.0 is not a face of the die icon of the table of section 7.10.2; it "
     "has: 1 to 10"),
    (("die_row", "cp-horse-or-rider", 11), "11 is not a face of the die icon of the table of section "
     "7.10.2; it has: 1 to 10"),
    (("soft_skinned_places", -1), "-1 is not a troop capacity for the table of section 7.7; it takes a "
     "whole number of 0 or more"),
    (("soft_skinned_place", 4, 0), "0 is not a hit, counted from 1, for the table of section 7.7; it "
     "takes a whole number of 1 or more"),
    (("soft_skinned_place", -4, 1), "-4 is not a troop capacity for the table of section 7.7; it takes "
     "a whole number of 0 or more"),
    (("night_distance", "Naked-Eye", "no-moon"), "'Naked-Eye' is not a vision of Table 6; it has: "
     "naked-eye, first-generation, second-generation, third-generation, fourth-generation"),
    (("night_distance", "naked-eye", "vision"), "'vision' is not a phase of the moon of Table 6; it has: "
     "no-moon, half-moon, full-moon"),
    (("illumination", "torch"), "'torch' is not a source of light of Table 7; it has: point-light, "
     "small-flare, medium-flare, large-flare, large-fire"),
    (("lit_radius", "large-fire", 2), "'large-fire' is not a light of Table 7 that multiplies a "
     "template; it has: point-light, small-flare, medium-flare, large-flare"),
    (("lit_radius", "small-flare", -2), "-2 is not a template radius for Table 7; it takes inches of 0 "
     "or more, a whole number or a Fraction"),
    (("lit_radius", "small-flare", "5/2"), "'5/2' is not a template radius for Table 7; it takes inches "
     "of 0 or more, a whole number or a Fraction"),
    (("spotting_bands", "Dismounted"), "'Dismounted' is not a spotter of Table 8; it has: dismounted, "
     "mounted, buttoned"),
    (("spotting_bands", "mounted", ("naked-eye",)), "('naked-eye',) is not a night of Table 6: give "
     "(vision, moon), such as ('naked-eye', 'full-moon')"),
    (("spotting_bands", "mounted", ("naked-eye", "blue-moon")), "'blue-moon' is not a phase of the moon "
     "of Table 6; it has: no-moon, half-moon, full-moon"),
    (("band_of", "dismounted", -5), "-5 is not a distance for Table 8; it takes inches of 0 or more, a "
     "whole number or a Fraction"),
    (("band_of", "dismounted", float("nan")), "nan is not a distance for Table 8; it takes inches of 0 "
     "or more, a whole number or a Fraction"),
    (("band_of", "walking", 5), "'walking' is not a spotter of Table 8; it has: dismounted, mounted, "
     "buttoned"),
]


@pytest.mark.parametrize("call, message", REFUSED, ids=[f"{c[0]}-{i}" for i, (c, _) in enumerate(REFUSED)])
def test_input_outside_a_table_is_refused_naming_the_table(model, call, message):
    name, *args = call
    with pytest.raises(TableError) as caught:
        getattr(CombatPatrol(model), name)(*args)
    assert str(caught.value) == message
    assert isinstance(caught.value, ValueError) and "\n" not in str(caught.value)


@pytest.mark.parametrize("call, message", REFUSED[:3] + REFUSED[9:10])
def test_a_ruling_refuses_as_its_answer_does(model, call, message):
    name, *args = call
    with pytest.raises(TableError, match=re.escape(message)):
        CombatPatrol(model).ruling(name, *args)


def test_every_public_answer_is_refused_something(model):
    """Each public method that takes an input has a refusal in REFUSED (a new one must too)."""
    import inspect
    takes_input = {n for n, f in inspect.getmembers(CombatPatrol, inspect.isfunction)
                   if not n.startswith("_") and len(inspect.signature(f).parameters) > 1}
    # table, stated, faces, reasons and ruling take ids of the code's own, not a player's input:
    # an unknown one is a LookupError of the rules data (their doctests show it)
    code_side = {"table", "stated", "faces", "reasons", "ruling"}
    assert takes_input - code_side == {c[0] for c, _ in REFUSED}


def test_the_old_quiet_answers_are_gone(model):
    """The five cases of the issue: each used to give an answer from outside the table."""
    cp = CombatPatrol(model)
    for call in (lambda: cp.spotting_shifts("Long", True), lambda: cp.spotting_shifts("extreme", False),
                 lambda: cp.automatically_spotted("vehicle", "moving-in-concealement"),
                 lambda: cp.penetration_checks(3, -2), lambda: cp.band_of("dismounted", -5)):
        with pytest.raises(TableError):
            call()
    # and what the tables do have still answers
    assert (cp.spotting_shifts("long", True), cp.spotting_shifts("short", False)) == (3, 0)
    assert cp.automatically_spotted("personnel", "stationary-in-concealment") is None
    assert (cp.penetration_checks(3, 0), cp.band_of("dismounted", 0), cp.band_of("dismounted", 81)) == \
        (0, "short", None)


# ------------------------------------------------------------------ anything at all
ANSWERS = ["penetration_chance", "armour_effect", "penetration_band", "penetration_effect",
           "penetration_checks", "soft_skinned_places", "soft_skinned_place", "horse_or_rider",
           "night_distance", "illumination", "lit_radius", "spotting_bands", "band_of",
           "automatically_spotted", "spotting_shifts"]
#: the names the tables have, so that draws reach past the first check too
NAMES = ["short", "medium", "long", "Long", "naked-eye", "no-moon", "full-moon", "medium-flare",
         "large-fire", "dismounted", "buttoned", "vehicle", "personnel", "any", "in-open", "fired",
         "day", "night", "incapacitated", "wounded", "stunned", "infantry-or-anti-tank-gun", ""]


def _anything():
    from hypothesis import strategies as st
    scalar = st.one_of(st.sampled_from(NAMES), st.text(max_size=12), st.integers(-50, 200),
                       st.booleans(), st.none(), st.floats(allow_nan=True),
                       st.fractions(max_denominator=8))
    return st.one_of(scalar, st.tuples(scalar, scalar), st.lists(scalar, max_size=3))


def test_any_input_is_an_answer_or_a_table_error(model):
    """Whatever a caller passes, an answer comes or a one-line TableError says why: never a
    TypeError, a KeyError or another failure from inside (REFUSED shows the words)."""
    import inspect

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    cp = CombatPatrol(model)

    @settings(max_examples=300, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.sampled_from(ANSWERS), st.lists(_anything(), min_size=0, max_size=6))
    def run(name, args):
        method = getattr(cp, name)
        try:
            inspect.signature(method).bind(*args)
        except TypeError:
            return                              # a wrong number of arguments is Python's to refuse
        try:
            method(*args)
        except TableError as e:
            assert str(e) and "\n" not in str(e)
    run()

"""harmony check catches each kind of drift between clauses (harmony.consistency).

Each test copies the small folder tests/fixtures/consistency/rules_data,
breaks one thing and looks for the diagnostic at the right line.
"""
import shutil
from pathlib import Path

import pytest

from harmony import consistency
from harmony.check import CHECKS, check_path
from harmony.cli import main
from harmony.numbers import numbers_in
from editing import edit, line_of

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "consistency" / "rules_data"


@pytest.fixture
def data(tmp_path):
    dest = tmp_path / "rules_data"
    shutil.copytree(FIXTURE, dest)
    return dest


def found(folder: Path) -> list[tuple[str, int, str, str]]:
    _, report = check_path(folder)
    return [(Path(d.pos.path).name, d.pos.line, d.code, d.severity) for d in report.sorted()]


def codes(folder: Path) -> set[str]:
    return {code for _, _, code, _ in found(folder)}


def messages(folder: Path, code: str) -> list[str]:
    _, report = check_path(folder)
    return [d.message for d in report.sorted() if d.code == code]


def test_the_fixture_is_clean(data):
    assert found(data) == []


def test_each_check_of_the_module_is_named_once_in_harmony_check():
    named = [c.run for c in CHECKS]
    ours = [f for name, f in vars(consistency).items()
            if name.startswith("check_") and callable(f) and f.__module__ == consistency.__name__]
    assert len(ours) >= 6
    assert all(named.count(f) == 1 for f in ours), [f.__name__ for f in ours if named.count(f) != 1]


# ------------------------------------------------------------ prose numbers

def test_a_modifier_written_in_text_that_disagrees_with_the_parameter(data):
    edit(data, "opportunity-fire.yaml", "attacked at {{ opfire.drm }}", "attacked at +2")
    line = line_of(data, "opportunity-fire.yaml", "attacked at +2")
    assert ("opportunity-fire.yaml", line, "prose-number", "error") in found(data)
    msg = messages(data, "prose-number")[0]
    assert "'+2'" in msg and "opfire.drm = +1" in msg and "{{ opfire.drm }}" in msg


def test_a_fraction_word_that_disagrees_with_the_parameter(data):
    edit(data, "opportunity-fire.yaml", "opfire.activation-fraction: 1/4", "opfire.activation-fraction: 1/3")
    edit(data, "opportunity-fire.yaml", "spent {{ opfire.activation-fraction }} of",
         "spent one quarter of")
    assert ("opportunity-fire.yaml", line_of(data, "opportunity-fire.yaml", "one quarter"),
            "prose-number", "error") in found(data)
    assert "'one quarter'" in messages(data, "prose-number")[0]


def test_half_range_and_a_unicode_fraction_are_read(data):
    edit(data, "opportunity-fire.yaml", "within {{ opfire.range-fraction }} range",
         "within ⅓ range")
    assert "prose-number" in codes(data)


def test_a_count_that_disagrees_with_an_int_parameter(data):
    edit(data, "opportunity-fire.yaml", "each unit fires once per phase", "each unit fires twice per phase")
    assert ("opportunity-fire.yaml", line_of(data, "opportunity-fire.yaml", "twice per phase"),
            "prose-number", "error") in found(data)


def test_a_number_that_agrees_but_is_written_by_hand_gets_a_warning(data):
    edit(data, "opportunity-fire.yaml", "attacked at {{ opfire.drm }}", "attacked at +1")
    assert ("opportunity-fire.yaml", line_of(data, "opportunity-fire.yaml", "attacked at +1"),
            "prose-number-literal", "warning") in found(data)
    assert "prose-number" not in codes(data)


def test_references_years_and_distances_are_not_rule_values(data):
    # the PB cell sets no numeric parameter; give the REV cell the same prose
    edit(data, "opportunity-fire.yaml", "attacked at {{ opfire.drm }}, once per phase.",
         "attacked at {{ opfire.drm }} (see Figure 1, footnote 4 and section 7.12 of the 1970 "
         "rules, v0.1 of 2013-04-05); no one may fire from two hexes away at 3-1 odds.")
    assert found(data) == []


def test_the_card_text_is_checked_too(data):
    edit(data, "opportunity-fire.yaml", "        requires: [spotting.rule]\n",
         "        requires: [spotting.rule]\n        card: {title: Opportunity fire, text: Fire at +2.}\n")
    assert "prose-number" in codes(data)


def test_numbers_in_reads_the_kinds():
    got = [(n.kind, str(n.value)) for n in numbers_in("+2, one quarter, ½, twice, three units, 1/3")]
    assert got == [("modifier", "2"), ("fraction", "1/4"), ("fraction", "1/2"), ("count", "2"),
                   ("count", "3"), ("fraction", "1/3")]


# ------------------------------------------------------------ relations

def test_a_revision_that_amends_its_own_cell(data):
    edit(data, "opportunity-fire.yaml", "clauses: [opportunity-fire.rule@PL]",
         "clauses: [spotting.rule@REV]")
    line = line_of(data, "opportunity-fire.yaml", "spotting.rule@REV")
    assert ("opportunity-fire.yaml", line, "relation-not-canonical", "error") in found(data)


def test_a_revision_that_amends_another_game(data):
    edit(data, "spotting.yaml", "clauses: [spotting.rule@PB, spotting.rule@PL]",
         "clauses: [spotting.rule@CP]")
    assert "relation-not-canonical" in codes(data)


def test_a_revision_that_amends_a_silent_cell(data):
    edit(data, "opportunity-fire.yaml", "clauses: [opportunity-fire.rule@PL]",
         "clauses: [spotting.moving@PL]")
    assert "relation-to-silent-cell" in codes(data)


def test_an_amended_clause_that_does_not_exist(data):
    edit(data, "opportunity-fire.yaml", "clauses: [opportunity-fire.rule@PL]",
         "clauses: [opportunity-fire.nowhere@PL]")
    assert "unresolved-clause" in codes(data)


def test_a_restating_cell_that_changes_a_value(data):
    edit(data, "spotting.yaml", "relation: {type: amends, clauses: [spotting.rule@PB, spotting.rule@PL]}\n"
         "        params: {spot.markers: true, spot.opportunity-marker: true}",
         "relation: {type: restates, clauses: [spotting.rule@PL]}\n"
         "        params: {spot.transport-may-spot: true, spot.markers: true}")
    assert "restates-differs" in codes(data)


# ------------------------------------------------- one value per ruleset

NEW_REV_CLAUSE = """
  - id: opportunity-fire.extra
    topic: opportunity-fire
    aspect: rule
    cells:
      PB: not-covered
      PL: not-covered
      REV:
        status: {status}
        text: Another statement of the modifier.
        cite: {{source: REV, section: Opportunity Fire}}
        relation: {{type: {rel}, clauses: [opportunity-fire.rule]}}
        params: {{opfire.drm: 2}}
"""


def test_two_cells_of_one_ruleset_set_a_parameter_differently(data):
    with (data / "opportunity-fire.yaml").open("a", encoding="utf-8") as f:
        f.write(NEW_REV_CLAUSE.format(status="rule", rel="amends"))
    assert ("opportunity-fire.yaml", line_of(data, "opportunity-fire.yaml", "opfire.drm: 2"),
            "parameter-conflict", "error") in found(data)


def test_one_replacing_the_other_is_no_conflict_but_both_still_set_it(data):
    with (data / "opportunity-fire.yaml").open("a", encoding="utf-8") as f:
        f.write(NEW_REV_CLAUSE.format(status="rule", rel="replaces"))
    assert "parameter-conflict" not in codes(data)
    first = f"{data / 'opportunity-fire.yaml'}:25:52"
    assert messages(data, "parameter-set-twice") == [
        f"opportunity-fire.extra@REV sets opfire.drm, which opportunity-fire.rule@REV (at {first}) "
        "also sets for REV in its standard rules: opportunity-fire.extra@REV replaces "
        "opportunity-fire.rule@REV, so remove opfire.drm from the params of "
        "opportunity-fire.rule@REV"]


def test_two_cells_of_one_ruleset_that_set_a_parameter_to_the_same_value(data):
    """The first in file order would decide every ruling: an error with both positions."""
    with (data / "opportunity-fire.yaml").open("a", encoding="utf-8") as f:
        f.write(NEW_REV_CLAUSE.format(status="rule", rel="amends").replace("drm: 2", "drm: 1"))
    line = line_of(data, "opportunity-fire.yaml", "opfire.drm: 1}")
    assert found(data) == [("opportunity-fire.yaml", line, "parameter-set-twice", "error")]
    _, report = check_path(data)
    [d] = report.sorted()
    assert str(d.pos) == f"{data / 'opportunity-fire.yaml'}:{line}:30"
    assert d.message == (
        "opportunity-fire.extra@REV sets opfire.drm, which opportunity-fire.rule@REV (at "
        f"{data / 'opportunity-fire.yaml'}:25:52) also sets for REV in its standard rules: both "
        "set +1; set it in one cell only")


def test_two_cells_of_one_option_set_twice_and_of_two_options_not(data):
    text = NEW_REV_CLAUSE.format(status="optional", rel="amends").replace(
        "        status: optional\n", "        status: optional\n        option: heavy-fire\n")
    with (data / "opportunity-fire.yaml").open("a", encoding="utf-8") as f:
        f.write(text + text.replace("opportunity-fire.extra", "opportunity-fire.extra2"))
    said = messages(data, "parameter-set-twice")
    assert len(said) == 1 and said[0].startswith("opportunity-fire.extra2@REV sets opfire.drm, "
                                                 "which opportunity-fire.extra@REV (at ")
    assert "for REV with option heavy-fire on: both set +2" in said[0]
    (data / "opportunity-fire.yaml").write_text(
        (data / "opportunity-fire.yaml").read_text("utf-8").replace(
            "extra2\n    topic: opportunity-fire\n    aspect: rule\n    cells:\n      PB: "
            "not-covered\n      PL: not-covered\n      REV:\n        status: optional\n"
            "        option: heavy-fire",
            "extra2\n    topic: opportunity-fire\n    aspect: rule\n    cells:\n      PB: "
            "not-covered\n      PL: not-covered\n      REV:\n        status: optional\n"
            "        option: light-fire"), "utf-8")
    assert "parameter-set-twice" not in codes(data)


def test_an_option_may_change_a_standard_value(data):
    text = NEW_REV_CLAUSE.format(status="optional", rel="amends").replace(
        "        status: optional\n", "        status: optional\n        option: heavy-fire\n")
    with (data / "opportunity-fire.yaml").open("a", encoding="utf-8") as f:
        f.write(text)
    assert found(data) == []


# ------------------------------------------------- every parameter has a value

def test_a_parameter_without_default_that_a_rulebook_never_sets(data):
    edit(data, "spotting.yaml", "params: {spot.transport-may-spot: false, spot.markers: true}",
         "params: {spot.markers: true}")
    assert ("parameters.yaml", line_of(data, "parameters.yaml", "spot.transport-may-spot"),
            "parameter-unset", "error") in found(data)
    assert "in PL:" in messages(data, "parameter-unset")[0]


def test_a_revision_inherits_from_its_base(data):
    # REV never sets spot.transport-may-spot: it inherits PB's value, so no error
    assert "spot.transport-may-spot" not in (data / "spotting.yaml").read_text().split("REV:")[1]
    assert "parameter-unset" not in codes(data)


# ----------------------------------------------------------- requirements

def test_a_cell_that_requires_a_missing_clause(data):
    edit(data, "opportunity-fire.yaml", "requires: [spotting.rule]", "requires: [spotting.nowhere]")
    assert ("opportunity-fire.yaml", line_of(data, "opportunity-fire.yaml", "spotting.nowhere"),
            "requirement-unresolved", "error") in found(data)


def test_a_standard_rule_that_requires_an_optional_one(data):
    edit(data, "opportunity-fire.yaml", "requires: [spotting.rule]", "requires: [spotting.moving]")
    assert "requirement-optional" in codes(data)


def test_a_rule_that_requires_a_cell_that_says_nothing(data):
    edit(data, "opportunity-fire.yaml", "requires: [spotting.rule]", "requires: [spotting.moving@PL]")
    assert "requirement-missing" in codes(data)


def test_a_parameter_on_without_the_parameter_it_requires(data):
    edit(data, "spotting.yaml", "params: {spot.markers: true, spot.opportunity-marker: true}",
         "params: {spot.markers: false, spot.opportunity-marker: true}")
    assert ("spotting.yaml", line_of(data, "spotting.yaml", "spot.opportunity-marker: true"),
            "requirement-off", "error") in found(data)


# ---------------------------------------------------------------- versions

CHANGED = "        requires: [spotting.rule]\n        changed: {version: '%s', note: Range halved.}\n"


def test_a_change_in_a_version_later_than_the_current_one(data):
    edit(data, "sources.yaml", "        note: First version.\n",
         "        note: First version.\n      - version: '0.2'\n        date: '2014-01-01'\n")
    edit(data, "opportunity-fire.yaml", "        requires: [spotting.rule]\n", CHANGED % "0.2")
    got = found(data)
    assert ("opportunity-fire.yaml", line_of(data, "opportunity-fire.yaml", "version: '0.2'"),
            "version-after-current", "error") in got
    assert "version-current" in {c for *_, c, _ in got}  # lists 0.2 while at 0.1


def test_a_change_in_an_unknown_version(data):
    edit(data, "opportunity-fire.yaml", "        requires: [spotting.rule]\n", CHANGED % "0.9")
    assert "unresolved-version" in codes(data)


def test_a_change_on_a_source_without_versions(data):
    edit(data, "spotting.yaml", "        params: {spot.transport-may-spot: false, spot.markers: true}\n",
         "        params: {spot.transport-may-spot: false, spot.markers: true}\n"
         "        changed: {version: '2', note: Second edition.}\n")
    assert "version-unknown" in codes(data)


def test_versions_out_of_order(data):
    edit(data, "sources.yaml", "        note: First version.\n",
         "        note: First version.\n      - version: '0.0'\n        date: '2012-01-01'\n")
    assert "version-order" in codes(data)


def test_the_current_version_must_be_listed(data):
    edit(data, "sources.yaml", "    version: '0.1'\n", "    version: '0.3'\n")
    assert "version-current" in codes(data)


# ---------------------------------------------------------------- scenarios

def test_a_ruling_that_cites_a_missing_clause(data):
    edit(data, "scenarios/mini.yaml", "REV: {value: true, because: [spotting.rule]}",
         "REV: {value: true, because: [spotting.gone]}")
    _, report = check_path(data)
    hits = [d for d in report.errors if "spotting.gone" in d.message]
    assert hits and hits[0].pos.line == line_of(data, "scenarios/mini.yaml", "spotting.gone")


@pytest.mark.parametrize("name, old, new, needle, at", [
    ("spotting.yaml", "    aspect: rule\n", "    aspect: rule\n    scenarios: [nowhere]\n",
     "nowhere", "nowhere"),
    ("scenarios/mini.yaml", "clauses: [spotting.rule]", "clauses: [spotting.gone]",
     "spotting.gone", "spotting.gone"),
    ("scenarios/mini.yaml", "REV: {value: true, because: [spotting.rule]}",
     "REV: {value: true, because: [spotting.gone]}", "spotting.gone", "spotting.gone"),
    ("scenarios/mini.yaml", "rulesets: [PB, REV]", "rulesets: [PB, REV, NOPE]", "NOPE", "NOPE"),
    ("scenarios/mini.yaml", "rulesets: [PB, REV]", "rulesets: [PB, REV+no-such-option]",
     "'no-such-option'", "no-such-option"),
    ("scenarios/mini.yaml", "rulesets: [PB, REV]", "rulesets: [PB]", "'REV'", "REV: {value"),
])
def test_each_scenario_problem_is_reported_once(data, name, old, new, needle, at):
    edit(data, name, old, new)
    _, report = check_path(data)
    hits = [d for d in report.diagnostics if needle in d.message]
    assert len(hits) == 1, "\n".join(map(str, hits))
    assert hits[0].severity == "error"
    assert hits[0].pos.line == line_of(data, name, at)


# ---------------------------------------------------------------- the command

def test_harmony_check_exits_1_on_drift(data, capsys):
    edit(data, "opportunity-fire.yaml", "attacked at {{ opfire.drm }}", "attacked at +2")
    assert main(["check", str(data)]) == 1
    assert "[prose-number]" in capsys.readouterr().err


def test_a_version_that_no_cell_records(data):
    edit(data, "sources.yaml", "    version: '0.1'\n    date: '2013-04-05'\n",
         "    version: '0.2'\n    date: '2014-01-01'\n")
    edit(data, "sources.yaml", "        note: First version.\n",
         "        note: First version.\n      - version: '0.2'\n        date: '2014-01-01'\n")
    assert ("sources.yaml", line_of(data, "sources.yaml", "- version: '0.2'"),
            "version-empty", "warning") in found(data)
    edit(data, "opportunity-fire.yaml", "        requires: [spotting.rule]\n", CHANGED % "0.2")
    assert found(data) == []


def test_checks_of_absence_stay_silent_when_something_was_left_out(data):
    # a schema error leaves PL's spotting cell out; its parameter is then not "unset"
    edit(data, "spotting.yaml", "        text: An adjacent unit spots, and so does firing in sight;",
         "        colour: red\n        text: An adjacent unit spots, and so does firing in sight;")
    got = codes(data)
    assert "schema-unknown-key" in got
    assert "parameter-unset" not in got


# ------------------------------------------- one resolver for the checks and the engine

TWO_OPTIONS = {
    "sources.yaml": """\
sources:
  - {key: S, title: A game, author: A, year: 1970, kind: canonical}
""",
    "topics.yaml": """\
topics:
  - id: fire
    title: Fire
    summary: Firing.
    order: 1
    sources: [S]
    aspects:
      - {id: first, title: First}
      - {id: second, title: Second}
""",
    "parameters.yaml": """\
parameters:
  - {name: x.on, type: bool, description: The rule, default: false, requires: [x.needed]}
  - {name: x.needed, type: bool, description: What the rule needs, default: true}
""",
    "fire.yaml": """\
clauses:
  - id: fire.first
    topic: fire
    aspect: first
    cells:
      S:
        status: optional
        option: a
        text: Option a switches the rule on.
        cite: {source: S, section: A}
        params: {x.on: true}
  - id: fire.second
    topic: fire
    aspect: second
    cells:
      S:
        status: optional
        option: b
        text: Option b switches the rule off and what it needs.
        cite: {source: S, section: B}
        params: {x.on: false, x.needed: false}
""",
}


def test_the_checks_resolve_two_options_as_the_engine_does(tmp_path):
    """Options a and b both set x.on, differently; with both on, the first cell in file
    order wins (ruleset.py's precedence): x.on is on while b turns off what it needs.
    The consistency checks used to resolve it themselves, the last cell winning, and so
    saw nothing wrong with S+a+b."""
    from harmony.loader import load
    from harmony.ruleset import Ruleset

    for name, text in TWO_OPTIONS.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    model, report = load(tmp_path)
    assert not report.errors, report.to_text()
    both = Ruleset.from_model(model, "S+a+b")
    assert both["x.on"] is True and both.setting("x.on").cell == "fire.first@S"
    assert both["x.needed"] is False
    assert [Ruleset.from_model(model, n)["x.on"] for n in ("S", "S+a", "S+b")] == [False, True, False]
    off = [d for d in check_path(tmp_path)[1].errors if d.code == "requirement-off"]
    assert len(off) == 1, off
    assert "ruleset S+a+b: x.on is on but it requires x.needed" in off[0].message
    assert off[0].pos.line == line_of(tmp_path, "fire.yaml", "params: {x.on: true}")

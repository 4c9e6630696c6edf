"""Comparisons as data: the shipped spotting comparison, and every way a broken one is reported.

Each check is exercised on a copy of the shipped rules_data with one thing broken,
looking for the diagnostic at the right line and column.
"""
from pathlib import Path

import pytest

from harmony.check import check_path
from harmony.loader import load
from editing import edit, line_of

ROOT = Path(__file__).resolve().parent.parent
FILE = "comparisons.yaml"
SYSTEMS = ["PB", "PL", "AIW", "REV", "CP"]
ASPECTS = ["firing-units", "vehicles-moving-in-cover", "personnel-moving-in-cover", "contact",
           "lapse", "night"]


def found(folder: Path):
    _, report = check_path(folder)
    return [(d.pos.path.rsplit("/", 1)[-1], d.pos.line, d.pos.col, d.code, d.message)
            for d in report.diagnostics]


def test_the_spotting_comparison_covers_every_aspect_and_system(shipped_model):
    c = shipped_model.comparisons["spotting-across-systems"]
    assert c.systems == SYSTEMS
    assert [a.id for a in c.aspects] == ASPECTS
    for aspect in c.aspects:
        assert sorted(aspect.cells) == sorted(SYSTEMS), aspect.id
        for key, cell in aspect.cells.items():
            if cell.covered:          # every reference is a cell of its own column with text
                assert cell.refs, (aspect.id, key)
                for ref in cell.refs:
                    target = shipped_model.cell(ref)
                    assert target is not None and target.source == key and target.text, ref
            else:                     # silence is said, with a note
                assert cell.note and not cell.refs, (aspect.id, key)
    night = c.aspect("night")
    assert [k for k in SYSTEMS if not night.cells[k].covered] == ["PB", "PL", "AIW", "REV"]
    assert c.aspect("firing-units").cells["CP"].refs == ["alternate-spotting.automatic@CP"]


def test_a_reference_to_a_missing_clause_is_an_error_at_its_position(rules_copy):
    edit(rules_copy, FILE, "from: [alternate-spotting.persistence@CP]",
         "from: [alternate-spotting.persistance@CP]")
    line = line_of(rules_copy, FILE, "persistance@CP")
    col = (rules_copy / FILE).read_text().splitlines()[line - 1].index("alternate-spotting.pers") + 1
    assert found(rules_copy) == [(FILE, line, col, "comparison",
                                  "comparison 'spotting-across-systems', aspect 'lapse', CP: "
                                  "'alternate-spotting.persistance@CP' names clause "
                                  "'alternate-spotting.persistance', which does not exist: did you "
                                  "mean 'alternate-spotting.persistence'?")]


def test_a_reference_to_a_missing_or_empty_cell_is_an_error(rules_copy):
    # spotting.recording@PB is not covered: it has no text to show
    edit(rules_copy, FILE, "          PB:\n            from: [spotting.spotted@PB]\n            summary: No.",
         "          PB:\n            from: [spotting.recording@PB]\n            summary: No.")
    # a cell of another system in the PL column
    edit(rules_copy, FILE, "from: [movement.spotting@PL]\n            summary: No. Moving",
         "from: [movement.spotting@PB]\n            summary: No. Moving")
    # a clause with no cell for CP at all
    edit(rules_copy, FILE, "from: [alternate-spotting.persistence@CP]", "from: [markers.removal@CP]")
    got = found(rules_copy)
    assert [(g[1], g[3]) for g in got] == [
        (line_of(rules_copy, FILE, "spotting.recording@PB"), "comparison"),
        (line_of(rules_copy, FILE, "No. Moving") - 1, "comparison"),
        (line_of(rules_copy, FILE, "markers.removal@CP"), "comparison")]
    assert "cell 'spotting.recording@PB' is not-covered and has no text to show" in got[0][4]
    assert "'movement.spotting@PB' is a cell of PB, not of PL" in got[1][4]
    assert "clause 'markers.removal' has no cell for CP (its cells: PB, PL, AIW, REV)" in got[2][4]


def test_a_system_left_out_of_an_aspect_is_an_error(rules_copy):
    edit(rules_copy, FILE, "          CP:\n            from: [alternate-spotting.persistence@CP]\n"
         "            summary: When it ends an activation out of sight of every enemy team.\n", "")
    got = found(rules_copy)
    assert [(g[1], g[3]) for g in got] == [(line_of(rules_copy, FILE, "id: lapse") + 3, "comparison")]
    assert "aspect 'lapse': no cell for CP" in got[0][4]
    assert "status: not-covered with a note" in got[0][4]


def test_a_silent_system_needs_a_note_and_an_empty_cell_is_refused(rules_copy):
    edit(rules_copy, FILE, "            status: not-covered\n            note: The revised rules do not "
         "treat night.\n", "            status: not-covered\n")
    edit(rules_copy, FILE, "          PB:\n            from: [spotting.spotted@PB]\n            summary: "
         "Yes; it is the only way.\n", "          PB: {}\n")
    got = found(rules_copy)
    assert {(g[1], g[3]) for g in got} == {
        (line_of(rules_copy, FILE, "PB: {}"), "schema-missing-key"),
        (_line_after(rules_copy, "id: night", "REV:") + 1, "schema-missing-key")}
    messages = sorted(g[4] for g in got)
    assert "cell PB of aspect 'contact' of comparison 'spotting-across-systems' lacks required key " \
           "'from'" in messages[0]
    assert "cell REV of aspect 'night' of comparison 'spotting-across-systems' lacks required key " \
           "'note'" in messages[1]


def _line_after(folder: Path, first: str, then: str) -> int:
    lines = (folder / FILE).read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if first in line)
    return next(i for i, line in enumerate(lines[start:], start + 1) if then in line)


def test_unknown_system_cell_outside_the_systems_and_mixed_cells(rules_copy):
    edit(rules_copy, FILE, "systems: [PB, PL, AIW, REV, CP]", "systems: [PB, PL, AIW, REV, CP, XX]")
    edit(rules_copy, FILE, "            note: The revised rules do not treat night.\n",
         "            note: The revised rules do not treat night.\n            summary: Dark.\n")
    got = found(rules_copy)
    messages = [g[4] for g in got]
    assert any("names unknown system 'XX'" in m for m in messages)
    assert sum("no cell for XX" in m for m in messages) == len(ASPECTS)
    mixed = [g for g in got if "a not-covered cell shows no clause text" in g[4]]
    assert [(g[1], g[2]) for g in mixed] == [(line_of(rules_copy, FILE, "summary: Dark."), 13)]


@pytest.mark.parametrize("bad, message", [
    ("from: [contact]", "'contact' is not a valid value"),
    ("status: nil\n            note: x", "'nil' is not allowed"),
])
def test_the_schema_refuses_malformed_cells(rules_copy, bad, message):
    edit(rules_copy, FILE, "from: [spotting.spotted@PL]\n            summary: Yes.\n",
         bad + "\n")
    _, report = load(rules_copy)
    assert any(message in d.message and d.pos.path.endswith(FILE) for d in report.diagnostics), \
        [d.message for d in report.diagnostics]

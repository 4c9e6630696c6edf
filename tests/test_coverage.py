"""Rule coverage (harmony check --coverage): which example or scenario question exercises
each rule cell, warnings at the cells nothing exercises, and the cells' reasons why not."""
from __future__ import annotations

import json
import re
from pathlib import Path

from editing import edit, line_of

from harmony import cli
from harmony.check import check_path
from harmony.coverage import coverage_of, example_rulings
from harmony.loader import load
from harmony.game import played

#: the params line of spotting.spotted@PB, a cell with engine parameters
PARAMS = "        params: {spot.adjacent: true, spot.firer-in-los: false}"


def _warnings(report, code="unexercised-cell"):
    return [d for d in report.warnings if d.code == code]


def _only_by_one_scenario(model):
    """A cell that one scenario alone exercises (no example, no other scenario)."""
    for row in coverage_of(model).rows():
        ids = {(u.kind, u.id) for u in row.uses}
        if len(ids) == 1 and next(iter(ids))[0] == "scenario":
            return row, next(iter(ids))[1]
    raise AssertionError("no cell is exercised by one scenario alone")


def _drop_scenario(folder: Path, model, sid: str) -> None:
    """Remove scenario ``sid`` from a copied rules folder, and the clauses' mentions of it."""
    (folder / "scenarios" / Path(model.scenarios[sid].file).name).unlink()
    for path in folder.glob("*.yaml"):
        text = path.read_text(encoding="utf-8")
        new = re.sub(rf"(scenarios: \[[^\]]*?)\b{re.escape(sid)}\b(, )?", r"\1", text)
        new = new.replace(", ]", "]")
        if new != text:
            path.write_text(new, encoding="utf-8")


def test_removing_a_scenario_leaves_its_cell_unexercised_with_a_warning_at_the_cell(rules_copy):
    model, report = check_path(rules_copy, with_coverage=True)
    assert not report.errors, report.to_text()
    row, sid = _only_by_one_scenario(model)
    assert row.exercised
    where = row.cell.pos("status")
    assert not [d for d in _warnings(report) if d.pos == where]

    _drop_scenario(rules_copy, model, sid)
    model2, report2 = check_path(rules_copy, with_coverage=True)
    assert not report2.errors, report2.to_text()
    after = coverage_of(model2).cell(row.cell.clause_id, row.cell.source)
    assert not after.exercised and after.state == "missing"
    hits = [d for d in _warnings(report2) if d.pos == where]
    assert len(hits) == 1, report2.to_text()
    assert row.id in hits[0].message
    # the position is the cell's own: its status line in its file
    assert Path(where.path).name == Path(row.cell.file).name and where.line > 1


def test_without_coverage_check_gives_no_coverage_warning(rules_copy):
    _, report = check_path(rules_copy)
    assert not _warnings(report)


def _unplayed(folder: Path):
    """The model of ``folder`` with nothing to exercise its cells: no scenarios, no examples."""
    model, report = load(folder)
    assert not report.errors, report.to_text()
    model.scenarios.clear()
    for clause in model.clauses.values():
        clause.examples = None
    return model


def test_a_reason_stands_for_an_unexercised_cell_without_parameters(rules_copy):
    line = line_of(rules_copy, "sequence.yaml", "title: Whose units act, and when")
    text = (rules_copy / "sequence.yaml").read_text(encoding="utf-8").split("\n")
    k = next(i for i in range(line, len(text)) if text[i].strip() == "status: rule")
    text.insert(k + 1, "        exercised: {none: 'pure procedure: nothing for the engine to decide'}")
    (rules_copy / "sequence.yaml").write_text("\n".join(text), encoding="utf-8")
    cov = coverage_of(_unplayed(rules_copy))
    row = cov.cell("sequence.player-turn", "PB")
    assert not row.parameterised and not row.exercised
    assert row.state == "reasoned" and row.reason.startswith("pure procedure")
    from harmony.diagnostics import Report
    report = Report()
    cov.warn(report)
    assert not [d for d in report.warnings if d.pos == row.cell.pos("status")]
    # its neighbour without a reason is warned at its own cell
    other = cov.cell("sequence.moving", "PB")
    assert other.state == "missing"
    assert [d for d in report.warnings if d.pos == other.cell.pos("status")]
    assert "not exercised: pure procedure: nothing for the engine to decide" in cov.to_text()


def test_a_reason_does_not_excuse_a_parameterised_cell(rules_copy):
    model, _ = load(rules_copy)
    row = coverage_of(model).cell("spotting.spotted", "PB")
    assert row.parameterised and row.exercised
    # take away everything that exercises it: a fresh model whose cell carries a reason, and no
    # rulings at all (no scenarios, no examples)
    edit(rules_copy, "spotting.yaml", PARAMS, f"{PARAMS}\n        exercised: {{none: no engine concept yet}}")
    cov = coverage_of(_unplayed(rules_copy))
    after = cov.cell("spotting.spotted", "PB")
    assert after.reason == "no engine concept yet" and after.state == "missing"
    from harmony.diagnostics import Report
    report = Report()
    cov.warn(report)
    (hit,) = [d for d in report.warnings if "spotting.spotted@PB" in d.message]
    assert "spot.adjacent" in hit.message and "does not excuse" in hit.message


def _errors_on_reason_line(folder: Path, reason: str) -> list:
    """The errors at the line of ``exercised: REASON``, added under spotting.spotted@PB."""
    line = line_of(folder, "spotting.yaml", PARAMS.strip())
    edit(folder, "spotting.yaml", PARAMS, f"{PARAMS}\n        exercised: {reason}")
    _, report = check_path(folder)
    return [d for d in report.errors if d.pos.path.endswith("spotting.yaml") and d.pos.line == line + 1]


def test_an_unknown_key_and_an_empty_reason_are_errors_at_their_place(rules_copy):
    mine = _errors_on_reason_line(rules_copy, "{none: '', why: later}")
    text = "\n".join(map(str, mine))
    assert any("why" in d.message for d in mine), text
    assert any("'none'" in d.message for d in mine), text
    assert all(d.pos.col > 1 for d in mine), text


def test_a_blank_reason_is_an_error_at_its_line(rules_copy):
    assert _errors_on_reason_line(rules_copy, "{none: '   '}")


def test_a_sound_reason_is_no_error(rules_copy):
    assert not _errors_on_reason_line(rules_copy, "{none: pure procedure}")


def test_examples_record_their_rulings_and_refusals_with_their_ruleset(shipped_model):
    got = [(rs, r.reasons) for rs, r in example_rulings(shipped_model, shipped_model.clauses["spotting.limitation"])]
    assert ("PL", ["spotting.limitation", "spotting.spotted"]) in got
    # a refusal names its clause: the sequence-of-play example is exercised by it
    refused = example_rulings(shipped_model, shipped_model.clauses["sequence.player-turn"])
    assert ("PB", ["sequence.player-turn"]) in [(rs, r.reasons) for rs, r in refused]
    # the Combat Patrol calculator's rulings have no game: the clause's one column takes them
    cov = coverage_of(shipped_model)
    assert any(u.kind == "example" for u in cov.cell("cp-body-armour.penetration", "CP").uses)


def test_scenarios_are_played_once_and_shared(rules_copy):
    model, _ = check_path(rules_copy, with_coverage=True)
    first = played(model, "rev-figure-1")
    assert coverage_of(model) is coverage_of(model)
    assert played(model, "rev-figure-1") is first
    uses = coverage_of(model).cell("spotting.spotted", "REV").uses
    assert any(u.kind == "scenario" and u.question for u in uses)


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main(["check", "--coverage", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_report_is_deterministic_and_readable(capsys, rules_copy):
    code, text, _ = _run(capsys, str(rules_copy))
    assert code == 0
    again = _run(capsys, str(rules_copy))[1]
    assert text == again
    assert text.startswith("Rule coverage")
    assert re.search(r"^PB: \d+ cells, \d+ exercised", text, re.M)
    assert "  + spotting.spotted@PB (rule) [spot.adjacent, spot.firer-in-los]" in text
    assert "by scenario " in text and "by example of " in text
    data1 = _run(capsys, str(rules_copy), "--format", "json")[1]
    data2 = _run(capsys, str(rules_copy), "--format", "json")[1]
    assert data1 == data2
    data = json.loads(data1)
    assert {"diagnostics", "summary", "coverage"} <= set(data)
    spotted = next(c for c in data["coverage"]["PB"]["cells"] if c["cell"] == "spotting.spotted@PB")
    assert spotted["state"] == "exercised" and spotted["parameters"] == ["spot.adjacent", "spot.firer-in-los"]
    missing = sum(c["state"] == "missing" for rows in data["coverage"].values() for c in rows["cells"])
    assert missing == sum(1 for d in data["diagnostics"] if d["code"] == "unexercised-cell")


def test_one_file_shows_its_own_cells(capsys, rules_copy):
    code, text, _ = _run(capsys, str(rules_copy / "sequence.yaml"))
    assert code == 0
    cells = re.findall(r"^  [+=!] (\S+)", text, re.M)
    assert cells and all(c.startswith("sequence.") for c in cells)


def test_a_ruling_no_game_gave_credits_the_cells_whose_parameters_decided_it(shipped_model):
    """The Double-Blind scenario transform is decided by parameters of the DB cell, with no
    game behind it: the cell those settings came from is exercised by the example."""
    row = coverage_of(shipped_model).cell("double-blind.scenarios", "DB")
    assert any(u.kind == "example" and u.ruleset == "DB" for u in row.uses), row.uses
    assert row.exercised

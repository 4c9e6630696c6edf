"""The tables' own checks (harmony.tablecheck): a cell of the wrong type, a row key given
twice, a cell under no column, each an error at its place in the file."""
from __future__ import annotations

from pathlib import Path

from harmony.check import check_path
from harmony.model import TableColumn
from harmony.tablecheck import cell_type_error

FILE = "combat-patrol-tables.yaml"


def test_a_cell_of_the_wrong_type_says_why():
    flag, span = TableColumn(id="f", type="bool"), TableColumn(id="r", type="range")
    assert cell_type_error(flag, True) is None
    assert cell_type_error(flag, 1) == "1 is not true or false"
    assert cell_type_error(span, {"min": 1, "max": 3}) is None
    assert cell_type_error(span, 4) == "4 is not a range ({min: .., max: ..})"
    assert cell_type_error(span, {"min": 5, "max": 3}) == "a range whose min (5) is above its max (3)"
    assert cell_type_error(span, {"min": None, "max": 3}) is None


def problems(folder: Path) -> list[tuple[int, int, str, str]]:
    _, report = check_path(folder)
    return [(d.pos.line, d.pos.col, d.code, d.message) for d in report.diagnostics
            if d.pos.path.endswith(FILE)]


def test_a_row_key_given_twice_and_a_cell_under_no_column_are_errors_where_they_stand(rules_copy):
    path = rules_copy / FILE
    text = path.read_text("utf-8")
    assert text.count("      - band: middle\n") == 1 and text.count("        hits-per-check: 2\n") == 1
    text = text.replace("      - band: middle\n", "      - band: low\n")
    text = text.replace("        hits-per-check: 2\n", "        hits-per-check: 2\n        hits-per-turn: 2\n")
    path.write_text(text, "utf-8")
    lines = text.splitlines()
    twice = next(i for i, line in enumerate(lines) if line == "      - band: low" and i > 23) + 1
    stray = lines.index("        hits-per-turn: 2") + 1
    assert problems(rules_copy) == [
        (stray, 9, "table-cell", "table 'cp-penetration-effects' row 1: no column 'hits-per-turn' "
                                 "(its columns: band, penetration, hits-per-check, effect, detail)"),
        (twice, 15, "table-cell", "table 'cp-penetration-effects': row 'low' appears twice (rows 1 and 2)")]


def test_a_row_without_its_key_is_one_error_not_a_crash(rules_copy):
    path = rules_copy / FILE
    text = path.read_text("utf-8")
    old = "      - band: middle\n        penetration: {min: 4, max: 4}\n"
    assert text.count(old) == 1
    path.write_text(text.replace(old, "      - penetration: {min: 4, max: 4}\n"), "utf-8")
    line = path.read_text("utf-8").splitlines().index("      - penetration: {min: 4, max: 4}") + 1
    assert problems(rules_copy) == [
        (line, 9, "table-cell", "table 'cp-penetration-effects' row 2 has no cell for column 'band'")]

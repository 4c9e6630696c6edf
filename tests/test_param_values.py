"""Parameter values of the wrong type: one positioned error each, never a crash.

``harmony check`` compares every parameter value with its declared type
(:mod:`harmony.paramtypes`) before any scenario is played; a scenario is not
played under a ruleset that holds a wrong value (the engine would compute with
it), and a note names those scenarios; every other problem of the folder is
still reported. Text where a number belongs (``'+1'``, ``half``, ``'1/0'``) used
to stop ``check`` with a TypeError inside the engine.

The property test writes a value of every YAML type (drawn by
``tests/strategies.py``) in the place of each declared parameter of a copy of the
shipped rules, as an editor would, and checks the folder.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from harmony import cli, paramtypes
from harmony.check import check_path
from harmony.loader import load
from harmony.game import played, run_scenario

from strategies import param_values

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules_data"


def _place(model, pname: str) -> tuple[str, int, int]:
    """Where the value of ``pname`` is first written (file, line, column from 1): the first
    cell in file order that sets it, else its declared default."""
    cells = [c for cl in sorted(model.clauses.values(), key=lambda c: (c.file, c.pos().line))
             for c in cl.cells.values() if pname in (c.params or {})]
    pos = cells[0].pos("params", pname) if cells else model.parameters[pname].pos("default")
    return Path(pos.path).name, pos.line, pos.col


def _end(line: str, start: int) -> int:
    """The end of the flow value that starts at ``start`` of ``line`` (a list, a quoted or a
    plain scalar: the shipped rules write their values so)."""
    if line[start] == "[":
        return line.index("]", start) + 1
    if line[start] in "'\"":
        return line.index(line[start], start + 1) + 1
    ends = [i for i in (line.find(",", start), line.find("}", start)) if i >= 0]
    return min(ends) if ends else len(line)


@pytest.fixture(scope="module")
def shipped():
    model, report = load(RULES)
    assert not report.errors, report.to_text()
    return model


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("values") / "rules_data"
    shutil.copytree(RULES, dest)
    return dest


class Written:
    """A value written in the place of a parameter's value in ``folder``; undone on exit."""

    def __init__(self, folder: Path, place: tuple[str, int, int], text: str):
        self.path = folder / place[0]
        self.line, self.col = place[1], place[2]
        self.text = text

    def __enter__(self) -> "Written":
        self.before = self.path.read_text(encoding="utf-8")
        lines = self.before.split("\n")
        row = lines[self.line - 1]
        start = self.col - 1
        lines[self.line - 1] = row[:start] + self.text + row[_end(row, start):]
        self.path.write_text("\n".join(lines), encoding="utf-8")
        return self

    def __exit__(self, *exc) -> None:
        self.path.write_text(self.before, encoding="utf-8")


def _at(d) -> tuple[str, int, int]:
    return _where(d.pos)


def _where(pos) -> tuple[str, int, int]:
    return Path(pos.path).name, pos.line, pos.col


def _value_at(model, pname: str, place: tuple[str, int, int]):
    """The value the loader read at ``place`` for ``pname`` (a cell's, else the default)."""
    for cl in model.clauses.values():
        for c in cl.cells.values():
            if pname in (c.params or {}) and _where(c.pos("params", pname)) == place:
                return c.params[pname]
    return model.parameters[pname].default


# ------------------------------------------------------------------ the cases of the issue

@pytest.mark.parametrize("pname, text, found", [
    ("opfire.drm", "'+1'", "found '+1'"),
    ("opfire.range-fraction", "half", "found 'half'"),
    ("opfire.range-fraction", "'1/0'", "found '1/0'"),
    ("opfire.activation-fraction", ".inf", "found inf"),
    ("opfire.per-target-per-phase", "'1'", "found '1'"),
    ("spot.excluded-classes", "7", "found 7"),
])
def test_text_where_a_number_belongs_is_one_error_and_no_scenario_under_it(folder, shipped, pname,
                                                                          text, found):
    place = _place(shipped, pname)
    with Written(folder, place, text):
        model, report = check_path(folder)
    [err] = report.errors
    assert err.code == "parameter-type" and _at(err) == place
    ptype = shipped.parameters[pname].type
    assert f"parameter '{pname}' ({ptype}): " in err.message and found in err.message
    [note] = [n for n in report.notes if "not played" in n]
    assert pname in note
    # the rulesets that hold the value are not played; the others are, and answer
    skipped = {(sid.strip(), rs.strip()) for part in note.split(": ", 1)[1].split("; fix")[0]
               .split("; ") for sid, rss in [part.split(" under ")] for rs in rss.split(", ")}
    assert skipped
    answered = 0
    for sid in model.scenarios:
        for row in played(model, sid).rulings:
            if (sid, row.ruleset) in skipped:
                assert row.actual is None and "wrong type" in row.detail
            else:
                answered += row.actual is not None
    assert answered > 50


def test_the_cli_says_so_in_one_line_each(folder, shipped, capsys):
    place = _place(shipped, "opfire.drm")
    with Written(folder, place, "'+1'"):
        rc = cli.main(["check", str(folder)])
    out = capsys.readouterr()
    assert rc == 1 and "Traceback" not in out.err + out.out and "internal error" not in out.err
    [line] = [ln for ln in out.err.splitlines() if ": error: " in ln]
    assert line.startswith(f"{folder / place[0]}:{place[1]}:{place[2]}: error: ")
    assert "note: scenarios not played" in out.err + out.out


def test_a_folder_with_a_wrong_value_still_reports_its_other_problems(folder, shipped):
    """A wrong value, a dangling glossary link (a check of each clause) and a scenario asking
    about a unit it does not have (a check of the whole model): all three are reported."""
    edits = {folder / "spotting.yaml": ("text: ", "text: A [[no such term]] here. "),
             folder / "scenarios" / "pb-truck-spotting.yaml": ("ask: {spotted: german-platoon",
                                                               "ask: {spotted: german-platoonn")}
    before = {path: path.read_text(encoding="utf-8") for path in edits}
    try:
        for path, (old, new) in edits.items():
            path.write_text(before[path].replace(old, new, 1), encoding="utf-8")
        with Written(folder, _place(shipped, "opfire.range-fraction"), "half"):
            _, report = check_path(folder)
    finally:
        for path, text in before.items():
            path.write_text(text, encoding="utf-8")
    codes = sorted(d.code for d in report.errors)
    assert len(codes) == 3 and "parameter-type" in codes and "unresolved-term" in codes, report.to_text()
    assert any("german-platoonn" in d.message for d in report.errors), report.to_text()
    assert not any("cross-clause checks were not run" in n for n in report.notes)


def test_the_engine_is_never_given_a_wrong_value(folder, shipped):
    """run_scenario (pytest, the explorer and diff play with it too) refuses the ruleset."""
    place = _place(shipped, "opfire.drm")
    with Written(folder, place, "'+1'"):
        model, _ = load(folder)
    result = run_scenario(model, "rev-figure-1")
    [err] = [d for d in result.errors if d.code == "scenario-parameter"]
    assert "'opfire.drm'" in err.message and f"{place[0]}:{place[1]}:{place[2]}" in err.message
    assert all(row.actual is None for row in result.rulings if row.ruleset.startswith("REV"))


def test_the_shipped_rulesets_hold_no_wrong_value(shipped):
    from harmony.ruleset import ruleset_for, wrong_settings
    names = {n for sc in shipped.scenarios.values() for n in sc.data.get("rulesets") or []}
    assert len(names) > 5
    for name in sorted(names):
        assert wrong_settings(shipped, ruleset_for(shipped, name)) == [], name


# ------------------------------------------------------------------ every type, every YAML value

SHIPPED = load(RULES)[0]


@given(pname=st.sampled_from(sorted(SHIPPED.parameters)), text=param_values)
@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
def test_any_value_of_any_parameter_is_one_positioned_error_or_none(folder, pname, text):
    shipped = SHIPPED
    place = _place(shipped, pname)
    with Written(folder, place, text):
        model, report = check_path(folder)           # never raises
        read, _ = load(folder)
    param = shipped.parameters[pname]
    wrong = [d for d in report.errors if d.code == "parameter-type"]
    if report.incomplete:
        # the loader refused the value itself (a number of 101 digits, a mapping, no such day)
        [err] = report.errors
        name, line, col = _at(err)
        assert (name, line) == place[:2] and place[2] <= col < place[2] + len(text), report.to_text()
        return
    value = _value_at(read, pname, place)
    problem = paramtypes.param_error(param, value)
    if problem is None:
        assert wrong == [], (text, value, report.to_text())
        return
    assert len(report.errors) == 1, (text, value, report.to_text())
    [err] = wrong
    assert _at(err) == place and f"'{pname}'" in err.message and problem in err.message

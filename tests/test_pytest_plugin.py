"""The pytest plugin (harmony/pytest_plugin.py): clause examples and scenarios as test items.

Each test runs pytest in a subprocess (``pytester.runpytest_subprocess``), so
the plugin is loaded the way users get it, through its ``pytest11`` entry
point, on a copy of rules_data that the test may break on purpose.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from harmony.loader import load

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[1]
RULES = REPO / "rules_data"


@pytest.fixture(scope="module")
def shipped():
    """The shipped model (its file paths made absolute: pytester changes the working folder)."""
    model, report = load(RULES)
    assert not report.errors, [str(d) for d in report.errors]
    for obj in [*model.clauses.values(), *model.scenarios.values()]:
        obj.file = str(Path(obj.file).resolve())
    return model


def copy_rules(dest: Path) -> Path:
    shutil.copytree(RULES, dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def run(pytester, *args):
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *args, timeout=300)
    text = "\n".join(result.outlines + result.errlines)
    assert "Traceback (most recent call last)" not in text.replace(
        "Traceback (most recent call last):\n...", ""), text
    assert "INTERNALERROR" not in text, text
    return result


def rel(path: str) -> str:
    """A model file's path relative to rules_data, as pytest names it under rules_data/."""
    return Path(path).resolve().relative_to(RULES).as_posix()


def expected_items(model) -> list[str]:
    items = [f"rules_data/{rel(c.file)}::{c.id}" for c in model.clauses.values() if c.examples]
    for sc in model.scenarios.values():
        items += [f"rules_data/{rel(sc.file)}::{sc.id}[{rs}]" for rs in sc.data["rulesets"]]
    return items


def edit(path: Path, old: str, new: str, after: str = "") -> int:
    """Replace the first ``old`` (after the text ``after``) in a file; its 1-based line."""
    text = path.read_text(encoding="utf-8")
    start = text.index(after) if after else 0
    at = text.index(old, start)
    path.write_text(text[:at] + new + text[at + len(old):], encoding="utf-8")
    return text.count("\n", 0, at) + 1


def line_of_prompt(path: Path, line: int) -> int:
    """The line of the ``>>>`` that owns the output on ``line`` (1-based)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    while not lines[line - 1].lstrip().startswith(">>>"):
        line -= 1
    return line


# ------------------------------------------------------------------ the data

def test_at_least_twelve_clauses_show_a_ruling_and_its_reasons(shipped):
    with_examples = [c for c in shipped.clauses.values() if c.examples]
    assert len(with_examples) >= 12
    for c in with_examples:
        assert ">>>" in c.examples, c.id
        # A ruling with the clause ids that decided it, not a bare value.
        reasons = re.findall(r"reasons=\[([^\]]*)\]", c.examples) + re.findall(
            r"clause='([^']+)'", c.examples)
        assert any(r.strip() for r in reasons), f"{c.id}: no ruling shows its reasons"
        # Decided by the rulesets of the loaded model, never hand-built values.
        assert "from_values" not in c.examples and "TEST_DEFAULTS" not in c.examples, c.id


# -------------------------------------------------------------- collection

def test_items_are_named_after_clauses_and_scenarios_and_other_yaml_is_left_alone(
        pytester, shipped):
    pytester.makeini("[pytest]\ntestpaths = tests rules_data\n")
    copy_rules(pytester.path / "rules_data")
    shutil.copytree(REPO / "tests" / "bad_inputs", pytester.path / "tests" / "bad_inputs")
    # A fixture folder that happens to be called rules_data, inside the tests.
    shutil.copytree(REPO / "tests" / "fixtures" / "consistency",
                    pytester.path / "tests" / "fixtures" / "consistency")
    assert list((pytester.path / "tests" / "bad_inputs").glob("*.yaml"))

    result = run(pytester, "--collect-only", "-q")

    assert result.ret == 0, result.outlines
    items = [line for line in result.outlines if "::" in line]
    expected = expected_items(shipped)
    assert sorted(items) == sorted(expected)
    assert "rules_data/spotting.yaml::spotting.rule" in items
    assert "rules_data/scenarios/rev-figure-1.yaml::rev-figure-1[PL+opportunity-fire]" in items
    assert not any("bad_inputs" in line or "fixtures" in line for line in result.outlines)


def test_a_path_inside_a_rules_data_folder_is_collected_whatever_the_rootdir(pytester):
    elsewhere = copy_rules(pytester.path / "far" / "away" / "rules_data")
    result = run(pytester, str(elsewhere / "scenarios" / "rev-figure-1.yaml"), "-v")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["*rev-figure-1.yaml::rev-figure-1?REV? PASSED*"])


# ---------------------------------------------------------------- failures

def test_a_failing_example_names_the_yaml_file_and_the_line_of_its_prompt(pytester, shipped):
    rules = copy_rules(pytester.path / "rules_data")
    spotting, movement, markers = (rules / f for f in ("spotting.yaml", "movement.yaml",
                                                       "markers.yaml"))
    # A wrong ruling for a one-line example.
    wrong = edit(spotting, "Ruling(value=True, reasons=['spotting.rule'])",
                 "Ruling(value=False, reasons=['spotting.rule'])")
    # A wrong line in the output of a for loop written over several lines.
    loop = edit(movement, "PB Ruling(value=False, reasons=['movement.spotting', "
                "'spotting.spotted'])", "PB Ruling(value=True, reasons=['movement.spotting', "
                "'spotting.spotted'])", after="id: movement.spotting")
    # An example that raises.
    raising = edit(markers, 'g.markers("tank")', 'g.markers("no-such-unit")',
                   after="id: markers.removal")

    result = run(pytester, "rules_data/spotting.yaml", "rules_data/movement.yaml",
                 "rules_data/markers.yaml")

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    outcomes = result.parseoutcomes()
    total = sum(1 for c in shipped.clauses.values()
                if c.examples and Path(c.file).name in ("spotting.yaml", "movement.yaml",
                                                        "markers.yaml"))
    assert outcomes["failed"] == 3 and outcomes["passed"] == total - 3
    result.stdout.fnmatch_lines([
        f"rules_data/spotting.yaml:{line_of_prompt(spotting, wrong)}:7: example of clause "
        "spotting.rule failed",
        ">>> in_the_open.under(\"PB\").can_fire([\"gun\"], \"tank\")",
        "expected:", "Ruling(value=False, reasons=['spotting.rule'])",
        "got:", "Ruling(value=True, reasons=['spotting.rule'])",
    ], consecutive=True)
    assert line_of_prompt(movement, loop) < loop
    result.stdout.fnmatch_lines([
        f"rules_data/movement.yaml:{line_of_prompt(movement, loop)}:7: example of clause "
        "movement.spotting failed",
        '>>> for rules in "PB", "PL", "AIW", "REV":',
        '...     print(rules, move(into_the_woods.under(rules), "tank", "C3").spotted)',
        "expected:",
    ], consecutive=True)
    result.stdout.fnmatch_lines([
        f"rules_data/markers.yaml:{raising}:7: example of clause markers.removal failed",
        '>>> g.markers("no-such-unit")', "raised:", "*DataError: no unit 'no-such-unit'*",
    ])


def test_a_failing_scenario_expectation_names_its_yaml_file_and_line(pytester):
    rules = copy_rules(pytester.path / "rules_data")
    figure = rules / "scenarios" / "rev-figure-1.yaml"
    line = edit(figure, "REV: {value: true, because: [movement.spotting, spotting.limitation,",
                "REV: {value: false, because: [movement.spotting, spotting.limitation,")

    result = run(pytester, "rules_data/scenarios/rev-figure-1.yaml")

    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines([
        f"rules_data/scenarios/rev-figure-1.yaml:{line}:*: step 1, REV: Is the Hetzer spotted*",
        "*expected value False, the engine says True*",
    ])
    result.stdout.fnmatch_lines(["FAILED *rev-figure-1.yaml::rev-figure-1?REV?*"])


def test_a_schema_error_is_a_clear_failure_naming_file_line_and_column(pytester):
    rules = copy_rules(pytester.path / "rules_data")
    line = edit(rules / "movement.yaml", "status: rule", "status: maybe",
                after="id: movement.spotting")
    col = (rules / "movement.yaml").read_text().split("\n")[line - 1].index("maybe") + 1
    # A YAML syntax error: a list opened on a line of its own and never closed.
    bad = edit(rules / "glossary.yaml", "\n", "\n  - [unclosed\n") + 1

    result = run(pytester, "rules_data")

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        f"rules_data/movement.yaml:{line}:{col}: error: 'maybe' is not allowed as 'status'*",
    ])
    result.stdout.fnmatch_lines([f"rules_data/glossary.yaml:{bad}:5: error: YAML: the list "
                                 "opened with '[' here is not closed*"])
    result.stdout.fnmatch_lines(["FAILED rules_data/glossary.yaml::load*",
                                 "FAILED rules_data/movement.yaml::load*"])
    # The other files' examples still run; a failure in the wake of the broken files
    # (a scenario that needs the clause left out) says so.
    result.stdout.fnmatch_lines(["rules_data/spotting.yaml .....*"])
    result.stdout.fnmatch_lines(["rules_data/scenarios/rev-concealed-movement.yaml:*",
                                 "*(note: the rules folder has 2 reading or schema problem(s), "
                                 "reported by the 'load' item of glossary.yaml, movement.yaml;*"])
    assert result.parseoutcomes()["passed"] > 50


# ---------------------------------------------------------- --harmony-rules

def test_harmony_rules_runs_a_users_folder_outside_the_rootdir_instead(
        pytester, tmp_path_factory, shipped):
    pytester.makeini("[pytest]\ntestpaths = tests rules_data\n")
    pytester.mkdir("tests")
    (pytester.path / "tests" / "test_project.py").write_text("def test_project():\n"
                                                              "    assert False\n")
    # The project's own rules_data, which --harmony-rules replaces.
    pytester.mkdir("rules_data")
    (pytester.path / "rules_data" / "broken.yaml").write_text("clauses: [\n")
    mine = copy_rules(tmp_path_factory.mktemp("elsewhere") / "my_rules")
    assert pytester.path not in mine.parents
    # A parameter change in the user's rules changes the rulings of the examples:
    # they are decided by the loaded model's rulesets.
    edit(mine / "opportunity-fire.yaml", "opfire.range-fraction: 1/2, opfire.drm: 1}",
         "opfire.range-fraction: 1/2, opfire.drm: 2}")

    result = run(pytester, "--harmony-rules", str(mine), "-v")

    text = "\n".join(result.outlines)
    assert "test_project" not in text and "broken.yaml" not in text
    result.stdout.fnmatch_lines(["*my_rules/spotting.yaml::spotting.rule PASSED*"])
    result.stdout.fnmatch_lines(["*my_rules/opportunity-fire.yaml::opportunity-fire.rule FAILED*"])
    result.stdout.fnmatch_lines([f"{mine}/opportunity-fire.yaml:*:7: example of clause "
                                 "opportunity-fire.rule failed"])
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] + outcomes["failed"] == len(expected_items(shipped))


def test_harmony_rules_one_file_runs_it_against_its_folder(pytester):
    copy_rules(pytester.path / "rules_data")
    result = run(pytester, "--harmony-rules", "rules_data/spotting.yaml", "-v")
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["*spotting.yaml::spotting.limitation PASSED*"])


def test_harmony_rules_that_do_not_exist_are_a_usage_error(pytester):
    result = run(pytester, "--harmony-rules", "nowhere")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--harmony-rules: no such file or folder: nowhere*"])


# ------------------------------------------------ a harmony folder of any name (issue 27)

def plain_pytest(cwd: Path, *args: str) -> tuple[int, str]:
    """``python -m pytest ARGS`` as a user types it in ``cwd``: no option of ours, no ini."""
    import os
    import subprocess
    import sys
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-v", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=300, env=env)
    return done.returncode, done.stdout + done.stderr


@pytest.fixture
def started(tmp_path) -> Path:
    """A harmony made by ``harmony init``, in a folder that is not called rules_data."""
    from harmony.init import create
    create(tmp_path / "myrules")
    return tmp_path / "myrules"


STARTER_ITEMS = ["myrules/spotting.yaml::spotting.spotters PASSED",
                 "myrules/scenarios/dispersed-spotter.yaml::dispersed-spotter[HA] PASSED",
                 "myrules/scenarios/dispersed-spotter.yaml::dispersed-spotter[HB] PASSED"]


def test_plain_pytest_collects_a_harmony_folder_given_as_a_path(started):
    code, out = plain_pytest(started.parent, "myrules")
    assert code == 0, out
    assert [line for line in STARTER_ITEMS if line not in out] == [], out
    assert "3 passed" in out


def test_plain_pytest_in_a_harmony_folder_collects_it(started):
    code, out = plain_pytest(started)
    assert code == 0, out
    assert "3 passed" in out
    assert "spotting.yaml::spotting.spotters PASSED" in out
    assert "scenarios/dispersed-spotter.yaml::dispersed-spotter[HB] PASSED" in out


def test_plain_pytest_runs_one_file_of_a_harmony_against_its_folder(started):
    code, out = plain_pytest(started.parent, "myrules/scenarios/dispersed-spotter.yaml")
    assert code == 0, out
    assert "2 passed" in out and "spotting.spotters" not in out


def test_plain_pytest_of_a_harmony_fails_where_its_rulings_do(started):
    edit(started / "spotting.yaml", "spot.dispersed-may-spot: true", "spot.dispersed-may-spot: false")
    code, out = plain_pytest(started.parent, "myrules")
    assert code == 1, out
    assert "myrules/scenarios/dispersed-spotter.yaml::dispersed-spotter[HB] FAILED" in out


def test_a_folder_without_sources_is_not_collected(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "clauses.yaml").write_text("clauses: [\n", "utf-8")
    code, out = plain_pytest(tmp_path, "notes")
    assert code == pytest.ExitCode.NO_TESTS_COLLECTED, out


def test_rules_data_named_in_testpaths_and_on_the_command_line_is_collected_once(
        pytester, shipped):
    pytester.makeini("[pytest]\ntestpaths = tests rules_data\n")
    copy_rules(pytester.path / "rules_data")
    result = run(pytester, "--collect-only", "-q", "rules_data")
    items = [line for line in result.outlines if "::" in line]
    assert sorted(items) == sorted(expected_items(shipped))
    result = run(pytester, "--collect-only", "-q")
    assert sorted(line for line in result.outlines if "::" in line) == sorted(expected_items(shipped))

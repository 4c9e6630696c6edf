"""``harmony accept``: changed rulings are accepted in bulk, and only they change.

A copy of rules_data has one parameter changed (REV no longer needs the firer in the
spotter's line of sight), so that rulings of three scenarios change; the test files also
carry comments and a line that is not in ``harmony fmt``'s layout, which must survive.
"""
from __future__ import annotations

import difflib
import re
import shutil
from pathlib import Path

import pytest

from harmony.cli import main
from harmony.loader import load
from harmony.game import run_scenario

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules_data"
CHANGED = ("rev-figure-1.yaml", "rev-figure-2.yaml", "rev-opportunity-spotted.yaml")


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text("utf-8")
    assert text.count(old) >= count, old
    path.write_text(text.replace(old, new, count), "utf-8")


@pytest.fixture
def changed(tmp_path) -> Path:
    """rules_data with REV's spot.firer-in-los off, comments and an odd layout added."""
    rules = tmp_path / "rules_data"
    shutil.copytree(RULES, rules)
    lines = (rules / "spotting.yaml").read_text("utf-8").split("\n")
    rev = next(i for i, line in enumerate(lines)
               if line.strip() == "params: {spot.adjacent: true, spot.firer-in-los: true}"
               and i > 130)
    lines[rev] = lines[rev].replace("spot.firer-in-los: true", "spot.firer-in-los: false")
    (rules / "spotting.yaml").write_text("\n".join(lines), "utf-8")
    sc = rules / "scenarios" / "rev-opportunity-spotted.yaml"
    edit(sc, "            REV: {value: true, because: [markers.opportunity-spotted",
         "            # the revision: the marker keeps it spotted\n"
         "            REV: {value: true, because: [markers.opportunity-spotted")
    edit(sc, "REV: {value: [], because: [markers.turn-end]}",
         "REV: {value: [], because: [markers.turn-end]}  # gone at turn end")
    edit(sc, "  title: ", "  # the scenario's own words\n  title:    ")   # not fmt's layout
    return rules


def snapshot(folder: Path) -> dict[str, tuple[str, int, int]]:
    return {p.relative_to(folder).as_posix(): (p.read_text("utf-8"), p.stat().st_ino,
                                                p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*.yaml"))}


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    old, new = [], []
    for line in difflib.unified_diff(before.split("\n"), after.split("\n"), lineterm="", n=0):
        if line.startswith(("---", "+++", "@@")):
            continue
        (old if line.startswith("-") else new).append(line[1:])
    return old, new


def rulings_lines(lines: list[str]) -> str:
    """The ruling entries of ``lines`` (a flow mapping may run over several lines), joined."""
    return " ".join(" ".join(lines).split())


def test_accept_rewrites_only_the_changed_rulings_and_keeps_comments(changed, capsys):
    before = snapshot(changed)
    assert main(["accept", str(changed)]) == 0
    out = capsys.readouterr().out
    after = snapshot(changed)
    touched = sorted(k for k in before if before[k][0] != after[k][0])
    assert touched == [f"scenarios/{name}" for name in CHANGED]
    for key in before:
        if key not in touched:           # never written: same inode, same time
            assert before[key] == after[key], key
    for key in touched:
        old, new = changed_lines(before[key][0], after[key][0])
        # every line that changed belongs to a REV ruling: the entries start 'REV: {value:'
        # and run on over continuation lines of its flow mapping
        assert all(line.lstrip().startswith("REV: {value:") or line.startswith(" " * 20)
                   for line in old + new), (old, new)
        assert len(re.findall(r"REV: \{value:", rulings_lines(new))) == \
            len(re.findall(r"REV: \{value:", rulings_lines(old)))
    text = after["scenarios/rev-opportunity-spotted.yaml"][0]
    assert "            # the revision: the marker keeps it spotted\n" in text
    assert "# gone at turn end" in text
    assert "  # the scenario's own words\n  title:    " in text   # the odd layout is kept
    assert "REV: {value: false, because: [spotting.spotted]}" in text
    # said in words: scenario, step (from 1), ruleset, question, old -> new
    assert ("~ rev-figure-2 step 12, REV: May the German mortar now fire on the machine gun?\n"
            "    true -> false  because spotting.limitation, spotting.recording, "
            "spotting.spotted -> spotting.spotted\n") in out
    assert out.endswith("accepted 10 ruling(s) in 3 file(s)\n")
    # check passes, and every scenario now plays as it expects
    assert main(["check", str(changed)]) == 0
    capsys.readouterr()
    model, _ = load(changed)
    assert [s for s in sorted(model.scenarios) if not run_scenario(model, s).ok] == []
    # a second run changes nothing and writes nothing
    assert main(["accept", str(changed)]) == 0
    assert capsys.readouterr().out.startswith("nothing to accept")
    assert snapshot(changed) == after


def test_dry_run_says_the_changes_and_writes_nothing(changed, capsys):
    before = snapshot(changed)
    assert main(["accept", str(changed), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n~ ") + out.startswith("~ ") == 10
    assert out.endswith("would accept 10 ruling(s) in 3 file(s) (--dry-run: nothing written)\n")
    assert snapshot(changed) == before


def test_only_the_scenarios_named(changed, capsys):
    before = snapshot(changed)
    assert main(["accept", str(changed), "--scenario", "rev-figure-1"]) == 0
    assert capsys.readouterr().out.endswith("accepted 1 ruling(s) in 1 file(s)\n")
    after = snapshot(changed)
    assert [k for k in before if before[k] != after[k]] == ["scenarios/rev-figure-1.yaml"]
    assert main(["accept", str(changed), "--scenario", "no-such"]) == 2
    assert "unknown scenario no-such" in capsys.readouterr().err
    assert main(["accept", str(changed), "--dry-run", "--scenario", "rev-figure-1,pb-truck-spotting",
                 "--scenario", "aiw-moving-in-woods"]) == 0     # accepted or unchanged
    assert capsys.readouterr().out == "nothing to accept: the 3 scenario(s) play as they expect\n"
    one = changed / "scenarios" / "rev-opportunity-spotted.yaml"      # one file of the folder
    assert main(["accept", str(one)]) == 0
    assert capsys.readouterr().out.endswith("accepted 4 ruling(s) in 1 file(s)\n")
    again = snapshot(changed)
    assert [k for k in after if after[k] != again[k]] == ["scenarios/rev-opportunity-spotted.yaml"]


def test_a_folder_with_errors_is_refused_and_left_alone(changed, capsys):
    edit(changed / "spotting.yaml", "topic: spotting", "topic: spoting")
    before = snapshot(changed)
    assert main(["accept", str(changed)]) == 1
    err = capsys.readouterr().err
    assert "unresolved-topic" in err and "has errors; fix them first (harmony check)" in err
    assert snapshot(changed) == before


def test_a_file_whose_rulings_are_not_in_a_layout_it_can_match_is_left_alone(changed, capsys):
    sc = changed / "scenarios" / "rev-figure-1.yaml"
    text = sc.read_text("utf-8")
    i = text.index("REV: {value: [opportunity-spotted], because: [spotting.limitation,")
    # the same ruling, as a block mapping in an unusual indentation ruamel writes otherwise
    end = text.index("]}", i) + 2
    sc.write_text(text[:i] + "REV:\n                 value: [opportunity-spotted]\n"
                  "                 because: [spotting.limitation, spotting.recording, "
                  "spotting.spotted]" + text[end:], "utf-8")
    assert main(["check", str(changed)]) == 0
    capsys.readouterr()
    before = sc.read_bytes()
    assert main(["accept", str(changed)]) == 1
    captured = capsys.readouterr()
    assert f"{sc}: not changed: its layout is not the one harmony fmt writes" in captured.err
    assert sc.read_bytes() == before
    assert "accepted 9 ruling(s) in 2 file(s)" in captured.out   # the other files were done


def test_diff_pytest_and_accept_number_a_step_alike(changed, capsys):
    """Step 12 of rev-figure-2 is step 12 in diff, in pytest's failure and in accept."""
    assert main(["diff", str(RULES), str(changed)]) == 0
    said = capsys.readouterr().out
    question = "May the German mortar now fire on the machine gun?"
    assert f"~ rev-figure-2 step 12, REV: {question}\n" in said
    model, _ = load(changed)
    [row] = [r for r in run_scenario(model, "rev-figure-2").rulings
             if r.ruleset == "REV" and r.question == question]
    assert f": step 12, REV: {question}" in row.explain().split("\n")[0]
    assert main(["accept", str(changed), "--dry-run"]) == 0
    assert f"~ rev-figure-2 step 12, REV: {question}\n" in capsys.readouterr().out


def test_a_ruling_written_as_a_block_mapping_keeps_its_note_and_comment(changed, capsys):
    sc = changed / "scenarios" / "rev-figure-1.yaml"
    text = sc.read_text("utf-8")
    i = text.index("REV: {value: [opportunity-spotted], because: [spotting.limitation,")
    end = text.index("]}", i) + 2
    pad = " " * 14
    sc.write_text(text[:i] + f"REV:\n{pad}value: [opportunity-spotted]\n{pad}because: "
                  f"[spotting.limitation, spotting.recording, spotting.spotted]\n{pad}note: The "
                  "battery keeps its marker.  # why" + text[end:], "utf-8")
    before = sc.read_text("utf-8")
    assert main(["accept", str(changed), "--scenario", "rev-figure-1"]) == 0
    capsys.readouterr()
    old, new = changed_lines(before, sc.read_text("utf-8"))
    assert old == [f"{pad}value: [opportunity-spotted]",
                   f"{pad}because: [spotting.limitation, spotting.recording, spotting.spotted]"]
    assert new == [f"{pad}value: []", f"{pad}because: []"]
    assert f"{pad}note: The battery keeps its marker.  # why\n" in sc.read_text("utf-8")

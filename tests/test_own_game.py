"""A harmony of a game that is not a hex wargame (the dice starter, ``harmony init
--starter dice``): its own game module decides its examples and its scenario under both
editions, its site shows the outcome matrix and its own figures, and a mistake in its
scenario is reported at its position."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harmony.init import create, starter_files
from harmony.resources import starter
from harmony.site.build import build_site

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    env.pop("HARMONY_DEBUG", None)
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def dice(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("own-game")
    res = run("harmony", "init", "dice", "--starter", "dice", cwd=work)
    assert res.returncode == 0, res.stderr
    assert "created dice (9 files" in res.stdout
    return work / "dice"


def test_init_copies_the_dice_starter_with_its_game_module(dice):
    made = sorted(p.relative_to(dice).as_posix() for p in dice.rglob("*") if p.is_file())
    assert made == [p.as_posix() for p in starter_files("dice")]
    assert "tumble.py" in made and ".gitignore" in made
    assert (dice / "tumble.py").read_bytes() == (starter("dice") / "tumble.py").read_bytes()
    assert "build/" in (dice / ".gitignore").read_text("utf-8").splitlines()


def test_the_dice_harmony_checks_clean_with_every_cell_exercised(dice):
    res = run("harmony", "check", "--coverage", cwd=dice)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "0 errors, 0 warnings in 6 files" in res.stdout
    assert "0 cell(s) not exercised" in res.stdout
    assert "by scenario three-throws (TA): What does the throw score?" in res.stdout
    res = run("harmony", "fmt", "--check", cwd=dice)
    assert res.returncode == 0 and "0 of 6 files need formatting" in res.stdout


def test_pytest_plays_its_examples_and_its_scenario_and_fails_a_wrong_ruling(dice, tmp_path):
    res = run("pytest", "-q", "-p", "no:cacheprovider", ".", cwd=dice)
    assert res.returncode == 0, res.stdout
    assert re.search(r"\b6 passed\b", res.stdout), res.stdout
    wrong = tmp_path / "wrong"
    create(wrong, "dice")
    sc = wrong / "scenarios" / "three-throws.yaml"
    sc.write_text(sc.read_text("utf-8").replace("TB: {value: 30, because: [scoring.triple]}",
                                                "TB: {value: 45, because: [scoring.triple]}"), "utf-8")
    res = run("pytest", "-q", "-p", "no:cacheprovider", ".", cwd=wrong)
    assert res.returncode == 1, res.stdout
    assert "step 2, TB: What does the throw score?" in res.stdout
    assert "expected value 45, the engine says 30" in res.stdout


def test_a_mistake_in_its_scenario_is_reported_at_its_position(tmp_path):
    create(tmp_path / "d", "dice")
    sc = tmp_path / "d" / "scenarios" / "three-throws.yaml"
    text = sc.read_text("utf-8")
    text = text.replace("throw: [5, 5, 5]", "throw: [5, 5, 7]")
    text = text.replace("          ask: {score: total}", "          ask: {points: total}")
    text = text.replace("    - note: Two ones and a three.\n",
                        "    - note: Two ones and a three.\n      shake: twice\n")
    sc.write_text(text, "utf-8")
    res = run("harmony", "check", "d", cwd=tmp_path)
    assert res.returncode == 1
    lines = text.splitlines()
    at = {key: next(i + 1 for i, line in enumerate(lines) if key in line)
          for key in ("shake:", "[5, 5, 7]", "  ask: {points:")}
    out = res.stderr
    assert f"d/scenarios/three-throws.yaml:{at['shake:']}:7: error: scenario three-throws: unknown key " \
           "'shake' in step 1" in out, out
    assert f"d/scenarios/three-throws.yaml:{at['[5, 5, 7]']}:14: error: scenario three-throws: step 2: " \
           "a throw is three dice" in out, out
    assert f":{at['  ask: {points:']}:17: error: scenario three-throws: unknown key 'points' in 'ask'" in out, out


def test_its_site_shows_the_outcome_matrix_and_its_own_figures(dice, tmp_path):
    res = build_site(dice, tmp_path / "site")
    page = (tmp_path / "site" / "examples" / "three-throws.html").read_text("utf-8")
    matrix = page[page.index('class="hm-outcomes'):]
    # every ruling of both editions, each naming its clauses, none a mismatch
    for value in ("0", "10", "45", "30", "15", "55"):
        assert f"<strong>{value}</strong>" in matrix, value
    assert "hm-mismatch" not in matrix
    figures = page[page.index("<article"):page.index("</article>")]   # not the theme's icons
    assert figures.count("<circle") == 5 + 15 + 10       # the pips of 1 1 3, 5 5 5, 2 6 2
    assert "Each figure shows the three dice a step throws." in page
    assert "Each counter shows" not in page              # the hex game's legend is not its
    assert not (tmp_path / "site" / "explorer.html").exists()
    assert not (tmp_path / "site" / "_explorer").exists()
    assert "offers no ruling explorer" in res.explorer
    assert (tmp_path / "site" / "print" / "harmony-cards.pdf").read_bytes().startswith(b"%PDF")


def test_diff_finds_a_harmony_at_the_top_of_its_repository(tmp_path):
    repo = tmp_path / "repo"
    create(repo, "dice")
    git = ["git", "-c", "user.email=t@example.org", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(git + ["add", "-A"], cwd=repo, check=True)
    subprocess.run(git + ["commit", "-qm", "one"], cwd=repo, check=True)
    params = repo / "scoring.yaml"
    params.write_text(params.read_text("utf-8").replace("params: {score.pair-bonus: 5}",
                                                        "params: {score.pair-bonus: 4}"), "utf-8")
    subprocess.run(git + ["commit", "-qam", "two"], cwd=repo, check=True)
    res = run("harmony", "diff", "HEAD~1", "HEAD", cwd=repo)
    assert res.returncode == 0, res.stderr
    assert "score.pair-bonus" in res.stdout
    assert re.search(r"rulings: [1-9]\d* changed", res.stdout), res.stdout


def test_build_and_cards_run_in_the_harmony_s_folder_write_its_ignored_build_folder(tmp_path):
    """A harmony at the top of its repository, the commands run in it with no path: they
    write to ./build (the rules folder's one folder harmony may write into, which the
    starter's .gitignore keeps out of git), and any other folder inside it stays refused."""
    repo = tmp_path / "repo"
    create(repo, "dice")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    res = run("harmony", "build", cwd=repo)
    assert res.returncode == 0, res.stderr
    assert (repo / "build" / "site" / "index.html").is_file()
    res = run("harmony", "cards", cwd=repo)
    assert res.returncode == 0, res.stderr
    assert (repo / "build" / "cards.pdf").read_bytes().startswith(b"%PDF")
    status = subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=repo, check=True,
                            capture_output=True, text=True).stdout.splitlines()
    assert "!! build/" in status and not [s for s in status if s.startswith("??") and "build" in s]
    res = run("harmony", "build", "--out", "site", cwd=repo)
    assert res.returncode == 2 and "it is inside the rules folder" in res.stderr, res.stderr

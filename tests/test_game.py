"""The game interface (harmony/game.py): how a harmony finds its game, what its examples
see, and how the coverage report credits the rulings an example makes by hand."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from harmony import game
from harmony.check import check_path
from harmony.coverage import coverage_of
from harmony.loader import load

ROOT = Path(__file__).resolve().parent.parent

SOURCES = """\
{game}sources:
  - key: ED1
    title: Dice, first edition
    author: Nobody
    kind: canonical
  - key: ED2
    title: Dice, second edition
    author: Nobody
    kind: canonical
"""
RULES = """\
topics:
  - id: score
    title: Scoring
    summary: How a roll scores.
    order: 1
    sources: [ED1, ED2]
    aspects:
      - {id: pair, title: Pairs, summary: A pair's bonus.}
parameters:
  - name: score.pair-bonus
    type: int
    description: Points added when two dice match.
    default: 0
clauses:
  - id: score.pair
    topic: score
    aspect: pair
    title: A pair scores a bonus
    cells:
      ED1:
        status: rule
        text: A pair scores {{ score.pair-bonus }} more.
        cite: {source: ED1, section: Scoring}
        params: {score.pair-bonus: 2}
      ED2:
        status: rule
        text: A pair scores {{ score.pair-bonus }} more.
        cite: {source: ED2, section: Scoring}
        params: {score.pair-bonus: 5}
    examples: |
      The second edition's pair bonus.

%s
"""
DICE = """\
from harmony.game import Game
from harmony.rulings import Why


def score(rules, dice):
    why = Why(rules)
    bonus = why.p("score.pair-bonus") if len(set(dice)) < len(dice) else 0
    return why.ruling(sum(dice) + bonus)


GAME = Game(name="dice", namespace=lambda model: {"score": score})
"""


def harmony(tmp_path: Path, example: str, game_line: str = "game: dice\n",
            module: str | None = DICE) -> Path:
    folder = tmp_path / "rules"
    folder.mkdir(parents=True)
    (folder / "sources.yaml").write_text(SOURCES.format(game=game_line), encoding="utf-8")
    (folder / "score.yaml").write_text(RULES % textwrap.indent(example, " " * 6), encoding="utf-8")
    if module is not None:
        (folder / "dice.py").write_text(module, encoding="utf-8")
    return folder


def test_a_harmony_finds_its_own_game_in_its_folder(tmp_path):
    folder = harmony(tmp_path, ">>> score(rules('ED2'), [3, 3])\nRuling(value=11, reasons=['score.pair'])\n")
    model, report = load(folder)
    assert not report.errors
    assert model.game == "dice" and game.game_for(model, "ED2").name == "dice"
    ns = game.example_namespace(model, model.clauses["score.pair"])
    assert {"score", "Ruling", "Ruleset", "Why", "rules", "model"} <= set(ns)
    assert "board" not in ns            # the hex wargame's names are not this game's
    ruling = ns["score"](ns["rules"]("ED2"), [3, 3])
    assert (ruling.value, ruling.reasons) == (11, ["score.pair"])
    assert [str(d) for d in check_path(folder)[1].errors] == []


def test_a_game_that_cannot_be_found_is_an_error_at_its_line(tmp_path):
    folder = harmony(tmp_path, ">>> 1\n1\n", game_line="# the game\ngame: nosuch\n", module=None)
    errors = [d for d in check_path(folder)[1].errors if d.code == "unknown-game"]
    assert len(errors) == 1
    assert errors[0].pos.line == 2 and errors[0].pos.path.endswith("sources.yaml")
    assert "no game 'nosuch'" in errors[0].message


def test_a_source_may_name_a_game_of_its_own(tmp_path):
    model, _ = load(ROOT / "rules_data")
    assert game.game_for(model, "CP").name == "combat-patrol"
    assert game.game_for(model, "REV+concealed-movement").name == "panzerblitz"
    cp = model.clauses["cp-body-armour.penetration"]
    assert "CombatPatrol" in game.example_namespace(model, cp)
    assert "board" in game.example_namespace(model, model.clauses["spotting.spotted"])


def test_a_hand_made_ruling_credits_the_cells_of_the_rulesets_the_example_asked_for(tmp_path):
    folder = harmony(tmp_path, ">>> r = rules('ED2')\n>>> Ruling(8, ['score.pair'])\n"
                               "Ruling(value=8, reasons=['score.pair'])\n")
    states = {row.id: row.exercised for rows in coverage_of(load(folder)[0]).sources.values()
              for row in rows}
    assert states == {"score.pair@ED1": False, "score.pair@ED2": True}


def test_a_hand_made_ruling_with_no_ruleset_credits_every_cell_of_its_clause(tmp_path):
    folder = harmony(tmp_path, ">>> Ruling(8, ['score.pair'])\nRuling(value=8, reasons=['score.pair'])\n")
    states = {row.id: row.exercised for rows in coverage_of(load(folder)[0]).sources.values()
              for row in rows}
    assert states == {"score.pair@ED1": True, "score.pair@ED2": True}


def test_a_ruling_read_through_why_credits_the_cell_that_set_it(tmp_path):
    folder = harmony(tmp_path, ">>> score(rules('ED1'), [2, 2]).value\n6\n")
    states = {row.id: row.exercised for rows in coverage_of(load(folder)[0]).sources.values()
              for row in rows}
    assert states == {"score.pair@ED1": True, "score.pair@ED2": False}


def test_no_game_is_imported_until_a_harmony_asks_for_it():
    code = ("import sys, harmony.game, harmony.check, harmony.site.generate, harmony.cards\n"
            "print(sorted(m for m in sys.modules if m.startswith('harmony.games')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_a_ruleset_needs_a_value_only_for_the_parameters_its_game_reads(tmp_path):
    unread = ("  - name: spot.adjacent\n    type: bool\n"
              "    description: Another game's parameter, with no default.\n")
    says = DICE.replace('namespace=lambda model: {"score": score})',
                        'namespace=lambda model: {"score": score},\n'
                        '            parameters=("score.pair-bonus",))')
    for module, unset in ((DICE, ["ED1, ED2"]), (says, [])):
        folder = harmony(tmp_path / str(len(unset)), ">>> 1\n1\n", module=module)
        (folder / "more.yaml").write_text("parameters:\n" + unread, encoding="utf-8")
        errors = [d.message for d in check_path(folder)[1].errors if d.code == "parameter-unset"]
        assert [m.split(" has no value in ")[1].split(":")[0] for m in errors] == unset


def test_an_untrusted_folder_loads_no_game_of_its_own(tmp_path):
    from harmony.trust import Trust
    folder = harmony(tmp_path, ">>> 1\n1\n", module=DICE + "\nraise SystemExit('ran')\n")
    model, report = check_path(folder, trust=Trust(False, "--untrusted"))
    assert [(d.code, d.severity) for d in report.diagnostics] == [("untrusted-game", "warning")]
    assert "--untrusted" in report.diagnostics[0].message
    out = subprocess.run([sys.executable, "-m", "harmony", "check", "--untrusted", str(folder)],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0 and "ran" not in out.stdout + out.stderr
    assert "untrusted-game" in out.stderr + out.stdout


def test_a_scenario_is_played_by_the_first_of_its_games_that_plays():
    from harmony.diagnostics import Report
    from harmony.model import Scenario
    model, _ = load(ROOT / "rules_data")
    sc = Scenario(id="s", data={"rulesets": ["CP", "PB"], "steps": []})
    report = Report()
    calculator = game.Game(name="calculator", namespace=lambda m: {})   # plays no scenario
    model.__dict__.setdefault("_games", {})["calculator"] = calculator
    model.sources["CP"].game = "calculator"
    game.check_envelope(model, sc, report)      # a game that plays no scenario: no warning
    assert report.diagnostics == [] and game.scenario_game(model, sc).name == "panzerblitz"
    other = game.Game(name="other", namespace=lambda m: {}, play=lambda m, sid, rs: None)
    model.__dict__["_games"]["other"] = other
    model.sources["CP"].game = "other"
    game.check_envelope(model, sc, report)
    assert [(d.severity, d.code) for d in report.diagnostics] == [("warning", "scenario-game")]
    assert "the first, other, plays them all" in report.diagnostics[0].message
    assert game.scenario_game(model, sc) is other


def test_the_code_fingerprint_of_remembered_results_covers_the_builtin_games(monkeypatch):
    from harmony import parsecache
    read: list[str] = []
    real = Path.read_bytes

    def reading(self):
        read.append(self.as_posix())
        return real(self)
    monkeypatch.setattr(parsecache, "_CODE", [])
    monkeypatch.setattr(Path, "read_bytes", reading)
    parsecache.code_fingerprint()
    assert any(p.endswith("harmony/games/panzerblitz/engine.py") for p in read)
    assert any(p.endswith("harmony/games/combatpatrol/calculator.py") for p in read)

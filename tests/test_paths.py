"""The paths users give: one usage error, in one wording, for every command; a single
file checked within its folder; each problem once; names of unreadable glossary items
still known; a site built from rules without any card.

Every command runs as the user runs it (``python3 -m harmony ...`` in a subprocess).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules_data"
CARDS = ROOT / "tests" / "fixtures" / "cards" / "rules_data"
LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning): "
                  r"(?P<msg>.+) \[(?P<code>[a-z0-9-]+)\]$")

MINI = {
    "sources.yaml": """\
sources:
  - {key: PB, title: PanzerBlitz, author: James F. Dunnigan, year: 1970, kind: canonical}
""",
    "topics.yaml": """\
topics:
  - id: spotting
    title: Spotting
    summary: Who may be fired on.
    order: 1
    sources: [PB]
    aspects:
      - {id: concealing, title: Concealing terrain}
""",
    "glossary.yaml": """\
glossary:
  - term: concealing terrain
    aliases: [cover, concealing hex]
    definition: Woods and town hexes.
  - term: spotted
    aliases:
      - spot
      - spotter
    definition: Known well enough to be fired on.
""",
    "spotting.yaml": """\
clauses:
  - id: spotting.concealing
    topic: spotting
    aspect: concealing
    title: Concealing terrain
    cells:
      PB:
        status: rule
        text: A unit in [[cover]] may be fired on only when a [[spotter]] is adjacent.
        cite: {source: PB, section: Spotting}
""",
}


def mini(folder: Path, **changed: str | None) -> Path:
    """A small valid rules folder without any card; ``changed`` replaces (or, with None,
    drops) files by name (``glossary_yaml=...``)."""
    folder.mkdir(parents=True, exist_ok=True)
    files = dict(MINI)
    for name, text in changed.items():
        files[name.replace("_yaml", ".yaml")] = text
    for name, text in files.items():
        if text is not None:
            (folder / name).write_text(text, encoding="utf-8")
    return folder


def harmony(*args, cwd: Path = ROOT, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harmony", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


# ------------------------------------------------------------------ usage errors

@pytest.fixture(scope="module")
def bad(tmp_path_factory) -> dict[str, Path]:
    """One path of each kind a command must refuse."""
    base = tmp_path_factory.mktemp("bad")
    (base / "empty").mkdir()
    (base / "no-yaml").mkdir()
    (base / "no-yaml" / "notes.txt").write_text("sources:\n  - key: PB\n", encoding="utf-8")
    (base / "notes.txt").write_text("sources:\n  - key: PB\n", encoding="utf-8")
    no_sources = mini(base / "no-sources", sources_yaml=None, topics_yaml=None,
                      spotting_yaml=None)
    (base / "alone").mkdir()
    alone = base / "alone" / "glossary.yaml"
    alone.write_text(MINI["glossary.yaml"], encoding="utf-8")
    return {"missing": base / "missing", "device": Path("/dev/null"), "empty": base / "empty",
            "no-yaml": base / "no-yaml", "text-file": base / "notes.txt",
            "no-sources": no_sources, "alone": alone}


def message(kind: str, p: Path, command: str) -> str:
    """The one line every command gives for a bad path of this kind."""
    if command in ("build", "serve", "rulebook") and kind in ("text-file", "alone"):
        return f"{p} is not a folder: give a rules_data folder"
    return {
        "missing": f"no such file or folder: {p}",
        "device": f"{p} is neither a file nor a folder",
        "empty": f"no YAML files (.yaml, .yml) in {p}: is this the rules_data folder?",
        "no-yaml": f"no YAML files (.yaml, .yml) in {p}: is this the rules_data folder?",
        "text-file": f"{p} is not a YAML file (.yaml, .yml): give a rules_data folder or one of "
                     "its YAML files",
        "no-sources": f"no sources defined in {p}: rules name their sources (sources: in one of "
                      "the folder's files); is this the rules_data folder?",
        "alone": f"no sources defined in {p}: rules name their sources (sources: in one of "
                 "the folder's files); is this the rules_data folder?",
    }[kind]


KINDS = ("missing", "device", "empty", "no-yaml", "text-file", "no-sources", "alone")
COMMANDS = {
    "check": lambda p, out: ["check", p],
    "check-json": lambda p, out: ["check", "--format", "json", p],
    "fmt": lambda p, out: ["fmt", p],
    "fmt-check": lambda p, out: ["fmt", "--check", p],
    "build": lambda p, out: ["build", p, "--out", out / "site"],
    "serve": lambda p, out: ["serve", p, "--out", out / "site", "--port", "0"],
    "cards": lambda p, out: ["cards", p, "--out", out / "cards.pdf"],
    "rulebook": lambda p, out: ["rulebook", "REV", p, "--out", out / "rev.pdf"],
    "diff-old": lambda p, out: ["diff", p, RULES],
    "diff-new": lambda p, out: ["diff", RULES, p, "--no-rulings"],
}
# a diff side that is no path at all is read as a git revision (its errors: test_diff.py)
CASES = [(name, kind) for name in sorted(COMMANDS) for kind in KINDS
         if not (name.startswith("diff") and kind == "missing")]


@pytest.fixture(scope="module")
def usage_runs(bad, tmp_path_factory) -> dict:
    """Every command on every bad path, a few subprocesses at a time."""
    out = tmp_path_factory.mktemp("out")
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        jobs = {case: pool.submit(harmony, *COMMANDS[case[0]](bad[case[1]], out / "-".join(case)))
                for case in CASES}
        return {case: job.result() for case, job in jobs.items()} | {"out": out}


@pytest.mark.parametrize("name,kind", CASES)
def test_a_bad_path_is_one_usage_error_in_one_wording(bad, usage_runs, name, kind):
    command = name.split("-")[0]
    p = bad[kind]
    run = usage_runs[(name, kind)]
    assert (run.returncode, run.stdout, run.stderr) == \
        (2, "", f"harmony {command}: error: {message(kind, p, command)}\n")
    assert not (usage_runs["out"] / f"{name}-{kind}").exists()   # nothing written


def test_a_broken_sources_file_shows_its_errors_not_a_usage_error(tmp_path):
    """No false "no sources": the file that should define them cannot be read, so its own
    positioned error is what the user needs to see."""
    rules = mini(tmp_path / "r", sources_yaml="sources:\n  - key: PB\n    title: Panzer: Blitz\n")
    run = harmony("check", rules)
    assert run.returncode == 1, run.stderr
    first = LINE.match(run.stderr.splitlines()[0])
    assert first and first["path"].endswith("sources.yaml") and first["line"] == "3", run.stderr
    assert first["code"] == "yaml-syntax" and "no sources defined" not in run.stderr
    # sources indented as a whole: no 'sources:' at a line start, yet valid, so not refused
    shifted = "".join("  " + line for line in MINI["sources.yaml"].splitlines(True))
    run = harmony("check", mini(tmp_path / "s", sources_yaml=shifted))
    assert (run.returncode, run.stdout) == (0, "0 errors, 0 warnings in 4 files\n"), run.stderr
    utf16 = mini(tmp_path / "u", sources_yaml=None)
    (utf16 / "sources.yaml").write_bytes(MINI["sources.yaml"].encode("utf-16"))
    run = harmony("build", utf16, "--out", tmp_path / "site")
    assert run.returncode == 1 and "sources.yaml:1:1: error: file is saved as UTF-16" \
        in run.stderr, run.stderr


# ------------------------------------------------------------------ one file in its folder

def test_a_file_clean_in_its_folder_is_clean_alone():
    for path in ("rules_data/spotting.yaml", "rules_data/scenarios/rev-figure-1.yaml",
                 "rules_data/glossary.yaml"):
        run = harmony("check", path)
        assert (run.returncode, run.stderr) == (0, ""), run.stderr
        assert run.stdout == "0 errors, 0 warnings in 1 file\n"


def test_a_file_in_its_folder_reports_its_own_problems_with_positions(tmp_path, rules_copy):
    rules = rules_copy
    spotting = (rules / "spotting.yaml").read_text("utf-8")
    at = spotting.index("cite: {source: PB,")
    line = spotting.count("\n", 0, at) + 1
    col = at - spotting.rfind("\n", 0, at) + len("cite: {source: ")
    (rules / "spotting.yaml").write_text(
        spotting[:at] + spotting[at:].replace("source: PB,", "source: PBX,", 1), "utf-8")
    movement = (rules / "movement.yaml").read_text("utf-8")
    (rules / "movement.yaml").write_text(movement.replace("topic: movement", "topic: movment", 1),
                                         "utf-8")
    run = harmony("check", "rules_data/spotting.yaml", cwd=tmp_path)
    assert run.returncode == 1
    lines = run.stderr.splitlines()
    assert lines[0].startswith(f"rules_data/spotting.yaml:{line}:{col}: error: citation names "
                               "unknown source 'PBX': did you mean 'PB'?"), run.stderr
    assert lines[0].endswith("[unresolved-source]")
    assert lines[1] == "1 error, 0 warnings in 1 file"
    assert lines[2:] == ["note: the other files of rules_data have 1 error and 0 warnings: "
                         "harmony check rules_data lists them"]
    whole = harmony("check", "rules_data", cwd=tmp_path)
    assert [LINE.match(x)["path"] for x in whole.stderr.splitlines() if LINE.match(x)] == \
        ["rules_data/movement.yaml", "rules_data/spotting.yaml"]


def test_fmt_formats_only_the_file_named(tmp_path):
    rules = mini(tmp_path / "r",   # keys out of their order in two files
                 spotting_yaml=MINI["spotting.yaml"].replace(
                     "  - id: spotting.concealing\n    topic: spotting\n",
                     "  - topic: spotting\n    id: spotting.concealing\n"),
                 topics_yaml=MINI["topics.yaml"].replace(
                     "  - id: spotting\n    title: Spotting\n", "  - title: Spotting\n    id: spotting\n"))
    run = harmony("fmt", "--check", rules / "spotting.yaml")
    assert run.returncode == 1
    assert run.stderr == f"would reformat {rules / 'spotting.yaml'}\n"
    assert run.stdout == "1 of 1 files need formatting\n"
    assert harmony("fmt", rules / "spotting.yaml").returncode == 0
    assert harmony("fmt", "--check", rules / "spotting.yaml").returncode == 0
    assert harmony("fmt", "--check", rules).stdout == "1 of 4 files need formatting\n"
    assert "  - id: spotting.concealing\n    topic: spotting\n" in \
        (rules / "spotting.yaml").read_text("utf-8")


def test_cards_of_one_file_use_the_folders_sources(tmp_path):
    whole = harmony("cards", CARDS, "--out", tmp_path / "all.pdf")
    one = harmony("cards", CARDS / "spotting.yaml", "--out", tmp_path / "one.pdf")
    count = lambda run: int(re.search(r": (\d+) cards", run.stdout)[1])  # noqa: E731
    assert whole.returncode == 0 and one.returncode == 0, one.stderr
    from harmony.loader import load
    model, _ = load(CARDS)
    in_file = sum(1 for c in model.clauses.values() if c.file.endswith("/spotting.yaml")
                  for cell in c.cells.values() if cell.card)
    assert 0 < count(one) == in_file < count(whole)
    none = harmony("cards", CARDS / "topics.yaml", "--out", tmp_path / "none.pdf")
    assert none.returncode == 1 and f"no cell in {CARDS / 'topics.yaml'} has a card" \
        in none.stderr


# ------------------------------------------------------------------ each problem once

def test_a_missing_scenario_is_reported_once(tmp_path, rules_copy):
    rules = rules_copy
    (rules / "scenarios" / "rev-figure-1.yaml").unlink()
    run = harmony("check", "rules_data", cwd=tmp_path)
    found = [m for m in map(LINE.match, run.stderr.splitlines()) if m]
    assert found and all(m["code"] == "unresolved-scenario" for m in found), run.stderr
    places = [(m["path"], m["line"], m["col"]) for m in found]
    from harmony.loader import load
    naming = sum(c.scenarios.count("rev-figure-1") for c in load(RULES)[0].clauses.values())
    assert len(places) == len(set(places)) == naming > 1, run.stderr


# ------------------------------------------------------------------ unreadable glossary items

@pytest.mark.parametrize("broken", [
    # an item the schema refuses: left out, its term and aliases still known
    MINI["glossary.yaml"].replace("    aliases: [cover,", "    colour: green\n    aliases: [cover,"),
    MINI["glossary.yaml"].replace("      - spotter\n", "      - spotter\n    colour: green\n"),
    # a file that does not parse at all: its names are read from the text
    MINI["glossary.yaml"].replace("definition: Woods and town hexes.", "definition: Woods: town"),
], ids=["schema-flow-aliases", "schema-block-aliases", "yaml-syntax"])
def test_aliases_of_an_unreadable_glossary_item_are_still_known(tmp_path, broken):
    rules = mini(tmp_path / "r", glossary_yaml=broken)
    run = harmony("check", rules)
    found = [m for m in map(LINE.match, run.stderr.splitlines()) if m]
    assert run.returncode == 1 and len(found) == 1, run.stderr
    assert found[0]["path"].endswith("glossary.yaml") and found[0]["code"] != "unresolved-term"
    spotting = harmony("check", rules / "spotting.yaml")
    assert (spotting.returncode, spotting.stdout.splitlines()[0]) == \
        (0, "0 errors, 0 warnings in 1 file"), spotting.stdout + spotting.stderr


def test_an_undefined_term_is_still_reported(tmp_path):
    rules = mini(tmp_path / "r", spotting_yaml=MINI["spotting.yaml"].replace("[[cover]]",
                                                                              "[[covr]]"))
    run = harmony("check", rules / "spotting.yaml")
    assert run.returncode == 1
    m = LINE.match(run.stderr.splitlines()[0])
    assert (m["line"], m["col"], m["code"]) == ("9", "25", "unresolved-term"), run.stderr
    assert "did you mean 'cover'?" in m["msg"]


# ------------------------------------------------------------------ no cards

def test_build_without_any_card(tmp_path):
    rules = mini(tmp_path / "r")
    assert "card:" not in "".join(MINI.values())
    run = harmony("build", rules, "--out", tmp_path / "site", timeout=300)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "site" / "index.html").is_file()
    assert not (tmp_path / "site" / "print" / "harmony-cards.pdf").exists()
    assert "the rule cards are in" not in run.stdout

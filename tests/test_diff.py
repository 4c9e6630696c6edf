"""harmony diff: text, parameter and ruling changes between two states of rules_data."""
import json
import shutil
import subprocess
from pathlib import Path

import docutils.core
import docutils.utils
import pytest

from harmony.cli import main
from harmony.diff import changes_rst, diff_models, is_empty, rst_escape, to_text
from harmony.loader import load
from harmony.site.views import version_views
from editing import edit

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules_data"
FIXTURE = ROOT / "tests" / "fixtures" / "consistency" / "rules_data"


def copy(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest)
    return dest


def model(folder: Path):
    m, report = load(folder)
    assert report.errors == [], report.to_text()
    return m


def rst_problems(text: str) -> list[str]:
    """Render reStructuredText with docutils; the messages of every warning or error."""
    out = docutils.core.publish_parts(text, writer="html", settings_overrides={
        "report_level": 2, "halt_level": 5, "warning_stream": False})
    body = out["body"]
    return [line for line in body.splitlines() if "system-message" in line]


@pytest.fixture
def pair(tmp_path):
    old = copy(FIXTURE, tmp_path / "old")
    new = copy(FIXTURE, tmp_path / "new")
    return old, new


# ------------------------------------------------------------ text and parameters

def test_nothing_changed(pair):
    old, new = pair
    d = diff_models(model(old), model(new), rulings=False)
    assert d["clauses"] == {"added": [], "removed": [], "changed": {}}
    assert "no changes" in to_text(d)


def test_a_changed_modifier_shows_in_parameters_and_words(pair):
    old, new = pair
    edit(new, "opportunity-fire.yaml", "opfire.drm: 1,", "opfire.drm: 2,")
    edit(new, "opportunity-fire.yaml", "A spotted mover entering a hex", "A spotted mover that enters a hex")
    d = diff_models(model(old), model(new), rulings=False)
    cell = d["clauses"]["changed"]["opportunity-fire.rule"]["cells"]["REV"]
    assert cell["params"] == [{"name": "opfire.drm", "old": 1, "new": 2, "added": False,
                               "removed": False}]
    assert "mover [-entering-]{+that enters+} a hex" in cell["text"]["diff"]
    text = to_text(d)
    assert "~ opportunity-fire.rule" in text
    assert "REV param opfire.drm: 1 -> 2" in text
    assert "REV text: " in text and "{+that enters+}" in text


def test_reflowed_text_is_not_a_change(pair):
    old, new = pair
    edit(new, "spotting.yaml", "        text: As the second game, with markers.",
         "        text: As the second\n          game,   with markers.")
    assert diff_models(model(old), model(new), rulings=False)["clauses"]["changed"] == {}


def test_added_and_removed_clauses_status_and_registry(pair):
    old, new = pair
    text = (new / "spotting.yaml").read_text(encoding="utf-8")
    moving = text.index("  - id: spotting.moving")
    (new / "spotting.yaml").write_text(text[:moving], encoding="utf-8")
    edit(new, "topics.yaml", "      - {id: moving, title: Moving units}\n", "")
    edit(new, "opportunity-fire.yaml", "      PL:\n        status: optional\n        option: opportunity-fire\n",
         "      PL:\n        status: rule\n")
    edit(new, "parameters.yaml", "    description: Share of range.\n    default: 1\n",
         "    description: Share of range.\n    default: 1/2\n")
    d = diff_models(model(old), model(new), rulings=False)
    assert d["clauses"]["removed"] == ["spotting.moving"]
    pl = d["clauses"]["changed"]["opportunity-fire.rule"]["cells"]["PL"]
    assert pl["status"] == {"old": "optional", "new": "rule"}
    assert pl["option"] == {"old": "opportunity-fire", "new": None}
    assert d["parameters"]["changed"] == {"opfire.range-fraction": {"default": {"old": 1, "new": "1/2"}}}
    assert d["clauses"]["added"] == []
    back = diff_models(model(new), model(old), rulings=False)
    assert back["clauses"]["added"] == ["spotting.moving"]


# ------------------------------------------------------------ the command

def test_the_command_on_two_folders(pair, capsys):
    old, new = pair
    edit(new, "opportunity-fire.yaml", "opfire.drm: 1,", "opfire.drm: 2,")
    assert main(["diff", str(old), str(new), "--no-rulings"]) == 0
    out = capsys.readouterr().out
    assert "REV param opfire.drm: 1 -> 2" in out
    assert main(["diff", str(old), str(new), "--format", "json", "--no-rulings"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["clauses"]["changed"]["opportunity-fire.rule"]["cells"]["REV"]["params"][0]["new"] == 2


def test_usage_errors_exit_2(tmp_path, capsys):
    assert main(["diff", str(tmp_path / "missing"), str(FIXTURE)]) == 2
    err = capsys.readouterr().err
    # a revision of the checkout holding FIXTURE, or (in a copy outside git) of none
    assert f"'{tmp_path / 'missing'}' is " in err and "a folder" in err


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout


@pytest.fixture
def repo(tmp_path, monkeypatch):
    r = tmp_path / "repo"
    copy(FIXTURE, r / "rules_data")
    git(r, "init", "-q", "-b", "master")
    git(r, "-c", "user.name=t", "-c", "user.email=t@t", "add", "rules_data")
    git(r, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    edit(r / "rules_data", "opportunity-fire.yaml", "opfire.drm: 1,", "opfire.drm: 2,")
    git(r, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "two")
    monkeypatch.chdir(r)
    return r


def test_two_git_revisions(repo, capsys):
    assert main(["diff", "HEAD~1", "HEAD", "--no-rulings"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("harmony diff HEAD~1 (")
    assert "REV param opfire.drm: 1 -> 2" in out
    # a revision against the working folder
    assert main(["diff", "HEAD~1", "rules_data", "--no-rulings"]) == 0
    assert "opfire.drm: 1 -> 2" in capsys.readouterr().out


def test_an_unknown_revision_exits_2(repo, capsys):
    assert main(["diff", "HEAD~5", "HEAD"]) == 2
    assert "HEAD~5" in capsys.readouterr().err


# ------------------------------------------------------------ site pages

def test_changes_rst_keeps_clause_text_as_data(pair):
    old, new = pair
    edit(new, "spotting.yaml", "        text: As the second game, with markers.",
         "        text: 'As the *second* game, `with` markers_ |x| .. raw:: html <b>bold</b>'")
    page = changes_rst(model(old), model(new), "What changed")
    assert page.startswith("What changed\n============\n")
    assert rst_problems(page) == []
    html = docutils.core.publish_parts(page, writer="html")["body"]
    assert "<em>" not in html and "<b>bold</b>" not in html and "&lt;b&gt;bold&lt;/b&gt;" in html


def test_rst_escape_leaves_nothing_to_interpret():
    text = "*a* **b** `c` ``d`` _e_ |f| [1]_ :role:`g` <h>"
    html = docutils.core.publish_parts(rst_escape(text), writer="html")["body"]
    assert "<em>" not in html and "<strong>" not in html and "<code" not in html
    assert "*a* **b** `c` ``d`` _e_ |f| [1]_ :role:`g` &lt;h&gt;" in html


def versions(m) -> dict[str, dict]:
    """The site's what-changed pages, by file name."""
    return {v["file"]: v for v in version_views(m)}


def item(page: dict, clause_id: str) -> dict:
    found = [i for i in page["items"] if i["id"] == clause_id]
    assert len(found) == 1, [i["id"] for i in page["items"]]
    return found[0]


def test_version_pages_of_the_shipped_data():
    m = model(RULES)
    page = versions(m)["changes-rev-0-1"]
    revised = sorted({c.clause_id for cl in m.clauses.values() for k, c in cl.cells.items()
                      if k == "REV" and c.covered and c.relation is not None})
    assert revised and sorted(i["id"] for i in page["items"]) == revised
    # each amending cell stands beside the text it amends, and says how its parameters differ
    # from the base's
    opfire = item(page, "opportunity-fire.rule")
    assert [p["old_cell"] for p in opfire["pairs"]] == m.cell("opportunity-fire.rule@REV").relation.clauses
    base = {p["name"]: p for p in opfire["params"]}
    assert base["opfire.drm"] == {"name": "opfire.drm", "label": base["opfire.drm"]["label"],
                                  "was": "0", "now": "+1"}


# ------------------------------------------- v0.2 of REV: concealed movement standard

SCENARIO = """\
scenario:
  id: concealed-entry
  title: Infantry slips into the woods
  summary: An infantry platoon spends its whole allowance to step into woods in full view
    of an enemy gun two hexes away.
  clauses: [movement.concealed, movement.spotting]
  rulesets: [REV, REV+concealed-movement]
  map: {columns: 4, rows: 1, terrain: clear, hexes: {C1: woods}}
  units:
    - {id: gun, side: Soviet, kind: gun, class: A, attack: 6, range: 8, defence: 2,
       movement: 0, at: A1}
    - {id: platoon, side: German, kind: infantry, class: I, attack: 6, range: 3, defence: 8,
       movement: 2, at: D1}
  start: {side: German, phase: movement}
  steps:
    - move: {unit: platoon, path: [C1], mode: concealed}
      expect:
        - question: Is the platoon spotted in the woods?
          ask: {spotted: platoon}
          rulings:
            REV: {value: %(rev)s, because: [%(because)s]}
            REV+concealed-movement: {value: false, because: [%(because)s]}
"""


def version_02(tmp_path):
    """The shipped data (old) and a v0.2 of REV in which concealed movement is standard (new)."""
    old = copy(RULES, tmp_path / "old")
    new = copy(RULES, tmp_path / "new")
    edit(new, "movement.yaml", """        status: optional
        text: A unit that moves into an adjacent concealing hex by [[concealed""",
         """        status: rule
        text: A unit that moves into an adjacent concealing hex by [[concealed""")
    edit(new, "movement.yaml", """        option: concealed-movement
        relation: {type: adds, clauses: []}
        params: {spot.concealed-movement: true}""", """        relation: {type: adds, clauses: []}
        params: {spot.concealed-movement: true}
        changed: {version: '0.2', note: 'Concealed movement is standard, no longer optional.'}""")
    edit(new, "sources.yaml", "    version: '0.1'\n    date: '2013-04-05'\n    kind: revision\n",
         "    version: '0.2'\n    date: '2014-01-01'\n    kind: revision\n")
    edit(new, "sources.yaml", """        note: First published version of the revised spotting and opportunity fire
          rules.
""", """        note: First published version of the revised spotting and opportunity fire
          rules.
      - version: '0.2'
        date: '2014-01-01'
        note: Concealed movement becomes a standard rule.
""")
    return old, new


def test_v02_changes_text_status_and_version(tmp_path):
    old, new = version_02(tmp_path)
    d = diff_models(model(old), model(new), rulings=False)
    cell = d["clauses"]["changed"]["movement.concealed"]["cells"]["REV"]
    assert cell["status"] == {"old": "optional", "new": "rule"}
    assert "REV changed: (none) -> 0.2: Concealed movement is standard" in to_text(d)
    assert "REV versions: 0.1 (2013-04-05) -> 0.1 (2013-04-05); 0.2 (2014-01-01)" in to_text(d)
    assert cell["changed"]["new"] == {"version": "0.2", "note": "Concealed movement is standard, no "
                                      "longer optional."}
    assert "REV" in d["sources"]["changed"]
    pages = versions(model(new))
    assert sorted(pages) == ["changes-rev-0-1", "changes-rev-0-2"]
    concealed = item(pages["changes-rev-0-2"], "movement.concealed")
    assert concealed["changed"].startswith("Concealed movement is standard")
    assert concealed["status"] == "rule"


def test_v02_changes_the_ruling_of_a_scenario(tmp_path, capsys):
    old, new = version_02(tmp_path)
    because = "movement.concealed, movement.spotting"
    (old / "scenarios" / "concealed-entry.yaml").write_text(
        SCENARIO % {"rev": "true", "because": because}, encoding="utf-8")
    (new / "scenarios" / "concealed-entry.yaml").write_text(
        SCENARIO % {"rev": "false", "because": because}, encoding="utf-8")
    d = diff_models(model(old), model(new))
    rows = [r for r in d["rulings"] if r["scenario"] == "concealed-entry"]
    assert [(r["ruleset"], r["before"], r["after"]) for r in rows] == [("REV", True, False)], d["rulings"]
    assert "movement.concealed" in rows[0]["clauses"]
    assert "movement.concealed" in rows[0]["changed_clauses"]
    # the shipped scenarios run on both sides
    assert not [p for p in d["engine"] if p["scenario"] != "concealed-entry"]
    assert main(["diff", str(old), str(new)]) == 0
    out = capsys.readouterr().out
    assert "~ concealed-entry step" in out and "REV: Is the platoon spotted" in out
    assert "before: true" in out and "after:  false" in out


def test_the_command_writes_a_what_changed_page(pair, capsys):
    old, new = pair
    edit(new, "opportunity-fire.yaml", "opfire.drm: 1,", "opfire.drm: 2,")
    assert main(["diff", str(old), str(new), "--format", "rst", "--no-rulings"]) == 0
    page = capsys.readouterr().out
    assert rst_problems(page) == []
    assert "- parameter ``opfire.drm``: \\+1 → \\+2" in page


def test_version_pages_read_the_previous_version_from_git(repo):
    """REV 0.2 committed over 0.1: its page shows what each changed cell was."""
    data = repo / "rules_data"
    edit(data, "sources.yaml", "    version: '0.1'\n    date: '2013-04-05'\n",
         "    version: '0.2'\n    date: '2014-01-01'\n")
    edit(data, "sources.yaml", "        note: First version.\n",
         "        note: First version.\n      - version: '0.2'\n        date: '2014-01-01'\n"
         "        note: Sharper opportunity fire.\n")
    edit(data, "opportunity-fire.yaml", "A spotted mover entering a hex", "A spotted mover that enters a hex")
    edit(data, "opportunity-fire.yaml", "opfire.drm: 2,", "opfire.drm: 3,")
    edit(data, "opportunity-fire.yaml", "        requires: [spotting.rule]\n",
         "        requires: [spotting.rule]\n        changed: {version: '0.2', note: Modifier raised.}\n")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "REV 0.2")
    pages = versions(model(data))
    assert sorted(pages) == ["changes-rev-0-1", "changes-rev-0-2"]
    two = item(pages["changes-rev-0-2"], "opportunity-fire.rule")
    # against the cell as it was at 0.1, read from the commit before 0.2
    assert [p["old_cell"] for p in two["pairs"]] == ["opportunity-fire.rule@REV"]
    pieces = two["pairs"][0]["pieces"]
    assert ("delete", "entering") in pieces and ("insert", "that enters") in pieces
    # the previous version is the last commit before 0.2 (drm +2), not the first one (+1)
    assert two["params"] == [{"name": "opfire.drm", "label": two["params"][0]["label"],
                              "was": "+2", "now": "+3"}]
    # the 0.1 page shows the 0.1 text, read from the commit where REV was at 0.1
    one = item(pages["changes-rev-0-1"], "opportunity-fire.rule")
    words = " ".join(w for _, w in one["pairs"][0]["pieces"])
    assert "mover entering a hex" in words and "that enters" not in words


def test_an_older_state_without_a_new_parameter_is_still_played(tmp_path, capsys):
    # The state before AIW's counters moved to the end of the movement phase: the
    # parameter was not declared yet and AIW marked its firers as they fired.
    old, new = copy(RULES, tmp_path / "old"), copy(RULES, tmp_path / "new")
    params = (old / "parameters.yaml").read_text("utf-8")
    start = params.index("  - name: spot.markers-end-of-movement")
    end = params.index("  - name:", start + 1) if "  - name:" in params[start + 1:] else len(params)
    (old / "parameters.yaml").write_text(params[:start] + params[end:], "utf-8")
    edit(old, "spotting.yaml", "spot.markers-end-of-movement: true", "spot.firer-in-los: true")
    assert not model(old).parameters.get("spot.markers-end-of-movement")
    d = diff_models(model(old), model(new))
    assert d["engine"] == []                       # both sides ran
    assert d["assumed"]["parameters"] == ["spot.markers-end-of-movement"]
    rows = {(r["scenario"], r["step"], r["ruleset"]): r for r in d["rulings"]}
    r = rows[("rev-figure-2", 1, "AIW")]          # steps numbered from 1, as pytest does
    assert (r["before"], r["after"]) == (["spotted"], []) and r["reasons_before"] == ["spotting.recording"]
    assert all(x["ruleset"] == "AIW" for x in d["rulings"])
    assert main(["diff", str(old), str(new)]) == 0
    out = capsys.readouterr().out
    assert "not run" not in out and "spot.markers-end-of-movement at the new default" in out


# ------------------------------------------- issue 17: where revisions come from, what is diffed

@pytest.fixture
def outside(tmp_path, monkeypatch):
    """A current folder in no git repository (git may not look above tmp_path)."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    folder = tmp_path / "outside"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def test_a_revision_outside_any_repository_is_a_usage_error_naming_the_folder(outside, capsys):
    # harmony itself is installed from a git checkout: that repository must not be read
    assert main(["diff", "HEAD~1", "HEAD", "--no-rulings"]) == 2
    err = capsys.readouterr().err
    assert f"no git repository holds the current folder {outside}" in err
    assert "'HEAD~1' is not a folder" in err
    assert str(ROOT) not in err and "Traceback" not in err
    # a folder as the other side is named too
    rules = copy(FIXTURE, outside / "rules_data")
    assert main(["diff", "HEAD", str(rules), "--no-rulings"]) == 2
    err = capsys.readouterr().err
    assert str(rules.resolve()) in err and str(outside) in err


def test_revisions_are_read_from_the_repository_of_the_folder_side(repo, outside, capsys):
    # run from outside any repository: the folder names the repository (HEAD~1 has drm 1)
    assert main(["diff", "HEAD~1", str(repo / "rules_data"), "--no-rulings"]) == 0
    out = capsys.readouterr().out
    assert "REV param opfire.drm: 1 -> 2" in out


def test_any_revision_git_accepts(repo, capsys):
    git(repo, "tag", "-a", "-m", "first", "v1", "HEAD~1")          # an annotated tag: peeled
    for old, new in ((":/one", ":/two"), ("v1", "HEAD"), ("HEAD@{1}", "@"), ("HEAD^", "master@{0}")):
        assert main(["diff", old, new, "--no-rulings"]) == 0, (old, new, capsys.readouterr().err)
        out = capsys.readouterr().out
        assert out.startswith(f"harmony diff {old} (") and "REV param opfire.drm: 1 -> 2" in out
    # not a commit, not a revision, not an option of git: usage errors naming what was given
    for bad in ("HEAD:rules_data", ":/no such message", "--output=x"):
        assert main(["diff", "--", bad, "HEAD"]) == 2
        assert f"'{bad}' is neither a folder nor a revision" in capsys.readouterr().err
    assert not (repo / "x").exists()


ENTRY_EDITS = {
    "topics": ("topics.yaml", "order: 10\n", "order: 11\n", "spotting", "order", None),
    "glossary": ("glossary.yaml", "Known well enough to be fired on.",
                 "Known well enough to be shot at.", "spotted", "definition",
                 "[-fired on.-]{+shot at.+}"),
    "notes": ("notes.yaml", "title: Crossing open ground untouched",
              "title: Crossing open ground unharmed", "rev-open-ground", "title",
              "ground [-untouched-]{+unharmed+}"),
    "footnotes": ("footnotes.yaml", "That is, the unit uses up its whole movement allowance",
                  "That is, the unit spends its whole movement allowance", "rev-spotting-3", "text",
                  "unit [-uses up-]{+spends+} its"),
    "sources": ("sources.yaml", "    author: James F. Dunnigan\n", "    author: J. F. Dunnigan\n",
                "PB", "author", None),
}


@pytest.mark.parametrize("section", sorted(ENTRY_EDITS))
def test_topics_glossary_notes_footnotes_and_sources_are_diffed(tmp_path, capsys, section):
    name, before, after, key, field, words = ENTRY_EDITS[section]
    old, new = copy(RULES, tmp_path / "old"), copy(RULES, tmp_path / "new")
    edit(new, name, before, after)
    m_old, m_new = model(old), model(new)
    d = diff_models(m_old, m_new, rulings=False)
    change = d[section]["changed"][key][field]
    if words:
        assert change["diff"].count("[-") == 1 and words in change["diff"]
    assert d["clauses"] == {"added": [], "removed": [], "changed": {}}
    text = to_text(d)
    assert "no changes" not in text and f"{section}: 0 added, 0 removed, 1 changed" in text
    line = next(x for x in text.splitlines() if x.startswith(f"~ {key} {field}: "))
    assert (words or "->") in line
    page = changes_rst(m_old, m_new, "What changed", rulings=False)
    assert "Nothing changed" not in page and rst_problems(page) == []
    assert main(["diff", str(old), str(new), "--format", "json", "--no-rulings"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert field in data[section]["changed"][key]


def test_entries_added_reflowed_and_a_topics_aspects(tmp_path):
    old, new = copy(RULES, tmp_path / "old"), copy(RULES, tmp_path / "new")
    # reflowing prose is no change
    edit(new, "glossary.yaml", "Known well enough to be fired on. A unit",
         "Known well enough to be\n      fired on.   A unit")
    assert is_empty(diff_models(model(old), model(new), rulings=False))
    # a new footnote is added; an aspect's title changes, named by its id
    edit(new, "footnotes.yaml", "footnotes:\n", "footnotes:\n  - id: zz-new\n    source: REV\n"
         "    text: A footnote of our own.\n")
    text = (new / "topics.yaml").read_text("utf-8")
    aspect = text.index("      - id: rule", text.index("  - id: spotting"))
    title = text.index("title: ", aspect)
    end = text.index("\n", title)
    (new / "topics.yaml").write_text(text[:title] + "title: The spotting rule" + text[end:], "utf-8")
    d = diff_models(model(old), model(new), rulings=False)
    assert d["footnotes"]["added"] == ["zz-new"]
    ch = d["topics"]["changed"]["spotting"]
    assert list(ch) == ["aspect rule title"] and ch["aspect rule title"]["new"] == "The spotting rule"
    assert "+ zz-new" in to_text(d)
    back = diff_models(model(new), model(old), rulings=False)
    assert back["footnotes"]["removed"] == ["zz-new"]
